/*
 * tests/test_case_json.c - pins the JSON form of cases and outcomes
 * (harness/process/case_json.h).
 *
 * - Properties over generated cases and outcomes (tests/case_gen.h, fixed
 *   seeds, UTF-8 expectation texts): from_json(to_json(c)) == c, also
 *   through serialized JSON text, and to_json(from_json(j)) equals j.
 * - The exact JSON of a case and of every outcome kind.
 * - What the JSON form cannot carry (non-UTF-8 or NUL texts) gives NULL.
 * Every reader error is pinned in test_case_json_errors.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <stdlib.h>

#include "case_fx.h"
#include "check_fx.h"
#include "case_gen.h"
#include "case_json.h"
#include "case_json_fx.h"
#include "case_text.h"
#include "test_support.h"
#define ROUNDS 20000

/// lctx_case_equal, and the expectations beside both equal.
static bool cases_equal(const lctx_case *a, const lctx_case *b) {
  const lctx_case_expect *ea = expect_of(a), *eb = expect_of(b);
  return lctx_case_equal(a, b) &&
         (!ea || !eb || lctx_case_expect_equal(ea, eb, a->op_count));
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//
/// Fails unless the compact dump of `j` (key order kept) is `expected`.
#define assert_dump(j, expected) assert_dump_at((j), (expected), __LINE__)
static void assert_dump_at(const json_t *j, const char *expected, int line) {
  if (!j) {
    print_error("JSON value is NULL\n");
    _fail(__FILE__, line);
  }
  char *s = json_dumps(j, JSON_COMPACT);
  bool ok = s && ts_text_matches("JSON", s, strlen(s), expected);
  free(s);
  if (!ok)
    _fail(__FILE__, line);
}

/// Fails unless the outcome `o` converts to JSON whose compact dump is
/// `expected`.
#define assert_outcome_dump(o, expected)                                       \
  assert_outcome_dump_at((o), (expected), __LINE__)
static void assert_outcome_dump_at(const lctx_outcome *o, const char *expected,
                                   int line) {
  json_t *j = lctx_outcome_to_json(o);
  assert_dump_at(j, expected, line);
  json_decref(j);
}

/// Parses the case text `text` into g_a (failing with the parser's message
/// when it does not parse) and returns g_a as JSON.
static json_t *case_text_to_json(const char *text, size_t len) {
  char error[256];
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  if (!lctx_case_parse(text, len, "x", &g_a, &g_ea, &e)) {
    print_error("%s\n", error);
    fail();
  }
  return lctx_case_to_json(&g_a, &g_ea);
}

/// Fails, naming the round and the reader's message, unless `read` reads
/// `j`.
static void assert_read(const json_t *j,
                        bool (*read)(const json_t *, lctx_buf *), int round) {
  char storage[512];
  lctx_buf e;
  lctx_buf_init(&e, storage, sizeof storage);
  if (!read(j, &e)) {
    print_error("round %d: %s\n", round, storage);
    fail();
  }
}

//===----------------------------------------------------------------------===//
// Properties
//===----------------------------------------------------------------------===//

static void test_case_round_trip_generated(void **state) {
  (void)state;
  case_gen g;
  case_gen_seed(&g, 0x150e);
  for (int round = 0; round < ROUNDS; round++) {
    lctx_case_expect_init(&g_ea);
    case_gen_case(&g, &g_a, &g_ea, CASE_GEN_EXPECT | CASE_GEN_UTF8);
    json_t *j = lctx_case_to_json(&g_a, &g_ea);
    assert_non_null(j);
    assert_read(j, read_case, round);
    assert_true(cases_equal(&g_a, &g_b));
    /* JSON -> case -> JSON gives the same JSON value. */
    json_t *again = lctx_case_to_json(&g_b, &g_eb);
    assert_true(json_equal(j, again));
    json_decref(again);
    /* Through serialized text, as a process protocol carries it. */
    if (round % 4 == 0) {
      char *text =
          json_dumps(j, JSON_COMPACT | (round % 8 ? JSON_ENSURE_ASCII : 0));
      assert_non_null(text);
      json_t *loaded = load(text, 0);
      free(text);
      assert_read(loaded, read_case, round);
      assert_true(cases_equal(&g_a, &g_b));
      json_decref(loaded);
    }
    json_decref(j);
  }
}

static void test_outcome_round_trip_generated(void **state) {
  (void)state;
  case_gen g;
  case_gen_seed(&g, 0x0c0e);
  static lctx_outcome a;
  const lctx_outcome *b = &g_outcome;
  for (int round = 0; round < ROUNDS; round++) {
    case_gen_outcome(&g, &a, CASE_GEN_UTF8);
    if (round % 50 == 0)
      a.truncated = true;
    json_t *j = lctx_outcome_to_json(&a);
    assert_non_null(j);
    assert_read(j, read_outcome, round);
    assert_true(lctx_outcome_equal(&a, b));
    assert_int_equal(a.registration, b->registration);
    json_t *again = lctx_outcome_to_json(b);
    assert_true(json_equal(j, again));
    json_decref(again);
    json_decref(j);
  }
}

//===----------------------------------------------------------------------===//
// Exact forms
//===----------------------------------------------------------------------===//

/// A case text and the exact compact JSON it converts to (key order kept),
/// which reads back as the same case.
typedef struct {
  const char *name;
  const char *text;
  const char *json;
} exact_form;

static const exact_form exact_forms[] = {
    {"test_case_json_exact",
     "lctx-case 1\n"
     "factory \"cpu\" priority=0 loud client\n"
     "factory \"tpu\" priority=300 quiet raises \"TPU not found\"\n"
     "jax_platforms \"cpu,tpu\"\n" CASE_FX_STOCK_OPS
     "op module_get_backend platforms=[\"cpu\", \"tpu\"] backend=\"rocm\" "
     "optional=true\n"
     "expect None\n"
     "op module_get_backend platforms=[] backend=None optional=false\n",
     "{\"factories\":[{\"name\":\"cpu\",\"priority\":0,\"fail_quietly\":false,"
     "\"behaviour\":\"client\",\"message\":\"\"},{\"name\":\"tpu\","
     "\"priority\":300,\"fail_quietly\":true,\"behaviour\":\"raises\","
     "\"message\":\"TPU not found\"}],\"jax_platforms\":\"cpu,tpu\","
     "\"jax_platform_name\":\"\",\"jax_xla_backend\":\"\","
     "\"nvidia_gpu_visible\":true,\"operations\":[{\"op\":\"backends\","
     "\"expect\":{\"kind\":\"platforms\",\"value\":\"['cpu', 'tpu']\"}},"
     "{\"op\":\"canonicalize\",\"name\":\"gpu\"},{\"op\":\"get_backend\","
     "\"platform\":null},{\"op\":\"get_backend\",\"platform\":\"cpu\"},"
     "{\"op\":\"module_get_backend\",\"platforms\":[\"cpu\",\"tpu\"],"
     "\"backend\":\"rocm\",\"optional\":true,\"expect\":{\"kind\":\"none\"}},"
     "{\"op\":\"module_get_backend\",\"platforms\":[],\"backend\":null,"
     "\"optional\":false}]}"},
    {"test_case_json_lowering_exact",
     "lctx-case 1\n"
     "rule \"P.def\" get_backend optional=true, lower_fun \"Q\", "
     "raise_if_multi \"only one\", marker\n"
     "rule \"Q.cpu\" guarded_get_backend optional=false, "
     "try_fallback_get_backend, read_client_platform, lower_fun \"R\" "
     "compute_type=\"device_host\"\n"
     "op register_lowering primitive=\"P\" rule=\"P.def\" platform=None\n"
     "op register_lowering primitive=\"Q\" rule=\"Q.cpu\" platform=\"cpu\"\n"
     "expect None\n"
     "op lower_per_platform primitive=\"P\" platforms=[\"cpu\", \"tpu\"] "
     "backend=None\n"
     "op lower_per_platform primitive=\"P\" platforms=[] backend=\"cpu\" "
     "narrow=[\"cpu\"] compute_type=\"device\" override=\"Q.cpu\" x64=true\n",
     "{\"factories\":[],\"jax_platforms\":\"\",\"jax_platform_name\":\"\","
     "\"jax_xla_backend\":\"\",\"nvidia_gpu_visible\":false,"
     "\"rules\":[{\"name\":\"P.def\",\"actions\":["
     "{\"action\":\"get_backend\",\"optional\":true},"
     "{\"action\":\"lower_fun\",\"primitive\":\"Q\",\"compute_type\":null},"
     "{\"action\":\"raise_if_multi\",\"message\":\"only one\"},"
     "{\"action\":\"marker\"}]},"
     "{\"name\":\"Q.cpu\",\"actions\":["
     "{\"action\":\"guarded_get_backend\",\"optional\":false},"
     "{\"action\":\"try_fallback_get_backend\"},"
     "{\"action\":\"read_client_platform\"},"
     "{\"action\":\"lower_fun\",\"primitive\":\"R\","
     "\"compute_type\":\"device_host\"}]}],"
     "\"operations\":["
     "{\"op\":\"register_lowering\",\"primitive\":\"P\",\"rule\":\"P.def\","
     "\"platform\":null},"
     "{\"op\":\"register_lowering\",\"primitive\":\"Q\",\"rule\":\"Q.cpu\","
     "\"platform\":\"cpu\",\"expect\":{\"kind\":\"none\"}},"
     "{\"op\":\"lower_per_platform\",\"primitive\":\"P\","
     "\"platforms\":[\"cpu\",\"tpu\"],\"backend\":null,\"narrow\":null,"
     "\"compute_type\":null,\"override\":null,\"x64\":false},"
     "{\"op\":\"lower_per_platform\",\"primitive\":\"P\",\"platforms\":[],"
     "\"backend\":\"cpu\",\"narrow\":[\"cpu\"],\"compute_type\":\"device\","
     "\"override\":\"Q.cpu\",\"x64\":true}]}"},
};

#define EXACT_FORM_COUNT (sizeof exact_forms / sizeof exact_forms[0])

static void run_exact_form(void **state) {
  const exact_form *f = *state;
  json_t *j = case_text_to_json(f->text, strlen(f->text));
  assert_dump(j, f->json);
  char error[256];
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  assert_true(lctx_case_from_json(j, &g_b, &g_eb, &e));
  assert_true(cases_equal(&g_a, &g_b));
  json_decref(j);
}

/// "rules" is written only when the case has rules; the reader takes a
/// missing "rules" and an empty one alike.
static void test_rules_missing_or_empty(void **state) {
  (void)state;
  case_from_text("{\"rules\":[]}", &g_a);
  lctx_case_init(&g_b);
  lctx_case_expect_init(&g_eb);
  assert_true(cases_equal(&g_a, &g_b));
  json_t *j = lctx_case_to_json(&g_a, &g_ea);
  assert_null(json_object_get(j, "rules"));
  json_decref(j);
  case_from_text("{\"rules\":[{\"name\":\"r\",\"actions\":[]}],"
                 "\"operations\":[{\"op\":\"register_lowering\","
                 "\"primitive\":\"\",\"rule\":\"r\",\"platform\":\"\"}]}",
                 &g_a);
  assert_int_equal(g_a.rule_count, 1);
  assert_int_equal(g_a.rules[0].action_count, 0);
  assert_true(g_a.ops[0].has_arg);
  assert_string_equal(g_a.ops[0].arg, "");
}

static void test_outcome_json_exact(void **state) {
  (void)state;
  lctx_outcome o;
  lctx_outcome_set_none(&o);
  assert_outcome_dump(&o, "{\"kind\":\"none\"}");
  lctx_buf w = lctx_outcome_begin(&o, LCTX_OUTCOME_STRING);
  lctx_buf_append_cstr(&w, "cuda");
  lctx_outcome_end(&o, &w);
  assert_outcome_dump(&o, "{\"kind\":\"string\",\"value\":\"cuda\"}");
  w = lctx_outcome_begin(&o, LCTX_OUTCOME_PLATFORMS);
  lctx_buf_append_cstr(&w, "['cpu']");
  lctx_outcome_end(&o, &w);
  assert_outcome_dump(&o, "{\"kind\":\"platforms\",\"value\":\"['cpu']\"}");
  lctx_outcome_set_client(&o, LCTX_CLIENT_REGISTRY, 0, ts_s("cpu"));
  assert_outcome_dump(&o, "{\"kind\":\"client\",\"origin\":\"registry\","
                          "\"registration\":0,\"platform\":\"cpu\"}");
  lctx_outcome_set_client(&o, LCTX_CLIENT_PINNED, -1, ts_s("rocm"));
  assert_outcome_dump(&o, "{\"kind\":\"client\",\"origin\":\"pinned\","
                          "\"platform\":\"rocm\"}");
  w = lctx_outcome_begin_raise(&o, LCTX_ERROR_RUNTIME);
  lctx_buf_append_cstr(&w, "Unknown backend \"x\"\n\tcaf\xc3\xa9");
  lctx_outcome_end(&o, &w);
  assert_outcome_dump(
      &o, "{\"kind\":\"raise\",\"class\":\"RuntimeError\","
          "\"message\":\"Unknown backend \\\"x\\\"\\n\\tcaf\xc3\xa9\"}");
  o.truncated = true;
  assert_outcome_dump(
      &o, "{\"kind\":\"raise\",\"class\":\"RuntimeError\","
          "\"message\":\"Unknown backend \\\"x\\\"\\n\\tcaf\xc3\xa9\","
          "\"truncated\":true}");
}

static void test_outside_the_json_form_gives_null(void **state) {
  (void)state;
  lctx_outcome o;
  lctx_buf w = lctx_outcome_begin(&o, LCTX_OUTCOME_STRING);
  lctx_buf_append_cstr(&w, "caf\xe9");
  lctx_outcome_end(&o, &w);
  assert_null(lctx_outcome_to_json(&o));
  w = lctx_outcome_begin(&o, LCTX_OUTCOME_STRING);
  lctx_buf_append(&w, "a\0b", 3);
  lctx_outcome_end(&o, &w);
  assert_null(lctx_outcome_to_json(&o));
  /* A raise must name a class. */
  w = lctx_outcome_begin_raise(&o, LCTX_ERROR_NONE);
  lctx_outcome_end(&o, &w);
  assert_null(lctx_outcome_to_json(&o));
  /* A case whose expectation cannot be carried. */
  lctx_case_init(&g_a);
  lctx_case_expect_init(&g_ea);
  g_a.op_count = 1;
  w = lctx_outcome_begin(&o, LCTX_OUTCOME_STRING);
  lctx_buf_append_cstr(&w, "\xff");
  lctx_outcome_end(&o, &w);
  assert_true(lctx_case_expect_set(&g_ea, 0, &o));
  assert_null(lctx_case_to_json(&g_a, &g_ea));
  /* A name outside ASCII (an invalid case). */
  lctx_case_init(&g_a);
  lctx_case_expect_init(&g_ea);
  g_a.factory_count = 1;
  strcpy(g_a.factories[0].name, "caf\xc3\xa9");
  assert_null(lctx_case_to_json(&g_a, &g_ea));
}

/// Appends an operation backends() expecting a string of `n` bytes `byte`.
static void append_expecting(lctx_buf *b, size_t n, char byte) {
  lctx_buf_append_cstr(b, ",{\"op\":\"backends\",\"expect\":{\"kind\":"
                          "\"string\",\"value\":\"");
  for (size_t k = 0; k < n; k++)
    lctx_buf_append_char(b, byte);
  lctx_buf_append_cstr(b, "\"}}");
}

static void test_expect_texts_over_the_pool_refused(void **state) {
  (void)state;
  size_t cap = 2 * LCTX_CASE_EXPECT_TEXT_MAX;
  char *text = malloc(cap);
  assert_non_null(text);
  lctx_buf b;
  lctx_buf_init(&b, text, cap);
  size_t first = LCTX_OUTCOME_TEXT_MAX - 1;
  lctx_buf_append_cstr(&b, "{\"operations\":[{\"op\":\"backends\"}");
  append_expecting(&b, first, 'x');
  append_expecting(&b, LCTX_CASE_EXPECT_TEXT_MAX - first, 'y');
  size_t full = b.length;
  lctx_buf_append_cstr(&b, "]}");
  /* The texts fill what a case holds; writing and reading keep them. */
  case_from_text(text, &g_a);
  assert_int_equal(g_ea.used, LCTX_CASE_EXPECT_TEXT_MAX);
  json_t *j = lctx_case_to_json(&g_a, &g_ea);
  assert_non_null(j);
  char storage[256];
  lctx_buf e;
  lctx_buf_init(&e, storage, sizeof storage);
  assert_true(lctx_case_from_json(j, &g_b, &g_eb, &e));
  json_decref(j);
  assert_true(cases_equal(&g_a, &g_b));
  /* One byte more is refused at the expectation that brings it, never
   * cut. */
  b.length = full;
  append_expecting(&b, 1, 'z');
  lctx_buf_append_cstr(&b, "]}");
  assert_case_error(text, "operations[3].expect: brings the case's "
                          "expectation texts to 16001 bytes together, more "
                          "than the 16000 a case holds");
  free(text);
}

static void test_defaults_and_optional_keys(void **state) {
  (void)state;
  case_from_text("{}", &g_a);
  lctx_case_init(&g_b);
  lctx_case_expect_init(&g_eb);
  assert_true(cases_equal(&g_a, &g_b));
  case_from_text("{\"factories\":[{\"name\":\"x\",\"priority\":-5,"
                 "\"fail_quietly\":true,\"behaviour\":\"none\"}],"
                 "\"operations\":[{\"op\":\"get_backend\",\"platform\":\"\"},"
                 "{\"op\":\"canonicalize\",\"name\":\"\"}]}",
                 &g_a);
  assert_int_equal(g_a.factory_count, 1);
  assert_string_equal(g_a.factories[0].message, "");
  assert_int_equal(g_a.factories[0].behaviour, LCTX_FACTORY_RETURNS_NONE);
  assert_true(g_a.ops[0].has_arg);
  assert_string_equal(g_a.ops[0].arg, "");
  assert_true(g_a.ops[1].has_arg);
  assert_false(lctx_case_expect_has(&g_ea, 0));
  /* Key order does not matter. */
  case_from_text("{\"operations\":[{\"optional\":true,\"backend\":null,"
                 "\"platforms\":[\"a\"],\"op\":\"module_get_backend\"}],"
                 "\"nvidia_gpu_visible\":true}",
                 &g_a);
  assert_true(g_a.ops[0].optional);
  assert_true(g_a.nvidia_gpu_visible);
}

int main(void) {
  struct CMUnitTest tests[] = {
      cmocka_unit_test(test_case_round_trip_generated),
      cmocka_unit_test(test_outcome_round_trip_generated),
      cmocka_unit_test(test_rules_missing_or_empty),
      cmocka_unit_test(test_outcome_json_exact),
      cmocka_unit_test(test_outside_the_json_form_gives_null),
      cmocka_unit_test(test_defaults_and_optional_keys),
      cmocka_unit_test(test_expect_texts_over_the_pool_refused),
      // The exact forms (EXACT_FORM_COUNT), filled in below.
      {0},
      {0},
  };
  size_t n = sizeof tests / sizeof tests[0];
  CHECK_FX_TABLE_TESTS(tests + n - EXACT_FORM_COUNT, exact_forms,
                       EXACT_FORM_COUNT, run_exact_form);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
