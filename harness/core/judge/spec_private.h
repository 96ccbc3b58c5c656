/*
 * spec_private.h - what the parts of the spec table parser share
 * (spec_parse.c, the lines and rows; spec_lex.c, the tokens, strings,
 * templates and outcomes; spec_was.c, the releases, `was` lines and facts):
 * the parser's state, its FILE:LINE:COL errors and the readers they have in
 * common. Not for use outside them.
 */
#ifndef LCTX_HARNESS_SPEC_PRIVATE_H
#define LCTX_HARNESS_SPEC_PRIVATE_H

#include "spec.h"

/* The parser's state. */
typedef struct spec_parser {
  const char *filename;
  int line;
  const char *line_start;
  lctx_buf *error;
  lctx_spec *spec;
  lctx_spec_row *row;   /* the row being filled, or NULL in the header */
  lctx_spec_fact *fact; /* the fact section being filled, or NULL */
  bool seen[16];        /* keys seen in the current row or fact */
  bool saw_modelled;    /* `releases` placed the modelled commit */
} spec_parser;

//===----------------------------------------------------------------------===//
// spec_lex.c
//===----------------------------------------------------------------------===//

/* Writes `FILE:LINE:COL: message` (then ` 'QUOTED'`) for `at` in the
 * current line (column 1 when NULL); returns false. */
bool spec_fail(spec_parser *p, const char *at, const char *message,
               const char *quoted);

/* spec_fail quoting the `n` bytes at `s` (cut at 127). */
bool spec_fail_n(spec_parser *p, const char *at, const char *message,
                 const char *s, size_t n);

/* Past the blanks at `s`. */
const char *spec_skip_space(const char *s, const char *end);

/* The end of the token at `s` (the next blank). */
const char *spec_token_end(const char *s, const char *end);

/* Parses a double-quoted string at *s into dst (NUL-terminated). */
bool spec_parse_string(spec_parser *p, const char **s, const char *end,
                       char *dst, size_t cap);

/* Checks the placeholders of a template (`any`: a refusal's, see
 * placeholder_ok); `at` is where the string began. */
bool spec_check_template(spec_parser *p, const char *at, const char *t,
                         bool any);

/* Fails unless only blanks follow `s`. */
bool spec_expect_end(spec_parser *p, const char *s, const char *end);

/* Moves to the next token: `*s` to its start, after the spaces at `*e`, and
 * `*e` to its end; returns it. */
lctx_str spec_next_token(const char **s, const char **e, const char *end);

/* Reads an outcome's message: the string after the spaces at `from`, whose
 * placeholders must be known (`any`: a refusal's, any name); leaves `*s`
 * after it. */
bool spec_parse_text(spec_parser *p, const char *from, const char **s,
                     const char *end, lctx_spec_outcome *o, bool any);

/* Parses an outcome (`none`, `string "T"`, ...) at `s` into `o`. */
bool spec_parse_outcome_into(spec_parser *p, const char *s, const char *end,
                             lctx_spec_outcome *o);

/* Copies the value `s`..`end` (not empty, shorter than `cap`) to `dst`. */
bool spec_copy_value(spec_parser *p, const char *s, const char *end, char *dst,
                     size_t cap);

//===----------------------------------------------------------------------===//
// spec_was.c
//===----------------------------------------------------------------------===//

/* `releases = V1 V2 ...`: the named releases, oldest first. */
bool spec_parse_releases(spec_parser *p, const char *s, const char *end);

/* `was = RELEASE COMMIT OUTCOME` (or `absent "why"`) in a row. A line with
 * the boundary and commit of the one before adds an outcome to it. */
bool spec_parse_row_was(spec_parser *p, const char *s, const char *end);

/* One `key = value` line of a `[fact NAME]` section. */
bool spec_parse_fact_key(spec_parser *p, const char *key, lctx_str k,
                         const char *v, const char *end);

/* `[fact NAME]`: starts a fact section. */
bool spec_start_fact(spec_parser *p, const char *s, size_t n);

/* Ends the fact section being read, if any: it must have its value and
 * source. */
bool spec_finish_fact(spec_parser *p);

/* A new entry of the table's `was` list. */
lctx_spec_was *spec_new_was(spec_parser *p, const char *at);

/* A new outcome of the table's `was_outcomes`. */
lctx_spec_outcome *spec_new_was_outcome(spec_parser *p, const char *at);

#endif /* LCTX_HARNESS_SPEC_PRIVATE_H */
