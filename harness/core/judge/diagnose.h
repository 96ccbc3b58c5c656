/*
 * diagnose.h - what went wrong in a user's or a package's program that a
 * sweep exported for several platforms, said as a compiler says it: the
 * class of the mistake, where in the user's code, and the fix
 * (conformance/sweep/README.md, "Diagnoses").
 *
 * Owns the classification of one case's answer for P (sweepjudge.h's
 * model, with the exporter's "user" facts and the census entries in user
 * code) into diagnoses, one per finding: get-backend, host-backend,
 * missing-rule, host-callback, jax-defect (a raise a known defect of
 * conformance/sweep/regressions has), other; and their texts. Pure: the
 * answers and the known defects in, diagnoses out; reads nothing, prints
 * nothing, allocates nothing. Which programs are diagnosed, and where the
 * diagnoses go, is the sweep's (commands/sweep.c).
 */
#ifndef LCTX_HARNESS_DIAGNOSE_H
#define LCTX_HARNESS_DIAGNOSE_H

#include "sweepjudge.h"

#include <stdbool.h>
#include <stddef.h>

/// The classes of mistakes, in the order their names are listed.
typedef enum lctx_diagnosis_class {
  /// get_backend() without optional=True, or a .backend read, in user code
  /// under several platforms (or JAX's "accessing .backend in
  /// multi-lowering setting" raise).
  LCTX_DIAGNOSIS_GET_BACKEND,
  /// A look-up of the host's devices or backend from user code under
  /// several platforms, in a rule or at trace time.
  LCTX_DIAGNOSIS_HOST_BACKEND,
  /// "MLIR translation rule for primitive ... not found for platforms".
  LCTX_DIAGNOSIS_MISSING_RULE,
  /// The host callbacks' refusal of several platforms.
  LCTX_DIAGNOSIS_HOST_CALLBACK,
  /// A raise a known defect of JAX has.
  LCTX_DIAGNOSIS_JAX_DEFECT,
  /// Any other raise.
  LCTX_DIAGNOSIS_OTHER,
  LCTX_DIAGNOSIS_CLASS_COUNT
} lctx_diagnosis_class;

/// "get-backend", "host-backend", "missing-rule", "host-callback",
/// "jax-defect", "other".
const char *lctx_diagnosis_class_name(lctx_diagnosis_class c);

/// A known defect (a case file of the known defects): one of its keys
/// ("SW-001 TypeError at jax/_src/interpreters/mlir.py:2562"), its name
/// (the file's name without .json), the JAX release that fixes it (NULL or
/// "": none yet) and its upstream report (docs/upstream-*.md, NULL or "":
/// none).
typedef struct lctx_diagnosis_known {
  const char *key, *name, *fixed_in, *doc;
} lctx_diagnosis_known;

/// Text limits of a diagnosis.
#define LCTX_DIAGNOSIS_MESSAGE_MAX 1400
#define LCTX_DIAGNOSIS_FIX_MAX 400

/// One diagnosis.
typedef struct lctx_diagnosis {
  lctx_diagnosis_class cls;
  char program[256];
  size_t platform_count;
  char platforms[LCTX_EXPORT_MAX_PLATFORMS][LCTX_EXPORT_PLATFORM_MAX];
  char primitive[LCTX_USER_TEXT_MAX]; ///< "" when not known
  /// Where: the user's file and line of the raise or the census entry, else
  /// the call site, else JAX's file and line ("" and 0: none).
  char file[LCTX_USER_TEXT_MAX];
  long line;
  lctx_user_frame rule;      ///< the primitive's rule ("" file: none)
  lctx_user_frame call_site; ///< where user code bound it ("" file: none)
  char message[LCTX_DIAGNOSIS_MESSAGE_MAX]; ///< what happened
  char fix[LCTX_DIAGNOSIS_FIX_MAX];
  /// The plan index of the sweep case it came from (report.json's "case"),
  /// set by the sweep (classify leaves 0): a sweep and a merge of its
  /// shards list the diagnoses in plan order.
  size_t plan_case;
} lctx_diagnosis;

/// Whether `a` and `b` are one diagnosis (the same program, class, place
/// and fix; their platform lists may differ): a sweep, and a merge of its
/// shards, keep the one of the earlier case.
bool lctx_diagnosis_same(const lctx_diagnosis *a, const lctx_diagnosis *b);

/// Diagnoses case `c` (its program a user's or a package's) from its
/// answer for P (c->multi): each census entry in user code that SW-006
/// would flag (a look-up from a file not under "jax/"), then P's raise
/// (unless a get-backend diagnosis already stands for it). A raise whose
/// "SW-001 CLASS at FILE:LINE" key one of the `known_count` known defects
/// has is a jax-defect. Diagnoses with the same class, place and fix are
/// given once. Writes at most `cap` into `out`; returns how many.
size_t lctx_diagnosis_classify(const lctx_sweep_case *c,
                               const lctx_diagnosis_known *known,
                               size_t known_count, lctx_diagnosis *out,
                               size_t cap);

/// Diagnosis `d` as one line in a compiler's style (no newline), its text
/// as given (the caller escapes it where it is shown): "FILE:LINE: CLASS:
/// PROGRAM [P, Q]: MESSAGE (PRIMITIVE, rule FILE:LINE (FUNCTION), called
/// at FILE:LINE); fix: FIX".
void lctx_diagnosis_text(const lctx_diagnosis *d, char *dst, size_t n);

#endif /* LCTX_HARNESS_DIAGNOSE_H */
