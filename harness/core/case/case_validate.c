/*
 * case_validate.c - validating a case (case.h's lctx_case_validate and
 * lctx_case_validate_lowering): names within lctx's limits and alphabet,
 * and the lowering parts within the model's tables (rules, primitives,
 * lower_fun cycles and depth, the event bound), the operations' fields
 * read from the table of operations (case_ops.h).
 */
#include "case_ops.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static bool check_name(const char *s, size_t max, const char *field, long index,
                       lctx_buf *error) {
  size_t n = strnlen(s, max + 1);
  if (n <= max && lctx_pyrepr_is_supported(lctx_str_make(s, n)))
    return true;
  lctx_buf_append_cstr(error, field);
  if (index >= 0) {
    lctx_buf_append_char(error, '[');
    lctx_buf_append_int(error, index);
    lctx_buf_append_char(error, ']');
  }
  lctx_buf_append_cstr(error, n > max ? " is too long"
                                      : " holds a byte outside 0x01-0x7f");
  return false;
}

static bool fail_at(lctx_buf *error, const char *field, size_t index,
                    const char *rest) {
  lctx_buf_append_cstr(error, field);
  lctx_buf_append_char(error, '[');
  lctx_buf_append_int(error, (long long)index);
  lctx_buf_append_cstr(error, "]");
  lctx_buf_append_cstr(error, rest);
  return false;
}

/* The primitive names of a case, in first-appearance order. */
typedef struct prim_table {
  size_t count;
  const char *names[LCTX_LOWERING_MAX_PRIMITIVES];
} prim_table;

static int prim_index(prim_table *t, const char *name, bool add) {
  for (size_t i = 0; i < t->count; i++) {
    if (strcmp(t->names[i], name) == 0)
      return (int)i;
  }
  if (!add || t->count == LCTX_LOWERING_MAX_PRIMITIVES)
    return -1;
  t->names[t->count] = name;
  return (int)t->count++;
}

/* What the lower_fun graph check needs: the rules bound to each primitive
 * (by a register_lowering or an override), and the primitives each rule
 * lowers through lower_fun. */
typedef struct lower_graph {
  prim_table prims;
  bool bound[LCTX_LOWERING_MAX_PRIMITIVES][LCTX_CASE_MAX_RULES];
  int state[LCTX_LOWERING_MAX_PRIMITIVES]; /* 0 new, 1 open, 2 done */
  int depth[LCTX_LOWERING_MAX_PRIMITIVES];
  long events[LCTX_LOWERING_MAX_PRIMITIVES];
  long slots; /* most kept rules of one dispatch */
  const lctx_case *c;
  const char *cycle; /* the primitive closing a cycle */
} lower_graph;

/* Depth-first: the deepest lower_fun nesting below `p` and an upper bound
 * of the events one equation of `p` records. False on a cycle. */
static bool walk(lower_graph *g, int p) {
  if (g->state[p] == 2)
    return true;
  if (g->state[p] == 1) {
    g->cycle = g->prims.names[p];
    return false;
  }
  g->state[p] = 1;
  int depth = 0;
  long body_max = 0;
  bool any = false;
  for (size_t r = 0; r < g->c->rule_count; r++) {
    if (!g->bound[p][r])
      continue;
    any = true;
    long body = 0;
    const lctx_case_rule *rule = &g->c->rules[r];
    for (size_t k = 0; k < rule->action_count; k++) {
      const lctx_case_action *a = &rule->actions[k];
      if (a->kind != LCTX_ACTION_LOWER_FUN) {
        body += 2; /* a get_backend and its retry, a raise or a marker */
        continue;
      }
      int q = prim_index(&g->prims, a->text, false);
      if (q < 0)
        return false;
      if (!walk(g, q))
        return false;
      if (g->depth[q] + 1 > depth)
        depth = g->depth[q] + 1;
      body += g->events[q];
    }
    if (body > body_max)
      body_max = body;
  }
  g->depth[p] = depth;
  /* EQN, DISPATCH, then per kept rule a BRANCH, a CALL and the body. */
  g->events[p] = any ? 2 + g->slots * (2 + body_max) : 1;
  if (g->events[p] > 1000000)
    g->events[p] = 1000000;
  g->state[p] = 2;
  return true;
}

/* The rules of the lowering checks: names, counts and kinds, and the
 * primitives their lower_fun actions name. */
static bool check_rules(const lctx_case *c, lower_graph *g, lctx_buf *error,
                        bool names) {
  for (size_t i = 0; i < c->rule_count; i++) {
    const lctx_case_rule *rule = &c->rules[i];
    if (names &&
        !check_name(rule->name, LCTX_MAX_NAME, "rules[].name", (long)i, error))
      return false;
    if (rule->name[0] == '\0')
      return fail_at(error, "rules", i, ".name is empty");
    if (lctx_case_rule_find(c, rule->name) != (int)i)
      return fail_at(error, "rules", i, ".name is declared twice");
    if (rule->action_count > LCTX_CASE_MAX_ACTIONS)
      return fail_at(error, "rules", i, ".actions: too many");
    for (size_t k = 0; k < rule->action_count; k++) {
      const lctx_case_action *a = &rule->actions[k];
      if ((unsigned)a->kind > LCTX_ACTION_EMIT_MARKER)
        return fail_at(error, "rules", i, ".actions[].action is not known");
      if (names &&
          (!check_name(a->text, LCTX_MAX_NAME, "rules[].actions[].text",
                       (long)k, error) ||
           !check_name(a->compute_type, LCTX_MAX_NAME,
                       "rules[].actions[].compute_type", (long)k, error)))
        return false;
      if (a->kind == LCTX_ACTION_LOWER_FUN &&
          prim_index(&g->prims, a->text, true) < 0) {
        lctx_buf_append_cstr(error, "primitives: more than 8 distinct names");
        return false;
      }
    }
  }
  return true;
}

/* Whether operation `op` (of definition `def`) lowers an equation for
 * module platforms (as against registering a rule). */
static bool lowers_equation(const lctx_op_def *def) {
  return def->lowering &&
         lctx_op_field_at(def, offsetof(lctx_case_op, platform)) != NULL;
}

/* The names a lowering operation adds to the checks, the primitive it
 * names and the rule it binds to it (a RULE field: required, or optional
 * and present). */
static bool check_lowering_op(const lctx_case *c, size_t i, lower_graph *g,
                              lctx_buf *error, bool names) {
  const lctx_case_op *op = &c->ops[i];
  if (names && (!check_name(op->primitive, LCTX_MAX_NAME,
                            "operations[].primitive", (long)i, error) ||
                !check_name(op->rule, LCTX_MAX_NAME, "operations[].rule",
                            (long)i, error) ||
                !check_name(op->compute_type, LCTX_MAX_NAME,
                            "operations[].compute_type", (long)i, error) ||
                !check_name(op->override, LCTX_MAX_NAME,
                            "operations[].override", (long)i, error)))
    return false;
  if (op->narrow_count > LCTX_MAX_MODULE_PLATFORMS) {
    lctx_buf_append_cstr(error, "operations[].narrow: too many");
    return false;
  }
  for (size_t k = 0; k < op->narrow_count; k++) {
    if (op->narrowed[k] >= c->name_count ||
        op->narrowed[k] >= LCTX_CASE_MAX_NAMES) {
      lctx_buf_append_cstr(error, "operations[].narrow: not in the names");
      return false;
    }
    if (names && !check_name(lctx_case_op_narrow(c, op, k), LCTX_MAX_NAME,
                             "operations[].narrow", (long)k, error))
      return false;
  }
  int p = prim_index(&g->prims, op->primitive, true);
  if (p < 0) {
    lctx_buf_append_cstr(error, "primitives: more than 8 distinct names");
    return false;
  }
  const lctx_op_def *def = lctx_op_get(op->kind);
  for (size_t f = 0; f < def->field_count; f++) {
    const lctx_op_field *field = &def->fields[f];
    if (field->kind != LCTX_OP_FIELD_RULE || !lctx_op_present(op, field))
      continue;
    int r = lctx_case_rule_find(c, lctx_op_ctext(op, field));
    if (r < 0) {
      char rest[64] = ".";
      lctx_buf b;
      lctx_buf_init(&b, rest + 1, sizeof rest - 1);
      lctx_buf_append_cstr(&b, field->json_key);
      lctx_buf_append_cstr(&b, " names no declared rule");
      return fail_at(error, "operations", i, rest);
    }
    g->bound[p][r] = true;
  }
  if (lowers_equation(def)) {
    long n = (long)(op->platform_count > op->narrow_count ? op->platform_count
                                                          : op->narrow_count);
    if (n + 1 > g->slots)
      g->slots = n + 1;
  }
  return true;
}

/* The lower_fun graph: no cycle, the depth, and the events each lowering
 * may record. */
static bool check_graph(const lctx_case *c, lower_graph *g, lctx_buf *error) {
  for (size_t p = 0; p < g->prims.count; p++) {
    if (!walk(g, (int)p)) {
      lctx_buf_append_cstr(error, "rules: primitive '");
      lctx_buf_append_cstr(error, g->cycle ? g->cycle : "?");
      lctx_buf_append_cstr(
          error, "' reaches itself through lower_fun (JAX would not end)");
      return false;
    }
    if (g->depth[p] > LCTX_LOWERING_MAX_DEPTH) {
      lctx_buf_append_cstr(error, "rules: lower_fun nested more than 4 deep");
      return false;
    }
  }
  for (size_t i = 0; i < c->op_count; i++) {
    const lctx_case_op *op = &c->ops[i];
    if (!lowers_equation(lctx_op_get(op->kind)))
      continue;
    int p = prim_index(&g->prims, op->primitive, false);
    if (p >= 0 && g->events[p] > LCTX_LOWERING_MAX_EVENTS)
      return fail_at(error, "operations", i,
                     ": this lowering may record more than 128 events "
                     "(the model's limit); use fewer platforms, rules or "
                     "lower_fun actions");
  }
  return true;
}

/* The lowering checks; `names` adds the alphabet and length check of every
 * name they read (lctx_case_validate_lowering leaves it to the caller). */
static bool validate_lowering(const lctx_case *c, lctx_buf *error, bool names) {
  if (c->rule_count > LCTX_CASE_MAX_RULES) {
    lctx_buf_append_cstr(error, "rules: too many");
    return false;
  }
  lower_graph g;
  memset(&g, 0, sizeof g);
  g.c = c;
  g.slots = 1;
  if (!check_rules(c, &g, error, names))
    return false;
  for (size_t i = 0; i < c->op_count; i++) {
    const lctx_op_def *def = lctx_op_get(c->ops[i].kind);
    if (def && def->lowering && !check_lowering_op(c, i, &g, error, names))
      return false;
  }
  return check_graph(c, &g, error);
}

bool lctx_case_validate(const lctx_case *c, lctx_buf *error) {
  if (c->factory_count > LCTX_MAX_FACTORIES) {
    lctx_buf_append_cstr(error, "factories: too many");
    return false;
  }
  if (c->op_count > LCTX_CASE_MAX_OPS) {
    lctx_buf_append_cstr(error, "operations: too many");
    return false;
  }
  if (c->name_count > LCTX_CASE_MAX_NAMES) {
    lctx_buf_append_cstr(error, "names: too many");
    return false;
  }
  lctx_registry_config config;
  lctx_case_config(c, &config);
  if (!lctx_registry_config_validate(&config, error))
    return false;
  for (size_t i = 0; i < c->op_count; i++) {
    const lctx_case_op *op = &c->ops[i];
    if ((unsigned)op->kind >= LCTX_OP_KIND_COUNT) {
      lctx_buf_append_cstr(error, "operations[");
      lctx_buf_append_int(error, (long long)i);
      lctx_buf_append_cstr(error, "].op is not a known operation");
      return false;
    }
    if (op->platform_count > LCTX_MAX_MODULE_PLATFORMS) {
      lctx_buf_append_cstr(error, "operations[].platforms: too many");
      return false;
    }
    if (!check_name(op->arg, LCTX_MAX_NAME, "operations[].arg", (long)i,
                    error) ||
        !check_name(op->backend, LCTX_MAX_NAME, "operations[].backend", (long)i,
                    error))
      return false;
    for (size_t k = 0; k < op->platform_count; k++) {
      if (op->platform[k] >= c->name_count ||
          op->platform[k] >= LCTX_CASE_MAX_NAMES) {
        lctx_buf_append_cstr(error, "operations[].platforms: not in the names");
        return false;
      }
      if (!check_name(lctx_case_op_platform(c, op, k), LCTX_MAX_NAME,
                      "operations[].platforms", (long)k, error))
        return false;
    }
  }
  return validate_lowering(c, error, true);
}

bool lctx_case_validate_lowering(const lctx_case *c, lctx_buf *error) {
  return validate_lowering(c, error, false);
}
