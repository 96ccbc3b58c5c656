/*
 * model_dispatch.h - what lctx's own lowering model (reference/,
 * lctx/lowering.h) says JAX lowers for a generated program's primitive:
 * the prediction SW-009 compares with the dispatches a JAX exporter
 * reports (sweepjudge.h).
 *
 * Owns building a lowering registry from one primitive of a program
 * description (program.h): a `cpu` and a `tpu` backend factory as stock
 * JAX has, the primitive's rules registered per platform (`default` as the
 * common rule), and lowering one equation for a platform list. Judges
 * nothing itself.
 */
#ifndef LCTX_HARNESS_MODEL_DISPATCH_H
#define LCTX_HARNESS_MODEL_DISPATCH_H

#include "program.h"
#include "sweepjudge.h"

#include <stdbool.h>
#include <stddef.h>

/// Fills `out` with the rules the model lowers for primitive `prim` of `p`
/// over `platforms` (`count` names): each kept rule (by its platform name,
/// or "default") with the platforms it is lowered for, in kept order.
/// False when the model raises for that list (no rule for some platform),
/// or stops at a limit: then it predicts no dispatch.
bool lctx_model_dispatch(const lctx_program_desc *p, int prim,
                         const char *const *platforms, size_t count,
                         lctx_dispatch_event *out);

#endif /* LCTX_HARNESS_MODEL_DISPATCH_H */
