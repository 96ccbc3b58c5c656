/*
 * tests/test_runner.c - pins the case runner's variants (harness/core/run/
 * runner.h): a variant of an operation run from the state kept by
 * lctx_runner_run_all has the outcome the operation has when the case is
 * replayed up to it.
 *
 * - lctx_runner_keeps: false before lctx_runner_run_all and past the last
 *   operation, true for every operation after it.
 * - Over random cases (every operation kind, partial and failed
 *   registries, several operations): each MODULE_GET_BACKEND operation and
 *   its invariant variants (optional flipped, (p, p) and (p, q), platforms[1:]
 *   reversed) give the same outcome through lctx_runner_variant (the
 *   operation), lctx_runner_variant_module (its module context) and a replay
 *   on a fresh runner; lctx_runner_variant_module runs nothing without a
 *   kept state.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "domain.h"
#include "runner.h"

typedef struct fixture {
  lctx_case c;
  lctx_runner kept, replay;
  lctx_outcome all[LCTX_CASE_MAX_OPS];
  lctx_outcome by_op, by_context, by_replay;
  lctx_case_op op;
  lctx_module_context context;
  size_t compared, clients, raises, nones;
} fixture;

/* The outcome of `op` (a variant of operation `index`) three ways: all
 * three must be the same value. */
static void compare(fixture *f, size_t index, const lctx_case_op *op) {
  assert_true(lctx_runner_variant(&f->kept, index, op, &f->by_op));
  lctx_case_module_context(&f->c, op, &f->context);
  assert_true(lctx_runner_variant_module(&f->kept, index, &f->context,
                                         op->optional, &f->by_context));
  lctx_runner_init(&f->replay, &f->c);
  for (size_t i = 0; i < index; i++)
    lctx_runner_op(&f->replay, &f->c.ops[i], &f->by_replay, NULL);
  lctx_runner_op(&f->replay, op, &f->by_replay, NULL);
  if (!lctx_outcome_equal(&f->by_op, &f->by_replay) ||
      !lctx_outcome_equal(&f->by_context, &f->by_replay))
    fail_msg("op %zu: by op '%s', by context '%s', replayed '%s'", index,
             f->by_op.text, f->by_context.text, f->by_replay.text);
  f->compared++;
  f->clients += f->by_replay.kind == LCTX_OUTCOME_CLIENT;
  f->raises += f->by_replay.kind == LCTX_OUTCOME_RAISE;
  f->nones += f->by_replay.kind == LCTX_OUTCOME_NONE;
}

static void module_variants(fixture *f, size_t index) {
  const lctx_case_op *op = &f->c.ops[index];
  size_t n = op->platform_count;
  lctx_case_op_copy(&f->op, op);
  compare(f, index, &f->op);
  f->op.optional = !op->optional;
  compare(f, index, &f->op);
  f->op.optional = op->optional;
  if (n == 1) {
    f->op.platform_count = 2;
    f->op.platform[1] = op->platform[0];
    compare(f, index, &f->op);
    f->op.platform[1] = LCTX_CASE_NAME_TPU;
    compare(f, index, &f->op);
  }
  if (n >= 3) {
    for (size_t i = 1; i < n; i++)
      f->op.platform[i] = op->platform[n - i];
    compare(f, index, &f->op);
  }
}

static void test_module_variants_agree(void **state) {
  (void)state;
  fixture *f = calloc(1, sizeof *f);
  assert_non_null(f);
  uint64_t seed = 14;
  size_t modules = 0;
  for (int k = 0; k < 16000; k++) {
    lctx_domain_random_case_reuse(&seed, &f->c);
    lctx_runner_init(&f->kept, &f->c);
    assert_false(lctx_runner_keeps(&f->kept, 0));
    assert_false(lctx_runner_variant_module(&f->kept, 0, &f->context, false,
                                            &f->by_context));
    lctx_runner_run_all(&f->kept, f->all);
    for (size_t i = 0; i < f->c.op_count; i++) {
      assert_true(lctx_runner_keeps(&f->kept, i));
      if (f->c.ops[i].kind == LCTX_OP_MODULE_GET_BACKEND) {
        modules++;
        module_variants(f, i);
      }
    }
    assert_false(lctx_runner_keeps(&f->kept, f->c.op_count));
    assert_false(lctx_runner_variant_module(
        &f->kept, f->c.op_count, &f->context, false, &f->by_context));
  }
  /* The comparisons met every kind of module outcome, many times. */
  assert_true(modules > 5000);
  assert_true(f->compared > 3 * modules / 2);
  assert_true(f->clients > 100);
  assert_true(f->raises > 1000);
  assert_true(f->nones > 1000);
  free(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_module_variants_agree),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
