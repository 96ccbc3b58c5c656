/*
 * case_text_lex.c - the lexer and the value readers of the `.case` parser
 * (see case_text_private.h, case_text.h and conformance/cases/README.md).
 *
 * Owns the parse error messages with their FILE:LINE:COL positions, the
 * tokens of a line (words, punctuation, string literals and their escapes,
 * comments), and the values built from them (names, texts, integers, keys,
 * lists, rule references). Must never read past the line, allocate, print
 * or exit: it runs on fuzzed input.
 */
#include "case_text_private.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

/// Starts an error message at `at` (a position in the current line) and
/// returns the writer to finish it with.
lctx_buf *case_text_error_at(case_text_parser *p, const char *at) {
  lctx_buf *e = p->error;
  lctx_buf_append_cstr(e, p->filename ? p->filename : "<input>");
  lctx_buf_append_char(e, ':');
  lctx_buf_append_int(e, p->line);
  lctx_buf_append_char(e, ':');
  lctx_buf_append_int(e, (long long)(at - p->line_start) + 1);
  lctx_buf_append_cstr(e, ": ");
  return e;
}

/// Reports `message` at `at`; returns false for convenience.
bool case_text_fail(case_text_parser *p, const char *at, const char *message) {
  lctx_buf_append_cstr(case_text_error_at(p, at), message);
  return false;
}

static void append_hex_byte(lctx_buf *b, unsigned char c) {
  static const char digits[] = "0123456789abcdef";
  lctx_buf_append_cstr(b, "0x");
  lctx_buf_append_char(b, digits[c >> 4]);
  lctx_buf_append_char(b, digits[c & 15]);
}

//===----------------------------------------------------------------------===//
// The lexer
//===----------------------------------------------------------------------===//

static bool is_space(char c) {
  return c == ' ' || c == '\t';
}

static bool is_punct(char c) {
  return c == '=' || c == '[' || c == ']' || c == ',';
}

bool case_text_is_word_char(char ch) {
  unsigned char c = (unsigned char)ch;
  return c > 0x20 && c < 0x7f && c != '"' && c != '#' && !is_punct(ch);
}

static const char *word_end(const case_text_parser *p, const char *s) {
  while (s < p->line_end && case_text_is_word_char(*s))
    s++;
  return s;
}

/// Skips blanks, and a comment: `#` at the start of the line or after a
/// blank runs to the end of the line.
void case_text_skip_space(case_text_parser *p) {
  while (p->cur < p->line_end && is_space(*p->cur))
    p->cur++;
  if (p->cur < p->line_end && *p->cur == '#' &&
      (p->cur == p->line_start || is_space(p->cur[-1])))
    p->cur = p->line_end;
}

/// Appends a description of what is at `at`: "end of line", "a string",
/// "`word`" (long words cut), "`=`", or "byte 0xNN".
void case_text_describe(const case_text_parser *p, const char *at,
                        lctx_buf *b) {
  if (at >= p->line_end) {
    lctx_buf_append_cstr(b, "end of line");
  } else if (*at == '"') {
    lctx_buf_append_cstr(b, "a string");
  } else if (case_text_is_word_char(*at)) {
    const char *e = word_end(p, at);
    size_t n = (size_t)(e - at);
    lctx_buf_append_char(b, '`');
    lctx_buf_append(b, at, n > 40 ? 40 : n);
    lctx_buf_append_cstr(b, n > 40 ? "...`" : "`");
  } else if (is_punct(*at) || *at == '#') {
    lctx_buf_append_char(b, '`');
    lctx_buf_append_char(b, *at);
    lctx_buf_append_char(b, '`');
  } else {
    lctx_buf_append_cstr(b, "byte ");
    append_hex_byte(b, (unsigned char)*at);
  }
}

/// Reports "too many WHAT (at most MAX)".
bool case_text_fail_too_many(case_text_parser *p, const char *at,
                             const char *what, long long max) {
  lctx_buf *e = case_text_error_at(p, at);
  lctx_buf_append_cstr(e, "too many ");
  lctx_buf_append_cstr(e, what);
  lctx_buf_append_cstr(e, " (at most ");
  lctx_buf_append_int(e, max);
  lctx_buf_append_char(e, ')');
  return false;
}

/// Reports "unknown WHAT <what is at `at`>", then " (expected EXPECTED)"
/// when `expected` is not NULL.
bool case_text_fail_unknown(case_text_parser *p, const char *at,
                            const char *what, const char *expected) {
  lctx_buf *e = case_text_error_at(p, at);
  lctx_buf_append_cstr(e, "unknown ");
  lctx_buf_append_cstr(e, what);
  lctx_buf_append_char(e, ' ');
  case_text_describe(p, at, e);
  if (expected) {
    lctx_buf_append_cstr(e, " (expected ");
    lctx_buf_append_cstr(e, expected);
    lctx_buf_append_char(e, ')');
  }
  return false;
}

/// Reports "expected WHAT, found <what is at the cursor>".
bool case_text_fail_expected(case_text_parser *p, const char *what) {
  lctx_buf *e = case_text_error_at(p, p->cur);
  lctx_buf_append_cstr(e, "expected ");
  lctx_buf_append_cstr(e, what);
  lctx_buf_append_cstr(e, ", found ");
  case_text_describe(p, p->cur, e);
  return false;
}

/// After a word or a string: the next byte must end the token.
static bool check_separator(case_text_parser *p) {
  if (p->cur >= p->line_end || is_space(*p->cur) || is_punct(*p->cur))
    return true;
  lctx_buf *e = case_text_error_at(p, p->cur);
  lctx_buf_append_cstr(e, "missing whitespace before ");
  case_text_describe(p, p->cur, e);
  if (*p->cur == '#')
    lctx_buf_append_cstr(e, " (a comment starts after whitespace)");
  return false;
}

/// Reads a word (a run of printable ASCII other than `"#=[],`). On failure
/// reports "expected WHAT, found ...".
bool case_text_read_word(case_text_parser *p, const char *what, lctx_str *word,
                         const char **at) {
  case_text_skip_space(p);
  if (p->cur >= p->line_end || !case_text_is_word_char(*p->cur))
    return case_text_fail_expected(p, what);
  const char *e = word_end(p, p->cur);
  *word = lctx_str_make(p->cur, (size_t)(e - p->cur));
  if (at)
    *at = p->cur;
  p->cur = e;
  return check_separator(p);
}

/// Reads one of `=`, `[`, `]`, `,`.
bool case_text_read_punct(case_text_parser *p, char c, const char *what) {
  case_text_skip_space(p);
  if (p->cur >= p->line_end || *p->cur != c)
    return case_text_fail_expected(p, what);
  p->cur++;
  return true;
}

/// True when the next token is a string literal.
static bool at_string(case_text_parser *p) {
  case_text_skip_space(p);
  return p->cur < p->line_end && *p->cur == '"';
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/// Reads a string literal into p->string (see the escapes in case_text.h).
bool case_text_read_string(case_text_parser *p, const char *what) {
  if (!at_string(p))
    return case_text_fail_expected(p, what);
  const char *open = p->cur;
  const char *s = open + 1;
  size_t n = 0;
  for (;;) {
    if (s >= p->line_end)
      return case_text_fail(p, open, "unterminated string");
    unsigned char c = (unsigned char)*s;
    if (c == '"') {
      s++;
      break;
    }
    if (c == '\\') {
      if (s + 1 >= p->line_end)
        return case_text_fail(p, open, "unterminated string");
      char e = s[1];
      switch (e) {
      case '\\':
      case '"':
        c = (unsigned char)e;
        s += 2;
        break;
      case 'n':
        c = '\n';
        s += 2;
        break;
      case 't':
        c = '\t';
        s += 2;
        break;
      case 'r':
        c = '\r';
        s += 2;
        break;
      case 'x': {
        int hi = s + 2 < p->line_end ? hex_value(s[2]) : -1;
        int lo = s + 3 < p->line_end ? hex_value(s[3]) : -1;
        if (hi < 0 || lo < 0)
          return case_text_fail(
              p, s, "bad string escape: `\\x` takes two hex digits");
        c = (unsigned char)(hi * 16 + lo);
        if (c == 0)
          return case_text_fail(
              p, s, "bad string escape `\\x00`: NUL bytes are not allowed");
        s += 4;
        break;
      }
      default: {
        lctx_buf *b = case_text_error_at(p, s);
        if (case_text_is_word_char(e) || e == '#' || is_punct(e)) {
          lctx_buf_append_cstr(b, "bad string escape `\\");
          lctx_buf_append_char(b, e);
          lctx_buf_append_cstr(b, "` (known: \\\\ \\\" \\n \\t \\r \\xNN)");
        } else {
          lctx_buf_append_cstr(b, "bad string escape: `\\` followed by ");
          case_text_describe(p, s + 1, b);
        }
        return false;
      }
      }
    } else if (c < 0x20 || c == 0x7f) {
      lctx_buf *b = case_text_error_at(p, s);
      lctx_buf_append_cstr(b, "raw control byte ");
      append_hex_byte(b, c);
      lctx_buf_append_cstr(b, " in a string (write it as an escape)");
      return false;
    } else {
      s++;
    }
    if (n < sizeof p->string - 1)
      p->string[n] = (char)c;
    n++;
  }
  p->string[n < sizeof p->string ? n : sizeof p->string - 1] = '\0';
  p->string_length = n;
  p->string_start = open;
  p->cur = s;
  return check_separator(p);
}

/// Requires the end of the directive (blanks and a comment may follow).
bool case_text_end_directive(case_text_parser *p) {
  case_text_skip_space(p);
  if (p->cur >= p->line_end)
    return true;
  lctx_buf *e = case_text_error_at(p, p->cur);
  lctx_buf_append_cstr(e, "trailing garbage after the directive: ");
  case_text_describe(p, p->cur, e);
  return false;
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

/// Checks the last string against a name field's limit and alphabet and
/// copies it to `dst` (capacity max + 1).
bool case_text_take_name(case_text_parser *p, const char *field, size_t max,
                         char *dst) {
  if (p->string_length > max) {
    lctx_buf *e = case_text_error_at(p, p->string_start);
    lctx_buf_append_cstr(e, field);
    lctx_buf_append_cstr(e, " too long (");
    lctx_buf_append_int(e, (long long)p->string_length);
    lctx_buf_append_cstr(e, " bytes, at most ");
    lctx_buf_append_int(e, (long long)max);
    lctx_buf_append_char(e, ')');
    return false;
  }
  for (size_t i = 0; i < p->string_length; i++) {
    unsigned char c = (unsigned char)p->string[i];
    if (c >= 0x80) {
      lctx_buf *e = case_text_error_at(p, p->string_start);
      lctx_buf_append_cstr(e, field);
      lctx_buf_append_cstr(e, " holds byte ");
      append_hex_byte(e, c);
      lctx_buf_append_cstr(e, " outside 0x01-0x7f");
      return false;
    }
  }
  memcpy(dst, p->string, p->string_length);
  dst[p->string_length] = '\0';
  return true;
}

/// Checks the last string against the outcome text limit.
bool case_text_take_text(case_text_parser *p) {
  if (p->string_length <= LCTX_OUTCOME_TEXT_MAX - 1)
    return true;
  lctx_buf *e = case_text_error_at(p, p->string_start);
  lctx_buf_append_cstr(e, "expected text too long (");
  lctx_buf_append_int(e, (long long)p->string_length);
  lctx_buf_append_cstr(e, " bytes, at most ");
  lctx_buf_append_int(e, LCTX_OUTCOME_TEXT_MAX - 1);
  lctx_buf_append_char(e, ')');
  return false;
}

/// Parses a decimal integer word (optional sign, then digits). Values whose
/// magnitude passes 2^40 saturate; callers check their range.
bool case_text_word_integer(lctx_str w, long long *value) {
  size_t i = 0;
  bool negative = false;
  if (w.length > 0 && (w.data[0] == '-' || w.data[0] == '+')) {
    negative = w.data[0] == '-';
    i = 1;
  }
  if (i == w.length)
    return false;
  long long v = 0;
  for (; i < w.length; i++) {
    if (w.data[i] < '0' || w.data[i] > '9')
      return false;
    if (v < (1LL << 40))
      v = v * 10 + (w.data[i] - '0');
  }
  *value = negative ? -v : v;
  return true;
}

/// Reads an integer word in [lo, hi]; `what` names it in errors.
bool case_text_read_integer(case_text_parser *p, const char *what, long long lo,
                            long long hi, long long *value) {
  lctx_str w;
  const char *at;
  if (!case_text_read_word(p, what, &w, &at))
    return false;
  if (!case_text_word_integer(w, value)) {
    lctx_buf *e = case_text_error_at(p, at);
    lctx_buf_append_cstr(e, "bad integer ");
    case_text_describe(p, at, e);
    return false;
  }
  if (*value < lo || *value > hi) {
    lctx_buf *e = case_text_error_at(p, at);
    lctx_buf_append_cstr(e, what);
    lctx_buf_append_char(e, ' ');
    case_text_describe(p, at, e);
    lctx_buf_append_cstr(e, lo == INT_MIN && hi == INT_MAX
                                ? " is out of int range ("
                                : " is out of range (");
    lctx_buf_append_int(e, lo);
    lctx_buf_append_cstr(e, " to ");
    lctx_buf_append_int(e, hi);
    lctx_buf_append_char(e, ')');
    return false;
  }
  return true;
}

/// Reads `key=`; `what` describes the whole expected field.
bool case_text_read_key(case_text_parser *p, const char *key,
                        const char *what) {
  lctx_str w;
  const char *at;
  if (!case_text_read_word(p, what, &w, &at))
    return false;
  if (!lctx_str_equal_cstr(w, key)) {
    p->cur = at;
    return case_text_fail_expected(p, what);
  }
  return case_text_read_punct(p, '=', what);
}

/// Reads one of two keywords; sets `*second` when it was `b`.
bool case_text_read_choice(case_text_parser *p, const char *a, const char *b,
                           const char *what, bool *second) {
  lctx_str w;
  const char *at;
  if (!case_text_read_word(p, what, &w, &at))
    return false;
  if (lctx_str_equal_cstr(w, a) || lctx_str_equal_cstr(w, b)) {
    *second = lctx_str_equal_cstr(w, b);
    return true;
  }
  p->cur = at;
  return case_text_fail_expected(p, what);
}

/// Reads `key=true` or `key=false` into `*value`.
bool case_text_read_flag(case_text_parser *p, const char *key, bool *value) {
  char what[96];
  snprintf(what, sizeof what, "`%s=true` or `%s=false`", key, key);
  return case_text_read_key(p, key, what) &&
         case_text_read_choice(p, "false", "true", "`true` or `false`", value);
}

/// True when the next token is the word `key` (nothing is consumed).
bool case_text_at_word(case_text_parser *p, const char *key) {
  case_text_skip_space(p);
  if (p->cur >= p->line_end || !case_text_is_word_char(*p->cur))
    return false;
  const char *e = word_end(p, p->cur);
  return lctx_str_equal_cstr(lctx_str_make(p->cur, (size_t)(e - p->cur)), key);
}

/// Reads `None` (clearing `*has`) or a name string into `dst` (setting it);
/// `field` names the value in errors.
bool case_text_read_none_or_name(case_text_parser *p, const char *field,
                                 bool *has, char *dst) {
  if (at_string(p)) {
    *has = true;
    return case_text_read_string(p, "`None` or a string") &&
           case_text_take_name(p, field, LCTX_MAX_NAME, dst);
  }
  bool dummy;
  *has = false;
  return case_text_read_choice(p, "None", "None", "`None` or a string", &dummy);
}

/// Reads `[` STRING ("," STRING)* `]` or `[]` into `dst` (at most
/// LCTX_MAX_MODULE_PLATFORMS names, as indexes into the case's names);
/// `field` names an element in errors and `many` the list in "too many
/// ...". A name past the case's LCTX_CASE_MAX_NAMES distinct ones is an
/// error at its string.
bool case_text_read_name_list(case_text_parser *p, const char *field,
                              const char *many, uint8_t *dst, size_t *count) {
  if (!case_text_read_punct(p, '[', "`[`"))
    return false;
  case_text_skip_space(p);
  if (p->cur < p->line_end && *p->cur == ']') {
    p->cur++;
    return true;
  }
  for (;;) {
    if (!case_text_read_string(p, "a platform string"))
      return false;
    if (*count >= LCTX_MAX_MODULE_PLATFORMS)
      return case_text_fail_too_many(p, p->string_start, many,
                                     LCTX_MAX_MODULE_PLATFORMS);
    char name[LCTX_MAX_NAME + 1];
    if (!case_text_take_name(p, field, LCTX_MAX_NAME, name))
      return false;
    if (!lctx_case_intern_cstr(p->out, name, &dst[*count])) {
      lctx_buf *e = case_text_error_at(p, p->string_start);
      lctx_buf_append_cstr(e, "too many distinct platform names in the case "
                              "(at most ");
      lctx_buf_append_int(e, LCTX_CASE_MAX_NAMES);
      lctx_buf_append_cstr(e, ", module and narrowed platforms of all "
                              "operations together)");
      return false;
    }
    (*count)++;
    case_text_skip_space(p);
    if (p->cur < p->line_end && *p->cur == ']') {
      p->cur++;
      return true;
    }
    if (!case_text_read_punct(p, ',', "`,` or `]`"))
      return false;
  }
}

/// Reads the name of a declared rule (after `key=`) into `dst`; a name no
/// `rule` directive declared is an error at the string.
bool case_text_read_rule_ref(case_text_parser *p, char *dst) {
  if (!case_text_read_string(p, "a rule name string") ||
      !case_text_take_name(p, "rule name", LCTX_MAX_NAME, dst))
    return false;
  if (lctx_case_rule_find(p->out, dst) >= 0)
    return true;
  lctx_buf *e = case_text_error_at(p, p->string_start);
  lctx_buf_append_cstr(e, "rule ");
  lctx_case_print_string(e, dst, strlen(dst));
  lctx_buf_append_cstr(e, " is not declared (a `rule` directive before the "
                          "operations declares it)");
  return false;
}

/// Checks the case read so far with lctx_case_validate (the lowering
/// limits: primitives, lower_fun cycles and depth, the event bound); on
/// failure reports its message at `start`, the directive `directive`.
bool case_text_check_valid(case_text_parser *p, const char *start,
                           const char *directive) {
  char storage[512];
  lctx_buf v;
  lctx_buf_init(&v, storage, sizeof storage);
  if (lctx_case_validate(p->out, &v))
    return true;
  lctx_buf *e = case_text_error_at(p, start);
  lctx_buf_append_cstr(e, "this `");
  lctx_buf_append_cstr(e, directive);
  lctx_buf_append_cstr(e, "` makes the case invalid: ");
  lctx_buf_append_cstr(e, storage);
  return false;
}
