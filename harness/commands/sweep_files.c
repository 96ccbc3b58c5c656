/*
 * sweep_files.c - recorded sweep case files read back (sweep_files.h):
 * judged offline by the sweep rows (`lctx sweep --judge`) or exported
 * again through the program (`lctx sweep --replay`).
 */
#include "sweep_files.h"

#include "report_write.h"
#include "dirlist.h"
#include "escape.h"
#include "exit.h"
#include "sweep_case.h"
#include "sweep_record.h"
#include "sys.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Reading case files back, and judging them
//===----------------------------------------------------------------------===//

/* A case file read back. */
typedef struct record {
  char program[LCTX_CATALOGUE_NAME_MAX], group[128];
  lctx_sweep_exports e;
  json_t *expect;
} record;

static bool read_list(json_t *a, lctx_sweep_list *l) {
  return json_array_size(a) > 0 &&
         !lctx_export_json_platforms(a, l->p, &l->count);
}

/* One answer of the file (null: not asked). */
static bool read_stored(json_t *a, lctx_export_store *st, bool *has) {
  *has = a && !json_is_null(a);
  if (*has)
    lctx_export_store_read(a, 0, st);
  return true;
}

/* Reads case file `j` into `r`; false with the field named in `why`. */
static bool read_record(json_t *j, record *r, char *why, size_t cap) {
  memset(r, 0, sizeof *r);
  json_t *ans = json_object_get(j, "answers");
  const char *program = json_string_value(json_object_get(j, "program"));
  const char *group = json_string_value(json_object_get(j, "group"));
  const char *bad = !program ? "program: not a string"
                    : !read_list(json_object_get(j, "platforms"), &r->e.list)
                        ? "platforms: not a list of 1 to 8 platform names"
                    : !json_is_array(json_object_get(j, "expect"))
                        ? "expect: not a list"
                        : NULL;
  if (bad) {
    snprintf(why, cap, "%s", bad);
    return false;
  }
  snprintf(r->program, sizeof r->program, "%s", program);
  snprintf(r->group, sizeof r->group, "%s", group ? group : "");
  json_t *source = json_object_get(j, "source");
  if (source && !json_is_null(source)) {
    char problem[300];
    if (!json_is_string(source)) {
      snprintf(why, cap, "source: not a program text");
      return false;
    }
    if (!lctx_sweep_exports_set_source(&r->e, program,
                                       json_string_value(source), problem,
                                       sizeof problem)) {
      snprintf(why, cap, "source: line %s", problem);
      return false;
    }
  }
  json_t *reorder = json_object_get(j, "reorder");
  r->e.has_reorder = reorder && !json_is_null(reorder);
  if (r->e.has_reorder && (!read_list(reorder, &r->e.reorder) ||
                           r->e.reorder.count != r->e.list.count)) {
    snprintf(why, cap, "reorder: not the platforms in another order");
    return false;
  }
  r->expect = json_object_get(j, "expect");
  if (!ans)
    return true; /* a replay needs no answers */
  bool has_multi;
  read_stored(json_object_get(ans, "multi"), &r->e.multi, &has_multi);
  read_stored(json_object_get(ans, "reordered"), &r->e.reordered,
              &r->e.has_reorder);
  read_stored(json_object_get(ans, "cpu_only"), &r->e.cpu_only, &r->e.has_cpu);
  json_t *alone = json_object_get(ans, "alone");
  for (size_t i = 0; i < r->e.list.count; i++)
    read_stored(json_array_get(alone, i), &r->e.alone[i], &r->e.has_alone[i]);
  if (!has_multi ||
      (r->e.has_reorder && r->e.reorder.count != r->e.list.count)) {
    snprintf(why, cap,
             has_multi ? "reorder: missing beside answers.reordered"
                       : "answers.multi: missing");
    return false;
  }
  return true;
}

/* Compares verdicts with the expect list: every expected one is there,
 * and no failure that is not expected; says what differs on `out`.
 * Returns whether they agree. */
static bool agree(const lctx_spec *spec, json_t *expect,
                  const lctx_sweep_verdict *v, size_t n, bool exact,
                  const char *path, FILE *out) {
  static const char *const names[] = {"pass", "fail", "crash", "timeout"};
  bool ok = true;
  size_t i;
  json_t *x;
  lctx_escaped a, b, d;
  json_array_foreach(expect, i, x) {
    const char *row = json_string_value(json_object_get(x, "row"));
    const char *verdict = json_string_value(json_object_get(x, "verdict"));
    const char *key = json_string_value(json_object_get(x, "key"));
    bool found = false;
    for (size_t k = 0; k < n && !found; k++)
      found = row && verdict && strcmp(spec->rows[v[k].row].id, row) == 0 &&
              strcmp(names[v[k].kind], verdict) == 0 &&
              strcmp(v[k].key, key ? key : "") == 0;
    if (!found) {
      fprintf(out, "  %s: expected %s %s %s, not given\n", lctx_esc(&a, path),
              row ? row : "?", verdict ? verdict : "?",
              lctx_esc(&b, key ? key : ""));
      ok = false;
    }
  }
  for (size_t k = 0; k < n; k++) {
    bool expected = false;
    json_array_foreach(expect, i, x) {
      const char *key = json_string_value(json_object_get(x, "key"));
      const char *verdict = json_string_value(json_object_get(x, "verdict"));
      expected |= (!exact && v[k].kind == LCTX_SWEEP_PASS) ||
                  (key && verdict && strcmp(verdict, names[v[k].kind]) == 0 &&
                   strcmp(key, v[k].key) == 0 &&
                   strcmp(json_string_value(json_object_get(x, "row"))
                              ? json_string_value(json_object_get(x, "row"))
                              : "",
                          spec->rows[v[k].row].id) == 0);
    }
    if (!expected) {
      fprintf(out, "  %s: %s %s %s not expected: %s\n", lctx_esc(&a, path),
              spec->rows[v[k].row].id, names[v[k].kind], lctx_esc(&b, v[k].key),
              lctx_esc(&d, v[k].detail));
      ok = false;
    }
  }
  return ok;
}

/* Reads and checks one file; judges it by `judge` (offline: its answers;
 * replay: exported again). Returns 1 agreed, 0 differed, -1 unreadable. */
typedef size_t (*judge_fn)(void *user, record *r, lctx_sweep_verdict *v,
                           size_t cap, char *why, size_t why_cap);

/* How files are judged: offline (exact, rows covered counted) or again. */
typedef struct judging {
  const lctx_spec *spec;
  judge_fn judge;
  void *user;
  bool exact, quiet;
  bool covered[LCTX_SPEC_MAX_ROWS];
} judging;

/* Marks the rows an expect list shows firing: a judging row where it
 * expects a failure ("pass" shows nothing the row catches), a refusal row
 * wherever it names it (such a row gives a verdict only when the refusal it
 * allows is taken). */
static void cover(judging *g, json_t *expect) {
  size_t i;
  json_t *x;
  json_array_foreach(expect, i, x) {
    const char *id = json_string_value(json_object_get(x, "row"));
    const char *verdict = json_string_value(json_object_get(x, "verdict"));
    const lctx_spec_row *row = lctx_spec_find(g->spec, id ? id : "");
    if (row &&
        (row->outcome_count > 0 || (verdict && strcmp(verdict, "fail") == 0)))
      g->covered[row - g->spec->rows] = true;
  }
}

static int judge_file(judging *g, const char *path, FILE *out, FILE *err) {
  json_t *j = lctx_sweep_record_load(path, err);
  if (!j)
    return -1;
  record r;
  char why[256] = "";
  lctx_escaped a, b;
  int result = -1;
  if (!read_record(j, &r, why, sizeof why)) {
    fprintf(err, "lctx sweep: %s: %s\n", lctx_esc(&a, path), lctx_esc(&b, why));
  } else {
    lctx_sweep_verdict v[32];
    size_t n = g->judge(g->user, &r, v, 32, why, sizeof why);
    if (why[0]) {
      fprintf(err, "lctx sweep: %s: %s\n", lctx_esc(&a, path),
              lctx_esc(&b, why));
    } else {
      cover(g, r.expect);
      result = agree(g->spec, r.expect, v, n, g->exact, path, out);
      if (!result || !g->quiet)
        fprintf(out, "%s %s (%zu verdicts)\n", result ? "ok  " : "FAIL",
                lctx_esc(&a, path), n);
    }
  }
  lctx_sweep_exports_release(&r.e);
  json_decref(j);
  return result;
}

/* Rows of the table no file shows firing (offline judging only); returns
 * how many. */
static size_t uncovered(const judging *g, FILE *out) {
  size_t n = 0;
  for (size_t i = 0; g->exact && i < g->spec->row_count; i++) {
    if (g->spec->rows[i].sweep && !g->covered[i]) {
      fprintf(out, "row %s has no sweep case %s\n", g->spec->rows[i].id,
              g->spec->rows[i].outcome_count > 0
                  ? "whose answers take its refusal"
                  : "that expects it to fail");
      n++;
    }
  }
  return n;
}

static int judge_all(judging *g, const char *const *paths, size_t n, FILE *out,
                     FILE *err) {
  size_t passed = 0, failed = 0, bad = 0;
  for (size_t p = 0; p < n; p++) {
    size_t count = 0;
    char **files = lctx_sweep_record_files(paths[p], &count, err);
    bad += files == NULL;
    for (size_t f = 0; files && f < count; f++) {
      int r = judge_file(g, files[f], out, err);
      passed += r == 1;
      failed += r == 0;
      bad += r < 0;
    }
    lctx_dirlist_free(files);
  }
  size_t gaps = uncovered(g, out);
  failed += gaps;
  fprintf(out, "sweep cases: %zu agreed, %zu differed, %zu unreadable%s: %s\n",
          passed, failed - gaps, bad, gaps ? "; some rows have no case" : "",
          bad           ? "BAD INPUT"
          : failed      ? "FAIL"
          : passed == 0 ? "NOTHING JUDGED"
                        : "PASS");
  return bad                     ? LCTX_EXIT_USAGE
         : failed || passed == 0 ? LCTX_EXIT_VIOLATIONS
                                 : LCTX_EXIT_OK;
}

/* Offline: the file's own answers. */
static size_t judge_recorded(void *user, record *r, lctx_sweep_verdict *v,
                             size_t cap, char *why, size_t why_cap) {
  const lctx_sweep_rows *rows = user;
  const char *names[LCTX_EXPORT_MAX_PLATFORMS], *rn[LCTX_EXPORT_MAX_PLATFORMS];
  lctx_sweep_case c = {0};
  c.program = r->program;
  c.group = r->group;
  lctx_sweep_record_view(&r->e, names, rn, &c);
  c.desc = r->e.desc;
  (void)why;
  (void)why_cap;
  return lctx_sweep_judge(rows, &c, v, cap);
}

int lctx_sweep_judge_files(const char *spec_path, const char *const *paths,
                           size_t n, bool quiet, FILE *out, FILE *err) {
  lctx_spec *spec = malloc(sizeof *spec);
  lctx_sweep_rows rows;
  char why[512];
  int code = LCTX_EXIT_USAGE;
  lctx_escaped b;
  if (!spec) {
    fprintf(err, "lctx sweep: out of memory\n");
  } else if (lctx_spec_load_or_report(spec_path, spec, "lctx sweep", err)) {
    judging *g = calloc(1, sizeof *g);
    if (g && lctx_sweep_rows_find(spec, &rows, why, sizeof why)) {
      *g = (judging){.spec = spec,
                     .judge = judge_recorded,
                     .user = &rows,
                     .exact = true,
                     .quiet = quiet};
      code = judge_all(g, paths, n, out, err);
    } else {
      fprintf(err, "lctx sweep: %s\n", g ? lctx_esc(&b, why) : "out of memory");
    }
    free(g);
  }
  free(spec);
  return code;
}

/* Replay: the file's program and platforms exported again. */
static size_t judge_again(void *user, record *r, lctx_sweep_verdict *v,
                          size_t cap, char *why, size_t why_cap) {
  lctx_sweep *s = user;
  if (r->e.source) {
    lctx_sweep_exports e;
    lctx_sweep_exports_init(&e, 0, &r->e.list);
    if (!lctx_sweep_exports_set_source(&e, r->program, r->e.source, why,
                                       why_cap))
      return 0;
    size_t n = lctx_sweep_run_case(s, &s->x[0], &e, v, cap);
    lctx_sweep_exports_release(&e);
    return n;
  }
  long program = lctx_catalogue_find(&s->cat, r->program);
  if (program < 0) {
    snprintf(why, why_cap,
             "the program %s is not in the catalogue of %s %s (renamed or "
             "removed?)",
             r->program, s->cat.name, s->cat.version);
    return 0;
  }
  lctx_sweep_exports e;
  lctx_sweep_exports_init(&e, (size_t)program, &r->e.list);
  size_t n = lctx_sweep_run_case(s, &s->x[0], &e, v, cap);
  lctx_sweep_exports_release(&e);
  return n;
}

int lctx_sweep_replay(const lctx_sweep_options *o, const char *const *paths,
                      size_t n, FILE *out, FILE *err) {
  lctx_sweep *s = lctx_sweep_new(o, out, err);
  if (!s)
    return LCTX_EXIT_USAGE;
  int code = LCTX_EXIT_USAGE;
  if (lctx_sweep_open(s)) {
    /* The catalogue's names are the program's: shown escaped. */
    lctx_escaped b1, b2, b3, b4, b5;
    fprintf(out, "replaying against %s %s (jax %s, jaxlib %s%s%s)\n",
            lctx_esc(&b1, s->cat.name), lctx_esc(&b2, s->cat.version),
            lctx_esc(&b3, s->cat.jax_version),
            lctx_esc(&b4, s->cat.jaxlib_version),
            s->cat.mutant[0] ? ", mutant " : "", lctx_esc(&b5, s->cat.mutant));
    judging g = {.spec = s->spec, .judge = judge_again, .user = s};
    code = judge_all(&g, paths, n, out, err);
  }
  lctx_sweep_free(s);
  return code;
}
