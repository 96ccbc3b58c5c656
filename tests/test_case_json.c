/*
 * tests/test_case_json.c - pins the JSON form of cases and outcomes
 * (harness/process/case_json.h).
 *
 * - Properties over generated cases and outcomes (tests/case_gen.h, fixed
 *   seeds, UTF-8 expectation texts): from_json(to_json(c)) == c, also
 *   through serialized JSON text, and to_json(from_json(j)) equals j.
 * - The exact JSON of a case and of every outcome kind.
 * - What the JSON form cannot carry (non-UTF-8 or NUL texts) gives NULL.
 * - Every reader error, with the JSON path it names.
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
#include "case_text.h"
#include "test_support.h"

#define ROUNDS 20000

static lctx_case g_a, g_b;
/* The expectations beside g_a and g_b. */
static lctx_case_expect g_ea, g_eb;

/// The expectations beside `c` when it is g_a or g_b, else NULL.
static lctx_case_expect *expect_of(const lctx_case *c) {
  return c == &g_a ? &g_ea : c == &g_b ? &g_eb : NULL;
}

/// lctx_case_equal, and the expectations beside both equal.
static bool cases_equal(const lctx_case *a, const lctx_case *b) {
  const lctx_case_expect *ea = expect_of(a), *eb = expect_of(b);
  return lctx_case_equal(a, b) &&
         (!ea || !eb || lctx_case_expect_equal(ea, eb, a->op_count));
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static json_t *load(const char *text, size_t flags) {
  json_error_t error;
  json_t *j = json_loads(text, flags, &error);
  if (!j) {
    print_error("bad test JSON (%s): %s\n", error.text, text);
    fail();
  }
  return j;
}

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

/// Reads a case from `j` into g_b.
static bool read_case(const json_t *j, lctx_buf *error) {
  return lctx_case_from_json(j, &g_b, &g_eb, error);
}

/// What read_outcome read last.
static lctx_outcome g_outcome;

/// Reads an outcome from `j` into g_outcome.
static bool read_outcome(const json_t *j, lctx_buf *error) {
  return lctx_outcome_from_json(j, &g_outcome, error);
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

/// Fails at `line` unless `read` rejects the JSON `text` (loaded with
/// `flags`) with exactly `expected`.
static void assert_rejected_at(const char *text, size_t flags,
                               bool (*read)(const json_t *, lctx_buf *),
                               const char *expected, int line) {
  json_t *j = load(text, flags);
  char storage[512];
  lctx_buf e;
  lctx_buf_init(&e, storage, sizeof storage);
  bool ok = read(j, &e);
  json_decref(j);
  if (ok) {
    print_error("accepted; expected %s\n", expected);
    _fail(__FILE__, line);
  }
  if (!ts_text_matches("JSON error", storage, e.length, expected))
    _fail(__FILE__, line);
}

/// Fails unless the case JSON `text` is rejected with exactly `expected`.
#define assert_case_error(text, expected)                                      \
  assert_rejected_at((text), 0, read_case, (expected), __LINE__)

/// Fails unless the outcome JSON `text` is rejected with exactly `expected`.
#define assert_outcome_error(text, expected)                                   \
  assert_rejected_at((text), JSON_ALLOW_NUL, read_outcome, (expected), __LINE__)

/// Reads a case from JSON text; fails on error.
static void case_from_text(const char *text, lctx_case *out) {
  json_t *j = load(text, 0);
  char storage[512];
  lctx_buf e;
  lctx_buf_init(&e, storage, sizeof storage);
  if (!lctx_case_from_json(j, out, expect_of(out), &e)) {
    print_error("rejected: %s\n", storage);
    fail();
  }
  json_decref(j);
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
  g_ea.has[0] = true;
  w = lctx_outcome_begin(&g_ea.outcome[0], LCTX_OUTCOME_STRING);
  lctx_buf_append_cstr(&w, "\xff");
  lctx_outcome_end(&g_ea.outcome[0], &w);
  assert_null(lctx_case_to_json(&g_a, &g_ea));
  /* A name outside ASCII (an invalid case). */
  lctx_case_init(&g_a);
  lctx_case_expect_init(&g_ea);
  g_a.factory_count = 1;
  strcpy(g_a.factories[0].name, "caf\xc3\xa9");
  assert_null(lctx_case_to_json(&g_a, &g_ea));
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
  assert_false(g_ea.has[0]);
  /* Key order does not matter. */
  case_from_text("{\"operations\":[{\"optional\":true,\"backend\":null,"
                 "\"platforms\":[\"a\"],\"op\":\"module_get_backend\"}],"
                 "\"nvidia_gpu_visible\":true}",
                 &g_a);
  assert_true(g_a.ops[0].optional);
  assert_true(g_a.nvidia_gpu_visible);
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

#define F0 "{\"name\":\"cpu\",\"priority\":0,\"fail_quietly\":false,"
#define MODULE(rest)                                                           \
  "{\"operations\":[{\"op\":\"module_get_backend\"," rest "}]}"

static void test_case_errors_top_level(void **state) {
  (void)state;
  assert_case_error("[]", "(top level): expected an object");
  assert_case_error("{\"factoriez\":[]}", "factoriez: unknown key");
  assert_case_error("{\"a\\u0001b\\\\\":1}", "a\\x01b\\x5c: unknown key");
  assert_case_error("{\"factories\":{}}", "factories: expected an array");
  assert_case_error("{\"operations\":null}", "operations: expected an array");
  assert_case_error("{\"jax_platforms\":1}",
                    "jax_platforms: expected a string");
  assert_case_error("{\"jax_platform_name\":\"caf\\u00e9\"}",
                    "jax_platform_name: byte 0xc3 outside 0x01-0x7f (names "
                    "are ASCII)");
  assert_case_error("{\"jax_xla_backend\":null}",
                    "jax_xla_backend: expected a string");
  assert_case_error("{\"nvidia_gpu_visible\":\"true\"}",
                    "nvidia_gpu_visible: expected a boolean");
  char text[512];
  snprintf(text, sizeof text, "{\"jax_platforms\":\"%0256d\"}", 0);
  assert_case_error(text, "jax_platforms: too long (256 bytes, at most 255)");
  snprintf(text, sizeof text, "{\"jax_platforms\":\"%0255d\"}", 0);
  case_from_text(text, &g_a);
}

static void test_case_errors_factories(void **state) {
  (void)state;
  assert_case_error("{\"factories\":[1]}", "factories[0]: expected an object");
  assert_case_error("{\"factories\":[{\"name\":\"cpu\"}]}",
                    "factories[0]: missing key \"priority\"");
  assert_case_error("{\"factories\":[{\"priority\":1}]}",
                    "factories[0]: missing key \"name\"");
  assert_case_error("{\"factories\":[" F0 "\"behaviour\":\"client\","
                    "\"colour\":1}]}",
                    "factories[0].colour: unknown key");
  assert_case_error("{\"factories\":[" F0 "\"behaviour\":\"client\"}," F0
                    "\"behaviour\":\"none\"}]}",
                    "factories[1].name: repeats factories[0].name");
  assert_case_error("{\"factories\":[{\"name\":\"cpu\",\"priority\":1.0,"
                    "\"fail_quietly\":false,\"behaviour\":\"client\"}]}",
                    "factories[0].priority: expected an integer");
  assert_case_error("{\"factories\":[{\"name\":\"cpu\","
                    "\"priority\":2147483648,\"fail_quietly\":false,"
                    "\"behaviour\":\"client\"}]}",
                    "factories[0].priority: out of range (-2147483648 to "
                    "2147483647)");
  assert_case_error("{\"factories\":[{\"name\":\"cpu\",\"priority\":0,"
                    "\"fail_quietly\":0,\"behaviour\":\"client\"}]}",
                    "factories[0].fail_quietly: expected a boolean");
  assert_case_error("{\"factories\":[" F0 "\"behaviour\":\"explode\"}]}",
                    "factories[0].behaviour: unknown behaviour \"explode\" "
                    "(expected client, raises, none or no_devices)");
  assert_case_error("{\"factories\":[" F0 "\"behaviour\":7}]}",
                    "factories[0].behaviour: expected a string");
  assert_case_error("{\"factories\":[" F0 "\"behaviour\":\"client\","
                    "\"message\":\"m\"}]}",
                    "factories[0].message: only a factory that raises has a "
                    "message");
  assert_case_error("{\"factories\":[" F0 "\"behaviour\":\"raises\","
                    "\"message\":\"\\u00ff\"}]}",
                    "factories[0].message: byte 0xc3 outside 0x01-0x7f "
                    "(names are ASCII)");
  assert_rejected_at("{\"factories\":[{\"name\":\"a\\u0000b\"}]}",
                     JSON_ALLOW_NUL, read_case,
                     "factories[0].name: byte 0x00 outside 0x01-0x7f "
                     "(names are ASCII)",
                     __LINE__);
  char text[4096];
  snprintf(text, sizeof text,
           "{\"factories\":[{\"name\":\"%064d\",\"priority\":0}]}", 0);
  assert_case_error(text, "factories[0].name: too long (64 bytes, at most "
                          "63)");
  size_t n = (size_t)snprintf(text, sizeof text, "{\"factories\":[");
  for (int i = 0; i < 17; i++)
    n += (size_t)snprintf(text + n, sizeof text - n,
                          "%s{\"name\":\"f%d\",\"priority\":0,"
                          "\"fail_quietly\":false,\"behaviour\":\"client\"}",
                          i ? "," : "", i);
  snprintf(text + n, sizeof text - n, "]}");
  assert_case_error(text, "factories: too many (17, at most 16)");
}

static void test_case_errors_operations(void **state) {
  (void)state;
  assert_case_error("{\"operations\":[{}]}",
                    "operations[0]: missing key \"op\"");
  assert_case_error("{\"operations\":[\"backends\"]}",
                    "operations[0]: expected an object");
  assert_case_error(
      "{\"operations\":[{\"op\":\"backends\"},{\"op\":\"jump\"}]}",
      "operations[1].op: unknown operation \"jump\" (expected "
      "backends, canonicalize, get_backend, module_get_backend, "
      "register_lowering or lower_per_platform)");
  assert_case_error("{\"operations\":[{\"op\":\"backends\",\"name\":\"x\"}]}",
                    "operations[0].name: unknown key");
  assert_case_error("{\"operations\":[{\"op\":\"canonicalize\"}]}",
                    "operations[0]: missing key \"name\"");
  assert_case_error("{\"operations\":[{\"op\":\"canonicalize\","
                    "\"name\":null}]}",
                    "operations[0].name: expected a string");
  assert_case_error("{\"operations\":[{\"op\":\"get_backend\"}]}",
                    "operations[0]: missing key \"platform\"");
  assert_case_error("{\"operations\":[{\"op\":\"get_backend\","
                    "\"platform\":3}]}",
                    "operations[0].platform: expected a string or null");
  assert_case_error(MODULE("\"platforms\":[\"cpu\",1],\"backend\":null,"
                           "\"optional\":false"),
                    "operations[0].platforms[1]: expected a string");
  assert_case_error(MODULE("\"platforms\":[\"cpu\",\"\\u0080\"],"
                           "\"backend\":null,\"optional\":false"),
                    "operations[0].platforms[1]: byte 0xc2 outside 0x01-0x7f "
                    "(names are ASCII)");
  assert_case_error(MODULE("\"platforms\":\"cpu\",\"backend\":null,"
                           "\"optional\":false"),
                    "operations[0].platforms: expected an array");
  assert_case_error(MODULE("\"platforms\":[],\"optional\":false"),
                    "operations[0]: missing key \"backend\"");
  assert_case_error(MODULE("\"platforms\":[],\"backend\":false,"
                           "\"optional\":false"),
                    "operations[0].backend: expected a string or null");
  assert_case_error(MODULE("\"platforms\":[],\"backend\":null,"
                           "\"optional\":\"yes\""),
                    "operations[0].optional: expected a boolean");
  assert_case_error(MODULE("\"platforms\":[],\"backend\":null"),
                    "operations[0]: missing key \"optional\"");
  assert_case_error(MODULE("\"platforms\":[\"a\",\"b\",\"c\",\"d\",\"e\","
                           "\"f\",\"g\",\"h\",\"i\",\"j\",\"k\",\"l\",\"m\","
                           "\"n\",\"o\",\"p\",\"q\"],\"backend\":null,"
                           "\"optional\":false"),
                    "operations[0].platforms: too many (17, at most 16)");
  assert_case_error("{\"operations\":[{\"op\":\"backends\"},"
                    "{\"op\":\"backends\"},{\"op\":\"backends\"},"
                    "{\"op\":\"backends\"},{\"op\":\"backends\"},"
                    "{\"op\":\"backends\"},{\"op\":\"backends\"},"
                    "{\"op\":\"backends\"},{\"op\":\"backends\"}]}",
                    "operations: too many (9, at most 8)");
}

#define RULES_CYCLE                                                            \
  "{\"name\":\"p\",\"actions\":[{\"action\":\"lower_fun\","                    \
  "\"primitive\":\"P\",\"compute_type\":null}]}"
#define RULE(actions) "{\"name\":\"r\",\"actions\":[" actions "]}"
#define RULES1(actions) "{\"rules\":[" RULE(actions) "]}"

#define LF(p)                                                                  \
  "{\"action\":\"lower_fun\",\"primitive\":\"" p "\",\"compute_type\":null}"

/// A case holds at most LCTX_CASE_MAX_NAMES distinct platform names: the
/// 49th is refused at its path; a name seen before is reused.
static void test_case_errors_too_many_platform_names(void **state) {
  (void)state;
  char text[4096];
  size_t n = (size_t)snprintf(text, sizeof text, "{\"operations\":[");
  for (int op = 0; op < 5; op++) {
    n += (size_t)snprintf(text + n, sizeof text - n,
                          "%s{\"op\":\"module_get_backend\",\"platforms\":[",
                          op ? "," : "");
    for (int i = 0; i < (op < 4 ? 12 : 2); i++)
      n += (size_t)snprintf(text + n, sizeof text - n, "%s\"a%02d\"",
                            i ? "," : "", op < 4 ? op * 12 + i : 40 + 9 * i);
    n += (size_t)snprintf(text + n, sizeof text - n,
                          "],\"backend\":null,\"optional\":false}");
  }
  snprintf(text + n, sizeof text - n, "]}");
  _Static_assert(LCTX_CASE_MAX_NAMES == 48, "the text above holds 49 names");
  assert_case_error(text, "operations[4].platforms[1]: too many distinct "
                          "platform names in the case (at most 48)");
}

static void test_case_errors_rules(void **state) {
  (void)state;
  assert_case_error("{\"rules\":{}}", "rules: expected an array");
  assert_case_error("{\"rules\":[1]}", "rules[0]: expected an object");
  assert_case_error("{\"rules\":[{\"actions\":[]}]}",
                    "rules[0]: missing key \"name\"");
  assert_case_error("{\"rules\":[{\"name\":\"r\"}]}",
                    "rules[0]: missing key \"actions\"");
  assert_case_error("{\"rules\":[{\"name\":\"r\",\"actions\":[],\"x\":1}]}",
                    "rules[0].x: unknown key");
  assert_case_error("{\"rules\":[{\"name\":\"\",\"actions\":[]}]}",
                    "rules[0].name: empty (a rule needs a name)");
  assert_case_error("{\"rules\":[{\"name\":1,\"actions\":[]}]}",
                    "rules[0].name: expected a string");
  assert_case_error("{\"rules\":[" RULE("") "," RULE("") "]}",
                    "rules[1].name: repeats rules[0].name");
  assert_case_error("{\"rules\":[{\"name\":\"r\",\"actions\":{}}]}",
                    "rules[0].actions: expected an array");
  assert_case_error(RULES1("{\"action\":\"marker\"},{\"action\":\"marker\"},"
                           "{\"action\":\"marker\"},{\"action\":\"marker\"},"
                           "{\"action\":\"marker\"}"),
                    "rules[0].actions: too many (5, at most 4)");
  assert_case_error(RULES1("\"marker\""),
                    "rules[0].actions[0]: expected an object");
  assert_case_error(RULES1("{}"), "rules[0].actions[0]: missing key "
                                  "\"action\"");
  assert_case_error(RULES1("{\"action\":\"marker\"},{\"action\":\"jump\"}"),
                    "rules[0].actions[1].action: unknown action \"jump\" "
                    "(expected get_backend, guarded_get_backend, "
                    "try_fallback_get_backend, raise_if_multi, "
                    "read_client_platform, lower_fun or marker)");
  assert_case_error(RULES1("{\"action\":\"marker\",\"optional\":true}"),
                    "rules[0].actions[0].optional: unknown key");
  assert_case_error(RULES1("{\"action\":\"get_backend\"}"),
                    "rules[0].actions[0]: missing key \"optional\"");
  assert_case_error(RULES1("{\"action\":\"guarded_get_backend\","
                           "\"optional\":null}"),
                    "rules[0].actions[0].optional: expected a boolean");
  assert_case_error(RULES1("{\"action\":\"raise_if_multi\","
                           "\"message\":\"caf\\u00e9\"}"),
                    "rules[0].actions[0].message: byte 0xc3 outside "
                    "0x01-0x7f (names are ASCII)");
  assert_case_error(RULES1("{\"action\":\"lower_fun\",\"primitive\":\"Q\"}"),
                    "rules[0].actions[0]: missing key \"compute_type\"");
  assert_case_error(RULES1("{\"action\":\"lower_fun\",\"primitive\":\"Q\","
                           "\"compute_type\":1}"),
                    "rules[0].actions[0].compute_type: expected a string or "
                    "null");
  assert_case_error(RULES1("{\"action\":\"lower_fun\",\"compute_type\":null}"),
                    "rules[0].actions[0]: missing key \"primitive\"");
  char text[4096];
  size_t n = (size_t)snprintf(text, sizeof text, "{\"rules\":[");
  for (int i = 0; i < 9; i++)
    n += (size_t)snprintf(text + n, sizeof text - n,
                          "%s{\"name\":\"r%d\",\"actions\":[]}", i ? "," : "",
                          i);
  snprintf(text + n, sizeof text - n, "]}");
  assert_case_error(text, "rules: too many (9, at most 8)");
  /* The rule that brings a ninth primitive name. */
  assert_case_error(
      "{\"rules\":[{\"name\":\"a\",\"actions\":[" LF("1") "," LF("2") "," LF(
          "3") "," LF("4") "]},"
                           "{\"name\":\"b\",\"actions\":[" LF("5") "," LF(
                               "6") "," LF("7") "," LF("8") "]},"
                                                            "{\"name\":\"c\","
                                                            "\"actions\":[" LF(
                                                                "9") "]}]}",
      "rules[2]: makes the case invalid: primitives: more than "
      "8 distinct names");
}

#define REG(rest) "{\"op\":\"register_lowering\"," rest "}"
#define LOWER(rest)                                                            \
  "{\"op\":\"lower_per_platform\",\"primitive\":\"P\",\"platforms\":[],"       \
  "\"backend\":null," rest "}"
#define LOWER_REST "\"compute_type\":null,\"override\":null,\"x64\":false"
#define WITH_RULE(ops) "{\"rules\":[" RULE("") "],\"operations\":[" ops "]}"

static void test_case_errors_lowering_operations(void **state) {
  (void)state;
  assert_case_error(WITH_RULE(REG("\"rule\":\"r\",\"platform\":null")),
                    "operations[0]: missing key \"primitive\"");
  assert_case_error(WITH_RULE(REG("\"primitive\":\"P\",\"platform\":null")),
                    "operations[0]: missing key \"rule\"");
  assert_case_error(WITH_RULE(REG("\"primitive\":\"P\",\"rule\":\"r\"")),
                    "operations[0]: missing key \"platform\"");
  assert_case_error(WITH_RULE(REG("\"primitive\":\"P\",\"rule\":null,"
                                  "\"platform\":null")),
                    "operations[0].rule: expected a string");
  assert_case_error(WITH_RULE(REG("\"primitive\":\"P\",\"rule\":\"q\","
                                  "\"platform\":null")),
                    "operations[0].rule: no rule named \"q\" in \"rules\"");
  assert_case_error("{\"operations\":[" REG("\"primitive\":\"P\","
                                            "\"rule\":\"r\","
                                            "\"platform\":null") "]}",
                    "operations[0].rule: no rule named \"r\" in \"rules\"");
  assert_case_error(WITH_RULE(REG("\"primitive\":\"P\",\"rule\":\"r\","
                                  "\"platform\":[]")),
                    "operations[0].platform: expected a string or null");
  assert_case_error(WITH_RULE(REG("\"primitive\":\"P\",\"rule\":\"r\","
                                  "\"platform\":null,\"x64\":true")),
                    "operations[0].x64: unknown key");
  assert_case_error(WITH_RULE(LOWER("\"compute_type\":null,"
                                    "\"override\":null,\"x64\":false")),
                    "operations[0]: missing key \"narrow\"");
  assert_case_error(WITH_RULE(LOWER("\"narrow\":\"cpu\"," LOWER_REST)),
                    "operations[0].narrow: expected an array or null");
  assert_case_error(WITH_RULE(LOWER("\"narrow\":[\"cpu\",null]," LOWER_REST)),
                    "operations[0].narrow[1]: expected a string");
  assert_case_error(
      WITH_RULE(LOWER("\"narrow\":[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\","
                      "\"h\",\"i\",\"j\",\"k\",\"l\",\"m\",\"n\",\"o\",\"p\","
                      "\"q\"]," LOWER_REST)),
      "operations[0].narrow: too many (17, at most 16)");
  assert_case_error(WITH_RULE(LOWER("\"narrow\":null,\"compute_type\":false,"
                                    "\"override\":null,\"x64\":false")),
                    "operations[0].compute_type: expected a string or null");
  assert_case_error(WITH_RULE(LOWER("\"narrow\":null,\"compute_type\":null,"
                                    "\"override\":\"q\",\"x64\":false")),
                    "operations[0].override: no rule named \"q\" in "
                    "\"rules\"");
  assert_case_error(WITH_RULE(LOWER("\"narrow\":null,\"compute_type\":null,"
                                    "\"override\":null")),
                    "operations[0]: missing key \"x64\"");
  assert_case_error(WITH_RULE(LOWER("\"narrow\":null,\"compute_type\":null,"
                                    "\"override\":null,\"x64\":0")),
                    "operations[0].x64: expected a boolean");
  assert_case_error(
      WITH_RULE(LOWER("\"narrow\":null," LOWER_REST ",\"optional\":true")),
      "operations[0].optional: unknown key");
  /* A lower_fun cycle through a registration. */
  assert_case_error("{\"rules\":[" RULES_CYCLE "],\"operations\":["
                    "{\"op\":\"backends\"}," REG("\"primitive\":\"P\","
                                                 "\"rule\":\"p\","
                                                 "\"platform\":null") "]}",
                    "operations[1]: makes the case invalid: rules: primitive "
                    "'P' reaches itself through lower_fun (JAX would not "
                    "end)");
  /* The event bound, broken by a registration after the lowering. */
  assert_case_error(
      "{\"rules\":[{\"name\":\"big\",\"actions\":[{\"action\":\"marker\"},"
      "{\"action\":\"marker\"},{\"action\":\"marker\"},"
      "{\"action\":\"marker\"}]}],\"operations\":["
      "{\"op\":\"lower_per_platform\",\"primitive\":\"P\",\"platforms\":[\"a\","
      "\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\",\"j\",\"k\",\"l\","
      "\"m\",\"n\",\"o\",\"p\"],\"backend\":null,\"narrow\":null," LOWER_REST
      "}," REG("\"primitive\":\"P\",\"rule\":\"big\",\"platform\":null") "]}",
      "operations[1]: makes the case invalid: operations[0]: this lowering "
      "may record more than 128 events (the model's limit); use fewer "
      "platforms, rules or lower_fun actions");
}

static void test_case_errors_expectations(void **state) {
  (void)state;
  assert_case_error("{\"operations\":[{\"op\":\"backends\",\"expect\":1}]}",
                    "operations[0].expect: expected an object");
  assert_case_error("{\"operations\":[{\"op\":\"backends\","
                    "\"expect\":{\"kind\":\"maybe\"}}]}",
                    "operations[0].expect.kind: unknown outcome kind "
                    "\"maybe\" (expected none, string, platforms, client or "
                    "raise)");
  assert_case_error("{\"operations\":[{\"op\":\"backends\"},"
                    "{\"op\":\"backends\",\"expect\":{\"kind\":\"client\","
                    "\"origin\":\"registry\",\"registration\":-1,"
                    "\"platform\":\"cpu\"}}]}",
                    "operations[1].expect.registration: out of range (0 to "
                    "2147483647)");
}

static void test_outcome_errors(void **state) {
  (void)state;
  assert_outcome_error("[]", "(top level): expected an object");
  assert_outcome_error("{}", "(top level): missing key \"kind\"");
  assert_outcome_error("{\"kind\":1}", "kind: expected a string");
  assert_outcome_error("{\"kind\":\"None\"}",
                       "kind: unknown outcome kind \"None\" (expected none, "
                       "string, platforms, client or raise)");
  assert_outcome_error("{\"kind\":\"none\",\"value\":\"x\"}",
                       "value: unknown key");
  assert_outcome_error("{\"kind\":\"string\"}",
                       "(top level): missing key \"value\"");
  assert_outcome_error("{\"kind\":\"platforms\",\"value\":[]}",
                       "value: expected a string");
  assert_outcome_error("{\"kind\":\"string\",\"value\":\"a\\u0000\"}",
                       "value: holds a NUL byte");
  assert_outcome_error("{\"kind\":\"client\",\"platform\":\"cpu\"}",
                       "(top level): missing key \"origin\"");
  assert_outcome_error("{\"kind\":\"client\",\"origin\":\"local\","
                       "\"platform\":\"cpu\"}",
                       "origin: unknown client origin \"local\" (expected "
                       "registry or pinned)");
  assert_outcome_error("{\"kind\":\"client\",\"origin\":\"pinned\","
                       "\"registration\":0,\"platform\":\"rocm\"}",
                       "registration: unknown key");
  assert_outcome_error("{\"kind\":\"client\",\"origin\":\"registry\","
                       "\"platform\":\"cpu\"}",
                       "(top level): missing key \"registration\"");
  assert_outcome_error("{\"kind\":\"client\",\"origin\":\"registry\","
                       "\"registration\":\"0\",\"platform\":\"cpu\"}",
                       "registration: expected an integer");
  assert_outcome_error("{\"kind\":\"client\",\"origin\":\"registry\","
                       "\"registration\":2147483648,\"platform\":\"cpu\"}",
                       "registration: out of range (0 to 2147483647)");
  assert_outcome_error("{\"kind\":\"client\",\"origin\":\"pinned\"}",
                       "(top level): missing key \"platform\"");
  assert_outcome_error("{\"kind\":\"raise\",\"class\":\"KeyError\","
                       "\"message\":\"\"}",
                       "class: unknown error class \"KeyError\" (expected "
                       "RuntimeError, ValueError, NotImplementedError, "
                       "AssertionError or IndexError)");
  assert_outcome_error("{\"kind\":\"raise\",\"class\":\"ValueError\"}",
                       "(top level): missing key \"message\"");
  assert_outcome_error("{\"kind\":\"raise\",\"message\":\"m\"}",
                       "(top level): missing key \"class\"");
  assert_outcome_error("{\"kind\":\"none\",\"truncated\":1}",
                       "truncated: expected a boolean");
  static char text[LCTX_OUTCOME_TEXT_MAX + 64];
  size_t n =
      (size_t)snprintf(text, sizeof text, "{\"kind\":\"string\",\"value\":\"");
  memset(text + n, 'a', LCTX_OUTCOME_TEXT_MAX);
  memcpy(text + n + LCTX_OUTCOME_TEXT_MAX, "\"}", 3);
  assert_outcome_error(text, "value: too long (8192 bytes, at most 8191)");
  memcpy(text + n + LCTX_OUTCOME_TEXT_MAX - 1, "\"}", 3);
  json_t *j = load(text, 0);
  lctx_outcome o;
  char storage[64];
  lctx_buf e;
  lctx_buf_init(&e, storage, sizeof storage);
  assert_true(lctx_outcome_from_json(j, &o, &e));
  assert_int_equal(o.length, LCTX_OUTCOME_TEXT_MAX - 1);
  json_decref(j);
}

int main(void) {
  struct CMUnitTest tests[] = {
      cmocka_unit_test(test_case_round_trip_generated),
      cmocka_unit_test(test_outcome_round_trip_generated),
      cmocka_unit_test(test_rules_missing_or_empty),
      cmocka_unit_test(test_outcome_json_exact),
      cmocka_unit_test(test_outside_the_json_form_gives_null),
      cmocka_unit_test(test_defaults_and_optional_keys),
      cmocka_unit_test(test_case_errors_top_level),
      cmocka_unit_test(test_case_errors_factories),
      cmocka_unit_test(test_case_errors_operations),
      cmocka_unit_test(test_case_errors_too_many_platform_names),
      cmocka_unit_test(test_case_errors_rules),
      cmocka_unit_test(test_case_errors_lowering_operations),
      cmocka_unit_test(test_case_errors_expectations),
      cmocka_unit_test(test_outcome_errors),
      // The exact forms (EXACT_FORM_COUNT), filled in below.
      {0},
      {0},
  };
  size_t n = sizeof tests / sizeof tests[0];
  CHECK_FX_TABLE_TESTS(tests + n - EXACT_FORM_COUNT, exact_forms,
                       EXACT_FORM_COUNT, run_exact_form);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
