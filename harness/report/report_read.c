/*
 * report_read.c - reading a report.json back into the report model (see
 * report_read.h): the file, its counts, its stamp, its rows.
 */
#include "report_read.h"

#include "report_text.h"
#include "sys.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What kind of JSON value `j` is, for a message. */
static const char *kind_of(const json_t *j) {
  switch (json_typeof(j)) {
  case JSON_OBJECT:
    return "an object";
  case JSON_ARRAY:
    return "an array";
  case JSON_STRING:
    return "a string";
  case JSON_INTEGER:
  case JSON_REAL:
    return "a number";
  case JSON_TRUE:
  case JSON_FALSE:
    return "a boolean";
  default:
    return "null";
  }
}

/* The document at `path`: a regular file of at most LCTX_REPORT_MAX_JSON
 * bytes holding one JSON object. */
static json_t *load(const char *path, lctx_buf *error) {
  FILE *f = lctx_sys_fopen_input(path); /* a FIFO or a device would block */
  if (!f) {
    lctx_report_say(error, "%s: cannot read: %s", path,
                    lctx_sys_file_error(errno));
    return NULL;
  }
  struct stat st;
  json_error_t e;
  json_t *j = NULL;
  if (fstat(fileno(f), &st) != 0 || st.st_size > LCTX_REPORT_MAX_JSON)
    lctx_report_say(error,
                    "%s: over 16 MiB, the most a report.json may hold; "
                    "not read",
                    path);
  else if (!(j = json_loadf(f, 0, &e)))
    lctx_report_say(error, "%s:%d:%d: not a whole JSON report: %s", path,
                    e.line, e.column, e.text);
  fclose(f);
  if (j && !json_is_object(j)) {
    lctx_report_say(error,
                    "%s: not a conform report: a JSON object (with "
                    "spec_version, shard, rows...) was expected, not %s",
                    path, kind_of(j));
    json_decref(j);
    j = NULL;
  }
  return j;
}

/* The first integer under `j` (the top-level "seed" aside) that is no
 * count, its place written as "KEY", "KEY.KEY" or "KEY[I].KEY" into
 * `where`; false when there is none. */
static bool bad_count(const json_t *j, bool top, char *where, size_t n) {
  const char *key;
  const json_t *x;
  size_t i;
  if (json_is_integer(j)) {
    json_int_t v = json_integer_value(j);
    return v < 0 || v > LCTX_REPORT_MAX_COUNT;
  }
  if (json_is_array(j)) {
    json_array_foreach(j, i, x) {
      char inner[256] = "";
      if (bad_count(x, false, inner, sizeof inner)) {
        snprintf(where, n, "[%zu]%s%s", i, inner[0] ? "." : "", inner);
        return true;
      }
    }
  }
  json_object_foreach((json_t *)j, key, x) {
    char inner[256] = "";
    if ((!top || strcmp(key, "seed") != 0) &&
        bad_count(x, false, inner, sizeof inner)) {
      snprintf(where, n, "%.64s%s%s", key,
               inner[0] && inner[0] != '[' ? "." : "", inner);
      return true;
    }
  }
  return false;
}

/* Says that `path`'s `field` is missing or not `want`; false. */
static bool bad_field(lctx_buf *error, const char *path, const char *field,
                      const char *want) {
  return lctx_report_say(error, "%s: field '%s' is missing or not %s", path,
                         field, want);
}

static bool get_string(const json_t *j, const char *key, const char *path,
                       const char **v, lctx_buf *error) {
  *v = json_string_value(json_object_get(j, key));
  return *v || bad_field(error, path, key, "a string");
}

/* A count (checked by bad_count already) that must be there. */
static bool get_count(const json_t *j, const char *key, const char *path,
                      size_t *v, lctx_buf *error) {
  const json_t *x = json_object_get(j, key);
  if (!json_is_integer(x))
    return bad_field(error, path, key, "a count (0 to 2^40)");
  *v = (size_t)json_integer_value(x);
  return true;
}

/* A count that may be missing (0 then). */
static size_t optional_count(const json_t *j, const char *key) {
  const json_t *x = json_object_get(j, key);
  return json_is_integer(x) ? (size_t)json_integer_value(x) : 0;
}

/* The stamp, and the cases of the sources. */
static bool read_stamp(lctx_report_file *f, const char *path, lctx_buf *error) {
  const json_t *j = f->json, *shard = json_object_get(j, "shard");
  lctx_report_stamp *s = &f->stamp;
  lctx_report *r = &f->report;
  size_t si = 0, sn = 0;
  if (!get_string(j, "spec_version", path, &s->spec_version, error) ||
      !get_string(j, "lctx_version", path, &s->lctx_version, error) ||
      !get_string(j, "implementation", path, &s->impl_name, error) ||
      !get_string(j, "implementation_version", path, &s->impl_version, error) ||
      !get_string(j, "implementation_kind", path, &s->impl_kind, error) ||
      !get_count(j, "cases_run", path, &r->cases_run, error) ||
      !get_count(j, "cases_skipped", path, &r->cases_skipped, error) ||
      !get_count(j, "cases_unsupported", path, &r->cases_unsupported, error))
    return false;
  if (!json_is_integer(json_object_get(j, "seed")))
    return bad_field(error, path, "seed", "a number");
  si = optional_count(shard, "index");
  sn = optional_count(shard, "count");
  if (!json_is_object(shard) || sn == 0 || si == 0 || si > sn ||
      sn > LCTX_REPORT_MAX_SHARDS)
    return bad_field(error, path, "shard",
                     "{\"index\": I, \"count\": N}, 1 <= I <= N (a report "
                     "of an older lctx?)");
  s->seed = (unsigned long long)json_integer_value(json_object_get(j, "seed"));
  s->shard_i = (unsigned)si;
  s->shard_n = (unsigned)sn;
  s->jax_release = json_string_value(json_object_get(j, "jax_release"));
  s->jax_release_recorded = s->jax_release != NULL;
  s->jax_release = s->jax_release ? s->jax_release : "modelled";
  s->spec_file = json_string_value(json_object_get(j, "spec_file"));
  s->spec_file = s->spec_file ? s->spec_file : "?";
  s->cases = json_is_integer(json_object_get(j, "cases"))
                 ? optional_count(j, "cases")
                 : r->cases_run + r->cases_skipped + r->cases_unsupported;
  static const char *const SOURCES[] = {"conformance", "domain", "random"};
  const json_t *by = json_object_get(j, "cases_by_source");
  for (size_t k = 0; k < 3; k++)
    r->source_cases[k] = optional_count(by, SOURCES[k]);
  if (r->source_cases[0] + r->source_cases[1] + r->source_cases[2] !=
      s->cases) /* they must add up */
    memset(r->source_cases, 0, sizeof r->source_cases);
  return true;
}

/* Copies the string `key` of `j`, when there is one, into `dst`. */
static void text(const json_t *j, const char *key, char *dst, size_t n) {
  const char *s = json_string_value(json_object_get(j, key));
  if (s)
    snprintf(dst, n, "%s", s);
}

/* The place in the plan under `key` of `j` ("first_at": {"source",
 * "index", "operation"}); not known when missing or of another shape. */
static lctx_report_at read_at(const json_t *j, const char *key) {
  const json_t *at = json_object_get(j, key);
  const char *source = json_string_value(json_object_get(at, "source"));
  const json_t *index = json_object_get(at, "index");
  const json_t *op = json_object_get(at, "operation");
  if (!source || !json_is_integer(index) || !json_is_integer(op))
    return (lctx_report_at){0};
  return lctx_report_at_of(source, (size_t)json_integer_value(index),
                           (size_t)json_integer_value(op));
}

/* Row `k` of the report (`row`). */
static bool read_row(lctx_report_file *f, size_t k, const json_t *row,
                     const char *path, lctx_buf *error) {
  lctx_report_row *s = &f->report.rows[k];
  const char *id = json_string_value(json_object_get(row, "id"));
  if (!json_is_object(row) || !id || !id[0] || strlen(id) >= LCTX_SPEC_MAX_ID)
    return bad_field(error, path, "rows[].id", "a row id");
  snprintf(s->id, sizeof s->id, "%s", id);
  for (int v = 0; v < LCTX_VERDICT_COUNT; v++)
    if (!get_count(row, lctx_verdict_name(v), path, &s->n[v], error))
      return false;
  if (!get_count(row, "results_kept", path, &s->kept, error) ||
      !get_count(row, "results_not_kept", path, &s->not_kept, error))
    return false;
  s->absent = json_is_true(json_object_get(row, "absent"));
  s->not_judged = optional_count(row, "not_judged");
  s->drift_explained = optional_count(row, "drift_explained");
  s->drift_new = optional_count(row, "drift_new");
  text(row, "first", s->first, sizeof s->first);
  text(row, "first_case", s->first_case, sizeof s->first_case);
  /* A rerun line that does not fit is left out whole: a line cut short
   * would run another case. */
  const char *rerun = json_string_value(json_object_get(row, "rerun"));
  if (rerun && strlen(rerun) < sizeof s->rerun)
    snprintf(s->rerun, sizeof s->rerun, "%s", rerun);
  text(row, "drift", s->drift, sizeof s->drift);
  text(row, "drift_new_text", s->drift_new_text, sizeof s->drift_new_text);
  s->first_at = read_at(row, "first_at");
  s->drift_at = read_at(row, "drift_at");
  s->drift_new_at = read_at(row, "drift_new_at");
  const char *reason = json_string_value(json_object_get(row, "xfail_reason"));
  if (reason) {
    f->xfail[k] = true;
    snprintf(f->xfail_reason[k], sizeof f->xfail_reason[k], "%s", reason);
  }
  return true;
}

static bool read_rows(lctx_report_file *f, const char *path, lctx_buf *error) {
  const json_t *rows = json_object_get(f->json, "rows");
  size_t n = json_array_size(rows);
  if (!json_is_array(rows) || n == 0 || n > LCTX_SPEC_MAX_ROWS)
    return bad_field(error, path, "rows", "an array of 1 to 128 rows");
  f->report.row_count = n;
  for (size_t k = 0; k < n; k++)
    if (!read_row(f, k, json_array_get(rows, k), path, error))
      return false;
  return true;
}

/* The run-wide counts and facts beside the stamp and the rows. */
static void read_run(lctx_report_file *f) {
  const json_t *j = f->json;
  lctx_report *r = &f->report;
  r->cases_absent = optional_count(j, "cases_absent");
  r->cases_not_judged = optional_count(j, "cases_not_judged");
  const json_t *nj = json_object_get(j, "not_judged");
  text(nj, "fact", r->not_judged_fact, sizeof r->not_judged_fact);
  text(nj, "why", r->not_judged_why, sizeof r->not_judged_why);
  r->not_judged_at = read_at(nj, "at");
  r->spec_gaps = optional_count(j, "spec_gaps");
  r->restarts = optional_count(j, "restarts");
  r->recycles = optional_count(j, "recycles");
  r->modules_judged = optional_count(j, "modules_judged");
  r->modules_unjudged = optional_count(j, "modules_unjudged");
  r->seconds = json_number_value(json_object_get(j, "seconds"));
  r->interrupted = json_is_true(json_object_get(j, "interrupted"));
  f->modules_judged = r->modules_judged;
  f->judge_kills = optional_count(j, "judge_kills");
  f->left_behind_killed = optional_count(j, "processes_left_behind_killed");
  f->stops_continued = optional_count(j, "lctx_stops_continued");
  f->stopped_at_first_failure =
      json_is_true(json_object_get(j, "stopped_at_first_failure"));
  f->per_row_cap = json_is_integer(json_object_get(j, "keep_failures"));
  f->keep_failures = optional_count(j, "keep_failures");
  f->isolation = json_string_value(json_object_get(j, "isolation"));
  const json_t *peak = json_object_get(j, "peak_memory_mb");
  f->peak_memory_mb = json_is_number(peak) ? json_number_value(peak) : -1;
  /* The first failure, when its row and verdict are the report's. */
  const json_t *ff = json_object_get(j, "first_failure");
  const char *row = json_string_value(json_object_get(ff, "row"));
  const char *verdict = json_string_value(json_object_get(ff, "verdict"));
  for (size_t k = 0; row && verdict && k < r->row_count; k++) {
    if (strcmp(r->rows[k].id, row) != 0)
      continue;
    for (int v = 0; v < LCTX_VERDICT_COUNT; v++) {
      if (strcmp(verdict, lctx_verdict_name(v)) != 0)
        continue;
      r->failed_once = true;
      r->first_failure_row = k;
      r->first_failure_verdict = (lctx_verdict)v;
      r->first_failure_seconds =
          json_number_value(json_object_get(ff, "seconds"));
      r->first_failure_at = read_at(ff, "at");
    }
    break;
  }
}

//===----------------------------------------------------------------------===//
// A sweep's diagnoses
//===----------------------------------------------------------------------===//

/* Text `x` into `dst` (`n` bytes): a string (or null, "", when `null_ok`)
 * of at most 3n bytes, cut to the field. */
static bool diag_text(const json_t *x, bool null_ok, char *dst, size_t n) {
  dst[0] = '\0';
  if (null_ok && json_is_null(x))
    return true;
  const char *t = json_string_value(x);
  if (!t || json_string_length(x) > 3 * n)
    return false;
  snprintf(dst, n, "%s", t);
  return true;
}

/* Place `x` (null: none) into `f`: file, line, and function when `fn`. */
static bool diag_place(const json_t *x, bool fn, lctx_user_frame *f) {
  memset(f, 0, sizeof *f);
  if (json_is_null(x))
    return true;
  const json_t *line = json_object_get(x, "line");
  if (!json_is_object(x) || !json_is_integer(line) ||
      !diag_text(json_object_get(x, "file"), false, f->file, sizeof f->file) ||
      !f->file[0])
    return false;
  f->line = (long)json_integer_value(line);
  return !fn || diag_text(json_object_get(x, "function"), true, f->function,
                          sizeof f->function);
}

/* The platforms of diagnosis `j`: 2 to LCTX_EXPORT_MAX_PLATFORMS names. */
static bool diag_platforms(const json_t *j, lctx_diagnosis *d) {
  const json_t *plats = json_object_get(j, "platforms");
  size_t n = json_array_size(plats);
  if (!json_is_array(plats) || n < 2 || n > LCTX_EXPORT_MAX_PLATFORMS)
    return false;
  d->platform_count = n;
  for (size_t k = 0; k < n; k++)
    if (!diag_text(json_array_get(plats, k), false, d->platforms[k],
                   sizeof d->platforms[k]) ||
        !d->platforms[k][0])
      return false;
  return true;
}

/* Diagnosis `j` into `d`; NULL, or the field that is bad and what it must
 * be ("class\0a class's name"). */
static const char *diag_item(const json_t *j, lctx_diagnosis *d) {
  memset(d, 0, sizeof *d);
  const char *cls = json_string_value(json_object_get(j, "class"));
  const json_t *c = json_object_get(j, "case"), *line;
  d->cls = LCTX_DIAGNOSIS_CLASS_COUNT;
  for (int k = 0; cls && k < LCTX_DIAGNOSIS_CLASS_COUNT; k++)
    if (strcmp(cls, lctx_diagnosis_class_name(k)) == 0)
      d->cls = k;
  if (!json_is_object(j))
    return "\0an object";
  if (!json_is_integer(c))
    return "case\0a count";
  d->plan_case = (size_t)json_integer_value(c);
  if (!diag_text(json_object_get(j, "program"), false, d->program,
                 sizeof d->program) ||
      !d->program[0])
    return "program\0a program's name";
  if (d->cls == LCTX_DIAGNOSIS_CLASS_COUNT)
    return "class\0a class of diagnosis";
  if (!diag_platforms(j, d))
    return "platforms\0a list of 2 to 8 platform names";
  if (!diag_text(json_object_get(j, "primitive"), true, d->primitive,
                 sizeof d->primitive))
    return "primitive\0a string or null";
  if (!diag_text(json_object_get(j, "file"), true, d->file, sizeof d->file))
    return "file\0a string or null";
  if (!json_is_integer(line = json_object_get(j, "line")))
    return "line\0a line number";
  d->line = (long)json_integer_value(line);
  if (!diag_place(json_object_get(j, "rule"), true, &d->rule))
    return "rule\0null or {\"file\", \"line\", \"function\"}";
  if (!diag_place(json_object_get(j, "call_site"), false, &d->call_site))
    return "call_site\0null or {\"file\", \"line\"}";
  if (!diag_text(json_object_get(j, "message"), false, d->message,
                 sizeof d->message))
    return "message\0a string";
  if (!diag_text(json_object_get(j, "fix"), false, d->fix, sizeof d->fix))
    return "fix\0a string";
  return NULL;
}

/* The "diagnoses" of a sweep's report, when there. */
static bool read_diagnoses(lctx_report_file *f, const char *path,
                           lctx_buf *error) {
  const json_t *list = json_object_get(f->json, "diagnoses");
  size_t n = json_array_size(list);
  if (!list)
    return true;
  if (!json_is_array(list) || n > LCTX_REPORT_MAX_DIAGNOSES)
    return bad_field(error, path, "diagnoses",
                     "an array of at most 10000 diagnoses");
  f->diagnosed = true;
  f->diagnoses = calloc(n + 1, sizeof *f->diagnoses);
  if (!f->diagnoses)
    return lctx_report_say(error, "%s: out of memory", path);
  for (size_t i = 0; i < n; i++) {
    const char *bad = diag_item(json_array_get(list, i), &f->diagnoses[i]);
    if (bad)
      return lctx_report_say(error,
                             "%s: field 'diagnoses[%zu]%s%s' is missing or "
                             "not %s",
                             path, i, bad[0] ? "." : "", bad,
                             bad + strlen(bad) + 1);
  }
  f->diagnosis_count = n;
  return true;
}

lctx_report_file *lctx_report_read(const char *path, lctx_buf *error) {
  json_t *j = load(path, error);
  if (!j)
    return NULL;
  char where[320];
  if (bad_count(j, true, where, sizeof where)) {
    lctx_report_say(error,
                    "%s: field '%s' is not a count (0 to 2^40): negative or "
                    "over 1099511627776",
                    path, where);
    json_decref(j);
    return NULL;
  }
  lctx_report_file *f = calloc(1, sizeof *f);
  if (!f) {
    lctx_report_say(error, "%s: out of memory", path);
    json_decref(j);
    return NULL;
  }
  f->json = j;
  if (!read_stamp(f, path, error) || !read_rows(f, path, error) ||
      !read_diagnoses(f, path, error)) {
    lctx_report_file_free(f);
    return NULL;
  }
  read_run(f);
  lctx_report_report_sum(&f->report);
  return f;
}

void lctx_report_file_free(lctx_report_file *f) {
  if (!f)
    return;
  json_decref(f->json);
  free(f->diagnoses);
  free(f);
}
