/*
 * case_json.c - writing the JSON form of cases and outcomes (see
 * case_json.h); reading it is case_json_read.c's.
 *
 * Owns the mapping between lctx_case / lctx_outcome and jansson values and
 * the path-naming error messages of the reader. Allocates only through
 * jansson, for the values it returns; never prints or exits.
 */
#include "case_json.h"
#include "case_ops.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

/// Sets `key` to `value` (stolen); false if either failed.
static bool set(json_t *object, const char *key, json_t *value) {
  return value && json_object_set_new(object, key, value) == 0;
}

/// A JSON string of an ASCII name field of capacity `cap`, or NULL.
static json_t *name_json(const char *s, size_t cap) {
  size_t n = strnlen(s, cap);
  for (size_t i = 0; i < n; i++) {
    if ((unsigned char)s[i] >= 0x80)
      return NULL;
  }
  return json_stringn(s, n);
}

#define NAME_JSON(array) name_json((array), sizeof(array))

/// A JSON string of an outcome text (UTF-8 without NUL), or NULL.
static json_t *text_json(const lctx_outcome *o) {
  if (o->length >= LCTX_OUTCOME_TEXT_MAX || memchr(o->text, 0, o->length))
    return NULL;
  return json_stringn(o->text, o->length);
}

json_t *lctx_outcome_to_json(const lctx_outcome *o) {
  const char *kind = lctx_outcome_kind_json(o->kind);
  if (!kind)
    return NULL;
  json_t *j = json_object();
  bool ok = j && set(j, "kind", json_string(kind));
  switch (o->kind) {
  case LCTX_OUTCOME_NONE:
    break;
  case LCTX_OUTCOME_STRING:
  case LCTX_OUTCOME_PLATFORMS:
    ok = ok && set(j, "value", text_json(o));
    break;
  case LCTX_OUTCOME_CLIENT:
    if (o->origin == LCTX_CLIENT_PINNED) {
      ok = ok && set(j, "origin", json_string("pinned"));
    } else {
      ok = ok && o->registration >= 0 &&
           set(j, "origin", json_string("registry")) &&
           set(j, "registration", json_integer(o->registration));
    }
    ok = ok && set(j, "platform", text_json(o));
    break;
  case LCTX_OUTCOME_RAISE: {
    const char *name = lctx_error_class_name(o->error);
    ok = ok && name[0] && set(j, "class", json_string(name)) &&
         set(j, "message", text_json(o));
    break;
  }
  }
  if (ok && o->truncated)
    ok = set(j, "truncated", json_true());
  if (!ok) {
    json_decref(j);
    return NULL;
  }
  return j;
}

static json_t *factory_json(const lctx_case_factory *f) {
  json_t *j = json_object();
  bool raises = f->behaviour == LCTX_FACTORY_RAISES;
  bool ok = j && (unsigned)f->behaviour <= LCTX_FACTORY_NO_DEVICES &&
            set(j, "name", NAME_JSON(f->name)) &&
            set(j, "priority", json_integer(f->priority)) &&
            set(j, "fail_quietly", json_boolean(f->fail_quietly)) &&
            set(j, "behaviour",
                json_string(lctx_factory_behaviour_name(f->behaviour))) &&
            set(j, "message", raises ? NAME_JSON(f->message) : json_string(""));
  if (!ok) {
    json_decref(j);
    return NULL;
  }
  return j;
}

/// A JSON array of `count` names, or NULL.
static json_t *list_json(const lctx_case *c, const uint8_t *names,
                         size_t count) {
  json_t *list = json_array();
  bool ok = list && count <= LCTX_MAX_MODULE_PLATFORMS;
  for (size_t k = 0; ok && k < count; k++)
    ok = json_array_append_new(list, name_json(lctx_case_name(c, names[k]),
                                               LCTX_MAX_NAME + 1)) == 0;
  if (!ok) {
    json_decref(list);
    return NULL;
  }
  return list;
}

static json_t *action_json(const lctx_case_action *a) {
  if ((unsigned)a->kind > LCTX_ACTION_EMIT_MARKER)
    return NULL;
  json_t *j = json_object();
  bool ok = j && set(j, "action", json_string(lctx_action_kind_name(a->kind)));
  switch (a->kind) {
  case LCTX_ACTION_GET_BACKEND:
  case LCTX_ACTION_GUARDED_GET_BACKEND:
    ok = ok && set(j, "optional", json_boolean(a->optional));
    break;
  case LCTX_ACTION_RAISE_IF_MULTI:
    ok = ok && set(j, "message", NAME_JSON(a->text));
    break;
  case LCTX_ACTION_LOWER_FUN:
    ok = ok && set(j, "primitive", NAME_JSON(a->text)) &&
         set(j, "compute_type",
             a->has_compute_type ? NAME_JSON(a->compute_type) : json_null());
    break;
  case LCTX_ACTION_TRY_FALLBACK_GET_BACKEND:
  case LCTX_ACTION_READ_CLIENT_PLATFORM:
  case LCTX_ACTION_EMIT_MARKER:
    break;
  }
  if (!ok) {
    json_decref(j);
    return NULL;
  }
  return j;
}

static json_t *rule_json(const lctx_case_rule *rule) {
  if (rule->action_count > LCTX_CASE_MAX_ACTIONS)
    return NULL;
  json_t *j = json_object();
  json_t *actions = json_array();
  bool ok = j && actions;
  for (size_t k = 0; ok && k < rule->action_count; k++)
    ok = json_array_append_new(actions, action_json(&rule->actions[k])) == 0;
  ok = ok && set(j, "name", NAME_JSON(rule->name)) &&
       set(j, "actions", json_incref(actions));
  json_decref(actions);
  if (!ok) {
    json_decref(j);
    return NULL;
  }
  return j;
}

/// The JSON value of field `f` of `op`, or NULL.
static json_t *field_json(const lctx_case *c, const lctx_case_op *op,
                          const lctx_op_field *f) {
  const char *text = lctx_op_ctext(op, f);
  bool nullable = f->kind == LCTX_OP_FIELD_NAME_OR_NONE ||
                  (f->optional && f->kind != LCTX_OP_FIELD_FLAG);
  if (nullable && !lctx_op_chas(op, f))
    return json_null();
  switch (f->kind) {
  case LCTX_OP_FIELD_NAME:
  case LCTX_OP_FIELD_NAME_OR_NONE:
  case LCTX_OP_FIELD_RULE:
    return name_json(text, LCTX_MAX_NAME + 1);
  case LCTX_OP_FIELD_LIST:
    return list_json(c, (const uint8_t *)text, lctx_op_ccount(op, f));
  case LCTX_OP_FIELD_FLAG:
    return json_boolean(*(const bool *)text);
  }
  return NULL;
}

static json_t *op_json(const lctx_case *c, const lctx_case_expect *expect,
                       size_t i) {
  const lctx_case_op *op = &c->ops[i];
  const lctx_op_def *def = lctx_op_get(op->kind);
  if (!def)
    return NULL;
  json_t *j = json_object();
  bool ok = j && set(j, "op", json_string(def->name));
  for (size_t k = 0; ok && k < def->field_count; k++)
    ok = set(j, def->fields[k].json_key, field_json(c, op, &def->fields[k]));
  if (ok && expect && lctx_case_expect_has(expect, i)) {
    lctx_outcome o;
    ok = lctx_case_expect_get(expect, i, &o) &&
         set(j, "expect", lctx_outcome_to_json(&o));
  }
  if (!ok) {
    json_decref(j);
    return NULL;
  }
  return j;
}

json_t *lctx_case_to_json(const lctx_case *c, const lctx_case_expect *expect) {
  if (c->factory_count > LCTX_MAX_FACTORIES ||
      c->rule_count > LCTX_CASE_MAX_RULES || c->op_count > LCTX_CASE_MAX_OPS)
    return NULL;
  json_t *j = json_object();
  json_t *factories = json_array();
  json_t *rules = json_array();
  json_t *operations = json_array();
  bool ok = j && factories && rules && operations;
  for (size_t i = 0; ok && i < c->factory_count; i++)
    ok = json_array_append_new(factories, factory_json(&c->factories[i])) == 0;
  for (size_t i = 0; ok && i < c->rule_count; i++)
    ok = json_array_append_new(rules, rule_json(&c->rules[i])) == 0;
  for (size_t i = 0; ok && i < c->op_count; i++)
    ok = json_array_append_new(operations, op_json(c, expect, i)) == 0;
  ok = ok && set(j, "factories", json_incref(factories)) &&
       set(j, "jax_platforms", NAME_JSON(c->jax_platforms)) &&
       set(j, "jax_platform_name", NAME_JSON(c->jax_platform_name)) &&
       set(j, "jax_xla_backend", NAME_JSON(c->jax_xla_backend)) &&
       set(j, "nvidia_gpu_visible", json_boolean(c->nvidia_gpu_visible)) &&
       /* Only a case with rules has "rules": the JSON of a case without
        * lowering rules is what it was before rules existed. */
       (c->rule_count == 0 || set(j, "rules", json_incref(rules))) &&
       set(j, "operations", json_incref(operations));
  json_decref(factories);
  json_decref(rules);
  json_decref(operations);
  if (!ok) {
    json_decref(j);
    return NULL;
  }
  return j;
}
