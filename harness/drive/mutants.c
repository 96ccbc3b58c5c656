/*
 * mutants.c - the kill matrix of the example plugin's mutants (see
 * mutants.h).
 */
#include "mutants.h"

#include "case_bytes.h"
#include "conform.h"
#include "escape.h"
#include "exit.h"
#include "file.h"
#include "lctx/lctx.h"
#include "oracle.h"
#include "peer.h"
#include "sys.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef LCTX_SOURCE_DIR
#define LCTX_SOURCE_DIR "."
#endif
#ifndef LCTX_MUTANTS_DIR
#define LCTX_MUTANTS_DIR "conformance/mutants"
#endif
#ifndef LCTX_EXAMPLE_PLUGIN
#define LCTX_EXAMPLE_PLUGIN "liblctx_example_plugin.so"
#endif

#define MAX_MUTANTS 256
#define MAX_EXPECTED 24
#define PATH_CAP 4096

/* The two corpora a fuzz run can start from. */
enum { START_SEEDS = 0, START_EMPTY = 1, START_COUNT = 2 };
static const char *const START_NAMES[START_COUNT] = {"seeds", "empty"};
static const char *const START_TITLES[START_COUNT] = {"fuzz from seeds",
                                                      "fuzz from empty corpus"};

typedef struct mutant {
  char name[64];
  char description[512];
  char note[512]; /* optional: why a fuzzer may miss it */
  char expected[MAX_EXPECTED][LCTX_SPEC_MAX_ID];
  size_t expected_count;
  int line;
  char library[PATH_CAP];
} mutant;

typedef enum kill_status {
  K_NOT_RUN = 0,
  K_KILLED,
  K_LIVED,
  K_ERROR
} kill_status;

static const char *const STATUS_NAMES[] = {"not run", "killed", "lived",
                                           "error"};

typedef struct kill_cell {
  kill_status status;
  double seconds;             /* to the kill, or the whole run */
  double wall;                /* conform: the whole command */
  char row[LCTX_SPEC_MAX_ID]; /* the first row that caught it, or "" */
  bool row_expected;          /* the row is one the list expects */
  char detail[1024];          /* conform: the failure; fuzz: the key */
  bool by_seed;               /* fuzz: while running the start corpus */
  unsigned long long execs;   /* fuzz: inputs run */
  char reached[1024];         /* fuzz, lived: expected rows the corpus hit */
} kill_cell;

/* One run: everything lctx_mutants_run works with, passed down to every
 * step (heap-allocated: the mutants and their cells are large). */
typedef struct state {
  lctx_mutants_options o;
  bool starts[START_COUNT]; /* the fuzz runs' starting corpora */
  lctx_spec spec;
  mutant mutants[MAX_MUTANTS];
  size_t count;
  kill_cell conform[MAX_MUTANTS];
  kill_cell fuzz[MAX_MUTANTS][START_COUNT];
  kill_cell control_conform;
  kill_cell control_fuzz[START_COUNT];
  char fuzz_args[16][PATH_CAP]; /* from <fuzzer>.options */
  size_t fuzz_arg_count;
  char seeds_dir[PATH_CAP];
  lctx_conform_report report; /* of the last conform run */
  lctx_oracle oracle;         /* what a corpus reaches */
  lctx_case scratch;          /* an input of a corpus */
} state;

/* Reads the first `cap - 1` bytes of a file (a log, a fuzz input: what
 * follows does not count), NUL-terminated; NULL if it cannot be read. The
 * caller frees. */
static char *read_head(const char *path, size_t cap, size_t *length) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  char *text = malloc(cap);
  if (!text) {
    fclose(f);
    return NULL;
  }
  size_t n = fread(text, 1, cap - 1, f);
  fclose(f);
  text[n] = '\0';
  if (length)
    *length = n;
  return text;
}

static void copy_field(char *dst, size_t cap, const char *s, size_t n) {
  if (n >= cap)
    n = cap - 1;
  memcpy(dst, s, n);
  dst[n] = '\0';
}

/* The N bytes at S, escaped for a terminal into B (escape.h). */
static const char *esc_n(lctx_escaped *b, const char *s, size_t n) {
  char tmp[sizeof b->text];
  copy_field(tmp, sizeof tmp, s, n);
  return lctx_esc(b, tmp);
}

//===----------------------------------------------------------------------===//
// The list (conformance/mutants/MUTANTS)
//===----------------------------------------------------------------------===//

/* Trims blanks around [*s, *e). */
static void trim(const char **s, const char **e) {
  while (*s < *e && (**s == ' ' || **s == '\t'))
    (*s)++;
  while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t' || (*e)[-1] == '\r'))
    (*e)--;
}

static bool valid_name(const char *s, size_t n) {
  if (n == 0 || n >= 64)
    return false;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              (i > 0 && (c == '-' || c == '_'));
    if (!ok)
      return false;
  }
  return true;
}

/* Parses the expected rows "ROW, ROW, ...". */
static bool parse_rows(state *st, mutant *m, const char *s, const char *e,
                       const char *line, FILE *err) {
  lctx_escaped pb, b1, b2;
  const char *path = lctx_esc(&pb, st->o.list_path);
  while (s < e) {
    const char *comma = memchr(s, ',', (size_t)(e - s));
    const char *end = comma ? comma : e;
    const char *a = s, *b = end;
    trim(&a, &b);
    if (a == b) {
      fprintf(err, "lctx mutants: %s:%d:%d: an empty row id\n", path, m->line,
              (int)(a - line) + 1);
      return false;
    }
    char id[LCTX_SPEC_MAX_ID + 8];
    copy_field(id, sizeof id, a, (size_t)(b - a));
    if ((size_t)(b - a) >= LCTX_SPEC_MAX_ID || !lctx_spec_find(&st->spec, id)) {
      fprintf(err,
              "lctx mutants: %s:%d:%d: unknown spec row '%s' (rows are the "
              "ids of %s)\n",
              path, m->line, (int)(a - line) + 1,
              esc_n(&b1, a, (size_t)(b - a)), lctx_esc(&b2, st->spec.filename));
      return false;
    }
    if (m->expected_count == MAX_EXPECTED) {
      fprintf(err, "lctx mutants: %s:%d:%d: more than %d rows\n", path, m->line,
              (int)(a - line) + 1, MAX_EXPECTED);
      return false;
    }
    snprintf(m->expected[m->expected_count++], LCTX_SPEC_MAX_ID, "%s", id);
    s = comma ? comma + 1 : e;
  }
  if (m->expected_count == 0) {
    fprintf(err,
            "lctx mutants: %s:%d: no rows: name the spec rows expected to "
            "catch the mutant\n",
            path, m->line);
    return false;
  }
  return true;
}

/* One line "NAME | description | rows [| note]". */
static bool parse_line(state *st, const char *line, const char *end, int number,
                       FILE *err) {
  lctx_escaped pb, b1;
  const char *path = lctx_esc(&pb, st->o.list_path);
  const char *fields[5], *ends[5];
  size_t n = 0;
  const char *s = line;
  for (;;) {
    const char *bar = memchr(s, '|', (size_t)(end - s));
    if (n == 4) {
      fprintf(err,
              "lctx mutants: %s:%d:%d: too many fields (NAME | description "
              "| rows [| why a fuzzer may miss it])\n",
              path, number, (int)(s - line));
      return false;
    }
    fields[n] = s;
    ends[n] = bar ? bar : end;
    trim(&fields[n], &ends[n]);
    n++;
    if (!bar)
      break;
    s = bar + 1;
  }
  if (n < 3) {
    fprintf(err,
            "lctx mutants: %s:%d:%d: expected NAME | description | rows, "
            "found %zu field%s\n",
            path, number, (int)(end - line) + 1, n, n == 1 ? "" : "s");
    return false;
  }
  if (st->count == MAX_MUTANTS) {
    fprintf(err, "lctx mutants: %s:%d: more than %d mutants\n", path, number,
            MAX_MUTANTS);
    return false;
  }
  mutant *m = &st->mutants[st->count];
  memset(m, 0, sizeof *m);
  m->line = number;
  size_t name_length = (size_t)(ends[0] - fields[0]);
  if (!valid_name(fields[0], name_length)) {
    fprintf(err,
            "lctx mutants: %s:%d:%d: '%s' is not a mutant name (lowercase "
            "letters, digits, '-' and '_', at most 63)\n",
            path, number, (int)(fields[0] - line) + 1,
            esc_n(&b1, fields[0], name_length));
    return false;
  }
  copy_field(m->name, sizeof m->name, fields[0], name_length);
  for (size_t i = 0; i < st->count; i++) {
    if (strcmp(st->mutants[i].name, m->name) == 0) {
      fprintf(err, "lctx mutants: %s:%d:%d: %s is listed twice (line %d)\n",
              path, number, (int)(fields[0] - line) + 1, m->name,
              st->mutants[i].line);
      return false;
    }
  }
  if (fields[1] == ends[1] || (size_t)(ends[1] - fields[1]) >= 512) {
    fprintf(err,
            "lctx mutants: %s:%d:%d: the description must be one line of 1 "
            "to 511 bytes\n",
            path, number, (int)(fields[1] - line) + 1);
    return false;
  }
  copy_field(m->description, sizeof m->description, fields[1],
             (size_t)(ends[1] - fields[1]));
  if (!parse_rows(st, m, fields[2], ends[2], line, err))
    return false;
  if (n == 4)
    copy_field(m->note, sizeof m->note, fields[3],
               (size_t)(ends[3] - fields[3]));
  st->count++;
  return true;
}

/* The folder of the list file, where NAME.mutant files live. */
static void list_folder(const state *st, char *out, size_t cap) {
  snprintf(out, cap, "%s", st->o.list_path);
  char *slash = strrchr(out, '/');
  if (slash)
    *slash = '\0';
  else
    snprintf(out, cap, ".");
}

static bool listed(const state *st, const char *name, size_t n) {
  for (size_t i = 0; i < st->count; i++)
    if (strlen(st->mutants[i].name) == n &&
        strncmp(st->mutants[i].name, name, n) == 0)
      return true;
  return false;
}
/* The first `*.mutant` file of a folder that the list does not name. */
typedef struct unlisted_walk {
  const state *st;
  char first[256];
} unlisted_walk;

static void find_unlisted(void *user, const char *path) {
  unlisted_walk *w = user;
  const char *name = strrchr(path, '/');
  name = name ? name + 1 : path;
  size_t n = strlen(name);
  if (!w->first[0] && n > 7 && n < sizeof w->first &&
      strcmp(name + n - 7, ".mutant") == 0 && !listed(w->st, name, n - 7))
    snprintf(w->first, sizeof w->first, "%s", name);
}

static bool load_list(state *st, FILE *err) {
  size_t length;
  char *text, why[PATH_CAP + 128];
  lctx_buf eb;
  lctx_buf_init(&eb, why, sizeof why);
  lctx_escaped b1, b2, b3, b4;
  if (!lctx_file_read(st->o.list_path, (1u << 20) - 1, &text, &length, &eb)) {
    fprintf(err, "lctx mutants: --list: %s\n", lctx_esc(&b1, why));
    return false;
  }
  bool ok = true;
  int number = 0;
  for (const char *line = text; ok && line < text + length;) {
    const char *nl = memchr(line, '\n', (size_t)(text + length - line));
    const char *end = nl ? nl : text + length;
    number++;
    const char *s = line, *e = end;
    trim(&s, &e);
    if (s < e && *s != '#')
      ok = parse_line(st, line, end, number, err);
    line = nl ? nl + 1 : text + length;
  }
  free(text);
  if (!ok)
    return false;
  if (st->count == 0) {
    fprintf(err, "lctx mutants: %s: no mutants listed\n",
            lctx_esc(&b1, st->o.list_path));
    return false;
  }
  /* Every listed mutant has its file, and every file is listed. */
  char folder[PATH_CAP];
  list_folder(st, folder, sizeof folder);
  for (size_t i = 0; i < st->count; i++) {
    char path[PATH_CAP + 80];
    snprintf(path, sizeof path, "%s/%s.mutant", folder, st->mutants[i].name);
    if (!lctx_sys_is_file(path)) {
      fprintf(err, "lctx mutants: %s:%d: %s is listed, but %s is missing\n",
              lctx_esc(&b1, st->o.list_path), st->mutants[i].line,
              lctx_esc(&b2, st->mutants[i].name), lctx_esc(&b3, path));
      return false;
    }
  }
  unlisted_walk walk = {st, ""};
  lctx_sys_each_entry(folder, find_unlisted, &walk);
  if (walk.first[0]) {
    size_t n = strlen(walk.first);
    fprintf(err,
            "lctx mutants: %s/%s is not listed in %s (add one line: %s | "
            "what is wrong | rows expected to catch it)\n",
            lctx_esc(&b1, folder), lctx_esc(&b2, walk.first),
            lctx_esc(&b3, st->o.list_path), esc_n(&b4, walk.first, n - 7));
    return false;
  }
  return true;
}

/* Keeps only the mutants named in --only (comma-separated). */
static bool select_only(state *st, FILE *err) {
  if (!st->o.only)
    return true;
  bool keep[MAX_MUTANTS] = {false};
  const char *s = st->o.only;
  while (*s) {
    const char *comma = strchr(s, ',');
    size_t n = comma ? (size_t)(comma - s) : strlen(s);
    bool found = false;
    for (size_t i = 0; i < st->count; i++) {
      if (strlen(st->mutants[i].name) == n &&
          strncmp(st->mutants[i].name, s, n) == 0) {
        keep[i] = found = true;
      }
    }
    if (!found) {
      lctx_escaped b1, b2;
      fprintf(err, "lctx mutants: --only: no mutant '%s' in %s\n",
              esc_n(&b1, s, n), lctx_esc(&b2, st->o.list_path));
      return false;
    }
    s = comma ? comma + 1 : s + n;
  }
  size_t k = 0;
  for (size_t i = 0; i < st->count; i++)
    if (keep[i])
      st->mutants[k++] = st->mutants[i];
  st->count = k;
  return true;
}

static bool find_libraries(state *st, FILE *err) {
  for (size_t i = 0; i < st->count; i++) {
    mutant *m = &st->mutants[i];
    snprintf(m->library, sizeof m->library, "%s/%s.so", st->o.dir, m->name);
    lctx_escaped b;
    if (!lctx_sys_is_file(m->library)) {
      fprintf(err,
              "lctx mutants: %s: no such library; build the mutants first "
              "(cmake --build --preset PRESET --target lctx_mutants), or "
              "name their folder with --dir\n",
              lctx_esc(&b, m->library));
      return false;
    }
  }
  return true;
}

static bool expected_row(const mutant *m, const char *row) {
  for (size_t i = 0; i < m->expected_count; i++)
    if (strcmp(m->expected[i], row) == 0)
      return true;
  return false;
}

//===----------------------------------------------------------------------===//
// Conform
//===----------------------------------------------------------------------===//

/* Writes conform's first failure, naming the case file for "cases case N,
 * ..."; conform's text names every verdict but a plain fail. */
static void describe_failure(const lctx_conform_report *report, char *out,
                             size_t cap) {
  const lctx_conform_row *row = &report->rows[report->first_failure_row];
  bool fail = report->first_failure_verdict == LCTX_CONFORM_FAIL;
  const char *prefix = fail ? "fail: " : "";
  unsigned long n;
  int used = 0;
  if (row->first_case[0] &&
      sscanf(row->first, "cases case %lu,%n", &n, &used) == 1 && used > 0)
    snprintf(out, cap, "%s%s,%s", prefix, row->first_case, row->first + used);
  else
    snprintf(out, cap, "%s%s", prefix, row->first);
}

/* Judges `library` with conform, stopping at the first failure, reports in
 * `dir` and conform's output in dir/conform.log; `quick`: the conformance
 * cases and 1000 random cases only. */
static void run_conform(state *st, const char *library, const char *dir,
                        bool quick, kill_cell *k) {
  memset(k, 0, sizeof *k);
  char log_path[PATH_CAP + 32];
  snprintf(log_path, sizeof log_path, "%s/conform.log", dir);
  FILE *log = lctx_sys_mkdir_p(dir) ? fopen(log_path, "w") : NULL;
  if (!log) {
    k->status = K_ERROR;
    snprintf(k->detail, sizeof k->detail, "%s: %s", dir, strerror(errno));
    return;
  }
  lctx_conform_options o;
  lctx_conform_options_init(&o);
  o.impl_path = library;
  o.report_dir = dir;
  o.quiet = o.first_failure = true;
  o.batch = 32; /* small batches: conform judges the first cases sooner */
  o.handle_signals = false;
  if (quick) {
    o.domain = false;
    o.random = 1000;
  }
  double start = lctx_sys_now();
  int code = lctx_conform_run(&o, &st->report, log, log);
  fclose(log);
  k->seconds = k->wall = lctx_sys_now() - start;
  const lctx_conform_report *report = &st->report;
  if (code == LCTX_EXIT_USAGE) {
    k->status = K_ERROR;
    snprintf(k->detail, sizeof k->detail,
             "lctx conform exited with %d without a report; see %s", code,
             log_path);
  } else if (report->failed_once) {
    k->status = K_KILLED;
    /* The time to the first failing verdict, from conform's start. */
    k->seconds = report->first_failure_seconds;
    snprintf(k->row, sizeof k->row, "%s",
             report->rows[report->first_failure_row].id);
    describe_failure(report, k->detail, sizeof k->detail);
  } else if (code == LCTX_EXIT_OK) {
    k->status = K_LIVED;
    snprintf(k->detail, sizeof k->detail, "every operation passed");
  } else {
    k->status = K_ERROR;
    snprintf(k->detail, sizeof k->detail,
             "lctx conform exited with %d and no failing verdict; see %s", code,
             log_path);
  }
}

//===----------------------------------------------------------------------===//
// Fuzzing (fuzz_differential under libFuzzer)
//===----------------------------------------------------------------------===//

/* Reads `[libfuzzer]` options of <fuzzer>.options as -key=value arguments;
 * a `dict` is taken relative to the options file. */
static void load_fuzz_options(state *st) {
  char path[PATH_CAP + 16];
  snprintf(path, sizeof path, "%s.options", st->o.fuzzer);
  char *text;
  size_t length;
  st->fuzz_arg_count = 0;
  if (!lctx_file_read(path, 65535, &text, &length, NULL))
    return;
  char folder[PATH_CAP];
  snprintf(folder, sizeof folder, "%s", st->o.fuzzer);
  char *slash = strrchr(folder, '/');
  if (slash)
    *slash = '\0';
  else
    snprintf(folder, sizeof folder, ".");
  bool section = false;
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    if (line[0] == '[') {
      section = strncmp(line, "[libfuzzer]", 11) == 0;
      continue;
    }
    char *eq = strchr(line, '=');
    if (!section || !eq || line[0] == '#' || st->fuzz_arg_count == 16)
      continue;
    const char *ks = line, *ke = eq, *vs = eq + 1, *ve = eq + strlen(eq);
    trim(&ks, &ke);
    trim(&vs, &ve);
    char *arg = st->fuzz_args[st->fuzz_arg_count++];
    if ((size_t)(ke - ks) == 4 && strncmp(ks, "dict", 4) == 0 && *vs != '/')
      snprintf(arg, PATH_CAP, "-dict=%s/%.*s", folder, (int)(ve - vs), vs);
    else
      snprintf(arg, PATH_CAP, "-%.*s=%.*s", (int)(ke - ks), ks, (int)(ve - vs),
               vs);
  }
  free(text);
}

/* Copies one seed file into the folder `to` (not README.md). */
static void copy_seed(void *to, const char *src) {
  const char *name = strrchr(src, '/');
  name = name ? name + 1 : src;
  if (strcmp(name, "README.md") == 0)
    return;
  char dst[PATH_CAP + 256];
  snprintf(dst, sizeof dst, "%s/%s", (const char *)to, name);
  char *data;
  size_t n;
  if (!lctx_file_read(src, 1u << 16, &data, &n, NULL))
    return;
  lctx_sys_write_file(dst, data, n);
  free(data);
}

/* Copies the regular files at the top of `from` (not README.md, not hidden)
 * into `to`. */
static void copy_seeds(const char *from, const char *to) {
  lctx_sys_each_file(from, copy_seed, (void *)to);
}

static void remove_file(void *user, const char *path) {
  (void)user;
  unlink(path);
}

/* Removes the regular files of a folder (a corpus from an earlier run). */
static void empty_folder(const char *dir) {
  lctx_sys_each_file(dir, remove_file, NULL);
}

/* Runs the fuzzer with LCTX_DIFF_PLUGIN=library; returns the wait status
 * (or -1), sets *seconds. Killed past `hard_limit` seconds. */
static int spawn_fuzzer(const state *st, const char *library,
                        const char *corpus, const char *artifacts,
                        const char *log, double hard_limit, double *seconds) {
  char time_arg[64], seed_arg[64], artifact_arg[PATH_CAP + 32];
  snprintf(time_arg, sizeof time_arg, "-max_total_time=%.0f",
           st->o.fuzz_seconds);
  snprintf(seed_arg, sizeof seed_arg, "-seed=%llu", st->o.fuzz_seed);
  snprintf(artifact_arg, sizeof artifact_arg, "-artifact_prefix=%s/",
           artifacts);
  char *args[32];
  int n = 0;
  args[n++] = (char *)st->o.fuzzer;
  args[n++] = seed_arg;
  args[n++] = time_arg;
  args[n++] = "-timeout=10";
  args[n++] = "-print_final_stats=1";
  args[n++] = artifact_arg;
  for (size_t i = 0; i < st->fuzz_arg_count; i++)
    args[n++] = (char *)st->fuzz_args[i];
  args[n++] = (char *)corpus;
  args[n] = NULL;
  const char *env[] = {"LCTX_DIFF_PLUGIN", library, NULL};
  lctx_peer_spec child = {
      .argv = args, .log = log, .truncate_log = true, .env = env};
  return lctx_peer_run(&child, hard_limit, false, seconds, NULL);
}

/* The state of a walk over a corpus: the inputs judged so far. */
typedef struct reach_walk {
  state *st;
  size_t inputs;
} reach_walk;

/* Decodes one corpus input and runs it through the walk's oracle. */
static void reach_one(void *user, const char *path) {
  reach_walk *w = user;
  size_t n;
  char *data = read_head(path, LCTX_CASE_BYTES_MAX + 17, &n);
  if (!data)
    return;
  lctx_case_decode((const uint8_t *)data, n, &w->st->scratch);
  free(data);
  lctx_oracle_check_case(&w->st->oracle, &w->st->scratch);
  w->inputs++;
}

/* The spec rows the inputs of `corpus` reach, by the reference model. */
static void rows_reached(state *st, const mutant *m, const char *corpus,
                         kill_cell *k) {
  lctx_oracle *oracle = &st->oracle;
  lctx_oracle_init(oracle, &st->spec, lctx_engine_reference());
  oracle->invariants = false;
  reach_walk walk = {st, 0};
  lctx_sys_each_file(corpus, reach_one, &walk);
  size_t inputs = walk.inputs;
  size_t at = (size_t)snprintf(
      k->reached, sizeof k->reached,
      "corpus of %zu inputs; operations it ran per expected row:", inputs);
  for (size_t i = 0; i < m->expected_count && at < sizeof k->reached; i++) {
    const lctx_spec_row *row = lctx_spec_find(&st->spec, m->expected[i]);
    size_t hits = row ? oracle->hits[row - st->spec.rows] : 0;
    at += (size_t)snprintf(k->reached + at, sizeof k->reached - at, "%s %s %zu",
                           i ? "," : "", m->expected[i], hits);
  }
}

/* Copies the text after `prefix` on the line where it occurs. */
static bool line_after(const char *text, const char *prefix, char *out,
                       size_t cap) {
  const char *p = strstr(text, prefix);
  if (!p)
    return false;
  p += strlen(prefix);
  size_t n = strcspn(p, "\n");
  copy_field(out, cap, p, n);
  return true;
}

/* The cell of a run whose log holds the finding `key`. */
static void judge_finding(const mutant *m, const char *key, kill_cell *k) {
  snprintf(k->detail, sizeof k->detail, "%s", key);
  if (strncmp(key, "fuzz_differential/impl/", 23) != 0 &&
      strncmp(key, "fuzz_differential/differ/", 25) != 0) {
    k->status = K_ERROR; /* the reference, or no implementation */
    return;
  }
  k->status = K_KILLED;
  /* No row when the plugin failed to run an operation (impl/failed), or
   * when both outcomes were allowed but differ. */
  const char *row = strstr(key, "row=");
  if (row)
    copy_field(k->row, sizeof k->row, row + 4, strcspn(row + 4, "/"));
  else
    snprintf(k->row, sizeof k->row, "%s",
             strstr(key, "/differ/") ? "differ" : "failed");
  k->row_expected = !row || (m && expected_row(m, k->row));
}

/* The cell of a run that failed without a finding line: a sanitizer report
 * or a libFuzzer crash, timeout or OOM means the mutant broke the process,
 * which kills it. Returns where the log names the error, or NULL. */
static const char *judge_crash(const char *text, int status, const char *log,
                               kill_cell *k) {
  const char *error = strstr(text, "ERROR: ");
  if (!error)
    error = strstr(text, "runtime error: ");
  if (!error) {
    k->status = K_ERROR;
    snprintf(k->detail, sizeof k->detail,
             "the fuzzer ended (status %d) without a finding; see %s", status,
             log);
    return NULL;
  }
  k->status = K_KILLED;
  snprintf(k->row, sizeof k->row, "crash");
  k->row_expected = true;
  size_t n = strcspn(error, "\n"); /* its line, at most 511 bytes */
  copy_field(k->detail, sizeof k->detail, error, n < 511 ? n : 511);
  return error;
}

/* One bounded run of the fuzzer against `library` from `start`. */
static void run_fuzz(state *st, const mutant *m, const char *library,
                     const char *dir, int start, kill_cell *k) {
  memset(k, 0, sizeof *k);
  char corpus[PATH_CAP + 32], artifacts[PATH_CAP + 32], log[PATH_CAP + 32];
  snprintf(corpus, sizeof corpus, "%s/corpus", dir);
  snprintf(artifacts, sizeof artifacts, "%s/artifacts", dir);
  snprintf(log, sizeof log, "%s/fuzz.log", dir);
  if (!lctx_sys_mkdir_p(corpus) || !lctx_sys_mkdir_p(artifacts)) {
    k->status = K_ERROR;
    snprintf(k->detail, sizeof k->detail, "%s: %s", dir, strerror(errno));
    return;
  }
  empty_folder(corpus);
  empty_folder(artifacts);
  if (start == START_SEEDS)
    copy_seeds(st->seeds_dir, corpus);
  int status = spawn_fuzzer(st, library, corpus, artifacts, log,
                            st->o.fuzz_seconds + 60, &k->seconds);
  size_t length;
  char *text = read_head(log, 8u << 20, &length);
  if (!text || status < 0) {
    k->status = K_ERROR;
    snprintf(k->detail, sizeof k->detail, "the fuzzer did not run; see %s",
             log);
    free(text);
    return;
  }
  char units[64];
  if (line_after(text, "stat::number_of_executed_units:", units, sizeof units))
    k->execs = strtoull(units, NULL, 10);
  char key[512];
  const char *finding = strstr(text, "LCTX-FINDING ");
  const char *inited = strstr(text, "INITED");
  if (finding && line_after(finding, "LCTX-FINDING ", key, sizeof key)) {
    judge_finding(m, key, k);
    k->by_seed = start == START_SEEDS && (!inited || inited > finding);
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    k->status = K_LIVED;
    snprintf(k->detail, sizeof k->detail, "no finding in %.0f s",
             st->o.fuzz_seconds);
    if (m)
      rows_reached(st, m, corpus, k);
  } else {
    const char *error = judge_crash(text, status, log, k);
    k->by_seed = error && start == START_SEEDS && (!inited || inited > error);
  }
  free(text);
}

//===----------------------------------------------------------------------===//
// The matrix
//===----------------------------------------------------------------------===//

static void cell(const kill_cell *k, bool fuzz, char *out, size_t cap) {
  switch (k->status) {
  case K_KILLED:
    snprintf(out, cap, "%.2f s %s%s%s", k->seconds, k->row,
             k->row_expected ? "" : "*", fuzz && k->by_seed ? " (seed)" : "");
    return;
  case K_LIVED:
    snprintf(out, cap, "LIVED (%.0f s)", k->seconds);
    return;
  case K_ERROR:
    snprintf(out, cap, "ERROR");
    return;
  case K_NOT_RUN:
    snprintf(out, cap, "-");
    return;
  }
}

typedef struct tally {
  size_t killed, total, slow;
  double slowest;
} tally;

static tally tally_of(const state *st, int which) {
  tally t = {0, 0, 0, 0};
  for (size_t i = 0; i < st->count; i++) {
    const kill_cell *k = which < 0 ? &st->conform[i] : &st->fuzz[i][which];
    if (k->status == K_NOT_RUN)
      continue;
    t.total++;
    if (k->status == K_KILLED) {
      t.killed++;
      if (k->seconds > t.slowest)
        t.slowest = k->seconds;
      if (which < 0 && k->seconds > st->o.limit)
        t.slow++;
    }
  }
  return t;
}

static double percent(tally t) {
  return t.total ? 100.0 * (double)t.killed / (double)t.total : 0;
}

static void print_matrix(const state *st, FILE *out) {
  fprintf(out, "\n%-30s %-22s", "mutant", "conform");
  for (int s = 0; s < START_COUNT; s++)
    if (st->o.fuzz_seconds > 0 && st->starts[s])
      fprintf(out, " %-26s", START_TITLES[s]);
  fprintf(out, "\n");
  for (size_t i = 0; i < st->count; i++) {
    char text[128];
    cell(&st->conform[i], false, text, sizeof text);
    fprintf(out, "%-30s %-22s", st->mutants[i].name, text);
    for (int s = 0; s < START_COUNT; s++) {
      if (st->o.fuzz_seconds > 0 && st->starts[s]) {
        cell(&st->fuzz[i][s], true, text, sizeof text);
        fprintf(out, " %-26s", text);
      }
    }
    fprintf(out, "\n");
  }
  fprintf(out, "(time to kill, then the spec row that caught the mutant, or "
               "failed: the plugin returned a failure status, differ: allowed "
               "but different outcomes, crash: a sanitizer or libFuzzer "
               "crash; * a row the list does not expect; (seed) found while "
               "the seed corpus ran)\n");
}

static json_t *kill_json(const kill_cell *k, bool fuzz) {
  json_t *j = json_object();
  json_object_set_new(j, "status", json_string(STATUS_NAMES[k->status]));
  json_object_set_new(j, "seconds", json_real(k->seconds));
  if (!fuzz)
    json_object_set_new(j, "command_seconds", json_real(k->wall));
  if (k->status == K_KILLED) {
    json_object_set_new(j, "row", json_string(k->row));
    json_object_set_new(j, "row_expected", json_boolean(k->row_expected));
  }
  json_object_set_new(j, "detail", json_string(k->detail));
  if (fuzz) {
    json_object_set_new(j, "by_seed", json_boolean(k->by_seed));
    json_object_set_new(j, "inputs_run", json_integer((json_int_t)k->execs));
    if (k->reached[0])
      json_object_set_new(j, "reached", json_string(k->reached));
  }
  return j;
}

static bool write_json(const state *st, const char *path) {
  json_t *j = json_object();
  json_object_set_new(j, "lctx_version", json_string(LCTX_VERSION_STRING));
  json_object_set_new(j, "spec_version", json_string(st->spec.version));
  json_object_set_new(j, "conform_limit_seconds", json_real(st->o.limit));
  json_object_set_new(j, "fuzz_seconds", json_real(st->o.fuzz_seconds));
  json_object_set_new(j, "fuzz_seed",
                      json_integer((json_int_t)st->o.fuzz_seed));
  json_t *control = json_object();
  if (st->o.control) {
    json_object_set_new(control, "conform",
                        kill_json(&st->control_conform, false));
    for (int s = 0; s < START_COUNT; s++)
      if (st->control_fuzz[s].status != K_NOT_RUN)
        json_object_set_new(control, START_NAMES[s],
                            kill_json(&st->control_fuzz[s], true));
  }
  json_object_set_new(j, "control", control);
  json_t *list = json_array();
  for (size_t i = 0; i < st->count; i++) {
    const mutant *m = &st->mutants[i];
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(m->name));
    json_object_set_new(o, "description", json_string(m->description));
    json_t *rows = json_array();
    for (size_t r = 0; r < m->expected_count; r++)
      json_array_append_new(rows, json_string(m->expected[r]));
    json_object_set_new(o, "expected_rows", rows);
    if (m->note[0])
      json_object_set_new(o, "note", json_string(m->note));
    json_object_set_new(o, "conform", kill_json(&st->conform[i], false));
    json_t *fuzz = json_object();
    for (int s = 0; s < START_COUNT; s++)
      if (st->fuzz[i][s].status != K_NOT_RUN)
        json_object_set_new(fuzz, START_NAMES[s],
                            kill_json(&st->fuzz[i][s], true));
    json_object_set_new(o, "fuzz_differential", fuzz);
    json_array_append_new(list, o);
  }
  json_object_set_new(j, "mutants", list);
  json_t *summary = json_object();
  tally c = tally_of(st, -1);
  json_t *cs = json_object();
  json_object_set_new(cs, "killed", json_integer((json_int_t)c.killed));
  json_object_set_new(cs, "total", json_integer((json_int_t)c.total));
  json_object_set_new(cs, "over_limit", json_integer((json_int_t)c.slow));
  json_object_set_new(cs, "slowest_seconds", json_real(c.slowest));
  json_object_set_new(summary, "conform", cs);
  for (int s = 0; s < START_COUNT; s++) {
    tally t = tally_of(st, s);
    if (!t.total)
      continue;
    json_t *fs = json_object();
    json_object_set_new(fs, "killed", json_integer((json_int_t)t.killed));
    json_object_set_new(fs, "total", json_integer((json_int_t)t.total));
    json_object_set_new(fs, "percent", json_real(percent(t)));
    json_object_set_new(summary, START_NAMES[s], fs);
  }
  json_object_set_new(j, "summary", summary);
  int rc = json_dump_file(j, path, JSON_INDENT(2));
  json_decref(j);
  return rc == 0;
}

/* A Markdown table cell: no '|' or newline. */
static void md_text(FILE *f, const char *s) {
  for (; *s; s++)
    fputs(*s == '|' ? "\\|" : *s == '\n' ? " " : (char[2]){*s, 0}, f);
}

/* The matrix as a Markdown table, a row per mutant. */
static void md_table(const state *st, FILE *f) {
  bool fuzz = st->o.fuzz_seconds > 0;
  fprintf(f, "| mutant | defect | conform |");
  for (int s = 0; s < START_COUNT; s++)
    if (fuzz && st->starts[s])
      fprintf(f, " %s |", START_TITLES[s]);
  fprintf(f, "\n|---|---|---|");
  for (int s = 0; s < START_COUNT; s++)
    if (fuzz && st->starts[s])
      fprintf(f, "---|");
  fprintf(f, "\n");
  for (size_t i = 0; i < st->count; i++) {
    char text[128];
    fprintf(f, "| `%s` | ", st->mutants[i].name);
    md_text(f, st->mutants[i].description);
    cell(&st->conform[i], false, text, sizeof text);
    fprintf(f, " | %s |", text);
    for (int s = 0; s < START_COUNT; s++) {
      if (fuzz && st->starts[s]) {
        cell(&st->fuzz[i][s], true, text, sizeof text);
        fprintf(f, " %s |", text);
      }
    }
    fprintf(f, "\n");
  }
}

/* What caught each mutant: conform's first failure, the fuzz keys. */
static void md_first_failures(const state *st, FILE *f) {
  fprintf(f, "\n## First failures\n\n");
  for (size_t i = 0; i < st->count; i++) {
    fprintf(f, "- `%s`: conform: ", st->mutants[i].name);
    md_text(f, st->conform[i].detail);
    for (int s = 0; s < START_COUNT; s++) {
      const kill_cell *k = &st->fuzz[i][s];
      if (k->status == K_NOT_RUN)
        continue;
      fprintf(f, "; %s: `", START_TITLES[s]);
      md_text(f, k->detail);
      fprintf(f, "`");
    }
    fprintf(f, "\n");
  }
}

static bool write_markdown(const state *st, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f)
    return false;
  bool fuzz = st->o.fuzz_seconds > 0;
  fprintf(f, "# Mutant kill matrix\n\n");
  fprintf(f,
          "lctx %s, spec %s. Conform: `lctx conform --first-failure`, kill "
          "limit %.1f s.",
          LCTX_VERSION_STRING, st->spec.version, st->o.limit);
  if (fuzz)
    fprintf(f,
            " Fuzz: `fuzz_differential` (libFuzzer, one process, `-seed=%llu`) "
            "for at most %.0f s per run.",
            st->o.fuzz_seed, st->o.fuzz_seconds);
  fprintf(f, "\n\nEach cell: time to kill and the spec row that caught the "
             "mutant, or `failed` (the plugin returned a failure status), "
             "`differ` (allowed but different outcomes), `crash` (a "
             "sanitizer or libFuzzer crash); `*`: a row the list does not "
             "expect; `(seed)`: found while the seed corpus ran. The time "
             "runs from the start of the command (conform: to its first "
             "failing verdict).\n\n");
  md_table(st, f);
  tally c = tally_of(st, -1);
  fprintf(f,
          "\nConform killed %zu of %zu mutants (%.0f%%), the slowest in %.2f "
          "s; %zu over the %.1f s limit.\n",
          c.killed, c.total, percent(c), c.slowest, c.slow, st->o.limit);
  for (int s = 0; s < START_COUNT; s++) {
    tally t = tally_of(st, s);
    if (!t.total)
      continue;
    fprintf(f,
            "\n`fuzz_differential` %s killed %zu of %zu mutants (%.0f%%) "
            "within %.0f s each.",
            s == START_SEEDS ? "from its seed corpus" : "from an empty corpus",
            t.killed, t.total, percent(t), st->o.fuzz_seconds);
    bool any = false;
    for (size_t i = 0; i < st->count; i++) {
      const kill_cell *k = &st->fuzz[i][s];
      if (k->status == K_KILLED || k->status == K_NOT_RUN)
        continue;
      if (!any)
        fprintf(f, " Missed:\n\n");
      any = true;
      fprintf(f, "- `%s` (%s): ", st->mutants[i].name, STATUS_NAMES[k->status]);
      md_text(f, st->mutants[i].note[0] ? st->mutants[i].note
                                        : "no reason recorded in MUTANTS");
      fprintf(f, " (");
      md_text(f, k->reached[0] ? k->reached : k->detail);
      fprintf(f, ").\n");
    }
    fprintf(f, "\n");
  }
  md_first_failures(st, f);
  fclose(f);
  return true;
}

//===----------------------------------------------------------------------===//
// The run
//===----------------------------------------------------------------------===//

void lctx_mutants_options_init(lctx_mutants_options *o) {
  memset(o, 0, sizeof *o);
  o->list_path = LCTX_SOURCE_DIR "/conformance/mutants/MUTANTS";
  o->dir = LCTX_MUTANTS_DIR;
  o->out_dir = "build/mutants";
  o->fuzzer = LCTX_SOURCE_DIR "/build/fuzz/fuzzers/fuzz_differential";
  o->plugin = LCTX_EXAMPLE_PLUGIN;
  o->limit = 1;
  o->fuzz_min = 90;
  o->fuzz_seed = 1;
  o->fuzz_from_seeds = o->fuzz_from_empty = true;
  o->control = true;
}

/* One result as it comes; for a control run, living is passing. */
static void print_kill_line(FILE *out, const char *what, const kill_cell *k,
                            bool fuzz, bool control) {
  char text[128];
  if (control && k->status == K_LIVED)
    snprintf(text, sizeof text, "survived (%.2f s): good", k->seconds);
  else
    cell(k, fuzz, text, sizeof text);
  bool detail = k->status == K_ERROR || k->status == K_KILLED;
  lctx_escaped b1, b2;
  fprintf(out, "  %-24s %s%s%s\n", what, lctx_esc(&b1, text),
          detail ? ": " : "", lctx_esc(&b2, detail ? k->detail : ""));
  fflush(out);
}

/* The fuzzer, its options and the seed corpus, when fuzzing. */
static bool check_fuzzer(state *st, FILE *err) {
  lctx_escaped b;
  if (!lctx_sys_is_file(st->o.fuzzer) || access(st->o.fuzzer, X_OK) != 0) {
    fprintf(err,
            "lctx mutants: --fuzzer: %s: no libFuzzer build of "
            "fuzz_differential (build it with: cmake --preset fuzz && "
            "cmake --build --preset fuzz)\n",
            lctx_esc(&b, st->o.fuzzer));
    return false;
  }
  load_fuzz_options(st);
  snprintf(st->seeds_dir, sizeof st->seeds_dir,
           "%s/corpus/seeds/fuzz_differential", LCTX_SOURCE_DIR);
  if (st->starts[START_SEEDS] && !lctx_sys_is_dir(st->seeds_dir)) {
    fprintf(err, "lctx mutants: %s: no seed corpus\n",
            lctx_esc(&b, st->seeds_dir));
    return false;
  }
  return true;
}

/* Loads the spec and the list, and checks every input; false on bad input
 * (reported on err). */
static bool set_up(state *st, FILE *err) {
  lctx_escaped b;
  if (!lctx_spec_load_or_report(lctx_sys_default_spec_path(), &st->spec,
                                "lctx mutants", err))
    return false;
  if (!load_list(st, err) || !select_only(st, err) || !find_libraries(st, err))
    return false;
  if (st->o.control && !lctx_sys_is_file(st->o.plugin)) {
    fprintf(err,
            "lctx mutants: --plugin: %s: no such library (or give "
            "--no-control)\n",
            lctx_esc(&b, st->o.plugin));
    return false;
  }
  if (st->o.fuzz_seconds > 0 && !check_fuzzer(st, err))
    return false;
  if (!lctx_sys_mkdir_p(st->o.out_dir)) {
    fprintf(err, "lctx mutants: --out: %s: %s\n", lctx_esc(&b, st->o.out_dir),
            strerror(errno));
    return false;
  }
  return true;
}

/* The control: the unmutated plugin passes what kills the mutants. Returns
 * whether it survived every run. */
static bool run_control(state *st, FILE *out) {
  char dir[PATH_CAP + 256];
  lctx_escaped b;
  fprintf(out, "control: the unmutated plugin %s\n",
          lctx_esc(&b, st->o.plugin));
  snprintf(dir, sizeof dir, "%s/conform/control", st->o.out_dir);
  run_conform(st, st->o.plugin, dir, true, &st->control_conform);
  print_kill_line(out, "conform (cases, 1000 random)", &st->control_conform,
                  false, true);
  bool ok = st->control_conform.status == K_LIVED;
  for (int s = 0; st->o.fuzz_seconds > 0 && s < START_COUNT; s++) {
    if (!st->starts[s])
      continue;
    snprintf(dir, sizeof dir, "%s/fuzz/control/%s", st->o.out_dir,
             START_NAMES[s]);
    run_fuzz(st, NULL, st->o.plugin, dir, s, &st->control_fuzz[s]);
    print_kill_line(out, START_TITLES[s], &st->control_fuzz[s], true, true);
    ok = ok && st->control_fuzz[s].status == K_LIVED;
  }
  if (!ok)
    fprintf(out, "control: FAILED: the unmutated plugin does not survive, "
                 "so kills prove nothing\n");
  return ok;
}

/* Conform, then each fuzz run, against mutant `i`. */
static void run_mutant(state *st, size_t i, FILE *out) {
  char dir[PATH_CAP + 256];
  mutant *m = &st->mutants[i];
  lctx_escaped b1, b2;
  fprintf(out, "%s: %s\n", lctx_esc(&b1, m->name),
          lctx_esc(&b2, m->description));
  snprintf(dir, sizeof dir, "%s/conform/%s", st->o.out_dir, m->name);
  run_conform(st, m->library, dir, false, &st->conform[i]);
  st->conform[i].row_expected = expected_row(m, st->conform[i].row);
  print_kill_line(out, "conform", &st->conform[i], false, false);
  for (int s = 0; st->o.fuzz_seconds > 0 && s < START_COUNT; s++) {
    if (!st->starts[s])
      continue;
    snprintf(dir, sizeof dir, "%s/fuzz/%s/%s", st->o.out_dir, m->name,
             START_NAMES[s]);
    run_fuzz(st, m, m->library, dir, s, &st->fuzz[i][s]);
    print_kill_line(out, START_TITLES[s], &st->fuzz[i][s], true, false);
  }
}

/* Prints conform's kills and what it missed or killed late; sets `*errors`
 * when a run could not be judged. Returns the tally. */
static tally print_conform_summary(const state *st, FILE *out, bool *errors) {
  tally c = tally_of(st, -1);
  fprintf(out,
          "\nconform: killed %zu of %zu (slowest %.2f s; %zu over the "
          "%.3g s limit)\n",
          c.killed, c.total, c.slowest, c.slow, st->o.limit);
  for (size_t i = 0; i < st->count; i++) {
    const kill_cell *k = &st->conform[i];
    *errors = *errors || k->status == K_ERROR;
    lctx_escaped b;
    if (k->status != K_KILLED)
      fprintf(out, "  %s %s: %s\n", st->mutants[i].name,
              STATUS_NAMES[k->status], lctx_esc(&b, k->detail));
    else if (k->seconds > st->o.limit)
      fprintf(out, "  %s killed only after %.2f s\n", st->mutants[i].name,
              k->seconds);
  }
  return c;
}

/* Prints the fuzzer's kills per start and what it missed; sets `*errors`
 * when a run could not be judged. Returns whether it killed too few. */
static bool print_fuzz_summary(const state *st, FILE *out, bool *errors) {
  bool fuzz_short = false;
  for (int s = 0; st->o.fuzz_seconds > 0 && s < START_COUNT; s++) {
    tally t = tally_of(st, s);
    if (!t.total)
      continue;
    bool enough = percent(t) >= st->o.fuzz_min;
    fuzz_short = fuzz_short || !enough;
    fprintf(out,
            "fuzz_differential %s: killed %zu of %zu (%.0f%%, required "
            "%.0f%%)\n",
            s == START_SEEDS ? "from seeds" : "from an empty corpus", t.killed,
            t.total, percent(t), st->o.fuzz_min);
    for (size_t i = 0; i < st->count; i++) {
      const kill_cell *k = &st->fuzz[i][s];
      *errors = *errors || k->status == K_ERROR;
      if (k->status == K_KILLED)
        continue;
      lctx_escaped b1, b2;
      fprintf(out, "  missed %s: %s (%s)\n", st->mutants[i].name,
              lctx_esc(&b1, st->mutants[i].note[0]
                                ? st->mutants[i].note
                                : "no reason recorded in the list"),
              lctx_esc(&b2, k->reached[0] ? k->reached : k->detail));
    }
  }
  return fuzz_short;
}

/* Runs the controls and every mutant, then prints and writes the matrix;
 * returns whether all went as required. */
static bool run_all(state *st, FILE *out) {
  bool fuzz = st->o.fuzz_seconds > 0;
  lctx_escaped b1, b2;
  fprintf(out, "lctx mutants: %zu mutants (%s), conform kill limit %.3g s%s\n",
          st->count, lctx_esc(&b1, st->o.list_path), st->o.limit,
          fuzz ? ", with fuzz_differential" : "");
  if (fuzz)
    fprintf(out, "  fuzzing: %s, %.0f s per run, -seed=%llu\n",
            lctx_esc(&b1, st->o.fuzzer), st->o.fuzz_seconds, st->o.fuzz_seed);
  fflush(out);
  bool control_ok = !st->o.control || run_control(st, out);
  for (size_t i = 0; i < st->count; i++)
    run_mutant(st, i, out);
  print_matrix(st, out);
  char json_path[PATH_CAP + 32], md_path[PATH_CAP + 32];
  snprintf(json_path, sizeof json_path, "%s/mutants.json", st->o.out_dir);
  snprintf(md_path, sizeof md_path, "%s/mutants.md", st->o.out_dir);
  bool written = write_json(st, json_path) && write_markdown(st, md_path);
  bool errors = false;
  tally c = print_conform_summary(st, out, &errors);
  bool fuzz_short = print_fuzz_summary(st, out, &errors);
  fprintf(out, "reports: %s, %s%s\n", lctx_esc(&b1, json_path),
          lctx_esc(&b2, md_path), written ? "" : " (COULD NOT BE WRITTEN)");
  bool pass = control_ok && !errors && written && c.killed == c.total &&
              c.slow == 0 && !fuzz_short;
  fprintf(out, "result: %s\n", pass ? "PASS" : "FAIL");
  return pass;
}

int lctx_mutants_run(const lctx_mutants_options *options, FILE *out,
                     FILE *err) {
  state *st = lctx_sys_alloc(sizeof *st, "lctx mutants", err);
  if (!st)
    return LCTX_EXIT_USAGE;
  st->o = *options;
  st->starts[START_SEEDS] = options->fuzz_from_seeds;
  st->starts[START_EMPTY] = options->fuzz_from_empty;
  int code = !set_up(st, err)   ? LCTX_EXIT_USAGE
             : run_all(st, out) ? LCTX_EXIT_OK
                                : LCTX_EXIT_VIOLATIONS;
  free(st);
  return code;
}
