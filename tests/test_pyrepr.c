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

/// Writes with `write` into a fresh writer and fails at file:line unless it
/// then holds exactly `expected`.
#define WRITES(expected, file, line, write)                                    \
  do {                                                                         \
    char storage_[LCTX_OUTCOME_TEXT_MAX + 256];                                \
    lctx_buf buf_;                                                             \
    lctx_buf_init(&buf_, storage_, sizeof storage_);                           \
    write(&buf_);                                                              \
    ts_assert_buf_at(&buf_, (expected), (file), (line));                       \
  } while (0)

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

/// Makes the outcome that `e` describes.
static void make_outcome(lctx_outcome *o, const ts_expect *e) {
  if (e->kind == LCTX_OUTCOME_RAISE)
    make_raise(o, e->error, e->text);
  else if (e->kind == LCTX_OUTCOME_CLIENT)
    lctx_outcome_set_client(o, e->origin, e->registration, ts_s(e->text));
  else if (e->kind == LCTX_OUTCOME_NONE)
    lctx_outcome_set_none(o);
  else
    make_text(o, e->kind, e->text);
}

//===----------------------------------------------------------------------===//
// String repr
//===----------------------------------------------------------------------===//

/// repr() of the bytes of a literal (its length includes NUL bytes inside);
/// REPR(name, s, expected) is a named row.
typedef struct repr_row {
  ts_row at;
  const char *s;
  size_t n;
  const char *expected;
} repr_row;
#define REPR(name, s, expected)                                                \
  { TS_ROW(name), (s), sizeof(s) - 1, (expected) }

static const repr_row reprs[] = {
    /* Quote choice: single unless the string holds a single quote and no
     * double quote. */
    REPR("test_repr_plain_name_single_quotes", "cpu", "'cpu'"),
    REPR("test_repr_plain_name_single_quotes_upper", "METAL", "'METAL'"),
    REPR("test_repr_empty_string", "", "''"),
    {TS_ROW("test_repr_empty_string_null"), NULL, 0, "''"},
    REPR("test_repr_single_quote_only_uses_double_quotes", "it's", "\"it's\""),
    REPR("test_repr_single_quote_only_uses_double_quotes_alone", "'", "\"'\""),
    REPR("test_repr_double_quote_only_stays_single_quoted", "say \"hi\"",
         "'say \"hi\"'"),
    REPR("test_repr_double_quote_only_stays_single_quoted_alone", "\"", "'\"'"),
    /* Python: repr('a\'b"c') == 'a\\\'b"c' */
    REPR("test_repr_both_quotes_escapes_single_quote", "a'b\"c", "'a\\'b\"c'"),
    REPR("test_repr_both_quotes_escapes_single_quote_alone", "\"'", "'\"\\''"),
    /* Escapes: backslash doubled. */
    REPR("test_repr_backslash_doubled", "a\\b", "'a\\\\b'"),
    REPR("test_repr_backslash_doubled_alone", "\\", "'\\\\'"),
    /* Python: repr("\\'") == "\"\\\\'\"": double quotes, quote unescaped. */
    REPR("test_repr_backslash_with_single_quote", "\\'", "\"\\\\'\""),
    /* Tab, newline and carriage return by name. */
    REPR("test_repr_tab_newline_cr_named_escapes", "\t\n\r", "'\\t\\n\\r'"),
    REPR("test_repr_tab_newline_cr_named_escapes_inside", "a\tb", "'a\\tb'"),
    /* Other control bytes and 0x7f as lowercase hex, NUL included. */
    REPR("test_repr_control_bytes_lowercase_hex", "\x01", "'\\x01'"),
    REPR("test_repr_control_bytes_lowercase_hex_1f", "\x1f", "'\\x1f'"),
    REPR("test_repr_control_bytes_lowercase_hex_7f", "\x7f", "'\\x7f'"),
    REPR("test_repr_control_bytes_lowercase_hex_vt_ff_esc", "\x0b\x0c\x1b",
         "'\\x0b\\x0c\\x1b'"),
    REPR("test_repr_control_bytes_lowercase_hex_nul", "a\0b", "'a\\x00b'"),
    REPR("test_repr_control_bytes_with_single_quote", "'\x01\t",
         "\"'\\x01\\t\""),
    REPR("test_repr_printable_ascii_kept_raw_space_tilde", " ~", "' ~'"),
};

static void test_repr_quotes_and_escapes(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof reprs / sizeof reprs[0]; ++i) {
    const repr_row *row = &reprs[i];
    ts_row_enter(&row->at);
#define WRITE_REPR(b) lctx_pyrepr_str((b), lctx_str_make(row->s, row->n))
    WRITES(row->expected, row->at.file, row->at.line, WRITE_REPR);
#undef WRITE_REPR
  }
}

static void test_repr_printable_ascii_kept_raw(void **state) {
  (void)state;
  char all[0x7f - 0x20 + 1];
  for (int c = 0x20; c < 0x7f; ++c)
    all[c - 0x20] = (char)c;
  all[0x7f - 0x20] = '\0';
  /* Holds both quotes, so single quotes with \' and \\ escaped. */
#define WRITE_ALL(b) lctx_pyrepr_str((b), ts_s(all))
  WRITES("' !\"#$%&\\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQ"
         "RSTUVWXYZ[\\\\]^_`abcdefghijklmnopqrstuvwxyz{|}~'",
         __FILE__, __LINE__, WRITE_ALL);
#undef WRITE_ALL
}

static void test_repr_appends_to_existing_text(void **state) {
  (void)state;
#define WRITE_X(b)                                                             \
  (lctx_buf_append_cstr((b), "x="), lctx_pyrepr_str((b), ts_s("tpu")))
  WRITES("x='tpu'", __FILE__, __LINE__, WRITE_X);
#undef WRITE_X
}

//===----------------------------------------------------------------------===//
// List repr
//===----------------------------------------------------------------------===//

/// `[` + the items' reprs joined by `, ` + `]`, duplicates and order kept.
static const struct {
  ts_row at;
  const char *items[8];
  size_t count;
  const char *expected;
} lists[] = {
    {TS_ROW("test_list_repr_empty"), {NULL}, 0, "[]"},
    {TS_ROW("test_list_repr_one_item"), {"cpu"}, 1, "['cpu']"},
    {TS_ROW("test_list_repr_joined_by_comma_space"),
     {"cpu", "tpu", "cuda"},
     3,
     "['cpu', 'tpu', 'cuda']"},
    {TS_ROW("test_list_repr_items_use_string_repr"),
     {"cpu", "it's", "q\"d", "a\tb", "\x01", "", "a\\b"},
     7,
     "['cpu', \"it's\", 'q\"d', 'a\\tb', '\\x01', '', 'a\\\\b']"},
    {TS_ROW("test_list_repr_keeps_duplicates_and_order"),
     {"tpu", "cpu", "tpu"},
     3,
     "['tpu', 'cpu', 'tpu']"},
};

static void test_list_repr(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof lists / sizeof lists[0]; ++i) {
    lctx_str views[8];
    for (size_t k = 0; k < lists[i].count; ++k)
      views[k] = ts_s(lists[i].items[k]);
    ts_row_enter(&lists[i].at);
#define WRITE_LIST(b) lctx_pyrepr_str_list((b), views, lists[i].count)
    WRITES(lists[i].expected, lists[i].at.file, lists[i].at.line, WRITE_LIST);
#undef WRITE_LIST
  }
}

//===----------------------------------------------------------------------===//
// Supported alphabet
//===----------------------------------------------------------------------===//

/// Names must be 0x01-0x7f.
static const ts_verdict supported[] = {
    TS_VERDICT("cpu", true),          TS_VERDICT("", true),
    TS_VERDICT("\x01\x1f\x7f", true), TS_VERDICT("caf\xc3\xa9", false),
    TS_VERDICT("\x80", false),        TS_VERDICT("\xff", false),
    TS_VERDICT("a\0b", false)};

static void test_supported_alphabet_is_0x01_to_0x7f(void **state) {
  (void)state;
  ts_assert_verdicts(lctx_pyrepr_is_supported, supported);
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

/// Python str() of each value, separated by spaces.
static void write_ints(lctx_buf *buf) {
  static const long long values[] = {0, -1000, 400, LLONG_MIN, LLONG_MAX};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; ++i) {
    if (i)
      lctx_buf_append_char(buf, ' ');
    lctx_buf_append_int(buf, values[i]);
  }
}

static void test_buf_append_int_python_str(void **state) {
  (void)state;
  WRITES("0 -1000 400 -9223372036854775808 9223372036854775807", __FILE__,
         __LINE__, write_ints);
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
  static const struct {
    lctx_error_class error;
    const char *name;
  } names[] = {{LCTX_ERROR_NONE, ""},
               {LCTX_ERROR_RUNTIME, "RuntimeError"},
               {LCTX_ERROR_VALUE, "ValueError"},
               {LCTX_ERROR_NOT_IMPLEMENTED, "NotImplementedError"},
               {LCTX_ERROR_ASSERTION, "AssertionError"},
               {LCTX_ERROR_INDEX, "IndexError"}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    assert_string_equal(lctx_error_class_name(names[i].error), names[i].name);
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
  static const ts_expect made[] = {
      TS_WANT_RAISE(LCTX_ERROR_INDEX, "tuple index out of range"),
      TS_WANT_STRING("cuda"),
      TS_WANT_PLATFORMS("['cpu']"),
      TS_WANT_CLIENT(3, "rocm"),
      TS_WANT_PINNED("cuda"),
      TS_WANT_NONE,
  };
  lctx_outcome o;
  for (size_t i = 0; i < sizeof made / sizeof made[0]; ++i) {
    make_outcome(&o, &made[i]);
    ts_assert_outcome_at(&o, made[i], __FILE__, __LINE__);
    if (made[i].origin == LCTX_CLIENT_PINNED)
      assert_str_view(lctx_outcome_text(&o), "cuda");
  }
}

static void test_outcome_equal_compares_identity_and_text(void **state) {
  (void)state;
  /* Two calls of one factory are two clients. */
  static const struct {
    ts_expect a, b;
    bool equal;
  } pairs[] = {
      {TS_WANT_CLIENT(0, "cpu"), TS_WANT_CLIENT(0, "cpu"), true},
      {TS_WANT_CLIENT(0, "cpu"), TS_WANT_CLIENT(1, "cpu"), false},
      {TS_WANT_CLIENT(0, "cpu"), TS_WANT_PINNED("cpu"), false},
      {TS_WANT_CLIENT(0, "cpu"), TS_WANT_CLIENT(0, "tpu"), false},
      {TS_WANT_RAISE(LCTX_ERROR_RUNTIME, "boom"),
       TS_WANT_RAISE(LCTX_ERROR_RUNTIME, "boom"), true},
      {TS_WANT_RAISE(LCTX_ERROR_RUNTIME, "boom"),
       TS_WANT_RAISE(LCTX_ERROR_VALUE, "boom"), false},
      {TS_WANT_RAISE(LCTX_ERROR_RUNTIME, "boom"),
       TS_WANT_RAISE(LCTX_ERROR_RUNTIME, "boom."), false},
      {TS_WANT_STRING("cpu"), TS_WANT_PLATFORMS("cpu"), false},
      {TS_WANT_NONE, TS_WANT_NONE, true},
  };
  static lctx_outcome a, b;
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; ++i) {
    make_outcome(&a, &pairs[i].a);
    make_outcome(&b, &pairs[i].b);
    assert_int_equal(lctx_outcome_equal(&a, &b), pairs[i].equal);
  }
}

/// lctx_outcome_format: Python's last traceback line.
static const struct {
  ts_row at;
  ts_expect outcome;
  const char *expected;
} formats[] = {
    {TS_ROW("test_format_none"), TS_WANT_NONE, "None"},
    /* A string as its Python repr. */
    {TS_ROW("test_format_string_as_python_repr"), TS_WANT_STRING("cuda"),
     "'cuda'"},
    {TS_ROW("test_format_string_as_python_repr_empty"), TS_WANT_STRING(""),
     "''"},
    {TS_ROW("test_format_string_as_python_repr_single_quote"),
     TS_WANT_STRING("it's"), "\"it's\""},
    {TS_ROW("test_format_string_as_python_repr_tab"), TS_WANT_STRING("\t"),
     "'\\t'"},
    {TS_ROW("test_format_platforms_list"), TS_WANT_PLATFORMS("['cpu', 'tpu']"),
     "['cpu', 'tpu']"},
    {TS_ROW("test_format_platforms_list_empty"), TS_WANT_PLATFORMS("[]"), "[]"},
    {TS_ROW("test_format_registry_and_pinned_clients"),
     TS_WANT_CLIENT(0, "cpu"), "<client 'cpu' registration 0>"},
    {TS_ROW("test_format_registry_and_pinned_clients_registration_12"),
     TS_WANT_CLIENT(12, "cuda"), "<client 'cuda' registration 12>"},
    {TS_ROW("test_format_registry_and_pinned_clients_pinned"),
     TS_WANT_PINNED("rocm"), "<pinned client 'rocm'>"},
    {TS_ROW("test_format_registry_and_pinned_clients_pinned_single_quote"),
     TS_WANT_PINNED("it's"), "<pinned client \"it's\">"},
    /* A raise as class, colon, message. */
    {TS_ROW("test_format_raise_class_colon_message"),
     TS_WANT_RAISE(LCTX_ERROR_RUNTIME, "Unknown backend metal. Available "
                                       "backends are ['cpu', 'tpu']"),
     "RuntimeError: Unknown backend metal. Available backends are ['cpu', "
     "'tpu']"},
    {TS_ROW("test_format_raise_class_colon_message_index_error"),
     TS_WANT_RAISE(LCTX_ERROR_INDEX, "tuple index out of range"),
     "IndexError: tuple index out of range"},
    {TS_ROW("test_format_raise_class_colon_message_value_error"),
     TS_WANT_RAISE(LCTX_ERROR_VALUE,
                   "the platform for the specified backend cpu is different "
                   "from the lowering platform tpu"),
     "ValueError: the platform for the specified backend cpu is different "
     "from the lowering platform tpu"},
    {TS_ROW("test_format_raise_class_colon_message_not_implemented"),
     TS_WANT_RAISE(LCTX_ERROR_NOT_IMPLEMENTED, "x"), "NotImplementedError: x"},
    /* The message is str(err), printed as is: quotes are not escaped. */
    {TS_ROW("test_format_raise_message_kept_raw"),
     TS_WANT_RAISE(LCTX_ERROR_RUNTIME, "Unknown backend x'y. "
                                       "Available"),
     "RuntimeError: Unknown backend x'y. Available"},
    /* Python prints any exception with an empty message as its bare name. */
    {TS_ROW("test_format_empty_message_is_bare_class"),
     TS_WANT_RAISE(LCTX_ERROR_ASSERTION, ""), "AssertionError"},
    {TS_ROW("test_format_empty_message_is_bare_class_runtime"),
     TS_WANT_RAISE(LCTX_ERROR_RUNTIME, ""), "RuntimeError"},
};

static void test_format(void **state) {
  (void)state;
  lctx_outcome o;
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; ++i) {
    make_outcome(&o, &formats[i].outcome);
    ts_row_enter(&formats[i].at);
#define WRITE_FORMAT(b) lctx_outcome_format(&o, (b))
    WRITES(formats[i].expected, formats[i].at.file, formats[i].at.line,
           WRITE_FORMAT);
#undef WRITE_FORMAT
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_repr_quotes_and_escapes),
      cmocka_unit_test(test_repr_printable_ascii_kept_raw),
      cmocka_unit_test(test_repr_appends_to_existing_text),
      cmocka_unit_test(test_list_repr),
      cmocka_unit_test(test_supported_alphabet_is_0x01_to_0x7f),
      cmocka_unit_test(test_str_views_compare_bytes),
      cmocka_unit_test(test_buf_overflow_drops_bytes_and_stays_terminated),
      cmocka_unit_test(test_buf_append_int_python_str),
      cmocka_unit_test(test_buf_append_variants),
      cmocka_unit_test(test_error_class_names),
      cmocka_unit_test(test_error_class_from_name_round_trips),
      cmocka_unit_test(test_outcome_construction),
      cmocka_unit_test(test_outcome_equal_compares_identity_and_text),
      cmocka_unit_test(test_format),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
