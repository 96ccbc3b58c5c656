/*
 * xla_bridge.c - canonicalize_platform, xla_bridge.get_backend and the
 * client's `.platform` shim (see lctx/xla_bridge.h; semantics.md sections 1,
 * 3 and 4; jax/_src/xla_bridge.py at jax-ml/jax@cec06d116c05, lines 702-747
 * and 927-958).
 *
 * Owns look-ups by name through the alias table, whose members (line 702)
 * and the client shim's platforms are the release's (lctx/release.h). Must
 * not allocate, compare versions, or touch the registry for a name that is
 * not an alias.
 */
#include "lctx/xla_bridge.h"

#include "lctx/pyrepr.h"

lctx_str lctx_client_platform_attr(lctx_str real_platform) {
  return lctx_client_platform_attr_at(NULL, real_platform);
}

lctx_str lctx_client_platform_attr_at(const lctx_release *release,
                                      lctx_str real_platform) {
  if (lctx_release_list_has(&lctx_release_resolve(release)->client_gpu,
                            real_platform))
    return lctx_str_from_cstr("gpu");
  return real_platform;
}

bool lctx_platform_is_alias(lctx_str name) {
  return lctx_str_equal_cstr(name, "gpu");
}

bool lctx_canonicalize(lctx_registry *registry, lctx_str name,
                       lctx_str *canonical, lctx_outcome *err) {
  if (!lctx_platform_is_alias(name)) {
    *canonical = name;
    return true;
  }
  if (!lctx_registry_ensure(registry, err))
    return false;
  const lctx_release_list *gpu =
      &lctx_release_resolve(registry->config->release)->gpu_alias;
  for (size_t i = 0; i < gpu->count; i++) {
    lctx_str candidate = gpu->names[i];
    if (lctx_registry_find(registry, candidate)) {
      if (registry->trace) {
        char members[64];
        lctx_buf m;
        lctx_buf_init(&m, members, sizeof members);
        lctx_release_list_format(gpu, &m);
        lctx_registry_tracef(registry,
                             "canonicalize: 'gpu' -> '%.*s' (first initialized "
                             "of %s)",
                             (int)candidate.length, candidate.data, members);
      }
      *canonical = candidate;
      return true;
    }
  }
  LCTX_REGISTRY_TRACEF(registry,
                       "canonicalize: 'gpu' matches no initialized platform");
  lctx_buf w = lctx_outcome_begin_raise(err, LCTX_ERROR_RUNTIME);
  lctx_buf_append_cstr(&w, "Unknown backend: 'gpu' requested, but no platforms "
                           "that are instances of gpu are present. Platforms "
                           "present are: ");
  for (size_t i = 0; i < lctx_registry_entry_count(registry); i++) {
    if (i > 0)
      lctx_buf_append_char(&w, ',');
    lctx_buf_append_str(&w, lctx_registry_entry_at(registry, i).platform);
  }
  lctx_outcome_end(err, &w);
  return false;
}

bool lctx_canonicalize_platform(lctx_registry *registry, lctx_str name,
                                lctx_outcome *out) {
  lctx_str canonical;
  if (!lctx_canonicalize(registry, name, &canonical, out))
    return false;
  lctx_buf w = lctx_outcome_begin(out, LCTX_OUTCOME_STRING);
  lctx_buf_append_str(&w, canonical);
  lctx_outcome_end(out, &w);
  return true;
}

static bool config_set(const char *value) {
  return value != NULL && value[0] != '\0';
}

bool lctx_xla_get_backend(lctx_registry *registry, const lctx_str *platform,
                          lctx_outcome *out) {
  const lctx_registry_config *config = registry->config;
  /* `platform or _XLA_BACKEND.value or _PLATFORM_NAME.value or None` */
  bool has_platform = true;
  lctx_str name;
  if (platform != NULL && platform->length > 0) {
    name = *platform;
  } else if (config_set(config->jax_xla_backend)) {
    name = lctx_str_from_cstr(config->jax_xla_backend);
    LCTX_REGISTRY_TRACEF(registry,
                         "get_backend: platform from jax_xla_backend");
  } else if (config_set(config->jax_platform_name)) {
    name = lctx_str_from_cstr(config->jax_platform_name);
    LCTX_REGISTRY_TRACEF(registry,
                         "get_backend: platform from jax_platform_name");
  } else {
    has_platform = false;
    name = lctx_str_make(NULL, 0);
  }
  if (!lctx_registry_ensure(registry, out))
    return false;
  if (!has_platform) {
    const lctx_registry_entry *d = lctx_registry_default(registry);
    if (!d) {
      LCTX_REGISTRY_TRACEF(registry,
                           "get_backend: no platform and no default client: "
                           "AssertionError");
      lctx_buf w = lctx_outcome_begin_raise(out, LCTX_ERROR_ASSERTION);
      lctx_outcome_end(out, &w);
      return false;
    }
    LCTX_REGISTRY_TRACEF(registry,
                         "get_backend: no platform: the default client");
    lctx_outcome_set_client(out, LCTX_CLIENT_REGISTRY, d->registration,
                            d->platform);
    return true;
  }
  lctx_str canonical;
  if (!lctx_canonicalize(registry, name, &canonical, out))
    return false;
  const lctx_registry_entry *entry = lctx_registry_find(registry, canonical);
  if (entry) {
    LCTX_REGISTRY_TRACEF(registry, "get_backend: '%.*s' found in the registry",
                         (int)canonical.length, canonical.data);
    lctx_outcome_set_client(out, LCTX_CLIENT_REGISTRY, entry->registration,
                            entry->platform);
    return true;
  }
  const lctx_registry_failure *failure =
      lctx_registry_find_failure(registry, canonical);
  lctx_buf w = lctx_outcome_begin_raise(out, LCTX_ERROR_RUNTIME);
  LCTX_REGISTRY_TRACEF(
      registry,
      failure ? "get_backend: '%.*s' failed quietly during initialization"
              : "get_backend: '%.*s' is neither initialized nor failed",
      (int)canonical.length, canonical.data);
  lctx_buf_append_cstr(&w, failure ? "Backend '" : "Unknown backend ");
  lctx_buf_append_str(&w, canonical);
  if (failure) {
    lctx_buf_append_cstr(&w, "' failed to initialize: ");
    lctx_registry_failure_message(registry, failure, &w);
  }
  if (failure ||
      lctx_release_resolve(config->release)->unknown_backend_lists_available) {
    lctx_buf_append_cstr(&w, ". Available backends are ");
    lctx_registry_format_platforms(registry, &w);
  }
  lctx_outcome_end(out, &w);
  return false;
}
