/*
 * lctx/mlir_emit.h - the MLIR a lowering emits, through the MLIR C API.
 *
 * Owns turning a successful lctx_lowering_result (lctx/lowering.h) into a
 * module: `func.func @main`, taking the platform index as argument 0 (i32,
 * or i64 under x64, marked `jax.global_constant = "_platform_index"`)
 * exactly when the module lowers for several platforms; each two-level
 * dispatch of JAX's `lower_per_platform` as two `scf.index_switch` ops; each
 * rule's EMIT_MARKER as an `"lctx.marker"` op naming the primitive, the rule
 * and its platforms. The text is parsed and verified with the MLIR C API,
 * and the verified module is printed back.
 *
 * The mapping from `stablehlo.case` (jax/_src/interpreters/mlir.py at
 * jax-ml/jax@cec06d116c05, `lower_per_platform`) to upstream MLIR:
 * `stablehlo.case` with branches b0..bn-1 runs its last branch for an index
 * out of range; `scf.index_switch` runs its `default` region then. So
 * branches b0..bn-2 become `case 0`..`case n-2`, and bn-1 becomes `default`:
 * the two agree on every index. The case index, an i32 tensor in
 * StableHLO, is the platform index converted with `arith.index_cast`.
 */
#ifndef LCTX_MLIR_EMIT_H
#define LCTX_MLIR_EMIT_H

#include "lctx/lowering.h"

#include <mlir-c/Diagnostics.h>
#include <mlir-c/IR.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Appends the MLIR text of a successful lowering to `out` (before
/// parsing). Returns false, with the reason in `error`, when the result is a
/// raise or holds a structure this emitter cannot express.
LCTX_API bool lctx_mlir_emit_text(const lctx_lowering_registry *registry,
                                  const lctx_lowering_result *result, bool x64,
                                  lctx_buf *out, lctx_buf *error);

/// Creates an MLIR context with the func, arith and scf dialects loaded and
/// unregistered dialects allowed, and its diagnostics captured (never
/// printed). Destroy it with mlirContextDestroy.
LCTX_API MlirContext lctx_mlir_context_create(void);

/// Creates an MLIR context with the func, arith and scf dialects loaded and
/// unregistered dialects allowed, multithreaded or not, and `handler` (with
/// `user_data`) attached for its diagnostics. lctx_mlir_context_create is
/// this, multithreaded, with a handler that swallows every diagnostic.
/// Destroy it with mlirContextDestroy.
LCTX_API MlirContext lctx_mlir_context_new(bool threading,
                                           MlirDiagnosticHandler handler,
                                           void *user_data);

/// Emits the lowering as a module in `context`: builds the text, parses it
/// with the MLIR C API and verifies it. On success stores the module in
/// `*module` (the caller destroys it) and returns true; on failure writes the
/// reason (MLIR's diagnostics included) to `error`.
LCTX_API bool lctx_mlir_emit(MlirContext context,
                             const lctx_lowering_registry *registry,
                             const lctx_lowering_result *result, bool x64,
                             MlirModule *module, lctx_buf *error);

/// Appends the printed form of a module.
LCTX_API void lctx_mlir_print(MlirModule module, lctx_buf *out);

#ifdef __cplusplus
}
#endif

#endif /* LCTX_MLIR_EMIT_H */
