/*
 * outcome.c - part of the example plugin (overview: lctx_example_plugin.c):
 * writing an operation's result into the outcome lctx passes in, and the
 * Python formatting of its text (repr() of strings and lists).
 */
#include "plugin.h"

#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// 1. Outcome helpers
//===----------------------------------------------------------------------===//

/// Resets an outcome to "returned None" with an empty text.
void outcome_reset(lctx_impl_outcome *out) {
  out->kind = LCTX_IMPL_NONE;
  out->error_class = 0;
  out->origin = LCTX_IMPL_ORIGIN_REGISTRY;
  out->registration = 0;
  out->text_length = 0;
  if (out->text != NULL && out->text_capacity > 0)
    out->text[0] = '\0';
}

/// Appends `n` bytes to the outcome's text, keeping it NUL-terminated.
static void append_bytes(lctx_impl_outcome *out, const char *s, size_t n) {
  if (out->text_length == TEXT_OVERFLOW)
    return;
  if (out->text == NULL || out->text_capacity == 0 ||
      n > out->text_capacity - 1 - out->text_length) {
    out->text_length = TEXT_OVERFLOW;
    return;
  }
  memcpy(out->text + out->text_length, s, n);
  out->text_length += n;
  out->text[out->text_length] = '\0';
}

void append(lctx_impl_outcome *out, const char *s) {
  append_bytes(out, s, strlen(s));
}

/// The status an operation returns: 0 unless its text overflowed.
lctx_impl_status outcome_status(const lctx_impl_outcome *out) {
  return out->text_length == TEXT_OVERFLOW ? 1 : 0;
}

/// Starts a raised Python exception of class `error_class`; the caller
/// appends the message. Returns false, so that helpers can
/// `return raise_error(...)` to signal "an exception was raised".
bool raise_error(lctx_impl_outcome *out, int32_t error_class,
                 const char *message) {
  outcome_reset(out);
  out->kind = LCTX_IMPL_RAISE;
  out->error_class = error_class;
  append(out, message);
  return false;
}

//===----------------------------------------------------------------------===//
// 2. Python formatting (semantics.md section 8; names are ASCII)
//===----------------------------------------------------------------------===//

/// Appends Python's repr() of the string `s`.
static void append_repr(lctx_impl_outcome *out, const char *s) {
  // Single quotes, unless the string holds a ' and no ".
  char quote = '\'';
  if (strchr(s, '\'') != NULL && strchr(s, '"') == NULL)
    quote = '"';
  append_bytes(out, &quote, 1);
  for (const char *c = s; *c != '\0'; c++) {
    unsigned char b = (unsigned char)*c;
    if (b == '\\' || b == (unsigned char)quote) {
      char escaped[2] = {'\\', (char)b};
      append_bytes(out, escaped, 2);
    } else if (b == '\t') {
      append(out, "\\t");
    } else if (b == '\n') {
      append(out, "\\n");
    } else if (b == '\r') {
      append(out, "\\r");
    } else if (b < 0x20 || b == 0x7f) {
      static const char hex[] = "0123456789abcdef";
      char escaped[4] = {'\\', 'x', hex[b >> 4], hex[b & 0xf]};
      append_bytes(out, escaped, 4);
    } else {
      append_bytes(out, c, 1);
    }
  }
  append_bytes(out, &quote, 1);
}

/// Appends the Python list repr of `count` strings, each read through
/// `name(items, i)`, e.g. ['cpu', 'tpu'].
void append_list_repr(lctx_impl_outcome *out, const void *items, size_t count,
                      const char *(*name)(const void *, size_t)) {
  append(out, "[");
  for (size_t i = 0; i < count; i++) {
    if (i > 0)
      append(out, ", ");
    append_repr(out, name(items, i));
  }
  append(out, "]");
}
