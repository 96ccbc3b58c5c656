/*
 * sweep_record.c - recorded sweep cases (see sweep_record.h).
 */
#include "sweep_record.h"

#include "program.h"

#include "dirlist.h"
#include "conform_report.h"
#include "escape.h"
#include "exit.h"
#include "sys.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define RECORD_MAX_BYTES (64u << 20)

//===----------------------------------------------------------------------===//
// Views and files
//===----------------------------------------------------------------------===//

static const lctx_export_answer *asked(const lctx_export_store *st, bool yes) {
  return yes ? &st->answer : NULL;
}

void lctx_sweep_record_view(const lctx_sweep_exports *e, const char **names,
                            const char **rnames, lctx_sweep_case *c) {
  c->count = e->list.count;
  for (size_t i = 0; i < e->list.count; i++) {
    names[i] = e->list.p[i];
    rnames[i] = e->reorder.p[i];
    c->alone[i] = asked(&e->alone[i], e->has_alone[i]);
    /* cpu alone is the ("cpu",) export when it was asked. */
    if (!c->alone[i] && e->has_cpu && strcmp(e->list.p[i], "cpu") == 0)
      c->alone[i] = &e->cpu_only.answer;
  }
  c->platforms = names;
  c->multi = &e->multi.answer;
  c->reorder = e->has_reorder ? rnames : NULL;
  c->reordered = asked(&e->reordered, e->has_reorder);
  c->cpu_only = asked(&e->cpu_only, e->has_cpu);
}

char **lctx_sweep_record_files(const char *path, size_t *n, FILE *err) {
  char message[512];
  lctx_buf b;
  lctx_buf_init(&b, message, sizeof message);
  if (!lctx_sys_is_dir(path)) {
    char **one = calloc(2, sizeof *one);
    if (one)
      one[0] = strdup(path);
    *n = one && one[0] ? 1 : 0;
    return one;
  }
  char **paths = lctx_dirlist_read(path, ".json", n, &b);
  lctx_escaped e;
  if (!paths)
    fprintf(err, "lctx sweep: %s\n", lctx_esc(&e, message));
  return paths;
}

json_t *lctx_sweep_record_load(const char *path, FILE *err) {
  json_error_t je;
  json_t *j = json_load_file(path, 0, &je);
  lctx_escaped a, b;
  if (!j)
    fprintf(err, "lctx sweep: %s:%d:%d: %s\n", lctx_esc(&a, path), je.line,
            je.column, lctx_esc(&b, je.text));
  else if (!json_is_integer(json_object_get(j, "lctx-sweep-case")) ||
           json_integer_value(json_object_get(j, "lctx-sweep-case")) != 1) {
    fprintf(err,
            "lctx sweep: %s: not a sweep case file (\"lctx-sweep-case\": 1 "
            "is missing)\n",
            lctx_esc(&a, path));
    json_decref(j);
    j = NULL;
  }
  return j;
}

bool lctx_sweep_record_keys(const char *dir, char (**keys)[LCTX_SWEEP_KEY_MAX],
                            size_t *n, FILE *err) {
  *n = 0;
  *keys = NULL;
  if (!lctx_sys_is_dir(dir))
    return true;
  size_t count = 0;
  char **paths = lctx_sweep_record_files(dir, &count, err);
  if (!paths)
    return false;
  bool ok = true;
  for (size_t f = 0; f < count && ok; f++) {
    json_t *j = lctx_sweep_record_load(paths[f], err);
    size_t i;
    json_t *v;
    ok = j != NULL;
    json_t *also = json_object_get(j, "same_defect_elsewhere");
    size_t expected = json_array_size(json_object_get(j, "expect"));
    for (i = 0; i < expected + json_array_size(also); i++) {
      v = i < expected ? json_array_get(json_object_get(j, "expect"), i)
                       : json_array_get(also, i - expected);
      const char *key = json_string_value(json_object_get(v, "key"));
      const char *verdict = json_string_value(json_object_get(v, "verdict"));
      if (!key || (i < expected && (!verdict || strcmp(verdict, "fail") != 0)))
        continue;
      void *p = realloc(*keys, (*n + 1) * sizeof **keys);
      if (!p) {
        ok = false;
        break;
      }
      *keys = p;
      snprintf((*keys)[(*n)++], LCTX_SWEEP_KEY_MAX, "%s", key);
    }
    json_decref(j);
  }
  lctx_dirlist_free(paths);
  return ok;
}

bool lctx_sweep_record_finding_dir(lctx_sweep *s, const char *key, char *dir,
                                   size_t cap) {
  char slug[72];
  size_t k = 0;
  unsigned long h = 5381;
  for (const char *c = key; *c; c++) {
    h = h * 33 + (unsigned char)*c;
    char ch = (*c >= 'A' && *c <= 'Z') ? (char)(*c - 'A' + 'a') : *c;
    bool keep = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
    if (k < 56 && (keep || (k && slug[k - 1] != '-')))
      slug[k++] = keep ? ch : '-';
  }
  snprintf(slug + k, sizeof slug - k, "-%08lx", h & 0xfffffffful);
  int w = snprintf(dir, cap, "%s/findings/%s", s->o->out_dir, slug);
  lctx_escaped b;
  if (w < 0 || (size_t)w >= cap || !lctx_sys_mkdir_p(dir)) {
    fprintf(s->err, "%s: cannot create %s\n", lctx_sweep_who(s),
            lctx_esc(&b, dir));
    s->results_failed = true;
    return false;
  }
  return true;
}

static json_t *list_json(const lctx_sweep_list *l) {
  json_t *a = json_array();
  for (size_t i = 0; i < l->count; i++)
    json_array_append_new(a, json_string(l->p[i]));
  return a;
}

static json_t *answer_json(const lctx_export_store *st, bool yes) {
  return yes ? lctx_export_store_json(st) : json_null();
}

/* Case `e` as a case file's JSON, expecting `v`. */
static json_t *record_json(const lctx_sweep *s, const lctx_sweep_exports *e,
                           const lctx_sweep_verdict *v) {
  json_t *alone = json_array();
  for (size_t i = 0; i < e->list.count; i++)
    json_array_append_new(alone, answer_json(&e->alone[i], e->has_alone[i]));
  json_t *answers = json_pack(
      "{s:o, s:o, s:o, s:o}", "multi", answer_json(&e->multi, true),
      "reordered", answer_json(&e->reordered, e->has_reorder), "cpu_only",
      answer_json(&e->cpu_only, e->has_cpu), "alone", alone);
  json_t *expect = json_array();
  json_array_append_new(expect,
                        json_pack("{s:s, s:s, s:o}", "row",
                                  s->spec->rows[v->row].id, "verdict", "fail",
                                  "key", lctx_conform_json_text(v->key)));
  json_t *j = json_pack(
      "{s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:s, s:o}", "lctx-sweep-case", 1,
      "program", lctx_conform_json_text(lctx_sweep_program_name(s, e)), "group",
      lctx_conform_json_text(lctx_sweep_program_group(s, e)), "platforms",
      list_json(&e->list), "reorder",
      e->has_reorder ? list_json(&e->reorder) : json_null(), "answers", answers,
      "expect", expect, "jax",
      s->cat.jax_version[0] ? s->cat.jax_version : "unknown", "detail",
      lctx_conform_json_text(v->detail));
  if (j && e->source) {
    json_object_set_new(j, "source", json_string(e->source));
    json_object_set_new(j, "size",
                        json_integer((json_int_t)lctx_program_size(e->desc)));
  }
  return j;
}

void lctx_sweep_record_save(lctx_sweep *s, const lctx_sweep_exports *e,
                            const lctx_sweep_verdict *v, const char *dir,
                            const char *name) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  json_t *j = record_json(s, e, v);
  char *text = j ? json_dumps(j, JSON_INDENT(1) | JSON_SORT_KEYS) : NULL;
  json_decref(j);
  if (!text || !lctx_sys_write_file(path, text, strlen(text))) {
    lctx_escaped b;
    fprintf(s->err, "%s: %s: cannot write\n", lctx_sweep_who(s),
            lctx_esc(&b, path));
    s->results_failed = true;
  }
  free(text);
}

static void list_text(char *dst, size_t n, const lctx_sweep_list *l) {
  const char *names[LCTX_EXPORT_MAX_PLATFORMS];
  for (size_t i = 0; i < l->count; i++)
    names[i] = l->p[i];
  lctx_sweep_list_text(dst, n, names, l->count);
}

void lctx_sweep_record_report(lctx_sweep *s, const lctx_sweep_exports *e,
                              const lctx_sweep_exports *best,
                              const lctx_sweep_verdict *v, const char *dir) {
  char path[4200], la[256], lb[256];
  snprintf(path, sizeof path, "%s/report.txt", dir);
  FILE *f = fopen(path, "w");
  if (!f) {
    s->results_failed = true;
    return;
  }
  list_text(la, sizeof la, &e->list);
  list_text(lb, sizeof lb, &best->list);
  fprintf(f,
          "finding: %s\nrow: %s\ndetail: %s\nfound: %s for %s\n"
          "minimized: %s for %s\njax: %s (jaxlib %s)\n\n"
          "reproduce (exports the minimized case again and judges it):\n"
          "  lctx sweep --cmd '%s' --replay %s/minimized.json\n"
          "keep it as a known defect (make test replays it):\n"
          "  cp %s/minimized.json conformance/sweep/regressions/NAME.json\n",
          v->key, s->spec->rows[v->row].id, v->detail,
          lctx_sweep_program_name(s, e), la, lctx_sweep_program_name(s, best),
          lb, s->cat.jax_version, s->cat.jaxlib_version, s->o->command, dir,
          dir);
  if (best->source)
    fprintf(f,
            "\nthe minimized program (%zu nodes; found with %zu; "
            "conformance/sweep/PROGRAMS.md):\n%s\n"
            "a standalone reproduction (JAX only), when the program wrote "
            "one:\n  JAX_PLATFORMS=cpu python %s/repro.py\n"
            "its status in every installed JAX release:\n"
            "  python3 tools/finding_status.py %s\n",
            lctx_program_size(best->desc), lctx_program_size(e->desc),
            best->source, dir, dir);
  if (fclose(f) != 0)
    s->results_failed = true;
}

void lctx_sweep_record_draft(lctx_sweep *s, const lctx_sweep_exports *e,
                             const lctx_sweep_exports *best,
                             const lctx_sweep_verdict *v, const char *dir,
                             bool has_repro) {
  char path[4200], lb[256];
  snprintf(path, sizeof path, "%s/report.md", dir);
  FILE *f = fopen(path, "w");
  if (!f) {
    s->results_failed = true;
    return;
  }
  list_text(lb, sizeof lb, &best->list);
  /* What the minimized case showed, when it was run. */
  const char *detail = v->detail;
  for (size_t i = 0; i < best->fail_count; i++)
    if (strcmp(best->fails[i].key, v->key) == 0)
      detail = best->fails[i].detail;
  fprintf(f,
          "# Multi-platform lowering: %s\n\n"
          "*Draft upstream report for `jax-ml/jax`, written by `lctx "
          "generate` from a generated program (spec row %s); read it, and "
          "edit it, before filing.*\n\n"
          "## Status per JAX release\n\n",
          v->key, s->spec->rows[v->row].id);
  if (has_repro)
    fprintf(f,
            "`python3 tools/defect_status.py --write %s/report.md` runs the "
            "reproduction under every installed JAX release and writes the "
            "table here (present in A..B, fixed in C).\n\n"
            "<!-- lctx-defect: repro=repro.py -->\n\n",
            dir);
  else
    fprintf(f, "The exporter wrote no standalone reproduction: replay the "
               "case instead (below).\n\n");
  fprintf(f,
          "## What happens\n\n"
          "With JAX %s (jaxlib %s), `jax.export.export(jax.jit(main), "
          "platforms=%s)` of the program below: %s\n\n",
          s->cat.jax_version, s->cat.jaxlib_version, lb, detail);
  if (has_repro)
    fprintf(f, "## Reproduction (JAX only)\n\n"
               "`JAX_PLATFORMS=cpu python repro.py` (beside this report) "
               "rebuilds the program with JAX alone and says DEFECT "
               "REPRODUCED or NO DEFECT.\n\n");
  fprintf(f,
          "## The program\n\n"
          "In lctx's program format (conformance/sweep/PROGRAMS.md), %zu "
          "nodes, minimized from %zu (%s):\n\n```\n%s```\n\n"
          "Replay it through lctx: `lctx sweep --cmd '%s' --replay "
          "%s/minimized.json`.\n",
          lctx_program_size(best->desc), lctx_program_size(e->desc),
          lctx_sweep_program_name(s, e), best->source, s->o->command, dir);
  if (fclose(f) != 0)
    s->results_failed = true;
}
