/*
 * tests/test_textdiff.c - pins how an expected text is shown against an
 * actual one (harness/core/base/textdiff.h): the caret under the first
 * differing byte and its offset, with the texts escaped as escape.h shows
 * them (a control byte as \xNN, a backslash as two, so the caret moves by
 * the escape's width), a difference inside a multi-byte character marked at
 * the character, a wide character counted as two columns, a text that ends
 * where the other goes on, equal texts, and a long text cut around the
 * difference with "..." and the bytes shown said; every line whole, each
 * text shown once.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "test_support.h"
#include "textdiff.h"

typedef struct row {
  ts_row at;
  const char *a, *b;
  const char *shown; /* lctx_textdiff_append's lines, indent "  " */
} row;

static const row ROWS[] = {
    {TS_ROW("the issue's registry failure"), "<client 'cuda' registration 0>",
     "<client 'oneapi' registration 3>",
     "  expected: <client 'cuda' registration 0>\n"
     "  actual:   <client 'oneapi' registration 3>\n"
     "                     ^ first difference at byte 9 (from 0)\n"},
    {TS_ROW("a control byte before the difference: the caret after \\x01"),
     "a\x01"
     "b",
     "a\x01"
     "c",
     "  expected: a\\x01b\n"
     "  actual:   a\\x01c\n"
     "                 ^ first difference at byte 2 (from 0)\n"},
    {TS_ROW("a newline differs: shown as \\x0a on the one line"), "a\nb",
     "a\rb",
     "  expected: a\\x0ab\n"
     "  actual:   a\\x0db\n"
     "             ^ first difference at byte 1 (from 0)\n"},
    {TS_ROW("a backslash before it counts two columns"), "a\\b", "a\\c",
     "  expected: a\\\\b\n"
     "  actual:   a\\\\c\n"
     "               ^ first difference at byte 2 (from 0)\n"},
    {TS_ROW("inside a 2-byte character: marked at the character"), "x\xc3\xa9y",
     "x\xc3\xa8y",
     "  expected: x\xc3\xa9y\n"
     "  actual:   x\xc3\xa8y\n"
     "             ^ first difference at byte 2 (from 0)\n"},
    {TS_ROW("a character against a cut sequence"), "\xc3\xa9",
     "\xc3"
     "A",
     "  expected: \xc3\xa9\n"
     "  actual:   \\xc3A\n"
     "            ^ first difference at byte 1 (from 0)\n"},
    {TS_ROW("wide characters take two columns each"),
     "\xe6\x97\xa5\xe6\x9c\xac"
     "a",
     "\xe6\x97\xa5\xe6\x9c\xac"
     "b",
     "  expected: \xe6\x97\xa5\xe6\x9c\xac"
     "a\n"
     "  actual:   \xe6\x97\xa5\xe6\x9c\xac"
     "b\n"
     "                ^ first difference at byte 6 (from 0)\n"},
    {TS_ROW("one text ends where the other goes on"), "None", "None!",
     "  expected: None\n"
     "  actual:   None!\n"
     "                ^ first difference at byte 4 (from 0); expected ends "
     "there\n"},
    {TS_ROW("an empty actual"), "'cuda'", "",
     "  expected: 'cuda'\n"
     "  actual:   \n"
     "            ^ first difference at byte 0 (from 0); actual ends there\n"},
    {TS_ROW("the same texts"), "'cpu'", "'cpu'",
     "  expected: 'cpu'\n"
     "  actual:   'cpu'\n"
     "  (the texts are the same)\n"},
};

static void test_textdiff_rows(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof ROWS / sizeof ROWS[0]; i++) {
    const row *r = &ROWS[i];
    ts_row_enter(&r->at);
    char storage[2048];
    lctx_buf out;
    lctx_buf_init(&out, storage, sizeof storage);
    lctx_textdiff_append(&out, "  ", "expected", r->a, strlen(r->a), "actual",
                         r->b, strlen(r->b));
    if (strcmp(storage, r->shown) != 0) {
      fprintf(stderr, "got:\n%s\nwant:\n%s\n", storage, r->shown);
      ts_fail(r->at.file, r->at.line);
    }
  }
}

/* A text of N bytes: `fill` everywhere, `mark` at `at`. */
static char *long_text(size_t n, char fill, size_t at, char mark) {
  char *s = malloc(n + 1);
  assert_non_null(s);
  memset(s, fill, n);
  s[at] = mark;
  s[n] = '\0';
  return s;
}

/* Long texts are cut around the difference: at most BEFORE columns before
 * it, AFTER from it on, "..." at each cut end, the bytes shown said, the
 * caret still under the difference. */
static void test_textdiff_long_cut(void **state) {
  (void)state;
  char *a = long_text(5000, 'x', 4000, 'A');
  char *b = long_text(4100, 'x', 4000, 'B');
  char storage[2048];
  lctx_buf out;
  lctx_buf_init(&out, storage, sizeof storage);
  lctx_textdiff_append(&out, "", "expected", a, 5000, "actual", b, 4100);
  assert_false(out.overflow);
  char *nl1 = strchr(storage, '\n');
  assert_non_null(nl1);
  char *nl2 = strchr(nl1 + 1, '\n');
  assert_non_null(nl2);
  /* "expected: ..." + 40 x + "A" + 59 x + "..." */
  char want[256];
  snprintf(want, sizeof want, "expected: ...%.40sA%.59s...\n", a,
           a); /* a's first bytes are all x */
  assert_int_equal((size_t)(nl1 + 1 - storage), strlen(want));
  assert_memory_equal(storage, want, strlen(want));
  const char *caret = strchr(nl2 + 1, '^');
  assert_non_null(caret);
  assert_int_equal((size_t)(caret - (nl2 + 1)), strlen("expected: ...") + 40);
  assert_non_null(strstr(caret, "^ first difference at byte 4000 (from 0); "
                                "cut (...) to bytes 3960..4059 of 5000 "
                                "(expected), 3960..4059 of 4100 (actual)\n"));
  free(a);
  free(b);
}

/* A long text of control bytes is cut by columns as shown (each \xNN four),
 * never inside an escape, and the caret stays under the difference. */
static void test_textdiff_long_controls(void **state) {
  (void)state;
  char *a = long_text(300, '\x01', 200, 'A');
  char *b = long_text(300, '\x01', 200, 'B');
  char storage[2048];
  lctx_buf out;
  lctx_buf_init(&out, storage, sizeof storage);
  lctx_textdiff_append(&out, "", "e", a, 300, "a", b, 300);
  /* 40 columns before: 10 escapes; from it on 60: "A" and 14 escapes. */
  char want_a[256] = "e: ...";
  for (int k = 0; k < 10; k++)
    strcat(want_a, "\\x01");
  strcat(want_a, "A");
  for (int k = 0; k < 14; k++)
    strcat(want_a, "\\x01");
  strcat(want_a, "...\n");
  assert_memory_equal(storage, want_a, strlen(want_a));
  const char *caret = strchr(storage, '^');
  assert_non_null(caret);
  const char *line = caret;
  while (line > storage && line[-1] != '\n')
    line--;
  assert_int_equal((size_t)(caret - line), strlen("e: ...") + 40);
  assert_non_null(strstr(caret, "at byte 200 (from 0); cut (...) to bytes "
                                "190..214 of 300 (e)"));
  free(a);
  free(b);
}

/* A short text against a long one: only the long one is cut, and only it
 * is named in what was cut. */
static void test_textdiff_one_cut(void **state) {
  (void)state;
  char *b = long_text(214, 'x', 0, 'R');
  char storage[2048];
  lctx_buf out;
  lctx_buf_init(&out, storage, sizeof storage);
  lctx_textdiff_append(&out, "", "expected", "'cuda'", 6, "actual", b, 214);
  assert_non_null(strstr(storage, "expected: 'cuda'\n"));
  assert_non_null(strstr(storage, "\n          ^ first difference at byte 0 "
                                  "(from 0); cut (...) to bytes 0..99 of 214 "
                                  "(actual)\n"));
  free(b);
}

/* What lctx_textdiff_find says of the bytes. */
static void test_textdiff_find(void **state) {
  (void)state;
  lctx_textdiff d;
  lctx_textdiff_find("x\xf0\x9f\x98\x80", 5, "x\xf0\x9f\x98\x81", 5, &d);
  assert_false(d.same);
  assert_int_equal(d.at, 4);
  assert_int_equal(d.mark, 1); /* the 4-byte character's start */
  assert_int_equal(d.from, 0);
  assert_int_equal(d.to_a, 5);
  assert_int_equal(d.to_b, 5);
  lctx_textdiff_find("ab", 2, "ab", 2, &d);
  assert_true(d.same);
  lctx_textdiff_find("", 0, "", 0, &d);
  assert_true(d.same);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_textdiff_rows),
      cmocka_unit_test(test_textdiff_long_cut),
      cmocka_unit_test(test_textdiff_long_controls),
      cmocka_unit_test(test_textdiff_one_cut),
      cmocka_unit_test(test_textdiff_find),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
