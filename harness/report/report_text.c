/*
 * report_text.c - text of arbitrary bytes as UTF-8, and the report
 * layer's messages (see report_text.h).
 */
#include "report_text.h"

#include "escape.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The length of the UTF-8 sequence at `s` (1 to 4) and its code point in
 * *cp, or 0 when the bytes there are no valid sequence (overlong forms,
 * surrogates and code points past U+10FFFF are not). */
size_t lctx_conform_utf8_next(const unsigned char *s, unsigned *cp) {
  unsigned c = s[0];
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  size_t len = c >= 0xc2 && c <= 0xdf   ? 2
               : c >= 0xe0 && c <= 0xef ? 3
               : c >= 0xf0 && c <= 0xf4 ? 4
                                        : 0;
  if (!len)
    return 0;
  unsigned v = c & (0x7f >> len);
  for (size_t k = 1; k < len; k++) {
    if ((s[k] & 0xc0) != 0x80)
      return 0;
    v = (v << 6) | (s[k] & 0x3f);
  }
  if ((len == 3 && v < 0x800) || (len == 4 && v < 0x10000) || v > 0x10ffff ||
      (v >= 0xd800 && v <= 0xdfff))
    return 0;
  *cp = v;
  return len;
}

char *lctx_conform_utf8(char *dst, size_t n, const char *s) {
  size_t k = 0;
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    unsigned cp;
    size_t len = lctx_conform_utf8_next(p, &cp);
    const char *bytes = len ? (const char *)p : "\xef\xbf\xbd";
    size_t out = len ? len : 3;
    if (k + out >= n)
      break;
    memcpy(dst + k, bytes, out);
    k += out;
    p += len ? len : 1;
  }
  dst[k] = '\0';
  return dst;
}

json_t *lctx_report_json_text(const char *s) {
  json_t *j = json_string(s);
  if (j)
    return j;
  size_t n = 3 * strlen(s) + 4;
  char *copy = malloc(n);
  if (!copy)
    return json_string("?");
  j = json_string(lctx_conform_utf8(copy, n, s));
  free(copy);
  return j ? j : json_string("?");
}

bool lctx_report_say(lctx_buf *error, const char *fmt, ...) {
  if (!error)
    return false;
  char line[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (error->length > 0)
    lctx_buf_append_char(error, '\n');
  lctx_buf_append_cstr(error, line);
  return false;
}

void lctx_report_warn(lctx_buf *warnings, const char *fmt, ...) {
  if (!warnings)
    return;
  char line[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  lctx_escape_append(warnings, line, strlen(line));
  lctx_buf_append_char(warnings, '\n');
}
