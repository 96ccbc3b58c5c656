/*
 * campaign.c - a fuzz campaign's run, live line and summary (campaign.h);
 * starting and reading its engines is campaign_engines.c's. Engines start
 * through peer.h with TMPDIR=OUT/tmp and the campaign's mark
 * (LCTX_FUZZ_CAMPAIGN=TOKEN), which their children inherit; however the
 * campaign ends, every marked process is killed and OUT/tmp removed: by lctx,
 * or, when lctx itself is killed, by its guard (campaign_guard.h).
 */
#include "campaign_private.h"

#include "campaign_guard.h"
#include "campaign_rows.h"
#include "campaign_work.h"
#include "case_bytes.h"
#include "escape.h"
#include "exit.h"
#include "file.h"
#include "findings.h"
#include "libfuzzer.h"
#include "seeds.h"
#include "minimize.h"
#include "oracle.h"
#include "peer.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void lctx_campaign_options_init(lctx_campaign_options *o) {
  memset(o, 0, sizeof *o);
  o->seconds = -1;
  o->jobs = 1;
  o->data = lctx_data_paths_current();
}

//===----------------------------------------------------------------------===//
// The campaign directory
//===----------------------------------------------------------------------===//

/* The target, the build and the paths; false after a message. */
static bool resolve(campaign *c) {
  const lctx_campaign_options *o = c->o;
  c->target = lctx_fuzz_target_find(o->target);
  if (!c->target) {
    char names[256];
    lctx_findings_target_names(", ", names, sizeof names);
    lctx_escaped target;
    fprintf(c->err, "lctx fuzz: --target: unknown target '%s' (%s)\n",
            lctx_esc(&target, o->target), names);
    return false;
  }
  c->afl = strcmp(o->engine, "afl") == 0;
  const char *preset = c->afl ? "afl" : "fuzz";
  if (o->binary)
    snprintf(c->binary, sizeof c->binary, "%s", o->binary);
  else
    lctx_data_fuzz_binary(o->data, o->target, c->afl, c->binary,
                          sizeof c->binary);
  lctx_escaped b;
  if (!lctx_sys_is_file(c->binary) || access(c->binary, X_OK) != 0) {
    fprintf(c->err,
            "lctx fuzz: %s: no %s build of %s (build it with: cmake --preset "
            "%s && cmake --build --preset %s)\n",
            lctx_esc(&b, c->binary), o->engine, o->target, preset, preset);
    return false;
  }
  if (o->out_dir)
    snprintf(c->out_dir, sizeof c->out_dir, "%s", o->out_dir);
  else
    snprintf(c->out_dir, sizeof c->out_dir, "lctx-fuzz/%s-%s", o->target,
             o->engine);
  /* The engines read corpus folders recursively: hand them a flat copy of
   * the seeds, without the readable text twins. */
  snprintf(c->seeds, sizeof c->seeds, "%s/seeds", c->out_dir);
  snprintf(c->dict, sizeof c->dict, "%s/%s.dict", o->data->dicts, o->target);
  if (o->corpus && !lctx_sys_is_dir(o->corpus)) {
    fprintf(c->err, "lctx fuzz: --corpus: %s is not a directory\n",
            lctx_esc(&b, o->corpus));
    return false;
  }
  snprintf(c->corpus_dir, sizeof c->corpus_dir, "%s/corpus", c->out_dir);
  snprintf(c->artifacts, sizeof c->artifacts, "%s/artifacts", c->out_dir);
  snprintf(c->logs, sizeof c->logs, "%s/logs", c->out_dir);
  snprintf(c->afl_dir, sizeof c->afl_dir, "%s/afl", c->out_dir);
  snprintf(c->libfuzzer_log, sizeof c->libfuzzer_log, "%s/libfuzzer.log",
           c->logs);
  snprintf(c->tmp_dir, sizeof c->tmp_dir, "%s/tmp", c->out_dir);
  snprintf(c->token, sizeof c->token, "%ld-%.0f", (long)getpid(),
           lctx_sys_now() * 1e6);
  snprintf(c->mark, sizeof c->mark, "%s=%s", MARK_NAME, c->token);
  return true;
}

/* Creates the campaign directory and its seeds; false after a message. */
static bool make_dirs(campaign *c) {
  char findings[4200];
  snprintf(findings, sizeof findings, "%s/findings", c->out_dir);
  if (!lctx_sys_mkdir_p(c->corpus_dir) || !lctx_sys_mkdir_p(c->artifacts) ||
      !lctx_sys_mkdir_p(c->logs) || !lctx_sys_mkdir_p(findings) ||
      (c->afl && !lctx_sys_mkdir_p(c->afl_dir))) {
    lctx_escaped dir;
    fprintf(c->err, "lctx fuzz: %s: cannot create the campaign directory: %s\n",
            lctx_esc(&dir, c->out_dir), strerror(errno));
    return false;
  }
  char why[1024];
  c->lock_fd =
      lctx_sys_lock_run_dir(c->out_dir, "lctx fuzz", "--out", why, sizeof why);
  if (c->lock_fd < 0) {
    fprintf(c->err, "lctx fuzz: %s\n", why);
    return false;
  }
  lctx_escaped shown;
  if (!lctx_sys_mkdir_p(c->seeds)) {
    fprintf(c->err, "lctx fuzz: %s: cannot create: %s\n",
            lctx_esc(&shown, c->seeds), strerror(errno));
    return false;
  }
  char source[4200];
  snprintf(source, sizeof source, "%s/%s", c->o->data->seeds, c->o->target);
  lctx_seeds_copy(source, c->seeds);
  /* libFuzzer reads a copy of --corpus (the user's folder, never changed),
   * from which an input that stops it can be dropped like the seeds. */
  snprintf(c->given, sizeof c->given, "%s/given", c->out_dir);
  if (c->o->corpus && !c->afl && lctx_sys_mkdir_p(c->given))
    lctx_seeds_copy(c->o->corpus, c->given);
  if (lctx_sys_count_entries(c->seeds) == 0) {
    /* An engine needs at least one seed: the empty input will do. */
    char empty[4300];
    snprintf(empty, sizeof empty, "%s/empty", c->seeds);
    lctx_sys_write_file(empty, "", 0);
  }
  c->resumed = lctx_sys_count_entries(c->afl ? c->afl_dir : c->corpus_dir) > 0;
  /* A fresh OUT/tmp (one a killed run left goes), named absolutely. */
  char cwd[PATH_MAX];
  if (!lctx_sys_remove_tree(c->tmp_dir) || !lctx_sys_mkdir_p(c->tmp_dir) ||
      (c->tmp_dir[0] != '/' && !getcwd(cwd, sizeof cwd))) {
    fprintf(c->err, "lctx fuzz: %s: cannot create: %s\n",
            lctx_esc(&shown, c->tmp_dir), strerror(errno));
    return false;
  }
  if (c->tmp_dir[0] != '/') {
    char relative[sizeof c->tmp_dir];
    memcpy(relative, c->tmp_dir, sizeof relative);
    snprintf(c->tmp_dir, sizeof c->tmp_dir, "%s/%s", cwd, relative);
  }
  return true;
}

//===----------------------------------------------------------------------===//
// The live line
//===----------------------------------------------------------------------===//

static void live_line(const campaign *c, double elapsed, bool tty) {
  /* An engine whose status gives no rate: its inputs over the time. */
  double rate = c->stats.execs_per_sec;
  if (rate <= 0 && c->execs > 0 && elapsed >= 1)
    rate = (double)c->execs / elapsed;
  char rows[64] = "n/a";
  if (c->rows.enabled)
    snprintf(rows, sizeof rows, "%zu/%zu", lctx_campaign_rows_hit(&c->rows),
             lctx_campaign_rows_reachable(&c->rows));
  fprintf(c->out,
          "%s[%5.0fs] exec/s %9.0f  corpus %6lu  findings %zu (%zu "
          "unique)  spec rows hit %s%s",
          tty ? "\r" : "", elapsed, rate, c->stats.corpus, c->findings.total,
          c->findings.fresh, rows, tty ? "\033[K" : "\n");
  fflush(c->out);
}

/* Appends one point to OUT/progress.jsonl (`f`): seconds, inputs run,
 * exec/s, corpus size, spec rows hit (-1 when not tracked), new findings
 * and crash inputs of this run. */
static void progress_point(const campaign *c, FILE *f, double elapsed) {
  if (!f)
    return;
  fprintf(f,
          "{\"seconds\": %.1f, \"execs\": %llu, \"execs_per_sec\": %.0f, "
          "\"corpus\": %lu, \"rows_hit\": %lld, \"findings\": %zu, "
          "\"crash_inputs\": %zu}\n",
          elapsed, c->execs, c->stats.execs_per_sec, c->stats.corpus,
          c->rows.enabled ? (long long)lctx_campaign_rows_hit(&c->rows) : -1LL,
          c->findings.fresh, c->findings.total);
  fflush(f);
}

/* OUT/progress.jsonl, written anew by each run (NULL after a warning). */
static FILE *progress_open(const campaign *c) {
  char path[4300];
  snprintf(path, sizeof path, "%s/progress.jsonl", c->out_dir);
  FILE *f = lctx_sys_fopen_in(path, "w");
  lctx_escaped b;
  if (!f)
    fprintf(c->err, "lctx fuzz: warning: %s: cannot write the progress\n",
            lctx_esc(&b, path));
  return f;
}

/* Until every engine has ended: reaps them, stops them after their time
 * (+30 s) or on Ctrl-C (SIGINT, then SIGKILL 10 s later), takes their
 * findings and prints the live line (every 10 s, or always on a tty); a
 * point of OUT/progress.jsonl every second for the first minute, every 10
 * s for the first hour, every minute after. */
static void watch(campaign *c, double start) {
  bool tty = isatty(fileno(c->out)) != 0;
  double last_line = 0, stop_at = 0, last_point = -1;
  bool stopping = false;
  FILE *progress = progress_open(c);
  for (int waiting = 0; c->alive > 0 || waiting > 0;) {
    lctx_sys_sleep(0.5);
    lctx_campaign_reap_engines(c);
    double elapsed = lctx_sys_now() - start;
    waiting = lctx_campaign_restart_jobs(c, elapsed,
                                         stopping || lctx_sys_interrupted());
    if (!stopping && (lctx_sys_interrupted() || elapsed > c->o->seconds + 30)) {
      stopping = true;
      stop_at = lctx_sys_now();
      lctx_campaign_signal_engines(c, SIGINT);
    }
    if (stopping && lctx_sys_now() - stop_at > 10)
      lctx_campaign_signal_engines(c, SIGKILL);
    lctx_campaign_scan(c);
    if (tty || elapsed - last_line >= 10 || c->alive == 0) {
      live_line(c, elapsed, tty);
      last_line = elapsed;
      c->corpus_shown = c->stats.corpus;
      c->flagged_shown = c->work.flagged;
    }
    double every = elapsed < 60 ? 1 : elapsed < 3600 ? 10 : 60;
    if (last_point < 0 || elapsed - last_point >= every || c->alive == 0) {
      progress_point(c, progress, elapsed);
      last_point = elapsed;
    }
  }
  if (progress)
    fclose(progress);
  if (tty)
    fputc('\n', c->out);
  lctx_campaign_rows_print_missed(&c->rows, c->out);
}

//===----------------------------------------------------------------------===//
// The run
//===----------------------------------------------------------------------===//

/* How the run ended: the word of OUT/state.json and the summary's result. */
static const char *status_of(const campaign *c, bool running) {
  if (running)
    return "running";
  if (c->interrupted)
    return "interrupted";
  return c->execs == 0 && c->findings.total == 0 ? "nothing-run" : "finished";
}

/* Writes OUT/state.json: how the last run ended ("running" while it runs,
 * and after a run that was killed), its inputs and the findings. */
static bool write_state(const campaign *c, bool running, double seconds) {
  const lctx_findings *f = &c->findings;
  json_t *j = json_object();
  json_object_set_new(j, "status", json_string(status_of(c, running)));
  json_object_set_new(j, "target", json_string(c->o->target));
  json_object_set_new(j, "engine", json_string(c->o->engine));
  json_object_set_new(j, "seconds", json_real(seconds));
  json_object_set_new(j, "inputs_run", json_integer((json_int_t)c->execs));
  json_object_set_new(j, "new_findings", json_integer((json_int_t)f->fresh));
  if (!running && c->corpus_minimized == 0) {
    json_object_set_new(j, "corpus_before",
                        json_integer((json_int_t)c->corpus.before));
    json_object_set_new(j, "corpus_after",
                        json_integer((json_int_t)c->corpus.after));
    json_object_set_new(j, "corpus_passes",
                        json_integer((json_int_t)c->corpus.passes));
    json_object_set_new(j, "corpus_fixed_point",
                        json_boolean(c->corpus.fixed_point));
  }
  if (!running)
    lctx_campaign_rows_json(&c->rows, j);
  json_object_set_new(j, "findings",
                      json_integer((json_int_t)lctx_findings_count(f)));
  json_object_set_new(
      j, "unminimized",
      json_integer((json_int_t)lctx_findings_count_unminimized(f)));
  char path[4300];
  snprintf(path, sizeof path, "%s/state.json", c->out_dir);
  bool written = json_dump_file(j, path, JSON_INDENT(2) | JSON_SORT_KEYS) == 0;
  lctx_escaped b;
  if (!written)
    fprintf(c->err, "lctx fuzz: %s: cannot write the campaign state\n",
            lctx_esc(&b, path));
  json_decref(j);
  return written;
}

/* Whether OUT/state.json says a run is still running: the last one was
 * killed. */
static bool last_run_killed(const campaign *c) {
  char path[4300];
  snprintf(path, sizeof path, "%s/state.json", c->out_dir);
  FILE *f = lctx_sys_fopen_in(path, "r");
  json_t *j = f ? json_loadf(f, 0, NULL) : NULL;
  if (f)
    fclose(f);
  const char *status = json_string_value(json_object_get(j, "status"));
  bool killed = status && strcmp(status, "running") == 0;
  json_decref(j);
  return killed;
}

/* The name of the engine's corpus minimization. */
static const char *corpus_pass(const campaign *c) {
  return c->afl ? "afl-cmin" : "libFuzzer -merge=1";
}

/* PATH as `print_summary` shows it: escaped (escape.h) on a terminal,
 * exact in OUT/summary.txt (`exact`). */
static const char *summary_path(lctx_escaped *b, const char *path, bool exact) {
  return exact ? path : lctx_esc(b, path);
}

/* A new finding, and the first command of its reproduce.txt, which runs
 * from any folder as printed (escaped on a terminal, exact in
 * OUT/summary.txt: `exact`). */
static void print_new_finding(FILE *w, const char *dir, bool exact) {
  lctx_escaped b1, b2;
  char line[16384];
  fprintf(w, "  new finding: %s\n", summary_path(&b1, dir, exact));
  if (!lctx_findings_reproduce_line(dir, line, sizeof line)) {
    fprintf(w, "    reproduce: see %s/reproduce.txt\n",
            summary_path(&b2, dir, exact));
    return;
  }
  fputs("    reproduce: ", w);
  if (exact)
    fputs(line, w);
  else
    lctx_escape_write(w, line, strlen(line));
  fprintf(w, "\n    (every way, and how to keep it: %s/reproduce.txt)\n",
          summary_path(&b2, dir, exact));
}

/* Why the last live line's corpus is not the count the minimization
 * started from (the live line counts what the end minimizes). */
static void print_corpus_shown(const campaign *c, FILE *w) {
  size_t flagged = c->work.flagged - c->flagged_shown;
  fprintf(w, "  (the last live line counted %lu corpus inputs",
          c->corpus_shown);
  if (flagged > 0)
    fprintf(w,
            "; %zu of them the triage flagged at the last sync: they are "
            "findings, not corpus inputs)\n",
            flagged);
  else
    fputs("; the corpus folder changed after it)\n", w);
}

/* The summary, to the terminal `w` or (`exact`) OUT/summary.txt. */
static void print_summary(const campaign *c, FILE *w, bool exact,
                          double seconds, size_t unique) {
  const lctx_findings *f = &c->findings;
  lctx_escaped b1, b2, b3;
  fprintf(w,
          "lctx fuzz: %s under %s %s after %.0f s: %llu input(s) run, %zu "
          "crash input(s) this run, %zu new finding(s), %zu finding(s) in "
          "all\n",
          c->o->target, c->o->engine, c->interrupted ? "stopped" : "finished",
          seconds, c->execs, f->total, f->fresh, unique);
  fprintf(w,
          "  time: %.0f s fuzzing (--time %.0f%s), %.0f s minimizing "
          "(findings and corpus)\n",
          c->fuzz_seconds, c->o->seconds,
          c->fuzz_seconds > c->o->seconds + 1
              ? "; the rest is the engine's own start-up and stop"
              : "",
          c->minimize_seconds);
  lctx_campaign_rows_summary(&c->rows, w);
  /* AFL++: one corpus (OUT/corpus once minimized, else its main queue),
   * and its own state apart. */
  char queue[4300];
  snprintf(queue, sizeof queue, "%s/main/queue", c->afl_dir);
  bool queue_only = c->afl && c->corpus_minimized != 0;
  fprintf(w, "  corpus:   %s%s\n",
          summary_path(&b1, queue_only ? queue : c->corpus_dir, exact),
          queue_only ? " (AFL++'s main queue, not minimized)" : "");
  if (c->afl)
    fprintf(w, "  AFL++'s own state: %s (queues, crashes, fuzzer_stats)\n",
            summary_path(&b1, c->afl_dir, exact));
  fprintf(w, "  findings: %s\n  logs:     %s\n",
          summary_path(&b2, f->dir, exact), summary_path(&b3, c->logs, exact));
  if (c->o->triage)
    fprintf(w,
            "  triage (ASan+UBSan build): %zu new input(s) replayed, %zu "
            "flagged\n",
            c->work.triaged, c->work.flagged);
  if (c->corpus_minimized == 0)
    fprintf(w,
            "  corpus minimized (%s): %zu -> %zu inputs%s (%zu pass%s, %s)\n",
            corpus_pass(c), c->corpus.before, c->corpus.after,
            c->afl ? " from AFL++'s main queue" : "", c->corpus.passes,
            c->corpus.passes == 1 ? "" : "es",
            c->corpus.fixed_point ? "the last one shrank nothing"
                                  : "still shrinking when they stopped");
  if (c->corpus_minimized == 0 && c->corpus_shown != c->corpus.before)
    print_corpus_shown(c, w);
  else if (c->corpus_minimized == 1)
    fprintf(w, "  corpus not minimized: the %s pass failed\n", corpus_pass(c));
  for (size_t i = 0; i < f->fresh && i < LCTX_FINDINGS_MAX_NEW; i++)
    print_new_finding(w, f->new_dirs[i], exact);
  size_t waiting = lctx_findings_count_unminimized(f);
  if (waiting > 0)
    fprintf(w,
            "  %zu finding(s) not minimized yet: the next run minimizes "
            "them first\n",
            waiting);
  const char *status = status_of(c, false);
  fprintf(w, "result: %s\n",
          strcmp(status, "interrupted") == 0
              ? "INTERRUPTED (the corpus and findings are kept; the same "
                "command resumes)"
          : strcmp(status, "nothing-run") == 0
              ? "NOTHING RUN (the engine ran no input: nothing was judged)"
          : unique > 0 ? "FINDINGS"
                       : "PASS (no finding)");
}

/* How many of the engine's last lines a campaign that ran nothing shows. */
#define ENGINE_END_LINES 12

/* The last lines of the first engine's log (libFuzzer job 0: of its last
 * run; AFL++'s main instance), escaped: why an engine that ran nothing ended (a
 * library it could not load, an option it refused). */
static void print_engine_end(const campaign *c) {
  char path[4300], text[8192];
  if (c->afl)
    snprintf(path, sizeof path, "%s/afl-main.log", c->logs);
  else
    snprintf(path, sizeof path, "%s", c->libfuzzer_log);
  size_t n = lctx_sys_read_tail(path, text, sizeof text);
  while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r'))
    text[--n] = '\0';
  const char *from = text;
  for (const char *p = text; (p = strstr(p, RUN_START)) != NULL; p++)
    from = p; /* the last run's part */
  int lines = 0;
  for (size_t i = n; i > (size_t)(from - text); i--) {
    if (text[i - 1] == '\n' && ++lines == ENGINE_END_LINES) {
      from = text + i;
      break;
    }
  }
  if (n == 0)
    return;
  lctx_escaped b;
  fprintf(c->err, "lctx fuzz: the engine's last lines (%s):\n",
          lctx_esc(&b, path));
  lctx_escape_lines(c->err, "  | ", from);
}

/* The summary, to `out` and OUT/summary.txt, and OUT/state.json. Returns
 * the exit code: 1 when interrupted, when nothing ran or with findings, 2
 * when the summary or the state could not be written. */
static int summarize(const campaign *c, double start) {
  size_t unique = lctx_findings_count(&c->findings);
  double seconds = lctx_sys_now() - start;
  print_summary(c, c->out, false, seconds, unique);
  char path[4300];
  snprintf(path, sizeof path, "%s/summary.txt", c->out_dir);
  FILE *f = lctx_sys_fopen_in(path, "w");
  bool written = f != NULL;
  if (f) {
    print_summary(c, f, true, seconds, unique);
    written = fclose(f) == 0 && written;
  }
  lctx_escaped b;
  if (!written)
    fprintf(c->err, "lctx fuzz: %s: cannot write the summary\n",
            lctx_esc(&b, path));
  written = write_state(c, false, seconds) && written;
  const char *status = status_of(c, false);
  if (strcmp(status, "nothing-run") == 0) {
    int st = c->first_status;
    fflush(c->out); /* the summary before the engine's words */
    fprintf(c->err,
            "lctx fuzz: the engine ran no input, nothing was judged (it ended "
            "with %s %d; see its log in %s)\n",
            WIFSIGNALED(st) ? "signal" : "exit status",
            WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
            lctx_esc(&b, c->logs));
    print_engine_end(c);
  }
  if (!written)
    return LCTX_EXIT_USAGE; /* a campaign whose record is lost is no PASS */
  return strcmp(status, "finished") != 0 || unique > 0 ? LCTX_EXIT_VIOLATIONS
                                                       : LCTX_EXIT_OK;
}

/* Starts the engines (and the guard first), watches them until they end,
 * then ends whatever they left. False when AFL++ could not start (after a
 * message). */
static bool fuzz(campaign *c, double start) {
  if (c->afl)
    lctx_sys_each_entry(c->afl_dir, lctx_campaign_add_afl_execs,
                        &c->execs_before);
  c->guard.mark = c->mark;
  c->guard.work = &c->work;
  c->guard.tmp_dir = c->tmp_dir;
  lctx_campaign_guard_start(&c->guard);
  bool started = true;
  for (size_t j = 0; !c->afl && j < c->o->jobs; j++)
    lctx_campaign_start_libfuzzer(c, (int)j, c->o->seconds);
  if (c->afl)
    started = lctx_campaign_start_afl(c);
  if (started)
    watch(c, start);
  lctx_campaign_end_marked(c->mark);
  lctx_peer_sweep();
  if (!c->afl) { /* the last sync, and the inputs its triage flagged */
    lctx_campaign_work_sync(&c->work, true);
    lctx_sys_each_file(c->artifacts, lctx_campaign_take_crash, &c->findings);
    lctx_campaign_rows_scan(&c->rows, c->corpus_dir);
  }
  lctx_campaign_guard_stop(&c->guard);
  return started;
}

/* Minimizes the corpus with the engine's own pass, unless interrupted:
 * libFuzzer's OUT/corpus in place; AFL++'s main queue (its own state, kept)
 * into OUT/corpus. */
static void minimize_corpus(campaign *c) {
  c->corpus_minimized = -1;
  if (c->interrupted)
    return;
  char queue[4300];
  snprintf(queue, sizeof queue, "%s/main/queue", c->afl_dir);
  if (c->afl && !lctx_sys_is_dir(queue))
    return;
  lctx_corpus_options m;
  memset(&m, 0, sizeof m);
  m.target = c->o->target;
  m.engine = c->o->engine;
  m.binary = c->binary;
  m.dir = c->afl ? queue : c->corpus_dir;
  if (c->afl) {
    lctx_sys_remove_tree(c->corpus_dir);
    m.out_dir = c->corpus_dir;
  }
  m.timeout = 300;
  fprintf(c->out, "  minimizing the corpus (%s) ...", corpus_pass(c));
  fflush(c->out);
  int code = lctx_corpus_minimize(&m, &c->corpus, c->err);
  c->corpus_minimized = code == LCTX_EXIT_OK ? 0 : 1;
  if (code == LCTX_EXIT_OK)
    fprintf(c->out, " %zu -> %zu inputs (%zu pass%s)\n", c->corpus.before,
            c->corpus.after, c->corpus.passes,
            c->corpus.passes == 1 ? "" : "es");
  else
    fprintf(c->out, " failed, the corpus is kept as it was\n");
}

/* The header: what runs, with which sanitizer options (libFuzzer), where
 * its working corpus is and, in fast mode, what the triage replays. */
static void print_header(const campaign *c) {
  lctx_escaped b, b2;
  char asan[2048] = "";
  bool added = !c->afl && lctx_campaign_asan_options(asan, sizeof asan);
  fprintf(c->out,
          "lctx fuzz: %s under %s%s, %zu job(s), %.0f s%s%s%s%s; campaign in "
          "%s\n"
          "  (Ctrl-C stops it early and keeps the corpus and findings)\n",
          c->o->target, c->o->engine, c->o->triage ? " (fast mode)" : "",
          c->o->jobs, c->o->seconds,
          c->resumed ? ", resuming the existing corpus" : "",
          c->afl ? "" : ", ASAN_OPTIONS=", c->afl ? "" : lctx_esc(&b2, asan),
          c->afl  ? ""
          : added ? " (lctx added " LCTX_CAMPAIGN_ASAN_ADDED ")"
                  : " (yours)",
          lctx_esc(&b, c->out_dir));
  if (!c->afl)
    lctx_campaign_work_describe(&c->work, c->binary, c->out);
}

/* Minimizes what an earlier run left unminimized, starts the engines,
 * watches them, minimizes the new findings and writes the summary. */
static int run(campaign *c) {
  lctx_sys_interrupts saved;
  lctx_sys_catch_interrupts(&saved);
  lctx_findings_init(&c->findings, c->target, c->o->engine,
                     c->o->triage ? c->o->triage : c->binary, c->out_dir);
  print_header(c);
  if (last_run_killed(c))
    fprintf(c->out, "  (the last run of this campaign was killed)\n");
  write_state(c, true, 0);
  /* Minimizing gets half the time, from 10 s to 2 minutes, for both
   * passes: what the first leaves, the second may use. */
  double half = c->o->seconds / 2;
  double budget = half < 10 ? 10 : half > 120 ? 120 : half;
  double first = lctx_sys_now();
  size_t waiting = lctx_findings_count_unminimized(&c->findings);
  if (waiting > 0)
    fprintf(c->out,
            "  %zu finding(s) an earlier run left unminimized: minimizing "
            "them first\n",
            waiting);
  fflush(c->out);
  lctx_minimize_pending(&c->findings, budget, c->out);
  double start = lctx_sys_now();
  budget -= start - first;
  bool started = lctx_sys_interrupted() || fuzz(c, start);
  double fuzzed = lctx_sys_now();
  c->fuzz_seconds = fuzzed - start;
  lctx_sys_remove_tree(c->tmp_dir);
  c->interrupted = lctx_sys_interrupted();
  if (started)
    lctx_minimize_pending(&c->findings, budget, c->out);
  c->interrupted = c->interrupted || lctx_sys_interrupted();
  if (started)
    minimize_corpus(c);
  else
    c->corpus_minimized = -1;
  c->minimize_seconds = (start - first) + (lctx_sys_now() - fuzzed);
  lctx_sys_release_interrupts(&saved);
  return started ? summarize(c, start) : LCTX_EXIT_USAGE;
}

int lctx_campaign_run(const lctx_campaign_options *o, FILE *out, FILE *err) {
  if (!o->engine || !o->target || o->seconds < 1 || o->jobs < 1 ||
      o->jobs > LCTX_CAMPAIGN_MAX_JOBS ||
      (strcmp(o->engine, "libfuzzer") != 0 && strcmp(o->engine, "afl") != 0)) {
    fprintf(err, "lctx fuzz: incomplete or invalid campaign options\n");
    return LCTX_EXIT_USAGE;
  }
  campaign *c = lctx_sys_alloc(sizeof *c, "lctx fuzz", err);
  if (!c)
    return LCTX_EXIT_USAGE;
  c->o = o;
  c->out = out;
  c->err = err;
  c->lock_fd = -1;
  int code = LCTX_EXIT_USAGE;
  if (resolve(c) && make_dirs(c) &&
      (c->afl || lctx_campaign_work_init(&c->work, c->out_dir, c->token,
                                         o->no_tmpfs, o->triage, err))) {
    lctx_campaign_rows_start(&c->rows, c->target->name, c->seeds);
    code = run(c);
  }
  lctx_campaign_work_end(&c->work);
  lctx_findings_free(&c->findings);
  lctx_campaign_rows_free(&c->rows);
  if (c->lock_fd >= 0)
    close(c->lock_fd);
  free(c);
  return code;
}
