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
#include "lctx/impl_abi.h"
#include "oracle.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Prints a case into g_text, for a report (only when there is one). */
static void print_case(const lctx_case *c) {
  lctx_buf b;
  lctx_buf_init(&b, g_text, sizeof g_text);
  lctx_case_print(c, &b);
}

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
  print_case(v->c);
  snprintf(r->report, sizeof r->report,
           "lctx fuzz_model: %s at operation %zu (%s)\n"
           "  row:       %s\n  invariant: %s\n  features:  %s\n"
           "  expected:  %s\n  actual:    %s\n  case:\n%s",
           lctx_violation_kind_name(v->kind), v->op_index,
           lctx_op_kind_name(v->c->ops[v->op_index].kind),
           v->row[0] ? v->row : "-", v->invariant[0] ? v->invariant : "-",
           v->features, v->expected, v->actual, g_text);
}

static bool spec_ready(lctx_fuzz_result *result) {
  if (g_spec_ready)
    return true;
  char error[512];
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  lctx_str spec = lctx_fuzz_embedded_spec();
  if (!lctx_spec_parse(spec.data, spec.length, "<embedded spec>", &g_spec,
                       &e)) {
    result->failed = true;
    snprintf(result->key, sizeof result->key, "bad-spec");
    /* Every target that judges by the table shares this key. */
    snprintf(result->report, sizeof result->report,
             "the embedded spec does not parse: %s", error);
    return false;
  }
  g_spec_ready = true;
  return true;
}

bool lctx_fuzz_model(const uint8_t *data, size_t size,
                     lctx_fuzz_result *result) {
  static lctx_oracle oracle;
  result->failed = false;
  result->key[0] = result->report[0] = '\0';
  if (!spec_ready(result))
    return true;
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

//===----------------------------------------------------------------------===//
// fuzz_differential
//===----------------------------------------------------------------------===//

/* Linked in by the fuzz_differential target (the example plugin); absent
 * (NULL) elsewhere. */
extern const lctx_impl_table *lctx_impl_entry(void) __attribute__((weak));

static const lctx_impl_table *g_table;
static char g_table_error[512];

static const lctx_impl_table *differential_table(void) {
  if (g_table || g_table_error[0])
    return g_table;
  const char *path = getenv("LCTX_DIFF_PLUGIN");
  if (path && *path) {
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    void *sym = lib ? dlsym(lib, LCTX_IMPL_ENTRY_SYMBOL) : NULL;
    if (!sym) {
      snprintf(g_table_error, sizeof g_table_error, "LCTX_DIFF_PLUGIN=%s: %s",
               path, dlerror());
      return NULL;
    }
    lctx_impl_entry_fn entry;
    memcpy(&entry, &sym, sizeof entry);
    g_table = entry();
  } else if (lctx_impl_entry) {
    g_table = lctx_impl_entry();
  } else {
    snprintf(g_table_error, sizeof g_table_error,
             "no implementation: set LCTX_DIFF_PLUGIN to a library exporting "
             "%s",
             LCTX_IMPL_ENTRY_SYMBOL);
    return NULL;
  }
  if (!g_table || g_table->abi_version < 1 ||
      g_table->abi_version > LCTX_IMPL_ABI_VERSION) {
    snprintf(g_table_error, sizeof g_table_error,
             "the implementation's table is missing or not ABI version 1 to "
             "%d",
             LCTX_IMPL_ABI_VERSION);
    g_table = NULL;
  }
  return g_table;
}

/* Runs every operation of `c` on the implementation; false if it failed. */
static bool run_impl(const lctx_impl_table *t, const lctx_case *c,
                     lctx_outcome *outs, char *why, size_t cap) {
  static lctx_case_impl_views views;
  lctx_impl_config config;
  lctx_case_impl_config(c, &views, &config);
  void *session = t->session_create(&config);
  if (!session) {
    snprintf(why, cap, "session_create returned NULL");
    return false;
  }
  static char text[LCTX_OUTCOME_TEXT_MAX];
  bool ok = true;
  for (size_t i = 0; i < c->op_count && ok; i++) {
    lctx_impl_outcome o = {0, 0, 0, -1, text, sizeof text, 0};
    lctx_impl_status st =
        lctx_case_impl_run_op(t, session, &c->ops[i], &o, NULL, NULL);
    const char *bad = NULL;
    if (st != 0 || o.text_length >= sizeof text ||
        !lctx_outcome_from_impl(o.kind, o.error_class, o.origin, o.registration,
                                text, o.text_length, &outs[i], &bad)) {
      snprintf(why, cap, "operation %zu: status %d, text_length %zu%s%s", i, st,
               o.text_length, bad ? ", " : "", bad ? bad : "");
      ok = false;
    }
  }
  t->session_destroy(session);
  return ok;
}

bool lctx_fuzz_differential(const uint8_t *data, size_t size,
                            lctx_fuzz_result *result) {
  static lctx_outcome reference[LCTX_CASE_MAX_OPS];
  static lctx_outcome impl[LCTX_CASE_MAX_OPS];
  static lctx_features features;
  static char expected[4 * (LCTX_OUTCOME_TEXT_MAX + 32)];
  static char actual[LCTX_OUTCOME_TEXT_MAX + 64];
  result->failed = false;
  result->key[0] = result->report[0] = '\0';
  if (!spec_ready(result))
    return true;
  const lctx_impl_table *t = differential_table();
  if (!t) {
    result->failed = true;
    snprintf(result->key, sizeof result->key,
             "fuzz_differential/no-implementation");
    snprintf(result->report, sizeof result->report,
             "lctx fuzz_differential: %s", g_table_error);
    return true;
  }
  lctx_case_decode(data, size, &g_case);
  lctx_engine ref = lctx_engine_reference();
  ref.run_all(ref.context, &g_case, reference);
  char why[256];
  if (!run_impl(t, &g_case, impl, why, sizeof why)) {
    print_case(&g_case);
    result->failed = true;
    snprintf(result->key, sizeof result->key, "fuzz_differential/impl/failed");
    snprintf(result->report, sizeof result->report,
             "lctx fuzz_differential: %s failed: %s\n  case:\n%s", t->name, why,
             g_text);
    return true;
  }
  lctx_feature_state state;
  lctx_feature_state_init(&state, &g_case);
  for (size_t i = 0; i < g_case.op_count; i++) {
    lctx_features_compute(&state, i, &features);
    for (int side = 0; side < 2; side++) {
      const lctx_outcome *o = side == 0 ? &reference[i] : &impl[i];
      lctx_buf eb, ab;
      lctx_buf_init(&eb, expected, sizeof expected);
      lctx_buf_init(&ab, actual, sizeof actual);
      lctx_outcome_format(o, &ab);
      size_t row;
      static lctx_outcome first;
      lctx_judgement j =
          lctx_oracle_judge(&g_spec, &features, o, true, &row, &eb, &first);
      if (j == LCTX_JUDGE_ALLOWED)
        continue;
      result->failed = true;
      const char *row_id = row < g_spec.row_count ? g_spec.rows[row].id : "-";
      snprintf(result->key, sizeof result->key,
               "fuzz_differential/%s/row=%s/expected=%s/actual=%s",
               side == 0 ? "reference" : "impl",
               j == LCTX_JUDGE_ALLOWED || j == LCTX_JUDGE_NOT_ALLOWED ? row_id
                                                                      : "none",
               j == LCTX_JUDGE_NOT_ALLOWED ? outcome_class(&first) : "-",
               outcome_class(o));
      print_case(&g_case);
      snprintf(result->report, sizeof result->report,
               "lctx fuzz_differential: %s (%s) at operation %zu (%s)\n"
               "  row:      %s\n  expected: %s\n  actual:   %s\n  case:\n%s",
               side == 0 ? "the reference model" : t->name,
               j == LCTX_JUDGE_NOT_ALLOWED ? "outcome not allowed"
                                           : "no single spec row",
               i, lctx_op_kind_name(g_case.ops[i].kind), row_id, expected,
               actual, g_text);
      return true;
    }
    if (!lctx_outcome_equal(&reference[i], &impl[i])) {
      /* Both allowed, yet different: the row allows several outcomes. */
      lctx_buf ab;
      lctx_buf_init(&ab, actual, sizeof actual);
      lctx_outcome_format(&impl[i], &ab);
      lctx_buf eb;
      lctx_buf_init(&eb, expected, sizeof expected);
      lctx_outcome_format(&reference[i], &eb);
      result->failed = true;
      snprintf(result->key, sizeof result->key,
               "fuzz_differential/differ/op=%s",
               lctx_op_kind_name(g_case.ops[i].kind));
      print_case(&g_case);
      snprintf(result->report, sizeof result->report,
               "lctx fuzz_differential: both allowed but different at "
               "operation %zu\n  reference: %s\n  %s: %s\n  case:\n%s",
               i, expected, t->name, actual, g_text);
      return true;
    }
  }
  return false;
}

const lctx_fuzz_target lctx_fuzz_targets[] = {
    {"fuzz_model", lctx_fuzz_model},
    {"fuzz_case_text", lctx_fuzz_case_text},
    {"fuzz_spec", lctx_fuzz_spec},
    {"fuzz_differential", lctx_fuzz_differential},
    {NULL, NULL},
};

const lctx_fuzz_target *lctx_fuzz_target_find(const char *name) {
  for (const lctx_fuzz_target *t = lctx_fuzz_targets; t->name; t++) {
    if (strcmp(t->name, name) == 0)
      return t;
  }
  return NULL;
}
