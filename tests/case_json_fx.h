/*
 * tests/case_json_fx.h - what the tests of the JSON form of cases and
 * outcomes (test_case_json.c, test_case_json_errors.c) share: the cases
 * and the outcome they read into, and the checks of a read and of a
 * rejection with its message.
 *
 * Include it after <cmocka.h>.
 */
#ifndef LCTX_TESTS_CASE_JSON_FX_H
#define LCTX_TESTS_CASE_JSON_FX_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "case_json.h"
#include "case_text.h"
#include "test_support.h"

static lctx_case g_a, g_b;
/* The expectations beside g_a and g_b. */
static lctx_case_expect g_ea, g_eb;
/// What read_outcome read last.
static lctx_outcome g_outcome;

/// The expectations beside `c` when it is g_a or g_b, else NULL.
static inline lctx_case_expect *expect_of(const lctx_case *c) {
  return c == &g_a ? &g_ea : c == &g_b ? &g_eb : NULL;
}

/// Parses the JSON `text` (with `flags`); fails when it is not JSON.
static inline json_t *load(const char *text, size_t flags) {
  json_error_t error;
  json_t *j = json_loads(text, flags, &error);
  if (!j) {
    print_error("bad test JSON (%s): %s\n", error.text, text);
    fail();
  }
  return j;
}

/// Reads a case from `j` into g_b.
static inline bool read_case(const json_t *j, lctx_buf *error) {
  return lctx_case_from_json(j, &g_b, &g_eb, error);
}

/// Reads an outcome from `j` into g_outcome.
static inline bool read_outcome(const json_t *j, lctx_buf *error) {
  return lctx_outcome_from_json(j, &g_outcome, error);
}

/// Fails at `file`:`line` unless `read` rejects the JSON `text` (loaded with
/// `flags`) with exactly `expected`.
static inline void assert_rejected_at(const char *text, size_t flags,
                                      bool (*read)(const json_t *, lctx_buf *),
                                      const char *expected, const char *file,
                                      int line) {
  json_t *j = load(text, flags);
  char storage[512];
  lctx_buf e;
  lctx_buf_init(&e, storage, sizeof storage);
  bool ok = read(j, &e);
  json_decref(j);
  if (ok) {
    print_error("accepted; expected %s\n", expected);
    _fail(file, line);
  }
  if (!ts_text_matches("JSON error", storage, e.length, expected))
    _fail(file, line);
}

/// Fails unless the case JSON `text` is rejected with exactly `expected`.
#define assert_case_error(text, expected)                                      \
  assert_rejected_at((text), 0, read_case, (expected), __FILE__, __LINE__)

/// Fails unless the outcome JSON `text` is rejected with exactly `expected`.
#define assert_outcome_error(text, expected)                                   \
  assert_rejected_at((text), JSON_ALLOW_NUL, read_outcome, (expected),         \
                     __FILE__, __LINE__)

/// Reads a case from JSON text; fails on error.
static inline void case_from_text(const char *text, lctx_case *out) {
  json_t *j = load(text, 0);
  char storage[512];
  lctx_buf e;
  lctx_buf_init(&e, storage, sizeof storage);
  if (!lctx_case_from_json(j, out, expect_of(out), &e)) {
    print_error("rejected: %s\n", storage);
    fail();
  }
  json_decref(j);
}

#endif
