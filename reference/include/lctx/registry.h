/*
 * lctx/registry.h - backend factories and the lazily initialized registry.
 *
 * Owns JAX's `backends()` (jax/_src/xla_bridge.py at jax-ml/jax@cec06d116c05,
 * lines 786-848, with `_init_backend` at 899-924): which registrations are
 * made (`gpu` in jax_platforms expanded per the configuration's release,
 * lctx/release.h), the cuda skip (from jax-v0.4.31), loud and quiet failures
 * with their messages, the
 * default-client rule, the AssertionError, and the partial registry that a
 * later operation sees. It does not canonicalize names or look clients up by
 * name (see lctx/xla_bridge.h).
 *
 * A registry holds no heap memory and there is no global state: the caller
 * owns the configuration and the registry struct. The configuration's strings
 * must outlive the registry.
 */
#ifndef LCTX_REGISTRY_H
#define LCTX_REGISTRY_H

#include "lctx/outcome.h"
#include "lctx/release.h"
#include "lctx/str.h"

#ifdef __cplusplus
extern "C" {
#endif

//===----------------------------------------------------------------------===//
// Limits
//===----------------------------------------------------------------------===//

/// Most factories a configuration may hold.
#define LCTX_MAX_FACTORIES 16
/// Longest factory name, `jax_platform_name` or `jax_xla_backend`, in bytes.
#define LCTX_MAX_NAME 63
/// Longest factory raise message, in bytes.
#define LCTX_MAX_MESSAGE 127
/// Longest `jax_platforms` value, in bytes.
#define LCTX_MAX_PLATFORMS_CONFIG 255
/// Most registrations one initialization can make (256 empty entries, or 64
/// `gpu` entries expanded threefold, fit).
#define LCTX_MAX_REGISTRATIONS 256

//===----------------------------------------------------------------------===//
// Configuration
//===----------------------------------------------------------------------===//

/// What a factory does when it is called.
typedef enum lctx_factory_behaviour {
  /// Returns a client with devices.
  LCTX_FACTORY_CLIENT = 0,
  /// Raises; str(err) is the factory's `message`.
  LCTX_FACTORY_RAISES,
  /// Returns None: "Could not initialize backend '{p}'".
  LCTX_FACTORY_RETURNS_NONE,
  /// Returns a client with no devices: "Backend '{p}' provides no devices.".
  LCTX_FACTORY_NO_DEVICES,
} lctx_factory_behaviour;

/// One registered backend factory (`register_backend_factory`). JAX's own
/// defaults, which a caller applies itself: fail_quietly is true when the
/// argument is omitted; plugins register with priority 400.
typedef struct lctx_factory {
  /// The platform name; bytes 0x01-0x7f, at most LCTX_MAX_NAME.
  const char *name;
  int priority;
  bool fail_quietly;
  lctx_factory_behaviour behaviour;
  /// For LCTX_FACTORY_RAISES: the exception's message (may be empty or
  /// NULL for empty); ignored otherwise.
  const char *message;
} lctx_factory;

/// Everything backend initialization reads.
typedef struct lctx_registry_config {
  /// Factories in registration order; names are unique (see
  /// lctx_registry_config_add_factory).
  lctx_factory factories[LCTX_MAX_FACTORIES];
  size_t factory_count;
  /// The `jax_platforms` config: NULL or "" when unset; otherwise split on
  /// `,` with no trimming.
  const char *jax_platforms;
  /// The `jax_platform_name` config: NULL or "" when unset.
  const char *jax_platform_name;
  /// The `jax_xla_backend` config: NULL or "" when unset.
  const char *jax_xla_backend;
  /// Whether an NVIDIA GPU is visible (`has_visible_nvidia_gpu()`).
  bool nvidia_gpu_visible;
  /// The JAX release whose behaviour the model reproduces (lctx/release.h);
  /// NULL for the modelled commit. Every part of the model reads the release
  /// from here (a lowering registry through its configuration).
  const lctx_release *release;
} lctx_registry_config;

/// Resets a configuration to no factories, no config values, no GPU, the
/// modelled release.
LCTX_API void lctx_registry_config_init(lctx_registry_config *config);

/// Registers a factory the way `register_backend_factory` does: a new name is
/// appended; a name already present keeps its position and takes the new
/// priority, fail_quietly, behaviour and message (even when the
/// configuration is full). Returns false, changing nothing, only for a new
/// name when the configuration already holds LCTX_MAX_FACTORIES factories.
LCTX_API bool lctx_registry_config_add_factory(lctx_registry_config *config,
                                               lctx_factory factory);

/// Checks a configuration against lctx's limits and scope: at most
/// LCTX_MAX_FACTORIES unique factory names, names and messages within their
/// length limits and in bytes 0x01-0x7f, config values likewise. On failure
/// writes a message that starts with the offending field's path
/// (`factories[2].name`, `factories[2].message`, `jax_platforms`,
/// `jax_platform_name`, `jax_xla_backend`, `factories`) followed by a space
/// or a colon, and returns false.
LCTX_API bool lctx_registry_config_validate(const lctx_registry_config *config,
                                            lctx_buf *error);

//===----------------------------------------------------------------------===//
// Tracing
//===----------------------------------------------------------------------===//

/// Receives one line per decision the model takes (branch taken, registry
/// look-up, initialization step). `event` is valid only during the call.
typedef void (*lctx_trace_fn)(void *user_data, const char *event);

//===----------------------------------------------------------------------===//
// The registry
//===----------------------------------------------------------------------===//

/// How a registration failed.
typedef enum lctx_failure_kind {
  LCTX_FAILURE_RAISED = 0,    ///< the factory raised its message
  LCTX_FAILURE_RETURNED_NONE, ///< "Could not initialize backend '{p}'"
  LCTX_FAILURE_NO_DEVICES,    ///< "Backend '{p}' provides no devices."
  LCTX_FAILURE_UNKNOWN,       ///< "... is not in the list of known backends"
} lctx_failure_kind;

/// An initialized platform: the registry key and the client stored under it.
typedef struct lctx_registry_entry {
  /// The platform name (the registry key); points into the configuration.
  lctx_str platform;
  /// The registration that created the stored client.
  int registration;
} lctx_registry_entry;

/// A quiet failure recorded during initialization (`_backend_errors`).
typedef struct lctx_registry_failure {
  lctx_str platform;
  lctx_failure_kind kind;
  /// Index of the factory that failed.
  int factory;
} lctx_registry_failure;

/// The state of `backends()`: created uninitialized, filled on first need.
/// Treat the fields as private; use the functions below.
typedef struct lctx_registry {
  /* The small fields first, together: every operation reads them, and a
   * copy of a registry writes them and only the used parts of the arrays. */
  const lctx_registry_config *config;
  lctx_trace_fn trace;
  void *trace_user_data;
  size_t entry_count;
  size_t failure_count;
  bool has_default;
  lctx_registry_entry default_client;
  /// Number of times initialization ran (for traces and tests).
  int init_runs;
  lctx_registry_entry entries[LCTX_MAX_REGISTRATIONS];
  lctx_registry_failure failures[LCTX_MAX_REGISTRATIONS];
} lctx_registry;

/// Creates an uninitialized registry over `config`, which must have passed
/// lctx_registry_config_validate and must outlive the registry.
LCTX_API void lctx_registry_init(lctx_registry *registry,
                                 const lctx_registry_config *config);

/// Copies the state of `src` into `dst` (which need not be initialized):
/// its configuration, trace, clients, failures and default, copying only the
/// entries in use. `dst` then behaves exactly as `src` would.
LCTX_API void lctx_registry_copy(lctx_registry *dst, const lctx_registry *src);

/// Installs (or, with NULL, removes) a trace callback.
LCTX_API void lctx_registry_set_trace(lctx_registry *registry,
                                      lctx_trace_fn trace, void *user_data);

/// Sends one printf-formatted line to the registry's trace callback, if one
/// is installed (lines longer than 1023 bytes are cut). Formats nothing and
/// costs one branch otherwise. Used by every operation of the model.
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
LCTX_API void
lctx_registry_tracef(const lctx_registry *registry, const char *format, ...);

/// lctx_registry_tracef behind the test of whether a trace callback is
/// installed, made at the call site: without one, the arguments are neither
/// evaluated nor passed. What the model's operations call.
#define LCTX_REGISTRY_TRACEF(registry, ...)                                    \
  do {                                                                         \
    if ((registry)->trace)                                                     \
      lctx_registry_tracef((registry), __VA_ARGS__);                           \
  } while (0)

/// Ensures the registry is initialized, as every JAX operation that needs it
/// does: if it already holds any client it is returned as is (possibly a
/// partial registry); otherwise initialization runs. On success returns true
/// and leaves `out` untouched; on failure fills `out` with the raise
/// (RuntimeError "Unable to initialize backend ...", or the bare
/// AssertionError) and returns false. Never allocates.
LCTX_API bool lctx_registry_ensure(lctx_registry *registry, lctx_outcome *out);

/// The `backends()` operation: like lctx_registry_ensure, but on success sets
/// `out` to LCTX_OUTCOME_PLATFORMS. Returns true on success.
LCTX_API bool lctx_registry_backends(lctx_registry *registry,
                                     lctx_outcome *out);

/// Number of initialized platforms.
LCTX_API size_t lctx_registry_entry_count(const lctx_registry *registry);

/// The `index`-th initialized platform, in registry order. `index` must be
/// below lctx_registry_entry_count (undefined otherwise).
LCTX_API lctx_registry_entry
lctx_registry_entry_at(const lctx_registry *registry, size_t index);

/// Number of times initialization has run: 0 before first need; it runs
/// again on every access while the registry holds no client.
LCTX_API int lctx_registry_init_runs(const lctx_registry *registry);

/// Looks up an initialized platform by exact name.
LCTX_API const lctx_registry_entry *
lctx_registry_find(const lctx_registry *registry, lctx_str platform);

/// Looks up a recorded quiet failure by exact name.
LCTX_API const lctx_registry_failure *
lctx_registry_find_failure(const lctx_registry *registry, lctx_str platform);

/// Appends str(err) of a recorded failure, as JAX stored it.
LCTX_API void
lctx_registry_failure_message(const lctx_registry *registry,
                              const lctx_registry_failure *failure,
                              lctx_buf *out);

/// Returns the default client, or NULL when there is none (an uninitialized
/// registry, or a partial one whose clients never beat priority -1000).
LCTX_API const lctx_registry_entry *
lctx_registry_default(const lctx_registry *registry);

/// Appends the Python list repr of the initialized platform names, in
/// registry order (`list(backends())`).
LCTX_API void lctx_registry_format_platforms(const lctx_registry *registry,
                                             lctx_buf *out);

#ifdef __cplusplus
}
#endif

#endif /* LCTX_REGISTRY_H */
