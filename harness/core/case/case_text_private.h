/*
 * case_text_private.h - what the parts of the `.case` parser share
 * (case_text.c, the directives; case_text_lex.c, the lexer and the values):
 * the parser's state, its error reporting, and the readers of tokens and
 * values. Not for use outside them.
 */
#ifndef LCTX_HARNESS_CASE_TEXT_PRIVATE_H
#define LCTX_HARNESS_CASE_TEXT_PRIVATE_H

#include "case_text.h"

/// The parser's state: where it is, what it has seen, the last string.
typedef struct case_text_parser {
  const char *filename;
  lctx_buf *error;
  lctx_case *out;
  /// Where expectations go (NULL: checked, then dropped), each read into
  /// `scratch` first; the bytes of their texts so far.
  lctx_case_expect *expect;
  lctx_outcome scratch;
  size_t expect_text;
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
} case_text_parser;

/// Starts an error message at `at` (a position in the current line) and
/// returns the writer to finish it with.
lctx_buf *case_text_error_at(case_text_parser *p, const char *at);

/// Reports `message` at `at`; returns false for convenience.
bool case_text_fail(case_text_parser *p, const char *at, const char *message);

/// Whether `ch` may be part of a word.
bool case_text_is_word_char(char ch);

/// Skips blanks, and a comment: `#` at the start of the line or after a
/// blank runs to the end of the line.
void case_text_skip_space(case_text_parser *p);

/// Appends a description of what is at `at`: "end of line", "a string",
/// "`word`" (long words cut), "`=`", or "byte 0xNN".
void case_text_describe(const case_text_parser *p, const char *at, lctx_buf *b);

/// Reports "too many WHAT (at most MAX)".
bool case_text_fail_too_many(case_text_parser *p, const char *at,
                             const char *what, long long max);

/// Reports "unknown WHAT <what is at `at`>", then " (expected EXPECTED)"
/// when `expected` is not NULL.
bool case_text_fail_unknown(case_text_parser *p, const char *at,
                            const char *what, const char *expected);

/// Reports "expected WHAT, found <what is at the cursor>".
bool case_text_fail_expected(case_text_parser *p, const char *what);

/// Reads a word (a run of printable ASCII other than `"#=[],`). On failure
/// reports "expected WHAT, found ...".
bool case_text_read_word(case_text_parser *p, const char *what, lctx_str *word,
                         const char **at);

/// Reads one of `=`, `[`, `]`, `,`.
bool case_text_read_punct(case_text_parser *p, char c, const char *what);

/// Reads a string literal into p->string (see the escapes in case_text.h).
bool case_text_read_string(case_text_parser *p, const char *what);

/// Requires the end of the directive (blanks and a comment may follow).
bool case_text_end_directive(case_text_parser *p);

/// Checks the last string against a name field's limit and alphabet and
/// copies it to `dst` (capacity max + 1).
bool case_text_take_name(case_text_parser *p, const char *field, size_t max,
                         char *dst);

/// Checks the last string against the outcome text limit.
bool case_text_take_text(case_text_parser *p);

/// Parses a decimal integer word (optional sign, then digits). Values whose
/// magnitude passes 2^40 saturate; callers check their range.
bool case_text_word_integer(lctx_str w, long long *value);

/// Reads an integer word in [lo, hi]; `what` names it in errors.
bool case_text_read_integer(case_text_parser *p, const char *what, long long lo,
                            long long hi, long long *value);

/// Reads `key=`; `what` describes the whole expected field.
bool case_text_read_key(case_text_parser *p, const char *key, const char *what);

/// Reads one of two keywords; sets `*second` when it was `b`.
bool case_text_read_choice(case_text_parser *p, const char *a, const char *b,
                           const char *what, bool *second);

/// Reads `key=true` or `key=false` into `*value`.
bool case_text_read_flag(case_text_parser *p, const char *key, bool *value);

/// True when the next token is the word `key` (nothing is consumed).
bool case_text_at_word(case_text_parser *p, const char *key);

/// Reads `None` (clearing `*has`) or a name string into `dst` (setting it);
/// `field` names the value in errors.
bool case_text_read_none_or_name(case_text_parser *p, const char *field,
                                 bool *has, char *dst);

/// Reads `[` STRING ("," STRING)* `]` or `[]` into `dst` (at most
/// LCTX_MAX_MODULE_PLATFORMS names, as indexes into the case's names,
/// interned there); `field` names an element in errors and `many` the list
/// in "too many ...". A name past the case's LCTX_CASE_MAX_NAMES distinct
/// ones is an error at its string.
bool case_text_read_name_list(case_text_parser *p, const char *field,
                              const char *many, uint8_t *dst, size_t *count);

/// Reads the name of a declared rule (after `key=`) into `dst`; a name no
/// `rule` directive declared is an error at the string.
bool case_text_read_rule_ref(case_text_parser *p, char *dst);

/// Checks the case read so far with lctx_case_validate (the lowering
/// limits: primitives, lower_fun cycles and depth, the event bound); on
/// failure reports its message at `start`, the directive `directive`.
bool case_text_check_valid(case_text_parser *p, const char *start,
                           const char *directive);

#endif /* LCTX_HARNESS_CASE_TEXT_PRIVATE_H */
