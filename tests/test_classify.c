/*
 * tests/test_classify.c - pins the feature extractor
 * (harness/core/judge/classify.h): the features an operation is classified by
 * and the placeholder values the spec rows' templates are rendered from.
 *
 * - Names: every feature's name and value list (index 0 is `na`), the
 *   name/value round trips, the placeholder names in order, unknown and
 *   case-variant names refused.
 * - lctx_classify_format appends and writes nothing for an all-`na` set.
 * The classification of small cases is pinned in test_classify_cases.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_support.h"

#include "case_gen.h"
#include "classify.h"

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

typedef struct feature_row {
  lctx_feature feature;
  const char *name;
  const char *values; ///< every value name in order, space-separated
} feature_row;

static const feature_row FEATURES[] = {
    {LCTX_F_MODE, "mode", "na default platforms"},
    {LCTX_F_INIT, "init", "na none ready ok loud assert"},
    {LCTX_F_CAUSE, "cause", "na raised none no_devices unknown"},
    {LCTX_F_ARG, "arg", "na none empty alias name"},
    {LCTX_F_SOURCE, "source", "na arg xla_backend platform_name none"},
    {LCTX_F_TARGET, "target", "na none alias name"},
    {LCTX_F_GPU, "gpu", "na cuda rocm oneapi absent"},
    {LCTX_F_LOOKUP, "lookup", "na default no_default found failed unknown"},
    {LCTX_F_COUNT, "count", "na zero one multi"},
    {LCTX_F_OPTIONAL, "optional", "na true false"},
    {LCTX_F_PINNED, "pinned", "na none plain gpu"},
    {LCTX_F_REAL, "real", "na same other"},
    {LCTX_F_MATCH, "match", "na yes no"},
    {LCTX_F_REG, "reg", "na default known alias unknown"},
    {LCTX_F_STOP, "stop",
     "na none not_found_one not_found_many no_platforms no_index "
     "raise_if_multi backend gpu_assert compute_nesting"},
    {LCTX_F_ACCESS, "access", "na property"},
    {LCTX_F_API, "api", "na no_optional no_lower_per_platform"},
};

/* lctx_classify_format writes exactly `NAME=VALUE` for feature `f` at value
 * `v` when no other feature applies. */
static void assert_formats_as(lctx_feature f, int v, const char *name,
                              const char *value, size_t value_length) {
  static lctx_features features;
  memset(features.value, 0, sizeof features.value);
  features.value[f] = v;
  char text[128], want[128];
  lctx_buf b;
  lctx_buf_init(&b, text, sizeof text);
  lctx_classify_format(&features, &b);
  snprintf(want, sizeof want, "%s=%.*s", name, (int)value_length, value);
  assert_string_equal(text, want);
}

static void test_feature_names_and_values(void **state) {
  (void)state;
  assert_int_equal(sizeof FEATURES / sizeof FEATURES[0], LCTX_FEATURE_COUNT);
  assert_int_equal(LCTX_FEATURE_COUNT, 17);
  size_t most = 0;
  for (size_t i = 0; i < LCTX_FEATURE_COUNT; i++) {
    const feature_row *r = &FEATURES[i];
    assert_int_equal(r->feature, (lctx_feature)i);
    assert_string_equal(lctx_classify_feature_name(r->feature), r->name);
    lctx_feature f = LCTX_FEATURE_COUNT;
    assert_true(lctx_classify_feature_from_name(ts_s(r->name), &f));
    assert_int_equal(f, r->feature);
    /* Value n of the list is named by the n-th word, both ways: looked up
     * by name, and as lctx_classify_format writes it. */
    size_t n = 0;
    for (const char *w = r->values; *w; n++) {
      size_t len = strcspn(w, " ");
      int v = -1;
      assert_true(
          lctx_classify_value_from_name(r->feature, lctx_str_make(w, len), &v));
      assert_int_equal(v, (int)n);
      if (n > 0)
        assert_formats_as(r->feature, v, r->name, w, len);
      w += len + (w[len] == ' ');
    }
    assert_true(n <= LCTX_FEATURE_MAX_VALUES);
    most = n > most ? n : most;
    /* Values are case-sensitive and "" is none of them. */
    int v = 77;
    assert_false(lctx_classify_value_from_name(r->feature, ts_s("NA"), &v));
    assert_false(lctx_classify_value_from_name(r->feature, ts_s(""), &v));
    assert_false(lctx_classify_value_from_name(r->feature, ts_s("bogus"), &v));
    assert_int_equal(v, 77);
  }
  assert_int_equal(most, LCTX_FEATURE_MAX_VALUES);
  /* A value of one feature is not a value of another. */
  int v = 77;
  assert_false(lctx_classify_value_from_name(LCTX_F_MODE, ts_s("ok"), &v));
  assert_false(lctx_classify_value_from_name(LCTX_F_LOOKUP, ts_s("none"), &v));
  assert_true(lctx_classify_value_from_name(LCTX_F_CAUSE, ts_s("none"), &v));
  assert_int_equal(v, 2);
}

static void test_feature_unknown_names(void **state) {
  (void)state;
  static const char *const unknown[] = {"",   "Mode",  "modes",
                                        "op", "stop ", "placeholder"};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
    lctx_feature f = LCTX_F_STOP;
    assert_false(lctx_classify_feature_from_name(ts_s(unknown[i]), &f));
    assert_int_equal(f, LCTX_F_STOP);
  }
  assert_string_equal(lctx_classify_feature_name(LCTX_FEATURE_COUNT), "?");
  assert_string_equal(lctx_classify_feature_name((lctx_feature)-1), "?");
}

static void test_placeholder_names(void **state) {
  (void)state;
  static const char *const names[] = {
      "failed", "err",     "factories",  "available", "present",
      "arg",    "gpu",     "p",          "p0",        "canonical",
      "pinned", "client",  "client_reg", "prim",      "platform",
      "known",  "missing", "message",    "seq",       "compute"};
  assert_int_equal(sizeof names / sizeof names[0], LCTX_PLACEHOLDER_COUNT);
  for (size_t i = 0; i < LCTX_PLACEHOLDER_COUNT; i++) {
    assert_string_equal(lctx_classify_placeholder_name((lctx_placeholder)i),
                        names[i]);
    lctx_placeholder p = LCTX_PLACEHOLDER_COUNT;
    assert_true(lctx_classify_placeholder_from_name(ts_s(names[i]), &p));
    assert_int_equal(p, (lctx_placeholder)i);
  }
  static const char *const unknown[] = {"", "P0", "{p0}", "seqs", "platforms"};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
    lctx_placeholder p = LCTX_P_SEQ;
    assert_false(lctx_classify_placeholder_from_name(ts_s(unknown[i]), &p));
    assert_int_equal(p, LCTX_P_SEQ);
  }
  assert_string_equal(lctx_classify_placeholder_name(LCTX_PLACEHOLDER_COUNT),
                      "?");
}

static void test_features_format_appends(void **state) {
  (void)state;
  lctx_features f;
  memset(&f, 0, sizeof f);
  char text[128];
  lctx_buf b;
  lctx_buf_init(&b, text, sizeof text);
  lctx_classify_format(&f, &b); /* every feature na: nothing */
  assert_buf(&b, "");
  lctx_buf_append_cstr(&b, "op=module_get_backend ");
  f.value[LCTX_F_COUNT] = 3;
  f.value[LCTX_F_STOP] = 8;
  f.value[LCTX_F_MODE] = 2;
  lctx_classify_format(&f, &b);
  assert_buf(&b, "op=module_get_backend mode=platforms count=multi "
                 "stop=gpu_assert");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_feature_names_and_values),
      cmocka_unit_test(test_feature_unknown_names),
      cmocka_unit_test(test_placeholder_names),
      cmocka_unit_test(test_features_format_appends),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
