/*
 * report_html_data.h - what the HTML scoreboard shows, read from the
 * folders `lctx report html` is given (the loading half of report_html.h).
 *
 * Owns telling the folders apart (a conform report folder holds
 * report.json, an `lctx sweep` folder the same with a results.jsonl whose
 * first line, the stamp, has "sweep", a fuzz campaign folder state.json or
 * progress.jsonl, a JAX version matrix folder matrix.json), reading each
 * with jansson, the two spec tables the rows come from (the conform runs'
 * and the sweeps', each report checked against its own), a sweep's
 * results.jsonl summed up by program group and platform-list length with
 * its non-pass verdicts by program (bounded: at most
 * LCTX_HTML_SWEEP_MAX_LINES lines of at most LCTX_HTML_SWEEP_MAX_LINE
 * bytes; a malformed line is skipped and counted), and the list of
 * problems that make the page partial: a missing folder, a truncated or
 * malformed file (named with its line and column), a report of another
 * spec version (left out). Writing the page is report_html.c's.
 *
 * What is held in memory is bounded: a JSON file (report.json, state.json,
 * matrix.json) of more than LCTX_HTML_MAX_JSON_FILE bytes is left out
 * unread, and a line of a conform run's results.jsonl or a campaign's
 * progress.jsonl is read into a buffer of LCTX_HTML_MAX_LINE bytes: a
 * longer one is skipped, never held, and it and the lines after it are
 * left out (a problem). A report's spec_file is a path from outside: it is
 * followed only when it is a regular file (not a symbolic link) whose name
 * ends in ".lspec"; else it is named as a problem and the default table is
 * used (name the table with --spec to use another).
 */
#ifndef LCTX_HARNESS_REPORT_HTML_DATA_H
#define LCTX_HARNESS_REPORT_HTML_DATA_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lctx/str.h"
#include "report_html_sweep_sum.h"
#include "report_read.h"
#include "spec.h"

/// The most folders of each kind one page shows.
#define LCTX_HTML_MAX_INPUTS 64
/// The most problems kept (more are counted).
#define LCTX_HTML_MAX_PROBLEMS 64

/// One conform run (a report folder).
typedef struct lctx_html_run {
  char *dir;
  /// report.json as report_read.h reads it: the report model, and the
  /// document (`report`, held by `file`) for what the page shows more.
  lctx_report_file *file;
  json_t *report;
  /// Per spec row (by index): report.json's row and its counts in the
  /// model, or NULL when it has none.
  json_t *row[LCTX_SPEC_MAX_ROWS];
  const lctx_report_row *counts[LCTX_SPEC_MAX_ROWS];
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

/// The longest JSON file read (report.json, state.json, matrix.json).
#define LCTX_HTML_MAX_JSON_FILE (16 << 20)
/// The longest line of a conform run's results.jsonl or a campaign's
/// progress.jsonl, without its newline.
#define LCTX_HTML_MAX_LINE (1 << 20)

/// Everything the page shows.
typedef struct lctx_html_data {
  lctx_spec *spec; ///< the rows of the scoreboard (NULL: only sweeps)
  char spec_path[4096];
  lctx_spec *sweep_spec; ///< the sweep table (NULL: no sweep folder)
  char sweep_spec_path[4096];
  lctx_html_run *runs[LCTX_HTML_MAX_INPUTS];
  size_t run_count;
  lctx_html_sweep *sweeps[LCTX_HTML_MAX_INPUTS];
  size_t sweep_count;
  lctx_html_campaign *campaigns[LCTX_HTML_MAX_INPUTS];
  size_t campaign_count;
  lctx_html_matrix *matrices[LCTX_HTML_MAX_INPUTS];
  size_t matrix_count;
  /// Where the problems are said as warnings (lctx_html_load's).
  lctx_buf *warnings;
  /// What made the page partial, one sentence each (owned).
  char *problems[LCTX_HTML_MAX_PROBLEMS];
  size_t problem_count;
} lctx_html_data;

/// Reads the `count` folders `dirs` into `d` (zeroed first). Conform runs
/// are checked against the spec table: `spec_path` when it is not a sweep
/// table, else the first conform report's spec_file when it is a regular
/// file named *.lspec (not a symbolic link), else the default table. Sweep
/// folders against the sweep table: `spec_path` when it is one (it has
/// sweep rows), else the first sweep report's spec_file on the same
/// terms, else jax-sweep.lspec beside the default table. A table is read
/// only when a folder needs it (the spec table also when no folder is a
/// sweep). Each problem is kept in `d` and added to `warnings` (one
/// escaped line each, report_text.h; NULL: not said). False, with the
/// reason in `error`, when a table cannot be read; `d` must be freed
/// either way.
bool lctx_html_load(lctx_html_data *d, const char *const *dirs, size_t count,
                    const char *spec_path, lctx_buf *warnings, lctx_buf *error);

/// Releases what `d` holds.
void lctx_html_free(lctx_html_data *d);

#endif /* LCTX_HARNESS_REPORT_HTML_DATA_H */
