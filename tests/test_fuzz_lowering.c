/*
 * test_fuzz_lowering.c - pins the fuzz_lowering check (harness/fuzzlower.c)
 * on its committed seeds: each decodes to the scenario its README names
 * (raise, direct call, dispatch, nested defect), and none is a finding; the
 * defect seeds show IR-006 for the right number of platform indices; the
 * contexts are recreated every N inputs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fuzzlower.h"

#include <stdio.h>
#include <string.h>

static lctx_fuzz_result g_result;

static const lctx_fuzz_lowering_info *run_seed(const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/corpus/seeds/fuzz_lowering/%s.bin",
           LCTX_SOURCE_DIR, name);
  FILE *f = fopen(path, "rb");
  if (!f)
    fail_msg("cannot open %s", path);
  uint8_t data[256];
  size_t n = fread(data, 1, sizeof data, f);
  fclose(f);
  if (lctx_fuzz_lowering(data, n, &g_result))
    fail_msg("%s: finding %s\n%s", name, g_result.key, g_result.report);
  const lctx_fuzz_lowering_info *info = lctx_fuzz_lowering_last();
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
  lctx_fuzz_lowering_set_recycle(3);
  size_t before = lctx_fuzz_lowering_contexts_created();
  for (int i = 0; i < 7; i++)
    run_seed("two-platforms-cpu-tpu");
  assert_true(lctx_fuzz_lowering_contexts_created() >= before + 2);
  lctx_fuzz_lowering_set_recycle(LCTX_FUZZ_LOWERING_RECYCLE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_success_seeds),
      cmocka_unit_test(test_defect_seeds_show_ir_006),
      cmocka_unit_test(test_raising_seeds),
      cmocka_unit_test(test_contexts_recycled),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
