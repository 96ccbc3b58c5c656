/*
 * verdict.c - the verdicts of a run (see verdict.h): their names and
 * rules, the result of a run, the expected failures, and judging the
 * operations of one answered case into verdicts counted per spec row and
 * streamed to results.jsonl.
 */
#include "verdict.h"

#include "case_json.h"
#include "report_text.h"
#include "rerun_cmd.h"
#include "escape.h"
#include "file.h"
#include "sys.h"
#include "textdiff.h"

#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const VERDICT_NAMES[LCTX_VERDICT_COUNT] = {
    "pass",  "fail",    "xfail",       "xpass",
    "crash", "timeout", "unsupported", "flaky"};

/* The IR rows, IR-000 .. IR-006 (irexpect.h's LCTX_IR_ROW_BIT). */
#define IR_ROWS 7

const char *lctx_verdict_name(lctx_verdict v) {
  return v < LCTX_VERDICT_COUNT ? VERDICT_NAMES[v] : "?";
}

void lctx_report_cap_hit(lctx_report *r, const char *what, size_t cap,
                         size_t dropped) {
  size_t i = 0;
  while (i < r->caps_hit_count && strcmp(r->caps_hit[i].what, what) != 0)
    i++;
  if (i == LCTX_REPORT_CAPS_MAX)
    return;
  if (i == r->caps_hit_count) {
    r->caps_hit_count++;
    snprintf(r->caps_hit[i].what, sizeof r->caps_hit[i].what, "%s", what);
    r->caps_hit[i].dropped = 0;
  }
  r->caps_hit[i].cap = cap;
  r->caps_hit[i].dropped += dropped;
}

bool lctx_report_row_failed(const lctx_report_row *s) {
  return s->n[LCTX_VERDICT_FAIL] || s->n[LCTX_VERDICT_XPASS] ||
         s->n[LCTX_VERDICT_CRASH] || s->n[LCTX_VERDICT_TIMEOUT] ||
         s->n[LCTX_VERDICT_FLAKY];
}

lctx_report_at lctx_report_at_of(const char *source, size_t index, size_t op) {
  unsigned rank = strcmp(source, "domain") == 0   ? 1
                  : strcmp(source, "random") == 0 ? 2
                                                  : 0;
  return (lctx_report_at){true, rank, index, op};
}

bool lctx_report_at_before(lctx_report_at a, lctx_report_at b) {
  if (a.known != b.known)
    return a.known;
  if (a.source != b.source)
    return a.source < b.source;
  return a.index != b.index ? a.index < b.index : a.op < b.op;
}

size_t lctx_report_cases_total(const lctx_report *rep) {
  size_t n = rep->source_cases[0] + rep->source_cases[1] + rep->source_cases[2];
  return n ? n
           : rep->cases_run + rep->cases_skipped + rep->cases_unsupported +
                 rep->cases_not_judged;
}

size_t lctx_report_cases_not_reached(const lctx_report *rep) {
  size_t total = lctx_report_cases_total(rep);
  size_t seen = rep->cases_run + rep->cases_skipped + rep->cases_unsupported +
                rep->cases_not_judged;
  return total > seen ? total - seen : 0;
}

void lctx_report_report_sum(lctx_report *rep) {
  size_t judged = 0;
  for (size_t k = 0; k < rep->row_count; k++)
    for (int v = 0; v < LCTX_VERDICT_COUNT; v++)
      rep->totals[v] += rep->rows[k].n[v];
  for (int v = 0; v < LCTX_VERDICT_COUNT; v++)
    judged += v == LCTX_VERDICT_UNSUPPORTED ? 0 : rep->totals[v];
  rep->nothing_judged = judged == 0;
}

bool lctx_report_run_failed(const lctx_report *rep) {
  const size_t *t = rep->totals;
  return t[LCTX_VERDICT_FAIL] || t[LCTX_VERDICT_XPASS] ||
         t[LCTX_VERDICT_CRASH] || t[LCTX_VERDICT_TIMEOUT] ||
         t[LCTX_VERDICT_FLAKY] || rep->spec_gaps;
}

lctx_report_result lctx_report_result_of(const lctx_report *rep) {
  return rep->interrupted              ? LCTX_RESULT_INTERRUPTED
         : lctx_report_run_failed(rep) ? LCTX_RESULT_FAIL
         : rep->modules_unjudged > 0   ? LCTX_RESULT_INCOMPLETE
         : rep->nothing_judged         ? LCTX_RESULT_NOTHING_JUDGED
                                       : LCTX_RESULT_PASS;
}

const char *lctx_report_result_name(lctx_report_result result) {
  static const char *const NAMES[] = {"PASS", "INTERRUPTED", "FAIL",
                                      "INCOMPLETE", "NOTHING JUDGED"};
  return (size_t)result < sizeof NAMES / sizeof NAMES[0] ? NAMES[result] : "?";
}

//===----------------------------------------------------------------------===//
// Expected failures
//===----------------------------------------------------------------------===//

/* Reads line `number` of the xfail file (`line`, `n` bytes, no newline):
 * 'ROW-ID reason', a comment or blank; false (said in `why`) when bad. */
static bool xfail_line(const lctx_spec *spec, const char *path,
                       lctx_report_xfail *x, const char *line, size_t n,
                       int number, char *why, size_t why_n) {
  size_t p = 0;
  while (p < n && (line[p] == ' ' || line[p] == '\t'))
    p++;
  if (p == n || line[p] == '#' || line[p] == '\r')
    return true;
  size_t end = p;
  while (end < n && line[end] != ' ' && line[end] != '\t')
    end++;
  char id[LCTX_SPEC_MAX_ID] = "";
  const lctx_spec_row *row = NULL;
  if (end - p < sizeof id) {
    memcpy(id, line + p, end - p);
    row = lctx_spec_find(spec, id);
  }
  lctx_escaped file, row_id;
  if (!row) {
    char typed[LCTX_SPEC_MAX_ID + 8];
    snprintf(typed, sizeof typed, "%.*s", (int)(end - p), line + p);
    snprintf(why, why_n, "%s:%d:%zu: unknown spec row '%s'",
             lctx_esc(&file, path), number, p + 1, lctx_esc(&row_id, typed));
    return false;
  }
  size_t reason = end;
  while (reason < n && (line[reason] == ' ' || line[reason] == '\t'))
    reason++;
  size_t stop = n;
  while (stop > reason && (line[stop - 1] == '\r' || line[stop - 1] == ' '))
    stop--;
  if (reason == stop) {
    snprintf(why, why_n, "%s:%d:%zu: row %s needs a reason",
             lctx_esc(&file, path), number, end + 1, id);
    return false;
  }
  size_t index = (size_t)(row - spec->rows);
  x->row[index] = true;
  snprintf(x->reason[index], sizeof x->reason[index], "%.*s",
           (int)(stop - reason), line + reason);
  return true;
}

bool lctx_report_xfail_load(const lctx_spec *spec, const char *path,
                            lctx_report_xfail *x, char *why, size_t why_n) {
  memset(x, 0, sizeof *x);
  char e[1024];
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  char *text;
  size_t length;
  if (!lctx_file_read(path, 1u << 20, &text, &length, &eb)) {
    lctx_escaped esc;
    snprintf(why, why_n, "--xfail: %s", lctx_esc(&esc, e));
    return false;
  }
  bool ok = true;
  int number = 0;
  for (size_t at = 0; ok && at < length;) {
    const char *nl = memchr(text + at, '\n', length - at);
    size_t n = nl ? (size_t)(nl - (text + at)) : length - at;
    ok = xfail_line(spec, path, x, text + at, n, ++number, why, why_n);
    at += n + 1;
  }
  free(text);
  return ok;
}

//===----------------------------------------------------------------------===//
// Case names and the rerun line
//===----------------------------------------------------------------------===//

/* `lctx explain [--spec SPEC]` after what BUF (N bytes) holds: PROGRAM
 * and the words; false when it does not fit. */
static bool explain_words(char *buf, size_t n, const char *program,
                          const char *spec) {
  return lctx_rerun_shell_word(buf, n, program) &&
         lctx_rerun_shell_word(buf, n, "explain") &&
         (!spec || (lctx_rerun_shell_word(buf, n, "--spec") &&
                    lctx_rerun_shell_word(buf, n, spec)));
}

/* The parts of the explain lines (lctx_report_judge's explain_head,
 * export_head, explain_pipe): the one for a case file starts as a rerun
 * line does (lctx_rerun_start); so does the export of a domain or random
 * case, whose pipe gives lctx explain the same variables again. */
static void explain_parts(lctx_report_judge *j, const char *program,
                          const char *spec) {
  char *h = j->explain_head, *e = j->export_head, *p = j->explain_pipe;
  size_t n = sizeof j->explain_head;
  bool ok = lctx_rerun_start(h, n, program, "explain") &&
            (!spec || (lctx_rerun_shell_word(h, n, "--spec") &&
                       lctx_rerun_shell_word(h, n, spec))) &&
            lctx_rerun_start(e, n, program, "case") &&
            lctx_rerun_shell_word(e, n, "export");
  snprintf(p, n, " |");
  for (const char *const *v = lctx_rerun_lctx_env; ok && *v; v++)
    ok = lctx_rerun_setting_of(p, n, *v);
  ok = ok && explain_words(p, n, program, spec) &&
       lctx_rerun_shell_word(p, n, "-");
  if (!ok)
    h[0] = e[0] = p[0] = '\0';
}

bool lctx_report_judge_rerun(lctx_report_judge *j, const char *program,
                             const char *flag, const char *impl,
                             const char *spec, const char *xfail,
                             const char *jax, const char *rerun_dir) {
  char *h = j->rerun_head, *t = j->rerun_tail;
  size_t n = sizeof j->rerun_head, m = sizeof j->rerun_tail;
  t[0] = '\0';
  explain_parts(j, program, spec);
  return lctx_rerun_start(h, n, program, "conform") &&
         lctx_rerun_shell_word(h, n, flag) &&
         lctx_rerun_shell_word(h, n, impl) &&
         (!spec || (lctx_rerun_shell_word(h, n, "--spec") &&
                    lctx_rerun_shell_word(h, n, spec))) &&
         (!xfail || (lctx_rerun_shell_word(h, n, "--xfail") &&
                     lctx_rerun_shell_word(h, n, xfail))) &&
         (j->exact || lctx_rerun_shell_word(h, n, "--messages=class")) &&
         (!jax || (lctx_rerun_shell_word(h, n, "--jax") &&
                   lctx_rerun_shell_word(h, n, jax))) &&
         lctx_rerun_shell_word(t, m, "--report-dir") &&
         lctx_rerun_shell_word(t, m, rerun_dir);
}

bool lctx_report_parse_only(const char *text, lctx_report_only *only, char *why,
                            size_t why_size) {
  static const struct {
    const char *prefix;
    lctx_report_only_kind kind;
  } KINDS[] = {{"domain:", LCTX_REPORT_ONLY_DOMAIN},
               {"random:", LCTX_REPORT_ONLY_RANDOM}};
  for (size_t k = 0; k < 2; k++) {
    size_t n = strlen(KINDS[k].prefix);
    if (strncmp(text, KINDS[k].prefix, n) != 0)
      continue;
    const char *digits = text + n;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(digits, &end, 10);
    if (!digits[0] || digits[0] < '0' || digits[0] > '9' || *end ||
        errno == ERANGE || v > SIZE_MAX) {
      snprintf(why, why_size, "'%s' is not %sINDEX (INDEX from 0)", text,
               KINDS[k].prefix);
      return false;
    }
    *only = (lctx_report_only){KINDS[k].kind, NULL, (size_t)v};
    return true;
  }
  size_t n = strlen(text);
  if (n < 6 || strcmp(text + n - 5, ".case") != 0) {
    snprintf(why, why_size,
             "'%s' is not FILE.case, domain:INDEX or random:INDEX", text);
    return false;
  }
  *only = (lctx_report_only){LCTX_REPORT_ONLY_FILE, text, 0};
  return true;
}

/* The name of a case as `--case` reads it: the case file, or
 * "domain:INDEX", "random:INDEX". */
static void case_name(const lctx_report_subject *s, char *buf, size_t n) {
  if (s->file)
    snprintf(buf, n, "%s", s->file);
  else
    snprintf(buf, n, "%s:%zu", s->source, s->index);
}

/* The command line that runs `s` alone; "" when it does not fit (a rerun
 * line cut short would run another case). */
static void rerun_line(const lctx_report_judge *j, const lctx_report_subject *s,
                       char *buf, size_t n) {
  char seed[40], name[1100];
  snprintf(seed, sizeof seed, "--seed=%llu", j->seed);
  case_name(s, name, sizeof name);
  bool ok = (size_t)snprintf(buf, n, "%s", j->rerun_head) < n &&
            (strcmp(s->source, "random") != 0 ||
             lctx_rerun_shell_word(buf, n, seed)) &&
            lctx_rerun_shell_word(buf, n, "--case") &&
            lctx_rerun_shell_word(buf, n, name) &&
            strlen(buf) + strlen(j->rerun_tail) < n;
  if (ok)
    strcat(buf, j->rerun_tail);
  else
    buf[0] = '\0';
}

/* The command line that shows how the reference runs `s` (lctx explain;
 * a domain or random case through lctx case export); "" when it does not
 * fit or the parts are not set. */
static void explain_line(const lctx_report_judge *j,
                         const lctx_report_subject *s, char *buf, size_t n) {
  char seed[40], name[1100];
  snprintf(seed, sizeof seed, "--seed=%llu", j->seed);
  case_name(s, name, sizeof name);
  bool ok;
  if (s->file)
    ok = j->explain_head[0] &&
         (size_t)snprintf(buf, n, "%s", j->explain_head) < n &&
         lctx_rerun_shell_word(buf, n, name);
  else
    ok = j->export_head[0] &&
         (size_t)snprintf(buf, n, "%s", j->export_head) < n &&
         (strcmp(s->source, "random") != 0 ||
          lctx_rerun_shell_word(buf, n, seed)) &&
         lctx_rerun_shell_word(buf, n, name) &&
         strlen(buf) + strlen(j->explain_pipe) < n;
  if (ok && !s->file)
    strcat(buf, j->explain_pipe);
  if (!ok)
    buf[0] = '\0';
}

//===----------------------------------------------------------------------===//
// Counting and streaming a verdict
//===----------------------------------------------------------------------===//

static void stream_verdict(lctx_report_judge *j, const lctx_report_subject *s,
                           size_t op, size_t row_index, lctx_verdict v,
                           const char *detail) {
  lctx_report_row *kept = &j->report->rows[row_index];
  if (kept->kept >= j->keep_failures) {
    kept->not_kept++;
    return;
  }
  kept->kept++;
  if (!j->stream)
    return;
  json_t *o = json_object();
  json_object_set_new(o, "source", json_string(s->source));
  json_object_set_new(o, "index", json_integer((json_int_t)s->index));
  char name[1100];
  case_name(s, name, sizeof name);
  json_object_set_new(o, "name", lctx_report_json_text(name));
  json_object_set_new(o, "operation", json_integer((json_int_t)op));
  json_object_set_new(o, "row", json_string(j->spec->rows[row_index].id));
  json_object_set_new(o, "verdict", json_string(VERDICT_NAMES[v]));
  if (detail)
    json_object_set_new(o, "detail", lctx_report_json_text(detail));
  if (v == LCTX_VERDICT_FAIL || v == LCTX_VERDICT_XFAIL) {
    json_object_set_new(o, "expected", lctx_report_json_text(j->expected));
    json_object_set_new(o, "actual", lctx_report_json_text(j->actual));
  }
  if (v == LCTX_VERDICT_FAIL && j->drift[0])
    json_object_set_new(o, "drift", lctx_report_json_text(j->drift));
  json_t *c = lctx_case_to_json(s->c, NULL);
  if (c)
    json_object_set_new(o, "case", c);
  char *text = json_dumps(o, JSON_COMPACT);
  if (text) {
    fprintf(j->stream, "%s\n", text);
    free(text);
  }
  json_decref(o);
}

static void note_first(lctx_report_judge *j, size_t row,
                       const lctx_report_subject *s, size_t op, lctx_verdict v,
                       const char *detail) {
  lctx_report_row *r = &j->report->rows[row];
  if (r->first[0])
    return;
  r->first_at = lctx_report_at_of(s->source, s->index, op);
  /* The case: "cases case N" becomes its file's name. */
  char which[300];
  const char *slash = s->file ? strrchr(s->file, '/') : NULL;
  const char *base = slash ? slash + 1 : s->file;
  if (base)
    snprintf(which, sizeof which, "case %.280s", base);
  else
    snprintf(which, sizeof which, "%s case %zu", s->source, s->index);
  int head =
      snprintf(r->first, sizeof r->first, "%s, operation %zu", which, op);
  r->first_head = head > 0 ? (size_t)head : 0;
  r->first_diff[0] = '\0';
  if (v == LCTX_VERDICT_FAIL || v == LCTX_VERDICT_XFAIL) {
    snprintf(r->first, sizeof r->first,
             "%s, operation %zu: expected %.300s; got %.300s", which, op,
             j->expected, j->actual);
    lctx_buf db;
    lctx_buf_init(&db, r->first_diff, sizeof r->first_diff);
    lctx_textdiff_append(&db, "  ", "expected", j->expected,
                         strlen(j->expected), "actual", j->actual,
                         strlen(j->actual));
    if (db.overflow)
      r->first_diff[0] = '\0';
  } else
    snprintf(r->first, sizeof r->first, "%s, operation %zu: %s: %s", which, op,
             VERDICT_NAMES[v], detail ? detail : "");
  if (base)
    snprintf(r->first_case, sizeof r->first_case, "%s", base);
  rerun_line(j, s, r->rerun, sizeof r->rerun);
  explain_line(j, s, r->explain, sizeof r->explain);
}

/* The releases of the table (a bit per index) among the model's releases
 * of `model_mask` (a bit per lctx_release_at index), matched by name. */
static uint32_t table_releases(const lctx_spec *spec, uint32_t model_mask) {
  uint32_t mask = 0;
  for (size_t r = 0; r < lctx_release_count() && r < 32; r++) {
    if (!((model_mask >> r) & 1u))
      continue;
    int k = lctx_spec_release_index(spec, lctx_release_at(r)->name);
    if (k >= 0 && k < 32)
      mask |= 1u << k;
  }
  return mask;
}

/* Operation `i` failed under row `row`: whether it passes as another
 * release the table names behaves, and why (j->drift, and the row's first
 * such explanation); else that it is new at the judged release. */
static void note_drift(lctx_report_judge *j, const lctx_report_subject *s,
                       size_t i, size_t row) {
  lctx_buf db;
  lctx_buf_init(&db, j->drift, sizeof j->drift);
  uint32_t traced;
  if (j->spec->rows[row].ir) {
    /* Only a module the judge judged says where else it passes. */
    const lctx_irjudge_verdict *mv = s->module[i];
    if (!mv || mv->status != LCTX_IRJUDGE_JUDGED)
      return;
    traced = lctx_oracle_drift_ir(j->spec, s->c, i,
                                  table_releases(j->spec, mv->passes_at),
                                  &j->drift_features, &db);
  } else {
    traced = lctx_oracle_drift(j->spec, s->c, i,
                               lctx_case_result_outcome(s->res, i, &j->outcome),
                               j->exact, &j->drift_features, &db);
  }
  lctx_report_row *r = &j->report->rows[row];
  if (!traced) {
    lctx_oracle_drift_new(j->spec, row, &db);
    if (r->drift_new++ == 0) {
      snprintf(r->drift_new_text, sizeof r->drift_new_text, "%s", j->drift);
      r->drift_new_at = lctx_report_at_of(s->source, s->index, i);
    }
    return;
  }
  if (r->drift_explained++ == 0) {
    snprintf(r->drift, sizeof r->drift, "%s", j->drift);
    r->drift_at = lctx_report_at_of(s->source, s->index, i);
  }
}

/* Counts the verdict of operation `i`; notes and streams what did not
 * pass, and the first failure. */
static void count_verdict(lctx_report_judge *j, const lctx_report_subject *s,
                          size_t i, size_t row, lctx_verdict v,
                          const char *detail) {
  lctx_report *rep = j->report;
  rep->rows[row].n[v]++;
  j->drift[0] = '\0';
  if (v == LCTX_VERDICT_FAIL && s->res->status == LCTX_RESULT_OK)
    note_drift(j, s, i, row);
  if (!rep->failed_once && v != LCTX_VERDICT_PASS && v != LCTX_VERDICT_XFAIL) {
    rep->failed_once = true;
    /* From the start of the cases, as the run's own time is. */
    rep->first_failure_seconds = lctx_sys_now() - j->start;
    rep->first_failure_row = row;
    rep->first_failure_verdict = v;
    rep->first_failure_at = lctx_report_at_of(s->source, s->index, i);
  }
  if (v != LCTX_VERDICT_PASS) {
    note_first(j, row, s, i, v, detail);
    stream_verdict(j, s, i, row, v, detail);
  }
}

//===----------------------------------------------------------------------===//
// Judging
//===----------------------------------------------------------------------===//

static size_t find_row(const lctx_spec *spec, const char *id) {
  for (size_t i = 0; i < spec->row_count; i++) {
    if (strcmp(spec->rows[i].id, id) == 0)
      return i;
  }
  return (size_t)-1;
}

void lctx_report_judge_init(lctx_report_judge *j) {
  for (unsigned k = 0; k < IR_ROWS; k++) {
    char id[8];
    snprintf(id, sizeof id, "IR-%03u", k);
    j->ir_rows[k] = find_row(j->spec, id);
  }
  j->expected[0] = j->actual[0] = j->why[0] = j->drift[0] = '\0';
  memset(j->matches, 0, sizeof j->matches);
}

/* The verdict on the module of operation `index`: the row that judged it
 * (or -1 when it could not be judged), whether it passed, and the IR rows
 * the check exercised (`applicable`, LCTX_IR_ROW_BIT); why it failed goes
 * to j->why. */
static size_t judge_module(lctx_report_judge *j, const lctx_report_subject *s,
                           size_t index, bool *passed, unsigned *applicable) {
  *passed = false;
  *applicable = 0;
  const lctx_irjudge_verdict *v = s->module[index];
  if (!v || v->status == LCTX_IRJUDGE_NOT_JUDGED)
    return (size_t)-1;
  *passed = v->status == LCTX_IRJUDGE_JUDGED && v->passed;
  *applicable = v->status == LCTX_IRJUDGE_JUDGED ? v->applicable : 0;
  if (*passed)
    return j->ir_rows[5]; /* IR-005, found once by lctx_report_judge_init */
  snprintf(j->why, sizeof j->why, "the module: %s: %s", v->row, v->reason);
  return find_row(j->spec, v->row);
}

/* The module of a passing lower_per_platform operation `i`: an accepted
 * module passes every IR row that judged it (IR-005, the row judge_module
 * names, always among them); a rejected one fails the operation under the
 * IR row that rejected it (`*row`, `*v`, `*detail`). */
static void judge_ir(lctx_report_judge *j, const lctx_report_subject *s,
                     size_t i, size_t *row, lctx_verdict *v,
                     const char **detail) {
  bool passed;
  unsigned applicable;
  size_t ir_row = judge_module(j, s, i, &passed, &applicable);
  size_t rows = j->spec->row_count;
  lctx_report_row *n = j->report->rows;
  if (ir_row < rows && passed && j->dry) {
    j->dry_ir[i] = true; /* counted once every operation passed */
  } else if (ir_row < rows && passed) {
    n[ir_row].n[LCTX_VERDICT_PASS]++;
    for (unsigned k = 0; k < IR_ROWS; k++) {
      if (((applicable >> k) & 1u) && j->ir_rows[k] != ir_row &&
          j->ir_rows[k] < rows)
        n[j->ir_rows[k]].n[LCTX_VERDICT_PASS]++;
    }
  } else if (ir_row < rows) {
    snprintf(j->expected, sizeof j->expected, "a module the IR rows accept");
    snprintf(j->actual, sizeof j->actual, "%s", j->why);
    *row = ir_row;
    *v = j->xfail->row[ir_row] ? LCTX_VERDICT_XFAIL : LCTX_VERDICT_FAIL;
    *detail = j->why;
  }
}

/* Judges operation `i` of `s` (its features in j->features): the row and
 * the verdict, and the detail of a crash, a timeout or a rejected module.
 * False when no single row covers it. */
static bool judge_op(lctx_report_judge *j, const lctx_report_subject *s,
                     size_t i, size_t *row, lctx_verdict *v,
                     const char **detail) {
  const lctx_case_result *res = s->res;
  lctx_buf eb, ab;
  lctx_buf_init(&eb, j->expected, sizeof j->expected);
  lctx_buf_init(&ab, j->actual, sizeof j->actual);
  *detail = NULL;
  size_t m[4];
  size_t n = lctx_oracle_match_rows(j->spec, j->matches, &j->features, m);
  if (res->status != LCTX_RESULT_OK && res->status != LCTX_RESULT_FLAKY) {
    /* The row still comes from the features: attribute the crash. */
    if (n != 1)
      return false;
    *row = m[0];
    *v = res->status == LCTX_RESULT_TIMEOUT ? LCTX_VERDICT_TIMEOUT
                                            : LCTX_VERDICT_CRASH;
    *detail = res->detail;
    return true;
  }
  /* Judged without texts first; they are written only for what does not
   * pass (a second, identical judgement). */
  const lctx_outcome *actual = lctx_case_result_outcome(res, i, &j->outcome);
  lctx_judgement jd = lctx_oracle_judge_rows(j->spec, &j->features, m, n,
                                             actual, j->exact, row, NULL, NULL);
  if (jd != LCTX_JUDGE_ALLOWED ||
      (*row < j->spec->row_count && j->xfail->row[*row])) {
    lctx_outcome_format(actual, &ab);
    jd = lctx_oracle_judge_rows(j->spec, &j->features, m, n, actual, j->exact,
                                row, &eb, NULL);
  }
  if (jd == LCTX_JUDGE_NO_ROW || jd == LCTX_JUDGE_SEVERAL_ROWS)
    return false;
  bool ok = jd == LCTX_JUDGE_ALLOWED;
  *v = j->xfail->row[*row] ? (ok ? LCTX_VERDICT_XPASS : LCTX_VERDICT_XFAIL)
                           : (ok ? LCTX_VERDICT_PASS : LCTX_VERDICT_FAIL);
  if (ok && res->mlir[i] && s->c->ops[i].kind == LCTX_OP_LOWER_PER_PLATFORM)
    judge_ir(j, s, i, row, v, detail);
  /* Answered only when run alone: what passed is flaky, not a pass. */
  if (res->status == LCTX_RESULT_FLAKY &&
      (*v == LCTX_VERDICT_PASS || *v == LCTX_VERDICT_XPASS)) {
    *v = LCTX_VERDICT_FLAKY;
    *detail = res->detail;
  }
  return true;
}

void lctx_report_judge_case(lctx_report_judge *j,
                            const lctx_report_subject *s) {
  lctx_feature_state state;
  lctx_classify_init_at(&state, s->c, lctx_spec_facts(j->spec));
  for (size_t i = 0; i < s->c->op_count; i++) {
    lctx_classify_op(&state, i, &j->features);
    size_t row;
    lctx_verdict v;
    const char *detail;
    if (judge_op(j, s, i, &row, &v, &detail))
      count_verdict(j, s, i, row, v, detail);
    else
      j->report->spec_gaps++;
  }
}

bool lctx_report_judge_case_if_pass(lctx_report_judge *j,
                                    const lctx_report_subject *s) {
  lctx_feature_state state;
  lctx_classify_init_at(&state, s->c, lctx_spec_facts(j->spec));
  size_t rows[LCTX_CASE_MAX_OPS];
  j->dry = true;
  bool pass = s->c->op_count <= LCTX_CASE_MAX_OPS;
  for (size_t i = 0; pass && i < s->c->op_count; i++) {
    lctx_classify_op(&state, i, &j->features);
    lctx_verdict v;
    const char *detail;
    j->dry_ir[i] = false;
    pass = judge_op(j, s, i, &rows[i], &v, &detail) && v == LCTX_VERDICT_PASS;
  }
  j->dry = false;
  if (!pass)
    return false;
  for (size_t i = 0; i < s->c->op_count; i++) {
    j->report->rows[rows[i]].n[LCTX_VERDICT_PASS]++;
    if (j->dry_ir[i]) { /* as judge_ir counts a module that passed */
      size_t row = rows[i];
      lctx_verdict v = LCTX_VERDICT_PASS;
      const char *detail = NULL;
      judge_ir(j, s, i, &row, &v, &detail);
    }
  }
  return true;
}

/* The row each operation of `c` matches (a single one), in order, into
 * `rows` (SIZE_MAX where none or several match). */
static void rows_of_case(lctx_report_judge *j, const lctx_case *c,
                         size_t *rows) {
  lctx_feature_state state;
  lctx_classify_init_at(&state, c, lctx_spec_facts(j->spec));
  for (size_t i = 0; i < c->op_count; i++) {
    lctx_classify_op(&state, i, &j->features);
    size_t m[2];
    rows[i] =
        lctx_spec_match(j->spec, &j->features, m, 2) == 1 ? m[0] : SIZE_MAX;
  }
}

void lctx_report_judge_unsupported(lctx_report_judge *j, const lctx_case *c) {
  size_t rows[LCTX_CASE_MAX_OPS];
  rows_of_case(j, c, rows);
  for (size_t i = 0; i < c->op_count; i++)
    if (rows[i] != SIZE_MAX)
      j->report->rows[rows[i]].n[LCTX_VERDICT_UNSUPPORTED]++;
}

bool lctx_report_not_judged(lctx_report_judge *j, const lctx_case *c) {
  if (c->op_count == 0)
    return false;
  int f = lctx_spec_depends_unread(j->spec, c, c->op_count - 1, &j->features);
  if (f < 0)
    return false;
  lctx_report *rep = j->report;
  if (rep->cases_not_judged++ == 0) {
    snprintf(rep->not_judged_fact, sizeof rep->not_judged_fact, "%s",
             lctx_classify_fact_name((lctx_fact)f));
    snprintf(rep->not_judged_why, sizeof rep->not_judged_why, "%s",
             j->spec->fact[f].unread_why);
  }
  size_t rows[LCTX_CASE_MAX_OPS];
  rows_of_case(j, c, rows);
  for (size_t i = 0; i < c->op_count; i++)
    if (rows[i] != SIZE_MAX)
      rep->rows[rows[i]].not_judged++;
  return true;
}

bool lctx_report_uses_absent(lctx_report_judge *j, const lctx_case *c) {
  if (lctx_spec_selected_modelled(j->spec))
    return false;
  size_t rows[LCTX_CASE_MAX_OPS];
  rows_of_case(j, c, rows);
  for (size_t i = 0; i < c->op_count; i++)
    if (rows[i] != SIZE_MAX && j->spec->rows[rows[i]].absent)
      return true;
  return false;
}
