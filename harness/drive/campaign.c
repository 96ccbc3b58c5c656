/*
 * campaign.c - the engines of a fuzz campaign, its live line and its
 * summary (see campaign.h).
 */
#include "campaign.h"

#include "case_bytes.h"
#include "exit.h"
#include "file.h"
#include "findings.h"
#include "minimize.h"
#include "oracle.h"
#include "sys.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef LCTX_SOURCE_DIR
#define LCTX_SOURCE_DIR "."
#endif

/* Engine throughput, summed over the instances. */
typedef struct stats {
  double execs_per_sec;
  unsigned long corpus;
} stats;

/* The spec rows the corpus hits (fuzz_model and fuzz_differential inputs
 * are cases). */
typedef struct rows_tracker {
  bool enabled;
  lctx_spec spec;
  lctx_oracle oracle;
  lctx_seen seen; /* corpus files already judged */
  lctx_case scratch;
} rows_tracker;

/* One campaign run: everything lctx_campaign_run works with, passed down
 * instead of file-scope state; allocated once per run. */
typedef struct campaign {
  const lctx_campaign_options *o;
  const lctx_fuzz_target *target;
  bool afl;
  FILE *out, *err;
  /* The engine's build and the campaign directory's parts (campaign.h). */
  char binary[4096], out_dir[4096];
  char seeds[4200], dict[4200], corpus_dir[4200], artifacts[4200];
  char logs[4200], afl_dir[4200], libfuzzer_log[4300];
  /* The corpus was not empty at the start. */
  bool resumed;
  /* The engines' process groups (-1 once reaped), how many still run. */
  pid_t pids[LCTX_CAMPAIGN_MAX_JOBS];
  int npids, alive;
  rows_tracker rows;
  stats stats;
  char tail[65536]; /* the end of libFuzzer's log */
  lctx_findings findings;
} campaign;

void lctx_campaign_options_init(lctx_campaign_options *o) {
  memset(o, 0, sizeof *o);
  o->seconds = -1;
  o->jobs = 1;
}

//===----------------------------------------------------------------------===//
// The campaign directory
//===----------------------------------------------------------------------===//

/* The target, the build and the paths; false after a message. */
static bool resolve(campaign *c) {
  const lctx_campaign_options *o = c->o;
  c->target = lctx_fuzz_target_find(o->target);
  if (!c->target) {
    fprintf(c->err,
            "lctx fuzz: --target: unknown target '%s' (fuzz_model, "
            "fuzz_case_text, fuzz_spec, fuzz_differential, fuzz_lowering)\n",
            o->target);
    return false;
  }
  c->afl = strcmp(o->engine, "afl") == 0;
  const char *preset = c->afl ? "afl" : "fuzz";
  if (o->binary)
    snprintf(c->binary, sizeof c->binary, "%s", o->binary);
  else
    snprintf(c->binary, sizeof c->binary, "%s/build/%s/fuzzers/%s%s",
             LCTX_SOURCE_DIR, preset, o->target, c->afl ? "_afl" : "");
  if (!lctx_sys_is_file(c->binary) || access(c->binary, X_OK) != 0) {
    fprintf(c->err,
            "lctx fuzz: %s: no %s build of %s (build it with: cmake --preset "
            "%s && cmake --build --preset %s)\n",
            c->binary, o->engine, o->target, preset, preset);
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
  snprintf(c->dict, sizeof c->dict, "%s/fuzzers/dict/%s.dict", LCTX_SOURCE_DIR,
           o->target);
  if (o->corpus && !lctx_sys_is_dir(o->corpus)) {
    fprintf(c->err, "lctx fuzz: --corpus: %s is not a directory\n", o->corpus);
    return false;
  }
  snprintf(c->corpus_dir, sizeof c->corpus_dir, "%s/corpus", c->out_dir);
  snprintf(c->artifacts, sizeof c->artifacts, "%s/artifacts", c->out_dir);
  snprintf(c->logs, sizeof c->logs, "%s/logs", c->out_dir);
  snprintf(c->afl_dir, sizeof c->afl_dir, "%s/afl", c->out_dir);
  snprintf(c->libfuzzer_log, sizeof c->libfuzzer_log, "%s/libfuzzer.log",
           c->logs);
  return true;
}

/* Copies one seed file into the flat seed folder `user`, unless there. */
static void copy_seed(void *user, const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if (strcmp(base, "README.md") == 0)
    return;
  char dest[4500];
  snprintf(dest, sizeof dest, "%s/%s", (const char *)user, base);
  char *data = NULL;
  size_t n = 0;
  if (!lctx_sys_is_file(dest) &&
      lctx_file_read(path, LCTX_FINDINGS_MAX_INPUT, &data, &n, NULL))
    lctx_sys_write_file(dest, data, n);
  free(data);
}

/* Creates the campaign directory and its seeds; false after a message. */
static bool make_dirs(campaign *c) {
  char findings[4200];
  snprintf(findings, sizeof findings, "%s/findings", c->out_dir);
  if (!lctx_sys_mkdir_p(c->corpus_dir) || !lctx_sys_mkdir_p(c->artifacts) ||
      !lctx_sys_mkdir_p(c->logs) || !lctx_sys_mkdir_p(findings) ||
      (c->afl && !lctx_sys_mkdir_p(c->afl_dir))) {
    fprintf(c->err, "lctx fuzz: %s: cannot create the campaign directory: %s\n",
            c->out_dir, strerror(errno));
    return false;
  }
  if (!lctx_sys_mkdir_p(c->seeds)) {
    fprintf(c->err, "lctx fuzz: %s: cannot create: %s\n", c->seeds,
            strerror(errno));
    return false;
  }
  char source[4200];
  snprintf(source, sizeof source, "%s/corpus/seeds/%s", LCTX_SOURCE_DIR,
           c->o->target);
  lctx_sys_each_file(source, copy_seed, c->seeds);
  if (lctx_sys_count_entries(c->seeds) == 0) {
    /* An engine needs at least one seed: the empty input will do. */
    char empty[4300];
    snprintf(empty, sizeof empty, "%s/empty", c->seeds);
    lctx_sys_write_file(empty, "", 0);
  }
  c->resumed = lctx_sys_count_entries(c->afl ? c->afl_dir : c->corpus_dir) > 0;
  return true;
}

//===----------------------------------------------------------------------===//
// Rows hit by the corpus (fuzz_model, fuzz_differential)
//===----------------------------------------------------------------------===//

static void rows_visit(void *user, const char *path) {
  rows_tracker *rows = user;
  if (!lctx_seen_add(&rows->seen, path))
    return;
  char *data = NULL;
  size_t n = 0;
  if (!lctx_file_read(path, LCTX_FINDINGS_MAX_INPUT, &data, &n, NULL))
    return;
  lctx_case_decode((const uint8_t *)data, n, &rows->scratch);
  free(data);
  lctx_oracle_check_case(&rows->oracle, &rows->scratch);
}

static size_t rows_hit(const rows_tracker *rows) {
  size_t n = 0;
  for (size_t i = 0; i < rows->spec.row_count; i++)
    n += rows->oracle.hits[i] > 0;
  return n;
}

/* Judges the seeds (the corpus starts from these) when inputs are cases. */
static void rows_start(campaign *c) {
  rows_tracker *rows = &c->rows;
  const char *t = c->target->name;
  rows->enabled =
      strcmp(t, "fuzz_model") == 0 || strcmp(t, "fuzz_differential") == 0;
  if (!rows->enabled)
    return;
  char e[256];
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  lctx_str spec = lctx_fuzz_embedded_spec();
  rows->enabled =
      lctx_spec_parse(spec.data, spec.length, "<spec>", &rows->spec, &eb);
  lctx_oracle_init(&rows->oracle, &rows->spec, lctx_engine_reference());
  rows->oracle.invariants = false;
  if (rows->enabled)
    lctx_sys_each_file(c->seeds, rows_visit, rows);
}

//===----------------------------------------------------------------------===//
// Engines
//===----------------------------------------------------------------------===//

static void start(campaign *c, char *const *argv, const char *log,
                  bool afl_env) {
  static const char *const afl_vars[] = {
      "AFL_SKIP_CPUFREQ",
      "1",
      "AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES",
      "1",
      "AFL_NO_UI",
      "1",
      "AFL_AUTORESUME",
      "1",
      "AFL_NO_AFFINITY",
      "1",
      NULL};
  lctx_sys_child child = {
      argv, true, log, true, NULL, afl_env ? afl_vars : NULL, "lctx fuzz"};
  pid_t pid = lctx_sys_spawn(&child);
  c->pids[c->npids++] = pid;
  c->alive += pid > 0;
}

static void start_libfuzzer(campaign *c) {
  char time_arg[64], jobs_arg[64], artifact_arg[4300], dict_arg[4300];
  snprintf(time_arg, sizeof time_arg, "-max_total_time=%d", (int)c->o->seconds);
  snprintf(jobs_arg, sizeof jobs_arg, "-fork=%zu", c->o->jobs);
  snprintf(artifact_arg, sizeof artifact_arg, "-artifact_prefix=%s/",
           c->artifacts);
  snprintf(dict_arg, sizeof dict_arg, "-dict=%s", c->dict);
  char *args[16];
  int n = 0;
  args[n++] = c->binary;
  args[n++] = jobs_arg;
  args[n++] = "-ignore_crashes=1";
  args[n++] = "-ignore_timeouts=1";
  args[n++] = "-ignore_ooms=1";
  args[n++] = time_arg;
  args[n++] = artifact_arg;
  args[n++] = "-print_final_stats=1";
  if (lctx_sys_is_file(c->dict))
    args[n++] = dict_arg;
  args[n++] = c->corpus_dir;
  if (lctx_sys_is_dir(c->seeds))
    args[n++] = c->seeds;
  if (c->o->corpus)
    args[n++] = (char *)c->o->corpus;
  args[n] = NULL;
  start(c, args, c->libfuzzer_log, false);
}

/* AFL++: a main instance and jobs-1 secondaries; false after a message. */
static bool start_afl(campaign *c) {
  if (!lctx_sys_is_dir(c->seeds)) {
    fprintf(c->err, "lctx fuzz: %s: AFL++ needs seeds\n", c->seeds);
    return false;
  }
  char time_arg[64];
  snprintf(time_arg, sizeof time_arg, "%d", (int)c->o->seconds);
  for (size_t j = 0; j < c->o->jobs; j++) {
    char name[32], log[4300];
    snprintf(name, sizeof name, j == 0 ? "main" : "secondary%zu", j);
    snprintf(log, sizeof log, "%s/afl-%s.log", c->logs, name);
    char *args[20];
    int n = 0;
    args[n++] = "afl-fuzz";
    args[n++] = "-i";
    args[n++] = c->o->corpus ? (char *)c->o->corpus : c->seeds;
    args[n++] = "-o";
    args[n++] = c->afl_dir;
    args[n++] = j == 0 ? "-M" : "-S";
    args[n++] = name;
    args[n++] = "-V";
    args[n++] = time_arg;
    if (lctx_sys_is_file(c->dict)) {
      args[n++] = "-x";
      args[n++] = c->dict;
    }
    args[n++] = "--";
    args[n++] = c->binary;
    args[n] = NULL;
    start(c, args, log, true);
  }
  return true;
}

/* Sends `sig` to every engine still running (to its process group). */
static void signal_engines(const campaign *c, int sig) {
  for (int j = 0; j < c->npids; j++) {
    if (c->pids[j] > 0)
      kill(-c->pids[j], sig);
  }
}

static void reap_engines(campaign *c) {
  for (int j = 0; j < c->npids; j++) {
    if (c->pids[j] > 0 && waitpid(c->pids[j], NULL, WNOHANG) == c->pids[j]) {
      c->pids[j] = -1;
      c->alive--;
    }
  }
}

//===----------------------------------------------------------------------===//
// The live line
//===----------------------------------------------------------------------===//

/* Reads libFuzzer's last status line from the end of its log. */
static void libfuzzer_stats(campaign *c) {
  const char *tail = c->tail;
  lctx_sys_read_tail(c->libfuzzer_log, c->tail, sizeof c->tail);
  const char *last = NULL;
  for (const char *p = tail; (p = strstr(p, "exec/s: ")) != NULL; p++)
    last = p;
  if (!last)
    return;
  c->stats.execs_per_sec = strtod(last + 8, NULL);
  const char *line = last;
  while (line > tail && line[-1] != '\n')
    line--;
  const char *corp = strstr(line, "corp: ");
  if (corp && corp < last)
    c->stats.corpus = strtoul(corp + 6, NULL, 10);
}

/* Adds one AFL++ instance's fuzzer_stats (`name : value` lines). */
static void afl_stats(const char *path, stats *s) {
  char *text = NULL;
  size_t n = 0;
  if (!lctx_file_read(path, 1 << 20, &text, &n, NULL))
    return;
  for (const char *line = text; line && *line;) {
    const char *colon = strchr(line, ':');
    const char *nl = strchr(line, '\n');
    if (colon && (!nl || colon < nl)) {
      if (strncmp(line, "execs_per_sec", 13) == 0)
        s->execs_per_sec += strtod(colon + 1, NULL);
      else if (strncmp(line, "corpus_count", 12) == 0)
        s->corpus += strtoul(colon + 1, NULL, 10);
    }
    line = nl ? nl + 1 : NULL;
  }
  free(text);
}

static void take_crash(void *user, const char *path) {
  lctx_findings_take(user, path);
}

/* One AFL++ instance's folder: its stats, crashes and queue. */
static void scan_afl_instance(void *user, const char *instance) {
  campaign *c = user;
  char path[4700];
  snprintf(path, sizeof path, "%s/fuzzer_stats", instance);
  afl_stats(path, &c->stats);
  snprintf(path, sizeof path, "%s/crashes", instance);
  lctx_sys_each_file(path, take_crash, &c->findings);
  if (c->rows.enabled) {
    snprintf(path, sizeof path, "%s/queue", instance);
    lctx_sys_each_file(path, rows_visit, &c->rows);
  }
}

/* Takes the engines' new crash inputs and corpus entries, and their
 * stats. */
static void scan(campaign *c) {
  c->stats.execs_per_sec = 0;
  c->stats.corpus = 0;
  if (c->afl) {
    lctx_sys_each_entry(c->afl_dir, scan_afl_instance, c);
    return;
  }
  libfuzzer_stats(c);
  lctx_sys_each_file(c->artifacts, take_crash, &c->findings);
  if (c->rows.enabled)
    lctx_sys_each_file(c->corpus_dir, rows_visit, &c->rows);
}

static void live_line(const campaign *c, double elapsed, bool tty) {
  char rows[64] = "n/a";
  if (c->rows.enabled)
    snprintf(rows, sizeof rows, "%zu/%zu", rows_hit(&c->rows),
             c->rows.spec.row_count);
  fprintf(c->out,
          "%s[%5.0fs] exec/s %9.0f  corpus %6lu  findings %zu (%zu "
          "unique)  spec rows hit %s%s",
          tty ? "\r" : "", elapsed, c->stats.execs_per_sec, c->stats.corpus,
          c->findings.total, c->findings.fresh, rows, tty ? "\033[K" : "\n");
  fflush(c->out);
}

/* Until every engine has ended: reaps them, stops them after their time
 * (+30 s) or on Ctrl-C (SIGINT, then SIGKILL 10 s later), takes their
 * findings and prints the live line (every 10 s, or always on a tty). */
static void watch(campaign *c, double start) {
  bool tty = isatty(fileno(c->out)) != 0;
  double last_line = 0, stop_at = 0;
  bool stopping = false;
  while (c->alive > 0) {
    lctx_sys_sleep(0.5);
    reap_engines(c);
    double elapsed = lctx_sys_now() - start;
    if (!stopping && (lctx_sys_interrupted() || elapsed > c->o->seconds + 30)) {
      stopping = true;
      stop_at = lctx_sys_now();
      signal_engines(c, SIGINT);
    }
    if (stopping && lctx_sys_now() - stop_at > 10)
      signal_engines(c, SIGKILL);
    scan(c);
    if (tty || elapsed - last_line >= 10 || c->alive == 0) {
      live_line(c, elapsed, tty);
      last_line = elapsed;
    }
  }
  if (tty)
    fputc('\n', c->out);
}

//===----------------------------------------------------------------------===//
// The run
//===----------------------------------------------------------------------===//

static void print_summary(const campaign *c, FILE *w, double seconds,
                          size_t unique) {
  const lctx_findings *f = &c->findings;
  fprintf(w,
          "lctx fuzz: %s under %s %s after %.0f s: %zu crash input(s) "
          "this run, %zu new finding(s), %zu finding(s) in all\n",
          c->o->target, c->o->engine,
          lctx_sys_interrupted() ? "stopped" : "finished", seconds, f->total,
          f->fresh, unique);
  if (c->rows.enabled)
    fprintf(w, "  spec rows hit by the corpus: %zu of %zu\n",
            rows_hit(&c->rows), c->rows.spec.row_count);
  fprintf(w, "  corpus:   %s\n  findings: %s\n  logs:     %s\n",
          c->afl ? c->afl_dir : c->corpus_dir, f->dir, c->logs);
  for (size_t i = 0; i < f->fresh && i < LCTX_FINDINGS_MAX_NEW; i++)
    fprintf(w, "  new finding: %s\n    reproduce: see %s/reproduce.txt\n",
            f->new_dirs[i], f->new_dirs[i]);
}

/* The summary, to `out` and OUT/summary.txt. Returns the exit code. */
static int summarize(const campaign *c, double start) {
  size_t unique = lctx_findings_count(&c->findings);
  double seconds = lctx_sys_now() - start;
  print_summary(c, c->out, seconds, unique);
  char path[4300];
  snprintf(path, sizeof path, "%s/summary.txt", c->out_dir);
  FILE *f = fopen(path, "w");
  if (f) {
    print_summary(c, f, seconds, unique);
    fclose(f);
  }
  return unique > 0 ? LCTX_EXIT_VIOLATIONS : LCTX_EXIT_OK;
}

/* Starts the engines, watches them, minimizes the new findings and writes
 * the summary. */
static int run(campaign *c) {
  if (!c->afl)
    start_libfuzzer(c);
  else if (!start_afl(c))
    return LCTX_EXIT_USAGE;
  lctx_sys_interrupts saved;
  lctx_sys_catch_interrupts(&saved);
  lctx_findings_init(&c->findings, c->target, c->o->engine, c->binary,
                     c->out_dir);
  fprintf(c->out,
          "lctx fuzz: %s under %s, %zu job(s), %.0f s%s; campaign in %s\n"
          "  (Ctrl-C stops it early and keeps the corpus and findings)\n",
          c->o->target, c->o->engine, c->o->jobs, c->o->seconds,
          c->resumed ? ", resuming the existing corpus" : "", c->out_dir);
  fflush(c->out);
  double start = lctx_sys_now();
  watch(c, start);
  /* Minimize the new findings, within a time budget. */
  double half = c->o->seconds / 2;
  lctx_minimize_findings(&c->findings,
                         half < 10    ? 10
                         : half > 120 ? 120
                                      : half,
                         c->out);
  lctx_sys_release_interrupts(&saved);
  return summarize(c, start);
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
  int code = LCTX_EXIT_USAGE;
  if (resolve(c) && make_dirs(c)) {
    rows_start(c);
    code = run(c);
  }
  lctx_findings_free(&c->findings);
  lctx_seen_free(&c->rows.seen);
  free(c);
  return code;
}
