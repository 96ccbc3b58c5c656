/*
 * str.c - string views and bounded writers (see lctx/str.h).
 *
 * Owns byte copying with bounds; must never allocate or write past capacity.
 */
#include "lctx/str.h"

#include <string.h>

lctx_str lctx_str_from_cstr(const char *s) {
  lctx_str v = {s, s ? strlen(s) : 0};
  return v;
}

lctx_str lctx_str_make(const char *data, size_t length) {
  lctx_str v = {data, length};
  return v;
}

bool lctx_str_equal(lctx_str a, lctx_str b) {
  if (a.length != b.length)
    return false;
  /* Most views compared are short names: their bytes in place, cheaper
   * than a call; longer ones by memcmp. */
  if (a.length <= 16) {
    for (size_t i = 0; i < a.length; i++)
      if (a.data[i] != b.data[i])
        return false;
    return true;
  }
  return memcmp(a.data, b.data, a.length) == 0;
}

bool lctx_str_equal_cstr(lctx_str a, const char *s) {
  if (!s)
    return a.length == 0;
  if (a.length == 0)
    return s[0] == '\0';
  /* Most calls differ in the first byte; the others compare `s`'s length
   * (read no further than one byte past `a`'s) then the bytes. */
  if (s[0] != a.data[0])
    return false;
  return strnlen(s, a.length + 1) == a.length &&
         memcmp(s, a.data, a.length) == 0;
}

int lctx_str_compare(lctx_str a, lctx_str b) {
  size_t n = a.length < b.length ? a.length : b.length;
  if (n > 0) {
    int c = memcmp(a.data, b.data, n);
    if (c != 0)
      return c;
  }
  if (a.length == b.length)
    return 0;
  return a.length < b.length ? -1 : 1;
}

void lctx_buf_init(lctx_buf *buf, char *storage, size_t capacity) {
  buf->data = storage;
  buf->capacity = capacity;
  lctx_buf_reset(buf);
}

void lctx_buf_reset(lctx_buf *buf) {
  buf->length = 0;
  buf->overflow = false;
  if (buf->capacity > 0)
    buf->data[0] = '\0';
}

void lctx_buf_append(lctx_buf *buf, const char *data, size_t length) {
  /* The common case first, with one comparison: it fits (capacity > 0 and
   * length + `length` + 1 <= capacity, unsigned: capacity 0 never does). */
  if (length < buf->capacity - buf->length) {
    if (length > 0) /* `data` may be NULL then */
      memcpy(buf->data + buf->length, data, length);
    buf->length += length;
    buf->data[buf->length] = '\0';
    return;
  }
  if (buf->capacity == 0) {
    buf->overflow = buf->overflow || length > 0;
    return;
  }
  size_t room = buf->capacity - 1 - buf->length;
  if (length > room) {
    length = room;
    buf->overflow = true;
  }
  if (length > 0)
    memcpy(buf->data + buf->length, data, length);
  buf->length += length;
  buf->data[buf->length] = '\0';
}

void lctx_buf_append_str(lctx_buf *buf, lctx_str s) {
  lctx_buf_append(buf, s.data, s.length);
}

void lctx_buf_append_cstr(lctx_buf *buf, const char *s) {
  if (s)
    lctx_buf_append(buf, s, strlen(s));
}

void lctx_buf_append_char(lctx_buf *buf, char c) {
  /* Room for it and the NUL (capacity 0 has none: 1 < 0 - 0 is false). */
  if (1 < buf->capacity - buf->length) {
    buf->data[buf->length++] = c;
    buf->data[buf->length] = '\0';
    return;
  }
  lctx_buf_append(buf, &c, 1);
}

void lctx_buf_append_int(lctx_buf *buf, long long value) {
  char digits[24];
  size_t n = 0;
  /* Work in unsigned arithmetic so that LLONG_MIN does not overflow. */
  unsigned long long magnitude =
      value < 0 ? 0ULL - (unsigned long long)value : (unsigned long long)value;
  do {
    digits[n++] = (char)('0' + magnitude % 10);
    magnitude /= 10;
  } while (magnitude > 0);
  if (value < 0)
    lctx_buf_append_char(buf, '-');
  while (n > 0)
    lctx_buf_append_char(buf, digits[--n]);
}

lctx_str lctx_buf_view(const lctx_buf *buf) {
  return lctx_str_make(buf->data, buf->length);
}
