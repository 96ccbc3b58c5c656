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
 * nothing itself. Owns the data model of a dispatch, which a JAX
 * exporter reports as well (conformance/PROTOCOL.md, "Generated
 * programs").
 */
#ifndef LCTX_HARNESS_MODEL_DISPATCH_H
#define LCTX_HARNESS_MODEL_DISPATCH_H

#include "program.h"

#include <stdbool.h>
#include <stddef.h>

/// One lower_per_platform dispatch of a generated program's primitive
/// (conformance/PROTOCOL.md, "Generated programs"): the platforms it
/// covered and which rule JAX lowered for which of them.
#define LCTX_DISPATCH_MAX_RULES 8
/// As many platforms, as long, as an export's (sweepjudge.h checks).
#define LCTX_DISPATCH_MAX_PLATFORMS 8
#define LCTX_DISPATCH_NAME_MAX 32
typedef struct lctx_dispatch_rule {
  char rule[LCTX_DISPATCH_NAME_MAX]; ///< its platform, or "default"
  size_t count;
  char platforms[LCTX_DISPATCH_MAX_PLATFORMS][LCTX_DISPATCH_NAME_MAX];
} lctx_dispatch_rule;
typedef struct lctx_dispatch_event {
  char primitive[LCTX_DISPATCH_NAME_MAX];
  size_t count;
  char platforms[LCTX_DISPATCH_MAX_PLATFORMS][LCTX_DISPATCH_NAME_MAX];
  size_t rule_count;
  lctx_dispatch_rule rules[LCTX_DISPATCH_MAX_RULES];
} lctx_dispatch_event;

/// Fills `out` with the rules the model lowers for primitive `prim` of `p`
/// over `platforms` (`count` names): each kept rule (by its platform name,
/// or "default") with the platforms it is lowered for, in kept order.
/// False when the model raises for that list (no rule for some platform),
/// or stops at a limit: then it predicts no dispatch.
bool lctx_model_dispatch(const lctx_program_desc *p, int prim,
                         const char *const *platforms, size_t count,
                         lctx_dispatch_event *out);

#endif /* LCTX_HARNESS_MODEL_DISPATCH_H */
