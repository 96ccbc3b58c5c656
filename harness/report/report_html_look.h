/*
 * report_html_look.h - how the HTML page looks: its style sheet (inline
 * CSS, Okabe-Ito colours), the look of each verdict (its symbol and
 * words, in the order of severity a cell takes its look from: that of
 * LCTX_HTML_VERDICTS), and text written as HTML. The page is
 * report_html.c's and report_html_sweep.c's.
 */
#ifndef LCTX_HARNESS_REPORT_HTML_LOOK_H
#define LCTX_HARNESS_REPORT_HTML_LOOK_H

#include <jansson.h>
#include <stdio.h>

#include "report_html_verdict.h"

/// A verdict as report.json names it, its symbol and its words.
typedef struct lctx_html_look {
  const char *name, *symbol, *words;
} lctx_html_look;

/// The looks of the verdicts, in the order of LCTX_HTML_VERDICTS.
extern const lctx_html_look LCTX_HTML_LOOKS[LCTX_HTML_VERDICT_COUNT];

/// The page's style sheet.
extern const char LCTX_HTML_CSS[];

/// Writes `s` as HTML text or attribute value: & < > " ' as entities,
/// bytes below 0x20 (but newline and tab when `keep_lines`) and 0x7f as
/// the text \xNN, and every byte sequence that is not UTF-8 as U+FFFD.
void lctx_html_escape(FILE *f, const char *s, int keep_lines);

/// The string `key` of object `j`, or "" (not a string, not there).
const char *lctx_html_str(const json_t *j, const char *key);

/// The integer `key` of object `j`, or 0.
long long lctx_html_count(const json_t *j, const char *key);

#endif /* LCTX_HARNESS_REPORT_HTML_LOOK_H */
