/*
 * spec_lex.c - the tokens and values of the spec table parser (see
 * spec_private.h, spec.h and conformance/spec/README.md).
 *
 * Owns reporting malformed input as FILE:LINE:COL, the tokens of a line,
 * double-quoted strings and their escapes, checking a template's
 * placeholders, and reading an outcome (`none`, `string "T"`, `raise CLASS
 * "T"`, `client ...`) wherever a row or a `was` line holds one.
 */
#include "spec_private.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Errors and tokens
//===----------------------------------------------------------------------===//

bool spec_fail(spec_parser *p, const char *at, const char *message,
               const char *quoted) {
  lctx_buf_append_cstr(p->error, p->filename);
  lctx_buf_append_char(p->error, ':');
  lctx_buf_append_int(p->error, p->line);
  lctx_buf_append_char(p->error, ':');
  lctx_buf_append_int(p->error, at ? (long long)(at - p->line_start) + 1 : 1);
  lctx_buf_append_cstr(p->error, ": ");
  lctx_buf_append_cstr(p->error, message);
  if (quoted) {
    lctx_buf_append_cstr(p->error, " '");
    lctx_buf_append_cstr(p->error, quoted);
    lctx_buf_append_char(p->error, '\'');
  }
  return false;
}

bool spec_fail_n(spec_parser *p, const char *at, const char *message,
                 const char *s, size_t n) {
  char copy[128];
  if (n >= sizeof copy)
    n = sizeof copy - 1;
  memcpy(copy, s, n);
  copy[n] = '\0';
  return spec_fail(p, at, message, copy);
}

const char *spec_skip_space(const char *s, const char *end) {
  while (s < end && (*s == ' ' || *s == '\t'))
    s++;
  return s;
}

const char *spec_token_end(const char *s, const char *end) {
  while (s < end && *s != ' ' && *s != '\t')
    s++;
  return s;
}

/* Parses a double-quoted string at *s into dst (NUL-terminated). */
bool spec_parse_string(spec_parser *p, const char **s, const char *end,
                       char *dst, size_t cap) {
  const char *q = *s;
  if (q >= end || *q != '"')
    return spec_fail(p, q, "expected a double-quoted string", NULL);
  size_t n = 0;
  for (q++;; q++) {
    if (q >= end)
      return spec_fail(p, *s, "unterminated string", NULL);
    unsigned char c = (unsigned char)*q;
    if (c == '"')
      break;
    if (c == '\\') {
      q++;
      if (q >= end)
        return spec_fail(p, q, "unterminated escape", NULL);
      switch (*q) {
      case '\\':
        c = '\\';
        break;
      case '"':
        c = '"';
        break;
      case 'n':
        c = '\n';
        break;
      case 't':
        c = '\t';
        break;
      case 'r':
        c = '\r';
        break;
      case 'x': {
        if (end - q < 3 || !isxdigit((unsigned char)q[1]) ||
            !isxdigit((unsigned char)q[2]))
          return spec_fail(p, q - 1, "bad \\x escape (two hex digits expected)",
                           NULL);
        char hex[3] = {q[1], q[2], 0};
        c = (unsigned char)strtoul(hex, NULL, 16);
        if (c == 0)
          return spec_fail(p, q - 1, "\\x00 is not allowed", NULL);
        q += 2;
        break;
      }
      default:
        return spec_fail(p, q - 1, "unknown escape", NULL);
      }
    }
    if (n + 1 >= cap)
      return spec_fail(p, *s, "string too long", NULL);
    dst[n++] = (char)c;
  }
  dst[n] = '\0';
  *s = q + 1;
  return true;
}

/* Whether `name` (`n` bytes) may be a placeholder: a known one, or, in a
 * refusal template (`any`), any name of lower-case letters and '_', which
 * stands for any text. */
static bool placeholder_ok(const char *name, size_t n, bool any) {
  lctx_placeholder ph;
  if (!any)
    return lctx_classify_placeholder_from_name(lctx_str_make(name, n), &ph);
  for (size_t i = 0; i < n; i++) {
    if (!islower((unsigned char)name[i]) && name[i] != '_')
      return false;
  }
  return n > 0;
}

/* Checks the placeholders of a template (`any`: a refusal's, see
 * placeholder_ok); `at` is where the string began. */
bool spec_check_template(spec_parser *p, const char *at, const char *t,
                         bool any) {
  for (const char *c = t; *c; c++) {
    const char *pos = at + 1 + (c - t);
    if (c[0] == '{' && c[1] == '{') {
      c++;
    } else if (c[0] == '}' && c[1] == '}') {
      c++;
    } else if (*c == '}') {
      return spec_fail(p, pos, "unmatched '}' in template (write '}}')", NULL);
    } else if (*c == '{') {
      const char *close = strchr(c, '}');
      if (!close)
        return spec_fail(p, pos, "unterminated placeholder", NULL);
      if (!placeholder_ok(c + 1, (size_t)(close - c - 1), any))
        return any ? spec_fail(p, pos,
                               "a placeholder is {name}, lower-case "
                               "letters",
                               NULL)
                   : spec_fail_n(p, pos, "unknown placeholder", c,
                                 (size_t)(close - c + 1));
      c = close;
    }
  }
  return true;
}

bool spec_expect_end(spec_parser *p, const char *s, const char *end) {
  s = spec_skip_space(s, end);
  if (s < end)
    return spec_fail(p, s, "unexpected text after the value", NULL);
  return true;
}

/* Moves to the next token: `*s` to its start, after the spaces at `*e`, and
 * `*e` to its end; returns it. */
lctx_str spec_next_token(const char **s, const char **e, const char *end) {
  *s = spec_skip_space(*e, end);
  *e = spec_token_end(*s, end);
  return lctx_str_make(*s, (size_t)(*e - *s));
}

//===----------------------------------------------------------------------===//
// Values: strings, templates, outcomes
//===----------------------------------------------------------------------===//

/* Reads an outcome's message: the string after the spaces at `from`, whose
 * placeholders must be known (`any`: a refusal's, any name); leaves `*s`
 * after it. */
bool spec_parse_text(spec_parser *p, const char *from, const char **s,
                     const char *end, lctx_spec_outcome *o, bool any) {
  const char *at = *s = spec_skip_space(from, end);
  return spec_parse_string(p, s, end, o->text, sizeof o->text) &&
         spec_check_template(p, at, o->text, any);
}

/* Parses an outcome (`none`, `string "T"`, ...) at `s` into `o`. */
bool spec_parse_outcome_into(spec_parser *p, const char *s, const char *end,
                             lctx_spec_outcome *o) {
  memset(o, 0, sizeof *o);
  const char *e = spec_token_end(s, end);
  lctx_str kind = lctx_str_make(s, (size_t)(e - s));
  if (lctx_str_equal_cstr(kind, "none")) {
    o->kind = LCTX_OUTCOME_NONE;
    s = e;
  } else if (lctx_str_equal_cstr(kind, "string") ||
             lctx_str_equal_cstr(kind, "platforms")) {
    o->kind = lctx_str_equal_cstr(kind, "string") ? LCTX_OUTCOME_STRING
                                                  : LCTX_OUTCOME_PLATFORMS;
    if (!spec_parse_text(p, e, &s, end, o, false))
      return false;
  } else if (lctx_str_equal_cstr(kind, "raise")) {
    o->kind = LCTX_OUTCOME_RAISE;
    if (!lctx_error_class_from_name(spec_next_token(&s, &e, end), &o->error))
      return spec_fail_n(p, s, "unknown error class", s, (size_t)(e - s));
    if (!spec_parse_text(p, e, &s, end, o, false))
      return false;
  } else if (lctx_str_equal_cstr(kind, "client")) {
    o->kind = LCTX_OUTCOME_CLIENT;
    lctx_str origin = spec_next_token(&s, &e, end);
    if (lctx_str_equal_cstr(origin, "pinned")) {
      o->origin = LCTX_CLIENT_PINNED;
    } else if (lctx_str_equal_cstr(origin, "registry")) {
      o->origin = LCTX_CLIENT_REGISTRY;
      spec_next_token(&s, &e, end);
      if (e == s || (size_t)(e - s) >= sizeof o->registration)
        return spec_fail(p, s, "expected a registration index or placeholder",
                         NULL);
      memcpy(o->registration, s, (size_t)(e - s));
      o->registration[e - s] = '\0';
      if (!spec_check_template(p, s - 1, o->registration, false))
        return false;
    } else {
      return spec_fail_n(p, s, "expected 'registry' or 'pinned', got", s,
                         (size_t)(e - s));
    }
    if (!spec_parse_text(p, e, &s, end, o, false))
      return false;
  } else {
    return spec_fail_n(p, s, "unknown outcome kind", s, (size_t)(e - s));
  }
  return spec_expect_end(p, s, end);
}

bool spec_copy_value(spec_parser *p, const char *s, const char *end, char *dst,
                     size_t cap) {
  size_t n = (size_t)(end - s);
  if (n == 0)
    return spec_fail(p, s, "empty value", NULL);
  if (n >= cap)
    return spec_fail(p, s, "value too long", NULL);
  memcpy(dst, s, n);
  dst[n] = '\0';
  return true;
}
