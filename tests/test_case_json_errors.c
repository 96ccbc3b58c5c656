/*
 * tests/test_case_json_errors.c - every reader error of the JSON form of
 * cases and outcomes (harness/process/case_json.h), with the JSON path it
 * names: the top level, factories, operations, rules, lowering operations,
 * expectations and outcomes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <stdlib.h>

#include "case_json.h"
#include "case_json_fx.h"
#include "test_support.h"

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
                     __FILE__, __LINE__);
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
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_case_errors_top_level),
      cmocka_unit_test(test_case_errors_factories),
      cmocka_unit_test(test_case_errors_operations),
      cmocka_unit_test(test_case_errors_too_many_platform_names),
      cmocka_unit_test(test_case_errors_rules),
      cmocka_unit_test(test_case_errors_lowering_operations),
      cmocka_unit_test(test_case_errors_expectations),
      cmocka_unit_test(test_outcome_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
