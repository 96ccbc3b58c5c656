/*
 * sweepjudge.c - the sweep rows' verdicts on export answers (see
 * sweepjudge.h). Each rule is one function over the answers of one case.
 */
#include "sweepjudge.h"

#include "model_dispatch.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* Without libm (the OSS-Fuzz build links core alone). */
static double mag(double x) {
  return x < 0 ? -x : x;
}
static double larger(double x, double y) {
  return x > y ? x : y;
}

static const char *const RULE_IDS[LCTX_SWEEP_RULE_COUNT] = {
    "SW-001", "SW-004", "SW-005", "SW-006", "SW-007", "SW-009"};

const char *lctx_sweep_rule_id(lctx_sweep_rule rule) {
  return (unsigned)rule < LCTX_SWEEP_RULE_COUNT ? RULE_IDS[rule] : "?";
}

bool lctx_sweep_rows_find(const lctx_spec *spec, lctx_sweep_rows *rows,
                          char *why, size_t cap) {
  rows->spec = spec;
  rows->refusal_count = 0;
  for (int r = 0; r < LCTX_SWEEP_RULE_COUNT; r++) {
    const lctx_spec_row *row = lctx_spec_find(spec, RULE_IDS[r]);
    const char *problem = !row          ? "is missing"
                          : !row->sweep ? "is not a sweep row (check = sweep)"
                          : row->outcome_count > 0
                              ? "has a refusal, which only refusal rows take"
                              : NULL;
    if (problem) {
      snprintf(why, cap, "%s: row %s %s", spec->filename, RULE_IDS[r], problem);
      return false;
    }
    rows->row[r] = (size_t)(row - spec->rows);
  }
  for (size_t i = 0; i < spec->row_count; i++) {
    bool rule = false;
    for (int r = 0; r < LCTX_SWEEP_RULE_COUNT; r++)
      rule |= rows->row[r] == i;
    if (!spec->rows[i].sweep || rule)
      continue;
    if (spec->rows[i].outcome_count == 0) {
      snprintf(why, cap, "%s: sweep row %s judges nothing (no refusal)",
               spec->filename, spec->rows[i].id);
      return false;
    }
    rows->refusal[rows->refusal_count++] = i;
  }
  return true;
}

/* Whether `s` matches template `t` from here: `{name}` stands for one or
 * more characters, `{{` and `}}` for a brace. */
static bool glob(const char *t, const char *s) {
  while (*t) {
    if (t[0] == '{' && t[1] != '{') {
      const char *close = strchr(t, '}');
      if (!close || !*s)
        return false;
      for (const char *k = s + 1, *end = s + strlen(s); k <= end; k++) {
        if (glob(close + 1, k))
          return true;
      }
      return false;
    }
    size_t step = (t[0] == '{' || t[0] == '}') && t[1] == t[0] ? 2 : 1;
    if (*s != *t)
      return false;
    s++;
    t += step;
  }
  return *s == '\0';
}

long lctx_sweep_refusal(const lctx_sweep_rows *rows,
                        const lctx_export_raise *raised) {
  for (size_t i = 0; i < rows->refusal_count; i++) {
    const lctx_spec_row *row = &rows->spec->rows[rows->refusal[i]];
    for (size_t k = 0; k < row->outcome_count; k++) {
      const lctx_spec_outcome *o = &row->outcomes[k];
      if (strcmp(raised->cls, lctx_error_class_name(o->error)) == 0 &&
          glob(o->text, raised->message))
        return (long)rows->refusal[i];
    }
  }
  return -1;
}

static bool is_multi(const lctx_sweep_case *c) {
  return c->count > 1;
}

/* Whether two raises are one: the same class from the same JAX line. */
static bool same_raise(const lctx_export_raise *a, const lctx_export_raise *b) {
  return strcmp(a->cls, b->cls) == 0 && strcmp(a->file, b->file) == 0 &&
         a->line == b->line;
}

static bool refused(const lctx_sweep_rows *rows, const lctx_export_answer *a) {
  return a->status == LCTX_EXPORT_RAISE &&
         lctx_sweep_refusal(rows, &a->raised) >= 0;
}

/* Whether `a` raised something no refusal row allows. */
static bool raised_unrefused(const lctx_sweep_rows *rows,
                             const lctx_export_answer *a) {
  return a && a->status == LCTX_EXPORT_RAISE && !refused(rows, a);
}

bool lctx_sweep_needs_alone(const lctx_sweep_rows *rows,
                            const lctx_sweep_case *c) {
  /* P's raise is judged against the platforms alone (SW-001), and so is
   * P reordered's (SW-004). */
  if (!is_multi(c) || (!raised_unrefused(rows, c->multi) &&
                       !raised_unrefused(rows, c->reordered)))
    return false;
  for (size_t i = 0; i < c->count; i++) {
    if (!c->alone[i])
      return true;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Writing verdicts
//===----------------------------------------------------------------------===//

typedef struct out_list {
  const lctx_sweep_rows *rows;
  lctx_sweep_verdict *v;
  size_t n, cap;
} out_list;

/* Appends a verdict of `rule`; NULL when the list is full. A FAIL whose
 * key an earlier verdict of the case already has is not repeated. */
static lctx_sweep_verdict *put_row(out_list *o, size_t row,
                                   lctx_sweep_verdict_kind kind,
                                   const char *key) {
  for (size_t i = 0; key && i < o->n; i++) {
    if (o->v[i].row == row && strcmp(o->v[i].key, key) == 0)
      return NULL;
  }
  if (o->n == o->cap)
    return NULL;
  lctx_sweep_verdict *v = &o->v[o->n++];
  v->row = row;
  v->kind = kind;
  snprintf(v->key, sizeof v->key, "%s", key ? key : "");
  v->detail[0] = '\0';
  return v;
}

static lctx_sweep_verdict *put(out_list *o, lctx_sweep_rule rule,
                               lctx_sweep_verdict_kind kind, const char *key) {
  return put_row(o, o->rows->row[rule], kind, key);
}

/* The verdict a missing answer gives a row that needs it. */
static void put_lost(out_list *o, lctx_sweep_rule rule,
                     const lctx_export_answer *a, const char *which) {
  lctx_sweep_verdict *v = put(
      o, rule,
      a->status == LCTX_EXPORT_TIMEOUT ? LCTX_SWEEP_TIMEOUT : LCTX_SWEEP_CRASH,
      NULL);
  if (v)
    snprintf(v->detail, sizeof v->detail,
             "the export for %s gave no answer: %s", which, a->error);
}

static bool lost(const lctx_export_answer *a) {
  return a->status == LCTX_EXPORT_CRASH || a->status == LCTX_EXPORT_TIMEOUT;
}

/* "CLASS at FILE:LINE" of a raise. */
static void where(char *dst, size_t n, const lctx_export_raise *r) {
  if (r->file[0])
    snprintf(dst, n, "%s at %s:%ld", r->cls, r->file, r->line);
  else
    snprintf(dst, n, "%s (no frame inside jax/)", r->cls);
}

void lctx_sweep_list_text(char *dst, size_t n, const char *const *p,
                          size_t count) {
  size_t at = 0;
  at += (size_t)snprintf(dst, n, "(");
  for (size_t i = 0; i < count && at < n; i++)
    at += (size_t)snprintf(dst + at, n - at, "%s'%s'", i ? ", " : "", p[i]);
  if (at < n)
    snprintf(dst + at, n - at, count == 1 ? ",)" : ")");
}

//===----------------------------------------------------------------------===//
// The rules
//===----------------------------------------------------------------------===//

/* SW-001 with SW-002 and SW-003: P exports, or refuses as a refusal row
 * allows, or raises where every platform alone exports (a finding). */
static void judge_complete(out_list *o, const lctx_sweep_case *c) {
  const lctx_export_answer *m = c->multi;
  if (!is_multi(c) || !m)
    return;
  if (lost(m)) {
    put_lost(o, LCTX_SWEEP_COMPLETE, m, "P");
    return;
  }
  if (m->status == LCTX_EXPORT_OK) {
    put(o, LCTX_SWEEP_COMPLETE, LCTX_SWEEP_PASS, NULL);
    return;
  }
  long r = lctx_sweep_refusal(o->rows, &m->raised);
  if (r >= 0) {
    put_row(o, (size_t)r, LCTX_SWEEP_PASS, NULL);
    put(o, LCTX_SWEEP_COMPLETE, LCTX_SWEEP_PASS, NULL);
    return;
  }
  size_t failing = 0;
  for (size_t i = 0; i < c->count; i++) {
    const lctx_export_answer *a = c->alone[i];
    if (!a)
      return; /* not asked yet */
    if (lost(a)) {
      put_lost(o, LCTX_SWEEP_COMPLETE, a, c->platforms[i]);
      return;
    }
    if (a->status != LCTX_EXPORT_RAISE)
      continue;
    failing++;
    if (same_raise(&a->raised, &m->raised))
      return; /* not judged: P[i] alone fails the same way */
  }
  char at[LCTX_EXPORT_FILE_MAX + 96], key[LCTX_SWEEP_KEY_MAX];
  where(at, sizeof at, &m->raised);
  snprintf(key, sizeof key, "SW-001 %s", at);
  lctx_sweep_verdict *v = put(o, LCTX_SWEEP_COMPLETE, LCTX_SWEEP_FAIL, key);
  if (v) {
    char list[256];
    lctx_sweep_list_text(list, sizeof list, c->platforms, c->count);
    if (failing == 0)
      snprintf(v->detail, sizeof v->detail,
               "exports for each of %s alone, but for them together raises "
               "%s: %s",
               list, at, m->raised.message);
    else
      snprintf(v->detail, sizeof v->detail,
               "for %s together raises %s, which no platform alone raises "
               "(%zu of them fail otherwise): %s",
               list, at, failing, m->raised.message);
  }
}

/* Whether two answers that both succeeded agree on the CPU: the same
 * digest, or the same raise of the call (both without a run count as
 * agreeing). */
static bool same_run(const lctx_export_answer *a, const lctx_export_answer *b) {
  if (a->has_run_error || b->has_run_error)
    return a->has_run_error && b->has_run_error &&
           same_raise(&a->run_error, &b->run_error);
  if (a->has_run != b->has_run)
    return false;
  return !a->has_run || strcmp(a->digest, b->digest) == 0;
}

/* Whether some platform of P alone raised `r` (the same class from the
 * same line). */
static bool raised_alone(const lctx_sweep_case *c, const lctx_export_raise *r) {
  for (size_t i = 0; i < c->count; i++) {
    const lctx_export_answer *a = c->alone[i];
    if (a && a->status == LCTX_EXPORT_RAISE && same_raise(&a->raised, r))
      return true;
  }
  return false;
}

/* SW-004: P and its reordering give the same outcome. */
static void judge_order(out_list *o, const lctx_sweep_case *c) {
  const lctx_export_answer *a = c->multi, *b = c->reordered;
  if (!is_multi(c) || !a || !b || !c->reorder)
    return;
  if (lost(a) || lost(b)) {
    put_lost(o, LCTX_SWEEP_ORDER, lost(a) ? a : b,
             lost(a) ? "P" : "P reordered");
    return;
  }
  char wa[LCTX_EXPORT_FILE_MAX + 96] = "success", wb[sizeof wa] = "success";
  if (a->status == LCTX_EXPORT_RAISE)
    where(wa, sizeof wa, &a->raised);
  if (b->status == LCTX_EXPORT_RAISE)
    where(wb, sizeof wb, &b->raised);
  bool same =
      a->status == b->status &&
      (a->status == LCTX_EXPORT_OK ? same_run(a, b)
                                   : same_raise(&a->raised, &b->raised));
  if (same ||
      (a->status == LCTX_EXPORT_RAISE && b->status == LCTX_EXPORT_RAISE &&
       (raised_alone(c, &a->raised) || refused(o->rows, a)) &&
       (raised_alone(c, &b->raised) || refused(o->rows, b)))) {
    /* The row's documented exception: when several platforms' rules
     * raise, the raise that surfaces is one platform's own, or a refusal
     * JAX documents for several platforms, and which one may follow the
     * order of P. */
    lctx_sweep_verdict *v = put(o, LCTX_SWEEP_ORDER, LCTX_SWEEP_PASS, NULL);
    if (v && !same)
      snprintf(v->detail, sizeof v->detail,
               "each order raises what one platform raises alone: %s; %s", wa,
               wb);
    return;
  }
  char key[LCTX_SWEEP_KEY_MAX];
  if (a->status == LCTX_EXPORT_OK && b->status == LCTX_EXPORT_OK)
    snprintf(key, sizeof key, "SW-004 result differs");
  else
    snprintf(key, sizeof key, "SW-004 %s",
             a->status == LCTX_EXPORT_RAISE ? wa : wb);
  lctx_sweep_verdict *v = put(o, LCTX_SWEEP_ORDER, LCTX_SWEEP_FAIL, key);
  if (v) {
    char la[256], lb[256];
    lctx_sweep_list_text(la, sizeof la, c->platforms, c->count);
    lctx_sweep_list_text(lb, sizeof lb, c->reorder, c->count);
    snprintf(v->detail, sizeof v->detail, "for %s: %s%s%s; for %s: %s%s%s", la,
             wa, a->status == LCTX_EXPORT_OK ? " " : ": ",
             a->status == LCTX_EXPORT_OK ? a->digest : a->raised.message, lb,
             wb, b->status == LCTX_EXPORT_OK ? " " : ": ",
             b->status == LCTX_EXPORT_OK ? b->digest : b->raised.message);
  }
}

/* The largest difference between the values of two runs (relative to the
 * larger magnitude, absolute below 1), with -1 when an integer output or
 * the layout differs, or the values are missing; the index of the largest
 * in `*at`. NaN equals NaN. */
static double value_difference(const lctx_export_answer *a,
                               const lctx_export_answer *b, size_t *at) {
  *at = 0;
  if (!a->values || !b->values || a->value_count != b->value_count ||
      a->output_count != b->output_count)
    return -1;
  double worst = 0;
  size_t k = 0;
  for (size_t i = 0; i < a->output_count; i++) {
    if (a->outputs[i].count != b->outputs[i].count ||
        strcmp(a->outputs[i].dtype, b->outputs[i].dtype) != 0)
      return -1;
    for (size_t e = 0; e < a->outputs[i].count; e++, k++) {
      double x = a->values[k], y = b->values[k];
      if ((isnan(x) && isnan(y)) || x == y)
        continue;
      if (!a->outputs[i].floating || isnan(x) || isnan(y) || isinf(x) ||
          isinf(y)) {
        *at = k;
        return -1;
      }
      double scale = larger(1.0, larger(mag(x), mag(y)));
      double d = mag(x - y) / scale;
      if (d > worst) {
        worst = d;
        *at = k;
      }
    }
  }
  return worst;
}

/* What SW-005 says of one export `a` for `list` against ("cpu",). */
typedef enum {
  DISPATCH_NONE,
  DISPATCH_PASS,
  DISPATCH_FAIL,
  DISPATCH_CRASH
} dispatch_said;

static dispatch_said dispatch_one(const lctx_sweep_rows *rows,
                                  const lctx_export_answer *a,
                                  const lctx_export_answer *b, const char *list,
                                  char *key, size_t kcap, char *detail,
                                  size_t dcap) {
  if (a->status == LCTX_EXPORT_RAISE || lost(a))
    return DISPATCH_NONE;
  if ((!a->has_run && !a->has_run_error) ||
      (!b->has_run && !b->has_run_error)) {
    snprintf(detail, dcap,
             "the export for %s succeeded with cpu among its platforms but "
             "gave no result of the call on the CPU (no run, no run_error)",
             !a->has_run && !a->has_run_error ? list : "('cpu',)");
    return DISPATCH_CRASH;
  }
  if (same_run(a, b))
    return DISPATCH_PASS;
  double bound = rows->spec->rows[rows->row[LCTX_SWEEP_DISPATCH]].bound;
  size_t at;
  double d = a->has_run && b->has_run ? value_difference(a, b, &at) : -1;
  bool within = d >= 0 && d <= bound;
  /* A call that raises for P only is its own finding (keyed by the
   * class), apart from values that differ. */
  if (a->has_run_error && !b->has_run_error)
    snprintf(key, kcap,
             "SW-005 the call on the CPU raises %s for P, not for ('cpu',)",
             a->run_error.cls);
  else
    snprintf(key, kcap,
             "SW-005 the CPU result differs from the cpu-only export");
  if (a->has_run_error || b->has_run_error)
    snprintf(detail, dcap,
             "the call on the CPU: for %s %s%s, for ('cpu',) %s%s", list,
             a->has_run_error ? "raised " : "returned",
             a->has_run_error ? a->run_error.cls : "",
             b->has_run_error ? "raised " : "returned",
             b->has_run_error ? b->run_error.cls : "");
  else if (d >= 0)
    snprintf(detail, dcap,
             "for %s, the CPU results differ %s the bound %g: largest "
             "relative difference %.9g at value %zu (%.17g against %.17g)",
             list, within ? "within" : "beyond", bound, d, at, a->values[at],
             b->values[at]);
  else
    snprintf(detail, dcap,
             "the CPU results differ (digest %s for %s, %s for ('cpu',))%s",
             a->digest, list, b->digest,
             a->values && b->values ? ", in an exact (integer or non-finite) "
                                      "value or in their layout"
                                    : "; the values are too many to compare");
  return within ? DISPATCH_PASS : DISPATCH_FAIL;
}

/* SW-005: on the CPU, P (and P reordered) computes what ("cpu",)
 * computes; one verdict, the first export that differs. */
static void judge_dispatch(out_list *o, const lctx_sweep_case *c) {
  const lctx_export_answer *a = c->multi, *b = c->cpu_only;
  if (!is_multi(c) || !a || !b || a->status == LCTX_EXPORT_RAISE ||
      b->status == LCTX_EXPORT_RAISE)
    return;
  if (lost(a) || lost(b)) {
    put_lost(o, LCTX_SWEEP_DISPATCH, lost(a) ? a : b,
             lost(a) ? "P" : "('cpu',)");
    return;
  }
  bool cpu = false;
  for (size_t i = 0; i < c->count; i++)
    cpu |= strcmp(c->platforms[i], "cpu") == 0;
  if (!cpu)
    return;
  char list[256], key[LCTX_SWEEP_KEY_MAX] = "", detail[LCTX_SWEEP_DETAIL_MAX];
  detail[0] = '\0';
  lctx_sweep_list_text(list, sizeof list, c->platforms, c->count);
  dispatch_said said =
      dispatch_one(o->rows, a, b, list, key, sizeof key, detail, sizeof detail);
  const lctx_export_answer *r = c->reordered;
  if (said == DISPATCH_PASS && r && c->reorder) {
    char rkey[LCTX_SWEEP_KEY_MAX], rdetail[LCTX_SWEEP_DETAIL_MAX] = "";
    char rlist[256];
    lctx_sweep_list_text(rlist, sizeof rlist, c->reorder, c->count);
    dispatch_said again = dispatch_one(o->rows, r, b, rlist, rkey, sizeof rkey,
                                       rdetail, sizeof rdetail);
    if (again == DISPATCH_FAIL || again == DISPATCH_CRASH) {
      said = again;
      snprintf(key, sizeof key, "%s", rkey);
      snprintf(detail, sizeof detail, "%s", rdetail);
    } else if (again == DISPATCH_PASS && rdetail[0] && !detail[0]) {
      snprintf(detail, sizeof detail, "%s", rdetail);
    }
  }
  lctx_sweep_verdict *v =
      said == DISPATCH_FAIL ? put(o, LCTX_SWEEP_DISPATCH, LCTX_SWEEP_FAIL, key)
      : said == DISPATCH_CRASH
          ? put(o, LCTX_SWEEP_DISPATCH, LCTX_SWEEP_CRASH, NULL)
      : said == DISPATCH_PASS
          ? put(o, LCTX_SWEEP_DISPATCH, LCTX_SWEEP_PASS, NULL)
          : NULL;
  if (v)
    snprintf(v->detail, sizeof v->detail, "%s", detail);
}

bool lctx_census_unadapted(const lctx_census_call *k) {
  /* A generated program's own rules read on purpose (read=...): what JAX
   * answers them is judged, not that they asked. */
  if (strcmp(k->file, "lctx-program") == 0)
    return false;
  return k->platforms > 1 &&
         (k->kind == LCTX_CENSUS_BACKEND || k->kind == LCTX_CENSUS_HOST ||
          (k->kind == LCTX_CENSUS_GET_BACKEND && k->optional == 0));
}

/* SW-006 over one answer for several platforms; returns the findings. */
static size_t census_of(out_list *o, const lctx_export_answer *a,
                        const char *which) {
  size_t found = 0;
  for (size_t i = 0; i < a->census_count; i++) {
    const lctx_census_call *k = &a->census[i];
    if (!lctx_census_unadapted(k))
      continue;
    char key[LCTX_SWEEP_KEY_MAX];
    const char *what = k->kind == LCTX_CENSUS_BACKEND ? "a .backend read"
                       : k->kind == LCTX_CENSUS_HOST
                           ? "a read of the host's devices"
                           : "get_backend()";
    snprintf(key, sizeof key, "SW-006 %s at %s:%ld", what,
             k->file[0] ? k->file : "(no frame inside jax/)", k->line);
    lctx_sweep_verdict *v = put(o, LCTX_SWEEP_CENSUS, LCTX_SWEEP_FAIL, key);
    found++;
    if (v)
      snprintf(v->detail, sizeof v->detail,
               "%s in the lowering rule of %s (%s), with %u module "
               "platforms, for %s; it %s",
               what, k->primitive[0] ? k->primitive : "(unknown primitive)",
               k->file[0] ? k->file : "?", k->platforms, which,
               k->gave == LCTX_CENSUS_GAVE_RAISE  ? "raised"
               : k->gave == LCTX_CENSUS_GAVE_NONE ? "gave None"
                                                  : "gave a client");
  }
  return found;
}

static void judge_census(out_list *o, const lctx_sweep_case *c) {
  if (!is_multi(c) || !c->multi || lost(c->multi))
    return;
  size_t found = census_of(o, c->multi, "P");
  if (c->reordered && !lost(c->reordered))
    found += census_of(o, c->reordered, "P reordered");
  if (found == 0)
    put(o, LCTX_SWEEP_CENSUS, LCTX_SWEEP_PASS, NULL);
}

/* SW-007: a successful export declares P, in order. */
static void judge_declared(out_list *o, const lctx_sweep_case *c) {
  const lctx_export_answer *a = c->multi;
  if (!a || a->status != LCTX_EXPORT_OK)
    return;
  bool same = a->platform_count == c->count;
  for (size_t i = 0; same && i < c->count; i++)
    same = strcmp(a->platforms[i], c->platforms[i]) == 0;
  if (same) {
    put(o, LCTX_SWEEP_DECLARED, LCTX_SWEEP_PASS, NULL);
    return;
  }
  lctx_sweep_verdict *v = put(o, LCTX_SWEEP_DECLARED, LCTX_SWEEP_FAIL,
                              "SW-007 declared platforms differ");
  if (v) {
    char asked[256], got[256];
    const char *names[LCTX_EXPORT_MAX_PLATFORMS];
    size_t n = a->platform_count < LCTX_EXPORT_MAX_PLATFORMS
                   ? a->platform_count
                   : LCTX_EXPORT_MAX_PLATFORMS;
    for (size_t i = 0; i < n; i++)
      names[i] = a->platforms[i];
    lctx_sweep_list_text(asked, sizeof asked, c->platforms, c->count);
    lctx_sweep_list_text(got, sizeof got, names, n);
    snprintf(v->detail, sizeof v->detail,
             "asked for %s, the module declares %s", asked, got);
  }
}

/* One dispatch as text: "cpu:[cpu] default:[tpu, cuda]", rules sorted. */
static void dispatch_text(const lctx_dispatch_event *e, char *dst, size_t n) {
  char parts[LCTX_DISPATCH_MAX_RULES][300];
  size_t k = e->rule_count < LCTX_DISPATCH_MAX_RULES ? e->rule_count
                                                     : LCTX_DISPATCH_MAX_RULES;
  for (size_t i = 0; i < k; i++) {
    size_t at =
        (size_t)snprintf(parts[i], sizeof parts[i], "%s:[", e->rules[i].rule);
    for (size_t j = 0; j < e->rules[i].count && at < sizeof parts[i]; j++)
      at += (size_t)snprintf(parts[i] + at, sizeof parts[i] - at, "%s%s",
                             j ? ", " : "", e->rules[i].platforms[j]);
    if (at < sizeof parts[i])
      snprintf(parts[i] + at, sizeof parts[i] - at, "]");
  }
  qsort(parts, k, sizeof parts[0], (int (*)(const void *, const void *))strcmp);
  size_t at = 0;
  dst[0] = '\0';
  for (size_t i = 0; i < k && at < n; i++)
    at += (size_t)snprintf(dst + at, n - at, "%s%s", i ? " " : "", parts[i]);
}

static int desc_prim(const lctx_program_desc *p, const char *name) {
  for (size_t i = 0; i < p->nprim; i++)
    if (strcmp(p->prim[i].name, name) == 0)
      return (int)i;
  return -1;
}

/* SW-009 over one answer; returns whether it failed. */
static bool model_of(out_list *o, const lctx_sweep_case *c,
                     const lctx_export_answer *a, const char *which,
                     size_t *judged) {
  for (size_t i = 0; i < a->dispatch_count; i++) {
    const lctx_dispatch_event *e = &a->dispatch[i];
    const char *names[LCTX_EXPORT_MAX_PLATFORMS];
    for (size_t k = 0; k < e->count; k++)
      names[k] = e->platforms[k];
    lctx_dispatch_event want;
    int prim = desc_prim(c->desc, e->primitive);
    char got_text[700], want_text[700] = "(no dispatch: the model raises)";
    dispatch_text(e, got_text, sizeof got_text);
    bool predicted =
        prim >= 0 && lctx_model_dispatch(c->desc, prim, names, e->count, &want);
    if (predicted)
      dispatch_text(&want, want_text, sizeof want_text);
    (*judged)++;
    if (predicted && strcmp(got_text, want_text) == 0)
      continue;
    lctx_sweep_verdict *v =
        put(o, LCTX_SWEEP_MODEL, LCTX_SWEEP_FAIL,
            "SW-009 the rules lowered differ from lctx's model");
    if (v) {
      char list[256];
      lctx_sweep_list_text(list, sizeof list, names, e->count);
      snprintf(v->detail, sizeof v->detail,
               "%s: primitive %s dispatched over %s lowered %s; lctx's model "
               "lowers %s",
               which, e->primitive, list, got_text, want_text);
    }
    return true;
  }
  return false;
}

static void judge_model(out_list *o, const lctx_sweep_case *c) {
  if (!c->desc || !c->multi || lost(c->multi))
    return;
  size_t judged = 0;
  bool failed = model_of(o, c, c->multi, "P", &judged);
  if (!failed && c->reordered && !lost(c->reordered))
    failed = model_of(o, c, c->reordered, "P reordered", &judged);
  if (!failed && judged)
    put(o, LCTX_SWEEP_MODEL, LCTX_SWEEP_PASS, NULL);
}

size_t lctx_sweep_judge(const lctx_sweep_rows *rows, const lctx_sweep_case *c,
                        lctx_sweep_verdict *out, size_t cap) {
  out_list o = {rows, out, 0, cap};
  judge_complete(&o, c);
  judge_order(&o, c);
  judge_dispatch(&o, c);
  judge_census(&o, c);
  judge_declared(&o, c);
  judge_model(&o, c);
  return o.n;
}
