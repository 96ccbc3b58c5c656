/*
 * outcome.c - outcome values, error-class names and their rendering (see
 * lctx/outcome.h).
 *
 * Owns filling and comparing lctx_outcome; never decides which outcome an
 * operation has.
 */
#include "lctx/outcome.h"

#include "lctx/pyrepr.h"

#include <string.h>

static const char *const class_names[] = {
    [LCTX_ERROR_NONE] = "",
    [LCTX_ERROR_RUNTIME] = "RuntimeError",
    [LCTX_ERROR_VALUE] = "ValueError",
    [LCTX_ERROR_NOT_IMPLEMENTED] = "NotImplementedError",
    [LCTX_ERROR_ASSERTION] = "AssertionError",
    [LCTX_ERROR_INDEX] = "IndexError",
};

static void reset(lctx_outcome *out, lctx_outcome_kind kind) {
  out->kind = kind;
  out->error = LCTX_ERROR_NONE;
  out->origin = LCTX_CLIENT_REGISTRY;
  out->registration = -1;
  out->truncated = false;
  out->length = 0;
  out->text[0] = '\0';
}

void lctx_outcome_copy(lctx_outcome *dst, const lctx_outcome *src) {
  if (dst == src)
    return;
  dst->kind = src->kind;
  dst->error = src->error;
  dst->origin = src->origin;
  dst->registration = src->registration;
  dst->truncated = src->truncated;
  size_t n =
      src->length < sizeof src->text ? src->length : sizeof src->text - 1;
  dst->length = n;
  memcpy(dst->text, src->text, n);
  dst->text[n] = '\0';
}

void lctx_outcome_set_none(lctx_outcome *out) {
  reset(out, LCTX_OUTCOME_NONE);
}

lctx_buf lctx_outcome_begin_raise(lctx_outcome *out, lctx_error_class error) {
  reset(out, LCTX_OUTCOME_RAISE);
  out->error = error;
  lctx_buf w;
  lctx_buf_init(&w, out->text, sizeof out->text);
  return w;
}

lctx_buf lctx_outcome_begin(lctx_outcome *out, lctx_outcome_kind kind) {
  reset(out, kind);
  lctx_buf w;
  lctx_buf_init(&w, out->text, sizeof out->text);
  return w;
}

void lctx_outcome_end(lctx_outcome *out, const lctx_buf *writer) {
  out->length = writer->length;
  out->truncated = writer->overflow;
}

void lctx_outcome_set_client(lctx_outcome *out, lctx_client_origin origin,
                             int registration, lctx_str platform) {
  lctx_buf w = lctx_outcome_begin(out, LCTX_OUTCOME_CLIENT);
  out->origin = origin;
  out->registration = origin == LCTX_CLIENT_REGISTRY ? registration : -1;
  lctx_buf_append_str(&w, platform);
  lctx_outcome_end(out, &w);
}

lctx_str lctx_outcome_text(const lctx_outcome *out) {
  return lctx_str_make(out->text, out->length);
}

bool lctx_outcome_equal(const lctx_outcome *a, const lctx_outcome *b) {
  if (a->kind != b->kind)
    return false;
  switch (a->kind) {
  case LCTX_OUTCOME_NONE:
    return true;
  case LCTX_OUTCOME_CLIENT:
    if (a->origin != b->origin || a->registration != b->registration)
      return false;
    break;
  case LCTX_OUTCOME_RAISE:
    if (a->error != b->error)
      return false;
    break;
  case LCTX_OUTCOME_STRING:
  case LCTX_OUTCOME_PLATFORMS:
    break;
  }
  return a->truncated == b->truncated &&
         lctx_str_equal(lctx_outcome_text(a), lctx_outcome_text(b));
}

const char *lctx_error_class_name(lctx_error_class error) {
  if ((unsigned)error >= sizeof class_names / sizeof class_names[0])
    return "";
  return class_names[error];
}

bool lctx_error_class_from_name(lctx_str name, lctx_error_class *out) {
  for (size_t i = 1; i < sizeof class_names / sizeof class_names[0]; i++) {
    if (lctx_str_equal_cstr(name, class_names[i])) {
      *out = (lctx_error_class)i;
      return true;
    }
  }
  return false;
}

void lctx_outcome_format(const lctx_outcome *out, lctx_buf *buf) {
  lctx_str text = lctx_outcome_text(out);
  switch (out->kind) {
  case LCTX_OUTCOME_NONE:
    lctx_buf_append_cstr(buf, "None");
    break;
  case LCTX_OUTCOME_STRING:
    lctx_pyrepr_str(buf, text);
    break;
  case LCTX_OUTCOME_PLATFORMS:
    lctx_buf_append_str(buf, text);
    break;
  case LCTX_OUTCOME_CLIENT:
    if (out->origin == LCTX_CLIENT_PINNED) {
      lctx_buf_append_cstr(buf, "<pinned client ");
      lctx_pyrepr_str(buf, text);
      lctx_buf_append_char(buf, '>');
    } else {
      lctx_buf_append_cstr(buf, "<client ");
      lctx_pyrepr_str(buf, text);
      lctx_buf_append_cstr(buf, " registration ");
      lctx_buf_append_int(buf, out->registration);
      lctx_buf_append_char(buf, '>');
    }
    break;
  case LCTX_OUTCOME_RAISE:
    lctx_buf_append_cstr(buf, lctx_error_class_name(out->error));
    if (out->length > 0) {
      lctx_buf_append(buf, ": ", 2);
      lctx_buf_append_str(buf, text);
    }
    break;
  }
}
