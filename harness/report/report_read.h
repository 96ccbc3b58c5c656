/*
 * report_read.h - report.json read back: the one reader of the file
 * report_write.c writes, for everything that reads a run's report (`lctx
 * report merge`, `lctx report html`; the matrix reads what `lctx report
 * merge` says).
 *
 * Owns reading a report.json whole (a regular file, never a FIFO or a
 * device, of at most LCTX_REPORT_MAX_JSON bytes), checking it and turning
 * it into the report model (verdict.h's lctx_report, its totals summed)
 * with its stamp: a JSON object; the stamp's strings; seed an integer;
 * shard {"index": I, "count": N}, 1 <= I <= N; every other integer
 * anywhere in it a count from 0 to LCTX_REPORT_MAX_COUNT (so that no sum
 * of counts wraps around); 1 to LCTX_SPEC_MAX_ROWS rows, each an object
 * with an id and a count per verdict. Fields newer than the oldest reports
 * merged (cases, cases_by_source, not_judged, drift, keep_failures, the
 * places in the plan first_at, drift_at, drift_new_at, first_failure.at
 * and not_judged.at...) are optional. A
 * sweep's "diagnoses" (diagnose.h), when there, are read whole, each field
 * checked: case a count, program, class (a class's name), platforms (2 to
 * LCTX_EXPORT_MAX_PLATFORMS names), file and primitive (or null), line,
 * rule and call_site (null or a place), message and fix; a text longer
 * than its field (lctx writes a byte not UTF-8 as its escape) is cut to
 * it, one over three times that refused.
 * Every message names the file and the field, or its line and column.
 * What the file holds is outside text: a message is unescaped, for the
 * caller to show through escape.h.
 */
#ifndef LCTX_HARNESS_REPORT_READ_H
#define LCTX_HARNESS_REPORT_READ_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "diagnose.h"
#include "lctx/str.h"
#include "verdict.h"

/// The most bytes of a report.json read (a larger one is refused).
#define LCTX_REPORT_MAX_JSON (16 << 20)
/// The largest count a report.json may hold: a larger (or a negative) one
/// is a bad field, so that no sum of reports' counts wraps around.
#define LCTX_REPORT_MAX_COUNT (1LL << 40)
/// The most shards a report may say its run had.
#define LCTX_REPORT_MAX_SHARDS 100000
/// The most diagnoses a report may hold (a sweep keeps no more).
#define LCTX_REPORT_MAX_DIAGNOSES 10000

/// Who ran what: the stamp of a report.json. The strings point into the
/// document (lctx_report_file's json).
typedef struct lctx_report_stamp {
  const char *spec_file; ///< "?" when not recorded
  const char *spec_version, *lctx_version;
  const char *impl_name, *impl_version, *impl_kind;
  const char *jax_release;   ///< "modelled" when not recorded
  bool jax_release_recorded; ///< report.json has "jax_release" (not a sweep)
  unsigned long long seed;
  unsigned shard_i, shard_n;
  /// The cases of the run's sources (report.json's "cases"; in a report
  /// without it, the cases run, skipped and unsupported).
  size_t cases;
} lctx_report_stamp;

/// One report.json, read and checked. Large: on the heap.
typedef struct lctx_report_file {
  json_t *json; ///< the whole document (owned), for what shows more
  lctx_report_stamp stamp;
  /// The rows and counts (totals summed; source_cases only when they add
  /// up to the stamp's cases).
  lctx_report report;
  /// Per row: an expected failure (it has an xfail_reason), and why.
  bool xfail[LCTX_SPEC_MAX_ROWS];
  char xfail_reason[LCTX_SPEC_MAX_ROWS][LCTX_REPORT_REASON_MAX];
  size_t modules_judged, judge_kills, left_behind_killed, stops_continued;
  bool stopped_at_first_failure;
  /// "keep_failures" (conform's --keep-failures), when there
  /// (`per_row_cap`).
  bool per_row_cap;
  size_t keep_failures;
  /// "isolation" (points into `json`), NULL when not there.
  const char *isolation;
  double peak_memory_mb; ///< -1 when not recorded
  /// A sweep's diagnoses (report.json's "diagnoses", in its order; heap):
  /// `diagnosed` when the key is there.
  bool diagnosed;
  lctx_diagnosis *diagnoses;
  size_t diagnosis_count;
} lctx_report_file;

/// Reads and checks the report.json at `path`. NULL, with one line naming
/// `path` and the field (or line and column) in `error`, when it is
/// missing, unreadable, not a regular file, too large, not whole JSON, not
/// an object or a field is bad.
lctx_report_file *lctx_report_read(const char *path, lctx_buf *error);

/// Releases what lctx_report_read returned (NULL is fine).
void lctx_report_file_free(lctx_report_file *f);

#endif /* LCTX_HARNESS_REPORT_READ_H */
