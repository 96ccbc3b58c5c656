/*
 * scenarios.h - the built-in default job of `lctx run`: the situations the
 * mission names (single-platform lowering, multi-platform export,
 * cross-lowering with a pinned host client, `gpu` on CUDA and ROCm hosts)
 * evaluated by the reference model on stock-JAX-like registries.
 *
 * Owns the scenario list and its printing; decides no outcome itself.
 */
#ifndef LCTX_HARNESS_SCENARIOS_H
#define LCTX_HARNESS_SCENARIOS_H

#include <stdio.h>

/// Evaluates every built-in scenario, prints one line each and a summary to
/// `out`. Returns the number of scenarios evaluated.
int lctx_scenarios_run(FILE *out);

#endif /* LCTX_HARNESS_SCENARIOS_H */
