/*
 * report_text.h - text of arbitrary bytes as the reports carry it, and
 * the messages of the report layer.
 *
 * Owns reading UTF-8 strictly (overlong forms, surrogates and code points
 * past U+10FFFF are not UTF-8) and keeping text as UTF-8 where it is UTF-8,
 * U+FFFD where it is not: in a C string and in a JSON string. Escaping for
 * XML and YAML is report_write.c's, on top of this. Owns too the one way
 * the report layer says why it failed: a line appended to the caller's
 * `lctx_buf *error` (verdict.h states the convention).
 */
#ifndef LCTX_HARNESS_REPORT_TEXT_H
#define LCTX_HARNESS_REPORT_TEXT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "lctx/str.h"

/// The length of the UTF-8 sequence at `s` (1 to 4) and its code point in
/// `*cp`, or 0 when the bytes there are no valid sequence.
size_t lctx_conform_utf8_next(const unsigned char *s, unsigned *cp);

/// `s` with every byte sequence that is not UTF-8 (overlong forms and
/// surrogates included) replaced by U+FFFD, into `dst` (`n` bytes, at
/// least 4; cut at a character boundary when full). Returns `dst`.
char *lctx_conform_utf8(char *dst, size_t n, const char *s);

/// A JSON string of arbitrary bytes, through lctx_conform_utf8.
json_t *lctx_report_json_text(const char *s);

/// Appends one line, printf's `fmt` (no "lctx: " prefix, no newline), to
/// `error` (a newline first when it holds a line already; nothing when
/// `error` is NULL). Returns false, for `return lctx_report_say(...)`.
__attribute__((format(printf, 2, 3))) bool
lctx_report_say(lctx_buf *error, const char *fmt, ...);

/// Appends one line to `warnings` (nothing when it is NULL): printf's
/// `fmt`, escaped for a terminal (escape.h: a control byte, a newline
/// included, as \xNN), so that each warning is one line whatever bytes it
/// names; the caller prints the lines as they are.
__attribute__((format(printf, 2, 3))) void
lctx_report_warn(lctx_buf *warnings, const char *fmt, ...);

#endif /* LCTX_HARNESS_REPORT_TEXT_H */
