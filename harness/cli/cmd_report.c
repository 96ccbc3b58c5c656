/*
 * cmd_report.c - `lctx report SUBCOMMAND` (see commands.h): the table of
 * report subcommands and each one's options; `merge` is
 * lctx_report_merge (report/report_merge.h), `html` is lctx_report_html
 * (report/report_html.h).
 */
#include "commands.h"

#include "escape.h"
#include "examples.h"
#include "exit.h"
#include "options.h"
#include "report_html.h"
#include "report_merge.h"

#include <string.h>

static const char MERGE_USAGE[] =
    "usage: lctx report merge --out DIR [--partial | --runs] DIR...\n"
    "merges the report folders of `lctx conform --shard I/N` runs "
    "(report.json,\n"
    "results.jsonl), or with --runs of whole runs of one implementation\n"
    "(other case sources or shares), into one set of reports in --out:\n"
    "report.tap,\n"
    "report.junit.xml, report.json and results.jsonl; exit 1 when the merged\n"
    "run failed, as conform's. Every results.jsonl line is checked first: a\n"
    "line conform or sweep does not write (not an object of its fields, or\n"
    "over 1 MiB) refuses the merge (exit 2, its file and line named)\n";

/* Prints each line of `lines` (escaped already: report_text.h's
 * lctx_report_warn) as "WHO: warning: LINE". */
static void print_warnings(FILE *err, const char *who, const char *lines) {
  while (*lines) {
    const char *nl = strchr(lines, '\n');
    size_t n = nl ? (size_t)(nl - lines) : strlen(lines);
    fprintf(err, "%s: warning: %.*s\n", who, (int)n, lines);
    lines += nl ? n + 1 : n;
  }
}

static int report_merge(int argc, char **argv, FILE *out, FILE *err) {
  lctx_report_merge_options o = {0};
  const lctx_option table[] = {
      lctx_options_string("out", &o.out_dir, "DIR",
                          "where the merged reports go (created)"),
      lctx_options_flag("partial", &o.partial,
                        "merge even when shards are missing (named)"),
      lctx_options_flag("runs", &o.runs,
                        "the folders are whole runs of one implementation\n"
                        "(their own seeds, shards, cases): counts add up"),
  };
  const lctx_option_spec spec =
      LCTX_OPTIONS_SPEC("report merge", MERGE_USAGE, table, true);
  int first;
  LCTX_OPTIONS_PARSE_OR_RETURN(&spec, argc, argv, &first, out, err);
  if (!o.out_dir || first >= argc) {
    fprintf(err, "lctx report merge: %s\n",
            o.out_dir ? "name the report folders to merge"
                      : "--out DIR is required");
    lctx_options_help(&spec, err);
    return LCTX_EXIT_USAGE;
  }
  o.dirs = (const char *const *)(argv + first);
  o.dir_count = (size_t)(argc - first);
  static char why[8192], warned[8192];
  lctx_buf error, warnings;
  lctx_buf_init(&error, why, sizeof why);
  lctx_buf_init(&warnings, warned, sizeof warned);
  o.warnings = &warnings;
  lctx_report_result result;
  bool ok = lctx_report_merge(&o, out, &result, &error);
  print_warnings(err, "lctx report merge", warned);
  lctx_escaped esc;
  if (!ok)
    fprintf(err, "lctx report merge: %s\n", lctx_esc(&esc, why));
  return !ok                          ? LCTX_EXIT_USAGE
         : result == LCTX_RESULT_PASS ? LCTX_EXIT_OK
                                      : LCTX_EXIT_VIOLATIONS;
}

static const char HTML_USAGE[] =
    "usage: lctx report html [--spec FILE] OUT.html DIR...\n"
    "writes one self-contained HTML page (inline CSS and SVG, no script, no\n"
    "network) from `lctx conform` report folders (report.json,\n"
    "results.jsonl), `lctx fuzz` campaign folders (state.json,\n"
    "progress.jsonl, findings/) and JAX version matrix folders\n"
    "(matrix.json, from `make jax-matrix`) and `lctx sweep` folders: the\n"
    "scoreboard of spec rows against the runs with each failing cell's\n"
    "first failing case, the pass rate per implementation and row group,\n"
    "each campaign's plots and findings, the matrix, and per sweep its\n"
    "programs x platform lists (passed of judged per group and list\n"
    "length, every failing program by list) and its reach. Conform and\n"
    "sweep reports are each judged against their own spec table.\n"
    "A folder that is missing, truncated, unreadable or of another spec\n"
    "version, a line over 1 MiB or a JSON file over 16 MiB is named on\n"
    "stderr as a warning and left out; the page is still written, marked\n"
    "partial, and the exit code is 0. Exit 2 when nothing usable was given,\n"
    "the spec table cannot be read or the page cannot be written.\n";

static int report_html(int argc, char **argv, FILE *out, FILE *err) {
  lctx_report_html_options o = {0};
  const lctx_option table[] = {
      lctx_options_string("spec", &o.spec_path, "FILE",
                          "the spec table of the rows (default: the first\n"
                          "report's spec_file when it is a regular file\n"
                          "named *.lspec, else $LCTX_SPEC, else the data\n"
                          "folder's; sweeps: jax-sweep.lspec beside that)"),
  };
  const lctx_option_spec spec =
      LCTX_OPTIONS_SPEC("report html", HTML_USAGE, table, true);
  int first;
  LCTX_OPTIONS_PARSE_OR_RETURN(&spec, argc, argv, &first, out, err);
  if (argc - first < 2) {
    fprintf(err, "lctx report html: name the page (OUT.html) and at least "
                 "one folder\n");
    lctx_options_help(&spec, err);
    return LCTX_EXIT_USAGE;
  }
  o.out_path = argv[first];
  o.dirs = (const char *const *)(argv + first + 1);
  o.dir_count = (size_t)(argc - first - 1);
  return lctx_cli_report_html(&o, out, err);
}

int lctx_cli_report_html(const lctx_report_html_options *options, FILE *out,
                         FILE *err) {
  static char why[8192], warned[65536];
  lctx_buf error, warnings;
  lctx_buf_init(&error, why, sizeof why);
  lctx_buf_init(&warnings, warned, sizeof warned);
  lctx_report_html_options o = *options;
  o.warnings = &warnings;
  bool ok = lctx_report_html(&o, out, &error);
  print_warnings(err, "lctx report html", warned);
  if (!ok) {
    lctx_escaped esc;
    fprintf(err, "lctx report html: %s\n", lctx_esc(&esc, why));
  }
  return ok ? LCTX_EXIT_OK : LCTX_EXIT_USAGE;
}

/* The subcommands: name, function, one line for the help. */
static const lctx_subcommand SUBCOMMANDS[] = {
    {"merge", report_merge,
     "merge the reports of `lctx conform --shard` runs into one set"},
    {"html", report_html,
     "one HTML page: the scoreboard, pass rates, campaign plots, findings"},
};

int lctx_cmd_report(int argc, char **argv, FILE *out, FILE *err) {
  return lctx_cli_subcommands("report", SUBCOMMANDS,
                              sizeof SUBCOMMANDS / sizeof SUBCOMMANDS[0], argc,
                              argv, out, err);
}
