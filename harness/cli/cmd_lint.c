/*
 * cmd_lint.c - `lctx lint` (see commands.h): prints the verdict of each rule
 * file (core/judge/lint.h) and compares it with the file's `expect` line.
 */
#include "commands.h"

#include "dirlist.h"
#include "escape.h"
#include "exit.h"
#include "lint.h"
#include "options.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LINT_USAGE "lctx lint [--quiet] RULEFILE|DIR..."

/* One run of lint; on the heap (a rule file and a report are large). */
typedef struct lint_run {
  lctx_rulefile file;
  lctx_lint_report report;
  char message[16384];
  bool quiet;
  size_t files;
} lint_run;

/* Prints the verdict of `run->file`, read from `path`, and how it came
 * about. */
static void print_verdict(lint_run *run, const char *path, bool as_expected,
                          FILE *out) {
  const lctx_lint_report *report = &run->report;
  lctx_buf e;
  lctx_buf_init(&e, run->message, sizeof run->message);
  lctx_escaped b;
  fprintf(out,
          "%s: %s %s (expected %s; %zu lowerings, %zu of %zu "
          "configurations skipped)\n",
          lctx_esc(&b, path), as_expected ? "ok" : "MISMATCH",
          report->safe ? "safe" : "unsafe",
          run->file.expect_safe ? "safe" : "unsafe", report->lowerings,
          report->skipped, report->configurations);
  if (report->skipped) {
    lctx_outcome_format(&report->skip_reason, &e);
    fprintf(out,
            "  first skipped: configuration %zu, registration "
            "raised %s\n",
            report->first_skipped, lctx_esc(&b, run->message));
  }
  if (!report->safe) {
    lctx_buf_reset(&e);
    lctx_lint_format_counterexample(report, "  ", &e);
    fprintf(out, "  smallest failing point:\n");
    lctx_escape_lines(out, "", run->message);
  }
}

/* Lints one file and prints its verdict. Returns an exit code. */
static int lint_one(lint_run *run, const char *path, FILE *out, FILE *err) {
  lctx_buf e;
  lctx_buf_init(&e, run->message, sizeof run->message);
  lctx_escaped b1, b2;
  run->files++;
  if (!lctx_rulefile_load(path, &run->file, &e)) {
    fprintf(err, "lctx lint: %s\n", lctx_esc(&b1, run->message));
    return LCTX_EXIT_USAGE;
  }
  if (!lctx_lint_file(&run->file, &run->report, &e)) {
    fprintf(err, "lctx lint: %s: %s\n", lctx_esc(&b1, path),
            lctx_esc(&b2, run->message));
    return LCTX_EXIT_USAGE;
  }
  bool as_expected = run->report.safe == run->file.expect_safe;
  if (!run->quiet || !as_expected)
    print_verdict(run, path, as_expected, out);
  return as_expected ? LCTX_EXIT_OK : LCTX_EXIT_VIOLATIONS;
}

/* Lints a file, or every *.rule file of a directory, sorted by name. */
static int lint_path(lint_run *run, const char *path, FILE *out, FILE *err) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
    return lint_one(run, path, out, err);
  size_t count;
  lctx_buf e;
  lctx_buf_init(&e, run->message, sizeof run->message);
  char **paths = lctx_dirlist_read(path, ".rule", &count, &e);
  lctx_escaped b;
  if (!paths) {
    fprintf(err, "lctx lint: %s\n", lctx_esc(&b, run->message));
    return LCTX_EXIT_USAGE;
  }
  int worst = LCTX_EXIT_OK;
  for (size_t i = 0; i < count; i++) {
    int rc = lint_one(run, paths[i], out, err);
    worst = rc > worst ? rc : worst;
  }
  lctx_dirlist_free(paths);
  if (count == 0) {
    fprintf(err, "lctx lint: %s: no .rule files\n", lctx_esc(&b, path));
    return LCTX_EXIT_USAGE;
  }
  return worst;
}

int lctx_cmd_lint(int argc, char **argv, FILE *out, FILE *err) {
  lint_run *run = calloc(1, sizeof *run);
  if (!run) {
    fprintf(err, "lctx lint: out of memory\n");
    return LCTX_EXIT_USAGE;
  }
  const lctx_option options[] = {
      lctx_options_flag(
          "quiet", &run->quiet,
          "print only the files whose verdict differs from their expect line"),
  };
  const lctx_option_spec spec =
      LCTX_OPTIONS_SPEC("lint", "usage: " LINT_USAGE "\n", options, true);
  int first, worst = lctx_options_command(&spec, argc, argv, &first, out, err);
  if (worst == LCTX_OPTIONS_GO_ON && first >= argc) {
    fprintf(err, "lctx lint: missing RULEFILE or directory (usage: " LINT_USAGE
                 ")\n");
    worst = LCTX_EXIT_USAGE;
  }
  if (worst != LCTX_OPTIONS_GO_ON) {
    free(run);
    return worst;
  }
  worst = LCTX_EXIT_OK;
  for (int i = first; i < argc; i++) {
    int rc = lint_path(run, argv[i], out, err);
    worst = rc > worst ? rc : worst;
  }
  fprintf(out, "lctx lint: %zu file%s, %s\n", run->files,
          run->files == 1 ? "" : "s",
          worst == LCTX_EXIT_OK           ? "every verdict as expected"
          : worst == LCTX_EXIT_VIOLATIONS ? "VERDICTS DIFFER FROM EXPECT"
                                          : "BAD INPUT");
  free(run);
  return worst;
}
