/*
 * tests/op_table/test_op_table.c - an operation added through the table of
 * operations (harness/core/case/case_ops.h) and nothing else.
 *
 * This test's build compiles the core and the JSON form with
 * LCTX_OPS_EXTRA_HEADER="op_dummy.h": the `dummy` operation is a line of
 * op_dummy.h and a table entry in op_dummy.c, and no file of harness/
 * names it. It shows that the table alone gives the operation its keyword,
 * its text, byte and JSON forms (each a round trip, plus the exact text and
 * JSON, and its kind byte decoded), its validation, the reference model's
 * dispatch and the release check, its classification, the implementation
 * ABI's dispatch, and its share of the bounded domain.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "case_bytes.h"
#include "case_json.h"
#include "case_ops.h"
#include "case_text.h"
#include "classify.h"
#include "domain.h"
#include "runner.h"

static const char TEXT[] =
    "lctx-case 1\n"
    "factory \"cpu\" priority=0 loud client\n"
    "nvidia_gpu hidden\n"
    "op backends\n"
    "op dummy name=\"tpu\" platforms=[\"cpu\", \"rocm\"] flag=true\n"
    "op dummy name=\"x\" platforms=[]\n";

/* Large: kept off the stack. */
static lctx_case g_a, g_b;
static lctx_case_expect g_ea;
static char g_text[1 << 16];

static void parse_or_fail(const char *text, lctx_case *c) {
  char error[512] = "";
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  bool ok = lctx_case_parse(text, strlen(text), "t.case", c, &g_ea, &e);
  if (!ok)
    print_error("%s\n", error);
  assert_true(ok);
}

static void test_table_holds_the_operation(void **state) {
  (void)state;
  assert_int_equal(LCTX_OP_KIND_COUNT, 7);
  lctx_op_kind kind;
  assert_true(lctx_op_kind_from_name(lctx_str_from_cstr("dummy"), &kind));
  assert_int_equal(kind, LCTX_OP_DUMMY);
  assert_string_equal(lctx_op_kind_name(LCTX_OP_DUMMY), "dummy");
  assert_ptr_equal(lctx_op_get(LCTX_OP_DUMMY), &lctx_op_dummy);
}

static void test_text_form(void **state) {
  (void)state;
  parse_or_fail(TEXT, &g_a);
  assert_int_equal(g_a.op_count, 3);
  const lctx_case_op *op = &g_a.ops[1];
  assert_int_equal(op->kind, LCTX_OP_DUMMY);
  assert_true(op->has_arg);
  assert_string_equal(op->arg, "tpu");
  assert_int_equal(op->platform_count, 2);
  assert_string_equal(lctx_case_op_platform(&g_a, op, 1), "rocm");
  assert_true(op->optional);
  assert_false(g_a.ops[2].optional);
  char error[256] = "";
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  assert_true(lctx_case_validate(&g_a, &e));
  /* Printed canonically: the same text. */
  lctx_buf out;
  lctx_buf_init(&out, g_text, sizeof g_text);
  lctx_case_print(&g_a, NULL, &out);
  assert_string_equal(g_text, TEXT);
}

static void test_text_errors_name_the_operation(void **state) {
  (void)state;
  char error[512] = "";
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  const char *bad = "lctx-case 1\nop dumy\n";
  assert_false(lctx_case_parse(bad, strlen(bad), "t.case", &g_b, NULL, &e));
  assert_non_null(strstr(error, "register_lowering, lower_per_platform or "
                                "dummy)"));
  lctx_buf_init(&e, error, sizeof error);
  bad = "lctx-case 1\nop dummy platforms=[]\n";
  assert_false(lctx_case_parse(bad, strlen(bad), "t.case", &g_b, NULL, &e));
  assert_non_null(strstr(error, "`name=\"...\"`"));
}

static void test_byte_form(void **state) {
  (void)state;
  parse_or_fail(TEXT, &g_a);
  uint8_t bytes[LCTX_CASE_BYTES_MAX];
  size_t n = lctx_case_encode(&g_a, bytes, sizeof bytes);
  assert_true(n <= sizeof bytes);
  lctx_case_decode(bytes, n, &g_b);
  assert_true(lctx_case_equal(&g_a, &g_b));
  /* The kind byte 0x50 (bit 6, and bit 4 for the flag) is the dummy. */
  const uint8_t one[] = {0, 0, 0, 0, 0, 1, 0x50, 1, 0, 0};
  lctx_case_decode(one, sizeof one, &g_b);
  assert_int_equal(g_b.op_count, 1);
  assert_int_equal(g_b.ops[0].kind, LCTX_OP_DUMMY);
  assert_true(g_b.ops[0].optional);
  assert_string_equal(g_b.ops[0].arg, "cpu");
}

static void test_json_form(void **state) {
  (void)state;
  parse_or_fail(TEXT, &g_a);
  json_t *j = lctx_case_to_json(&g_a, NULL);
  assert_non_null(j);
  char *s = json_dumps(json_array_get(json_object_get(j, "operations"), 1),
                       JSON_COMPACT);
  assert_string_equal(s, "{\"op\":\"dummy\",\"name\":\"tpu\",\"platforms\":"
                         "[\"cpu\",\"rocm\"],\"flag\":true}");
  free(s);
  char error[256] = "";
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  assert_true(lctx_case_from_json(j, &g_b, NULL, &e));
  assert_true(lctx_case_equal(&g_a, &g_b));
  json_object_set_new(json_array_get(json_object_get(j, "operations"), 2),
                      "bogus", json_true());
  lctx_buf_init(&e, error, sizeof error);
  assert_false(lctx_case_from_json(j, &g_b, NULL, &e));
  assert_string_equal(error, "operations[2].bogus: unknown key");
  json_decref(j);
}

static void test_model_runs_it(void **state) {
  (void)state;
  parse_or_fail(TEXT, &g_a);
  static lctx_runner r;
  static lctx_outcome outs[LCTX_CASE_MAX_OPS];
  lctx_runner_init(&r, &g_a);
  assert_true(lctx_runner_op_exists(&r, &g_a.ops[2]));
  assert_false(lctx_runner_op_exists(&r, &g_a.ops[1]));
  lctx_runner_run_all(&r, outs);
  assert_int_equal(outs[1].kind, LCTX_OUTCOME_STRING);
  assert_string_equal(outs[1].text, "dummy:tpu:2");
  assert_string_equal(outs[2].text, "dummy:x:0");
  /* A variant runs from the state kept before it. */
  assert_true(lctx_runner_variant(&r, 1, &g_a.ops[2], &outs[0]));
  assert_string_equal(outs[0].text, "dummy:x:0");
}

static void test_classified(void **state) {
  (void)state;
  parse_or_fail(TEXT, &g_a);
  static lctx_feature_state fs;
  static lctx_features f;
  lctx_classify_init(&fs, &g_a);
  lctx_classify_op(&fs, 0, &f);
  lctx_classify_op(&fs, 1, &f);
  assert_int_equal(f.op, LCTX_OP_DUMMY);
  assert_true(f.has[LCTX_P_ARG]);
  assert_true(lctx_str_equal_cstr(f.text[LCTX_P_ARG], "tpu"));
  char text[256] = "";
  lctx_buf b;
  lctx_buf_init(&b, text, sizeof text);
  lctx_classify_format(&f, &b);
  assert_non_null(strstr(text, "arg=name"));
}

static const char *g_called;

static lctx_impl_status canonicalize(void *session, const char *name,
                                     lctx_impl_outcome *out) {
  (void)session;
  g_called = name;
  out->kind = LCTX_IMPL_STRING;
  return 0;
}

static void test_implementation_called(void **state) {
  (void)state;
  parse_or_fail(TEXT, &g_a);
  lctx_impl_table t;
  memset(&t, 0, sizeof t);
  t.abi_version = 1;
  lctx_impl_outcome o;
  memset(&o, 0, sizeof o);
  /* No function in the slot: not supported. */
  assert_int_equal(
      lctx_case_impl_run_op(&t, NULL, &g_a, &g_a.ops[1], &o, NULL, NULL), 1);
  t.canonicalize = canonicalize;
  assert_int_equal(
      lctx_case_impl_run_op(&t, NULL, &g_a, &g_a.ops[1], &o, NULL, NULL), 0);
  assert_string_equal(g_called, "tpu");
}

typedef struct tally {
  size_t cases, dummies;
} tally;

static bool count_dummies(void *user, const lctx_case *c) {
  tally *t = user;
  t->cases++;
  for (size_t i = 0; i < c->op_count; i++)
    t->dummies += c->ops[i].kind == LCTX_OP_DUMMY;
  return true;
}

static void test_domain_walks_it(void **state) {
  (void)state;
  tally t = {0, 0};
  size_t n = lctx_domain_enumerate(count_dummies, &t);
  assert_int_equal(n, t.cases);
  /* Once per alphabet name alone, and after each of the two first
   * operations, over every registry configuration. */
  assert_int_equal(t.dummies, 3 * lctx_domain_alphabet_size() *
                                  lctx_domain_registry_count());
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_table_holds_the_operation),
      cmocka_unit_test(test_text_form),
      cmocka_unit_test(test_text_errors_name_the_operation),
      cmocka_unit_test(test_byte_form),
      cmocka_unit_test(test_json_form),
      cmocka_unit_test(test_model_runs_it),
      cmocka_unit_test(test_classified),
      cmocka_unit_test(test_implementation_called),
      cmocka_unit_test(test_domain_walks_it),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
