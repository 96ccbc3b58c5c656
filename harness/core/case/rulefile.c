/*
 * rulefile.c - the rule-file parser and registry builder (see rulefile.h).
 */
#include "rulefile.h"

#include "file.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 16
#define LINE_STRINGS 2048

typedef struct token {
  int col;
  bool is_string;
  /// A bare word: a view into the text. A string: a view into the line's
  /// unescaped string storage.
  lctx_str text;
} token;

typedef struct parser {
  const char *path;
  lctx_buf *error;
  lctx_rulefile *file;
  int line;
  size_t token_count;
  token tokens[MAX_TOKENS];
  char strings[LINE_STRINGS];
  size_t strings_used;
  /// Where each header line was first seen (0 when not yet).
  int version_line, primitive_line, primitive_col, expect_line, expect_col;
  /// The rule that indented actions append to, or -1.
  int current_rule;
  /// The primitive later rules belong to.
  int current_primitive;
  /// Positions of LOWER_FUN names, checked once every primitive is known.
  size_t pending_count;
  struct {
    int line, col, rule;
    size_t action;
    lctx_str name;
  } pending[LCTX_LOWERING_MAX_RULES * LCTX_LOWERING_MAX_ACTIONS];
} parser;

static bool fail(parser *p, int line, int col, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static bool fail(parser *p, int line, int col, const char *format, ...) {
  char message[512];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  char head[64];
  snprintf(head, sizeof head, ":%d:%d: ", line, col);
  lctx_buf_append_cstr(p->error, p->path);
  lctx_buf_append_cstr(p->error, head);
  lctx_buf_append_cstr(p->error, message);
  return false;
}

/* Writes a view as a NUL-terminated, printable excerpt for messages. */
static const char *shown(lctx_str s, char *storage, size_t size) {
  size_t n = 0;
  for (size_t i = 0; i < s.length && n + 5 < size; i++) {
    unsigned char c = (unsigned char)s.data[i];
    if (c < 0x20 || c == 0x7f)
      n += (size_t)snprintf(storage + n, size - n, "\\x%02x", c);
    else
      storage[n++] = (char)c;
  }
  storage[n] = '\0';
  return storage;
}

static bool intern(parser *p, const token *t, lctx_str *out) {
  lctx_rulefile *f = p->file;
  if (t->text.length > sizeof f->pool - f->pool_used)
    return fail(p, p->line, t->col,
                "rule file too large: more than %d bytes of names and "
                "messages",
                LCTX_RULEFILE_POOL);
  char *dst = f->pool + f->pool_used;
  if (t->text.length)
    memcpy(dst, t->text.data, t->text.length);
  f->pool_used += t->text.length;
  *out = lctx_str_make(dst, t->text.length);
  return true;
}

/* Splits one line into tokens. Returns false after reporting an error. */
static bool tokenize(parser *p, const char *line, size_t length) {
  p->token_count = 0;
  p->strings_used = 0;
  size_t i = 0;
  while (i < length) {
    unsigned char c = (unsigned char)line[i];
    int col = (int)i + 1;
    if (c == ' ' || c == '\t' || (c == '\r' && i + 1 == length)) {
      i++;
      continue;
    }
    if (c == '#')
      break;
    if (c < 0x20 || c == 0x7f)
      return fail(p, p->line, col, "control character 0x%02x", c);
    if (p->token_count == MAX_TOKENS)
      return fail(p, p->line, col, "too many words on one line (most %d)",
                  MAX_TOKENS);
    token *t = &p->tokens[p->token_count];
    t->col = col;
    if (c == '"') {
      t->is_string = true;
      char *dst = p->strings + p->strings_used;
      size_t n = 0;
      i++;
      for (;;) {
        if (i >= length || line[i] == '\r')
          return fail(p, p->line, col, "unterminated string");
        unsigned char d = (unsigned char)line[i];
        if (d == '"') {
          i++;
          break;
        }
        if (d < 0x20 || d == 0x7f)
          return fail(p, p->line, (int)i + 1, "control character 0x%02x", d);
        if (d == '\\') {
          if (i + 1 >= length)
            return fail(p, p->line, col, "unterminated string");
          char e = line[i + 1];
          char v = e == '"'    ? '"'
                   : e == '\\' ? '\\'
                   : e == 'n'  ? '\n'
                   : e == 't'  ? '\t'
                               : 0;
          if (!v) {
            char s[16];
            return fail(p, p->line, (int)i + 1,
                        "unknown escape '\\%s' (use \\\" \\\\ \\n or \\t)",
                        shown(lctx_str_make(&line[i + 1], 1), s, sizeof s));
          }
          d = (unsigned char)v;
          i += 2;
        } else {
          i++;
        }
        if (p->strings_used + n + 1 >= sizeof p->strings)
          return fail(p, p->line, col, "string too long");
        dst[n++] = (char)d;
      }
      t->text = lctx_str_make(dst, n);
      p->strings_used += n;
    } else {
      t->is_string = false;
      size_t start = i;
      while (i < length) {
        unsigned char d = (unsigned char)line[i];
        if (d == ' ' || d == '\t' || d == '#' || d == '"' || d == '\r')
          break;
        if (d < 0x20 || d == 0x7f)
          return fail(p, p->line, (int)i + 1, "control character 0x%02x", d);
        i++;
      }
      t->text = lctx_str_make(line + start, i - start);
    }
    p->token_count++;
  }
  return true;
}

static bool word_is(const token *t, const char *w) {
  return !t->is_string && lctx_str_equal_cstr(t->text, w);
}

/* Requires exactly `n` tokens on the line; reports the first extra one. */
static bool no_more(parser *p, size_t n) {
  if (p->token_count > n) {
    char s[128];
    const token *t = &p->tokens[n];
    return fail(p, p->line, t->col, "unexpected %s'%s'",
                t->is_string ? "string " : "", shown(t->text, s, sizeof s));
  }
  return true;
}

/* Requires a quoted string at token `i` (the argument of `what`). */
static bool need_string(parser *p, size_t i, const char *what, int end_col) {
  if (i >= p->token_count)
    return fail(p, p->line, end_col, "missing quoted %s", what);
  if (!p->tokens[i].is_string) {
    char s[128];
    return fail(p, p->line, p->tokens[i].col,
                "expected a quoted string, got '%s'",
                shown(p->tokens[i].text, s, sizeof s));
  }
  return true;
}

/* The column just past the last token (for "missing argument" errors). */
static int end_col(const parser *p, const char *line) {
  const token *t = &p->tokens[p->token_count - 1];
  int col = t->col + (int)t->text.length;
  if (t->is_string) {
    /* The raw width: find the closing quote after the opening one. */
    const char *s = line + t->col; /* just after the opening quote */
    while (*s != '"')
      s += *s == '\\' ? 2 : 1;
    col = (int)(s - line) + 2;
  }
  return col;
}

static const char *const DIRECTIVES[] = {
    "rule-file", "primitive", "source", "expect", "rule", "subprimitive"};
static const char *const ACTIONS[] = {
    "get_backend",    "guarded_get_backend",  "try_fallback_get_backend",
    "raise_if_multi", "read_client_platform", "lower_fun",
    "marker"};

static bool is_one_of(const token *t, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (word_is(t, list[i]))
      return true;
  return false;
}
#define IS_DIRECTIVE(t)                                                        \
  is_one_of((t), DIRECTIVES, sizeof DIRECTIVES / sizeof DIRECTIVES[0])
#define IS_ACTION(t) is_one_of((t), ACTIONS, sizeof ACTIONS / sizeof ACTIONS[0])

static int find_primitive(const lctx_rulefile *f, lctx_str name) {
  for (size_t i = 0; i < f->primitive_count; i++)
    if (lctx_str_equal(f->primitives[i], name))
      return (int)i;
  return -1;
}

static bool parse_optional(parser *p, size_t i, bool *optional) {
  *optional = false;
  if (i >= p->token_count)
    return true;
  const token *t = &p->tokens[i];
  if (word_is(t, "optional=true"))
    *optional = true;
  else if (!word_is(t, "optional=false")) {
    char s[128];
    return fail(p, p->line, t->col,
                "expected optional=true or optional=false, got '%s'",
                shown(t->text, s, sizeof s));
  }
  return no_more(p, i + 1);
}

/* Reads the .case spellings of one action's arguments (tokens [0, n)) as
 * this format's, in place: `compute_type="T"` and `compute_type = "T"` as
 * `compute_type "T"`, whose older spelling is recorded in the file for a
 * note; `optional = B` as `optional=B`. Returns the new token count. */
static size_t read_case_spellings(parser *p, size_t n) {
  token *t = p->tokens;
  size_t out = 0;
  for (size_t i = 0; i < n; i++) {
    bool eq_next = i + 1 < n && word_is(&t[i + 1], "=");
    if (word_is(&t[i], "compute_type=") ||
        (word_is(&t[i], "compute_type") && eq_next)) {
      t[out] = t[i];
      t[out++].text = lctx_str_from_cstr("compute_type");
      i += eq_next;
      continue;
    }
    if (word_is(&t[i], "compute_type") && !p->file->old_spelling_line) {
      p->file->old_spelling_line = p->line;
      p->file->old_spelling_col = t[i].col;
    }
    if (word_is(&t[i], "optional") && eq_next && i + 2 < n &&
        (word_is(&t[i + 2], "true") || word_is(&t[i + 2], "false"))) {
      t[out] = t[i];
      t[out++].text = lctx_str_from_cstr(
          word_is(&t[i + 2], "true") ? "optional=true" : "optional=false");
      i += 2;
      continue;
    }
    t[out++] = t[i];
  }
  return out;
}

static bool parse_action(parser *p, const char *line);

/* Parses an indented line: one action, or several separated by commas as
 * in a .case file's rule line (`get_backend optional=false, marker`). */
static bool parse_actions(parser *p, const char *line) {
  token all[MAX_TOKENS];
  size_t count = 0;
  for (size_t i = 0; i < p->token_count; i++) {
    token t = p->tokens[i];
    bool comma = !t.is_string && t.text.length > 0 &&
                 t.text.data[t.text.length - 1] == ',';
    if (comma)
      t.text.length--;
    if (t.is_string || t.text.length > 0)
      all[count++] = t;
    if (comma && count < MAX_TOKENS) {
      all[count] = (token){t.col, false, lctx_str_from_cstr(",")};
      count++;
    }
  }
  for (size_t at = 0; at < count;) {
    size_t n = 0;
    while (at + n < count && !word_is(&all[at + n], ","))
      n++;
    if (n == 0)
      return fail(p, p->line, all[at].col, "an action is missing before ','");
    memcpy(p->tokens, all + at, n * sizeof all[0]);
    p->token_count = read_case_spellings(p, n);
    if (!parse_action(p, line))
      return false;
    at += n + 1;
  }
  return true;
}

static bool parse_action(parser *p, const char *line) {
  lctx_rulefile *f = p->file;
  const token *t = &p->tokens[0];
  char s[128];
  if (!IS_ACTION(t)) {
    if (IS_DIRECTIVE(t))
      return fail(p, p->line, t->col, "directive '%s' must start at column 1",
                  shown(t->text, s, sizeof s));
    return fail(p, p->line, t->col,
                "unknown action '%s' (expected get_backend, "
                "guarded_get_backend, try_fallback_get_backend, "
                "raise_if_multi, read_client_platform, lower_fun or marker)",
                shown(t->text, s, sizeof s));
  }
  if (p->current_rule < 0)
    return fail(p, p->line, t->col, "action '%s' outside a rule",
                shown(t->text, s, sizeof s));
  lctx_rulefile_rule *r = &f->rules[p->current_rule];
  if (r->action_count == LCTX_LOWERING_MAX_ACTIONS)
    return fail(p, p->line, t->col, "rule '%s' has more than %d actions",
                shown(r->name, s, sizeof s), LCTX_LOWERING_MAX_ACTIONS);
  lctx_lowering_action a;
  bool optional;
  if (word_is(t, "get_backend")) {
    if (!parse_optional(p, 1, &optional))
      return false;
    a = lctx_action_get_backend(optional);
  } else if (word_is(t, "guarded_get_backend")) {
    if (!parse_optional(p, 1, &optional))
      return false;
    a = lctx_action_guarded_get_backend(optional);
  } else if (word_is(t, "try_fallback_get_backend")) {
    if (!no_more(p, 1))
      return false;
    a = lctx_action_try_fallback_get_backend();
  } else if (word_is(t, "read_client_platform")) {
    if (!no_more(p, 1))
      return false;
    a = lctx_action_read_client_platform();
  } else if (word_is(t, "marker")) {
    if (!no_more(p, 1))
      return false;
    a = lctx_action_emit_marker();
  } else if (word_is(t, "raise_if_multi")) {
    lctx_str message;
    if (!need_string(p, 1, "message", end_col(p, line)) || !no_more(p, 2) ||
        !intern(p, &p->tokens[1], &message))
      return false;
    a = lctx_action_raise_if_multi(message);
  } else { /* lower_fun */
    lctx_str name;
    if (!need_string(p, 1, "primitive name", end_col(p, line)) ||
        !intern(p, &p->tokens[1], &name))
      return false;
    a = lctx_action_lower_fun(-1);
    if (p->token_count > 2) {
      if (!word_is(&p->tokens[2], "compute_type")) {
        const token *x = &p->tokens[2];
        return fail(p, p->line, x->col, "expected compute_type, got '%s'",
                    shown(x->text, s, sizeof s));
      }
      lctx_str type;
      if (!need_string(p, 3, "compute type", end_col(p, line)) ||
          !no_more(p, 4) || !intern(p, &p->tokens[3], &type))
        return false;
      a = lctx_action_lower_fun_compute(-1, type);
    }
    if (p->pending_count ==
        sizeof p->pending / sizeof p->pending[0]) /* cannot happen */
      return fail(p, p->line, t->col, "too many lower_fun actions");
    p->pending[p->pending_count].line = p->line;
    p->pending[p->pending_count].col = p->tokens[1].col;
    p->pending[p->pending_count].rule = p->current_rule;
    p->pending[p->pending_count].action = r->action_count;
    p->pending[p->pending_count].name = name;
    p->pending_count++;
  }
  r->action_lines[r->action_count] = p->line;
  r->actions[r->action_count++] = a;
  return true;
}

static bool parse_rule(parser *p, const char *line) {
  lctx_rulefile *f = p->file;
  char s[128];
  const token *t0 = &p->tokens[0];
  if (!p->primitive_line)
    return fail(p, p->line, t0->col, "'rule' before 'primitive'");
  if (!need_string(p, 1, "rule name", end_col(p, line)))
    return false;
  if (p->tokens[1].text.length == 0)
    return fail(p, p->line, p->tokens[1].col, "empty rule name");
  for (size_t i = 0; i < f->rule_count; i++)
    if (lctx_str_equal(f->rules[i].name, p->tokens[1].text))
      return fail(p, p->line, p->tokens[1].col,
                  "duplicate rule name '%s' (first on line %d)",
                  shown(p->tokens[1].text, s, sizeof s), f->rules[i].line);
  if (f->rule_count == LCTX_LOWERING_MAX_RULES)
    return fail(p, p->line, t0->col, "more than %d rules",
                LCTX_LOWERING_MAX_RULES);
  lctx_rulefile_rule *r = &f->rules[f->rule_count];
  memset(r, 0, sizeof *r);
  r->primitive = p->current_primitive;
  r->line = p->line;
  size_t i = 2;
  while (i < p->token_count) {
    const token *t = &p->tokens[i];
    if (r->registration_count == LCTX_RULEFILE_MAX_REGISTRATIONS)
      return fail(p, p->line, t->col, "more than %d registrations",
                  LCTX_RULEFILE_MAX_REGISTRATIONS);
    lctx_rulefile_registration *g = &r->registrations[r->registration_count];
    if (word_is(t, "default")) {
      g->is_default = true;
      i++;
    } else if (word_is(t, "platform")) {
      if (i + 1 >= p->token_count)
        return fail(p, p->line, end_col(p, line),
                    "'platform' needs a quoted platform name");
      if (!need_string(p, i + 1, "platform name", 0) ||
          !intern(p, &p->tokens[i + 1], &g->platform))
        return false;
      i += 2;
    } else {
      return fail(p, p->line, t->col,
                  "expected 'default' or 'platform \"P\"', got %s'%s'",
                  t->is_string ? "string " : "", shown(t->text, s, sizeof s));
    }
    r->registration_count++;
  }
  if (r->registration_count == 0)
    return fail(p, p->line, end_col(p, line),
                "rule '%s' needs 'default' or 'platform \"P\"'",
                shown(p->tokens[1].text, s, sizeof s));
  if (!intern(p, &p->tokens[1], &r->name))
    return false;
  p->current_rule = (int)f->rule_count++;
  return true;
}

static bool parse_directive(parser *p, const char *line) {
  lctx_rulefile *f = p->file;
  const token *t = &p->tokens[0];
  char s[128];
  if (!p->version_line) {
    if (!word_is(t, "rule-file"))
      return fail(p, p->line, t->col, "expected 'rule-file %d' first",
                  LCTX_RULEFILE_VERSION);
    if (p->token_count < 2)
      return fail(p, p->line, end_col(p, line), "'rule-file' needs a version");
    const token *v = &p->tokens[1];
    if (!word_is(v, "1"))
      return fail(p, p->line, v->col,
                  "unsupported rule-file version '%s' (expected %d)",
                  shown(v->text, s, sizeof s), LCTX_RULEFILE_VERSION);
    p->version_line = p->line;
    return no_more(p, 2);
  }
  if (word_is(t, "rule-file"))
    return fail(p, p->line, t->col, "duplicate 'rule-file' (first on line %d)",
                p->version_line);
  p->current_rule = -1;
  if (word_is(t, "primitive") || word_is(t, "subprimitive")) {
    bool sub = word_is(t, "subprimitive");
    if (!sub && p->primitive_line)
      return fail(p, p->line, t->col, "duplicate 'primitive' (first at %d:%d)",
                  p->primitive_line, p->primitive_col);
    if (sub && !p->primitive_line)
      return fail(p, p->line, t->col, "'subprimitive' before 'primitive'");
    if (!need_string(p, 1, "primitive name", end_col(p, line)) ||
        !no_more(p, 2))
      return false;
    const token *n = &p->tokens[1];
    if (n->text.length == 0)
      return fail(p, p->line, n->col, "empty primitive name");
    if (find_primitive(f, n->text) >= 0)
      return fail(p, p->line, n->col, "duplicate primitive '%s'",
                  shown(n->text, s, sizeof s));
    if (f->primitive_count == LCTX_LOWERING_MAX_PRIMITIVES)
      return fail(p, p->line, t->col, "more than %d primitives",
                  LCTX_LOWERING_MAX_PRIMITIVES);
    if (!intern(p, n, &f->primitives[f->primitive_count]))
      return false;
    p->current_primitive = (int)f->primitive_count++;
    if (!sub) {
      p->primitive_line = p->line;
      p->primitive_col = t->col;
    }
    return true;
  }
  if (word_is(t, "source")) {
    if (!need_string(p, 1, "source reference", end_col(p, line)) ||
        !no_more(p, 2))
      return false;
    if (f->source_count == LCTX_RULEFILE_MAX_SOURCES)
      return fail(p, p->line, t->col, "more than %d 'source' lines",
                  LCTX_RULEFILE_MAX_SOURCES);
    return intern(p, &p->tokens[1], &f->sources[f->source_count++]);
  }
  if (word_is(t, "expect")) {
    if (p->expect_line)
      return fail(p, p->line, t->col, "duplicate 'expect' (first at %d:%d)",
                  p->expect_line, p->expect_col);
    if (p->token_count < 2)
      return fail(p, p->line, end_col(p, line),
                  "'expect' needs 'safe' or 'unsafe'");
    const token *v = &p->tokens[1];
    if (word_is(v, "safe"))
      f->expect_safe = true;
    else if (word_is(v, "unsafe"))
      f->expect_safe = false;
    else
      return fail(p, p->line, v->col, "expected 'safe' or 'unsafe', got '%s'",
                  shown(v->text, s, sizeof s));
    p->expect_line = p->line;
    p->expect_col = t->col;
    return no_more(p, 2);
  }
  if (word_is(t, "rule"))
    return parse_rule(p, line);
  if (IS_ACTION(t))
    return fail(p, p->line, t->col, "action '%s' must be indented under a rule",
                shown(t->text, s, sizeof s));
  return fail(p, p->line, t->col,
              "unknown directive '%s' (expected primitive, source, expect, "
              "rule or subprimitive)",
              shown(t->text, s, sizeof s));
}

/* Parses every line into `file` with the parser `p` (zeroed). */
static bool parse_lines(parser *p, const char *text, size_t length,
                        const char *path, lctx_rulefile *file,
                        lctx_buf *error) {
  p->path = path;
  p->error = error;
  p->file = file;
  p->current_rule = -1;
  size_t pos = 0;
  int line_no = 0;
  while (pos < length) {
    size_t end = pos;
    while (end < length && text[end] != '\n')
      end++;
    line_no++;
    p->line = line_no;
    const char *line = text + pos;
    size_t n = end - pos;
    for (size_t i = 0; i < n; i++)
      if (line[i] == '\0')
        return fail(p, line_no, (int)i + 1, "control character 0x00");
    if (!tokenize(p, line, n))
      return false;
    if (p->token_count > 0) {
      bool indented = p->tokens[0].col > 1;
      if (indented && p->version_line) {
        if (!parse_actions(p, line))
          return false;
      } else if (!parse_directive(p, line)) {
        return false;
      }
    }
    pos = end < length ? end + 1 : end;
  }
  p->line = line_no + 1;
  if (!p->version_line)
    return fail(p, 1, 1, "empty rule file (expected 'rule-file %d')",
                LCTX_RULEFILE_VERSION);
  if (!p->primitive_line)
    return fail(p, p->line, 1, "missing 'primitive' line");
  file->has_expect = p->expect_line != 0;
  for (size_t i = 0; i < p->pending_count; i++) {
    int id = find_primitive(file, p->pending[i].name);
    if (id < 0) {
      char s[128];
      return fail(p, p->pending[i].line, p->pending[i].col,
                  "lower_fun names undeclared primitive '%s' (declare it "
                  "with 'subprimitive')",
                  shown(p->pending[i].name, s, sizeof s));
    }
    file->rules[p->pending[i].rule].actions[p->pending[i].action].primitive =
        id;
  }
  return true;
}

bool lctx_rulefile_parse(const char *text, size_t length, const char *path,
                         lctx_rulefile *file, lctx_buf *error) {
  memset(file, 0, sizeof *file);
  parser *p = calloc(1, sizeof *p); /* large for the stack */
  if (!p) {
    lctx_buf_append_cstr(error, path);
    lctx_buf_append_cstr(error, ": out of memory");
    return false;
  }
  bool ok = parse_lines(p, text, length, path, file, error);
  free(p);
  return ok;
}

static bool parse_file(const char *text, size_t length, const char *path,
                       void *file, lctx_buf *error) {
  return lctx_rulefile_parse(text, length, path, file, error);
}

bool lctx_rulefile_load(const char *path, lctx_rulefile *file,
                        lctx_buf *error) {
  return lctx_file_parse(path, LCTX_RULEFILE_MAX_BYTES, parse_file, file,
                         error);
}

bool lctx_rulefile_build(const lctx_rulefile *file,
                         const lctx_registry_config *config,
                         lctx_lowering_registry *registry,
                         lctx_outcome *raised) {
  lctx_lowering_registry_init(registry, config);
  lctx_outcome_set_none(raised);
  for (size_t i = 0; i < file->primitive_count; i++)
    if (lctx_lowering_primitive_add(registry, file->primitives[i]) != (int)i)
      return false; /* cannot happen: the parser bounds the count */
  for (size_t i = 0; i < file->rule_count; i++) {
    const lctx_rulefile_rule *r = &file->rules[i];
    int id =
        lctx_lowering_rule_add(registry, r->name, r->actions, r->action_count);
    if (id < 0)
      return false;
    for (size_t g = 0; g < r->registration_count; g++) {
      const lctx_rulefile_registration *reg = &r->registrations[g];
      if (!lctx_lowering_register(registry, r->primitive, id,
                                  reg->is_default ? NULL : &reg->platform,
                                  raised))
        return false;
    }
  }
  return true;
}
