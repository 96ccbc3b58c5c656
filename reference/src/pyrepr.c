/*
 * pyrepr.c - Python's repr() of ASCII strings and string lists (see
 * lctx/pyrepr.h; semantics.md section 8).
 *
 * Owns the quoting and escaping rules only; it does not decide which values
 * a message shows.
 */
#include "lctx/pyrepr.h"

#include <string.h>

static bool contains(lctx_str s, char c) {
  return s.length > 0 && memchr(s.data, c, s.length) != NULL;
}

void lctx_pyrepr_str(lctx_buf *out, lctx_str s) {
  static const char hex[] = "0123456789abcdef";
  char quote = (contains(s, '\'') && !contains(s, '"')) ? '"' : '\'';
  lctx_buf_append_char(out, quote);
  size_t run = 0; /* start of the current run of bytes kept as they are */
  for (size_t i = 0; i < s.length; i++) {
    unsigned char c = (unsigned char)s.data[i];
    bool plain =
        c >= 0x20 && c != 0x7f && c != '\\' && c != (unsigned char)quote;
    if (plain)
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
