/*
 * lowering.c - lowering rules, the lowering registry and rule selection
 * (see lctx/lowering.h; semantics.md section 6;
 * jax/_src/interpreters/mlir.py at jax-ml/jax@cec06d116c05:
 * `register_lowering` lines 1000-1035, `_get_lowering_rules` 2335-2361,
 * `_get_override_lowering_rule` 2435-2443, `_platforms_for_eqn` 2484-2498).
 *
 * Owns rule bodies (actions), the registry of primitives, rules and their
 * common and platform-specific registrations, register_lowering's platform
 * check, the platform-rules maps, the selection of an equation's rules and
 * the platform list an equation reads (its compute type, its narrowed
 * platforms or its module's), as the release of the registry's
 * configuration has them (lctx/release.h): the known platforms, the `gpu`
 * members, whether register_lowering checks the platform and whether a
 * compute type chooses platforms. Running rules is lowering_run.c's;
 * evaluating a run by platform index lowering_paths.c's; rendering it
 * lowering_format.c's. Must not allocate, keep global state or compare
 * versions; must not emit MLIR.
 */
#include "lowering_private.h"

#include "lctx/xla_bridge.h"

#include <string.h>

static const lctx_str CPU_LIST[] = {{"cpu", 3}};
static const lctx_str TPU_LIST[] = {{"tpu", 3}};

const lctx_release *
lctx_lowering_release_of(const lctx_lowering_registry *registry) {
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

/* A get_backend action of `kind`, optional or not. */
static lctx_lowering_action get_backend(lctx_lowering_action_kind kind,
                                        bool optional) {
  lctx_lowering_action a = action(kind);
  a.optional = optional;
  return a;
}

lctx_lowering_action lctx_action_get_backend(bool optional) {
  return get_backend(LCTX_ACTION_GET_BACKEND, optional);
}

lctx_lowering_action lctx_action_guarded_get_backend(bool optional) {
  return get_backend(LCTX_ACTION_GUARDED_GET_BACKEND, optional);
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

bool lctx_lowering_valid_primitive(const lctx_lowering_registry *registry,
                                   int primitive) {
  return primitive >= 0 && (size_t)primitive < registry->primitive_count;
}

bool lctx_lowering_valid_rule(const lctx_lowering_registry *registry,
                              int rule) {
  return rule >= 0 && (size_t)rule < registry->rule_count;
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
  if (!lctx_lowering_valid_primitive(registry, primitive))
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
  if (!lctx_lowering_valid_rule(registry, rule))
    return lctx_str_make(NULL, 0);
  return registry->rules[rule].name;
}

/* Every known platform, possibly repeated, unsorted; returns the count. */
static size_t collect_known(const lctx_lowering_registry *registry,
                            lctx_str *names) {
  size_t n = 0;
  const lctx_release_list *builtin =
      &lctx_lowering_release_of(registry)->known_builtin;
  for (size_t i = 0; i < builtin->count; i++)
    names[n++] = builtin->names[i];
  const lctx_registry_config *config = registry->config;
  for (size_t i = 0; config && i < config->factory_count; i++)
    names[n++] = lctx_str_from_cstr(config->factories[i].name);
  return n;
}

/* Whether `a` sorts after `b` by code point (unsigned bytes), as
 * lctx_str_compare(a, b) > 0: in place, since names are short and most
 * differ in their first byte. */
static bool sorts_after(lctx_str a, lctx_str b) {
  size_t n = a.length < b.length ? a.length : b.length;
  for (size_t i = 0; i < n; i++) {
    unsigned char x = (unsigned char)a.data[i], y = (unsigned char)b.data[i];
    if (x != y)
      return x > y;
  }
  return a.length > b.length;
}

void lctx_lowering_format_known_platforms(
    const lctx_lowering_registry *registry, lctx_buf *out) {
  lctx_str names[LCTX_RELEASE_MAX_LIST + LCTX_MAX_FACTORIES];
  size_t n = collect_known(registry, names);
  /* Insertion sort by code point (unsigned bytes). */
  for (size_t i = 1; i < n; i++) {
    lctx_str key = names[i];
    size_t j = i;
    while (j > 0 && sorts_after(names[j - 1], key)) {
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
  /* collect_known's names, tested where they are (no list built). */
  const lctx_release_list *builtin =
      &lctx_lowering_release_of(registry)->known_builtin;
  for (size_t i = 0; i < builtin->count; i++) {
    if (lctx_str_equal(builtin->names[i], platform))
      return true;
  }
  const lctx_registry_config *config = registry->config;
  for (size_t i = 0; config && i < config->factory_count; i++) {
    if (lctx_str_equal_cstr(platform, config->factories[i].name))
      return true;
  }
  return false;
}

/* A view of `name` with the registry's lifetime: a static name or the
 * configuration's factory name. */
static lctx_str stable_name(const lctx_lowering_registry *registry,
                            lctx_str name) {
  const lctx_release *release = lctx_lowering_release_of(registry);
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
  if (!lctx_lowering_valid_primitive(registry, primitive) ||
      !lctx_lowering_valid_rule(registry, rule))
    return false;
  if (platform == NULL) {
    registry->common[primitive] = rule;
    return true;
  }
  const lctx_release *release = lctx_lowering_release_of(registry);
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
  if (!lctx_lowering_valid_primitive(registry, primitive))
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
      lctx_lowering_release_of(registry), compute_type != NULL,
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
