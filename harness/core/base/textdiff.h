/*
 * textdiff.h - two texts one above the other, their first differing byte
 * marked.
 *
 * Owns how lctx shows an expected text against an actual one: the first
 * byte at which they differ, found; each text shown as escape.h shows it
 * (its pieces from lctx_escape_piece, so that a control byte, a byte that
 * is not UTF-8 or a backslash shows as everywhere else), cut around the
 * difference when long; and a line under them with a caret at the
 * difference and its byte offset. libc only, so that the fuzz build
 * compiles it.
 */
#ifndef LCTX_CORE_TEXTDIFF_H
#define LCTX_CORE_TEXTDIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "lctx/str.h"

/// A text of at most LCTX_TEXTDIFF_WIDTH columns (as shown) is shown
/// whole; of a longer one, at most that many around the difference: from
/// the start when at most LCTX_TEXTDIFF_LEAD columns precede the
/// difference, else from LCTX_TEXTDIFF_BEFORE columns before it.
#define LCTX_TEXTDIFF_WIDTH 100
#define LCTX_TEXTDIFF_LEAD 60
#define LCTX_TEXTDIFF_BEFORE 40

/// Where texts A (NA bytes) and B (NB bytes) first differ.
typedef struct lctx_textdiff {
  bool same;   ///< no byte differs and they are as long
  size_t at;   ///< the first differing byte (the shorter's length at most)
  size_t mark; ///< where the character holding byte `at` starts (<= at)
  /// The bytes shown of each text: [from, to_a) of A, [from, to_b) of B,
  /// each a whole number of pieces; the cut ends show as "...".
  size_t from, to_a, to_b;
  size_t na, nb;
} lctx_textdiff;

/// Finds the first difference of A and B and the bytes of each to show.
void lctx_textdiff_find(const char *a, size_t na, const char *b, size_t nb,
                        lctx_textdiff *d);

/// Appends to OUT, after INDENT each, the lines
///
///     LABEL_A TEXT_A
///     LABEL_B TEXT_B
///             ^ first difference at byte N (from 0)[; cut: ...]
///
/// the labels padded to one width, the texts as lctx_textdiff_find cuts
/// them, escaped (lctx_escape_append), the caret under the character that
/// holds the first differing byte (a wide East Asian character counted as
/// two columns); "(the texts are the same)" instead of the caret line when
/// they are. Each line ends with '\n'. Show OUT with
/// lctx_escape_built_lines (its escapes are shown once).
void lctx_textdiff_append(lctx_buf *out, const char *indent,
                          const char *label_a, const char *a, size_t na,
                          const char *label_b, const char *b, size_t nb);

#endif /* LCTX_CORE_TEXTDIFF_H */
