/*
 * case_text.c - the `.case` text form's parser (see case_text.h and
 * conformance/cases/README.md).
 *
 * Owns the directive grammar: the header, factories, configuration, rules,
 * operations and expectations, their order and their limits, over the lexer
 * of case_text_lex.c (case_text_private.h); the printer is
 * case_text_print.c. Must never read past `length`, allocate, print or
 * exit: it runs on fuzzed input.
 */
#include "case_ops.h"
#include "case_text_private.h"

#include <limits.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Directives
//===----------------------------------------------------------------------===//

static bool parse_header(case_text_parser *p, const char *start) {
  if (p->header_line) {
    lctx_buf *e = case_text_error_at(p, start);
    lctx_buf_append_cstr(e, "duplicate `lctx-case` header (first on line ");
    lctx_buf_append_int(e, p->header_line);
    lctx_buf_append_char(e, ')');
    return false;
  }
  lctx_str w;
  const char *at;
  if (!case_text_read_word(p, "a format version", &w, &at))
    return false;
  long long version;
  if (!case_text_word_integer(w, &version) ||
      version != LCTX_CASE_TEXT_VERSION) {
    lctx_buf *e = case_text_error_at(p, at);
    lctx_buf_append_cstr(e, "unsupported format version ");
    case_text_describe(p, at, e);
    lctx_buf_append_cstr(e, " (this reader knows version 1)");
    return false;
  }
  p->header_line = p->line;
  return case_text_end_directive(p);
}

/// Configuration directives must come before the first operation.
static bool check_config_position(case_text_parser *p, const char *start,
                                  lctx_str d) {
  if (!p->first_op_line)
    return true;
  lctx_buf *e = case_text_error_at(p, start);
  lctx_buf_append_char(e, '`');
  lctx_buf_append_str(e, d);
  lctx_buf_append_cstr(e, "` after an `op` (configuration comes before the "
                          "operations; first `op` on line ");
  lctx_buf_append_int(e, p->first_op_line);
  lctx_buf_append_char(e, ')');
  return false;
}

static bool check_once(case_text_parser *p, const char *start, lctx_str d,
                       long *line) {
  if (*line) {
    lctx_buf *e = case_text_error_at(p, start);
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

static bool parse_factory(case_text_parser *p, const char *start) {
  lctx_case *c = p->out;
  if (c->factory_count >= LCTX_MAX_FACTORIES)
    return case_text_fail_too_many(p, start, "factories", LCTX_MAX_FACTORIES);
  lctx_case_factory *f = &c->factories[c->factory_count];
  memset(f, 0, sizeof *f);
  if (!case_text_read_string(p, "a factory name string") ||
      !case_text_take_name(p, "factory name", LCTX_MAX_NAME, f->name))
    return false;
  for (size_t j = 0; j < c->factory_count; j++) {
    if (strcmp(c->factories[j].name, f->name) == 0) {
      lctx_buf *e = case_text_error_at(p, p->string_start);
      lctx_buf_append_cstr(e, "duplicate factory name ");
      lctx_case_print_string(e, f->name, strlen(f->name));
      lctx_buf_append_cstr(e, " (first on line ");
      lctx_buf_append_int(e, p->factory_line[j]);
      lctx_buf_append_cstr(e, "; a case file declares each factory once)");
      return false;
    }
  }
  long long priority;
  if (!case_text_read_key(p, "priority", "`priority=INT`") ||
      !case_text_read_integer(p, "priority", INT_MIN, INT_MAX, &priority))
    return false;
  f->priority = (int)priority;
  bool quiet;
  if (!case_text_read_choice(p, "loud", "quiet", "`loud` or `quiet`", &quiet))
    return false;
  f->fail_quietly = quiet;
  lctx_str w;
  const char *at;
  if (!case_text_read_word(p, "a behaviour", &w, &at))
    return false;
  if (!lctx_factory_behaviour_from_name(w, &f->behaviour)) {
    return case_text_fail_unknown(p, at, "behaviour",
                                  "client, raises, none or no_devices");
  }
  if (f->behaviour == LCTX_FACTORY_RAISES &&
      (!case_text_read_string(p, "the raise message string") ||
       !case_text_take_name(p, "factory message", LCTX_MAX_MESSAGE,
                            f->message)))
    return false;
  if (!case_text_end_directive(p))
    return false;
  p->factory_line[c->factory_count++] = p->line;
  return true;
}

static bool parse_config_string(case_text_parser *p, const char *start,
                                lctx_str d, long *line, char *dst, size_t max) {
  if (!check_config_position(p, start, d) || !check_once(p, start, d, line))
    return false;
  char field[40] = "";
  lctx_buf fb;
  lctx_buf_init(&fb, field, sizeof field);
  lctx_buf_append_str(&fb, d);
  lctx_buf_append_cstr(&fb, " value");
  return case_text_read_string(p, "a string") &&
         case_text_take_name(p, field, max, dst) && case_text_end_directive(p);
}

/// Reads one action of a `rule` directive.
static bool parse_action(case_text_parser *p, lctx_case_action *a) {
  lctx_str w;
  const char *at;
  if (!case_text_read_word(p, "an action", &w, &at))
    return false;
  if (!lctx_action_kind_from_name(w, &a->kind)) {
    return case_text_fail_unknown(
        p, at, "action",
        "marker, get_backend, "
        "guarded_get_backend, try_fallback_get_backend, "
        "read_client_platform, raise_if_multi or "
        "lower_fun");
  }
  switch (a->kind) {
  case LCTX_ACTION_GET_BACKEND:
  case LCTX_ACTION_GUARDED_GET_BACKEND: {
    bool optional;
    if (!case_text_read_flag(p, "optional", &optional))
      return false;
    a->optional = optional;
    break;
  }
  case LCTX_ACTION_TRY_FALLBACK_GET_BACKEND:
  case LCTX_ACTION_READ_CLIENT_PLATFORM:
  case LCTX_ACTION_EMIT_MARKER:
    break;
  case LCTX_ACTION_RAISE_IF_MULTI:
    return case_text_read_string(p, "the message string") &&
           case_text_take_name(p, "raise_if_multi message", LCTX_MAX_NAME,
                               a->text);
  case LCTX_ACTION_LOWER_FUN:
    if (!case_text_read_string(p, "a primitive name string") ||
        !case_text_take_name(p, "lower_fun primitive", LCTX_MAX_NAME, a->text))
      return false;
    if (case_text_at_word(p, "compute_type")) {
      a->has_compute_type = true;
      return case_text_read_key(p, "compute_type", "`compute_type=\"...\"`") &&
             case_text_read_string(p, "a compute type string") &&
             case_text_take_name(p, "compute type", LCTX_MAX_NAME,
                                 a->compute_type);
    }
    break;
  }
  return true;
}

/// `rule NAME [action ("," action)*]`: declares a lowering rule.
static bool parse_rule(case_text_parser *p, const char *start, lctx_str d) {
  lctx_case *c = p->out;
  if (!check_config_position(p, start, d))
    return false;
  if (c->rule_count >= LCTX_CASE_MAX_RULES)
    return case_text_fail_too_many(p, start, "rules", LCTX_CASE_MAX_RULES);
  lctx_case_rule *r = &c->rules[c->rule_count];
  memset(r, 0, sizeof *r);
  if (!case_text_read_string(p, "a rule name string") ||
      !case_text_take_name(p, "rule name", LCTX_MAX_NAME, r->name))
    return false;
  if (r->name[0] == '\0')
    return case_text_fail(p, p->string_start,
                          "empty rule name (a rule needs a name)");
  for (size_t j = 0; j < c->rule_count; j++) {
    if (strcmp(c->rules[j].name, r->name) == 0) {
      lctx_buf *e = case_text_error_at(p, p->string_start);
      lctx_buf_append_cstr(e, "duplicate rule name ");
      lctx_case_print_string(e, r->name, strlen(r->name));
      lctx_buf_append_cstr(e, " (first on line ");
      lctx_buf_append_int(e, p->rule_line[j]);
      lctx_buf_append_char(e, ')');
      return false;
    }
  }
  case_text_skip_space(p);
  while (p->cur < p->line_end) {
    if (r->action_count >= LCTX_CASE_MAX_ACTIONS)
      return case_text_fail_too_many(p, p->cur, "actions in one rule",
                                     LCTX_CASE_MAX_ACTIONS);
    if (!parse_action(p, &r->actions[r->action_count]))
      return false;
    r->action_count++;
    case_text_skip_space(p);
    if (p->cur >= p->line_end)
      break;
    if (!case_text_read_punct(p, ',', "`,` or end of line"))
      return false;
    case_text_skip_space(p);
    if (p->cur >= p->line_end)
      return case_text_fail_expected(p, "an action");
  }
  p->rule_line[c->rule_count++] = p->line;
  return case_text_check_valid(p, start, "rule");
}

/// Reads the value of field `f` of `op`, after its `key=` if it has one.
static bool parse_field(case_text_parser *p, lctx_case_op *op,
                        const lctx_op_field *f) {
  if (f->key && f->kind != LCTX_OP_FIELD_FLAG &&
      !case_text_read_key(p, f->key, f->key_what))
    return false;
  switch (f->kind) {
  case LCTX_OP_FIELD_NAME:
    if (f->has != LCTX_OP_NO_MEMBER)
      *lctx_op_has(op, f) = true;
    return case_text_read_string(p, f->string_what) &&
           case_text_take_name(p, f->field, LCTX_MAX_NAME, lctx_op_text(op, f));
  case LCTX_OP_FIELD_NAME_OR_NONE:
    return case_text_read_none_or_name(p, f->field, lctx_op_has(op, f),
                                       lctx_op_text(op, f));
  case LCTX_OP_FIELD_RULE:
    if (f->has != LCTX_OP_NO_MEMBER)
      *lctx_op_has(op, f) = true;
    return case_text_read_rule_ref(p, lctx_op_text(op, f));
  case LCTX_OP_FIELD_LIST:
    if (f->has != LCTX_OP_NO_MEMBER)
      *lctx_op_has(op, f) = true;
    return case_text_read_name_list(p, f->field, f->many,
                                    (uint8_t *)lctx_op_text(op, f),
                                    lctx_op_count(op, f));
  case LCTX_OP_FIELD_FLAG: {
    bool value;
    bool ok = case_text_read_flag(p, f->key, &value);
    *(bool *)lctx_op_text(op, f) = ok && value;
    return ok;
  }
  }
  return false;
}

/// Reports optional key `k` of `def` found after key `next - 1`: a second
/// one, or one out of the table's order.
static bool fail_key_order(case_text_parser *p, const lctx_op_def *def,
                           const lctx_op_field *k, bool seen) {
  lctx_buf *e = case_text_error_at(p, p->cur);
  if (seen) {
    lctx_buf_append_cstr(e, "duplicate key `");
    lctx_buf_append_cstr(e, k->key);
    lctx_buf_append_char(e, '`');
    return false;
  }
  lctx_buf_append_char(e, '`');
  lctx_buf_append_cstr(e, k->key);
  lctx_buf_append_cstr(e, "` out of order (the optional keys come in the "
                          "order ");
  bool first = true;
  for (size_t i = 0; i < def->field_count; i++) {
    if (!def->fields[i].optional)
      continue;
    if (!first)
      lctx_buf_append_cstr(e, ", ");
    lctx_buf_append_cstr(e, def->fields[i].key);
    first = false;
  }
  lctx_buf_append_char(e, ')');
  return false;
}

/// Reads the optional keys of an operation, each at most once, in the
/// table's order.
static bool parse_optional_keys(case_text_parser *p, const lctx_op_def *def,
                                lctx_case_op *op) {
  size_t next = 0;
  bool seen[LCTX_OP_MAX_FIELDS] = {false};
  for (;;) {
    case_text_skip_space(p);
    size_t k = def->field_count;
    for (size_t i = 0; i < def->field_count && k == def->field_count; i++) {
      if (def->fields[i].optional && case_text_at_word(p, def->fields[i].key))
        k = i;
    }
    if (k == def->field_count)
      return true; /* the end of the directive, or trailing garbage */
    if (k < next)
      return fail_key_order(p, def, &def->fields[k], seen[k]);
    seen[k] = true;
    next = k + 1;
    if (!parse_field(p, op, &def->fields[k]))
      return false;
  }
}

static bool parse_op(case_text_parser *p, const char *start) {
  lctx_case *c = p->out;
  if (c->op_count >= LCTX_CASE_MAX_OPS)
    return case_text_fail_too_many(p, start, "operations", LCTX_CASE_MAX_OPS);
  lctx_case_op *op = &c->ops[c->op_count];
  memset(op, 0, sizeof *op);
  lctx_str w;
  const char *at;
  if (!case_text_read_word(p, "an operation", &w, &at))
    return false;
  if (!lctx_op_kind_from_name(w, &op->kind)) {
    char expected[256];
    lctx_buf eb;
    lctx_buf_init(&eb, expected, sizeof expected);
    lctx_op_keywords(&eb);
    return case_text_fail_unknown(p, at, "operation", expected);
  }
  const lctx_op_def *def = lctx_op_get(op->kind);
  bool optional = false;
  for (size_t i = 0; i < def->field_count; i++) {
    optional = optional || def->fields[i].optional;
    if (!def->fields[i].optional && !parse_field(p, op, &def->fields[i]))
      return false;
  }
  if (optional && !parse_optional_keys(p, def, op))
    return false;
  if (!case_text_end_directive(p))
    return false;
  if (!p->first_op_line)
    p->first_op_line = p->line;
  c->op_count++;
  if (def->lowering)
    return case_text_check_valid(p, start, "op");
  return true;
}

static void set_text_outcome(lctx_outcome *o, lctx_outcome_kind kind,
                             const case_text_parser *p) {
  lctx_buf w = lctx_outcome_begin(o, kind);
  lctx_buf_append(&w, p->string, p->string_length);
  lctx_outcome_end(o, &w);
}

static bool parse_expect(case_text_parser *p, const char *start) {
  lctx_case *c = p->out;
  if (c->op_count == 0)
    return case_text_fail(p, start, "`expect` without a preceding `op`");
  size_t i = c->op_count - 1;
  if (p->expect_line[i]) {
    lctx_buf *e = case_text_error_at(p, start);
    lctx_buf_append_cstr(e, "second `expect` for one `op` (the first is on "
                            "line ");
    lctx_buf_append_int(e, p->expect_line[i]);
    lctx_buf_append_char(e, ')');
    return false;
  }
  lctx_outcome *o = &p->scratch;
  lctx_str w;
  const char *at;
  if (!case_text_read_word(p, "an outcome", &w, &at))
    return false;
  if (lctx_str_equal_cstr(w, "None")) {
    lctx_outcome_set_none(o);
  } else if (lctx_str_equal_cstr(w, "string") ||
             lctx_str_equal_cstr(w, "platforms")) {
    if (!case_text_read_string(p, "a string") || !case_text_take_text(p))
      return false;
    set_text_outcome(
        o, w.data[0] == 's' ? LCTX_OUTCOME_STRING : LCTX_OUTCOME_PLATFORMS, p);
  } else if (lctx_str_equal_cstr(w, "client")) {
    bool pinned;
    long long registration = -1;
    if (!case_text_read_choice(p, "registry", "pinned",
                               "`registry` or `pinned`", &pinned))
      return false;
    if (!pinned && !case_text_read_integer(p, "registration index", 0, INT_MAX,
                                           &registration))
      return false;
    if (!case_text_read_string(p, "the client's platform string") ||
        !case_text_take_text(p))
      return false;
    lctx_outcome_set_client(
        o, pinned ? LCTX_CLIENT_PINNED : LCTX_CLIENT_REGISTRY,
        (int)registration, lctx_str_make(p->string, p->string_length));
  } else if (lctx_str_equal_cstr(w, "raise")) {
    lctx_error_class error;
    if (!case_text_read_word(p, "an error class", &w, &at))
      return false;
    if (!lctx_error_class_from_name(w, &error)) {
      return case_text_fail_unknown(p, at, "error class",
                                    "RuntimeError, ValueError, "
                                    "NotImplementedError, AssertionError or "
                                    "IndexError");
    }
    if (!case_text_read_string(p, "the message string") ||
        !case_text_take_text(p))
      return false;
    lctx_buf m = lctx_outcome_begin_raise(o, error);
    lctx_buf_append(&m, p->string, p->string_length);
    lctx_outcome_end(o, &m);
  } else {
    return case_text_fail_unknown(p, at, "outcome",
                                  "None, string, platforms, client or "
                                  "raise");
  }
  if (!case_text_end_directive(p))
    return false;
  if (p->expect_text + o->length > LCTX_CASE_EXPECT_TEXT_MAX) {
    lctx_buf *e = case_text_error_at(p, p->string_start);
    lctx_buf_append_cstr(e, "this expectation brings the case's expectation "
                            "texts to ");
    lctx_buf_append_int(e, (long long)(p->expect_text + o->length));
    lctx_buf_append_cstr(e, " bytes together, more than the ");
    lctx_buf_append_int(e, LCTX_CASE_EXPECT_TEXT_MAX);
    lctx_buf_append_cstr(e, " a case holds");
    return false;
  }
  p->expect_text += o->length;
  if (p->expect)
    (void)lctx_case_expect_set(p->expect, i, o); /* fits: counted above */
  p->expect_line[i] = p->line;
  return true;
}

static bool parse_line(case_text_parser *p) {
  case_text_skip_space(p);
  if (p->cur >= p->line_end)
    return true;
  const char *start = p->cur;
  if (!case_text_is_word_char(*start))
    return case_text_fail_expected(p, "a directive");
  lctx_str d;
  if (!case_text_read_word(p, "a directive", &d, NULL))
    return false;
  if (!p->header_line && !lctx_str_equal_cstr(d, "lctx-case")) {
    lctx_buf *e = case_text_error_at(p, start);
    lctx_buf_append_cstr(e, "missing header: the first directive must be "
                            "`lctx-case 1`, found ");
    case_text_describe(p, start, e);
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
        !case_text_read_choice(p, "hidden", "visible", "`visible` or `hidden`",
                               &visible))
      return false;
    c->nvidia_gpu_visible = visible;
    return case_text_end_directive(p);
  }
  if (lctx_str_equal_cstr(d, "rule"))
    return parse_rule(p, start, d);
  if (lctx_str_equal_cstr(d, "op"))
    return parse_op(p, start);
  if (lctx_str_equal_cstr(d, "expect"))
    return parse_expect(p, start);
  return case_text_fail_unknown(p, start, "directive", NULL);
}

bool lctx_case_parse(const char *text, size_t length, const char *filename,
                     lctx_case *out, lctx_case_expect *expect,
                     lctx_buf *error) {
  static const char empty[1] = "";
  if (text == NULL)
    text = empty, length = 0;
  case_text_parser p;
  memset(&p, 0, sizeof p);
  p.filename = filename;
  p.error = error;
  p.out = out;
  p.expect = expect;
  lctx_case_init(out);
  if (expect)
    lctx_case_expect_init(expect);
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
    return case_text_fail(
        &p, end,
        "missing header: expected `lctx-case 1` before the end of "
        "the input");
  }
  return true;
}
