/*
 * irexpect.h - what the IR checker expects of the module of one reference
 * lowering, and the verdict on a module against it.
 *
 * Owns turning a successful lctx_lowering_result (lctx/lowering.h) into an
 * lctx_ir_expectation (harness/ir/ircheck.h): the module platforms, the
 * dispatches in the checker's pre-order, the rules each platform index
 * should run (intended) and what JAX really runs (with the nested
 * platform-index defect); and judging a module against it: every IR row
 * holds, except IR-006, which must be reported exactly when the lowering
 * has the defect in its marker paths. Used for the reference's own modules
 * (lctx eval, fuzz_lowering) and for an implementation's (lctx conform).
 */
#ifndef LCTX_HARNESS_IREXPECT_H
#define LCTX_HARNESS_IREXPECT_H

#include "ircheck.h"
#include "lctx/lowering.h"

#define LCTX_IR_NAME_MAX 64

/// An expectation and the storage its names point into. Large; keep it
/// static or on the heap, and do not move it after filling.
typedef struct lctx_ir_expect_store {
  lctx_ir_expectation expect;
  /// Per platform index: JAX's marker path differs from the intended one.
  bool defect[LCTX_IR_MAX_PLATFORMS];
  bool any_defect;
  char platforms[LCTX_IR_MAX_PLATFORMS][LCTX_IR_NAME_MAX];
  char names[2][LCTX_IR_MAX_PLATFORMS][LCTX_IR_MAX_RULES][LCTX_IR_NAME_MAX];
} lctx_ir_expect_store;

/// Fills `out` from a successful lowering (`x64`: the platform index is
/// i64). Returns false when the lowering exceeds the checker's limits (more
/// platforms, rules on a path or dispatches than it holds); it is then not
/// judged.
bool lctx_ir_expect_from_lowering(const lctx_lowering_registry *registry,
                                  const lctx_lowering_result *result, bool x64,
                                  lctx_ir_expect_store *out);

/// Bits of the IR rows (bit N for IR-00N).
#define LCTX_IR_ROW_BIT(n) (1u << (n))

/// The verdict on one module.
typedef struct lctx_ir_verdict {
  /// Every row holds (IR-006 reported exactly when expected).
  bool ok;
  /// The rows the check exercised (LCTX_IR_ROW_BIT), for coverage.
  unsigned applicable;
  /// The first offending row ("IR-00N") and a one-line reason, when !ok.
  char row[8];
  char reason[LCTX_IR_MESSAGE_MAX + 96];
} lctx_ir_verdict;

/// Checks `mlir_text` against `store` with `ck`, filling `report` and
/// `verdict`. Returns verdict->ok.
bool lctx_ir_judge(lctx_ircheck *ck, lctx_str mlir_text,
                   const lctx_ir_expect_store *store, lctx_ir_report *report,
                   lctx_ir_verdict *verdict);

#endif /* LCTX_HARNESS_IREXPECT_H */
