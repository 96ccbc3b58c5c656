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
 * Layout of this file:
 *   1. outcome helpers: writing an operation's result into lctx's buffer
 *   2. Python formatting: repr() of strings and lists
 *   3. the session: configuration, registration plan, registry state
 *   4. registry initialization (backends())
 *   5. the four backend-selection operations
 *   6. register_lowering
 *   7. lowering one equation, and its MLIR text
 *   8. the exported table
 *
 * There is no global mutable state: everything a case needs lives in a
 * heap-allocated session, and the only static objects are constants.
 */
#include "lctx/impl_abi.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// 1. Outcome helpers
//===----------------------------------------------------------------------===//

/// Marks an outcome whose text did not fit in lctx's buffer. The operation
/// then reports a failure (non-zero status) instead of a truncated message.
#define TEXT_OVERFLOW SIZE_MAX

/// Resets an outcome to "returned None" with an empty text.
static void outcome_reset(lctx_impl_outcome *out) {
  out->kind = LCTX_IMPL_NONE;
  out->error_class = 0;
  out->origin = LCTX_IMPL_ORIGIN_REGISTRY;
  out->registration = 0;
  out->text_length = 0;
  if (out->text != NULL && out->text_capacity > 0)
    out->text[0] = '\0';
}

/// Appends `n` bytes to the outcome's text, keeping it NUL-terminated.
static void append_bytes(lctx_impl_outcome *out, const char *s, size_t n) {
  if (out->text_length == TEXT_OVERFLOW)
    return;
  if (out->text == NULL || out->text_capacity == 0 ||
      n > out->text_capacity - 1 - out->text_length) {
    out->text_length = TEXT_OVERFLOW;
    return;
  }
  memcpy(out->text + out->text_length, s, n);
  out->text_length += n;
  out->text[out->text_length] = '\0';
}

static void append(lctx_impl_outcome *out, const char *s) {
  append_bytes(out, s, strlen(s));
}

/// The status an operation returns: 0 unless its text overflowed.
static lctx_impl_status outcome_status(const lctx_impl_outcome *out) {
  return out->text_length == TEXT_OVERFLOW ? 1 : 0;
}

/// Starts a raised Python exception of class `error_class`; the caller
/// appends the message. Returns false, so that helpers can
/// `return raise_error(...)` to signal "an exception was raised".
static bool raise_error(lctx_impl_outcome *out, int32_t error_class,
                        const char *message) {
  outcome_reset(out);
  out->kind = LCTX_IMPL_RAISE;
  out->error_class = error_class;
  append(out, message);
  return false;
}

//===----------------------------------------------------------------------===//
// 2. Python formatting (semantics.md section 8; names are ASCII)
//===----------------------------------------------------------------------===//

/// Appends Python's repr() of the string `s`.
static void append_repr(lctx_impl_outcome *out, const char *s) {
  // Single quotes, unless the string holds a ' and no ".
  char quote = '\'';
  if (strchr(s, '\'') != NULL && strchr(s, '"') == NULL)
    quote = '"';
  append_bytes(out, &quote, 1);
  for (const char *c = s; *c != '\0'; c++) {
    unsigned char b = (unsigned char)*c;
    if (b == '\\' || b == (unsigned char)quote) {
      char escaped[2] = {'\\', (char)b};
      append_bytes(out, escaped, 2);
    } else if (b == '\t') {
      append(out, "\\t");
    } else if (b == '\n') {
      append(out, "\\n");
    } else if (b == '\r') {
      append(out, "\\r");
    } else if (b < 0x20 || b == 0x7f) {
      static const char hex[] = "0123456789abcdef";
      char escaped[4] = {'\\', 'x', hex[b >> 4], hex[b & 0xf]};
      append_bytes(out, escaped, 4);
    } else {
      append_bytes(out, c, 1);
    }
  }
  append_bytes(out, &quote, 1);
}

/// Appends the Python list repr of `count` strings, each read through
/// `name(items, i)`, e.g. ['cpu', 'tpu'].
static void append_list_repr(lctx_impl_outcome *out, const void *items,
                             size_t count,
                             const char *(*name)(const void *, size_t)) {
  append(out, "[");
  for (size_t i = 0; i < count; i++) {
    if (i > 0)
      append(out, ", ");
    append_repr(out, name(items, i));
  }
  append(out, "]");
}

//===----------------------------------------------------------------------===//
// 3. The session
//===----------------------------------------------------------------------===//

/// One attempt to initialize a platform: what backends() loops over.
typedef struct registration {
  const char *platform;
  int64_t priority;
  bool fail_quietly;
} registration;

/// A client held by the registry: the platform it is stored under (its real
/// platform) and the registration that created it.
typedef struct client {
  const char *platform;
  int32_t registration;
} client;

/// A quiet initialization failure: the platform and the factory whose
/// failure it was (its message is rebuilt from the factory when needed).
typedef struct failure {
  const char *platform;
  const lctx_impl_factory *factory;
} failure;

/// One stored lowering rule (ABI v2): `rule` (an index into the config's
/// rules) is the rule of `primitive` for `platform`, or its common rule when
/// `platform` is NULL. Both strings are owned copies.
typedef struct lowering_entry {
  char *primitive;
  char *platform;
  size_t rule;
} lowering_entry;

typedef struct session {
  const lctx_impl_config *config;

  // Lowering rules registered so far (ABI v2), one entry per (primitive,
  // platform) pair; a later registration replaces the rule in place.
  lowering_entry *lowerings;
  size_t lowering_count;
  size_t lowering_capacity;

  // The registration plan, fixed at session creation.
  char *platform_list; ///< copy of jax_platforms with ',' turned into NUL
  registration *plan;  ///< registrations in order
  size_t plan_count;

  // The registry: empty until the first successful initialization, then
  // never changed again. Both arrays have room for plan_count entries.
  client *clients; ///< initialized platforms, in registry order, unique
  size_t client_count;
  failure *failures; ///< quiet failures, unique platforms
  size_t failure_count;
  bool has_default;
  client default_client;
} session;

static bool jax_platforms_set(const session *s) {
  return s->config->jax_platforms[0] != '\0';
}

/// The registered factory called `name`, or NULL.
static const lctx_impl_factory *find_factory(const session *s,
                                             const char *name) {
  for (size_t i = 0; i < s->config->factory_count; i++)
    if (strcmp(s->config->factories[i].name, name) == 0)
      return &s->config->factories[i];
  return NULL;
}

/// The initialized client for `platform`, or NULL.
static const client *find_client(const session *s, const char *platform) {
  for (size_t i = 0; i < s->client_count; i++)
    if (strcmp(s->clients[i].platform, platform) == 0)
      return &s->clients[i];
  return NULL;
}

/// The quiet failure recorded for `platform`, or NULL.
static const failure *find_failure(const session *s, const char *platform) {
  for (size_t i = 0; i < s->failure_count; i++)
    if (strcmp(s->failures[i].platform, platform) == 0)
      return &s->failures[i];
  return NULL;
}

/// The only platform alias: "gpu" stands for these, in this order.
static const char *const gpu_platforms[] = {"cuda", "rocm", "oneapi"};
#define GPU_PLATFORM_COUNT 3

static bool is_gpu_platform(const char *platform) {
  for (size_t i = 0; i < GPU_PLATFORM_COUNT; i++)
    if (strcmp(platform, gpu_platforms[i]) == 0)
      return true;
  return false;
}

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
// 4. Registry initialization: backends()
//===----------------------------------------------------------------------===//

static const char *factory_name_at(const void *items, size_t i) {
  return ((const lctx_impl_factory *)items)[i].name;
}

static const char *client_platform_at(const void *items, size_t i) {
  return ((const client *)items)[i].platform;
}

/// Appends str(err) for a failed initialization of `platform` by `factory`
/// (NULL when no factory has that name).
static void append_init_error(lctx_impl_outcome *out, const session *s,
                              const char *platform,
                              const lctx_impl_factory *factory) {
  if (factory == NULL) {
    append(out, "Backend '");
    append(out, platform);
    append(out, "' is not in the list of known backends: ");
    append_list_repr(out, s->config->factories, s->config->factory_count,
                     factory_name_at);
    append(out, ".");
  } else if (factory->behaviour == LCTX_IMPL_FACTORY_NONE) {
    append(out, "Could not initialize backend '");
    append(out, platform);
    append(out, "'");
  } else if (factory->behaviour == LCTX_IMPL_FACTORY_NO_DEVICES) {
    append(out, "Backend '");
    append(out, platform);
    append(out, "' provides no devices.");
  } else {
    append(out, factory->message);
  }
}

/// Stores `c` under its platform; a platform already present keeps its
/// position and gets the new client (a repeated jax_platforms entry).
static void store_client(session *s, client c) {
  for (size_t i = 0; i < s->client_count; i++) {
    if (strcmp(s->clients[i].platform, c.platform) == 0) {
      s->clients[i] = c;
      return;
    }
  }
  s->clients[s->client_count++] = c;
}

static void record_failure(session *s, failure f) {
  const failure *old = find_failure(s, f.platform);
  s->failures[old ? (size_t)(old - s->failures) : s->failure_count++] = f;
}

/// Makes sure the registry is initialized. Returns true when it is, false
/// after filling `out` with the exception initialization raised.
///
/// A registry that holds any client is returned as is, even if the attempt
/// that filled it later raised (the partial registry). One that holds none
/// is initialized again from scratch on every call.
static bool ensure_registry(session *s, lctx_impl_outcome *out) {
  if (s->client_count > 0)
    return true;

  // Nothing is stored yet, so this is a fresh attempt. (JAX keeps quiet
  // failures of an earlier failed attempt, but the factories behave the same
  // every time, so the attempt records the same ones again.)
  s->failure_count = 0;
  s->has_default = false;
  int64_t best_priority = -1000;

  for (size_t i = 0; i < s->plan_count; i++) {
    const registration *r = &s->plan[i];
    // cuda without a visible NVIDIA GPU: neither initialized nor failed.
    if (strcmp(r->platform, "cuda") == 0 && !s->config->nvidia_gpu_visible)
      continue;

    const lctx_impl_factory *factory = find_factory(s, r->platform);
    if (factory != NULL && factory->behaviour == LCTX_IMPL_FACTORY_CLIENT) {
      client c = {r->platform, (int32_t)i};
      store_client(s, c);
      // Strictly greater: ties keep the earlier client.
      if (r->priority > best_priority) {
        s->default_client = c;
        s->has_default = true;
        best_priority = r->priority;
      }
      continue;
    }

    if (r->fail_quietly) {
      record_failure(s, (failure){r->platform, factory});
      continue;
    }
    raise_error(out, LCTX_IMPL_RUNTIME_ERROR, "Unable to initialize backend '");
    append(out, r->platform);
    append(out, "': ");
    append_init_error(out, s, r->platform, factory);
    append(out, jax_platforms_set(s)
                    ? " (set JAX_PLATFORMS='' to automatically choose an "
                      "available backend)"
                    : " (you may need to uninstall the failing plugin "
                      "package, or set JAX_PLATFORMS=cpu to skip this "
                      "backend.)");
    return false;
  }

  if (!s->has_default)
    return raise_error(out, LCTX_IMPL_ASSERTION_ERROR, "");
  return true;
}

//===----------------------------------------------------------------------===//
// 5. The backend-selection operations
//===----------------------------------------------------------------------===//

/// canonicalize_platform(name): sets `*result` (to `name` or a static
/// string) and returns true, or fills `out` with the exception and returns
/// false.
static bool canonicalize_platform(session *s, const char *name,
                                  const char **result, lctx_impl_outcome *out) {
  if (strcmp(name, "gpu") != 0) { // not an alias: untouched, no registry
    *result = name;
    return true;
  }
  if (!ensure_registry(s, out))
    return false;
  for (size_t g = 0; g < GPU_PLATFORM_COUNT; g++) {
    if (find_client(s, gpu_platforms[g]) != NULL) {
      *result = gpu_platforms[g];
      return true;
    }
  }
  raise_error(out, LCTX_IMPL_RUNTIME_ERROR,
              "Unknown backend: 'gpu' requested, but no platforms that are "
              "instances of gpu are present. Platforms present are: ");
  for (size_t i = 0; i < s->client_count; i++) {
    if (i > 0)
      append(out, ",");
    append(out, s->clients[i].platform);
  }
  return false;
}

static void return_registry_client(lctx_impl_outcome *out, client c) {
  outcome_reset(out);
  out->kind = LCTX_IMPL_CLIENT;
  out->origin = LCTX_IMPL_ORIGIN_REGISTRY;
  out->registration = c.registration;
  append(out, c.platform);
}

/// xla_bridge.get_backend(platform), `platform` NULL meaning None.
static void get_backend_into(session *s, const char *platform,
                             lctx_impl_outcome *out) {
  // None or "": the jax_xla_backend config, else jax_platform_name, else
  // None.
  if (platform == NULL || platform[0] == '\0') {
    const lctx_impl_config *config = s->config;
    platform = config->jax_xla_backend[0] != '\0' ? config->jax_xla_backend
               : config->jax_platform_name[0] != '\0'
                   ? config->jax_platform_name
                   : NULL;
  }
  if (!ensure_registry(s, out))
    return;

  if (platform == NULL) { // the default client
    if (!s->has_default)
      raise_error(out, LCTX_IMPL_ASSERTION_ERROR, "");
    else
      return_registry_client(out, s->default_client);
    return;
  }

  const char *canonical;
  if (!canonicalize_platform(s, platform, &canonical, out))
    return;
  const client *c = find_client(s, canonical);
  if (c != NULL) {
    return_registry_client(out, *c);
    return;
  }
  const failure *f = find_failure(s, canonical);
  if (f != NULL) {
    raise_error(out, LCTX_IMPL_RUNTIME_ERROR, "Backend '");
    append(out, canonical);
    append(out, "' failed to initialize: ");
    append_init_error(out, s, canonical, f->factory);
    append(out, ". ");
  } else {
    raise_error(out, LCTX_IMPL_RUNTIME_ERROR, "Unknown backend ");
    append(out, canonical);
    append(out, ". ");
  }
  append(out, "Available backends are ");
  append_list_repr(out, s->clients, s->client_count, client_platform_at);
}

static lctx_impl_status op_backends(void *opaque, lctx_impl_outcome *out) {
  session *s = opaque;
  outcome_reset(out);
  if (ensure_registry(s, out)) {
    out->kind = LCTX_IMPL_PLATFORMS;
    append_list_repr(out, s->clients, s->client_count, client_platform_at);
  }
  return outcome_status(out);
}

static lctx_impl_status op_canonicalize(void *opaque, const char *name,
                                        lctx_impl_outcome *out) {
  session *s = opaque;
  outcome_reset(out);
  const char *canonical;
  if (canonicalize_platform(s, name, &canonical, out)) {
    outcome_reset(out);
    out->kind = LCTX_IMPL_STRING;
    append(out, canonical);
  }
  return outcome_status(out);
}

static lctx_impl_status op_get_backend(void *opaque, const char *platform,
                                       lctx_impl_outcome *out) {
  outcome_reset(out);
  get_backend_into(opaque, platform, out);
  return outcome_status(out);
}

/// ModuleContext(platforms, backend).get_backend(optional) into `out`.
/// `backend` is the real platform of the pinned client, NULL for none.
/// `empty_index` is the IndexError of platforms[0] when there are none: a
/// module's own platforms are a tuple, narrowed ones that lower_fun put in
/// place a list. Also what the lowering rules of section 7 call.
static void module_get_backend_into(session *s, const char *const *platforms,
                                    size_t platform_count, const char *backend,
                                    bool optional, const char *empty_index,
                                    lctx_impl_outcome *out) {
  outcome_reset(out);

  // B1: several platforms (duplicates count). Neither the backend nor the
  // registry is looked at.
  if (platform_count > 1) {
    if (!optional)
      raise_error(
          out, LCTX_IMPL_NOT_IMPLEMENTED_ERROR,
          "accessing .backend in multi-lowering setting. This can occur "
          "when lowering a primitive that has not been adapted to "
          "multi-platform lowering");
    return;
  }

  // B2: a pinned client. Its .platform is "gpu" for the GPU platforms, and
  // is canonicalized (possibly initializing the registry and raising, even
  // when optional) before platforms[0] is read.
  if (backend != NULL) {
    const char *dot_platform = is_gpu_platform(backend) ? "gpu" : backend;
    const char *canonical;
    if (!canonicalize_platform(s, dot_platform, &canonical, out))
      return;
    if (platform_count == 0) {
      raise_error(out, LCTX_IMPL_INDEX_ERROR, empty_index);
    } else if (strcmp(canonical, platforms[0]) != 0) { // B2a
      if (!optional) {
        raise_error(out, LCTX_IMPL_VALUE_ERROR,
                    "the platform for the specified backend ");
        append(out, canonical);
        append(out, " is different from the lowering platform ");
        append(out, platforms[0]);
      }
    } else { // B2b: the pinned client itself
      out->kind = LCTX_IMPL_CLIENT;
      out->origin = LCTX_IMPL_ORIGIN_PINNED;
      append(out, backend);
    }
    return;
  }

  // B3: no pinned client. get_backend's errors are not suppressed.
  if (platform_count == 0)
    raise_error(out, LCTX_IMPL_INDEX_ERROR, empty_index);
  else
    get_backend_into(s, platforms[0], out);
}

static lctx_impl_status
op_module_get_backend(void *opaque, const char *const *platforms,
                      size_t platform_count, const char *backend,
                      int32_t optional, lctx_impl_outcome *out) {
  module_get_backend_into(opaque, platforms, platform_count, backend,
                          optional != 0, "tuple index out of range", out);
  return outcome_status(out);
}

//===----------------------------------------------------------------------===//
// 6. register_lowering (ABI v2; semantics.md section 6)
//===----------------------------------------------------------------------===//

/// The index of the session's rule called `name`, or -1.
static ptrdiff_t find_rule(const session *s, const char *name) {
  for (size_t i = 0; i < s->config->rule_count; i++)
    if (strcmp(s->config->rules[i].name, name) == 0)
      return (ptrdiff_t)i;
  return -1;
}

/// The rule registered for `primitive` on `platform` (NULL: the common
/// rule), or -1.
static ptrdiff_t find_lowering(const session *s, const char *primitive,
                               const char *platform) {
  for (size_t i = 0; i < s->lowering_count; i++) {
    const lowering_entry *e = &s->lowerings[i];
    if (strcmp(e->primitive, primitive) != 0)
      continue;
    if (platform == NULL
            ? e->platform == NULL
            : e->platform != NULL && strcmp(e->platform, platform) == 0)
      return (ptrdiff_t)e->rule;
  }
  return -1;
}

static char *copy_string(const char *text) {
  size_t n = strlen(text) + 1;
  char *copy = malloc(n);
  if (copy != NULL)
    memcpy(copy, text, n);
  return copy;
}

/// Stores `rule` for (primitive, platform), replacing an earlier one.
/// Returns false when out of memory.
static bool store_lowering(session *s, const char *primitive,
                           const char *platform, size_t rule) {
  for (size_t i = 0; i < s->lowering_count; i++) {
    lowering_entry *e = &s->lowerings[i];
    if (strcmp(e->primitive, primitive) == 0 &&
        (platform == NULL
             ? e->platform == NULL
             : e->platform != NULL && strcmp(e->platform, platform) == 0)) {
      e->rule = rule;
      return true;
    }
  }
  if (s->lowering_count == s->lowering_capacity) {
    size_t capacity = s->lowering_capacity > 0 ? 2 * s->lowering_capacity : 8;
    lowering_entry *grown =
        realloc(s->lowerings, capacity * sizeof *s->lowerings);
    if (grown == NULL)
      return false;
    s->lowerings = grown;
    s->lowering_capacity = capacity;
  }
  lowering_entry e = {copy_string(primitive), NULL, rule};
  if (platform != NULL)
    e.platform = copy_string(platform);
  if (e.primitive == NULL || (platform != NULL && e.platform == NULL)) {
    free(e.primitive);
    free(e.platform);
    return false;
  }
  s->lowerings[s->lowering_count++] = e;
  return true;
}

/// Names every platform a lowering rule may be registered for: cuda, rocm,
/// the alias gpu and what it stands for, and every registered factory name.
static const char *const builtin_known_platforms[] = {"cuda", "rocm", "gpu",
                                                      "oneapi"};
#define BUILTIN_KNOWN_COUNT 4

static bool is_known_platform(const session *s, const char *platform) {
  for (size_t i = 0; i < BUILTIN_KNOWN_COUNT; i++)
    if (strcmp(builtin_known_platforms[i], platform) == 0)
      return true;
  return find_factory(s, platform) != NULL;
}

static int compare_names(const void *a, const void *b) {
  // strcmp compares as unsigned char: code-point order for ASCII.
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/// Appends the known platforms, sorted by code point, without duplicates,
/// joined with ", ". Returns false when out of memory.
static bool append_known_platforms(lctx_impl_outcome *out, const session *s) {
  size_t count = BUILTIN_KNOWN_COUNT + s->config->factory_count;
  const char **names = malloc(count * sizeof *names);
  if (names == NULL)
    return false;
  for (size_t i = 0; i < BUILTIN_KNOWN_COUNT; i++)
    names[i] = builtin_known_platforms[i];
  for (size_t i = 0; i < s->config->factory_count; i++)
    names[BUILTIN_KNOWN_COUNT + i] = s->config->factories[i].name;
  qsort(names, count, sizeof *names, compare_names);
  for (size_t i = 0; i < count; i++) {
    if (i > 0 && strcmp(names[i], names[i - 1]) == 0)
      continue; // a factory named like a built-in one
    if (i > 0)
      append(out, ", ");
    append(out, names[i]);
  }
  free(names);
  return true;
}

/// register_lowering(primitive, rule, platform), `platform` NULL meaning
/// None. A rule name the session does not declare cannot be run (status 1).
static lctx_impl_status
op_register_lowering(void *opaque, const char *primitive, const char *rule,
                     const char *platform, lctx_impl_outcome *out) {
  session *s = opaque;
  outcome_reset(out);
  ptrdiff_t r = rule != NULL ? find_rule(s, rule) : -1;
  if (primitive == NULL || r < 0)
    return 1;

  if (platform == NULL) { // None: the common rule
    if (!store_lowering(s, primitive, NULL, (size_t)r))
      return 1;
    return outcome_status(out);
  }
  if (!is_known_platform(s, platform)) {
    raise_error(out, LCTX_IMPL_NOT_IMPLEMENTED_ERROR,
                "Registering an MLIR lowering rule for primitive ");
    append(out, primitive);
    append(out, " for an unknown platform ");
    append(out, platform);
    append(out, ". Known platforms are: ");
    if (!append_known_platforms(out, s))
      return 1;
    append(out, ".");
    return outcome_status(out);
  }
  // Expanded through the alias table: gpu stands for cuda, rocm, oneapi.
  if (strcmp(platform, "gpu") == 0) {
    for (size_t g = 0; g < GPU_PLATFORM_COUNT; g++)
      if (!store_lowering(s, primitive, gpu_platforms[g], (size_t)r))
        return 1;
  } else if (!store_lowering(s, primitive, platform, (size_t)r)) {
    return 1;
  }
  return outcome_status(out);
}

//===----------------------------------------------------------------------===//
// 7. Lowering one equation (ABI v2; semantics.md section 7) and its MLIR
//===----------------------------------------------------------------------===//

/// A sequence of platform names (not owned).
typedef struct platform_list {
  const char *const *items;
  size_t count;
} platform_list;

/// ModuleContext: the platforms a module lowers for and the pinned client's
/// real platform (NULL for none).
typedef struct module_context {
  platform_list platforms;
  const char *backend;
  /// The platforms are a Python list: narrowed platforms put in place by
  /// lower_fun (the module's own are a tuple). Only the IndexError of zero
  /// platforms tells them apart.
  bool platforms_are_list;
} module_context;

/// LoweringRuleContext: its module context, the narrowed platforms (None
/// unless `narrowed`), and the equation's compute type (NULL for none).
typedef struct rule_context {
  module_context module;
  bool narrowed;
  platform_list platforms;
  const char *compute_type;
} rule_context;

static const char *const only_cpu[] = {"cpu"};
static const char *const only_tpu[] = {"tpu"};

/// `_platforms_for_eqn_ctx`: the platforms a compute type forces, or an
/// empty list.
static platform_list compute_type_platforms(const char *compute_type) {
  if (compute_type != NULL && strcmp(compute_type, "device_host") == 0)
    return (platform_list){only_cpu, 1};
  if (compute_type != NULL && strcmp(compute_type, "tpu_sparsecore") == 0)
    return (platform_list){only_tpu, 1};
  return (platform_list){NULL, 0};
}

/// `_platforms_for_eqn(ctx)`: the compute type's platforms, else the
/// narrowed platforms if non-empty, else the module platforms.
static platform_list platforms_for_eqn(const rule_context *ctx) {
  platform_list forced = compute_type_platforms(ctx->compute_type);
  if (forced.count > 0)
    return forced;
  if (ctx->narrowed && ctx->platforms.count > 0)
    return ctx->platforms;
  return ctx->module.platforms;
}

static bool list_contains(platform_list list, const char *platform) {
  for (size_t i = 0; i < list.count; i++)
    if (strcmp(list.items[i], platform) == 0)
      return true;
  return false;
}

/// A growing text buffer for the module, bounded by `limit` bytes (the
/// caller's capacity less the NUL). Past it, `overflow` is set and nothing
/// more is kept.
typedef struct text_buffer {
  char *data;
  size_t length;
  size_t capacity;
  size_t limit;
  bool overflow;
  bool out_of_memory;
} text_buffer;

static void text_append_bytes(text_buffer *b, const char *s, size_t n) {
  if (b->overflow || b->out_of_memory)
    return;
  if (n > b->limit - b->length) {
    b->overflow = true;
    return;
  }
  if (b->length + n + 1 > b->capacity) {
    size_t capacity = b->capacity > 0 ? b->capacity : 4096;
    while (capacity < b->length + n + 1)
      capacity *= 2;
    char *grown = realloc(b->data, capacity);
    if (grown == NULL) {
      b->out_of_memory = true;
      return;
    }
    b->data = grown;
    b->capacity = capacity;
  }
  memcpy(b->data + b->length, s, n);
  b->length += n;
  b->data[b->length] = '\0';
}

static void text_append(text_buffer *b, const char *s) {
  text_append_bytes(b, s, strlen(s));
}

static void text_append_number(text_buffer *b, size_t value) {
  char digits[24];
  size_t n = sizeof digits;
  do {
    digits[--n] = (char)('0' + value % 10);
    value /= 10;
  } while (value > 0);
  text_append_bytes(b, digits + n, sizeof digits - n);
}

/// Appends an MLIR string literal: `"` and `\`, control bytes and 0x7f as
/// `\XX` escapes (which MLIR decodes), other bytes raw.
static void text_append_string_literal(text_buffer *b, const char *s) {
  static const char hex[] = "0123456789ABCDEF";
  text_append(b, "\"");
  for (const char *c = s; *c != '\0'; c++) {
    unsigned char byte = (unsigned char)*c;
    if (byte == '"' || byte == '\\' || byte < 0x20 || byte >= 0x7f) {
      char escaped[3] = {'\\', hex[byte >> 4], hex[byte & 0xf]};
      text_append_bytes(b, escaped, 3);
    } else {
      text_append_bytes(b, c, 1);
    }
  }
  text_append(b, "\"");
}

/// How deep lower_fun may nest, and how many rule actions one lowering may
/// run, before the plugin gives up (status 1): a guard against cyclic or
/// exploding rule graphs, which lctx's cases do not contain.
#define MAX_LOWERING_DEPTH 64
#define MAX_LOWERING_STEPS 1000000

/// What a step of the lowering did.
typedef enum step_result {
  STEP_OK,     ///< went on normally
  STEP_RAISED, ///< raised: the exception is in the outcome
  STEP_FAILED, ///< could not run (out of memory, bounds): status 1
} step_result;

/// The state of one lower_per_platform operation.
typedef struct lowering_run {
  session *s;
  const lctx_impl_lowering *lowering;
  lctx_impl_outcome *out;
  bool has_platform_index; ///< the module lowers for several platforms
  bool emit;               ///< MLIR text wanted
  text_buffer ir;
  size_t next_value; ///< SSA values %0, %1, ...
  size_t indent;     ///< nesting of the op being emitted
  size_t depth;      ///< lower_fun nesting
  size_t steps;      ///< rule actions run
} lowering_run;

static void emit_indent(lowering_run *run) {
  for (size_t i = 0; i < run->indent; i++)
    text_append(&run->ir, "  ");
}

/// Emits `"lctx.marker"() {platforms = [...], primitive = "...", rule =
/// "..."} : () -> ()`, attributes in MLIR's (sorted) order.
static void emit_marker(lowering_run *run, const char *primitive,
                        const char *rule, platform_list platforms) {
  if (!run->emit)
    return;
  emit_indent(run);
  text_append(&run->ir, "\"lctx.marker\"() {platforms = [");
  for (size_t i = 0; i < platforms.count; i++) {
    if (i > 0)
      text_append(&run->ir, ", ");
    text_append_string_literal(&run->ir, platforms.items[i]);
  }
  text_append(&run->ir, "], primitive = ");
  text_append_string_literal(&run->ir, primitive);
  text_append(&run->ir, ", rule = ");
  text_append_string_literal(&run->ir, rule);
  text_append(&run->ir, "} : () -> ()\n");
}

static step_result lower_equation(lowering_run *run, module_context module,
                                  bool narrowed, platform_list narrow,
                                  const char *primitive,
                                  const char *compute_type);

/// A get_backend call of a rule body, on the rule context's module context.
/// A raise stays in the outcome and aborts the lowering.
static step_result rule_get_backend(lowering_run *run, const rule_context *ctx,
                                    bool optional) {
  module_get_backend_into(
      run->s, ctx->module.platforms.items, ctx->module.platforms.count,
      ctx->module.backend, optional,
      ctx->module.platforms_are_list ? "list index out of range"
                                     : "tuple index out of range",
      run->out);
  if (outcome_status(run->out) != 0)
    return STEP_FAILED;
  return run->out->kind == LCTX_IMPL_RAISE ? STEP_RAISED : STEP_OK;
}

/// Runs the body of rule `rule_index` for an equation of `primitive` with
/// the rule context `ctx`.
static step_result call_rule(lowering_run *run, const rule_context *ctx,
                             size_t rule_index, const char *primitive) {
  const lctx_impl_rule *rule = &run->s->config->rules[rule_index];
  for (size_t a = 0; a < rule->action_count; a++) {
    if (++run->steps > MAX_LOWERING_STEPS)
      return STEP_FAILED;
    const lctx_impl_action *act = &rule->actions[a];
    size_t module_platforms = ctx->module.platforms.count;
    step_result r = STEP_OK;
    switch (act->kind) {
    case LCTX_IMPL_ACTION_GET_BACKEND:
      r = rule_get_backend(run, ctx, act->optional != 0);
      break;
    case LCTX_IMPL_ACTION_GUARDED_GET_BACKEND:
      if (module_platforms <= 1)
        r = rule_get_backend(run, ctx, act->optional != 0);
      break;
    case LCTX_IMPL_ACTION_TRY_FALLBACK_GET_BACKEND:
      r = rule_get_backend(run, ctx, false);
      if (r == STEP_RAISED &&
          run->out->error_class == LCTX_IMPL_NOT_IMPLEMENTED_ERROR)
        r = rule_get_backend(run, ctx, true);
      break;
    case LCTX_IMPL_ACTION_RAISE_IF_MULTI:
      if (module_platforms > 1) {
        raise_error(run->out, LCTX_IMPL_NOT_IMPLEMENTED_ERROR, act->text);
        r = outcome_status(run->out) != 0 ? STEP_FAILED : STEP_RAISED;
      }
      break;
    case LCTX_IMPL_ACTION_READ_CLIENT_PLATFORM:
      // The rule reads `.platform` only of a client it got (None is
      // handled by the rule), so only the call itself is observable.
      r = rule_get_backend(run, ctx, true);
      break;
    case LCTX_IMPL_ACTION_LOWER_FUN: {
      // lower_fun: the module context with its platforms replaced by the
      // rule context's narrowed ones (when narrowed); the new equation's
      // rule context is not narrowed.
      module_context sub = ctx->module;
      if (ctx->narrowed)
        sub.platforms = ctx->platforms;
      sub.platforms_are_list |= ctx->narrowed; // narrowed ones are lists
      // jaxpr_subcomp: `assert "gpu" not in ctx.platforms`.
      if (list_contains(sub.platforms, "gpu")) {
        raise_error(run->out, LCTX_IMPL_ASSERTION_ERROR, "");
        r = outcome_status(run->out) != 0 ? STEP_FAILED : STEP_RAISED;
        break;
      }
      // The rule runs inside its equation's context manager, so the traced
      // equation takes the outer compute type unless the action sets one.
      r = lower_equation(run, sub, false, (platform_list){NULL, 0}, act->text,
                         act->compute_type != NULL ? act->compute_type
                                                   : ctx->compute_type);
      break;
    }
    case LCTX_IMPL_ACTION_EMIT_MARKER:
      emit_marker(run, primitive, rule->name, platforms_for_eqn(ctx));
      break;
    default:
      return STEP_FAILED;
    }
    if (r != STEP_OK)
      return r;
  }
  return STEP_OK;
}

/// One platform-specific rule of `platform_rules`.
typedef struct platform_rule {
  const char *platform;
  size_t rule;
} platform_rule;

static const char *string_at(const void *items, size_t i) {
  return ((const char *const *)items)[i];
}

/// Emits the two nested `stablehlo.case` ops of a dispatch, in generic form,
/// and lowers each kept rule in its branch. `entries` is the platform list,
/// `slots[i]` the kept-rule slot of entry i, `kept` the rules with their
/// narrowed platform lists.
static step_result emit_dispatch(lowering_run *run, const rule_context *ctx,
                                 const char *primitive, platform_list entries,
                                 const size_t *slots, const size_t *kept,
                                 const platform_list *kept_platforms,
                                 size_t kept_count) {
  text_buffer *ir = &run->ir;
  // The platform index is always dimension variable 0, i.e. %arg0 of the
  // function, also inside nested lowerings (JAX's defect: never remapped to
  // a narrowed list). Converted to i32 when it is not i32.
  size_t index = 0;
  bool index_is_arg = true;
  if (run->emit && run->lowering->x64) {
    index = run->next_value++;
    index_is_arg = false;
    emit_indent(run);
    text_append(ir, "%");
    text_append_number(ir, index);
    text_append(ir, " = \"stablehlo.convert\"(%arg0) : (i64) -> i32\n");
  }

  size_t slot_value = run->next_value++;
  if (run->emit) {
    emit_indent(run);
    text_append(ir, "%");
    text_append_number(ir, slot_value);
    text_append(ir, " = \"stablehlo.case\"(");
    if (index_is_arg) {
      text_append(ir, "%arg0");
    } else {
      text_append(ir, "%");
      text_append_number(ir, index);
    }
    text_append(ir, ") ({\n");
    for (size_t i = 0; i < entries.count; i++) {
      if (i > 0) {
        emit_indent(run);
        text_append(ir, "}, {\n");
      }
      size_t constant = run->next_value++;
      run->indent++;
      emit_indent(run);
      text_append(ir, "%");
      text_append_number(ir, constant);
      text_append(ir, " = arith.constant ");
      text_append_number(ir, slots[i]);
      text_append(ir, " : i32\n");
      emit_indent(run);
      text_append(ir, "\"stablehlo.return\"(%");
      text_append_number(ir, constant);
      text_append(ir, ") : (i32) -> ()\n");
      run->indent--;
    }
    emit_indent(run);
    text_append(ir, "}) : (i32) -> i32\n");

    emit_indent(run);
    text_append(ir, "\"stablehlo.case\"(%");
    text_append_number(ir, slot_value);
    text_append(ir, ") ({\n");
  }
  for (size_t k = 0; k < kept_count; k++) {
    if (run->emit && k > 0) {
      emit_indent(run);
      text_append(ir, "}, {\n");
    }
    rule_context inner = *ctx;
    inner.narrowed = true;
    inner.platforms = kept_platforms[k];
    run->indent++;
    step_result r = call_rule(run, &inner, kept[k], primitive);
    if (r != STEP_OK)
      return r;
    if (run->emit) {
      emit_indent(run);
      text_append(ir, "\"stablehlo.return\"() : () -> ()\n");
    }
    run->indent--;
  }
  if (run->emit) {
    emit_indent(run);
    text_append(ir, "}) : (i32) -> ()\n");
  }
  return STEP_OK;
}

/// Appends `p` to `list` unless it holds it already.
static void add_unique(const char **list, size_t *count, const char *p) {
  for (size_t i = 0; i < *count; i++)
    if (strcmp(list[i], p) == 0)
      return;
  list[(*count)++] = p;
}

/// The working arrays of lower_per_platform: the kept rules (at most one
/// per platform rule, plus the default slot) with the narrowed platform
/// list of each, the kept-rule slot of each entry, and the entries without
/// a specific rule (in order, and each once).
typedef struct kept_rules {
  size_t *rules;
  const char **platform; ///< the platform of each specific kept rule
  platform_list *platforms;
  size_t count;
  size_t *slots;
  const char **missing;
  size_t missing_count;
  const char **missing_unique;
  size_t missing_unique_count;
} kept_rules;

static void kept_free(kept_rules *k) {
  free(k->rules);
  free(k->platform);
  free(k->platforms);
  free(k->slots);
  free(k->missing);
  free(k->missing_unique);
}

/// Allocates the arrays for `rule_count` platform rules and `entry_count`
/// entries. Returns false when out of memory (kept_free still applies).
static bool kept_alloc(kept_rules *k, size_t rule_count, size_t entry_count) {
  size_t room = rule_count + 1;
  size_t entry_room = entry_count > 0 ? entry_count : 1;
  *k = (kept_rules){0};
  k->rules = malloc(room * sizeof *k->rules);
  k->platform = malloc(room * sizeof *k->platform);
  k->platforms = malloc(room * sizeof *k->platforms);
  k->slots = malloc(entry_room * sizeof *k->slots);
  k->missing = malloc(entry_room * sizeof *k->missing);
  k->missing_unique = malloc(entry_room * sizeof *k->missing_unique);
  return k->rules != NULL && k->platform != NULL && k->platforms != NULL &&
         k->slots != NULL && k->missing != NULL && k->missing_unique != NULL;
}

/// Steps 2 and 3 of lower_per_platform: the kept rules are the platform
/// rules whose platform is in the list, in the order of platform_rules;
/// entries without a specific rule share the next slot (the default's).
static void keep_rules(kept_rules *k, platform_list platforms,
                       const platform_rule *platform_rules,
                       size_t platform_rule_count) {
  for (size_t i = 0; i < platform_rule_count; i++) {
    if (!list_contains(platforms, platform_rules[i].platform))
      continue;
    k->rules[k->count] = platform_rules[i].rule;
    k->platform[k->count] = platform_rules[i].platform;
    k->platforms[k->count] = (platform_list){&k->platform[k->count], 1};
    k->count++;
  }
  size_t specific_count = k->count;
  for (size_t i = 0; i < platforms.count; i++) {
    const char *p = platforms.items[i];
    bool has_slot = false;
    for (size_t j = 0; j < specific_count; j++) {
      if (strcmp(k->platform[j], p) == 0) {
        k->slots[i] = j;
        has_slot = true;
      }
    }
    if (has_slot)
      continue;
    k->slots[i] = specific_count;
    k->missing[k->missing_count++] = p;
    add_unique(k->missing_unique, &k->missing_unique_count, p);
  }
}

/// JAX's `lower_per_platform(ctx, description, platform_rules,
/// default_rule)` (`default_rule` -1 for None).
static step_result
lower_per_platform(lowering_run *run, const rule_context *ctx,
                   const char *description, const platform_rule *platform_rules,
                   size_t platform_rule_count, ptrdiff_t default_rule) {
  lctx_impl_outcome *out = run->out;
  platform_list platforms = platforms_for_eqn(ctx);

  // 1. One entry with neither a specific rule nor a default.
  if (platforms.count == 1 && default_rule < 0) {
    bool specific = false;
    for (size_t i = 0; i < platform_rule_count; i++)
      if (strcmp(platform_rules[i].platform, platforms.items[0]) == 0)
        specific = true;
    if (!specific) {
      raise_error(out, LCTX_IMPL_NOT_IMPLEMENTED_ERROR,
                  "MLIR translation rule for primitive '");
      append(out, description);
      append(out, "' not found for platform ");
      append(out, platforms.items[0]);
      return outcome_status(out) != 0 ? STEP_FAILED : STEP_RAISED;
    }
  }

  kept_rules k;
  step_result result = STEP_FAILED;
  if (!kept_alloc(&k, platform_rule_count, platforms.count))
    goto done;
  // 2. and 3. Kept rules; entries without a specific rule share the
  // default slot.
  keep_rules(&k, platforms, platform_rules, platform_rule_count);
  if (k.missing_count > 0) {
    if (default_rule < 0) {
      raise_error(out, LCTX_IMPL_NOT_IMPLEMENTED_ERROR,
                  "MLIR translation rule for primitive '");
      append(out, description);
      append(out, "' not found for platforms ");
      append_list_repr(out, k.missing, k.missing_count, string_at);
      result = outcome_status(out) != 0 ? STEP_FAILED : STEP_RAISED;
      goto done;
    }
    k.rules[k.count] = (size_t)default_rule;
    k.platforms[k.count] =
        (platform_list){k.missing_unique, k.missing_unique_count};
    k.count++;
  }

  // 4. No platforms at all.
  if (k.count == 0) {
    raise_error(out, LCTX_IMPL_ASSERTION_ERROR, "");
    result = STEP_RAISED;
    goto done;
  }
  // 5. One kept rule: called directly with the context as passed in.
  if (k.count == 1) {
    result = call_rule(run, ctx, k.rules[0], description);
    goto done;
  }
  // 6. Several kept rules need the platform index.
  if (!run->has_platform_index) {
    raise_error(out, LCTX_IMPL_ASSERTION_ERROR,
                "Must have a platform_index variable");
    result = STEP_RAISED;
    goto done;
  }
  // 7. The two case ops.
  result = emit_dispatch(run, ctx, description, platforms, k.slots, k.rules,
                         k.platforms, k.count);

done:
  kept_free(&k);
  return result;
}

/// Lowers one equation of `primitive` (jaxpr_subcomp): rule selection
/// (`_get_lowering_rules`), then lower_per_platform.
static step_result lower_equation(lowering_run *run, module_context module,
                                  bool narrowed, platform_list narrow,
                                  const char *primitive,
                                  const char *compute_type) {
  if (run->depth >= MAX_LOWERING_DEPTH)
    return STEP_FAILED;
  rule_context ctx = {module, narrowed, narrow, compute_type};

  // Rule lookup uses the compute type's platforms, else the module
  // platforms (never the narrowed ones); duplicates give one entry.
  platform_list lookup = compute_type_platforms(compute_type);
  if (lookup.count == 0)
    lookup = module.platforms;
  platform_rule *platform_rules =
      malloc((lookup.count > 0 ? lookup.count : 1) * sizeof *platform_rules);
  if (platform_rules == NULL)
    return STEP_FAILED;
  size_t platform_rule_count = 0;
  ptrdiff_t default_rule;

  const char *override = run->lowering->override_rule;
  if (override != NULL && strcmp(primitive, run->lowering->primitive) == 0) {
    // An override rule is the default rule; no platform rule is consulted.
    default_rule = find_rule(run->s, override);
    if (default_rule < 0) {
      free(platform_rules);
      return STEP_FAILED;
    }
  } else {
    for (size_t i = 0; i < lookup.count; i++) {
      const char *p = lookup.items[i];
      bool seen = false;
      for (size_t j = 0; j < platform_rule_count; j++)
        if (strcmp(platform_rules[j].platform, p) == 0)
          seen = true;
      ptrdiff_t rule = seen ? -1 : find_lowering(run->s, primitive, p);
      if (rule >= 0)
        platform_rules[platform_rule_count++] =
            (platform_rule){p, (size_t)rule};
    }
    default_rule = find_lowering(run->s, primitive, NULL);
  }

  run->depth++;
  step_result r = lower_per_platform(run, &ctx, primitive, platform_rules,
                                     platform_rule_count, default_rule);
  run->depth--;
  free(platform_rules);
  return r;
}

/// Lowers one equation of `lowering->primitive` in a module lowered for
/// `lowering->platforms`, and on success writes the module's MLIR text.
static lctx_impl_status
op_lower_per_platform(void *opaque, const lctx_impl_lowering *lowering,
                      lctx_impl_outcome *out, char *mlir, size_t mlir_capacity,
                      size_t *mlir_length) {
  session *s = opaque;
  outcome_reset(out);
  if (mlir_length != NULL)
    *mlir_length = 0;
  if (mlir != NULL && mlir_capacity > 0)
    mlir[0] = '\0';
  if (lowering == NULL || lowering->primitive == NULL ||
      (lowering->platform_count > 0 && lowering->platforms == NULL) ||
      (lowering->narrow_count > 0 && lowering->narrow == NULL))
    return 1;

  lowering_run run = {
      .s = s,
      .lowering = lowering,
      .out = out,
      .has_platform_index = lowering->platform_count > 1,
      .emit = mlir != NULL && mlir_capacity > 0 && mlir_length != NULL,
      .ir = {.limit = mlir_capacity > 0 ? mlir_capacity - 1 : 0},
      .indent = 2,
  };
  module_context module = {{lowering->platforms, lowering->platform_count},
                           lowering->backend,
                           false};
  // The equation's rule context is narrowed (`ctx.platforms is not None`)
  // when `narrow` is given, even empty: an empty list reads as not narrowed
  // for the equation's own platforms, but lower_fun still replaces the
  // module platforms with it.
  platform_list narrow = {lowering->narrow, lowering->narrow_count};
  step_result r = lower_equation(&run, module, lowering->narrow != NULL, narrow,
                                 lowering->primitive, lowering->compute_type);

  lctx_impl_status status = 0;
  if (r == STEP_FAILED) {
    status = 1;
  } else if (r == STEP_OK) {
    outcome_reset(out); // scratch get_backend results are not the outcome
    if (run.emit) {
      // The module: @main takes the platform index as argument 0 exactly
      // when it lowers for several platforms.
      text_buffer module_text = {.limit = run.ir.limit};
      text_append(&module_text, "module");
      if (run.has_platform_index)
        text_append(&module_text,
                    " attributes {jax.uses_shape_polymorphism = true}");
      text_append(&module_text, " {\n  func.func @main(");
      if (run.has_platform_index) {
        text_append(&module_text, lowering->x64 ? "%arg0: i64" : "%arg0: i32");
        text_append(&module_text,
                    " {jax.global_constant = \"_platform_index\"}");
      }
      text_append(&module_text, ") {\n");
      if (run.ir.length > 0)
        text_append_bytes(&module_text, run.ir.data, run.ir.length);
      text_append(&module_text, "    return\n  }\n}\n");
      if (run.ir.overflow || run.ir.out_of_memory || module_text.overflow ||
          module_text.out_of_memory) {
        status = 1;
      } else {
        memcpy(mlir, module_text.data, module_text.length + 1);
        *mlir_length = module_text.length;
      }
      free(module_text.data);
    }
  } else {
    status = outcome_status(out);
  }
  free(run.ir.data);
  return status;
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
