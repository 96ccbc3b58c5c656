/*
 * report_html_data.c - reading the folders of the HTML scoreboard (see
 * report_html_data.h).
 *
 * Every file is read with jansson; what cannot be read is named, kept as a
 * problem, and left out, so that the rest of the page still renders.
 */
#include "report_html_data.h"

#include "case_json.h"
#include "case_text.h"
#include "report_html_sweep_sum.h"
#include "report_read.h"
#include "report_text.h"
#include "sys.h"

#include <errno.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>

/* The longest progress.jsonl read (points). */
#define MAX_POINTS 100000
/* The most findings listed per campaign. */
#define MAX_FINDINGS 200

/* Keeps a problem (listed on the page) and adds it to the warnings. */
__attribute__((format(printf, 2, 3))) static void
problem(lctx_html_data *d, const char *fmt, ...) {
  char text[1200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  lctx_report_warn(d->warnings, "%s", text);
  if (d->problem_count < LCTX_HTML_MAX_PROBLEMS)
    d->problems[d->problem_count] = strdup(text);
  d->problem_count++;
}

/* A file's text, or NULL (missing, unreadable, over `max` bytes). */
static char *read_text(const char *path, size_t max) {
  FILE *f = lctx_sys_fopen_input(path);
  if (!f)
    return NULL;
  char *text = malloc(max + 1);
  size_t n = text ? fread(text, 1, max, f) : 0;
  fclose(f);
  if (text)
    text[n] = '\0';
  return text;
}

/* Whether the regular file `path` is over LCTX_HTML_MAX_JSON_FILE bytes. */
static bool too_big(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && st.st_size > LCTX_HTML_MAX_JSON_FILE;
}

/* A JSON file, or NULL after a problem naming its line and column. */
static json_t *load_json(lctx_html_data *d, const char *path) {
  json_error_t e;
  if (!lctx_sys_is_file(path)) { /* a FIFO or a device would block */
    problem(d, "%s: not a regular file; left out", path);
    return NULL;
  }
  if (too_big(path)) {
    problem(d, "%s: over %d MiB, the limit of a JSON file; left out", path,
            LCTX_HTML_MAX_JSON_FILE >> 20);
    return NULL;
  }
  FILE *f = lctx_sys_fopen_input(path);
  json_t *j = f ? json_loadf(f, 0, &e) : NULL;
  int errnum = errno;
  if (f)
    fclose(f);
  if (!f)
    problem(d, "%s: %s; left out", path, lctx_sys_file_error(errnum));
  else if (!j)
    problem(d, "%s:%d:%d: %s (truncated by a run killed mid-way?); left out",
            path, e.line, e.column, e.text);
  else if (!json_is_object(j)) {
    problem(d, "%s: not a JSON object; left out", path);
    json_decref(j);
    j = NULL;
  }
  return j;
}

/* The spec row index of `id`, or -1. */
static int row_index(const lctx_spec *s, const char *id) {
  for (size_t k = 0; id && k < s->row_count; k++)
    if (strcmp(s->rows[k].id, id) == 0)
      return (int)k;
  return -1;
}

/* The case of a results.jsonl line in its text form, or NULL. */
static char *case_text_of(const json_t *line) {
  const json_t *cj = json_object_get(line, "case");
  if (!cj)
    return NULL;
  lctx_case *c = calloc(1, sizeof *c);
  lctx_case_expect *x = calloc(1, sizeof *x);
  char *text = malloc(LCTX_CASE_TEXT_MAX);
  char e[512];
  lctx_buf eb, tb;
  lctx_buf_init(&eb, e, sizeof e);
  if (!c || !x || !text) {
    free(c);
    free(x);
    free(text);
    return NULL;
  }
  lctx_buf_init(&tb, text, LCTX_CASE_TEXT_MAX);
  if (lctx_case_from_json(cj, c, x, &eb))
    lctx_case_print(c, x, &tb);
  else
    snprintf(text, LCTX_CASE_TEXT_MAX, "(the case cannot be read: %s)", e);
  free(c);
  free(x);
  return text;
}

/* Keeps, per row, the first failing line of DIR/results.jsonl (else the
 * first expected failure). */
static void read_results(lctx_html_data *d, lctx_html_run *r) {
  char path[4200];
  snprintf(path, sizeof path, "%s/results.jsonl", r->dir);
  FILE *f = lctx_sys_fopen_input(path); /* never a FIFO: it would block */
  if (!f) {
    problem(d, "%s: %s; failing cells show no case", path,
            lctx_sys_file_error(errno));
    return;
  }
  char *line = malloc(LCTX_HTML_MAX_LINE + 1);
  bool strong[LCTX_SPEC_MAX_ROWS] = {0}, over;
  long len;
  for (size_t n = 1;
       line &&
       (len = lctx_sys_read_line(f, line, LCTX_HTML_MAX_LINE + 1, &over)) >= 0;
       n++) {
    if (over) {
      problem(d,
              "%s:%zu: longer than %d MiB, the limit of a line; it and the "
              "lines after it are left out",
              path, n, LCTX_HTML_MAX_LINE >> 20);
      break;
    }
    json_error_t e;
    json_t *j = json_loadb(line, (size_t)len, 0, &e);
    if (!j) {
      problem(d,
              "%s:%zu:%d: %s (truncated?); the lines after it are "
              "left out",
              path, n, e.column, e.text);
      break;
    }
    int k = row_index(d->spec, json_string_value(json_object_get(j, "row")));
    const char *v = json_string_value(json_object_get(j, "verdict"));
    bool bad = v && strcmp(v, "pass") != 0 && strcmp(v, "xfail") != 0 &&
               strcmp(v, "unsupported") != 0;
    bool weak = v && strcmp(v, "xfail") == 0;
    if (k >= 0 && !strong[k] && (bad || (weak && !r->result[k]))) {
      json_decref(r->result[k]);
      free(r->case_text[k]);
      r->result[k] = json_incref(j);
      r->case_text[k] = case_text_of(j);
      strong[k] = bad;
    }
    json_decref(j);
  }
  free(line);
  fclose(f);
}

/* report.json of `dir` (report_read.h) of the version of `spec` (the
 * table of `spec_path`), its rows by spec row: a run, or NULL after a
 * problem. */
static lctx_html_run *open_run(lctx_html_data *d, const char *dir,
                               const lctx_spec *spec, const char *spec_path) {
  char path[4200], why[8192];
  snprintf(path, sizeof path, "%s/report.json", dir);
  lctx_buf error;
  lctx_buf_init(&error, why, sizeof why);
  lctx_report_file *file = lctx_report_read(path, &error);
  if (!file) {
    problem(d, "%s; left out", why);
    return NULL;
  }
  const char *v = file->stamp.spec_version;
  if (strcmp(v, spec->version) != 0) {
    problem(d,
            "%s: a report of spec version %s, its spec table (%s) is version "
            "%s; left out",
            path, v, spec_path, spec->version);
    lctx_report_file_free(file);
    return NULL;
  }
  lctx_html_run *r = calloc(1, sizeof *r);
  if (!r) {
    lctx_report_file_free(file);
    return NULL;
  }
  r->dir = strdup(dir);
  r->file = file;
  r->report = file->json;
  size_t i;
  json_t *row;
  json_array_foreach(json_object_get(file->json, "rows"), i, row) {
    int k = row_index(spec, json_string_value(json_object_get(row, "id")));
    if (k >= 0) {
      r->row[k] = row;
      r->counts[k] = &file->report.rows[i];
    }
  }
  struct stat st;
  if (stat(path, &st) == 0) {
    struct tm tm;
    gmtime_r(&st.st_mtime, &tm);
    strftime(r->date, sizeof r->date, "%Y-%m-%d %H:%M UTC", &tm);
  }
  if (file->report.interrupted)
    problem(d,
            "%s: the run was interrupted; its counts are of the "
            "cases it reached",
            path);
  return r;
}

static void free_run(lctx_html_run *r) {
  if (!r)
    return;
  for (size_t k = 0; k < LCTX_SPEC_MAX_ROWS; k++) {
    json_decref(r->result[k]);
    free(r->case_text[k]);
  }
  lctx_report_file_free(r->file);
  free(r->dir);
  free(r);
}

/* A conform report folder: report.json against the spec table, and
 * results.jsonl. */
static void load_run(lctx_html_data *d, const char *dir) {
  if (d->run_count >= LCTX_HTML_MAX_INPUTS) {
    problem(d, "%s: more than %d runs; left out", dir, LCTX_HTML_MAX_INPUTS);
    return;
  }
  lctx_html_run *r = open_run(d, dir, d->spec, d->spec_path);
  if (!r)
    return;
  d->runs[d->run_count++] = r;
  read_results(d, r);
}

//===----------------------------------------------------------------------===//
// Sweep folders
//===----------------------------------------------------------------------===//

/* DIR/results.jsonl's first line when it is a sweep's stamp (an object
 * with "sweep"), else NULL. */
static json_t *sweep_stamp(const char *dir) {
  char path[4200];
  snprintf(path, sizeof path, "%s/results.jsonl", dir);
  FILE *f = lctx_sys_fopen_input(path);
  char *buf = f ? malloc(LCTX_HTML_SWEEP_MAX_LINE) : NULL;
  bool over = false;
  long n =
      buf ? lctx_sys_read_line(f, buf, LCTX_HTML_SWEEP_MAX_LINE, &over) : -1;
  json_t *j = n > 0 && !over ? json_loadb(buf, (size_t)n, 0, NULL) : NULL;
  if (f)
    fclose(f);
  free(buf);
  if (j && (!json_is_object(j) || !json_object_get(j, "sweep"))) {
    json_decref(j);
    j = NULL;
  }
  return j;
}

/* DIR/results.jsonl of a sweep summed up (report_html_sweep_sum.h), its
 * problems kept. */
static void read_sweep_results(lctx_html_data *d, lctx_html_sweep *s) {
  char path[4200], why[1024];
  snprintf(path, sizeof path, "%s/results.jsonl", s->run->dir);
  lctx_buf error;
  lctx_buf_init(&error, why, sizeof why);
  if (!lctx_html_sweep_sum(s, path, &error))
    problem(d, "%s", why);
  if (s->malformed)
    problem(d, "%s: %lld malformed line(s) skipped, the first at line %zu: %s",
            path, s->malformed, s->first_bad, s->first_why);
  if (s->cut_short)
    problem(d, "%s: more than %d lines; the lines after line %d are left out",
            path, LCTX_HTML_SWEEP_MAX_LINES, LCTX_HTML_SWEEP_MAX_LINES);
}

/* An `lctx sweep` folder: report.json against the sweep table,
 * results.jsonl summed up, reach.json when there is one. */
static void load_sweep(lctx_html_data *d, const char *dir) {
  if (d->sweep_count >= LCTX_HTML_MAX_INPUTS) {
    problem(d, "%s: more than %d sweeps; left out", dir, LCTX_HTML_MAX_INPUTS);
    return;
  }
  lctx_html_run *r = open_run(d, dir, d->sweep_spec, d->sweep_spec_path);
  lctx_html_sweep *s = r ? calloc(1, sizeof *s) : NULL;
  if (!s) {
    free_run(r);
    return;
  }
  s->run = r;
  s->stamp = sweep_stamp(dir);
  d->sweeps[d->sweep_count++] = s;
  read_sweep_results(d, s);
  char path[4200];
  snprintf(path, sizeof path, "%s/reach.json", dir);
  struct stat st;
  if (!lctx_sys_is_file(path))
    return;
  if (stat(path, &st) == 0 && st.st_size > 16 << 20)
    problem(d, "%s: over 16 MiB; the reach is not shown", path);
  else
    s->reach = load_json(d, path);
}

/* OUT/progress.jsonl: one point per line. */
static void read_progress(lctx_html_data *d, lctx_html_campaign *c) {
  char path[4200];
  snprintf(path, sizeof path, "%s/progress.jsonl", c->dir);
  FILE *f = lctx_sys_fopen_input(path);
  if (!f)
    return;
  char *line = malloc(LCTX_HTML_MAX_LINE + 1);
  size_t n = 0;
  bool over;
  long len;
  while (line && c->point_count < MAX_POINTS &&
         (len = lctx_sys_read_line(f, line, LCTX_HTML_MAX_LINE + 1, &over)) >=
             0) {
    n++;
    if (over) {
      problem(d,
              "%s:%zu: longer than %d MiB, the limit of a line; the "
              "points from it on are left out",
              path, n, LCTX_HTML_MAX_LINE >> 20);
      break;
    }
    json_error_t e;
    json_t *j = json_loadb(line, (size_t)len, 0, &e);
    if (!j) {
      problem(d, "%s:%zu:%d: %s; the points after it are left out", path, n,
              e.column, e.text);
      break;
    }
    lctx_html_point *p = realloc(c->points, (c->point_count + 1) * sizeof *p);
    if (p) {
      c->points = p;
      p += c->point_count++;
      p->t = json_number_value(json_object_get(j, "seconds"));
      p->execs = json_number_value(json_object_get(j, "execs"));
      p->execs_per_sec = json_number_value(json_object_get(j, "execs_per_sec"));
      p->corpus = json_number_value(json_object_get(j, "corpus"));
      p->rows_hit = json_number_value(json_object_get(j, "rows_hit"));
      p->findings = json_number_value(json_object_get(j, "findings"));
    }
    json_decref(j);
  }
  free(line);
  fclose(f);
}

/* One finding folder: key.txt and reproduce.txt. */
static void visit_finding(void *user, const char *path) {
  lctx_html_campaign *c = user;
  if (!lctx_sys_is_dir(path) || c->finding_count >= MAX_FINDINGS)
    return;
  char file[4400];
  snprintf(file, sizeof file, "%s/key.txt", path);
  char *key = read_text(file, 4096);
  if (!key) /* a folder of folders (TARGET/not-reproduced/) */
    return;
  lctx_html_finding *f =
      realloc(c->findings, (c->finding_count + 1) * sizeof *f);
  if (!f) {
    free(key);
    return;
  }
  c->findings = f;
  f += c->finding_count++;
  const char *slash = strrchr(path, '/');
  f->name = strdup(slash ? slash + 1 : path);
  f->key = key;
  snprintf(file, sizeof file, "%s/reproduce.txt", path);
  f->reproduce = read_text(file, 16384);
}

static void load_campaign(lctx_html_data *d, const char *dir) {
  if (d->campaign_count >= LCTX_HTML_MAX_INPUTS) {
    problem(d, "%s: more than %d campaigns; left out", dir,
            LCTX_HTML_MAX_INPUTS);
    return;
  }
  lctx_html_campaign *c = calloc(1, sizeof *c);
  c->dir = strdup(dir);
  d->campaigns[d->campaign_count++] = c;
  char path[4200];
  snprintf(path, sizeof path, "%s/state.json", dir);
  if (lctx_sys_is_file(path))
    c->state = load_json(d, path);
  read_progress(d, c);
  if (c->point_count == 0)
    problem(d,
            "%s/progress.jsonl: no progress recorded (a campaign of "
            "an older lctx?); no plots",
            dir);
  snprintf(path, sizeof path, "%s/findings", dir);
  lctx_sys_each_entry(path, visit_finding, c);
}

static void load_matrix(lctx_html_data *d, const char *dir) {
  char path[4200];
  snprintf(path, sizeof path, "%s/matrix.json", dir);
  json_t *j = load_json(d, path);
  if (!j)
    return;
  if (!json_is_array(json_object_get(j, "rows")) ||
      !json_is_array(json_object_get(j, "versions")) ||
      d->matrix_count >= LCTX_HTML_MAX_INPUTS) {
    problem(d, "%s: no rows or versions array; left out", path);
    json_decref(j);
    return;
  }
  lctx_html_matrix *m = calloc(1, sizeof *m);
  m->dir = strdup(dir);
  m->matrix = j;
  d->matrices[d->matrix_count++] = m;
}

static bool has(const char *dir, const char *name) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return lctx_sys_is_file(path);
}

/* What a folder is. */
enum { K_MISSING, K_RUN, K_SWEEP, K_MATRIX, K_CAMPAIGN, K_UNKNOWN };

static int kind_of(const char *dir) {
  if (!lctx_sys_is_dir(dir))
    return K_MISSING;
  if (has(dir, "report.json")) {
    json_t *stamp = sweep_stamp(dir);
    json_decref(stamp);
    return stamp ? K_SWEEP : K_RUN;
  }
  if (has(dir, "matrix.json"))
    return K_MATRIX;
  if (has(dir, "state.json") || has(dir, "progress.jsonl") ||
      has(dir, "summary.txt"))
    return K_CAMPAIGN;
  return K_UNKNOWN;
}

/* Whether `path`, a spec_file a report names, may be read: a regular
 * file, not a symbolic link, whose name ends in ".lspec". */
static bool spec_file_followed(const char *path) {
  struct stat st;
  size_t n = strlen(path);
  return lstat(path, &st) == 0 && S_ISREG(st.st_mode) && n > 6 &&
         strcmp(path + n - 6, ".lspec") == 0;
}

/* The spec_file of the first report of a folder of kind `kind` when it may
 * be read (copied into `buf`), else NULL; one that exists but may not be
 * read is a problem. */
static const char *first_spec_file(lctx_html_data *d, const char *const *dirs,
                                   const int *kinds, size_t count, int kind,
                                   char *buf, size_t size) {
  for (size_t i = 0; i < count; i++) {
    if (kinds[i] != kind)
      continue;
    char file[4200];
    snprintf(file, sizeof file, "%s/report.json", dirs[i]);
    lctx_report_file *r = lctx_report_read(file, NULL);
    const char *s = r ? r->stamp.spec_file : NULL;
    struct stat st;
    bool usable = s && strlen(s) < size && spec_file_followed(s);
    if (usable)
      snprintf(buf, size, "%s", s);
    else if (s && lstat(s, &st) == 0)
      problem(d,
              "%s: its spec_file %s is not read (only a regular file "
              "named *.lspec is; name the table with --spec); a default "
              "table is used",
              file, s);
    lctx_report_file_free(r);
    return usable ? buf : NULL;
  }
  return NULL;
}

/* Reads the table `path` into a new *spec, its path into `path_buf`. */
static bool load_table(lctx_spec **spec, char *path_buf, size_t size,
                       const char *path, lctx_buf *error) {
  snprintf(path_buf, size, "%s", path);
  *spec = calloc(1, sizeof **spec);
  return *spec && lctx_spec_load(path_buf, *spec, error);
}

/* The tables (see lctx_html_load). */
static bool load_tables(lctx_html_data *d, const char *const *dirs,
                        const int *kinds, size_t count, const char *spec_path,
                        lctx_buf *error) {
  bool runs = false, sweeps = false;
  for (size_t i = 0; i < count; i++) {
    runs |= kinds[i] == K_RUN;
    sweeps |= kinds[i] == K_SWEEP;
  }
  if (spec_path) {
    lctx_spec *given = NULL;
    char path[4096];
    if (!load_table(&given, path, sizeof path, spec_path, error)) {
      free(given);
      return false;
    }
    bool sweep_rows = false;
    for (size_t k = 0; k < given->row_count; k++)
      sweep_rows |= given->rows[k].sweep;
    *(sweep_rows ? &d->sweep_spec : &d->spec) = given;
    snprintf(sweep_rows ? d->sweep_spec_path : d->spec_path, sizeof path, "%s",
             path);
  }
  char file[4096];
  if (!d->spec && (runs || !sweeps)) {
    const char *p =
        first_spec_file(d, dirs, kinds, count, K_RUN, file, sizeof file);
    if (!load_table(&d->spec, d->spec_path, sizeof d->spec_path,
                    p ? p : lctx_sys_default_spec_path(), error))
      return false;
  }
  if (!d->sweep_spec && sweeps) {
    const char *p =
        first_spec_file(d, dirs, kinds, count, K_SWEEP, file, sizeof file);
    if (!p) { /* jax-sweep.lspec beside the default table */
      snprintf(file, sizeof file, "%s", lctx_sys_default_spec_path());
      char *slash = strrchr(file, '/');
      size_t at = slash ? (size_t)(slash + 1 - file) : 0;
      snprintf(file + at, sizeof file - at, "jax-sweep.lspec");
      p = file;
    }
    if (!load_table(&d->sweep_spec, d->sweep_spec_path,
                    sizeof d->sweep_spec_path, p, error))
      return false;
  }
  return true;
}

bool lctx_html_load(lctx_html_data *d, const char *const *dirs, size_t count,
                    const char *spec_path, lctx_buf *warnings,
                    lctx_buf *error) {
  memset(d, 0, sizeof *d);
  d->warnings = warnings;
  int *kinds = calloc(count ? count : 1, sizeof *kinds);
  if (!kinds)
    return lctx_report_say(error, "out of memory");
  for (size_t i = 0; i < count; i++)
    kinds[i] = kind_of(dirs[i]);
  bool ok = load_tables(d, dirs, kinds, count, spec_path, error);
  for (size_t i = 0; ok && i < count; i++) {
    const char *dir = dirs[i];
    if (kinds[i] == K_MISSING)
      problem(d, "%s: %s; left out", dir,
              lctx_sys_is_file(dir) ? "not a folder" : "no such folder");
    else if (kinds[i] == K_RUN)
      load_run(d, dir);
    else if (kinds[i] == K_SWEEP)
      load_sweep(d, dir);
    else if (kinds[i] == K_MATRIX)
      load_matrix(d, dir);
    else if (kinds[i] == K_CAMPAIGN)
      load_campaign(d, dir);
    else
      problem(d,
              "%s: neither a conform report folder (report.json), a sweep "
              "folder, a fuzz campaign folder (state.json, progress.jsonl) "
              "nor a JAX version matrix (matrix.json); left out",
              dir);
  }
  free(kinds);
  return ok;
}

static void free_sweep(lctx_html_sweep *s) {
  free_run(s->run);
  json_decref(s->stamp);
  json_decref(s->reach);
  for (size_t g = 0; g < s->group_count; g++)
    free(s->groups[g].name);
  free(s->groups);
  for (size_t p = 0; p < s->program_count; p++) {
    for (size_t e = 0; e < s->programs[p].entry_count; e++) {
      free(s->programs[p].entries[e].key);
      free(s->programs[p].entries[e].detail);
      free(s->programs[p].entries[e].outcome);
    }
    free(s->programs[p].entries);
    free(s->programs[p].name);
  }
  free(s->programs);
  for (size_t i = 0; i < s->list_count; i++)
    free(s->lists[i]);
  free(s);
}

void lctx_html_free(lctx_html_data *d) {
  for (size_t i = 0; i < d->run_count; i++)
    free_run(d->runs[i]);
  for (size_t i = 0; i < d->sweep_count; i++)
    free_sweep(d->sweeps[i]);
  for (size_t i = 0; i < d->campaign_count; i++) {
    lctx_html_campaign *c = d->campaigns[i];
    for (size_t k = 0; k < c->finding_count; k++) {
      free(c->findings[k].name);
      free(c->findings[k].key);
      free(c->findings[k].reproduce);
    }
    free(c->findings);
    free(c->points);
    json_decref(c->state);
    free(c->dir);
    free(c);
  }
  for (size_t i = 0; i < d->matrix_count; i++) {
    json_decref(d->matrices[i]->matrix);
    free(d->matrices[i]->dir);
    free(d->matrices[i]);
  }
  for (size_t i = 0; i < d->problem_count && i < LCTX_HTML_MAX_PROBLEMS; i++)
    free(d->problems[i]);
  free(d->spec);
  free(d->sweep_spec);
  memset(d, 0, sizeof *d);
}
