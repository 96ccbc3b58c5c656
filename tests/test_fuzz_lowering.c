/*
 * test_fuzz_lowering.c - pins the fuzz_lowering check (harness/ir/fuzzlower.c)
 * on its committed seeds: each decodes to the scenario its README names
 * (raise, direct call, dispatch, nested defect), and none is a finding; the
 * defect seeds show IR-006 for the right number of platform indices; the
 * contexts are recreated every N inputs; the one table of targets names
 * fuzz_lowering, and harness/ir/fuzzrun.h runs it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "check_fx.h"
#include "fuzzlower.h"
#include "fuzzrun.h"

#include <stdio.h>
#include <string.h>

static lctx_fuzz_result g_result;
CHECK_FX_GROUP_OBJECT(lctx_fuzz_lowering_state, g_state,
                      lctx_fuzz_lowering_state_new,
                      lctx_fuzz_lowering_state_free)

/* Reads a committed seed into `data`; returns its size. */
static size_t read_seed(const char *name, uint8_t *data, size_t cap) {
  char path[1024];
  snprintf(path, sizeof path, "%s/corpus/seeds/fuzz_lowering/%s.bin",
           LCTX_SOURCE_DIR, name);
  FILE *f = fopen(path, "rb");
  if (!f)
    fail_msg("cannot open %s", path);
  size_t n = fread(data, 1, cap, f);
  fclose(f);
  return n;
}

static const lctx_fuzz_lowering_info *run_seed(const char *name) {
  uint8_t data[256];
  size_t n = read_seed(name, data, sizeof data);
  if (lctx_fuzz_lowering(g_state, data, n, &g_result))
    fail_msg("%s: finding %s\n%s", name, g_result.key, g_result.report);
  const lctx_fuzz_lowering_info *info = lctx_fuzz_lowering_last(g_state);
  assert_true(info->decoded);
  return info;
}

static void test_success_seeds(void **state) {
  (void)state;
  const char *ok[] = {"single-cpu-direct-call", "two-platforms-cpu-tpu",
                      "two-platforms-cpu-tpu-x64",
                      "narrowed-top-three-level-chain",
                      "gpu-rule-two-slots-cuda-rocm"};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    const lctx_fuzz_lowering_info *info = run_seed(ok[i]);
    if (!info->checked)
      fail_msg("%s: not checked (raised %s: %s)", ok[i], info->raise_class,
               info->raise_text);
    assert_false(info->saw_ir006);
    assert_int_equal(info->defect_indices, 0);
  }
  assert_int_equal(run_seed("two-platforms-cpu-tpu")->dispatch_count, 1);
}

static void test_defect_seeds_show_ir_006(void **state) {
  (void)state;
  const lctx_fuzz_lowering_info *info = run_seed("nested-defect-cpu-tpu-cuda");
  assert_true(info->checked);
  assert_true(info->saw_ir006);
  assert_int_equal(info->defect_indices, 1);
  info = run_seed("nested-defect-cpu-tpu-cuda-rocm");
  assert_true(info->saw_ir006);
  assert_int_equal(info->defect_indices, 2);
}

static void test_raising_seeds(void **state) {
  (void)state;
  const lctx_fuzz_lowering_info *info = run_seed("raise-not-found-singular");
  assert_true(info->raised);
  assert_string_equal(info->raise_text, "MLIR translation rule for primitive "
                                        "'P' not found for platform tpu");
  info = run_seed("raise-not-found-plural-duplicates");
  assert_string_equal(info->raise_text,
                      "MLIR translation rule for primitive 'P' not found for "
                      "platforms ['cpu', 'cpu', 'cuda']");
  info = run_seed("raise-if-multi");
  assert_true(info->raised);
  assert_string_equal(info->raise_class, "NotImplementedError");
}

static void test_contexts_recycled(void **state) {
  (void)state;
  lctx_fuzz_lowering_set_recycle(g_state, 3);
  size_t before = lctx_fuzz_lowering_contexts_created(g_state);
  for (int i = 0; i < 7; i++)
    run_seed("two-platforms-cpu-tpu");
  assert_true(lctx_fuzz_lowering_contexts_created(g_state) >= before + 2);
  lctx_fuzz_lowering_set_recycle(g_state, LCTX_FUZZ_LOWERING_RECYCLE);
}

/* Two states share nothing: each has its own contexts and last input. */
static void test_states_are_independent(void **state) {
  (void)state;
  lctx_fuzz_lowering_state *other = lctx_fuzz_lowering_state_new();
  assert_non_null(other);
  size_t created = lctx_fuzz_lowering_contexts_created(g_state);
  assert_int_equal(lctx_fuzz_lowering_contexts_created(other), 1);
  run_seed("raise-if-multi");
  uint8_t data[256];
  size_t n = read_seed("two-platforms-cpu-tpu", data, sizeof data);
  assert_false(lctx_fuzz_lowering(other, data, n, &g_result));
  assert_true(lctx_fuzz_lowering_last(other)->checked);
  assert_true(lctx_fuzz_lowering_last(g_state)->raised);
  assert_int_equal(lctx_fuzz_lowering_contexts_created(g_state), created);
  lctx_fuzz_lowering_state_free(other);
}

/* The one table names fuzz_lowering (needing MLIR, no core check), and
 * fuzzrun runs it like any other row. */
static void test_table_row_runs(void **state) {
  (void)state;
  const lctx_fuzz_target *t = lctx_fuzz_target_find("fuzz_lowering");
  assert_non_null(t);
  assert_true(t->needs_mlir);
  assert_null(t->check);
  uint8_t data[256];
  size_t n = read_seed("two-platforms-cpu-tpu", data, sizeof data);
  assert_false(lctx_fuzzrun_once(t, data, n, &g_result));
  lctx_fuzzrun *run = lctx_fuzzrun_new();
  assert_non_null(run);
  assert_false(lctx_fuzzrun_check(run, t, data, n, &g_result));
  assert_false(lctx_fuzzrun_check(run, lctx_fuzz_target_find("fuzz_model"),
                                  data, n, &g_result));
  lctx_fuzzrun_free(run);
  size_t rows = 0;
  for (const lctx_fuzz_target *r = lctx_fuzz_targets; r->name; r++)
    rows++;
  assert_int_equal(rows, 6);
  /* The generator's target is a core check like fuzz_model. */
  const lctx_fuzz_target *gen = lctx_fuzz_target_find("fuzz_program");
  assert_non_null(gen);
  assert_false(gen->needs_mlir);
  assert_non_null(gen->check);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_success_seeds),
      cmocka_unit_test(test_defect_seeds_show_ir_006),
      cmocka_unit_test(test_raising_seeds),
      cmocka_unit_test(test_contexts_recycled),
      cmocka_unit_test(test_states_are_independent),
      cmocka_unit_test(test_table_row_runs),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
