/*
 * test_diagnose.c - pins the diagnoses of a user's program exported for
 * several platforms (harness/core/judge/diagnose.h): each class of
 * mistake from the answer that shows it (the raise, the census entries in
 * user code, the exporter's "user" facts), where it is placed, the fix
 * given, what is not diagnosed (JAX's own look-ups, adapted ones, one
 * platform, a lost answer), duplicates given once, and the text line.
 * Answers are read through export_json.h as an exporter sends them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "diagnose.h"
#include "export_json.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static const char *const CPU_CUDA[] = {"cpu", "cuda"};

static const lctx_diagnosis_known KNOWN[] = {
    /* The same key kept under another name first: the defect whose
     * upstream report it is wins. */
    {"SW-001 TypeError at jax/_src/interpreters/mlir.py:2562",
     "gen-found-elsewhere", NULL,
     "docs/upstream-multiplatform-effect-tuple.md"},
    {"SW-001 TypeError at jax/_src/interpreters/mlir.py:2562",
     "upstream-multiplatform-effect-tuple", NULL,
     "docs/upstream-multiplatform-effect-tuple.md"},
    {"SW-001 ValueError at jax/_src/fixed.py:10", "fixed-defect", "0.11.0",
     NULL}};

/* Reads `text` as result 0 of an answer into `st` (asserting it is not a
 * crash) and diagnoses it as program user/m/p for `n` platforms of
 * CPU_CUDA. */
static size_t diagnose(const char *text, lctx_export_store *st, size_t n,
                       lctx_diagnosis *out, size_t cap) {
  json_error_t e;
  json_t *j = json_loads(text, 0, &e);
  assert_non_null(j);
  lctx_export_store_read(j, 0, st);
  json_decref(j);
  if (st->answer.status == LCTX_EXPORT_CRASH)
    fail_msg("not read: %s", st->answer.error);
  lctx_sweep_case c = {.program = "user/m/p",
                       .group = "user/m",
                       .count = n,
                       .platforms = CPU_CUDA,
                       .multi = &st->answer};
  return lctx_diagnosis_classify(&c, KNOWN, 3, out, cap);
}

#define RULE_GB                                                                \
  "{\"file\": \"tests/user/user_rules.py\", \"line\": 28, \"function\": "      \
  "\"get_backend_rule\"}"
#define CALL_GB "{\"file\": \"tests/user/mistakes.py\", \"line\": 16}"

static void test_get_backend_raise_and_census(void **state) {
  (void)state;
  lctx_export_store st = {0};
  lctx_diagnosis d[8];
  size_t n = diagnose(
      "{\"outcome\": \"raise\", \"class\": \"NotImplementedError\", "
      "\"message\": \"accessing .backend in multi-lowering setting. This can "
      "occur when lowering a primitive that has not been adapted\", "
      "\"file\": \"jax/_src/interpreters/mlir.py\", \"line\": 940, "
      "\"census\": [{\"what\": \"get_backend\", \"optional\": false, "
      "\"gave\": \"raise\", \"file\": \"tests/user/user_rules.py\", \"line\": "
      "29, \"primitive\": \"lctx_user_get_backend\", \"platforms\": 2, "
      "\"rule\": " RULE_GB ", \"call_site\": " CALL_GB "}], "
      "\"user\": {\"raise_at\": {\"file\": \"tests/user/user_rules.py\", "
      "\"line\": 29, \"function\": \"get_backend_rule\"}, \"primitive\": "
      "\"lctx_user_get_backend\", \"rule\": " RULE_GB
      ", \"call_site\": " CALL_GB "}}",
      &st, 2, d, 8);
  assert_int_equal(n, 1); /* the raise is the census entry's */
  assert_int_equal(d[0].cls, LCTX_DIAGNOSIS_GET_BACKEND);
  assert_string_equal(d[0].file, "tests/user/user_rules.py");
  assert_int_equal(d[0].line, 29);
  assert_string_equal(d[0].primitive, "lctx_user_get_backend");
  assert_string_equal(d[0].rule.function, "get_backend_rule");
  assert_int_equal(d[0].rule.line, 28);
  assert_string_equal(d[0].call_site.file, "tests/user/mistakes.py");
  assert_int_equal(d[0].call_site.line, 16);
  assert_non_null(strstr(d[0].fix, "get_backend(optional=True) and handle "
                                   "None"));
  char line[4096];
  lctx_diagnosis_text(&d[0], line, sizeof line);
  assert_string_equal(
      line, "tests/user/user_rules.py:29: get-backend: user/m/p [cpu, cuda]: "
            "ctx.module_context.get_backend() without optional=True under 2 "
            "platforms (it raised) (lctx_user_get_backend, rule "
            "tests/user/user_rules.py:28 (get_backend_rule), called at "
            "tests/user/mistakes.py:16); fix: call "
            "ctx.module_context.get_backend(optional=True) and handle None "
            "(several platforms), or branch on ctx.platforms / "
            "lax.platform_dependent");
  /* Without the census entry, the raise itself is the get-backend one. */
  n = diagnose("{\"outcome\": \"raise\", \"class\": \"NotImplementedError\", "
               "\"message\": \"accessing .backend in multi-lowering "
               "setting\", \"file\": \"jax/_src/interpreters/mlir.py\", "
               "\"line\": 940}",
               &st, 2, d, 8);
  assert_int_equal(n, 1);
  assert_int_equal(d[0].cls, LCTX_DIAGNOSIS_GET_BACKEND);
  assert_string_equal(d[0].file, "jax/_src/interpreters/mlir.py");
  lctx_export_store_release(&st);
}

#define OK_WITH(census)                                                        \
  "{\"outcome\": \"ok\", \"module_platforms\": [\"cpu\", \"cuda\"], "          \
  "\"census\": [" census "]}"

static void test_census_classes(void **state) {
  (void)state;
  lctx_export_store st = {0};
  lctx_diagnosis d[8];
  size_t n = diagnose(
      OK_WITH("{\"what\": \"backend\", \"optional\": null, \"gave\": \"none\", "
              "\"file\": \"u.py\", \"line\": 40, \"primitive\": \"p\", "
              "\"platforms\": 2}, "
              "{\"what\": \"host\", \"gave\": \"client\", \"file\": \"u.py\", "
              "\"line\": 55, \"primitive\": \"q\", \"platforms\": 2}, "
              "{\"what\": \"host\", \"gave\": \"client\", \"file\": "
              "\"/abs/m.py\", \"line\": 30, \"primitive\": null, "
              "\"platforms\": 2}"),
      &st, 2, d, 8);
  assert_int_equal(n, 3);
  assert_int_equal(d[0].cls, LCTX_DIAGNOSIS_GET_BACKEND);
  assert_non_null(strstr(d[0].message, "a read of ctx.module_context.backend"));
  assert_int_equal(d[1].cls, LCTX_DIAGNOSIS_HOST_BACKEND);
  assert_non_null(strstr(d[1].message, "in a lowering rule"));
  assert_int_equal(d[1].line, 55);
  assert_int_equal(d[2].cls, LCTX_DIAGNOSIS_HOST_BACKEND);
  assert_non_null(strstr(d[2].message, "while tracing"));
  assert_string_equal(d[2].file, "/abs/m.py");
  assert_non_null(strstr(d[1].fix, "do not pick the kernel by the host's "
                                   "devices"));
  assert_non_null(strstr(d[2].fix, "lax.platform_dependent(..., cpu=..., "
                                   "cuda=...) gives each platform"));
  lctx_export_store_release(&st);
}

static void test_not_diagnosed(void **state) {
  (void)state;
  lctx_export_store st = {0};
  lctx_diagnosis d[8];
  /* JAX's own look-up, an adapted one, one platform at the call, a
   * clean export. */
  assert_int_equal(
      diagnose(OK_WITH("{\"what\": \"backend\", \"optional\": null, \"gave\": "
                       "\"none\", \"file\": \"jax/_src/x.py\", \"line\": 4, "
                       "\"primitive\": \"p\", \"platforms\": 2}, "
                       "{\"what\": \"get_backend\", \"optional\": true, "
                       "\"gave\": \"none\", \"file\": \"u.py\", \"line\": 4, "
                       "\"primitive\": \"p\", \"platforms\": 2}, "
                       "{\"what\": \"host\", \"gave\": \"client\", \"file\": "
                       "\"u.py\", \"line\": 9, \"primitive\": \"p\", "
                       "\"platforms\": 1}"),
               &st, 2, d, 8),
      0);
  assert_int_equal(diagnose(OK_WITH(""), &st, 2, d, 8), 0);
  /* One platform: no multi-platform export to diagnose. */
  assert_int_equal(diagnose("{\"outcome\": \"raise\", \"class\": \"E\", "
                            "\"message\": \"m\", \"file\": null}",
                            &st, 1, d, 8),
                   0);
  /* A lost answer is the sweep's crash, not a diagnosis. */
  lctx_export_store_lose(&st, LCTX_EXPORT_CRASH, "gone");
  lctx_sweep_case c = {
      .program = "p", .count = 2, .platforms = CPU_CUDA, .multi = &st.answer};
  assert_int_equal(lctx_diagnosis_classify(&c, KNOWN, 3, d, 8), 0);
  lctx_export_store_release(&st);
}

static void test_duplicates_once(void **state) {
  (void)state;
  lctx_export_store st = {0};
  lctx_diagnosis d[8];
#define GB                                                                     \
  "{\"what\": \"get_backend\", \"optional\": false, \"gave\": \"raise\", "     \
  "\"file\": \"u.py\", \"line\": 4, \"primitive\": \"p\", \"platforms\": 2}"
  assert_int_equal(diagnose(OK_WITH(GB ", " GB ", " GB), &st, 2, d, 8), 1);
  /* The cap holds. */
  assert_int_equal(
      diagnose(OK_WITH(GB ", {\"what\": \"host\", \"gave\": \"client\", "
                          "\"file\": \"u.py\", \"line\": 5, \"primitive\": "
                          "\"p\", \"platforms\": 2}"),
               &st, 2, d, 1),
      1);
  lctx_export_store_release(&st);
}

#define RAISE(cls, msg, file, line)                                            \
  "{\"outcome\": \"raise\", \"class\": \"" cls "\", \"message\": \"" msg       \
  "\", \"file\": \"" file "\", \"line\": " #line

static void test_missing_rule(void **state) {
  (void)state;
  lctx_export_store st = {0};
  lctx_diagnosis d[4];
  size_t n = diagnose(
      RAISE("NotImplementedError",
            "MLIR translation rule for primitive 'lctx_user_partial' not "
            "found for platforms ['tpu', 'rocm']",
            "jax/_src/interpreters/mlir.py", 2467) ", \"user\": {\"raise_at\": "
                                                   "null, \"primitive\": "
                                                   "\"lctx_user_partial\", "
                                                   "\"rule\": null, "
                                                   "\"call_site\": " CALL_GB
                                                   "}}",
      &st, 2, d, 4);
  assert_int_equal(n, 1);
  assert_int_equal(d[0].cls, LCTX_DIAGNOSIS_MISSING_RULE);
  assert_string_equal(d[0].primitive, "lctx_user_partial");
  /* No user frame of the raise: placed at the call site. */
  assert_string_equal(d[0].file, "tests/user/mistakes.py");
  assert_string_equal(
      d[0].fix, "register a rule for tpu, rocm (mlir.register_lowering(prim, "
                "rule, platform=...)) or a default rule, or export without "
                "them");
  /* Without the user facts: the primitive from the message, JAX's line. */
  n = diagnose(RAISE("NotImplementedError",
                     "MLIR translation rule for primitive 'q' not found for "
                     "platforms ['tpu']",
                     "jax/_src/interpreters/mlir.py", 2467) "}",
               &st, 2, d, 4);
  assert_int_equal(n, 1);
  assert_string_equal(d[0].primitive, "q");
  assert_string_equal(d[0].file, "jax/_src/interpreters/mlir.py");
  assert_int_equal(d[0].line, 2467);
  assert_non_null(strstr(d[0].fix, "register a rule for tpu ("));
  lctx_export_store_release(&st);
}

static void test_host_callback_defect_other(void **state) {
  (void)state;
  lctx_export_store st = {0};
  lctx_diagnosis d[4];
  assert_int_equal(diagnose(RAISE("NotImplementedError",
                                  "multi-platform lowering for "
                                  "python_callback",
                                  "jax/_src/callback.py", 798) "}",
                            &st, 2, d, 4),
                   1);
  assert_int_equal(d[0].cls, LCTX_DIAGNOSIS_HOST_CALLBACK);
  assert_non_null(strstr(d[0].fix, "pin one platform"));
  assert_int_equal(diagnose(RAISE("NotImplementedError",
                                  "multi-platform lowering for "
                                  "buffer_callback",
                                  "jax/_src/buffer_callback.py", 237) "}",
                            &st, 2, d, 4),
                   1);
  assert_int_equal(d[0].cls, LCTX_DIAGNOSIS_HOST_CALLBACK);
  assert_int_equal(
      diagnose(RAISE("TypeError",
                     "can only concatenate list (not \\\"tuple\\\") to list",
                     "jax/_src/interpreters/mlir.py", 2562) "}",
               &st, 2, d, 4),
      1);
  assert_int_equal(d[0].cls, LCTX_DIAGNOSIS_JAX_DEFECT);
  assert_string_equal(d[0].fix, "upstream-multiplatform-effect-tuple: no JAX "
                                "release fixes it yet: pin one platform (see "
                                "docs/upstream-multiplatform-effect-tuple.md)");
  assert_non_null(strstr(d[0].message, "known JAX defect "
                                       "upstream-multiplatform-effect-tuple"));
  assert_int_equal(
      diagnose(RAISE("ValueError", "v", "jax/_src/fixed.py", 10) "}", &st, 2, d,
               4),
      1);
  assert_int_equal(d[0].cls, LCTX_DIAGNOSIS_JAX_DEFECT);
  assert_string_equal(d[0].fix, "fixed-defect: upgrade JAX to 0.11.0");
  /* Another line of the same class is no known defect. */
  assert_int_equal(
      diagnose(RAISE("ValueError", "v", "jax/_src/fixed.py", 11) "}", &st, 2, d,
               4),
      1);
  assert_int_equal(d[0].cls, LCTX_DIAGNOSIS_OTHER);
  assert_string_equal(d[0].fix, "see the raise at jax/_src/fixed.py:11");
  assert_string_equal(lctx_diagnosis_class_name(d[0].cls), "other");
  lctx_export_store_release(&st);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_get_backend_raise_and_census),
      cmocka_unit_test(test_census_classes),
      cmocka_unit_test(test_not_diagnosed),
      cmocka_unit_test(test_duplicates_once),
      cmocka_unit_test(test_missing_rule),
      cmocka_unit_test(test_host_callback_defect_other),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
