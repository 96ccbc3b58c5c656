/*
 * fuzzcheck.h - the checks behind every fuzz target, in one place.
 *
 * Owns what a fuzz input must satisfy, so that the libFuzzer and AFL++
 * targets, the replay driver, `lctx replay` and the unit tests run the same
 * check: fuzz_model (decode, run the reference, judge with the oracle and the
 * invariants), fuzz_case_text (no crash; round trip of every valid case
 * text), fuzz_spec (no crash on any table). A failed check yields a semantic
 * key (target, violation kind, invariant, row, outcome classes) under which
 * duplicates collapse, and a readable report. Never aborts; the targets do.
 */
#ifndef LCTX_HARNESS_FUZZCHECK_H
#define LCTX_HARNESS_FUZZCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "lctx/str.h"

/// The verdict on one input.
typedef struct lctx_fuzz_result {
  bool failed;
  /// Semantic key, e.g.
  /// `fuzz_model/outcome/row=MG-006/inv=-/expected=ValueError/actual=None`.
  char key[512];
  /// A readable report: what failed, the case in text form, expected and
  /// actual outcomes.
  char report[65536];
} lctx_fuzz_result;

/// A fuzz target: name and check.
typedef struct lctx_fuzz_target {
  const char *name;
  bool (*check)(const uint8_t *data, size_t size, lctx_fuzz_result *result);
} lctx_fuzz_target;

/// Decodes the bytes into a case and judges every operation by the embedded
/// spec table, the case's invariants included. Returns true on a violation.
bool lctx_fuzz_model(const uint8_t *data, size_t size,
                     lctx_fuzz_result *result);

/// Parses the bytes as `.case` text; a valid case must print and re-parse to
/// itself, and print canonically twice alike. Returns true on a failure.
bool lctx_fuzz_case_text(const uint8_t *data, size_t size,
                         lctx_fuzz_result *result);

/// Parses the bytes as a spec table; a parsed table must have rows whose
/// templates render without reading outside the features. Returns true on a
/// failure.
bool lctx_fuzz_spec(const uint8_t *data, size_t size, lctx_fuzz_result *result);

/// Decodes the bytes into a case and runs it twice: on the reference model
/// and on an implementation under test (the C ABI of lctx/impl_abi.h), in
/// process. The implementation is the library named by the environment
/// variable LCTX_DIFF_PLUGIN, else the one linked into the binary (the
/// fuzz_differential target links the example plugin). Both outcomes of
/// every operation are judged by the embedded spec table; a failure of
/// either is reported (keys `fuzz_differential/impl/...` and
/// `fuzz_differential/reference/...`), and so is a disagreement the table
/// allows but that points at nondeterminism (`.../differ/...`). Returns
/// true on a failure.
bool lctx_fuzz_differential(const uint8_t *data, size_t size,
                            lctx_fuzz_result *result);

/// The targets, NULL-terminated.
extern const lctx_fuzz_target lctx_fuzz_targets[];

/// Looks a target up by name; NULL if unknown.
const lctx_fuzz_target *lctx_fuzz_target_find(const char *name);

/// The spec table compiled into this binary (conformance/spec/
/// backend-selection.lspec at build time).
lctx_str lctx_fuzz_embedded_spec(void);

#endif /* LCTX_HARNESS_FUZZCHECK_H */
