/*
 * conform.h - judging an implementation under test by the spec table, with
 * reports for people and machines (the library call behind `lctx conform`).
 *
 * Owns the run: which cases (the conformance cases, the exhaustive domain of
 * check-spec, N seeded random cases), sharding, operation filters, batches
 * in flight, the streamed results file, the report folder (its lock, and
 * which of its files stand together), the text it prints, and the counts
 * handed back to the caller as an lctx_report. The verdicts and
 * their counts are conform_verdict.h's, the report files and the text
 * table conform_report.h's. Running the implementation is impl.h's; judging
 * an outcome is the spec table's (spec.h, classify.h), never equality with
 * the reference. Reading a command line is the cli layer's.
 *
 * The report folder: a run removes the reports of an earlier run
 * (report.json, report.tap, report.junit.xml) before it opens results.jsonl,
 * and writes them only at its end, each whole (a temporary file renamed)
 * and report.json last, with the run id of results.jsonl's first line
 * ("run_id"). So a report.json always describes the results.jsonl beside
 * it: a run that is killed, stops on bad input or cannot write
 * results.jsonl whole leaves a results.jsonl and no report.json.
 */
#ifndef LCTX_HARNESS_CONFORM_H
#define LCTX_HARNESS_CONFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "verdict.h"
#include "spec.h"

/// The most cases per request or worker round.
#define LCTX_CONFORM_MAX_BATCH 256

/// The most jobs (`--jobs`).
#define LCTX_CONFORM_MAX_JOBS 64

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
  /// Instances of the implementation judging cases at once (1 to
  /// LCTX_CONFORM_MAX_JOBS; conform_jobs.h): the reports are those of one,
  /// apart from times. With `first_failure`, one.
  size_t jobs;
  bool quiet;         ///< the per-row table lists only failing rows
  bool first_failure; ///< stop after the batch of the first failure
  /// At most this many verdicts other than pass per row go to
  /// results.jsonl in full; the rest are counted (`not_kept`).
  size_t keep_failures;
  /// SIGINT and SIGTERM end the run early, with the reports of what ran
  /// (otherwise they keep their disposition).
  bool handle_signals;
  /// Only this case (--case), whatever the sources, shard and counts say.
  lctx_report_only only;
} lctx_conform_options;

/// Sets `lctx conform`'s defaults: the default spec and cases
/// (lctx_sys_default_*_path), reports in "lctx-conform", exact messages,
/// every operation, shard 1/1, seed 1, 10000 random cases, the domain, 5 s
/// per case, 1024 MB of memory, batches of LCTX_CONFORM_MAX_BATCH, one job,
/// signals handled; no implementation.
void lctx_conform_options_init(lctx_conform_options *options);

/// Judges the implementation `options` names: prints the stamp, the per-row
/// table and the summary to `out`, writes report.tap, report.junit.xml,
/// report.json and results.jsonl into the report directory (see the top of
/// this file), and fills `report` (may be NULL). What went wrong (bad
/// options or input, a file not written) is gathered in report->error and
/// printed to `err` in one place, a line each, never inside a line of
/// `out`; `err` also carries the live progress line on a terminal. A second
/// run on the same report directory at the same time is refused (the
/// directory's `.lock` names the run holding it). Returns LCTX_EXIT_OK when
/// every operation passed (or failed as expected), LCTX_EXIT_VIOLATIONS
/// when one did not, the run was interrupted or judged nothing,
/// LCTX_EXIT_USAGE for bad options or input (a path too long for its
/// buffer included), or a report that could not be written.
int lctx_conform_run(const lctx_conform_options *options, lctx_report *report,
                     FILE *out, FILE *err);

#endif /* LCTX_HARNESS_CONFORM_H */
