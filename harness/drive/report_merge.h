/*
 * report_merge.h - one set of reports from the report folders of sharded
 * conform runs (the library call behind `lctx report merge`).
 *
 * Owns reading report.json back, checking that the folders are shards of
 * one run (the same spec version, lctx version, implementation, seed and
 * shard count, each shard once, none missing, the same cases offered),
 * summing the counts per row, and writing the merged report.tap,
 * report.junit.xml, report.json (conform_report.h, the writers conform
 * uses) and results.jsonl. The verdicts are recomputed from the summed
 * counts by conform's rule. Running an implementation is conform.h's.
 */
#ifndef LCTX_HARNESS_REPORT_MERGE_H
#define LCTX_HARNESS_REPORT_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/// What to merge, and where to.
typedef struct lctx_report_merge_options {
  const char *out_dir;     ///< created; its reports are replaced
  const char *const *dirs; ///< the report folders of the shards
  size_t dir_count;
  /// Merge even when shards are missing (named on `err` as a warning);
  /// otherwise missing shards are bad input.
  bool partial;
} lctx_report_merge_options;

/// Merges the report folders `options` names into its `out_dir`, prints
/// the stamp, the shards merged and the summed counts to `out`, problems
/// to `err`. Returns LCTX_EXIT_OK when the merged run passed,
/// LCTX_EXIT_VIOLATIONS when it failed (as `lctx conform` would: a fail,
/// xpass, crash, timeout or flaky verdict, an operation no row covers, an
/// interrupted shard, nothing judged), LCTX_EXIT_USAGE for a missing or
/// malformed report.json (the file, line and column or the field named),
/// reports of different runs, a shard given twice or missing, or a report
/// that could not be written.
int lctx_report_merge(const lctx_report_merge_options *options, FILE *out,
                      FILE *err);

#endif /* LCTX_HARNESS_REPORT_MERGE_H */
