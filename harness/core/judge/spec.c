/*
 * spec.c - the spec table parser, matcher and renderer (see spec.h).
 */
#include "spec.h"

#include "escape.h"
#include "file.h"
#include "names.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
  const char *filename;
  int line;
  const char *line_start;
  lctx_buf *error;
  lctx_spec *spec;
  lctx_spec_row *row;   /* the row being filled, or NULL in the header */
  lctx_spec_fact *fact; /* the fact section being filled, or NULL */
  bool seen[16];        /* keys seen in the current row or fact */
} parser;

static bool fail(parser *p, const char *at, const char *message,
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

static bool fail_n(parser *p, const char *at, const char *message,
                   const char *s, size_t n) {
  char copy[128];
  if (n >= sizeof copy)
    n = sizeof copy - 1;
  memcpy(copy, s, n);
  copy[n] = '\0';
  return fail(p, at, message, copy);
}

static const char *skip_space(const char *s, const char *end) {
  while (s < end && (*s == ' ' || *s == '\t'))
    s++;
  return s;
}

static const char *token_end(const char *s, const char *end) {
  while (s < end && *s != ' ' && *s != '\t')
    s++;
  return s;
}

/* Parses a double-quoted string at *s into dst (NUL-terminated). */
static bool parse_string(parser *p, const char **s, const char *end, char *dst,
                         size_t cap) {
  const char *q = *s;
  if (q >= end || *q != '"')
    return fail(p, q, "expected a double-quoted string", NULL);
  size_t n = 0;
  for (q++;; q++) {
    if (q >= end)
      return fail(p, *s, "unterminated string", NULL);
    unsigned char c = (unsigned char)*q;
    if (c == '"')
      break;
    if (c == '\\') {
      q++;
      if (q >= end)
        return fail(p, q, "unterminated escape", NULL);
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
          return fail(p, q - 1, "bad \\x escape (two hex digits expected)",
                      NULL);
        char hex[3] = {q[1], q[2], 0};
        c = (unsigned char)strtoul(hex, NULL, 16);
        if (c == 0)
          return fail(p, q - 1, "\\x00 is not allowed", NULL);
        q += 2;
        break;
      }
      default:
        return fail(p, q - 1, "unknown escape", NULL);
      }
    }
    if (n + 1 >= cap)
      return fail(p, *s, "string too long", NULL);
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
static bool check_template(parser *p, const char *at, const char *t, bool any) {
  for (const char *c = t; *c; c++) {
    const char *pos = at + 1 + (c - t);
    if (c[0] == '{' && c[1] == '{') {
      c++;
    } else if (c[0] == '}' && c[1] == '}') {
      c++;
    } else if (*c == '}') {
      return fail(p, pos, "unmatched '}' in template (write '}}')", NULL);
    } else if (*c == '{') {
      const char *close = strchr(c, '}');
      if (!close)
        return fail(p, pos, "unterminated placeholder", NULL);
      if (!placeholder_ok(c + 1, (size_t)(close - c - 1), any))
        return any ? fail(p, pos,
                          "a placeholder is {name}, lower-case "
                          "letters",
                          NULL)
                   : fail_n(p, pos, "unknown placeholder", c,
                            (size_t)(close - c + 1));
      c = close;
    }
  }
  return true;
}

static bool expect_end(parser *p, const char *s, const char *end) {
  s = skip_space(s, end);
  if (s < end)
    return fail(p, s, "unexpected text after the value", NULL);
  return true;
}

static bool parse_op(parser *p, const char *s, const char *end) {
  if (end - s == 1 && *s == '*') {
    p->row->ops = (1u << LCTX_OP_KIND_COUNT) - 1;
    return true;
  }
  const char *tok_end = token_end(s, end);
  if (!expect_end(p, tok_end, end))
    return false;
  while (s < tok_end) {
    const char *bar = memchr(s, '|', (size_t)(tok_end - s));
    const char *e = bar ? bar : tok_end;
    lctx_op_kind kind;
    if (!lctx_op_kind_from_name(lctx_str_make(s, (size_t)(e - s)), &kind))
      return fail_n(p, s, "unknown operation", s, (size_t)(e - s));
    p->row->ops |= 1u << kind;
    s = bar ? bar + 1 : tok_end;
  }
  return true;
}

static bool parse_when(parser *p, const char *s, const char *end) {
  lctx_spec_row *row = p->row;
  for (s = skip_space(s, end); s < end; s = skip_space(s, end)) {
    const char *e = token_end(s, end);
    const char *eq = memchr(s, '=', (size_t)(e - s));
    if (!eq || eq == s)
      return fail_n(p, s, "expected feature=value, got", s, (size_t)(e - s));
    bool negate = eq[-1] == '!';
    const char *name_end = negate ? eq - 1 : eq;
    lctx_feature f;
    if (!lctx_classify_feature_from_name(
            lctx_str_make(s, (size_t)(name_end - s)), &f))
      return fail_n(p, s, "unknown feature", s, (size_t)(name_end - s));
    if (row->clause_count >= LCTX_SPEC_MAX_CLAUSES)
      return fail(p, s, "too many clauses", NULL);
    lctx_spec_clause *cl = &row->clauses[row->clause_count++];
    cl->feature = f;
    cl->negate = negate;
    cl->values = 0;
    for (const char *v = eq + 1; v <= e;) {
      const char *bar = memchr(v, '|', (size_t)(e - v));
      const char *ve = bar ? bar : e;
      int value;
      if (!lctx_classify_value_from_name(f, lctx_str_make(v, (size_t)(ve - v)),
                                         &value)) {
        char msg[160];
        snprintf(msg, sizeof msg, "unknown value for feature '%s':",
                 lctx_classify_feature_name(f));
        return fail_n(p, v, msg, v, (size_t)(ve - v));
      }
      cl->values |= 1u << value;
      if (!bar)
        break;
      v = bar + 1;
    }
    s = e;
  }
  return true;
}

/* Moves to the next token: `*s` to its start, after the spaces at `*e`, and
 * `*e` to its end; returns it. */
static lctx_str next_token(const char **s, const char **e, const char *end) {
  *s = skip_space(*e, end);
  *e = token_end(*s, end);
  return lctx_str_make(*s, (size_t)(*e - *s));
}

/* Reads an outcome's message: the string after the spaces at `from`, whose
 * placeholders must be known (`any`: a refusal's, any name); leaves `*s`
 * after it. */
static bool parse_text(parser *p, const char *from, const char **s,
                       const char *end, lctx_spec_outcome *o, bool any) {
  const char *at = *s = skip_space(from, end);
  return parse_string(p, s, end, o->text, sizeof o->text) &&
         check_template(p, at, o->text, any);
}

/* Parses an outcome (`none`, `string "T"`, ...) at `s` into `o`. */
static bool parse_outcome_into(parser *p, const char *s, const char *end,
                               lctx_spec_outcome *o) {
  memset(o, 0, sizeof *o);
  const char *e = token_end(s, end);
  lctx_str kind = lctx_str_make(s, (size_t)(e - s));
  if (lctx_str_equal_cstr(kind, "none")) {
    o->kind = LCTX_OUTCOME_NONE;
    s = e;
  } else if (lctx_str_equal_cstr(kind, "string") ||
             lctx_str_equal_cstr(kind, "platforms")) {
    o->kind = lctx_str_equal_cstr(kind, "string") ? LCTX_OUTCOME_STRING
                                                  : LCTX_OUTCOME_PLATFORMS;
    if (!parse_text(p, e, &s, end, o, false))
      return false;
  } else if (lctx_str_equal_cstr(kind, "raise")) {
    o->kind = LCTX_OUTCOME_RAISE;
    if (!lctx_error_class_from_name(next_token(&s, &e, end), &o->error))
      return fail_n(p, s, "unknown error class", s, (size_t)(e - s));
    if (!parse_text(p, e, &s, end, o, false))
      return false;
  } else if (lctx_str_equal_cstr(kind, "client")) {
    o->kind = LCTX_OUTCOME_CLIENT;
    lctx_str origin = next_token(&s, &e, end);
    if (lctx_str_equal_cstr(origin, "pinned")) {
      o->origin = LCTX_CLIENT_PINNED;
    } else if (lctx_str_equal_cstr(origin, "registry")) {
      o->origin = LCTX_CLIENT_REGISTRY;
      next_token(&s, &e, end);
      if (e == s || (size_t)(e - s) >= sizeof o->registration)
        return fail(p, s, "expected a registration index or placeholder", NULL);
      memcpy(o->registration, s, (size_t)(e - s));
      o->registration[e - s] = '\0';
      if (!check_template(p, s - 1, o->registration, false))
        return false;
    } else {
      return fail_n(p, s, "expected 'registry' or 'pinned', got", s,
                    (size_t)(e - s));
    }
    if (!parse_text(p, e, &s, end, o, false))
      return false;
  } else {
    return fail_n(p, s, "unknown outcome kind", s, (size_t)(e - s));
  }
  return expect_end(p, s, end);
}

static lctx_spec_was *new_was(parser *p, const char *at);

/* `outcome = absent "why"`: the row's operations do not exist at the
 * modelled commit (a situation only older releases have): its only
 * outcome, kept as its current state. */
static bool parse_absent_outcome(parser *p, const char *s, const char *end) {
  lctx_spec_row *row = p->row;
  if (row->outcome_count > 0 || row->was_count > 0 || p->seen[9])
    return fail(p, s,
                "'outcome = absent' is a row's only outcome, before "
                "its was lines",
                NULL);
  lctx_spec_was *w = new_was(p, s);
  if (!w)
    return false;
  row->first_was = (uint8_t)(p->spec->was_count - 1);
  row->was_count = 1;
  row->absent = true;
  w->absent = true;
  s = skip_space(token_end(s, end), end);
  return parse_string(p, &s, end, w->why, sizeof w->why) &&
         expect_end(p, s, end);
}

static bool parse_outcome(parser *p, const char *s, const char *end) {
  lctx_spec_row *row = p->row;
  if (lctx_str_equal_cstr(lctx_str_make(s, (size_t)(token_end(s, end) - s)),
                          "absent"))
    return parse_absent_outcome(p, s, end);
  if (row->absent)
    return fail(p, s, "'outcome = absent' is a row's only outcome", NULL);
  if (row->outcome_count >= LCTX_SPEC_MAX_OUTCOMES)
    return fail(p, s, "too many outcomes in one row", NULL);
  if (!parse_outcome_into(p, s, end, &row->outcomes[row->outcome_count]))
    return false;
  row->outcome_count++;
  return true;
}

/* `refusal = CLASS "TEMPLATE"`: an allowed outcome of a sweep row. */
static bool parse_refusal(parser *p, const char *s, const char *end) {
  lctx_spec_row *row = p->row;
  if (row->outcome_count >= LCTX_SPEC_MAX_OUTCOMES)
    return fail(p, s, "too many refusals in one row", NULL);
  lctx_spec_outcome *o = &row->outcomes[row->outcome_count];
  memset(o, 0, sizeof *o);
  o->kind = LCTX_OUTCOME_RAISE;
  const char *e = token_end(s, end);
  if (!lctx_error_class_from_name(lctx_str_make(s, (size_t)(e - s)), &o->error))
    return fail_n(p, s, "unknown error class", s, (size_t)(e - s));
  if (!parse_text(p, e, &s, end, o, true) || !expect_end(p, s, end))
    return false;
  row->outcome_count++;
  return true;
}

/* `bound = NUMBER`: a finite number from 0 to 1. */
static bool parse_bound(parser *p, const char *s, const char *end) {
  char text[32];
  size_t n = (size_t)(end - s);
  if (n == 0 || n >= sizeof text)
    return fail(p, s, "expected a number from 0 to 1", NULL);
  memcpy(text, s, n);
  text[n] = '\0';
  char *stop;
  double v = strtod(text, &stop);
  if (*stop != '\0' || !(v >= 0 && v <= 1))
    return fail(p, s, "expected a number from 0 to 1", NULL);
  p->row->bound = v;
  return true;
}

static bool copy_value(parser *p, const char *s, const char *end, char *dst,
                       size_t cap) {
  size_t n = (size_t)(end - s);
  if (n == 0)
    return fail(p, s, "empty value", NULL);
  if (n >= cap)
    return fail(p, s, "value too long", NULL);
  memcpy(dst, s, n);
  dst[n] = '\0';
  return true;
}

//===----------------------------------------------------------------------===//
// Releases, `was` lines and facts
//===----------------------------------------------------------------------===//

/* Compares two release names as versions (dot-separated numbers). */
static int compare_versions(const char *a, const char *b) {
  while (*a || *b) {
    unsigned long x = strtoul(a, (char **)&a, 10);
    unsigned long y = strtoul(b, (char **)&b, 10);
    if (x != y)
      return x < y ? -1 : 1;
    a += *a == '.';
    b += *b == '.';
  }
  return 0;
}

static bool valid_release(const char *s, size_t n) {
  bool digit = false;
  for (size_t i = 0; i < n; i++) {
    if (isdigit((unsigned char)s[i]))
      digit = true;
    else if (s[i] != '.' || !digit || i + 1 == n)
      return false;
    else
      digit = false;
  }
  return n > 0;
}

/* `releases = V1 V2 ...`: the named releases, oldest first. */
static bool parse_releases(parser *p, const char *s, const char *end) {
  lctx_spec *spec = p->spec;
  if (spec->release_count > 0)
    return fail(p, s, "duplicate key 'releases'", NULL);
  for (const char *e = s; (s = skip_space(e, end)) < end;) {
    e = token_end(s, end);
    size_t n = (size_t)(e - s);
    if (!valid_release(s, n) || n >= LCTX_SPEC_RELEASE_NAME)
      return fail_n(p, s, "bad release (expected numbers joined by '.'):", s,
                    n);
    if (spec->release_count == LCTX_SPEC_MAX_RELEASES)
      return fail(p, s, "too many releases", NULL);
    char *name = spec->releases[spec->release_count];
    memcpy(name, s, n);
    name[n] = '\0';
    if (spec->release_count > 0 &&
        compare_versions(spec->releases[spec->release_count - 1], name) >= 0) {
      char msg[96];
      snprintf(msg, sizeof msg,
               "releases go oldest first, without repeats: "
               "after '%s' comes",
               spec->releases[spec->release_count - 1]);
      return fail(p, s, msg, name);
    }
    spec->release_count++;
  }
  if (spec->release_count == 0)
    return fail(p, s, "empty value", NULL);
  return true;
}

/* Fails naming an unknown release and the ones the table knows. */
static bool fail_release(parser *p, const char *at, const char *s, size_t n) {
  char known[LCTX_SPEC_MAX_RELEASES * LCTX_SPEC_RELEASE_NAME + 64];
  lctx_buf kb;
  lctx_buf_init(&kb, known, sizeof known);
  lctx_buf_append_cstr(&kb, "unknown release (the table names: ");
  for (size_t i = 0; i < p->spec->release_count; i++) {
    if (i > 0)
      lctx_buf_append_cstr(&kb, ", ");
    lctx_buf_append_cstr(&kb, p->spec->releases[i]);
  }
  if (p->spec->release_count == 0)
    lctx_buf_append_cstr(&kb, "none; write 'releases = ...' first");
  lctx_buf_append_cstr(&kb, "):");
  return fail_n(p, at, known, s, n);
}

/* Reads `RELEASE COMMIT` at the start of a `was` value into `w`, checking
 * its order against the entries before it (`prev`: the last `was` entry of
 * the row or fact, or NULL); leaves `*s` after the commit. */
static bool parse_was_head(parser *p, const char **s, const char *end,
                           lctx_spec_was *w, const lctx_spec_was *prev) {
  const char *e = *s;
  lctx_str rel = next_token(s, &e, end);
  char name[LCTX_SPEC_RELEASE_NAME] = "";
  if (rel.length > 0 && rel.length < sizeof name)
    memcpy(name, rel.data, rel.length);
  int index = lctx_spec_release_index(p->spec, name);
  if (rel.length == 0)
    return fail(p, *s, "expected 'was = RELEASE COMMIT VALUE'", NULL);
  if (index < 0 || (size_t)index == p->spec->release_count)
    return fail_release(p, *s, rel.data, rel.length);
  if (prev && prev->boundary >= 0 && prev->boundary < index) {
    char msg[128];
    snprintf(msg, sizeof msg,
             "was lines go in descending release order: after %s (line %d) "
             "comes",
             p->spec->releases[prev->boundary], prev->line);
    return fail(p, *s, msg, name);
  }
  lctx_str commit = next_token(s, &e, end);
  const char *at = commit.data;
  bool hex = commit.length == LCTX_SPEC_COMMIT - 1;
  for (size_t i = 0; hex && i < commit.length; i++)
    hex = isxdigit((unsigned char)commit.data[i]) &&
          !isupper((unsigned char)commit.data[i]);
  if (!hex)
    return fail_n(p, at, "a commit is 12 lower-case hex digits, got", at,
                  commit.length);
  memset(w, 0, sizeof *w);
  w->boundary = index;
  w->line = p->line;
  memcpy(w->commit, commit.data, commit.length);
  *s = e;
  return true;
}

/* A new entry of the table's `was` list. */
static lctx_spec_was *new_was(parser *p, const char *at) {
  if (p->spec->was_count == LCTX_SPEC_MAX_WAS) {
    fail(p, at, "too many was lines in the table", NULL);
    return NULL;
  }
  lctx_spec_was *w = &p->spec->was[p->spec->was_count++];
  memset(w, 0, sizeof *w);
  w->boundary = -1;
  return w;
}

/* A new outcome of the table's `was_outcomes`. */
static lctx_spec_outcome *new_was_outcome(parser *p, const char *at) {
  if (p->spec->was_outcome_count == LCTX_SPEC_MAX_WAS_OUTCOMES) {
    fail(p, at, "too many outcomes in was lines", NULL);
    return NULL;
  }
  return &p->spec->was_outcomes[p->spec->was_outcome_count++];
}

/* `was = RELEASE COMMIT OUTCOME` (or `absent "why"`) in a row. A line with
 * the boundary and commit of the one before adds an outcome to it. */
static bool parse_row_was(parser *p, const char *s, const char *end) {
  lctx_spec_row *row = p->row;
  lctx_spec *spec = p->spec;
  if (row->was_count == 0) { /* the current state comes first */
    if (!new_was(p, s))
      return false;
    row->first_was = (uint8_t)(spec->was_count - 1);
    row->was_count = 1;
  }
  lctx_spec_was *prev = &spec->was[row->first_was + row->was_count - 1];
  lctx_spec_was head;
  if (!parse_was_head(p, &s, end, &head, row->was_count > 1 ? prev : NULL))
    return false;
  s = skip_space(s, end);
  const char *e = token_end(s, end);
  bool absent =
      lctx_str_equal_cstr(lctx_str_make(s, (size_t)(e - s)), "absent");
  if (row->was_count > 1 && prev->boundary == head.boundary) {
    if (strcmp(prev->commit, head.commit) != 0 || absent || prev->absent)
      return fail(p, s,
                  "a second was line for one release adds an outcome: same "
                  "commit, and not absent",
                  NULL);
    if (prev->outcome_count >= LCTX_SPEC_MAX_OUTCOMES)
      return fail(p, s, "too many outcomes in one was state", NULL);
    lctx_spec_outcome *o = new_was_outcome(p, s);
    if (!o || !parse_outcome_into(p, s, end, o))
      return false;
    prev->outcome_count++;
    return true;
  }
  lctx_spec_was *w = new_was(p, s);
  if (!w)
    return false;
  *w = head;
  row->was_count++;
  if (absent) {
    w->absent = true;
    const char *at = skip_space(e, end);
    s = at;
    return parse_string(p, &s, end, w->why, sizeof w->why) &&
           expect_end(p, s, end);
  }
  lctx_spec_outcome *o = new_was_outcome(p, s);
  w->first_outcome = (uint8_t)(spec->was_outcome_count - 1);
  w->outcome_count = 1;
  return o && parse_outcome_into(p, s, end, o);
}

/* A fact's value (a list of names, or a flag) at `s` into `w`. */
static bool parse_fact_value(parser *p, const char *s, const char *end,
                             lctx_spec_was *w) {
  lctx_fact f = (lctx_fact)(p->fact - p->spec->fact);
  w->name_count = 0;
  for (const char *e = s; (s = skip_space(e, end)) < end;) {
    e = token_end(s, end);
    size_t n = (size_t)(e - s);
    bool ok = n < LCTX_FACT_NAME_MAX;
    for (size_t i = 0; ok && i < n; i++)
      ok = isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '-';
    if (!ok)
      return fail_n(p, s, "bad name (letters, digits, '_', '-'):", s, n);
    if (w->name_count == LCTX_FACT_MAX_NAMES)
      return fail(p, s, "too many names in one fact", NULL);
    memcpy(w->names[w->name_count], s, n);
    w->names[w->name_count++][n] = '\0';
  }
  if (lctx_classify_fact_is_flag(f) &&
      (w->name_count != 1 ||
       (strcmp(w->names[0], "yes") != 0 && strcmp(w->names[0], "no") != 0)))
    return fail(p, s, "this fact is 'yes' or 'no'", NULL);
  return true;
}

static const char *const FACT_KEYS[] = {"value", "was", "source", "note"};
#define FACT_KEY_COUNT 4

/* One `key = value` line of a `[fact NAME]` section. */
static bool parse_fact_key(parser *p, const char *key, lctx_str k,
                           const char *v, const char *end) {
  lctx_spec_fact *fact = p->fact;
  int which = lctx_names_find(FACT_KEYS, FACT_KEY_COUNT, k);
  if (which < 0)
    return fail_n(p, key, "unknown key in a fact", key, k.length);
  if (which != 1 && p->seen[which])
    return fail_n(p, key, "duplicate key", key, k.length);
  p->seen[which] = true;
  lctx_spec_was *first = &p->spec->was[fact->first_was];
  switch (which) {
  case 0:
    return parse_fact_value(p, v, end, first);
  case 1: {
    lctx_spec_was *prev = &p->spec->was[fact->first_was + fact->was_count - 1];
    lctx_spec_was head;
    const char *at = v;
    if (!parse_was_head(p, &v, end, &head, fact->was_count > 1 ? prev : NULL))
      return false;
    if (fact->was_count > 1 && prev->boundary == head.boundary)
      return fail(p, at, "a second was line for the same release", NULL);
    lctx_spec_was *w = new_was(p, v);
    if (!w)
      return false;
    *w = head;
    fact->was_count++;
    return parse_fact_value(p, v, end, w);
  }
  case 2:
    return copy_value(p, v, end, fact->source, sizeof fact->source);
  default:
    return copy_value(p, v, end, fact->note, sizeof fact->note);
  }
}

/* `[fact NAME]`: starts a fact section. */
static bool start_fact(parser *p, const char *s, size_t n) {
  lctx_fact f;
  if (!lctx_classify_fact_from_name(lctx_str_make(s, n), &f)) {
    char msg[200];
    lctx_buf mb;
    lctx_buf_init(&mb, msg, sizeof msg);
    lctx_buf_append_cstr(&mb, "unknown fact (known: ");
    for (int i = 0; i < LCTX_FACT_COUNT; i++) {
      if (i > 0)
        lctx_buf_append_cstr(&mb, ", ");
      lctx_buf_append_cstr(&mb, lctx_classify_fact_name((lctx_fact)i));
    }
    lctx_buf_append_cstr(&mb, "):");
    return fail_n(p, s, msg, s, n);
  }
  lctx_spec_fact *fact = &p->spec->fact[f];
  if (fact->stated) {
    char msg[96];
    snprintf(msg, sizeof msg, "duplicate fact (first at line %d):", fact->line);
    return fail_n(p, s, msg, s, n);
  }
  lctx_spec_was *current = new_was(p, s);
  if (!current)
    return false;
  fact->stated = true;
  fact->line = p->line;
  fact->first_was = (uint8_t)(p->spec->was_count - 1);
  fact->was_count = 1;
  p->fact = fact;
  memset(p->seen, 0, sizeof p->seen);
  return true;
}

static bool finish_fact(parser *p) {
  lctx_spec_fact *fact = p->fact;
  if (!fact)
    return true;
  p->fact = NULL;
  static const int required[] = {0, 2};
  for (int i = 0; i < 2; i++) {
    if (!p->seen[required[i]]) {
      int saved = p->line;
      p->line = fact->line;
      char msg[96];
      snprintf(msg, sizeof msg, "fact '%s' has no '%s'",
               lctx_classify_fact_name((lctx_fact)(fact - p->spec->fact)),
               FACT_KEYS[required[i]]);
      fail(p, NULL, msg, NULL);
      p->line = saved;
      return false;
    }
  }
  return true;
}

static const char *const ROW_KEYS[] = {"op",     "when", "outcome", "strict",
                                       "source", "note", "check",   "refusal",
                                       "bound",  "was"};
#define ROW_KEY_COUNT 10

/* A row with `was` lines keeps its current outcomes among the table's
 * `was_outcomes` too (lctx_spec_select puts them back). */
static bool keep_current(parser *p) {
  lctx_spec_row *row = p->row;
  if (row->was_count == 0)
    return true;
  lctx_spec_was *current = &p->spec->was[row->first_was];
  current->first_outcome = (uint8_t)p->spec->was_outcome_count;
  current->outcome_count = (uint8_t)row->outcome_count;
  for (size_t k = 0; k < row->outcome_count; k++) {
    lctx_spec_outcome *o = new_was_outcome(p, NULL);
    if (!o)
      return false;
    *o = row->outcomes[k];
  }
  return true;
}

/* Fails at the row's header line with "ROW-ID: WHAT 'KEY'". */
static bool fail_row_key(parser *p, const char *what, const char *key) {
  int saved = p->line;
  p->line = p->row->line;
  char msg[128];
  snprintf(msg, sizeof msg, "%s '%s' %s '%s'",
           p->row->ir      ? "IR row"
           : p->row->sweep ? "sweep row"
                           : "row",
           p->row->id, what, key);
  fail(p, NULL, msg, NULL);
  p->line = saved;
  return false;
}

static bool finish_row(parser *p) {
  lctx_spec_row *row = p->row;
  if (!row)
    return true;
  if (row->ir || row->sweep) {
    /* An IR or sweep row: judged by the IR checker or the sweep judge,
     * never matched by features. */
    for (int i = 0; i < 4; i++) {
      if (p->seen[i])
        return fail_row_key(
            p, row->ir ? "(check = ir) takes no" : "(check = sweep) takes no",
            ROW_KEYS[i]);
    }
    row->ops = 0;
    if (p->seen[9])
      return fail_row_key(
          p, row->ir ? "(check = ir) takes no" : "(check = sweep) takes no",
          ROW_KEYS[9]);
  }
  for (int i = 7; i < 9; i++) {
    if (p->seen[i] && !row->sweep)
      return fail_row_key(p, "(not check = sweep) takes no", ROW_KEYS[i]);
  }
  static const char *const required[] = {"op", "outcome", "strict", "source"};
  static const int required_index[] = {0, 2, 3, 4};
  for (int i = row->ir || row->sweep ? 3 : 0; i < 4; i++) {
    if (!p->seen[required_index[i]]) {
      int saved = p->line;
      p->line = row->line;
      char msg[96];
      snprintf(msg, sizeof msg, "row '%s' has no '%s'", row->id, required[i]);
      fail(p, NULL, msg, NULL);
      p->line = saved;
      return false;
    }
  }
  return keep_current(p);
}

static bool valid_id(const char *s, size_t n) {
  size_t i = 0;
  while (i < n && isupper((unsigned char)s[i]))
    i++;
  if (i == 0 || i + 4 != n || s[i] != '-')
    return false;
  for (size_t k = i + 1; k < n; k++) {
    if (!isdigit((unsigned char)s[k]))
      return false;
  }
  return true;
}

static bool parse_line(parser *p, const char *s, const char *end) {
  s = skip_space(s, end);
  while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
    end--;
  if (s == end || *s == '#')
    return true;
  if (*s == '[') {
    const char *close = memchr(s, ']', (size_t)(end - s));
    if (!close)
      return fail(p, s, "unterminated row header", NULL);
    if (!expect_end(p, close + 1, end))
      return false;
    size_t n = (size_t)(close - s - 1);
    if (!finish_fact(p))
      return false;
    if (n > 5 && memcmp(s + 1, "fact ", 5) == 0) {
      if (!finish_row(p))
        return false;
      p->row = NULL;
      const char *name = skip_space(s + 6, close);
      return start_fact(p, name, (size_t)(close - name));
    }
    if (!valid_id(s + 1, n))
      return fail_n(p, s + 1,
                    "bad row ID (expected letters, '-', three digits):", s + 1,
                    n);
    if (!finish_row(p))
      return false;
    for (size_t i = 0; i < p->spec->row_count; i++) {
      if (strlen(p->spec->rows[i].id) == n &&
          memcmp(p->spec->rows[i].id, s + 1, n) == 0) {
        char msg[96];
        snprintf(msg, sizeof msg,
                 "duplicate row ID (first at line %d):", p->spec->rows[i].line);
        return fail_n(p, s + 1, msg, s + 1, n);
      }
    }
    if (p->spec->row_count >= LCTX_SPEC_MAX_ROWS)
      return fail(p, s, "too many rows", NULL);
    p->row = &p->spec->rows[p->spec->row_count++];
    memset(p->row, 0, sizeof *p->row);
    memcpy(p->row->id, s + 1, n);
    p->row->line = p->line;
    p->row->exact = true;
    memset(p->seen, 0, sizeof p->seen);
    return true;
  }
  const char *key = s;
  while (s < end && (islower((unsigned char)*s) || *s == '-' || *s == '_'))
    s++;
  lctx_str k = lctx_str_make(key, (size_t)(s - key));
  const char *eq = skip_space(s, end);
  if (k.length == 0 || eq >= end || *eq != '=')
    return fail(p, key, "expected 'key = value'", NULL);
  const char *v = skip_space(eq + 1, end);
  if (p->fact)
    return parse_fact_key(p, key, k, v, end);
  if (!p->row) {
    if (lctx_str_equal_cstr(k, "spec-version"))
      return copy_value(p, v, end, p->spec->version, sizeof p->spec->version);
    if (lctx_str_equal_cstr(k, "jax-commit"))
      return copy_value(p, v, end, p->spec->jax_commit,
                        sizeof p->spec->jax_commit);
    if (lctx_str_equal_cstr(k, "releases"))
      return parse_releases(p, v, end);
    return fail_n(p, key, "unknown key before the first row:", key, k.length);
  }
  int which = -1;
  for (int i = 0; i < ROW_KEY_COUNT; i++) {
    if (lctx_str_equal_cstr(k, ROW_KEYS[i]))
      which = i;
  }
  if (which < 0)
    return fail_n(p, key, "unknown key", key, k.length);
  if (which != 2 && which != 7 && which != 9 && p->seen[which])
    return fail_n(p, key, "duplicate key", key, k.length);
  p->seen[which] = true;
  switch (which) {
  case 0:
    return parse_op(p, v, end);
  case 1:
    return parse_when(p, v, end);
  case 2:
    return parse_outcome(p, v, end);
  case 3:
    if (lctx_str_equal(lctx_str_make(v, (size_t)(end - v)),
                       lctx_str_from_cstr("exact")))
      p->row->exact = true;
    else if (lctx_str_equal(lctx_str_make(v, (size_t)(end - v)),
                            lctx_str_from_cstr("class")))
      p->row->exact = false;
    else
      return fail(p, v, "strict must be 'exact' or 'class'", NULL);
    return true;
  case 4:
    return copy_value(p, v, end, p->row->source, sizeof p->row->source);
  case 6:
    if (lctx_str_equal_cstr(lctx_str_make(v, (size_t)(end - v)), "ir"))
      p->row->ir = true;
    else if (lctx_str_equal_cstr(lctx_str_make(v, (size_t)(end - v)), "sweep"))
      p->row->sweep = true;
    else if (!lctx_str_equal_cstr(lctx_str_make(v, (size_t)(end - v)),
                                  "outcome"))
      return fail(p, v, "check must be 'outcome', 'ir' or 'sweep'", NULL);
    return true;
  case 7:
    return parse_refusal(p, v, end);
  case 8:
    return parse_bound(p, v, end);
  case 9:
    return parse_row_was(p, v, end);
  default:
    return copy_value(p, v, end, p->row->note, sizeof p->row->note);
  }
}

//===----------------------------------------------------------------------===//
// Compiling: templates into parts, rows indexed by operation
//===----------------------------------------------------------------------===//

/* The placeholder a checked template's `{` at `c` opens (check_template
 * accepted it), its closing brace in `*close`. */
static int placeholder_at(const char *c, const char **close) {
  *close = strchr(c, '}');
  lctx_placeholder ph;
  if (!*close || !lctx_classify_placeholder_from_name(
                     lctx_str_make(c + 1, (size_t)(*close - c - 1)), &ph))
    return -1;
  return (int)ph;
}

/* The placeholders of a checked template, a bit each. */
static uint32_t template_uses(const char *t) {
  uint32_t uses = 0;
  for (const char *c = t; *c; c++) {
    const char *close;
    if ((c[0] == '{' && c[1] == '{') || (c[0] == '}' && c[1] == '}')) {
      c++;
    } else if (c[0] == '{') {
      int ph = placeholder_at(c, &close);
      if (ph >= 0)
        uses |= 1u << ph;
      c = close ? close : c;
    }
  }
  return uses;
}

static bool add_part(lctx_spec_outcome *o, size_t offset, size_t length,
                     int placeholder) {
  if (o->part_count == LCTX_SPEC_MAX_PARTS)
    return false;
  o->parts[o->part_count++] =
      (lctx_spec_part){(uint16_t)offset, (uint16_t)length, (int8_t)placeholder};
  return true;
}

/* Splits `o->text` (checked) into parts: literal runs (a doubled brace
 * ends one and gives a part of one brace) and placeholders. */
static void compile_outcome(lctx_spec_outcome *o) {
  const char *t = o->text;
  o->part_count = 0;
  o->uses = template_uses(o->text) | template_uses(o->registration);
  for (const char *c = t; *c;) {
    size_t run = strcspn(c, "{}");
    bool ok = true;
    if (run > 0) {
      ok = add_part(o, (size_t)(c - t), run, -1);
      c += run;
    } else if (c[0] == c[1]) { /* "{{" or "}}" */
      ok = add_part(o, (size_t)(c - t), 1, -1);
      c += 2;
    } else {
      const char *close;
      int ph = placeholder_at(c, &close);
      ok = ph >= 0 && add_part(o, 0, 0, ph);
      c = close ? close + 1 : c + strlen(c);
    }
    if (!ok) {
      o->part_count = LCTX_SPEC_MAX_PARTS + 1;
      return;
    }
  }
}

/* Whether every clause of `row` on feature `f` admits value `v`. */
static bool admits(const lctx_spec_row *row, int f, int v) {
  for (size_t i = 0; i < row->clause_count; i++) {
    const lctx_spec_clause *cl = &row->clauses[i];
    if ((int)cl->feature == f && (((cl->values >> v) & 1u) != 0) == cl->negate)
      return false;
  }
  return true;
}

/* The key of operation kind `op`: the feature its rows test most often,
 * and the rows admitting each of its values. */
static void index_by_key(lctx_spec *spec, unsigned op) {
  size_t tests[LCTX_FEATURE_COUNT] = {0};
  for (size_t k = 0; k < spec->op_row_count[op]; k++) {
    const lctx_spec_row *row = &spec->rows[spec->op_rows[op][k]];
    bool seen[LCTX_FEATURE_COUNT] = {false};
    for (size_t i = 0; i < row->clause_count; i++) {
      unsigned f = (unsigned)row->clauses[i].feature;
      if (f < LCTX_FEATURE_COUNT && !seen[f]) {
        seen[f] = true;
        tests[f]++;
      }
    }
  }
  int key = -1;
  for (int f = 0; f < LCTX_FEATURE_COUNT; f++) {
    if (tests[f] > 1 && (key < 0 || tests[f] > tests[key]))
      key = f;
  }
  spec->op_key[op] = key;
  for (int v = 0; key >= 0 && v <= LCTX_FEATURE_MAX_VALUES; v++) {
    for (size_t k = 0; k < spec->op_row_count[op]; k++) {
      uint8_t i = spec->op_rows[op][k];
      if (admits(&spec->rows[i], key, v))
        spec->key_rows[op][v][spec->key_row_count[op][v]++] = i;
    }
  }
}

static void compile_table(lctx_spec *spec) {
  memset(spec->op_row_count, 0, sizeof spec->op_row_count);
  memset(spec->key_row_count, 0, sizeof spec->key_row_count);
  for (size_t i = 0; i < spec->row_count; i++) {
    lctx_spec_row *row = &spec->rows[i];
    for (size_t k = 0; k < row->outcome_count && !row->sweep; k++)
      compile_outcome(&row->outcomes[k]);
    for (unsigned op = 0; op < LCTX_OP_KIND_COUNT; op++) {
      if (row->ops & (1u << op))
        spec->op_rows[op][spec->op_row_count[op]++] = (uint8_t)i;
    }
  }
  for (unsigned op = 0; op < LCTX_OP_KIND_COUNT; op++)
    index_by_key(spec, op);
}

bool lctx_spec_parse(const char *text, size_t length, const char *filename,
                     lctx_spec *out, lctx_buf *error) {
  memset(out, 0, sizeof *out);
  snprintf(out->filename, sizeof out->filename, "%s", filename);
  parser p = {filename, 0, text, error, out, NULL, NULL, {0}};
  const char *end = text + length;
  for (const char *s = text; s < end || p.line == 0;) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    const char *line_end = nl ? nl : end;
    p.line++;
    p.line_start = s;
    if (memchr(s, '\0', (size_t)(line_end - s)))
      return fail(&p, memchr(s, '\0', (size_t)(line_end - s)),
                  "NUL byte in the table", NULL);
    if (!parse_line(&p, s, line_end))
      return false;
    if (!nl)
      break;
    s = nl + 1;
  }
  if (!finish_row(&p) || !finish_fact(&p))
    return false;
  p.line_start = NULL;
  p.line = 1;
  if (out->version[0] == '\0')
    return fail(&p, NULL, "missing 'spec-version'", NULL);
  if (out->row_count == 0)
    return fail(&p, NULL, "the table has no rows", NULL);
  compile_table(out);
  for (size_t i = 0; i < out->was_outcome_count; i++)
    compile_outcome(&out->was_outcomes[i]);
  return lctx_spec_select(out, NULL, error);
}

static bool parse_file(const char *text, size_t length, const char *path,
                       void *out, lctx_buf *error) {
  return lctx_spec_parse(text, length, path, out, error);
}

bool lctx_spec_load(const char *path, lctx_spec *out, lctx_buf *error) {
  return lctx_file_parse(path, LCTX_SPEC_MAX_BYTES, parse_file, out, error);
}

bool lctx_spec_load_or_report(const char *path, lctx_spec *out, const char *who,
                              FILE *err) {
  char message[1024];
  lctx_buf e;
  lctx_buf_init(&e, message, sizeof message);
  if (lctx_spec_load(path, out, &e))
    return true;
  fprintf(err, "%s: ", who);
  lctx_escape_write(err, message, strlen(message));
  fputc('\n', err);
  return false;
}

bool lctx_spec_row_matches(const lctx_spec_row *row,
                           const lctx_features *features) {
  if (!(row->ops & (1u << features->op)))
    return false;
  for (size_t i = 0; i < row->clause_count; i++) {
    const lctx_spec_clause *cl = &row->clauses[i];
    bool in = (cl->values >> features->value[cl->feature]) & 1u;
    if (in == cl->negate)
      return false;
  }
  return true;
}

size_t lctx_spec_match(const lctx_spec *spec, const lctx_features *features,
                       size_t *indices, size_t cap) {
  if ((unsigned)features->op >= LCTX_OP_KIND_COUNT)
    return 0;
  size_t n = 0;
  const uint8_t *rows = spec->op_rows[features->op];
  size_t count = spec->op_row_count[features->op];
  int key = spec->op_key[features->op];
  if (key >= 0 && features->value[key] >= 0 &&
      features->value[key] <= LCTX_FEATURE_MAX_VALUES) {
    rows = spec->key_rows[features->op][features->value[key]];
    count = spec->key_row_count[features->op][features->value[key]];
  }
  for (size_t k = 0; k < count; k++) {
    size_t i = rows[k];
    if (lctx_spec_row_matches(&spec->rows[i], features)) {
      if (n < cap)
        indices[n] = i;
      n++;
    }
  }
  return n;
}

static bool render(const char *t, const lctx_features *features, lctx_buf *out,
                   lctx_buf *error) {
  for (const char *c = t; *c;) {
    /* Copy the literal run up to the next brace in one append. */
    size_t run = strcspn(c, "{}");
    if (run > 0) {
      lctx_buf_append(out, c, run);
      c += run;
      continue;
    }
    if ((c[0] == '{' && c[1] == '{') || (c[0] == '}' && c[1] == '}')) {
      lctx_buf_append_char(out, *c);
      c += 2;
      continue;
    }
    const char *close = c[0] == '{' ? strchr(c, '}') : NULL;
    lctx_placeholder ph;
    if (!close || !lctx_classify_placeholder_from_name(
                      lctx_str_make(c + 1, (size_t)(close - c - 1)), &ph))
      return false; /* rejected by the parser already */
    if (!features->has[ph]) {
      lctx_buf_append_cstr(error, "placeholder {");
      lctx_buf_append_cstr(error, lctx_classify_placeholder_name(ph));
      lctx_buf_append_cstr(error, "} does not apply to this operation");
      return false;
    }
    lctx_buf_append_str(out, features->text[ph]);
    c = close + 1;
  }
  return true;
}

/* Renders `allowed->text`: from its parts when it was compiled. */
static bool render_outcome_text(const lctx_spec_outcome *allowed,
                                const lctx_features *features, lctx_buf *out,
                                lctx_buf *error) {
  if (allowed->part_count > LCTX_SPEC_MAX_PARTS)
    return render(allowed->text, features, out, error);
  for (size_t i = 0; i < allowed->part_count; i++) {
    const lctx_spec_part *part = &allowed->parts[i];
    if (part->placeholder < 0) {
      lctx_buf_append(out, allowed->text + part->offset, part->length);
      continue;
    }
    if (!features->has[part->placeholder]) {
      lctx_buf_append_cstr(error, "placeholder {");
      lctx_buf_append_cstr(error, lctx_classify_placeholder_name(
                                      (lctx_placeholder)part->placeholder));
      lctx_buf_append_cstr(error, "} does not apply to this operation");
      return false;
    }
    lctx_buf_append_str(out, features->text[part->placeholder]);
  }
  return true;
}

bool lctx_spec_render(const lctx_spec_outcome *allowed,
                      const lctx_features *features, lctx_outcome *out,
                      lctx_buf *error) {
  lctx_buf w;
  if (allowed->kind == LCTX_OUTCOME_RAISE)
    w = lctx_outcome_begin_raise(out, allowed->error);
  else
    w = lctx_outcome_begin(out, allowed->kind);
  if (allowed->kind == LCTX_OUTCOME_NONE) {
    lctx_outcome_set_none(out);
    return true;
  }
  if (!render_outcome_text(allowed, features, &w, error))
    return false;
  lctx_outcome_end(out, &w);
  if (allowed->kind == LCTX_OUTCOME_CLIENT) {
    out->origin = allowed->origin;
    out->registration = -1;
    if (allowed->origin == LCTX_CLIENT_REGISTRY) {
      char digits[32];
      lctx_buf d;
      lctx_buf_init(&d, digits, sizeof digits);
      if (!render(allowed->registration, features, &d, error))
        return false;
      char *endp;
      long v = strtol(digits, &endp, 10);
      if (d.length == 0 || *endp != '\0') {
        lctx_buf_append_cstr(error, "registration is not an integer");
        return false;
      }
      out->registration = (int)v;
    }
  }
  return true;
}

uint32_t lctx_spec_features_mask(const lctx_features *features) {
  uint32_t has = 0;
  for (unsigned i = 0; i < LCTX_PLACEHOLDER_COUNT; i++)
    has |= (uint32_t)features->has[i] << i;
  return has;
}

/* Compares `actual`'s text with the compiled `allowed->text` in place: 1
 * equal, 0 not, -1 when the rendered text would not fit an outcome (the
 * caller renders it then, to compare the cut text the same way). */
static int text_equals(const lctx_spec_outcome *allowed,
                       const lctx_features *features,
                       const lctx_outcome *actual) {
  size_t pos = 0;
  bool equal = true;
  for (size_t i = 0; i < allowed->part_count; i++) {
    const lctx_spec_part *part = &allowed->parts[i];
    const char *bytes = allowed->text + part->offset;
    size_t n = part->length;
    if (part->placeholder >= 0) {
      bytes = features->text[part->placeholder].data;
      n = features->text[part->placeholder].length;
    }
    if (n >= sizeof actual->text - pos)
      return -1;
    if (equal && (pos + n > actual->length ||
                  (n > 0 && memcmp(actual->text + pos, bytes, n) != 0)))
      equal = false;
    pos += n;
  }
  return equal && pos == actual->length && !actual->truncated;
}

int lctx_spec_allows(const lctx_spec_outcome *allowed,
                     const lctx_features *features, uint32_t has,
                     const lctx_outcome *actual, bool strict) {
  if (allowed->uses & ~has)
    return -1;
  if (allowed->kind == LCTX_OUTCOME_NONE)
    return actual->kind == LCTX_OUTCOME_NONE;
  if (allowed->kind == LCTX_OUTCOME_RAISE && !strict)
    return actual->kind == LCTX_OUTCOME_RAISE &&
           actual->error == allowed->error;
  if (allowed->kind != LCTX_OUTCOME_CLIENT &&
      allowed->part_count <= LCTX_SPEC_MAX_PARTS) {
    if (actual->kind != allowed->kind || (allowed->kind == LCTX_OUTCOME_RAISE &&
                                          actual->error != allowed->error))
      return 0;
    int equal = text_equals(allowed, features, actual);
    if (equal >= 0)
      return equal;
  }
  lctx_outcome rendered;
  char why[256];
  lctx_buf wb;
  lctx_buf_init(&wb, why, sizeof why);
  if (!lctx_spec_render(allowed, features, &rendered, &wb))
    return -1;
  return lctx_outcome_equal(&rendered, actual);
}

const lctx_spec_row *lctx_spec_find(const lctx_spec *spec, const char *id) {
  for (size_t i = 0; i < spec->row_count; i++) {
    if (strcmp(spec->rows[i].id, id) == 0)
      return &spec->rows[i];
  }
  return NULL;
}

//===----------------------------------------------------------------------===//
// Releases
//===----------------------------------------------------------------------===//

int lctx_spec_release_index(const lctx_spec *spec, const char *name) {
  if (!name || strcmp(name, LCTX_SPEC_MODELLED) == 0)
    return (int)spec->release_count;
  for (size_t i = 0; i < spec->release_count; i++) {
    if (strcmp(spec->releases[i], name) == 0)
      return (int)i;
  }
  return -1;
}

const char *lctx_spec_release_name(const lctx_spec *spec, size_t index) {
  return index < spec->release_count ? spec->releases[index]
                                     : LCTX_SPEC_MODELLED;
}

void lctx_spec_format_releases(const lctx_spec *spec, lctx_buf *out) {
  for (size_t i = 0; i < spec->release_count; i++) {
    lctx_buf_append_cstr(out, spec->releases[i]);
    lctx_buf_append_cstr(out, ", ");
  }
  lctx_buf_append_cstr(out, LCTX_SPEC_MODELLED);
}

/* Of the states `first` .. `first + count` (the current one, then `was`
 * lines in descending release order), the one that holds at `release`:
 * the `was` line with the smallest boundary after `release`, else the
 * current one. */
static const lctx_spec_was *state_at(const lctx_spec *spec, size_t first,
                                     size_t count, size_t release) {
  for (size_t k = count; k-- > 1;) {
    const lctx_spec_was *w = &spec->was[first + k];
    if (w->boundary > (int)release)
      return w;
  }
  return &spec->was[first];
}

const lctx_spec_was *lctx_spec_row_at(const lctx_spec *spec, size_t row,
                                      size_t release) {
  const lctx_spec_row *r = &spec->rows[row];
  if (r->was_count == 0)
    return NULL;
  return state_at(spec, r->first_was, r->was_count, release);
}

const lctx_spec_outcome *lctx_spec_outcomes_at(const lctx_spec *spec,
                                               size_t row, size_t release,
                                               size_t *count, bool *absent) {
  const lctx_spec_was *w = lctx_spec_row_at(spec, row, release);
  if (!w) {
    *count = spec->rows[row].outcome_count;
    *absent = false;
    return spec->rows[row].outcomes;
  }
  *count = w->absent ? 0 : w->outcome_count;
  *absent = w->absent;
  return &spec->was_outcomes[w->first_outcome];
}

const lctx_spec_was *lctx_spec_fact_at(const lctx_spec *spec, lctx_fact f,
                                       size_t release) {
  const lctx_spec_fact *fact = &spec->fact[f];
  if (!fact->stated)
    return NULL;
  const lctx_spec_was *w =
      state_at(spec, fact->first_was, fact->was_count, release);
  return w == &spec->was[fact->first_was] ? NULL : w;
}

void lctx_spec_facts_at(const lctx_spec *spec, size_t release,
                        lctx_facts *out) {
  *out = *lctx_classify_modelled_facts();
  for (int f = 0; f < LCTX_FACT_COUNT; f++) {
    const lctx_spec_fact *fact = &spec->fact[f];
    if (!fact->stated)
      continue;
    const lctx_spec_was *w =
        state_at(spec, fact->first_was, fact->was_count, release);
    out->count[f] = w->name_count;
    memcpy(out->names[f], w->names, sizeof out->names[f]);
  }
}

const lctx_facts *lctx_spec_facts(const lctx_spec *spec) {
  return &spec->facts;
}

bool lctx_spec_select(lctx_spec *spec, const char *name, lctx_buf *error) {
  int index = lctx_spec_release_index(spec, name);
  if (index < 0) {
    lctx_buf_append_cstr(error, "unknown JAX release '");
    lctx_buf_append_cstr(error, name);
    lctx_buf_append_cstr(error, "' (the table knows: ");
    lctx_spec_format_releases(spec, error);
    lctx_buf_append_char(error, ')');
    return false;
  }
  spec->selected = (size_t)index;
  snprintf(spec->selected_name, sizeof spec->selected_name, "%s",
           lctx_spec_release_name(spec, (size_t)index));
  lctx_spec_facts_at(spec, (size_t)index, &spec->facts);
  for (size_t i = 0; i < spec->row_count; i++) {
    lctx_spec_row *row = &spec->rows[i];
    const lctx_spec_was *w = lctx_spec_row_at(spec, i, (size_t)index);
    row->absent = w && w->absent;
    if (!w)
      continue;
    row->outcome_count = row->absent ? 0 : w->outcome_count;
    for (size_t k = 0; k < row->outcome_count; k++)
      row->outcomes[k] = spec->was_outcomes[w->first_outcome + k];
  }
  return true;
}
