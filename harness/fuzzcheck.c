/*
 * fuzzcheck.c - the checks behind the fuzz targets (see fuzzcheck.h).
 *
 * Holds one cached, parsed copy of the embedded spec table and static work
 * buffers: fuzz targets call these millions of times in one process, one
 * input at a time (not thread-safe, by design).
 */
#include "fuzzcheck.h"

#include "case_bytes.h"
#include "case_text.h"
#include "oracle.h"

#include <stdio.h>
#include <string.h>

/* Generated at build time from conformance/spec/backend-selection.lspec. */
extern const char lctx_embedded_spec[];
extern const unsigned long lctx_embedded_spec_size;

lctx_str lctx_fuzz_embedded_spec(void) {
  return lctx_str_make(lctx_embedded_spec, lctx_embedded_spec_size);
}

static lctx_spec g_spec;
static bool g_spec_ready;
static lctx_case g_case, g_case2;
static char g_text[LCTX_CASE_TEXT_MAX];
static char g_text2[LCTX_CASE_TEXT_MAX];

/* A short class for an outcome: the error class, or the kind. */
static const char *outcome_class(const lctx_outcome *o) {
  if (!o)
    return "-";
  switch (o->kind) {
  case LCTX_OUTCOME_NONE:
    return "None";
  case LCTX_OUTCOME_STRING:
    return "string";
  case LCTX_OUTCOME_PLATFORMS:
    return "platforms";
  case LCTX_OUTCOME_CLIENT:
    return o->origin == LCTX_CLIENT_PINNED ? "pinned-client"
                                           : "registry-client";
  case LCTX_OUTCOME_RAISE:
    return lctx_error_class_name(o->error);
  }
  return "?";
}

static const char *violation_slug(lctx_violation_kind kind) {
  switch (kind) {
  case LCTX_V_NO_ROW:
    return "no-row";
  case LCTX_V_SEVERAL_ROWS:
    return "several-rows";
  case LCTX_V_RENDER:
    return "render";
  case LCTX_V_OUTCOME:
    return "outcome";
  case LCTX_V_EXPECT:
    return "expect";
  case LCTX_V_INVARIANT:
    return "invariant";
  }
  return "?";
}

static void on_violation(void *user, const lctx_violation *v) {
  lctx_fuzz_result *r = user;
  if (r->failed)
    return; /* the first violation names the finding */
  r->failed = true;
  snprintf(r->key, sizeof r->key,
           "fuzz_model/%s/row=%s/inv=%s/expected=%s/actual=%s",
           violation_slug(v->kind), v->row[0] ? v->row : "-",
           v->invariant[0] ? v->invariant : "-",
           outcome_class(v->expected_outcome),
           outcome_class(v->actual_outcome));
  lctx_buf b;
  lctx_buf_init(&b, g_text, sizeof g_text);
  lctx_case_print(v->c, &b);
  snprintf(r->report, sizeof r->report,
           "lctx fuzz_model: %s at operation %zu (%s)\n"
           "  row:       %s\n  invariant: %s\n  features:  %s\n"
           "  expected:  %s\n  actual:    %s\n  case:\n%s",
           lctx_violation_kind_name(v->kind), v->op_index,
           lctx_op_kind_name(v->c->ops[v->op_index].kind),
           v->row[0] ? v->row : "-", v->invariant[0] ? v->invariant : "-",
           v->features, v->expected, v->actual, g_text);
}

bool lctx_fuzz_model(const uint8_t *data, size_t size,
                     lctx_fuzz_result *result) {
  static lctx_oracle oracle;
  result->failed = false;
  result->key[0] = result->report[0] = '\0';
  if (!g_spec_ready) {
    char error[512];
    lctx_buf e;
    lctx_buf_init(&e, error, sizeof error);
    lctx_str spec = lctx_fuzz_embedded_spec();
    if (!lctx_spec_parse(spec.data, spec.length, "<embedded spec>", &g_spec,
                         &e)) {
      result->failed = true;
      snprintf(result->key, sizeof result->key, "fuzz_model/bad-spec");
      snprintf(result->report, sizeof result->report,
               "lctx fuzz_model: the embedded spec does not parse: %s", error);
      return true;
    }
    g_spec_ready = true;
  }
  lctx_oracle_init(&oracle, &g_spec, lctx_engine_reference());
  oracle.on_violation = on_violation;
  oracle.user = result;
  lctx_case_decode(data, size, &g_case);
  lctx_oracle_check_case(&oracle, &g_case);
  return result->failed;
}

bool lctx_fuzz_case_text(const uint8_t *data, size_t size,
                         lctx_fuzz_result *result) {
  char error[1024];
  lctx_buf e, b1, b2;
  result->failed = false;
  result->key[0] = result->report[0] = '\0';
  lctx_buf_init(&e, error, sizeof error);
  if (!lctx_case_parse((const char *)data, size, "<input>", &g_case, &e))
    return false; /* rejected with a message: fine */
  lctx_buf_init(&b1, g_text, sizeof g_text);
  lctx_case_print(&g_case, &b1);
  lctx_buf_reset(&e);
  const char *problem = NULL;
  if (b1.overflow) {
    problem = "print-overflow";
  } else if (!lctx_case_parse(g_text, b1.length, "<printed>", &g_case2, &e)) {
    problem = "reparse-failed";
  } else if (!lctx_case_equal(&g_case, &g_case2, true)) {
    problem = "round-trip-differs";
  } else {
    lctx_buf_init(&b2, g_text2, sizeof g_text2);
    lctx_case_print(&g_case2, &b2);
    if (b1.length != b2.length || memcmp(g_text, g_text2, b1.length) != 0)
      problem = "print-not-canonical";
  }
  if (!problem)
    return false;
  result->failed = true;
  snprintf(result->key, sizeof result->key, "fuzz_case_text/%s", problem);
  snprintf(result->report, sizeof result->report,
           "lctx fuzz_case_text: %s%s%s\n  printed:\n%s", problem,
           error[0] ? ": " : "", error, g_text);
  return true;
}

bool lctx_fuzz_spec(const uint8_t *data, size_t size,
                    lctx_fuzz_result *result) {
  static lctx_spec spec;
  static lctx_features features;
  static lctx_outcome out;
  char error[1024];
  lctx_buf e;
  result->failed = false;
  result->key[0] = result->report[0] = '\0';
  lctx_buf_init(&e, error, sizeof error);
  if (!lctx_spec_parse((const char *)data, size, "<input>", &spec, &e)) {
    /* Every rejection must say where: FILE:LINE:COL. */
    if (strncmp(error, "<input>:", 8) == 0)
      return false;
    result->failed = true;
    snprintf(result->key, sizeof result->key, "fuzz_spec/error-without-place");
    snprintf(result->report, sizeof result->report,
             "lctx fuzz_spec: a rejection does not name its place: %s", error);
    return true;
  }
  /* Rendering any row with no placeholder values must fail cleanly. */
  memset(&features, 0, sizeof features);
  for (size_t i = 0; i < spec.row_count; i++) {
    for (size_t k = 0; k < spec.rows[i].outcome_count; k++) {
      lctx_buf_reset(&e);
      lctx_spec_render(&spec.rows[i].outcomes[k], &features, &out, &e);
    }
  }
  return false;
}

const lctx_fuzz_target lctx_fuzz_targets[] = {
    {"fuzz_model", lctx_fuzz_model},
    {"fuzz_case_text", lctx_fuzz_case_text},
    {"fuzz_spec", lctx_fuzz_spec},
    {NULL, NULL},
};

const lctx_fuzz_target *lctx_fuzz_target_find(const char *name) {
  for (const lctx_fuzz_target *t = lctx_fuzz_targets; t->name; t++) {
    if (strcmp(t->name, name) == 0)
      return t;
  }
  return NULL;
}
