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
 *
 * The parser is case_text.c (the directives) over case_text_lex.c (the
 * lexer and the values, sharing case_text_private.h); the printer is its
 * own module, case_text_print.h, included here.
 */
#ifndef LCTX_HARNESS_CASE_TEXT_H
#define LCTX_HARNESS_CASE_TEXT_H

#include "case.h"
#include "case_text_print.h"

/// The format version this reader and printer speak (`lctx-case 1`).
#define LCTX_CASE_TEXT_VERSION 1

/// Parses `length` bytes of `.case` text (NUL bytes included: the text need
/// not be NUL-terminated). On success fills `out`, and `expect` (may be
/// NULL: the expectations are checked, then dropped) with the expectations
/// beside it, and returns true. On
/// failure appends `FILE:LINE:COL: message` to `error` (1-based line and
/// byte column; `filename` NULL reads as "<input>"), leaves `out` in an
/// unspecified but valid state, and returns false. Total: any byte string is
/// either a case or an error.
bool lctx_case_parse(const char *text, size_t length, const char *filename,
                     lctx_case *out, lctx_case_expect *expect, lctx_buf *error);

#endif /* LCTX_HARNESS_CASE_TEXT_H */
