/*
 * fuzz_program.c - the fuzz_program target, glue only: the bytes draw a
 * generated program (lctx_fuzz_program in harness/): it must read back
 * canonically, lctx's model must dispatch its primitives as JAX's rule
 * selection reads, and its reductions must be programs. The corpus it
 * grows feeds `lctx generate --from DIR`. The engine contract
 * (LCTX-FINDING, abort) is fuzz_glue.h's.
 */
#include "fuzz_glue.h"

LCTX_FUZZ_TARGET(lctx_fuzz_state, lctx_fuzz_program)
