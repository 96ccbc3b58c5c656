/*
 * tests/test_html_escape.c - pins the escaping of every text the HTML
 * scoreboard shows (lctx_html_escape, harness/report/report_html_look.h): & < >
 * " ' become entities, bytes below 0x20 and 0x7f the text \xNN (newline and tab
 * kept in preformatted text only), every byte sequence that is not UTF-8 (a
 * stray continuation byte, an overlong form, a surrogate, a value past
 * U+10FFFF, a cut sequence) U+FFFD, and UTF-8 stays as it is.
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

#include "report_html_look.h"

/* `s` escaped, into `out` (`n` bytes). */
static const char *escaped(const char *s, int keep_lines, char *out, size_t n) {
  FILE *f = fmemopen(out, n, "w");
  assert_non_null(f);
  lctx_html_escape(f, s, keep_lines);
  assert_int_equal(fclose(f), 0);
  return out;
}

#define ASSERT_ESCAPED(in, keep, want)                                         \
  do {                                                                         \
    char buf_[512];                                                            \
    assert_string_equal(escaped(in, keep, buf_, sizeof buf_), want);           \
  } while (0)

static void test_html_escape_markup_and_quotes(void **state) {
  (void)state;
  ASSERT_ESCAPED("<script>alert('x')</script></td>", 0,
                 "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&lt;/td&gt;");
  ASSERT_ESCAPED("a & \"b\" > c", 0, "a &amp; &quot;b&quot; &gt; c");
  ASSERT_ESCAPED("&amp;", 0, "&amp;amp;");
  ASSERT_ESCAPED(NULL, 0, "");
}

static void test_html_escape_control_bytes(void **state) {
  (void)state;
  ASSERT_ESCAPED("a\x01"
                 "b\x1b[2J\x7f",
                 0, "a\\x01b\\x1b[2J\\x7f");
  ASSERT_ESCAPED("l1\nl2\tx\r", 0, "l1\\x0al2\\x09x\\x0d");
  ASSERT_ESCAPED("l1\nl2\tx\r", 1, "l1\nl2\tx\\x0d");
}

static void test_html_escape_invalid_utf8(void **state) {
  (void)state;
  const char *fffd = "\xef\xbf\xbd";
  char want[64];
  ASSERT_ESCAPED("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80", 0,
                 "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80");
  snprintf(want, sizeof want, "a%sb", fffd);
  ASSERT_ESCAPED("a\xff"
                 "b",
                 0, want);
  ASSERT_ESCAPED("a\x80"
                 "b",
                 0, want);
  snprintf(want, sizeof want, "%s%s", fffd, fffd);
  ASSERT_ESCAPED("\xc0\xaf", 0, want); /* overlong '/' */
  snprintf(want, sizeof want, "%s%s%s", fffd, fffd, fffd);
  ASSERT_ESCAPED("\xed\xa0\x80", 0, want); /* a surrogate */
  snprintf(want, sizeof want, "%s%s%s%s", fffd, fffd, fffd, fffd);
  ASSERT_ESCAPED("\xf4\x90\x80\x80", 0, want); /* past U+10FFFF */
  ASSERT_ESCAPED("\xe2\x86", 0, "\xef\xbf\xbd\xef\xbf\xbd");
  ASSERT_ESCAPED("\xe2<", 0, "\xef\xbf\xbd&lt;");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_html_escape_markup_and_quotes),
      cmocka_unit_test(test_html_escape_control_bytes),
      cmocka_unit_test(test_html_escape_invalid_utf8),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
