/*
 * fuzzcheck.h - the checks behind every fuzz target, and the one table of
 * all five targets.
 *
 * Owns what a fuzz input must satisfy, so that the libFuzzer and AFL++
 * targets, the replay driver, `lctx replay` and the unit tests run the same
 * check: fuzz_model (decode, run the reference, judge with the oracle and the
 * invariants), fuzz_case_text (no crash; round trip of every valid case
 * text), fuzz_spec (no crash on any table), fuzz_differential (the reference
 * against an implementation under test). A failed check yields a semantic
 * key (target, violation kind, invariant, row, outcome classes) under which
 * duplicates collapse, and a readable report. Never aborts; the targets do.
 *
 * No hidden state: everything the checks reuse between inputs (the parsed
 * spec table, the decoded cases, text buffers, the implementation under
 * test) lives in an lctx_fuzz_state that the caller creates with
 * lctx_fuzz_state_new, passes to every check and destroys with
 * lctx_fuzz_state_free. One state serves one thread at a time.
 *
 * The table lctx_fuzz_targets[] names all five targets with what each needs.
 * fuzz_lowering judges emitted MLIR, which the core layer does not link: its
 * row says needs_mlir and has no check here; harness/ir/fuzzrun.h runs any
 * row, that one included (its check is harness/ir/fuzzlower.h's).
 * fuzzers/oss-fuzz-build.sh, fuzzers/fuzz-targets.cmake and
 * tests/test_oss_fuzz_build.sh read the table's rows from fuzzcheck.c, so
 * each row stays on one line, in the form
 *   {"NAME", NEEDS_MLIR, "EXTRA_SOURCE" or NULL, CHECK or NULL},
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

/// What the core checks keep between inputs (opaque; see above).
typedef struct lctx_fuzz_state lctx_fuzz_state;

/// Creates a state for the core checks; NULL when out of memory. The spec
/// table is parsed on the first check that judges by it, the implementation
/// of fuzz_differential is loaded on that check's first input.
lctx_fuzz_state *lctx_fuzz_state_new(void);

/// The library fuzz_differential compares when LCTX_DIFF_PLUGIN is unset
/// and the binary links no implementation (`lctx replay`: the build's
/// example plugin, the one the fuzz_differential target links); NULL or
/// "": none. `path` must outlive the state; set it before the first check.
void lctx_fuzz_state_set_plugin(lctx_fuzz_state *state, const char *path);

/// Destroys a state (NULL is fine). A library loaded for fuzz_differential
/// stays loaded until the process ends.
void lctx_fuzz_state_free(lctx_fuzz_state *state);

/// A core check: judges one input; returns true on a failure, with the
/// verdict in `result`.
typedef bool (*lctx_fuzz_check_fn)(lctx_fuzz_state *state, const uint8_t *data,
                                   size_t size, lctx_fuzz_result *result);

/// A fuzz target: a row of lctx_fuzz_targets[].
typedef struct lctx_fuzz_target {
  /// The target's name: its glue is fuzzers/<name>.c, its seeds
  /// corpus/seeds/<name>/.
  const char *name;
  /// The check judges MLIR: the target links lctx_ir, its check is in
  /// harness/ir (resolved by harness/ir/fuzzrun.h), and the OSS-Fuzz build,
  /// which links no MLIR, leaves it out.
  bool needs_mlir;
  /// One more source file or folder of them (from the project root) that
  /// the target's fuzzer links, or NULL. fuzz_differential's is the example
  /// plugin's folder, the implementation it compares when LCTX_DIFF_PLUGIN
  /// is unset; CMake links the OBJECT library that compiles it (see
  /// fuzzers/CMakeLists.txt), oss-fuzz-build.sh every .c in a folder.
  const char *extra_source;
  /// The core check; NULL when needs_mlir.
  lctx_fuzz_check_fn check;
} lctx_fuzz_target;

/// Decodes the bytes into a case and judges every operation by the embedded
/// spec table, the case's invariants included. Returns true on a violation.
bool lctx_fuzz_model(lctx_fuzz_state *state, const uint8_t *data, size_t size,
                     lctx_fuzz_result *result);

/// Parses the bytes as `.case` text; a valid case must print and re-parse to
/// itself, and print canonically twice alike. Returns true on a failure.
bool lctx_fuzz_case_text(lctx_fuzz_state *state, const uint8_t *data,
                         size_t size, lctx_fuzz_result *result);

/// Draws a generated program (conformance/sweep/PROGRAMS.md) from the
/// bytes: it must print, read back and print alike; lctx's lowering model
/// must keep, for each of its primitives over a list drawn from the bytes,
/// the rules the plain reading of JAX's dispatch gives; each reduction must
/// read back. The corpus it grows drives `lctx generate --from DIR`.
bool lctx_fuzz_program(lctx_fuzz_state *state, const uint8_t *data, size_t size,
                       lctx_fuzz_result *result);

/// Parses the bytes as a spec table; a parsed table must have rows whose
/// templates render without reading outside the features. Returns true on a
/// failure.
bool lctx_fuzz_spec(lctx_fuzz_state *state, const uint8_t *data, size_t size,
                    lctx_fuzz_result *result);

/// Decodes the bytes into a case and runs it twice: on the reference model
/// and on an implementation under test (the C ABI of lctx/impl_abi.h), in
/// process. The implementation is the library named by the environment
/// variable LCTX_DIFF_PLUGIN, else the one linked into the binary (the
/// fuzz_differential target links the example plugin), else the state's
/// plugin (lctx_fuzz_state_set_plugin); it is looked up once per state. Both
/// outcomes of every operation are judged by the embedded spec table; a failure
/// of either is reported (keys `fuzz_differential/impl/...` and
/// `fuzz_differential/reference/...`), and so is a disagreement the table
/// allows but that points at nondeterminism
/// (`.../differ/...`). Returns true on a failure.
bool lctx_fuzz_differential(lctx_fuzz_state *state, const uint8_t *data,
                            size_t size, lctx_fuzz_result *result);

/// All five targets, NULL-terminated.
extern const lctx_fuzz_target lctx_fuzz_targets[];

/// Looks a target up by name (any of the five); NULL if unknown.
const lctx_fuzz_target *lctx_fuzz_target_find(const char *name);

/// The spec table compiled into this binary (conformance/spec/
/// backend-selection.lspec at build time).
lctx_str lctx_fuzz_embedded_spec(void);

#endif /* LCTX_HARNESS_FUZZCHECK_H */
