/*
 * tests/lowering_fx.h - what a lowering test holds, shared by the CMocka
 * tests of the lowering model and of its MLIR: a backend configuration and
 * registry, a lowering registry, a top-level context, a result and an
 * outcome.
 */
#ifndef LCTX_TESTS_LOWERING_FX_H
#define LCTX_TESTS_LOWERING_FX_H

#include "lctx/lctx.h"
#include "lctx/lowering.h"

typedef struct ts_lowering_fx {
  lctx_registry_config config;
  lctx_registry backends;
  lctx_lowering_registry lowering;
  lctx_lowering_context ctx;
  lctx_lowering_result result;
  lctx_outcome o;
} ts_lowering_fx;

#endif /* LCTX_TESTS_LOWERING_FX_H */
