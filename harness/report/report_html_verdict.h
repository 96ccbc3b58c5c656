/*
 * report_html_verdict.h - the result of a run as the HTML page states it
 * at its top.
 *
 * Owns turning a run's report (report_read.h's, of a conform or sweep
 * report.json) into what the page says of it: its result, by the model's
 * rule (lctx_report_result_of: INTERRUPTED, FAIL, INCOMPLETE, NOTHING
 * JUDGED or PASS, as `lctx conform` says it), the operations per verdict
 * in the page's order and the cases, whose parts add up. The cases are
 * the stamp's (report_read.h) for every report: a conform run's split by
 * source as well, a sweep's the cases of its plan, which have no source; the
 * parts are the cases judged, skipped, unsupported, not judged, and not reached
 * (the rest, when the run stopped), and they do not add up when more were seen
 * than the report has cases. Writing them is report_html.c's.
 */
#ifndef LCTX_HARNESS_REPORT_HTML_VERDICT_H
#define LCTX_HARNESS_REPORT_HTML_VERDICT_H

#include <jansson.h>
#include <stdbool.h>

#include "report_read.h"

/// The verdicts in order of severity, as report.json and results.jsonl
/// name them (report_html.c's looks follow this order).
#define LCTX_HTML_VERDICTS                                                     \
  "crash", "timeout", "fail", "xpass", "flaky", "xfail", "pass", "unsupported"
#define LCTX_HTML_VERDICT_COUNT 8
/// Indices into LCTX_HTML_VERDICTS.
enum { LCTX_HTML_V_XFAIL = 5, LCTX_HTML_V_PASS = 6, LCTX_HTML_V_NONE = 7 };

/// What a run came to, and its counts.
typedef struct lctx_html_verdict {
  /// "PASS", "FAIL", "INTERRUPTED", "INCOMPLETE" or "NOTHING JUDGED".
  const char *result;
  /// Why, in a few words ("" for PASS).
  const char *why;
  /// The operations per verdict, in the order of LCTX_HTML_VERDICTS.
  long long ops[LCTX_HTML_VERDICT_COUNT];
  long long ops_total;
  /// The cases (the stamp's): total = judged + skipped +
  /// unsupported + not_judged (a fact not read at the release) +
  /// not_reached.
  long long cases, judged, skipped, unsupported, not_judged, not_reached;
  /// The cases per source (conformance, domain, random): all 0 when the
  /// report does not record them.
  long long sources[3];
  /// Whether those parts add up to `cases` (a report from elsewhere may
  /// not): no more cases seen than the report has.
  bool adds_up;
} lctx_html_verdict;

/// The verdict of the run whose report.json, read, is `file` (its totals
/// summed).
void lctx_html_verdict_of(const lctx_report_file *file, lctx_html_verdict *v);

#endif /* LCTX_HARNESS_REPORT_HTML_VERDICT_H */
