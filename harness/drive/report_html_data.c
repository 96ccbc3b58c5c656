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
#include "escape.h"
#include "sys.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>

#define WHO "lctx report html"

/* The longest progress.jsonl read (points). */
#define MAX_POINTS 100000
/* The most findings listed per campaign. */
#define MAX_FINDINGS 200

/* Keeps a problem and says it on `err`. */
__attribute__((format(printf, 3, 4))) static void
problem(lctx_html_data *d, FILE *err, const char *fmt, ...) {
  char text[1200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  lctx_escaped esc;
  fprintf(err, WHO ": warning: %s\n", lctx_esc(&esc, text));
  if (d->problem_count < LCTX_HTML_MAX_PROBLEMS)
    d->problems[d->problem_count] = strdup(text);
  d->problem_count++;
}

/* A file's text, or NULL (missing, unreadable, over `max` bytes). */
static char *read_text(const char *path, size_t max) {
  FILE *f = lctx_sys_is_file(path) ? fopen(path, "rb") : NULL;
  if (!f)
    return NULL;
  char *text = malloc(max + 1);
  size_t n = text ? fread(text, 1, max, f) : 0;
  fclose(f);
  if (text)
    text[n] = '\0';
  return text;
}

/* A JSON file, or NULL after a problem naming its line and column. */
static json_t *load_json(lctx_html_data *d, const char *path, FILE *err) {
  json_error_t e;
  if (!lctx_sys_is_file(path)) { /* a FIFO or a device would block */
    problem(d, err, "%s: not a regular file; left out", path);
    return NULL;
  }
  json_t *j = json_load_file(path, 0, &e);
  if (!j)
    problem(d, err,
            "%s:%d:%d: %s (truncated by a run killed mid-way?); left out", path,
            e.line, e.column, e.text);
  else if (!json_is_object(j)) {
    problem(d, err, "%s: not a JSON object; left out", path);
    json_decref(j);
    j = NULL;
  }
  return j;
}

bool lctx_html_row_failed(const json_t *row) {
  static const char *const BAD[] = {"fail", "xpass", "crash", "timeout",
                                    "flaky"};
  for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++)
    if (json_integer_value(json_object_get(row, BAD[i])) > 0)
      return true;
  return false;
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
  char *text = malloc(LCTX_CASE_TEXT_MAX);
  char e[512];
  lctx_buf eb, tb;
  lctx_buf_init(&eb, e, sizeof e);
  if (!c || !text) {
    free(c);
    free(text);
    return NULL;
  }
  lctx_buf_init(&tb, text, LCTX_CASE_TEXT_MAX);
  if (lctx_case_from_json(cj, c, &eb))
    lctx_case_print(c, &tb);
  else
    snprintf(text, LCTX_CASE_TEXT_MAX, "(the case cannot be read: %s)", e);
  free(c);
  return text;
}

/* Keeps, per row, the first failing line of DIR/results.jsonl (else the
 * first expected failure). */
static void read_results(lctx_html_data *d, lctx_html_run *r, FILE *err) {
  char path[4200];
  snprintf(path, sizeof path, "%s/results.jsonl", r->dir);
  bool regular = lctx_sys_is_file(path); /* a FIFO would block */
  FILE *f = regular ? fopen(path, "r") : NULL;
  if (!f) {
    problem(d, err, "%s: %s; failing cells show no case", path,
            regular || access(path, F_OK) != 0 ? strerror(errno)
                                               : "not a regular file");
    return;
  }
  char *line = NULL;
  size_t cap = 0;
  bool strong[LCTX_SPEC_MAX_ROWS] = {0};
  for (size_t n = 1; getline(&line, &cap, f) > 0; n++) {
    json_error_t e;
    json_t *j = json_loads(line, 0, &e);
    if (!j) {
      problem(d, err,
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

/* A conform report folder: report.json (whole, of the spec's version),
 * its rows by spec row, and results.jsonl. */
static void load_run(lctx_html_data *d, const char *dir, FILE *err) {
  char path[4200];
  snprintf(path, sizeof path, "%s/report.json", dir);
  json_t *j = load_json(d, path, err);
  if (!j)
    return;
  const char *v = json_string_value(json_object_get(j, "spec_version"));
  json_t *rows = json_object_get(j, "rows");
  if (!v || strcmp(v, d->spec->version) != 0 || !json_is_array(rows)) {
    problem(d, err,
            "%s: %s %s, the page's spec table (%s) is version %s; left out",
            path, v ? "a report of spec version" : "no spec_version",
            v ? v : "", d->spec_path, d->spec->version);
    json_decref(j);
    return;
  }
  if (d->run_count >= LCTX_HTML_MAX_INPUTS) {
    problem(d, err, "%s: more than %d runs; left out", dir,
            LCTX_HTML_MAX_INPUTS);
    json_decref(j);
    return;
  }
  lctx_html_run *r = calloc(1, sizeof *r);
  r->dir = strdup(dir);
  r->report = j;
  d->runs[d->run_count++] = r;
  size_t i;
  json_t *row;
  json_array_foreach(rows, i, row) {
    int k = row_index(d->spec, json_string_value(json_object_get(row, "id")));
    if (k >= 0)
      r->row[k] = row;
  }
  struct stat st;
  if (stat(path, &st) == 0) {
    struct tm tm;
    gmtime_r(&st.st_mtime, &tm);
    strftime(r->date, sizeof r->date, "%Y-%m-%d %H:%M UTC", &tm);
  }
  if (json_is_true(json_object_get(j, "interrupted")))
    problem(d, err,
            "%s: the run was interrupted; its counts are of the "
            "cases it reached",
            path);
  read_results(d, r, err);
}

/* OUT/progress.jsonl: one point per line. */
static void read_progress(lctx_html_data *d, lctx_html_campaign *c, FILE *err) {
  char path[4200];
  snprintf(path, sizeof path, "%s/progress.jsonl", c->dir);
  FILE *f = lctx_sys_is_file(path) ? fopen(path, "r") : NULL;
  if (!f)
    return;
  char *line = NULL;
  size_t cap = 0, n = 0;
  while (getline(&line, &cap, f) > 0 && c->point_count < MAX_POINTS) {
    n++;
    json_error_t e;
    json_t *j = json_loads(line, 0, &e);
    if (!j) {
      problem(d, err, "%s:%zu:%d: %s; the points after it are left out", path,
              n, e.column, e.text);
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

static void load_campaign(lctx_html_data *d, const char *dir, FILE *err) {
  if (d->campaign_count >= LCTX_HTML_MAX_INPUTS) {
    problem(d, err, "%s: more than %d campaigns; left out", dir,
            LCTX_HTML_MAX_INPUTS);
    return;
  }
  lctx_html_campaign *c = calloc(1, sizeof *c);
  c->dir = strdup(dir);
  d->campaigns[d->campaign_count++] = c;
  char path[4200];
  snprintf(path, sizeof path, "%s/state.json", dir);
  if (lctx_sys_is_file(path))
    c->state = load_json(d, path, err);
  read_progress(d, c, err);
  if (c->point_count == 0)
    problem(d, err,
            "%s/progress.jsonl: no progress recorded (a campaign of "
            "an older lctx?); no plots",
            dir);
  snprintf(path, sizeof path, "%s/findings", dir);
  lctx_sys_each_entry(path, visit_finding, c);
}

static void load_matrix(lctx_html_data *d, const char *dir, FILE *err) {
  char path[4200];
  snprintf(path, sizeof path, "%s/matrix.json", dir);
  json_t *j = load_json(d, path, err);
  if (!j)
    return;
  if (!json_is_array(json_object_get(j, "rows")) ||
      !json_is_array(json_object_get(j, "versions")) ||
      d->matrix_count >= LCTX_HTML_MAX_INPUTS) {
    problem(d, err, "%s: no rows or versions array; left out", path);
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

/* The spec table: `spec_path`, else the first report's spec_file when it
 * is a readable file, else the default one. */
static bool load_spec(lctx_html_data *d, const char *const *dirs, size_t count,
                      const char *spec_path, FILE *err) {
  const char *path = spec_path;
  json_t *first = NULL;
  for (size_t i = 0; !path && i < count; i++) {
    char file[4200];
    snprintf(file, sizeof file, "%s/report.json", dirs[i]);
    if (lctx_sys_is_file(file) &&
        (first = json_load_file(file, 0, NULL)) != NULL) {
      const char *s = json_string_value(json_object_get(first, "spec_file"));
      if (s && lctx_sys_is_file(s))
        path = s;
      break;
    }
  }
  if (!path)
    path = lctx_sys_default_spec_path();
  snprintf(d->spec_path, sizeof d->spec_path, "%s", path);
  json_decref(first);
  d->spec = calloc(1, sizeof *d->spec);
  return d->spec && lctx_spec_load_or_report(d->spec_path, d->spec, WHO, err);
}

bool lctx_html_load(lctx_html_data *d, const char *const *dirs, size_t count,
                    const char *spec_path, FILE *err) {
  memset(d, 0, sizeof *d);
  if (!load_spec(d, dirs, count, spec_path, err))
    return false;
  for (size_t i = 0; i < count; i++) {
    const char *dir = dirs[i];
    if (!lctx_sys_is_dir(dir))
      problem(d, err, "%s: %s; left out", dir,
              lctx_sys_is_file(dir) ? "not a folder" : "no such folder");
    else if (has(dir, "report.json"))
      load_run(d, dir, err);
    else if (has(dir, "matrix.json"))
      load_matrix(d, dir, err);
    else if (has(dir, "state.json") || has(dir, "progress.jsonl") ||
             has(dir, "summary.txt"))
      load_campaign(d, dir, err);
    else
      problem(d, err,
              "%s: neither a conform report folder (report.json), a fuzz "
              "campaign folder (state.json, progress.jsonl) nor a JAX "
              "version matrix (matrix.json); left out",
              dir);
  }
  return true;
}

void lctx_html_free(lctx_html_data *d) {
  for (size_t i = 0; i < d->run_count; i++) {
    lctx_html_run *r = d->runs[i];
    for (size_t k = 0; k < LCTX_SPEC_MAX_ROWS; k++) {
      json_decref(r->result[k]);
      free(r->case_text[k]);
    }
    json_decref(r->report);
    free(r->dir);
    free(r);
  }
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
  memset(d, 0, sizeof *d);
}
