/*
 * export_json.c - the catalogue and the export answers of the process
 * protocol's export extension (see export_json.h).
 */
#include "export_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Fields
//===----------------------------------------------------------------------===//

/* A reader of one JSON object that names the first bad field. */
typedef struct reader {
  char *why;
  size_t cap;
  const char *where; /* "results[3]" */
  bool bad;
} reader;

static bool bad(reader *r, const char *field, const char *what) {
  if (!r->bad)
    snprintf(r->why, r->cap, "protocol error: %s%s%s: %s", r->where,
             field[0] && field[0] != '[' ? "." : "", field, what);
  r->bad = true;
  return false;
}

/* Copies string field `key` of `j` into `dst` (cut to fit); an absent or
 * null field gives "" when `optional`. */
static bool text(reader *r, json_t *j, const char *key, char *dst, size_t n,
                 bool optional) {
  json_t *v = json_object_get(j, key);
  dst[0] = '\0';
  if ((!v || json_is_null(v)) && optional)
    return true;
  if (!json_is_string(v))
    return bad(r, key, "not a string");
  snprintf(dst, n, "%s", json_string_value(v));
  return true;
}

static bool integer(reader *r, json_t *j, const char *key, long lo, long hi,
                    long *out) {
  json_t *v = json_object_get(j, key);
  if (!json_is_integer(v) || json_integer_value(v) < lo ||
      json_integer_value(v) > hi)
    return bad(r, key, "not an integer in range");
  *out = (long)json_integer_value(v);
  return true;
}

/* A list of platform names into `dst`; its length in `*count`. */
const char *lctx_export_json_platforms(json_t *list,
                                       char (*dst)[LCTX_EXPORT_PLATFORM_MAX],
                                       size_t *count) {
  if (!json_is_array(list) || json_array_size(list) > LCTX_EXPORT_MAX_PLATFORMS)
    return "not a list of at most 8 platform names";
  size_t i;
  json_t *v;
  json_array_foreach(list, i, v) {
    if (!json_is_string(v) ||
        json_string_length(v) >= LCTX_EXPORT_PLATFORM_MAX ||
        json_string_length(v) == 0)
      return "a platform name is not a string of 1 to 31 bytes";
    snprintf(dst[i], LCTX_EXPORT_PLATFORM_MAX, "%s", json_string_value(v));
  }
  *count = json_array_size(list);
  return NULL;
}

static bool names(reader *r, json_t *list, const char *key,
                  char (*dst)[LCTX_EXPORT_PLATFORM_MAX], size_t *count) {
  const char *problem = lctx_export_json_platforms(list, dst, count);
  return !problem || bad(r, key, problem);
}

/* A raise: class, message, file and line of `j`. */
static bool read_raise(reader *r, json_t *j, lctx_export_raise *out) {
  long line = 0;
  if (!text(r, j, "class", out->cls, sizeof out->cls, false) ||
      !text(r, j, "message", out->message, sizeof out->message, false) ||
      !text(r, j, "file", out->file, sizeof out->file, true))
    return false;
  if (json_object_get(j, "line") && !json_is_null(json_object_get(j, "line")) &&
      !integer(r, j, "line", 0, 10000000, &line))
    return false;
  out->line = line;
  if (!out->cls[0])
    return bad(r, "class", "empty");
  return true;
}

//===----------------------------------------------------------------------===//
// The catalogue
//===----------------------------------------------------------------------===//

/* The index of platform `name` in the catalogue's, or -1. */
static int platform_index(const lctx_catalogue *c, const char *name) {
  for (size_t i = 0; i < c->platform_count; i++)
    if (strcmp(c->platforms[i], name) == 0)
      return (int)i;
  return -1;
}

/* Program `at`'s declared platform lists ("platforms", optional): 1 to
 * LCTX_PROGRAM_MAX_LISTS lists, each 2 to 4 distinct names among the
 * catalogue's platforms. */
static bool read_lists(reader *r, json_t *v, const lctx_catalogue *c, size_t at,
                       lctx_program *p) {
  char field[96];
  if (!v || json_is_null(v))
    return true;
  snprintf(field, sizeof field, "catalogue[%zu].platforms", at);
  if (!json_is_array(v) || json_array_size(v) == 0 ||
      json_array_size(v) > LCTX_PROGRAM_MAX_LISTS)
    return bad(r, field, "not a list of 1 to 16 platform lists");
  for (size_t k = 0; k < json_array_size(v); k++) {
    json_t *list = json_array_get(v, k);
    size_t n = json_array_size(list);
    snprintf(field, sizeof field, "catalogue[%zu].platforms[%zu]", at, k);
    if (!json_is_array(list) || n < 2 || n > 4)
      return bad(r, field, "not a list of 2 to 4 platform names");
    for (size_t i = 0; i < n; i++) {
      json_t *name = json_array_get(list, i);
      int idx = json_is_string(name)
                    ? platform_index(c, json_string_value(name))
                    : -1;
      for (size_t d = 0; idx >= 0 && d < i; d++)
        idx = p->list[k][d] == idx ? -1 : idx;
      if (idx < 0)
        return bad(r, field,
                   "a name that is not one of the hello's platforms, or "
                   "given twice");
      p->list[k][i] = (unsigned char)idx;
    }
    p->list_len[k] = (unsigned char)n;
  }
  p->list_count = json_array_size(v);
  return true;
}

static bool read_program(reader *r, json_t *j, const lctx_catalogue *c,
                         size_t at, lctx_program *p) {
  long size = 0;
  if (!json_is_object(j))
    return bad(r, "catalogue[]", "not an object");
  if (!text(r, j, "name", p->name, sizeof p->name, false) ||
      !text(r, j, "group", p->group, sizeof p->group, false) ||
      !text(r, j, "kind", p->kind, sizeof p->kind, false) ||
      !integer(r, j, "size", 0, 1L << 40, &size))
    return false;
  json_t *name = json_object_get(j, "name");
  if (json_string_length(name) == 0 ||
      json_string_length(name) >= sizeof p->name)
    return bad(r, "catalogue[].name", "not 1 to 255 bytes");
  p->size = size;
  return read_lists(r, json_object_get(j, "platforms"), c, at, p);
}

static int by_name(const void *a, const void *b) {
  return strcmp(((const lctx_program *)a)->name,
                ((const lctx_program *)b)->name);
}

static bool read_catalogue(reader *r, json_t *list, lctx_catalogue *c) {
  size_t n = json_array_size(list);
  if (!json_is_array(list) || n == 0 || n > LCTX_CATALOGUE_MAX_PROGRAMS)
    return bad(r, "catalogue", "not a list of 1 to 100000 programs");
  c->programs = calloc(n, sizeof *c->programs);
  if (!c->programs)
    return bad(r, "catalogue", "out of memory");
  for (size_t i = 0; i < n; i++) {
    if (!read_program(r, json_array_get(list, i), c, i, &c->programs[i]))
      return false;
  }
  c->count = n;
  /* Names are unique: a sorted copy finds a repeated one. */
  lctx_program *sorted = malloc(n * sizeof *sorted);
  if (!sorted)
    return bad(r, "catalogue", "out of memory");
  memcpy(sorted, c->programs, n * sizeof *sorted);
  qsort(sorted, n, sizeof *sorted, by_name);
  for (size_t i = 1; i < n; i++) {
    if (strcmp(sorted[i - 1].name, sorted[i].name) == 0) {
      free(sorted);
      return bad(r, "catalogue", "a program name is given twice");
    }
  }
  free(sorted);
  return true;
}

static bool read_primitives(reader *r, json_t *list, const char *key,
                            char (**out)[64], size_t *count) {
  size_t n = json_array_size(list);
  if (!list || json_is_null(list))
    return true;
  if (!json_is_array(list) || n > LCTX_CATALOGUE_MAX_PRIMITIVES)
    return bad(r, key, "not a list of at most 4096 names");
  *out = calloc(n ? n : 1, sizeof **out);
  if (!*out)
    return bad(r, key, "out of memory");
  for (size_t i = 0; i < n; i++) {
    json_t *v = json_array_get(list, i);
    if (!json_is_string(v) || json_string_length(v) >= 64)
      return bad(r, key,
                 "a primitive name is not a string of at most 63 "
                 "bytes");
    snprintf((*out)[i], 64, "%s", json_string_value(v));
  }
  *count = n;
  return true;
}

/* The platform names that jax.export lowers for in the releases lctx
 * knows (`export(..., platforms=...)`, canonicalized: cpu, tpu, and the
 * GPU names of reference/src/release.c's records, "gpu" and "oneapi" in
 * the releases that accept them); the sweep draws its lists from these
 * alone. */
static const char *const k_export_platforms[] = {"cpu", "cuda", "rocm",
                                                 "tpu", "gpu",  "oneapi"};

/* The catalogue's platforms: what PROTOCOL.md promises the sweep draws
 * its lists of 2 to 4 distinct platforms from, so 2 or more distinct
 * names that jax.export knows; anything else (none, one, a name twice,
 * an unknown one) would have the sweep judge lists that were never a
 * multi-platform export. */
static bool platform_pool(reader *r, const lctx_catalogue *c) {
  if (c->platform_count < 2)
    return bad(r, "platforms",
               "fewer than 2 platforms to draw lists of 2 to 4 from");
  for (size_t i = 0; i < c->platform_count; i++) {
    bool known = false;
    for (size_t k = 0;
         k < sizeof k_export_platforms / sizeof *k_export_platforms; k++)
      known = known || strcmp(c->platforms[i], k_export_platforms[k]) == 0;
    if (!known)
      return bad(r, "platforms",
                 "a name that jax.export does not lower for (cpu, cuda, "
                 "rocm, tpu, gpu, oneapi)");
    for (size_t k = 0; k < i; k++) {
      if (strcmp(c->platforms[i], c->platforms[k]) == 0)
        return bad(r, "platforms", "a platform is given twice");
    }
  }
  return true;
}

bool lctx_catalogue_parse(const char *line, lctx_catalogue *c, char *why,
                          size_t cap) {
  memset(c, 0, sizeof *c);
  reader r = {why, cap, "handshake", false};
  json_error_t je;
  json_t *j = json_loads(line, 0, &je);
  json_t *jax = json_object_get(j, "jax");
  bool ok =
      j && text(&r, j, "name", c->name, sizeof c->name, false) &&
      text(&r, j, "version", c->version, sizeof c->version, false) &&
      (!jax || json_is_null(jax) ||
       (text(&r, jax, "version", c->jax_version, sizeof c->jax_version, true) &&
        text(&r, jax, "jaxlib", c->jaxlib_version, sizeof c->jaxlib_version,
             true) &&
        text(&r, jax, "mutant", c->mutant, sizeof c->mutant, true))) &&
      names(&r, json_object_get(j, "platforms"), "platforms", c->platforms,
            &c->platform_count) &&
      platform_pool(&r, c) &&
      read_primitives(&r, json_object_get(j, "lowering_primitives"),
                      "lowering_primitives", &c->primitives,
                      &c->primitive_count) &&
      read_catalogue(&r, json_object_get(j, "catalogue"), c);
  json_t *gen = json_object_get(j, "generate");
  if (ok && gen && !json_is_null(gen)) {
    ok = json_is_integer(gen) && json_integer_value(gen) >= 1 &&
         json_integer_value(gen) <= 1000;
    if (!ok)
      bad(&r, "generate", "not a program format version (1 to 1000)");
    else
      c->generate = (int)json_integer_value(gen);
  }
  if (!j)
    snprintf(why, cap, "handshake: not JSON (%s)", je.text);
  json_decref(j);
  if (!ok)
    lctx_catalogue_free(c);
  return ok;
}

void lctx_catalogue_free(lctx_catalogue *c) {
  free(c->programs);
  free(c->primitives);
  memset(c, 0, sizeof *c);
}

long lctx_catalogue_find(const lctx_catalogue *c, const char *name) {
  for (size_t i = 0; i < c->count; i++) {
    if (strcmp(c->programs[i].name, name) == 0)
      return (long)i;
  }
  return -1;
}

//===----------------------------------------------------------------------===//
// Answers
//===----------------------------------------------------------------------===//

void lctx_export_store_release(lctx_export_store *s) {
  free(s->values);
  free(s->census);
  free(s->primitives);
  free(s->dispatch);
  free(s->repro);
  free(s->user);
  memset(s, 0, sizeof *s);
}

void lctx_export_store_lose(lctx_export_store *out, lctx_export_status status,
                            const char *why) {
  lctx_export_store_release(out);
  out->answer.status = status;
  snprintf(out->answer.error, sizeof out->answer.error, "%s", why);
}

/* A text of the user's code at `field`: 1 to 500 bytes without NUL, or
 * absent or null (then "") when `optional`. */
static bool user_text(reader *r, json_t *v, const char *field, char *dst,
                      bool optional) {
  dst[0] = '\0';
  if ((!v || json_is_null(v)) && optional)
    return true;
  if (!json_is_string(v) || json_string_length(v) == 0 ||
      json_string_length(v) > 500 ||
      strlen(json_string_value(v)) != json_string_length(v))
    return bad(r, field, "not a text of 1 to 500 bytes without NUL");
  memcpy(dst, json_string_value(v), json_string_length(v) + 1);
  return true;
}

/* A frame of the user's code, `{"file", "line", "function"}` (function
 * only when `function`), or absent or null (none). `field` names it. */
static bool user_frame(reader *r, json_t *j, const char *field, bool function,
                       lctx_user_frame *out) {
  char at[128];
  memset(out, 0, sizeof *out);
  if (!j || json_is_null(j))
    return true;
  if (!json_is_object(j))
    return bad(r, field, "not an object or null");
  json_t *line = json_object_get(j, "line");
  snprintf(at, sizeof at, "%s.file", field);
  if (!user_text(r, json_object_get(j, "file"), at, out->file, false))
    return false;
  snprintf(at, sizeof at, "%s.line", field);
  if (!json_is_integer(line) || json_integer_value(line) < 1 ||
      json_integer_value(line) > 10000000)
    return bad(r, at, "not an integer from 1 to 10000000");
  out->line = (long)json_integer_value(line);
  snprintf(at, sizeof at, "%s.function", field);
  return !function ||
         user_text(r, json_object_get(j, "function"), at, out->function, true);
}

/* A result's "user" object (absent or null: none). */
static bool read_user(reader *r, json_t *u, lctx_export_store *s) {
  if (!u || json_is_null(u))
    return true;
  if (!json_is_object(u))
    return bad(r, "user", "not an object or null");
  s->user = calloc(1, sizeof *s->user);
  if (!s->user)
    return bad(r, "user", "out of memory");
  lctx_user_facts *f = s->user;
  if (!user_frame(r, json_object_get(u, "raise_at"), "user.raise_at", true,
                  &f->raise_at) ||
      !user_text(r, json_object_get(u, "primitive"), "user.primitive",
                 f->primitive, true) ||
      !user_frame(r, json_object_get(u, "rule"), "user.rule", true, &f->rule) ||
      !user_frame(r, json_object_get(u, "call_site"), "user.call_site", false,
                  &f->call_site))
    return false;
  s->answer.user = f;
  return true;
}

static const char *const WHAT[] = {"get_backend", "backend", "truncated",
                                   "host"};
static const char *const GAVE[] = {"raise", "none", "client"};

static int named(json_t *v, const char *const *list, int n) {
  for (int i = 0; json_is_string(v) && i < n; i++) {
    if (strcmp(json_string_value(v), list[i]) == 0)
      return i;
  }
  return -1;
}

static bool read_call(reader *r, json_t *j, lctx_census_call *k) {
  long line = 0, platforms = 0;
  int what = named(json_object_get(j, "what"), WHAT, 4);
  if (!json_is_object(j) || what < 0)
    return bad(r, "census[].what",
               "not get_backend, backend, host or truncated");
  k->kind = (lctx_census_kind)what;
  if (what == LCTX_CENSUS_TRUNCATED)
    return true;
  int gave = named(json_object_get(j, "gave"), GAVE, 3);
  json_t *opt = json_object_get(j, "optional");
  if (gave < 0)
    return bad(r, "census[].gave", "not raise, none or client");
  if (what == LCTX_CENSUS_GET_BACKEND ? !json_is_boolean(opt)
                                      : opt && !json_is_null(opt))
    return bad(r, "census[].optional",
               "not a boolean for get_backend, null for backend and host");
  k->gave = (lctx_census_gave)gave;
  k->optional = what == LCTX_CENSUS_GET_BACKEND ? json_is_true(opt) : -1;
  if (!text(r, j, "file", k->file, sizeof k->file, true) ||
      !text(r, j, "primitive", k->primitive, sizeof k->primitive, true) ||
      !integer(r, j, "platforms", 0, 64, &platforms))
    return false;
  if (json_object_get(j, "line") && !json_is_null(json_object_get(j, "line")) &&
      !integer(r, j, "line", 0, 10000000, &line))
    return false;
  k->line = line;
  k->platforms = (unsigned)platforms;
  return user_frame(r, json_object_get(j, "rule"), "census[].rule", true,
                    &k->rule) &&
         user_frame(r, json_object_get(j, "call_site"), "census[].call_site",
                    false, &k->call_site);
}

static bool read_census(reader *r, json_t *list, lctx_export_store *s) {
  size_t n = json_array_size(list);
  if (!list || json_is_null(list))
    return true;
  if (!json_is_array(list) || n > 1000)
    return bad(r, "census", "not a list of at most 1000 calls");
  s->census = calloc(n ? n : 1, sizeof *s->census);
  if (!s->census)
    return bad(r, "census", "out of memory");
  for (size_t i = 0; i < n; i++) {
    if (!read_call(r, json_array_get(list, i), &s->census[i]))
      return false;
  }
  s->answer.census = s->census;
  s->answer.census_count = n;
  return true;
}

static bool read_dispatch_event(reader *r, json_t *j, lctx_dispatch_event *e) {
  if (!json_is_object(j))
    return bad(r, "dispatch[]", "not an object");
  json_t *rules = json_object_get(j, "rules");
  if (!text(r, j, "primitive", e->primitive, sizeof e->primitive, false) ||
      !names(r, json_object_get(j, "platforms"), "dispatch[].platforms",
             e->platforms, &e->count))
    return false;
  if (!json_is_array(rules) || json_array_size(rules) == 0 ||
      json_array_size(rules) > LCTX_DISPATCH_MAX_RULES)
    return bad(r, "dispatch[].rules", "not a list of 1 to 8 rules");
  for (size_t i = 0; i < json_array_size(rules); i++) {
    json_t *u = json_array_get(rules, i);
    lctx_dispatch_rule *d = &e->rules[e->rule_count++];
    if (!json_is_object(u))
      return bad(r, "dispatch[].rules[]", "not an object");
    if (!text(r, u, "rule", d->rule, sizeof d->rule, false) ||
        !names(r, json_object_get(u, "platforms"),
               "dispatch[].rules[].platforms", d->platforms, &d->count))
      return false;
  }
  return true;
}

static bool read_dispatch(reader *r, json_t *list, lctx_export_store *s) {
  if (!list || json_is_null(list))
    return true;
  size_t n = json_array_size(list);
  if (!json_is_array(list) || n > LCTX_EXPORT_MAX_DISPATCH)
    return bad(r, "dispatch", "not a list of at most 200 dispatches");
  s->dispatch = calloc(n ? n : 1, sizeof *s->dispatch);
  if (!s->dispatch)
    return bad(r, "dispatch", "out of memory");
  for (size_t i = 0; i < n; i++)
    if (!read_dispatch_event(r, json_array_get(list, i), &s->dispatch[i]))
      return false;
  s->answer.dispatch = s->dispatch;
  s->answer.dispatch_count = n;
  return true;
}

static bool read_repro(reader *r, json_t *v, lctx_export_store *s) {
  if (!v || json_is_null(v))
    return true;
  if (!json_is_string(v) || json_string_length(v) > LCTX_EXPORT_REPRO_MAX ||
      strlen(json_string_value(v)) != json_string_length(v))
    return bad(r, "repro", "not a text of at most 200000 bytes without NUL");
  s->repro = strdup(json_string_value(v));
  return s->repro != NULL || bad(r, "repro", "out of memory");
}

/* One value: a number, "nan", "inf", "-inf", or [re, im]; appended. */
static bool read_value(json_t *v, double *out, size_t *at, size_t cap) {
  if (json_is_array(v)) {
    return json_array_size(v) == 2 &&
           read_value(json_array_get(v, 0), out, at, cap) &&
           read_value(json_array_get(v, 1), out, at, cap);
  }
  if (*at >= cap)
    return false;
  if (json_is_number(v)) {
    out[(*at)++] = json_number_value(v);
    return true;
  }
  const char *s = json_string_value(v);
  if (!s)
    return false;
  if (strcmp(s, "nan") == 0)
    out[(*at)++] = NAN;
  else if (strcmp(s, "inf") == 0)
    out[(*at)++] = INFINITY;
  else if (strcmp(s, "-inf") == 0)
    out[(*at)++] = -INFINITY;
  else
    return false;
  return true;
}

/* The most values kept (complex: two per element). */
#define MAX_VALUES 8192

static bool read_values(reader *r, json_t *list, lctx_export_store *s) {
  lctx_export_answer *a = &s->answer;
  if (!list || json_is_null(list))
    return true;
  if (!json_is_array(list) || json_array_size(list) != a->output_count)
    return bad(r, "run.values", "not one list per output");
  s->values = malloc(MAX_VALUES * sizeof *s->values);
  if (!s->values)
    return bad(r, "run.values", "out of memory");
  size_t at = 0;
  for (size_t o = 0; o < a->output_count; o++) {
    json_t *vals = json_array_get(list, o);
    size_t start = at, i;
    json_t *v;
    if (!json_is_array(vals))
      return bad(r, "run.values[]", "not a list");
    json_array_foreach(vals, i, v) {
      if (!read_value(v, s->values, &at, MAX_VALUES))
        return bad(r, "run.values[]",
                   "a value is not a number, \"nan\", \"inf\", \"-inf\" or "
                   "[re, im], or there are more than 8192");
    }
    a->outputs[o].count = at - start;
  }
  a->values = s->values;
  a->value_count = at;
  return true;
}

static bool floating(const char *dtype) {
  return strncmp(dtype, "float", 5) == 0 || strncmp(dtype, "bfloat", 6) == 0 ||
         strncmp(dtype, "complex", 7) == 0;
}

static bool read_run(reader *r, json_t *run, lctx_export_store *s) {
  lctx_export_answer *a = &s->answer;
  json_t *dtypes = json_object_get(run, "dtypes");
  size_t n = json_array_size(dtypes);
  if (!json_is_object(run))
    return bad(r, "run", "not an object or null");
  if (!text(r, run, "digest", a->digest, sizeof a->digest, false))
    return false;
  if (strlen(a->digest) != 64 || strspn(a->digest, "0123456789abcdef") != 64)
    return bad(r, "run.digest", "not 64 lower-case hex digits");
  if (!json_is_array(dtypes) || n > LCTX_EXPORT_MAX_OUTPUTS)
    return bad(r, "run.dtypes", "not a list of at most 16 dtype names");
  for (size_t i = 0; i < n; i++) {
    json_t *d = json_array_get(dtypes, i);
    if (!json_is_string(d) || json_string_length(d) >= 24)
      return bad(r, "run.dtypes", "a dtype is not a short string");
    snprintf(a->outputs[i].dtype, sizeof a->outputs[i].dtype, "%s",
             json_string_value(d));
    a->outputs[i].floating = floating(a->outputs[i].dtype);
  }
  a->output_count = n;
  a->has_run = true;
  return read_values(r, json_object_get(run, "values"), s);
}

static bool read_answer(reader *r, json_t *j, lctx_export_store *s) {
  lctx_export_answer *a = &s->answer;
  json_t *outcome = json_object_get(j, "outcome");
  const char *o = json_string_value(outcome);
  json_t *secs = json_object_get(j, "seconds");
  s->seconds = json_is_number(secs) ? json_number_value(secs) : 0;
  if (!read_census(r, json_object_get(j, "census"), s) ||
      !read_dispatch(r, json_object_get(j, "dispatch"), s) ||
      !read_repro(r, json_object_get(j, "repro"), s) ||
      !read_user(r, json_object_get(j, "user"), s) ||
      !read_primitives(r, json_object_get(j, "primitives"), "primitives",
                       &s->primitives, &s->primitive_count))
    return false;
  if (o && strcmp(o, "raise") == 0) {
    a->status = LCTX_EXPORT_RAISE;
    return read_raise(r, j, &a->raised);
  }
  if (!o || strcmp(o, "ok") != 0)
    return bad(r, "outcome", "not \"ok\" or \"raise\"");
  a->status = LCTX_EXPORT_OK;
  if (!names(r, json_object_get(j, "module_platforms"), "module_platforms",
             a->platforms, &a->platform_count))
    return false;
  json_t *run = json_object_get(j, "run");
  json_t *run_error = json_object_get(j, "run_error");
  if (run_error && !json_is_null(run_error)) {
    reader sub = *r;
    sub.where = "run_error";
    a->has_run_error = true;
    if (!json_is_object(run_error) ||
        !read_raise(&sub, run_error, &a->run_error)) {
      r->bad = true;
      return bad(&sub, "", "not a raise");
    }
  }
  return !run || json_is_null(run) || read_run(r, run, s);
}

void lctx_export_store_read(json_t *j, size_t item, lctx_export_store *out) {
  lctx_export_store_release(out);
  char where[48], why[256];
  snprintf(where, sizeof where, "results[%zu]", item);
  reader r = {why, sizeof why, where, false};
  json_t *err = json_object_get(j, "error");
  if (!json_is_object(j)) {
    bad(&r, "", "not an object");
  } else if (err) {
    snprintf(why, sizeof why, "the program could not run it: %s",
             json_is_string(err) ? json_string_value(err) : "(no text)");
    r.bad = true;
  } else {
    read_answer(&r, j, out);
  }
  if (r.bad)
    lctx_export_store_lose(out, LCTX_EXPORT_CRASH, why);
}

//===----------------------------------------------------------------------===//
// Back to JSON
//===----------------------------------------------------------------------===//

static json_t *raise_json(const lctx_export_raise *r) {
  return json_pack("{s:s, s:s, s:s?, s:I}", "class", r->cls, "message",
                   r->message, "file", r->file[0] ? r->file : NULL, "line",
                   (json_int_t)r->line);
}

static json_t *value_json(double v) {
  if (isnan(v))
    return json_string("nan");
  if (isinf(v))
    return json_string(v > 0 ? "inf" : "-inf");
  return json_real(v);
}

static json_t *run_json(const lctx_export_answer *a) {
  json_t *dtypes = json_array(), *values = json_null();
  for (size_t i = 0; i < a->output_count; i++)
    json_array_append_new(dtypes, json_string(a->outputs[i].dtype));
  if (a->values) {
    json_decref(values);
    values = json_array();
    size_t k = 0;
    for (size_t i = 0; i < a->output_count; i++) {
      json_t *list = json_array();
      for (size_t e = 0; e < a->outputs[i].count; e++)
        json_array_append_new(list, value_json(a->values[k++]));
      json_array_append_new(values, list);
    }
  }
  return json_pack("{s:s, s:o, s:o}", "digest", a->digest, "dtypes", dtypes,
                   "values", values);
}

/* A frame of the user's code as sent, or null. */
static json_t *frame_json(const lctx_user_frame *f, bool function) {
  if (!f->file[0])
    return json_null();
  json_t *o =
      json_pack("{s:s, s:I}", "file", f->file, "line", (json_int_t)f->line);
  if (function)
    json_object_set_new(
        o, "function", f->function[0] ? json_string(f->function) : json_null());
  return o;
}

static json_t *user_json(const lctx_user_facts *u) {
  return json_pack("{s:o, s:o, s:o, s:o}", "raise_at",
                   frame_json(&u->raise_at, true), "primitive",
                   u->primitive[0] ? json_string(u->primitive) : json_null(),
                   "rule", frame_json(&u->rule, true), "call_site",
                   frame_json(&u->call_site, false));
}

static json_t *census_json(const lctx_export_answer *a) {
  json_t *list = json_array();
  for (size_t i = 0; i < a->census_count; i++) {
    const lctx_census_call *k = &a->census[i];
    json_t *o = json_pack("{s:s}", "what", WHAT[k->kind]);
    if (k->kind != LCTX_CENSUS_TRUNCATED) {
      json_object_set_new(o, "optional",
                          k->optional < 0 ? json_null()
                                          : json_boolean(k->optional));
      json_object_set_new(o, "gave", json_string(GAVE[k->gave]));
      json_object_set_new(o, "file", json_string(k->file));
      json_object_set_new(o, "line", json_integer(k->line));
      json_object_set_new(o, "primitive", json_string(k->primitive));
      json_object_set_new(o, "platforms", json_integer(k->platforms));
      if (k->rule.file[0])
        json_object_set_new(o, "rule", frame_json(&k->rule, true));
      if (k->call_site.file[0])
        json_object_set_new(o, "call_site", frame_json(&k->call_site, false));
    }
    json_array_append_new(list, o);
  }
  return list;
}

static json_t *names_json(const char (*p)[LCTX_EXPORT_PLATFORM_MAX], size_t n) {
  json_t *list = json_array();
  for (size_t i = 0; i < n; i++)
    json_array_append_new(list, json_string(p[i]));
  return list;
}

static json_t *dispatch_json(const lctx_export_answer *a) {
  json_t *list = json_array();
  for (size_t i = 0; i < a->dispatch_count; i++) {
    const lctx_dispatch_event *e = &a->dispatch[i];
    json_t *rules = json_array();
    for (size_t k = 0; k < e->rule_count; k++)
      json_array_append_new(
          rules,
          json_pack("{s:s, s:o}", "rule", e->rules[k].rule, "platforms",
                    names_json(e->rules[k].platforms, e->rules[k].count)));
    json_array_append_new(list, json_pack("{s:s, s:o, s:o}", "primitive",
                                          e->primitive, "platforms",
                                          names_json(e->platforms, e->count),
                                          "rules", rules));
  }
  return list;
}

json_t *lctx_export_store_json(const lctx_export_store *s) {
  const lctx_export_answer *a = &s->answer;
  if (a->status == LCTX_EXPORT_CRASH || a->status == LCTX_EXPORT_TIMEOUT)
    return json_pack("{s:s}", "error", a->error);
  json_t *o = json_object();
  json_t *prims = json_array();
  for (size_t i = 0; i < s->primitive_count; i++)
    json_array_append_new(prims, json_string(s->primitives[i]));
  if (a->status == LCTX_EXPORT_RAISE) {
    json_object_set_new(o, "outcome", json_string("raise"));
    json_t *r = raise_json(&a->raised);
    json_object_update(o, r);
    json_decref(r);
  } else {
    json_t *plats = json_array();
    for (size_t i = 0; i < a->platform_count; i++)
      json_array_append_new(plats, json_string(a->platforms[i]));
    json_object_set_new(o, "outcome", json_string("ok"));
    json_object_set_new(o, "module_platforms", plats);
    json_object_set_new(o, "run", a->has_run ? run_json(a) : json_null());
    if (a->has_run_error)
      json_object_set_new(o, "run_error", raise_json(&a->run_error));
  }
  json_object_set_new(o, "census", census_json(a));
  json_object_set_new(o, "primitives", prims);
  if (a->dispatch)
    json_object_set_new(o, "dispatch", dispatch_json(a));
  if (a->user)
    json_object_set_new(o, "user", user_json(a->user));
  return o;
}
