/*
 * escape.h - text from outside lctx, made safe to show on a terminal.
 *
 * Owns the one rule by which bytes lctx did not write itself (a case file,
 * a rule file, a spec table, an --xfail file, a file name, an
 * implementation's messages and names) are printed to stdout or stderr:
 * control bytes, bytes that are not valid UTF-8, the C1 controls and the
 * bidi controls become `\xNN`, one per byte, so that such text can neither
 * move the cursor, clear the screen, set a title, reorder what follows nor
 * start a line of its own; a backslash becomes `\\`, so that no two texts
 * show alike (the byte 0x01 shows as `\x01`, the four characters `\x01`
 * as `\\x01`). Reports and machine files keep the exact bytes;
 * only what a terminal shows goes through here. libc only, so that the fuzz
 * build compiles it.
 */
#ifndef LCTX_CORE_ESCAPE_H
#define LCTX_CORE_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

#include "lctx/str.h"

/// Writes S (N bytes) to F so that a terminal shows it as text: bytes
/// below 0x20 (including \n, \r, \t...), 0x7f, bytes that do not form
/// valid UTF-8, the C1 controls U+0080..U+009F and the bidi controls
/// U+202A..U+202E, U+2066..U+2069 become \xNN (each byte, lowercase hex); a
/// backslash becomes two (\\), so that the output reads back to one input
/// only. Valid UTF-8 otherwise stays as it is.
void lctx_escape_write(FILE *f, const char *s, size_t n);

/// The same for the NUL-terminated S (NULL: the empty string) into OUT (CAP
/// bytes, at least 1; always NUL-terminated; cut with "..." when too long,
/// never inside a character, an \xNN or a \\); returns OUT, so that it can be
/// used as a printf argument.
const char *lctx_escape(const char *s, char *out, size_t cap);

/// Writes each line of the NUL-terminated TEXT (split at '\n'; a last
/// line without one counts) to F after INDENT, escaped as
/// lctx_escape_write does, and ends it with '\n': a text of several lines
/// built from outside input, shown line by line.
void lctx_escape_lines(FILE *f, const char *indent, const char *text);

/// Appends S (N bytes) to B escaped as lctx_escape_write writes it (each
/// character, \xNN or \\ whole, or not at all when B is full): outside
/// text inside a multi-line text lctx builds for a terminal, so that its
/// newlines cannot start lines of their own. Show such a text with
/// lctx_escape_built_lines: lctx_escape_lines would escape its escapes
/// again (`\x0a` would show as `\\x0a`).
void lctx_escape_append(lctx_buf *b, const char *s, size_t n);

/// Writes each line of TEXT as lctx_escape_lines does, except that a
/// backslash stays one: for a text lctx built whose outside parts are
/// escaped already (lctx_escape_append; a case printed in the case format,
/// whose strings hold the format's own escapes), so that its escapes show
/// once; a control byte left in it still shows as \xNN.
void lctx_escape_built_lines(FILE *f, const char *indent, const char *text);

/// The first piece of S (N > 0 bytes) as lctx_escape_write shows it: a
/// character kept whole, a backslash as two, or each byte of a control or
/// of a sequence that is not UTF-8 as \xNN; its shown bytes into OUT (at
/// most 16, no NUL), how many in *SIZE. Returns how many bytes of S it
/// covers (1 to 4): for code that must know where the shown characters
/// of a text begin (textdiff.h).
size_t lctx_escape_piece(const char *s, size_t n, char out[16], size_t *size);

/// A buffer big enough for one message (lctx_esc).
typedef struct lctx_escaped {
  char text[4096];
} lctx_escaped;

/// lctx_escape of S into B; returns B->text.
const char *lctx_esc(lctx_escaped *b, const char *s);

#endif /* LCTX_CORE_ESCAPE_H */
