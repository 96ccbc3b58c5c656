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

#include "sweep_files.h"
#include "sweep_options.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/// Runs the sweep. Returns LCTX_EXIT_OK when every verdict passed (or was
/// a known defect) and something was judged, LCTX_EXIT_VIOLATIONS on a
/// finding, crash or timeout, an interrupt or nothing judged, and
/// LCTX_EXIT_USAGE on bad input (said on `err`).
int lctx_sweep_run(const lctx_sweep_options *o, FILE *out, FILE *err);

#endif /* LCTX_DRIVE_SWEEP_H */
