/*
 * report_html_sweep_sum.h - an `lctx sweep` folder's results.jsonl summed
 * up for the HTML page (the sweep half of report_html_data.h's reading).
 *
 * Owns reading the case lines of a sweep's results.jsonl (bounded: at most
 * LCTX_HTML_SWEEP_MAX_LINES lines of at most LCTX_HTML_SWEEP_MAX_LINE
 * bytes; a malformed line is skipped and counted) into the cases by
 * program group and platform-list length, the platform lists (sorted by
 * length, then text) and the non-pass verdicts by program, each capped
 * (report_html_data.h's LCTX_HTML_SWEEP_MAX_*: more are counted, not
 * kept). Which folder is a sweep, its report.json and the page are
 * report_html_data.c's and report_html_sweep.c's.
 *
 * The sweep's folder (lctx_html_sweep) is defined here, its sums with it.
 */
#ifndef LCTX_HARNESS_REPORT_HTML_SWEEP_SUM_H
#define LCTX_HARNESS_REPORT_HTML_SWEEP_SUM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "lctx/str.h"
#include "report_html_verdict.h"

/// A conform or sweep report folder (report_html_data.h).
typedef struct lctx_html_run lctx_html_run;

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
  size_t first_bad;           ///< the first one's line number
  char first_why[160];        ///< and why
  bool cut_short; ///< more lines than LCTX_HTML_SWEEP_MAX_LINES (left out)
} lctx_html_sweep;

/// Sums up `path` (a sweep's results.jsonl, its first line the stamp) into
/// `s`: groups, lists, programs, cases, malformed (the first's line and
/// why in first_bad and first_why) and cut_short. False, with the reason
/// in `error`, when the file cannot be read (nothing summed).
bool lctx_html_sweep_sum(lctx_html_sweep *s, const char *path, lctx_buf *error);

#endif /* LCTX_HARNESS_REPORT_HTML_SWEEP_SUM_H */
