/*
 * tests/test_escape.c - pins how text from outside lctx is shown on a
 * terminal (harness/core/base/escape.h): every class of byte that becomes
 * \xNN (C0 controls with \n \r \t, DEL, bytes that are not valid UTF-8:
 * stray continuations, bad leads, cut sequences, overlong forms,
 * surrogates, code points past U+10FFFF; the C1 controls; the bidi
 * controls), a backslash doubled (so that no two texts show alike: the
 * byte 0x01 and the four characters `\x01` differ), what stays (ASCII,
 * valid UTF-8 of 2, 3 and 4 bytes and its neighbours of the controls), the
 * cut with "..." of lctx_escape (never inside a character or an escape),
 * that lctx_escape_write writes the same bytes, NUL included, and the line
 * and lctx_buf forms (lctx_escape_lines, lctx_escape_append), and a text
 * built with lctx_escape_append shown once (lctx_escape_built_lines).
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

typedef struct row {
  const char *name, *in, *out;
} row;

static const row ROWS[] = {
    {"plain ASCII", "abc XYZ 019 ~!", "abc XYZ 019 ~!"},
    {"backslash doubled", "a\\b\\x41\\", "a\\\\b\\\\x41\\\\"},
    {"newline, return, tab", "a\nb\rc\td", "a\\x0ab\\x0dc\\x09d"},
    {"forged line", "x\nresult: PASS", "x\\x0aresult: PASS"},
    {"ESC sequences", "\x1b[2J\x1b]0;t\x07", "\\x1b[2J\\x1b]0;t\\x07"},
    {"every C0 edge", "\x01\x1f ", "\\x01\\x1f "},
    {"DEL", "a\x7f", "a\\x7f"},
    {"C1 first and last", "\xc2\x80\xc2\x9f", "\\xc2\\x80\\xc2\\x9f"},
    {"C1 CSI",
     "\xc2\x9b"
     "31m",
     "\\xc2\\x9b"
     "31m"},
    {"after C1 stays", "\xc2\xa0\xc3\xa9", "\xc2\xa0\xc3\xa9"},
    {"bidi U+202A..U+202E", "\xe2\x80\xaa\xe2\x80\xae",
     "\\xe2\\x80\\xaa\\xe2\\x80\\xae"},
    {"bidi U+2066..U+2069", "\xe2\x81\xa6\xe2\x81\xa9",
     "\\xe2\\x81\\xa6\\xe2\\x81\\xa9"},
    {"bidi neighbours stay", "\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa",
     "\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa"},
    {"UTF-8 of 2, 3, 4 bytes", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
     "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"},
    {"highest code point", "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf"},
    {"stray continuation", "a\x80z", "a\\x80z"},
    {"bad leads", "\xc0\xaf\xc1\xbf\xf5\xff", "\\xc0\\xaf\\xc1\\xbf\\xf5\\xff"},
    {"cut sequence at the end", "a\xe2\x82", "a\\xe2\\x82"},
    {"cut sequence then ASCII", "\xe2\x82z", "\\xe2\\x82z"},
    {"overlong 3 bytes", "\xe0\x80\xaf", "\\xe0\\x80\\xaf"},
    {"surrogate", "\xed\xa0\x80", "\\xed\\xa0\\x80"},
    {"past U+10FFFF", "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"},
    {"overlong 4 bytes", "\xf0\x8f\xbf\xbf", "\\xf0\\x8f\\xbf\\xbf"},
};

/* Every row through lctx_esc. */
static void test_escape_classes(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof ROWS / sizeof ROWS[0]; i++) {
    lctx_escaped b;
    const char *got = lctx_esc(&b, ROWS[i].in);
    if (got != b.text || strcmp(got, ROWS[i].out) != 0) {
      print_error("row '%s': got '%s', expected '%s'\n", ROWS[i].name, got,
                  ROWS[i].out);
      fail();
    }
  }
}

/* lctx_escape_write writes exactly what lctx_esc returns, and escapes a
 * NUL, which the string form cannot hold. */
static void test_escape_write_same_bytes_and_nul(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof ROWS / sizeof ROWS[0]; i++) {
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    lctx_escape_write(f, ROWS[i].in, strlen(ROWS[i].in));
    fclose(f);
    assert_string_equal(text, ROWS[i].out);
    free(text);
  }
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  lctx_escape_write(f, "a\0b", 3);
  fclose(f);
  assert_string_equal(text, "a\\x00b");
  free(text);
}

/* A NULL string is empty; the buffer is returned. */
static void test_escape_null_is_empty(void **state) {
  (void)state;
  char out[8] = "junk";
  assert_ptr_equal(lctx_escape(NULL, out, sizeof out), out);
  assert_string_equal(out, "");
}

/* Too long: cut with "...", within the capacity, and never inside an
 * \xNN or a character. */
static void test_escape_cut(void **state) {
  (void)state;
  char out[16];
  /* fits exactly: 15 bytes */
  assert_string_equal(lctx_escape("abcdefghijklmno", out, sizeof out),
                      "abcdefghijklmno");
  assert_string_equal(lctx_escape("abcdefghijklmnop", out, sizeof out),
                      "abcdefghijkl...");
  /* \x1b would end at byte 16: cut before it, not inside it */
  assert_string_equal(lctx_escape("abcdefghijkl\x1bzzz", out, sizeof out),
                      "abcdefghijkl...");
  assert_string_equal(lctx_escape("abcdefghij\x1bzzzz", out, sizeof out),
                      "abcdefghij...");
  /* a 4-byte character is not split */
  assert_string_equal(
      lctx_escape("abcdefghij\xf0\x9f\x98\x80zzzzz", out, sizeof out),
      "abcdefghij...");
  /* an escaped C1 (8 bytes) is kept whole or not at all */
  assert_string_equal(lctx_escape("abcdef\xc2\x85zzz", out, sizeof out),
                      "abcdef...");
  assert_string_equal(lctx_escape("abcd\xc2\x85zzzzzzzz", out, sizeof out),
                      "abcd\\xc2\\x85...");
  /* a whole message fits in lctx_escaped */
  lctx_escaped b;
  char big[5000];
  memset(big, '\n', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  const char *got = lctx_esc(&b, big);
  size_t n = strlen(got);
  assert_true(n <= sizeof b.text - 1 && n > sizeof b.text - 8);
  assert_string_equal(got + n - 3, "...");
  assert_memory_equal(got, "\\x0a\\x0a", 8);
}

/* The byte 0x01 and the four characters `\x01` are different texts and
 * never show alike, in any of the four forms. */
static void test_escape_backslash_unambiguous(void **state) {
  (void)state;
  lctx_escaped a, b;
  assert_string_equal(lctx_esc(&a, "\x01"), "\\x01");
  assert_string_equal(lctx_esc(&b, "\\x01"), "\\\\x01");
  assert_string_not_equal(a.text, b.text);
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  assert_non_null(f);
  lctx_escape_write(f, "\\", 1);
  lctx_escape_lines(f, "", "\\x01");
  fclose(f);
  assert_string_equal(text, "\\\\\\\\x01\n");
  free(text);
  char storage[8];
  lctx_buf buf;
  lctx_buf_init(&buf, storage, sizeof storage);
  lctx_escape_append(&buf, "ab\\cd\\", 6);
  assert_string_equal(storage, "ab\\\\cd"); /* not half of a \\ */
  assert_true(buf.overflow);
  char out[8];
  assert_string_equal(lctx_escape("\\\\\\\\", out, sizeof out), "\\\\\\\\...");
}

/* Tiny buffers: as many dots as fit, always NUL-terminated. */
static void test_escape_tiny_buffers(void **state) {
  (void)state;
  char out[4] = "zzz";
  assert_string_equal(lctx_escape("", out, 1), "");
  assert_string_equal(lctx_escape("abc", out, 1), "");
  assert_string_equal(lctx_escape("abc", out, 3), "..");
  assert_string_equal(lctx_escape("abc", out, 4), "abc");
  assert_string_equal(lctx_escape("abcd", out, 4), "...");
  assert_string_equal(lctx_escape("\n", out, 4), "...");
}

/* Lines: each escaped after the indent and ended with '\n'; a newline
 * inside a line cannot come from the text. */
static void test_escape_lines(void **state) {
  (void)state;
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  assert_non_null(f);
  lctx_escape_lines(f, "  ", "a\x1b[2J\nb\r\n\nlast");
  lctx_escape_lines(f, "> ", "");
  lctx_escape_lines(f, "> ", NULL);
  fclose(f);
  assert_string_equal(text, "  a\\x1b[2J\n  b\\x0d\n  \n  last\n");
  free(text);
}

/// An lctx_buf over `storage` (`cap` bytes) holding `prefix`, then the `n`
/// bytes of `text` escaped.
static lctx_buf escaped_after(char *storage, size_t cap, const char *prefix,
                              const char *text, size_t n) {
  lctx_buf b;
  lctx_buf_init(&b, storage, cap);
  lctx_buf_append_cstr(&b, prefix);
  lctx_escape_append(&b, text, n);
  return b;
}

/* Appended to an lctx_buf escaped, each piece whole or not at all. */
static void test_escape_append(void **state) {
  (void)state;
  char storage[16];
  lctx_buf b = escaped_after(storage, sizeof storage, "m: ", "x\nresult", 8);
  assert_string_equal(storage, "m: x\\x0aresult");
  assert_false(b.overflow);
  lctx_buf_reset(&b);
  lctx_escape_append(&b, "abcdefghijkl\x1b", 13);
  assert_string_equal(storage, "abcdefghijkl"); /* not a cut \x1b */
  assert_true(b.overflow);
}

/* A text built with lctx_escape_append shows its escapes once through
 * lctx_escape_built_lines (lctx_escape_lines would escape them again); a
 * control byte left in it is still escaped. */
static void test_escape_built_lines(void **state) {
  (void)state;
  char storage[64];
  lctx_buf b =
      escaped_after(storage, sizeof storage, "raises ", "x\nresult\\", 9);
  lctx_buf_append_cstr(&b, "\nnext\x1b");
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  assert_non_null(f);
  lctx_escape_built_lines(f, "> ", storage);
  lctx_escape_lines(f, "= ", storage);
  fclose(f);
  assert_string_equal(text, "> raises x\\x0aresult\\\\\n"
                            "> next\\x1b\n"
                            "= raises x\\\\x0aresult\\\\\\\\\n"
                            "= next\\x1b\n");
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_escape_classes),
      cmocka_unit_test(test_escape_write_same_bytes_and_nul),
      cmocka_unit_test(test_escape_null_is_empty),
      cmocka_unit_test(test_escape_cut),
      cmocka_unit_test(test_escape_backslash_unambiguous),
      cmocka_unit_test(test_escape_tiny_buffers),
      cmocka_unit_test(test_escape_lines),
      cmocka_unit_test(test_escape_append),
      cmocka_unit_test(test_escape_built_lines),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
