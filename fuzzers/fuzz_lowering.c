/*
 * fuzz_lowering.c - the fuzz_lowering target, glue only: decode the bytes
 * into a lowering scenario, lower it with the reference model, emit it as
 * MLIR and judge the module with the IR checker (lctx_fuzz_lowering in
 * harness/ir/fuzzlower.c). Its row in lctx_fuzz_targets[] needs MLIR, so
 * the OSS-Fuzz build (no MLIR) leaves it out. The engine contract
 * (LCTX-FINDING, abort) is fuzz_glue.h's.
 */
#include "fuzz_glue.h"
#include "fuzzlower.h"

LCTX_FUZZ_TARGET(lctx_fuzz_lowering_state, lctx_fuzz_lowering)
