/*
 * lctx/str.h - string views and bounded output buffers.
 *
 * Owns the two byte-handling primitives every other module uses: a non-owning
 * string view (lctx_str, in the manner of MLIR's MlirStringRef) and a bounded
 * writer over caller-provided storage (lctx_buf) that never allocates, never
 * overruns, and records overflow instead of failing.
 */
#ifndef LCTX_STR_H
#define LCTX_STR_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Marks a declaration as part of lctx's public interface.
#define LCTX_API

//===----------------------------------------------------------------------===//
// String views
//===----------------------------------------------------------------------===//

/// A non-owning view of `length` bytes at `data`. Not NUL-terminated in
/// general. The referenced bytes must outlive the view.
typedef struct lctx_str {
  const char *data;
  size_t length;
} lctx_str;

/// Creates a view of a NUL-terminated string. A NULL pointer gives the empty
/// view {NULL, 0}.
LCTX_API lctx_str lctx_str_from_cstr(const char *s);

/// Creates a view of `length` bytes at `data`.
LCTX_API lctx_str lctx_str_make(const char *data, size_t length);

/// Returns true when both views hold the same bytes.
LCTX_API bool lctx_str_equal(lctx_str a, lctx_str b);

/// Returns true when the view holds exactly the bytes of NUL-terminated `s`.
LCTX_API bool lctx_str_equal_cstr(lctx_str a, const char *s);

/// Compares two views by unsigned byte value (code point order for ASCII),
/// shorter-prefix first. Returns <0, 0 or >0.
LCTX_API int lctx_str_compare(lctx_str a, lctx_str b);

//===----------------------------------------------------------------------===//
// Bounded writers
//===----------------------------------------------------------------------===//

/// A writer over caller-provided storage of `capacity` bytes. The contents are
/// always NUL-terminated; bytes that do not fit are dropped and `overflow` is
/// set. A writer never allocates.
typedef struct lctx_buf {
  char *data;
  size_t capacity;
  size_t length;
  bool overflow;
} lctx_buf;

/// Initializes a writer over `storage` (capacity must be at least 1) and
/// empties it.
LCTX_API void lctx_buf_init(lctx_buf *buf, char *storage, size_t capacity);

/// Empties the writer and clears its overflow flag.
LCTX_API void lctx_buf_reset(lctx_buf *buf);

/// Appends `length` bytes.
LCTX_API void lctx_buf_append(lctx_buf *buf, const char *data, size_t length);

/// Appends the bytes of a view.
LCTX_API void lctx_buf_append_str(lctx_buf *buf, lctx_str s);

/// Appends a NUL-terminated string.
LCTX_API void lctx_buf_append_cstr(lctx_buf *buf, const char *s);

/// Appends one byte.
LCTX_API void lctx_buf_append_char(lctx_buf *buf, char c);

/// Appends a decimal integer, formatted as Python's str(int) would.
LCTX_API void lctx_buf_append_int(lctx_buf *buf, long long value);

/// Returns a view of the bytes written so far.
LCTX_API lctx_str lctx_buf_view(const lctx_buf *buf);

#ifdef __cplusplus
}
#endif

#endif /* LCTX_STR_H */
