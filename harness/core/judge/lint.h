/*
 * lint.h - `lctx lint`: is a primitive's lowering safe in multi-platform
 * lowering?
 *
 * Owns the lint domain, the SAFE/UNSAFE verdict of one rule file (rulefile.h)
 * and its smallest counterexample (the command that prints verdicts is
 * cli/cmd_lint.c). The lowering itself is the
 * reference model's (lctx/lowering.h).
 *
 * The domain: every registry configuration of domain.h (all 41), times
 * every module platform list of length 1 to 3 over {cpu, tpu, cuda, rocm, gpu}
 * (duplicates allowed), times a pinned backend that is none or a client whose
 * real platform is one of those five. The top-level equation is the file's
 * `primitive`, with no compute type and no overrides; it has one dimension
 * variable, the platform index, exactly when there are two or more platforms.
 * A configuration under which a registration raises (an unknown platform: the
 * primitive's module would fail to import) is skipped and counted.
 *
 * SAFE: for every domain point with two or more module platforms, lowering
 * does not raise unless lowering for some single one of those platforms alone
 * (same configuration, same pinned backend) raises too: multi-platform
 * lowering adds no failure. UNSAFE otherwise; the counterexample reported is
 * the smallest failing point: fewest module platforms, then fewest factories,
 * then the first in enumeration order.
 */
#ifndef LCTX_HARNESS_LINT_H
#define LCTX_HARNESS_LINT_H

#include "case.h"
#include "rulefile.h"

#include <stdio.h>

/// Most module platforms in a lint domain point.
#define LCTX_LINT_MAX_PLATFORMS 3

/// One point of the lint domain.
typedef struct lctx_lint_point {
  /// Index of the registry configuration (lctx_domain_registry).
  size_t registry;
  size_t platform_count;
  const char *platforms[LCTX_LINT_MAX_PLATFORMS];
  /// The pinned client's real platform, or NULL for none.
  const char *pinned;
} lctx_lint_point;

/// The verdict on one rule file.
typedef struct lctx_lint_report {
  bool safe;
  /// Configurations tried and skipped (a registration raised).
  size_t configurations;
  size_t skipped;
  /// The first skip: configuration index and the raise.
  size_t first_skipped;
  lctx_outcome skip_reason;
  /// Lowerings run.
  size_t lowerings;
  /// Multi-platform points where lowering raised, and of those the ones a
  /// single platform explains.
  size_t multi_raises;
  size_t explained;
  /// UNSAFE only: the smallest failing point, its outcome, and the outcome
  /// of each of its platforms alone.
  lctx_lint_point counterexample;
  lctx_outcome outcome;
  lctx_outcome singles[LCTX_LINT_MAX_PLATFORMS];
} lctx_lint_report;

/// Lints `file` over the whole domain. Returns false, with a message in
/// `error`, when the model hit one of its limits (the file then describes
/// something the model cannot lower); true otherwise, with `report` filled.
bool lctx_lint_file(const lctx_rulefile *file, lctx_lint_report *report,
                    lctx_buf *error);

/// Appends a readable description of the report's counterexample (several
/// lines, each indented by `indent` and ending in `\n`).
void lctx_lint_format_counterexample(const lctx_lint_report *report,
                                     const char *indent, lctx_buf *out);

/// Writes the smallest failing point of an UNSAFE report as a case into
/// `c`: the registry configuration, the file's rules as case rules, one
/// register_lowering per registration in file order, and the
/// multi-platform lower_per_platform of the file's primitive with the
/// pinned backend (no expectations). Returns false, saying which limit of
/// the case format it exceeds in `why`, when it does not fit.
bool lctx_lint_counterexample_case(const lctx_rulefile *file,
                                   const lctx_lint_report *report, lctx_case *c,
                                   lctx_buf *why);

#endif /* LCTX_HARNESS_LINT_H */
