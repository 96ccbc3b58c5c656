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

/// The verdicts in order of severity, as report.json and results.jsonl
/// name them (report_html.c's looks follow this order).
#define LCTX_HTML_VERDICTS                                                     \
  "crash", "timeout", "fail", "xpass", "flaky", "xfail", "pass", "unsupported"
#define LCTX_HTML_VERDICT_COUNT 8
/// Indices into LCTX_HTML_VERDICTS.
enum { LCTX_HTML_V_XFAIL = 5, LCTX_HTML_V_PASS = 6, LCTX_HTML_V_NONE = 7 };

/// The longest JSON file read (report.json, state.json, matrix.json).
#define LCTX_HTML_MAX_JSON_FILE (16 << 20)
/// The longest line of a conform run's results.jsonl or a campaign's
/// progress.jsonl, without its newline.
#define LCTX_HTML_MAX_LINE (1 << 20)

/// The largest count a report.json may hold (its top-level integers but
/// `seed`, and every integer of its rows): a report with a larger or a
/// negative one is left out, so that no sum of counts can overflow.
#define LCTX_HTML_MAX_COUNT (1LL << 40)

/// The most lines of a sweep's results.jsonl read, and the longest line.
#define LCTX_HTML_SWEEP_MAX_LINES 200000
#define LCTX_HTML_SWEEP_MAX_LINE 65536
/// The longest platform list (a longer one makes its line malformed).
#define LCTX_HTML_SWEEP_MAX_LEN 16
/// The most program groups (more are summed in one row), failing programs
/// (more are counted), verdicts kept per failing program and platform
/// lists among them (the verdicts of more are counted).
#define LCTX_HTML_SWEEP_MAX_GROUPS 2000
#define LCTX_HTML_SWEEP_MAX_PROGRAMS 500
#define LCTX_HTML_SWEEP_MAX_ENTRIES 32
#define LCTX_HTML_SWEEP_MAX_LISTS 256

/// A program group (the program's name up to its last '/', or the line's
/// "group"): per platform-list length, the cases by their worst verdict
/// (LCTX_HTML_V_NONE: no verdict judged).
typedef struct lctx_html_sweep_group {
  char *name;
  long long by[LCTX_HTML_SWEEP_MAX_LEN + 1][LCTX_HTML_VERDICT_COUNT];
} lctx_html_sweep_group;

/// One non-pass verdict of a program, for one platform list.
typedef struct lctx_html_sweep_entry {
  size_t list;        ///< index into the sweep's lists
  int verdict;        ///< index into LCTX_HTML_VERDICTS
  long long case_no;  ///< the first case that gave it
  long long repeats;  ///< more cases of the list with the same row, key
  char row[16];       ///< the spec row's id
  char *key, *detail; ///< owned, cut to 1 KiB and 4 KiB
  char *outcome;      ///< what the export gave, owned, cut to 2 KiB
} lctx_html_sweep_entry;

/// A program with a non-pass verdict.
typedef struct lctx_html_sweep_program {
  char *name;
  lctx_html_sweep_entry *entries;
  size_t entry_count;
  long long entries_left_out;
} lctx_html_sweep_program;

/// One `lctx sweep` folder: its report (against the sweep table) and its
/// results.jsonl summed up.
typedef struct lctx_html_sweep {
  lctx_html_run *run; ///< report.json, row[] by the sweep table's rows
  json_t *stamp;      ///< results.jsonl's first line
  json_t *reach;      ///< reach.json, or NULL
  lctx_html_sweep_group *groups;
  size_t group_count;
  bool length_seen[LCTX_HTML_SWEEP_MAX_LEN + 1];
  lctx_html_sweep_program *programs; ///< in the order of their first case
  size_t program_count;
  long long programs_left_out;            ///< failing programs past the cap
  char *lists[LCTX_HTML_SWEEP_MAX_LISTS]; ///< "tpu, cpu", sorted
  size_t list_len[LCTX_HTML_SWEEP_MAX_LISTS];
  size_t list_count;
  long long entries_left_out; ///< verdicts of lists past the cap
  long long cases;            ///< the case lines read whole
  long long malformed;        ///< the lines skipped
} lctx_html_sweep;

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
/// terms, else jax-sweep.lspec beside the default table. A table is read only
/// when a folder needs it (the spec table also when no folder is a sweep). Each
/// problem is said on `err` as a warning ("lctx report html: warning: FILE:
/// ...") and kept in `d`. False when a table cannot be read (said on `err`);
/// `d` must be freed either way.
bool lctx_html_load(lctx_html_data *d, const char *const *dirs, size_t count,
                    const char *spec_path, FILE *err);

/// Releases what `d` holds.
void lctx_html_free(lctx_html_data *d);

/// Whether report row `row` failed (fail, xpass, crash, timeout, flaky).
bool lctx_html_row_failed(const json_t *row);

#endif /* LCTX_DRIVE_REPORT_HTML_DATA_H */
