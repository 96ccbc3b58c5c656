/*
 * lint.c - `lctx lint` (see lint.h).
 */
#include "lint.h"

#include "case_text.h"
#include "cli.h"
#include "domain.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const PLATFORMS[] = {"cpu", "tpu", "cuda", "rocm", "gpu"};
#define PLATFORM_COUNT (sizeof PLATFORMS / sizeof PLATFORMS[0])
/* Pinned backends: none, then a client on each platform. */
#define PIN_COUNT (PLATFORM_COUNT + 1)

/* Working storage for one file (large: kept off the stack). */
typedef struct lint_state {
  lctx_case c;
  lctx_registry_config config;
  lctx_lowering_registry lowering;
  lctx_lowering_result result;
  /* Per pinned backend: did each single platform raise, and how. */
  bool single_raises[PLATFORM_COUNT];
  lctx_outcome single[PLATFORM_COUNT];
  bool found;
  size_t best_factories;
} lint_state;

static const char *limit_name(lctx_lowering_limit limit) {
  switch (limit) {
  case LCTX_LOWERING_LIMIT_EVENTS:
    return "too many events";
  case LCTX_LOWERING_LIMIT_DEPTH:
    return "lower_fun nested too deep";
  case LCTX_LOWERING_LIMIT_BAD_ID:
    return "an unknown primitive or rule id";
  default:
    return "none";
  }
}

/* Lowers the file's primitive at one point into s->result. Returns false
 * when the model stopped at a limit. */
static bool lower(lint_state *s, const size_t *platforms, size_t count,
                  size_t pin) {
  lctx_registry backends;
  lctx_registry_init(&backends, &s->config);
  lctx_lowering_context ctx;
  lctx_lowering_context_init(&ctx);
  for (size_t i = 0; i < count; i++)
    lctx_module_context_add_platform(
        &ctx.module, lctx_str_from_cstr(PLATFORMS[platforms[i]]));
  if (pin > 0)
    lctx_module_context_pin(&ctx.module,
                            lctx_str_from_cstr(PLATFORMS[pin - 1]));
  ctx.dim_var_count = count > 1 ? 1 : 0;
  lctx_lowering_lower_eqn(&s->lowering, &backends, &ctx, 0, &s->result);
  return s->result.limit == LCTX_LOWERING_LIMIT_NONE;
}

static void describe_point(const lctx_lint_point *p, lctx_buf *out) {
  lctx_buf_append_cstr(out, "configuration ");
  lctx_buf_append_int(out, (long long)p->registry);
  lctx_buf_append_cstr(out, ", platforms [");
  for (size_t i = 0; i < p->platform_count; i++) {
    lctx_buf_append_cstr(out, i ? ", '" : "'");
    lctx_buf_append_cstr(out, p->platforms[i]);
    lctx_buf_append_char(out, '\'');
  }
  lctx_buf_append_cstr(out, "], pinned ");
  lctx_buf_append_cstr(out, p->pinned ? p->pinned : "none");
}

static bool limit_error(lint_state *s, const lctx_lint_point *p,
                        lctx_buf *error) {
  lctx_buf_append_cstr(error, "the lowering model stopped at a limit (");
  lctx_buf_append_cstr(error, limit_name(s->result.limit));
  lctx_buf_append_cstr(error, ") at ");
  describe_point(p, error);
  return false;
}

static void fill_point(lctx_lint_point *p, size_t registry,
                       const size_t *platforms, size_t count, size_t pin) {
  p->registry = registry;
  p->platform_count = count;
  for (size_t i = 0; i < count; i++)
    p->platforms[i] = PLATFORMS[platforms[i]];
  p->pinned = pin ? PLATFORMS[pin - 1] : NULL;
}

/* Checks every multi-platform list of `count` platforms for one
 * configuration and pinned backend. */
static bool check_lists(lint_state *s, lctx_lint_report *report,
                        size_t registry, size_t pin, size_t count,
                        lctx_buf *error) {
  size_t total = 1;
  for (size_t i = 0; i < count; i++)
    total *= PLATFORM_COUNT;
  for (size_t code = 0; code < total; code++) {
    size_t list[LCTX_LINT_MAX_PLATFORMS];
    size_t rest = code;
    for (size_t i = count; i-- > 0;) {
      list[i] = rest % PLATFORM_COUNT;
      rest /= PLATFORM_COUNT;
    }
    report->lowerings++;
    if (!lower(s, list, count, pin)) {
      lctx_lint_point p;
      fill_point(&p, registry, list, count, pin);
      return limit_error(s, &p, error);
    }
    if (s->result.outcome.kind != LCTX_OUTCOME_RAISE)
      continue;
    report->multi_raises++;
    bool explained = false;
    for (size_t i = 0; i < count && !explained; i++)
      explained = s->single_raises[list[i]];
    if (explained) {
      report->explained++;
      continue;
    }
    size_t factories = s->config.factory_count;
    bool better = !s->found || count < report->counterexample.platform_count ||
                  (count == report->counterexample.platform_count &&
                   factories < s->best_factories);
    if (!better)
      continue;
    s->found = true;
    s->best_factories = factories;
    fill_point(&report->counterexample, registry, list, count, pin);
    report->outcome = s->result.outcome;
    for (size_t i = 0; i < count; i++)
      report->singles[i] = s->single[list[i]];
  }
  return true;
}

bool lctx_lint_file(const lctx_rulefile *file, lctx_lint_report *report,
                    lctx_buf *error) {
  memset(report, 0, sizeof *report);
  lint_state *s = calloc(1, sizeof *s);
  if (!s) {
    lctx_buf_append_cstr(error, "out of memory");
    return false;
  }
  bool ok = true;
  size_t count = lctx_domain_registry_count();
  for (size_t r = 0; r < count && ok; r++) {
    lctx_domain_registry(r, &s->c);
    lctx_case_config(&s->c, &s->config);
    report->configurations++;
    lctx_outcome raised;
    if (!lctx_rulefile_build(file, &s->config, &s->lowering, &raised)) {
      if (report->skipped++ == 0) {
        report->first_skipped = r;
        report->skip_reason = raised;
      }
      continue;
    }
    for (size_t pin = 0; pin < PIN_COUNT && ok; pin++) {
      for (size_t k = 0; k < PLATFORM_COUNT && ok; k++) {
        report->lowerings++;
        if (!lower(s, &k, 1, pin)) {
          lctx_lint_point p;
          fill_point(&p, r, &k, 1, pin);
          ok = limit_error(s, &p, error);
          break;
        }
        s->single[k] = s->result.outcome;
        s->single_raises[k] = s->result.outcome.kind == LCTX_OUTCOME_RAISE;
      }
      for (size_t n = 2; n <= LCTX_LINT_MAX_PLATFORMS && ok; n++)
        ok = check_lists(s, report, r, pin, n, error);
    }
  }
  report->safe = !s->found;
  free(s);
  return ok;
}

static void append_outcome(lctx_buf *out, const lctx_outcome *o) {
  if (o->kind == LCTX_OUTCOME_RAISE) {
    lctx_buf_append_cstr(out, "raises ");
    lctx_outcome_format(o, out);
  } else {
    lctx_buf_append_cstr(out, "succeeds");
  }
}

void lctx_lint_format_counterexample(const lctx_lint_report *report,
                                     const char *indent, lctx_buf *out) {
  const lctx_lint_point *p = &report->counterexample;
  static lctx_case c;
  static char text[LCTX_CASE_TEXT_MAX];
  const char *description = lctx_domain_registry(p->registry, &c);
  lctx_buf_append_cstr(out, indent);
  lctx_buf_append_cstr(out, "registry configuration ");
  lctx_buf_append_int(out, (long long)p->registry);
  lctx_buf_append_cstr(out, " (");
  lctx_buf_append_cstr(out, description);
  lctx_buf_append_cstr(out, "):\n");
  lctx_buf t;
  lctx_buf_init(&t, text, sizeof text);
  lctx_case_print(&c, &t);
  if (c.factory_count == 0) {
    lctx_buf_append_cstr(out, indent);
    lctx_buf_append_cstr(out, "  (no factories)\n");
  }
  /* The case text, one indented line each, without its header. */
  const char *line = text;
  while (*line) {
    const char *end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) : strlen(line);
    if (n > 0 && strncmp(line, "lctx-case", 9) != 0) {
      lctx_buf_append_cstr(out, indent);
      lctx_buf_append_cstr(out, "  ");
      lctx_buf_append(out, line, n);
      lctx_buf_append_char(out, '\n');
    }
    line += n + (end ? 1 : 0);
  }
  lctx_buf_append_cstr(out, indent);
  lctx_buf_append_cstr(out, "module platforms: [");
  for (size_t i = 0; i < p->platform_count; i++) {
    lctx_buf_append_cstr(out, i ? ", '" : "'");
    lctx_buf_append_cstr(out, p->platforms[i]);
    lctx_buf_append_char(out, '\'');
  }
  lctx_buf_append_cstr(out, "] (platform index present)\n");
  lctx_buf_append_cstr(out, indent);
  lctx_buf_append_cstr(out, "pinned backend: ");
  if (p->pinned) {
    lctx_buf_append_cstr(out, "a client whose platform is '");
    lctx_buf_append_cstr(out, p->pinned);
    lctx_buf_append_cstr(out, "'\n");
  } else {
    lctx_buf_append_cstr(out, "none\n");
  }
  lctx_buf_append_cstr(out, indent);
  lctx_buf_append_cstr(out, "multi-platform lowering ");
  append_outcome(out, &report->outcome);
  lctx_buf_append_char(out, '\n');
  for (size_t i = 0; i < p->platform_count; i++) {
    lctx_buf_append_cstr(out, indent);
    lctx_buf_append_cstr(out, "  alone ['");
    lctx_buf_append_cstr(out, p->platforms[i]);
    lctx_buf_append_cstr(out, "'] ");
    append_outcome(out, &report->singles[i]);
    lctx_buf_append_char(out, '\n');
  }
}

//===----------------------------------------------------------------------===//
// The command
//===----------------------------------------------------------------------===//

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
