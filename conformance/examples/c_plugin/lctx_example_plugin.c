/*
 * lctx_example_plugin.c - an example implementation of JAX's backend
 * selection, exported through the lctx implementation ABI
 * (reference/include/lctx/impl_abi.h, conformance/ABI.md).
 *
 * It models four JAX functions:
 *   backends()                      jax/_src/xla_bridge.py
 *   canonicalize_platform(name)     jax/_src/xla_bridge.py
 *   get_backend(platform)           jax/_src/xla_bridge.py
 *   ModuleContext.get_backend()     jax/_src/interpreters/mlir.py
 *
 * It was written from a description of JAX's behaviour and JAX's sources,
 * without any lctx code (the ABI header is its only dependency). It is meant
 * as the starting point for your own implementation: replace the bodies of
 * the four operations with calls into your runtime and keep the outcome
 * plumbing.
 *
 * Layout of this file:
 *   1. outcome helpers: writing an operation's result into lctx's buffer
 *   2. Python formatting: repr() of strings and lists
 *   3. the session: configuration, registration plan, registry state
 *   4. registry initialization (backends())
 *   5. the four operations
 *   6. the exported table
 *
 * There is no global mutable state: everything a case needs lives in a
 * heap-allocated session, and the only static object is the const table.
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

typedef struct session {
  const lctx_impl_config *config;

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

static void session_destroy(void *opaque) {
  session *s = opaque;
  if (s == NULL)
    return;
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
  for (size_t i = 0; i < s->failure_count; i++) {
    if (strcmp(s->failures[i].platform, f.platform) == 0) {
      s->failures[i] = f;
      return;
    }
  }
  s->failures[s->failure_count++] = f;
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
// 5. The operations
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

/// ModuleContext(platforms, backend).get_backend(optional). `backend` is the
/// real platform of the pinned client, NULL for none.
static lctx_impl_status
op_module_get_backend(void *opaque, const char *const *platforms,
                      size_t platform_count, const char *backend,
                      int32_t optional, lctx_impl_outcome *out) {
  session *s = opaque;
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
    return outcome_status(out);
  }

  // B2: a pinned client. Its .platform is "gpu" for the GPU platforms, and
  // is canonicalized (possibly initializing the registry and raising, even
  // when optional) before platforms[0] is read.
  if (backend != NULL) {
    const char *dot_platform = is_gpu_platform(backend) ? "gpu" : backend;
    const char *canonical;
    if (!canonicalize_platform(s, dot_platform, &canonical, out))
      return outcome_status(out);
    if (platform_count == 0) {
      raise_error(out, LCTX_IMPL_INDEX_ERROR, "tuple index out of range");
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
    return outcome_status(out);
  }

  // B3: no pinned client. get_backend's errors are not suppressed.
  if (platform_count == 0)
    raise_error(out, LCTX_IMPL_INDEX_ERROR, "tuple index out of range");
  else
    get_backend_into(s, platforms[0], out);
  return outcome_status(out);
}

//===----------------------------------------------------------------------===//
// 6. The exported table
//===----------------------------------------------------------------------===//

static const lctx_impl_table example_table = {
    .abi_version = LCTX_IMPL_ABI_VERSION,
    .name = "lctx-example-c",
    .version = "1.0.0",
    .operations = LCTX_IMPL_OP_BACKENDS | LCTX_IMPL_OP_CANONICALIZE |
                  LCTX_IMPL_OP_GET_BACKEND | LCTX_IMPL_OP_MODULE_GET_BACKEND,
    .session_create = session_create,
    .session_destroy = session_destroy,
    .backends = op_backends,
    .canonicalize = op_canonicalize,
    .get_backend = op_get_backend,
    .module_get_backend = op_module_get_backend,
};

// Declared here for -Wmissing-prototypes; exported with default visibility.
__attribute__((visibility("default"))) const lctx_impl_table *
lctx_impl_entry(void);

const lctx_impl_table *lctx_impl_entry(void) {
  return &example_table;
}
