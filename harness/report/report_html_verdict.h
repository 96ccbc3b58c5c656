/*
 * report_html_verdict.h - the result of a run as the HTML page states it
 * at its top.
 *
 * Owns reading a conform or sweep report.json into its result, as `lctx
 * conform` prints it on its `result:` line (INTERRUPTED, FAIL, INCOMPLETE,
 * NOTHING JUDGED or PASS, in that order of precedence), and the counts
 * behind it: the operations per verdict and the cases, whose parts add up
 * (report.json's `cases`, or for a report without it the cases run,
 * skipped and unsupported). Writing them is report_html.c's.
 */
#ifndef LCTX_DRIVE_REPORT_HTML_VERDICT_H
#define LCTX_DRIVE_REPORT_HTML_VERDICT_H

#include <jansson.h>
#include <stdbool.h>

#include "report_html_data.h"

/// What a run came to, and its counts.
typedef struct lctx_html_verdict {
  /// "PASS", "FAIL", "INTERRUPTED", "INCOMPLETE" or "NOTHING JUDGED".
  const char *result;
  /// Why, in a few words ("" for PASS).
  const char *why;
  /// The operations per verdict, in the order of LCTX_HTML_VERDICTS.
  long long ops[LCTX_HTML_VERDICT_COUNT];
  long long ops_total;
  /// The cases: total = judged + skipped + unsupported + not_judged (a
  /// fact not read at the release) + not_reached.
  long long cases, judged, skipped, unsupported, not_judged, not_reached;
  /// The cases per source (conformance, domain, random): all 0 when the
  /// report does not record them.
  long long sources[3];
  /// Whether those parts add up to `cases` (a report from elsewhere may
  /// not).
  bool adds_up;
} lctx_html_verdict;

/// The verdict of the run whose report.json is `report` (rows read from
/// its "rows"; a field missing counts 0).
void lctx_html_verdict_of(const json_t *report, lctx_html_verdict *v);

#endif /* LCTX_DRIVE_REPORT_HTML_VERDICT_H */
