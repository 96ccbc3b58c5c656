/*
 * lowering.c - lowering rules, rule selection and multi-platform dispatch
 * (see lctx/lowering.h; semantics.md sections 6 and 7;
 * jax/_src/interpreters/mlir.py at jax-ml/jax@cec06d116c05:
 * `register_lowering` lines 1000-1035, `_get_lowering_rules` 2335-2361,
 * `_get_override_lowering_rule` 2435-2443, `_platforms_for_eqn` 2484-2498,
 * `lower_per_platform` 2512-2652, `lower_fun` 2660-2693).
 *
 * Owns the order of the checks of lower_per_platform, which platform list
 * each step reads, the narrowing of branch contexts, and the evaluation of
 * recorded dispatches by the module-wide platform index, as the release of
 * the registry's configuration has them (lctx/release.h): the known
 * platforms, the `gpu` members, whether register_lowering checks the
 * platform, whether a compute type chooses platforms, and whether
 * lower_per_platform exists. Must not allocate, keep global state or compare
 * versions; must not emit MLIR.
 */
#include "lctx/lowering.h"

#include "lctx/pyrepr.h"
#include "lctx/xla_bridge.h"

#include <string.h>

static const lctx_str CPU_LIST[] = {{"cpu", 3}};
static const lctx_str TPU_LIST[] = {{"tpu", 3}};

/* The release of the registry's configuration (the modelled commit without
 * one). */
static const lctx_release *release_of(const lctx_lowering_registry *registry) {
  return lctx_release_resolve(registry->config ? registry->config->release
                                               : NULL);
}

//===----------------------------------------------------------------------===//
// Actions
//===----------------------------------------------------------------------===//

static lctx_lowering_action action(lctx_lowering_action_kind kind) {
  lctx_lowering_action a;
  memset(&a, 0, sizeof a);
  a.kind = kind;
  a.primitive = -1;
  return a;
}

lctx_lowering_action lctx_action_get_backend(bool optional) {
  lctx_lowering_action a = action(LCTX_ACTION_GET_BACKEND);
  a.optional = optional;
  return a;
}

lctx_lowering_action lctx_action_guarded_get_backend(bool optional) {
  lctx_lowering_action a = action(LCTX_ACTION_GUARDED_GET_BACKEND);
  a.optional = optional;
  return a;
}

lctx_lowering_action lctx_action_try_fallback_get_backend(void) {
  return action(LCTX_ACTION_TRY_FALLBACK_GET_BACKEND);
}

lctx_lowering_action lctx_action_raise_if_multi(lctx_str message) {
  lctx_lowering_action a = action(LCTX_ACTION_RAISE_IF_MULTI);
  a.message = message;
  return a;
}

lctx_lowering_action lctx_action_read_client_platform(void) {
  return action(LCTX_ACTION_READ_CLIENT_PLATFORM);
}

lctx_lowering_action lctx_action_lower_fun(int primitive) {
  lctx_lowering_action a = action(LCTX_ACTION_LOWER_FUN);
  a.primitive = primitive;
  return a;
}

lctx_lowering_action lctx_action_lower_fun_compute(int primitive,
                                                   lctx_str compute_type) {
  lctx_lowering_action a = lctx_action_lower_fun(primitive);
  a.has_compute_type = true;
  a.compute_type = compute_type;
  return a;
}

lctx_lowering_action lctx_action_emit_marker(void) {
  return action(LCTX_ACTION_EMIT_MARKER);
}

//===----------------------------------------------------------------------===//
// The lowering registry
//===----------------------------------------------------------------------===//

void lctx_lowering_registry_init(lctx_lowering_registry *registry,
                                 const lctx_registry_config *config) {
  registry->config = config;
  registry->primitive_count = 0;
  registry->rule_count = 0;
  registry->specific_count = 0;
  for (size_t i = 0; i < LCTX_LOWERING_MAX_PRIMITIVES; i++)
    registry->common[i] = -1;
}

static bool valid_primitive(const lctx_lowering_registry *registry, int p) {
  return p >= 0 && (size_t)p < registry->primitive_count;
}

static bool valid_rule(const lctx_lowering_registry *registry, int r) {
  return r >= 0 && (size_t)r < registry->rule_count;
}

int lctx_lowering_primitive_add(lctx_lowering_registry *registry,
                                lctx_str name) {
  for (size_t i = 0; i < registry->primitive_count; i++) {
    if (lctx_str_equal(registry->primitives[i], name))
      return (int)i;
  }
  if (registry->primitive_count >= LCTX_LOWERING_MAX_PRIMITIVES)
    return -1;
  registry->primitives[registry->primitive_count] = name;
  registry->common[registry->primitive_count] = -1;
  return (int)registry->primitive_count++;
}

lctx_str lctx_lowering_primitive_name(const lctx_lowering_registry *registry,
                                      int primitive) {
  if (!valid_primitive(registry, primitive))
    return lctx_str_make(NULL, 0);
  return registry->primitives[primitive];
}

int lctx_lowering_rule_add(lctx_lowering_registry *registry, lctx_str name,
                           const lctx_lowering_action *actions, size_t count) {
  if (registry->rule_count >= LCTX_LOWERING_MAX_RULES ||
      count > LCTX_LOWERING_MAX_ACTIONS)
    return -1;
  lctx_lowering_rule *rule = &registry->rules[registry->rule_count];
  rule->name = name;
  rule->action_count = count;
  for (size_t i = 0; i < count; i++)
    rule->actions[i] = actions[i];
  return (int)registry->rule_count++;
}

lctx_str lctx_lowering_rule_name(const lctx_lowering_registry *registry,
                                 int rule) {
  if (!valid_rule(registry, rule))
    return lctx_str_make(NULL, 0);
  return registry->rules[rule].name;
}

/* Every known platform, possibly repeated, unsorted; returns the count. */
static size_t collect_known(const lctx_lowering_registry *registry,
                            lctx_str *names) {
  size_t n = 0;
  const lctx_release_list *builtin = &release_of(registry)->known_builtin;
  for (size_t i = 0; i < builtin->count; i++)
    names[n++] = builtin->names[i];
  const lctx_registry_config *config = registry->config;
  for (size_t i = 0; config && i < config->factory_count; i++)
    names[n++] = lctx_str_from_cstr(config->factories[i].name);
  return n;
}

void lctx_lowering_format_known_platforms(
    const lctx_lowering_registry *registry, lctx_buf *out) {
  lctx_str names[LCTX_RELEASE_MAX_LIST + LCTX_MAX_FACTORIES];
  size_t n = collect_known(registry, names);
  /* Insertion sort by code point (unsigned bytes). */
  for (size_t i = 1; i < n; i++) {
    lctx_str key = names[i];
    size_t j = i;
    while (j > 0 && lctx_str_compare(names[j - 1], key) > 0) {
      names[j] = names[j - 1];
      j--;
    }
    names[j] = key;
  }
  size_t written = 0;
  for (size_t i = 0; i < n; i++) {
    if (i > 0 && lctx_str_equal(names[i - 1], names[i]))
      continue; /* a set: each name once */
    if (written++ > 0)
      lctx_buf_append(out, ", ", 2);
    lctx_buf_append_str(out, names[i]);
  }
}

bool lctx_lowering_is_known_platform(const lctx_lowering_registry *registry,
                                     lctx_str platform) {
  lctx_str names[LCTX_RELEASE_MAX_LIST + LCTX_MAX_FACTORIES];
  size_t n = collect_known(registry, names);
  for (size_t i = 0; i < n; i++) {
    if (lctx_str_equal(names[i], platform))
      return true;
  }
  return false;
}

/* A view of `name` with the registry's lifetime: a static name or the
 * configuration's factory name. */
static lctx_str stable_name(const lctx_lowering_registry *registry,
                            lctx_str name) {
  const lctx_release *release = release_of(registry);
  const lctx_release_list *lists[] = {&release->known_builtin,
                                      &release->gpu_alias};
  for (size_t l = 0; l < 2; l++) {
    for (size_t i = 0; i < lists[l]->count; i++) {
      if (lctx_str_equal(lists[l]->names[i], name))
        return lists[l]->names[i];
    }
  }
  const lctx_registry_config *config = registry->config;
  for (size_t i = 0; config && i < config->factory_count; i++) {
    if (lctx_str_equal_cstr(name, config->factories[i].name))
      return lctx_str_from_cstr(config->factories[i].name);
  }
  return name;
}

static bool store_specific(lctx_lowering_registry *registry, lctx_str platform,
                           int primitive, int rule) {
  for (size_t i = 0; i < registry->specific_count; i++) {
    lctx_lowering_specific *s = &registry->specific[i];
    if (s->primitive == primitive && lctx_str_equal(s->platform, platform)) {
      s->rule = rule;
      return true;
    }
  }
  if (registry->specific_count >= LCTX_LOWERING_MAX_SPECIFIC)
    return false;
  lctx_lowering_specific *s = &registry->specific[registry->specific_count++];
  s->platform = stable_name(registry, platform);
  s->primitive = primitive;
  s->rule = rule;
  return true;
}

bool lctx_lowering_register(lctx_lowering_registry *registry, int primitive,
                            int rule, const lctx_str *platform,
                            lctx_outcome *out) {
  lctx_outcome_set_none(out);
  if (!valid_primitive(registry, primitive) || !valid_rule(registry, rule))
    return false;
  if (platform == NULL) {
    registry->common[primitive] = rule;
    return true;
  }
  const lctx_release *release = release_of(registry);
  if (release->lowering_checks_platform &&
      !lctx_lowering_is_known_platform(registry, *platform)) {
    lctx_buf w = lctx_outcome_begin_raise(out, LCTX_ERROR_NOT_IMPLEMENTED);
    lctx_buf_append_cstr(&w,
                         "Registering an MLIR lowering rule for primitive ");
    lctx_buf_append_str(&w, registry->primitives[primitive]);
    lctx_buf_append_cstr(&w, " for an unknown platform ");
    lctx_buf_append_str(&w, *platform);
    lctx_buf_append_cstr(&w, ". Known platforms are: ");
    lctx_lowering_format_known_platforms(registry, &w);
    lctx_buf_append_char(&w, '.');
    lctx_outcome_end(out, &w);
    return false;
  }
  if (lctx_platform_is_alias(*platform)) {
    const lctx_release_list *gpu = &release->gpu_alias;
    for (size_t i = 0; i < gpu->count; i++) {
      if (!store_specific(registry, gpu->names[i], primitive, rule))
        return false;
    }
    return true;
  }
  return store_specific(registry, *platform, primitive, rule);
}

int lctx_lowering_common_rule(const lctx_lowering_registry *registry,
                              int primitive) {
  if (!valid_primitive(registry, primitive))
    return -1;
  return registry->common[primitive];
}

int lctx_lowering_specific_rule(const lctx_lowering_registry *registry,
                                int primitive, lctx_str platform) {
  for (size_t i = 0; i < registry->specific_count; i++) {
    const lctx_lowering_specific *s = &registry->specific[i];
    if (s->primitive == primitive && lctx_str_equal(s->platform, platform))
      return s->rule;
  }
  return -1;
}

//===----------------------------------------------------------------------===//
// Platform-rules maps and rule selection
//===----------------------------------------------------------------------===//

void lctx_platform_rules_init(lctx_platform_rules *map) {
  map->count = 0;
}

static int map_find(const lctx_platform_rules *map, lctx_str platform) {
  for (size_t i = 0; i < map->count; i++) {
    if (lctx_str_equal(map->platforms[i], platform))
      return (int)i;
  }
  return -1;
}

bool lctx_platform_rules_set(lctx_platform_rules *map, lctx_str platform,
                             int rule) {
  int at = map_find(map, platform);
  if (at >= 0) {
    map->rules[at] = rule;
    return true;
  }
  if (map->count >= LCTX_LOWERING_MAX_PLATFORM_RULES)
    return false;
  map->platforms[map->count] = platform;
  map->rules[map->count++] = rule;
  return true;
}

int lctx_platform_rules_get(const lctx_platform_rules *map, lctx_str platform) {
  int at = map_find(map, platform);
  return at >= 0 ? map->rules[at] : -1;
}

/* `_platforms_for_eqn_ctx`: the compute-type override, or 0 platforms (always
 * 0 at a release without it). */
static size_t compute_type_platforms(const lctx_release *release,
                                     bool has_compute_type,
                                     lctx_str compute_type,
                                     const lctx_str **platforms) {
  if (!has_compute_type || !release->compute_type_platforms)
    return 0;
  if (lctx_str_equal_cstr(compute_type, "device_host")) {
    *platforms = CPU_LIST;
    return 1;
  }
  if (lctx_str_equal_cstr(compute_type, "tpu_sparsecore")) {
    *platforms = TPU_LIST;
    return 1;
  }
  return 0;
}

void lctx_lowering_get_rules(const lctx_lowering_registry *registry,
                             const lctx_lowering_overrides *overrides,
                             const lctx_str *module_platforms,
                             size_t module_platform_count, int primitive,
                             const lctx_str *compute_type,
                             lctx_lowering_rules *out) {
  lctx_platform_rules_init(&out->platform_rules);
  out->default_rule = -1;
  out->overridden = false;
  for (size_t i = 0; overrides && i < overrides->count; i++) {
    if (overrides->primitives[i] == primitive) {
      out->default_rule = overrides->rules[i];
      out->overridden = true;
      return;
    }
  }
  const lctx_str *list = module_platforms;
  size_t n = compute_type_platforms(
      release_of(registry), compute_type != NULL,
      compute_type ? *compute_type : lctx_str_make(NULL, 0), &list);
  if (n == 0) {
    list = module_platforms;
    n = module_platform_count;
  }
  for (size_t i = 0; i < n; i++) {
    int rule = lctx_lowering_specific_rule(registry, primitive, list[i]);
    if (rule >= 0)
      (void)lctx_platform_rules_set(&out->platform_rules, list[i], rule);
  }
  out->default_rule = lctx_lowering_common_rule(registry, primitive);
}

//===----------------------------------------------------------------------===//
// Lowering contexts
//===----------------------------------------------------------------------===//

void lctx_lowering_context_init(lctx_lowering_context *context) {
  memset(context, 0, sizeof *context);
  lctx_module_context_init(&context->module);
}

bool lctx_lowering_context_narrow(lctx_lowering_context *context,
                                  const lctx_str *platforms, size_t count) {
  if (count > LCTX_LOWERING_MAX_PLATFORMS)
    return false;
  context->has_platforms = true;
  context->platform_count = count;
  for (size_t i = 0; i < count; i++)
    context->platforms[i] = platforms[i];
  return true;
}

size_t lctx_lowering_eqn_platforms(const lctx_lowering_context *context,
                                   const lctx_str **platforms) {
  return lctx_lowering_eqn_platforms_at(NULL, context, platforms);
}

size_t lctx_lowering_eqn_platforms_at(const lctx_release *release,
                                      const lctx_lowering_context *context,
                                      const lctx_str **platforms) {
  size_t n = compute_type_platforms(lctx_release_resolve(release),
                                    context->has_compute_type,
                                    context->compute_type, platforms);
  if (n > 0)
    return n;
  if (context->has_platforms && context->platform_count > 0) {
    *platforms = context->platforms;
    return context->platform_count;
  }
  *platforms = context->module.platforms;
  return context->module.platform_count;
}

//===----------------------------------------------------------------------===//
// Running rules
//===----------------------------------------------------------------------===//

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

static void copy_list(lctx_str *dst, size_t *dst_count, const lctx_str *src,
                      size_t count) {
  *dst_count = count;
  for (size_t i = 0; i < count; i++)
    dst[i] = src[i];
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
  memset(e, 0, sizeof *e);
  e->kind = kind;
  e->parent = parent;
  e->depth = parent < 0 ? 0 : res->events[parent].depth + 1;
  e->level = parent < 0 ? 0 : res->events[parent].level;
  e->primitive = -1;
  e->rule = -1;
  e->action = -1;
  e->branch = -1;
  e->registration = -1;
  *index = (int)res->event_count++;
  return e;
}

static void set_module_platforms(lctx_lowering_event *e,
                                 const lctx_lowering_context *ctx) {
  copy_list(e->module_platforms, &e->module_platform_count,
            ctx->module.platforms, ctx->module.platform_count);
}

static bool lower_eqn(run *r, const lctx_lowering_context *ctx, int primitive,
                      int parent, int level);
static bool per_platform(run *r, const lctx_lowering_context *ctx,
                         lctx_str description, const lctx_platform_rules *pr,
                         int default_rule, int parent);

static bool list_contains(const lctx_str *list, size_t n, lctx_str p);

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

static bool call_rule(run *r, const lctx_lowering_context *ctx, int rule,
                      bool direct, int parent) {
  const lctx_lowering_registry *reg = r->registry;
  if (!valid_rule(reg, rule))
    return limit(r, LCTX_LOWERING_LIMIT_BAD_ID);
  int call;
  lctx_lowering_event *e = new_event(r, LCTX_EVENT_CALL, parent, &call);
  if (!e)
    return false;
  e->rule = rule;
  e->direct = direct;
  e->has_platforms = ctx->has_platforms;
  copy_list(e->platforms, &e->platform_count, ctx->platforms,
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
    case LCTX_ACTION_LOWER_FUN: {
      if (level + 1 > LCTX_LOWERING_MAX_DEPTH)
        return limit(r, LCTX_LOWERING_LIMIT_DEPTH);
      /* `lower_fun`: `ctx.platforms is not None` replaces the module
       * platforms (by a list); the sub-equation's rule context starts
       * un-narrowed. */
      lctx_lowering_context sub = *ctx;
      if (ctx->has_platforms) {
        copy_list(sub.module.platforms, &sub.module.platform_count,
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
      if (release_of(reg)->compute_nesting_check && ctx->has_compute_type &&
          a->has_compute_type &&
          !lctx_str_equal(ctx->compute_type, a->compute_type))
        return body_raise2(
            r, &sub, call, rule, ak, LCTX_ERROR_NOT_IMPLEMENTED,
            lctx_str_from_cstr("Nesting `compute_on` with different compute "
                               "types is not supported yet. Current "
                               "compute_on type: "),
            ctx->compute_type);
      if (!lower_eqn(r, &sub, a->primitive, call, level + 1))
        return false;
      break;
    }
    case LCTX_ACTION_EMIT_MARKER: {
      int index;
      lctx_lowering_event *m = new_event(r, LCTX_EVENT_MARKER, call, &index);
      if (!m)
        return false;
      m->rule = rule;
      const lctx_str *list;
      size_t n = lctx_lowering_eqn_platforms_at(release_of(reg), ctx, &list);
      m->has_platforms = true;
      copy_list(m->platforms, &m->platform_count, list, n);
      set_module_platforms(m, ctx);
      break;
    }
    }
  }
  return true;
}

static bool list_contains(const lctx_str *list, size_t n, lctx_str p) {
  for (size_t i = 0; i < n; i++) {
    if (lctx_str_equal(list[i], p))
      return true;
  }
  return false;
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

/* `lower_per_platform`, steps 1-7 of semantics.md section 7. */
static bool per_platform(run *r, const lctx_lowering_context *ctx,
                         lctx_str description, const lctx_platform_rules *pr,
                         int default_rule, int parent) {
  const lctx_str *platforms;
  size_t n =
      lctx_lowering_eqn_platforms_at(release_of(r->registry), ctx, &platforms);

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
    if (map_find(&map, platforms[i]) < 0)
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
  bool module_wide = release_of(r->registry)->dispatch_module_platforms;
  if (module_wide) {
    if (r->top->module.platform_count <= 1)
      return raise_assertion(r, "");
    platforms = r->top->module.platforms;
    n = r->top->module.platform_count;
  }

  /* 7. The two-level dispatch. */
  int dispatch;
  lctx_lowering_event *d = new_event(r, LCTX_EVENT_DISPATCH, parent, &dispatch);
  if (!d)
    return false;
  d->has_platforms = true;
  copy_list(d->platforms, &d->platform_count, platforms, n);
  for (size_t i = 0; i < n; i++) {
    int slot = lctx_platform_rules_get(&map, platforms[i]);
    d->slots[i] = module_wide && slot < 0 ? 0 : slot;
  }
  d->kept_count = kept_count;
  for (size_t i = 0; i < kept_count; i++)
    d->kept[i] = kept[i];

  for (size_t i = 0; i < kept_count; i++) {
    lctx_lowering_context inner = *ctx;
    inner.has_platforms = true;
    inner.platform_count = 0;
    for (size_t k = 0; k < map.count; k++) {
      if (map.rules[k] == (int)i)
        inner.platforms[inner.platform_count++] = map.platforms[k];
    }
    int branch;
    lctx_lowering_event *b = new_event(r, LCTX_EVENT_BRANCH, dispatch, &branch);
    if (!b)
      return false;
    b->branch = (int)i;
    b->rule = kept[i];
    b->has_platforms = true;
    copy_list(b->platforms, &b->platform_count, inner.platforms,
              inner.platform_count);
    set_module_platforms(b, &inner);
    if (!call_rule(r, &inner, kept[i], false, branch))
      return false;
  }
  return true;
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
  size_t n =
      lctx_lowering_eqn_platforms_at(release_of(r->registry), ctx, &list);
  e->has_platforms = true;
  copy_list(e->platforms, &e->platform_count, list, n);
  set_module_platforms(e, ctx);
  copy_list(e->entries, &e->entry_count, pr->platforms, pr->count);
  for (size_t i = 0; i < pr->count; i++)
    e->entry_rules[i] = pr->rules[i];
  return index;
}

/* One equation, as `jaxpr_subcomp` lowers it. */
static bool lower_eqn(run *r, const lctx_lowering_context *ctx, int primitive,
                      int parent, int level) {
  const lctx_lowering_registry *reg = r->registry;
  if (!valid_primitive(reg, primitive))
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

//===----------------------------------------------------------------------===//
// Evaluation by platform index
//===----------------------------------------------------------------------===//

static void path_push(lctx_lowering_path *path, int event) {
  if (path->count >= LCTX_LOWERING_MAX_PATH) {
    path->truncated = true;
    return;
  }
  path->events[path->count++] = event;
}

static void walk(const lctx_lowering_result *res, int e, size_t index,
                 bool intended, lctx_lowering_path *path) {
  if (!path->determined)
    return;
  const lctx_lowering_event *ev = &res->events[e];
  if (ev->kind == LCTX_EVENT_CALL || ev->kind == LCTX_EVENT_MARKER)
    path_push(path, e);
  if (ev->kind == LCTX_EVENT_DISPATCH) {
    size_t n = ev->platform_count, entry = n;
    if (intended) {
      for (size_t k = 0; k < n && entry == n; k++) {
        if (lctx_str_equal(ev->platforms[k], res->index_platforms[index]))
          entry = k;
      }
      if (entry == n) {
        path->determined = false;
        return;
      }
    } else {
      /* stablehlo.case runs its last branch for an index out of range. */
      entry = index < n ? index : n - 1;
    }
    int slot = ev->slots[entry];
    for (size_t c = (size_t)e + 1; c < res->event_count; c++) {
      const lctx_lowering_event *ch = &res->events[c];
      if (ch->parent == e && ch->kind == LCTX_EVENT_BRANCH &&
          ch->branch == slot) {
        walk(res, (int)c, index, intended, path);
        return;
      }
    }
    return;
  }
  for (size_t c = (size_t)e + 1; c < res->event_count; c++) {
    if (res->events[c].parent == e)
      walk(res, (int)c, index, intended, path);
  }
}

static bool same_path(const lctx_lowering_path *a,
                      const lctx_lowering_path *b) {
  if (a->determined != b->determined || a->count != b->count)
    return false;
  for (size_t i = 0; i < a->count; i++) {
    if (a->events[i] != b->events[i])
      return false;
  }
  return true;
}

static void evaluate(lctx_lowering_result *res,
                     const lctx_lowering_context *ctx) {
  res->evaluated = true;
  copy_list(res->index_platforms, &res->index_count, ctx->module.platforms,
            ctx->module.platform_count);
  for (size_t i = 0; i < res->index_count; i++) {
    lctx_lowering_path *a = &res->actual[i], *t = &res->intended[i];
    memset(a, 0, sizeof *a);
    memset(t, 0, sizeof *t);
    a->determined = t->determined = true;
    if (res->event_count > 0) {
      walk(res, 0, i, false, a);
      walk(res, 0, i, true, t);
    }
    res->mismatch[i] = !same_path(a, t);
  }
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
  evaluate(res, ctx);
  return true;
}

bool lctx_lowering_lower_eqn(const lctx_lowering_registry *registry,
                             lctx_registry *backends,
                             const lctx_lowering_context *context,
                             int primitive, lctx_lowering_result *result) {
  run r = {registry, backends, result, context};
  result_reset(result);
  bool ok = release_of(registry)->has_lower_per_platform
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
  if (!release_of(registry)->has_lower_per_platform)
    return finish(result, context, limit(&r, LCTX_LOWERING_LIMIT_RELEASE));
  int eqn = new_eqn_event(&r, context, description, -1, platform_rules,
                          default_rule, false, -1, 0);
  bool ok = eqn >= 0 && per_platform(&r, context, description, platform_rules,
                                     default_rule, eqn);
  return finish(result, context, ok);
}

//===----------------------------------------------------------------------===//
// Rendering
//===----------------------------------------------------------------------===//

static void append_rule(const lctx_lowering_registry *registry, int rule,
                        lctx_buf *out) {
  if (valid_rule(registry, rule))
    lctx_buf_append_str(out, registry->rules[rule].name);
  else
    lctx_buf_append_cstr(out, "None");
}

static void append_list(lctx_buf *out, const char *label, const lctx_str *list,
                        size_t n) {
  lctx_buf_append_cstr(out, label);
  lctx_pyrepr_str_list(out, list, n);
}

static void format_backend(const lctx_lowering_event *e, lctx_buf *out) {
  lctx_buf_append_cstr(out, e->retried ? "get_backend retry optional="
                                       : "get_backend optional=");
  lctx_buf_append_cstr(out, e->optional ? "True" : "False");
  append_list(out, " module=", e->module_platforms, e->module_platform_count);
  lctx_buf_append_cstr(out, " -> ");
  lctx_buf_append_cstr(out, lctx_module_branch_name(e->backend_branch));
  lctx_buf_append_char(out, ' ');
  switch (e->result_kind) {
  case LCTX_OUTCOME_RAISE:
    lctx_buf_append_cstr(out, lctx_error_class_name(e->error));
    break;
  case LCTX_OUTCOME_CLIENT:
    if (e->origin == LCTX_CLIENT_PINNED) {
      lctx_buf_append_cstr(out, "pinned client ");
      lctx_pyrepr_str(out, e->client_platform);
    } else {
      lctx_buf_append_cstr(out, "client ");
      lctx_pyrepr_str(out, e->client_platform);
      lctx_buf_append_cstr(out, " registration ");
      lctx_buf_append_int(out, e->registration);
    }
    if (e->action_kind == LCTX_ACTION_READ_CLIENT_PLATFORM) {
      lctx_buf_append_cstr(out, " .platform ");
      lctx_pyrepr_str(out, e->client_attr);
    }
    break;
  default:
    lctx_buf_append_cstr(out, "None");
    break;
  }
}

void lctx_lowering_format_events(const lctx_lowering_registry *registry,
                                 const lctx_lowering_result *result,
                                 lctx_buf *out) {
  for (size_t i = 0; i < result->event_count; i++) {
    const lctx_lowering_event *e = &result->events[i];
    for (int d = 0; d < e->depth; d++)
      lctx_buf_append(out, "  ", 2);
    switch (e->kind) {
    case LCTX_EVENT_EQN:
      lctx_buf_append_cstr(out, "eqn ");
      lctx_buf_append_str(out, e->description);
      append_list(out, " module=", e->module_platforms,
                  e->module_platform_count);
      append_list(out, " platforms=", e->platforms, e->platform_count);
      lctx_buf_append_cstr(out, " rules={");
      for (size_t k = 0; k < e->entry_count; k++) {
        if (k > 0)
          lctx_buf_append(out, ", ", 2);
        lctx_buf_append_str(out, e->entries[k]);
        lctx_buf_append(out, ": ", 2);
        append_rule(registry, e->entry_rules[k], out);
      }
      lctx_buf_append_cstr(out, "} default=");
      append_rule(registry, e->rule, out);
      if (e->overridden)
        lctx_buf_append_cstr(out, " override");
      break;
    case LCTX_EVENT_DISPATCH:
      append_list(out, "case entries=", e->platforms, e->platform_count);
      lctx_buf_append_cstr(out, " slots=[");
      for (size_t k = 0; k < e->platform_count; k++) {
        if (k > 0)
          lctx_buf_append(out, ", ", 2);
        lctx_buf_append_int(out, e->slots[k]);
      }
      lctx_buf_append_cstr(out, "] kept=[");
      for (size_t k = 0; k < e->kept_count; k++) {
        if (k > 0)
          lctx_buf_append(out, ", ", 2);
        append_rule(registry, e->kept[k], out);
      }
      lctx_buf_append_char(out, ']');
      break;
    case LCTX_EVENT_BRANCH:
      lctx_buf_append_cstr(out, "branch ");
      lctx_buf_append_int(out, e->branch);
      lctx_buf_append_char(out, ' ');
      append_rule(registry, e->rule, out);
      append_list(out, " platforms=", e->platforms, e->platform_count);
      break;
    case LCTX_EVENT_CALL:
      lctx_buf_append_cstr(out, "call ");
      append_rule(registry, e->rule, out);
      if (e->has_platforms)
        append_list(out, " platforms=", e->platforms, e->platform_count);
      else
        lctx_buf_append_cstr(out, " platforms=None");
      append_list(out, " module=", e->module_platforms,
                  e->module_platform_count);
      if (e->direct)
        lctx_buf_append_cstr(out, " direct");
      break;
    case LCTX_EVENT_BACKEND:
      format_backend(e, out);
      break;
    case LCTX_EVENT_RAISE:
      lctx_buf_append_cstr(out, "raise ");
      lctx_buf_append_cstr(out, lctx_error_class_name(e->error));
      break;
    case LCTX_EVENT_MARKER:
      lctx_buf_append_cstr(out, "marker ");
      append_rule(registry, e->rule, out);
      append_list(out, " platforms=", e->platforms, e->platform_count);
      append_list(out, " module=", e->module_platforms,
                  e->module_platform_count);
      break;
    }
    lctx_buf_append_char(out, '\n');
  }
}

void lctx_lowering_format_path(const lctx_lowering_registry *registry,
                               const lctx_lowering_result *result,
                               const lctx_lowering_path *path, lctx_buf *out) {
  if (!path->determined) {
    lctx_buf_append_char(out, '?');
    return;
  }
  size_t written = 0;
  for (size_t i = 0; i < path->count; i++) {
    const lctx_lowering_event *e = &result->events[path->events[i]];
    if (e->kind != LCTX_EVENT_CALL)
      continue;
    if (written++ > 0)
      lctx_buf_append(out, " > ", 3);
    append_rule(registry, e->rule, out);
  }
}
