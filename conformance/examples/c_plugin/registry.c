/*
 * registry.c - part of the example plugin (overview: lctx_example_plugin.c):
 * the registry of a session, initialized as JAX's backends() does, and the
 * four backend-selection operations on it (backends, canonicalize_platform,
 * get_backend, ModuleContext.get_backend).
 */
#include "plugin.h"

#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// 3. The session (its types are in plugin.h): lookups
//===----------------------------------------------------------------------===//

/// Whether the jax_platforms config is set (not empty).
bool jax_platforms_set(const session *s) {
  return s->config->jax_platforms[0] != '\0';
}

/// The registered factory called `name`, or NULL.
const lctx_impl_factory *find_factory(const session *s, const char *name) {
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
const char *const gpu_platforms[GPU_PLATFORM_COUNT] = {"cuda", "rocm",
                                                       "oneapi"};

static bool is_gpu_platform(const char *platform) {
  for (size_t i = 0; i < GPU_PLATFORM_COUNT; i++)
    if (strcmp(platform, gpu_platforms[i]) == 0)
      return true;
  return false;
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

lctx_impl_status op_backends(void *opaque, lctx_impl_outcome *out) {
  session *s = opaque;
  outcome_reset(out);
  if (ensure_registry(s, out)) {
    out->kind = LCTX_IMPL_PLATFORMS;
    append_list_repr(out, s->clients, s->client_count, client_platform_at);
  }
  return outcome_status(out);
}

lctx_impl_status op_canonicalize(void *opaque, const char *name,
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

lctx_impl_status op_get_backend(void *opaque, const char *platform,
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
void module_get_backend_into(session *s, const char *const *platforms,
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

lctx_impl_status op_module_get_backend(void *opaque,
                                       const char *const *platforms,
                                       size_t platform_count,
                                       const char *backend, int32_t optional,
                                       lctx_impl_outcome *out) {
  module_get_backend_into(opaque, platforms, platform_count, backend,
                          optional != 0, "tuple index out of range", out);
  return outcome_status(out);
}
