/*
 * case_text.c - the `.case` text form (see case_text.h and
 * conformance/cases/README.md).
 *
 * Owns the line lexer, the directive grammar, the parse error messages with
 * their FILE:LINE:COL positions, and the canonical printer. Must never read
 * past `length`, allocate, print or exit: it runs on fuzzed input.
 */
#include "case_text.h"

#include <limits.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Parser state and errors
//===----------------------------------------------------------------------===//

typedef struct parser {
  const char *filename;
  lctx_buf *error;
  lctx_case *out;
  /// The current line: number (1-based), first byte, end of its content
  /// (before `\n` or `\r\n`), and the cursor.
  long line;
  const char *line_start;
  const char *line_end;
  const char *cur;
  /// Directives seen so far, by the line they were on (0: not seen).
  long header_line;
  long first_op_line;
  long jax_platforms_line;
  long jax_platform_name_line;
  long jax_xla_backend_line;
  long nvidia_line;
  long factory_line[LCTX_MAX_FACTORIES];
  long rule_line[LCTX_CASE_MAX_RULES];
  long expect_line[LCTX_CASE_MAX_OPS];
  /// The last string literal read: its opening quote, its decoded bytes (cut
  /// at the capacity) and its full decoded length.
  const char *string_start;
  size_t string_length;
  char string[LCTX_OUTCOME_TEXT_MAX];
} parser;

/// Starts an error message at `at` (a position in the current line) and
/// returns the writer to finish it with.
static lctx_buf *error_at(parser *p, const char *at) {
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
static bool fail(parser *p, const char *at, const char *message) {
  lctx_buf_append_cstr(error_at(p, at), message);
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

static bool is_word_char(char ch) {
  unsigned char c = (unsigned char)ch;
  return c > 0x20 && c < 0x7f && c != '"' && c != '#' && !is_punct(ch);
}

static const char *word_end(const parser *p, const char *s) {
  while (s < p->line_end && is_word_char(*s))
    s++;
  return s;
}

/// Skips blanks, and a comment: `#` at the start of the line or after a
/// blank runs to the end of the line.
static void skip_space(parser *p) {
  while (p->cur < p->line_end && is_space(*p->cur))
    p->cur++;
  if (p->cur < p->line_end && *p->cur == '#' &&
      (p->cur == p->line_start || is_space(p->cur[-1])))
    p->cur = p->line_end;
}

/// Appends a description of what is at `at`: "end of line", "a string",
/// "`word`" (long words cut), "`=`", or "byte 0xNN".
static void describe(const parser *p, const char *at, lctx_buf *b) {
  if (at >= p->line_end) {
    lctx_buf_append_cstr(b, "end of line");
  } else if (*at == '"') {
    lctx_buf_append_cstr(b, "a string");
  } else if (is_word_char(*at)) {
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
static bool fail_too_many(parser *p, const char *at, const char *what,
                          long long max) {
  lctx_buf *e = error_at(p, at);
  lctx_buf_append_cstr(e, "too many ");
  lctx_buf_append_cstr(e, what);
  lctx_buf_append_cstr(e, " (at most ");
  lctx_buf_append_int(e, max);
  lctx_buf_append_char(e, ')');
  return false;
}

/// Reports "unknown WHAT <what is at `at`>", then " (expected EXPECTED)"
/// when `expected` is not NULL.
static bool fail_unknown(parser *p, const char *at, const char *what,
                         const char *expected) {
  lctx_buf *e = error_at(p, at);
  lctx_buf_append_cstr(e, "unknown ");
  lctx_buf_append_cstr(e, what);
  lctx_buf_append_char(e, ' ');
  describe(p, at, e);
  if (expected) {
    lctx_buf_append_cstr(e, " (expected ");
    lctx_buf_append_cstr(e, expected);
    lctx_buf_append_char(e, ')');
  }
  return false;
}

/// Reports "expected WHAT, found <what is at the cursor>".
static bool fail_expected(parser *p, const char *what) {
  lctx_buf *e = error_at(p, p->cur);
  lctx_buf_append_cstr(e, "expected ");
  lctx_buf_append_cstr(e, what);
  lctx_buf_append_cstr(e, ", found ");
  describe(p, p->cur, e);
  return false;
}

/// After a word or a string: the next byte must end the token.
static bool check_separator(parser *p) {
  if (p->cur >= p->line_end || is_space(*p->cur) || is_punct(*p->cur))
    return true;
  lctx_buf *e = error_at(p, p->cur);
  lctx_buf_append_cstr(e, "missing whitespace before ");
  describe(p, p->cur, e);
  if (*p->cur == '#')
    lctx_buf_append_cstr(e, " (a comment starts after whitespace)");
  return false;
}

/// Reads a word (a run of printable ASCII other than `"#=[],`). On failure
/// reports "expected WHAT, found ...".
static bool read_word(parser *p, const char *what, lctx_str *word,
                      const char **at) {
  skip_space(p);
  if (p->cur >= p->line_end || !is_word_char(*p->cur))
    return fail_expected(p, what);
  const char *e = word_end(p, p->cur);
  *word = lctx_str_make(p->cur, (size_t)(e - p->cur));
  if (at)
    *at = p->cur;
  p->cur = e;
  return check_separator(p);
}

/// Reads one of `=`, `[`, `]`, `,`.
static bool read_punct(parser *p, char c, const char *what) {
  skip_space(p);
  if (p->cur >= p->line_end || *p->cur != c)
    return fail_expected(p, what);
  p->cur++;
  return true;
}

/// True when the next token is a string literal.
static bool at_string(parser *p) {
  skip_space(p);
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
static bool read_string(parser *p, const char *what) {
  if (!at_string(p))
    return fail_expected(p, what);
  const char *open = p->cur;
  const char *s = open + 1;
  size_t n = 0;
  for (;;) {
    if (s >= p->line_end)
      return fail(p, open, "unterminated string");
    unsigned char c = (unsigned char)*s;
    if (c == '"') {
      s++;
      break;
    }
    if (c == '\\') {
      if (s + 1 >= p->line_end)
        return fail(p, open, "unterminated string");
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
          return fail(p, s, "bad string escape: `\\x` takes two hex digits");
        c = (unsigned char)(hi * 16 + lo);
        if (c == 0)
          return fail(p, s,
                      "bad string escape `\\x00`: NUL bytes are not allowed");
        s += 4;
        break;
      }
      default: {
        lctx_buf *b = error_at(p, s);
        if (is_word_char(e) || e == '#' || is_punct(e)) {
          lctx_buf_append_cstr(b, "bad string escape `\\");
          lctx_buf_append_char(b, e);
          lctx_buf_append_cstr(b, "` (known: \\\\ \\\" \\n \\t \\r \\xNN)");
        } else {
          lctx_buf_append_cstr(b, "bad string escape: `\\` followed by ");
          describe(p, s + 1, b);
        }
        return false;
      }
      }
    } else if (c < 0x20 || c == 0x7f) {
      lctx_buf *b = error_at(p, s);
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
static bool end_directive(parser *p) {
  skip_space(p);
  if (p->cur >= p->line_end)
    return true;
  lctx_buf *e = error_at(p, p->cur);
  lctx_buf_append_cstr(e, "trailing garbage after the directive: ");
  describe(p, p->cur, e);
  return false;
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

/// Checks the last string against a name field's limit and alphabet and
/// copies it to `dst` (capacity max + 1).
static bool take_name(parser *p, const char *field, size_t max, char *dst) {
  if (p->string_length > max) {
    lctx_buf *e = error_at(p, p->string_start);
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
      lctx_buf *e = error_at(p, p->string_start);
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
static bool take_text(parser *p) {
  if (p->string_length <= LCTX_OUTCOME_TEXT_MAX - 1)
    return true;
  lctx_buf *e = error_at(p, p->string_start);
  lctx_buf_append_cstr(e, "expected text too long (");
  lctx_buf_append_int(e, (long long)p->string_length);
  lctx_buf_append_cstr(e, " bytes, at most ");
  lctx_buf_append_int(e, LCTX_OUTCOME_TEXT_MAX - 1);
  lctx_buf_append_char(e, ')');
  return false;
}

/// Parses a decimal integer word (optional sign, then digits). Values whose
/// magnitude passes 2^40 saturate; callers check their range.
static bool word_integer(lctx_str w, long long *value) {
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
static bool read_integer(parser *p, const char *what, long long lo,
                         long long hi, long long *value) {
  lctx_str w;
  const char *at;
  if (!read_word(p, what, &w, &at))
    return false;
  if (!word_integer(w, value)) {
    lctx_buf *e = error_at(p, at);
    lctx_buf_append_cstr(e, "bad integer ");
    describe(p, at, e);
    return false;
  }
  if (*value < lo || *value > hi) {
    lctx_buf *e = error_at(p, at);
    lctx_buf_append_cstr(e, what);
    lctx_buf_append_char(e, ' ');
    describe(p, at, e);
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
static bool read_key(parser *p, const char *key, const char *what) {
  lctx_str w;
  const char *at;
  if (!read_word(p, what, &w, &at))
    return false;
  if (!lctx_str_equal_cstr(w, key)) {
    p->cur = at;
    return fail_expected(p, what);
  }
  return read_punct(p, '=', what);
}

/// Reads one of two keywords; sets `*second` when it was `b`.
static bool read_choice(parser *p, const char *a, const char *b,
                        const char *what, bool *second) {
  lctx_str w;
  const char *at;
  if (!read_word(p, what, &w, &at))
    return false;
  if (lctx_str_equal_cstr(w, a) || lctx_str_equal_cstr(w, b)) {
    *second = lctx_str_equal_cstr(w, b);
    return true;
  }
  p->cur = at;
  return fail_expected(p, what);
}

/// True when the next token is the word `key` (nothing is consumed).
static bool at_word(parser *p, const char *key) {
  skip_space(p);
  if (p->cur >= p->line_end || !is_word_char(*p->cur))
    return false;
  const char *e = word_end(p, p->cur);
  return lctx_str_equal_cstr(lctx_str_make(p->cur, (size_t)(e - p->cur)), key);
}

/// Reads `None` (clearing `*has`) or a name string into `dst` (setting it);
/// `field` names the value in errors.
static bool read_none_or_name(parser *p, const char *field, bool *has,
                              char *dst) {
  if (at_string(p)) {
    *has = true;
    return read_string(p, "`None` or a string") &&
           take_name(p, field, LCTX_MAX_NAME, dst);
  }
  bool dummy;
  *has = false;
  return read_choice(p, "None", "None", "`None` or a string", &dummy);
}

/// Reads `[` STRING ("," STRING)* `]` or `[]` into `dst` (at most
/// LCTX_MAX_MODULE_PLATFORMS names); `field` names an element in errors and
/// `many` the list in "too many ...".
static bool read_name_list(parser *p, const char *field, const char *many,
                           char (*dst)[LCTX_MAX_NAME + 1], size_t *count) {
  if (!read_punct(p, '[', "`[`"))
    return false;
  skip_space(p);
  if (p->cur < p->line_end && *p->cur == ']') {
    p->cur++;
    return true;
  }
  for (;;) {
    if (!read_string(p, "a platform string"))
      return false;
    if (*count >= LCTX_MAX_MODULE_PLATFORMS)
      return fail_too_many(p, p->string_start, many, LCTX_MAX_MODULE_PLATFORMS);
    if (!take_name(p, field, LCTX_MAX_NAME, dst[*count]))
      return false;
    (*count)++;
    skip_space(p);
    if (p->cur < p->line_end && *p->cur == ']') {
      p->cur++;
      return true;
    }
    if (!read_punct(p, ',', "`,` or `]`"))
      return false;
  }
}

/// Reads the name of a declared rule (after `key=`) into `dst`; a name no
/// `rule` directive declared is an error at the string.
static bool read_rule_ref(parser *p, char *dst) {
  if (!read_string(p, "a rule name string") ||
      !take_name(p, "rule name", LCTX_MAX_NAME, dst))
    return false;
  if (lctx_case_rule_find(p->out, dst) >= 0)
    return true;
  lctx_buf *e = error_at(p, p->string_start);
  lctx_buf_append_cstr(e, "rule ");
  lctx_case_print_string(e, dst, strlen(dst));
  lctx_buf_append_cstr(e, " is not declared (a `rule` directive before the "
                          "operations declares it)");
  return false;
}

/// Checks the case read so far with lctx_case_validate (the lowering
/// limits: primitives, lower_fun cycles and depth, the event bound); on
/// failure reports its message at `start`, the directive `directive`.
static bool check_valid(parser *p, const char *start, const char *directive) {
  char storage[512];
  lctx_buf v;
  lctx_buf_init(&v, storage, sizeof storage);
  if (lctx_case_validate(p->out, &v))
    return true;
  lctx_buf *e = error_at(p, start);
  lctx_buf_append_cstr(e, "this `");
  lctx_buf_append_cstr(e, directive);
  lctx_buf_append_cstr(e, "` makes the case invalid: ");
  lctx_buf_append_cstr(e, storage);
  return false;
}

//===----------------------------------------------------------------------===//
// Directives
//===----------------------------------------------------------------------===//

static bool parse_header(parser *p, const char *start) {
  if (p->header_line) {
    lctx_buf *e = error_at(p, start);
    lctx_buf_append_cstr(e, "duplicate `lctx-case` header (first on line ");
    lctx_buf_append_int(e, p->header_line);
    lctx_buf_append_char(e, ')');
    return false;
  }
  lctx_str w;
  const char *at;
  if (!read_word(p, "a format version", &w, &at))
    return false;
  long long version;
  if (!word_integer(w, &version) || version != LCTX_CASE_TEXT_VERSION) {
    lctx_buf *e = error_at(p, at);
    lctx_buf_append_cstr(e, "unsupported format version ");
    describe(p, at, e);
    lctx_buf_append_cstr(e, " (this reader knows version 1)");
    return false;
  }
  p->header_line = p->line;
  return end_directive(p);
}

/// Configuration directives must come before the first operation.
static bool check_config_position(parser *p, const char *start, lctx_str d) {
  if (!p->first_op_line)
    return true;
  lctx_buf *e = error_at(p, start);
  lctx_buf_append_char(e, '`');
  lctx_buf_append_str(e, d);
  lctx_buf_append_cstr(e, "` after an `op` (configuration comes before the "
                          "operations; first `op` on line ");
  lctx_buf_append_int(e, p->first_op_line);
  lctx_buf_append_char(e, ')');
  return false;
}

static bool check_once(parser *p, const char *start, lctx_str d, long *line) {
  if (*line) {
    lctx_buf *e = error_at(p, start);
    lctx_buf_append_cstr(e, "duplicate `");
    lctx_buf_append_str(e, d);
    lctx_buf_append_cstr(e, "` directive (first on line ");
    lctx_buf_append_int(e, *line);
    lctx_buf_append_char(e, ')');
    return false;
  }
  *line = p->line;
  return true;
}

static bool parse_factory(parser *p, const char *start) {
  lctx_case *c = p->out;
  if (c->factory_count >= LCTX_MAX_FACTORIES)
    return fail_too_many(p, start, "factories", LCTX_MAX_FACTORIES);
  lctx_case_factory *f = &c->factories[c->factory_count];
  memset(f, 0, sizeof *f);
  if (!read_string(p, "a factory name string") ||
      !take_name(p, "factory name", LCTX_MAX_NAME, f->name))
    return false;
  for (size_t j = 0; j < c->factory_count; j++) {
    if (strcmp(c->factories[j].name, f->name) == 0) {
      lctx_buf *e = error_at(p, p->string_start);
      lctx_buf_append_cstr(e, "duplicate factory name ");
      lctx_case_print_string(e, f->name, strlen(f->name));
      lctx_buf_append_cstr(e, " (first on line ");
      lctx_buf_append_int(e, p->factory_line[j]);
      lctx_buf_append_cstr(e, "; a case file declares each factory once)");
      return false;
    }
  }
  long long priority;
  if (!read_key(p, "priority", "`priority=INT`") ||
      !read_integer(p, "priority", INT_MIN, INT_MAX, &priority))
    return false;
  f->priority = (int)priority;
  bool quiet;
  if (!read_choice(p, "loud", "quiet", "`loud` or `quiet`", &quiet))
    return false;
  f->fail_quietly = quiet;
  lctx_str w;
  const char *at;
  if (!read_word(p, "a behaviour", &w, &at))
    return false;
  if (!lctx_factory_behaviour_from_name(w, &f->behaviour)) {
    return fail_unknown(p, at, "behaviour",
                        "client, raises, none or no_devices");
  }
  if (f->behaviour == LCTX_FACTORY_RAISES &&
      (!read_string(p, "the raise message string") ||
       !take_name(p, "factory message", LCTX_MAX_MESSAGE, f->message)))
    return false;
  if (!end_directive(p))
    return false;
  p->factory_line[c->factory_count++] = p->line;
  return true;
}

static bool parse_config_string(parser *p, const char *start, lctx_str d,
                                long *line, char *dst, size_t max) {
  if (!check_config_position(p, start, d) || !check_once(p, start, d, line))
    return false;
  char field[40] = "";
  lctx_buf fb;
  lctx_buf_init(&fb, field, sizeof field);
  lctx_buf_append_str(&fb, d);
  lctx_buf_append_cstr(&fb, " value");
  return read_string(p, "a string") && take_name(p, field, max, dst) &&
         end_directive(p);
}

/// Reads one action of a `rule` directive.
static bool parse_action(parser *p, lctx_case_action *a) {
  lctx_str w;
  const char *at;
  if (!read_word(p, "an action", &w, &at))
    return false;
  if (!lctx_action_kind_from_name(w, &a->kind)) {
    return fail_unknown(p, at, "action",
                        "marker, get_backend, "
                        "guarded_get_backend, try_fallback_get_backend, "
                        "read_client_platform, raise_if_multi or "
                        "lower_fun");
  }
  switch (a->kind) {
  case LCTX_ACTION_GET_BACKEND:
  case LCTX_ACTION_GUARDED_GET_BACKEND: {
    bool optional;
    if (!read_key(p, "optional", "`optional=true` or `optional=false`") ||
        !read_choice(p, "false", "true", "`true` or `false`", &optional))
      return false;
    a->optional = optional;
    break;
  }
  case LCTX_ACTION_TRY_FALLBACK_GET_BACKEND:
  case LCTX_ACTION_READ_CLIENT_PLATFORM:
  case LCTX_ACTION_EMIT_MARKER:
    break;
  case LCTX_ACTION_RAISE_IF_MULTI:
    return read_string(p, "the message string") &&
           take_name(p, "raise_if_multi message", LCTX_MAX_NAME, a->text);
  case LCTX_ACTION_LOWER_FUN:
    if (!read_string(p, "a primitive name string") ||
        !take_name(p, "lower_fun primitive", LCTX_MAX_NAME, a->text))
      return false;
    if (at_word(p, "compute_type")) {
      a->has_compute_type = true;
      return read_key(p, "compute_type", "`compute_type=\"...\"`") &&
             read_string(p, "a compute type string") &&
             take_name(p, "compute type", LCTX_MAX_NAME, a->compute_type);
    }
    break;
  }
  return true;
}

/// `rule NAME [action ("," action)*]`: declares a lowering rule.
static bool parse_rule(parser *p, const char *start, lctx_str d) {
  lctx_case *c = p->out;
  if (!check_config_position(p, start, d))
    return false;
  if (c->rule_count >= LCTX_CASE_MAX_RULES)
    return fail_too_many(p, start, "rules", LCTX_CASE_MAX_RULES);
  lctx_case_rule *r = &c->rules[c->rule_count];
  memset(r, 0, sizeof *r);
  if (!read_string(p, "a rule name string") ||
      !take_name(p, "rule name", LCTX_MAX_NAME, r->name))
    return false;
  if (r->name[0] == '\0')
    return fail(p, p->string_start, "empty rule name (a rule needs a name)");
  for (size_t j = 0; j < c->rule_count; j++) {
    if (strcmp(c->rules[j].name, r->name) == 0) {
      lctx_buf *e = error_at(p, p->string_start);
      lctx_buf_append_cstr(e, "duplicate rule name ");
      lctx_case_print_string(e, r->name, strlen(r->name));
      lctx_buf_append_cstr(e, " (first on line ");
      lctx_buf_append_int(e, p->rule_line[j]);
      lctx_buf_append_char(e, ')');
      return false;
    }
  }
  skip_space(p);
  while (p->cur < p->line_end) {
    if (r->action_count >= LCTX_CASE_MAX_ACTIONS)
      return fail_too_many(p, p->cur, "actions in one rule",
                           LCTX_CASE_MAX_ACTIONS);
    if (!parse_action(p, &r->actions[r->action_count]))
      return false;
    r->action_count++;
    skip_space(p);
    if (p->cur >= p->line_end)
      break;
    if (!read_punct(p, ',', "`,` or end of line"))
      return false;
    skip_space(p);
    if (p->cur >= p->line_end)
      return fail_expected(p, "an action");
  }
  p->rule_line[c->rule_count++] = p->line;
  return check_valid(p, start, "rule");
}

/// The optional keys of lower_per_platform, in their order.
static const char *const LOWER_KEYS[] = {"narrow", "compute_type", "override",
                                         "x64"};
#define LOWER_KEY_COUNT (sizeof LOWER_KEYS / sizeof LOWER_KEYS[0])

/// Reads the optional keys of a lower_per_platform operation.
static bool parse_lower_keys(parser *p, lctx_case_op *op) {
  size_t next = 0;
  bool seen[LOWER_KEY_COUNT] = {false};
  for (;;) {
    skip_space(p);
    size_t k = LOWER_KEY_COUNT;
    for (size_t i = 0; i < LOWER_KEY_COUNT && k == LOWER_KEY_COUNT; i++) {
      if (at_word(p, LOWER_KEYS[i]))
        k = i;
    }
    if (k == LOWER_KEY_COUNT)
      return true; /* the end of the directive, or trailing garbage */
    if (k < next) {
      lctx_buf *e = error_at(p, p->cur);
      if (seen[k]) {
        lctx_buf_append_cstr(e, "duplicate key `");
        lctx_buf_append_cstr(e, LOWER_KEYS[k]);
        lctx_buf_append_char(e, '`');
      } else {
        lctx_buf_append_char(e, '`');
        lctx_buf_append_cstr(e, LOWER_KEYS[k]);
        lctx_buf_append_cstr(e, "` out of order (the optional keys come in "
                                "the order narrow, compute_type, override, "
                                "x64)");
      }
      return false;
    }
    seen[k] = true;
    next = k + 1;
    bool ok;
    switch (k) {
    case 0:
      op->has_narrow = true;
      ok = read_key(p, "narrow", "`narrow=[...]`") &&
           read_name_list(p, "narrow platform", "narrow platforms", op->narrow,
                          &op->narrow_count);
      break;
    case 1:
      op->has_compute_type = true;
      ok = read_key(p, "compute_type", "`compute_type=\"...\"`") &&
           read_string(p, "a compute type string") &&
           take_name(p, "compute type", LCTX_MAX_NAME, op->compute_type);
      break;
    case 2:
      op->has_override = true;
      ok = read_key(p, "override", "`override=\"...\"`") &&
           read_rule_ref(p, op->override);
      break;
    default: {
      bool x64;
      ok = read_key(p, "x64", "`x64=true` or `x64=false`") &&
           read_choice(p, "false", "true", "`true` or `false`", &x64);
      op->x64 = ok && x64;
      break;
    }
    }
    if (!ok)
      return false;
  }
}

static bool parse_op(parser *p, const char *start) {
  lctx_case *c = p->out;
  if (c->op_count >= LCTX_CASE_MAX_OPS)
    return fail_too_many(p, start, "operations", LCTX_CASE_MAX_OPS);
  lctx_case_op *op = &c->ops[c->op_count];
  memset(op, 0, sizeof *op);
  lctx_str w;
  const char *at;
  if (!read_word(p, "an operation", &w, &at))
    return false;
  if (!lctx_op_kind_from_name(w, &op->kind)) {
    return fail_unknown(p, at, "operation",
                        "backends, canonicalize, get_backend, "
                        "module_get_backend, register_lowering or "
                        "lower_per_platform");
  }
  switch (op->kind) {
  case LCTX_OP_BACKENDS:
    break;
  case LCTX_OP_CANONICALIZE:
    op->has_arg = true;
    if (!read_string(p, "a platform name string") ||
        !take_name(p, "canonicalize argument", LCTX_MAX_NAME, op->arg))
      return false;
    break;
  case LCTX_OP_XLA_GET_BACKEND:
    if (!read_none_or_name(p, "get_backend argument", &op->has_arg, op->arg))
      return false;
    break;
  case LCTX_OP_MODULE_GET_BACKEND: {
    if (!read_key(p, "platforms", "`platforms=[...]`") ||
        !read_name_list(p, "module platform", "platforms", op->platforms,
                        &op->platform_count) ||
        !read_key(p, "backend", "`backend=None` or `backend=\"...\"`") ||
        !read_none_or_name(p, "backend", &op->has_backend, op->backend))
      return false;
    bool optional;
    if (!read_key(p, "optional", "`optional=true` or `optional=false`") ||
        !read_choice(p, "false", "true", "`true` or `false`", &optional))
      return false;
    op->optional = optional;
    break;
  }
  case LCTX_OP_REGISTER_LOWERING:
    if (!read_key(p, "primitive", "`primitive=\"...\"`") ||
        !read_string(p, "a primitive name string") ||
        !take_name(p, "primitive", LCTX_MAX_NAME, op->primitive) ||
        !read_key(p, "rule", "`rule=\"...\"`") || !read_rule_ref(p, op->rule) ||
        !read_key(p, "platform", "`platform=None` or `platform=\"...\"`") ||
        !read_none_or_name(p, "register_lowering platform", &op->has_arg,
                           op->arg))
      return false;
    break;
  case LCTX_OP_LOWER_PER_PLATFORM:
    if (!read_key(p, "primitive", "`primitive=\"...\"`") ||
        !read_string(p, "a primitive name string") ||
        !take_name(p, "primitive", LCTX_MAX_NAME, op->primitive) ||
        !read_key(p, "platforms", "`platforms=[...]`") ||
        !read_name_list(p, "module platform", "platforms", op->platforms,
                        &op->platform_count) ||
        !read_key(p, "backend", "`backend=None` or `backend=\"...\"`") ||
        !read_none_or_name(p, "backend", &op->has_backend, op->backend) ||
        !parse_lower_keys(p, op))
      return false;
    break;
  }
  if (!end_directive(p))
    return false;
  if (!p->first_op_line)
    p->first_op_line = p->line;
  c->has_expect[c->op_count] = false;
  c->op_count++;
  if (op->kind == LCTX_OP_REGISTER_LOWERING ||
      op->kind == LCTX_OP_LOWER_PER_PLATFORM)
    return check_valid(p, start, "op");
  return true;
}

static void set_text_outcome(lctx_outcome *o, lctx_outcome_kind kind,
                             const parser *p) {
  lctx_buf w = lctx_outcome_begin(o, kind);
  lctx_buf_append(&w, p->string, p->string_length);
  lctx_outcome_end(o, &w);
}

static bool parse_expect(parser *p, const char *start) {
  lctx_case *c = p->out;
  if (c->op_count == 0)
    return fail(p, start, "`expect` without a preceding `op`");
  size_t i = c->op_count - 1;
  if (c->has_expect[i]) {
    lctx_buf *e = error_at(p, start);
    lctx_buf_append_cstr(e, "second `expect` for one `op` (the first is on "
                            "line ");
    lctx_buf_append_int(e, p->expect_line[i]);
    lctx_buf_append_char(e, ')');
    return false;
  }
  lctx_outcome *o = &c->expect[i];
  lctx_str w;
  const char *at;
  if (!read_word(p, "an outcome", &w, &at))
    return false;
  if (lctx_str_equal_cstr(w, "None")) {
    lctx_outcome_set_none(o);
  } else if (lctx_str_equal_cstr(w, "string") ||
             lctx_str_equal_cstr(w, "platforms")) {
    if (!read_string(p, "a string") || !take_text(p))
      return false;
    set_text_outcome(
        o, w.data[0] == 's' ? LCTX_OUTCOME_STRING : LCTX_OUTCOME_PLATFORMS, p);
  } else if (lctx_str_equal_cstr(w, "client")) {
    bool pinned;
    long long registration = -1;
    if (!read_choice(p, "registry", "pinned", "`registry` or `pinned`",
                     &pinned))
      return false;
    if (!pinned &&
        !read_integer(p, "registration index", 0, INT_MAX, &registration))
      return false;
    if (!read_string(p, "the client's platform string") || !take_text(p))
      return false;
    lctx_outcome_set_client(
        o, pinned ? LCTX_CLIENT_PINNED : LCTX_CLIENT_REGISTRY,
        (int)registration, lctx_str_make(p->string, p->string_length));
  } else if (lctx_str_equal_cstr(w, "raise")) {
    lctx_error_class error;
    if (!read_word(p, "an error class", &w, &at))
      return false;
    if (!lctx_error_class_from_name(w, &error)) {
      return fail_unknown(p, at, "error class",
                          "RuntimeError, ValueError, "
                          "NotImplementedError, AssertionError or "
                          "IndexError");
    }
    if (!read_string(p, "the message string") || !take_text(p))
      return false;
    lctx_buf m = lctx_outcome_begin_raise(o, error);
    lctx_buf_append(&m, p->string, p->string_length);
    lctx_outcome_end(o, &m);
  } else {
    return fail_unknown(p, at, "outcome",
                        "None, string, platforms, client or "
                        "raise");
  }
  if (!end_directive(p))
    return false;
  c->has_expect[i] = true;
  p->expect_line[i] = p->line;
  return true;
}

static bool parse_line(parser *p) {
  skip_space(p);
  if (p->cur >= p->line_end)
    return true;
  const char *start = p->cur;
  if (!is_word_char(*start))
    return fail_expected(p, "a directive");
  lctx_str d;
  if (!read_word(p, "a directive", &d, NULL))
    return false;
  if (!p->header_line && !lctx_str_equal_cstr(d, "lctx-case")) {
    lctx_buf *e = error_at(p, start);
    lctx_buf_append_cstr(e, "missing header: the first directive must be "
                            "`lctx-case 1`, found ");
    describe(p, start, e);
    return false;
  }
  lctx_case *c = p->out;
  if (lctx_str_equal_cstr(d, "lctx-case"))
    return parse_header(p, start);
  if (lctx_str_equal_cstr(d, "factory"))
    return check_config_position(p, start, d) && parse_factory(p, start);
  if (lctx_str_equal_cstr(d, "jax_platforms"))
    return parse_config_string(p, start, d, &p->jax_platforms_line,
                               c->jax_platforms, LCTX_MAX_PLATFORMS_CONFIG);
  if (lctx_str_equal_cstr(d, "jax_platform_name"))
    return parse_config_string(p, start, d, &p->jax_platform_name_line,
                               c->jax_platform_name, LCTX_MAX_NAME);
  if (lctx_str_equal_cstr(d, "jax_xla_backend"))
    return parse_config_string(p, start, d, &p->jax_xla_backend_line,
                               c->jax_xla_backend, LCTX_MAX_NAME);
  if (lctx_str_equal_cstr(d, "nvidia_gpu")) {
    bool visible;
    if (!check_config_position(p, start, d) ||
        !check_once(p, start, d, &p->nvidia_line) ||
        !read_choice(p, "hidden", "visible", "`visible` or `hidden`", &visible))
      return false;
    c->nvidia_gpu_visible = visible;
    return end_directive(p);
  }
  if (lctx_str_equal_cstr(d, "rule"))
    return parse_rule(p, start, d);
  if (lctx_str_equal_cstr(d, "op"))
    return parse_op(p, start);
  if (lctx_str_equal_cstr(d, "expect"))
    return parse_expect(p, start);
  return fail_unknown(p, start, "directive", NULL);
}

bool lctx_case_parse(const char *text, size_t length, const char *filename,
                     lctx_case *out, lctx_buf *error) {
  static const char empty[1] = "";
  if (text == NULL)
    text = empty, length = 0;
  parser p;
  memset(&p, 0, sizeof p);
  p.filename = filename;
  p.error = error;
  p.out = out;
  lctx_case_init(out);
  const char *end = text + length;
  const char *s = text;
  p.line = 1;
  for (;;) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    const char *le = nl ? nl : end;
    p.line_start = s;
    p.line_end = (le > s && le[-1] == '\r') ? le - 1 : le;
    p.cur = s;
    if (!parse_line(&p))
      return false;
    if (!nl)
      break;
    s = nl + 1;
    p.line++;
    if (s == end) {
      p.line_start = p.line_end = p.cur = end;
      break;
    }
  }
  if (!p.header_line) {
    return fail(&p, end,
                "missing header: expected `lctx-case 1` before the end of "
                "the input");
  }
  return true;
}

//===----------------------------------------------------------------------===//
// The printer
//===----------------------------------------------------------------------===//

void lctx_case_print_string(lctx_buf *out, const char *s, size_t n) {
  static const char digits[] = "0123456789abcdef";
  lctx_buf_append_char(out, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
    case '\\':
      lctx_buf_append_cstr(out, "\\\\");
      break;
    case '"':
      lctx_buf_append_cstr(out, "\\\"");
      break;
    case '\n':
      lctx_buf_append_cstr(out, "\\n");
      break;
    case '\t':
      lctx_buf_append_cstr(out, "\\t");
      break;
    case '\r':
      lctx_buf_append_cstr(out, "\\r");
      break;
    default:
      if (c < 0x20 || c >= 0x7f) {
        char esc[4] = {'\\', 'x', digits[c >> 4], digits[c & 15]};
        lctx_buf_append(out, esc, 4);
      } else {
        lctx_buf_append_char(out, (char)c);
      }
    }
  }
  lctx_buf_append_char(out, '"');
}

/// Prints a NUL-terminated field of capacity `cap` (bounded if unterminated).
static void print_field(lctx_buf *out, const char *s, size_t cap) {
  lctx_case_print_string(out, s, strnlen(s, cap));
}

#define PRINT_FIELD(out, array) print_field((out), (array), sizeof(array))

static void print_expect(lctx_buf *out, const lctx_outcome *o) {
  size_t n = o->length < LCTX_OUTCOME_TEXT_MAX ? o->length : 0;
  lctx_buf_append_cstr(out, "expect ");
  switch (o->kind) {
  case LCTX_OUTCOME_NONE:
    lctx_buf_append_cstr(out, "None");
    break;
  case LCTX_OUTCOME_STRING:
    lctx_buf_append_cstr(out, "string ");
    lctx_case_print_string(out, o->text, n);
    break;
  case LCTX_OUTCOME_PLATFORMS:
    lctx_buf_append_cstr(out, "platforms ");
    lctx_case_print_string(out, o->text, n);
    break;
  case LCTX_OUTCOME_CLIENT:
    if (o->origin == LCTX_CLIENT_PINNED) {
      lctx_buf_append_cstr(out, "client pinned ");
    } else {
      lctx_buf_append_cstr(out, "client registry ");
      lctx_buf_append_int(out, o->registration);
      lctx_buf_append_char(out, ' ');
    }
    lctx_case_print_string(out, o->text, n);
    break;
  case LCTX_OUTCOME_RAISE:
    lctx_buf_append_cstr(out, "raise ");
    lctx_buf_append_cstr(out, lctx_error_class_name(o->error));
    lctx_buf_append_char(out, ' ');
    lctx_case_print_string(out, o->text, n);
    break;
  }
  lctx_buf_append_char(out, '\n');
}

/// Prints `[...]`: `count` names (at most LCTX_MAX_MODULE_PLATFORMS).
static void print_list(lctx_buf *out, const char (*names)[LCTX_MAX_NAME + 1],
                       size_t count) {
  if (count > LCTX_MAX_MODULE_PLATFORMS)
    count = LCTX_MAX_MODULE_PLATFORMS;
  lctx_buf_append_char(out, '[');
  for (size_t i = 0; i < count; i++) {
    if (i > 0)
      lctx_buf_append_cstr(out, ", ");
    PRINT_FIELD(out, names[i]);
  }
  lctx_buf_append_char(out, ']');
}

/// Prints the field `s` (capacity `cap`) when `has`, else `None`.
static void print_none_or(lctx_buf *out, bool has, const char *s, size_t cap) {
  if (has)
    print_field(out, s, cap);
  else
    lctx_buf_append_cstr(out, "None");
}

static void print_rule(lctx_buf *out, const lctx_case_rule *r) {
  lctx_buf_append_cstr(out, "rule ");
  PRINT_FIELD(out, r->name);
  size_t count = r->action_count < LCTX_CASE_MAX_ACTIONS
                     ? r->action_count
                     : LCTX_CASE_MAX_ACTIONS;
  for (size_t k = 0; k < count; k++) {
    const lctx_case_action *a = &r->actions[k];
    lctx_buf_append_cstr(out, k ? ", " : " ");
    lctx_buf_append_cstr(out, lctx_action_kind_name(a->kind));
    switch (a->kind) {
    case LCTX_ACTION_GET_BACKEND:
    case LCTX_ACTION_GUARDED_GET_BACKEND:
      lctx_buf_append_cstr(out,
                           a->optional ? " optional=true" : " optional=false");
      break;
    case LCTX_ACTION_RAISE_IF_MULTI:
      lctx_buf_append_char(out, ' ');
      PRINT_FIELD(out, a->text);
      break;
    case LCTX_ACTION_LOWER_FUN:
      lctx_buf_append_char(out, ' ');
      PRINT_FIELD(out, a->text);
      if (a->has_compute_type) {
        lctx_buf_append_cstr(out, " compute_type=");
        PRINT_FIELD(out, a->compute_type);
      }
      break;
    case LCTX_ACTION_TRY_FALLBACK_GET_BACKEND:
    case LCTX_ACTION_READ_CLIENT_PLATFORM:
    case LCTX_ACTION_EMIT_MARKER:
      break;
    }
  }
  lctx_buf_append_char(out, '\n');
}

static void print_op(lctx_buf *out, const lctx_case_op *op) {
  lctx_buf_append_cstr(out, "op ");
  lctx_buf_append_cstr(out, lctx_op_kind_name(op->kind));
  switch (op->kind) {
  case LCTX_OP_BACKENDS:
    break;
  case LCTX_OP_CANONICALIZE:
    lctx_buf_append_char(out, ' ');
    PRINT_FIELD(out, op->arg);
    break;
  case LCTX_OP_XLA_GET_BACKEND:
    lctx_buf_append_char(out, ' ');
    if (op->has_arg)
      PRINT_FIELD(out, op->arg);
    else
      lctx_buf_append_cstr(out, "None");
    break;
  case LCTX_OP_MODULE_GET_BACKEND:
    lctx_buf_append_cstr(out, " platforms=");
    print_list(out, op->platforms, op->platform_count);
    lctx_buf_append_cstr(out, " backend=");
    print_none_or(out, op->has_backend, op->backend, sizeof op->backend);
    lctx_buf_append_cstr(out,
                         op->optional ? " optional=true" : " optional=false");
    break;
  case LCTX_OP_REGISTER_LOWERING:
    lctx_buf_append_cstr(out, " primitive=");
    PRINT_FIELD(out, op->primitive);
    lctx_buf_append_cstr(out, " rule=");
    PRINT_FIELD(out, op->rule);
    lctx_buf_append_cstr(out, " platform=");
    print_none_or(out, op->has_arg, op->arg, sizeof op->arg);
    break;
  case LCTX_OP_LOWER_PER_PLATFORM:
    lctx_buf_append_cstr(out, " primitive=");
    PRINT_FIELD(out, op->primitive);
    lctx_buf_append_cstr(out, " platforms=");
    print_list(out, op->platforms, op->platform_count);
    lctx_buf_append_cstr(out, " backend=");
    print_none_or(out, op->has_backend, op->backend, sizeof op->backend);
    if (op->has_narrow) {
      lctx_buf_append_cstr(out, " narrow=");
      print_list(out, op->narrow, op->narrow_count);
    }
    if (op->has_compute_type) {
      lctx_buf_append_cstr(out, " compute_type=");
      PRINT_FIELD(out, op->compute_type);
    }
    if (op->has_override) {
      lctx_buf_append_cstr(out, " override=");
      PRINT_FIELD(out, op->override);
    }
    if (op->x64)
      lctx_buf_append_cstr(out, " x64=true");
    break;
  }
  lctx_buf_append_char(out, '\n');
}

void lctx_case_print(const lctx_case *c, lctx_buf *out) {
  lctx_buf_append_cstr(out, "lctx-case 1\n");
  size_t factories = c->factory_count < LCTX_MAX_FACTORIES ? c->factory_count
                                                           : LCTX_MAX_FACTORIES;
  for (size_t i = 0; i < factories; i++) {
    const lctx_case_factory *f = &c->factories[i];
    lctx_buf_append_cstr(out, "factory ");
    PRINT_FIELD(out, f->name);
    lctx_buf_append_cstr(out, " priority=");
    lctx_buf_append_int(out, f->priority);
    lctx_buf_append_cstr(out, f->fail_quietly ? " quiet " : " loud ");
    lctx_buf_append_cstr(out, lctx_factory_behaviour_name(f->behaviour));
    if (f->behaviour == LCTX_FACTORY_RAISES) {
      lctx_buf_append_char(out, ' ');
      PRINT_FIELD(out, f->message);
    }
    lctx_buf_append_char(out, '\n');
  }
  if (c->jax_platforms[0]) {
    lctx_buf_append_cstr(out, "jax_platforms ");
    PRINT_FIELD(out, c->jax_platforms);
    lctx_buf_append_char(out, '\n');
  }
  if (c->jax_platform_name[0]) {
    lctx_buf_append_cstr(out, "jax_platform_name ");
    PRINT_FIELD(out, c->jax_platform_name);
    lctx_buf_append_char(out, '\n');
  }
  if (c->jax_xla_backend[0]) {
    lctx_buf_append_cstr(out, "jax_xla_backend ");
    PRINT_FIELD(out, c->jax_xla_backend);
    lctx_buf_append_char(out, '\n');
  }
  lctx_buf_append_cstr(out, c->nvidia_gpu_visible ? "nvidia_gpu visible\n"
                                                  : "nvidia_gpu hidden\n");
  size_t rules =
      c->rule_count < LCTX_CASE_MAX_RULES ? c->rule_count : LCTX_CASE_MAX_RULES;
  for (size_t i = 0; i < rules; i++)
    print_rule(out, &c->rules[i]);
  size_t ops =
      c->op_count < LCTX_CASE_MAX_OPS ? c->op_count : LCTX_CASE_MAX_OPS;
  for (size_t i = 0; i < ops; i++) {
    print_op(out, &c->ops[i]);
    if (c->has_expect[i])
      print_expect(out, &c->expect[i]);
  }
}
