/*
 * report_html_verdict.c - the result and counts of a run for the top of
 * the HTML page (see report_html_verdict.h).
 */
#include "report_html_verdict.h"

#include <string.h>

void lctx_html_verdict_of(const lctx_report_file *file, lctx_html_verdict *v) {
  const lctx_report *r = &file->report;
  /* The model's verdicts in the page's order (LCTX_HTML_VERDICTS). */
  static const lctx_verdict ORDER[LCTX_HTML_VERDICT_COUNT] = {
      LCTX_VERDICT_CRASH, LCTX_VERDICT_TIMEOUT,    LCTX_VERDICT_FAIL,
      LCTX_VERDICT_XPASS, LCTX_VERDICT_FLAKY,      LCTX_VERDICT_XFAIL,
      LCTX_VERDICT_PASS,  LCTX_VERDICT_UNSUPPORTED};
  memset(v, 0, sizeof *v);
  for (int k = 0; k < LCTX_HTML_VERDICT_COUNT; k++) {
    v->ops[k] = (long long)r->totals[ORDER[k]];
    v->ops_total += v->ops[k];
  }
  v->judged = (long long)r->cases_run;
  v->skipped = (long long)r->cases_skipped;
  v->unsupported = (long long)r->cases_unsupported;
  v->not_judged = (long long)r->cases_not_judged;
  /* The stamp's cases, whose sources (when recorded) add up to them. */
  long long seen = v->judged + v->skipped + v->unsupported + v->not_judged;
  v->cases = (long long)file->stamp.cases;
  v->not_reached = v->cases > seen ? v->cases - seen : 0;
  for (size_t k = 0; k < 3; k++)
    v->sources[k] = (long long)r->source_cases[k];
  v->adds_up = v->cases == seen + v->not_reached;
  lctx_report_result result = lctx_report_result_of(r);
  v->result = lctx_report_result_name(result);
  v->why = result == LCTX_RESULT_INTERRUPTED  ? "the reports hold what ran"
           : result == LCTX_RESULT_INCOMPLETE ? "modules not judged"
           : result == LCTX_RESULT_NOTHING_JUDGED
               ? "no case, or every one unsupported"
               : "";
}
