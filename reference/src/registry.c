/*
 * registry.c - backend factories and lazy registry initialization (see
 * lctx/registry.h; semantics.md section 2; jax/_src/xla_bridge.py at
 * jax-ml/jax@cec06d116c05, `backends` lines 786-848, `_init_backend` 899-924).
 *
 * Owns which registrations are made and what each one leaves behind. The
 * configuration's release (lctx/release.h) says what `gpu` expands to and
 * whether cuda is skipped without an NVIDIA GPU. Must not allocate, keep
 * global state, compare versions, or look clients up by alias.
 */
#include "lctx/registry.h"

#include "lctx/pyrepr.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* JAX's starting value of `default_priority` (xla_bridge.py line 820). */
#define DEFAULT_PRIORITY_FLOOR (-1000)

static const char SUFFIX_PLATFORMS_SET[] =
    " (set JAX_PLATFORMS='' to automatically choose an available backend)";
static const char SUFFIX_PLATFORMS_UNSET[] =
    " (you may need to uninstall the failing plugin package, or set "
    "JAX_PLATFORMS=cpu to skip this backend.)";

//===----------------------------------------------------------------------===//
// Configuration
//===----------------------------------------------------------------------===//

void lctx_registry_config_init(lctx_registry_config *config) {
  memset(config, 0, sizeof *config);
}

static int find_factory(const lctx_registry_config *config, lctx_str name) {
  for (size_t i = 0; i < config->factory_count; i++) {
    if (lctx_str_equal_cstr(name, config->factories[i].name))
      return (int)i;
  }
  return -1;
}

bool lctx_registry_config_add_factory(lctx_registry_config *config,
                                      lctx_factory factory) {
  int existing = find_factory(config, lctx_str_from_cstr(factory.name));
  if (existing >= 0) {
    /* Re-registration keeps the first position (a dict key update). */
    config->factories[existing] = factory;
    return true;
  }
  if (config->factory_count >= LCTX_MAX_FACTORIES)
    return false;
  config->factories[config->factory_count++] = factory;
  return true;
}

/* Appends "factories[<index>].", the start of a validation message about
 * one factory's field. */
static void factory_field(lctx_buf *error, long long index) {
  lctx_buf_append_cstr(error, "factories[");
  lctx_buf_append_int(error, index);
  lctx_buf_append_cstr(error, "].");
}

/* Checks one text field; `index` >= 0 names a factory ("factories[2].name"),
 * otherwise `field` is a config value. */
static bool check_text(const char *value, size_t max, const char *field,
                       long index, lctx_buf *error) {
  lctx_str s = lctx_str_from_cstr(value);
  bool too_long = s.length > max;
  if (!too_long && lctx_pyrepr_is_supported(s))
    return true;
  if (index >= 0)
    factory_field(error, index);
  lctx_buf_append_cstr(error, field);
  if (too_long) {
    lctx_buf_append_cstr(error, " is too long (");
    lctx_buf_append_int(error, (long long)s.length);
    lctx_buf_append_cstr(error, " bytes, at most ");
    lctx_buf_append_int(error, (long long)max);
    lctx_buf_append_char(error, ')');
  } else {
    lctx_buf_append_cstr(error, " holds a byte outside ASCII 0x01-0x7f");
  }
  return false;
}

bool lctx_registry_config_validate(const lctx_registry_config *config,
                                   lctx_buf *error) {
  if (config->factory_count > LCTX_MAX_FACTORIES) {
    lctx_buf_append_cstr(error, "factories: more than ");
    lctx_buf_append_int(error, LCTX_MAX_FACTORIES);
    return false;
  }
  for (size_t i = 0; i < config->factory_count; i++) {
    const lctx_factory *f = &config->factories[i];
    if (f->name == NULL) {
      factory_field(error, (long long)i);
      lctx_buf_append_cstr(error, "name is missing");
      return false;
    }
    if (!check_text(f->name, LCTX_MAX_NAME, "name", (long)i, error) ||
        !check_text(f->message, LCTX_MAX_MESSAGE, "message", (long)i, error))
      return false;
    if ((unsigned)f->behaviour > LCTX_FACTORY_NO_DEVICES) {
      factory_field(error, (long long)i);
      lctx_buf_append_cstr(error, "behaviour is not a known behaviour");
      return false;
    }
    for (size_t j = 0; j < i; j++) {
      if (strcmp(config->factories[j].name, f->name) == 0) {
        factory_field(error, (long long)i);
        lctx_buf_append_cstr(error, "name repeats ");
        factory_field(error, (long long)j);
        lctx_buf_append_cstr(error, "name");
        return false;
      }
    }
  }
  return check_text(config->jax_platforms, LCTX_MAX_PLATFORMS_CONFIG,
                    "jax_platforms", -1, error) &&
         check_text(config->jax_platform_name, LCTX_MAX_NAME,
                    "jax_platform_name", -1, error) &&
         check_text(config->jax_xla_backend, LCTX_MAX_NAME, "jax_xla_backend",
                    -1, error);
}

//===----------------------------------------------------------------------===//
// Tracing
//===----------------------------------------------------------------------===//

void lctx_registry_set_trace(lctx_registry *registry, lctx_trace_fn trace,
                             void *user_data) {
  registry->trace = trace;
  registry->trace_user_data = user_data;
}

void lctx_registry_tracef(const lctx_registry *registry, const char *format,
                          ...) {
  if (!registry->trace)
    return;
  char line[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(line, sizeof line, format, args);
  va_end(args);
  registry->trace(registry->trace_user_data, line);
}

//===----------------------------------------------------------------------===//
// Initialization
//===----------------------------------------------------------------------===//

void lctx_registry_init(lctx_registry *registry,
                        const lctx_registry_config *config) {
  registry->config = config;
  registry->trace = NULL;
  registry->trace_user_data = NULL;
  registry->entry_count = 0;
  registry->failure_count = 0;
  registry->has_default = false;
  registry->default_client.platform = lctx_str_make(NULL, 0);
  registry->default_client.registration = -1;
  registry->init_runs = 0;
}

void lctx_registry_copy(lctx_registry *dst, const lctx_registry *src) {
  if (dst == src)
    return;
  dst->config = src->config;
  dst->trace = src->trace;
  dst->trace_user_data = src->trace_user_data;
  /* Most copies are of a registry not initialized yet: nothing to copy. */
  dst->entry_count = src->entry_count;
  if (src->entry_count > 0)
    memcpy(dst->entries, src->entries,
           src->entry_count * sizeof src->entries[0]);
  dst->failure_count = src->failure_count;
  if (src->failure_count > 0)
    memcpy(dst->failures, src->failures,
           src->failure_count * sizeof src->failures[0]);
  dst->has_default = src->has_default;
  dst->default_client = src->default_client;
  dst->init_runs = src->init_runs;
}

static bool platforms_config_set(const lctx_registry_config *config) {
  return config->jax_platforms != NULL && config->jax_platforms[0] != '\0';
}

/* Appends str(err) for a failure of `platform`. */
static void format_failure(const lctx_registry_config *config,
                           lctx_str platform, lctx_failure_kind kind,
                           int factory, lctx_buf *out) {
  switch (kind) {
  case LCTX_FAILURE_RAISED:
    lctx_buf_append_cstr(out, config->factories[factory].message);
    break;
  case LCTX_FAILURE_RETURNED_NONE:
    lctx_buf_append_cstr(out, "Could not initialize backend '");
    lctx_buf_append_str(out, platform);
    lctx_buf_append_char(out, '\'');
    break;
  case LCTX_FAILURE_NO_DEVICES:
    lctx_buf_append_cstr(out, "Backend '");
    lctx_buf_append_str(out, platform);
    lctx_buf_append_cstr(out, "' provides no devices.");
    break;
  case LCTX_FAILURE_UNKNOWN: {
    lctx_buf_append_cstr(out, "Backend '");
    lctx_buf_append_str(out, platform);
    lctx_buf_append_cstr(out, "' is not in the list of known backends: [");
    for (size_t i = 0; i < config->factory_count; i++) {
      if (i > 0)
        lctx_buf_append(out, ", ", 2);
      lctx_pyrepr_str(out, lctx_str_from_cstr(config->factories[i].name));
    }
    lctx_buf_append_cstr(out, "].");
    break;
  }
  }
}

static const char *failure_kind_name(lctx_failure_kind kind) {
  switch (kind) {
  case LCTX_FAILURE_RAISED:
    return "raised";
  case LCTX_FAILURE_RETURNED_NONE:
    return "returned None";
  case LCTX_FAILURE_NO_DEVICES:
    return "no devices";
  case LCTX_FAILURE_UNKNOWN:
    return "no factory";
  }
  return "?";
}

static lctx_registry_entry *find_entry(lctx_registry *registry,
                                       lctx_str platform) {
  for (size_t i = 0; i < registry->entry_count; i++) {
    if (lctx_str_equal(registry->entries[i].platform, platform))
      return &registry->entries[i];
  }
  return NULL;
}

static void record_failure(lctx_registry *registry, lctx_str platform,
                           lctx_failure_kind kind, int factory) {
  for (size_t i = 0; i < registry->failure_count; i++) {
    lctx_registry_failure *f = &registry->failures[i];
    if (lctx_str_equal(f->platform, platform)) {
      f->kind = kind;
      f->factory = factory;
      return;
    }
  }
  if (registry->failure_count < LCTX_MAX_REGISTRATIONS) {
    lctx_registry_failure *f = &registry->failures[registry->failure_count++];
    f->platform = platform;
    f->kind = kind;
    f->factory = factory;
  }
}

/* Runs one registration of `platform`, whose factory is `factory` (its
 * index in the configuration, or -1 when none is registered under that
 * name). Returns false after filling `out` on a loud failure. */
static bool run_registration(lctx_registry *registry, lctx_str platform,
                             int factory, int priority, bool fail_quietly,
                             int registration, int *best_priority,
                             lctx_outcome *out) {
  const lctx_registry_config *config = registry->config;
  /* The cheap tests first: this runs for every registration. */
  if (!config->nvidia_gpu_visible && platform.length == 4 &&
      memcmp(platform.data, "cuda", 4) == 0 &&
      lctx_release_resolve(config->release)->cuda_skip) {
    LCTX_REGISTRY_TRACEF(
        registry, "init: registration %d 'cuda' skipped: no visible NVIDIA GPU",
        registration);
    return true;
  }
  lctx_failure_kind kind = LCTX_FAILURE_UNKNOWN;
  bool ok = false;
  if (factory >= 0) {
    switch (config->factories[factory].behaviour) {
    case LCTX_FACTORY_CLIENT:
      ok = true;
      break;
    case LCTX_FACTORY_RAISES:
      kind = LCTX_FAILURE_RAISED;
      break;
    case LCTX_FACTORY_RETURNS_NONE:
      kind = LCTX_FAILURE_RETURNED_NONE;
      break;
    case LCTX_FACTORY_NO_DEVICES:
      kind = LCTX_FAILURE_NO_DEVICES;
      break;
    }
  }
  if (ok) {
    lctx_registry_entry *entry = find_entry(registry, platform);
    if (entry) {
      entry->registration = registration; /* keeps its first position */
    } else {
      entry = &registry->entries[registry->entry_count++];
      entry->platform = platform;
      entry->registration = registration;
    }
    bool becomes_default = priority > *best_priority;
    if (becomes_default) {
      registry->has_default = true;
      registry->default_client = *entry;
      *best_priority = priority;
    }
    LCTX_REGISTRY_TRACEF(
        registry, "init: registration %d '%.*s' priority %d: client stored%s",
        registration, (int)platform.length, platform.data, priority,
        becomes_default ? ", now the default" : "");
    return true;
  }
  if (fail_quietly) {
    record_failure(registry, platform, kind, factory);
    LCTX_REGISTRY_TRACEF(registry,
                         "init: registration %d '%.*s' failed quietly (%s)",
                         registration, (int)platform.length, platform.data,
                         failure_kind_name(kind));
    return true;
  }
  LCTX_REGISTRY_TRACEF(
      registry, "init: registration %d '%.*s' failed loudly (%s)", registration,
      (int)platform.length, platform.data, failure_kind_name(kind));
  lctx_buf w = lctx_outcome_begin_raise(out, LCTX_ERROR_RUNTIME);
  lctx_buf_append_cstr(&w, "Unable to initialize backend '");
  lctx_buf_append_str(&w, platform);
  lctx_buf_append_cstr(&w, "': ");
  format_failure(config, platform, kind, factory, &w);
  lctx_buf_append_cstr(&w, platforms_config_set(config)
                               ? SUFFIX_PLATFORMS_SET
                               : SUFFIX_PLATFORMS_UNSET);
  lctx_outcome_end(out, &w);
  return false;
}

/* Runs the registrations of the jax_platforms list: split on ',' with no
 * trimming, `gpu` expanded (the release's alias members), priorities N..1,
 * all loud. A first pass counts the registrations (N), the second runs
 * them. Returns false after filling `out` on a loud failure. */
static bool run_platforms_config(lctx_registry *registry, lctx_outcome *out,
                                 int *best_priority) {
  const char *spec = registry->config->jax_platforms;
  const lctx_release_list *gpu =
      &lctx_release_resolve(registry->config->release)->gpu_alias;
  int total = 0;
  for (int pass = 0; pass < 2; pass++) {
    int registration = 0;
    const char *start = spec;
    for (;;) {
      const char *comma = strchr(start, ',');
      size_t length = comma ? (size_t)(comma - start) : strlen(start);
      lctx_str piece = lctx_str_make(start, length);
      bool alias = lctx_str_equal_cstr(piece, "gpu");
      size_t n = alias ? gpu->count : 1;
      for (size_t k = 0; k < n; k++) {
        lctx_str name = alias ? gpu->names[k] : piece;
        if (pass == 1 && registration < LCTX_MAX_REGISTRATIONS &&
            !run_registration(
                registry, name, find_factory(registry->config, name),
                total - registration, false, registration, best_priority, out))
          return false;
        registration++;
      }
      if (!comma)
        break;
      start = comma + 1;
    }
    total = registration;
  }
  return true;
}

static bool run_initialization(lctx_registry *registry, lctx_outcome *out) {
  const lctx_registry_config *config = registry->config;
  int best_priority = DEFAULT_PRIORITY_FLOOR;
  registry->init_runs++;
  if (platforms_config_set(config)) {
    LCTX_REGISTRY_TRACEF(registry,
                         "init: run %d from jax_platforms='%s' (all loud)",
                         registry->init_runs, config->jax_platforms);
    if (!run_platforms_config(registry, out, &best_priority))
      return false;
  } else {
    LCTX_REGISTRY_TRACEF(registry, "init: run %d from %zu registered factories",
                         registry->init_runs, config->factory_count);
    for (size_t i = 0; i < config->factory_count; i++) {
      const lctx_factory *f = &config->factories[i];
      /* Factory names are unique (lctx_registry_config_validate): the
       * factory registered under this name is this one. */
      if (!run_registration(registry, lctx_str_from_cstr(f->name), (int)i,
                            f->priority, f->fail_quietly, (int)i,
                            &best_priority, out))
        return false;
    }
  }
  if (!registry->has_default) {
    LCTX_REGISTRY_TRACEF(registry,
                         "init: no client beat priority -1000: AssertionError");
    lctx_buf w = lctx_outcome_begin_raise(out, LCTX_ERROR_ASSERTION);
    lctx_outcome_end(out, &w);
    return false;
  }
  return true;
}

bool lctx_registry_ensure(lctx_registry *registry, lctx_outcome *out) {
  if (registry->entry_count > 0) {
    LCTX_REGISTRY_TRACEF(registry, "registry: already holds %zu platform(s)",
                         registry->entry_count);
    return true;
  }
  return run_initialization(registry, out);
}

bool lctx_registry_backends(lctx_registry *registry, lctx_outcome *out) {
  if (!lctx_registry_ensure(registry, out))
    return false;
  lctx_buf w = lctx_outcome_begin(out, LCTX_OUTCOME_PLATFORMS);
  lctx_registry_format_platforms(registry, &w);
  lctx_outcome_end(out, &w);
  return true;
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

size_t lctx_registry_entry_count(const lctx_registry *registry) {
  return registry->entry_count;
}

lctx_registry_entry lctx_registry_entry_at(const lctx_registry *registry,
                                           size_t index) {
  return registry->entries[index];
}

int lctx_registry_init_runs(const lctx_registry *registry) {
  return registry->init_runs;
}

const lctx_registry_entry *lctx_registry_find(const lctx_registry *registry,
                                              lctx_str platform) {
  for (size_t i = 0; i < registry->entry_count; i++) {
    if (lctx_str_equal(registry->entries[i].platform, platform))
      return &registry->entries[i];
  }
  return NULL;
}

const lctx_registry_failure *
lctx_registry_find_failure(const lctx_registry *registry, lctx_str platform) {
  for (size_t i = 0; i < registry->failure_count; i++) {
    if (lctx_str_equal(registry->failures[i].platform, platform))
      return &registry->failures[i];
  }
  return NULL;
}

void lctx_registry_failure_message(const lctx_registry *registry,
                                   const lctx_registry_failure *failure,
                                   lctx_buf *out) {
  format_failure(registry->config, failure->platform, failure->kind,
                 failure->factory, out);
}

const lctx_registry_entry *
lctx_registry_default(const lctx_registry *registry) {
  return registry->has_default ? &registry->default_client : NULL;
}

void lctx_registry_format_platforms(const lctx_registry *registry,
                                    lctx_buf *out) {
  lctx_buf_append_char(out, '[');
  for (size_t i = 0; i < registry->entry_count; i++) {
    if (i > 0)
      lctx_buf_append(out, ", ", 2);
    lctx_pyrepr_str(out, registry->entries[i].platform);
  }
  lctx_buf_append_char(out, ']');
}
