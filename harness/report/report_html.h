/*
 * report_html.h - one self-contained HTML page from conform report folders,
 * fuzz campaign folders and JAX version matrices (the library call behind
 * `lctx report html`).
 *
 * Owns the page: the scoreboard (spec rows grouped by id prefix, with note
 * and JAX source line, against the runs, each cell's verdict counts with a
 * symbol and a colour-blind-safe colour, a failing cell opening its first
 * failing case with expected against actual in a <details>), the pass rate
 * per implementation and row group, the sweeps (their rows against the
 * sweep table; per sweep the cases passed of judged by program group and
 * platform-list length, the programs with a non-pass verdict against the
 * platform lists, each verdict opening its key and detail, and the
 * lowering primitives reached), per campaign the plots over time (inline
 * SVG) and the findings with their reproduce commands, and each JAX
 * version matrix as one more scoreboard. Inline CSS, no script, no
 * external resource. Every text from a report is escaped for HTML (& < > "
 * '), control bytes shown as \xNN, bytes that are not UTF-8 as U+FFFD.
 * Reading the folders is report_html_data.h's; the look and the HTML
 * text report_html_look.h's (lctx_html_escape).
 */
#ifndef LCTX_HARNESS_REPORT_HTML_H
#define LCTX_HARNESS_REPORT_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lctx/str.h"

/// What to show, and where.
typedef struct lctx_report_html_options {
  const char *out_path;    ///< the page (replaced whole)
  const char *const *dirs; ///< report, sweep, campaign and matrix folders
  size_t dir_count;
  /// The spec table of the conform runs, or of the sweeps when it has
  /// sweep rows; NULL: each set's first report's spec_file or default
  /// (see lctx_html_load).
  const char *spec_path;
  /// Where each problem that makes the page partial is said, one escaped
  /// line each (report_text.h); NULL: only on the page.
  lctx_buf *warnings;
} lctx_report_html_options;

/// Writes the page and says where on `out`. True when it was written (a
/// partial page too: each problem is in `warnings` and listed on the page,
/// which is marked partial). False, with the reason in `error`, when
/// nothing usable was given (no folder could be read), a spec table the
/// folders need cannot be read or the page cannot be written.
bool lctx_report_html(const lctx_report_html_options *options, FILE *out,
                      lctx_buf *error);

#endif /* LCTX_HARNESS_REPORT_HTML_H */
