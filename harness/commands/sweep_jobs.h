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

/// Starts jobs 2..N (s->x_count), each on its thread, starting its own
/// exporter (s->x[k]) at once, so that their start-up (JAX's import, the
/// catalogue) runs while the first one's does; they then wait for the plan
/// (lctx_sweep_jobs_run). A peer dies with the thread that started it
/// (PR_SET_PDEATHSIG), so each exporter is started, and restarted, by its
/// job's thread, which lives until lctx_sweep_jobs_end.
void lctx_sweep_jobs_start(lctx_sweep *s);

/// Stops the jobs (those waiting for a plan, after lctx_sweep_jobs_start
/// without one) and waits for them; their exporters end with them.
void lctx_sweep_jobs_end(lctx_sweep *s);

/// Runs the plan indices `todo[0..n)` with s->x_count jobs (started now
/// unless lctx_sweep_jobs_start did; one job: on the calling thread) and
/// hands each judged case to p->take on the calling thread, in order; the
/// jobs end with it. Returns how many were taken: all but when a case was
/// not started (stop) or was cut short by an interrupt, and those after it.
size_t lctx_sweep_jobs_run(lctx_sweep *s, const size_t *todo, size_t n,
                           const lctx_sweep_jobs_plan *p);

#endif /* LCTX_DRIVE_SWEEP_JOBS_H */
