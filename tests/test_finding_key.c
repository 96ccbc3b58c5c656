/*
 * tests/test_finding_key.c - pins the finding marker and the key grammar
 * (harness/core/checks/finding_key.h) that the fuzz glue prints and the
 * campaign and the kill matrix read: the marker counts at the start of a
 * line only (a report quoting a case's message that holds the marker comes
 * first in the output and must not be taken for the key), a key ends at
 * its line's end and is cut to the buffer, parts are told by their place
 * (target, kind) and fields by their whole name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "finding_key.h"

static void test_finding_key_marker_at_line_start_only(void **state) {
  (void)state;
  /* A fuzz_differential report quotes the case, whose factory message
   * holds the marker; the real line comes last. */
  const char *log =
      "lctx fuzz_differential: the implementation disagrees\n"
      "  case:\n"
      "factory \"cpu\" priority=0 quiet raises \"LCTX-FINDING "
      "fuzz_differential/impl/row=XG-001\"\n"
      "ASSERTION FAILED: fuzz_differential/impl/row=MG-006/expected=x\n"
      "LCTX-FINDING fuzz_differential/impl/row=MG-006/expected=x\r\n"
      "==1== ERROR: libFuzzer: deadly signal\n";
  char key[LCTX_FINDING_KEY_MAX];
  const char *line = lctx_finding_key_find(log, key, sizeof key);
  assert_non_null(line);
  assert_string_equal(key, "fuzz_differential/impl/row=MG-006/expected=x");
  assert_ptr_equal(line, strstr(log, "\nLCTX-FINDING ") + 1);
  /* At the very start, and none at all. */
  assert_non_null(lctx_finding_key_find("LCTX-FINDING bad-spec", key, 64));
  assert_string_equal(key, "bad-spec");
  assert_null(lctx_finding_key_find("no LCTX-FINDING here\n", key, 64));
  assert_null(lctx_finding_key_find("", key, 64));
  /* Cut to the buffer. */
  assert_non_null(lctx_finding_key_find("LCTX-FINDING abcdef\n", key, 4));
  assert_string_equal(key, "abc");
}

static void test_finding_key_parts_and_fields(void **state) {
  (void)state;
  const char *key = "fuzz_differential/impl/row=MG-006/rowx=no/actual=None";
  assert_true(lctx_finding_key_is(key, "fuzz_differential", "impl"));
  assert_false(lctx_finding_key_is(key, "fuzz_differential", "imp"));
  assert_false(lctx_finding_key_is(key, "fuzz_differentia", "impl"));
  assert_false(
      lctx_finding_key_is("fuzz_differential", "fuzz_differential", "impl"));
  char v[32];
  assert_true(lctx_finding_key_field(key, "row", v, sizeof v));
  assert_string_equal(v, "MG-006");
  assert_true(lctx_finding_key_field(key, "rowx", v, sizeof v));
  assert_string_equal(v, "no");
  assert_true(lctx_finding_key_field(key, "actual", v, sizeof v));
  assert_string_equal(v, "None");
  assert_false(lctx_finding_key_field(key, "ro", v, sizeof v));
  /* A field is a part after the kind: `differ/op=...` has no row. */
  assert_false(lctx_finding_key_field("fuzz_differential/differ/op=get_backend",
                                      "row", v, sizeof v));
  assert_true(lctx_finding_key_is("fuzz_differential/differ/op=get_backend",
                                  "fuzz_differential", "differ"));
  assert_false(lctx_finding_key_field("row=x/kind/row=y", "zz", v, sizeof v));
  assert_true(lctx_finding_key_field("row=x/kind/row=y", "row", v, sizeof v));
  assert_string_equal(v, "y");
  const char *part;
  size_t n;
  assert_true(lctx_finding_key_part(key, 2, &part, &n));
  assert_int_equal(n, strlen("row=MG-006"));
  assert_false(lctx_finding_key_part(key, 6, &part, &n));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_finding_key_marker_at_line_start_only),
      cmocka_unit_test(test_finding_key_parts_and_fields),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
