/*
 * ircheck_private.h - what the parts of the MLIR checker share (ircheck.c,
 * the context, the walk of the dispatches and the evaluation; ircheck_ops.c,
 * reading ops, switches and constants). Not for use outside them.
 */
#ifndef LCTX_IR_IRCHECK_PRIVATE_H
#define LCTX_IR_IRCHECK_PRIVATE_H

#include "ircheck.h"

#include <stdbool.h>
#include <stdint.h>

#include <mlir-c/IR.h>

/// Nesting of regions and of value definitions followed, at most.
#define IR_MAX_DEPTH 256

/* Strings and ops. */
MlirStringRef lctx_ir_sref(const char *s);
bool lctx_ir_sref_is(MlirStringRef s, const char *c);
lctx_str lctx_ir_sref_view(MlirStringRef s);
MlirStringRef lctx_ir_op_name(MlirOperation op);
bool lctx_ir_op_is(MlirOperation op, const char *name);
/// An MLIR print callback appending to the lctx_buf `user`.
void lctx_ir_append_cb(MlirStringRef s, void *user);
/// Appends `L:C` of a file location (`loc("name":L:C)`), else `?:?`.
void lctx_ir_append_linecol(lctx_buf *out, MlirLocation loc);
/// Appends `L:C` of the op's location.
void lctx_ir_append_op_loc(lctx_buf *out, MlirOperation op);
/// The last op of `block` (null when empty).
MlirOperation lctx_ir_last_op(MlirBlock block);
/// The string attribute `name` of `op` (empty, NULL data, when absent).
MlirStringRef lctx_ir_string_attr(MlirOperation op, const char *name);

/* Switches, constants and casts. */
typedef enum lctx_ir_switch_kind {
  SW_NONE,
  SW_SCF,
  SW_CASE
} lctx_ir_switch_kind;
lctx_ir_switch_kind lctx_ir_switch_kind_of(MlirOperation op);
size_t lctx_ir_branch_count(MlirOperation sw);
/// Branch k of a switch: region k of stablehlo.case; for scf.index_switch,
/// `case k` is region k+1 and the last branch is `default`, region 0.
MlirRegion lctx_ir_branch_region(MlirOperation sw, size_t k);
/// True when the scf.index_switch's cases are exactly 0..n-2 in order (so
/// that `default` is branch n-1). stablehlo.case always is.
bool lctx_ir_cases_are_dense(MlirOperation sw);
/// The integer of a constant op (arith.constant, stablehlo.constant with a
/// splat integer tensor).
bool lctx_ir_constant_value(MlirOperation op, int64_t *out);
/// An integer cast or reshape (followed back to what it converts).
bool lctx_ir_is_cast(MlirOperation op);
/// Follows integer casts back from `v`; returns its defining op (null for a
/// block argument).
MlirOperation lctx_ir_source_op(MlirValue v, MlirValue *root);

#endif
