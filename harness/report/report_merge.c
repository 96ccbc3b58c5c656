/*
 * report_merge.c - merging the reports of sharded conform runs (see
 * report_merge.h).
 *
 * Each folder's report.json is read whole and checked against the first
 * one's stamp; its rows are added into one lctx_report, which the
 * writers of conform_report.h turn into the merged files.
 */
#include "report_merge.h"

#include "report_write.h"
#include "escape.h"
#include "exit.h"
#include "sys.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WHO "lctx report merge"

/* The most shards a merge accepts. */
#define MAX_SHARDS 100000

/* The stamp of one report.json; the strings point into its json_t. */
typedef struct stamp {
  const char *spec_file, *spec_version, *lctx_version;
  const char *impl_name, *impl_version, *impl_kind;
  const char *jax_release; /* "modelled" in a report without one */
  unsigned long long seed;
  unsigned shard_i, shard_n;
  /* The cases of the sources (report.json's "cases"; in a report without
   * it, the cases run, skipped and unsupported), the same in every shard,
   * and per source (0 when not recorded). */
  size_t offered;
  size_t sources[3];
} stamp;

/* The merge: the summed report and what the writers need besides. */
typedef struct merge {
  const lctx_report_merge_options *o;
  lctx_report rep;
  bool xfail[LCTX_SPEC_MAX_ROWS];
  char xfail_reason[LCTX_SPEC_MAX_ROWS][LCTX_REPORT_REASON_MAX];
  json_t *first_json; /* the first report.json, holding `first`'s strings */
  stamp first;
  size_t modules_judged, judge_kills, left_behind_killed, stops_continued;
  bool stopped;
  double peak;
  const char **shard_dir; /* per shard (shard_i - 1): its folder, or NULL */
  FILE *err;              /* warnings */
  /* The results lines taken so far, as hashes of what names them (a
   * sweep's case, a conform verdict's source, name, index, operation and
   * row): a line given twice refuses the merge. Open addressing; 0 is
   * free. */
  unsigned long long *seen;
  size_t seen_count, seen_cap;
  char *why; /* the reason of a refusal, unescaped */
  size_t why_cap;
  bool said;
} merge;

/* Keeps the first reason the merge is refused for (the caller shows it
 * escaped); false. */
__attribute__((format(printf, 2, 3))) static bool refuse(merge *m,
                                                         const char *fmt, ...) {
  if (m->said || m->why_cap == 0)
    return false;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m->why, m->why_cap, fmt, ap);
  va_end(ap);
  m->said = true;
  return false;
}

/* Says that `path`'s `field` is missing or of the wrong kind. */
static bool bad_field(merge *m, const char *path, const char *field,
                      const char *want) {
  return refuse(m, "%s: field '%s' is missing or not %s", path, field, want);
}

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

static bool get_string(merge *m, json_t *j, const char *key, const char *path,
                       const char **v) {
  *v = json_string_value(json_object_get(j, key));
  return *v || bad_field(m, path, key, "a string");
}

static bool get_count(merge *m, json_t *j, const char *key, const char *path,
                      size_t *v) {
  json_t *x = json_object_get(j, key);
  if (!json_is_integer(x) || json_integer_value(x) < 0 ||
      json_integer_value(x) > LCTX_REPORT_MERGE_MAX_COUNT)
    return bad_field(m, path, key, "a count (0 to 2^40)");
  *v = (size_t)json_integer_value(x);
  return true;
}

/* Reads the stamp of report.json `j` (at `path`). */
static bool read_stamp(merge *m, json_t *j, const char *path, stamp *s) {
  json_t *shard = json_object_get(j, "shard");
  json_t *seed = json_object_get(j, "seed");
  size_t run = 0, skipped = 0, unsupported = 0, si = 0, sn = 0;
  if (!get_string(m, j, "spec_version", path, &s->spec_version) ||
      !get_string(m, j, "lctx_version", path, &s->lctx_version) ||
      !get_string(m, j, "implementation", path, &s->impl_name) ||
      !get_string(m, j, "implementation_version", path, &s->impl_version) ||
      !get_string(m, j, "implementation_kind", path, &s->impl_kind) ||
      !get_count(m, j, "cases_run", path, &run) ||
      !get_count(m, j, "cases_skipped", path, &skipped) ||
      !get_count(m, j, "cases_unsupported", path, &unsupported))
    return false;
  if (!json_is_integer(seed))
    return bad_field(m, path, "seed", "a number");
  if (!json_is_object(shard) || !get_count(m, shard, "index", path, &si) ||
      !get_count(m, shard, "count", path, &sn) || sn == 0 || si == 0 ||
      si > sn || sn > MAX_SHARDS)
    return bad_field(m, path, "shard",
                     "{\"index\": I, \"count\": N}, 1 <= I "
                     "<= N (a report of an older lctx?)");
  s->jax_release = json_string_value(json_object_get(j, "jax_release"));
  if (!s->jax_release)
    s->jax_release = "modelled";
  s->spec_file = json_string_value(json_object_get(j, "spec_file"));
  if (!s->spec_file)
    s->spec_file = "?";
  s->seed = (unsigned long long)json_integer_value(seed);
  s->shard_i = (unsigned)si;
  s->shard_n = (unsigned)sn;
  s->offered = run + skipped + unsupported;
  json_t *cases = json_object_get(j, "cases");
  if (cases && !get_count(m, j, "cases", path, &s->offered))
    return false;
  static const char *const SOURCES[] = {"conformance", "domain", "random"};
  json_t *by = json_object_get(j, "cases_by_source");
  for (size_t k = 0; k < 3; k++) {
    json_t *x = json_object_get(by, SOURCES[k]);
    s->sources[k] = json_is_integer(x) && json_integer_value(x) >= 0 &&
                            json_integer_value(x) <= LCTX_REPORT_MERGE_MAX_COUNT
                        ? (size_t)json_integer_value(x)
                        : 0;
  }
  if (s->sources[0] + s->sources[1] + s->sources[2] != s->offered)
    memset(s->sources, 0, sizeof s->sources); /* they must add up */
  return true;
}

/* Refuses a report of another run than the first one read. */
static bool same_run(merge *m, const stamp *s, const char *path) {
  const stamp *f = &m->first;
  const char *what =
      strcmp(s->spec_version, f->spec_version) != 0   ? "spec version"
      : strcmp(s->jax_release, f->jax_release) != 0   ? "JAX release judged as"
      : strcmp(s->lctx_version, f->lctx_version) != 0 ? "lctx version"
      : strcmp(s->impl_name, f->impl_name) != 0 ||
              strcmp(s->impl_version, f->impl_version) != 0
          ? "implementation"
      : s->seed != f->seed       ? "seed"
      : s->shard_n != f->shard_n ? "shard count"
      : s->offered != f->offered ? "number of cases offered"
                                 : NULL;
  if (!what)
    return true;
  return refuse(m,
                "%s is another run than %s/report.json (its %s differs: "
                "spec %s, %s %s, seed %llu, %u shards, %zu cases against spec "
                "%s, %s %s, seed %llu, %u shards, %zu cases); only shards of "
                "one run can be merged",
                path, m->o->dirs[0], what, s->spec_version, s->impl_name,
                s->impl_version, s->seed, s->shard_n, s->offered,
                f->spec_version, f->impl_name, f->impl_version, f->seed,
                f->shard_n, f->offered);
}

static lctx_verdict verdict_named(const char *name) {
  for (int v = 0; v < LCTX_VERDICT_COUNT; v++)
    if (name && strcmp(name, lctx_verdict_name(v)) == 0)
      return (lctx_verdict)v;
  return LCTX_VERDICT_COUNT;
}

/* Adds row `k` of a report (`row`) into the merged row. */
static bool add_row(merge *m, size_t k, json_t *row, const char *path) {
  lctx_report_row *s = &m->rep.rows[k];
  const char *id;
  if (!get_string(m, row, "id", path, &id))
    return false;
  if (strcmp(id, s->id) != 0)
    return refuse(m,
                  "%s: row %zu is '%s', the first report's is '%s': the "
                  "reports are of different spec tables",
                  path, k + 1, id, s->id);
  for (int v = 0; v < LCTX_VERDICT_COUNT; v++) {
    size_t n;
    if (!get_count(m, row, lctx_verdict_name(v), path, &n))
      return false;
    s->n[v] += n;
  }
  size_t kept = 0, not_kept = 0;
  if (!get_count(m, row, "results_kept", path, &kept) ||
      !get_count(m, row, "results_not_kept", path, &not_kept))
    return false;
  s->kept += kept;
  s->not_kept += not_kept;
  const char *first = json_string_value(json_object_get(row, "first"));
  const char *first_case =
      json_string_value(json_object_get(row, "first_case"));
  const char *rerun = json_string_value(json_object_get(row, "rerun"));
  /* The first failure, its case and its rerun line: of the first shard
   * (in the order given) that has one; a rerun line that does not fit is
   * left out whole (a line cut short would run another case). */
  if (first && !s->first[0]) {
    snprintf(s->first, sizeof s->first, "%s", first);
    snprintf(s->first_case, sizeof s->first_case, "%s",
             first_case ? first_case : "");
    if (rerun && strlen(rerun) < sizeof s->rerun)
      snprintf(s->rerun, sizeof s->rerun, "%s", rerun);
  }
  /* Operations not judged at the release (optional: older reports have
   * none), and drift: summed, the first text kept. */
  json_t *x;
  if (json_is_integer(x = json_object_get(row, "not_judged")) &&
      json_integer_value(x) >= 0 &&
      json_integer_value(x) <= LCTX_REPORT_MERGE_MAX_COUNT)
    s->not_judged += (size_t)json_integer_value(x);
  if (json_is_integer(x = json_object_get(row, "drift_explained")) &&
      json_integer_value(x) >= 0 &&
      json_integer_value(x) <= LCTX_REPORT_MERGE_MAX_COUNT) {
    const char *drift = json_string_value(json_object_get(row, "drift"));
    if (drift && !s->drift_explained)
      snprintf(s->drift, sizeof s->drift, "%s", drift);
    s->drift_explained += (size_t)json_integer_value(x);
  }
  if (json_is_integer(x = json_object_get(row, "drift_new")) &&
      json_integer_value(x) >= 0 &&
      json_integer_value(x) <= LCTX_REPORT_MERGE_MAX_COUNT) {
    const char *text =
        json_string_value(json_object_get(row, "drift_new_text"));
    if (text && !s->drift_new)
      snprintf(s->drift_new_text, sizeof s->drift_new_text, "%s", text);
    s->drift_new += (size_t)json_integer_value(x);
  }
  const char *reason = json_string_value(json_object_get(row, "xfail_reason"));
  if (reason) {
    m->xfail[k] = true;
    snprintf(m->xfail_reason[k], sizeof m->xfail_reason[k], "%s", reason);
  }
  return true;
}

/* Takes the rows of the first report as the merged report's rows. */
static bool take_rows(merge *m, json_t *rows, const char *path) {
  size_t n = json_array_size(rows);
  if (!json_is_array(rows) || n == 0 || n > LCTX_SPEC_MAX_ROWS)
    return bad_field(m, path, "rows", "an array of 1 to 128 rows");
  m->rep.row_count = n;
  for (size_t k = 0; k < n; k++) {
    const char *id =
        json_string_value(json_object_get(json_array_get(rows, k), "id"));
    if (!id || strlen(id) >= LCTX_SPEC_MAX_ID)
      return bad_field(m, path, "rows[].id", "a row id");
    snprintf(m->rep.rows[k].id, sizeof m->rep.rows[k].id, "%s", id);
  }
  return true;
}

/* Adds the run-wide counts of report `j`, and its first failure when the
 * merged report has none yet. */
static bool add_totals(merge *m, json_t *j, const char *path) {
  lctx_report *r = &m->rep;
  size_t run, unsupported, gaps = 0, restarts = 0, recycles = 0;
  size_t modules = 0, kills = 0, unjudged = 0, not_judged = 0;
  size_t left_behind = 0, stops = 0;
  if (!get_count(m, j, "cases_run", path, &run) ||
      !get_count(m, j, "cases_unsupported", path, &unsupported))
    return false;
  json_t *x;
#define OPTIONAL_COUNT(key, var)                                               \
  if (json_is_integer(x = json_object_get(j, key)) &&                          \
      json_integer_value(x) >= 0 &&                                            \
      json_integer_value(x) <= LCTX_REPORT_MERGE_MAX_COUNT)                    \
  var = (size_t)json_integer_value(x)
  OPTIONAL_COUNT("spec_gaps", gaps);
  OPTIONAL_COUNT("restarts", restarts);
  OPTIONAL_COUNT("recycles", recycles);
  OPTIONAL_COUNT("modules_judged", modules);
  OPTIONAL_COUNT("modules_unjudged", unjudged);
  OPTIONAL_COUNT("judge_kills", kills);
  OPTIONAL_COUNT("processes_left_behind_killed", left_behind);
  OPTIONAL_COUNT("lctx_stops_continued", stops);
  OPTIONAL_COUNT("cases_not_judged", not_judged);
#undef OPTIONAL_COUNT
  json_t *nj = json_object_get(j, "not_judged");
  const char *nj_fact = json_string_value(json_object_get(nj, "fact"));
  const char *nj_why = json_string_value(json_object_get(nj, "why"));
  if (not_judged && !r->cases_not_judged && nj_fact && nj_why) {
    snprintf(r->not_judged_fact, sizeof r->not_judged_fact, "%s", nj_fact);
    snprintf(r->not_judged_why, sizeof r->not_judged_why, "%s", nj_why);
  }
  r->cases_not_judged += not_judged;
  r->cases_run += run;
  r->cases_unsupported += unsupported;
  r->spec_gaps += gaps;
  r->restarts += restarts;
  r->recycles += recycles;
  m->modules_judged += modules;
  r->modules_unjudged += unjudged;
  m->judge_kills += kills;
  m->left_behind_killed += left_behind;
  m->stops_continued += stops;
  r->seconds += json_number_value(json_object_get(j, "seconds"));
  r->interrupted |= json_is_true(json_object_get(j, "interrupted"));
  m->stopped |= json_is_true(json_object_get(j, "stopped_at_first_failure"));
  double peak = json_number_value(json_object_get(j, "peak_memory_mb"));
  if (peak > m->peak)
    m->peak = peak;
  json_t *ff = json_object_get(j, "first_failure");
  const char *row = json_string_value(json_object_get(ff, "row"));
  lctx_verdict v =
      verdict_named(json_string_value(json_object_get(ff, "verdict")));
  for (size_t k = 0; row && !r->failed_once && k < r->row_count; k++) {
    if (strcmp(r->rows[k].id, row) == 0 && v < LCTX_VERDICT_COUNT) {
      r->failed_once = true;
      r->first_failure_row = k;
      r->first_failure_verdict = v;
      r->first_failure_seconds =
          json_number_value(json_object_get(ff, "seconds"));
    }
  }
  return true;
}

/* Reads DIR/report.json and adds it in; false (said on err) when it is
 * missing, malformed, of another run or a shard already read. */
static bool read_one(merge *m, size_t d) {
  char path[4200];
  snprintf(path, sizeof path, "%s/report.json", m->o->dirs[d]);
  json_error_t jerr;
  /* Only a regular file is read: a FIFO or a device would block. */
  json_t *j = NULL;
  FILE *f = lctx_sys_fopen_input(path);
  struct stat st;
  if (!f || fstat(fileno(f), &st) != 0 ||
      st.st_size > LCTX_REPORT_MERGE_MAX_JSON) {
    jerr.line = -1;
    snprintf(jerr.text, sizeof jerr.text, "%s",
             f ? "over 16 MiB, the most a report.json may hold"
               : lctx_sys_file_error(errno));
  } else {
    j = json_loadf(f, 0, &jerr);
  }
  if (f)
    fclose(f);
  if (!j)
    return jerr.line < 0 ? refuse(m, "%s: cannot read: %s", path, jerr.text)
                         : refuse(m, "%s:%d:%d: not a whole JSON report: %s",
                                  path, jerr.line, jerr.column, jerr.text);
  stamp s;
  json_t *rows = json_object_get(j, "rows");
  bool ok = json_is_object(j)
                ? read_stamp(m, j, path, &s)
                : refuse(m,
                         "%s: not a conform report: a JSON object (with "
                         "spec_version, shard, rows...) was expected, not %s",
                         path, kind_of(j));
  if (ok && d == 0) {
    m->first = s;
    m->first_json = json_incref(j);
    m->shard_dir = calloc(s.shard_n, sizeof *m->shard_dir);
    ok = m->shard_dir && take_rows(m, rows, path);
  } else if (ok) {
    ok = same_run(m, &s, path);
  }
  if (ok && m->shard_dir[s.shard_i - 1])
    ok = refuse(m, "%s: shard %u/%u is given twice (also %s)", path, s.shard_i,
                s.shard_n, m->shard_dir[s.shard_i - 1]);
  if (ok && json_array_size(rows) != m->rep.row_count)
    ok = bad_field(m, path, "rows", "the rows of the first report");
  for (size_t k = 0; ok && k < m->rep.row_count; k++)
    ok = add_row(m, k, json_array_get(rows, k), path);
  ok = ok && add_totals(m, j, path);
  if (ok)
    m->shard_dir[s.shard_i - 1] = m->o->dirs[d];
  json_decref(j);
  return ok;
}

/* Names the shards no folder holds; false unless `partial` allows them. */
static bool check_missing(merge *m) {
  size_t missing = 0;
  for (unsigned i = 0; i < m->first.shard_n; i++)
    missing += m->shard_dir[i] == NULL;
  if (!missing)
    return true;
  char list[512] = "";
  size_t said = 0, at = 0;
  for (unsigned i = 0; i < m->first.shard_n && said < 20; i++)
    if (!m->shard_dir[i])
      at += (size_t)snprintf(list + at, sizeof list - at, "%s %u/%u",
                             said++ ? "," : "", i + 1, m->first.shard_n);
  if (!m->o->partial)
    return refuse(m,
                  "error: %zu of %u shards missing:%s%s (run them, or "
                  "merge with --partial)",
                  missing, m->first.shard_n, list,
                  missing > said ? ", ..." : "");
  fprintf(m->err,
          WHO ": warning: %zu of %u shards missing:%s%s (merged without "
              "them, --partial)\n",
          missing, m->first.shard_n, list, missing > said ? ", ..." : "");
  return true;
}

_Static_assert(LCTX_REPORT_MERGE_MAX_LINE == 1 << 20,
               "copy_results says 1 MiB");

/* Whether `j`'s `key` is absent or a string. */
static bool string_or_absent(const json_t *j, const char *key) {
  const json_t *x = json_object_get(j, key);
  return !x || json_is_string(x);
}

/* Whether `j`'s `key` is an integer from 0 to 2^40 (a count or an index
 * no run reaches beyond). */
static bool count_at(const json_t *j, const char *key) {
  const json_t *x = json_object_get(j, key);
  return json_is_integer(x) && json_integer_value(x) >= 0 &&
         json_integer_value(x) <= LCTX_REPORT_MERGE_MAX_COUNT;
}

/* FNV-1a of `n` bytes, continued from `h`. */
static unsigned long long hash_bytes(unsigned long long h, const void *p,
                                     size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

/* What names results line `j`: a sweep's case number, or a conform
 * verdict's source, name, index, operation and row. */
static unsigned long long line_key(const json_t *j, bool sweep) {
  unsigned long long h = 1469598103934665603ull;
  static const char *const KEYS[] = {"source", "name", "index", "operation",
                                     "row"};
  for (size_t i = 0; i < (sweep ? 1 : 5); i++) {
    const json_t *x = json_object_get(j, sweep ? "case" : KEYS[i]);
    char text[64];
    const char *t = text;
    if (json_is_string(x))
      t = json_string_value(x);
    else
      snprintf(text, sizeof text, "%lld", (long long)json_integer_value(x));
    h = hash_bytes(h, t, strlen(t) + 1);
  }
  return h ? h : 1;
}

/* Takes `key`: false when it was taken before (or no memory is left: the
 * caller refuses either way, saying which). */
static bool take_key(merge *m, unsigned long long key, bool *no_memory) {
  *no_memory = false;
  if (2 * (m->seen_count + 1) > m->seen_cap) {
    size_t cap = m->seen_cap ? m->seen_cap * 2 : 1024;
    unsigned long long *t = calloc(cap, sizeof *t);
    if (!t) {
      *no_memory = true;
      return false;
    }
    for (size_t i = 0; i < m->seen_cap; i++) {
      if (!m->seen[i])
        continue;
      size_t at = (size_t)(m->seen[i] % cap);
      while (t[at])
        at = (at + 1) % cap;
      t[at] = m->seen[i];
    }
    free(m->seen);
    m->seen = t;
    m->seen_cap = cap;
  }
  size_t at = (size_t)(key % m->seen_cap);
  for (; m->seen[at]; at = (at + 1) % m->seen_cap) {
    if (m->seen[at] == key)
      return false;
  }
  m->seen[at] = key;
  m->seen_count++;
  return true;
}

/* Whether `row` is the id of one of the merged rows. */
static bool known_row(const merge *m, const char *row) {
  for (size_t k = 0; row && k < m->rep.row_count; k++)
    if (strcmp(row, m->rep.rows[k].id) == 0)
      return true;
  return false;
}

/* What is wrong with verdict line `j` of a conform shard, or NULL: it is
 * an object as conform writes one (stream_verdict in conform.c): source,
 * index, name, operation, row (of the merged rows), verdict, and
 * optionally detail, expected, actual and drift as strings and case as an
 * object. */
static const char *bad_verdict_line(const merge *m, const json_t *j) {
  static const char *const TEXTS[] = {"detail", "expected", "actual", "drift"};
  const json_t *c = json_object_get(j, "case");
  if (!json_is_object(j))
    return "not a JSON object";
  if (!json_is_string(json_object_get(j, "source")) ||
      !json_is_string(json_object_get(j, "name")))
    return "field 'source' or 'name' is missing or not a string";
  if (!count_at(j, "index") || !count_at(j, "operation"))
    return "field 'index' or 'operation' is missing or not a count";
  if (!known_row(m, json_string_value(json_object_get(j, "row"))))
    return "field 'row' is missing or not a row of the reports";
  if (verdict_named(json_string_value(json_object_get(j, "verdict"))) ==
      LCTX_VERDICT_COUNT)
    return "field 'verdict' is missing or not a verdict";
  for (size_t i = 0; i < sizeof TEXTS / sizeof TEXTS[0]; i++)
    if (!string_or_absent(j, TEXTS[i]))
      return "field 'detail', 'expected', 'actual' or 'drift' is not a "
             "string";
  if (c && !json_is_object(c))
    return "field 'case' is not an object";
  return NULL;
}

/* What is wrong with case line `j` of an `lctx sweep` shard, or NULL: an
 * object as lctx_sweep_write_line (sweep_case.c) writes one: case a
 * count, program a string, platforms an array of strings, verdicts an
 * array of objects with a row of the merged rows, a verdict, and key and
 * detail strings when present. */
static const char *bad_sweep_line(const merge *m, const json_t *j) {
  const json_t *plats = json_object_get(j, "platforms");
  const json_t *verdicts = json_object_get(j, "verdicts"), *v;
  size_t i;
  if (!json_is_object(j))
    return "not a JSON object";
  if (!count_at(j, "case") || !json_is_string(json_object_get(j, "program")))
    return "field 'case' or 'program' is missing or of the wrong kind";
  if (!json_is_array(plats) || !json_is_array(verdicts))
    return "field 'platforms' or 'verdicts' is missing or not an array";
  json_array_foreach(plats, i, v) {
    if (!json_is_string(v))
      return "a platform is not a string";
  }
  json_array_foreach(verdicts, i, v) {
    if (!known_row(m, json_string_value(json_object_get(v, "row"))) ||
        verdict_named(json_string_value(json_object_get(v, "verdict"))) ==
            LCTX_VERDICT_COUNT ||
        !string_or_absent(v, "key") || !string_or_absent(v, "detail"))
      return "a verdict without a row of the reports and a verdict";
  }
  return NULL;
}

/* What is wrong with the stamp line `j` (a shard's first line), or NULL;
 * *sweep: whether it is the stamp of an `lctx sweep` (with "sweep"),
 * whose shard must be `shard_i` of `shard_n` (its report.json's) and whose
 * plan (programs times lists) bounds its case numbers (`*cases`). */
static const char *bad_stamp_line(const json_t *j, bool *sweep,
                                  unsigned shard_i, unsigned shard_n,
                                  unsigned long long *cases) {
  const json_t *plan = json_object_get(j, "sweep");
  if (json_is_object(plan)) {
    const json_t *si = json_object_get(plan, "shard_index");
    const json_t *sn = json_object_get(plan, "shard_count");
    if (!count_at(plan, "shard_index") || !count_at(plan, "shard_count") ||
        json_integer_value(si) != (json_int_t)shard_i ||
        json_integer_value(sn) != (json_int_t)shard_n)
      return "the sweep stamp's shard_index and shard_count are not its "
             "report.json's shard";
    if (!count_at(plan, "programs") || !count_at(plan, "lists") ||
        json_integer_value(json_object_get(plan, "lists")) < 1)
      return "the sweep stamp's programs or lists is not a count (lists at "
             "least 1)";
    *cases =
        (unsigned long long)json_integer_value(
            json_object_get(plan, "programs")) *
        (unsigned long long)json_integer_value(json_object_get(plan, "lists"));
  }
  static const char *const KEYS[] = {"implementation", "implementation_version",
                                     "spec_version", "lctx_version"};
  if (!json_is_object(j))
    return "not a JSON object (the stamp line)";
  *sweep = json_is_object(json_object_get(j, "sweep"));
  for (size_t i = 0; i < (*sweep ? 2 : 4); i++)
    if (!json_is_string(json_object_get(j, KEYS[i])))
      return "not a stamp line: field 'implementation', "
             "'implementation_version', 'spec_version' or 'lctx_version' is "
             "missing or not a string";
  return NULL;
}

/* Copies the lines of FROM (results.jsonl of a shard) to `to`, each
 * checked first: the stamp line too when `stamp`. False when FROM cannot
 * be opened (*opened false; errno says why) or a line is refused (the
 * merge refused, naming FROM and the line). */
static bool copy_results(merge *m, const char *from, FILE *to, bool stamp,
                         unsigned shard_i, bool *opened) {
  bool sweep = false, no_memory = false;
  unsigned long long cases = 0;
  FILE *f = lctx_sys_fopen_input(from);
  *opened = f != NULL;
  char *line = f ? malloc(LCTX_REPORT_MERGE_MAX_LINE + 1) : NULL;
  if (!line) {
    if (f)
      fclose(f);
    return f ? refuse(m, "out of memory") : false;
  }
  bool over, ok = true;
  long n;
  for (size_t k = 1;
       ok && (n = lctx_sys_read_line(f, line, LCTX_REPORT_MERGE_MAX_LINE + 1,
                                     &over)) >= 0;
       k++) {
    json_error_t jerr;
    json_t *j = over ? NULL : json_loadb(line, (size_t)n, 0, &jerr);
    const char *why =
        over     ? "longer than 1 MiB, the limit of a line"
        : !j     ? jerr.text
        : k == 1 ? bad_stamp_line(j, &sweep, shard_i, m->first.shard_n, &cases)
        : sweep  ? bad_sweep_line(m, j)
                 : bad_verdict_line(m, j);
    if (!why && k > 1 && sweep &&
        (unsigned long long)json_integer_value(json_object_get(j, "case")) >=
            cases)
      why = "its case is past the sweep's plan (programs times lists)";
    if (!why && k > 1 && !take_key(m, line_key(j, sweep), &no_memory))
      why = no_memory ? "out of memory"
            : sweep   ? "its case is given twice (in this shard or another)"
                      : "its verdict (source, name, index, operation, row) is "
                        "given twice";
    if (why)
      ok = refuse(
          m,
          "%s:%zu: not a results.jsonl line of lctx conform or sweep (%s); "
          "nothing merged",
          from, k, why);
    else if (k > 1 || stamp) {
      fwrite(line, 1, (size_t)n, to);
      fputc('\n', to);
    }
    json_decref(j);
  }
  free(line);
  fclose(f);
  return ok;
}

/* OUT/results.jsonl: the stamp of the first shard, then every shard's
 * verdicts in shard order, every line checked; a shard without one is
 * named. False (and no results.jsonl written) when a line is refused or
 * the file cannot be written. */
static bool merge_results(merge *m) {
  char path[4200], tmp[4300], from[4200];
  snprintf(path, sizeof path, "%s/results.jsonl", m->o->out_dir);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  lctx_escaped esc;
  FILE *to = lctx_sys_fopen_in(tmp, "w");
  if (!to)
    return refuse(m, "%s: cannot write: %s", tmp, lctx_sys_file_error(errno));
  bool stamped = false, any = false, refused = false;
  for (unsigned i = 0; !refused && i < m->first.shard_n; i++) {
    if (!m->shard_dir[i])
      continue;
    snprintf(from, sizeof from, "%s/results.jsonl", m->shard_dir[i]);
    bool opened;
    errno = 0;
    if (copy_results(m, from, to, !stamped, i + 1, &opened))
      stamped = any = true;
    else if (opened)
      refused = true;
    else
      fprintf(m->err,
              WHO ": warning: %s: %s; the merged results.jsonl lacks "
                  "its verdicts\n",
              lctx_esc(&esc, from),
              errno ? lctx_sys_file_error(errno) : "not a regular file");
  }
  bool ok = !ferror(to);
  ok = fclose(to) == 0 && ok;
  if (ok && any && !refused)
    ok = rename(tmp, path) == 0;
  if (!ok || !any || refused)
    unlink(tmp);
  if (!ok && !refused)
    refuse(m, "%s: cannot write: %s", path, strerror(errno ? errno : EIO));
  return ok && !refused;
}

/* The merged run's stamp, counts and verdict on `out`; the exit code. */
static int summarize(merge *m, const lctx_report_doc *doc, FILE *out) {
  lctx_report *r = &m->rep;
  size_t shards = 0;
  lctx_report_report_sum(r);
  for (unsigned i = 0; i < m->first.shard_n; i++)
    shards += m->shard_dir[i] != NULL;
  bool failed = lctx_report_run_failed(r);
  const size_t *t = r->totals;
  lctx_escaped dir, lctx_version, kind;
  /* stamp_text shows these two as they are: from a shard, they are outside
   * text. */
  lctx_report_doc shown = *doc;
  shown.lctx_version = lctx_esc(&lctx_version, doc->lctx_version);
  shown.impl_kind = lctx_esc(&kind, doc->impl_kind);
  lctx_report_stamp_text(&shown, out, WHO ": ");
  fprintf(out, "merged %zu of %u shards: ", shards, m->first.shard_n);
  lctx_report_print_cases(r, out);
  fprintf(out,
          "\noperations: %zu pass, %zu fail, %zu xfail, %zu xpass, %zu crash, "
          "%zu timeout, %zu unsupported, %zu flaky%s\n"
          "reports: %s/report.tap, report.junit.xml, report.json, "
          "results.jsonl\n",
          t[LCTX_VERDICT_PASS], t[LCTX_VERDICT_FAIL], t[LCTX_VERDICT_XFAIL],
          t[LCTX_VERDICT_XPASS], t[LCTX_VERDICT_CRASH], t[LCTX_VERDICT_TIMEOUT],
          t[LCTX_VERDICT_UNSUPPORTED], t[LCTX_VERDICT_FLAKY],
          r->spec_gaps ? " (and operations no spec row covers!)" : "",
          lctx_esc(&dir, m->o->out_dir));
  for (size_t k = 0; k < r->row_count; k++) {
    if (!lctx_report_row_failed(&r->rows[k]))
      continue;
    fprintf(out, "%s: %s\n", lctx_esc(&kind, r->rows[k].id),
            lctx_esc(&dir, r->rows[k].first));
    if (r->rows[k].rerun[0])
      fprintf(out, "  rerun: %s\n", lctx_esc(&dir, r->rows[k].rerun));
  }
  fprintf(out, "result: %s\n",
          r->interrupted ? "INTERRUPTED (a shard was interrupted)"
          : failed       ? "FAIL"
          : r->modules_unjudged > 0
              ? "INCOMPLETE (a shard has modules no judge judged)"
          : r->nothing_judged ? "NOTHING JUDGED"
                              : "PASS");
  return failed || r->interrupted || r->nothing_judged ||
                 r->modules_unjudged > 0
             ? LCTX_EXIT_VIOLATIONS
             : LCTX_EXIT_OK;
}

/* Whether every summed count is still a count a report may hold (at most
 * 2^40, what a reader of the merged report.json accepts): shards near the
 * limit would otherwise merge into a report that `report html` and a
 * further merge refuse. */
static bool sums_fit(merge *m) {
  const lctx_report *r = &m->rep;
  const unsigned long long cap =
      (unsigned long long)LCTX_REPORT_MERGE_MAX_COUNT;
  unsigned long long totals[LCTX_VERDICT_COUNT] = {0};
  for (size_t k = 0; k < r->row_count; k++) {
    const lctx_report_row *row = &r->rows[k];
    unsigned long long all = 0;
    for (int v = 0; v < LCTX_VERDICT_COUNT; v++) {
      all += row->n[v];
      totals[v] += row->n[v];
    }
    if (all > cap || row->kept > cap || row->not_kept > cap ||
        row->not_judged > cap || row->drift_explained > cap ||
        row->drift_new > cap)
      return refuse(m,
                    "row %s: the merged counts pass 2^40, more than a report "
                    "may hold; nothing merged",
                    row->id);
  }
  for (int v = 0; v < LCTX_VERDICT_COUNT; v++) {
    if (totals[v] > cap)
      return refuse(m,
                    "the merged %s count passes 2^40, more than a report may "
                    "hold; nothing merged",
                    lctx_verdict_name(v));
  }
  unsigned long long run = r->cases_run,
                     others[] = {r->cases_unsupported, r->cases_not_judged,
                                 r->restarts,          r->recycles,
                                 m->modules_judged,    r->modules_unjudged,
                                 m->judge_kills,       r->spec_gaps};
  bool over = run > cap;
  for (size_t i = 0; i < sizeof others / sizeof *others; i++)
    over = over || others[i] > cap;
  return !over || refuse(m, "a merged run-wide count passes 2^40, more than a "
                            "report may hold; nothing merged");
}

/* Reads every folder, checks the shards, writes the merged reports. */
static int run_merge(merge *m, FILE *out) {
  for (size_t d = 0; d < m->o->dir_count; d++)
    if (!read_one(m, d))
      return LCTX_EXIT_USAGE;
  if (!check_missing(m) || !sums_fit(m))
    return LCTX_EXIT_USAGE;
  /* Every shard's sources held the same cases: the merged run skipped
   * those that no shard given ran (skipped by every shard, by --ops, in a
   * missing shard or past a shard's stop), so that its counts add up to
   * its sources' cases. */
  memcpy(m->rep.source_cases, m->first.sources, sizeof m->rep.source_cases);
  size_t seen =
      m->rep.cases_run + m->rep.cases_unsupported + m->rep.cases_not_judged;
  m->rep.cases_skipped = seen > m->first.offered ? 0 : m->first.offered - seen;
  const stamp *s = &m->first;
  lctx_report_doc doc = {.report = &m->rep,
                         .spec_file = s->spec_file,
                         .spec_version = s->spec_version,
                         .lctx_version = s->lctx_version,
                         .impl_name = s->impl_name,
                         .impl_version = s->impl_version,
                         .impl_kind = s->impl_kind,
                         .jax_release = s->jax_release,
                         .seed = s->seed,
                         .shard_i = 1,
                         .shard_n = 1,
                         .xfail = m->xfail,
                         .xfail_reason = m->xfail_reason,
                         .modules_judged = m->modules_judged,
                         .judge_kills = m->judge_kills,
                         .left_behind_killed = m->left_behind_killed,
                         .stops_continued = m->stops_continued,
                         .stopped_at_first_failure = m->stopped,
                         .peak_memory_mb = m->peak};
  if (!lctx_sys_mkdir_p(m->o->out_dir)) {
    refuse(m, "--out: %s: %s", m->o->out_dir, strerror(errno));
    return LCTX_EXIT_USAGE;
  }
  /* Every results line is checked before anything is said or written. */
  if (!merge_results(m))
    return LCTX_EXIT_USAGE;
  int code = summarize(m, &doc, out);
  if (!lctx_report_write_reports(&doc, m->o->out_dir, WHO, m->err)) {
    refuse(m, "%s: the merged reports could not be written", m->o->out_dir);
    return LCTX_EXIT_USAGE;
  }
  return code;
}

int lctx_report_merge(const lctx_report_merge_options *o, FILE *out, FILE *err,
                      char *why, size_t cap) {
  if (cap > 0)
    why[0] = '\0';
  if (!o->out_dir || o->dir_count == 0) {
    snprintf(why, cap,
             "name the output folder and at least one report "
             "folder");
    return LCTX_EXIT_USAGE;
  }
  merge *m = calloc(1, sizeof *m);
  if (!m) {
    snprintf(why, cap, "out of memory");
    return LCTX_EXIT_USAGE;
  }
  m->o = o;
  m->err = err;
  m->why = why;
  m->why_cap = cap;
  m->peak = -1;
  int code = run_merge(m, out);
  json_decref(m->first_json);
  free(m->shard_dir);
  free(m->seen);
  free(m);
  return code;
}
