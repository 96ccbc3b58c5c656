/*
 * conform.c - judging an implementation by the spec table (see conform.h).
 *
 * A run offers cases from three sources (the conformance case files, the
 * domain, random cases) to a batch; a full batch goes to the implementation
 * (impl.h), the modules a lower_per_platform returned to the MLIR judge
 * (irjudge.h), and every operation is judged into a verdict
 * (conform_verdict.h), counted per row in the lctx_report and
 * streamed to results.jsonl; the reports are written at the end
 * (conform_report.h). Problems are gathered in the report's `error` and
 * printed in one place, each on a line of its own. Setting the run up and
 * tearing it down is conform_setup.c's.
 */
#include "conform_private.h"
#include "report_print.h"
#include "report_write.h"
#include "verdict.h"
#include "guard.h" /* and peer.h */
#include "rerun_cmd.h"
#include "seal.h"
#include "sys.h"

#include "case_text.h"
#include "dirlist.h"
#include "domain.h"
#include "escape.h"
#include "exit.h"
#include "file.h"
#include "impl.h"
#include "irjudge.h"
#include "lctx/lctx.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

//===----------------------------------------------------------------------===//
// Problems
//===----------------------------------------------------------------------===//

/* Adds `lines` (one problem a line, each "lctx conform: ...") to
 * report->error; printed by show_errors. */
static void add_lines(run *r, const char *lines) {
  char *e = r->report->error;
  size_t cap = sizeof r->report->error, at = strlen(e);
  if (lines[0] && at + 2 < cap)
    snprintf(e + at, cap - at, "%s%s", at ? "\n" : "", lines);
}

/* Adds a problem: "lctx conform: " and the text. */
void lctx_conform_problem(run *r, const char *format, ...) {
  char line[2048] = "lctx conform: ";
  size_t at = strlen(line);
  va_list ap;
  va_start(ap, format);
  vsnprintf(line + at, sizeof line - at, format, ap);
  va_end(ap);
  add_lines(r, line);
}

/* Prints the problems not printed yet to err, each on its own line (the
 * progress line cleared, what went to `out` before them flushed). */
static void show_errors(run *r) {
  const char *e = r->report->error;
  size_t n = strlen(e);
  if (r->error_shown >= n)
    return;
  fflush(r->out);
  fprintf(r->err, "%s\n", e + r->error_shown + (r->error_shown > 0));
  fflush(r->err);
  r->error_shown = n;
}

/* A report file could not be written: said, and the run ends with
 * LCTX_EXIT_USAGE. */
void lctx_conform_write_failed(run *r, const char *path, int errnum) {
  r->report->write_failed = true;
  lctx_escaped esc;
  lctx_conform_problem(r, "%s: cannot write: %s", lctx_esc(&esc, path),
                       lctx_sys_file_error(errnum));
}

/* DIR/NAME of the report folder into `buf` (PATH_CAP bytes); false, said,
 * when it does not fit. */
bool lctx_conform_report_path(run *r, char *buf, const char *name) {
  if ((size_t)snprintf(buf, PATH_CAP, "%s/%s", r->o.report_dir, name) <
      PATH_CAP)
    return true;
  lctx_escaped esc;
  lctx_conform_problem(
      r, "--report-dir %s: the path of %s would be longer than %d bytes",
      lctx_esc(&esc, r->o.report_dir), name, PATH_CAP - 1);
  return false;
}

//===----------------------------------------------------------------------===//
// Judging a batch
//===----------------------------------------------------------------------===//

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
        s->jobs[n++] = (lctx_irjudge_job){c, i, res->mlir[i], NULL, 0};
      }
    }
  }
  s->job_count = n;
  return n;
}

/* The judge process (irjudge.h), started on first use; NULL without one. */
static lctx_irjudge *module_judge(run *r) {
  if (!r->judge)
    r->judge = lctx_irjudge_new(r->o.timeout, r->o.memory_limit_mb,
                                r->judge_log, r->model_release);
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
 * [from, to) of slot `s` that has one judged (or collects the verdicts of
 * start_modules), and counts the verdicts the judge gave. */
static void judge_modules(run *r, batch_slot *s, size_t from, size_t to) {
  bool started = s->ir_started && from == 0 && to == s->count;
  s->ir_started = false;
  size_t n = started ? s->job_count : gather_modules(s, from, to);
  if (n == 0)
    return;
  size_t unstarted = r->judge ? lctx_irjudge_unstarted(r->judge) : 0;
  if (module_judge(r))
    lctx_irjudge_run(r->judge, s->jobs, n, s->verdicts);
  for (size_t k = 0; k < n; k++) {
    if (!r->judge) {
      r->report->modules_unjudged +=
          s->verdicts[k].status == LCTX_IRJUDGE_JUDGED;
      s->verdicts[k].status = LCTX_IRJUDGE_NOT_JUDGED;
    }
    r->report->modules_judged +=
        s->verdicts[k].status != LCTX_IRJUDGE_NOT_JUDGED;
  }
  if (r->judge)
    r->report->modules_unjudged += lctx_irjudge_unstarted(r->judge) - unstarted;
}

/* Entry `b` of slot `s` as the verdicts read it. */
static void subject_of(const run *r, const batch_slot *s, size_t b,
                       lctx_report_subject *out) {
  bool file = strcmp(s->source[b], "cases") == 0 && s->index[b] < r->case_count;
  *out = (lctx_report_subject){s->ptrs[b],
                               &s->results[b],
                               s->source[b],
                               s->index[b],
                               file ? r->case_names[s->index[b]] : NULL,
                               {NULL}};
  for (size_t i = 0; i < LCTX_CASE_MAX_OPS; i++) {
    size_t k = s->job_of[b][i];
    out->module[i] = k == (size_t)-1 ? NULL : &s->verdicts[k];
  }
}

/* Flushes results.jsonl after a batch's lines; a failure is said, and
 * nothing more goes to it. */
static void flush_stream(run *r) {
  if (r->stream && (fflush(r->stream) != 0 || ferror(r->stream))) {
    lctx_conform_write_failed(r, r->stream_path,
                              *r->stream_error ? *r->stream_error : errno);
    r->stream_failed = true;
    fclose(r->stream); /* nothing more goes to a file that failed */
    r->stream = r->judge_v.stream = NULL;
  }
}

/* Judges cases [from, to) of slot `s`, whose results are in, and lets their
 * results go; results.jsonl is flushed once for them. With several jobs,
 * only the cases their job did not count (`counted`), the modules judged
 * there. */
static void judge_slot(run *r, batch_slot *s, size_t from, size_t to) {
  if (!r->jobs)
    judge_modules(r, s, from, to);
  for (size_t b = from; b < to; b++) {
    if (r->jobs && s->counted[b])
      continue;
    lctx_report_subject subject;
    subject_of(r, s, b, &subject);
    lctx_report_judge_case(&r->judge_v, &subject);
    lctx_case_result_release(&s->results[b]);
  }
  flush_stream(r);
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

static void take_back(run *r, int wait);

/* Judges every batch still in flight or ready, oldest first. */
static void settle_pending(run *r) {
  if (r->jobs) {
    take_back(r, 2);
    return;
  }
  batch_slot *p = collect_flight(r);
  judge_ready(r);
  if (p)
    judge_from(r, p, p->count);
}

/* Several jobs: judges the batches their jobs are through with, in the
 * order they were filled, and hands them back; waits for the oldest first
 * when `wait` is 1, for every one when it is 2. */
static void take_back(run *r, int wait) {
  for (batch_slot *s; (s = lctx_conform_jobs_next(r->jobs, wait > 0));) {
    judge_slot(r, s, 0, s->count);
    batch_done(r, s);
    lctx_conform_jobs_recycle(r->jobs, s);
    wait = wait == 2 ? 2 : 0;
  }
}

/* Several jobs: queues the batch being filled, judges what is back, and
 * takes the next batch to fill (waiting for the oldest to be back when
 * every batch is out). */
static void flush_jobs(run *r) {
  if (r->fill->count == 0)
    return;
  lctx_conform_jobs_submit(r->jobs, r->fill);
  r->fill = NULL;
  take_back(r, 0);
  while (!(r->fill = lctx_conform_jobs_fill(r->jobs)))
    take_back(r, 1);
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
  if (r->jobs) {
    flush_jobs(r);
    return;
  }
  if (f->count == 0)
    return;
  if (r->o.first_failure) {
    judge_from(r, f, lctx_impl_run(r->impl, f->ptrs, f->count, f->results));
    return;
  }
  batch_slot *p = collect_flight(r);
  lctx_impl_start(r->impl, f->ptrs, f->count, NULL);
  r->flight = f;
  judge_ready(r);
  if (p) {
    start_modules(r, p);
    r->ready = p;
  }
  for (size_t k = 0; k < 3; k++)
    if (&r->slots[k] != f && &r->slots[k] != p)
      r->fill = &r->slots[k];
}

/* Whether the run stops: interrupted, a file not written, or
 * `first_failure` and one failed. */
static bool stopping(const run *r) {
  return r->report->interrupted || r->report->write_failed ||
         (r->o.first_failure && r->report->failed_once);
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
  if (lctx_report_not_judged(&r->judge_v, c)) {
    if (r->report->cases_not_judged == 1) /* the case whose fact is named */
      r->report->not_judged_at = lctx_report_at_of(source, index, 0);
    return true;
  }
  bool absent = lctx_report_uses_absent(&r->judge_v, c);
  if ((needed & ~r->info->operations) || absent) {
    r->report->cases_unsupported++;
    r->report->cases_absent += absent;
    lctx_report_judge_unsupported(&r->judge_v, c);
    return true;
  }
  size_t b = r->fill->count++;
  if (c != &r->fill->cases[b]) /* run_random draws into the slot itself */
    lctx_conform_batch_copy(&r->fill->cases[b], c);
  r->fill->ptrs[b] = &r->fill->cases[b];
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
  if (r->o.only.kind == LCTX_REPORT_ONLY_DOMAIN) {
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
      r->o.only.kind == LCTX_REPORT_ONLY_FILE ? r->o.only.path : NULL;
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
 * false on a folder that cannot be listed or a bad file (a problem). */
static bool run_case_files(run *r) {
  char e[1024];
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  lctx_escaped esc;
  if (r->o.only.kind == LCTX_REPORT_ONLY_DOMAIN ||
      r->o.only.kind == LCTX_REPORT_ONLY_RANDOM)
    return true;
  r->case_names = list_case_files(r, &r->case_count, &eb);
  if (!r->case_names) {
    lctx_conform_problem(r, "--cases: %s", lctx_esc(&esc, e));
    return false;
  }
  r->progress_total += r->case_count;
  for (size_t i = 0; i < r->case_count; i++) {
    const char *path = r->case_names[i];
    lctx_buf_init(&eb, e, sizeof e);
    char *text;
    size_t n;
    bool ok = lctx_file_read(path, LCTX_CASE_FILE_MAX, &text, &n, &eb) &&
              lctx_case_parse(text, n, path, &r->scratch, NULL, &eb);
    free(text);
    if (!ok) {
      lctx_conform_problem(r, "%s", lctx_esc(&esc, e));
      return false;
    }
    offer(r, "cases", r->report->source_cases[0]++, &r->scratch);
  }
  return true;
}

static void run_random(run *r) {
  uint64_t state = r->o.seed;
  if (r->o.only.kind == LCTX_REPORT_ONLY_RANDOM) {
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
     * lctx_conform_batch_copy or an earlier draw), cleared by lctx_case_reset
     * rather than zeroed whole, and not copied again. */
    lctx_case *slot = &r->fill->cases[r->fill->count];
    lctx_domain_random_case_reuse(&state, slot);
    offer(r, "random", r->report->source_cases[2]++, slot);
  }
}

//===----------------------------------------------------------------------===//
// Reports
//===----------------------------------------------------------------------===//

/* The run as the reports write it (conform_report.h). */
lctx_report_doc lctx_conform_run_doc(const run *r) {
  struct rusage usage;
  double peak = -1; /* ru_maxrss is in KB */
  if (getrusage(RUSAGE_SELF, &usage) == 0)
    peak = (double)usage.ru_maxrss / 1024.0;
  return (lctx_report_doc){
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
      .xfail = r->xfail.row,
      .xfail_reason = r->xfail.reason,
      .modules_judged = r->report->modules_judged,
      .judge_kills = r->judge ? lctx_irjudge_kills(r->judge) : r->judge_kills,
      .run_id = r->run_id,
      .left_behind_killed = lctx_peer_swept_total(),
      .stops_continued = lctx_guard_continued_total(),
      .isolation = lctx_peer_isolation(),
      .logs_capped = lctx_peer_logs_capped(),
      .stop_signal = r->report->interrupted ? lctx_sys_interrupt_signal() : 0,
      .results_checked = r->results_checked,
      .per_row_cap = true,
      .keep_failures = r->o.keep_failures,
      .stopped_at_first_failure = r->o.first_failure && r->report->failed_once,
      .peak_memory_mb = peak};
}

/* Closes results.jsonl and, when the run ran to its end (`ok`) and every
 * line of results.jsonl is out, writes the reports, report.json last:
 * false when a file could not be written (a problem). */
static bool finish_files(run *r, bool ok) {
  char altered[512]; /* results.jsonl not as lctx wrote it: no verdict */
  flush_stream(r);
  r->results_checked =
      r->stream && lctx_seal_check(r->sealed, altered, sizeof altered);
  if (r->stream && !r->results_checked) {
    lctx_conform_problem(r, "%s; the run's verdict is not given", altered);
    r->stream_failed = r->report->write_failed = true;
  }
  if (r->stream && fclose(r->stream) != 0) {
    lctx_conform_write_failed(r, r->stream_path, errno);
    r->stream_failed = true;
  }
  r->stream = r->judge_v.stream = NULL;
  if (!ok || r->stream_failed)
    return false; /* no report.json for a results.jsonl cut short */
  lctx_report_doc doc = lctx_conform_run_doc(r);
  char why[2048] = "";
  if (lctx_report_save_reports(&doc, r->o.report_dir, "lctx conform", why,
                               sizeof why))
    return true;
  r->report->write_failed = true;
  add_lines(r, why);
  return false;
}

/* Prints the table and the summary; `written`: the reports are. */
static void print_text(run *r, bool ok, bool written) {
  char as[160];
  bool modelled = lctx_spec_selected_modelled(&r->spec);
  if (modelled)
    snprintf(as, sizeof as, "the modelled JAX commit %.20s",
             r->spec.jax_commit);
  else
    snprintf(as, sizeof as, "JAX %.100s", r->spec.selected_name);
  lctx_report_text t = {.quiet = r->o.quiet,
                        .first_failure = r->o.first_failure,
                        .keep_failures = r->o.keep_failures,
                        .judged_as = as,
                        .modelled = modelled,
                        .report_dir = written ? r->o.report_dir : NULL,
                        .bad_input = !ok};
  lctx_report_doc doc = lctx_conform_run_doc(r);
  lctx_report_print_table(&doc, &t, r->out);
  show_errors(r); /* what went wrong, above the summary that says so */
  lctx_report_print_summary(&doc, &t, ok && written, r->out);
}

//===----------------------------------------------------------------------===//
// The run
//===----------------------------------------------------------------------===//

/* Offers the cases of every source, then judges the last batch; false on
 * bad input. A signal stops it early when the options say so
 * (lctx_conform_run). */
static bool run_sources(run *r) {
  r->start = r->judge_v.start = lctx_sys_now();
  r->progress = !r->o.quiet && isatty(fileno(r->err));
  if (r->progress)
    r->progress_total =
        r->o.random +
        (r->o.domain ? lctx_domain_enumerate(count_case, NULL) : 0);
  bool ok = run_case_files(r);
  lctx_report_only_kind only = r->o.only.kind;
  if (ok && !stopping(r) &&
      (only == LCTX_REPORT_ONLY_NONE ? r->o.domain
                                     : only == LCTX_REPORT_ONLY_DOMAIN))
    lctx_domain_enumerate(domain_visit, r);
  if (ok && !stopping(r) &&
      (only == LCTX_REPORT_ONLY_NONE || only == LCTX_REPORT_ONLY_RANDOM))
    run_random(r);
  if (ok && only == LCTX_REPORT_ONLY_DOMAIN &&
      r->report->source_cases[1] == 0) {
    lctx_conform_problem(r, "--case domain:%zu: the domain has %zu cases",
                         r->o.only.index, r->domain_seen);
    ok = false;
  }
  if (ok)
    flush_batch(r);
  settle_pending(r); /* run: judged even when a later step failed */
  show_progress(r, true);
  r->report->seconds = lctx_sys_now() - r->start;
  return ok;
}

/* Runs the cases, writes the reports, prints the table and the summary;
 * returns the exit code. */
static int judge_all(run *r) {
  lctx_report *rep = r->report;
  lctx_report_doc doc = lctx_conform_run_doc(r);
  lctx_report_stamp_text(&doc, r->out, "lctx conform: ");
  fflush(r->out);
  bool ok = run_sources(r);
  if (r->jobs) {
    r->judge_kills = lctx_conform_jobs_merge(r->jobs, rep);
  } else {
    rep->restarts = lctx_impl_restarts(r->impl);
    rep->recycles = lctx_impl_recycles(r->impl);
  }
  lctx_report_report_sum(rep);
  /* The implementation's processes end before results.jsonl is checked:
   * nothing it started writes after the check. */
  r->info_kept = *r->info;
  r->info = &r->info_kept;
  lctx_conform_jobs_free(r->jobs);
  lctx_impl_close(r->impl);
  r->jobs = NULL;
  r->impl = NULL;
  lctx_peer_sweep(); /* what the children left, counted in the reports */
  if (lctx_peer_logs_capped() > 0)
    lctx_report_cap_hit(rep, "implementation.log", LCTX_PEER_LOG_CAP,
                        lctx_peer_logs_capped());
  bool written = finish_files(r, ok);
  print_text(r, ok, written);
  if (!ok || rep->write_failed)
    return LCTX_EXIT_USAGE;
  return lctx_report_run_failed(rep) || rep->interrupted ||
                 rep->nothing_judged || rep->modules_unjudged > 0
             ? LCTX_EXIT_VIOLATIONS
             : LCTX_EXIT_OK;
}

int lctx_conform_run(const lctx_conform_options *options, lctx_report *report,
                     FILE *out, FILE *err) {
  run *r = calloc(1, sizeof *r);
  if (!r) {
    fprintf(err, "lctx conform: cannot set up the run (%s)\n", strerror(errno));
    return LCTX_EXIT_USAGE;
  }
  r->begin = lctx_sys_now();
  r->lock_fd = -1;
  r->err = err;
  r->fill = &r->slots[0];
  r->o = *options;
  if (r->o.only.kind != LCTX_REPORT_ONLY_NONE)
    r->o.shard_i = r->o.shard_n = 1; /* the one case, whatever the shard */
  r->out = out;
  r->report = report ? report : &r->own;
  memset(r->report, 0, sizeof *r->report);
  /* Signals: a clean stop (sys.h); the guard (guard.h) spans the run. */
  lctx_sys_interrupts saved;
  lctx_guard guard;
  if (r->o.handle_signals) {
    lctx_sys_catch_interrupts(&saved);
    (void)lctx_guard_start(&guard, &(lctx_guard_spec){0});
  }
  int code = lctx_conform_set_up(r) ? judge_all(r) : LCTX_EXIT_USAGE;
  lctx_conform_tear_down(r);
  lctx_peer_unprotect();
  if (r->o.handle_signals) {
    lctx_guard_end(&guard);
    lctx_sys_release_interrupts(&saved);
  }
  show_errors(r);
  free(r);
  return code;
}
