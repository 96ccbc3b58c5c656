/*
 * tests/test_pyrepr.c - pins Python's formatting as it appears in JAX
 * messages (semantics.md section 8) and the outcome values that carry it.
 *
 * - lctx_pyrepr_str: quote choice (single unless the string holds a single
 *   quote and no double quote), escapes of backslash, the chosen quote, tab,
 *   newline, carriage return, other control bytes and 0x7f as lowercase \xNN,
 *   printable ASCII kept raw.
 * - lctx_pyrepr_str_list: `[` + reprs joined by `, ` + `]`.
 * - lctx_pyrepr_is_supported: the 0x01-0x7f alphabet of names.
 * - lctx_str / lctx_buf: equality, ordering, bounded writing, Python str(int).
 * - lctx_outcome: construction, equality, error-class names, and the
 *   one-line rendering lctx_outcome_format (Python's last traceback line).
 *
 * Reprs inside real messages (unknown-factory lists, Available backends) are
 * pinned in test_registry.c and test_xla_bridge.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>

#include "test_support.h"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Fails unless repr() of the `n` bytes at `s` is exactly `expected`.
#define assert_repr(s, n, expected)                                            \
  assert_repr_at((s), (n), (expected), __FILE__, __LINE__)
static void assert_repr_at(const char *s, size_t n, const char *expected,
                           const char *file, int line) {
  char storage[1024];
  lctx_buf buf;
  lctx_buf_init(&buf, storage, sizeof storage);
  lctx_pyrepr_str(&buf, lctx_str_make(s, n));
  ts_assert_buf_at(&buf, expected, file, line);
}

/// repr() of a NUL-terminated string.
#define assert_repr_c(s, expected) assert_repr((s), strlen(s), (expected))

/// Fails unless the list repr of `items` is exactly `expected`.
#define assert_list_repr(items, count, expected)                               \
  assert_list_repr_at((items), (count), (expected), __FILE__, __LINE__)
static void assert_list_repr_at(const char *const *items, size_t count,
                                const char *expected, const char *file,
                                int line) {
  lctx_str views[16];
  for (size_t i = 0; i < count; ++i)
    views[i] = lctx_str_from_cstr(items[i]);
  char storage[1024];
  lctx_buf buf;
  lctx_buf_init(&buf, storage, sizeof storage);
  lctx_pyrepr_str_list(&buf, views, count);
  ts_assert_buf_at(&buf, expected, file, line);
}

/// Fails unless lctx_outcome_format renders `o` as exactly `expected`.
#define assert_format(o, expected)                                             \
  assert_format_at((o), (expected), __FILE__, __LINE__)
static void assert_format_at(const lctx_outcome *o, const char *expected,
                             const char *file, int line) {
  char storage[LCTX_OUTCOME_TEXT_MAX + 256];
  lctx_buf buf;
  lctx_buf_init(&buf, storage, sizeof storage);
  lctx_outcome_format(o, &buf);
  ts_assert_buf_at(&buf, expected, file, line);
}

static void make_raise(lctx_outcome *o, lctx_error_class error,
                       const char *message) {
  lctx_buf w = lctx_outcome_begin_raise(o, error);
  lctx_buf_append_cstr(&w, message);
  lctx_outcome_end(o, &w);
}

static void make_text(lctx_outcome *o, lctx_outcome_kind kind,
                      const char *text) {
  lctx_buf w = lctx_outcome_begin(o, kind);
  lctx_buf_append_cstr(&w, text);
  lctx_outcome_end(o, &w);
}

//===----------------------------------------------------------------------===//
// String repr: quote choice
//===----------------------------------------------------------------------===//

static void test_repr_plain_name_single_quotes(void **state) {
  (void)state;
  assert_repr_c("cpu", "'cpu'");
  assert_repr_c("METAL", "'METAL'");
}

static void test_repr_empty_string(void **state) {
  (void)state;
  assert_repr_c("", "''");
  assert_repr(NULL, 0, "''");
}

static void test_repr_single_quote_only_uses_double_quotes(void **state) {
  (void)state;
  assert_repr_c("it's", "\"it's\"");
  assert_repr_c("'", "\"'\"");
}

static void test_repr_double_quote_only_stays_single_quoted(void **state) {
  (void)state;
  assert_repr_c("say \"hi\"", "'say \"hi\"'");
  assert_repr_c("\"", "'\"'");
}

static void test_repr_both_quotes_escapes_single_quote(void **state) {
  (void)state;
  /* Python: repr('a\'b"c') == 'a\\\'b"c' */
  assert_repr_c("a'b\"c", "'a\\'b\"c'");
  assert_repr_c("\"'", "'\"\\''");
}

//===----------------------------------------------------------------------===//
// String repr: escapes
//===----------------------------------------------------------------------===//

static void test_repr_backslash_doubled(void **state) {
  (void)state;
  assert_repr_c("a\\b", "'a\\\\b'");
  assert_repr_c("\\", "'\\\\'");
}

static void test_repr_backslash_with_single_quote(void **state) {
  (void)state;
  /* Python: repr("\\'") == "\"\\\\'\"": double quotes, quote unescaped. */
  assert_repr_c("\\'", "\"\\\\'\"");
}

static void test_repr_tab_newline_cr_named_escapes(void **state) {
  (void)state;
  assert_repr_c("\t\n\r", "'\\t\\n\\r'");
  assert_repr_c("a\tb", "'a\\tb'");
}

static void test_repr_control_bytes_lowercase_hex(void **state) {
  (void)state;
  assert_repr_c("\x01", "'\\x01'");
  assert_repr_c("\x1f", "'\\x1f'");
  assert_repr_c("\x7f", "'\\x7f'");
  assert_repr_c("\x0b\x0c\x1b", "'\\x0b\\x0c\\x1b'");
  /* Below 0x20 includes NUL, reachable through an explicit length. */
  assert_repr("a\0b", 3, "'a\\x00b'");
}

static void test_repr_control_bytes_with_single_quote(void **state) {
  (void)state;
  assert_repr_c("'\x01\t", "\"'\\x01\\t\"");
}

static void test_repr_printable_ascii_kept_raw(void **state) {
  (void)state;
  char all[0x7f - 0x20 + 1];
  for (int c = 0x20; c < 0x7f; ++c)
    all[c - 0x20] = (char)c;
  all[0x7f - 0x20] = '\0';
  /* Holds both quotes, so single quotes with \' and \\ escaped. */
  assert_repr_c(all, "' !\"#$%&\\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQ"
                     "RSTUVWXYZ[\\\\]^_`abcdefghijklmnopqrstuvwxyz{|}~'");
  assert_repr_c(" ~", "' ~'");
}

static void test_repr_appends_to_existing_text(void **state) {
  (void)state;
  char storage[64];
  lctx_buf buf;
  lctx_buf_init(&buf, storage, sizeof storage);
  lctx_buf_append_cstr(&buf, "x=");
  lctx_pyrepr_str(&buf, ts_s("tpu"));
  assert_buf(&buf, "x='tpu'");
}

//===----------------------------------------------------------------------===//
// List repr
//===----------------------------------------------------------------------===//

static void test_list_repr_empty(void **state) {
  (void)state;
  assert_list_repr(NULL, 0, "[]");
}

static void test_list_repr_one_item(void **state) {
  (void)state;
  const char *items[] = {"cpu"};
  assert_list_repr(items, 1, "['cpu']");
}

static void test_list_repr_joined_by_comma_space(void **state) {
  (void)state;
  const char *items[] = {"cpu", "tpu", "cuda"};
  assert_list_repr(items, 3, "['cpu', 'tpu', 'cuda']");
}

static void test_list_repr_items_use_string_repr(void **state) {
  (void)state;
  const char *items[] = {"cpu", "it's", "q\"d", "a\tb", "\x01", "", "a\\b"};
  assert_list_repr(items, 7,
                   "['cpu', \"it's\", 'q\"d', 'a\\tb', '\\x01', '', "
                   "'a\\\\b']");
}

static void test_list_repr_keeps_duplicates_and_order(void **state) {
  (void)state;
  const char *items[] = {"tpu", "cpu", "tpu"};
  assert_list_repr(items, 3, "['tpu', 'cpu', 'tpu']");
}

//===----------------------------------------------------------------------===//
// Supported alphabet
//===----------------------------------------------------------------------===//

static void test_supported_alphabet_is_0x01_to_0x7f(void **state) {
  (void)state;
  assert_true(lctx_pyrepr_is_supported(ts_s("cpu")));
  assert_true(lctx_pyrepr_is_supported(ts_s("")));
  assert_true(lctx_pyrepr_is_supported(ts_s("\x01\x1f\x7f")));
  assert_false(lctx_pyrepr_is_supported(ts_s("caf\xc3\xa9")));
  assert_false(lctx_pyrepr_is_supported(ts_s("\x80")));
  assert_false(lctx_pyrepr_is_supported(ts_s("\xff")));
  assert_false(lctx_pyrepr_is_supported(lctx_str_make("a\0b", 3)));
}

//===----------------------------------------------------------------------===//
// String views and writers
//===----------------------------------------------------------------------===//

static void test_str_views_compare_bytes(void **state) {
  (void)state;
  lctx_str null_view = lctx_str_from_cstr(NULL);
  assert_null(null_view.data);
  assert_int_equal(null_view.length, 0);
  assert_true(lctx_str_equal(null_view, ts_s("")));
  assert_true(lctx_str_equal(lctx_str_make("cpux", 3), ts_s("cpu")));
  assert_false(lctx_str_equal(ts_s("cpu"), ts_s("CPU")));
  assert_true(lctx_str_equal_cstr(ts_s("tpu"), "tpu"));
  assert_false(lctx_str_equal_cstr(ts_s("tpu"), "tp"));
  /* Code point order: uppercase before lowercase, prefix first. */
  assert_true(lctx_str_compare(ts_s("METAL"), ts_s("cpu")) < 0);
  assert_true(lctx_str_compare(ts_s("cpu"), ts_s("cpux")) < 0);
  assert_true(lctx_str_compare(ts_s("tpu"), ts_s("cpu")) > 0);
  assert_int_equal(lctx_str_compare(ts_s("rocm"), ts_s("rocm")), 0);
  /* Unsigned bytes: 0x80 sorts after 0x7f. */
  assert_true(lctx_str_compare(ts_s("\x7f"), ts_s("\x80")) < 0);
}

static void test_buf_overflow_drops_bytes_and_stays_terminated(void **state) {
  (void)state;
  char storage[5];
  lctx_buf buf;
  lctx_buf_init(&buf, storage, sizeof storage);
  lctx_buf_append_cstr(&buf, "abc");
  assert_false(buf.overflow);
  lctx_buf_append_cstr(&buf, "defg");
  assert_true(buf.overflow);
  assert_int_equal(buf.length, 4);
  assert_memory_equal(storage, "abcd", 5);
  lctx_buf_reset(&buf);
  assert_false(buf.overflow);
  assert_int_equal(buf.length, 0);
  assert_string_equal(storage, "");
}

static void test_buf_append_int_python_str(void **state) {
  (void)state;
  char storage[128];
  lctx_buf buf;
  lctx_buf_init(&buf, storage, sizeof storage);
  lctx_buf_append_int(&buf, 0);
  lctx_buf_append_char(&buf, ' ');
  lctx_buf_append_int(&buf, -1000);
  lctx_buf_append_char(&buf, ' ');
  lctx_buf_append_int(&buf, 400);
  lctx_buf_append_char(&buf, ' ');
  lctx_buf_append_int(&buf, LLONG_MIN);
  lctx_buf_append_char(&buf, ' ');
  lctx_buf_append_int(&buf, LLONG_MAX);
  assert_buf(&buf, "0 -1000 400 -9223372036854775808 9223372036854775807");
}

static void test_buf_append_variants(void **state) {
  (void)state;
  char storage[64];
  lctx_buf buf;
  lctx_buf_init(&buf, storage, sizeof storage);
  lctx_buf_append(&buf, "ab\0c", 4);
  lctx_buf_append_str(&buf, lctx_str_make("xyz", 2));
  lctx_buf_append_char(&buf, '!');
  lctx_str view = lctx_buf_view(&buf);
  assert_int_equal(view.length, 7);
  assert_memory_equal(view.data, "ab\0cxy!", 7);
}

//===----------------------------------------------------------------------===//
// Outcomes
//===----------------------------------------------------------------------===//

static void test_error_class_names(void **state) {
  (void)state;
  assert_string_equal(lctx_error_class_name(LCTX_ERROR_NONE), "");
  assert_string_equal(lctx_error_class_name(LCTX_ERROR_RUNTIME),
                      "RuntimeError");
  assert_string_equal(lctx_error_class_name(LCTX_ERROR_VALUE), "ValueError");
  assert_string_equal(lctx_error_class_name(LCTX_ERROR_NOT_IMPLEMENTED),
                      "NotImplementedError");
  assert_string_equal(lctx_error_class_name(LCTX_ERROR_ASSERTION),
                      "AssertionError");
  assert_string_equal(lctx_error_class_name(LCTX_ERROR_INDEX), "IndexError");
}

static void test_error_class_from_name_round_trips(void **state) {
  (void)state;
  const lctx_error_class all[] = {LCTX_ERROR_RUNTIME, LCTX_ERROR_VALUE,
                                  LCTX_ERROR_NOT_IMPLEMENTED,
                                  LCTX_ERROR_ASSERTION, LCTX_ERROR_INDEX};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) {
    lctx_error_class got = LCTX_ERROR_NONE;
    assert_true(
        lctx_error_class_from_name(ts_s(lctx_error_class_name(all[i])), &got));
    assert_int_equal(got, all[i]);
  }
  lctx_error_class got = LCTX_ERROR_VALUE;
  assert_false(lctx_error_class_from_name(ts_s("runtimeerror"), &got));
  assert_false(lctx_error_class_from_name(ts_s("KeyError"), &got));
  assert_false(lctx_error_class_from_name(ts_s("RuntimeError "), &got));
}

static void test_outcome_construction(void **state) {
  (void)state;
  lctx_outcome o;
  make_raise(&o, LCTX_ERROR_INDEX, "tuple index out of range");
  assert_raise(&o, LCTX_ERROR_INDEX, "tuple index out of range");
  make_text(&o, LCTX_OUTCOME_STRING, "cuda");
  assert_string(&o, "cuda");
  make_text(&o, LCTX_OUTCOME_PLATFORMS, "['cpu']");
  assert_platforms(&o, "['cpu']");
  lctx_outcome_set_client(&o, LCTX_CLIENT_REGISTRY, 3, ts_s("rocm"));
  assert_registry_client(&o, 3, "rocm");
  lctx_outcome_set_client(&o, LCTX_CLIENT_PINNED, -1, ts_s("cuda"));
  assert_pinned_client(&o, "cuda");
  assert_str_view(lctx_outcome_text(&o), "cuda");
  lctx_outcome_set_none(&o);
  assert_none(&o);
}

static void test_outcome_equal_compares_identity_and_text(void **state) {
  (void)state;
  static lctx_outcome a, b;
  lctx_outcome_set_client(&a, LCTX_CLIENT_REGISTRY, 0, ts_s("cpu"));
  lctx_outcome_set_client(&b, LCTX_CLIENT_REGISTRY, 0, ts_s("cpu"));
  assert_true(lctx_outcome_equal(&a, &b));
  /* Two calls of one factory are two clients. */
  lctx_outcome_set_client(&b, LCTX_CLIENT_REGISTRY, 1, ts_s("cpu"));
  assert_false(lctx_outcome_equal(&a, &b));
  lctx_outcome_set_client(&b, LCTX_CLIENT_PINNED, -1, ts_s("cpu"));
  assert_false(lctx_outcome_equal(&a, &b));
  lctx_outcome_set_client(&b, LCTX_CLIENT_REGISTRY, 0, ts_s("tpu"));
  assert_false(lctx_outcome_equal(&a, &b));

  make_raise(&a, LCTX_ERROR_RUNTIME, "boom");
  make_raise(&b, LCTX_ERROR_RUNTIME, "boom");
  assert_true(lctx_outcome_equal(&a, &b));
  make_raise(&b, LCTX_ERROR_VALUE, "boom");
  assert_false(lctx_outcome_equal(&a, &b));
  make_raise(&b, LCTX_ERROR_RUNTIME, "boom.");
  assert_false(lctx_outcome_equal(&a, &b));

  make_text(&a, LCTX_OUTCOME_STRING, "cpu");
  make_text(&b, LCTX_OUTCOME_PLATFORMS, "cpu");
  assert_false(lctx_outcome_equal(&a, &b));

  lctx_outcome_set_none(&a);
  lctx_outcome_set_none(&b);
  assert_true(lctx_outcome_equal(&a, &b));
}

static void test_format_none(void **state) {
  (void)state;
  lctx_outcome o;
  lctx_outcome_set_none(&o);
  assert_format(&o, "None");
}

static void test_format_string_as_python_repr(void **state) {
  (void)state;
  lctx_outcome o;
  make_text(&o, LCTX_OUTCOME_STRING, "cuda");
  assert_format(&o, "'cuda'");
  make_text(&o, LCTX_OUTCOME_STRING, "");
  assert_format(&o, "''");
  make_text(&o, LCTX_OUTCOME_STRING, "it's");
  assert_format(&o, "\"it's\"");
  make_text(&o, LCTX_OUTCOME_STRING, "\t");
  assert_format(&o, "'\\t'");
}

static void test_format_platforms_list(void **state) {
  (void)state;
  lctx_outcome o;
  make_text(&o, LCTX_OUTCOME_PLATFORMS, "['cpu', 'tpu']");
  assert_format(&o, "['cpu', 'tpu']");
  make_text(&o, LCTX_OUTCOME_PLATFORMS, "[]");
  assert_format(&o, "[]");
}

static void test_format_registry_and_pinned_clients(void **state) {
  (void)state;
  lctx_outcome o;
  lctx_outcome_set_client(&o, LCTX_CLIENT_REGISTRY, 0, ts_s("cpu"));
  assert_format(&o, "<client 'cpu' registration 0>");
  lctx_outcome_set_client(&o, LCTX_CLIENT_REGISTRY, 12, ts_s("cuda"));
  assert_format(&o, "<client 'cuda' registration 12>");
  lctx_outcome_set_client(&o, LCTX_CLIENT_PINNED, -1, ts_s("rocm"));
  assert_format(&o, "<pinned client 'rocm'>");
  lctx_outcome_set_client(&o, LCTX_CLIENT_PINNED, -1, ts_s("it's"));
  assert_format(&o, "<pinned client \"it's\">");
}

static void test_format_raise_class_colon_message(void **state) {
  (void)state;
  lctx_outcome o;
  make_raise(&o, LCTX_ERROR_RUNTIME,
             "Unknown backend metal. Available backends are ['cpu', 'tpu']");
  assert_format(
      &o, "RuntimeError: Unknown backend metal. Available backends are ['cpu', "
          "'tpu']");
  make_raise(&o, LCTX_ERROR_INDEX, "tuple index out of range");
  assert_format(&o, "IndexError: tuple index out of range");
  make_raise(&o, LCTX_ERROR_VALUE,
             "the platform for the specified backend cpu is different from "
             "the lowering platform tpu");
  assert_format(&o, "ValueError: the platform for the specified backend cpu "
                    "is different from the lowering platform tpu");
  make_raise(&o, LCTX_ERROR_NOT_IMPLEMENTED, "x");
  assert_format(&o, "NotImplementedError: x");
}

static void test_format_raise_message_kept_raw(void **state) {
  (void)state;
  lctx_outcome o;
  /* The message is str(err), printed as is: quotes are not escaped. */
  make_raise(&o, LCTX_ERROR_RUNTIME, "Unknown backend x'y. Available");
  assert_format(&o, "RuntimeError: Unknown backend x'y. Available");
}

static void test_format_empty_message_is_bare_class(void **state) {
  (void)state;
  lctx_outcome o;
  make_raise(&o, LCTX_ERROR_ASSERTION, "");
  assert_format(&o, "AssertionError");
  /* Python prints any exception with an empty message as its bare name. */
  make_raise(&o, LCTX_ERROR_RUNTIME, "");
  assert_format(&o, "RuntimeError");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_repr_plain_name_single_quotes),
      cmocka_unit_test(test_repr_empty_string),
      cmocka_unit_test(test_repr_single_quote_only_uses_double_quotes),
      cmocka_unit_test(test_repr_double_quote_only_stays_single_quoted),
      cmocka_unit_test(test_repr_both_quotes_escapes_single_quote),
      cmocka_unit_test(test_repr_backslash_doubled),
      cmocka_unit_test(test_repr_backslash_with_single_quote),
      cmocka_unit_test(test_repr_tab_newline_cr_named_escapes),
      cmocka_unit_test(test_repr_control_bytes_lowercase_hex),
      cmocka_unit_test(test_repr_control_bytes_with_single_quote),
      cmocka_unit_test(test_repr_printable_ascii_kept_raw),
      cmocka_unit_test(test_repr_appends_to_existing_text),
      cmocka_unit_test(test_list_repr_empty),
      cmocka_unit_test(test_list_repr_one_item),
      cmocka_unit_test(test_list_repr_joined_by_comma_space),
      cmocka_unit_test(test_list_repr_items_use_string_repr),
      cmocka_unit_test(test_list_repr_keeps_duplicates_and_order),
      cmocka_unit_test(test_supported_alphabet_is_0x01_to_0x7f),
      cmocka_unit_test(test_str_views_compare_bytes),
      cmocka_unit_test(test_buf_overflow_drops_bytes_and_stays_terminated),
      cmocka_unit_test(test_buf_append_int_python_str),
      cmocka_unit_test(test_buf_append_variants),
      cmocka_unit_test(test_error_class_names),
      cmocka_unit_test(test_error_class_from_name_round_trips),
      cmocka_unit_test(test_outcome_construction),
      cmocka_unit_test(test_outcome_equal_compares_identity_and_text),
      cmocka_unit_test(test_format_none),
      cmocka_unit_test(test_format_string_as_python_repr),
      cmocka_unit_test(test_format_platforms_list),
      cmocka_unit_test(test_format_registry_and_pinned_clients),
      cmocka_unit_test(test_format_raise_class_colon_message),
      cmocka_unit_test(test_format_raise_message_kept_raw),
      cmocka_unit_test(test_format_empty_message_is_bare_class),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
