/*
 * conform.c - judging an implementation by the spec table (see conform.h).
 *
 * A run offers cases from three sources (the conformance case files, the
 * domain, random cases) to a batch; a full batch goes to the implementation
 * (impl.h) and every operation's outcome is judged by the spec table, and a
 * module a lower_per_platform returned by the IR rows (irexpect.h). The
 * verdicts are counted per row in the lctx_conform_report and streamed to
 * results.jsonl; the reports are written at the end.
 */
#include "conform.h"
#include "conform_report.h"
#include "sys.h"

#include "case_json.h"
#include "case_text.h"
#include "dirlist.h"
#include "domain.h"
#include "escape.h"
#include "exit.h"
#include "file.h"
#include "impl.h"
#include "irexpect.h"
#include "irjudge.h"
#include "lctx/lctx.h"
#include "oracle.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_BATCH LCTX_CONFORM_MAX_BATCH

static const char *const VERDICT_NAMES[LCTX_CONFORM_VERDICT_COUNT] = {
    "pass",  "fail",    "xfail",       "xpass",
    "crash", "timeout", "unsupported", "flaky"};

const char *lctx_conform_verdict_name(lctx_conform_verdict v) {
  return v < LCTX_CONFORM_VERDICT_COUNT ? VERDICT_NAMES[v] : "?";
}

/* The IR rows, IR-000 .. IR-006 (irexpect.h's LCTX_IR_ROW_BIT). */
#define IR_ROWS 7

/* A batch of cases, their names and their results. */
typedef struct batch_slot {
  lctx_case cases[MAX_BATCH];
  const lctx_case *ptrs[MAX_BATCH];
  lctx_case_result results[MAX_BATCH];
  const char *source[MAX_BATCH];
  size_t index[MAX_BATCH];
  size_t count;
  /* The cases packed for a plugin's worker as they were offered (see
   * pack_offered), or not (`packed_ok` false): lctx_impl_packed. */
  uint8_t *packed;
  size_t packed_capacity;
  size_t offset[MAX_BATCH + 1];
  bool packed_ok;
  /* The batch's modules for the judge: job_of[b][i] indexes jobs and
   * verdicts, or is -1; `ir_started`: handed to it ahead (start_modules),
   * their verdicts still to be collected. */
  lctx_irjudge_job jobs[MAX_BATCH * LCTX_CASE_MAX_OPS];
  lctx_irjudge_verdict verdicts[MAX_BATCH * LCTX_CASE_MAX_OPS];
  size_t job_of[MAX_BATCH][LCTX_CASE_MAX_OPS];
  size_t job_count;
  bool ir_started;
} batch_slot;

/* One run: everything lctx_conform_run works with, passed down to every
 * step. Heap-allocated: the batches and the judge's scratch are large. */
typedef struct run {
  lctx_conform_options o;
  lctx_conform_report *report; /* the counts: the caller's, or `own` */
  lctx_conform_report own;
  lctx_spec spec;
  lctx_impl *impl;
  const lctx_impl_info *info;
  bool pack; /* cases are packed as offered (a plugin, batches handed ahead) */
  bool xfail[LCTX_SPEC_MAX_ROWS];
  char xfail_reason[LCTX_SPEC_MAX_ROWS][LCTX_CONFORM_REASON_MAX];
  size_t global_index; /* cases offered so far, for the shard */
  size_t domain_seen;  /* domain cases visited (--case domain:INDEX) */
  /* The conformance case files ("DIR/NAME") in name order (the source
   * "cases"), from lctx_dirlist_read. */
  char **case_names;
  size_t case_count;
  /* Three batches (see flush_batch): the one being filled; the one in
   * flight (NULL: none), handed to the implementation; and the one ready
   * (NULL: none), whose results are in and whose modules the judge has.
   * `at` is the one being filled, or the one being judged (judge_slot). */
  batch_slot slots[3];
  batch_slot *fill, *flight, *ready, *at;
  FILE *stream; /* results.jsonl */
  char stream_path[4200];
  FILE *out;
  FILE *err;
  int lock_fd;  /* REPORT_DIR/.lock, held for the run */
  double begin; /* lctx_conform_run started */
  double start; /* the cases started */
  /* The live progress line on a terminal's stderr: shown, cases offered
   * in all (the domain's counted at the start), last shown. */
  bool progress;
  size_t progress_total;
  double progress_shown;
  /* The judge of the modules of lower_per_platform operations (created on
   * first use), and the modules judged so far. */
  lctx_irjudge *judge;
  /* The reference model at the release judged as: the modules' expected
   * structure (the IR judge). */
  const lctx_release *model_release;
  size_t modules_checked;
  /* The rows IR-000 .. IR-006 (bit k of a verdict's `applicable`), or -1. */
  size_t ir_rows[IR_ROWS];
  /* The judge's scratch: one operation's texts and features, the reference
   * run and IR expectations of one module, a case read or generated. */
  char expected[4 * (LCTX_OUTCOME_TEXT_MAX + 32)];
  char actual[LCTX_OUTCOME_TEXT_MAX + 64];
  char why[LCTX_IR_MESSAGE_MAX + 128];
  lctx_features features;
  /* What lctx_oracle_drift classifies into, and what it says of one
   * failing operation. */
  lctx_features drift_features;
  char drift[512];
  /* The rows matched per operation kind and feature values
   * (lctx_oracle_match_rows), zero at the start. */
  lctx_oracle_match matches[LCTX_ORACLE_MATCH_SLOTS];
  lctx_case scratch;
} run;

//===----------------------------------------------------------------------===//
// Judging a batch
//===----------------------------------------------------------------------===//

/* A report file could not be written: says so, and the run ends with
 * LCTX_EXIT_USAGE. */
static void write_failed(run *r, const char *path, int errnum) {
  r->report->write_failed = true;
  lctx_escaped esc;
  fprintf(r->err, "lctx conform: %s: cannot write: %s\n", lctx_esc(&esc, path),
          strerror(errnum ? errnum : EIO));
}

static void case_name(const run *r, size_t b, char *buf, size_t n);

static void stream_verdict(run *r, size_t b, size_t op, size_t row_index,
                           lctx_conform_verdict v, const char *detail) {
  lctx_conform_row *kept = &r->report->rows[row_index];
  if (kept->kept >= r->o.keep_failures) {
    kept->not_kept++;
    return;
  }
  kept->kept++;
  if (!r->stream)
    return;
  const char *row = r->spec.rows[row_index].id;
  json_t *j = json_object();
  json_object_set_new(j, "source", json_string(r->at->source[b]));
  json_object_set_new(j, "index", json_integer((json_int_t)r->at->index[b]));
  char name[1100];
  case_name(r, b, name, sizeof name);
  json_object_set_new(j, "name", lctx_conform_json_text(name));
  json_object_set_new(j, "operation", json_integer((json_int_t)op));
  json_object_set_new(j, "row", json_string(row));
  json_object_set_new(j, "verdict", json_string(VERDICT_NAMES[v]));
  if (detail)
    json_object_set_new(j, "detail", lctx_conform_json_text(detail));
  if (v == LCTX_CONFORM_FAIL || v == LCTX_CONFORM_XFAIL) {
    json_object_set_new(j, "expected", lctx_conform_json_text(r->expected));
    json_object_set_new(j, "actual", lctx_conform_json_text(r->actual));
  }
  if (v == LCTX_CONFORM_FAIL && r->drift[0])
    json_object_set_new(j, "drift", lctx_conform_json_text(r->drift));
  json_t *c = lctx_case_to_json(r->at->ptrs[b]);
  if (c)
    json_object_set_new(j, "case", c);
  char *text = json_dumps(j, JSON_COMPACT);
  if (text) {
    fprintf(r->stream, "%s\n", text);
    free(text);
  }
  json_decref(j);
}

/* Appends `text` to `buf` (of `n` bytes, holding a string) for a POSIX
 * shell: as it is when it holds only safe characters, else in single
 * quotes. */
static void shell_word(char *buf, size_t n, const char *text) {
  size_t at = strlen(buf);
  bool plain = text[0] != 0;
  for (const char *c = text; *c; c++)
    plain = plain && (strchr("_./:=@%+,-", *c) || (*c >= '0' && *c <= '9') ||
                      (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z'));
  if (at + 1 < n)
    buf[at++] = ' ';
  if (!plain && at + 1 < n)
    buf[at++] = '\'';
  for (const char *c = text; *c && at + 5 < n; c++) {
    if (*c == '\'' && !plain) {
      memcpy(buf + at, "'\\''", 4);
      at += 4;
    } else {
      buf[at++] = *c;
    }
  }
  if (!plain && at + 1 < n)
    buf[at++] = '\'';
  buf[at] = 0;
}

/* The name of batch entry `b` as `--case` reads it: the case file, or
 * "domain:INDEX", "random:INDEX". */
static void case_name(const run *r, size_t b, char *buf, size_t n) {
  const char *source = r->at->source[b];
  if (strcmp(source, "cases") == 0 && r->at->index[b] < r->case_count)
    snprintf(buf, n, "%s", r->case_names[r->at->index[b]]);
  else
    snprintf(buf, n, "%s:%zu", source, r->at->index[b]);
}

/* The command line that runs batch entry `b` alone, with the options that
 * change its verdict; its reports go to REPORT_DIR/rerun. */
static void rerun_line(const run *r, size_t b, char *buf, size_t n) {
  snprintf(buf, n, "lctx conform");
  shell_word(buf, n, r->o.impl_path ? "--impl" : "--cmd");
  shell_word(buf, n, r->o.impl_path ? r->o.impl_path : r->o.command);
  if (strcmp(r->o.spec_path, lctx_sys_default_spec_path()) != 0) {
    shell_word(buf, n, "--spec");
    shell_word(buf, n, r->o.spec_path);
  }
  if (r->o.xfail_path) {
    shell_word(buf, n, "--xfail");
    shell_word(buf, n, r->o.xfail_path);
  }
  if (!r->o.exact)
    shell_word(buf, n, "--messages=class");
  if (r->spec.selected < r->spec.release_count) {
    shell_word(buf, n, "--jax");
    shell_word(buf, n, r->spec.selected_name);
  }
  if (strcmp(r->at->source[b], "random") == 0) {
    char seed[32];
    snprintf(seed, sizeof seed, "--seed=%llu", r->o.seed);
    shell_word(buf, n, seed);
  }
  char name[1100], dir[4100];
  case_name(r, b, name, sizeof name);
  shell_word(buf, n, "--case");
  shell_word(buf, n, name);
  snprintf(dir, sizeof dir, "%s/rerun", r->o.report_dir);
  shell_word(buf, n, "--report-dir");
  shell_word(buf, n, dir);
}

static void note_first(run *r, size_t row, size_t b, size_t op,
                       lctx_conform_verdict v, const char *detail) {
  lctx_conform_row *s = &r->report->rows[row];
  if (s->first[0])
    return;
  /* The case: "cases case N" becomes its file's name. */
  char which[300];
  if (strcmp(r->at->source[b], "cases") == 0 &&
      r->at->index[b] < r->case_count) {
    const char *path = r->case_names[r->at->index[b]];
    const char *slash = strrchr(path, '/');
    snprintf(which, sizeof which, "case %.280s", slash ? slash + 1 : path);
  } else {
    snprintf(which, sizeof which, "%s case %zu", r->at->source[b],
             r->at->index[b]);
  }
  if (v == LCTX_CONFORM_FAIL || v == LCTX_CONFORM_XFAIL)
    snprintf(s->first, sizeof s->first,
             "%s, operation %zu: expected %.300s; got %.300s", which, op,
             r->expected, r->actual);
  else
    snprintf(s->first, sizeof s->first, "%s, operation %zu: %s: %s", which, op,
             VERDICT_NAMES[v], detail ? detail : "");
  if (strcmp(r->at->source[b], "cases") == 0 &&
      r->at->index[b] < r->case_count) {
    const char *path = r->case_names[r->at->index[b]];
    const char *slash = strrchr(path, '/');
    snprintf(s->first_case, sizeof s->first_case, "%s",
             slash ? slash + 1 : path);
  }
  rerun_line(r, b, s->rerun, sizeof s->rerun);
}

static size_t find_row(const run *r, const char *id) {
  for (size_t i = 0; i < r->spec.row_count; i++) {
    if (strcmp(r->spec.rows[i].id, id) == 0)
      return i;
  }
  return (size_t)-1;
}

/* Lists in slot `s` the module of every lower_per_platform operation of its
 * entries [from, to) that has one; returns how many. */
static size_t gather_modules(batch_slot *s, size_t from, size_t to) {
  size_t n = 0;
  for (size_t b = from; b < to; b++) {
    const lctx_case *c = s->ptrs[b];
    const lctx_case_result *res = &s->results[b];
    for (size_t i = 0; i < LCTX_CASE_MAX_OPS; i++) {
      s->job_of[b][i] = (size_t)-1;
      bool answered =
          res->status == LCTX_RESULT_OK || res->status == LCTX_RESULT_FLAKY;
      if (i < c->op_count && answered && res->mlir[i] &&
          c->ops[i].kind == LCTX_OP_LOWER_PER_PLATFORM) {
        s->job_of[b][i] = n;
        s->jobs[n++] = (lctx_irjudge_job){c, i, res->mlir[i]};
      }
    }
  }
  s->job_count = n;
  return n;
}

/* The judge process (irjudge.h), started on first use; NULL without one. */
static lctx_irjudge *module_judge(run *r) {
  if (!r->judge) {
    char log[4200];
    snprintf(log, sizeof log, "%s/judge.log", r->o.report_dir);
    r->judge = lctx_irjudge_new(r->o.timeout, r->o.memory_limit_mb, log,
                                r->model_release);
  }
  return r->judge;
}

/* Hands the modules of the whole batch in slot `s`, whose results are in,
 * to the judge, which judges them while lctx does other work; judge_modules
 * collects the verdicts when the batch is judged. */
static void start_modules(run *r, batch_slot *s) {
  size_t n = gather_modules(s, 0, s->count);
  s->ir_started = n > 0 && module_judge(r);
  if (s->ir_started)
    lctx_irjudge_start(r->judge, s->jobs, n, s->verdicts);
}

/* Has the module of every lower_per_platform operation of entries
 * [from, to) of the batch being judged that has one judged (or collects
 * the verdicts of start_modules); the verdicts are read by judge_module. */
static void judge_modules(run *r, size_t from, size_t to) {
  batch_slot *s = r->at;
  bool started = s->ir_started && from == 0 && to == s->count;
  s->ir_started = false;
  size_t n = started ? s->job_count : gather_modules(s, from, to);
  if (n == 0)
    return;
  if (module_judge(r))
    lctx_irjudge_run(r->judge, s->jobs, n, s->verdicts);
  else
    for (size_t k = 0; k < n; k++)
      s->verdicts[k].status = LCTX_IRJUDGE_NOT_JUDGED;
  r->modules_checked += n;
}

/* The verdict on the module of operation `index` of batch entry `b`: the row
 * that judged it (or -1 when it could not be judged), whether it passed,
 * and the IR rows the check exercised (`applicable`, LCTX_IR_ROW_BIT); why
 * it failed goes to r->why. */
static size_t judge_module(run *r, size_t b, size_t index, bool *passed,
                           unsigned *applicable) {
  *passed = false;
  *applicable = 0;
  size_t k = r->at->job_of[b][index];
  const lctx_irjudge_verdict *v = k == (size_t)-1 ? NULL : &r->at->verdicts[k];
  if (!v || v->status == LCTX_IRJUDGE_NOT_JUDGED)
    return (size_t)-1;
  *passed = v->status == LCTX_IRJUDGE_JUDGED && v->passed;
  *applicable = v->status == LCTX_IRJUDGE_JUDGED ? v->applicable : 0;
  if (*passed)
    return find_row(r, "IR-005");
  snprintf(r->why, sizeof r->why, "the module: %s: %s", v->row, v->reason);
  return find_row(r, v->row);
}

/* The module of a passing lower_per_platform operation `i`: an accepted
 * module passes every IR row that judged it (IR-005, the row judge_module
 * names, always among them); a rejected one fails the operation under the
 * IR row that rejected it (`*row`, `*v`, `*detail`). */
static void judge_ir(run *r, size_t b, size_t i, size_t *row,
                     lctx_conform_verdict *v, const char **detail) {
  bool passed;
  unsigned applicable;
  size_t ir_row = judge_module(r, b, i, &passed, &applicable);
  lctx_conform_row *rows = r->report->rows;
  if (ir_row < r->spec.row_count && passed) {
    rows[ir_row].n[LCTX_CONFORM_PASS]++;
    for (unsigned k = 0; k < IR_ROWS; k++) {
      if (((applicable >> k) & 1u) && r->ir_rows[k] != ir_row &&
          r->ir_rows[k] < r->spec.row_count)
        rows[r->ir_rows[k]].n[LCTX_CONFORM_PASS]++;
    }
  } else if (ir_row < r->spec.row_count) {
    snprintf(r->expected, sizeof r->expected, "a module the IR rows accept");
    snprintf(r->actual, sizeof r->actual, "%s", r->why);
    *row = ir_row;
    *v = r->xfail[ir_row] ? LCTX_CONFORM_XFAIL : LCTX_CONFORM_FAIL;
    *detail = r->why;
  }
}

/* Judges operation `i` of case `c` with result `res` (its features in
 * r->features): the row and the verdict, and the detail of a crash, a
 * timeout or a rejected module. False when no single row covers it. */
static bool judge_op(run *r, size_t b, size_t i, size_t *row,
                     lctx_conform_verdict *v, const char **detail) {
  const lctx_case *c = r->at->ptrs[b];
  const lctx_case_result *res = &r->at->results[b];
  lctx_buf eb, ab;
  lctx_buf_init(&eb, r->expected, sizeof r->expected);
  lctx_buf_init(&ab, r->actual, sizeof r->actual);
  *detail = NULL;
  size_t m[4];
  size_t n = lctx_oracle_match_rows(&r->spec, r->matches, &r->features, m);
  if (res->status != LCTX_RESULT_OK && res->status != LCTX_RESULT_FLAKY) {
    /* The row still comes from the features: attribute the crash. */
    if (n != 1)
      return false;
    *row = m[0];
    *v = res->status == LCTX_RESULT_TIMEOUT ? LCTX_CONFORM_TIMEOUT
                                            : LCTX_CONFORM_CRASH;
    *detail = res->detail;
    return true;
  }
  /* Judged without texts first; they are written only for what does not
   * pass (a second, identical judgement). */
  lctx_judgement j =
      lctx_oracle_judge_rows(&r->spec, &r->features, m, n, &res->outcomes[i],
                             r->o.exact, row, NULL, NULL);
  if (j != LCTX_JUDGE_ALLOWED || (*row < r->spec.row_count && r->xfail[*row])) {
    lctx_outcome_format(&res->outcomes[i], &ab);
    j = lctx_oracle_judge_rows(&r->spec, &r->features, m, n, &res->outcomes[i],
                               r->o.exact, row, &eb, NULL);
  }
  if (j == LCTX_JUDGE_NO_ROW || j == LCTX_JUDGE_SEVERAL_ROWS)
    return false;
  bool ok = j == LCTX_JUDGE_ALLOWED;
  *v = r->xfail[*row] ? (ok ? LCTX_CONFORM_XPASS : LCTX_CONFORM_XFAIL)
                      : (ok ? LCTX_CONFORM_PASS : LCTX_CONFORM_FAIL);
  if (ok && res->mlir[i] && c->ops[i].kind == LCTX_OP_LOWER_PER_PLATFORM)
    judge_ir(r, b, i, row, v, detail);
  /* Answered only when run alone: what passed is flaky, not a pass. */
  if (res->status == LCTX_RESULT_FLAKY &&
      (*v == LCTX_CONFORM_PASS || *v == LCTX_CONFORM_XPASS)) {
    *v = LCTX_CONFORM_FLAKY;
    *detail = res->detail;
  }
  return true;
}

/* Operation `i` of batch entry `b` failed under row `row`: whether it
 * passes as another release the table names behaves, and why (r->drift,
 * and the row's first such explanation). */
static void note_drift(run *r, size_t b, size_t i, size_t row) {
  lctx_buf db;
  lctx_buf_init(&db, r->drift, sizeof r->drift);
  const lctx_case_result *res = &r->at->results[b];
  bool traced =
      r->spec.rows[row].ir
          ? lctx_oracle_drift_ir(&r->spec, r->at->ptrs[b], i,
                                 &r->drift_features, &db)
          : lctx_oracle_drift(&r->spec, r->at->ptrs[b], i, &res->outcomes[i],
                              r->o.exact, &r->drift_features, &db);
  if (!traced)
    return;
  lctx_conform_row *s = &r->report->rows[row];
  if (s->drift_explained++ == 0)
    snprintf(s->drift, sizeof s->drift, "%s", r->drift);
}

/* Counts the verdict of operation `i` of batch entry `b`; notes and streams
 * what did not pass, and the first failure. */
static void count_verdict(run *r, size_t b, size_t i, size_t row,
                          lctx_conform_verdict v, const char *detail) {
  lctx_conform_report *rep = r->report;
  rep->rows[row].n[v]++;
  r->drift[0] = '\0';
  if (v == LCTX_CONFORM_FAIL && r->at->results[b].status == LCTX_RESULT_OK)
    note_drift(r, b, i, row);
  if (!rep->failed_once && v != LCTX_CONFORM_PASS && v != LCTX_CONFORM_XFAIL) {
    rep->failed_once = true;
    /* From the start of the cases, as the run's own time is. */
    rep->first_failure_seconds = lctx_sys_now() - r->start;
    rep->first_failure_row = row;
    rep->first_failure_verdict = v;
  }
  if (v != LCTX_CONFORM_PASS) {
    note_first(r, row, b, i, v, detail);
    stream_verdict(r, b, i, row, v, detail);
  }
}

static void judge_batch(run *r, size_t from, size_t to) {
  judge_modules(r, from, to);
  for (size_t b = from; b < to; b++) {
    const lctx_case *c = r->at->ptrs[b];
    lctx_feature_state state;
    lctx_classify_init_at(&state, c, lctx_spec_facts(&r->spec));
    for (size_t i = 0; i < c->op_count; i++) {
      lctx_classify_op(&state, i, &r->features);
      size_t row;
      lctx_conform_verdict v;
      const char *detail;
      if (judge_op(r, b, i, &row, &v, &detail))
        count_verdict(r, b, i, row, v, detail);
      else
        r->report->spec_gaps++;
    }
  }
  if (r->stream && (fflush(r->stream) != 0 || ferror(r->stream))) {
    write_failed(r, r->stream_path, errno);
    fclose(r->stream); /* nothing more goes to a file that failed */
    r->stream = NULL;
  }
}

/* The live progress line (cases offered of all, rate, time left) on
 * stderr, at most four times a second; `done` clears it. */
static void show_progress(run *r, bool done) {
  if (!r->progress)
    return;
  double now = lctx_sys_now();
  if (done) {
    fputs("\r\033[K", r->err);
    fflush(r->err);
    return;
  }
  if (now - r->progress_shown < 0.25)
    return;
  r->progress_shown = now;
  double elapsed = now - r->start, rate = 0;
  size_t n = r->global_index, total = r->progress_total;
  if (elapsed > 0)
    rate = (double)n / elapsed;
  char left[48] = "?";
  if (rate > 0 && total > n)
    snprintf(left, sizeof left, "%.0f s", (double)(total - n) / rate);
  fprintf(r->err,
          "\rlctx conform: %zu of %zu cases (%.0f%%), %.0f cases/s, about "
          "%s left\033[K",
          n, total, total ? 100.0 * (double)n / (double)total : 100.0, rate,
          left);
  fflush(r->err);
}

static bool count_case(void *user, const lctx_case *c) {
  (void)user;
  (void)c;
  return true;
}

/* Judges cases [from, to) of slot `s`, whose results are in, and lets their
 * results go. */
static void judge_slot(run *r, batch_slot *s, size_t from, size_t to) {
  r->at = s;
  judge_batch(r, from, to);
  for (size_t b = from; b < to; b++)
    lctx_case_result_release(&s->results[b]);
  r->at = r->fill;
}

/* The batch is judged whole: counted, progress shown. */
static void batch_done(run *r, batch_slot *s) {
  r->report->cases_run += s->count;
  s->count = 0;
  show_progress(r, false);
  if (r->o.handle_signals && lctx_sys_interrupted())
    r->report->interrupted = true;
}

/* Judges slot `s`, whose first `done` cases have their results (from
 * lctx_impl_run), and runs and judges the rest the same way: the
 * implementation hands back fewer cases than asked when their modules reach
 * its budget, and those are judged, their modules let go, before the rest
 * run. */
static void judge_from(run *r, batch_slot *s, size_t done) {
  for (size_t from = 0; from < s->count;) {
    size_t to = done && done <= s->count - from ? from + done : s->count;
    judge_slot(r, s, from, to);
    from = to;
    if (from < s->count)
      done = lctx_impl_run(r->impl, s->ptrs + from, s->count - from,
                           s->results + from);
  }
  batch_done(r, s);
}

/* Judges the ready batch, if any: its results are in, and the judge has
 * had its modules since it became ready. */
static void judge_ready(run *r) {
  batch_slot *s = r->ready;
  if (!s)
    return;
  r->ready = NULL;
  judge_from(r, s, s->count);
}

/* Collects the results of the batch in flight, if any, and returns it; or
 * NULL when there is none, or when the implementation handed it back in
 * parts: then it is judged here (after the ready one, which is older). */
static batch_slot *collect_flight(run *r) {
  batch_slot *p = r->flight;
  if (!p)
    return NULL;
  r->flight = NULL;
  size_t done = lctx_impl_run(r->impl, p->ptrs, p->count, p->results);
  if (done == p->count)
    return p;
  judge_ready(r);
  judge_from(r, p, done);
  return NULL;
}

/* Judges every batch still in flight or ready, oldest first. */
static void settle_pending(run *r) {
  batch_slot *p = collect_flight(r);
  judge_ready(r);
  if (p)
    judge_from(r, p, p->count);
}

/* Runs the batch being filled, in a pipeline of three: the batch in flight
 * has its results collected; the full one is handed to the implementation
 * (lctx_impl_start) and is in flight in turn; the ready batch is judged,
 * the judge having had its modules meanwhile; and the batch just collected
 * has its modules handed to the judge (start_modules) and is ready. So a
 * plugin's worker runs while lctx judges and fills, and the MLIR judge
 * while lctx fills, each batch judged in the order it was filled. With
 * --first-failure each batch is run and judged before the next is
 * filled. */
static void flush_batch(run *r) {
  batch_slot *f = r->fill;
  if (f->count == 0)
    return;
  if (r->o.first_failure) {
    judge_from(r, f, lctx_impl_run(r->impl, f->ptrs, f->count, f->results));
    return;
  }
  batch_slot *p = collect_flight(r);
  lctx_impl_packed packed = {f->packed, f->offset};
  lctx_impl_start(r->impl, f->ptrs, f->count, f->packed_ok ? &packed : NULL);
  r->flight = f;
  judge_ready(r);
  if (p) {
    start_modules(r, p);
    r->ready = p;
  }
  for (size_t k = 0; k < 3; k++)
    if (&r->slots[k] != f && &r->slots[k] != p)
      r->fill = r->at = &r->slots[k];
}

/* Whether the run stops: interrupted, or `first_failure` and one failed. */
static bool stopping(const run *r) {
  return r->report->interrupted || r->report->write_failed ||
         (r->o.first_failure && r->report->failed_once);
}

/* Counts every operation of an unsupported case under its row. */
static void note_unsupported(run *r, const lctx_case *c) {
  lctx_feature_state state;
  lctx_classify_init_at(&state, c, lctx_spec_facts(&r->spec));
  for (size_t i = 0; i < c->op_count; i++) {
    lctx_classify_op(&state, i, &r->features);
    size_t m[2];
    if (lctx_spec_match(&r->spec, &r->features, m, 2) == 1)
      r->report->rows[m[0]].n[LCTX_CONFORM_UNSUPPORTED]++;
  }
}

/* Whether case `c` uses an operation the judged release does not have:
 * one whose one matching row is absent there (at the modelled commit every
 * operation exists). */
static bool uses_absent(run *r, const lctx_case *c) {
  if (r->spec.selected == r->spec.release_count)
    return false;
  lctx_feature_state state;
  lctx_classify_init_at(&state, c, lctx_spec_facts(&r->spec));
  for (size_t i = 0; i < c->op_count; i++) {
    lctx_classify_op(&state, i, &r->features);
    size_t m[2];
    if (lctx_spec_match(&r->spec, &r->features, m, 2) == 1 &&
        r->spec.rows[m[0]].absent)
      return true;
  }
  return false;
}

/* Copies what an implementation is given of `c` into `dst`: its used
 * factories, rules and operations and its configuration, without its
 * expectations. Both keep case.h's invariant (zero past their counts, as
 * run_random's lctx_case_reset of the slot needs): the used parts of `c`
 * are copied over those of `dst` (an operation without the platform names
 * past its counts: lctx_case_op_assign), and only what `dst` used past the
 * counts of `c` is cleared, not all it used first. */
static void copy_used(lctx_case *dst, const lctx_case *c) {
  if (c->factory_count > LCTX_MAX_FACTORIES ||
      c->rule_count > LCTX_CASE_MAX_RULES || c->op_count > LCTX_CASE_MAX_OPS) {
    lctx_case_reset(dst);
    memcpy(dst, c, offsetof(lctx_case, has_expect)); /* never: all of it */
    memset(dst->has_expect, 0, sizeof dst->has_expect);
    return;
  }
  for (size_t i = 0; i < dst->op_count; i++)
    if (dst->has_expect[i]) {
      memset(&dst->expect[i], 0, sizeof dst->expect[i]);
      dst->has_expect[i] = false;
    }
  size_t nf = c->factory_count, nr = c->rule_count, no = c->op_count;
  if (dst->factory_count > nf)
    memset(dst->factories + nf, 0,
           (dst->factory_count - nf) * sizeof dst->factories[0]);
  if (dst->rule_count > nr)
    memset(dst->rules + nr, 0, (dst->rule_count - nr) * sizeof dst->rules[0]);
  for (size_t i = no; i < dst->op_count; i++)
    lctx_case_op_clear(&dst->ops[i]);
  dst->factory_count = nf;
  memcpy(dst->factories, c->factories, nf * sizeof c->factories[0]);
  size_t from = offsetof(lctx_case, jax_platforms);
  memcpy((char *)dst + from, (const char *)c + from,
         offsetof(lctx_case, rule_count) - from);
  dst->rule_count = nr;
  memcpy(dst->rules, c->rules, nr * sizeof c->rules[0]);
  dst->op_count = no;
  for (size_t i = 0; i < no; i++)
    lctx_case_op_assign(&dst->ops[i], &c->ops[i]);
}

/* Packs case `b` of slot `s`, just copied or drawn there and so still in
 * the cache, for lctx_impl_start, which would otherwise pack the whole batch
 * when it hands it over. Without the memory for it, the batch goes
 * unpacked. */
static void pack_offered(batch_slot *s, size_t b) {
  if (b == 0) {
    s->offset[0] = 0;
    s->packed_ok = true;
  }
  if (!s->packed_ok)
    return;
  size_t need = s->offset[b] + LCTX_IMPL_PACKED_MAX;
  if (need > s->packed_capacity) {
    size_t cap = s->packed_capacity ? s->packed_capacity * 2 : 256u << 10;
    cap = cap < need ? need : cap;
    uint8_t *p = realloc(s->packed, cap);
    if (!p) {
      s->packed_ok = false;
      return;
    }
    s->packed = p;
    s->packed_capacity = cap;
  }
  s->offset[b + 1] =
      s->offset[b] + lctx_impl_pack(&s->cases[b], s->packed + s->offset[b]);
}

/* Offers one case to the run; returns false to stop early. */
static bool offer(run *r, const char *source, size_t index,
                  const lctx_case *c) {
  size_t g = r->global_index++;
  if (stopping(r))
    return false;
  if (r->o.shard_n > 1 && g % r->o.shard_n != r->o.shard_i - 1) {
    r->report->cases_skipped++;
    return true;
  }
  unsigned needed = 0;
  for (size_t i = 0; i < c->op_count; i++)
    needed |= 1u << c->ops[i].kind;
  if (needed & ~r->o.ops) {
    r->report->cases_skipped++;
    return true;
  }
  bool absent = uses_absent(r, c);
  if ((needed & ~r->info->operations) || absent) {
    r->report->cases_unsupported++;
    r->report->cases_absent += absent;
    note_unsupported(r, c);
    return true;
  }
  size_t b = r->fill->count++;
  if (c != &r->fill->cases[b]) /* run_random draws into the slot itself */
    copy_used(&r->fill->cases[b], c);
  r->fill->ptrs[b] = &r->fill->cases[b];
  if (r->pack)
    pack_offered(r->fill, b);
  r->fill->source[b] = source;
  r->fill->index[b] = index;
  if (r->fill->count == r->o.batch)
    flush_batch(r);
  return !stopping(r);
}

//===----------------------------------------------------------------------===//
// Sources
//===----------------------------------------------------------------------===//

static bool domain_visit(void *user, const lctx_case *c) {
  run *r = user;
  if (r->o.only.kind == LCTX_CONFORM_ONLY_DOMAIN) {
    size_t i = r->domain_seen++;
    if (i < r->o.only.index)
      return true;
    r->report->source_cases[1]++;
    offer(r, "domain", i, c);
    return false;
  }
  return offer(r, "domain", r->report->source_cases[1]++, c);
}

/* The case files of --cases: a folder's, or the one file given (also
 * --case FILE); NULL (said in `eb`) when they cannot be listed. */
static char **list_case_files(run *r, size_t *count, lctx_buf *eb) {
  const char *one =
      r->o.only.kind == LCTX_CONFORM_ONLY_FILE ? r->o.only.path : NULL;
  struct stat st;
  if (!one && stat(r->o.cases_dir, &st) == 0 && S_ISREG(st.st_mode))
    one = r->o.cases_dir;
  if (!one)
    return lctx_dirlist_read(r->o.cases_dir, ".case", count, eb);
  char **names = calloc(2, sizeof *names);
  if (names)
    names[0] = strdup(one);
  if (!names || !names[0]) {
    lctx_dirlist_free(names);
    lctx_buf_append(eb, "out of memory", 13);
    return NULL;
  }
  *count = 1;
  return names;
}

/* Parses and offers every .case file of the directory, in name order;
 * false on a folder that cannot be listed or a bad file (said on err). */
static bool run_case_files(run *r, FILE *err) {
  char e[1024];
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  lctx_escaped esc;
  if (r->o.only.kind == LCTX_CONFORM_ONLY_DOMAIN ||
      r->o.only.kind == LCTX_CONFORM_ONLY_RANDOM)
    return true;
  r->case_names = list_case_files(r, &r->case_count, &eb);
  if (!r->case_names) {
    fprintf(err, "lctx conform: --cases: %s\n", lctx_esc(&esc, e));
    return false;
  }
  r->progress_total += r->case_count;
  for (size_t i = 0; i < r->case_count; i++) {
    const char *path = r->case_names[i];
    lctx_buf_init(&eb, e, sizeof e);
    char *text;
    size_t n;
    bool ok = lctx_file_read(path, LCTX_CASE_FILE_MAX, &text, &n, &eb) &&
              lctx_case_parse(text, n, path, &r->scratch, &eb);
    free(text);
    if (!ok) {
      fprintf(err, "lctx conform: %s\n", lctx_esc(&esc, e));
      return false;
    }
    offer(r, "cases", r->report->source_cases[0]++, &r->scratch);
  }
  return true;
}

static void run_random(run *r) {
  uint64_t state = r->o.seed;
  if (r->o.only.kind == LCTX_CONFORM_ONLY_RANDOM) {
    for (size_t i = 0; i < r->o.only.index; i++)
      lctx_domain_random_case_reuse(&state, &r->scratch);
    lctx_case *slot = &r->fill->cases[r->fill->count];
    lctx_domain_random_case_reuse(&state, slot);
    r->report->source_cases[2]++;
    offer(r, "random", r->o.only.index, slot);
    return;
  }
  for (size_t i = 0; i < r->o.random && !stopping(r); i++) {
    /* Drawn into the next batch slot (zero past its counts: calloc,
     * copy_used or an earlier draw), cleared by lctx_case_reset rather
     * than zeroed whole, and not copied again. */
    lctx_case *slot = &r->fill->cases[r->fill->count];
    lctx_domain_random_case_reuse(&state, slot);
    offer(r, "random", r->report->source_cases[2]++, slot);
  }
}

//===----------------------------------------------------------------------===//
// Reports
//===----------------------------------------------------------------------===//

/* The run as the reports write it (conform_report.h). */
static lctx_conform_doc run_doc(const run *r) {
  struct rusage usage;
  double peak = -1; /* ru_maxrss is in KB */
  if (getrusage(RUSAGE_SELF, &usage) == 0)
    peak = (double)usage.ru_maxrss / 1024.0;
  return (lctx_conform_doc){
      .report = r->report,
      .spec_file = r->spec.filename,
      .spec_version = r->spec.version,
      .jax_release = r->spec.selected_name,
      .lctx_version = LCTX_VERSION_STRING,
      .impl_name = r->info->name,
      .impl_version = r->info->version,
      .impl_kind = r->info->kind,
      .seed = r->o.seed,
      .shard_i = r->o.shard_i,
      .shard_n = r->o.shard_n,
      .xfail = r->xfail,
      .xfail_reason = r->xfail_reason,
      .modules_judged = r->modules_checked,
      .judge_kills = r->judge ? lctx_irjudge_kills(r->judge) : 0,
      .stopped_at_first_failure = r->o.first_failure && r->report->failed_once,
      .peak_memory_mb = peak};
}

/* Per row with failures that pass as another release behaves: how many,
 * and why (lctx_oracle_drift): "RG-001: 120 fail; passes as JAX <=0.10.2
 * behaves: fact client-gpu changed in 00b8c5dbf03c (0.11.0)". */
static void print_drift(const run *r) {
  const lctx_conform_report *rep = r->report;
  bool head = false;
  for (size_t i = 0; i < r->spec.row_count; i++) {
    const lctx_conform_row *s = &rep->rows[i];
    if (!s->drift_explained)
      continue;
    if (!head)
      fprintf(
          r->out, "behaviour of other JAX releases (judged as %s%s behaves):\n",
          r->spec.selected == r->spec.release_count ? "the modelled JAX commit "
                                                    : "JAX ",
          r->spec.selected == r->spec.release_count ? r->spec.jax_commit
                                                    : r->spec.selected_name);
    head = true;
    lctx_escaped esc;
    char some[64] = "";
    if (s->drift_explained < s->n[LCTX_CONFORM_FAIL])
      snprintf(some, sizeof some, "%zu of them ", s->drift_explained);
    fprintf(r->out, "%s: %zu fail; %s%s\n", s->id, s->n[LCTX_CONFORM_FAIL],
            some, lctx_esc(&esc, s->drift));
  }
}

/* The per-row table (only failing rows when quiet), each failing row's
 * first failure, and the first failure of the run. */
static void print_table(const run *r) {
  const lctx_conform_report *rep = r->report;
  lctx_escaped esc;
  FILE *out = r->out;
  bool any_failed = false;
  for (size_t i = 0; i < r->spec.row_count; i++)
    any_failed = any_failed || lctx_conform_row_failed(&rep->rows[i]);
  if (!r->o.quiet || any_failed) /* no header over an empty table */
    fprintf(out, "\n%-8s %9s %7s %6s %6s %6s %8s %12s %6s\n", "row", "pass",
            "fail", "xfail", "xpass", "crash", "timeout", "unsupported",
            "flaky");
  for (size_t i = 0; i < r->spec.row_count; i++) {
    const size_t *n = rep->rows[i].n;
    if (r->o.quiet && !lctx_conform_row_failed(&rep->rows[i]))
      continue;
    fprintf(out, "%-8s %9zu %7zu %6zu %6zu %6zu %8zu %12zu %6zu%s\n",
            r->spec.rows[i].id, n[LCTX_CONFORM_PASS], n[LCTX_CONFORM_FAIL],
            n[LCTX_CONFORM_XFAIL], n[LCTX_CONFORM_XPASS], n[LCTX_CONFORM_CRASH],
            n[LCTX_CONFORM_TIMEOUT], n[LCTX_CONFORM_UNSUPPORTED],
            n[LCTX_CONFORM_FLAKY],
            lctx_conform_row_failed(&rep->rows[i]) ? "  <--" : "");
  }
  for (size_t i = 0; i < r->spec.row_count; i++) {
    if (rep->rows[i].first[0] && lctx_conform_row_failed(&rep->rows[i]))
      fprintf(out, "%s: %s\n", r->spec.rows[i].id,
              lctx_esc(&esc, rep->rows[i].first));
    if (rep->rows[i].rerun[0] && lctx_conform_row_failed(&rep->rows[i]))
      fprintf(out, "  rerun: %s\n", lctx_esc(&esc, rep->rows[i].rerun));
  }
  print_drift(r);
  if (rep->failed_once)
    fprintf(out, "first failure: %s (%s) after %.3f s%s\n",
            r->spec.rows[rep->first_failure_row].id,
            VERDICT_NAMES[rep->first_failure_verdict],
            rep->first_failure_seconds,
            r->o.first_failure ? "; stopped there (--first-failure)" : "");
}

static void print_summary(const run *r, bool ok, bool reports, bool failed) {
  const lctx_conform_report *rep = r->report;
  lctx_escaped dir;
  const size_t *t = rep->totals;
  size_t dropped = 0;
  for (size_t i = 0; i < r->spec.row_count; i++)
    dropped += rep->rows[i].not_kept;
  char not_kept[160] = "";
  if (dropped)
    snprintf(not_kept, sizeof not_kept,
             " (%zu more verdicts counted, not kept: at most %zu per row, "
             "--keep-failures)",
             dropped, r->o.keep_failures);
  char jax[96];
  if (r->spec.selected == r->spec.release_count)
    snprintf(jax, sizeof jax, "the modelled JAX commit %.20s",
             r->spec.jax_commit);
  else
    snprintf(jax, sizeof jax, "JAX %s (%zu cases it cannot run)",
             r->spec.selected_name, rep->cases_absent);
  fprintf(r->out,
          "\nconform: %zu cases (%zu conformance, %zu domain, %zu random; "
          "%zu skipped by shard or --ops, %zu unsupported) as %s behaves, "
          "in %.1f s, %zu restarts, %zu recycled for memory\n"
          "operations: %zu pass, %zu fail, %zu xfail, %zu xpass, %zu crash, "
          "%zu timeout, %zu unsupported, %zu flaky%s\n"
          "%s%s%s%s\n"
          "result: %s\n",
          rep->cases_run, rep->source_cases[0], rep->source_cases[1],
          rep->source_cases[2], rep->cases_skipped, rep->cases_unsupported, jax,
          rep->seconds, rep->restarts, rep->recycles, t[LCTX_CONFORM_PASS],
          t[LCTX_CONFORM_FAIL], t[LCTX_CONFORM_XFAIL], t[LCTX_CONFORM_XPASS],
          t[LCTX_CONFORM_CRASH], t[LCTX_CONFORM_TIMEOUT],
          t[LCTX_CONFORM_UNSUPPORTED], t[LCTX_CONFORM_FLAKY],
          rep->spec_gaps ? " (and operations no spec row covers!)" : "",
          reports ? "reports: "
                  : "reports: none (the run stopped on bad input)",
          reports ? lctx_esc(&dir, r->o.report_dir) : "",
          reports ? "/report.tap, report.junit.xml, report.json, results.jsonl"
                  : "",
          not_kept,
          !ok                   ? "ERROR (bad input or a report not written, "
                                  "see above)"
          : rep->interrupted    ? "INTERRUPTED (reports hold what ran)"
          : failed              ? "FAIL"
          : rep->nothing_judged ? "NOTHING JUDGED (no operation was judged: "
                                  "no cases, or every one unsupported)"
                                : "PASS");
}

static void write_reports(run *r) {
  lctx_conform_doc doc = run_doc(r);
  if (!lctx_conform_write_reports(&doc, r->o.report_dir, "lctx conform",
                                  r->err))
    r->report->write_failed = true;
}

//===----------------------------------------------------------------------===//
// Setting up
//===----------------------------------------------------------------------===//

void lctx_conform_options_init(lctx_conform_options *o) {
  memset(o, 0, sizeof *o);
  o->spec_path = lctx_sys_default_spec_path();
  o->cases_dir = lctx_sys_default_cases_path();
  o->report_dir = "lctx-conform";
  o->exact = true;
  o->ops = (1u << LCTX_OP_KIND_COUNT) - 1;
  o->shard_i = o->shard_n = 1;
  o->seed = 1;
  o->random = 10000;
  o->domain = true;
  o->timeout = 5;
  o->memory_limit_mb = 1024;
  o->batch = MAX_BATCH;
  o->keep_failures = 100;
  o->handle_signals = true;
}

/* Reads line `number` of the xfail file (`line`, `n` bytes, no newline):
 * 'ROW-ID reason', a comment or blank; false (said on err) when bad. */
static bool xfail_line(run *r, const char *line, size_t n, int number,
                       FILE *err) {
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
    row = lctx_spec_find(&r->spec, id);
  }
  if (!row) {
    lctx_escaped file, row_id;
    char typed[LCTX_SPEC_MAX_ID + 8];
    snprintf(typed, sizeof typed, "%.*s", (int)(end - p), line + p);
    fprintf(err, "lctx conform: %s:%d:%zu: unknown spec row '%s'\n",
            lctx_esc(&file, r->o.xfail_path), number, p + 1,
            lctx_esc(&row_id, typed));
    return false;
  }
  size_t reason = end;
  while (reason < n && (line[reason] == ' ' || line[reason] == '\t'))
    reason++;
  size_t stop = n;
  while (stop > reason && (line[stop - 1] == '\r' || line[stop - 1] == ' '))
    stop--;
  if (reason == stop) {
    lctx_escaped file;
    fprintf(err, "lctx conform: %s:%d:%zu: row %s needs a reason\n",
            lctx_esc(&file, r->o.xfail_path), number, end + 1, id);
    return false;
  }
  size_t index = (size_t)(row - r->spec.rows);
  r->xfail[index] = true;
  snprintf(r->xfail_reason[index], sizeof r->xfail_reason[index], "%.*s",
           (int)(stop - reason), line + reason);
  return true;
}

/* Reads the expected failures: 'ROW-ID reason' a line. */
static bool load_xfail(run *r, FILE *err) {
  char e[1024];
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  char *text;
  size_t length;
  if (!lctx_file_read(r->o.xfail_path, 1u << 20, &text, &length, &eb)) {
    lctx_escaped esc;
    fprintf(err, "lctx conform: --xfail: %s\n", lctx_esc(&esc, e));
    return false;
  }
  bool ok = true;
  int number = 0;
  for (size_t at = 0; ok && at < length;) {
    const char *nl = memchr(text + at, '\n', length - at);
    size_t n = nl ? (size_t)(nl - (text + at)) : length - at;
    ok = xfail_line(r, text + at, n, ++number, err);
    at += n + 1;
  }
  free(text);
  return ok;
}

/* Options a caller could get wrong; the command line checks them first. */
static bool valid_options(const lctx_conform_options *o, FILE *err) {
  if (!o->impl_path == !o->command) {
    fprintf(err, "lctx conform: name exactly one implementation (a plugin or "
                 "a command)\n");
    return false;
  }
  if (o->batch == 0 || o->batch > MAX_BATCH || o->shard_n == 0 ||
      o->shard_i == 0 || o->shard_i > o->shard_n || !(o->timeout > 0)) {
    fprintf(err, "lctx conform: a batch, shard or timeout out of range\n");
    return false;
  }
  return true;
}

/* Loads the spec table and the expected failures, and fills the report's
 * rows. */
static bool load_spec(run *r, FILE *err) {
  if (!lctx_spec_load_or_report(r->o.spec_path, &r->spec, "lctx conform", err))
    return false;
  char e[512];
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  if (!lctx_spec_select(&r->spec, r->o.jax, &eb)) {
    lctx_escaped esc;
    fprintf(err, "lctx conform: --jax: %s\n", lctx_esc(&esc, e));
    return false;
  }
  /* The IR judge expects the modules the model builds at that release: a
   * release the table names but the model does not know cannot be judged
   * (rather than judged as the modelled commit). */
  r->model_release = lctx_release_find(r->spec.selected_name);
  if (!r->model_release) {
    lctx_escaped esc, file;
    fprintf(err,
            "lctx conform: --jax: the reference model does not know JAX "
            "release '%s' (the spec %s names it), so the modules cannot be "
            "judged as it behaves\n",
            lctx_esc(&esc, r->spec.selected_name),
            lctx_esc(&file, r->spec.filename));
    return false;
  }
  r->report->row_count = r->spec.row_count;
  for (size_t i = 0; i < r->spec.row_count; i++) {
    snprintf(r->report->rows[i].id, sizeof r->report->rows[i].id, "%s",
             r->spec.rows[i].id);
    r->report->rows[i].absent = r->spec.rows[i].absent;
  }
  for (unsigned k = 0; k < IR_ROWS; k++) {
    char id[8];
    snprintf(id, sizeof id, "IR-%03u", k);
    r->ir_rows[k] = find_row(r, id);
  }
  return !r->o.xfail_path || load_xfail(r, err);
}

/* Starts the implementation (a plugin's worker, or the program). */
static bool open_impl(run *r, FILE *err) {
  char e[1024];
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  char log[4200];
  snprintf(log, sizeof log, "%s/implementation.log", r->o.report_dir);
  lctx_impl_options io;
  lctx_impl_options_init(&io);
  io.timeout = r->o.timeout;
  io.log_path = log;
  io.memory_limit_mb = r->o.memory_limit_mb;
  r->impl = r->o.impl_path ? lctx_impl_open_plugin(r->o.impl_path, &io, &eb)
                           : lctx_impl_open_process(r->o.command, &io, &eb);
  if (!r->impl) {
    lctx_escaped which, why;
    fprintf(err, "lctx conform: %s: %s\n",
            lctx_esc(&which, r->o.impl_path ? r->o.impl_path : r->o.command),
            lctx_esc(&why, e));
    return false;
  }
  r->info = lctx_impl_get_info(r->impl);
  r->pack = r->o.impl_path && !r->o.first_failure;
  lctx_impl_set_process_per_case(r->impl, r->o.process_per_case);
  return true;
}

/* Takes REPORT_DIR/.lock for the run, naming it there; false (said on
 * err) when another run holds it. */
static bool lock_report_dir(run *r, FILE *err) {
  lctx_escaped dir, who;
  char holder[256] = "";
  bool busy;
  r->lock_fd = lctx_sys_lock_dir(r->o.report_dir, "lctx conform", &busy, holder,
                                 sizeof holder);
  if (r->lock_fd >= 0)
    return true;
  if (busy)
    fprintf(err,
            "lctx conform: --report-dir %s is in use by another run (%s); "
            "wait for it or choose another folder\n",
            lctx_esc(&dir, r->o.report_dir),
            holder[0] ? lctx_esc(&who, holder) : "unknown");
  else
    fprintf(err, "lctx conform: %s/.lock: %s\n",
            lctx_esc(&dir, r->o.report_dir), strerror(errno));
  return false;
}

/* Opens results.jsonl and writes its stamp line. */
static bool open_stream(run *r, FILE *err) {
  lctx_escaped esc;
  snprintf(r->stream_path, sizeof r->stream_path, "%s/results.jsonl",
           r->o.report_dir);
  r->stream = fopen(r->stream_path, "w");
  if (!r->stream) {
    fprintf(err, "lctx conform: %s: cannot write: %s\n",
            lctx_esc(&esc, r->stream_path), strerror(errno));
    return false;
  }
  lctx_conform_doc doc = run_doc(r);
  json_t *h = lctx_conform_json_stamp(&doc);
  json_object_set_new(h, "seed", json_integer((json_int_t)r->o.seed));
  char *t = json_dumps(h, JSON_COMPACT);
  if (t) {
    fprintf(r->stream, "%s\n", t);
    free(t);
  }
  json_decref(h);
  return true;
}

static bool set_up(run *r, FILE *err) {
  if (!load_spec(r, err))
    return false;
  if (strlen(r->o.report_dir) > 4000) {
    fprintf(err, "lctx conform: --report-dir: the path is longer than 4000 "
                 "bytes\n");
    return false;
  }
  if (!lctx_sys_mkdir_p(r->o.report_dir)) {
    lctx_escaped esc;
    fprintf(err, "lctx conform: --report-dir: %s: %s\n",
            lctx_esc(&esc, r->o.report_dir), strerror(errno));
    return false;
  }
  return lock_report_dir(r, err) && open_impl(r, err) && open_stream(r, err);
}

static void tear_down(run *r) {
  for (size_t k = 0; k < 3; k++) {
    for (size_t i = 0; i < MAX_BATCH; i++)
      lctx_case_result_release(&r->slots[k].results[i]);
    free(r->slots[k].packed);
  }
  if (r->stream)
    fclose(r->stream);
  lctx_impl_close(r->impl);
  if (r->lock_fd >= 0)
    close(r->lock_fd);
  lctx_irjudge_free(r->judge);
  lctx_dirlist_free(r->case_names);
}

//===----------------------------------------------------------------------===//
// The run
//===----------------------------------------------------------------------===//

/* Offers the cases of every source, then judges the last batch; false on
 * bad input. SIGINT and SIGTERM stop it early when the options say so. */
static bool run_sources(run *r, FILE *err) {
  lctx_sys_interrupts saved;
  if (r->o.handle_signals)
    lctx_sys_catch_interrupts(&saved);
  r->start = lctx_sys_now();
  r->progress = !r->o.quiet && isatty(fileno(err));
  if (r->progress)
    r->progress_total =
        r->o.random +
        (r->o.domain ? lctx_domain_enumerate(count_case, NULL) : 0);
  bool ok = run_case_files(r, err);
  lctx_conform_only_kind only = r->o.only.kind;
  if (ok && !stopping(r) &&
      (only == LCTX_CONFORM_ONLY_NONE ? r->o.domain
                                      : only == LCTX_CONFORM_ONLY_DOMAIN))
    lctx_domain_enumerate(domain_visit, r);
  if (ok && !stopping(r) &&
      (only == LCTX_CONFORM_ONLY_NONE || only == LCTX_CONFORM_ONLY_RANDOM))
    run_random(r);
  if (ok && only == LCTX_CONFORM_ONLY_DOMAIN &&
      r->report->source_cases[1] == 0) {
    fprintf(err, "lctx conform: --case domain:%zu: the domain has %zu cases\n",
            r->o.only.index, r->domain_seen);
    ok = false;
  }
  if (ok)
    flush_batch(r);
  settle_pending(r); /* run: judged even when a later step failed */
  show_progress(r, true);
  if (r->o.handle_signals)
    lctx_sys_release_interrupts(&saved);
  r->report->seconds = lctx_sys_now() - r->start;
  return ok;
}

/* Runs the cases, prints the table and the summary, writes the reports;
 * returns the exit code. */
static int judge_all(run *r, FILE *err) {
  lctx_conform_report *rep = r->report;
  lctx_conform_doc doc = run_doc(r);
  lctx_conform_stamp_text(&doc, r->out, "lctx conform: ");
  fflush(r->out);
  bool ok = run_sources(r, err);
  rep->restarts = lctx_impl_restarts(r->impl);
  rep->recycles = lctx_impl_recycles(r->impl);
  for (size_t i = 0; i < r->spec.row_count; i++)
    for (int v = 0; v < LCTX_CONFORM_VERDICT_COUNT; v++)
      rep->totals[v] += rep->rows[i].n[v];
  size_t judged = 0;
  for (int v = 0; v < LCTX_CONFORM_VERDICT_COUNT; v++)
    judged += v == LCTX_CONFORM_UNSUPPORTED ? 0 : rep->totals[v];
  rep->nothing_judged = judged == 0;
  print_table(r);
  if (r->stream && fclose(r->stream) != 0)
    write_failed(r, r->stream_path, errno);
  r->stream = NULL;
  if (ok) /* a run stopped on bad input has no report to give */
    write_reports(r);
  bool failed = lctx_conform_run_failed(rep);
  print_summary(r, ok && !rep->write_failed, ok, failed);
  if (!ok || rep->write_failed)
    return LCTX_EXIT_USAGE;
  return failed || rep->interrupted || rep->nothing_judged
             ? LCTX_EXIT_VIOLATIONS
             : LCTX_EXIT_OK;
}

int lctx_conform_run(const lctx_conform_options *options,
                     lctx_conform_report *report, FILE *out, FILE *err) {
  if (!valid_options(options, err))
    return LCTX_EXIT_USAGE;
  run *r = calloc(1, sizeof *r);
  if (!r) {
    fprintf(err, "lctx conform: cannot set up the run (%s)\n", strerror(errno));
    return LCTX_EXIT_USAGE;
  }
  r->begin = lctx_sys_now();
  r->lock_fd = -1;
  r->err = err;
  r->fill = r->at = &r->slots[0];
  r->o = *options;
  if (r->o.only.kind != LCTX_CONFORM_ONLY_NONE)
    r->o.shard_i = r->o.shard_n = 1; /* the one case, whatever the shard */
  r->out = out;
  r->report = report ? report : &r->own;
  memset(r->report, 0, sizeof *r->report);
  int code = set_up(r, err) ? judge_all(r, err) : LCTX_EXIT_USAGE;
  tear_down(r);
  free(r);
  return code;
}

bool lctx_conform_parse_only(const char *text, lctx_conform_only *only,
                             char *why, size_t why_size) {
  static const struct {
    const char *prefix;
    lctx_conform_only_kind kind;
  } KINDS[] = {{"domain:", LCTX_CONFORM_ONLY_DOMAIN},
               {"random:", LCTX_CONFORM_ONLY_RANDOM}};
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
    *only = (lctx_conform_only){KINDS[k].kind, NULL, (size_t)v};
    return true;
  }
  size_t n = strlen(text);
  if (n < 6 || strcmp(text + n - 5, ".case") != 0) {
    snprintf(why, why_size,
             "'%s' is not FILE.case, domain:INDEX or random:INDEX", text);
    return false;
  }
  *only = (lctx_conform_only){LCTX_CONFORM_ONLY_FILE, text, 0};
  return true;
}
