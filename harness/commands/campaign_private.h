/*
 * campaign_private.h - what campaign.c (the run, its live line and
 * summary) and campaign_engines.c (starting, signalling, reaping and
 * reading the engines) share: the state of one campaign run. Private to
 * the campaign (campaign.h is its interface).
 */
#ifndef LCTX_COMMANDS_CAMPAIGN_PRIVATE_H
#define LCTX_COMMANDS_CAMPAIGN_PRIVATE_H

#include "campaign.h"
#include "campaign_guard.h"
#include "campaign_rows.h"
#include "campaign_work.h"
#include "findings.h"
#include "libfuzzer.h"
#include "minimize.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/* The name of the environment variable that marks the engines. */
#define MARK_NAME "LCTX_FUZZ_CAMPAIGN"
/* The line lctx writes to an engine's log before each run. */
#define RUN_START "== lctx fuzz: a run starts here"

/* Engine throughput, summed over the instances. */
typedef struct stats {
  double execs_per_sec;
  unsigned long corpus;
  /* Inputs run (libFuzzer: this run's; AFL++: fuzzer_stats' execs_done,
   * earlier runs included). */
  unsigned long long execs;
} stats;

/* One campaign run: everything lctx_campaign_run works with, passed down
 * instead of file-scope state; allocated once per run. */
typedef struct campaign {
  const lctx_campaign_options *o;
  const lctx_fuzz_target *target;
  bool afl;
  FILE *out, *err;
  /* The engine's build and the campaign directory's parts (campaign.h). */
  char binary[4096], out_dir[4096];
  char seeds[4200], dict[4200], corpus_dir[4200], artifacts[4200], given[4200];
  char logs[4200], afl_dir[4200], libfuzzer_log[4300];
  /* OUT/tmp, absolute: the engines' TMPDIR, removed at the end. */
  char tmp_dir[PATH_MAX];
  /* The mark in every engine's environment: MARK_NAME=token. */
  char token[64], mark[128];
  /* OUT/.lock, held while the campaign runs (-1: not taken). */
  int lock_fd;
  bool resumed; /* the corpus was not empty at the start */
  /* The engines' process groups (-1 once reaped), how many still run. */
  pid_t pids[LCTX_CAMPAIGN_MAX_JOBS];
  int npids, alive;
  /* How the first engine to end ended (a wait status), if one did. */
  int first_status;
  bool first_ended;
  /* libFuzzer's jobs (libfuzzer.h), one plain process each. */
  lctx_libfuzzer_job jobs[LCTX_CAMPAIGN_MAX_JOBS];
  /* libFuzzer's working corpus (a tmpfs, or OUT/corpus) and the fast
   * mode's triage (campaign_work.h). */
  lctx_campaign_work work;
  /* The guard (campaign_guard.h). */
  lctx_campaign_guard guard;
  lctx_campaign_rows rows;
  stats stats;
  /* Inputs run by this run's engines (the most seen), AFL++'s execs_done
   * at the start. */
  unsigned long long execs, execs_before;
  /* SIGINT or SIGTERM stopped the run. */
  bool interrupted;
  char tail[65536]; /* the end of libFuzzer's log */
  lctx_findings findings;
  /* The corpus minimized at the end: done (0), failed (1), not run (-1);
   * its files before and after. */
  int corpus_minimized;
  lctx_corpus_result corpus;
  /* The corpus the last live line showed, and the triage's flagged inputs
   * then. */
  unsigned long corpus_shown;
  size_t flagged_shown;
  /* Seconds the engines ran, and minimizing (findings and corpus) took. */
  double fuzz_seconds, minimize_seconds;
} campaign;

/// Starts libFuzzer job `j` for at most `seconds` (campaign_engines.c).
void lctx_campaign_start_libfuzzer(campaign *c, int j, double seconds);

/// Starts the AFL++ instances; false when they cannot start.
bool lctx_campaign_start_afl(campaign *c);

/// Sends `sig` to every engine still running (to its process group).
void lctx_campaign_signal_engines(const campaign *c, int sig);

/// Reaps the engines that ended; a libFuzzer job's inputs are added up and
/// its next run set (libfuzzer.h).
void lctx_campaign_reap_engines(campaign *c);

/// Starts again the libFuzzer jobs whose run ended and whose next one is
/// due, while the campaign has a whole second left; returns how many jobs
/// wait for theirs.
int lctx_campaign_restart_jobs(campaign *c, double elapsed, bool stopping);

/// Takes the crash input `path` into the lctx_findings `user`.
void lctx_campaign_take_crash(void *user, const char *path);

/// Takes the engines' new crash inputs and corpus entries, and their stats.
void lctx_campaign_scan(campaign *c);

/// Adds AFL++'s execs_done of the instance folder `instance` to the
/// unsigned long long `user` (a resumed run goes on counting).
void lctx_campaign_add_afl_execs(void *user, const char *instance);

#endif /* LCTX_COMMANDS_CAMPAIGN_PRIVATE_H */
