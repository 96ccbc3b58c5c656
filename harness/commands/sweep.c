/*
 * sweep.c - `lctx sweep` (see sweep.h): the plan, the requests of a case,
 * judging, findings, resuming and the reports. The recorded case files
 * (--judge, --replay, findings) are sweep_case.c's; the summary at the end
 * and a case's rerun line, sweep_summary.c's.
 */
#include "sweep.h"
#include "seal.h"

#include "report_print.h"
#include "report_write.h"
#include "escape.h"
#include "guard.h"
#include "peer.h"
#include "exit.h"
#include "rerun_cmd.h"
#include "sweep_case.h"
#include "sweep_diagnose.h"
#include "sweep_jobs.h"
#include "sweep_resume.h"
#include "sweep_summary.h"
#include "lctx/lctx.h"
#include "sys.h"
#include "program.h"

#include <dirent.h>
#include <errno.h>

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void lctx_sweep_options_init(lctx_sweep_options *o) {
  memset(o, 0, sizeof *o);
  o->seed = 1;
  o->shard_i = o->shard_n = 1;
  o->lists = 1;
  o->subset = "all";
  o->timeout = 60;
  o->minimize = true;
  o->only_case = -1;
}

//===----------------------------------------------------------------------===//
// The plan
//===----------------------------------------------------------------------===//

static unsigned long long mix(unsigned long long x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static unsigned long long name_hash(const char *s) {
  unsigned long long h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* Draws list `k` of program `name`: 2 to 4 distinct platforms of the
 * catalogue's, in a drawn order (fixed by the seed and the name, so a
 * plan does not move when the catalogue grows). */
static void draw_list(const lctx_sweep *s, const char *name, size_t k,
                      lctx_sweep_list *l) {
  size_t pool = s->cat.platform_count, idx[LCTX_EXPORT_MAX_PLATFORMS];
  unsigned long long r = mix(s->o->seed ^ name_hash(name) ^ mix(k + 1));
  size_t most = pool < 4 ? pool : 4;
  l->count = most < 2 ? most : 2 + (size_t)(r % (most - 1));
  for (size_t i = 0; i < pool; i++)
    idx[i] = i;
  for (size_t i = 0; i < l->count; i++) {
    r = mix(r);
    size_t j = i + (size_t)(r % (pool - i));
    size_t t = idx[i];
    idx[i] = idx[j];
    idx[j] = t;
    snprintf(l->p[i], sizeof l->p[i], "%s", s->cat.platforms[idx[i]]);
  }
}

static bool group_taken(const lctx_sweep *s, size_t upto, const char *group) {
  for (size_t i = 0; i < upto; i++) {
    const lctx_program *p = &s->cat.programs[s->selected[i]];
    if (strcmp(p->group, group) == 0 && strcmp(p->kind, "harness") == 0)
      return true;
  }
  return false;
}

static int by_path(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* `lctx generate --from DIR`: its regular files, in name order. */
static bool list_gen_files(lctx_sweep *s) {
  DIR *d = opendir(s->o->gen_from);
  if (!d) {
    lctx_escaped b;
    fprintf(s->err, "lctx generate: --from %s: cannot open: %s\n",
            lctx_esc(&b, s->o->gen_from), strerror(errno));
    return false;
  }
  size_t cap = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.')
      continue;
    if (s->gen_file_count == cap) {
      cap = cap ? cap * 2 : 64;
      char **grown = realloc(s->gen_files, cap * sizeof *grown);
      if (!grown)
        break;
      s->gen_files = grown;
    }
    size_t len = strlen(s->o->gen_from) + strlen(e->d_name) + 2;
    char *path = malloc(len);
    if (!path)
      break;
    snprintf(path, len, "%s/%s", s->o->gen_from, e->d_name);
    s->gen_files[s->gen_file_count++] = path;
  }
  closedir(d);
  if (s->gen_file_count)
    qsort(s->gen_files, s->gen_file_count, sizeof *s->gen_files, by_path);
  return true;
}

/* The programs the options select, in catalogue order; for `lctx
 * generate`, the generated ones (by index). */
static bool select_programs(lctx_sweep *s) {
  const lctx_sweep_options *o = s->o;
  if (o->generate) {
    if (o->gen_from && !list_gen_files(s))
      return false;
    s->selected_count = o->gen_from ? s->gen_file_count : o->generate;
    s->selected = calloc(1, sizeof *s->selected);
    s->ops = calloc(lctx_prog_op_count(), sizeof *s->ops);
    return s->selected && s->ops;
  }
  s->selected = calloc(s->cat.count, sizeof *s->selected);
  if (!s->selected)
    return false;
  bool ci = strcmp(o->subset, "ci") == 0;
  for (size_t i = 0; i < s->cat.count; i++) {
    const lctx_program *p = &s->cat.programs[i];
    if ((o->group && strcmp(o->group, p->group) != 0) ||
        (o->kind && strcmp(o->kind, p->kind) != 0) ||
        (ci && strcmp(p->kind, "harness") == 0 &&
         group_taken(s, s->selected_count, p->group)))
      continue;
    if (o->limit && s->selected_count == o->limit)
      break;
    s->selected[s->selected_count++] = i;
  }
  return true;
}

/* The plan: each selected program's first plan index; a program with
 * declared lists has as many cases, the others --lists each. */
static bool make_plan(lctx_sweep *s) {
  size_t lists = s->o->lists;
  if (s->o->generate) {
    s->plan_total = s->selected_count * lists;
    return true;
  }
  s->plan_start = calloc(s->selected_count + 1, sizeof *s->plan_start);
  if (!s->plan_start)
    return false;
  size_t at = 0;
  for (size_t i = 0; i < s->selected_count; i++) {
    s->plan_start[i] = at;
    size_t declared = s->cat.programs[s->selected[i]].list_count;
    at += declared ? declared : lists;
  }
  s->plan_start[s->selected_count] = s->plan_total = at;
  return true;
}

//===----------------------------------------------------------------------===//
// Progress, reach and counts
//===----------------------------------------------------------------------===//

static void progress(lctx_sweep *s, size_t done, size_t total, bool last) {
  if (!s->progress)
    return;
  double now = lctx_sys_now();
  if (!last && now < s->next_progress)
    return;
  s->next_progress = now + 0.25;
  double el = now - s->start;
  size_t exports = lctx_sweep_exports_made(s);
  double rate = el > 0 ? (double)exports / el : 0;
  double per_case = done > s->resumed ? el / (double)(done - s->resumed) : 0;
  fprintf(s->err,
          "\r\033[K%s: %zu/%zu cases, %zu exports, %.1f exports/s, %zu "
          "findings, %.0f s left",
          s->o->generate ? "generate" : "sweep", done, total, exports, rate,
          s->finding_count, per_case * (double)(total - done));
  if (last)
    fputc('\n', s->err);
  fflush(s->err);
}

static int by_text(const void *a, const void *b) {
  return strcmp((const char *)a, (const char *)b);
}

void lctx_sweep_reach(lctx_sweep *s, const char *primitive) {
  char key[64];
  snprintf(key, sizeof key, "%s", primitive);
  if (s->cat.primitive_count == 0)
    return;
  char(*hit)[64] = bsearch(key, s->cat.primitives, s->cat.primitive_count,
                           sizeof *s->cat.primitives, by_text);
  if (hit)
    s->reached[hit - s->cat.primitives] = true;
}

static lctx_verdict as_verdict(const lctx_sweep *s,
                               const lctx_sweep_verdict *v) {
  switch (v->kind) {
  case LCTX_SWEEP_PASS:
    return LCTX_VERDICT_PASS;
  case LCTX_SWEEP_FAIL:
    return lctx_sweep_known(s, v->key) ? LCTX_VERDICT_XFAIL : LCTX_VERDICT_FAIL;
  case LCTX_SWEEP_CRASH:
    return LCTX_VERDICT_CRASH;
  default:
    return LCTX_VERDICT_TIMEOUT;
  }
}

void lctx_sweep_count(lctx_sweep *s, size_t row, lctx_verdict v,
                      const char *first, const char *rerun, lctx_report_at at) {
  lctx_report_row *r = &s->rep->rows[row];
  r->n[v]++;
  s->rep->totals[v]++;
  if (v == LCTX_VERDICT_PASS)
    return;
  r->kept++;
  if (!r->first[0] && first) {
    snprintf(r->first, sizeof r->first, "%s", first);
    snprintf(r->rerun, sizeof r->rerun, "%s", rerun ? rerun : "");
    r->first_at = at;
  }
  if (lctx_report_row_failed(r) && !s->rep->failed_once) {
    s->rep->failed_once = true;
    s->rep->first_failure_row = row;
    s->rep->first_failure_verdict = v;
    s->rep->first_failure_seconds = lctx_sys_now() - s->start;
    s->rep->first_failure_at = at;
  }
}

//===----------------------------------------------------------------------===//
// One case
//===----------------------------------------------------------------------===//

/* Takes judged case `index` (exports `e`, verdicts `v`; a case stopped
 * mid-way by an interrupt never comes here, and a resumed run does it):
 * writes its line, counts its verdicts and keeps its new findings. */
static void take_case(lctx_sweep *s, size_t index, lctx_sweep_exports *e,
                      const lctx_sweep_verdict *v, size_t n) {
  lctx_sweep_reach_exports(s, e);
  if (e->desc)
    lctx_program_features(e->desc, s->features, s->ops);
  lctx_sweep_write_line(s, index, e, v, n);
  lctx_sweep_diagnose(s, index, e);
  char rerun[2560];
  lctx_sweep_rerun_line(s, index, rerun, sizeof rerun);
  if (s->o->only_case >= 0)
    lctx_sweep_note_case(s, e);
  for (size_t i = 0; i < n; i++) {
    lctx_verdict verdict = as_verdict(s, &v[i]);
    char first[1024];
    snprintf(first, sizeof first, "sweep case %zu (%s), %s: %s", index,
             lctx_sweep_program_name(s, e), v[i].key[0] ? v[i].key : "",
             v[i].detail);
    lctx_sweep_count(s, v[i].row, verdict, first, rerun,
                     (lctx_report_at){true, 0, index, i});
    if (verdict == LCTX_VERDICT_FAIL || verdict == LCTX_VERDICT_XFAIL)
      lctx_sweep_note_finding(s, index, v[i].key,
                              verdict == LCTX_VERDICT_XFAIL);
    if (verdict == LCTX_VERDICT_FAIL && lctx_sweep_new_key(s, v[i].key))
      lctx_sweep_keep_finding(s, e, &v[i]);
  }
}

//===----------------------------------------------------------------------===//
// The run
//===----------------------------------------------------------------------===//

bool lctx_sweep_open(lctx_sweep *s) {
  char why[512], e[1024] = "";
  lctx_escaped b;
  if (!lctx_sweep_exporter_open(s, &s->x[0], e, sizeof e)) {
    fprintf(s->err, "%s: %s\n", lctx_sweep_who(s), lctx_esc(&b, e));
    return false;
  }
  const char *hs = lctx_impl_handshake(s->x[0].impl);
  if (!hs || !lctx_catalogue_parse(hs, &s->cat, why, sizeof why)) {
    fprintf(s->err,
            "%s: the program does not offer the export operation "
            "and a catalogue: %s\n",
            lctx_sweep_who(s), hs ? lctx_esc(&b, why) : "no handshake kept");
    return false;
  }
  if (s->cat.primitive_count > 1)
    qsort(s->cat.primitives, s->cat.primitive_count, sizeof *s->cat.primitives,
          by_text);
  s->reached = calloc(s->cat.primitive_count + 1, sizeof *s->reached);
  if (!s->reached || !select_programs(s) || !make_plan(s)) {
    fprintf(s->err, "%s: out of memory\n", lctx_sweep_who(s));
    return false;
  }
  if (s->o->generate && s->cat.generate != 1) {
    lctx_escaped b2;
    fprintf(s->err,
            "lctx generate: %s does not build generated programs (its hello "
            "has no \"generate\": 1; conformance/PROTOCOL.md, \"Generated "
            "programs\")\n",
            lctx_esc(&b2, s->cat.name));
    return false;
  }
  if (s->o->generate && s->selected_count == 0) {
    fprintf(s->err, "lctx generate: no program to draw (--programs 0, or "
                    "--from names an empty folder)\n");
    return false;
  }
  if (s->selected_count == 0) {
    lctx_escaped g, k;
    fprintf(s->err,
            "%s: no program of the catalogue (%zu programs) is of "
            "group '%s' and kind '%s'\n",
            lctx_sweep_who(s), s->cat.count,
            s->o->group ? lctx_esc(&g, s->o->group) : "*",
            s->o->kind ? lctx_esc(&k, s->o->kind) : "*");
    return false;
  }
  return true;
}

/* Whether plan index `c` is this run's: of its shard, or the one case
 * asked for. */
static bool planned(const lctx_sweep *s, size_t c) {
  if (s->o->only_case >= 0)
    return c == (size_t)s->o->only_case;
  return c % s->o->shard_n == s->o->shard_i - 1;
}

/* The program and platform list of plan index `c`. */
static void plan_case(const lctx_sweep *s, size_t c, size_t *program,
                      lctx_sweep_list *l) {
  if (s->o->generate) {
    char name[64];
    *program = c / s->o->lists;
    snprintf(name, sizeof name, "gen/%zu", *program);
    draw_list(s, name, c % s->o->lists, l);
    return;
  }
  size_t lo = 0, hi = s->selected_count; /* plan_start[lo] <= c */
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->plan_start[mid] <= c)
      lo = mid;
    else
      hi = mid;
  }
  *program = s->selected[lo];
  const lctx_program *p = &s->cat.programs[*program];
  size_t k = c - s->plan_start[lo];
  if (!p->list_count) {
    draw_list(s, p->name, k, l);
    return;
  }
  l->count = p->list_len[k];
  for (size_t i = 0; i < l->count; i++)
    snprintf(l->p[i], sizeof l->p[i], "%s", s->cat.platforms[p->list[k][i]]);
}

/* Whether no further case starts: an interrupt, or the time limit. */
static bool stop_now(const lctx_sweep *s) {
  return lctx_sys_interrupted() ||
         (s->o->time_limit > 0 && lctx_sys_now() - s->start > s->o->time_limit);
}

static void take_and_count(lctx_sweep *s, size_t index, lctx_sweep_exports *e,
                           const lctx_sweep_verdict *v, size_t n) {
  take_case(s, index, e, v, n);
  s->rep->cases_run++;
  progress(s, ++s->done_cases, s->total_cases, false);
}

/* Runs every planned case of this shard not done yet, through the jobs. */
static void run_plan(lctx_sweep *s) {
  size_t all = s->plan_total, count = 0;
  size_t *todo = calloc(all + 1, sizeof *todo);
  if (!todo) {
    fprintf(s->err, "%s: out of memory\n", lctx_sweep_who(s));
    s->rep->interrupted = true;
    return;
  }
  s->total_cases = 0;
  for (size_t c = 0; c < all; c++) {
    s->total_cases += planned(s, c);
    if (planned(s, c) && !lctx_sweep_done(s, c))
      todo[count++] = c;
  }
  s->done_cases = s->resumed;
  static const lctx_sweep_jobs_plan plan = {plan_case, take_and_count,
                                            stop_now};
  if (lctx_sweep_jobs_run(s, todo, count, &plan) < count)
    s->rep->interrupted = true;
  progress(s, s->done_cases, s->total_cases, true);
  free(todo);
}

static int finish(lctx_sweep *s) {
  lctx_report *r = s->rep;
  r->seconds = lctx_sys_now() - s->start;
  r->restarts = lctx_sweep_restarts(s);
  /* The plan's cases of the other shards (all but --case's): skipped, as
   * conform counts them, so that every shard of one plan offers the plan's
   * cases (report.json's "cases") and `lctx report merge` joins shards
   * of unequal counts. */
  for (size_t c = 0; c < s->plan_total; c++)
    r->cases_skipped += !planned(s, c);
  size_t judged = 0;
  for (int v = 0; v < LCTX_VERDICT_COUNT; v++)
    judged += r->totals[v];
  r->nothing_judged = judged == 0;
  lctx_sweep_close_exporters(s); /* none writes after the end check */
  lctx_peer_sweep(); /* what the exporters left, counted in the reports */
  if (lctx_peer_logs_capped() > 0)
    lctx_report_cap_hit(r, "implementation.log", LCTX_PEER_LOG_CAP,
                        lctx_peer_logs_capped());
  lctx_sweep_write_reach(s);
  lctx_sweep_print_summary(s);
  char spec_version[64];
  snprintf(spec_version, sizeof spec_version, "%s", s->spec->version);
  char impl_version[160];
  snprintf(impl_version, sizeof impl_version, "%s%s%s", s->cat.version,
           s->cat.mutant[0] ? "+" : "", s->cat.mutant);
  lctx_report_doc doc = {
      .report = r,
      .spec_file = s->o->spec_path,
      .spec_version = spec_version,
      .lctx_version = LCTX_VERSION_STRING,
      .impl_name = s->cat.name,
      .impl_version = impl_version,
      .impl_kind = "process",
      .seed = s->o->seed,
      .shard_i = s->o->shard_i,
      .shard_n = s->o->shard_n,
      .peak_memory_mb = -1,
      .diagnoses = s->o->generate ? NULL : s->diagnoses,
      .diagnosis_count = s->diagnosis_count,
      .diagnosed = !s->o->generate,
  };
  /* results.jsonl not as lctx wrote it: no verdict, and no reports
   * beside it (sweep_resume.h). */
  bool altered = !lctx_sweep_results_check(s);
  char why[2048] = "";
  doc.run_id = s->run_id[0] ? s->run_id : NULL;
  doc.results_sealed = s->results != NULL;
  doc.results_checked = s->results_checked;
  doc.resume_verified = s->results_verified;
  doc.left_behind_killed = lctx_peer_swept_total();
  doc.stops_continued = lctx_guard_continued_total();
  doc.isolation = lctx_peer_isolation();
  doc.logs_capped = lctx_peer_logs_capped();
  doc.stop_signal = r->interrupted ? lctx_sys_interrupt_signal() : 0;
  lctx_report_print_children(&doc, s->out);
  if (altered &&
      !lctx_report_remove_reports(s->o->out_dir, "lctx sweep", why, sizeof why))
    fprintf(s->err, "%s\n", why);
  if (!altered && !lctx_report_save_reports(&doc, s->o->out_dir, "lctx sweep",
                                            why, sizeof why)) {
    fprintf(s->err, "%s\n", why);
    r->write_failed = true;
  }
  /* A report, results.jsonl or a finding not written: an error, as
   * conform's (exit 2), whatever the verdicts. */
  bool unwritten = r->write_failed || s->results_failed || altered;
  bool failed =
      lctx_report_run_failed(r) || r->nothing_judged || r->interrupted;
  lctx_escaped b;
  fprintf(s->out, "result: %zu new findings, %zu known; reports in %s: %s\n",
          s->finding_count, r->totals[LCTX_VERDICT_XFAIL],
          lctx_esc(&b, s->o->out_dir),
          altered     ? "ERROR (results.jsonl was altered during the run, see "
                        "above)"
          : unwritten ? "ERROR (a report not written, see above)"
          : r->interrupted    ? "INTERRUPTED"
          : r->nothing_judged ? "NOTHING JUDGED"
          : failed            ? "FAIL"
                              : "PASS");
  return unwritten ? LCTX_EXIT_USAGE
         : failed  ? LCTX_EXIT_VIOLATIONS
                   : LCTX_EXIT_OK;
}

/* Takes OUT/.lock for the run, as conform does: -1 (said) when another
 * run holds it or it cannot be taken. */
static int lock_out_dir(const lctx_sweep *s) {
  char why[1024];
  int fd = lctx_sys_lock_run_dir(s->o->out_dir, lctx_sweep_who(s), "--out", why,
                                 sizeof why);
  if (fd < 0)
    fprintf(s->err, "%s: %s\n", lctx_sweep_who(s), why);
  return fd;
}

int lctx_sweep_run(const lctx_sweep_options *o, FILE *out, FILE *err) {
  lctx_sweep *s = lctx_sweep_new(o, out, err);
  if (!s)
    return LCTX_EXIT_USAGE;
  int lock = lock_out_dir(s);
  if (lock < 0) {
    lctx_sweep_free(s);
    return LCTX_EXIT_USAGE;
  }
  int code = LCTX_EXIT_USAGE;
  lctx_sys_interrupts saved;
  lctx_sys_catch_interrupts(&saved);
  lctx_guard guard; /* guard.h: before the first exporter starts */
  (void)lctx_guard_start(&guard, &(lctx_guard_spec){0});
  /* The exporters see OUT read-only and the key store not at all. */
  char store[4096], why[256];
  if (o->out_dir)
    (void)lctx_peer_protect(o->out_dir, false);
  if (lctx_seal_store_make(store, sizeof store, why, sizeof why))
    (void)lctx_peer_protect(store, true);
  if (o->only_case < 0)
    lctx_sweep_jobs_start(s); /* their exporters start as x[0] does */
  if (lctx_sweep_open(s) && lctx_sweep_resume(s)) {
    s->progress = !o->quiet && isatty(fileno(err));
    s->start = lctx_sys_now();
    run_plan(s);
    code = finish(s);
  }
  lctx_sweep_jobs_end(s);
  lctx_sweep_free(s); /* its last exporter stopped: the guard's end */
  lctx_peer_unprotect();
  lctx_guard_end(&guard);
  lctx_sys_release_interrupts(&saved);
  close(lock);
  return code;
}
