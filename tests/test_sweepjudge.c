/*
 * test_sweepjudge.c - pins the sweep rows: their form in a spec table
 * (`check = sweep`, `refusal`, `bound`, every malformed row named by file,
 * line and column), finding the rows a sweep needs, the refusal templates
 * ({name} stands for one or more characters), and the judge's edge cases
 * the recorded cases of conformance/sweep/cases do not reach: when each
 * platform alone is needed, census calls that are allowed, NaN and the
 * bound in the dispatch comparison, lost answers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "spec.h"
#include "spec_text_fx.h"
#include "sweepjudge.h"

#include "model_dispatch.h"
#include "program_text.h"

#include <string.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SWEEP_PATH LCTX_SOURCE_DIR "/conformance/spec/jax-sweep.lspec"

static lctx_sweep_rows rows;

#define HEAD "spec-version = 1.0.0\n"

static void test_sweep_row_errors(void **state) {
  (void)state;
  expect_error(HEAD "[SW-001]\ncheck = sweep\nop = backends\nsource = x\n",
               "t.lspec:2:1: sweep row 'SW-001' (check = sweep) takes no 'op'");
  expect_error(HEAD "[SW-001]\ncheck = sweep\n",
               "t.lspec:2:1: row 'SW-001' has no 'source'");
  expect_error(HEAD "[AB-001]\nop = backends\noutcome = none\nstrict = "
                    "exact\nsource = x\nbound = 0.5\n",
               "t.lspec:2:1: row 'AB-001' (not check = sweep) takes no "
               "'bound'");
  expect_error(HEAD "[SW-001]\ncheck = sweep\nsource = x\nbound = 2\n",
               "t.lspec:5:9: expected a number from 0 to 1");
  expect_error(HEAD "[SW-001]\ncheck = sweep\nsource = x\nbound = nan\n",
               "t.lspec:5:9: expected a number from 0 to 1");
  expect_error(HEAD "[SW-001]\ncheck = sweep\nsource = x\nrefusal = "
                    "KeyError \"x\"\n",
               "t.lspec:5:11: unknown error class 'KeyError'");
  expect_error(HEAD "[SW-001]\ncheck = sweep\nsource = x\nrefusal = "
                    "ValueError \"a {Name} b\"\n",
               "t.lspec:5:25: a placeholder is {name}, lower-case letters");
  expect_error(HEAD "[SW-001]\ncheck = weird\nsource = x\n",
               "t.lspec:3:9: check must be 'outcome', 'ir' or 'sweep'");
}

static void load_sweep_table(void) {
  char error[512];
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  assert_true(lctx_spec_load(SWEEP_PATH, &spec, &e));
  char why[256];
  assert_true(lctx_sweep_rows_find(&spec, &rows, why, sizeof why));
}

static void test_rows_found(void **state) {
  (void)state;
  load_sweep_table();
  assert_int_equal(rows.refusal_count, 3); /* SW-002, SW-003, SW-008 */
  assert_string_equal(spec.rows[rows.row[LCTX_SWEEP_CENSUS]].id, "SW-006");
  assert_true(spec.rows[rows.row[LCTX_SWEEP_DISPATCH]].bound > 0);
  /* A table without a rule's row is refused, naming it. */
  char why[256], error[256];
  assert_true(parse_text(HEAD "[SW-001]\ncheck = sweep\nsource = x\n", error,
                         sizeof error));
  assert_false(lctx_sweep_rows_find(&spec, &rows, why, sizeof why));
  assert_string_equal(why, "t.lspec: row SW-004 is missing");
}

static lctx_export_raise raise_of(const char *cls, const char *message) {
  lctx_export_raise r;
  memset(&r, 0, sizeof r);
  snprintf(r.cls, sizeof r.cls, "%s", cls);
  snprintf(r.message, sizeof r.message, "%s", message);
  return r;
}

static void test_refusal_templates(void **state) {
  (void)state;
  load_sweep_table();
  lctx_export_raise r = raise_of("NotImplementedError",
                                 "multi-platform lowering for python_callback");
  long row = lctx_sweep_refusal(&rows, &r);
  assert_true(row >= 0);
  assert_string_equal(spec.rows[row].id, "SW-002");
  /* {name} is one or more characters: an empty name is not the refusal. */
  r = raise_of("NotImplementedError", "multi-platform lowering for ");
  assert_int_equal(lctx_sweep_refusal(&rows, &r), -1);
  /* The class must match as well as the message. */
  r = raise_of("ValueError", "multi-platform lowering for python_callback");
  assert_int_equal(lctx_sweep_refusal(&rows, &r), -1);
  /* Two placeholders, the second after a literal that repeats. */
  r = raise_of("NotImplementedError",
               "MLIR translation rule for primitive 'a' not found' not found "
               "for platforms ['tpu']");
  row = lctx_sweep_refusal(&rows, &r);
  assert_true(row >= 0);
  assert_string_equal(spec.rows[row].id, "SW-008");
  r = raise_of("NotImplementedError",
               "MLIR translation rule for primitive 'a' not found for "
               "platform tpu");
  assert_int_equal(lctx_sweep_refusal(&rows, &r), -1);
}

static lctx_export_answer ok_run(double value, const char *digest) {
  static double values[64];
  static size_t used;
  lctx_export_answer a;
  memset(&a, 0, sizeof a);
  a.status = LCTX_EXPORT_OK;
  a.has_run = true;
  snprintf(a.digest, sizeof a.digest, "%s", digest);
  a.output_count = 1;
  snprintf(a.outputs[0].dtype, sizeof a.outputs[0].dtype, "float32");
  a.outputs[0].count = 1;
  a.outputs[0].floating = true;
  values[used % 64] = value;
  a.values = &values[used++ % 64];
  a.value_count = 1;
  return a;
}

static const char *const P[] = {"tpu", "cpu"};
static const char *const R[] = {"cpu", "tpu"};

static size_t judge(lctx_sweep_case *c, lctx_sweep_verdict *v) {
  c->count = 2;
  c->platforms = P;
  return lctx_sweep_judge(&rows, c, v, 32);
}

static const lctx_sweep_verdict *find(const lctx_sweep_verdict *v, size_t n,
                                      const char *row) {
  for (size_t i = 0; i < n; i++) {
    if (strcmp(spec.rows[v[i].row].id, row) == 0)
      return &v[i];
  }
  return NULL;
}

static void test_dispatch_nan_and_bound(void **state) {
  (void)state;
  load_sweep_table();
  lctx_sweep_verdict v[32];
  /* NaN on both sides, different digests (payload bits): equal values. */
  lctx_export_answer a = ok_run(NAN, "1"), b = ok_run(NAN, "2");
  lctx_sweep_case c = {.multi = &a, .cpu_only = &b};
  size_t n = judge(&c, v);
  assert_int_equal(find(v, n, "SW-005")->kind, LCTX_SWEEP_PASS);
  /* NaN against a number is a difference no bound allows. */
  a = ok_run(NAN, "1");
  b = ok_run(1.0, "2");
  n = judge(&c, v);
  assert_int_equal(find(v, n, "SW-005")->kind, LCTX_SWEEP_FAIL);
  /* Just beyond the bound (1e-6 relative) fails; within passes. */
  a = ok_run(1000.0 * (1 + 2e-6), "1");
  b = ok_run(1000.0, "2");
  n = judge(&c, v);
  assert_int_equal(find(v, n, "SW-005")->kind, LCTX_SWEEP_FAIL);
  a = ok_run(1000.0 * (1 + 5e-7), "1");
  n = judge(&c, v);
  assert_int_equal(find(v, n, "SW-005")->kind, LCTX_SWEEP_PASS);
  assert_non_null(strstr(find(v, n, "SW-005")->detail, "within"));
}

/* An answer with cpu among its platforms must carry the call's result: one
 * without it is a crash of the dispatch row, never a dispatch skipped. The
 * same raise of the call on both sides agrees. */
static void test_dispatch_needs_the_run(void **state) {
  (void)state;
  load_sweep_table();
  lctx_sweep_verdict v[32];
  lctx_export_answer a = ok_run(1.0, "1"), b = ok_run(1.0, "1");
  a.has_run = false;
  lctx_sweep_case c = {.multi = &a, .cpu_only = &b};
  size_t n = judge(&c, v);
  assert_int_equal(find(v, n, "SW-005")->kind, LCTX_SWEEP_CRASH);
  a.has_run_error = b.has_run_error = true;
  b.has_run = false;
  a.run_error = b.run_error = raise_of("RuntimeError", "x");
  n = judge(&c, v);
  assert_int_equal(find(v, n, "SW-005")->kind, LCTX_SWEEP_PASS);
  b.run_error = raise_of("ValueError", "x");
  n = judge(&c, v);
  assert_int_equal(find(v, n, "SW-005")->kind, LCTX_SWEEP_FAIL);
}

static void test_census_allowed_calls(void **state) {
  (void)state;
  load_sweep_table();
  lctx_census_call calls[3] = {
      {.kind = LCTX_CENSUS_GET_BACKEND,
       .optional = 1,
       .gave = LCTX_CENSUS_GAVE_NONE,
       .file = "jax/_src/a.py",
       .line = 1,
       .primitive = "a",
       .platforms = 2},
      {.kind = LCTX_CENSUS_GET_BACKEND,
       .optional = 0,
       .gave = LCTX_CENSUS_GAVE_CLIENT,
       .file = "jax/_src/b.py",
       .line = 2,
       .primitive = "b",
       .platforms = 1},
      {.kind = LCTX_CENSUS_TRUNCATED,
       .optional = -1,
       .gave = LCTX_CENSUS_GAVE_NONE},
  };
  lctx_export_answer a = ok_run(1, "1");
  a.census = calls;
  a.census_count = 3;
  lctx_sweep_case c = {.multi = &a};
  lctx_sweep_verdict v[32];
  size_t n = judge(&c, v);
  assert_int_equal(find(v, n, "SW-006")->kind, LCTX_SWEEP_PASS);
  /* The same call site twice is one finding. */
  calls[0].optional = 0;
  calls[1] = calls[0];
  n = judge(&c, v);
  size_t fails = 0;
  for (size_t i = 0; i < n; i++)
    fails += v[i].kind == LCTX_SWEEP_FAIL &&
             strcmp(spec.rows[v[i].row].id, "SW-006") == 0;
  assert_int_equal(fails, 1);
  assert_string_equal(find(v, n, "SW-006")->key,
                      "SW-006 get_backend() at jax/_src/a.py:1");
}

static void test_alone_needed_and_lost(void **state) {
  (void)state;
  load_sweep_table();
  lctx_export_answer m;
  memset(&m, 0, sizeof m);
  m.status = LCTX_EXPORT_RAISE;
  m.raised = raise_of("TypeError", "x");
  lctx_sweep_case c = {.multi = &m, .count = 2, .platforms = P};
  assert_true(lctx_sweep_needs_alone(&rows, &c));
  /* A refusal needs no platform alone. */
  m.raised = raise_of("NotImplementedError",
                      "multi-platform lowering for buffer_callback");
  assert_false(lctx_sweep_needs_alone(&rows, &c));
  /* An answer lost on a platform alone is a timeout of completeness. */
  m.raised = raise_of("TypeError", "x");
  lctx_export_answer ok = ok_run(1, "1"), lost;
  memset(&lost, 0, sizeof lost);
  lost.status = LCTX_EXPORT_TIMEOUT;
  snprintf(lost.error, sizeof lost.error, "no answer within 1.0 s (hang)");
  c.alone[0] = &ok;
  c.alone[1] = &lost;
  lctx_sweep_verdict v[32];
  size_t n = judge(&c, v);
  assert_int_equal(find(v, n, "SW-001")->kind, LCTX_SWEEP_TIMEOUT);
  /* And a reordering lost is a crash of the order row. */
  lctx_export_answer crashed;
  memset(&crashed, 0, sizeof crashed);
  crashed.status = LCTX_EXPORT_CRASH;
  c.reorder = R;
  c.reordered = &crashed;
  n = judge(&c, v);
  assert_int_equal(find(v, n, "SW-004")->kind, LCTX_SWEEP_CRASH);
}

/* lctx's model of a generated primitive's dispatch: each kept rule with
 * the platforms it is lowered for, in kept order; no dispatch when a
 * platform has no rule. */
static void test_model_dispatch(void **state) {
  (void)state;
  const char *text = "lctx-program 1\narg float32 2\nprim p0\n"
                     "rule p0 cpu add 1\nrule p0 default add 10\n"
                     "prim p1\nrule p1 cuda add 1\nrule p1 tpu add 2\n"
                     "fun main\nv0 = prim p0 x\nv1 = prim p1 v0\nret v1\n";
  lctx_program_desc p;
  char why[256];
  assert_true(lctx_program_parse(text, strlen(text), &p, why, sizeof why));
  lctx_dispatch_event e;
  const char *tpu_cpu_cuda[] = {"tpu", "cpu", "cuda"};
  assert_true(lctx_model_dispatch(&p, 0, tpu_cpu_cuda, 3, &e));
  assert_string_equal(e.primitive, "p0");
  assert_int_equal(e.rule_count, 2);
  /* SW-009 compares the rules as a set (dispatch_text sorts them). */
  int d = strcmp(e.rules[0].rule, "default") == 0 ? 0 : 1;
  assert_string_equal(e.rules[d].rule, "default");
  assert_int_equal(e.rules[d].count, 2);
  assert_string_equal(e.rules[d].platforms[0], "tpu");
  assert_string_equal(e.rules[d].platforms[1], "cuda");
  assert_string_equal(e.rules[1 - d].rule, "cpu");
  assert_int_equal(e.rules[1 - d].count, 1);
  assert_string_equal(e.rules[1 - d].platforms[0], "cpu");
  /* One platform: the rule is called directly, for that platform. */
  const char *cpu[] = {"cpu"};
  assert_true(lctx_model_dispatch(&p, 0, cpu, 1, &e));
  assert_int_equal(e.rule_count, 1);
  assert_string_equal(e.rules[0].rule, "cpu");
  /* p1 has no rule for cpu and no default: the model raises. */
  assert_false(lctx_model_dispatch(&p, 1, tpu_cpu_cuda, 3, &e));
  const char *cuda_tpu[] = {"cuda", "tpu"};
  assert_true(lctx_model_dispatch(&p, 1, cuda_tpu, 2, &e));
  assert_int_equal(e.rule_count, 2);
  assert_false(lctx_model_dispatch(&p, 7, cpu, 1, &e));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sweep_row_errors),
      cmocka_unit_test(test_rows_found),
      cmocka_unit_test(test_refusal_templates),
      cmocka_unit_test(test_dispatch_nan_and_bound),
      cmocka_unit_test(test_dispatch_needs_the_run),
      cmocka_unit_test(test_census_allowed_calls),
      cmocka_unit_test(test_alone_needed_and_lost),
      cmocka_unit_test(test_model_dispatch),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
