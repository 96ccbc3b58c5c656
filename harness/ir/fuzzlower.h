/*
 * fuzzlower.h - the check behind the fuzz_lowering target: random lowering
 * scenarios through the reference lowering model, the MLIR emitter and the
 * IR checker (semantics.md section 7).
 *
 * Owns decoding bytes into a lowering scenario (2-4 primitives P, Q, R, S
 * with common and platform rules whose bodies mark, lower later primitives
 * through lower_fun, call get_backend(optional=True) or raise for several
 * platforms; 1-4 module platforms; an optional narrowing of the top context;
 * a stock backend registry) and judging it: a raise must be one of section
 * 7's; a successful lowering must emit a module that parses and verifies and
 * that the IR checker accepts, apart from IR-006 (the known upstream nested
 * platform-index defect), which must appear exactly for the scenarios whose
 * JAX-actual marker path differs from the intended one.
 *
 * Its row in fuzzcheck.c's lctx_fuzz_targets[] says needs_mlir and has no
 * check: the core layer links no MLIR, so neither does the OSS-Fuzz build.
 * harness/ir/fuzzrun.h resolves the row to lctx_fuzz_lowering; the local
 * builds of fuzzers/CMakeLists.txt (libFuzzer, AFL++, replay) link it.
 *
 * No hidden state: an lctx_fuzz_lowering_state holds the decoded scenario,
 * the work buffers, what the last input did, one MLIR context and one IR
 * checker, both reused across inputs and recreated every N inputs
 * (lctx_fuzz_lowering_set_recycle; default 20000, or the environment
 * variable LCTX_FUZZ_LOWERING_RECYCLE read at creation). One state serves
 * one thread at a time.
 */
#ifndef LCTX_HARNESS_FUZZLOWER_H
#define LCTX_HARNESS_FUZZLOWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fuzzcheck.h"

/// The default number of inputs between two recreations of the MLIR
/// contexts.
#define LCTX_FUZZ_LOWERING_RECYCLE 20000

/// What the fuzz_lowering check keeps between inputs (opaque; see above).
typedef struct lctx_fuzz_lowering_state lctx_fuzz_lowering_state;

/// Creates a state and its contexts; NULL when out of memory. A context
/// that cannot be created is retried on each input, which reports
/// `fuzz_lowering/setup` meanwhile.
lctx_fuzz_lowering_state *lctx_fuzz_lowering_state_new(void);

/// Destroys a state and its contexts (NULL is fine).
void lctx_fuzz_lowering_state_free(lctx_fuzz_lowering_state *state);

/// Decodes the bytes into a lowering scenario and judges it (see above).
/// Returns true on a finding, with a key starting `fuzz_lowering/`:
/// `fuzz_lowering/raise/<class>` (a raise outside section 7),
/// `fuzz_lowering/emit/<parse|verify|unsupported>`,
/// `fuzz_lowering/ir/IR-00N` (any violated row but IR-006),
/// `fuzz_lowering/defect-row-mismatch` (IR-006 present without the defect, or
/// missing with it).
bool lctx_fuzz_lowering(lctx_fuzz_lowering_state *state, const uint8_t *data,
                        size_t size, lctx_fuzz_result *result);

/// Sets the number of inputs between two recreations of the MLIR context and
/// of the IR checker's context (0: never). Overrides the environment.
void lctx_fuzz_lowering_set_recycle(lctx_fuzz_lowering_state *state,
                                    size_t every_n);

/// How many MLIR contexts the emitter side of `state` has created so far.
size_t
lctx_fuzz_lowering_contexts_created(const lctx_fuzz_lowering_state *state);

/// What the last lctx_fuzz_lowering call did (for tests and reports).
typedef struct lctx_fuzz_lowering_info {
  bool decoded;            ///< the scenario fit the model's tables
  bool raised;             ///< the lowering raised (section 7's errors)
  bool emitted;            ///< a module was emitted, parsed and verified
  bool checked;            ///< the IR checker ran on it
  bool saw_ir006;          ///< the checker reported IR-006
  size_t defect_indices;   ///< platform indices with a visible defect
  size_t platform_count;   ///< module platforms
  size_t dispatch_count;   ///< dispatches expected by the checker
  const char *raise_class; ///< the raised class, "" when none
  const char *raise_text;  ///< the raise's message, "" when none
} lctx_fuzz_lowering_info;

/// Returns what the last call with `state` did; valid until the next call.
const lctx_fuzz_lowering_info *
lctx_fuzz_lowering_last(const lctx_fuzz_lowering_state *state);

#endif /* LCTX_HARNESS_FUZZLOWER_H */
