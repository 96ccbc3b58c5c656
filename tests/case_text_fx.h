/*
 * tests/case_text_fx.h - what the tests of the `.case` text form
 * (test_case_text.c, test_case_text_errors.c) share: the cases they parse
 * into, with their expectations, and the checks of a parse, its error and
 * the canonical print.
 *
 * Include it after <cmocka.h>.
 */
#ifndef LCTX_TESTS_CASE_TEXT_FX_H
#define LCTX_TESTS_CASE_TEXT_FX_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "case_gen.h"
#include "case_text.h"
#include "test_support.h"

static char g_text[LCTX_CASE_TEXT_MAX];
static lctx_case g_a, g_b, g_c;
/* The expectations beside g_a, g_b and g_c. */
static lctx_case_expect g_ea, g_eb, g_ec;

/// The expectations beside `c` when it is g_a, g_b or g_c, else NULL.
static inline lctx_case_expect *expect_of(const lctx_case *c) {
  return c == &g_a ? &g_ea : c == &g_b ? &g_eb : c == &g_c ? &g_ec : NULL;
}

/// lctx_case_equal, and the expectations beside both equal.
static inline bool cases_equal(const lctx_case *a, const lctx_case *b) {
  const lctx_case_expect *ea = expect_of(a), *eb = expect_of(b);
  return lctx_case_equal(a, b) &&
         (!ea || !eb || lctx_case_expect_equal(ea, eb, a->op_count));
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Prints `c` into `storage` (LCTX_CASE_TEXT_MAX); fails on overflow.
static inline size_t print_case(const lctx_case *c, char *storage) {
  lctx_buf b;
  lctx_buf_init(&b, storage, LCTX_CASE_TEXT_MAX);
  lctx_case_print(c, expect_of(c), &b);
  assert_false(b.overflow);
  return b.length;
}

/// Parses `n` bytes from an exact-size heap copy (so that ASan catches any
/// read past the end). Returns the result; the error goes to `error`.
static inline bool parse_exact(const char *text, size_t n, lctx_case *out,
                               char *error, size_t error_cap) {
  char *copy = malloc(n ? n : 1);
  assert_non_null(copy);
  if (n)
    memcpy(copy, text, n);
  lctx_buf e;
  lctx_buf_init(&e, error, error_cap);
  bool ok = lctx_case_parse(copy, n, "t.case", out, expect_of(out), &e);
  free(copy);
  return ok;
}

/// Fails unless `text` parses.
#define assert_parses(text, out)                                               \
  assert_parses_at((text), (out), __FILE__, __LINE__)
static inline void assert_parses_at(const char *text, lctx_case *out,
                                    const char *file, int line) {
  char error[512];
  if (!parse_exact(text, strlen(text), out, error, sizeof error)) {
    print_error("parse failed: %s\n", error);
    _fail(file, line);
  }
}

/// Fails unless `text` is rejected with exactly `expected`.
#define assert_parse_error(text, expected)                                     \
  assert_parse_error_at((text), strlen(text), (expected), __FILE__, __LINE__)
#define assert_parse_error_n(text, n, expected)                                \
  assert_parse_error_at((text), (n), (expected), __FILE__, __LINE__)
static inline void assert_parse_error_at(const char *text, size_t n,
                                         const char *expected, const char *file,
                                         int line) {
  char error[1024];
  if (parse_exact(text, n, &g_c, error, sizeof error)) {
    print_error("parse unexpectedly succeeded; expected %s\n", expected);
    _fail(file, line);
  }
  if (!ts_text_matches("parse error", error, strlen(error), expected))
    _fail(file, line);
}

/// Fails unless `c` passes lctx_case_validate and the invariants.
static inline void assert_valid(const lctx_case *c) {
  char why[512];
  if (!case_gen_is_valid(c, why, sizeof why))
    fail_msg("invalid case: %s", why);
}

/// Fails unless `text` parses, prints as exactly `canonical`, and
/// `canonical` parses to the same case (the canonical text is a fixed
/// point).
static inline void assert_prints_canonically(const char *text,
                                             const char *canonical) {
  assert_parses(text, &g_a);
  lctx_buf b;
  lctx_buf_init(&b, g_text, sizeof g_text);
  lctx_case_print(&g_a, &g_ea, &b);
  assert_buf(&b, canonical);
  assert_parses(canonical, &g_b);
  assert_true(cases_equal(&g_a, &g_b));
}

#endif
