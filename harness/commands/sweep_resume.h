/*
 * sweep_resume.h - the results file of a sweep (OUT/results.jsonl) across
 * runs: its stamp line (the plan and the identity of the run: lctx, the
 * command, the content of the program files it names, the exporter's
 * hello, the sweep table and the known defects), the seal that tells
 * lctx's lines from anything else (seal.h), resuming an earlier run of the
 * same plan and identity, --restart, and the check at the end of a run
 * that the file is still the one lctx wrote. The lines themselves are
 * sweep_case.c's.
 */
#ifndef LCTX_DRIVE_SWEEP_RESUME_H
#define LCTX_DRIVE_SWEEP_RESUME_H

#include "sweep_state.h"

/// Reads OUT/results.jsonl of an earlier run of the same plan and identity
/// (its sealed cases done, their counts, reach and findings; lines after
/// the seal dropped, said) and opens it to append, sealed under a new run
/// id; a file of another plan or identity, one whose seal cannot be
/// verified or that was altered is refused (false, said on `err`). With
/// --restart, the earlier results are removed first.
bool lctx_sweep_resume(lctx_sweep *s);

/// Whether results.jsonl is still the file lctx wrote (same file, length
/// and bytes); false after saying what changed on `err` (then
/// s->results_altered).
bool lctx_sweep_results_check(lctx_sweep *s);

#endif /* LCTX_DRIVE_SWEEP_RESUME_H */
