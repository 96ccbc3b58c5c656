/*
 * conform_jobs.h - the batches of a conform run and its jobs (`lctx conform
 * --jobs N`): N threads, each owning an instance of the implementation (a
 * plugin's worker or a program, started at the same time so that their
 * handshakes overlap) and its MLIR judge, take the batches off one queue in
 * the order they were filled, run them, have their modules judged, and
 * judge every case whose operations all pass (counted in the job's own
 * counts, merged at the end). The run (conform.c) takes the batches back
 * in that same order and judges, in order, each case a job left (one with
 * a verdict other than pass), so that results.jsonl, the first verdicts,
 * the rerun lines and every count are those of a run with one job.
 *
 * Owns the batch (cases, results, module verdicts) and what each job holds;
 * the threads and the queue are the pool's (jobs.h). Choosing cases and
 * the ordered judgement are conform.c's; running an implementation
 * impl.h's.
 */
#ifndef LCTX_DRIVE_CONFORM_JOBS_H
#define LCTX_DRIVE_CONFORM_JOBS_H

#include "verdict.h"
#include "impl.h"
#include "irjudge.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// The most cases per batch (LCTX_CONFORM_MAX_BATCH).
#define LCTX_CONFORM_BATCH_MAX 256

/// The most jobs of a run.
#define LCTX_CONFORM_JOBS_MAX 64

/// A batch of cases, their names and their results.
typedef struct lctx_conform_batch {
  lctx_case cases[LCTX_CONFORM_BATCH_MAX];
  const lctx_case *ptrs[LCTX_CONFORM_BATCH_MAX];
  lctx_case_result results[LCTX_CONFORM_BATCH_MAX];
  const char *source[LCTX_CONFORM_BATCH_MAX];
  size_t index[LCTX_CONFORM_BATCH_MAX];
  size_t count;
  /// The batch's modules for the judge: job_of[b][i] indexes jobs and
  /// verdicts, or is -1; `ir_started`: handed to it ahead, their verdicts
  /// still to be collected (one job only).
  lctx_irjudge_job jobs[LCTX_CONFORM_BATCH_MAX * LCTX_CASE_MAX_OPS];
  lctx_irjudge_verdict verdicts[LCTX_CONFORM_BATCH_MAX * LCTX_CASE_MAX_OPS];
  size_t job_of[LCTX_CONFORM_BATCH_MAX][LCTX_CASE_MAX_OPS];
  size_t job_count;
  bool ir_started;
  /// Several jobs: the case was judged and counted by its job (every
  /// operation passed; its result released), else the run judges it.
  bool counted[LCTX_CONFORM_BATCH_MAX];
} lctx_conform_batch;

/// Copies what an implementation is given of `c` into `dst` (a batch's
/// case): its used factories, rules, operations and names and its
/// configuration; only what `dst` used past the counts of `c` is cleared
/// (case.h's invariant, zero past the counts, kept).
void lctx_conform_batch_copy(lctx_case *dst, const lctx_case *c);

/// What the jobs run and judge with (the run's, kept by the caller for as
/// long as the jobs run).
typedef struct lctx_conform_jobs_config {
  size_t jobs; ///< 1 to LCTX_CONFORM_JOBS_MAX
  const char *impl_path, *command;
  lctx_impl_options impl;
  bool process_per_case;
  /// The MLIR judge of each job: per-module timeout, memory, log, release.
  double judge_timeout;
  size_t judge_memory_mb;
  const char *judge_log;
  const lctx_release *model_release;
  /// The judge of verdicts the jobs copy (spec, xfail, exact; no stream).
  const lctx_report_judge *judge;
} lctx_conform_jobs_config;

typedef struct lctx_conform_jobs lctx_conform_jobs;

/// Starts the jobs, each opening its implementation at once, and waits
/// until every one has (or failed: then the others are stopped, NULL is
/// returned and why is in `error`, the job's implementation named).
lctx_conform_jobs *lctx_conform_jobs_start(const lctx_conform_jobs_config *c,
                                           lctx_buf *error);

/// What the implementation says of itself (its first job's).
const lctx_impl_info *lctx_conform_jobs_info(const lctx_conform_jobs *j);

/// A batch to fill (empty); NULL while every batch is queued or done and
/// not yet taken back: take the oldest back first (lctx_conform_jobs_next).
lctx_conform_batch *lctx_conform_jobs_fill(lctx_conform_jobs *j);

/// Queues the batch `b` (from lctx_conform_jobs_fill) for the jobs.
void lctx_conform_jobs_submit(lctx_conform_jobs *j, lctx_conform_batch *b);

/// The oldest batch queued and not taken back, once its job is through
/// with it (waiting for that when `wait`); NULL when none is queued, or
/// (not waiting) when it is not through yet. Hand it back with
/// lctx_conform_jobs_recycle once judged.
lctx_conform_batch *lctx_conform_jobs_next(lctx_conform_jobs *j, bool wait);

/// Makes batch `b` (from lctx_conform_jobs_next) free to fill again.
void lctx_conform_jobs_recycle(lctx_conform_jobs *j, lctx_conform_batch *b);

/// Adds what the jobs counted (passes per row, modules judged or not) to
/// `report`, and their restarts and recycles; returns the modules that
/// killed a judge. Only once every batch was taken back.
size_t lctx_conform_jobs_merge(const lctx_conform_jobs *j, lctx_report *report);

/// Stops the jobs (each its implementation and judge, whole process
/// groups) and frees everything; NULL is fine.
void lctx_conform_jobs_free(lctx_conform_jobs *j);

#endif /* LCTX_DRIVE_CONFORM_JOBS_H */
