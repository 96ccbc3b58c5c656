/*
 * sweep_case.c - one sweep case: its export requests, judging, its
 * results line, findings (see sweep_case.h).
 */
#include "sweep_case.h"

#include "file.h"
#include "program.h"
#include "program_draw.h"
#include "program_reduce.h"
#include "program_text.h"

#include "report_write.h"
#include "escape.h"
#include "seal.h"
#include "sweep_diagnose.h"
#include "sweep_record.h"
#include "sys.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

//===----------------------------------------------------------------------===//
// Set-up
//===----------------------------------------------------------------------===//

lctx_sweep *lctx_sweep_new(const lctx_sweep_options *o, FILE *out, FILE *err) {
  lctx_sweep *s = calloc(1, sizeof *s);
  if (s) {
    s->spec = malloc(sizeof *s->spec);
    s->rep = calloc(1, sizeof *s->rep);
  }
  if (!s || !s->spec || !s->rep) {
    fprintf(err, "lctx sweep: out of memory\n");
    lctx_sweep_free(s);
    return NULL;
  }
  s->o = o;
  s->out = out;
  s->err = err;
  s->minimize_next_id = 1ull << 48;
  s->x_count = o->jobs ? o->jobs : 1;
  s->x = calloc(s->x_count, sizeof *s->x);
  if (!s->x) {
    fprintf(err, "lctx sweep: out of memory\n");
    lctx_sweep_free(s);
    return NULL;
  }
  char why[512];
  lctx_escaped b;
  bool loaded =
      lctx_spec_load_or_report(o->spec_path, s->spec, "lctx sweep", err);
  if (!loaded || !lctx_sweep_rows_find(s->spec, &s->rows, why, sizeof why)) {
    if (loaded)
      fprintf(err, "lctx sweep: %s\n", lctx_esc(&b, why));
    lctx_sweep_free(s);
    return NULL;
  }
  s->rep->row_count = s->spec->row_count;
  for (size_t i = 0; i < s->spec->row_count; i++)
    snprintf(s->rep->rows[i].id, sizeof s->rep->rows[i].id, "%s",
             s->spec->rows[i].id);
  if (o->out_dir && !lctx_sys_mkdir_p(o->out_dir)) {
    fprintf(err, "lctx sweep: cannot create %s: %s\n", lctx_esc(&b, o->out_dir),
            strerror(errno));
    lctx_sweep_free(s);
    return NULL;
  }
  if (o->out_dir) {
    char findings[4200];
    snprintf(findings, sizeof findings, "%s/findings", o->out_dir);
    s->findings_kept = lctx_sys_count_entries(findings);
  }
  if (o->known_dir && !lctx_sweep_record_keys(o->known_dir, o->known_default,
                                              &s->known, &s->known_defects,
                                              &s->known_count, s->rep, err)) {
    lctx_sweep_free(s);
    return NULL;
  }
  return s;
}

void lctx_sweep_close_exporters(lctx_sweep *s) {
  for (size_t i = 0; s->x && i < s->x_count; i++) {
    lctx_impl_close(s->x[i].impl);
    s->x[i].impl = NULL;
  }
  lctx_impl_close(s->minimizer.impl);
  s->minimizer.impl = NULL;
}

void lctx_sweep_free(lctx_sweep *s) {
  if (!s)
    return;
  if (s->results && !lctx_seal_commit(s->results))
    s->results_failed = true;
  if (s->results && !lctx_seal_close(s->results))
    s->results_failed = true;
  lctx_sweep_close_exporters(s);
  free(s->x);
  lctx_catalogue_free(&s->cat);
  free(s->selected);
  for (size_t i = 0; i < s->gen_file_count; i++)
    free(s->gen_files[i]);
  free(s->gen_files);
  free(s->ops);
  free(s->reached);
  free(s->done);
  free(s->known);
  free(s->known_defects);
  free(s->diagnoses);
  free(s->plan_start);
  free(s->seen);
  free(s->noted);
  free(s->spec);
  free(s->rep);
  free(s);
}

bool lctx_sweep_known(const lctx_sweep *s, const char *key) {
  for (size_t i = 0; i < s->known_count; i++) {
    if (strcmp(s->known[i], key) == 0)
      return true;
  }
  return false;
}

bool lctx_sweep_new_key(lctx_sweep *s, const char *key) {
  for (size_t i = 0; i < s->seen_count; i++) {
    if (strcmp(s->seen[i], key) == 0)
      return false;
  }
  if (s->seen_count == s->seen_cap) {
    size_t cap = s->seen_cap ? 2 * s->seen_cap : 16;
    void *p = realloc(s->seen, cap * sizeof *s->seen);
    if (!p)
      return false;
    s->seen = p;
    s->seen_cap = cap;
  }
  snprintf(s->seen[s->seen_count++], LCTX_SWEEP_KEY_MAX, "%s", key);
  return true;
}

//===----------------------------------------------------------------------===//
// Requests
//===----------------------------------------------------------------------===//

bool lctx_sweep_exporter_open(const lctx_sweep *s, lctx_sweep_exporter *x,
                              char *why, size_t n) {
  char log[4096];
  snprintf(log, sizeof log, "%s/implementation.log", s->o->out_dir);
  lctx_impl_options io;
  lctx_impl_options_init(&io);
  io.timeout = s->o->timeout;
  io.log_path = log;
  io.export_extension = true;
  io.stop_on_interrupt = true;
  io.memory_limit_mb = 4096;
  lctx_buf eb;
  lctx_buf_init(&eb, why, n);
  x->impl = lctx_impl_open_process(s->o->command, &io, &eb);
  return x->impl != NULL;
}

void lctx_sweep_exporter_at(lctx_sweep_exporter *x, size_t index) {
  x->next_id = (unsigned long long)index * LCTX_SWEEP_IDS_PER_CASE;
}

size_t lctx_sweep_restarts(const lctx_sweep *s) {
  size_t n = s->minimizer.impl ? lctx_impl_restarts(s->minimizer.impl) : 0;
  for (size_t i = 0; i < s->x_count; i++)
    n += s->x[i].impl ? lctx_impl_restarts(s->x[i].impl) : 0;
  return n;
}

size_t lctx_sweep_exports_made(const lctx_sweep *s) {
  size_t n = s->minimizer.exports;
  for (size_t i = 0; i < s->x_count; i++)
    n += s->x[i].exports;
  return n;
}

void lctx_sweep_exports_init(lctx_sweep_exports *e, size_t program,
                             const lctx_sweep_list *l) {
  memset(e, 0, sizeof *e);
  e->program = program;
  e->list = *l;
}

bool lctx_sweep_exports_set_source(lctx_sweep_exports *e, const char *name,
                                   const char *text, char *why, size_t cap) {
  free(e->source);
  free(e->desc);
  e->source = strdup(text);
  e->desc = malloc(sizeof *e->desc);
  snprintf(e->name, sizeof e->name, "%s", name);
  if (!e->source || !e->desc) {
    snprintf(why, cap, "out of memory");
  } else if (lctx_program_parse(text, strlen(text), e->desc, why, cap)) {
    return true;
  }
  free(e->source);
  free(e->desc);
  e->source = NULL;
  e->desc = NULL;
  return false;
}

bool lctx_sweep_draw_program(const lctx_sweep *s, size_t index,
                             lctx_sweep_exports *e, char *why, size_t cap) {
  lctx_prog_source src;
  uint8_t *bytes = NULL;
  size_t n = 0;
  char name[64];
  snprintf(e->name, sizeof e->name, "gen/%zu", index);
  if (s->gen_files) {
    if (index >= s->gen_file_count) {
      snprintf(why, cap, "no file %zu of --from", index);
      return false;
    }
    const char *base = strrchr(s->gen_files[index], '/');
    snprintf(name, sizeof name, "gen/bytes/%.40s",
             base ? base + 1 : s->gen_files[index]);
    snprintf(e->name, sizeof e->name, "%s", name);
    char *data = NULL;
    lctx_buf err;
    lctx_buf_init(&err, why, cap);
    if (!lctx_file_read(s->gen_files[index], 1 << 20, &data, &n, &err))
      return false;
    bytes = (uint8_t *)data;
    lctx_prog_source_bytes(&src, bytes, n);
  } else {
    lctx_prog_source_seed(&src, s->o->seed, index);
    snprintf(name, sizeof name, "gen/%llu/%zu", s->o->seed, index);
  }
  lctx_program_desc *p = malloc(sizeof *p);
  char *text = malloc(LCTX_PROG_TEXT_MAX);
  bool ok = p && text;
  if (ok) {
    lctx_program_generate(&src, p);
    ok = lctx_program_print(p, text, LCTX_PROG_TEXT_MAX) > 0 &&
         lctx_sweep_exports_set_source(e, name, text, why, cap);
  } else {
    snprintf(why, cap, "out of memory");
  }
  free(bytes);
  free(p);
  free(text);
  return ok;
}

void lctx_sweep_exports_release(lctx_sweep_exports *e) {
  free(e->source);
  free(e->desc);
  e->source = NULL;
  e->desc = NULL;
  lctx_export_store_release(&e->multi);
  lctx_export_store_release(&e->reordered);
  lctx_export_store_release(&e->cpu_only);
  for (size_t i = 0; i < LCTX_EXPORT_MAX_PLATFORMS; i++)
    lctx_export_store_release(&e->alone[i]);
  free(e->fails);
  e->fails = NULL;
  e->fail_count = 0;
}

/* Keeps the failures among `n` verdicts in `e`. */
static void keep_fails(lctx_sweep_exports *e, const lctx_sweep_verdict *v,
                       size_t n) {
  free(e->fails);
  e->fail_count = 0;
  e->fails = malloc((n ? n : 1) * sizeof *e->fails);
  for (size_t i = 0; e->fails && i < n; i++) {
    if (v[i].kind == LCTX_SWEEP_FAIL)
      e->fails[e->fail_count++] = v[i];
  }
}

/* One item of a request: a list, and the answer it fills. */
typedef struct item {
  const lctx_sweep_list *list;
  lctx_export_store *store;
  bool repro; ///< ask for a standalone reproduction
} item;

static void take_reach(lctx_sweep *s, const lctx_export_store *st) {
  for (size_t i = 0; i < st->primitive_count; i++)
    lctx_sweep_reach(s, st->primitives[i]);
}

void lctx_sweep_reach_exports(lctx_sweep *s, const lctx_sweep_exports *e) {
  take_reach(s, &e->multi);
  take_reach(s, &e->reordered);
  take_reach(s, &e->cpu_only);
  for (size_t i = 0; i < LCTX_EXPORT_MAX_PLATFORMS; i++)
    take_reach(s, &e->alone[i]);
}

/* Exports `n` items of `program` in one request; a request that is lost
 * is sent again item by item, so that only the item that breaks the
 * program is marked. */
static void send_items(const lctx_sweep *s, lctx_sweep_exporter *x,
                       const lctx_sweep_exports *e, item *it, size_t n) {
  const char *program = lctx_sweep_program_name(s, e);
  json_t *req = json_object(), *list = json_array();
  unsigned long long id = ++x->next_id;
  json_object_set_new(req, "id", json_integer((json_int_t)id));
  for (size_t i = 0; i < n; i++) {
    json_t *plats = json_array();
    for (size_t k = 0; k < it[i].list->count; k++)
      json_array_append_new(plats, json_string(it[i].list->p[k]));
    json_t *one =
        json_pack("{s:s, s:o}", "program", program, "platforms", plats);
    if (e->source)
      json_object_set_new(one, "source", json_string(e->source));
    if (it[i].repro)
      json_object_set_new(one, "repro", json_true());
    json_array_append_new(list, one);
  }
  json_object_set_new(req, "exports", list);
  char *line = json_dumps(req, JSON_COMPACT);
  json_decref(req);
  json_t *j = NULL;
  char why[512] = "out of memory";
  lctx_result_status st =
      line ? lctx_impl_exchange(x->impl, line, id, s->o->timeout * (double)n,
                                &j, why, sizeof why)
           : LCTX_RESULT_CRASH;
  free(line);
  json_t *results = json_object_get(j, "results");
  if (st == LCTX_RESULT_OK && json_array_size(results) != n) {
    snprintf(why, sizeof why, "protocol error: %zu results expected", n);
    st = LCTX_RESULT_CRASH;
  }
  for (size_t i = 0; i < n && st == LCTX_RESULT_OK; i++)
    lctx_export_store_read(json_array_get(results, i), i, it[i].store);
  json_decref(j);
  if (st != LCTX_RESULT_OK && n > 1) {
    for (size_t i = 0; i < n; i++)
      send_items(s, x, e, &it[i], 1);
    return;
  }
  if (st != LCTX_RESULT_OK)
    lctx_export_store_lose(it[0].store,
                           st == LCTX_RESULT_TIMEOUT ? LCTX_EXPORT_TIMEOUT
                                                     : LCTX_EXPORT_CRASH,
                           why);
  x->exports += n;
}

static void reverse(const lctx_sweep_list *a, lctx_sweep_list *b) {
  b->count = a->count;
  for (size_t i = 0; i < a->count; i++)
    memcpy(b->p[i], a->p[a->count - 1 - i], sizeof b->p[i]);
}

static bool has_cpu(const lctx_sweep_list *l) {
  for (size_t i = 0; i < l->count; i++) {
    if (strcmp(l->p[i], "cpu") == 0)
      return true;
  }
  return false;
}

/* The judge's view of `e`; `names` and `rnames` hold the pointers. */
static void view(const lctx_sweep *s, const lctx_sweep_exports *e,
                 const char **names, const char **rnames, lctx_sweep_case *c) {
  memset(c, 0, sizeof *c);
  c->program = lctx_sweep_program_name(s, e);
  c->group = lctx_sweep_program_group(s, e);
  lctx_sweep_record_view(e, names, rnames, c);
  c->desc = e->desc;
}

size_t lctx_sweep_run_case(const lctx_sweep *s, lctx_sweep_exporter *x,
                           lctx_sweep_exports *e, lctx_sweep_verdict *v,
                           size_t cap) {
  static const lctx_sweep_list cpu = {1, {"cpu"}};
  if (s->o->generate && !e->source) {
    char why[512];
    if (!lctx_sweep_draw_program(s, e->program, e, why, sizeof why)) {
      /* Nothing to export: the case is a crash of the rows that need P. */
      lctx_export_store_lose(&e->multi, LCTX_EXPORT_CRASH, why);
      e->ran = true;
      const char *names[LCTX_EXPORT_MAX_PLATFORMS],
          *rn[LCTX_EXPORT_MAX_PLATFORMS];
      lctx_sweep_case c;
      view(s, e, names, rn, &c);
      size_t count = lctx_sweep_judge(&s->rows, &c, v, cap);
      keep_fails(e, v, count);
      return count;
    }
  }
  item it[3];
  size_t n = 0;
  it[n++] = (item){&e->list, &e->multi, e->want_repro};
  if (e->list.count > 1) {
    reverse(&e->list, &e->reorder);
    e->has_reorder = true;
    it[n++] = (item){&e->reorder, &e->reordered, false};
  }
  if (has_cpu(&e->list) && e->list.count > 1) {
    e->has_cpu = true;
    it[n++] = (item){&cpu, &e->cpu_only, false};
  }
  send_items(s, x, e, it, n);
  const char *names[LCTX_EXPORT_MAX_PLATFORMS], *rn[LCTX_EXPORT_MAX_PLATFORMS];
  lctx_sweep_case c;
  view(s, e, names, rn, &c);
  if (lctx_sweep_needs_alone(&s->rows, &c)) {
    item alone[LCTX_EXPORT_MAX_PLATFORMS];
    lctx_sweep_list one[LCTX_EXPORT_MAX_PLATFORMS];
    size_t k = 0;
    for (size_t i = 0; i < e->list.count; i++) {
      if (e->has_cpu && strcmp(e->list.p[i], "cpu") == 0)
        continue; /* the ("cpu",) export is cpu's alone (record_view) */
      one[i] = (lctx_sweep_list){1, {{0}}};
      memcpy(one[i].p[0], e->list.p[i], sizeof one[i].p[0]);
      e->has_alone[i] = true;
      alone[k++] = (item){&one[i], &e->alone[i], false};
    }
    send_items(s, x, e, alone, k);
    view(s, e, names, rn, &c);
  }
  e->ran = true;
  size_t count = lctx_sweep_judge(&s->rows, &c, v, cap);
  keep_fails(e, v, count);
  return count;
}

//===----------------------------------------------------------------------===//
// results.jsonl
//===----------------------------------------------------------------------===//

static void mark_done(lctx_sweep *s, size_t index) {
  if (index < s->done_cap)
    s->done[index] = true;
}

bool lctx_sweep_done(const lctx_sweep *s, size_t index) {
  return index < s->done_cap && s->done[index];
}

/* What P gave, in one line: "ok", "raise CLASS at FILE:LINE: MESSAGE",
 * or the lost answer's why. */
static json_t *outcome_json(const lctx_export_answer *a) {
  char text[LCTX_EXPORT_MESSAGE_MAX + 512];
  if (a->status == LCTX_EXPORT_OK)
    snprintf(text, sizeof text, "ok");
  else if (a->status == LCTX_EXPORT_RAISE)
    snprintf(text, sizeof text, "raise %s at %s:%ld: %s", a->raised.cls,
             a->raised.file[0] ? a->raised.file : "?", a->raised.line,
             a->raised.message);
  else
    snprintf(text, sizeof text, "%s: %s",
             a->status == LCTX_EXPORT_TIMEOUT ? "timeout" : "crash", a->error);
  return lctx_report_json_text(text);
}

void lctx_sweep_write_line(lctx_sweep *s, size_t index,
                           const lctx_sweep_exports *e,
                           const lctx_sweep_verdict *v, size_t n) {
  json_t *j = json_object(), *verdicts = json_array(), *plats = json_array();
  json_t *prims = json_array();
  json_object_set_new(j, "case", json_integer((json_int_t)index));
  json_object_set_new(j, "program",
                      lctx_report_json_text(lctx_sweep_program_name(s, e)));
  for (size_t i = 0; i < e->list.count; i++)
    json_array_append_new(plats, json_string(e->list.p[i]));
  json_object_set_new(j, "platforms", plats);
  for (size_t i = 0; i < n; i++) {
    const lctx_spec_row *row = &s->spec->rows[v[i].row];
    json_array_append_new(
        verdicts,
        json_pack("{s:s, s:s, s:o, s:o}", "row", row->id, "verdict",
                  lctx_verdict_name(
                      v[i].kind == LCTX_SWEEP_PASS      ? LCTX_VERDICT_PASS
                      : v[i].kind == LCTX_SWEEP_CRASH   ? LCTX_VERDICT_CRASH
                      : v[i].kind == LCTX_SWEEP_TIMEOUT ? LCTX_VERDICT_TIMEOUT
                      : lctx_sweep_known(s, v[i].key)   ? LCTX_VERDICT_XFAIL
                                                        : LCTX_VERDICT_FAIL),
                  "key", lctx_report_json_text(v[i].key), "detail",
                  lctx_report_json_text(v[i].detail)));
  }
  json_object_set_new(j, "verdicts", verdicts);
  const lctx_export_store *st[] = {&e->multi, &e->reordered, &e->cpu_only};
  for (size_t k = 0; k < 3; k++) {
    for (size_t i = 0; i < st[k]->primitive_count; i++) {
      bool twice = false;
      for (size_t d = 0; d < json_array_size(prims) && !twice; d++)
        twice = strcmp(json_string_value(json_array_get(prims, d)),
                       st[k]->primitives[i]) == 0;
      if (!twice)
        json_array_append_new(prims, json_string(st[k]->primitives[i]));
    }
  }
  json_object_set_new(j, "primitives", prims);
  json_object_set_new(j, "outcome", outcome_json(&e->multi.answer));
  json_t *diagnoses = lctx_sweep_diagnoses_line(s, e);
  if (diagnoses)
    json_object_set_new(j, "diagnoses", diagnoses);
  /* Each line goes into the seal as it is written; the seal file is
   * replaced at most 4 times a second (and at the end): a resume trusts
   * what is sealed and runs the rest again. */
  char *text = s->results ? json_dumps(j, JSON_COMPACT) : NULL;
  double now = lctx_sys_now();
  bool seal = now >= s->next_seal;
  if (seal)
    s->next_seal = now + 0.25;
  if (s->results &&
      (!text || !lctx_seal_write(s->results, text, strlen(text)) ||
       !lctx_seal_write(s->results, "\n", 1) ||
       (seal && !lctx_seal_commit(s->results)))) {
    if (!s->results_failed) {
      lctx_escaped b;
      fprintf(s->err, "%s: %s/results.jsonl: cannot write: %s\n",
              lctx_sweep_who(s), lctx_esc(&b, s->o->out_dir),
              lctx_sys_file_error(s->results->error ? s->results->error
                                  : errno           ? errno
                                                    : EIO));
    }
    s->results_failed = true;
  }
  free(text);
  json_decref(j);
  mark_done(s, index);
}

//===----------------------------------------------------------------------===//
// Findings
//===----------------------------------------------------------------------===//

/* The exporter findings are minimized through: x[0], or while jobs run,
 * one of its own (opened when first needed; NULL when it cannot be). */
static lctx_sweep_exporter *minimizer(lctx_sweep *s) {
  if (!s->parallel)
    return &s->x[0];
  if (s->minimizer_failed)
    return NULL;
  if (!s->minimizer.impl) {
    char why[1024] = "";
    if (!lctx_sweep_exporter_open(s, &s->minimizer, why, sizeof why)) {
      lctx_escaped b;
      fprintf(s->err, "%s: findings are not minimized: %s\n", lctx_sweep_who(s),
              lctx_esc(&b, why));
      s->minimizer_failed = true;
      return NULL;
    }
  }
  return &s->minimizer;
}

/* Whether case `e` (run again for `list` and `program`) shows `key`. */
static bool shows(lctx_sweep *s, size_t program, const lctx_sweep_list *list,
                  const char *key, lctx_sweep_exports *keep,
                  const char *source) {
  lctx_sweep_exporter *x = minimizer(s);
  if (!x)
    return false;
  lctx_sweep_exports e;
  lctx_sweep_exports_init(&e, program, list);
  char why[256];
  if (source &&
      !lctx_sweep_exports_set_source(&e, keep->name, source, why, sizeof why))
    return false;
  lctx_sweep_verdict v[32];
  /* Numbered apart from the plan's cases, in the order findings are kept
   * (the same with any --jobs). */
  x->next_id = s->minimize_next_id;
  size_t n = lctx_sweep_run_case(s, x, &e, v, 32);
  s->minimize_next_id = x->next_id;
  lctx_sweep_reach_exports(s, &e);
  bool found = false;
  for (size_t i = 0; i < n && !found; i++)
    found = v[i].kind == LCTX_SWEEP_FAIL && strcmp(v[i].key, key) == 0;
  if (found) {
    lctx_sweep_exports_release(keep);
    *keep = e;
  } else {
    lctx_sweep_exports_release(&e);
  }
  return found;
}

/* Fewest platforms: drops one platform at a time while the key stays. */
static void fewer_platforms(lctx_sweep *s, lctx_sweep_exports *best,
                            const char *key) {
  for (bool shrunk = true; shrunk && best->list.count > 2;) {
    shrunk = false;
    for (size_t drop = 0; drop < best->list.count && !shrunk; drop++) {
      lctx_sweep_list l = {0, {{0}}};
      for (size_t i = 0; i < best->list.count; i++) {
        if (i != drop)
          memcpy(l.p[l.count++], best->list.p[i], sizeof l.p[0]);
      }
      shrunk = shows(s, best->program, &l, key, best, best->source);
    }
  }
}

/* The smallest program of the group that still shows the key (at most 8
 * tried, smallest first). */
static void smaller_program(lctx_sweep *s, lctx_sweep_exports *best,
                            const char *key) {
  const lctx_program *at = &s->cat.programs[best->program];
  for (int tries = 0; tries < 8; tries++) {
    long pick = -1;
    for (size_t i = 0; i < s->cat.count; i++) {
      const lctx_program *p = &s->cat.programs[i];
      if (strcmp(p->group, at->group) == 0 && p->size < at->size &&
          (pick < 0 || p->size > s->cat.programs[pick].size))
        pick = (long)i;
    }
    if (pick < 0)
      return;
    lctx_sweep_list l = best->list;
    if (shows(s, (size_t)pick, &l, key, best, NULL))
      at = &s->cat.programs[best->program];
    else
      at = &s->cat.programs[pick]; /* try the next smaller */
  }
}

/* A generated program made smaller (program.h's reductions, each tried
 * once per pass, at most --minimize-budget exports of candidates) while
 * it shows the key. */
static void smaller_source(lctx_sweep *s, lctx_sweep_exports *best,
                           const char *key) {
  size_t budget = s->o->minimize_budget ? s->o->minimize_budget : 120;
  lctx_program_desc *cur = malloc(sizeof *cur), *cand = malloc(sizeof *cand);
  char *a = malloc(LCTX_PROG_TEXT_MAX), *b = malloc(LCTX_PROG_TEXT_MAX);
  bool changed = true;
  for (int pass = 0; cur && cand && a && b && changed && pass < 4; pass++) {
    changed = false;
    *cur = *best->desc;
    lctx_program_print(cur, a, LCTX_PROG_TEXT_MAX);
    for (size_t k = 0; budget > 0 && lctx_program_reduce(cur, k, cand); k++) {
      if (!lctx_program_print(cand, b, LCTX_PROG_TEXT_MAX) || strcmp(a, b) == 0)
        continue;
      budget--;
      if (!shows(s, best->program, &best->list, key, best, b))
        continue;
      *cur = *best->desc;
      memcpy(a, b, LCTX_PROG_TEXT_MAX);
      changed = true;
      k--; /* the same index is now another reduction */
    }
  }
  free(cur);
  free(cand);
  free(a);
  free(b);
}

/* Asks the program for a standalone reproduction of `best` (P's export)
 * and writes it to DIR/repro.py when one comes. */
static bool write_repro(lctx_sweep *s, const lctx_sweep_exports *best,
                        const char *dir) {
  lctx_sweep_exporter *x = minimizer(s);
  bool written = false;
  if (!x || !best->source)
    return false;
  lctx_export_store st = {0};
  item it = {&best->list, &st, true};
  x->next_id = s->minimize_next_id;
  send_items(s, x, best, &it, 1);
  s->minimize_next_id = x->next_id;
  if (st.repro) {
    char path[4200];
    snprintf(path, sizeof path, "%s/repro.py", dir);
    written = lctx_sys_write_file(path, st.repro, strlen(st.repro));
    if (!written)
      lctx_sweep_record_unwritten(s, path, errno);
  }
  lctx_export_store_release(&st);
  return written;
}

void lctx_sweep_keep_finding(lctx_sweep *s, const lctx_sweep_exports *e,
                             const lctx_sweep_verdict *v) {
  s->finding_count++;
  if (s->findings_kept >= LCTX_SWEEP_FINDINGS_KEPT_MAX) {
    if (!s->findings_dropped) {
      lctx_escaped b;
      fprintf(s->err,
              "%s: %s/findings holds %d findings, the most kept: further "
              "findings are counted, not kept\n",
              lctx_sweep_who(s), lctx_esc(&b, s->o->out_dir),
              LCTX_SWEEP_FINDINGS_KEPT_MAX);
    }
    s->findings_dropped++;
    lctx_report_cap_hit(s->rep, "findings kept", LCTX_SWEEP_FINDINGS_KEPT_MAX,
                        1);
    return;
  }
  char dir[4096], why[256];
  if (!lctx_sweep_record_finding_dir(s, v->key, dir, sizeof dir))
    return;
  s->findings_kept++;
  lctx_sweep_record_save(s, e, v, dir, "case.json");
  lctx_sweep_exports best;
  lctx_sweep_exports_init(&best, e->program, &e->list);
  if (e->source)
    lctx_sweep_exports_set_source(&best, e->name, e->source, why, sizeof why);
  if (s->o->minimize) {
    /* A program with declared lists is judged on those alone. */
    if (!e->source && !s->cat.programs[e->program].list_count)
      fewer_platforms(s, &best, v->key);
    if (e->source)
      smaller_source(s, &best, v->key);
    else
      smaller_program(s, &best, v->key);
  }
  if (e->source) {
    char name[64];
    snprintf(name, sizeof name, "%.58s/min", e->name);
    snprintf(best.name, sizeof best.name, "%s", name);
  }
  /* `best` was run only when something smaller still showed the key. */
  const lctx_sweep_exports *kept = best.ran ? &best : e;
  if (e->source)
    lctx_sweep_record_draft(s, e, kept, v, dir, write_repro(s, kept, dir));
  lctx_sweep_record_save(s, kept, v, dir, "minimized.json");
  lctx_sweep_record_report(s, e, kept, v, dir);
  lctx_sweep_exports_release(&best);
}

//===----------------------------------------------------------------------===//
// Reach
//===----------------------------------------------------------------------===//

void lctx_sweep_write_reach(lctx_sweep *s) {
  size_t reached = 0;
  json_t *yes = json_array(), *no = json_array();
  for (size_t i = 0; i < s->cat.primitive_count; i++) {
    json_array_append_new(s->reached[i] ? yes : no,
                          lctx_report_json_text(s->cat.primitives[i]));
    reached += s->reached[i];
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/reach.json", s->o->out_dir);
  json_t *j = json_pack("{s:I, s:I, s:o, s:o}", "lowering_primitives",
                        (json_int_t)s->cat.primitive_count, "reached",
                        (json_int_t)reached, "reached_primitives", yes,
                        "not_reached", no);
  lctx_sweep_record_json(s, path, j, JSON_INDENT(1));
  json_decref(j);
}
