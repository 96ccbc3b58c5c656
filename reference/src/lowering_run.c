/*
 * lowering_run.c - running lowering rules: one equation through
 * `lower_per_platform` and the rule bodies it calls (see lctx/lowering.h;
 * semantics.md section 7; jax/_src/interpreters/mlir.py at
 * jax-ml/jax@cec06d116c05: `lower_per_platform` lines 2512-2652,
 * `lower_fun` 2660-2693).
 *
 * Owns the order of the checks of lower_per_platform, which platform list
 * each step reads, the narrowing of branch contexts, the actions of a rule
 * body (get_backend calls, raises, lower_fun, markers) and the events a run
 * records, as the release of the registry's configuration has them
 * (lctx/release.h): whether lower_per_platform exists, whether a nested
 * compute type is refused and whether the first case spans the module's
 * platforms. Must not allocate, keep global state or compare versions; must
 * not emit MLIR.
 */
#include "lowering_private.h"

#include "lctx/pyrepr.h"
#include "lctx/xla_bridge.h"

#include <string.h>

typedef struct run {
  const lctx_lowering_registry *registry;
  lctx_registry *backends;
  lctx_lowering_result *result;
  /// The context the caller lowered with: its module platforms are the
  /// ones the module is lowered for (`shape_poly_state.lowering_platforms`,
  /// which lower_fun does not replace).
  const lctx_lowering_context *top;
} run;

static bool limit(run *r, lctx_lowering_limit why) {
  r->result->limit = why;
  return false;
}

/* Appends an event under `parent`; returns it, or NULL at the limit. */
static lctx_lowering_event *new_event(run *r, lctx_lowering_event_kind kind,
                                      int parent, int *index) {
  lctx_lowering_result *res = r->result;
  if (res->event_count >= LCTX_LOWERING_MAX_EVENTS) {
    res->limit = LCTX_LOWERING_LIMIT_EVENTS;
    return NULL;
  }
  lctx_lowering_event *e = &res->events[res->event_count];
  /* Every field but the arrays, which are read only below their counts
   * (set to 0 here): clearing the whole event (over 1 KiB) is most of the
   * cost of a small lowering. */
  lctx_str none = lctx_str_make(NULL, 0);
  e->kind = kind;
  e->parent = parent;
  e->depth = parent < 0 ? 0 : res->events[parent].depth + 1;
  e->level = parent < 0 ? 0 : res->events[parent].level;
  e->primitive = -1;
  e->description = none;
  e->rule = -1;
  e->action = -1;
  e->has_platforms = false;
  e->platform_count = 0;
  e->module_platform_count = 0;
  e->overridden = false;
  e->entry_count = 0;
  e->kept_count = 0;
  e->branch = -1;
  e->direct = false;
  e->action_kind = (lctx_lowering_action_kind)0;
  e->optional = false;
  e->backend_branch = (lctx_module_branch)0;
  e->result_kind = (lctx_outcome_kind)0;
  e->error = (lctx_error_class)0;
  e->origin = (lctx_client_origin)0;
  e->registration = -1;
  e->client_platform = none;
  e->client_attr = none;
  e->retried = false;
  *index = (int)res->event_count++;
  return e;
}

static void set_module_platforms(lctx_lowering_event *e,
                                 const lctx_lowering_context *ctx) {
  lctx_lowering_copy_list(e->module_platforms, &e->module_platform_count,
                          ctx->module.platforms, ctx->module.platform_count);
}

static bool lower_eqn(run *r, const lctx_lowering_context *ctx, int primitive,
                      int parent, int level);
static bool per_platform(run *r, const lctx_lowering_context *ctx,
                         lctx_str description, const lctx_platform_rules *pr,
                         int default_rule, int parent);

static bool list_contains(const lctx_str *list, size_t n, lctx_str p) {
  for (size_t i = 0; i < n; i++) {
    if (lctx_str_equal(list[i], p))
      return true;
  }
  return false;
}

/* A rule body's own raise (raise_if_multi, lower_fun's assertion, or
 * its refused compute type): records the RAISE event under `call` and makes
 * it the outcome, with the message `prefix` then `message`. Returns false
 * (the lowering stops). */
static bool body_raise2(run *r, const lctx_lowering_context *ctx, int call,
                        int rule, int action, lctx_error_class error,
                        lctx_str prefix, lctx_str message) {
  int index;
  lctx_lowering_event *re = new_event(r, LCTX_EVENT_RAISE, call, &index);
  if (!re)
    return false;
  re->rule = rule;
  re->action = action;
  re->error = error;
  set_module_platforms(re, ctx);
  lctx_buf w = lctx_outcome_begin_raise(&r->result->outcome, error);
  lctx_buf_append_str(&w, prefix);
  lctx_buf_append_str(&w, message);
  lctx_outcome_end(&r->result->outcome, &w);
  return false;
}

/* body_raise2 with no prefix. */
static bool body_raise(run *r, const lctx_lowering_context *ctx, int call,
                       int rule, int action, lctx_error_class error,
                       lctx_str message) {
  return body_raise2(r, ctx, call, rule, action, error, lctx_str_make(NULL, 0),
                     message);
}

/* One `ctx.module_context.get_backend(optional)` call by a body action. */
static bool backend_call(run *r, const lctx_lowering_context *ctx, int rule,
                         int action_index, lctx_lowering_action_kind kind,
                         bool optional, bool retried, int parent) {
  const lctx_release *release = r->backends->config->release;
  if (optional && !lctx_release_has_op(
                      release, LCTX_RELEASE_OP_MODULE_GET_BACKEND_OPTIONAL))
    return limit(r, LCTX_LOWERING_LIMIT_RELEASE);
  int index;
  lctx_lowering_event *e = new_event(r, LCTX_EVENT_BACKEND, parent, &index);
  if (!e)
    return false;
  e->rule = rule;
  e->action = action_index;
  e->action_kind = kind;
  e->optional = optional;
  e->retried = retried;
  set_module_platforms(e, ctx);
  lctx_outcome *o = &r->result->outcome;
  lctx_module_branch branch = LCTX_BRANCH_ERROR;
  bool ok =
      lctx_module_get_backend(r->backends, &ctx->module, optional, o, &branch);
  e->backend_branch = branch;
  e->result_kind = o->kind;
  e->error = o->error;
  if (o->kind == LCTX_OUTCOME_CLIENT) {
    e->origin = o->origin;
    e->registration = o->registration;
    if (o->origin == LCTX_CLIENT_PINNED) {
      e->client_platform = ctx->module.backend_platform;
    } else {
      const lctx_registry_entry *entry =
          lctx_registry_find(r->backends, lctx_outcome_text(o));
      e->client_platform = entry ? entry->platform : lctx_str_make(NULL, 0);
    }
    if (kind == LCTX_ACTION_READ_CLIENT_PLATFORM)
      e->client_attr =
          lctx_client_platform_attr_at(release, e->client_platform);
  }
  return ok;
}

/* A body's `lower_fun(primitive)` action under the call `call` at nesting
 * `level`: the traced function's one equation, lowered in a sub-context. */
static bool lower_fun(run *r, const lctx_lowering_context *ctx, int call,
                      int rule, int ak, const lctx_lowering_action *a,
                      int level) {
  if (level + 1 > LCTX_LOWERING_MAX_DEPTH)
    return limit(r, LCTX_LOWERING_LIMIT_DEPTH);
  /* `lower_fun`: `ctx.platforms is not None` replaces the module
   * platforms (by a list); the sub-equation's rule context starts
   * un-narrowed. */
  lctx_lowering_context sub = *ctx;
  if (ctx->has_platforms) {
    lctx_lowering_copy_list(sub.module.platforms, &sub.module.platform_count,
                            ctx->platforms, ctx->platform_count);
    sub.module.platforms_are_list = true;
  }
  /* `jaxpr_subcomp` starts with `assert "gpu" not in ctx.platforms`
   * (mlir.py line 2146): a module context naming `gpu` cannot lower a
   * traced function. */
  if (list_contains(sub.module.platforms, sub.module.platform_count,
                    lctx_str_from_cstr("gpu")))
    return body_raise(r, &sub, call, rule, ak, LCTX_ERROR_ASSERTION,
                      lctx_str_from_cstr(""));
  sub.has_platforms = false;
  sub.platform_count = 0;
  /* The rule runs inside its equation's context manager (jaxpr_subcomp,
   * mlir.py 2225-2227 and 2281-2283; lower_fun enters it itself in
   * jax-v0.7.2 mlir.py:2553), so the traced function's equations take
   * the outer compute type unless the action sets its own. */
  if (a->has_compute_type) {
    sub.has_compute_type = true;
    sub.compute_type = a->compute_type;
  }
  /* Before 9dc26ee3a5 (release.c F11) entering the traced equation's
   * context manager refuses a compute type other than the one in
   * force, before its rules are looked up. */
  if (lctx_lowering_release_of(r->registry)->compute_nesting_check &&
      ctx->has_compute_type && a->has_compute_type &&
      !lctx_str_equal(ctx->compute_type, a->compute_type))
    return body_raise2(
        r, &sub, call, rule, ak, LCTX_ERROR_NOT_IMPLEMENTED,
        lctx_str_from_cstr("Nesting `compute_on` with different compute "
                           "types is not supported yet. Current "
                           "compute_on type: "),
        ctx->compute_type);
  return lower_eqn(r, &sub, a->primitive, call, level + 1);
}

/* A body's marker action: records the platforms the rule reads. */
static bool emit_marker(run *r, const lctx_lowering_context *ctx, int call,
                        int rule) {
  int index;
  lctx_lowering_event *m = new_event(r, LCTX_EVENT_MARKER, call, &index);
  if (!m)
    return false;
  m->rule = rule;
  const lctx_str *list;
  size_t n = lctx_lowering_eqn_platforms_at(
      lctx_lowering_release_of(r->registry), ctx, &list);
  m->has_platforms = true;
  lctx_lowering_copy_list(m->platforms, &m->platform_count, list, n);
  set_module_platforms(m, ctx);
  return true;
}

static bool call_rule(run *r, const lctx_lowering_context *ctx, int rule,
                      bool direct, int parent) {
  const lctx_lowering_registry *reg = r->registry;
  if (!lctx_lowering_valid_rule(reg, rule))
    return limit(r, LCTX_LOWERING_LIMIT_BAD_ID);
  int call;
  lctx_lowering_event *e = new_event(r, LCTX_EVENT_CALL, parent, &call);
  if (!e)
    return false;
  e->rule = rule;
  e->direct = direct;
  e->has_platforms = ctx->has_platforms;
  lctx_lowering_copy_list(e->platforms, &e->platform_count, ctx->platforms,
                          ctx->has_platforms ? ctx->platform_count : 0);
  set_module_platforms(e, ctx);
  int level = e->level;

  const lctx_lowering_rule *body = &reg->rules[rule];
  size_t module_count = ctx->module.platform_count;
  for (size_t k = 0; k < body->action_count; k++) {
    const lctx_lowering_action *a = &body->actions[k];
    int ak = (int)k;
    switch (a->kind) {
    case LCTX_ACTION_GET_BACKEND:
      if (!backend_call(r, ctx, rule, ak, a->kind, a->optional, false, call))
        return false;
      break;
    case LCTX_ACTION_GUARDED_GET_BACKEND:
      if (module_count <= 1 &&
          !backend_call(r, ctx, rule, ak, a->kind, a->optional, false, call))
        return false;
      break;
    case LCTX_ACTION_TRY_FALLBACK_GET_BACKEND:
      if (!backend_call(r, ctx, rule, ak, a->kind, false, false, call)) {
        if (r->result->limit != LCTX_LOWERING_LIMIT_NONE ||
            r->result->outcome.error != LCTX_ERROR_NOT_IMPLEMENTED)
          return false;
        if (!backend_call(r, ctx, rule, ak, a->kind, true, true, call))
          return false;
      }
      break;
    case LCTX_ACTION_RAISE_IF_MULTI:
      if (module_count > 1)
        return body_raise(r, ctx, call, rule, ak, LCTX_ERROR_NOT_IMPLEMENTED,
                          a->message);
      break;
    case LCTX_ACTION_READ_CLIENT_PLATFORM:
      if (!backend_call(r, ctx, rule, ak, a->kind, true, false, call))
        return false;
      break;
    case LCTX_ACTION_LOWER_FUN:
      if (!lower_fun(r, ctx, call, rule, ak, a, level))
        return false;
      break;
    case LCTX_ACTION_EMIT_MARKER:
      if (!emit_marker(r, ctx, call, rule))
        return false;
      break;
    }
  }
  return true;
}

static bool raise_not_found(run *r, lctx_str description, const char *suffix,
                            const lctx_str *platforms, size_t count,
                            bool as_list) {
  lctx_outcome *o = &r->result->outcome;
  lctx_buf w = lctx_outcome_begin_raise(o, LCTX_ERROR_NOT_IMPLEMENTED);
  lctx_buf_append_cstr(&w, "MLIR translation rule for primitive '");
  lctx_buf_append_str(&w, description);
  lctx_buf_append_cstr(&w, suffix);
  if (as_list)
    lctx_pyrepr_str_list(&w, platforms, count);
  else
    lctx_buf_append_str(&w, platforms[0]);
  lctx_outcome_end(o, &w);
  return false;
}

static bool raise_assertion(run *r, const char *message) {
  lctx_outcome *o = &r->result->outcome;
  lctx_buf w = lctx_outcome_begin_raise(o, LCTX_ERROR_ASSERTION);
  lctx_buf_append_cstr(&w, message);
  lctx_outcome_end(o, &w);
  return false;
}

/* Step 7 of lower_per_platform: the stablehlo.case over `platforms`
 * (slot per platform from `map`, platform_to_kept_rules_idx, or 0 for one
 * without a kept rule when `module_wide`) and one branch per kept rule,
 * each calling its rule in a context narrowed to the platforms mapped to
 * it. */
static bool emit_dispatch(run *r, const lctx_lowering_context *ctx,
                          const lctx_str *platforms, size_t n, bool module_wide,
                          const int *kept, size_t kept_count,
                          const lctx_platform_rules *map, int parent) {
  int dispatch;
  lctx_lowering_event *d = new_event(r, LCTX_EVENT_DISPATCH, parent, &dispatch);
  if (!d)
    return false;
  d->has_platforms = true;
  lctx_lowering_copy_list(d->platforms, &d->platform_count, platforms, n);
  for (size_t i = 0; i < n; i++) {
    int slot = lctx_platform_rules_get(map, platforms[i]);
    d->slots[i] = module_wide && slot < 0 ? 0 : slot;
  }
  d->kept_count = kept_count;
  if (kept_count > 0)
    memcpy(d->kept, kept, kept_count * sizeof kept[0]);

  /* One copy of the context for every branch (a rule reads its context,
   * never writes it): each narrows it anew. */
  lctx_lowering_context inner = *ctx;
  for (size_t i = 0; i < kept_count; i++) {
    inner.has_platforms = true;
    inner.platform_count = 0;
    for (size_t k = 0; k < map->count; k++) {
      if (map->rules[k] == (int)i)
        inner.platforms[inner.platform_count++] = map->platforms[k];
    }
    int branch;
    lctx_lowering_event *b = new_event(r, LCTX_EVENT_BRANCH, dispatch, &branch);
    if (!b)
      return false;
    b->branch = (int)i;
    b->rule = kept[i];
    b->has_platforms = true;
    lctx_lowering_copy_list(b->platforms, &b->platform_count, inner.platforms,
                            inner.platform_count);
    set_module_platforms(b, &inner);
    if (!call_rule(r, &inner, kept[i], false, branch))
      return false;
  }
  return true;
}

/* `lower_per_platform`, steps 1-7 of semantics.md section 7. */
static bool per_platform(run *r, const lctx_lowering_context *ctx,
                         lctx_str description, const lctx_platform_rules *pr,
                         int default_rule, int parent) {
  const lctx_str *platforms;
  size_t n = lctx_lowering_eqn_platforms_at(
      lctx_lowering_release_of(r->registry), ctx, &platforms);

  /* 1. The single-platform special case. */
  if (n == 1) {
    int rule = lctx_platform_rules_get(pr, platforms[0]);
    if (rule < 0)
      rule = default_rule;
    if (rule < 0)
      return raise_not_found(r, description, "' not found for platform ",
                             platforms, 1, false);
  }

  /* 2. Kept rules, in platform_rules order; `map` is
   * platform_to_kept_rules_idx. */
  int kept[LCTX_LOWERING_MAX_KEPT];
  size_t kept_count = 0;
  lctx_platform_rules map;
  lctx_platform_rules_init(&map);
  for (size_t i = 0; i < pr->count; i++) {
    if (!list_contains(platforms, n, pr->platforms[i]))
      continue;
    (void)lctx_platform_rules_set(&map, pr->platforms[i], (int)kept_count);
    kept[kept_count++] = pr->rules[i];
  }

  /* 3. Platforms without a specific rule, duplicates kept. */
  lctx_str without[LCTX_LOWERING_MAX_PLATFORMS];
  size_t without_count = 0;
  for (size_t i = 0; i < n; i++) {
    if (lctx_platform_rules_get(&map, platforms[i]) < 0)
      without[without_count++] = platforms[i];
  }
  if (without_count > 0) {
    if (default_rule < 0)
      return raise_not_found(r, description, "' not found for platforms ",
                             without, without_count, true);
    for (size_t i = 0; i < without_count; i++)
      (void)lctx_platform_rules_set(&map, without[i], (int)kept_count);
    kept[kept_count++] = default_rule;
  }

  /* 4. `assert kept_rules`. */
  if (kept_count == 0)
    return raise_assertion(r, "");

  /* 5. A single kept rule: called directly, the context as passed. */
  if (kept_count == 1)
    return call_rule(r, ctx, kept[0], true, parent);

  /* 6. The platform index. */
  if (ctx->dim_var_count < 1)
    return raise_assertion(r, "Must have a platform_index variable");

  /* From jax-v0.12.1 (release.c F12) the first case spans the platforms
   * the module is lowered for, after asserting there are several; a
   * platform without a kept rule (outside a narrowed list) yields slot 0. */
  bool module_wide =
      lctx_lowering_release_of(r->registry)->dispatch_module_platforms;
  if (module_wide) {
    if (r->top->module.platform_count <= 1)
      return raise_assertion(r, "");
    platforms = r->top->module.platforms;
    n = r->top->module.platform_count;
  }

  /* 7. The two-level dispatch. */
  return emit_dispatch(r, ctx, platforms, n, module_wide, kept, kept_count,
                       &map, parent);
}

static int new_eqn_event(run *r, const lctx_lowering_context *ctx,
                         lctx_str description, int primitive,
                         const lctx_platform_rules *pr, int default_rule,
                         bool overridden, int parent, int level) {
  int index;
  lctx_lowering_event *e = new_event(r, LCTX_EVENT_EQN, parent, &index);
  if (!e)
    return -1;
  e->level = level;
  e->primitive = primitive;
  e->description = description;
  e->rule = default_rule;
  e->overridden = overridden;
  const lctx_str *list;
  size_t n = lctx_lowering_eqn_platforms_at(
      lctx_lowering_release_of(r->registry), ctx, &list);
  e->has_platforms = true;
  lctx_lowering_copy_list(e->platforms, &e->platform_count, list, n);
  set_module_platforms(e, ctx);
  lctx_lowering_copy_list(e->entries, &e->entry_count, pr->platforms,
                          pr->count);
  if (pr->count > 0)
    memcpy(e->entry_rules, pr->rules, pr->count * sizeof pr->rules[0]);
  return index;
}

/* One equation, as `jaxpr_subcomp` lowers it. */
static bool lower_eqn(run *r, const lctx_lowering_context *ctx, int primitive,
                      int parent, int level) {
  const lctx_lowering_registry *reg = r->registry;
  if (!lctx_lowering_valid_primitive(reg, primitive))
    return limit(r, LCTX_LOWERING_LIMIT_BAD_ID);
  lctx_lowering_rules rules;
  lctx_lowering_get_rules(
      reg, &ctx->overrides, ctx->module.platforms, ctx->module.platform_count,
      primitive, ctx->has_compute_type ? &ctx->compute_type : NULL, &rules);
  lctx_str description = reg->primitives[primitive];
  int eqn = new_eqn_event(r, ctx, description, primitive, &rules.platform_rules,
                          rules.default_rule, rules.overridden, parent, level);
  if (eqn < 0)
    return false;
  return per_platform(r, ctx, description, &rules.platform_rules,
                      rules.default_rule, eqn);
}

static void result_reset(lctx_lowering_result *res) {
  lctx_outcome_set_none(&res->outcome);
  res->limit = LCTX_LOWERING_LIMIT_NONE;
  res->event_count = 0;
  res->evaluated = false;
  res->index_count = 0;
}

static bool finish(lctx_lowering_result *res, const lctx_lowering_context *ctx,
                   bool ok) {
  if (res->limit != LCTX_LOWERING_LIMIT_NONE) {
    lctx_outcome_set_none(&res->outcome);
    return false;
  }
  if (!ok)
    return false;
  lctx_outcome_set_none(&res->outcome);
  lctx_lowering_evaluate(res, ctx);
  return true;
}

bool lctx_lowering_lower_eqn(const lctx_lowering_registry *registry,
                             lctx_registry *backends,
                             const lctx_lowering_context *context,
                             int primitive, lctx_lowering_result *result) {
  run r = {registry, backends, result, context};
  result_reset(result);
  bool ok = lctx_lowering_release_of(registry)->has_lower_per_platform
                ? lower_eqn(&r, context, primitive, -1, 0)
                : limit(&r, LCTX_LOWERING_LIMIT_RELEASE);
  return finish(result, context, ok);
}

bool lctx_lowering_per_platform(const lctx_lowering_registry *registry,
                                lctx_registry *backends,
                                const lctx_lowering_context *context,
                                lctx_str description,
                                const lctx_platform_rules *platform_rules,
                                int default_rule,
                                lctx_lowering_result *result) {
  run r = {registry, backends, result, context};
  result_reset(result);
  if (!lctx_lowering_release_of(registry)->has_lower_per_platform)
    return finish(result, context, limit(&r, LCTX_LOWERING_LIMIT_RELEASE));
  int eqn = new_eqn_event(&r, context, description, -1, platform_rules,
                          default_rule, false, -1, 0);
  bool ok = eqn >= 0 && per_platform(&r, context, description, platform_rules,
                                     default_rule, eqn);
  return finish(result, context, ok);
}
