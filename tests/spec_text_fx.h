/*
 * tests/spec_text_fx.h - a spec table parsed from text, shared by the CMocka
 * unit tests of spec tables (test_spec.c, test_spec_release.c,
 * test_sweepjudge.c): the table `spec`, parse_text (parses into it, the
 * error into `error`) and expect_error (a text that fails with exactly
 * `message`).
 *
 * Include it after <cmocka.h> and "spec.h".
 */
#ifndef LCTX_TESTS_SPEC_TEXT_FX_H
#define LCTX_TESTS_SPEC_TEXT_FX_H

#include <stdbool.h>
#include <string.h>

static lctx_spec spec;

static bool parse_text(const char *text, char *error, size_t cap) {
  lctx_buf e;
  lctx_buf_init(&e, error, cap);
  return lctx_spec_parse(text, strlen(text), "t.lspec", &spec, &e);
}

/* Parses `text` expecting failure with exactly `message`. */
static void expect_error(const char *text, const char *message) {
  char error[512] = "";
  assert_false(parse_text(text, error, sizeof error));
  assert_string_equal(error, message);
}

#endif
