/*
 * lctx_example_plugin.c - an example implementation of JAX's backend
 * selection and multi-platform lowering, exported through the lctx
 * implementation ABI version 2 (reference/include/lctx/impl_abi.h,
 * conformance/ABI.md).
 *
 * It models these JAX functions:
 *   backends()                      jax/_src/xla_bridge.py
 *   canonicalize_platform(name)     jax/_src/xla_bridge.py
 *   get_backend(platform)           jax/_src/xla_bridge.py
 *   ModuleContext.get_backend()     jax/_src/interpreters/mlir.py
 *   register_lowering()             jax/_src/interpreters/mlir.py
 *   lowering one equation           jax/_src/interpreters/mlir.py
 *     (jaxpr_subcomp's rule selection, lower_per_platform, lower_fun),
 *     with the module's MLIR text (generic stablehlo.case ops)
 *
 * It was written from a description of JAX's behaviour and JAX's sources,
 * without any lctx code (the ABI header is its only dependency). It is meant
 * as the starting point for your own implementation: replace the bodies of
 * the operations with calls into your runtime and keep the outcome
 * plumbing.
 *
 * The plugin is these files, one mechanism each (the section numbers are
 * those of README.md):
 *   plugin.h               what the files share: the session and its
 *                          registry, and the functions one file calls in
 *                          another
 *   outcome.c              1. outcome helpers: writing an operation's result
 *                             into lctx's buffer
 *                          2. Python formatting: repr() of strings and lists
 *   lctx_example_plugin.c  3. the session: configuration, registration plan
 *                          8. the exported table (this file)
 *   registry.c             3. lookups in the session's registry
 *                          4. registry initialization (backends())
 *                          5. the four backend-selection operations
 *   register_lowering.c    6. register_lowering
 *   lowering.c             7. lowering one equation, and its MLIR text
 * Build them together into one shared library (CMakeLists.txt here, or
 * `cc ... *.c`, README.md).
 *
 * There is no global mutable state: everything a case needs lives in a
 * heap-allocated session, and the only static objects are constants.
 */
#include "plugin.h"

#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// 3. The session (its types are in plugin.h)
//===----------------------------------------------------------------------===//

/// Builds the registration plan. With jax_platforms set: its entries split
/// on ',' (no trimming), "gpu" expanded to cuda, rocm, oneapi, priorities
/// N..1, all loud. Otherwise every factory with its own priority and
/// fail_quietly. Returns false when out of memory.
static bool build_plan(session *s) {
  const lctx_impl_config *config = s->config;
  if (!jax_platforms_set(s)) {
    s->plan_count = config->factory_count;
    s->plan = calloc(s->plan_count > 0 ? s->plan_count : 1, sizeof *s->plan);
    if (s->plan == NULL)
      return false;
    for (size_t i = 0; i < s->plan_count; i++)
      s->plan[i] = (registration){config->factories[i].name,
                                  config->factories[i].priority,
                                  config->factories[i].fail_quietly != 0};
    return true;
  }

  size_t length = strlen(config->jax_platforms);
  s->platform_list = malloc(length + 1);
  if (s->platform_list == NULL)
    return false;
  memcpy(s->platform_list, config->jax_platforms, length + 1);
  size_t entries = 1;
  for (size_t i = 0; i < length; i++) {
    if (s->platform_list[i] == ',') {
      s->platform_list[i] = '\0';
      entries++;
    }
  }
  // At most GPU_PLATFORM_COUNT registrations per entry.
  s->plan = calloc(entries * GPU_PLATFORM_COUNT, sizeof *s->plan);
  if (s->plan == NULL)
    return false;
  const char *entry = s->platform_list;
  for (size_t e = 0; e < entries; e++) {
    if (strcmp(entry, "gpu") == 0) {
      for (size_t g = 0; g < GPU_PLATFORM_COUNT; g++)
        s->plan[s->plan_count++].platform = gpu_platforms[g];
    } else {
      s->plan[s->plan_count++].platform = entry;
    }
    entry += strlen(entry) + 1;
  }
  for (size_t i = 0; i < s->plan_count; i++) {
    s->plan[i].priority = (int64_t)(s->plan_count - i);
    s->plan[i].fail_quietly = false;
  }
  return true;
}

/// Checks the lowering rules of the configuration (ABI v2): names and the
/// texts the action kinds need are present, kinds are known.
static bool rules_valid(const lctx_impl_config *config) {
  if (config->rule_count > 0 && config->rules == NULL)
    return false;
  for (size_t i = 0; i < config->rule_count; i++) {
    const lctx_impl_rule *r = &config->rules[i];
    if (r->name == NULL || (r->action_count > 0 && r->actions == NULL))
      return false;
    for (size_t a = 0; a < r->action_count; a++) {
      const lctx_impl_action *act = &r->actions[a];
      if (act->kind < LCTX_IMPL_ACTION_GET_BACKEND ||
          act->kind > LCTX_IMPL_ACTION_EMIT_MARKER)
        return false;
      if ((act->kind == LCTX_IMPL_ACTION_RAISE_IF_MULTI ||
           act->kind == LCTX_IMPL_ACTION_LOWER_FUN) &&
          act->text == NULL)
        return false;
    }
  }
  return true;
}

static void session_destroy(void *opaque) {
  session *s = opaque;
  if (s == NULL)
    return;
  for (size_t i = 0; i < s->lowering_count; i++) {
    free(s->lowerings[i].primitive);
    free(s->lowerings[i].platform);
  }
  free(s->lowerings);
  free(s->platform_list);
  free(s->plan);
  free(s->clients);
  free(s->failures);
  free(s);
}

static void *session_create(const lctx_impl_config *config) {
  if (config == NULL || config->jax_platforms == NULL ||
      config->jax_platform_name == NULL || config->jax_xla_backend == NULL ||
      (config->factory_count > 0 && config->factories == NULL))
    return NULL;
  for (size_t i = 0; i < config->factory_count; i++) {
    const lctx_impl_factory *f = &config->factories[i];
    if (f->name == NULL || f->message == NULL || f->behaviour < 0 ||
        f->behaviour > LCTX_IMPL_FACTORY_NO_DEVICES)
      return NULL;
  }
  if (!rules_valid(config))
    return NULL;

  session *s = calloc(1, sizeof *s);
  if (s == NULL)
    return NULL;
  s->config = config;
  if (!build_plan(s))
    goto fail;
  size_t room = s->plan_count > 0 ? s->plan_count : 1;
  s->clients = calloc(room, sizeof *s->clients);
  s->failures = calloc(room, sizeof *s->failures);
  if (s->clients == NULL || s->failures == NULL)
    goto fail;
  return s;
fail:
  session_destroy(s);
  return NULL;
}

//===----------------------------------------------------------------------===//
// 8. The exported table
//===----------------------------------------------------------------------===//

static const lctx_impl_table example_table = {
    .abi_version = LCTX_IMPL_ABI_VERSION,
    .name = "lctx-example-c",
    .version = "1.0.0",
    .operations = LCTX_IMPL_OP_BACKENDS | LCTX_IMPL_OP_CANONICALIZE |
                  LCTX_IMPL_OP_GET_BACKEND | LCTX_IMPL_OP_MODULE_GET_BACKEND |
                  LCTX_IMPL_OP_REGISTER_LOWERING |
                  LCTX_IMPL_OP_LOWER_PER_PLATFORM,
    .session_create = session_create,
    .session_destroy = session_destroy,
    .backends = op_backends,
    .canonicalize = op_canonicalize,
    .get_backend = op_get_backend,
    .module_get_backend = op_module_get_backend,
    .register_lowering = op_register_lowering,
    .lower_per_platform = op_lower_per_platform,
};

// Declared here for -Wmissing-prototypes; exported with default visibility.
__attribute__((visibility("default"))) const lctx_impl_table *
lctx_impl_entry(void);

const lctx_impl_table *lctx_impl_entry(void) {
  return &example_table;
}
