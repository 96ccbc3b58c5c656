/*
 * sweep_diagnose.c - the diagnoses of a sweep (see sweep_diagnose.h).
 */
#include "sweep_diagnose.h"

#include "escape.h"
#include "report_print.h"
#include "report_text.h"
#include "sweep_record.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* Whether `e`'s program is a user's or a package's. */
static bool diagnosed(const lctx_sweep *s, const lctx_sweep_exports *e) {
  if (e->source || e->name[0] || e->program >= s->cat.count)
    return false;
  const char *kind = s->cat.programs[e->program].kind;
  return strcmp(kind, "user") == 0 || strcmp(kind, "package") == 0;
}

/* Keeps `d` in plan order (after those of its case and the cases
 * before), unless one like it of an earlier case or the same is kept; one
 * like it of a later case gives way to it. */
static void keep(lctx_sweep *s, const lctx_diagnosis *d) {
  for (size_t i = 0; i < s->diagnosis_count; i++) {
    lctx_diagnosis *k = &s->diagnoses[i];
    if (!lctx_diagnosis_same(k, d))
      continue;
    if (k->plan_case <= d->plan_case)
      return;
    memmove(k, k + 1, (s->diagnosis_count - i - 1) * sizeof *k);
    s->diagnosis_count--;
    break;
  }
  if (s->diagnosis_count == LCTX_SWEEP_DIAGNOSES_MAX) {
    lctx_report_cap_hit(s->rep, "diagnoses kept", LCTX_SWEEP_DIAGNOSES_MAX, 1);
    return;
  }
  if (s->diagnosis_count == s->diagnosis_cap) {
    size_t cap = s->diagnosis_cap ? 2 * s->diagnosis_cap : 8;
    void *p = realloc(s->diagnoses, cap * sizeof *s->diagnoses);
    if (!p)
      return;
    s->diagnoses = p;
    s->diagnosis_cap = cap;
  }
  size_t at = s->diagnosis_count;
  while (at > 0 && s->diagnoses[at - 1].plan_case > d->plan_case)
    at--;
  memmove(&s->diagnoses[at + 1], &s->diagnoses[at],
          (s->diagnosis_count - at) * sizeof *s->diagnoses);
  s->diagnoses[at] = *d;
  s->diagnosis_count++;
}

#define CASE_MAX (LCTX_EXPORT_MAX_PLATFORMS * 4)

/* The diagnoses of `e` into `d` (CASE_MAX of them); how many. */
static size_t classify(const lctx_sweep *s, const lctx_sweep_exports *e,
                       lctx_diagnosis *d) {
  size_t n = 0;
  lctx_diagnosis_known *known = calloc(s->known_count + 1, sizeof *known);
  if (known) {
    for (size_t i = 0; i < s->known_count; i++)
      known[i] = (lctx_diagnosis_known){s->known[i], s->known_defects[i].name,
                                        s->known_defects[i].fixed_in,
                                        s->known_defects[i].doc};
    const char *names[LCTX_EXPORT_MAX_PLATFORMS],
        *rnames[LCTX_EXPORT_MAX_PLATFORMS];
    lctx_sweep_case c;
    memset(&c, 0, sizeof c);
    c.program = lctx_sweep_program_name(s, e);
    c.group = lctx_sweep_program_group(s, e);
    lctx_sweep_record_view(e, names, rnames, &c);
    n = lctx_diagnosis_classify(&c, known, s->known_count, d, CASE_MAX);
  }
  free(known);
  return n;
}

void lctx_sweep_diagnose(lctx_sweep *s, size_t index,
                         const lctx_sweep_exports *e) {
  lctx_diagnosis *d = diagnosed(s, e) ? calloc(CASE_MAX, sizeof *d) : NULL;
  size_t n = d ? classify(s, e, d) : 0;
  for (size_t i = 0; i < n; i++) {
    d[i].plan_case = index;
    keep(s, &d[i]);
  }
  free(d);
}

//===----------------------------------------------------------------------===//
// In results.jsonl, for a resumed run
//===----------------------------------------------------------------------===//

static json_t *frame_json(const lctx_user_frame *f, bool function) {
  if (!f->file[0])
    return json_null();
  json_t *o = json_pack("{s:o, s:I}", "file", lctx_report_json_text(f->file),
                        "line", (json_int_t)f->line);
  if (function)
    json_object_set_new(o, "function", lctx_report_json_text(f->function));
  return o;
}

static json_t *one_json(const lctx_diagnosis *d) {
  json_t *plats = json_array();
  for (size_t k = 0; k < d->platform_count; k++)
    json_array_append_new(plats, lctx_report_json_text(d->platforms[k]));
  return json_pack(
      "{s:s, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:o}", "class",
      lctx_diagnosis_class_name(d->cls), "program",
      lctx_report_json_text(d->program), "platforms", plats, "file",
      lctx_report_json_text(d->file), "line", (json_int_t)d->line, "primitive",
      lctx_report_json_text(d->primitive), "rule", frame_json(&d->rule, true),
      "call_site", frame_json(&d->call_site, false), "message",
      lctx_report_json_text(d->message), "fix", lctx_report_json_text(d->fix));
}

json_t *lctx_sweep_diagnoses_line(const lctx_sweep *s,
                                  const lctx_sweep_exports *e) {
  lctx_diagnosis *d = diagnosed(s, e) ? calloc(CASE_MAX, sizeof *d) : NULL;
  size_t n = d ? classify(s, e, d) : 0;
  json_t *list = d ? json_array() : NULL;
  for (size_t i = 0; i < n; i++)
    json_array_append_new(list, one_json(&d[i]));
  free(d);
  return list;
}

/* `dst` (`n` bytes) from string `v`; false when it is not one. */
static bool text_of(json_t *v, char *dst, size_t n) {
  const char *t = json_string_value(v);
  if (t)
    snprintf(dst, n, "%s", t);
  return t != NULL;
}

static void frame_back(json_t *j, lctx_user_frame *f) {
  if (text_of(json_object_get(j, "file"), f->file, sizeof f->file))
    f->line = (long)json_integer_value(json_object_get(j, "line"));
  text_of(json_object_get(j, "function"), f->function, sizeof f->function);
}

/* Diagnosis `j` of a results line into `d`; false when malformed. */
static bool one_back(json_t *j, lctx_diagnosis *d) {
  char cls[32] = "";
  json_t *plats = json_object_get(j, "platforms");
  memset(d, 0, sizeof *d);
  if (!text_of(json_object_get(j, "class"), cls, sizeof cls) ||
      !text_of(json_object_get(j, "program"), d->program, sizeof d->program) ||
      !text_of(json_object_get(j, "file"), d->file, sizeof d->file) ||
      !text_of(json_object_get(j, "message"), d->message, sizeof d->message) ||
      !text_of(json_object_get(j, "fix"), d->fix, sizeof d->fix) ||
      json_array_size(plats) > LCTX_EXPORT_MAX_PLATFORMS)
    return false;
  d->cls = LCTX_DIAGNOSIS_CLASS_COUNT;
  for (int c = 0; c < LCTX_DIAGNOSIS_CLASS_COUNT; c++)
    if (strcmp(cls, lctx_diagnosis_class_name(c)) == 0)
      d->cls = c;
  d->line = (long)json_integer_value(json_object_get(j, "line"));
  text_of(json_object_get(j, "primitive"), d->primitive, sizeof d->primitive);
  frame_back(json_object_get(j, "rule"), &d->rule);
  frame_back(json_object_get(j, "call_site"), &d->call_site);
  for (d->platform_count = 0; d->platform_count < json_array_size(plats);
       d->platform_count++)
    if (!text_of(json_array_get(plats, d->platform_count),
                 d->platforms[d->platform_count], LCTX_EXPORT_PLATFORM_MAX))
      return false;
  return d->cls != LCTX_DIAGNOSIS_CLASS_COUNT;
}

void lctx_sweep_diagnoses_resume(lctx_sweep *s, size_t index, json_t *list) {
  size_t i;
  json_t *j;
  lctx_diagnosis *d = malloc(sizeof *d);
  json_array_foreach(list, i, j) {
    if (d && one_back(j, d)) {
      d->plan_case = index;
      keep(s, d);
    }
  }
  free(d);
}

void lctx_sweep_print_diagnoses(const lctx_sweep *s) {
  if (!s->diagnosis_count)
    return;
  lctx_report_print_diagnoses(s->diagnoses, s->diagnosis_count, s->out);
}

//===----------------------------------------------------------------------===//
// The reach of a user's run
//===----------------------------------------------------------------------===//

bool lctx_sweep_user_run(const lctx_sweep *s) {
  if (s->o->generate || !s->selected_count)
    return false;
  for (size_t i = 0; i < s->selected_count; i++) {
    const char *kind = s->cat.programs[s->selected[i]].kind;
    if (strcmp(kind, "user") != 0 && strcmp(kind, "package") != 0)
      return false;
  }
  return true;
}

static int by_name(const void *a, const void *b) {
  return strcmp((const char *)a, (const char *)b);
}

/* The user's own primitives: a name, and whether its lowering began. */
typedef struct own_prim {
  char name[64];
  bool reached;
} own_prim;

/* Adds `name` to `own` (`*n` of at most `cap`) unless there; `reached`:
 * a diagnosis saw its lowering begin. */
static void own_add(own_prim *own, size_t *n, size_t cap, const char *name,
                    bool reached) {
  for (size_t i = 0; i < *n; i++)
    if (strcmp(own[i].name, name) == 0) {
      own[i].reached |= reached;
      return;
    }
  if (*n < cap && name[0]) {
    snprintf(own[*n].name, sizeof own[*n].name, "%s", name);
    own[(*n)++].reached = reached;
  }
}

/* Whether the run's programs lowered primitive `name` (its rule ran). */
static bool lowered(const lctx_sweep *s, const char *name) {
  char key[64];
  snprintf(key, sizeof key, "%s", name);
  char(*hit)[64] = s->cat.primitive_count
                       ? bsearch(key, s->cat.primitives, s->cat.primitive_count,
                                 sizeof *s->cat.primitives, by_name)
                       : NULL;
  return hit && s->reached[hit - s->cat.primitives];
}

/* One line "WHAT (N): NAME ..." of the primitives whose reach is `yes`. */
static void own_line(const lctx_sweep *s, const own_prim *own, size_t n,
                     bool yes, const char *what) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    k += own[i].reached == yes;
  if (!k)
    return;
  fprintf(s->out, "%s (%zu):", what, k);
  for (size_t i = 0; i < n; i++) {
    lctx_escaped b;
    if (own[i].reached == yes)
      fprintf(s->out, " %s", lctx_esc(&b, own[i].name));
  }
  fputc('\n', s->out);
}

void lctx_sweep_print_user_reach(const lctx_sweep *s) {
  size_t cap = s->selected_count + s->diagnosis_count, n = 0, reached = 0;
  own_prim *own = calloc(cap + 1, sizeof *own);
  for (size_t i = 0; own && i < s->selected_count; i++) {
    const lctx_program *p = &s->cat.programs[s->selected[i]];
    const char *last = strrchr(p->name, '/');
    if (strcmp(p->kind, "package") == 0 && last)
      own_add(own, &n, cap, last + 1, false);
  }
  for (size_t i = 0; own && i < s->diagnosis_count; i++) {
    const lctx_diagnosis *d = &s->diagnoses[i];
    if (d->rule.file[0] || d->cls == LCTX_DIAGNOSIS_MISSING_RULE)
      own_add(own, &n, cap, d->primitive, true);
  }
  if (n)
    qsort(own, n, sizeof *own, by_name);
  for (size_t i = 0; i < n; i++) {
    own[i].reached |= lowered(s, own[i].name);
    reached += own[i].reached;
  }
  lctx_escaped dir;
  fprintf(s->out,
          "reach: the user's programs lowered %zu of the %zu primitives of "
          "their own that lctx knows (%s/reach.json lists JAX's)\n",
          reached, n, lctx_esc(&dir, s->o->out_dir));
  own_line(s, own, n, true, "reached");
  own_line(s, own, n, false, "not reached");
  free(own);
}
