/*
 * oracle.c - the oracle (see oracle.h).
 */
#include "oracle.h"

#include "escape.h"

#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// The reference engine
//===----------------------------------------------------------------------===//

/* The runner a reference engine runs on: its context (an oracle's runner,
 * at the oracle's release: lctx_oracle_set_release, keeping initialized
 * registries in the oracle's scratch), or else a new one the
 * caller frees, at the modelled commit. A runner is too large for the
 * stack. */
static lctx_runner *reference_runner(void *context, const lctx_case *c) {
  lctx_runner *runner = context ? context : malloc(sizeof *runner);
  if (!runner)
    abort();     /* nowhere to report it: an engine cannot fail */
  if (context) { /* an oracle's: its fresh registries kept across cases */
    lctx_oracle_scratch *s =
        (lctx_oracle_scratch *)((char *)context -
                                offsetof(lctx_oracle_scratch, runner));
    lctx_runner_init_registry(runner, c, runner->config.release, &s->fresh,
                              s->registry);
  } else
    lctx_runner_init_at(runner, c, NULL);
  return runner;
}

static void reference_run(void *context, const lctx_case *c, size_t prefix,
                          const lctx_case_op *op, lctx_outcome *out) {
  /* After reference_run_all of this case: from the kept registry state. */
  lctx_runner *kept = context;
  if (kept && kept->c == c && lctx_runner_variant(kept, prefix, op, out))
    return;
  lctx_runner *runner = reference_runner(context, c);
  for (size_t i = 0; i < prefix; i++)
    lctx_runner_op(runner, &c->ops[i], out, NULL);
  lctx_runner_op(runner, op, out, NULL);
  if (runner != context)
    free(runner);
}

static void reference_run_all(void *context, const lctx_case *c,
                              lctx_outcome *outs) {
  lctx_runner *runner = reference_runner(context, c);
  lctx_runner_run_all(runner, outs);
  if (runner != context)
    free(runner);
}

lctx_engine lctx_engine_reference(void) {
  lctx_engine e = {"reference", NULL, reference_run, reference_run_all};
  return e;
}

//===----------------------------------------------------------------------===//
// Reporting
//===----------------------------------------------------------------------===//

const char *lctx_violation_kind_name(lctx_violation_kind kind) {
  switch (kind) {
  case LCTX_V_NO_ROW:
    return "no spec row matches";
  case LCTX_V_SEVERAL_ROWS:
    return "several spec rows match";
  case LCTX_V_RENDER:
    return "spec row cannot be rendered";
  case LCTX_V_OUTCOME:
    return "outcome not allowed by the spec row";
  case LCTX_V_EXPECT:
    return "outcome differs from the case's expectation";
  case LCTX_V_INVARIANT:
    return "invariant violated";
  }
  return "?";
}

/* Everything before the scratch space to zero, then the spec, the engine
 * and the defaults. */
static void set_up(lctx_oracle *oracle, const lctx_spec *spec,
                   lctx_engine engine) {
  memset(oracle, 0, offsetof(lctx_oracle, scratch));
  oracle->spec = spec;
  oracle->engine = engine;
  if (engine.run == reference_run && !engine.context)
    oracle->engine.context = &oracle->scratch.runner;
  oracle->invariants = true;
  oracle->messages_exact = true;
}

void lctx_oracle_init(lctx_oracle *oracle, const lctx_spec *spec,
                      lctx_engine engine) {
  /* The scratch space is written before it is read, but for the memo of
   * matched rows, which belongs to `spec`, and the release of the runner
   * lent to a reference engine. */
  set_up(oracle, spec, engine);
  memset(oracle->scratch.matches, 0, sizeof oracle->scratch.matches);
  oracle->scratch.runner.config.release = NULL;
  oracle->scratch.runner.c = NULL;
  oracle->scratch.runner.registry_id = 0;
  oracle->scratch.registry = 0;
  lctx_runner_fresh_clear(&oracle->scratch.fresh);
}

void lctx_oracle_set_release(lctx_oracle *oracle, const lctx_release *rel) {
  oracle->scratch.runner.config.release = rel;
  lctx_runner_fresh_clear(&oracle->scratch.fresh);
  oracle->scratch.runner.c = NULL; /* no kept state of another release */
  oracle->scratch.runner.state_count = 0;
}

void lctx_oracle_restart(lctx_oracle *oracle) {
  set_up(oracle, oracle->spec, oracle->engine);
}

typedef struct report {
  lctx_oracle *oracle;
  const lctx_case *c;
  const lctx_case_expect *expect;
  size_t index;
  const lctx_features *features;
  size_t count;
} report;

static void emit(report *r, lctx_violation_kind kind, const char *row,
                 const char *invariant, const char *expected,
                 const char *actual, const lctx_outcome *expected_outcome,
                 const lctx_outcome *actual_outcome) {
  char features[1024];
  lctx_buf fb;
  lctx_buf_init(&fb, features, sizeof features);
  lctx_buf_append_cstr(&fb, "op=");
  lctx_buf_append_cstr(&fb, lctx_op_kind_name(r->features->op));
  lctx_buf_append_char(&fb, ' ');
  lctx_classify_format(r->features, &fb);
  lctx_violation v = {kind,           r->c,
                      r->expect,      r->index,
                      row ? row : "", invariant ? invariant : "",
                      features,       expected,
                      actual,         expected_outcome,
                      actual_outcome};
  r->oracle->violations++;
  r->count++;
  if (r->oracle->on_violation)
    r->oracle->on_violation(r->oracle->user, &v);
}

static void format_outcome(const lctx_outcome *o, lctx_buf *b) {
  lctx_outcome_format(o, b);
}

static bool same(const lctx_outcome *expected, const lctx_outcome *actual,
                 bool exact) {
  if (exact || expected->kind != LCTX_OUTCOME_RAISE)
    return lctx_outcome_equal(expected, actual);
  return actual->kind == LCTX_OUTCOME_RAISE && actual->error == expected->error;
}

//===----------------------------------------------------------------------===//
// Row check
//===----------------------------------------------------------------------===//

typedef lctx_oracle_scratch scratch;

/* lctx_oracle_judge_rows of one row writing the texts (`expected`, or
 * `first_allowed`): apart, so that the two outcomes it renders into (8 KB
 * each) are not in the frame of every judgement (under AddressSanitizer a
 * frame's size costs on each call). */
__attribute__((noinline)) static lctx_judgement
judge_row_writing(const lctx_spec_row *r, const lctx_features *features,
                  const lctx_outcome *actual, bool strict, lctx_buf *expected,
                  lctx_outcome *first_allowed) {
  lctx_outcome first_store, rendered_store;
  bool allowed = false;
  if (!first_allowed)
    first_allowed = &first_store;
  for (size_t k = 0; k < r->outcome_count; k++) {
    lctx_outcome *rendered = k == 0 ? first_allowed : &rendered_store;
    char why[256];
    lctx_buf wb;
    lctx_buf_init(&wb, why, sizeof why);
    if (!lctx_spec_render(&r->outcomes[k], features, rendered, &wb)) {
      if (expected)
        lctx_buf_append_cstr(expected, why);
      return LCTX_JUDGE_RENDER;
    }
    if (expected) {
      if (k > 0)
        lctx_buf_append_cstr(expected, " | ");
      format_outcome(rendered, expected);
    }
    if (same(rendered, actual, strict))
      allowed = true;
  }
  return allowed ? LCTX_JUDGE_ALLOWED : LCTX_JUDGE_NOT_ALLOWED;
}

lctx_judgement lctx_oracle_judge_rows(const lctx_spec *spec,
                                      const lctx_features *features,
                                      const size_t *matches, size_t n,
                                      const lctx_outcome *actual, bool exact,
                                      size_t *row, lctx_buf *expected,
                                      lctx_outcome *first_allowed) {
  *row = n > 0 ? matches[0] : (size_t)-1;
  if (n != 1) {
    for (size_t i = 0; expected && i < n && i < 4; i++) {
      if (i > 0)
        lctx_buf_append_cstr(expected, ", ");
      lctx_buf_append_cstr(expected, spec->rows[matches[i]].id);
    }
    return n == 0 ? LCTX_JUDGE_NO_ROW : LCTX_JUDGE_SEVERAL_ROWS;
  }
  const lctx_spec_row *r = &spec->rows[matches[0]];
  bool strict = r->exact && exact;
  if (expected || first_allowed)
    return judge_row_writing(r, features, actual, strict, expected,
                             first_allowed);
  /* Nothing to write: compared in place, rendering only what must be. */
  bool allowed = false;
  uint32_t has = lctx_spec_features_mask(features);
  for (size_t k = 0; k < r->outcome_count; k++) {
    int m = lctx_spec_allows(&r->outcomes[k], features, has, actual, strict);
    if (m < 0)
      return LCTX_JUDGE_RENDER;
    allowed = allowed || m == 1;
  }
  return allowed ? LCTX_JUDGE_ALLOWED : LCTX_JUDGE_NOT_ALLOWED;
}

lctx_judgement lctx_oracle_judge(const lctx_spec *spec,
                                 const lctx_features *features,
                                 const lctx_outcome *actual, bool exact,
                                 size_t *row, lctx_buf *expected,
                                 lctx_outcome *first_allowed) {
  size_t matches[4];
  size_t n = lctx_spec_match(spec, features, matches, 4);
  return lctx_oracle_judge_rows(spec, features, matches, n, actual, exact, row,
                                expected, first_allowed);
}

/* A memo slot keeps the operation kind and the feature values as the
 * features hold them, first in the struct: compared whole, a word at a
 * time, and hashed as they are (every value a key, none too wide for it). */
_Static_assert(offsetof(lctx_features, op) == 0 &&
                   sizeof(lctx_op_kind) == sizeof(int) &&
                   offsetof(lctx_features, value) == sizeof(int) &&
                   sizeof(int) * (1 + LCTX_FEATURE_COUNT) ==
                       8 * LCTX_ORACLE_MATCH_WORDS,
               "the operation kind and the feature values are whole words "
               "at the start of lctx_features");

size_t lctx_oracle_match_rows(const lctx_spec *spec, lctx_oracle_match *memo,
                              const lctx_features *f, size_t matches[4]) {
  uint64_t what[LCTX_ORACLE_MATCH_WORDS];
  memcpy(what, f, sizeof what);
  uint64_t h = 0;
  for (size_t i = 0; i < LCTX_ORACLE_MATCH_WORDS; i++)
    h = (h ^ what[i]) * 0x9e3779b97f4a7c15ULL;
  uint64_t key = h | (uint64_t)1 << 63;
  lctx_oracle_match *m = &memo[h >> 55 & (LCTX_ORACLE_MATCH_SLOTS - 1)];
  uint64_t differ = m->key ^ key; /* in place of a call to memcmp */
  for (size_t i = 0; i < LCTX_ORACLE_MATCH_WORDS; i++)
    differ |= m->what[i] ^ what[i];
  if (differ != 0) {
    size_t n = lctx_spec_match(spec, f, matches, 4);
    m->key = key;
    memcpy(m->what, what, sizeof what);
    m->count = (uint8_t)(n < 255 ? n : 255);
    for (size_t i = 0; i < n && i < 4; i++)
      m->rows[i] = (uint8_t)matches[i];
    return n;
  }
  for (size_t i = 0; i < m->count && i < 4; i++)
    matches[i] = m->rows[i];
  return m->count;
}

/* lctx_spec_match of the oracle's spec, through its memo. */
static size_t match_rows(lctx_oracle *oracle, const lctx_features *f,
                         size_t *matches) {
  return lctx_oracle_match_rows(oracle->spec, oracle->scratch.matches, f,
                                matches);
}

static void check_row(report *r, scratch *s, const lctx_outcome *actual) {
  size_t row;
  size_t matches[4];
  size_t n = match_rows(r->oracle, r->features, matches);
  lctx_judgement j =
      lctx_oracle_judge_rows(r->oracle->spec, r->features, matches, n, actual,
                             r->oracle->messages_exact, &row, NULL, NULL);
  if (j != LCTX_JUDGE_ALLOWED) {
    /* A violation: judged again, writing the texts it is reported with. */
    lctx_buf eb, ab;
    lctx_buf_init(&eb, s->expected_text, sizeof s->expected_text);
    lctx_buf_init(&ab, s->actual_text, sizeof s->actual_text);
    format_outcome(actual, &ab);
    j = lctx_oracle_judge_rows(r->oracle->spec, r->features, matches, n, actual,
                               r->oracle->messages_exact, &row, &eb,
                               &s->first_allowed);
  }
  const char *id =
      row < r->oracle->spec->row_count ? r->oracle->spec->rows[row].id : "";
  switch (j) {
  case LCTX_JUDGE_ALLOWED:
    r->oracle->hits[row]++;
    break;
  case LCTX_JUDGE_NOT_ALLOWED:
    r->oracle->hits[row]++;
    emit(r, LCTX_V_OUTCOME, id, NULL, s->expected_text, s->actual_text,
         &s->first_allowed, actual);
    break;
  case LCTX_JUDGE_RENDER:
    r->oracle->hits[row]++;
    emit(r, LCTX_V_RENDER, id, NULL, s->expected_text, s->actual_text, NULL,
         actual);
    break;
  case LCTX_JUDGE_NO_ROW:
  case LCTX_JUDGE_SEVERAL_ROWS:
    emit(r, j == LCTX_JUDGE_NO_ROW ? LCTX_V_NO_ROW : LCTX_V_SEVERAL_ROWS, "",
         NULL, s->expected_text, s->actual_text, NULL, actual);
    break;
  }
}

//===----------------------------------------------------------------------===//
// Invariants
//===----------------------------------------------------------------------===//

static void run_variant(report *r, const lctx_case_op *op, lctx_outcome *out) {
  lctx_engine *e = &r->oracle->engine;
  e->run(e->context, r->c, r->index, op, out);
  r->oracle->invariant_checks++;
}

static void invariant_failed(report *r, scratch *s, const char *name,
                             const lctx_outcome *a, const char *a_label,
                             const lctx_outcome *b, const char *b_label) {
  lctx_buf eb, ab;
  lctx_buf_init(&eb, s->expected_text, sizeof s->expected_text);
  lctx_buf_init(&ab, s->actual_text, sizeof s->actual_text);
  lctx_buf_append_cstr(&eb, a_label);
  lctx_buf_append_cstr(&eb, ": ");
  format_outcome(a, &eb);
  lctx_buf_append_cstr(&ab, b_label);
  lctx_buf_append_cstr(&ab, ": ");
  format_outcome(b, &ab);
  emit(r, LCTX_V_INVARIANT, "", name, s->expected_text, s->actual_text, a, b);
}

/* A variant of a MODULE_GET_BACKEND operation. With the reference engine's
 * kept state (`fast`) it is its module context and `optional`, run from that
 * state (lctx_runner_variant_module): what run_backend_op would build from
 * the operation changed the same way. Otherwise it is `s->op`, a copy of
 * the operation, through the engine. Each change below is made to the one
 * in use and put back, so that the next one starts from the operation. */
typedef struct module_variant {
  bool fast;
  /// The context the variant runs with: `built` (the operation's, as the
  /// runner built it) or `context`, a changed copy of it.
  const lctx_module_context *at;
  const lctx_module_context *built;
  lctx_module_context context;
  bool optional;
  /// Whether `s->op` follows the changes too: always but in a fast run of a
  /// build with NDEBUG. Without NDEBUG (the test builds) each fast variant
  /// is run as its operation too and must have the same outcome.
  bool with_op;
} module_variant;

#ifdef NDEBUG
#define CROSS_CHECK false
#else
#define CROSS_CHECK true
#endif

static void run_module_variant(report *r, scratch *s, module_variant *v,
                               lctx_outcome *out) {
  if (!v->fast) {
    run_variant(r, &s->op, out);
    return;
  }
  lctx_runner_variant_module(&s->runner, r->index, v->at, v->optional, out);
  r->oracle->invariant_checks++;
#ifndef NDEBUG
  lctx_runner_variant(&s->runner, r->index, &s->op, &s->rendered);
  assert(lctx_outcome_equal(out, &s->rendered) &&
         "a module variant's context and operation differ");
#endif
}

/* `v->context` as the operation's built context, with platforms[1:]
 * reversed if `reverse`, and the variant run with it. */
static void copy_built(module_variant *v, bool reverse) {
  const lctx_module_context *built = v->built;
  size_t n = built->platform_count;
  v->context.platform_count = n;
  if (n > 0)
    v->context.platforms[0] = built->platforms[0];
  for (size_t i = 1; i < n; i++)
    v->context.platforms[i] = built->platforms[reverse ? n - i : i];
  v->context.has_backend = built->has_backend;
  v->context.backend_platform = built->backend_platform;
  v->context.platforms_are_list = built->platforms_are_list;
  v->at = &v->context;
}

static void check_module_invariants(report *r, scratch *s,
                                    const lctx_outcome *actual) {
  const lctx_case_op *op = &r->c->ops[r->index];
  module_variant v;
  v.fast = r->oracle->engine.context == &s->runner &&
           r->oracle->engine.run == reference_run && s->runner.c == r->c &&
           op->platform_count <= LCTX_MAX_MODULE_PLATFORMS &&
           lctx_runner_keeps(&s->runner, r->index);
  v.with_op = !v.fast || CROSS_CHECK;
  if (v.fast) {
    /* The context the runner built to run the operation, copied (its used
     * part) only for the variants that change it. */
    v.built = lctx_runner_module_context(&s->runner, r->index);
    v.at = v.built;
    v.optional = op->optional;
  }
  if (v.with_op)
    lctx_case_op_copy(&s->op, op);
  /* Permuting platforms[1:] does not change a multi-platform outcome. */
  if (op->platform_count >= 3) {
    if (v.fast)
      copy_built(&v, true);
    if (v.with_op)
      for (size_t i = 1; i < op->platform_count; i++)
        s->op.platform[i] = op->platform[op->platform_count - i];
    run_module_variant(r, s, &v, &s->variant);
    if (!lctx_outcome_equal(actual, &s->variant))
      invariant_failed(r, s, "permute-platforms", actual, "as given",
                       &s->variant, "platforms[1:] reversed");
    if (v.fast)
      v.at = v.built;
    if (v.with_op)
      for (size_t i = 1; i < op->platform_count; i++)
        s->op.platform[i] = op->platform[i];
  }
  /* Duplicates count as platforms: (p, p) behaves like (p, q). */
  if (op->platform_count == 1) {
    bool cpu = strcmp(lctx_case_op_platform(r->c, op, 0), "cpu") == 0;
    const char *q = cpu ? "tpu" : "cpu";
    if (v.fast) {
      copy_built(&v, false);
      v.context.platform_count = 2;
      v.context.platforms[1] = v.context.platforms[0];
    }
    if (v.with_op) {
      s->op.platform_count = 2;
      s->op.platform[1] = op->platform[0];
    }
    run_module_variant(r, s, &v, &s->variant);
    if (v.fast) {
      v.context.platforms[1] = lctx_str_make(q, 3);
    }
    if (v.with_op) {
      /* A name the case may not hold: a built-in one. */
      s->op.platform[1] = cpu ? LCTX_CASE_NAME_TPU : LCTX_CASE_NAME_CPU;
    }
    run_module_variant(r, s, &v, &s->other);
    if (!lctx_outcome_equal(&s->variant, &s->other))
      invariant_failed(r, s, "duplicates-count", &s->other,
                       "(p, other platform)", &s->variant, "(p, p)");
    if (v.fast)
      v.at = v.built;
    if (v.with_op) {
      s->op.platform_count = 1;
      s->op.platform[1] = 0;
    }
  }
  /* optional=True differs from optional=False only in B1/B2a, where it
   * returns None instead of NotImplementedError/ValueError; a release
   * whose get_backend takes no `optional` has no such variant. */
  const lctx_facts *facts = lctx_spec_facts(r->oracle->spec);
  if (facts->count[LCTX_FACT_MODULE_OPTIONAL] == 1 &&
      strcmp(facts->names[LCTX_FACT_MODULE_OPTIONAL][0], "no") == 0)
    return;
  if (v.fast)
    v.optional = !op->optional;
  if (v.with_op)
    s->op.optional = !op->optional;
  run_module_variant(r, s, &v, &s->variant);
  const lctx_outcome *with_true = op->optional ? actual : &s->variant;
  const lctx_outcome *with_false = op->optional ? &s->variant : actual;
  if (!lctx_outcome_equal(with_true, with_false) &&
      !(with_true->kind == LCTX_OUTCOME_NONE &&
        with_false->kind == LCTX_OUTCOME_RAISE &&
        (with_false->error == LCTX_ERROR_NOT_IMPLEMENTED ||
         with_false->error == LCTX_ERROR_VALUE)))
    invariant_failed(r, s, "optional-only-b1-b2a", with_false, "optional=False",
                     with_true, "optional=True");
}

static void check_invariants(report *r, scratch *s,
                             const lctx_outcome *actual) {
  const lctx_case_op *op = &r->c->ops[r->index];
  if (op->kind == LCTX_OP_MODULE_GET_BACKEND)
    check_module_invariants(r, s, actual);
  /* `gpu` and its resolved name give the same client. */
  if (op->kind == LCTX_OP_XLA_GET_BACKEND && op->has_arg &&
      strcmp(op->arg, "gpu") == 0) {
    memset(&s->op, 0, sizeof s->op);
    s->op.kind = LCTX_OP_CANONICALIZE;
    s->op.has_arg = true;
    memcpy(s->op.arg, "gpu", 4);
    run_variant(r, &s->op, &s->other);
    if (s->other.kind != LCTX_OUTCOME_STRING) {
      if (!lctx_outcome_equal(&s->other, actual))
        invariant_failed(r, s, "gpu-agrees", &s->other,
                         "canonicalize_platform('gpu')", actual,
                         "get_backend('gpu')");
      return;
    }
    memset(&s->op, 0, sizeof s->op);
    s->op.kind = LCTX_OP_XLA_GET_BACKEND;
    s->op.has_arg = true;
    memcpy(s->op.arg, s->other.text,
           s->other.length < LCTX_MAX_NAME ? s->other.length : LCTX_MAX_NAME);
    run_variant(r, &s->op, &s->variant);
    if (!lctx_outcome_equal(&s->variant, actual))
      invariant_failed(r, s, "gpu-agrees", &s->variant,
                       "get_backend(resolved name)", actual,
                       "get_backend('gpu')");
  }
}

//===----------------------------------------------------------------------===//
// Cases
//===----------------------------------------------------------------------===//

/* Whether the engine is the reference on the oracle's own runner (whose
 * release says which operations exist). */
static bool own_reference(const lctx_oracle *oracle) {
  return oracle->engine.run == reference_run &&
         oracle->engine.context == &oracle->scratch.runner;
}

/* Operation `r->index`, whose one matching row is absent at the spec's
 * release or which the reference model does not have there: the two must
 * agree (with the reference engine). Returns true when the operation does
 * not exist, and is not judged further. */
static bool check_absent(report *r, scratch *s, const lctx_outcome *actual) {
  const lctx_spec *spec = r->oracle->spec;
  size_t matches[4];
  size_t n = match_rows(r->oracle, r->features, matches);
  bool absent = n == 1 && spec->rows[matches[0]].absent;
  bool exists = !own_reference(r->oracle) ||
                lctx_runner_op_exists(&s->runner, &r->c->ops[r->index]);
  if (absent)
    r->oracle->hits[matches[0]]++;
  if (absent == !exists)
    return absent;
  lctx_buf eb, ab;
  lctx_buf_init(&eb, s->expected_text, sizeof s->expected_text);
  lctx_buf_init(&ab, s->actual_text, sizeof s->actual_text);
  const lctx_spec_was *w =
      n == 1 ? lctx_spec_row_at(spec, matches[0], spec->selected) : NULL;
  if (absent) {
    lctx_buf_append_cstr(&eb, "no such operation at JAX ");
    lctx_buf_append_cstr(&eb, spec->selected_name);
    lctx_buf_append_cstr(&eb, ": ");
    lctx_buf_append_cstr(&eb, w ? w->why : "");
    lctx_buf_append_cstr(&ab, "the reference model runs it: ");
    format_outcome(actual, &ab);
  } else {
    lctx_buf_append_cstr(&eb, "an outcome of the row");
    lctx_buf_append_cstr(&ab, "the reference model has no such operation at "
                              "JAX ");
    lctx_buf_append_cstr(&ab, spec->selected_name);
  }
  emit(r, LCTX_V_OUTCOME, n == 1 ? spec->rows[matches[0]].id : "", NULL,
       s->expected_text, s->actual_text, NULL, actual);
  return true;
}

/* Operation `r->index` against the case's expectation, if it has one:
 * apart, so that the outcome it reads it into (8 KB) is not in the frame of
 * every case (under AddressSanitizer a frame's size costs on each call). */
__attribute__((noinline)) static void check_expect(report *r, scratch *s,
                                                   const lctx_outcome *actual) {
  lctx_outcome expected;
  if (!lctx_case_expect_get(r->expect, r->index, &expected) ||
      lctx_outcome_equal(&expected, actual))
    return;
  lctx_buf eb, ab;
  lctx_buf_init(&eb, s->expected_text, sizeof s->expected_text);
  lctx_buf_init(&ab, s->actual_text, sizeof s->actual_text);
  format_outcome(&expected, &eb);
  format_outcome(actual, &ab);
  emit(r, LCTX_V_EXPECT, "", NULL, s->expected_text, s->actual_text, &expected,
       actual);
}

size_t lctx_oracle_check_case(lctx_oracle *oracle, const lctx_case *c) {
  return lctx_oracle_check_case_expect(oracle, c, NULL);
}

size_t lctx_oracle_check_case_registry(lctx_oracle *oracle, const lctx_case *c,
                                       uint64_t registry) {
  oracle->scratch.registry = registry;
  size_t n = lctx_oracle_check_case_expect(oracle, c, NULL);
  oracle->scratch.registry = 0;
  return n;
}

size_t lctx_oracle_check_case_expect(lctx_oracle *oracle, const lctx_case *c,
                                     const lctx_case_expect *expect) {
  scratch *s = &oracle->scratch;
  lctx_feature_state *state = &s->classify;
  lctx_features *features = &s->features;
  lctx_classify_init_at(state, c, lctx_spec_facts(oracle->spec));
  report r = {oracle, c, expect, 0, features, 0};
  oracle->cases++;
  for (size_t i = 0; i < c->op_count; i++) {
    r.index = i;
    lctx_classify_op(state, i, features);
    const lctx_outcome *actual = &s->actual;
    if (oracle->engine.run_all) {
      if (i == 0)
        oracle->engine.run_all(oracle->engine.context, c, s->all);
      actual = &s->all[i];
    } else {
      oracle->engine.run(oracle->engine.context, c, i, &c->ops[i], &s->actual);
    }
    oracle->ops++;
    /* An operation the release does not have is neither judged nor
     * varied (at the modelled commit every operation exists). */
    if ((!lctx_spec_selected_modelled(oracle->spec) ||
         features->value[LCTX_F_API] != 0) &&
        check_absent(&r, s, actual)) {
      oracle->absent++;
      continue;
    }
    check_row(&r, s, actual);
    if (expect)
      check_expect(&r, s, actual);
    if (oracle->invariants)
      check_invariants(&r, s, actual);
  }
  /* The kept registry states belong to this case as it is now: drop them,
   * since `c` may be changed in place before the engine runs again. */
  if (oracle->engine.context == &s->runner)
    s->runner.state_count = 0;
  return r.count;
}

void lctx_oracle_explain(lctx_oracle *oracle, const lctx_case *c, size_t index,
                         lctx_buf *out) {
  lctx_feature_state state;
  lctx_features *features = &oracle->scratch.features;
  lctx_outcome *rendered = &oracle->scratch.rendered;
  lctx_classify_init_at(&state, c, lctx_spec_facts(oracle->spec));
  for (size_t i = 0; i <= index; i++)
    lctx_classify_op(&state, i, features);
  lctx_buf_append_cstr(out, "features: ");
  lctx_classify_format(features, out);
  lctx_buf_append_char(out, '\n');
  size_t matches[8];
  size_t n = lctx_spec_match(oracle->spec, features, matches, 8);
  if (n == 0)
    lctx_buf_append_cstr(out, "row: none matches\n");
  for (size_t k = 0; k < n && k < 8; k++) {
    const lctx_spec_row *row = &oracle->spec->rows[matches[k]];
    lctx_buf_append_cstr(out, "row: ");
    lctx_buf_append_cstr(out, row->id);
    lctx_buf_append_cstr(out, " (");
    lctx_buf_append_cstr(out, row->source);
    lctx_buf_append_cstr(out, ")\n  note: ");
    lctx_buf_append_cstr(out, row->note);
    lctx_buf_append_char(out, '\n');
    if (row->absent) {
      lctx_buf_append_cstr(out, "  absent at JAX ");
      lctx_buf_append_cstr(out, oracle->spec->selected_name);
      lctx_buf_append_cstr(out, ": ");
      lctx_buf_append_cstr(out, lctx_spec_row_at(oracle->spec, matches[k],
                                                 oracle->spec->selected)
                                    ->why);
      lctx_buf_append_char(out, '\n');
    }
    for (size_t j = 0; j < row->outcome_count; j++) {
      char why[256];
      lctx_buf wb;
      lctx_buf_init(&wb, why, sizeof why);
      lctx_buf_append_cstr(out, "  allows: ");
      if (lctx_spec_render(&row->outcomes[j], features, rendered, &wb)) {
        char shown[LCTX_OUTCOME_TEXT_MAX + 128]; /* a message may hold '\n' */
        lctx_buf sb;
        lctx_buf_init(&sb, shown, sizeof shown);
        lctx_outcome_format(rendered, &sb);
        lctx_escape_append(out, shown, sb.length);
      } else
        lctx_buf_append_cstr(out, why);
      lctx_buf_append_char(out, '\n');
    }
  }
}
