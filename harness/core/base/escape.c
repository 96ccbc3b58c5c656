/*
 * escape.c - text from outside, safe for a terminal (see escape.h).
 *
 * One walk over the bytes (next_piece) splits them into pieces that are
 * either kept whole (a printable ASCII byte, a valid UTF-8 character that
 * is neither a C1 nor a bidi control), a backslash written as two, or
 * written as \xNN, one byte each; the writers differ only in where the
 * pieces go.
 */
#include "escape.h"

#include <stdbool.h>
#include <string.h>

/* The length of the valid UTF-8 character of 2 to 4 bytes at S (N bytes
 * left), or 0 when S does not start one (overlong forms, surrogates and
 * code points above U+10FFFF are not valid). */
static size_t utf8_length(const unsigned char *s, size_t n) {
  unsigned char c = s[0];
  size_t len;
  unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range */
  if (c >= 0xc2 && c <= 0xdf)
    len = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    lo = c == 0xe0 ? 0xa0 : 0x80;
    hi = c == 0xed ? 0x9f : 0xbf;
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    lo = c == 0xf0 ? 0x90 : 0x80;
    hi = c == 0xf4 ? 0x8f : 0xbf;
  } else
    return 0;
  if (n < len || s[1] < lo || s[1] > hi)
    return 0;
  for (size_t i = 2; i < len; i++)
    if ((s[i] & 0xc0) != 0x80)
      return 0;
  return len;
}

/* Whether the valid character of LEN bytes at S is a C1 control
 * (U+0080..U+009F) or a bidi control (U+202A..U+202E, U+2066..U+2069). */
static bool is_control_char(const unsigned char *s, size_t len) {
  if (len == 2)
    return s[0] == 0xc2 && s[1] <= 0x9f;
  if (len == 3 && s[0] == 0xe2 && s[1] == 0x80)
    return s[2] >= 0xaa && s[2] <= 0xae;
  if (len == 3 && s[0] == 0xe2 && s[1] == 0x81)
    return s[2] >= 0xa6 && s[2] <= 0xa9;
  return false;
}

/* `\xNN` of byte C into OUT (4 bytes, no NUL). */
static void hex_escape(unsigned char c, char out[4]) {
  static const char digits[] = "0123456789abcdef";
  out[0] = '\\';
  out[1] = 'x';
  out[2] = digits[c >> 4];
  out[3] = digits[c & 15];
}

/* The piece at S (N > 0 bytes left), written as it is shown into OUT (at
 * most 16 bytes, no NUL; *SIZE: how many): kept whole, a backslash
 * doubled (unless BACKSLASH_STAYS), or each of its bytes as \xNN.
 * Returns its length in the input. */
static size_t next_piece(const unsigned char *s, size_t n, char out[16],
                         size_t *size, bool backslash_stays) {
  size_t len = 1;
  bool keep;
  if (s[0] == '\\' && !backslash_stays) {
    memcpy(out, "\\\\", 2);
    *size = 2;
    return 1;
  }
  if (s[0] < 0x80)
    keep = s[0] >= 0x20 && s[0] != 0x7f;
  else {
    len = utf8_length(s, n);
    keep = len > 0 && !is_control_char(s, len);
    len = len > 0 ? len : 1;
  }
  if (keep) {
    memcpy(out, s, len);
    *size = len;
    return len;
  }
  for (size_t i = 0; i < len; i++)
    hex_escape(s[i], out + 4 * i);
  *size = 4 * len;
  return len;
}

size_t lctx_escape_piece(const char *s, size_t n, char out[16], size_t *size) {
  return next_piece((const unsigned char *)s, n, out, size, false);
}

/* lctx_escape_write, with BACKSLASH_STAYS for next_piece. */
static void write_pieces(FILE *f, const char *s, size_t n,
                         bool backslash_stays) {
  const unsigned char *p = (const unsigned char *)s;
  while (n > 0) {
    char e[16];
    size_t size, len = next_piece(p, n, e, &size, backslash_stays);
    fwrite(e, 1, size, f);
    p += len;
    n -= len;
  }
}

void lctx_escape_write(FILE *f, const char *s, size_t n) {
  write_pieces(f, s, n, false);
}

void lctx_escape_append(lctx_buf *b, const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  while (n > 0 && !b->overflow) {
    char e[16];
    size_t size, len = next_piece(p, n, e, &size, false);
    if (b->length + size > b->capacity - 1)
      b->overflow = true;
    else
      lctx_buf_append(b, e, size);
    p += len;
    n -= len;
  }
}

/* lctx_escape_lines, with BACKSLASH_STAYS for next_piece. */
static void write_lines(FILE *f, const char *indent, const char *text,
                        bool backslash_stays) {
  for (const char *line = text; line && *line;) {
    const char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    fputs(indent, f);
    write_pieces(f, line, len, backslash_stays);
    fputc('\n', f);
    line += len + (nl ? 1 : 0);
  }
}

void lctx_escape_lines(FILE *f, const char *indent, const char *text) {
  write_lines(f, indent, text, false);
}

void lctx_escape_built_lines(FILE *f, const char *indent, const char *text) {
  write_lines(f, indent, text, true);
}

/* Appends the piece BYTES (LEN of them) to OUT at *AT (CAP bytes) when it
 * fits with room for the NUL; *FITS remembers where "..." still fits after
 * it. False when it does not fit. */
static bool put(char *out, size_t cap, size_t *at, size_t *fits,
                const char *bytes, size_t len) {
  if (*at + len > cap - 1)
    return false;
  memcpy(out + *at, bytes, len);
  *at += len;
  if (*at + 3 <= cap - 1)
    *fits = *at;
  return true;
}

const char *lctx_escape(const char *s, char *out, size_t cap) {
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  size_t n = strlen((const char *)p), at = 0, fits = 0;
  bool cut = false;
  if (cap == 0)
    return out;
  while (n > 0 && !cut) {
    char e[16];
    size_t size, len = next_piece(p, n, e, &size, false);
    cut = !put(out, cap, &at, &fits, e, size);
    p += len;
    n -= len;
  }
  if (cut) {
    size_t dots = cap - 1 < 3 ? cap - 1 : 3;
    at = dots < 3 ? 0 : fits;
    memcpy(out + at, "...", dots);
    at += dots;
  }
  out[at] = '\0';
  return out;
}

const char *lctx_esc(lctx_escaped *b, const char *s) {
  return lctx_escape(s, b->text, sizeof b->text);
}
