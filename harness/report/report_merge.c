/*
 * report_merge.c - merging the reports of sharded runs, or of several runs
 * of one implementation (see report_merge.h).
 *
 * Each folder's report.json is read by report_read.h and checked against
 * the first one's stamp; its rows are added into one lctx_report, which
 * the writers of report_write.h turn into the merged files.
 */
#include "report_merge.h"

#include "escape.h"
#include "report_merge_results.h"
#include "report_read.h"
#include "report_text.h"
#include "report_print.h"
#include "report_write.h"
#include "sys.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The merge: the summed report and what the writers need besides. */
typedef struct merge {
  const lctx_report_merge_options *o;
  lctx_report rep;
  bool xfail[LCTX_SPEC_MAX_ROWS];
  char xfail_reason[LCTX_SPEC_MAX_ROWS][LCTX_REPORT_REASON_MAX];
  lctx_report_file *first; /* the first report read, its stamp the run's */
  size_t cases; /* runs: the cases of every run; shards: of the first */
  size_t modules_judged, judge_kills, left_behind_killed, stops_continued;
  bool stopped;
  double peak;
  /* The most verdicts a row keeps in results.jsonl (conform's
   * --keep-failures; the smallest a shard says or shows), SIZE_MAX: no
   * cap known. */
  size_t keep;
  /* The isolation every folder says, NULL when they differ or one does
   * not. */
  const char *isolation;
  bool isolation_differs;
  /* Per part (a shard: shard_i - 1; a run: its folder's index): its
   * folder (NULL: a shard missing) and shard. */
  lctx_merge_part *parts;
  size_t part_count;
  /* A sweep's diagnoses: every folder's, in the order read, then joined
   * (join_diagnoses). */
  bool diagnosed;
  lctx_diagnosis *diag;
  size_t diag_count;
  lctx_buf *error;
} merge;

/* The most diagnoses the folders may hold together (each report holds at
 * most LCTX_REPORT_MAX_DIAGNOSES; the merged one as many). */
#define MERGE_DIAGNOSES_MAX (4 * LCTX_REPORT_MAX_DIAGNOSES)

/* Refuses a report of another run than the first one read: for shards,
 * any part of the stamp but the shard index; for runs, the spec, the
 * release judged as, lctx and the implementation. */
static bool same_run(merge *m, const lctx_report_stamp *s, const char *path) {
  const lctx_report_stamp *f = &m->first->stamp;
  bool shards = !m->o->runs;
  const char *what =
      strcmp(s->spec_version, f->spec_version) != 0   ? "spec version"
      : strcmp(s->jax_release, f->jax_release) != 0   ? "JAX release judged as"
      : strcmp(s->lctx_version, f->lctx_version) != 0 ? "lctx version"
      : strcmp(s->impl_name, f->impl_name) != 0 ||
              strcmp(s->impl_version, f->impl_version) != 0
          ? "implementation"
      : shards && s->seed != f->seed       ? "seed"
      : shards && s->shard_n != f->shard_n ? "shard count"
      : shards && s->cases != f->cases     ? "number of cases offered"
                                           : NULL;
  if (!what)
    return true;
  return lctx_report_say(
      m->error,
      "%s is another run than %s/report.json (its %s differs: spec %s, %s "
      "%s, seed %llu, %u shards, %zu cases against spec %s, %s %s, seed "
      "%llu, %u shards, %zu cases); only %s can be merged",
      path, m->o->dirs[0], what, s->spec_version, s->impl_name, s->impl_version,
      s->seed, s->shard_n, s->cases, f->spec_version, f->impl_name,
      f->impl_version, f->seed, f->shard_n, f->cases,
      shards ? "shards of one run" : "runs of one implementation");
}

/* Whether what is at `a` replaces what is at `b` as the earlier: for
 * shards, `a` comes first in the plan (a place not recorded, of an older
 * report, after every recorded one); runs have no one plan. */
static bool earlier(const merge *m, lctx_report_at a, lctx_report_at b) {
  return !m->o->runs && lctx_report_at_before(a, b);
}

/* Adds row `k` of report `f` into the merged row. */
static bool add_row(merge *m, const lctx_report_file *f, size_t k,
                    const char *path) {
  lctx_report_row *s = &m->rep.rows[k];
  const lctx_report_row *r = &f->report.rows[k];
  if (strcmp(r->id, s->id) != 0)
    return lctx_report_say(m->error,
                           "%s: row %zu is '%s', the first report's is '%s': "
                           "the reports are of different spec tables",
                           path, k + 1, r->id, s->id);
  for (int v = 0; v < LCTX_VERDICT_COUNT; v++)
    s->n[v] += r->n[v];
  s->kept += r->kept;
  s->not_kept += r->not_kept;
  s->absent = s->absent || r->absent;
  /* The first failure, its case and its rerun line: the earliest in the
   * plan (of shards; of runs, the first report in the order given). */
  if (r->first[0] && (!s->first[0] || earlier(m, r->first_at, s->first_at))) {
    memcpy(s->first, r->first, sizeof s->first);
    memcpy(s->first_case, r->first_case, sizeof s->first_case);
    memcpy(s->rerun, r->rerun, sizeof s->rerun);
    s->first_at = r->first_at;
  }
  /* Operations not judged at the release, and drift: summed, the earliest
   * text kept. */
  s->not_judged += r->not_judged;
  if (r->drift_explained &&
      (!s->drift_explained || earlier(m, r->drift_at, s->drift_at))) {
    memcpy(s->drift, r->drift, sizeof s->drift);
    s->drift_at = r->drift_at;
  }
  s->drift_explained += r->drift_explained;
  if (r->drift_new &&
      (!s->drift_new || earlier(m, r->drift_new_at, s->drift_new_at))) {
    memcpy(s->drift_new_text, r->drift_new_text, sizeof s->drift_new_text);
    s->drift_new_at = r->drift_new_at;
  }
  s->drift_new += r->drift_new;
  if (f->xfail[k]) {
    m->xfail[k] = true;
    memcpy(m->xfail_reason[k], f->xfail_reason[k], sizeof m->xfail_reason[k]);
  }
  return true;
}

/* Takes the cap on the verdicts a row of `f` keeps (its keep_failures; in
 * an older report, what a row that dropped some kept), and its isolation. */
static void add_cap(merge *m, const lctx_report_file *f) {
  size_t cap = f->per_row_cap ? f->keep_failures : SIZE_MAX;
  for (size_t k = 0; !f->per_row_cap && k < f->report.row_count; k++)
    if (f->report.rows[k].not_kept && f->report.rows[k].kept < cap)
      cap = f->report.rows[k].kept;
  if (cap < m->keep)
    m->keep = cap;
  if (!f->isolation || (m->isolation && strcmp(m->isolation, f->isolation)))
    m->isolation_differs = true;
  else if (!m->isolation) /* the first report's: kept until the end */
    m->isolation = f->isolation;
}

/* The cap applied again to the merged rows (shards only: the runs of
 * --runs keep their own): a row keeps its earliest `keep` verdicts, as
 * the unsharded run does (the shards kept their earliest, so the run's
 * earliest are among them); the rest are counted, not kept. */
static void cap_rows(merge *m) {
  for (size_t k = 0; !m->o->runs && k < m->rep.row_count; k++) {
    lctx_report_row *s = &m->rep.rows[k];
    if (s->kept <= m->keep)
      continue;
    s->not_kept += s->kept - m->keep;
    s->kept = m->keep;
  }
}

/* Adds the run-wide counts of report `f`, and its first failure when it
 * is the earliest yet. */
static void add_totals(merge *m, const lctx_report_file *f) {
  lctx_report *r = &m->rep;
  const lctx_report *x = &f->report;
  if (x->cases_not_judged && (!r->cases_not_judged ||
                              earlier(m, x->not_judged_at, r->not_judged_at))) {
    memcpy(r->not_judged_fact, x->not_judged_fact, sizeof r->not_judged_fact);
    memcpy(r->not_judged_why, x->not_judged_why, sizeof r->not_judged_why);
    r->not_judged_at = x->not_judged_at;
  }
  r->cases_not_judged += x->cases_not_judged;
  r->cases_run += x->cases_run;
  r->cases_unsupported += x->cases_unsupported;
  r->cases_absent += x->cases_absent;
  r->spec_gaps += x->spec_gaps;
  r->restarts += x->restarts;
  r->recycles += x->recycles;
  r->modules_unjudged += x->modules_unjudged;
  m->modules_judged += f->modules_judged;
  m->judge_kills += f->judge_kills;
  m->left_behind_killed += f->left_behind_killed;
  m->stops_continued += f->stops_continued;
  r->seconds += x->seconds;
  r->interrupted |= x->interrupted;
  m->stopped |= f->stopped_at_first_failure;
  if (f->peak_memory_mb > m->peak)
    m->peak = f->peak_memory_mb;
  if (m->o->runs) { /* each run's own cases and sources add up */
    r->cases_skipped += x->cases_skipped;
    for (size_t k = 0; k < 3; k++)
      r->source_cases[k] += x->source_cases[k];
  }
  if (x->failed_once && (!r->failed_once || earlier(m, x->first_failure_at,
                                                    r->first_failure_at))) {
    r->failed_once = true;
    r->first_failure_row = x->first_failure_row;
    r->first_failure_verdict = x->first_failure_verdict;
    r->first_failure_seconds = x->first_failure_seconds;
    r->first_failure_at = x->first_failure_at;
  }
  add_cap(m, f);
}

/* Adds the diagnoses of report `f`; false when a shard has none where
 * the first has some (or the other way round), or there are too many. */
static bool add_diagnoses(merge *m, const lctx_report_file *f,
                          const char *path) {
  if (!m->o->runs && f->diagnosed != m->first->diagnosed)
    return lctx_report_say(m->error,
                           "%s: field 'diagnoses' is %s where %s/report.json "
                           "has %s: only shards of one run can be merged",
                           path, f->diagnosed ? "there" : "missing",
                           m->o->dirs[0], f->diagnosed ? "none" : "it");
  m->diagnosed |= f->diagnosed;
  if (!f->diagnosis_count)
    return true;
  if (f->diagnosis_count > MERGE_DIAGNOSES_MAX - m->diag_count)
    return lctx_report_say(m->error,
                           "%s: the reports hold over %d diagnoses together, "
                           "more than a merge takes",
                           path, MERGE_DIAGNOSES_MAX);
  void *p =
      realloc(m->diag, (m->diag_count + f->diagnosis_count) * sizeof *m->diag);
  if (!p)
    return lctx_report_say(m->error, "out of memory");
  m->diag = p;
  memcpy(m->diag + m->diag_count, f->diagnoses,
         f->diagnosis_count * sizeof *m->diag);
  m->diag_count += f->diagnosis_count;
  return true;
}

/* A diagnosis's place in the order they are kept: shards by plan index (a
 * case is one shard's), each shard's own order kept; runs as read. */
typedef struct diag_at {
  size_t plan_case, at;
} diag_at;

static int by_plan(const void *a, const void *b) {
  const diag_at *x = a, *y = b;
  return x->plan_case != y->plan_case
             ? (x->plan_case > y->plan_case) - (x->plan_case < y->plan_case)
             : (x->at > y->at) - (x->at < y->at);
}

/* The folders' diagnoses as one sweep of the plan keeps them
 * (sweep_diagnose.h): in plan order, one like another
 * (lctx_diagnosis_same) once, the earliest case's, at most
 * LCTX_REPORT_MAX_DIAGNOSES. */
static bool join_diagnoses(merge *m) {
  size_t n = m->diag_count, kept = 0;
  diag_at *order = calloc(n + 1, sizeof *order);
  lctx_diagnosis *out = calloc(n + 1, sizeof *out);
  if (!order || !out) {
    free(order);
    free(out);
    return lctx_report_say(m->error, "out of memory");
  }
  for (size_t i = 0; i < n; i++)
    order[i] = (diag_at){m->o->runs ? 0 : m->diag[i].plan_case, i};
  qsort(order, n, sizeof *order, by_plan);
  for (size_t i = 0; i < n && kept < LCTX_REPORT_MAX_DIAGNOSES; i++) {
    const lctx_diagnosis *d = &m->diag[order[i].at];
    bool dup = false;
    for (size_t k = 0; k < kept && !dup; k++)
      dup = lctx_diagnosis_same(&out[k], d);
    if (!dup)
      out[kept++] = *d;
  }
  free(order);
  free(m->diag);
  m->diag = out;
  m->diag_count = kept;
  return true;
}

/* Takes the first report: its rows are the merged report's, its stamp the
 * merged run's; the parts are its shards (or, for runs, the folders). */
static bool take_first(merge *m, lctx_report_file *f) {
  m->first = f;
  m->rep.row_count = f->report.row_count;
  for (size_t k = 0; k < f->report.row_count; k++)
    memcpy(m->rep.rows[k].id, f->report.rows[k].id, sizeof m->rep.rows[k].id);
  m->part_count = m->o->runs ? m->o->dir_count : f->stamp.shard_n;
  m->parts = calloc(m->part_count, sizeof *m->parts);
  return m->parts || lctx_report_say(m->error, "out of memory");
}

/* Reads DIR/report.json (folder `d`) and adds it in; false (said in
 * m->error) when it is missing, malformed, of another run or a shard
 * already read. */
static bool read_one(merge *m, size_t d) {
  char path[4200];
  snprintf(path, sizeof path, "%s/report.json", m->o->dirs[d]);
  lctx_report_file *f = lctx_report_read(path, m->error);
  if (!f)
    return false;
  const lctx_report_stamp *s = &f->stamp;
  bool ok = d == 0 ? take_first(m, f) : same_run(m, s, path);
  size_t at = m->o->runs ? d : s->shard_i - 1;
  if (ok && m->parts[at].dir)
    ok = lctx_report_say(m->error, "%s: shard %u/%u is given twice (also %s)",
                         path, s->shard_i, s->shard_n, m->parts[at].dir);
  if (ok && f->report.row_count != m->rep.row_count)
    ok = lctx_report_say(m->error,
                         "%s: field 'rows' is missing or not the rows of the "
                         "first report",
                         path);
  for (size_t k = 0; ok && k < m->rep.row_count; k++)
    ok = add_row(m, f, k, path);
  ok = ok && add_diagnoses(m, f, path);
  if (ok) {
    add_totals(m, f);
    m->cases += m->o->runs || d == 0 ? s->cases : 0;
    m->parts[at] = (lctx_merge_part){m->o->dirs[d], s->shard_i, s->shard_n};
  }
  if (d != 0)
    lctx_report_file_free(f);
  return ok;
}

/* Names the shards no folder holds; false unless `partial` allows them. */
static bool check_missing(merge *m) {
  size_t missing = 0;
  unsigned n = m->first->stamp.shard_n;
  for (size_t i = 0; i < m->part_count; i++)
    missing += m->parts[i].dir == NULL;
  if (!missing)
    return true;
  char list[512] = "";
  size_t said = 0, at = 0;
  for (unsigned i = 0; i < m->part_count && said < 20; i++)
    if (!m->parts[i].dir)
      at += (size_t)snprintf(list + at, sizeof list - at, "%s %u/%u",
                             said++ ? "," : "", i + 1, n);
  if (!m->o->partial)
    return lctx_report_say(m->error,
                           "error: %zu of %u shards missing:%s%s (run them, "
                           "or merge with --partial)",
                           missing, n, list, missing > said ? ", ..." : "");
  lctx_report_warn(m->o->warnings,
                   "%zu of %u shards missing:%s%s (merged without them, "
                   "--partial)",
                   missing, n, list, missing > said ? ", ..." : "");
  return true;
}

/* The merged diagnoses, as the sweep prints them (escaped). */
static void print_diagnoses(const merge *m, FILE *out) {
  if (!m->diag_count)
    return;
  lctx_report_print_diagnoses(m->diag, m->diag_count, out);
}

/* The merged run's stamp, counts and result on `out`. */
static lctx_report_result summarize(merge *m, const lctx_report_doc *doc,
                                    FILE *out) {
  lctx_report *r = &m->rep;
  size_t parts = 0;
  lctx_report_report_sum(r);
  for (size_t i = 0; i < m->part_count; i++)
    parts += m->parts[i].dir != NULL;
  const size_t *t = r->totals;
  lctx_escaped dir, lctx_version, kind;
  /* stamp_text shows these two as they are: from a shard, they are outside
   * text. */
  lctx_report_doc shown = *doc;
  shown.lctx_version = lctx_esc(&lctx_version, doc->lctx_version);
  shown.impl_kind = lctx_esc(&kind, doc->impl_kind);
  lctx_report_stamp_text(&shown, out, "lctx report merge: ");
  if (m->o->runs)
    fprintf(out, "merged %zu runs: ", parts);
  else
    fprintf(out, "merged %zu of %zu shards: ", parts, m->part_count);
  lctx_report_print_cases(r, out);
  fprintf(out,
          "\noperations: %zu pass, %zu fail, %zu xfail, %zu xpass, %zu crash, "
          "%zu timeout, %zu unsupported, %zu flaky%s\n"
          "reports: %s/report.tap, report.junit.xml, report.json, "
          "results.jsonl\n",
          t[LCTX_VERDICT_PASS], t[LCTX_VERDICT_FAIL], t[LCTX_VERDICT_XFAIL],
          t[LCTX_VERDICT_XPASS], t[LCTX_VERDICT_CRASH], t[LCTX_VERDICT_TIMEOUT],
          t[LCTX_VERDICT_UNSUPPORTED], t[LCTX_VERDICT_FLAKY],
          r->spec_gaps ? " (and operations no spec row covers!)" : "",
          lctx_esc(&dir, m->o->out_dir));
  for (size_t k = 0; k < r->row_count; k++) {
    if (!lctx_report_row_failed(&r->rows[k]))
      continue;
    fprintf(out, "%s: %s\n", lctx_esc(&kind, r->rows[k].id),
            lctx_esc(&dir, r->rows[k].first));
    if (r->rows[k].rerun[0])
      fprintf(out, "  rerun: %s\n", lctx_esc(&dir, r->rows[k].rerun));
  }
  print_diagnoses(m, out);
  lctx_report_result result = lctx_report_result_of(r);
  fprintf(out, "result: %s%s\n", lctx_report_result_name(result),
          result == LCTX_RESULT_INTERRUPTED ? " (a shard was interrupted)"
          : result == LCTX_RESULT_INCOMPLETE
              ? " (a shard has modules no judge judged)"
              : "");
  return result;
}

/* Whether every summed count is still a count a report may hold (at most
 * 2^40, what a reader of the merged report.json accepts): shards near the
 * limit would otherwise merge into a report that `report html` and a
 * further merge refuse. */
static bool sums_fit(merge *m) {
  const lctx_report *r = &m->rep;
  const unsigned long long cap = (unsigned long long)LCTX_REPORT_MAX_COUNT;
  unsigned long long totals[LCTX_VERDICT_COUNT] = {0};
  for (size_t k = 0; k < r->row_count; k++) {
    const lctx_report_row *row = &r->rows[k];
    unsigned long long all = 0;
    for (int v = 0; v < LCTX_VERDICT_COUNT; v++) {
      all += row->n[v];
      totals[v] += row->n[v];
    }
    if (all > cap || row->kept > cap || row->not_kept > cap ||
        row->not_judged > cap || row->drift_explained > cap ||
        row->drift_new > cap)
      return lctx_report_say(m->error,
                             "row %s: the merged counts pass 2^40, more than "
                             "a report may hold; nothing merged",
                             row->id);
  }
  for (int v = 0; v < LCTX_VERDICT_COUNT; v++) {
    if (totals[v] > cap)
      return lctx_report_say(m->error,
                             "the merged %s count passes 2^40, more than a "
                             "report may hold; nothing merged",
                             lctx_verdict_name(v));
  }
  unsigned long long counts[] = {r->cases_run,
                                 r->cases_unsupported,
                                 r->cases_not_judged,
                                 r->restarts,
                                 r->recycles,
                                 m->modules_judged,
                                 r->modules_unjudged,
                                 m->judge_kills,
                                 r->spec_gaps,
                                 r->cases_skipped,
                                 m->cases};
  bool over = false;
  for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
    over = over || counts[i] > cap;
  return !over ||
         lctx_report_say(m->error, "a merged run-wide count passes 2^40, more "
                                   "than a report may hold; nothing merged");
}

/* The cases of the merged run. Shards: every shard's sources held the same
 * cases; the merged run skipped those no shard given ran (skipped by every
 * shard, by --ops, in a missing shard or past a shard's stop), so that its
 * counts add up to its sources' cases. Runs: each run's add up already. */
static void count_cases(merge *m) {
  lctx_report *r = &m->rep;
  if (m->o->runs) {
    if (r->source_cases[0] + r->source_cases[1] + r->source_cases[2] !=
        m->cases)
      memset(r->source_cases, 0, sizeof r->source_cases);
    return;
  }
  memcpy(r->source_cases, m->first->report.source_cases,
         sizeof r->source_cases);
  size_t seen = r->cases_run + r->cases_unsupported + r->cases_not_judged;
  r->cases_skipped = seen > m->cases ? 0 : m->cases - seen;
}

/* Reads every folder, checks them, writes the merged reports. */
static bool run_merge(merge *m, FILE *out, lctx_report_result *result) {
  for (size_t d = 0; d < m->o->dir_count; d++)
    if (!read_one(m, d))
      return false;
  if (!check_missing(m) || !sums_fit(m) || !join_diagnoses(m))
    return false;
  count_cases(m);
  cap_rows(m);
  bool capped = !m->o->runs && m->keep != SIZE_MAX;
  const lctx_report_stamp *s = &m->first->stamp;
  lctx_report_doc doc = {
      .report = &m->rep,
      .spec_file = s->spec_file,
      .spec_version = s->spec_version,
      .lctx_version = s->lctx_version,
      .impl_name = s->impl_name,
      .impl_version = s->impl_version,
      .impl_kind = s->impl_kind,
      .jax_release = s->jax_release_recorded ? s->jax_release : NULL,
      .seed = s->seed,
      .shard_i = 1,
      .shard_n = 1,
      .xfail = m->xfail,
      .xfail_reason = m->xfail_reason,
      .modules_judged = m->modules_judged,
      .judge_kills = m->judge_kills,
      .left_behind_killed = m->left_behind_killed,
      .stops_continued = m->stops_continued,
      .stopped_at_first_failure = m->stopped,
      .per_row_cap = capped,
      .keep_failures = capped ? m->keep : 0,
      .isolation = m->isolation_differs ? NULL : m->isolation,
      .peak_memory_mb = m->peak,
      .diagnosed = m->diagnosed,
      .diagnoses = m->diag,
      .diagnosis_count = m->diag_count};
  if (!lctx_sys_mkdir_p(m->o->out_dir))
    return lctx_report_say(m->error, "--out: %s: %s", m->o->out_dir,
                           lctx_sys_file_error(errno));
  /* Every results line is checked before anything is said or written. */
  if (!lctx_report_merge_results(m->o->out_dir, &m->rep, m->parts,
                                 m->part_count, capped ? m->keep : SIZE_MAX,
                                 m->o->warnings, m->error))
    return false;
  *result = summarize(m, &doc, out);
  char why[2048] = "";
  if (!lctx_report_save_reports(&doc, m->o->out_dir, NULL, why, sizeof why))
    return lctx_report_say(m->error,
                           "%s: the merged reports could not be written: %s",
                           m->o->out_dir, why);
  return true;
}

bool lctx_report_merge(const lctx_report_merge_options *o, FILE *out,
                       lctx_report_result *result, lctx_buf *error) {
  *result = LCTX_RESULT_FAIL;
  if (!o->out_dir || o->dir_count == 0)
    return lctx_report_say(error, "name the output folder and at least one "
                                  "report folder");
  merge *m = calloc(1, sizeof *m);
  if (!m)
    return lctx_report_say(error, "out of memory");
  m->o = o;
  m->error = error;
  m->peak = -1;
  m->keep = SIZE_MAX;
  bool ok = run_merge(m, out, result);
  lctx_report_file_free(m->first);
  free(m->parts);
  free(m->diag);
  free(m);
  return ok;
}
