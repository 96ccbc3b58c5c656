/*
 * conform_report.h - the files a conform run leaves: report.tap,
 * report.junit.xml and report.json, written from an lctx_conform_report and
 * its stamp, by `lctx conform` and by `lctx report merge` alike.
 *
 * Owns the formats: TAP 13 with directives as TAP reads them (an expected
 * failure is `not ok # TODO reason`, an unsupported or unreached row `ok #
 * SKIP`, an xpass, crash or timeout a plain `not ok`), JUnit XML whose
 * classname names the implementation and the shard, JSON; the verdict rule
 * of a row and of a run; text kept as UTF-8 where it is UTF-8. Running and
 * counting are conform.c's; reading reports back is report_merge.c's.
 */
#ifndef LCTX_HARNESS_CONFORM_REPORT_H
#define LCTX_HARNESS_CONFORM_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "conform.h"

/// The longest reason of an expected failure kept, with its NUL.
#define LCTX_CONFORM_REASON_MAX 160

/// A finished run as the reports write it: the counts and the stamp.
typedef struct lctx_conform_doc {
  const lctx_conform_report *report; ///< rows (ids included) and totals
  const char *spec_file;             ///< the spec table's file name
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
  const char (*xfail_reason)[LCTX_CONFORM_REASON_MAX];
  size_t modules_judged, judge_kills;
  bool stopped_at_first_failure;
  double peak_memory_mb; ///< written when >= 0
} lctx_conform_doc;

/// Whether a row failed: a fail, xpass, crash, timeout or flaky verdict.
bool lctx_conform_row_failed(const lctx_conform_row *row);

/// Whether a run failed, by the counts (`totals` and `spec_gaps`): a fail,
/// xpass, crash, timeout or flaky verdict, or an operation no row covers.
bool lctx_conform_run_failed(const lctx_conform_report *report);

/// `s` with every byte sequence that is not UTF-8 (overlong forms and
/// surrogates included) replaced by U+FFFD, into `dst` (`n` bytes, at
/// least 4; cut at a character boundary when full). Returns `dst`.
char *lctx_conform_utf8(char *dst, size_t n, const char *s);

/// A JSON string of arbitrary bytes, through lctx_conform_utf8.
json_t *lctx_conform_json_text(const char *s);

/// The JUnit classname of a run: "lctx.NAME" or "lctx.NAME.shard-I-of-N"
/// when sharded, NAME being the implementation's name with every byte
/// other than a letter, digit, '-' or '_' replaced by '_'.
void lctx_conform_classname(const lctx_conform_doc *doc, char *dst, size_t n);

/// The stamp as one line (spec, lctx, implementation, seed, shard), text
/// escaped for a terminal, after `prefix`.
void lctx_conform_stamp_text(const lctx_conform_doc *doc, FILE *f,
                             const char *prefix);

/// The stamp every JSON header carries (results.jsonl's first line and
/// report.json): spec, lctx and implementation versions, the
/// implementation's name.
json_t *lctx_conform_json_stamp(const lctx_conform_doc *doc);

/// report.tap, report.junit.xml and report.json, written to `f`.
void lctx_conform_write_tap(const lctx_conform_doc *doc, FILE *f);
void lctx_conform_write_junit(const lctx_conform_doc *doc, FILE *f);
void lctx_conform_write_json(const lctx_conform_doc *doc, FILE *f);

/// The three writers in turn into DIR/report.tap, DIR/report.junit.xml and
/// DIR/report.json, each whole or not at all (a temporary file renamed
/// over it). False when one could not be written, said on `err` after
/// `who` ("lctx conform: DIR/report.tap: cannot write: why").
bool lctx_conform_write_reports(const lctx_conform_doc *doc, const char *dir,
                                const char *who, FILE *err);

#endif /* LCTX_HARNESS_CONFORM_REPORT_H */
