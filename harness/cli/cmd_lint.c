/*
 * cmd_lint.c - `lctx lint` (see commands.h): prints the verdict of each rule
 * file (core/judge/lint.h) and compares it with the file's `expect` line.
 */
#include "commands.h"

#include "cli.h"
#include "lint.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lints one file and prints its verdict. Returns an exit code. */
static int lint_one(const char *path, bool quiet, FILE *out, FILE *err) {
  static lctx_rulefile file;
  static lctx_lint_report report;
  static char message[16384];
  lctx_buf e;
  lctx_buf_init(&e, message, sizeof message);
  if (!lctx_rulefile_load(path, &file, &e)) {
    fprintf(err, "lctx lint: %s\n", message);
    return LCTX_EXIT_USAGE;
  }
  if (!lctx_lint_file(&file, &report, &e)) {
    fprintf(err, "lctx lint: %s: %s\n", path, message);
    return LCTX_EXIT_USAGE;
  }
  bool as_expected = report.safe == file.expect_safe;
  const char *verdict = report.safe ? "safe" : "unsafe";
  if (!quiet || !as_expected) {
    fprintf(out,
            "%s: %s %s (expected %s; %zu lowerings, %zu of %zu "
            "configurations skipped)\n",
            path, as_expected ? "ok" : "MISMATCH", verdict,
            file.expect_safe ? "safe" : "unsafe", report.lowerings,
            report.skipped, report.configurations);
    if (report.skipped) {
      lctx_buf_reset(&e);
      lctx_outcome_format(&report.skip_reason, &e);
      fprintf(out,
              "  first skipped: configuration %zu, registration "
              "raised %s\n",
              report.first_skipped, message);
    }
    if (!report.safe) {
      lctx_buf_reset(&e);
      lctx_lint_format_counterexample(&report, "  ", &e);
      fprintf(out, "  smallest failing point:\n%s", message);
    }
  }
  return as_expected ? LCTX_EXIT_OK : LCTX_EXIT_VIOLATIONS;
}

/* Lints every *.rule file of a directory, sorted by name. */
static int lint_dir(const char *path, bool quiet, size_t *files, FILE *out,
                    FILE *err) {
  DIR *d = opendir(path);
  if (!d) {
    fprintf(err, "lctx lint: %s: cannot open: %s\n", path, strerror(errno));
    return LCTX_EXIT_USAGE;
  }
  size_t count = 0, capacity = 0;
  char **names = NULL;
  int worst = LCTX_EXIT_OK;
  struct dirent *entry;
  while ((entry = readdir(d)) != NULL) {
    size_t n = strlen(entry->d_name);
    if (n < 6 || strcmp(entry->d_name + n - 5, ".rule") != 0)
      continue;
    if (count == capacity) {
      capacity = capacity ? 2 * capacity : 16;
      char **grown = realloc(names, capacity * sizeof *names);
      if (!grown) {
        worst = LCTX_EXIT_USAGE;
        break;
      }
      names = grown;
    }
    size_t size = strlen(path) + n + 2;
    names[count] = malloc(size);
    if (!names[count]) {
      worst = LCTX_EXIT_USAGE;
      break;
    }
    snprintf(names[count], size, "%s/%s", path, entry->d_name);
    count++;
  }
  closedir(d);
  if (worst != LCTX_EXIT_OK)
    fprintf(err, "lctx lint: %s: out of memory\n", path);
  if (count > 1)
    qsort(names, count, sizeof *names, compare_names);
  for (size_t i = 0; i < count; i++) {
    int rc = lint_one(names[i], quiet, out, err);
    worst = rc > worst ? rc : worst;
    (*files)++;
    free(names[i]);
  }
  free(names);
  if (count == 0) {
    fprintf(err, "lctx lint: %s: no .rule files\n", path);
    return LCTX_EXIT_USAGE;
  }
  return worst;
}

int lctx_cmd_lint(int argc, char **argv, FILE *out, FILE *err) {
  bool quiet = false;
  int first = 1;
  for (; first < argc; first++) {
    if (strcmp(argv[first], "--quiet") == 0) {
      quiet = true;
    } else if (strcmp(argv[first], "--") == 0) {
      first++;
      break;
    } else if (argv[first][0] == '-' && argv[first][1] != '\0') {
      fprintf(err,
              "lctx lint: unknown option '%s' (usage: lctx lint [--quiet] "
              "RULEFILE|DIR...)\n",
              argv[first]);
      return LCTX_EXIT_USAGE;
    } else {
      break;
    }
  }
  if (first >= argc) {
    fprintf(err, "lctx lint: missing RULEFILE or directory (usage: lctx lint "
                 "[--quiet] RULEFILE|DIR...)\n");
    return LCTX_EXIT_USAGE;
  }
  int worst = LCTX_EXIT_OK;
  size_t files = 0;
  for (int i = first; i < argc; i++) {
    struct stat st;
    int rc;
    if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
      rc = lint_dir(argv[i], quiet, &files, out, err);
    } else {
      rc = lint_one(argv[i], quiet, out, err);
      files++;
    }
    worst = rc > worst ? rc : worst;
  }
  fprintf(out, "lctx lint: %zu file%s, %s\n", files, files == 1 ? "" : "s",
          worst == LCTX_EXIT_OK           ? "every verdict as expected"
          : worst == LCTX_EXIT_VIOLATIONS ? "VERDICTS DIFFER FROM EXPECT"
                                          : "BAD INPUT");
  return worst;
}
