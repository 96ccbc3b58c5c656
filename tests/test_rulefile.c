/*
 * tests/test_rulefile.c - pins the rule-file parser
 * (harness/core/case/rulefile.h): an exact `FILE:LINE:COL: message` for every
 * kind of malformed input, the parsed structure of a well-formed file, loading
 * a file (its size limit and messages), the registry it builds (primitive ids,
 * rule bodies, registrations, gpu expansion, an unknown platform), and the lint
 * verdict on small files (harness/core/judge/lint.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_support.h"

#include "lint.h"
#include "rulefile.h"

#include <string.h>

static lctx_rulefile g_file;
static lctx_lint_report g_report;

#define HEAD "rule-file 1\nprimitive \"P\"\nsource \"s\"\nexpect safe\n"

/* Parses `text` and checks that it fails with exactly `message`. */
#define BAD(text, message) bad_at((text), (message), __FILE__, __LINE__)
static void bad_at(const char *text, const char *message, const char *file,
                   int line) {
  char storage[1024];
  lctx_buf e;
  lctx_buf_init(&e, storage, sizeof storage);
  if (lctx_rulefile_parse(text, strlen(text), "t.rule", &g_file, &e)) {
    print_error("parsed, expected: %s\n", message);
    _fail(file, line);
  }
  if (strcmp(storage, message) != 0) {
    print_error("got      %s\nexpected %s\n", storage, message);
    _fail(file, line);
  }
}

static void parse_ok(const char *text);

/* `source` and `expect` may be left out: the file parses, without an
 * expectation. */
static void test_source_and_expect_optional(void **state) {
  (void)state;
  parse_ok("rule-file 1\nprimitive \"P\"\nrule \"r\" default\n  marker\n");
  assert_false(g_file.has_expect);
  assert_int_equal(g_file.source_count, 0);
  parse_ok(HEAD);
  assert_true(g_file.has_expect);
}

/* The .case spellings of actions: several on one line separated by
 * commas, `compute_type="T"`, `compute_type = "T"`, `optional = B`; the
 * older `compute_type "T"` is read and its position recorded. */
static void test_case_spellings(void **state) {
  (void)state;
  parse_ok(HEAD "rule \"r\" default\n"
                "  get_backend optional=true, lower_fun \"Q\" "
                "compute_type=\"a\", marker\n"
                "  guarded_get_backend optional = false\n"
                "  lower_fun \"Q\" compute_type = \"b\"\n"
                "subprimitive \"Q\"\n");
  const lctx_rulefile_rule *r = &g_file.rules[0];
  assert_int_equal(r->action_count, 5);
  assert_int_equal(r->actions[0].kind, LCTX_ACTION_GET_BACKEND);
  assert_true(r->actions[0].optional);
  assert_int_equal(r->actions[1].kind, LCTX_ACTION_LOWER_FUN);
  assert_true(lctx_str_equal_cstr(r->actions[1].compute_type, "a"));
  assert_int_equal(r->actions[2].kind, LCTX_ACTION_EMIT_MARKER);
  assert_int_equal(r->actions[3].kind, LCTX_ACTION_GUARDED_GET_BACKEND);
  assert_false(r->actions[3].optional);
  assert_true(lctx_str_equal_cstr(r->actions[4].compute_type, "b"));
  assert_int_equal(g_file.old_spelling_line, 0);
  parse_ok(HEAD "rule \"r\" default\n"
                "  lower_fun \"Q\" compute_type \"c\"\n"
                "subprimitive \"Q\"\n");
  assert_true(
      lctx_str_equal_cstr(g_file.rules[0].actions[0].compute_type, "c"));
  assert_int_equal(g_file.old_spelling_line, 6);
  assert_int_equal(g_file.old_spelling_col, 17);
  BAD(HEAD "rule \"r\" default\n  marker, , marker\n",
      "t.rule:6:11: an action is missing before ','");
}

static void parse_ok(const char *text) {
  char storage[1024];
  lctx_buf e;
  lctx_buf_init(&e, storage, sizeof storage);
  bool ok = lctx_rulefile_parse(text, strlen(text), "t.rule", &g_file, &e);
  if (!ok)
    print_error("%s\n", storage);
  assert_true(ok);
}

static void test_header_errors(void **state) {
  (void)state;
  BAD("", "t.rule:1:1: empty rule file (expected 'rule-file 1')");
  BAD("# only a comment\n\n",
      "t.rule:1:1: empty rule file (expected 'rule-file 1')");
  BAD("primitive \"P\"\n", "t.rule:1:1: expected 'rule-file 1' first");
  BAD("rule-file 2\n",
      "t.rule:1:11: unsupported rule-file version '2' (expected 1)");
  BAD("rule-file\n", "t.rule:1:10: 'rule-file' needs a version");
  BAD("rule-file 1 x\n", "t.rule:1:13: unexpected 'x'");
  BAD("rule-file 1\nrule-file 1\n",
      "t.rule:2:1: duplicate 'rule-file' (first on line 1)");
  BAD("rule-file 1\nsource \"s\"\nexpect safe\n",
      "t.rule:4:1: missing 'primitive' line");
  BAD(HEAD "expect unsafe\n", "t.rule:5:1: duplicate 'expect' (first at 4:1)");
  BAD("rule-file 1\nexpect maybe\n",
      "t.rule:2:8: expected 'safe' or 'unsafe', got 'maybe'");
  BAD("rule-file 1\nexpect\n", "t.rule:2:7: 'expect' needs 'safe' or 'unsafe'");
  BAD(HEAD "primitive \"Q\"\n",
      "t.rule:5:1: duplicate 'primitive' (first at 2:1)");
  BAD("rule-file 1\nprimitive P\n",
      "t.rule:2:11: expected a quoted string, got 'P'");
  BAD("rule-file 1\nprimitive\n", "t.rule:2:10: missing quoted primitive name");
  BAD("rule-file 1\nprimitive \"\"\n", "t.rule:2:11: empty primitive name");
  BAD("rule-file 1\nsubprimitive \"Q\"\n",
      "t.rule:2:1: 'subprimitive' before 'primitive'");
  BAD(HEAD "subprimitive \"P\"\n", "t.rule:5:14: duplicate primitive 'P'");
  BAD(HEAD "frobnicate\n",
      "t.rule:5:1: unknown directive 'frobnicate' (expected primitive, "
      "source, expect, rule or subprimitive)");
}

static void test_lexical_errors(void **state) {
  (void)state;
  BAD("rule-file 1\nprimitive \"P\n", "t.rule:2:11: unterminated string");
  BAD("rule-file 1\nprimitive \"P\\q\"\n",
      "t.rule:2:13: unknown escape '\\q' (use \\\" \\\\ \\n or \\t)");
  BAD("rule-file 1\nprimitive \"P\"\x01\n",
      "t.rule:2:14: control character 0x01");
  BAD("rule-file 1\nprimitive \"P\" \"Q\"\n",
      "t.rule:2:15: unexpected string 'Q'");
}

static void test_rule_errors(void **state) {
  (void)state;
  BAD("rule-file 1\nrule \"r\" default\n",
      "t.rule:2:1: 'rule' before 'primitive'");
  BAD(HEAD "rule \"r\"\n",
      "t.rule:5:9: rule 'r' needs 'default' or 'platform \"P\"'");
  BAD(HEAD "rule \"r\" sometimes\n",
      "t.rule:5:10: expected 'default' or 'platform \"P\"', got 'sometimes'");
  BAD(HEAD "rule \"r\" platform\n",
      "t.rule:5:18: 'platform' needs a quoted platform name");
  BAD(HEAD "rule \"r\" platform cpu\n",
      "t.rule:5:19: expected a quoted string, got 'cpu'");
  BAD(HEAD "rule \"r\" default\nrule \"r\" default\n",
      "t.rule:6:6: duplicate rule name 'r' (first on line 5)");
  BAD(HEAD "rule \"\" default\n", "t.rule:5:6: empty rule name");
  BAD(HEAD "  marker\n", "t.rule:5:3: action 'marker' outside a rule");
  BAD(HEAD "rule \"r\" default\nmarker\n",
      "t.rule:6:1: action 'marker' must be indented under a rule");
  BAD(HEAD "rule \"r\" default\n  rule \"s\" default\n",
      "t.rule:6:3: directive 'rule' must start at column 1");
  BAD(HEAD "rule \"r\" default\n  jump\n",
      "t.rule:6:3: unknown action 'jump' (expected get_backend, "
      "guarded_get_backend, try_fallback_get_backend, raise_if_multi, "
      "read_client_platform, lower_fun or marker)");
  BAD(HEAD "rule \"r\" default\n  get_backend optional=maybe\n",
      "t.rule:6:15: expected optional=true or optional=false, got "
      "'optional=maybe'");
  BAD(HEAD "rule \"r\" default\n  get_backend optional=true x\n",
      "t.rule:6:29: unexpected 'x'");
  BAD(HEAD "rule \"r\" default\n  marker now\n",
      "t.rule:6:10: unexpected 'now'");
  BAD(HEAD "rule \"r\" default\n  raise_if_multi\n",
      "t.rule:6:17: missing quoted message");
  BAD(HEAD
      "rule \"r\" default\n  raise_if_multi \"m\" # c\n  lower_fun \"Q\"\n",
      "t.rule:7:13: lower_fun names undeclared primitive 'Q' (declare it "
      "with 'subprimitive')");
  BAD(HEAD "rule \"r\" default\n  lower_fun \"P\" type \"x\"\n",
      "t.rule:6:17: expected compute_type, got 'type'");
  BAD(HEAD "rule \"r\" default\n  lower_fun \"P\" compute_type\n",
      "t.rule:6:29: missing quoted compute type");
  BAD(HEAD "rule \"r\" default\n"
           "  marker\n  marker\n  marker\n  marker\n"
           "  marker\n  marker\n  marker\n  marker\n  marker\n",
      "t.rule:14:3: rule 'r' has more than 8 actions");
}

static const char GOOD[] = "rule-file 1  # version\n"
                           "primitive \"P\"\n"
                           "source \"jax/_src/x.py:1-2 @abc\"\n"
                           "expect unsafe\n"
                           "rule \"P.def\" default\n"
                           "  raise_if_multi \"no \\\"multi\\\" here\"\n"
                           "  get_backend\n"
                           "  guarded_get_backend optional=true\n"
                           "  try_fallback_get_backend\n"
                           "  read_client_platform\n"
                           "  lower_fun \"Q\" compute_type \"device_host\"\n"
                           "  marker\n"
                           "rule \"P.gpu\" platform \"gpu\" platform \"tpu\"\n"
                           "\tget_backend optional=true\n"
                           "subprimitive \"Q\"\n"
                           "rule \"Q.cpu\" platform \"cpu\"\r\n"
                           "  lower_fun \"P\"\n";

static void test_parse_good(void **state) {
  (void)state;
  parse_ok(GOOD);
  const lctx_rulefile *f = &g_file;
  assert_int_equal(f->primitive_count, 2);
  assert_true(lctx_str_equal_cstr(f->primitives[0], "P"));
  assert_true(lctx_str_equal_cstr(f->primitives[1], "Q"));
  assert_int_equal(f->source_count, 1);
  assert_true(lctx_str_equal_cstr(f->sources[0], "jax/_src/x.py:1-2 @abc"));
  assert_false(f->expect_safe);
  assert_int_equal(f->rule_count, 3);
  const lctx_rulefile_rule *r = &f->rules[0];
  assert_int_equal(r->primitive, 0);
  assert_int_equal(r->registration_count, 1);
  assert_true(r->registrations[0].is_default);
  assert_int_equal(r->action_count, 7);
  assert_int_equal(r->actions[0].kind, LCTX_ACTION_RAISE_IF_MULTI);
  assert_true(lctx_str_equal_cstr(r->actions[0].message, "no \"multi\" here"));
  assert_int_equal(r->actions[1].kind, LCTX_ACTION_GET_BACKEND);
  assert_false(r->actions[1].optional);
  assert_int_equal(r->actions[2].kind, LCTX_ACTION_GUARDED_GET_BACKEND);
  assert_true(r->actions[2].optional);
  assert_int_equal(r->actions[3].kind, LCTX_ACTION_TRY_FALLBACK_GET_BACKEND);
  assert_int_equal(r->actions[4].kind, LCTX_ACTION_READ_CLIENT_PLATFORM);
  assert_int_equal(r->actions[5].kind, LCTX_ACTION_LOWER_FUN);
  assert_int_equal(r->actions[5].primitive, 1);
  assert_true(r->actions[5].has_compute_type);
  assert_true(lctx_str_equal_cstr(r->actions[5].compute_type, "device_host"));
  assert_int_equal(r->actions[6].kind, LCTX_ACTION_EMIT_MARKER);
  r = &f->rules[1];
  assert_int_equal(r->registration_count, 2);
  assert_true(lctx_str_equal_cstr(r->registrations[0].platform, "gpu"));
  assert_true(lctx_str_equal_cstr(r->registrations[1].platform, "tpu"));
  r = &f->rules[2];
  assert_int_equal(r->primitive, 1);
  assert_int_equal(r->actions[0].primitive, 0);
  assert_false(r->actions[0].has_compute_type);
}

/// lctx_rulefile_load reads the whole file up to LCTX_RULEFILE_MAX_BYTES and
/// parses it as lctx_rulefile_parse does; a larger file, or one that cannot
/// be opened, is refused with a message naming it.
static void test_load(void **state) {
  (void)state;
  static const char path[] = "test_rulefile_load.rule";
  static const struct {
    size_t comment; ///< bytes of comment lines after GOOD; SIZE_MAX: no file
    const char *error;
  } rows[] = {
      {0, ""},
      {LCTX_RULEFILE_MAX_BYTES - (sizeof GOOD - 1), ""},
      {LCTX_RULEFILE_MAX_BYTES - (sizeof GOOD - 1) + 1,
       "test_rulefile_load.rule: file larger than 65536 bytes"},
      {SIZE_MAX,
       "test_rulefile_load.rule: cannot open: No such file or directory"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    size_t comment = rows[i].comment;
    FILE *f = comment == SIZE_MAX ? NULL : fopen(path, "wb");
    if (f) {
      fputs(GOOD, f);
      for (size_t k = 0; k < comment; k++)
        fputc(k % 32 == 31 || k + 1 == comment ? '\n' : '#', f);
      assert_int_equal(fclose(f), 0);
    } else {
      assert_int_equal(comment, SIZE_MAX);
      remove(path);
    }
    char error[512] = "";
    lctx_buf e;
    lctx_buf_init(&e, error, sizeof error);
    bool ok = lctx_rulefile_load(path, &g_file, &e);
    assert_string_equal(error, rows[i].error);
    assert_int_equal(ok, rows[i].error[0] == '\0');
    if (ok)
      assert_int_equal(g_file.rule_count, 3);
  }
}

static void test_build_registry(void **state) {
  (void)state;
  parse_ok(GOOD);
  lctx_registry_config config;
  ts_config_stock(&config); /* cpu and tpu factories */
  static lctx_lowering_registry reg;
  lctx_outcome raised;
  assert_true(lctx_rulefile_build(&g_file, &config, &reg, &raised));
  assert_int_equal(raised.kind, LCTX_OUTCOME_NONE);
  assert_true(lctx_str_equal_cstr(lctx_lowering_primitive_name(&reg, 0), "P"));
  assert_true(lctx_str_equal_cstr(lctx_lowering_primitive_name(&reg, 1), "Q"));
  int def = lctx_lowering_common_rule(&reg, 0);
  assert_true(def >= 0);
  assert_true(lctx_str_equal_cstr(lctx_lowering_rule_name(&reg, def), "P.def"));
  int gpu = lctx_lowering_specific_rule(&reg, 0, ts_s("cuda"));
  assert_true(gpu >= 0);
  assert_true(lctx_str_equal_cstr(lctx_lowering_rule_name(&reg, gpu), "P.gpu"));
  assert_int_equal(lctx_lowering_specific_rule(&reg, 0, ts_s("rocm")), gpu);
  assert_int_equal(lctx_lowering_specific_rule(&reg, 0, ts_s("oneapi")), gpu);
  assert_int_equal(lctx_lowering_specific_rule(&reg, 0, ts_s("tpu")), gpu);
  assert_int_equal(lctx_lowering_specific_rule(&reg, 0, ts_s("gpu")), -1);
  assert_int_equal(lctx_lowering_specific_rule(&reg, 0, ts_s("cpu")), -1);
  assert_int_equal(lctx_lowering_common_rule(&reg, 1), -1);
  int qcpu = lctx_lowering_specific_rule(&reg, 1, ts_s("cpu"));
  assert_true(
      lctx_str_equal_cstr(lctx_lowering_rule_name(&reg, qcpu), "Q.cpu"));
  assert_int_equal(reg.rules[def].action_count, 7);
  assert_int_equal(reg.rules[def].actions[5].primitive, 1);

  /* Without a tpu factory, `tpu` is unknown: the registration raises. */
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  assert_false(lctx_rulefile_build(&g_file, &config, &reg, &raised));
  assert_int_equal(raised.kind, LCTX_OUTCOME_RAISE);
  assert_string_equal(raised.text,
                      "Registering an MLIR lowering rule for primitive P for "
                      "an unknown platform tpu. Known platforms are: cpu, "
                      "cuda, gpu, oneapi, rocm.");
}

static void lint_text(const char *text) {
  parse_ok(text);
  char storage[512];
  lctx_buf e;
  lctx_buf_init(&e, storage, sizeof storage);
  assert_true(lctx_lint_file(&g_file, &g_report, &e));
}

static void test_lint_verdicts(void **state) {
  (void)state;
  lint_text(HEAD "rule \"r\" default\n  get_backend optional=false\n");
  assert_false(g_report.safe);
  /* Smallest: two platforms, no factories at all (pinned cpu client). */
  assert_int_equal(g_report.counterexample.platform_count, 2);
  assert_int_equal(g_report.outcome.kind, LCTX_OUTCOME_RAISE);
  assert_int_equal(g_report.singles[0].kind, LCTX_OUTCOME_NONE);
  lint_text(HEAD "rule \"r\" default\n  get_backend optional=true\n");
  assert_true(g_report.safe);
  lint_text(HEAD "rule \"r\" default\n  guarded_get_backend\n");
  assert_true(g_report.safe);
  /* Only a cpu rule: multi-platform "not found" is explained by the single
   * platform's own "not found". */
  lint_text(HEAD "rule \"r\" platform \"cpu\"\n  marker\n");
  assert_true(g_report.safe);
  /* Skipped: the 4 configurations without a cpu factory. */
  assert_int_equal(g_report.skipped, 4);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_header_errors),
      cmocka_unit_test(test_source_and_expect_optional),
      cmocka_unit_test(test_case_spellings),
      cmocka_unit_test(test_lexical_errors),
      cmocka_unit_test(test_rule_errors),
      cmocka_unit_test(test_parse_good),
      cmocka_unit_test(test_load),
      cmocka_unit_test(test_build_registry),
      cmocka_unit_test(test_lint_verdicts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
