/*
 * report_write.h - what a run leaves: the files report.tap,
 * report.junit.xml and report.json, written from an lctx_report and
 * its stamp, by `lctx conform` and by `lctx report merge` alike; and the
 * per-row table and summary `lctx conform` prints.
 *
 * Owns the formats: TAP 13 with directives as TAP reads them (an expected
 * failure is `not ok # TODO reason`, an unsupported or unreached row `ok #
 * SKIP`, an xpass, crash or timeout a plain `not ok`), JUnit XML whose
 * classname names the implementation and the shard, JSON (with a sweep's
 * diagnoses, diagnose.h, in each); and how the files are replaced (each whole
 * or not at all, report.json last; report.json says the run's result by the
 * model's rule). Verdicts and their rules are verdict.h's, text as UTF-8
 * report_text.h's; running and counting are the commands'; reading report.json
 * back is report_read.c's, and only its.
 */
#ifndef LCTX_HARNESS_REPORT_WRITE_H
#define LCTX_HARNESS_REPORT_WRITE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "diagnose.h"
#include "report_text.h"
#include "verdict.h"

/// A finished run as the reports write it: the counts and the stamp.
typedef struct lctx_report_doc {
  const lctx_report *report; ///< rows (ids included) and totals
  const char *spec_file;     ///< the spec table's file name
  const char *spec_version;
  /// The JAX release judged as ("modelled", "0.10.2", ...); NULL: not
  /// known (a merged report), left out.
  const char *jax_release;
  const char *lctx_version;
  const char *impl_name;
  const char *impl_version;
  const char *impl_kind; ///< "plugin" or "process"
  unsigned long long seed;
  unsigned shard_i, shard_n; ///< 1-based; 1/1 when unsharded
  /// Per row (report->row_count entries): an expected failure, and why.
  const bool *xfail;
  const char (*xfail_reason)[LCTX_REPORT_REASON_MAX];
  size_t modules_judged, judge_kills;
  /// The run's id, shared by report.json and the first line of its
  /// results.jsonl ("run_id"); NULL: none (left out).
  const char *run_id;
  /// What lctx checked of results.jsonl, each written to report.json only
  /// when true: its lines sealed as written (a sweep's, resumable); the
  /// file found at the end as lctx wrote it; an earlier run's lines
  /// resumed after their seal and the run's identity were verified.
  bool results_sealed, results_checked, resume_verified;
  bool stopped_at_first_failure;
  /// The most verdicts other than pass results.jsonl keeps per row
  /// (conform's --keep-failures), in report.json as "keep_failures" when
  /// `per_row_cap`: a merge of shards keeps as many again, the earliest.
  bool per_row_cap;
  size_t keep_failures;
  double peak_memory_mb; ///< written when >= 0
  /// Processes the children left that lctx killed (peer.h's sweeps), and
  /// the times a stop of lctx from outside was undone (guard.h): always in
  /// report.json, in the summary when not 0.
  size_t left_behind_killed, stops_continued;
  /// The signal that stopped an interrupted run (0: none, or not known).
  int stop_signal;
  /// How the implementation's processes were kept out of lctx's reach
  /// (lctx_peer_isolation: "pid namespace", "user+pid namespace" or
  /// "none"); NULL: not said (a merge). In report.json and the summary.
  const char *isolation;
  /// The implementation logs that reached their cap (LCTX_PEER_LOG_CAP):
  /// in the summary, and report.json's caps_hit.
  size_t logs_capped;
  /// A sweep's diagnoses of the user's and packages' programs
  /// (diagnose.h): when `diagnosed`, report.json's "diagnoses" lists them
  /// (empty when none), and report.tap and report.junit.xml give one test
  /// each after the rows (a failure, a known JAX defect's a TODO or
  /// skipped), its text the diagnosis line.
  bool diagnosed;
  const lctx_diagnosis *diagnoses;
  size_t diagnosis_count;
} lctx_report_doc;

/// The JUnit classname of a run: "lctx.NAME" or "lctx.NAME.shard-I-of-N"
/// when sharded, NAME being the implementation's name with every byte
/// other than a letter, digit, '-' or '_' replaced by '_'.
void lctx_report_classname(const lctx_report_doc *doc, char *dst, size_t n);

/// The stamp as one line (spec, lctx, implementation, seed, shard), text
/// escaped for a terminal, after `prefix`.
void lctx_report_stamp_text(const lctx_report_doc *doc, FILE *f,
                            const char *prefix);

/// The stamp every JSON header carries (results.jsonl's first line and
/// report.json): spec, lctx and implementation versions, the
/// implementation's name.
json_t *lctx_report_json_stamp(const lctx_report_doc *doc);

/// report.tap, report.junit.xml and report.json, written to `f`.
void lctx_report_write_tap(const lctx_report_doc *doc, FILE *f);
void lctx_report_write_junit(const lctx_report_doc *doc, FILE *f);
void lctx_report_write_json(const lctx_report_doc *doc, FILE *f);

/// The three writers in turn into DIR/report.tap, DIR/report.junit.xml and
/// DIR/report.json, each whole or not at all (a temporary file NAME.tmp
/// renamed over it), report.json last: the old report.json is removed
/// first, so that it never stands beside the others of another run. False
/// when one could not be written, each problem appended to the string in
/// `why` (`why_n` bytes) as one line: "WHO: DIR/report.tap: cannot write:
/// why" ("DIR/...: ..." when `who` is NULL), its path escaped (escape.h).
bool lctx_report_save_reports(const lctx_report_doc *doc, const char *dir,
                              const char *who, char *why, size_t why_n);

struct lctx_seal_writer;

/// Opens results.jsonl (`path`, created or truncated) for writing: a stream
/// whose `*first_error` is the errno of its first write that failed (0:
/// none), whichever thread flushed it (a peer's start flushes every stream),
/// valid until the stream is closed; `*writer` is its sealed writer
/// (seal.h: lctx_seal_check at the end of the run), valid as long. NULL
/// with errno set when it cannot be opened.
FILE *lctx_report_results_open(const char *path, const int **first_error,
                               struct lctx_seal_writer **writer);

/// Removes DIR/report.json, DIR/report.tap and DIR/report.junit.xml (those
/// there are); false, with "who: PATH: cannot remove: why" appended to
/// `why`, when one stays.
bool lctx_report_remove_reports(const char *dir, const char *who, char *why,
                                size_t why_n);

#endif /* LCTX_HARNESS_REPORT_WRITE_H */
