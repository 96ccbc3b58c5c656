/*
 * ircheck.h - checking the MLIR of a multi-platform lowering.
 *
 * Owns the verdict on one emitted module (semantics.md section 7): parse it
 * with the MLIR C API (diagnostics captured, never printed), verify it, then
 * check the dispatch invariants, each violation named by its IR row:
 *
 * - IR-000 the text parses and the module verifies (the diagnostic, with
 *   line:col).
 * - IR-001 argument 0 of `@main` is the platform index (a scalar i32, or i64
 *   under x64, marked `jax.global_constant = "_platform_index"`) exactly when
 *   the module lowers for more than one platform.
 * - IR-002 a first switch (indexed by the platform index) has one branch per
 *   entry of its platform list, each yielding a constant rule slot.
 * - IR-003 a second switch (indexed by a slot) has one branch per kept rule.
 * - IR-004 a dispatch with exactly one kept rule emits no switch.
 * - IR-005 evaluated for every platform index, `@main` reaches the
 *   `lctx.marker` ops of the intended rules, in order.
 * - IR-006 the known upstream defect: the module runs what JAX really runs
 *   (a nested dispatch indexed by the module-wide platform index) where that
 *   differs from the intended rules.
 *
 * Dispatches are matched to the expected ones in pre-order: a switch with
 * results is a first switch and opens a dispatch that the next switch
 * indexed by its slot (through integer casts) closes; an `lctx.marker` is a
 * rule called directly (a one-rule dispatch), except the first marker of a
 * second switch's branch, which is that branch's rule. Everything after it
 * in the branch (markers, switch pairs) is nested lowering.
 *
 * Both spellings of a dispatch are understood: `scf.index_switch` (cases
 * 0..n-2, the last branch as `default`) and generic `"stablehlo.case"` ops
 * with `"stablehlo.return"` terminators (region k is branch k). Either runs
 * its last branch for an index out of range.
 *
 * The checker owns one MLIR context, recreated every N checks on request
 * (a reused context only grows). Errors are values in the report; nothing is
 * printed and nothing exits.
 */
#ifndef LCTX_HARNESS_IRCHECK_H
#define LCTX_HARNESS_IRCHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "lctx/str.h"

#define LCTX_IR_MAX_PLATFORMS 16
#define LCTX_IR_MAX_RULES 16
#define LCTX_IR_MAX_DISPATCHES 32
#define LCTX_IR_MAX_VIOLATIONS 32
#define LCTX_IR_MESSAGE_MAX 512

/// The expected shape of one dispatch (one `lower_per_platform` call), in
/// pre-order of the lowering: a dispatch nested in a rule follows that rule's
/// dispatch, branches in order.
typedef struct lctx_ir_dispatch {
  size_t entry_count; ///< entries of its platform list (first switch)
  size_t kept_count;  ///< kept rules (second switch); 1: no switch at all
} lctx_ir_dispatch;

/// A list of rule names, as `lctx.marker` ops name them (`rule = "..."`).
typedef struct lctx_ir_rules {
  size_t count;
  const char *names[LCTX_IR_MAX_RULES];
} lctx_ir_rules;

/// What the module must satisfy. Zero-initialize, then fill.
typedef struct lctx_ir_expectation {
  size_t platform_count; ///< module platforms (entries, duplicates included)
  const char *platforms[LCTX_IR_MAX_PLATFORMS]; ///< their names
  bool x64; ///< the platform index is i64 rather than i32
  /// Every dispatch in pre-order. When 0, only the first dispatch found is
  /// checked, against `platform_count` entries (its kept count unchecked).
  size_t dispatch_count;
  lctx_ir_dispatch dispatches[LCTX_IR_MAX_DISPATCHES];
  /// intended[i]: the rules that should run for platform index i, in order.
  lctx_ir_rules intended[LCTX_IR_MAX_PLATFORMS];
  /// has_jax_actual[i]: jax_actual[i] holds what JAX really runs for index
  /// i; a module matching it where it differs from intended[i] is reported
  /// under IR-006 instead of IR-005.
  bool has_jax_actual[LCTX_IR_MAX_PLATFORMS];
  lctx_ir_rules jax_actual[LCTX_IR_MAX_PLATFORMS];
} lctx_ir_expectation;

/// One violated row.
typedef struct lctx_ir_violation {
  char row[8]; ///< "IR-000" .. "IR-006"
  char message[LCTX_IR_MESSAGE_MAX];
} lctx_ir_violation;

/// The outcome of one check.
typedef struct lctx_ir_report {
  /// The text is syntactically valid. MLIR verifies while parsing, so a
  /// failure whose first error is an op verifier's (`'name' op ...`) counts
  /// as parsed but not verified.
  bool parse_ok;
  bool verified;  ///< the module passed MLIR's verifier
  size_t count;   ///< violations stored
  size_t dropped; ///< violations beyond LCTX_IR_MAX_VIOLATIONS, not stored
  lctx_ir_violation violations[LCTX_IR_MAX_VIOLATIONS];
} lctx_ir_report;

typedef struct lctx_ircheck lctx_ircheck;

/// Creates a checker and its MLIR context (func, arith and scf registered,
/// unregistered dialects allowed, diagnostics captured). NULL when out of
/// memory.
lctx_ircheck *lctx_ircheck_create(void);

/// Destroys the checker and its context. NULL is ignored.
void lctx_ircheck_destroy(lctx_ircheck *ck);

/// Recreates the context before every `every_n`-th check (0: never, the
/// default), so that memory stays bounded over many checks.
void lctx_ircheck_recycle(lctx_ircheck *ck, size_t every_n);

/// How many contexts the checker has created so far (1 after create).
size_t lctx_ircheck_contexts_created(const lctx_ircheck *ck);

/// Checks `mlir_text` against `expect`, filling `report` (cleared first).
/// Returns true when the module parsed, verified and violates no row.
bool lctx_ircheck_run(lctx_ircheck *ck, lctx_str mlir_text,
                      const lctx_ir_expectation *expect,
                      lctx_ir_report *report);

/// Returns the first stored violation of `row`, or NULL.
const lctx_ir_violation *lctx_ir_report_find(const lctx_ir_report *report,
                                             const char *row);

/// Appends every violation, one `ROW: message` line each, to `out`.
void lctx_ir_report_format(const lctx_ir_report *report, lctx_buf *out);

#endif /* LCTX_HARNESS_IRCHECK_H */
