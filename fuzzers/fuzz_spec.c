/*
 * fuzz_spec.c - the fuzz_spec target, glue only: parse the bytes as a spec
 * table; a rejection must name its place and a parsed table's templates must
 * render cleanly (lctx_fuzz_spec in harness/).
 * The engine contract (LCTX-FINDING, abort) is fuzz_glue.h's.
 */
#include "fuzz_glue.h"

LCTX_FUZZ_TARGET(lctx_fuzz_state, lctx_fuzz_spec)
