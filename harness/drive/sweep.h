/*
 * sweep.h - `lctx sweep`: real JAX's own programs exported under seeded
 * platform lists through the process protocol's export extension, judged
 * by the sweep rows (sweepjudge.h), as a campaign.
 *
 * Owns the plan (the catalogue's programs, filtered, times platform lists
 * drawn from the seed; sharded), the requests of each case (P, P
 * reordered, ("cpu",), each platform alone when needed), resuming from
 * results.jsonl, the live line, a clean stop on an interrupt, findings
 * kept once per key with their recorded answers and minimized (fewest
 * platforms, then the smallest program of the group), the reports
 * (conform_report.h's files, so `lctx report merge` merges shards), the
 * reach of the catalogue over JAX's lowering primitives, and the recorded
 * sweep case files (`--judge` judges their answers offline, `--replay`
 * exports them again).
 */
#ifndef LCTX_DRIVE_SWEEP_H
#define LCTX_DRIVE_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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
  bool minimize;
  bool quiet;
  long only_case; ///< run only this plan index (-1: all of the shard)
} lctx_sweep_options;

/// Sets the defaults: seed 1, 1/1, one list a program, every program, 60 s
/// an export, minimizing.
void lctx_sweep_options_init(lctx_sweep_options *o);

/// Runs the sweep. Returns LCTX_EXIT_OK when every verdict passed (or was
/// a known defect) and something was judged, LCTX_EXIT_VIOLATIONS on a
/// finding, crash or timeout, an interrupt or nothing judged, and
/// LCTX_EXIT_USAGE on bad input (said on `err`).
int lctx_sweep_run(const lctx_sweep_options *o, FILE *out, FILE *err);

/// Judges the recorded answers of sweep case files (a file, or every
/// `*.json` of a folder) by the table, offline: each file's verdicts must
/// be its `expect` list exactly. Exit codes as lctx_sweep_run.
int lctx_sweep_judge_files(const char *spec_path, const char *const *paths,
                           size_t n, bool quiet, FILE *out, FILE *err);

/// Exports the program and platform lists of recorded case files again
/// through `o->command` and judges them: every verdict a file expects
/// must be found again (a known defect still there); a missing one is a
/// failure that names it ("fixed, or changed").
int lctx_sweep_replay(const lctx_sweep_options *o, const char *const *paths,
                      size_t n, FILE *out, FILE *err);

#endif /* LCTX_DRIVE_SWEEP_H */
