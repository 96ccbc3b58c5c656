/*
 * report_merge.h - one set of reports from the report folders of sharded
 * conform or sweep runs, or of several runs of one implementation (the
 * library call behind `lctx report merge`).
 *
 * Owns checking that the folders belong together (shards: the same spec
 * version, JAX release, lctx version, implementation, seed and shard
 * count, each shard once, none missing, the same cases offered; runs: the
 * same spec version, JAX release, lctx version and implementation),
 * summing their counts per row, and writing the merged report.tap,
 * report.junit.xml, report.json (report_write.h, the writers conform uses)
 * and results.jsonl (report_merge_results.h). Each report.json is read by
 * report_read.h. The result is recomputed from the summed counts by the
 * model's rule (lctx_report_result_of). Shards merge to the unsharded run:
 * each row's first failure and drift texts, the run's first failure and
 * first fact not judged are the earliest in the plan (verdict.h's
 * lctx_report_at, recorded in report.json), and the --keep-failures cap
 * is applied again (a row keeps its earliest verdicts). Running an
 * implementation is the commands'.
 *
 * Everything a folder holds is outside text: a refusal or warning is
 * returned as a message, unescaped, for the caller to show escaped; what
 * is printed on `out` here is escaped (escape.h).
 */
#ifndef LCTX_HARNESS_REPORT_MERGE_H
#define LCTX_HARNESS_REPORT_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lctx/str.h"
#include "verdict.h"

/// What to merge, and where to.
typedef struct lctx_report_merge_options {
  const char *out_dir;     ///< created; its reports are replaced
  const char *const *dirs; ///< the report folders
  size_t dir_count;
  /// Merge even when shards are missing (named in `warnings`); otherwise
  /// missing shards are bad input.
  bool partial;
  /// The folders are whole runs of one implementation (of different case
  /// sources or shares, with their own seeds and shards), not shards of
  /// one run: their cases and counts add up.
  bool runs;
  /// Where the warnings go, one escaped line each (report_text.h's
  /// lctx_report_warn): shards missing under `partial`, a folder without
  /// results.jsonl; NULL: not said.
  lctx_buf *warnings;
} lctx_report_merge_options;

/// Merges the report folders `options` names into its `out_dir` and prints
/// the stamp, the folders merged, the summed counts and the result line on
/// `out`, escaped. True, with the merged run's result in `*result`, when
/// the reports were written. False, with one line in `error`, for a
/// missing or malformed report.json (report_read.h), reports of different
/// runs, a shard given twice or missing, a results.jsonl line refused (the
/// file and line named; nothing is then written) or a report that could
/// not be written.
bool lctx_report_merge(const lctx_report_merge_options *options, FILE *out,
                       lctx_report_result *result, lctx_buf *error);

#endif /* LCTX_HARNESS_REPORT_MERGE_H */
