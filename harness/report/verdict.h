/*
 * verdict.h - the report layer's model: the verdicts of a run, what
 * became of one operation, their counts per spec row (lctx_report), the
 * result of a run, and judging one case's operations into them.
 *
 * The report layer (report/: verdict, report_read, report_write,
 * report_text, report_merge, report_html*, rerun_cmd, seal) holds one
 * model of verdicts and counts, written (report_write.h) and read back and
 * checked (report_read.h) once, used by conform, sweep, campaigns, merge,
 * html and the matrix.
 *
 * Error convention of the layer: a function that can fail returns bool
 * (false on failure) or a pointer (NULL on failure) and, when the caller
 * needs the reason, takes `lctx_buf *error` last and writes there one line
 * naming the file, line and column or the field, without a "lctx: "
 * prefix (report_text.h's lctx_report_say); it never prints. errno is
 * read only in process/sys.c. Only cli/ prints errors and picks exit
 * codes; what a report says of itself (a summary, a table, a page) goes
 * to the `FILE *out` its caller gives.
 *
 * Owns the verdict names and rules (when a row, when a run failed, the
 * result line: INTERRUPTED, FAIL, INCOMPLETE, NOTHING JUDGED or PASS), the
 * expected failures ('ROW-ID reason' a line), and the judgement of one
 * answered case: the row of each operation by the spec table (classify.h,
 * oracle.h, never equality with the reference), the module of a
 * lower_per_platform operation by the IR rows (the MLIR judge's verdict,
 * irjudge.h), the drift to other releases, the first verdict per row with
 * its rerun line, its explain line and a fail's expected and actual texts
 * with their first difference marked (textdiff.h), and the line each
 * verdict other than pass adds to
 * results.jsonl; and a case's name as `--case` reads it (written in
 * results.jsonl and the rerun lines, read back by lctx_report_parse_only).
 * Choosing and running cases is the commands'; the report files are
 * report_write.c's and report_read.c's.
 */
#ifndef LCTX_HARNESS_VERDICT_H
#define LCTX_HARNESS_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "classify.h"
#include "impl.h"
#include "irexpect.h"
#include "irjudge.h"
#include "oracle.h"
#include "spec.h"

/// What became of one operation.
typedef enum lctx_verdict {
  LCTX_VERDICT_PASS = 0,
  LCTX_VERDICT_FAIL,
  LCTX_VERDICT_XFAIL,       ///< failed, as the xfail file expects
  LCTX_VERDICT_XPASS,       ///< passed, though the xfail file expects a failure
  LCTX_VERDICT_CRASH,       ///< the implementation died on its case
  LCTX_VERDICT_TIMEOUT,     ///< the implementation hung on its case
  LCTX_VERDICT_UNSUPPORTED, ///< the implementation lacks an operation
  /// Its worker or program died, hung or broke protocol on it after serving
  /// other cases, and run alone it passed: the accumulated state failed,
  /// not the case (the detail says after how many cases).
  LCTX_VERDICT_FLAKY,
  LCTX_VERDICT_COUNT
} lctx_verdict;

/// The name of a verdict in every report: "pass", "fail", "xfail", "xpass",
/// "crash", "timeout", "unsupported", "flaky".
const char *lctx_verdict_name(lctx_verdict v);

/// Where a verdict stands in its run's plan, so that the reports of a
/// run's shards merge to the unsharded run's: its source (0 the
/// conformance cases, 1 the domain, 2 random; a sweep's 0), its case's
/// index there (a sweep's: its plan case) and its operation (a sweep's:
/// its verdict's place in the case). `known` false: not recorded.
typedef struct lctx_report_at {
  bool known;
  unsigned source;
  size_t index, op;
} lctx_report_at;

/// The verdicts under one spec row.
typedef struct lctx_report_row {
  char id[LCTX_SPEC_MAX_ID];
  /// The row is absent at the judged release: it stands for operations
  /// that release does not have, which are never run (nor expected to be).
  bool absent;
  size_t n[LCTX_VERDICT_COUNT];
  /// The first verdict other than pass, as the reports write it:
  /// "case FILE.case, operation K: ..." for a conformance case, "domain
  /// case N, ..." or "random case N, ..." for the others; "" when none.
  char first[1024];
  /// The conformance case file `first` speaks of (SOURCE "cases"), or "".
  char first_case[256];
  /// The command line that runs exactly the case of `first` again (its
  /// file, or its domain or random index and seed), or "".
  char rerun[2560];
  /// How much of `first` names the case and the operation ("case
  /// FILE.case, operation K"), for the text that shows `first_diff` in its
  /// place.
  size_t first_head;
  /// When `first` is a fail or an xfail: its expected and actual texts one
  /// above the other, the first differing byte marked (textdiff.h), built
  /// for lctx_escape_built_lines; "" otherwise, and in a report read back.
  char first_diff[1536];
  /// The command line that shows how the reference model runs the case of
  /// `first`, operation by operation with the registry's trace and the rows
  /// that apply (`lctx explain`, through `lctx case export` for a domain or
  /// random case), or "".
  char explain[2560];
  /// Verdicts other than pass written to results.jsonl in full, and those
  /// beyond `keep_failures` that were only counted.
  size_t kept, not_kept;
  /// Failures that pass as another release the table names behaves
  /// (lctx_oracle_drift), and what the first of them says: "passes as JAX
  /// <=0.10.2 behaves: fact client-gpu changed in 00b8c5dbf03c (0.11.0)".
  size_t drift_explained;
  char drift[512];
  /// Failures that pass at no release the table names (new at the judged
  /// release, lctx_oracle_drift_new), and what the first says.
  size_t drift_new;
  char drift_new_text[512];
  /// Operations not judged at the judged release: their case depends on a
  /// fact the table says was not read there (lctx_spec_depends_unread).
  size_t not_judged;
  /// Where `first`, `drift` and `drift_new_text` come from in the plan.
  lctx_report_at first_at, drift_at, drift_new_at;
} lctx_report_row;

/// The most caps a run reports hit (report.json's "caps_hit").
#define LCTX_REPORT_CAPS_MAX 8

/// A cap the run hit: what it bounds ("findings kept"), the cap, and how
/// many went beyond it (counted, not kept).
typedef struct lctx_report_cap {
  char what[64];
  size_t cap, dropped;
} lctx_report_cap;

/// What a run found: the counts behind the text summary and the reports.
typedef struct lctx_report {
  size_t row_count; ///< the spec table's rows, in its order
  lctx_report_row rows[LCTX_SPEC_MAX_ROWS];
  size_t totals[LCTX_VERDICT_COUNT]; ///< over every row
  size_t spec_gaps;                  ///< operations without exactly one row
  size_t cases_run;                  ///< cases judged
  size_t cases_skipped;              ///< skipped by the shard or `ops`
  size_t cases_unsupported; ///< needing an operation the implementation lacks
  /// Of those, the cases using an operation the judged release does not
  /// have (an absent spec row): never offered to the implementation.
  size_t cases_absent;
  /// Cases not judged at the judged release: their outcome depends on a
  /// fact not read there (never offered to the implementation, never
  /// guessed); the first such fact and why it was not read.
  size_t cases_not_judged;
  char not_judged_fact[32];
  char not_judged_why[200];
  /// Cases offered per source: the conformance cases, the domain, random.
  size_t source_cases[3];
  size_t restarts; ///< of the worker or program
  size_t recycles; ///< of the worker or program, for memory
  /// Modules of lower_per_platform operations the MLIR judge gave a
  /// verdict on (judged, refused or killing it); a module it could not
  /// judge (no judge process, no reference expectations) is not counted.
  size_t modules_judged;
  /// Modules no judge could judge because the MLIR judge could not start:
  /// a run with any is not a pass.
  size_t modules_unjudged;
  double seconds; ///< from the first case to the last
  bool interrupted;
  /// No operation was judged (every one unsupported, or no cases).
  bool nothing_judged;
  /// A report or results.jsonl could not be written (said in `error`).
  bool write_failed;
  /// A verdict failed (fail, xpass, crash, timeout or flaky); then the
  /// first one:
  /// its row (an index into `rows`), verdict, and the seconds from the start
  /// of lctx_conform_run.
  bool failed_once;
  size_t first_failure_row;
  lctx_verdict first_failure_verdict;
  double first_failure_seconds;
  /// Where the first failure and the first case not judged (whose fact
  /// and why `not_judged_fact` and `not_judged_why` say) are in the plan.
  lctx_report_at first_failure_at, not_judged_at;
  /// The caps hit (each printed when hit), in the order they were.
  size_t caps_hit_count;
  lctx_report_cap caps_hit[LCTX_REPORT_CAPS_MAX];
  /// What went wrong (bad input, a file not written), one problem a line,
  /// each "lctx conform: ..."; "" when nothing did.
  char error[4096];
} lctx_report;

/// Records that the cap `cap` on `what` was hit, `dropped` more beyond it
/// (added to an earlier record of the same `what`).
void lctx_report_cap_hit(lctx_report *report, const char *what, size_t cap,
                         size_t dropped);

/// Whether a row failed: a fail, xpass, crash, timeout or flaky verdict.
bool lctx_report_row_failed(const lctx_report_row *row);

/// The place in the plan of operation `op` of case `index` of `source`
/// ("cases", "domain" or "random", as results.jsonl names them; any other
/// name, a sweep's included, is source 0).
lctx_report_at lctx_report_at_of(const char *source, size_t index, size_t op);

/// Whether `a` comes before `b` in the plan (a place not known comes after
/// every known one).
bool lctx_report_at_before(lctx_report_at a, lctx_report_at b);

/// The cases of a run's sources: the sum of `source_cases`, or, when none
/// is recorded (a merge of reports without them), the cases run, skipped
/// and unsupported. Every one of them is exactly one of: run (judged),
/// skipped by the shard or `ops`, unsupported, or not reached (the run
/// stopped before offering it: interrupted, --first-failure).
size_t lctx_report_cases_total(const lctx_report *report);

/// The cases of the sources the run did not reach: the total less the
/// cases run, skipped and unsupported.
size_t lctx_report_cases_not_reached(const lctx_report *report);

/// What a run came to, as its `result:` line and report.json's "result"
/// say it; the first that holds, in this order: interrupted, failed
/// (lctx_report_run_failed), modules no judge judged, nothing judged, pass.
typedef enum lctx_report_result {
  LCTX_RESULT_PASS = 0,
  LCTX_RESULT_INTERRUPTED,
  LCTX_RESULT_FAIL,
  LCTX_RESULT_INCOMPLETE,
  LCTX_RESULT_NOTHING_JUDGED,
} lctx_report_result;

/// The result of `report`, its totals summed (lctx_report_report_sum).
lctx_report_result lctx_report_result_of(const lctx_report *report);

/// "PASS", "INTERRUPTED", "FAIL", "INCOMPLETE" or "NOTHING JUDGED".
const char *lctx_report_result_name(lctx_report_result result);

/// Sums the rows' counts into `totals` and sets `nothing_judged` (no
/// verdict but unsupported).
void lctx_report_report_sum(lctx_report *report);

/// Whether a run failed, by the counts (`totals` and `spec_gaps`): a fail,
/// xpass, crash, timeout or flaky verdict, or an operation no row covers.
bool lctx_report_run_failed(const lctx_report *report);

/// The longest reason of an expected failure kept, with its NUL.
#define LCTX_REPORT_REASON_MAX 160

/// The expected failures: per spec row, whether one is expected and why.
typedef struct lctx_report_xfail {
  bool row[LCTX_SPEC_MAX_ROWS];
  char reason[LCTX_SPEC_MAX_ROWS][LCTX_REPORT_REASON_MAX];
} lctx_report_xfail;

/// Reads the expected failures of `path` ('ROW-ID reason' a line, '#'
/// comments and blank lines allowed) against `spec` into `*x` (cleared
/// first). False, with "PATH:LINE:COLUMN: what" or why the file cannot be
/// read in `why`, on a bad file.
bool lctx_report_xfail_load(const lctx_spec *spec, const char *path,
                            lctx_report_xfail *x, char *why, size_t why_n);

/// The one case `lctx conform --case` runs: a conformance case file, or
/// the case at an index of the domain or of the random cases.
typedef enum lctx_report_only_kind {
  LCTX_REPORT_ONLY_NONE, ///< every case of every source (no --case)
  LCTX_REPORT_ONLY_FILE,
  LCTX_REPORT_ONLY_DOMAIN,
  LCTX_REPORT_ONLY_RANDOM,
} lctx_report_only_kind;

/// `--case FILE.case`, `--case domain:INDEX` or `--case random:INDEX`.
typedef struct lctx_report_only {
  lctx_report_only_kind kind;
  const char *path; ///< ONLY_FILE: the case file
  size_t index;     ///< ONLY_DOMAIN, ONLY_RANDOM: the 0-based index
} lctx_report_only;

/// Reads a `--case` value into `*only` (`path` points into `text`): a
/// name ending in ".case", "domain:INDEX" or "random:INDEX" (INDEX digits
/// only); false with the reason in `why` otherwise.
bool lctx_report_parse_only(const char *text, lctx_report_only *only, char *why,
                            size_t why_size);

/// The judge of verdicts: what judging needs, set by the caller (every
/// field above `expected`), and its scratch. Large: keep it on the heap.
typedef struct lctx_report_judge {
  const lctx_spec *spec;
  const lctx_report_xfail *xfail;
  bool exact;           ///< messages compared exactly, else classes only
  size_t keep_failures; ///< verdicts other than pass kept in full per row
  lctx_report *report;
  FILE *stream; ///< results.jsonl, or NULL: counted, not written
  double start; ///< when the cases started (lctx_sys_now)
  /// The rerun line of a failure: `rerun_head` (the command and the
  /// options that change a verdict), `--seed=SEED` for a random case,
  /// `--case NAME`, then `rerun_tail` (lctx_report_judge_rerun).
  char rerun_head[6144], rerun_tail[8448];
  /// The parts of the explain lines (lctx_report_row's `explain`), set by
  /// lctx_report_judge_rerun: `lctx explain [--spec SPEC]` for a case file;
  /// `lctx case export` and `| lctx explain [--spec SPEC] -` around a domain
  /// or random case's name; "" when they do not fit.
  char explain_head[4096], export_head[4096], explain_pipe[4096];
  unsigned long long seed;
  /// The rows IR-000 .. IR-006, or -1; set by lctx_report_judge_init.
  size_t ir_rows[7];
  /* Scratch. */
  char expected[4 * (LCTX_OUTCOME_TEXT_MAX + 32)];
  char actual[LCTX_OUTCOME_TEXT_MAX + 64];
  char why[LCTX_IR_MESSAGE_MAX + 128];
  char drift[512];
  lctx_outcome outcome; /* the result's outcome under judgement */
  lctx_features features, drift_features;
  lctx_oracle_match matches[LCTX_ORACLE_MATCH_SLOTS];
  /* lctx_report_judge_case_if_pass: judging without counting, and which
   * operations have a module that passed. */
  bool dry;
  bool dry_ir[LCTX_CASE_MAX_OPS];
} lctx_report_judge;

/// Sets the IR rows of `j->spec` and clears the scratch.
void lctx_report_judge_init(lctx_report_judge *j);

/// Sets the parts of the rerun lines: PROGRAM (the running lctx,
/// rerun_cmd.h) and `conform`, then FLAG (--impl or --cmd) and IMPL,
/// `--spec SPEC` unless NULL, `--xfail XFAIL` unless NULL,
/// `--messages=class` unless `exact`, `--jax JAX` unless NULL; after the
/// case, `--report-dir RERUN_DIR`; each a shell word. False when they do
/// not fit (a rerun line is never cut). Sets the parts of the explain lines
/// too (PROGRAM, SPEC), left empty when they do not fit.
bool lctx_report_judge_rerun(lctx_report_judge *j, const char *program,
                             const char *flag, const char *impl,
                             const char *spec, const char *xfail,
                             const char *jax, const char *rerun_dir);

/// One answered case: where it comes from and what became of it.
typedef struct lctx_report_subject {
  const lctx_case *c;
  const lctx_case_result *res;
  const char *source; ///< "cases", "domain" or "random"
  size_t index;       ///< its index in that source
  const char *file;   ///< source "cases": the case file ("DIR/NAME"); NULL
  /// Per operation: the MLIR judge's verdict on its module, or NULL when
  /// it has none.
  const lctx_irjudge_verdict *module[LCTX_CASE_MAX_OPS];
} lctx_report_subject;

/// Judges every operation of `s` and counts the verdicts in j->report
/// (spec gaps included); notes each row's first verdict other than pass
/// and the run's first failure, and writes what did not pass to j->stream
/// (at most keep_failures per row).
void lctx_report_judge_case(lctx_report_judge *j, const lctx_report_subject *s);

/// Judges every operation of `s` as lctx_report_judge_case does, but
/// counts them (in j->report's rows, never in its stream, first verdicts or
/// first failure) only when every one passes: true then. False, nothing
/// counted, when one does not pass or no single row covers it; the caller
/// then judges the case with lctx_report_judge_case, in its order (the
/// jobs of a run judge what passes in parallel, and the run the rest).
bool lctx_report_judge_case_if_pass(lctx_report_judge *j,
                                    const lctx_report_subject *s);

/// Counts every operation of a case the implementation does not support
/// under its row (unsupported).
void lctx_report_judge_unsupported(lctx_report_judge *j, const lctx_case *c);

/// Whether case `c` uses an operation the judged release does not have.
/// Whether case `c` depends on a fact not read at the judged release
/// (lctx_spec_depends_unread); if so counts it and its operations as not
/// judged, under the rows they match.
bool lctx_report_not_judged(lctx_report_judge *j, const lctx_case *c);

bool lctx_report_uses_absent(lctx_report_judge *j, const lctx_case *c);

#endif /* LCTX_HARNESS_VERDICT_H */
