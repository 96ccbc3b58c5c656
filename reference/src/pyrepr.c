/*
 * pyrepr.c - Python's repr() of ASCII strings and string lists (see
 * lctx/pyrepr.h; semantics.md section 8).
 *
 * Owns the quoting and escaping rules only; it does not decide which values
 * a message shows.
 */
#include "lctx/pyrepr.h"

#include <string.h>

/* Whether byte c is kept as it is inside single (double) quotes: c >= 0x20
 * but 0x7f, the backslash (0x5c) and the quote (0x27, 0x22). */
static const bool plain_in_single[256] = {[0x20 ... 0x26] = true,
                                          [0x28 ... 0x5b] = true,
                                          [0x5d ... 0x7e] = true,
                                          [0x80 ... 0xff] = true};
static const bool plain_in_double[256] = {[0x20 ... 0x21] = true,
                                          [0x23 ... 0x5b] = true,
                                          [0x5d ... 0x7e] = true,
                                          [0x80 ... 0xff] = true};

/* What a byte asks of the quoting: 1 a single quote, 2 a double quote, 4
 * an escape whatever the quote (below 0x20, 0x7f, the backslash). */
static const unsigned char byte_class[256] = {
    [0x00 ... 0x1f] = 4, [0x27] = 1, [0x22] = 2, [0x5c] = 4, [0x7f] = 4};

void lctx_pyrepr_str(lctx_buf *out, lctx_str s) {
  static const char hex[] = "0123456789abcdef";
  /* One pass over the bytes says which quote, and whether any byte is
   * escaped: most strings are plain, written in one piece. */
  unsigned seen = 0;
  for (size_t i = 0; i < s.length; i++)
    seen |= byte_class[(unsigned char)s.data[i]];
  char quote = (seen & 1) && !(seen & 2) ? '"' : '\'';
  if ((seen & ~1u) == 0 && s.length + 2 < out->capacity - out->length) {
    /* No double quote, nothing escaped, and room for the quotes, the
     * bytes and the NUL (capacity 0 has none): written in place. */
    char *at = out->data + out->length;
    at[0] = quote;
    if (s.length > 0)
      memcpy(at + 1, s.data, s.length);
    at[s.length + 1] = quote;
    out->length += s.length + 2;
    out->data[out->length] = '\0';
    return;
  }
  lctx_buf_append_char(out, quote);
  size_t run = 0; /* start of the current run of bytes kept as they are */
  /* Bytes kept as they are, by quote: printable ASCII and up but 0x7f,
   * the backslash and the quote (one look-up a byte, no comparisons). */
  const bool *plain = quote == '"' ? plain_in_double : plain_in_single;
  for (size_t i = 0; i < s.length; i++) {
    unsigned char c = (unsigned char)s.data[i];
    if (plain[c])
      continue;
    if (i > run)
      lctx_buf_append(out, s.data + run, i - run);
    run = i + 1;
    if (c == '\\' || c == (unsigned char)quote) {
      lctx_buf_append_char(out, '\\');
      lctx_buf_append_char(out, (char)c);
    } else if (c == '\t') {
      lctx_buf_append(out, "\\t", 2);
    } else if (c == '\n') {
      lctx_buf_append(out, "\\n", 2);
    } else if (c == '\r') {
      lctx_buf_append(out, "\\r", 2);
    } else {
      char esc[4] = {'\\', 'x', hex[c >> 4], hex[c & 0xf]};
      lctx_buf_append(out, esc, sizeof esc);
    }
  }
  if (s.length > run)
    lctx_buf_append(out, s.data + run, s.length - run);
  lctx_buf_append_char(out, quote);
}

void lctx_pyrepr_str_list(lctx_buf *out, const lctx_str *items, size_t count) {
  lctx_buf_append_char(out, '[');
  for (size_t i = 0; i < count; i++) {
    if (i > 0)
      lctx_buf_append(out, ", ", 2);
    lctx_pyrepr_str(out, items[i]);
  }
  lctx_buf_append_char(out, ']');
}

bool lctx_pyrepr_is_supported(lctx_str s) {
  for (size_t i = 0; i < s.length; i++) {
    unsigned char c = (unsigned char)s.data[i];
    if (c == 0 || c > 0x7f)
      return false;
  }
  return true;
}
