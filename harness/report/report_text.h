/*
 * conform_text.h - text of arbitrary bytes as conform's reports carry it.
 *
 * Owns reading UTF-8 strictly (overlong forms, surrogates and code points
 * past U+10FFFF are not UTF-8) and keeping text as UTF-8 where it is UTF-8,
 * U+FFFD where it is not: in a C string and in a JSON string. Escaping for
 * XML and YAML is conform_report.c's, on top of this.
 */
#ifndef LCTX_HARNESS_REPORT_TEXT_H
#define LCTX_HARNESS_REPORT_TEXT_H

#include <jansson.h>
#include <stddef.h>

/// The length of the UTF-8 sequence at `s` (1 to 4) and its code point in
/// `*cp`, or 0 when the bytes there are no valid sequence.
size_t lctx_conform_utf8_next(const unsigned char *s, unsigned *cp);

/// `s` with every byte sequence that is not UTF-8 (overlong forms and
/// surrogates included) replaced by U+FFFD, into `dst` (`n` bytes, at
/// least 4; cut at a character boundary when full). Returns `dst`.
char *lctx_conform_utf8(char *dst, size_t n, const char *s);

/// A JSON string of arbitrary bytes, through lctx_conform_utf8.
json_t *lctx_report_json_text(const char *s);

#endif /* LCTX_HARNESS_REPORT_TEXT_H */
