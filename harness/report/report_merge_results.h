/*
 * report_merge_results.h - the merged results.jsonl of `lctx report merge`:
 * every line of every shard's results.jsonl checked, then copied in plan
 * order, as many of a row as the unsharded run keeps.
 *
 * Owns the lines a shard's results.jsonl may hold: the first a stamp line
 * (an object with implementation and implementation_version, and
 * spec_version and lctx_version unless it is an `lctx sweep` stamp, with
 * "sweep" whose shard is its report.json's), each other one a verdict line
 * as conform writes it (an object with source, name, index, operation, a
 * row of the reports and a verdict; detail, expected, actual and drift
 * strings and case an object when present) or, after a sweep stamp, a case
 * line as `lctx sweep` writes it (case within the sweep's plan, program,
 * platforms, verdicts each with a row of the reports and a verdict); none
 * longer than LCTX_REPORT_MERGE_MAX_LINE bytes, none given twice (in one
 * shard or two). One bad line refuses the merge: no results.jsonl is then
 * written. The lines are held as places in their files, not whole, and
 * read again to be written (a line changed meanwhile refuses the merge).
 * Reading report.json is report_read.c's; summing the counts
 * report_merge.c's.
 */
#ifndef LCTX_HARNESS_REPORT_MERGE_RESULTS_H
#define LCTX_HARNESS_REPORT_MERGE_RESULTS_H

#include <stdbool.h>
#include <stddef.h>

#include "lctx/str.h"
#include "verdict.h"

/// The longest results.jsonl line merged, without its newline (conform's
/// longest, with the longest case, expected and actual texts, is far
/// below it); a longer line is refused, never held whole.
#define LCTX_REPORT_MERGE_MAX_LINE (1 << 20)

/// One folder merged: its results.jsonl and the shard its report.json
/// says it is (a sweep's stamp line must say the same).
typedef struct lctx_merge_part {
  const char *dir; ///< NULL: a shard missing (left out)
  unsigned shard_i, shard_n;
} lctx_merge_part;

/// Writes OUT_DIR/results.jsonl: the stamp of the first part (without its
/// run_id; a sweep's for the whole plan, shard 1 of 1), then every part's
/// lines, each checked against the rows of `rows` (the merged report), in
/// plan order (a conform verdict's source, index and operation, a sweep's
/// case; verdict.h's lctx_report_at), at most `keep` verdicts of a row
/// (the earliest: what the unsharded run keeps; SIZE_MAX: all). A part
/// without a results.jsonl is named in `warnings` (one escaped line each,
/// NULL: not said). False, with the file and line (or why the file cannot
/// be written) in `error` and no results.jsonl left, when a line is
/// refused or the file cannot be written.
bool lctx_report_merge_results(const char *out_dir, const lctx_report *rows,
                               const lctx_merge_part *parts, size_t count,
                               size_t keep, lctx_buf *warnings,
                               lctx_buf *error);

#endif /* LCTX_HARNESS_REPORT_MERGE_RESULTS_H */
