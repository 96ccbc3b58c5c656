/*
 * conform.h - judging an implementation under test by the spec table, with
 * reports for people and machines (the library call behind `lctx conform`).
 *
 * Owns the run: which cases (the conformance cases, the exhaustive domain of
 * check-spec, N seeded random cases), sharding, operation filters, expected
 * failures, the per-row verdicts (pass, fail, xfail, xpass, crash, timeout,
 * unsupported), the streamed results file, and the final reports: a table
 * per spec row, TAP, JUnit XML and JSON, each stamped with the spec version,
 * lctx's version, the implementation's name and version, and the seed; and
 * the same counts handed back to the caller as an lctx_conform_report.
 * Running the implementation is impl.h's; judging an outcome is the spec
 * table's (spec.h, classify.h), never equality with the reference. Reading
 * a command line is the cli layer's.
 */
#ifndef LCTX_HARNESS_CONFORM_H
#define LCTX_HARNESS_CONFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "spec.h"

/// The most cases per request or worker round.
#define LCTX_CONFORM_MAX_BATCH 256

/// What became of one operation.
typedef enum lctx_conform_verdict {
  LCTX_CONFORM_PASS = 0,
  LCTX_CONFORM_FAIL,
  LCTX_CONFORM_XFAIL,       ///< failed, as the xfail file expects
  LCTX_CONFORM_XPASS,       ///< passed, though the xfail file expects a failure
  LCTX_CONFORM_CRASH,       ///< the implementation died on its case
  LCTX_CONFORM_TIMEOUT,     ///< the implementation hung on its case
  LCTX_CONFORM_UNSUPPORTED, ///< the implementation lacks an operation
  /// Its worker or program died, hung or broke protocol on it after serving
  /// other cases, and run alone it passed: the accumulated state failed,
  /// not the case (the detail says after how many cases).
  LCTX_CONFORM_FLAKY,
  LCTX_CONFORM_VERDICT_COUNT
} lctx_conform_verdict;

/// The name of a verdict in every report: "pass", "fail", "xfail", "xpass",
/// "crash", "timeout", "unsupported", "flaky".
const char *lctx_conform_verdict_name(lctx_conform_verdict v);

/// The one case `lctx conform --case` runs: a conformance case file, or
/// the case at an index of the domain or of the random cases.
typedef enum lctx_conform_only_kind {
  LCTX_CONFORM_ONLY_NONE, ///< every case of every source (no --case)
  LCTX_CONFORM_ONLY_FILE,
  LCTX_CONFORM_ONLY_DOMAIN,
  LCTX_CONFORM_ONLY_RANDOM,
} lctx_conform_only_kind;

/// `--case FILE.case`, `--case domain:INDEX` or `--case random:INDEX`.
typedef struct lctx_conform_only {
  lctx_conform_only_kind kind;
  const char *path; ///< ONLY_FILE: the case file
  size_t index;     ///< ONLY_DOMAIN, ONLY_RANDOM: the 0-based index
} lctx_conform_only;

/// Reads a `--case` value into `*only` (`path` points into `text`): a
/// name ending in ".case", "domain:INDEX" or "random:INDEX" (INDEX digits
/// only); false with the reason in `why` otherwise.
bool lctx_conform_parse_only(const char *text, lctx_conform_only *only,
                             char *why, size_t why_size);

/// What to judge, and how (`lctx conform`'s options).
typedef struct lctx_conform_options {
  const char *impl_path; ///< a C plugin; exactly one of this and `command`
  const char *command;   ///< a program's command line (split, no shell)
  const char *spec_path; ///< the spec table
  /// The JAX release to judge as (a release the table names, or
  /// "modelled"; NULL: the modelled commit): the table's outcomes and facts
  /// at that release (lctx_spec_select). A case using an operation that
  /// release does not have is not run: its operations count unsupported.
  const char *jax;
  /// The conformance cases: a folder of *.case files, or one case file.
  const char *cases_dir;
  const char *xfail_path; ///< expected failures, 'ROW-ID reason' a line; NULL
  const char *report_dir; ///< where the reports go (created)
  bool exact;             ///< compare messages exactly, else classes only
  /// Only cases whose operations all have their bit (1 << lctx_op_kind).
  unsigned ops;
  unsigned shard_i, shard_n; ///< run the shard_i-th (1-based) of shard_n
  unsigned long long seed;   ///< seed of the random cases
  size_t random;             ///< how many random cases
  bool domain;               ///< run the exhaustive domain of check-spec
  double timeout;            ///< seconds per case (and per module judged)
  /// Resident memory limit of the implementation's worker or program and
  /// of the module judge, in MB (0: none).
  size_t memory_limit_mb;
  size_t batch;          ///< cases per request or worker round (1 to MAX_BATCH)
  bool process_per_case; ///< a fresh program for every case
  bool quiet;            ///< the per-row table lists only failing rows
  bool first_failure;    ///< stop after the batch of the first failure
  /// At most this many verdicts other than pass per row go to
  /// results.jsonl in full; the rest are counted (`not_kept`).
  size_t keep_failures;
  /// SIGINT and SIGTERM end the run early, with the reports of what ran
  /// (otherwise they keep their disposition).
  bool handle_signals;
  /// Only this case (--case), whatever the sources, shard and counts say.
  lctx_conform_only only;
} lctx_conform_options;

/// Sets `lctx conform`'s defaults: the default spec and cases
/// (lctx_sys_default_*_path), reports in "lctx-conform", exact messages,
/// every operation, shard 1/1, seed 1, 10000 random cases, the domain, 5 s
/// per case, 1024 MB of memory, batches of LCTX_CONFORM_MAX_BATCH, signals
/// handled; no implementation.
void lctx_conform_options_init(lctx_conform_options *options);

/// The verdicts under one spec row.
typedef struct lctx_conform_row {
  char id[LCTX_SPEC_MAX_ID];
  /// The row is absent at the judged release: it stands for operations
  /// that release does not have, which are never run (nor expected to be).
  bool absent;
  size_t n[LCTX_CONFORM_VERDICT_COUNT];
  /// The first verdict other than pass, as the reports write it:
  /// "case FILE.case, operation K: ..." for a conformance case, "domain
  /// case N, ..." or "random case N, ..." for the others; "" when none.
  char first[1024];
  /// The conformance case file `first` speaks of (SOURCE "cases"), or "".
  char first_case[256];
  /// The command line that runs exactly the case of `first` again (its
  /// file, or its domain or random index and seed), or "".
  char rerun[1536];
  /// Verdicts other than pass written to results.jsonl in full, and those
  /// beyond `keep_failures` that were only counted.
  size_t kept, not_kept;
  /// Failures that pass as another release the table names behaves
  /// (lctx_oracle_drift), and what the first of them says: "passes as JAX
  /// <=0.10.2 behaves: fact client-gpu changed in 00b8c5dbf03c (0.11.0)".
  size_t drift_explained;
  char drift[512];
} lctx_conform_row;

/// What a run found: the counts behind the text summary and the reports.
typedef struct lctx_conform_report {
  size_t row_count; ///< the spec table's rows, in its order
  lctx_conform_row rows[LCTX_SPEC_MAX_ROWS];
  size_t totals[LCTX_CONFORM_VERDICT_COUNT]; ///< over every row
  size_t spec_gaps;         ///< operations without exactly one row
  size_t cases_run;         ///< cases judged
  size_t cases_skipped;     ///< skipped by the shard or `ops`
  size_t cases_unsupported; ///< needing an operation the implementation lacks
  /// Of those, the cases using an operation the judged release does not
  /// have (an absent spec row): never offered to the implementation.
  size_t cases_absent;
  /// Cases offered per source: the conformance cases, the domain, random.
  size_t source_cases[3];
  size_t restarts; ///< of the worker or program
  size_t recycles; ///< of the worker or program, for memory
  double seconds;  ///< from the first case to the last
  bool interrupted;
  /// No operation was judged (every one unsupported, or no cases).
  bool nothing_judged;
  /// A report or results.jsonl could not be written (said on `err`).
  bool write_failed;
  /// A verdict failed (fail, xpass, crash, timeout or flaky); then the
  /// first one:
  /// its row (an index into `rows`), verdict, and the seconds from the start
  /// of lctx_conform_run.
  bool failed_once;
  size_t first_failure_row;
  lctx_conform_verdict first_failure_verdict;
  double first_failure_seconds;
} lctx_conform_report;

/// Judges the implementation `options` names: prints the stamp, the per-row
/// table and the summary to `out`, problems to `err`, writes report.tap,
/// report.junit.xml, report.json and results.jsonl into the report
/// directory, and fills `report` (may be NULL). A second run on the same
/// report directory at the same time is refused (the directory's `.lock`
/// names the run holding it). Returns LCTX_EXIT_OK when every operation
/// passed (or failed as expected), LCTX_EXIT_VIOLATIONS when one did not,
/// the run was interrupted or judged nothing, LCTX_EXIT_USAGE for bad
/// options or input, or a report that could not be written (a message on
/// `err`).
int lctx_conform_run(const lctx_conform_options *options,
                     lctx_conform_report *report, FILE *out, FILE *err);

#endif /* LCTX_HARNESS_CONFORM_H */
