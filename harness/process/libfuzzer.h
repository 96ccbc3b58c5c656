/*
 * libfuzzer.h - running a libFuzzer build: its command line and what its
 * log says.
 *
 * Owns, once for every caller that starts a libFuzzer target (the campaign,
 * campaign.h; the kill matrix's fuzz runs, mutants.h): the arguments of a
 * run (-fork=N with the -ignore_* flags, -seed, -max_total_time, -timeout,
 * -artifact_prefix, -print_final_stats=1, the dictionary when its file
 * exists, the `[libfuzzer]` options of a TARGET.options file, the corpus
 * folders last), and the reading of its output: the inputs run (the
 * largest `#N` of a status line, or stat::number_of_executed_units), the
 * last rate (`exec/s: N` of a job's status line, `exec/s N` of -fork's);
 * and a campaign job's runs
 * (lctx_libfuzzer_job): one plain libFuzzer process at a time, restarted
 * after it stops on a finding, its inputs summed over its runs, its
 * restarts held back when runs end at once (a target that crashes on
 * every input cannot make the campaign spin), and given up at once when
 * its runs run no input at all (an engine that cannot start).
 */
#ifndef LCTX_DRIVE_LIBFUZZER_H
#define LCTX_DRIVE_LIBFUZZER_H

#include <stdbool.h>
#include <stddef.h>

/// The most `[libfuzzer]` options read from a TARGET.options file.
#define LCTX_LIBFUZZER_MAX_OPTIONS 16
/// The most corpus folders of one run.
#define LCTX_LIBFUZZER_MAX_CORPORA 4

/// One run of a libFuzzer build.
typedef struct lctx_libfuzzer_run {
  /// The build (argv[0]).
  const char *binary;
  /// -fork=N with -ignore_crashes=1, -ignore_timeouts=1, -ignore_ooms=1
  /// (go on after a finding); 0: one process, stopping at the first.
  size_t fork;
  /// -max_total_time (whole seconds, rounded); 0: none.
  double seconds;
  /// -seed=N when `has_seed`.
  bool has_seed;
  unsigned long long seed;
  /// -timeout=N (seconds per input) when more than 0.
  int timeout;
  /// -artifact_prefix=DIR/ when not NULL.
  const char *artifacts;
  /// -dict=PATH when not NULL and the file exists.
  const char *dict;
  /// A TARGET.options file whose `[libfuzzer]` `key = value` lines become
  /// -key=value (a relative `dict` is taken from the file's folder); NULL
  /// or a missing file: none.
  const char *options_file;
  /// The corpus folders, NULL-terminated (the first one gets new inputs).
  const char *corpora[LCTX_LIBFUZZER_MAX_CORPORA + 1];
} lctx_libfuzzer_run;

/// A built command line: `argv`, NULL-terminated, pointing into `text`
/// and the run's strings (which must outlive it).
typedef struct lctx_libfuzzer_argv {
  char *argv[16 + LCTX_LIBFUZZER_MAX_OPTIONS + LCTX_LIBFUZZER_MAX_CORPORA];
  char text[8 + LCTX_LIBFUZZER_MAX_OPTIONS][4352];
} lctx_libfuzzer_argv;

/// Builds the command line of `run` into `a` (-fork first when forking).
void lctx_libfuzzer_argv_build(const lctx_libfuzzer_run *run,
                               lctx_libfuzzer_argv *a);

/// What a libFuzzer log says.
typedef struct lctx_libfuzzer_stats {
  /// Inputs run: the largest `#N` starting a line, or
  /// stat::number_of_executed_units when larger; 0: none said.
  unsigned long long execs;
  /// The last rate said (0: none).
  double execs_per_sec;
} lctx_libfuzzer_stats;

/// Reads `log` (a NUL-terminated text: a whole log, or its part of one
/// run) into `s`.
void lctx_libfuzzer_parse(const char *log, lctx_libfuzzer_stats *s);

/// A run that ends within this many seconds of its start ended at once.
#define LCTX_LIBFUZZER_QUICK_SECONDS 2.0
/// After this many runs in a row that ended at once without an input taken
/// out of the corpus (or 8 times as many with), a job is not restarted
/// again; before that, each such restart without waits 0.25 s, doubled per
/// run in a row (at most 8 s).
#define LCTX_LIBFUZZER_QUICK_ENDS 8

/// A job none of whose runs has run an input is not restarted after this
/// many runs that took nothing out of the corpus: its engine cannot start
/// (a library it cannot load, an option it refuses), and running it again
/// only hides why (its log says).
#define LCTX_LIBFUZZER_IDLE_ENDS 2
/// One job of a campaign: a plain libFuzzer process (no -fork), started
/// again on the same corpus when it stops on a crash, leak or timeout.
typedef struct lctx_libfuzzer_job {
  /// Inputs run by its ended runs, and by the current one so far.
  unsigned long long execs_done, execs_now;
  /// The current run's last rate (0: none said).
  double execs_per_sec;
  /// When the current run started; when to start the next one (0: none
  /// due); how many runs in a row ended at once; restarts so far.
  double started, restart_at;
  int quick;
  size_t restarts;
  /// Runs in a row that ran no input and took nothing out of the corpus.
  int idle;
  /// Not restarted again (LCTX_LIBFUZZER_QUICK_ENDS runs ended at once,
  /// or LCTX_LIBFUZZER_IDLE_ENDS ran nothing: `cannot_start`).
  bool given_up, cannot_start;
} lctx_libfuzzer_job;

/// A run of `j` starts at `now`.
void lctx_libfuzzer_job_started(lctx_libfuzzer_job *j, double now);

/// Reads what the current run's part of its log (`log`) says into `j`.
void lctx_libfuzzer_job_read(lctx_libfuzzer_job *j, const char *log);

/// The current run of `j` ended at `now` (its log read last), `dropped`
/// inputs that stopped it taken out of the corpus: adds its inputs and
/// sets when to start the next one (restart_at), or given_up (and
/// cannot_start when no run of the job has run an input).
void lctx_libfuzzer_job_ended(lctx_libfuzzer_job *j, double now,
                              size_t dropped);

#endif /* LCTX_DRIVE_LIBFUZZER_H */
