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
#include <stdint.h>
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
static json_t *load_json(lctx_html_data *d, const char *path, FILE *err) {
  json_error_t e;
  if (!lctx_sys_is_file(path)) { /* a FIFO or a device would block */
    problem(d, err, "%s: not a regular file; left out", path);
    return NULL;
  }
  if (too_big(path)) {
    problem(d, err, "%s: over %d MiB, the limit of a JSON file; left out", path,
            LCTX_HTML_MAX_JSON_FILE >> 20);
    return NULL;
  }
  FILE *f = lctx_sys_fopen_input(path);
  json_t *j = f ? json_loadf(f, 0, &e) : NULL;
  int errnum = errno;
  if (f)
    fclose(f);
  if (!f)
    problem(d, err, "%s: %s; left out", path, lctx_sys_file_error(errnum));
  else if (!j)
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
static void read_results(lctx_html_data *d, lctx_html_run *r, FILE *err) {
  char path[4200];
  snprintf(path, sizeof path, "%s/results.jsonl", r->dir);
  FILE *f = lctx_sys_fopen_input(path); /* never a FIFO: it would block */
  if (!f) {
    problem(d, err, "%s: %s; failing cells show no case", path,
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
      problem(d, err,
              "%s:%zu: longer than %d MiB, the limit of a line; it and the "
              "lines after it are left out",
              path, n, LCTX_HTML_MAX_LINE >> 20);
      break;
    }
    json_error_t e;
    json_t *j = json_loadb(line, (size_t)len, 0, &e);
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

/* The key of the first integer of object `j` (its key `skip` aside) that
 * is negative or over LCTX_HTML_MAX_COUNT, or NULL. */
static const char *bad_count(const json_t *j, const char *skip) {
  const char *key;
  const json_t *x;
  json_object_foreach((json_t *)j, key, x) {
    if (json_is_integer(x) && (!skip || strcmp(key, skip) != 0) &&
        (json_integer_value(x) < 0 ||
         json_integer_value(x) > LCTX_HTML_MAX_COUNT))
      return key;
  }
  return NULL;
}

/* report.json of `dir`, whole and of the version of `spec` (the table of
 * `spec_path`), its counts within bounds, its rows by spec row: a run, or
 * NULL after a problem. */
static lctx_html_run *open_run(lctx_html_data *d, const char *dir,
                               const lctx_spec *spec, const char *spec_path,
                               FILE *err) {
  char path[4200];
  snprintf(path, sizeof path, "%s/report.json", dir);
  json_t *j = load_json(d, path, err);
  if (!j)
    return NULL;
  const char *v = json_string_value(json_object_get(j, "spec_version"));
  json_t *rows = json_object_get(j, "rows");
  if (!v || strcmp(v, spec->version) != 0 || !json_is_array(rows)) {
    problem(d, err, "%s: %s %s, its spec table (%s) is version %s; left out",
            path, v ? "a report of spec version" : "no spec_version",
            v ? v : "", spec_path, spec->version);
    json_decref(j);
    return NULL;
  }
  const char *bad = bad_count(j, "seed");
  size_t i;
  json_t *row;
  json_array_foreach(rows, i, row) bad = bad ? bad : bad_count(row, NULL);
  if (bad) {
    problem(d, err, "%s: the count '%.64s' is negative or over %lld; left out",
            path, bad, LCTX_HTML_MAX_COUNT);
    json_decref(j);
    return NULL;
  }
  lctx_html_run *r = calloc(1, sizeof *r);
  if (!r) {
    json_decref(j);
    return NULL;
  }
  r->dir = strdup(dir);
  r->report = j;
  json_array_foreach(rows, i, row) {
    int k = row_index(spec, json_string_value(json_object_get(row, "id")));
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
  return r;
}

static void free_run(lctx_html_run *r) {
  if (!r)
    return;
  for (size_t k = 0; k < LCTX_SPEC_MAX_ROWS; k++) {
    json_decref(r->result[k]);
    free(r->case_text[k]);
  }
  json_decref(r->report);
  free(r->dir);
  free(r);
}

/* A conform report folder: report.json against the spec table, and
 * results.jsonl. */
static void load_run(lctx_html_data *d, const char *dir, FILE *err) {
  if (d->run_count >= LCTX_HTML_MAX_INPUTS) {
    problem(d, err, "%s: more than %d runs; left out", dir,
            LCTX_HTML_MAX_INPUTS);
    return;
  }
  lctx_html_run *r = open_run(d, dir, d->spec, d->spec_path, err);
  if (!r)
    return;
  d->runs[d->run_count++] = r;
  read_results(d, r, err);
}

//===----------------------------------------------------------------------===//
// Sweep folders
//===----------------------------------------------------------------------===//

static const char *const VERDICT_NAMES[] = {LCTX_HTML_VERDICTS};

/* The index of verdict `name` in LCTX_HTML_VERDICTS, or -1. */
static int verdict_index(const char *name) {
  for (int i = 0; name && i < LCTX_HTML_VERDICT_COUNT; i++)
    if (strcmp(name, VERDICT_NAMES[i]) == 0)
      return i;
  return -1;
}

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

/* A copy of `s` cut to at most `max` bytes (at a UTF-8 boundary, saying
 * so), or NULL. */
static char *cut(const char *s, size_t max) {
  size_t n = strlen(s);
  if (n <= max)
    return strdup(s);
  while (n > 0 && (n > max || ((unsigned char)s[n] & 0xc0) == 0x80))
    n--;
  char *c = malloc(n + 32);
  if (c)
    snprintf(c, n + 32, "%.*s [... cut at %zu bytes]", (int)n, s, n);
  return c;
}

/* Room in *pp, holding `n` items of `size` bytes, for one more (the
 * capacity doubles at 4, 8, 16, ...). */
static bool room(void *pp, size_t n, size_t size) {
  void **p = pp;
  if (n != 0 && (n < 4 || (n & (n - 1)) != 0))
    return true;
  void *q = realloc(*p, (n ? 2 * n : 4) * size);
  if (q)
    *p = q;
  return q != NULL;
}

/* While a sweep's results.jsonl is read: the maps from names to indices
 * and the hashes of the failing programs past the cap. */
typedef struct sweep_reader {
  lctx_html_sweep *s;
  json_t *groups, *programs, *lists;
  uint64_t *left; ///< FNV-1a of the programs left out
  size_t left_count;
  size_t first_bad;    ///< the first malformed line's number
  char first_why[160]; ///< and why
} sweep_reader;

/* Why case line `j` is malformed, or NULL: "case" an integer, "program" a
 * string of 1 to 512 bytes, "platforms" 1 to LCTX_HTML_SWEEP_MAX_LEN
 * strings of 1 to 64 bytes, "verdicts" objects with a "row" string of 1 to
 * 15 bytes, a known "verdict" and "key", "detail" strings or absent. */
static const char *malformed(const json_t *j) {
  const char *program = json_string_value(json_object_get(j, "program"));
  const json_t *plats = json_object_get(j, "platforms");
  const json_t *verdicts = json_object_get(j, "verdicts"), *g, *v;
  if (!json_is_object(j) || !json_is_integer(json_object_get(j, "case")))
    return "not an object with an integer \"case\"";
  if (!program || !*program || strlen(program) > 512)
    return "no \"program\" of 1 to 512 bytes";
  if ((g = json_object_get(j, "group")) &&
      (!json_is_string(g) || strlen(json_string_value(g)) > 512))
    return "a \"group\" that is not a string of at most 512 bytes";
  if (!json_is_array(plats) || json_array_size(plats) == 0 ||
      json_array_size(plats) > LCTX_HTML_SWEEP_MAX_LEN)
    return "no \"platforms\" array of 1 to 16 platforms";
  size_t i;
  json_array_foreach(plats, i, v) {
    size_t n = json_is_string(v) ? strlen(json_string_value(v)) : 0;
    if (n == 0 || n > 64)
      return "a platform that is not a string of 1 to 64 bytes";
  }
  if (!json_is_array(verdicts))
    return "no \"verdicts\" array";
  json_array_foreach(verdicts, i, v) {
    const char *row = json_string_value(json_object_get(v, "row"));
    const json_t *key = json_object_get(v, "key");
    const json_t *detail = json_object_get(v, "detail");
    if (!row || !*row || strlen(row) > 15)
      return "a verdict without a \"row\" of 1 to 15 bytes";
    if (verdict_index(json_string_value(json_object_get(v, "verdict"))) < 0)
      return "a verdict that is none of pass, fail, xfail, xpass, crash, "
             "timeout, flaky, unsupported";
    if ((key && !json_is_string(key)) || (detail && !json_is_string(detail)))
      return "a verdict whose \"key\" or \"detail\" is not a string";
  }
  const json_t *o = json_object_get(j, "outcome");
  return o && !json_is_string(o) ? "an \"outcome\" that is not a string" : NULL;
}

/* The group of `name`, added when new (past the cap: one row for the
 * rest). */
static lctx_html_sweep_group *group_for(sweep_reader *rd, const char *name) {
  lctx_html_sweep *s = rd->s;
  if (s->group_count >= LCTX_HTML_SWEEP_MAX_GROUPS - 1 &&
      !json_object_get(rd->groups, name))
    name = "(the other groups)";
  json_t *at = json_object_get(rd->groups, name);
  if (at)
    return &s->groups[json_integer_value(at)];
  if (!room(&s->groups, s->group_count, sizeof *s->groups))
    return NULL;
  lctx_html_sweep_group *g = &s->groups[s->group_count];
  memset(g, 0, sizeof *g);
  g->name = strdup(name);
  json_object_set_new(rd->groups, name,
                      json_integer((json_int_t)s->group_count));
  s->group_count++;
  return g;
}

/* The index of platform list `plats` among the sweep's lists, added when
 * new, or -1 past the cap. */
static long list_for(sweep_reader *rd, const json_t *plats) {
  lctx_html_sweep *s = rd->s;
  char text[LCTX_HTML_SWEEP_MAX_LEN * 68] = "";
  size_t i, at = 0;
  json_t *p;
  json_array_foreach(plats, i, p) {
    at += (size_t)snprintf(text + at, sizeof text - at, "%s%s", i ? ", " : "",
                           json_string_value(p));
  }
  json_t *known = json_object_get(rd->lists, text);
  if (known)
    return (long)json_integer_value(known);
  if (s->list_count >= LCTX_HTML_SWEEP_MAX_LISTS)
    return -1;
  s->lists[s->list_count] = strdup(text);
  s->list_len[s->list_count] = json_array_size(plats);
  json_object_set_new(rd->lists, text, json_integer((json_int_t)s->list_count));
  return (long)s->list_count++;
}

/* The failing program `name`, added when new, or NULL past the cap (its
 * hash kept, to count the programs left out). */
static lctx_html_sweep_program *program_for(sweep_reader *rd,
                                            const char *name) {
  lctx_html_sweep *s = rd->s;
  json_t *at = json_object_get(rd->programs, name);
  if (at)
    return &s->programs[json_integer_value(at)];
  if (s->program_count >= LCTX_HTML_SWEEP_MAX_PROGRAMS) {
    uint64_t h = 1469598103934665603u;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
      h = (h ^ *c) * 1099511628211u;
    if (room(&rd->left, rd->left_count, sizeof *rd->left))
      rd->left[rd->left_count++] = h;
    return NULL;
  }
  if (!room(&s->programs, s->program_count, sizeof *s->programs))
    return NULL;
  lctx_html_sweep_program *p = &s->programs[s->program_count];
  memset(p, 0, sizeof *p);
  p->name = strdup(name);
  json_object_set_new(rd->programs, name,
                      json_integer((json_int_t)s->program_count));
  s->program_count++;
  return p;
}

/* Keeps non-pass verdict `v` (of index `vi`) of a case of program `p` with
 * platform list `list`, once per row, verdict and key. */
static void keep_entry(lctx_html_sweep_program *p, long list, const json_t *v,
                       int vi, long long case_no, const char *outcome) {
  const char *row = json_string_value(json_object_get(v, "row"));
  const char *key = json_string_value(json_object_get(v, "key"));
  const char *detail = json_string_value(json_object_get(v, "detail"));
  for (size_t i = 0; i < p->entry_count; i++) {
    lctx_html_sweep_entry *e = &p->entries[i];
    if (e->list == (size_t)list && e->verdict == vi &&
        strcmp(e->row, row) == 0 &&
        strncmp(e->key, key ? key : "", 1024) == 0) {
      e->repeats++;
      return;
    }
  }
  if (p->entry_count >= LCTX_HTML_SWEEP_MAX_ENTRIES ||
      !room(&p->entries, p->entry_count, sizeof *p->entries)) {
    p->entries_left_out++;
    return;
  }
  lctx_html_sweep_entry *e = &p->entries[p->entry_count++];
  memset(e, 0, sizeof *e);
  e->list = (size_t)list;
  e->verdict = vi;
  e->case_no = case_no;
  snprintf(e->row, sizeof e->row, "%s", row);
  e->key = cut(key ? key : "", 1024);
  e->detail = cut(detail ? detail : "", 4096);
  e->outcome = cut(outcome ? outcome : "", 2048);
}

/* One well-formed case line: counted in its group and length, its
 * non-pass verdicts kept by program. */
static void add_case(sweep_reader *rd, const json_t *j) {
  lctx_html_sweep *s = rd->s;
  const char *program = json_string_value(json_object_get(j, "program"));
  const json_t *plats = json_object_get(j, "platforms");
  const json_t *verdicts = json_object_get(j, "verdicts"), *v;
  const char *outcome = json_string_value(json_object_get(j, "outcome"));
  char group[520];
  const char *gname = json_string_value(json_object_get(j, "group"));
  const char *slash = strrchr(program, '/');
  if (gname && *gname)
    snprintf(group, sizeof group, "%s", gname);
  else
    snprintf(group, sizeof group, "%.*s",
             (int)(slash && slash != program ? slash - program
                                             : (long)strlen(program)),
             program);
  size_t len = json_array_size(plats), i;
  int worst = LCTX_HTML_V_NONE;
  long list = -2;
  lctx_html_sweep_program *p = NULL;
  json_array_foreach(verdicts, i, v) {
    int vi = verdict_index(json_string_value(json_object_get(v, "verdict")));
    worst = vi < worst ? vi : worst;
    if (vi == LCTX_HTML_V_PASS || vi == LCTX_HTML_V_NONE)
      continue;
    if (list == -2) { /* the program first: lists only of rows shown */
      p = program_for(rd, program);
      list = p ? list_for(rd, plats) : -1;
    }
    if (p && list >= 0)
      keep_entry(p, list, v, vi, json_integer_value(json_object_get(j, "case")),
                 outcome);
    else if (p) {
      p->entries_left_out++;
      s->entries_left_out++;
    }
  }
  lctx_html_sweep_group *g = group_for(rd, group);
  if (g)
    g->by[len][worst]++;
  s->length_seen[len] = true;
  s->cases++;
}

static int by_hash(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* A platform list and its index before sorting. */
typedef struct list_order {
  const char *text;
  size_t len, old;
} list_order;

static int by_list(const void *a, const void *b) {
  const list_order *x = a, *y = b;
  if (x->len != y->len)
    return x->len < y->len ? -1 : 1;
  return strcmp(x->text, y->text);
}

/* Sorts the sweep's platform lists (by length, then text), its entries
 * following, and counts the distinct programs left out. */
static void finish_sweep(sweep_reader *rd) {
  lctx_html_sweep *s = rd->s;
  list_order order[LCTX_HTML_SWEEP_MAX_LISTS];
  size_t to[LCTX_HTML_SWEEP_MAX_LISTS];
  for (size_t i = 0; i < s->list_count; i++)
    order[i] = (list_order){s->lists[i], s->list_len[i], i};
  if (s->list_count > 1)
    qsort(order, s->list_count, sizeof *order, by_list);
  for (size_t i = 0; i < s->list_count; i++) {
    s->lists[i] = (char *)order[i].text;
    s->list_len[i] = order[i].len;
    to[order[i].old] = i;
  }
  for (size_t p = 0; p < s->program_count; p++)
    for (size_t e = 0; e < s->programs[p].entry_count; e++)
      s->programs[p].entries[e].list = to[s->programs[p].entries[e].list];
  if (rd->left_count > 1)
    qsort(rd->left, rd->left_count, sizeof *rd->left, by_hash);
  for (size_t i = 0; i < rd->left_count; i++)
    if (i == 0 || rd->left[i] != rd->left[i - 1])
      s->programs_left_out++;
}

/* DIR/results.jsonl of a sweep: its lines after the stamp, at most
 * LCTX_HTML_SWEEP_MAX_LINES of at most LCTX_HTML_SWEEP_MAX_LINE bytes; a
 * malformed line is skipped and counted. */
static void read_sweep_results(lctx_html_data *d, lctx_html_sweep *s,
                               FILE *err) {
  char path[4200];
  snprintf(path, sizeof path, "%s/results.jsonl", s->run->dir);
  FILE *f = lctx_sys_fopen_input(path);
  char *buf = malloc(LCTX_HTML_SWEEP_MAX_LINE);
  sweep_reader rd = {.s = s,
                     .groups = json_object(),
                     .programs = json_object(),
                     .lists = json_object()};
  bool over = false, cut_short = false;
  long n;
  for (size_t no = 1;
       f && buf &&
       (n = lctx_sys_read_line(f, buf, LCTX_HTML_SWEEP_MAX_LINE, &over)) >= 0;
       no++) {
    if (no > LCTX_HTML_SWEEP_MAX_LINES) {
      cut_short = true;
      break;
    }
    json_error_t e;
    json_t *j = over ? NULL : json_loadb(buf, (size_t)n, 0, &e);
    const char *why = over ? "longer than 64 KiB" : j ? malformed(j) : e.text;
    if (no == 1) { /* the stamp */
    } else if (why) {
      if (s->malformed++ == 0) {
        rd.first_bad = no;
        snprintf(rd.first_why, sizeof rd.first_why, "%s", why);
      }
    } else {
      add_case(&rd, j);
    }
    json_decref(j);
  }
  if (!f || !buf)
    problem(d, err, "%s: cannot be read: %s", path, strerror(errno));
  if (f)
    fclose(f);
  free(buf);
  finish_sweep(&rd);
  free(rd.left);
  json_decref(rd.groups);
  json_decref(rd.programs);
  json_decref(rd.lists);
  if (s->malformed)
    problem(d, err,
            "%s: %lld malformed line(s) skipped, the first at line %zu: %s",
            path, s->malformed, rd.first_bad, rd.first_why);
  if (cut_short)
    problem(d, err,
            "%s: more than %d lines; the lines after line %d are left out",
            path, LCTX_HTML_SWEEP_MAX_LINES, LCTX_HTML_SWEEP_MAX_LINES);
}

/* An `lctx sweep` folder: report.json against the sweep table,
 * results.jsonl summed up, reach.json when there is one. */
static void load_sweep(lctx_html_data *d, const char *dir, FILE *err) {
  if (d->sweep_count >= LCTX_HTML_MAX_INPUTS) {
    problem(d, err, "%s: more than %d sweeps; left out", dir,
            LCTX_HTML_MAX_INPUTS);
    return;
  }
  lctx_html_run *r = open_run(d, dir, d->sweep_spec, d->sweep_spec_path, err);
  lctx_html_sweep *s = r ? calloc(1, sizeof *s) : NULL;
  if (!s) {
    free_run(r);
    return;
  }
  s->run = r;
  s->stamp = sweep_stamp(dir);
  d->sweeps[d->sweep_count++] = s;
  read_sweep_results(d, s, err);
  char path[4200];
  snprintf(path, sizeof path, "%s/reach.json", dir);
  struct stat st;
  if (!lctx_sys_is_file(path))
    return;
  if (stat(path, &st) == 0 && st.st_size > 16 << 20)
    problem(d, err, "%s: over 16 MiB; the reach is not shown", path);
  else
    s->reach = load_json(d, path, err);
}

/* OUT/progress.jsonl: one point per line. */
static void read_progress(lctx_html_data *d, lctx_html_campaign *c, FILE *err) {
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
      problem(d, err,
              "%s:%zu: longer than %d MiB, the limit of a line; the "
              "points from it on are left out",
              path, n, LCTX_HTML_MAX_LINE >> 20);
      break;
    }
    json_error_t e;
    json_t *j = json_loadb(line, (size_t)len, 0, &e);
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
                                   char *buf, size_t size, FILE *err) {
  for (size_t i = 0; i < count; i++) {
    if (kinds[i] != kind)
      continue;
    char file[4200];
    snprintf(file, sizeof file, "%s/report.json", dirs[i]);
    FILE *f = too_big(file) ? NULL : lctx_sys_fopen_input(file);
    json_t *j = f ? json_loadf(f, 0, NULL) : NULL;
    if (f)
      fclose(f);
    const char *s = json_string_value(json_object_get(j, "spec_file"));
    struct stat st;
    bool usable = s && strlen(s) < size && spec_file_followed(s);
    if (usable)
      snprintf(buf, size, "%s", s);
    else if (s && lstat(s, &st) == 0)
      problem(d, err,
              "%s: its spec_file %s is not read (only a regular file "
              "named *.lspec is; name the table with --spec); a default "
              "table is used",
              file, s);
    json_decref(j);
    return usable ? buf : NULL;
  }
  return NULL;
}

/* Reads the table `path` into a new *spec, its path into `path_buf`. */
static bool load_table(lctx_spec **spec, char *path_buf, size_t size,
                       const char *path, FILE *err) {
  snprintf(path_buf, size, "%s", path);
  *spec = calloc(1, sizeof **spec);
  return *spec && lctx_spec_load_or_report(path_buf, *spec, WHO, err);
}

/* The tables (see lctx_html_load). */
static bool load_tables(lctx_html_data *d, const char *const *dirs,
                        const int *kinds, size_t count, const char *spec_path,
                        FILE *err) {
  bool runs = false, sweeps = false;
  for (size_t i = 0; i < count; i++) {
    runs |= kinds[i] == K_RUN;
    sweeps |= kinds[i] == K_SWEEP;
  }
  if (spec_path) {
    lctx_spec *given = NULL;
    char path[4096];
    if (!load_table(&given, path, sizeof path, spec_path, err)) {
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
        first_spec_file(d, dirs, kinds, count, K_RUN, file, sizeof file, err);
    if (!load_table(&d->spec, d->spec_path, sizeof d->spec_path,
                    p ? p : lctx_sys_default_spec_path(), err))
      return false;
  }
  if (!d->sweep_spec && sweeps) {
    const char *p =
        first_spec_file(d, dirs, kinds, count, K_SWEEP, file, sizeof file, err);
    if (!p) { /* jax-sweep.lspec beside the default table */
      snprintf(file, sizeof file, "%s", lctx_sys_default_spec_path());
      char *slash = strrchr(file, '/');
      size_t at = slash ? (size_t)(slash + 1 - file) : 0;
      snprintf(file + at, sizeof file - at, "jax-sweep.lspec");
      p = file;
    }
    if (!load_table(&d->sweep_spec, d->sweep_spec_path,
                    sizeof d->sweep_spec_path, p, err))
      return false;
  }
  return true;
}

bool lctx_html_load(lctx_html_data *d, const char *const *dirs, size_t count,
                    const char *spec_path, FILE *err) {
  memset(d, 0, sizeof *d);
  int *kinds = calloc(count ? count : 1, sizeof *kinds);
  if (!kinds)
    return false;
  for (size_t i = 0; i < count; i++)
    kinds[i] = kind_of(dirs[i]);
  bool ok = load_tables(d, dirs, kinds, count, spec_path, err);
  for (size_t i = 0; ok && i < count; i++) {
    const char *dir = dirs[i];
    if (kinds[i] == K_MISSING)
      problem(d, err, "%s: %s; left out", dir,
              lctx_sys_is_file(dir) ? "not a folder" : "no such folder");
    else if (kinds[i] == K_RUN)
      load_run(d, dir, err);
    else if (kinds[i] == K_SWEEP)
      load_sweep(d, dir, err);
    else if (kinds[i] == K_MATRIX)
      load_matrix(d, dir, err);
    else if (kinds[i] == K_CAMPAIGN)
      load_campaign(d, dir, err);
    else
      problem(d, err,
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
