/*
 * cmd_lint.c - `lctx lint` (see commands.h): prints the verdict of each rule
 * file (core/judge/lint.h) and compares it with the file's `expect` line
 * (a file without one: the verdict alone); with --write-case DIR, the
 * smallest failing point of an unsafe file as DIR/STEM.case with the
 * reference's outcomes as its expect lines. A .py file, or a folder of
 * .py files without .rule files, goes to the static check of Python
 * lowering code (commands/lint_python.h), whose findings, messages and
 * exit status are passed through (escaped).
 */
#include "commands.h"

#include "data_paths.h"
#include "dirlist.h"
#include "escape.h"
#include "exit.h"
#include "case_text.h"
#include "lint.h"
#include "lint_python.h"
#include "options.h"
#include "runner.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LINT_USAGE                                                             \
  "lctx lint [--quiet] [--write-case DIR] [--python PATH] "                    \
  "RULEFILE|FILE.py|DIR..."

/* One run of lint; on the heap (a rule file and a report are large). */
typedef struct lint_run {
  lctx_rulefile file;
  lctx_lint_report report;
  char message[16384];
  bool quiet;
  const char *case_dir;
  const char *python;
  size_t files;
  /* --write-case: the case, the reference running it, its text. */
  lctx_case c;
  lctx_case_expect expect;
  lctx_outcome outcome;
  lctx_runner runner;
  char text[LCTX_CASE_TEXT_MAX];
} lint_run;

/* --write-case: the smallest failing point of `run->file`, read from
 * `path`, as CASE_DIR/STEM.case with the reference's outcomes as its
 * expect lines. Prints where it went, or why it was not written. */
static void write_case(lint_run *run, const char *path, FILE *out) {
  lctx_buf e;
  lctx_buf_init(&e, run->message, sizeof run->message);
  lctx_escaped b;
  if (!lctx_lint_counterexample_case(&run->file, &run->report, &run->c, &e)) {
    fprintf(out, "  no .case written: %s\n", lctx_esc(&b, run->message));
    return;
  }
  if (!lctx_case_validate(&run->c, &e)) {
    fprintf(out, "  no .case written: the case is beyond the case format: %s\n",
            lctx_esc(&b, run->message));
    return;
  }
  lctx_runner_init(&run->runner, &run->c);
  lctx_case_expect_init(&run->expect);
  for (size_t i = 0; i < run->c.op_count; i++) {
    lctx_runner_op(&run->runner, &run->c.ops[i], &run->outcome, NULL);
    if (!lctx_case_expect_set(&run->expect, i, &run->outcome)) {
      fprintf(out,
              "  no .case written: the reference's outcome texts come to "
              "more than the %d bytes a case holds together\n",
              LCTX_CASE_EXPECT_TEXT_MAX);
      return;
    }
  }
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t stem = strlen(base);
  if (stem > 5 && strcmp(base + stem - 5, ".rule") == 0)
    stem -= 5;
  char file[4500];
  snprintf(file, sizeof file, "%s/%.*s.case", run->case_dir, (int)stem, base);
  lctx_buf t;
  lctx_buf_init(&t, run->text, sizeof run->text);
  lctx_case_print(&run->c, &run->expect, &t);
  FILE *f = fopen(file, "w");
  bool ok =
      f && fprintf(f, "# The smallest failing point of %s (lctx lint)\n%s",
                   path, run->text) > 0;
  ok = f && fclose(f) == 0 && ok;
  fprintf(out, ok ? "  written as %s\n" : "  cannot write %s\n",
          lctx_esc(&b, file));
}

/* Prints the verdict of `run->file`, read from `path`, and how it came
 * about. */
static void print_verdict(lint_run *run, const char *path, bool as_expected,
                          FILE *out) {
  const lctx_lint_report *report = &run->report;
  lctx_buf e;
  lctx_buf_init(&e, run->message, sizeof run->message);
  lctx_escaped b;
  if (run->file.has_expect)
    fprintf(out,
            "%s: %s %s (expected %s; %zu lowerings, %zu of %zu "
            "configurations skipped)\n",
            lctx_esc(&b, path), as_expected ? "ok" : "MISMATCH",
            report->safe ? "safe" : "unsafe",
            run->file.expect_safe ? "safe" : "unsafe", report->lowerings,
            report->skipped, report->configurations);
  else
    fprintf(out,
            "%s: %s (no expect line; %zu lowerings, %zu of %zu "
            "configurations skipped)\n",
            lctx_esc(&b, path), report->safe ? "SAFE" : "UNSAFE",
            report->lowerings, report->skipped, report->configurations);
  if (run->file.old_spelling_line)
    fprintf(out,
            "%s:%d:%d: note: compute_type \"T\" is the older spelling; "
            "write compute_type=\"T\" as .case files do\n",
            lctx_esc(&b, path), run->file.old_spelling_line,
            run->file.old_spelling_col);
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
    lctx_escape_built_lines(out, "", run->message);
    if (run->case_dir)
      write_case(run, path, out);
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
  /* Without an expect line the verdict is the result: unsafe fails. */
  bool as_expected = run->file.has_expect
                         ? run->report.safe == run->file.expect_safe
                         : run->report.safe;
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

/* The Python that runs the static check of Python files: --python, else
 * $LCTX_PYTHON, else python3 on PATH. */
static const char *python_program(const lint_run *run) {
  if (run->python && *run->python)
    return run->python;
  const char *env = getenv("LCTX_PYTHON");
  return env && *env ? env : "python3";
}

/* Runs the static check of Python lowering code over `paths` and passes
 * its findings (to `out`), its messages (to `err`) and its exit status
 * through. Returns an exit code. */
static int lint_python(lint_run *run, char *const *paths, size_t count,
                       FILE *out, FILE *err) {
  const char *python = python_program(run);
  char adapters[LCTX_DATA_PATH_MAX + 64];
  const lctx_data_paths *d = lctx_data_paths_current();
  if (!lctx_data_join(adapters, sizeof adapters, d->dir,
                      "conformance/adapters")) {
    fprintf(err, "lctx lint: the data folder's path is too long\n");
    return LCTX_EXIT_USAGE;
  }
  lctx_buf e;
  lctx_buf_init(&e, run->message, sizeof run->message);
  lctx_lint_python_result r;
  lctx_escaped b1, b2;
  if (!lctx_lint_python_run(python, adapters, paths, count, &r, &e)) {
    fprintf(err, "lctx lint: %s\n", lctx_esc(&b1, run->message));
    return LCTX_EXIT_USAGE;
  }
  if (r.findings[0])
    lctx_escape_lines(out, "", r.findings);
  if (r.errors[0])
    lctx_escape_lines(err, "", r.errors);
  int code = r.exit_code;
  if (code < 0 || code > LCTX_EXIT_USAGE || !r.wrote_findings) {
    fprintf(err,
            "lctx lint: the static check of Python files (%s -m "
            "lctx_jax.lint, PYTHONPATH %s) %s%s\n",
            lctx_esc(&b1, python), lctx_esc(&b2, adapters), r.how,
            r.wrote_findings ? "" : " without writing its findings");
    code = LCTX_EXIT_USAGE;
  }
  lctx_lint_python_free(&r);
  return code;
}

/* Lints the command line's paths from `first`: the Python ones in one run
 * of the Python check, the others as rule files. Returns an exit code. */
static int lint_all(lint_run *run, int argc, char **argv, int first, FILE *out,
                    FILE *err) {
  char **python = calloc((size_t)argc, sizeof *python);
  if (!python) {
    fprintf(err, "lctx lint: out of memory\n");
    return LCTX_EXIT_USAGE;
  }
  size_t count = 0;
  bool rules = false;
  int worst = LCTX_EXIT_OK;
  for (int i = first; i < argc; i++) {
    if (lctx_lint_python_path(argv[i])) {
      python[count++] = argv[i];
      continue;
    }
    rules = true;
    int rc = lint_path(run, argv[i], out, err);
    worst = rc > worst ? rc : worst;
  }
  if (rules)
    fprintf(out, "lctx lint: %zu file%s, %s\n", run->files,
            run->files == 1 ? "" : "s",
            worst == LCTX_EXIT_OK ? "every verdict as expected"
            : worst == LCTX_EXIT_VIOLATIONS
                ? "VERDICTS DIFFER FROM EXPECT (or unsafe, without one)"
                : "BAD INPUT");
  if (count > 0) {
    int rc = lint_python(run, python, count, out, err);
    worst = rc > worst ? rc : worst;
  }
  free(python);
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
      lctx_options_string("write-case", &run->case_dir, "DIR",
                          "write each unsafe file's smallest failing point "
                          "as\nDIR/STEM.case, with the reference's outcomes "
                          "(default: not written)"),
      lctx_options_string("python", &run->python, "PATH",
                          "the Python that checks .py files (default: "
                          "$LCTX_PYTHON,\nelse python3 on PATH)"),
  };
  const lctx_option_spec spec =
      LCTX_OPTIONS_SPEC("lint", "usage: " LINT_USAGE "\n", options, true);
  int first, worst = lctx_options_command(&spec, argc, argv, &first, out, err);
  if (worst == LCTX_OPTIONS_GO_ON && first >= argc) {
    fprintf(
        err,
        "lctx lint: missing RULEFILE, FILE.py or directory (usage: " LINT_USAGE
        ")\n");
    worst = LCTX_EXIT_USAGE;
  }
  if (worst != LCTX_OPTIONS_GO_ON) {
    free(run);
    return worst;
  }
  worst = LCTX_EXIT_OK;
  struct stat st;
  if (run->case_dir &&
      (stat(run->case_dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
    lctx_escaped b;
    fprintf(err, "lctx lint: --write-case: %s is not a directory\n",
            lctx_esc(&b, run->case_dir));
    free(run);
    return LCTX_EXIT_USAGE;
  }
  worst = lint_all(run, argc, argv, first, out, err);
  free(run);
  return worst;
}
