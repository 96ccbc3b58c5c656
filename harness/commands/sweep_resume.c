/*
 * sweep_resume.c - results.jsonl across runs: its stamp and identity, its
 * seal, resuming, --restart and the end check (see sweep_resume.h).
 */
#define _DEFAULT_SOURCE /* realpath */
#include "sweep_resume.h"

#include "report_write.h"
#include "escape.h"
#include "lctx/lctx.h"
#include "program.h"
#include "seal.h"
#include "sweep_case.h"
#include "sweep_diagnose.h"
#include "sweep_summary.h"
#include "sys.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PATH_CAP 4200

/* OUT/NAME into `dst`. */
static void out_path(const lctx_sweep *s, const char *name, char *dst,
                     size_t n) {
  snprintf(dst, n, "%s/%s", s->o->out_dir, name);
}

//===----------------------------------------------------------------------===//
// The stamp: the plan and the identity of the run
//===----------------------------------------------------------------------===//

static int by_key(const void *a, const void *b) {
  return strcmp((const char *)a, (const char *)b);
}

/* The SHA-256 of the known defects' keys, sorted (what of --known decides
 * a verdict). */
static json_t *known_hash(const lctx_sweep *s) {
  char(*keys)[LCTX_SWEEP_KEY_MAX] =
      calloc(s->known_count + 1, LCTX_SWEEP_KEY_MAX);
  if (!keys)
    return json_null();
  if (s->known_count)
    memcpy(keys, s->known, s->known_count * sizeof *keys);
  qsort(keys, s->known_count, sizeof *keys, by_key);
  lctx_sha256 c;
  lctx_sha256_init(&c);
  for (size_t i = 0; i < s->known_count; i++) {
    lctx_sha256_update(&c, keys[i], strlen(keys[i]));
    lctx_sha256_update(&c, "\n", 1);
  }
  free(keys);
  uint8_t d[LCTX_SHA256_SIZE];
  char hex[LCTX_SHA256_HEX];
  lctx_sha256_final(&c, d);
  lctx_sha256_hex(d, sizeof d, hex);
  return json_string(hex);
}

/* Whether `path` is inside folder `dir` (both resolved). */
static bool inside(const char *path, const char *dir) {
  char *p = realpath(path, NULL), *d = realpath(dir, NULL);
  size_t n = d ? strlen(d) : 0;
  bool in = p && d && strncmp(p, d, n) == 0 && p[n] == '/';
  free(p);
  free(d);
  return in;
}

/* The words of the command that name a regular file (the program, a
 * script), each with the SHA-256 of its content; files of the out folder
 * (which the run itself changes) left out. */
static json_t *program_files(const char *command, const char *out_dir) {
  json_t *files = json_object();
  char storage[8192], *argv[128], e[256];
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  int argc = lctx_split_command(command, storage, sizeof storage, argv,
                                (int)(sizeof argv / sizeof argv[0]), &eb);
  for (int i = 0; i < argc; i++) {
    char hex[LCTX_SHA256_HEX];
    if (lctx_sys_is_file(argv[i]) && !inside(argv[i], out_dir) &&
        lctx_seal_file_sha256(argv[i], hex))
      json_object_set_new(files, argv[i], json_string(hex));
  }
  return files;
}

/* `lctx generate --from DIR`: the SHA-256 of its files' names and
 * contents, in name order (the programs drawn from them); NULL otherwise. */
static json_t *from_hash(const lctx_sweep *s) {
  if (!s->o->gen_from)
    return json_null();
  lctx_sha256 c;
  lctx_sha256_init(&c);
  for (size_t i = 0; i < s->gen_file_count; i++) {
    char hex[LCTX_SHA256_HEX] = "unreadable";
    lctx_seal_file_sha256(s->gen_files[i], hex);
    lctx_sha256_update(&c, s->gen_files[i], strlen(s->gen_files[i]) + 1);
    lctx_sha256_update(&c, hex, strlen(hex) + 1);
  }
  uint8_t d[LCTX_SHA256_SIZE];
  char hex[LCTX_SHA256_HEX];
  lctx_sha256_final(&c, d);
  lctx_sha256_hex(d, sizeof d, hex);
  return json_string(hex);
}

/* Who runs: lctx, the command as given, its files' content, what the
 * exporter says of itself, the sweep table and the known defects. */
static json_t *identity(const lctx_sweep *s) {
  const char *hello = s->x[0].impl ? lctx_impl_handshake(s->x[0].impl) : NULL;
  uint8_t d[LCTX_SHA256_SIZE];
  char hello_hex[LCTX_SHA256_HEX], spec_hex[LCTX_SHA256_HEX];
  lctx_sha256_of(hello ? hello : "", hello ? strlen(hello) : 0, d);
  lctx_sha256_hex(d, sizeof d, hello_hex);
  json_t *spec = lctx_seal_file_sha256(s->o->spec_path, spec_hex)
                     ? json_string(spec_hex)
                     : json_null();
  json_t *j = json_object();
  json_object_set_new(j, "lctx_version", json_string(LCTX_VERSION_STRING));
  json_object_set_new(j, "command", lctx_report_json_text(s->o->command));
  json_object_set_new(j, "program_files",
                      program_files(s->o->command, s->o->out_dir));
  json_object_set_new(j, "hello",
                      json_pack("{s:o, s:o, s:s}", "name",
                                lctx_report_json_text(s->cat.name), "version",
                                lctx_report_json_text(s->cat.version), "sha256",
                                hello_hex));
  json_object_set_new(j, "spec_sha256", spec);
  json_object_set_new(j, "known_sha256", known_hash(s));
  json_object_set_new(j, "from_sha256", from_hash(s));
  return j;
}

/* The stamp line: what a resumed run must share with the file. */
static json_t *stamp(const lctx_sweep *s) {
  const lctx_sweep_options *o = s->o;
  json_t *j =
      json_pack("{s:s, s:s, s:{s:I, s:I, s:s, s:s?, s:s?, s:I, s:I, s:I, s:I}}",
                "implementation", s->cat.name, "implementation_version",
                s->cat.version, "sweep", "seed", (json_int_t)o->seed, "lists",
                (json_int_t)o->lists, "subset", o->subset, "group", o->group,
                "kind", o->kind, "limit", (json_int_t)o->limit, "programs",
                (json_int_t)s->selected_count, "shard_index",
                (json_int_t)o->shard_i, "shard_count", (json_int_t)o->shard_n);
  /* Programs that declare their platform lists make a plan of other
   * than programs times lists cases: said, for `lctx report merge`. */
  if (s->plan_total != s->selected_count * o->lists)
    json_object_set_new(json_object_get(j, "sweep"), "cases",
                        json_integer((json_int_t)s->plan_total));
  json_object_set_new(j, "identity", identity(s));
  return j;
}

/* What differs between the identities `was` and `now`, one "NAME: was X,
 * now Y" each (escaped, long values cut), into `dst`. */
static void identity_diff(const json_t *was, const json_t *now, char *dst,
                          size_t n) {
  static const char *const PARTS[][2] = {
      {"lctx_version", "lctx's version"},
      {"command", "the command (--cmd)"},
      {"program_files", "the program files it names (content SHA-256)"},
      {"hello", "the exporter's hello (name, version, SHA-256)"},
      {"spec_sha256", "the sweep table (--spec, content SHA-256)"},
      {"known_sha256", "the known defects (--known, SHA-256 of their keys)"},
      {"from_sha256", "the files programs are drawn from (--from, SHA-256)"}};
  size_t at = 0;
  dst[0] = '\0';
  if (!json_is_object(was)) {
    snprintf(dst, n, "it holds no identity (written by another lctx)");
    return;
  }
  for (size_t i = 0; i < sizeof PARTS / sizeof PARTS[0] && at + 1 < n; i++) {
    const json_t *a = json_object_get(was, PARTS[i][0]);
    const json_t *b = json_object_get(now, PARTS[i][0]);
    if (json_equal(a, b))
      continue;
    char *ta = a ? json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    char *tb = b ? json_dumps(b, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    lctx_escaped ea, eb;
    int w =
        snprintf(dst + at, n - at, "%s%s: was %.600s, now %.600s",
                 at ? "; " : "", PARTS[i][1], lctx_esc(&ea, ta ? ta : "(none)"),
                 lctx_esc(&eb, tb ? tb : "(none)"));
    free(ta);
    free(tb);
    if (w < 0)
      break;
    at += (size_t)w < n - at ? (size_t)w : n - at - 1;
  }
}

//===----------------------------------------------------------------------===//
// Reading an earlier run
//===----------------------------------------------------------------------===//

static void mark_done(lctx_sweep *s, size_t index) {
  if (index < s->done_cap)
    s->done[index] = true;
}

/* Counts the verdicts of an earlier line `j` again. */
static void take_line(lctx_sweep *s, json_t *j) {
  size_t i;
  json_t *v;
  mark_done(s, (size_t)json_integer_value(json_object_get(j, "case")));
  s->resumed++;
  s->rep->cases_run++;
  json_array_foreach(json_object_get(j, "verdicts"), i, v) {
    const lctx_spec_row *row =
        lctx_spec_find(s->spec, json_string_value(json_object_get(v, "row")));
    const char *name = json_string_value(json_object_get(v, "verdict"));
    const char *key = json_string_value(json_object_get(v, "key"));
    for (int k = 0; row && name && k < LCTX_VERDICT_COUNT; k++) {
      if (strcmp(name, lctx_verdict_name(k)) == 0)
        lctx_sweep_count(
            s, (size_t)(row - s->spec->rows), k,
            json_string_value(json_object_get(v, "detail")), NULL,
            (lctx_report_at){
                true, 0, (size_t)json_integer_value(json_object_get(j, "case")),
                i});
    }
    if (key && key[0] && name &&
        (!strcmp(name, "fail") || !strcmp(name, "xfail")))
      lctx_sweep_note_finding(
          s, (size_t)json_integer_value(json_object_get(j, "case")), key,
          !strcmp(name, "xfail"));
    if (key && key[0] && lctx_sweep_new_key(s, key) && name &&
        strcmp(name, "fail") == 0)
      s->finding_count++;
  }
  json_array_foreach(json_object_get(j, "primitives"), i, v) {
    if (json_is_string(v))
      lctx_sweep_reach(s, json_string_value(v));
  }
  lctx_sweep_diagnoses_resume(
      s, (size_t)json_integer_value(json_object_get(j, "case")),
      json_object_get(j, "diagnoses"));
  /* A generated program's coverage: drawn again (a pure function of the
   * seed and its index, or of its file). */
  if (s->o->generate && s->ops) {
    lctx_sweep_exports e;
    lctx_sweep_list none = {0, {{0}}};
    char why[256];
    size_t index = (size_t)json_integer_value(json_object_get(j, "case"));
    lctx_sweep_exports_init(&e, index / s->o->lists, &none);
    if (lctx_sweep_draw_program(s, e.program, &e, why, sizeof why))
      lctx_program_features(e.desc, s->features, s->ops);
    lctx_sweep_exports_release(&e);
  }
}

/* The sealed lines of an earlier run, taken once verified. */
typedef struct earlier {
  lctx_sweep *s;
  json_t *keep;
  size_t k;
} earlier;

static void each_line(void *ctx, const char *line) {
  earlier *e = ctx;
  if (e->k++ == 0)
    return; /* the stamp, read already */
  json_t *j = json_loads(line, 0, NULL);
  if (json_is_integer(json_object_get(j, "case")) &&
      json_is_array(json_object_get(j, "verdicts"))) {
    take_line(e->s, j);
    json_array_append(e->keep, j);
  }
  json_decref(j);
}

/* Says that the earlier results cannot be taken: `what`, and how to go
 * on. */
static bool refuse(const lctx_sweep *s, const char *what) {
  lctx_escaped b;
  fprintf(s->err,
          "%s: %s; give another --out, or --restart to start again in %s "
          "(its earlier results are removed)\n",
          lctx_sweep_who(s), what, lctx_esc(&b, s->o->out_dir));
  return false;
}

/* Whether stamp `old` (of the file at `path`) is of this plan and
 * identity (`want`), said when not. */
static bool same_run(const lctx_sweep *s, const char *path, json_t *old,
                     json_t *want) {
  char what[8192], diff[6144];
  lctx_escaped b;
  if (!json_equal(json_object_get(old, "sweep"),
                  json_object_get(want, "sweep"))) {
    snprintf(what, sizeof what,
             "%s is of another plan (seed, lists, subset, filters, shard or "
             "catalogue size differ)",
             lctx_esc(&b, path));
    return refuse(s, what);
  }
  identity_diff(json_object_get(old, "identity"),
                json_object_get(want, "identity"), diff, sizeof diff);
  if (!diff[0])
    return true;
  snprintf(what, sizeof what, "%s is of another implementation or setting: %s",
           lctx_esc(&b, path), diff);
  return refuse(s, what);
}

/* The verified lines of `f` (results.jsonl at `path`, its stamp `old`)
 * taken again; false, said, when they cannot be verified or were
 * altered. `*old_id`: the run id the file names. */
static bool take_sealed(lctx_sweep *s, FILE *f, const char *path, json_t *old,
                        json_t *keep, char old_id[LCTX_SEAL_ID_SIZE]) {
  char seal[PATH_CAP], why[1024], what[2048];
  uint8_t key[LCTX_SEAL_KEY_SIZE];
  lctx_escaped b, w;
  const char *id = json_string_value(json_object_get(old, "run_id"));
  out_path(s, "results.seal", seal, sizeof seal);
  if (!lctx_seal_is_id(id)) {
    snprintf(what, sizeof what,
             "the results of %s cannot be verified: its stamp names no run "
             "id (not written by this lctx)",
             lctx_esc(&b, s->o->out_dir));
    return refuse(s, what);
  }
  snprintf(old_id, LCTX_SEAL_ID_SIZE, "%s", id);
  if (!lctx_seal_load_key(id, key, why, sizeof why)) {
    snprintf(what, sizeof what,
             "the results of %s cannot be verified: %s (the key store holds "
             "the key of each run, outside its folder)",
             lctx_esc(&b, s->o->out_dir), lctx_esc(&w, why));
    return refuse(s, what);
  }
  rewind(f);
  earlier e = {s, keep, 0};
  size_t dropped = 0;
  lctx_seal_status st = lctx_seal_read(f, seal, id, key, each_line, &e,
                                       &dropped, why, sizeof why);
  memset(key, 0, sizeof key);
  if (st == LCTX_SEAL_UNVERIFIABLE) {
    snprintf(what, sizeof what, "the results of %s cannot be verified: %s",
             lctx_esc(&b, s->o->out_dir), lctx_esc(&w, why));
    return refuse(s, what);
  }
  if (st == LCTX_SEAL_ALTERED) {
    snprintf(what, sizeof what,
             "%s: results.jsonl was altered by something other than lctx (%s)",
             lctx_esc(&b, path), lctx_esc(&w, why));
    return refuse(s, what);
  }
  if (dropped)
    fprintf(s->err,
            "%s: %s: %zu lines after its seal dropped (not known to be "
            "lctx's); their cases run again\n",
            lctx_sweep_who(s), lctx_esc(&b, path), dropped);
  s->results_verified = true;
  return true;
}

/* The first line of `f` (the stamp) as JSON, or NULL; a line longer than
 * 1 MiB (lctx writes none near it) is not held, and is no stamp. */
static json_t *stamp_line(FILE *f) {
  enum { STAMP_MAX = 1 << 20 };
  char *line = malloc(STAMP_MAX + 1);
  bool over = false;
  long n = line ? lctx_sys_read_line(f, line, STAMP_MAX + 1, &over) : -1;
  json_t *j = n >= 0 && !over ? json_loadb(line, (size_t)n, 0, NULL) : NULL;
  free(line);
  return j;
}

/* The valid lines of an earlier results.jsonl of the same plan and
 * identity, verified, counted again; false (said) otherwise. */
static bool read_earlier(lctx_sweep *s, const char *path, json_t *want,
                         json_t *keep, char old_id[LCTX_SEAL_ID_SIZE]) {
  FILE *f = lctx_sys_fopen_in(path, "r");
  if (!f && errno != ENOENT) {
    lctx_escaped b;
    fprintf(s->err, "%s: %s: cannot read: %s\n", lctx_sweep_who(s),
            lctx_esc(&b, path), lctx_sys_file_error(errno));
    s->results_failed = true;
    return false;
  }
  if (!f)
    return true;
  json_t *old = stamp_line(f);
  bool ok = same_run(s, path, old, want) &&
            take_sealed(s, f, path, old, keep, old_id);
  json_decref(old);
  fclose(f);
  return ok;
}

/* --restart: the earlier results (and their key) removed. */
static void restart(lctx_sweep *s, const char *path, const char *seal) {
  FILE *f = lctx_sys_fopen_in(path, "r");
  json_t *old = f ? stamp_line(f) : NULL;
  lctx_seal_drop_key(json_string_value(json_object_get(old, "run_id")));
  json_decref(old);
  if (f)
    fclose(f);
  bool had = unlink(path) == 0;
  unlink(seal);
  if (had) {
    lctx_escaped b;
    fprintf(s->err, "%s: --restart: the earlier results of %s removed\n",
            lctx_sweep_who(s), lctx_esc(&b, s->o->out_dir));
  }
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

/* results.jsonl written anew (through a temporary file): the stamp `head`
 * with run id `id`, then the lines kept; left open to append. */
static bool write_anew(lctx_sweep *s, const char *path, json_t *head,
                       json_t *keep) {
  char tmp[PATH_CAP], seal[PATH_CAP], why[512];
  uint8_t key[LCTX_SEAL_KEY_SIZE];
  lctx_escaped b, w;
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  out_path(s, "results.seal", seal, sizeof seal);
  if (!lctx_seal_new_run(s->run_id, key, why, sizeof why) ||
      !lctx_seal_store_key(s->run_id, key, why, sizeof why)) {
    fprintf(s->err, "%s: %s\n", lctx_sweep_who(s), lctx_esc(&w, why));
    s->results_failed = true;
    return false;
  }
  json_object_set_new(head, "run_id", json_string(s->run_id));
  unlink(tmp);
  s->results = lctx_seal_create(tmp, seal, s->run_id, key);
  memset(key, 0, sizeof key);
  bool ok = s->results != NULL;
  size_t i;
  json_t *v = head;
  for (i = 0; ok && v; v = json_array_get(keep, i++)) {
    char *text = json_dumps(v, JSON_COMPACT);
    ok = text && lctx_seal_write(s->results, text, strlen(text)) &&
         lctx_seal_write(s->results, "\n", 1);
    free(text);
  }
  const char *at = ok ? path : tmp;
  ok = ok && lctx_seal_rename(s->results, path) && lctx_seal_commit(s->results);
  if (!ok) {
    int e = s->results && s->results->error ? s->results->error : errno;
    fprintf(s->err, "%s: %s: cannot write: %s\n", lctx_sweep_who(s),
            lctx_esc(&b, at), lctx_sys_file_error(e));
    s->results_failed = true;
    lctx_seal_drop_key(s->run_id);
  }
  return ok;
}

bool lctx_sweep_resume(lctx_sweep *s) {
  s->done_cap = s->plan_total;
  s->done = calloc(s->done_cap + 1, sizeof *s->done);
  char path[PATH_CAP], seal[PATH_CAP], old_id[LCTX_SEAL_ID_SIZE] = "";
  out_path(s, "results.jsonl", path, sizeof path);
  out_path(s, "results.seal", seal, sizeof seal);
  if (s->o->restart)
    restart(s, path, seal);
  json_t *head = stamp(s), *keep = json_array();
  bool ok = s->done && read_earlier(s, path, head, keep, old_id) &&
            write_anew(s, path, head, keep);
  json_decref(head);
  json_decref(keep);
  if (ok && old_id[0])
    lctx_seal_drop_key(old_id); /* its lines are sealed anew */
  return ok;
}

bool lctx_sweep_results_check(lctx_sweep *s) {
  char why[512];
  if (!s->results || s->results_failed)
    return true; /* a write failure is said already */
  if (!lctx_seal_commit(s->results)) {
    lctx_escaped b;
    fprintf(s->err, "%s: %s: cannot write: %s\n", lctx_sweep_who(s),
            lctx_esc(&b, s->results->seal_path), lctx_sys_file_error(errno));
    s->results_failed = true;
    return true;
  }
  if (lctx_seal_check(s->results, why, sizeof why)) {
    s->results_checked = true;
    return true;
  }
  lctx_escaped b;
  fprintf(s->err, "%s: %s: %s; the run's verdict is not given\n",
          lctx_sweep_who(s), lctx_esc(&b, s->results->path), why);
  s->results_altered = true;
  return false;
}
