/*
 * campaign_engines.c - a fuzz campaign's engines (campaign_private.h):
 * libFuzzer's jobs and AFL++'s instances started through peer.h with the
 * campaign's mark, signalled and reaped through it, and what they report
 * (their stats, crashes and corpus entries) read from their folders.
 */
#include "campaign_private.h"

#include "escape.h"
#include "file.h"
#include "peer.h"
#include "sys.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Starts one engine in a process group of its own, dying with lctx, with
 * the campaign's mark, TMPDIR in OUT/tmp and its sanitizer options (for
 * AFL++ its settings and `afl_tmp` as AFL_TMPDIR; campaign_work.h). */
static void start(campaign *c, int slot, char *const *argv, const char *log,
                  const char *afl_tmp) {
  const char *env[32] = {MARK_NAME, c->token, "TMPDIR", c->tmp_dir};
  lctx_campaign_env store;
  int n = lctx_campaign_engine_env(env, 4, afl_tmp, &store);
  env[n] = NULL;
  /* A line of lctx's own starts each run's part of the log. */
  FILE *w = lctx_sys_fopen_in(log, "a");
  if (w) {
    fprintf(w, "%s\n", RUN_START);
    fclose(w);
  }
  lctx_peer_spec child = {.argv = argv,
                          .search_path = true,
                          .log = log,
                          .env = env,
                          .who = "lctx fuzz"};
  pid_t pid;
  (void)lctx_peer_spawn(&child, &pid, NULL); /* `who`: said in the log */
  c->pids[slot] = pid;
  c->npids += slot == c->npids;
  c->alive += pid > 0;
}

/* Job `j`'s log: OUT/logs/libfuzzer.log, libfuzzer-J.log for J >= 1. */
static const char *job_log(const campaign *c, int j, char *buf, size_t cap) {
  if (j == 0)
    return c->libfuzzer_log;
  snprintf(buf, cap, "%s/libfuzzer-%d.log", c->logs, j);
  return buf;
}

/* Job `j`: one plain libFuzzer (no -fork, whose children each read and
 * merge the corpus again) over the working corpus (reloaded: it picks up
 * the other jobs' inputs), OUT/corpus, the seeds, --corpus' copy. */
void lctx_campaign_start_libfuzzer(campaign *c, int j, double seconds) {
  lctx_libfuzzer_run run;
  memset(&run, 0, sizeof run);
  run.binary = c->binary;
  run.seconds = (int)seconds;
  run.artifacts = c->artifacts;
  run.dict = c->dict;
  size_t k = 0;
  run.corpora[k++] = c->work.dir;
  if (lctx_campaign_work_synced(&c->work))
    run.corpora[k++] = c->corpus_dir;
  if (lctx_sys_is_dir(c->seeds))
    run.corpora[k++] = c->seeds;
  if (c->o->corpus)
    run.corpora[k++] = c->given;
  lctx_libfuzzer_argv *a = malloc(sizeof *a);
  if (!a) {
    fprintf(c->err, "lctx fuzz: out of memory\n");
    return;
  }
  lctx_libfuzzer_argv_build(&run, a);
  char log[4400];
  lctx_libfuzzer_job_started(&c->jobs[j], lctx_sys_now());
  start(c, j, a->argv, job_log(c, j, log, sizeof log), NULL);
  free(a);
}

/* The CMPLOG build beside the AFL++ build (TARGET_afl -> TARGET_cmplog,
 * else PATH_cmplog) into `out`; false (with `out` named) when it is not
 * there. */
static bool cmplog_binary(const campaign *c, char *out, size_t cap) {
  size_t n = strlen(c->binary);
  if (n > 4 && strcmp(c->binary + n - 4, "_afl") == 0)
    snprintf(out, cap, "%.*s_cmplog", (int)(n - 4), c->binary);
  else
    snprintf(out, cap, "%s_cmplog", c->binary);
  return lctx_sys_is_file(out) && access(out, X_OK) == 0;
}

static void count_file(void *user, const char *path) {
  (void)path;
  ++*(size_t *)user;
}

/* AFL++'s input folder: --corpus, unless it holds no file (AFL++ refuses
 * an empty one, "no usable test cases"), then the seeds. */
static char *afl_input(const campaign *c) {
  if (!c->o->corpus)
    return (char *)c->seeds;
  size_t files = 0;
  lctx_sys_each_file(c->o->corpus, count_file, &files);
  if (files > 0)
    return (char *)c->o->corpus;
  lctx_escaped corpus, seeds;
  fprintf(c->out, "  --corpus %s is empty: AFL++ starts from the seeds (%s)\n",
          lctx_esc(&corpus, c->o->corpus), lctx_esc(&seeds, c->seeds));
  return (char *)c->seeds;
}

/* AFL++: a main instance and jobs-1 secondaries, the first of them with
 * the CMPLOG build (-c) when there is one; false after a message. */
bool lctx_campaign_start_afl(campaign *c) {
  lctx_escaped b;
  if (!lctx_sys_is_dir(c->seeds)) {
    fprintf(c->err, "lctx fuzz: %s: AFL++ needs seeds\n",
            lctx_esc(&b, c->seeds));
    return false;
  }
  char *input = afl_input(c);
  char cmplog[4200];
  bool has_cmplog = cmplog_binary(c, cmplog, sizeof cmplog);
  if (c->o->jobs >= 2)
    fprintf(c->out,
            has_cmplog ? "  secondary1 runs with CMPLOG: -c %s\n"
                       : "  no CMPLOG build (%s): the secondaries run "
                         "without -c (build it with the afl preset)\n",
            lctx_esc(&b, cmplog));
  char time_arg[64];
  snprintf(time_arg, sizeof time_arg, "%d", (int)c->o->seconds);
  for (size_t j = 0; j < c->o->jobs; j++) {
    char name[32], log[4300], tmp[PATH_MAX + 64];
    snprintf(name, sizeof name, j == 0 ? "main" : "secondary%zu", j);
    snprintf(log, sizeof log, "%s/afl-%s.log", c->logs, name);
    snprintf(tmp, sizeof tmp, "%s/afl-%s", c->tmp_dir, name);
    lctx_sys_mkdir_p(tmp);
    char *args[20];
    int n = 0;
    args[n++] = "afl-fuzz";
    args[n++] = "-i";
    args[n++] = input;
    args[n++] = "-o";
    args[n++] = c->afl_dir;
    args[n++] = j == 0 ? "-M" : "-S";
    args[n++] = name;
    args[n++] = "-V";
    args[n++] = time_arg;
    if (j == 1 && has_cmplog) {
      args[n++] = "-c";
      args[n++] = cmplog;
    }
    if (lctx_sys_is_file(c->dict)) {
      args[n++] = "-x";
      args[n++] = c->dict;
    }
    args[n++] = "--";
    args[n++] = c->binary;
    args[n] = NULL;
    start(c, (int)j, args, log, tmp);
  }
  return true;
}

/* Sends `sig` to every engine still running (to its process group). */
void lctx_campaign_signal_engines(const campaign *c, int sig) {
  for (int j = 0; j < c->npids; j++) {
    if (c->pids[j] > 0)
      (void)lctx_peer_signal(c->pids[j], sig);
  }
}

static void libfuzzer_stats(campaign *c);

/* Reaps the engines that ended; a libFuzzer job's inputs are added up and
 * its next run set (libfuzzer.h). */
void lctx_campaign_reap_engines(campaign *c) {
  for (int j = 0; j < c->npids; j++) {
    int status = 0;
    if (c->pids[j] > 0 && lctx_peer_reap(c->pids[j], false, &status)) {
      if (!c->afl)
        libfuzzer_stats(c);
      c->pids[j] = -1;
      c->alive--;
      const char *dirs[] = {c->work.dir, c->corpus_dir, c->seeds, c->given,
                            NULL};
      if (!c->afl) /* its stoppers out of the corpus, then its next run */
        lctx_libfuzzer_job_ended(
            &c->jobs[j], lctx_sys_now(),
            lctx_campaign_drop_stoppers(c->artifacts, c->jobs[j].started - 1,
                                        dirs));
      if (!c->afl && c->jobs[j].cannot_start)
        fprintf(c->out,
                "  libFuzzer job %d ran no input in %d runs: its engine "
                "cannot start; not started again\n",
                j, LCTX_LIBFUZZER_IDLE_ENDS);
      else if (!c->afl && c->jobs[j].given_up)
        fprintf(c->out,
                "  libFuzzer job %d ended at once too often: not "
                "started again (see OUT/logs)\n",
                j);
      if (!c->first_ended)
        c->first_status = status;
      c->first_ended = true;
    }
  }
}

/* Reads libFuzzer's status from the end of its log (this run's part:
 * after the last RUN_START line; libfuzzer.h reads it): exec/s, corpus
 * size, and the inputs run. */
static void libfuzzer_stats(campaign *c) {
  stats sum = {0, 0, 0};
  for (int j = 0; j < c->npids; j++) {
    lctx_libfuzzer_job *job = &c->jobs[j];
    if (c->pids[j] > 0 || job->restart_at <= 0)
      sum.execs_per_sec += job->execs_per_sec;
    if (c->pids[j] > 0) {
      char log[4400];
      const char *tail = c->tail;
      lctx_sys_read_tail(job_log(c, j, log, sizeof log), c->tail,
                         sizeof c->tail);
      for (const char *p = tail; (p = strstr(p, RUN_START)) != NULL; p++)
        tail = p;
      lctx_libfuzzer_job_read(job, tail);
    }
    sum.execs += job->execs_done + job->execs_now;
  }
  c->stats = sum;
}

/* Starts again the libFuzzer jobs whose run ended and whose next one is
 * due, while the campaign has a whole second left; returns how many jobs
 * wait for theirs. */
int lctx_campaign_restart_jobs(campaign *c, double elapsed, bool stopping) {
  int waiting = 0;
  double left = c->o->seconds - elapsed;
  for (int j = 0; j < c->npids && !c->afl; j++) {
    lctx_libfuzzer_job *job = &c->jobs[j];
    if (c->pids[j] > 0 || job->restart_at <= 0)
      continue;
    if (stopping || left < 1) {
      job->restart_at = 0;
      continue;
    }
    if (lctx_sys_now() < job->restart_at) {
      waiting++;
      continue;
    }
    job->restarts++;
    lctx_campaign_start_libfuzzer(c, j, left);
  }
  return waiting;
}

/* The value of the field `name` in AFL++'s fuzzer_stats text (`name : value`
 * lines, the name padded with spaces); false when it is not there. */
static bool stats_field(const char *text, const char *name, double *value) {
  size_t len = strlen(name);
  for (const char *line = text; line && *line;) {
    const char *p = line + len;
    if (strncmp(line, name, len) == 0 && (*p == ' ' || *p == ':')) {
      p += strspn(p, " ");
      if (*p == ':') {
        *value = strtod(p + 1, NULL);
        return true;
      }
    }
    line = strchr(line, '\n');
    line = line ? line + 1 : NULL;
  }
  return false;
}

/* The column `name` of the last row of AFL++'s plot_data `text` (a header
 * line `# relative_time, cycles_done, ..., execs_per_sec, total_execs,
 * ...` naming the columns, then one row of comma-separated values per
 * update); false when the header has no such column or there is no row. */
static bool plot_field(const char *text, const char *name, double *value) {
  if (text[0] != '#')
    return false;
  size_t column = 0, len = strlen(name);
  const char *p = text + 1, *end = strchr(text, '\n');
  for (;; column++) {
    p += strspn(p, " ");
    if (strncmp(p, name, len) == 0 && strchr(",\n", p[len]))
      break;
    p = strchr(p, ',');
    if (!p || (end && p > end))
      return false;
    p++;
  }
  /* The last complete row (AFL++ may be writing the one after it). */
  const char *row = NULL;
  for (const char *l = end ? end + 1 : NULL; l && *l;) {
    const char *nl = strchr(l, '\n');
    if (!nl)
      break;
    if (*l != '#')
      row = l;
    l = nl + 1;
  }
  const char *row_end = row ? strchr(row, '\n') : NULL;
  for (size_t k = 0; row && k < column; k++) {
    row = strchr(row, ',');
    row = row && row < row_end ? row + 1 : NULL;
  }
  if (!row)
    return false;
  *value = strtod(row, NULL);
  return true;
}

/* Reads a small file of an AFL++ instance; NULL when it cannot. */
static char *read_small(const char *path) {
  char *text = NULL;
  size_t n = 0;
  return lctx_file_read(path, 8u << 20, &text, &n, NULL) ? text : NULL;
}

/* Adds one AFL++ instance's figures from its folder: fuzzer_stats, which
 * AFL++ writes at start, once a minute (STATS_UPDATE_SEC 60 in its
 * config.h) and at exit, and plot_data, whose row it appends every 5 s
 * (PLOT_UPDATE_SEC). The inputs run: the larger of fuzzer_stats'
 * execs_done and plot_data's total_execs; the rate: plot_data's
 * execs_per_sec (AFL++'s smoothed live rate), else execs_done over
 * fuzzer_stats' run_time once that is a second or more, never fuzzer_stats'
 * execs_per_sec, which is execs_done over the time since start when it
 * was written (99 inputs in its first millisecond: "99000"). */
static void afl_stats(const char *instance, stats *s) {
  char path[4800];
  snprintf(path, sizeof path, "%s/fuzzer_stats", instance);
  char *fs = read_small(path);
  snprintf(path, sizeof path, "%s/plot_data", instance);
  char *plot = read_small(path);
  double done = 0, total = 0, rate = 0, run_time = 0, corpus = 0;
  bool stats_done = fs && stats_field(fs, "execs_done", &done);
  if (plot && plot_field(plot, "execs_per_sec", &rate))
    (void)plot_field(plot, "total_execs", &total);
  else if (stats_done && fs && stats_field(fs, "run_time", &run_time) &&
           run_time >= 1)
    rate = done / run_time;
  if (!(plot && plot_field(plot, "corpus_count", &corpus)) && fs)
    (void)stats_field(fs, "corpus_count", &corpus);
  s->execs += (unsigned long long)(total > done ? total : done);
  s->execs_per_sec += rate;
  s->corpus += (size_t)corpus;
  free(fs);
  free(plot);
}

void lctx_campaign_take_crash(void *user, const char *path) {
  lctx_findings_take(user, path);
}

/* One AFL++ instance's folder: its stats, crashes and queue. */
static void scan_afl_instance(void *user, const char *instance) {
  campaign *c = user;
  char path[4700];
  afl_stats(instance, &c->stats);
  snprintf(path, sizeof path, "%s/crashes", instance);
  lctx_sys_each_file(path, lctx_campaign_take_crash, &c->findings);
  snprintf(path, sizeof path, "%s/queue", instance);
  lctx_campaign_rows_scan(&c->rows, path);
}

/* Takes the engines' new crash inputs and corpus entries, and their
 * stats. */
void lctx_campaign_scan(campaign *c) {
  c->stats.execs_per_sec = 0;
  c->stats.corpus = 0;
  if (c->afl) {
    c->stats.execs = 0;
    lctx_sys_each_entry(c->afl_dir, scan_afl_instance, c);
    /* The corpus: the main queue, which the end minimizes (the instances'
     * own counts hold what they took from one another). */
    char queue[4300];
    snprintf(queue, sizeof queue, "%s/main/queue", c->afl_dir);
    c->stats.corpus = lctx_sys_count_entries(queue);
    /* execs_done goes on from a resumed run's count, or starts again. */
    unsigned long long now = c->stats.execs;
    now = now >= c->execs_before ? now - c->execs_before : now;
    c->execs = now > c->execs ? now : c->execs;
    return;
  }
  libfuzzer_stats(c);
  c->execs = c->stats.execs > c->execs ? c->stats.execs : c->execs;
  lctx_campaign_work_sync(&c->work, false);
  /* The corpus: the campaign's own (campaign_work.h), not libFuzzer's count
   * of what it holds in memory (the seeds it kept in, the inputs it
   * replaced by smaller ones out, one job's alone). */
  c->stats.corpus = lctx_campaign_work_count(&c->work);
  lctx_sys_each_file(c->artifacts, lctx_campaign_take_crash, &c->findings);
  lctx_campaign_rows_scan(&c->rows, c->corpus_dir);
}

/* AFL++'s execs_done of every instance (a resumed run goes on counting). */
void lctx_campaign_add_afl_execs(void *user, const char *instance) {
  stats s = {0, 0, 0};
  afl_stats(instance, &s);
  *(unsigned long long *)user += s.execs;
}
