/*
 * fuzzcheck.c - the checks behind the fuzz targets and the table of all five
 * (see fuzzcheck.h).
 *
 * Everything reused between inputs is in struct lctx_fuzz_state: the spec
 * table, parsed once; the cases and text buffers; fuzz_spec's table;
 * fuzz_differential's implementation and outcome arrays. Fuzz targets call
 * these millions of times in one process, one input at a time, so the large
 * buffers are allocated once per state, not per input.
 */
#include "fuzzcheck.h"
#include "model_dispatch.h"
#include "program.h"
#include "program_draw.h"
#include "program_reduce.h"
#include "program_text.h"
#include "textdiff.h"

#include "case_bytes.h"
#include "case_text.h"
#include "lctx/impl_abi.h"
#include "oracle.h"
#include "plugin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Generated at build time from conformance/spec/backend-selection.lspec. */
extern const char lctx_embedded_spec[];
extern const unsigned long lctx_embedded_spec_size;

lctx_str lctx_fuzz_embedded_spec(void) {
  return lctx_str_make(lctx_embedded_spec, lctx_embedded_spec_size);
}

/* The implementation fuzz_differential compares, looked up once. */
typedef struct differential_impl {
  const char *plugin;           /* the library used when nothing else is */
  bool tried;                   /* looked up (table or error set) */
  const lctx_impl_table *table; /* NULL when it cannot run */
  char error[512];              /* why table is NULL */
  char name[640]; /* the table's name, and the library's path if loaded */
} differential_impl;

struct lctx_fuzz_state {
  /* The embedded spec table (fuzz_model, fuzz_differential). */
  lctx_spec spec;
  bool spec_ready;
  /* Why the embedded table did not parse (lctx_fuzz_state_new parses it). */
  char spec_error[512];
  lctx_oracle oracle;
  lctx_fuzz_result *result; /* the verdict of the running check */
  /* The decoded or parsed case, its re-parse, and both printed. */
  lctx_case c, c2;
  lctx_case_expect expect, expect2;
  /* fuzz_model's case: only ever decoded into (zero at first), so each
   * input clears only what the last one used (lctx_case_decode_reuse). */
  lctx_case decoded;
  char text[LCTX_CASE_TEXT_MAX];
  char text2[LCTX_CASE_TEXT_MAX];
  /* fuzz_spec: the parsed input and a rendering of its rows. */
  lctx_spec parsed;
  lctx_features features;
  lctx_outcome rendered;
  /* fuzz_differential. */
  differential_impl impl;
  lctx_case_impl_views views;
  char impl_text[LCTX_OUTCOME_TEXT_MAX];
  lctx_outcome reference_out[LCTX_CASE_MAX_OPS];
  lctx_outcome impl_out[LCTX_CASE_MAX_OPS];
  lctx_outcome first_allowed;
  char expected[4 * (LCTX_OUTCOME_TEXT_MAX + 32)];
  char actual[LCTX_OUTCOME_TEXT_MAX + 64];
};

/* Parses the embedded spec table into the state: the one-time set-up of
 * every target that judges by it, done by LLVMFuzzerInitialize (through
 * lctx_fuzz_state_new) rather than on the first input. */
static void spec_load(lctx_fuzz_state *state) {
  lctx_buf e;
  lctx_buf_init(&e, state->spec_error, sizeof state->spec_error);
  lctx_str spec = lctx_fuzz_embedded_spec();
  state->spec_ready = lctx_spec_parse(spec.data, spec.length, "<embedded spec>",
                                      &state->spec, &e);
  if (!state->spec_ready && state->spec_error[0] == '\0')
    lctx_buf_append_cstr(&e, "(no message)");
}

lctx_fuzz_state *lctx_fuzz_state_new(void) {
  lctx_fuzz_state *state = calloc(1, sizeof(lctx_fuzz_state));
  if (state)
    spec_load(state);
  return state;
}

void lctx_fuzz_state_set_plugin(lctx_fuzz_state *state, const char *path) {
  state->impl.plugin = path && *path ? path : NULL;
}

void lctx_fuzz_state_free(lctx_fuzz_state *state) {
  if (!state)
    return;
  free(state);
}

/* Starts a check: an empty verdict, remembered for the callbacks. */
static void begin(lctx_fuzz_state *state, lctx_fuzz_result *result) {
  result->failed = false;
  result->key[0] = result->report[0] = '\0';
  state->result = result;
}

/* Prints a case into state->text, for a report (only when there is one). */
static void print_case(lctx_fuzz_state *state, const lctx_case *c,
                       const lctx_case_expect *expect) {
  lctx_buf b;
  lctx_buf_init(&b, state->text, sizeof state->text);
  lctx_case_print(c, expect, &b);
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

/* "  first difference at byte N (from 0)\n" of EXPECTED and ACTUAL (a
 * line, not a caret: the report is shown line by line, and a newline in
 * either text would move a caret; textdiff.h) into LINE, or "" when they
 * are the same; returns LINE. */
static const char *first_difference(char line[80], const char *expected,
                                    const char *actual) {
  lctx_textdiff d;
  lctx_textdiff_find(expected, strlen(expected), actual, strlen(actual), &d);
  line[0] = '\0';
  if (!d.same)
    snprintf(line, 80, "  first difference at byte %zu (from 0)\n", d.at);
  return line;
}

static void on_violation(void *user, const lctx_violation *v) {
  lctx_fuzz_state *state = user;
  lctx_fuzz_result *r = state->result;
  if (r->failed)
    return; /* the first violation names the finding */
  r->failed = true;
  snprintf(r->key, sizeof r->key,
           "fuzz_model/%s/row=%s/inv=%s/expected=%s/actual=%s",
           violation_slug(v->kind), v->row[0] ? v->row : "-",
           v->invariant[0] ? v->invariant : "-",
           outcome_class(v->expected_outcome),
           outcome_class(v->actual_outcome));
  print_case(state, v->c, v->expect);
  char diff[80];
  snprintf(r->report, sizeof r->report,
           "lctx fuzz_model: %s at operation %zu (%s)\n"
           "  row:       %s\n  invariant: %s\n  features:  %s\n"
           "  expected:  %s\n  actual:    %s\n%s  case:\n%s",
           lctx_violation_kind_name(v->kind), v->op_index,
           lctx_op_kind_name(v->c->ops[v->op_index].kind),
           v->row[0] ? v->row : "-", v->invariant[0] ? v->invariant : "-",
           v->features, v->expected, v->actual,
           first_difference(diff, v->expected, v->actual), state->text);
}

/* False (with the `bad-spec` verdict) when the embedded spec table did not
 * parse (spec_load). */
static bool spec_ready(lctx_fuzz_state *state, lctx_fuzz_result *result) {
  if (state->spec_ready)
    return true;
  result->failed = true;
  snprintf(result->key, sizeof result->key, "bad-spec");
  /* Every target that judges by the table shares this key. */
  snprintf(result->report, sizeof result->report,
           "the embedded spec does not parse: %s", state->spec_error);
  return false;
}

bool lctx_fuzz_model(lctx_fuzz_state *state, const uint8_t *data, size_t size,
                     lctx_fuzz_result *result) {
  begin(state, result);
  if (!spec_ready(state, result))
    return true;
  /* Its memo of matched rows is kept from one input to the next. */
  if (state->oracle.spec == &state->spec)
    lctx_oracle_restart(&state->oracle);
  else
    lctx_oracle_init(&state->oracle, &state->spec, lctx_engine_reference());
  state->oracle.on_violation = on_violation;
  state->oracle.user = state;
  lctx_case_decode_reuse(data, size, &state->decoded);
  lctx_oracle_check_case(&state->oracle, &state->decoded);
  return result->failed;
}

bool lctx_fuzz_case_text(lctx_fuzz_state *state, const uint8_t *data,
                         size_t size, lctx_fuzz_result *result) {
  char error[1024];
  lctx_buf e, b1, b2;
  begin(state, result);
  lctx_buf_init(&e, error, sizeof error);
  if (!lctx_case_parse((const char *)data, size, "<input>", &state->c,
                       &state->expect, &e))
    return false; /* rejected with a message: fine */
  lctx_buf_init(&b1, state->text, sizeof state->text);
  lctx_case_print(&state->c, &state->expect, &b1);
  lctx_buf_reset(&e);
  const char *problem = NULL;
  if (b1.overflow) {
    problem = "print-overflow";
  } else if (!lctx_case_parse(state->text, b1.length, "<printed>", &state->c2,
                              &state->expect2, &e)) {
    problem = "reparse-failed";
  } else if (!lctx_case_equal(&state->c, &state->c2) ||
             !lctx_case_expect_equal(&state->expect, &state->expect2,
                                     state->c.op_count)) {
    problem = "round-trip-differs";
  } else {
    lctx_buf_init(&b2, state->text2, sizeof state->text2);
    lctx_case_print(&state->c2, &state->expect2, &b2);
    if (b1.length != b2.length ||
        memcmp(state->text, state->text2, b1.length) != 0)
      problem = "print-not-canonical";
  }
  if (!problem)
    return false;
  result->failed = true;
  snprintf(result->key, sizeof result->key, "fuzz_case_text/%s", problem);
  snprintf(result->report, sizeof result->report,
           "lctx fuzz_case_text: %s%s%s\n  printed:\n%s", problem,
           error[0] ? ": " : "", error, state->text);
  return true;
}

bool lctx_fuzz_spec(lctx_fuzz_state *state, const uint8_t *data, size_t size,
                    lctx_fuzz_result *result) {
  char error[1024];
  lctx_buf e;
  begin(state, result);
  lctx_buf_init(&e, error, sizeof error);
  if (!lctx_spec_parse((const char *)data, size, "<input>", &state->parsed,
                       &e)) {
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
  memset(&state->features, 0, sizeof state->features);
  const lctx_spec *spec = &state->parsed;
  for (size_t i = 0; i < spec->row_count; i++) {
    for (size_t k = 0; k < spec->rows[i].outcome_count; k++) {
      lctx_buf_reset(&e);
      lctx_spec_render(&spec->rows[i].outcomes[k], &state->features,
                       &state->rendered, &e);
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

/* The implementation's table, looked up on first use (core/run/plugin.h:
 * LCTX_DIFF_PLUGIN's library, else the linked-in entry point, else the
 * state's plugin, each checked alike); NULL (with impl->error) when it
 * cannot run. */
static const lctx_impl_table *differential_table(differential_impl *impl) {
  if (impl->tried)
    return impl->table;
  impl->tried = true;
  char message[512];
  lctx_buf e;
  lctx_buf_init(&e, message, sizeof message);
  const char *env = getenv("LCTX_DIFF_PLUGIN");
  const char *path = env && *env ? env : NULL;
  const lctx_impl_table *t = NULL;
  if (!path && lctx_impl_entry) {
    t = lctx_impl_entry();
    if (!lctx_plugin_check_table(t, &e)) {
      snprintf(impl->error, sizeof impl->error, "the linked-in table: %s",
               message);
      t = NULL;
    }
  } else if (path || impl->plugin) {
    t = lctx_plugin_load(path ? path : impl->plugin, &e);
    if (!t)
      snprintf(impl->error, sizeof impl->error, "%s%s: %s",
               path ? "LCTX_DIFF_PLUGIN=" : "", path ? path : impl->plugin,
               message);
  } else {
    snprintf(impl->error, sizeof impl->error,
             "no implementation: set LCTX_DIFF_PLUGIN to a library exporting "
             "%s",
             LCTX_IMPL_ENTRY_SYMBOL);
  }
  impl->table = t;
  /* A mutant's table gives the example's name: the library says which. */
  const char *lib = path ? path : lctx_impl_entry ? NULL : impl->plugin;
  if (t)
    snprintf(impl->name, sizeof impl->name, lib ? "%s (%s)" : "%s", t->name,
             lib ? lib : "");
  return t;
}

/* Runs every operation of the state's case on the implementation into
 * state->impl_out; false (with `why`) if it failed. */
static bool run_impl(lctx_fuzz_state *state, const lctx_impl_table *t,
                     char *why, size_t cap) {
  const lctx_case *c = &state->c;
  lctx_impl_config config;
  lctx_case_impl_config(c, &state->views, &config);
  void *session = t->session_create(&config);
  if (!session) {
    snprintf(why, cap, "session_create returned NULL");
    return false;
  }
  char *text = state->impl_text;
  size_t cap_text = sizeof state->impl_text;
  bool ok = true;
  for (size_t i = 0; i < c->op_count && ok; i++) {
    lctx_impl_outcome o = {0, 0, 0, -1, text, cap_text, 0};
    lctx_impl_status st =
        lctx_case_impl_run_op(t, session, c, &c->ops[i], &o, NULL, NULL);
    const char *bad = NULL;
    if (st != 0 || o.text_length >= cap_text ||
        !lctx_outcome_from_impl(o.kind, o.error_class, o.origin, o.registration,
                                text, o.text_length, &state->impl_out[i],
                                &bad)) {
      snprintf(why, cap, "operation %zu: status %d, text_length %zu%s%s", i, st,
               o.text_length, bad ? ", " : "", bad ? bad : "");
      ok = false;
    }
  }
  t->session_destroy(session);
  return ok;
}

/* Judges one side's outcome of operation i by the spec table; true (with
 * the verdict) when the table does not allow it. */
static bool differential_judge(lctx_fuzz_state *state, const char *impl_name,
                               size_t i, bool impl_side,
                               lctx_fuzz_result *result) {
  const lctx_outcome *o =
      impl_side ? &state->impl_out[i] : &state->reference_out[i];
  lctx_buf eb, ab;
  size_t row;
  if (lctx_oracle_judge(&state->spec, &state->features, o, true, &row, NULL,
                        NULL) == LCTX_JUDGE_ALLOWED)
    return false;
  /* Not allowed: judged again, writing the texts of the report. */
  lctx_buf_init(&eb, state->expected, sizeof state->expected);
  lctx_buf_init(&ab, state->actual, sizeof state->actual);
  lctx_outcome_format(o, &ab);
  lctx_judgement j = lctx_oracle_judge(&state->spec, &state->features, o, true,
                                       &row, &eb, &state->first_allowed);
  if (j == LCTX_JUDGE_ALLOWED)
    return false;
  result->failed = true;
  const char *row_id =
      row < state->spec.row_count ? state->spec.rows[row].id : "-";
  snprintf(result->key, sizeof result->key,
           "fuzz_differential/%s/row=%s/expected=%s/actual=%s",
           impl_side ? "impl" : "reference",
           j == LCTX_JUDGE_NOT_ALLOWED ? row_id : "none",
           j == LCTX_JUDGE_NOT_ALLOWED ? outcome_class(&state->first_allowed)
                                       : "-",
           outcome_class(o));
  print_case(state, &state->c, NULL);
  char diff[80];
  snprintf(result->report, sizeof result->report,
           "lctx fuzz_differential: %s (%s) at operation %zu (%s)\n"
           "  row:      %s\n  expected: %s\n  actual:   %s\n%s  case:\n%s",
           impl_side ? impl_name : "the reference model",
           j == LCTX_JUDGE_NOT_ALLOWED ? "outcome not allowed"
                                       : "no single spec row",
           i, lctx_op_kind_name(state->c.ops[i].kind), row_id, state->expected,
           state->actual,
           first_difference(diff, state->expected, state->actual), state->text);
  return true;
}

/* Both outcomes of operation i are allowed: true (with the verdict) when
 * they differ all the same, the row allowing several outcomes. */
static bool differential_differ(lctx_fuzz_state *state, const char *impl_name,
                                size_t i, lctx_fuzz_result *result) {
  if (lctx_outcome_equal(&state->reference_out[i], &state->impl_out[i]))
    return false;
  lctx_buf eb, ab;
  lctx_buf_init(&ab, state->actual, sizeof state->actual);
  lctx_outcome_format(&state->impl_out[i], &ab);
  lctx_buf_init(&eb, state->expected, sizeof state->expected);
  lctx_outcome_format(&state->reference_out[i], &eb);
  result->failed = true;
  snprintf(result->key, sizeof result->key, "fuzz_differential/differ/op=%s",
           lctx_op_kind_name(state->c.ops[i].kind));
  print_case(state, &state->c, NULL);
  char diff[80];
  snprintf(result->report, sizeof result->report,
           "lctx fuzz_differential: both allowed but different at "
           "operation %zu\n  reference: %s\n  %s: %s\n%s  case:\n%s",
           i, state->expected, impl_name, state->actual,
           first_difference(diff, state->expected, state->actual), state->text);
  return true;
}

bool lctx_fuzz_differential(lctx_fuzz_state *state, const uint8_t *data,
                            size_t size, lctx_fuzz_result *result) {
  begin(state, result);
  if (!spec_ready(state, result))
    return true;
  const lctx_impl_table *t = differential_table(&state->impl);
  if (!t) {
    result->failed = true;
    snprintf(result->key, sizeof result->key,
             "fuzz_differential/no-implementation");
    snprintf(result->report, sizeof result->report,
             "lctx fuzz_differential: %s", state->impl.error);
    return true;
  }
  lctx_case_decode(data, size, &state->c);
  lctx_engine ref = lctx_engine_reference();
  ref.run_all(ref.context, &state->c, state->reference_out);
  char why[256];
  if (!run_impl(state, t, why, sizeof why)) {
    print_case(state, &state->c, NULL);
    result->failed = true;
    snprintf(result->key, sizeof result->key, "fuzz_differential/impl/failed");
    snprintf(result->report, sizeof result->report,
             "lctx fuzz_differential: %s failed: %s\n  case:\n%s",
             state->impl.name, why, state->text);
    return true;
  }
  lctx_feature_state features;
  lctx_classify_init(&features, &state->c);
  for (size_t i = 0; i < state->c.op_count; i++) {
    lctx_classify_op(&features, i, &state->features);
    if (differential_judge(state, state->impl.name, i, false, result) ||
        differential_judge(state, state->impl.name, i, true, result) ||
        differential_differ(state, state->impl.name, i, result))
      return true;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

/* One row per line, read by fuzzers/oss-fuzz-build.sh,
 * fuzzers/fuzz-targets.cmake and tests/test_oss_fuzz_build.sh (see
 * fuzzcheck.h): name, needs_mlir, extra_source, check. */
/* What JAX's `_get_lowering_rules` and lower_per_platform give for one
 * primitive of a generated program, written out plainly (each platform's
 * own rule, else the default; a rule kept once, its platforms in list
 * order), to compare with the reference model. False when some platform
 * has no rule. */
static bool plain_dispatch(const lctx_program_desc *p, int prim,
                           const char *const *plats, size_t n,
                           lctx_dispatch_event *out) {
  const lctx_prog_prim *q = &p->prim[prim];
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < n; i++) {
    int rule = -1;
    for (size_t r = 0; r < q->nr; r++)
      if (strcmp(lctx_prog_platforms[q->r[r].platform], plats[i]) == 0)
        rule = (int)r;
    for (size_t r = 0; rule < 0 && r < q->nr; r++)
      if (q->r[r].platform == LCTX_PROG_DEFAULT)
        rule = (int)r;
    if (rule < 0)
      return false;
    const char *name = lctx_prog_platforms[q->r[rule].platform];
    size_t k = 0;
    while (k < out->rule_count && strcmp(out->rules[k].rule, name) != 0)
      k++;
    if (k == out->rule_count)
      snprintf(out->rules[out->rule_count++].rule, LCTX_DISPATCH_NAME_MAX, "%s",
               name);
    snprintf(out->rules[k].platforms[out->rules[k].count++],
             LCTX_DISPATCH_NAME_MAX, "%s", plats[i]);
  }
  return true;
}

static bool same_dispatch(const lctx_dispatch_event *a,
                          const lctx_dispatch_event *b) {
  if (a->rule_count != b->rule_count)
    return false;
  for (size_t i = 0; i < a->rule_count; i++) {
    size_t k = 0;
    while (k < b->rule_count && strcmp(a->rules[i].rule, b->rules[k].rule))
      k++;
    if (k == b->rule_count || a->rules[i].count != b->rules[k].count)
      return false;
    for (size_t j = 0; j < a->rules[i].count; j++)
      if (strcmp(a->rules[i].platforms[j], b->rules[k].platforms[j]) != 0)
        return false;
  }
  return true;
}

bool lctx_fuzz_program(lctx_fuzz_state *state, const uint8_t *data, size_t size,
                       lctx_fuzz_result *result) {
  begin(state, result);
  lctx_program_desc *p = malloc(sizeof *p), *q = malloc(sizeof *q);
  char *a = malloc(LCTX_PROG_TEXT_MAX), *b = malloc(LCTX_PROG_TEXT_MAX);
  const char *problem = NULL;
  char why[256] = "";
  if (!p || !q || !a || !b)
    goto done;
  lctx_prog_source src;
  lctx_prog_source_bytes(&src, data, size);
  lctx_program_generate(&src, p);
  size_t n = lctx_program_print(p, a, LCTX_PROG_TEXT_MAX);
  if (!n) {
    problem = "print-overflow";
  } else if (!lctx_program_parse(a, n, q, why, sizeof why)) {
    problem = "drawn-program-refused";
  } else if (lctx_program_print(q, b, LCTX_PROG_TEXT_MAX) != n ||
             memcmp(a, b, n) != 0) {
    problem = "print-not-canonical";
  }
  /* Every primitive over a platform list drawn from the input's end: the
   * reference model keeps the rules the plain reading gives. */
  static const char *const pool[] = {"cpu", "cuda", "rocm", "tpu", "oneapi"};
  const char *plats[4];
  size_t count = 1 + (size ? data[size - 1] % 4 : 0);
  for (size_t i = 0; i < count; i++)
    plats[i] = pool[(size > i + 1 ? data[size - 2 - i] : i) % 5];
  for (size_t i = 0; i < count; i++)
    for (size_t k = 0; k < i; k++)
      if (plats[i] == plats[k])
        count = i < count ? i : count; /* distinct names only */
  for (size_t i = 0; !problem && i < p->nprim; i++) {
    lctx_dispatch_event want, got;
    bool plain = plain_dispatch(p, (int)i, plats, count, &want);
    bool model = lctx_model_dispatch(p, (int)i, plats, count, &got);
    if (plain != model || (plain && !same_dispatch(&want, &got))) {
      problem = "model-dispatch-differs";
      snprintf(why, sizeof why, "primitive %s over %zu platforms",
               p->prim[i].name, count);
    }
  }
  /* Each reduction is a program that reads back. */
  for (size_t k = 0; !problem && k < 64 && lctx_program_reduce(p, k, q); k++) {
    size_t m = lctx_program_print(q, b, LCTX_PROG_TEXT_MAX);
    lctx_program_desc *r = malloc(sizeof *r);
    if (r && (!m || !lctx_program_parse(b, m, r, why, sizeof why)))
      problem = "reduction-invalid";
    free(r);
  }
  if (problem) {
    result->failed = true;
    snprintf(result->key, sizeof result->key, "fuzz_program/%s", problem);
    snprintf(result->report, sizeof result->report,
             "lctx fuzz_program: %s%s%s\n  program:\n%s", problem,
             why[0] ? ": " : "", why, a);
  }
done:
  free(p);
  free(q);
  free(a);
  free(b);
  return problem != NULL;
}

// clang-format off
const lctx_fuzz_target lctx_fuzz_targets[] = {
    {"fuzz_model", false, NULL, lctx_fuzz_model},
    {"fuzz_case_text", false, NULL, lctx_fuzz_case_text},
    {"fuzz_spec", false, NULL, lctx_fuzz_spec},
    {"fuzz_differential", false, "conformance/examples/c_plugin", lctx_fuzz_differential},
    {"fuzz_lowering", true, NULL, NULL},
    {"fuzz_program", false, NULL, lctx_fuzz_program},
    {NULL, false, NULL, NULL},
};
// clang-format on

const lctx_fuzz_target *lctx_fuzz_target_find(const char *name) {
  for (const lctx_fuzz_target *t = lctx_fuzz_targets; t->name; t++) {
    if (strcmp(t->name, name) == 0)
      return t;
  }
  return NULL;
}
