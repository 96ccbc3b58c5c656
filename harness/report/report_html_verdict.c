/*
 * report_html_verdict.c - the result and counts of a run for the top of
 * the HTML page (see report_html_verdict.h).
 */
#include "report_html_verdict.h"

#include <string.h>

static long long field(const json_t *j, const char *key) {
  const json_t *x = json_object_get(j, key);
  return json_is_integer(x) && json_integer_value(x) > 0
             ? (long long)json_integer_value(x)
             : 0;
}

void lctx_html_verdict_of(const json_t *report, lctx_html_verdict *v) {
  static const char *const NAMES[] = {LCTX_HTML_VERDICTS};
  memset(v, 0, sizeof *v);
  bool failed = field(report, "spec_gaps") > 0;
  size_t i;
  json_t *row;
  json_array_foreach(json_object_get(report, "rows"), i, row) {
    for (int k = 0; k < LCTX_HTML_VERDICT_COUNT; k++) {
      v->ops[k] += field(row, NAMES[k]);
      v->ops_total += field(row, NAMES[k]);
    }
    failed = failed || lctx_html_row_failed(row);
  }
  v->judged = field(report, "cases_run");
  v->skipped = field(report, "cases_skipped");
  v->unsupported = field(report, "cases_unsupported");
  v->not_judged = field(report, "cases_not_judged");
  v->not_reached = field(report, "cases_not_reached");
  long long seen =
      v->judged + v->skipped + v->unsupported + v->not_judged + v->not_reached;
  v->cases = json_is_integer(json_object_get(report, "cases"))
                 ? field(report, "cases")
                 : seen;
  v->adds_up = v->cases == seen;
  const json_t *by = json_object_get(report, "cases_by_source");
  v->sources[0] = field(by, "conformance");
  v->sources[1] = field(by, "domain");
  v->sources[2] = field(by, "random");
  if (v->sources[0] + v->sources[1] + v->sources[2] != v->cases)
    v->adds_up = false;
  bool judged = v->ops_total - v->ops[LCTX_HTML_V_NONE] > 0;
  v->result = "PASS";
  v->why = "";
  if (json_is_true(json_object_get(report, "interrupted"))) {
    v->result = "INTERRUPTED";
    v->why = "the reports hold what ran";
  } else if (failed) {
    v->result = "FAIL";
  } else if (field(report, "modules_unjudged") > 0) {
    v->result = "INCOMPLETE";
    v->why = "modules not judged";
  } else if (!judged) {
    v->result = "NOTHING JUDGED";
    v->why = "no case, or every one unsupported";
  }
}
