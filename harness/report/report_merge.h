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
 *
 * Every line of a shard's results.jsonl is checked before it is copied:
 * the first a stamp line (an object with implementation and
 * implementation_version, and spec_version and lctx_version unless it is
 * an `lctx sweep` stamp, with "sweep"), each other one a verdict line as
 * conform writes it (an object with source, name, index, operation, a row
 * of the reports and a verdict; detail, expected, actual and drift
 * strings and case an object when present) or, after a sweep stamp, a
 * case line as `lctx sweep` writes it (case, program, platforms, verdicts
 * each with a row of the reports and a verdict), and none longer than
 * LCTX_REPORT_MERGE_MAX_LINE bytes; one bad line refuses the merge.
 * Everything a shard holds is outside text: a refusal is returned as a
 * message, unescaped, for the caller to show escaped; what is printed
 * here is escaped (escape.h).
 */
#ifndef LCTX_HARNESS_REPORT_MERGE_H
#define LCTX_HARNESS_REPORT_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/// The longest results.jsonl line merged, without its newline (conform's
/// longest, with the longest case, expected and actual texts, is far
/// below it); a longer line is refused, never held whole.
#define LCTX_REPORT_MERGE_MAX_LINE (1 << 20)
/// The most bytes of a report.json merged (a larger one is refused).
#define LCTX_REPORT_MERGE_MAX_JSON (16 << 20)
/// The largest count a shard's report.json may hold: a larger one (or a
/// negative one) is a bad field, so that no merged sum wraps around.
#define LCTX_REPORT_MERGE_MAX_COUNT (1LL << 40)

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
/// the stamp, the shards merged and the summed counts to `out` and
/// warnings (shards missing under `partial`, a shard without
/// results.jsonl) to `err`, all escaped. Returns LCTX_EXIT_OK when the
/// merged run passed, LCTX_EXIT_VIOLATIONS when it failed (as `lctx
/// conform` would: a fail, xpass, crash, timeout or flaky verdict, an
/// operation no row covers, an interrupted shard, nothing judged),
/// LCTX_EXIT_USAGE, with the reason in `why` (`cap` bytes; unescaped: it
/// holds outside text, show it through escape.h), for a missing or
/// malformed report.json (the file, line and column or the field named;
/// one that is not a JSON object), reports of different runs, a shard
/// given twice or missing, a results.jsonl line refused (the file and line
/// named; nothing is then written) or a report that could not be written.
/// `why` is the empty string unless LCTX_EXIT_USAGE.
int lctx_report_merge(const lctx_report_merge_options *options, FILE *out,
                      FILE *err, char *why, size_t cap);

#endif /* LCTX_HARNESS_REPORT_MERGE_H */
