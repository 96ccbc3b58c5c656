/*
 * sweep_options.h - what `lctx sweep` is asked to do (sweep.h): the
 * options of a sweep, shared by the plan (sweep.c), the state of a running
 * sweep (sweep_state.h) and the command line.
 */
#ifndef LCTX_DRIVE_SWEEP_OPTIONS_H
#define LCTX_DRIVE_SWEEP_OPTIONS_H

/// The most exporter processes of a run (`--jobs`): each job keeps about
/// 4 cases of 87 KB in flight.
#define LCTX_SWEEP_MAX_JOBS 64

#include <stdbool.h>
#include <stddef.h>

/// What to sweep, and how.
typedef struct lctx_sweep_options {
  const char *command;   ///< the program (PROGRAM ARGS, split, no shell)
  const char *spec_path; ///< the sweep table
  const char *out_dir;   ///< reports, findings (created; a run resumes)
  unsigned long long seed;
  unsigned shard_i, shard_n; ///< 1-based; 1/1 unsharded
  size_t lists;              ///< platform lists per program
  /// "all" (every program) or "ci" (the first program of each harness
  /// group, and every other program).
  const char *subset;
  const char *group;     ///< only programs of this group (NULL: all)
  const char *kind;      ///< only programs of this kind (NULL: all)
  size_t limit;          ///< at most this many programs (0: no limit)
  double timeout;        ///< seconds per export
  double time_limit;     ///< stop after this many seconds (0: none)
  const char *known_dir; ///< recorded findings of known defects (xfail)
  /// The default known_dir: when known_dir is it, a missing folder has no
  /// known defects; any other missing path is an error.
  const char *known_default;
  bool minimize;
  bool quiet;
  long only_case; ///< run only this plan index (-1: all of the shard)
  size_t jobs;    ///< exporter processes at once (0: one; at most
                  ///< LCTX_SWEEP_MAX_JOBS)
  /// `lctx generate`: this many programs drawn from the seed (program i
  /// from (seed, i)) instead of the catalogue's; 0 for a sweep.
  size_t generate;
  /// `lctx generate --from DIR`: programs drawn from the bytes of each
  /// file of DIR (a fuzz corpus), in name order, instead of from the seed.
  const char *gen_from;
  /// Reduction exports spent minimizing one finding's program (at most).
  size_t minimize_budget;
  /// Remove the results of an earlier run in `out_dir` (and its key) and
  /// start anew rather than resume.
  bool restart;
} lctx_sweep_options;

/// Sets the defaults: seed 1, 1/1, one list a program, every program, 60 s
/// an export, minimizing.
void lctx_sweep_options_init(lctx_sweep_options *o);

#endif /* LCTX_DRIVE_SWEEP_OPTIONS_H */
