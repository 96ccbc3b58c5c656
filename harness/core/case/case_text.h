/*
 * case_text.h - the canonical text form of a case (`.case` files).
 *
 * Owns parsing `.case` text into an lctx_case and printing an lctx_case as
 * canonical text. The format is documented in full in
 * conformance/cases/README.md; in short, one directive per line:
 *
 *   lctx-case 1
 *   factory "cpu" priority=0 loud client
 *   factory "tpu" priority=300 quiet raises "TPU not found"
 *   jax_platforms "cpu,tpu"
 *   nvidia_gpu hidden
 *   rule "P.cpu" get_backend optional=false, lower_fun "Q", marker
 *   op module_get_backend platforms=["cpu"] backend=None optional=false
 *   expect client registry 0 "cpu"
 *   op register_lowering primitive="P" rule="P.cpu" platform="cpu"
 *   op lower_per_platform primitive="P" platforms=["cpu"] backend=None x64=true
 *
 * Properties: for every valid case c (lctx_case_validate, plus the model's
 * invariants of case.h: fields unused by an operation's kind are zero, a
 * canonicalize operation has `has_arg` set, only a raising factory has a
 * message, an action's fields its kind does not use are zero; an
 * expectation is not truncated, has no NUL byte in its text, a raise names a
 * class and a registry client has a registration >= 0),
 * parse(print(c)) equals c with expectations, and print(parse(t)) is the
 * canonical form of t, a fixed point of parse-then-print.
 *
 * Never allocates, never prints, never exits; errors are values.
 */
#ifndef LCTX_HARNESS_CASE_TEXT_H
#define LCTX_HARNESS_CASE_TEXT_H

#include "case.h"

/// The format version this reader and printer speak (`lctx-case 1`).
#define LCTX_CASE_TEXT_VERSION 1

/// An upper bound of the printed size of any valid case, in bytes, including
/// the terminating NUL: every string byte escaped as `\xNN`, every field at
/// its limit, every rule with the most lower_fun actions with compute types,
/// every operation a lower_per_platform with every key and the longest
/// expectation.
#define LCTX_CASE_TEXT_MAX                                                     \
  (64 + LCTX_MAX_FACTORIES * (64 + 4 * (LCTX_MAX_NAME + LCTX_MAX_MESSAGE)) +   \
   3 * 64 + 4 * (LCTX_MAX_PLATFORMS_CONFIG + 2 * LCTX_MAX_NAME) +              \
   LCTX_CASE_MAX_RULES *                                                       \
       (32 + (2 * LCTX_CASE_MAX_ACTIONS + 1) * (4 * LCTX_MAX_NAME + 4) +       \
        LCTX_CASE_MAX_ACTIONS * 48) +                                          \
   LCTX_CASE_MAX_OPS *                                                         \
       (192 + (2 * LCTX_MAX_MODULE_PLATFORMS + 4) * (4 * LCTX_MAX_NAME + 4) +  \
        4 * LCTX_OUTCOME_TEXT_MAX))

/// Parses `length` bytes of `.case` text (NUL bytes included: the text need
/// not be NUL-terminated). On success fills `out` and returns true. On
/// failure appends `FILE:LINE:COL: message` to `error` (1-based line and
/// byte column; `filename` NULL reads as "<input>"), leaves `out` in an
/// unspecified but valid state, and returns false. Total: any byte string is
/// either a case or an error.
bool lctx_case_parse(const char *text, size_t length, const char *filename,
                     lctx_case *out, lctx_buf *error);

/// Appends the canonical text of `c` to `out`: the header, the factories in
/// order, the jax_* values that are non-empty, `nvidia_gpu`, the rules in
/// order, then each operation followed by its expectation, if any. A writer of
/// LCTX_CASE_TEXT_MAX bytes always suffices; a shorter one sets `overflow`.
void lctx_case_print(const lctx_case *c, lctx_buf *out);

/// Appends the text-form string literal of `n` bytes at `s`: double quotes;
/// `\\`, `\"`, `\n`, `\t`, `\r`; other bytes below 0x20 or from 0x7f as
/// lowercase `\xNN`; everything else raw.
void lctx_case_print_string(lctx_buf *out, const char *s, size_t n);

#endif /* LCTX_HARNESS_CASE_TEXT_H */
