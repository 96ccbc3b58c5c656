/*
 * sweep_record.c - recorded sweep cases (see sweep_record.h).
 */
#include "sweep_record.h"

#include "program.h"

#include "dirlist.h"
#include "report_write.h"
#include "escape.h"
#include "file.h"
#include "exit.h"
#include "rerun_cmd.h"
#include "sys.h"

#include <errno.h>
#include <sys/stat.h>
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

/* A case file's text parsed, or NULL said on `err`: at most `max` bytes
 * of a regular file (never blocking on a FIFO). */
static json_t *load_capped(const char *path, size_t max, FILE *err) {
  char message[4200], *text;
  size_t n;
  lctx_buf b;
  lctx_buf_init(&b, message, sizeof message);
  lctx_escaped a, e;
  if (!lctx_file_read(path, max, &text, &n, &b)) {
    fprintf(err, "lctx sweep: %s\n", lctx_esc(&a, message));
    return NULL;
  }
  json_error_t je;
  json_t *j = json_loadb(text, n, 0, &je);
  free(text);
  if (!j)
    fprintf(err, "lctx sweep: %s:%d:%d: %s\n", lctx_esc(&a, path), je.line,
            je.column, lctx_esc(&e, je.text));
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

json_t *lctx_sweep_record_load(const char *path, FILE *err) {
  return load_capped(path, RECORD_MAX_BYTES, err);
}

/* What known case file `j` at `path` says of its defect. */
static void defect_of(const char *path, json_t *j, lctx_sweep_known_defect *d) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t len = strlen(base);
  if (len > 5 && strcmp(base + len - 5, ".json") == 0)
    len -= 5;
  snprintf(d->name, sizeof d->name, "%.*s", (int)len, base);
  const char *fixed = json_string_value(json_object_get(j, "fixed_in"));
  snprintf(d->fixed_in, sizeof d->fixed_in, "%s", fixed ? fixed : "");
  const char *note = json_string_value(json_object_get(j, "note"));
  const char *doc = note ? strstr(note, "docs/upstream-") : NULL;
  const char *end = doc ? strstr(doc, ".md") : NULL;
  d->doc[0] = '\0';
  if (end && end - doc < (long)sizeof d->doc - 4)
    snprintf(d->doc, sizeof d->doc, "%.*s", (int)(end - doc + 3), doc);
}

/* The keys of one known case file `j` (at `path`) appended to `*keys`,
 * what it says of its defect to `*defects`; false when out of memory or
 * over LCTX_SWEEP_KNOWN_KEYS_MAX (counted in `*over`). */
static bool add_keys(const char *path, json_t *j,
                     char (**keys)[LCTX_SWEEP_KEY_MAX],
                     lctx_sweep_known_defect **defects, size_t *n,
                     size_t *over) {
  lctx_sweep_known_defect defect;
  defect_of(path, j, &defect);
  json_t *also = json_object_get(j, "same_defect_elsewhere");
  size_t expected = json_array_size(json_object_get(j, "expect"));
  for (size_t i = 0; i < expected + json_array_size(also); i++) {
    json_t *v = i < expected ? json_array_get(json_object_get(j, "expect"), i)
                             : json_array_get(also, i - expected);
    const char *key = json_string_value(json_object_get(v, "key"));
    const char *verdict = json_string_value(json_object_get(v, "verdict"));
    if (!key || (i < expected && (!verdict || strcmp(verdict, "fail") != 0)))
      continue;
    if (*n >= LCTX_SWEEP_KNOWN_KEYS_MAX) {
      ++*over;
      continue;
    }
    void *p = realloc(*keys, (*n + 1) * sizeof **keys);
    if (!p)
      return false;
    *keys = p;
    p = realloc(*defects, (*n + 1) * sizeof **defects);
    if (!p)
      return false;
    *defects = p;
    (*defects)[*n] = defect;
    snprintf((*keys)[(*n)++], LCTX_SWEEP_KEY_MAX, "%s", key);
  }
  return true;
}

bool lctx_sweep_record_keys(const char *dir, const char *missing_ok,
                            char (**keys)[LCTX_SWEEP_KEY_MAX],
                            lctx_sweep_known_defect **defects, size_t *n,
                            lctx_report *rep, FILE *err) {
  *n = 0;
  *keys = NULL;
  *defects = NULL;
  struct stat st;
  lctx_escaped b;
  if (stat(dir, &st) != 0) {
    if (errno == ENOENT && missing_ok && strcmp(dir, missing_ok) == 0)
      return true; /* the default folder, not there: no known defects */
    fprintf(err, "lctx sweep: --known %s: %s\n", lctx_esc(&b, dir),
            strerror(errno));
    return false;
  }
  if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
    fprintf(err,
            "lctx sweep: --known %s: neither a folder of sweep case files "
            "nor one such file (%s)\n",
            lctx_esc(&b, dir), lctx_sys_file_error(ESPIPE));
    return false;
  }
  size_t count = 0;
  char **paths = lctx_sweep_record_files(dir, &count, err);
  if (!paths)
    return false;
  bool ok = true;
  size_t total = 0, over = 0;
  for (size_t f = 0; f < count && ok; f++) {
    struct stat fs;
    if (stat(paths[f], &fs) == 0 && S_ISREG(fs.st_mode) &&
        (size_t)fs.st_size > LCTX_SWEEP_KNOWN_TOTAL_MAX - total) {
      fprintf(err,
              "lctx sweep: --known %s: its case files are over %zu MiB in "
              "all, the most read (at %s)\n",
              lctx_esc(&b, dir), (size_t)LCTX_SWEEP_KNOWN_TOTAL_MAX >> 20,
              lctx_esc(&b, paths[f]));
      ok = false;
      break;
    }
    json_t *j = load_capped(paths[f], LCTX_SWEEP_KNOWN_FILE_MAX, err);
    total += S_ISREG(fs.st_mode) ? (size_t)fs.st_size : 0;
    ok = j != NULL && add_keys(paths[f], j, keys, defects, n, &over);
    json_decref(j);
  }
  lctx_dirlist_free(paths);
  if (ok && over) {
    fprintf(err,
            "lctx sweep: --known %s: more than %d known keys: %zu left out "
            "(a finding of theirs counts as new)\n",
            lctx_esc(&b, dir), LCTX_SWEEP_KNOWN_KEYS_MAX, over);
    lctx_report_cap_hit(rep, "known keys", LCTX_SWEEP_KNOWN_KEYS_MAX, over);
  }
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
  int w = snprintf(dir, cap, "%s/findings", s->o->out_dir);
  /* OUT/findings, then its folder: each a folder of its own, never a
   * link out of OUT. */
  bool made = w >= 0 && (size_t)w < cap && lctx_sys_mkdir_in(dir);
  if (made) {
    w = snprintf(dir, cap, "%s/findings/%s", s->o->out_dir, slug);
    made = w >= 0 && (size_t)w < cap && lctx_sys_mkdir_in(dir);
  }
  lctx_escaped b;
  if (!made) {
    fprintf(s->err, "%s: cannot create %s: %s\n", lctx_sweep_who(s),
            lctx_esc(&b, dir),
            w < 0 || (size_t)w >= cap ? strerror(ENAMETOOLONG)
                                      : lctx_sys_file_error(errno));
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
                                  "key", lctx_report_json_text(v->key)));
  json_t *j = json_pack(
      "{s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:s, s:o}", "lctx-sweep-case", 1,
      "program", lctx_report_json_text(lctx_sweep_program_name(s, e)), "group",
      lctx_report_json_text(lctx_sweep_program_group(s, e)), "platforms",
      list_json(&e->list), "reorder",
      e->has_reorder ? list_json(&e->reorder) : json_null(), "answers", answers,
      "expect", expect, "jax",
      s->cat.jax_version[0] ? s->cat.jax_version : "unknown", "detail",
      lctx_report_json_text(v->detail));
  if (j && e->source) {
    json_object_set_new(j, "source", json_string(e->source));
    json_object_set_new(j, "size",
                        json_integer((json_int_t)lctx_program_size(e->desc)));
  }
  return j;
}

void lctx_sweep_record_unwritten(lctx_sweep *s, const char *path, int error) {
  lctx_escaped b;
  fprintf(s->err, "%s: %s: cannot write: %s\n", lctx_sweep_who(s),
          lctx_esc(&b, path), lctx_sys_file_error(error));
  s->results_failed = true;
}

void lctx_sweep_record_json(lctx_sweep *s, const char *path, const json_t *j,
                            size_t flags) {
  char *text = j ? json_dumps(j, flags) : NULL;
  if (!text || !lctx_sys_write_file(path, text, strlen(text)))
    lctx_sweep_record_unwritten(s, path, text ? errno : ENOMEM);
  free(text);
}

void lctx_sweep_record_save(lctx_sweep *s, const lctx_sweep_exports *e,
                            const lctx_sweep_verdict *v, const char *dir,
                            const char *name) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  json_t *j = record_json(s, e, v);
  lctx_sweep_record_json(s, path, j, JSON_INDENT(1) | JSON_SORT_KEYS);
  json_decref(j);
}

static void list_text(char *dst, size_t n, const lctx_sweep_list *l) {
  const char *names[LCTX_EXPORT_MAX_PLATFORMS];
  for (size_t i = 0; i < l->count; i++)
    names[i] = l->p[i];
  lctx_sweep_list_text(dst, n, names, l->count);
}

/* A shell command line into `buf` (`n` bytes): `head` (lctx's own words)
 * then each of `words` (NULL-terminated) as one shell word, quoted as a
 * rerun line quotes it; "" when it does not fit. */
static const char *shell_line(char *buf, size_t n, const char *head,
                              const char *const *words) {
  snprintf(buf, n, "%s", head);
  if (strncmp(head, "lctx sweep", 10) == 0) {
    /* From any folder, in an empty environment (rerun_cmd.h). */
    char program[4096];
    lctx_rerun_program(program, sizeof program);
    if (!lctx_rerun_start(buf, n, program, "sweep") ||
        strlen(buf) + strlen(head + 10) >= n) {
      buf[0] = '\0';
      return buf;
    }
    strcat(buf, head + 10);
  }
  for (const char *const *w = words; *w; w++) {
    if ((*w)[0] == ' ') { /* lctx's own word, as it is */
      size_t at = strlen(buf);
      snprintf(buf + at, n - at, "%s", *w);
    } else if (!lctx_rerun_shell_word(buf, n, *w)) {
      buf[0] = '\0';
      break;
    }
  }
  return buf;
}

/* DIR/NAME into `buf`. */
static const char *in_dir(char *buf, size_t n, const char *dir,
                          const char *name) {
  snprintf(buf, n, "%s/%s", dir, name);
  return buf;
}

/* A finding's file opened for writing (no link followed); NULL, said, when
 * it cannot be. */
static FILE *open_finding_file(lctx_sweep *s, const char *path) {
  FILE *f = lctx_sys_fopen_in(path, "w");
  if (!f)
    lctx_sweep_record_unwritten(s, path, errno);
  return f;
}

/* Closes a finding's file; a failure is said. */
static void close_finding_file(lctx_sweep *s, FILE *f, const char *path) {
  bool ok = !ferror(f);
  if (fclose(f) != 0 || !ok)
    lctx_sweep_record_unwritten(s, path, errno ? errno : EIO);
}

void lctx_sweep_record_report(lctx_sweep *s, const lctx_sweep_exports *e,
                              const lctx_sweep_exports *best,
                              const lctx_sweep_verdict *v, const char *dir) {
  char path[4200], la[256], lb[256];
  snprintf(path, sizeof path, "%s/report.txt", dir);
  FILE *f = open_finding_file(s, path);
  if (!f)
    return;
  list_text(la, sizeof la, &e->list);
  list_text(lb, sizeof lb, &best->list);
  /* Every text from outside lctx (the program's key, detail, names and
   * versions, the command, the folder) escaped as a terminal shows it;
   * the commands quoted word by word. */
  lctx_escaped k, d, p1, l1, p2, l2, jv, jl, c1, c2;
  char file[4300], line[8192];
  const char *replay[] = {s->o->command, " --replay",
                          in_dir(file, sizeof file, dir, "minimized.json"),
                          NULL};
  const char *keep[] = {file, " conformance/sweep/regressions/NAME.json", NULL};
  fprintf(
      f,
      "finding: %s\nrow: %s\ndetail: %s\nfound: %s for %s\n"
      "minimized: %s for %s\njax: %s (jaxlib %s)\n\n"
      "reproduce (exports the minimized case again and judges it):\n"
      "  %s\n",
      lctx_esc(&k, v->key), s->spec->rows[v->row].id, lctx_esc(&d, v->detail),
      lctx_esc(&p1, lctx_sweep_program_name(s, e)), lctx_esc(&l1, la),
      lctx_esc(&p2, lctx_sweep_program_name(s, best)), lctx_esc(&l2, lb),
      lctx_esc(&jv, s->cat.jax_version), lctx_esc(&jl, s->cat.jaxlib_version),
      lctx_esc(&c1, shell_line(line, sizeof line, "lctx sweep --cmd", replay)));
  fprintf(f,
          "keep it as a known defect (make test replays it):\n"
          "  %s\n",
          lctx_esc(&c2, shell_line(line, sizeof line, "cp", keep)));
  if (best->source) {
    const char *repro[] = {in_dir(file, sizeof file, dir, "repro.py"), NULL};
    const char *status[] = {dir, NULL};
    fprintf(f,
            "\nthe minimized program (%zu nodes; found with %zu; "
            "conformance/sweep/PROGRAMS.md):\n",
            lctx_program_size(best->desc), lctx_program_size(e->desc));
    lctx_escape_lines(f, "", best->source);
    fprintf(f,
            "\na standalone reproduction (JAX only), when the program wrote "
            "one:\n  %s\n",
            lctx_esc(&c1, shell_line(line, sizeof line,
                                     "JAX_PLATFORMS=cpu python", repro)));
    fprintf(
        f, "its status in every installed JAX release:\n  %s\n",
        lctx_esc(&c2, shell_line(line, sizeof line,
                                 "python3 tools/finding_status.py", status)));
  }
  close_finding_file(s, f, path);
}

void lctx_sweep_record_draft(lctx_sweep *s, const lctx_sweep_exports *e,
                             const lctx_sweep_exports *best,
                             const lctx_sweep_verdict *v, const char *dir,
                             bool has_repro) {
  char path[4200], lb[256];
  snprintf(path, sizeof path, "%s/report.md", dir);
  FILE *f = open_finding_file(s, path);
  if (!f)
    return;
  list_text(lb, sizeof lb, &best->list);
  /* What the minimized case showed, when it was run. */
  const char *detail = v->detail;
  for (size_t i = 0; i < best->fail_count; i++)
    if (strcmp(best->fails[i].key, v->key) == 0)
      detail = best->fails[i].detail;
  lctx_escaped k, jv, jl, l, d, name, c;
  char file[4300], line[8192];
  fprintf(f,
          "# Multi-platform lowering: %s\n\n"
          "*Draft upstream report for `jax-ml/jax`, written by `lctx "
          "generate` from a generated program (spec row %s); read it, and "
          "edit it, before filing.*\n\n"
          "## Status per JAX release\n\n",
          lctx_esc(&k, v->key), s->spec->rows[v->row].id);
  if (has_repro) {
    const char *write[] = {in_dir(file, sizeof file, dir, "report.md"), NULL};
    fprintf(f,
            "`%s` runs the "
            "reproduction under every installed JAX release and writes the "
            "table here (present in A..B, fixed in C).\n\n"
            "<!-- lctx-defect: repro=repro.py -->\n\n",
            lctx_esc(&c, shell_line(line, sizeof line,
                                    "python3 tools/defect_status.py --write",
                                    write)));
  } else {
    fprintf(f, "The exporter wrote no standalone reproduction: replay the "
               "case instead (below).\n\n");
  }
  fprintf(f,
          "## What happens\n\n"
          "With JAX %s (jaxlib %s), `jax.export.export(jax.jit(main), "
          "platforms=%s)` of the program below: %s\n\n",
          lctx_esc(&jv, s->cat.jax_version),
          lctx_esc(&jl, s->cat.jaxlib_version), lctx_esc(&l, lb),
          lctx_esc(&d, detail));
  if (has_repro)
    fprintf(f, "## Reproduction (JAX only)\n\n"
               "`JAX_PLATFORMS=cpu python repro.py` (beside this report) "
               "rebuilds the program with JAX alone and says DEFECT "
               "REPRODUCED or NO DEFECT.\n\n");
  fprintf(f,
          "## The program\n\n"
          "In lctx's program format (conformance/sweep/PROGRAMS.md), %zu "
          "nodes, minimized from %zu (%s):\n\n```\n",
          lctx_program_size(best->desc), lctx_program_size(e->desc),
          lctx_esc(&name, lctx_sweep_program_name(s, e)));
  lctx_escape_lines(f, "", best->source ? best->source : "");
  const char *replay[] = {s->o->command, " --replay",
                          in_dir(file, sizeof file, dir, "minimized.json"),
                          NULL};
  fprintf(
      f, "```\n\nReplay it through lctx: `%s`.\n",
      lctx_esc(&c, shell_line(line, sizeof line, "lctx sweep --cmd", replay)));
  close_finding_file(s, f, path);
}
