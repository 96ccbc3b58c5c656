/*
 * tests/test_ircheck_cache.c - pins the IR checker's context recycling
 * (1000 checks, a new MLIR context every 100, nothing leaked) and the
 * verdict cache (irmemo.h: hits only for an equal expectation and module
 * text, every verdict equal to the direct judgement), on the hand-written
 * modules of ircheck_modules.h.
 */
#include "ircheck_modules.h"
#include "irmemo.h"

//===----------------------------------------------------------------------===//
// Recycling
//===----------------------------------------------------------------------===//

static void test_recycle(void **state) {
  (void)state;
  lctx_ircheck *ck = lctx_ircheck_create();
  assert_non_null(ck);
  lctx_ircheck_recycle(ck, 100);
  lctx_ir_expectation e;
  ex_nested(&e, true);
  lctx_ir_report r;
  for (int i = 0; i < 1000; ++i) {
    const char *text = i % 2 ? nested_defect : nested_defect_hlo;
    assert_false(lctx_ircheck_run(ck, lctx_str_from_cstr(text), &e, &r));
    assert_int_equal(r.count, 1);
    assert_string_equal(r.violations[0].row, "IR-006");
  }
  assert_int_equal(lctx_ircheck_contexts_created(ck), 10);
  lctx_ircheck_destroy(ck);
}

//===----------------------------------------------------------------------===//
// The verdict cache (irmemo.h)
//===----------------------------------------------------------------------===//

/* Judges `text` under `store` through the cache and directly; the two
 * verdicts must be equal, the cached one's ok `want_ok` and the cache's
 * hits so far `want_hits`. */
static void memo_judge(lctx_ir_memo *m, lctx_ircheck *ck, const char *text,
                       const lctx_ir_expect_store *store, bool want_ok,
                       size_t want_hits) {
  static lctx_ir_report r;
  lctx_ir_verdict v, direct;
  bool ok = lctx_ir_memo_judge(m, ck, lctx_str_from_cstr(text), store, &r, &v);
  lctx_ir_judge(ck, lctx_str_from_cstr(text), store, &r, &direct);
  assert_int_equal(ok, v.ok);
  assert_int_equal(v.ok, direct.ok);
  assert_int_equal(v.applicable, direct.applicable);
  assert_string_equal(v.row, direct.row);
  assert_string_equal(v.reason, direct.reason);
  assert_int_equal(ok, want_ok);
  assert_int_equal(lctx_ir_memo_hits(m), want_hits);
}

/* A module judged again under an equal expectation (even one whose names
 * live elsewhere) comes from the cache; the same module under another
 * expectation, or another module, is judged anew, and every verdict equals
 * the direct judgement. */
static void test_memo(void **state) {
  (void)state;
  lctx_ircheck *ck = lctx_ircheck_create();
  lctx_ir_memo *m = lctx_ir_memo_new();
  assert_non_null(ck);
  assert_non_null(m);
  static lctx_ir_expect_store good, moved, other;
  ex_single(&good.expect);
  ex_single(&moved.expect);
  char cpu[] = "cpu", rule[] = "P.cpu";
  moved.expect.platforms[0] = cpu;
  moved.expect.intended[0].names[0] = rule;
  ex_init(&other.expect, 0, "cpu", NULL);
  ex_dispatch(&other.expect, 1, 1);
  ex_rules(&other.expect.intended[0], "P.gpu", NULL);

  memo_judge(m, ck, single_platform, &good, true, 0);
  memo_judge(m, ck, single_platform, &good, true, 1);
  memo_judge(m, ck, single_platform, &moved, true, 2);
  /* The same text under another expectation fails, and is not a hit. */
  memo_judge(m, ck, single_platform, &other, false, 2);
  memo_judge(m, ck, single_platform, &other, false, 3);
  /* Another module under the first expectation: judged anew, fails. */
  memo_judge(m, ck, two_platforms, &good, false, 3);
  memo_judge(m, ck, single_platform, &good, true, 4);
  lctx_ir_memo_free(m);
  lctx_ircheck_destroy(ck);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_recycle),
      cmocka_unit_test(test_memo),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
