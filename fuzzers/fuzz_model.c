/*
 * fuzz_model.c - the fuzz_model target, glue only: decode the bytes into a
 * case, run the reference model, judge every operation by the embedded spec
 * table and the oracle's invariants (lctx_fuzz_model in harness/).
 * The engine contract (LCTX-FINDING, abort) is fuzz_glue.h's.
 */
#include "fuzz_glue.h"

LCTX_FUZZ_TARGET(lctx_fuzz_state, lctx_fuzz_model)
