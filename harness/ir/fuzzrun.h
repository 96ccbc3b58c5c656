/*
 * fuzzrun.h - runs any of the fuzz targets of fuzzcheck.c's
 * lctx_fuzz_targets[] in process, those that need MLIR included: the
 * table's side in the ir layer, for `lctx replay` and `lctx promote`.
 *
 * Owns resolving a row to its check: a core row runs its own check with an
 * lctx_fuzz_state; a row that needs MLIR runs the ir check named like it,
 * from the ir table in fuzzrun.c (fuzz_lowering: lctx_fuzz_lowering of
 * fuzzlower.h) with that family's state. The fuzzer glue in fuzzers/ calls
 * its one check directly instead.
 */
#ifndef LCTX_HARNESS_FUZZRUN_H
#define LCTX_HARNESS_FUZZRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fuzzcheck.h"

/// The states of both check families (opaque), each created on first use.
typedef struct lctx_fuzzrun lctx_fuzzrun;

/// Creates an empty runner; NULL when out of memory.
lctx_fuzzrun *lctx_fuzzrun_new(void);

/// The library fuzz_differential compares when LCTX_DIFF_PLUGIN is unset
/// (lctx_fuzz_state_set_plugin), for the states the runner creates; NULL:
/// none. `path` must outlive the runner; set it before the first check.
void lctx_fuzzrun_set_plugin(lctx_fuzzrun *run, const char *path);

/// Destroys a runner and the states it created (NULL is fine).
void lctx_fuzzrun_free(lctx_fuzzrun *run);

/// Judges one input with `target`'s check (any row of lctx_fuzz_targets[]).
/// Returns true on a failure, with the verdict in `result`; a state that
/// cannot be created, or a row with no check in this build, is a failure
/// with the key `<target>/setup`.
bool lctx_fuzzrun_check(lctx_fuzzrun *run, const lctx_fuzz_target *target,
                        const uint8_t *data, size_t size,
                        lctx_fuzz_result *result);

/// lctx_fuzzrun_check with a runner of its own, created and destroyed
/// around the one input (for callers that check inputs one by one).
bool lctx_fuzzrun_once(const lctx_fuzz_target *target, const uint8_t *data,
                       size_t size, lctx_fuzz_result *result);

#endif /* LCTX_HARNESS_FUZZRUN_H */
