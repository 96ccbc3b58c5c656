/*
 * case_text_print.c - the canonical printer of the `.case` text form (see
 * case_text_print.h and conformance/cases/README.md).
 *
 * Owns printing a case as canonical text: the directives in their order,
 * string literals with their escapes, and every field bounded by its
 * capacity (a case that is not valid still prints, within
 * LCTX_CASE_TEXT_MAX). Never allocates, prints or exits.
 */
#include "case_text_print.h"
#include "case_ops.h"

#include <string.h>

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

static void print_expect(lctx_buf *out, const lctx_case_expect *e, size_t i) {
  const lctx_outcome_head *o = &e->op[i];
  size_t n = (size_t)o->offset + o->length <= e->used ? o->length : 0;
  const char *text = e->text + o->offset;
  lctx_buf_append_cstr(out, "expect ");
  switch (o->kind) {
  case LCTX_OUTCOME_NONE:
    lctx_buf_append_cstr(out, "None");
    break;
  case LCTX_OUTCOME_STRING:
    lctx_buf_append_cstr(out, "string ");
    lctx_case_print_string(out, text, n);
    break;
  case LCTX_OUTCOME_PLATFORMS:
    lctx_buf_append_cstr(out, "platforms ");
    lctx_case_print_string(out, text, n);
    break;
  case LCTX_OUTCOME_CLIENT:
    if (o->origin == LCTX_CLIENT_PINNED) {
      lctx_buf_append_cstr(out, "client pinned ");
    } else {
      lctx_buf_append_cstr(out, "client registry ");
      lctx_buf_append_int(out, o->registration);
      lctx_buf_append_char(out, ' ');
    }
    lctx_case_print_string(out, text, n);
    break;
  case LCTX_OUTCOME_RAISE:
    lctx_buf_append_cstr(out, "raise ");
    lctx_buf_append_cstr(out, lctx_error_class_name(o->error));
    lctx_buf_append_char(out, ' ');
    lctx_case_print_string(out, text, n);
    break;
  }
  lctx_buf_append_char(out, '\n');
}

/// Prints `[...]`: `count` names (at most LCTX_MAX_MODULE_PLATFORMS).
static void print_list(lctx_buf *out, const lctx_case *c, const uint8_t *list,
                       size_t count) {
  if (count > LCTX_MAX_MODULE_PLATFORMS)
    count = LCTX_MAX_MODULE_PLATFORMS;
  lctx_buf_append_char(out, '[');
  for (size_t i = 0; i < count; i++) {
    if (i > 0)
      lctx_buf_append_cstr(out, ", ");
    print_field(out, lctx_case_name(c, list[i]), LCTX_MAX_NAME + 1);
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

static void print_op(lctx_buf *out, const lctx_case *c,
                     const lctx_case_op *op) {
  lctx_buf_append_cstr(out, "op ");
  lctx_buf_append_cstr(out, lctx_op_kind_name(op->kind));
  const lctx_op_def *def = lctx_op_get(op->kind);
  for (size_t i = 0; def && i < def->field_count; i++) {
    const lctx_op_field *f = &def->fields[i];
    if (f->optional && !lctx_op_present(op, f))
      continue;
    lctx_buf_append_char(out, ' ');
    if (f->key && f->kind != LCTX_OP_FIELD_FLAG) {
      lctx_buf_append_cstr(out, f->key);
      lctx_buf_append_char(out, '=');
    }
    const char *text = lctx_op_ctext(op, f);
    switch (f->kind) {
    case LCTX_OP_FIELD_NAME:
    case LCTX_OP_FIELD_RULE:
      print_field(out, text, LCTX_MAX_NAME + 1);
      break;
    case LCTX_OP_FIELD_NAME_OR_NONE:
      print_none_or(out, lctx_op_chas(op, f), text, LCTX_MAX_NAME + 1);
      break;
    case LCTX_OP_FIELD_LIST:
      print_list(out, c, (const uint8_t *)text, lctx_op_ccount(op, f));
      break;
    case LCTX_OP_FIELD_FLAG:
      lctx_buf_append_cstr(out, f->key);
      lctx_buf_append_cstr(out, *(const bool *)text ? "=true" : "=false");
      break;
    }
  }
  lctx_buf_append_char(out, '\n');
}

void lctx_case_print(const lctx_case *c, const lctx_case_expect *expect,
                     lctx_buf *out) {
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
    print_op(out, c, &c->ops[i]);
    if (expect && lctx_case_expect_has(expect, i))
      print_expect(out, expect, i);
  }
}
