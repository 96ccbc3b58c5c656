/*
 * program_text.h - generated programs as text (conformance/sweep/
 * PROGRAMS.md): the one parser (every error names its line and column)
 * and the one printer (canonical: a program printed, read and printed
 * again gives the same bytes).
 */
#ifndef LCTX_HARNESS_PROGRAM_TEXT_H
#define LCTX_HARNESS_PROGRAM_TEXT_H

#include "program.h"

/// Reads program text (`n` bytes, not NUL-terminated). False with
/// "LINE:COLUMN: what" in `why`.
bool lctx_program_parse(const char *text, size_t n, lctx_program_desc *p,
                        char *why, size_t cap);

/// Writes the canonical text of `p` into `out` (`cap` bytes); returns its
/// length, or 0 when it does not fit.
size_t lctx_program_print(const lctx_program_desc *p, char *out, size_t cap);
/// Whether `p` is a program PROGRAMS.md allows (every reference defined
/// before use, limits kept); false with why.
bool lctx_program_check(const lctx_program_desc *p, char *why, size_t cap);

#endif /* LCTX_HARNESS_PROGRAM_TEXT_H */
