/*
 * report_html_data.h - what the HTML scoreboard shows, read from the
 * folders `lctx report html` is given (the loading half of report_html.h).
 *
 * Owns telling the folders apart (a conform report folder holds
 * report.json, a fuzz campaign folder state.json or progress.jsonl, a JAX
 * version matrix folder matrix.json), reading each with jansson, the spec
 * table the rows come from, and the list of problems that make the page
 * partial: a missing folder, a truncated or malformed file (named with its
 * line and column), a report of another spec version (left out). Writing
 * the page is report_html.c's.
 */
#ifndef LCTX_DRIVE_REPORT_HTML_DATA_H
#define LCTX_DRIVE_REPORT_HTML_DATA_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "spec.h"

/// The most folders of each kind one page shows.
#define LCTX_HTML_MAX_INPUTS 64
/// The most problems kept (more are counted).
#define LCTX_HTML_MAX_PROBLEMS 64

/// One conform run (a report folder).
typedef struct lctx_html_run {
  char *dir;
  json_t *report; ///< report.json
  /// Per spec row (by index): report.json's row, or NULL when it has none.
  json_t *row[LCTX_SPEC_MAX_ROWS];
  /// Per spec row: the first failing (else expected-failing) line of
  /// results.jsonl, owned, or NULL.
  json_t *result[LCTX_SPEC_MAX_ROWS];
  /// Per spec row: that line's case in its text form, owned, or NULL.
  char *case_text[LCTX_SPEC_MAX_ROWS];
  char date[32]; ///< report.json's modification time, UTC
} lctx_html_run;

/// One point of a campaign's progress.jsonl.
typedef struct lctx_html_point {
  double t, execs, execs_per_sec, corpus, rows_hit, findings;
} lctx_html_point;

/// One finding of a campaign: its key and its reproduce commands.
typedef struct lctx_html_finding {
  char *name, *key, *reproduce;
} lctx_html_finding;

/// One fuzz campaign folder.
typedef struct lctx_html_campaign {
  char *dir;
  json_t *state; ///< state.json, or NULL
  lctx_html_point *points;
  size_t point_count;
  lctx_html_finding *findings;
  size_t finding_count;
} lctx_html_campaign;

/// One JAX version matrix folder (matrix.json).
typedef struct lctx_html_matrix {
  char *dir;
  json_t *matrix;
} lctx_html_matrix;

/// Everything the page shows.
typedef struct lctx_html_data {
  lctx_spec *spec; ///< the rows of the scoreboard
  char spec_path[4096];
  lctx_html_run *runs[LCTX_HTML_MAX_INPUTS];
  size_t run_count;
  lctx_html_campaign *campaigns[LCTX_HTML_MAX_INPUTS];
  size_t campaign_count;
  lctx_html_matrix *matrices[LCTX_HTML_MAX_INPUTS];
  size_t matrix_count;
  /// What made the page partial, one sentence each (owned).
  char *problems[LCTX_HTML_MAX_PROBLEMS];
  size_t problem_count;
} lctx_html_data;

/// Reads the `count` folders `dirs` into `d` (zeroed first), with the spec
/// table `spec_path` (NULL: the first report's spec_file when it can be
/// read, else the default table). Each problem is said on `err` as a
/// warning ("lctx report html: warning: FILE: ...") and kept in `d`.
/// False when the spec table cannot be read (said on `err`); `d` must be
/// freed either way.
bool lctx_html_load(lctx_html_data *d, const char *const *dirs, size_t count,
                    const char *spec_path, FILE *err);

/// Releases what `d` holds.
void lctx_html_free(lctx_html_data *d);

/// Whether report row `row` failed (fail, xpass, crash, timeout, flaky).
bool lctx_html_row_failed(const json_t *row);

#endif /* LCTX_DRIVE_REPORT_HTML_DATA_H */
