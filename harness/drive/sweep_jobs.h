/*
 * sweep_jobs.h - the cases of a sweep run by several exporter processes at
 * once (`lctx sweep --jobs N`).
 *
 * Owns the jobs: each job a thread with an exporter of its own (the
 * sweep's x[k]; job 0 uses the one lctx_sweep_open started, the others
 * start theirs), taking the next case of the plan, exporting and judging
 * it; and handing the judged cases back on the calling thread in plan
 * order, so that what is written, counted and kept is what one job gives.
 * A crash or hang of one exporter is its own case's (its process is
 * restarted as with one job).
 */
#ifndef LCTX_DRIVE_SWEEP_JOBS_H
#define LCTX_DRIVE_SWEEP_JOBS_H

#include "sweep_state.h"

/// The verdicts one case may give.
#define LCTX_SWEEP_CASE_VERDICTS 32

/// What the jobs ask of the plan.
typedef struct lctx_sweep_jobs_plan {
  /// The program (a catalogue index) and platform list of plan index
  /// `index`; called on any job's thread, reading `s` only.
  void (*plan)(const lctx_sweep *s, size_t index, size_t *program,
               lctx_sweep_list *l);
  /// A judged case, on the calling thread, in plan order.
  void (*take)(lctx_sweep *s, size_t index, lctx_sweep_exports *e,
               const lctx_sweep_verdict *v, size_t n);
  /// Whether no further case should start (an interrupt, the time limit);
  /// called on any job's thread.
  bool (*stop)(const lctx_sweep *s);
} lctx_sweep_jobs_plan;

/// Runs the plan indices `todo[0..n)` with at most `jobs` exporters (one:
/// on the calling thread) and hands each judged case to p->take in order.
/// Returns how many were taken: all but when a case was not started (stop)
/// or was cut short by an interrupt, and those after it.
size_t lctx_sweep_jobs_run(lctx_sweep *s, const size_t *todo, size_t n,
                           size_t jobs, const lctx_sweep_jobs_plan *p);

#endif /* LCTX_DRIVE_SWEEP_JOBS_H */
