/*
 * lctx/pyrepr.h - Python formatting of the values that appear in JAX messages.
 *
 * Owns the exact byte rules of Python's repr() for ASCII strings and for lists
 * of strings, as they appear inside JAX's f-string messages (semantics.md
 * section 8). Names outside ASCII (bytes 0x80-0xff) are out of lctx's scope:
 * the registry configuration rejects them before they can reach a message.
 */
#ifndef LCTX_PYREPR_H
#define LCTX_PYREPR_H

#include "lctx/str.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Appends Python's repr() of the ASCII string `s`: single quotes unless `s`
/// holds a single quote and no double quote; `\\`, the chosen quote, `\t`,
/// `\n`, `\r` escaped; other bytes below 0x20 and 0x7f as `\xNN` (lowercase).
LCTX_API void lctx_pyrepr_str(lctx_buf *out, lctx_str s);

/// Appends Python's repr() of a list of strings: `[` + element reprs joined by
/// `, ` + `]`.
LCTX_API void lctx_pyrepr_str_list(lctx_buf *out, const lctx_str *items,
                                   size_t count);

/// Returns true when every byte of `s` is in 0x01-0x7f, the alphabet lctx
/// accepts for platform and factory names.
LCTX_API bool lctx_pyrepr_is_supported(lctx_str s);

#ifdef __cplusplus
}
#endif

#endif /* LCTX_PYREPR_H */
