/*
 * lctx/module_context.h - ModuleContext.get_backend(optional).
 *
 * Owns JAX's `ModuleContext.get_backend` (jax/_src/interpreters/mlir.py at
 * jax-ml/jax@cec06d116c05, lines 890-907): the multi-platform check (B1), the
 * pinned-backend comparison (B2a/B2b), the registry look-up (B3), and the
 * IndexError of an empty platform sequence; and its older forms, per the
 * release of the registry's configuration (lctx/release.h). Never
 * allocates.
 */
#ifndef LCTX_MODULE_CONTEXT_H
#define LCTX_MODULE_CONTEXT_H

#include "lctx/outcome.h"
#include "lctx/registry.h"
#include "lctx/str.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Most platforms a module context may list.
#define LCTX_MAX_MODULE_PLATFORMS 16

/// The parts of a ModuleContext that get_backend reads.
typedef struct lctx_module_context {
  /// The module platforms, as given (duplicates and non-canonical names are
  /// kept; get_backend compares them raw).
  lctx_str platforms[LCTX_MAX_MODULE_PLATFORMS];
  size_t platform_count;
  /// Whether a backend is pinned on the context.
  bool has_backend;
  /// The real platform of the pinned client (its `.platform` attribute is
  /// derived by lctx_client_platform_attr_at for the release).
  lctx_str backend_platform;
  /// Whether the platforms are held as a Python list rather than a tuple:
  /// true when `lower_fun` replaced the module platforms by a rule
  /// context's narrowed platforms (JAX builds those as lists), so that the
  /// IndexError of zero platforms reads "list index out of range". The
  /// normal lowering path holds a tuple.
  bool platforms_are_list;
} lctx_module_context;

/// Which row of the decision table a call took.
typedef enum lctx_module_branch {
  LCTX_BRANCH_B1 = 1, ///< more than one platform
  LCTX_BRANCH_B2A,    ///< pinned backend on another platform
  LCTX_BRANCH_B2B,    ///< pinned backend on platforms[0]
  LCTX_BRANCH_B3,     ///< no pinned backend: registry look-up
  LCTX_BRANCH_ERROR,  ///< an error raised before a branch was decided
} lctx_module_branch;

/// Resets a context to no platforms and no pinned backend.
LCTX_API void lctx_module_context_init(lctx_module_context *context);

/// Appends a platform. Returns false when the context is full.
LCTX_API bool lctx_module_context_add_platform(lctx_module_context *context,
                                               lctx_str platform);

/// Pins a backend whose real platform is `platform`.
LCTX_API void lctx_module_context_pin(lctx_module_context *context,
                                      lctx_str platform);

/// The `ModuleContext.get_backend(optional)` operation. `out` becomes the
/// pinned client, a registry client, None, or the raise. If `branch` is not
/// NULL it receives the branch taken: B1, B2a, B2b or B3 once the decision is
/// made (B3 also when xla_bridge.get_backend raises), LCTX_BRANCH_ERROR when
/// an error came first (canonicalizing the pinned client raised, or the
/// IndexError of zero platforms). Returns true unless it raised.
///
/// At the release of the registry's configuration (lctx/release.h): before
/// jax-v0.5.0 this is the `.backend` property: B1, then the pinned client
/// without canonicalization or comparison (B2b), else
/// `xla_bridge.get_backend(None)` (B3, no IndexError). With `optional` true
/// at a release without `get_backend(optional=...)` (before jax-v0.7.2;
/// lctx_release_has_op), the call does not exist: nothing runs, `out` is
/// None, the branch LCTX_BRANCH_ERROR, and it returns false.
LCTX_API bool lctx_module_get_backend(lctx_registry *registry,
                                      const lctx_module_context *context,
                                      bool optional, lctx_outcome *out,
                                      lctx_module_branch *branch);

/// Returns "B1", "B2a", "B2b", "B3" or "error".
LCTX_API const char *lctx_module_branch_name(lctx_module_branch branch);

#ifdef __cplusplus
}
#endif

#endif /* LCTX_MODULE_CONTEXT_H */
