/*
 * lctx/release.h - the JAX releases the model reproduces, as one table of
 * named facts.
 *
 * Owns the release record: what differs, for the behaviour lctx models,
 * between the JAX releases 0.4.20, 0.4.30, 0.5.3, 0.6.2, 0.7.2, 0.8.3,
 * 0.9.2, 0.10.2, 0.11.0, the modelled commit (jax-ml/jax@cec06d116c05, the
 * default), and the releases after it, 0.11.1, 0.11.2, 0.12.0, 0.12.0.1 and
 * 0.12.1 (read from their wheels). Each fact is a field the model reads by name
 * (the members of the `gpu` alias, which real platforms a jaxlib client reports
 * as `gpu`, whether ModuleContext.get_backend takes `optional`, ...); the model
 * never compares version strings. Every entry of the table cites the JAX source
 * at that release and the commit that changed it (reference/src/release.c).
 *
 * Also owns which operations a release has at all (lctx_release_has_op): an
 * operation a release lacks is not modelled there, and callers skip it.
 *
 * The records are static and immutable; a NULL release means the modelled
 * commit everywhere a release is taken.
 */
#ifndef LCTX_RELEASE_H
#define LCTX_RELEASE_H

#include "lctx/str.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Most names in one of a release's platform lists.
#define LCTX_RELEASE_MAX_LIST 4

/// A short list of platform names, in JAX's order.
typedef struct lctx_release_list {
  size_t count;
  lctx_str names[LCTX_RELEASE_MAX_LIST];
} lctx_release_list;

/// One release: its name and the facts in which it differs. The fields are
/// public for the model to read; records come only from this module.
typedef struct lctx_release {
  /// "0.4.20", ..., "0.12.1", or "modelled".
  const char *name;
  /// The JAX git ref the facts were read at: "jax-v0.4.20", or the modelled
  /// commit "cec06d116c05".
  const char *jax_ref;

  /* jax/_src/xla_bridge.py */

  /// `_alias_to_platforms["gpu"]`: what `gpu` stands for, in order
  /// (canonicalize_platform, expand_platform_alias, jax_platforms,
  /// register_lowering('gpu')).
  lctx_release_list gpu_alias;
  /// `known_platforms()` without the factory names (which are always
  /// known). Before known_platforms() existed: is_known_platform's names
  /// (unused by register_lowering then).
  lctx_release_list known_builtin;
  /// backends() skips a `cuda` registration when no NVIDIA GPU is visible.
  bool cuda_skip;
  /// get_backend's "Unknown backend {p}" ends ". Available backends are
  /// [...]".
  bool unknown_backend_lists_available;

  /* jaxlib (py_client.h): the client's `.platform` */

  /// The real platforms whose client reports `.platform` "gpu".
  lctx_release_list client_gpu;

  /* jax/_src/interpreters/mlir.py: ModuleContext */

  /// `get_backend(optional=...)` exists (else only `get_backend()` or the
  /// `.backend` property, which behave as optional=False).
  bool module_optional;
  /// A pinned client's canonicalized `.platform` is compared with
  /// platforms[0] (B2a/B2b); otherwise the pinned client is returned as is.
  bool module_pinned_check;
  /// With no pinned client the registry is asked for platforms[0] (an empty
  /// platform tuple raises IndexError); otherwise `xb.get_backend(None)`.
  bool module_lookup_first_platform;

  /* jax/_src/interpreters/mlir.py: lowering */

  /// register_lowering raises NotImplementedError for an unknown platform;
  /// otherwise it stores the rule under any name.
  bool lowering_checks_platform;
  /// `lower_per_platform` exists (jaxpr_subcomp lowers an equation through
  /// it).
  bool has_lower_per_platform;
  /// A compute type (`device_host`, `tpu_sparsecore`) chooses the platforms
  /// of an equation (`_platforms_for_eqn_ctx`).
  bool compute_type_platforms;
  /// Entering an equation's context manager refuses a compute type other
  /// than the one in force (NotImplementedError "Nesting `compute_on` ...").
  bool compute_nesting_check;
  /// lower_per_platform's first case has one branch per platform the module
  /// is lowered for (`shape_poly_state.lowering_platforms`, which lower_fun
  /// does not narrow), a platform without a kept rule yielding slot 0, after
  /// `assert len(module_platforms) > 1`; otherwise one branch per platform of
  /// the equation (the narrowed list inside a branch: the nested
  /// platform-index defect).
  bool dispatch_module_platforms;
  /// jaxlib's `.platform` shim (client_gpu) was not read at this release:
  /// its C++ source is in no readable tree. `client_gpu` then holds the
  /// modelled commit's list, and what depends on it is not judged there.
  bool client_gpu_unread;
} lctx_release;

/// The modelled commit (today's behaviour, the default).
LCTX_API const lctx_release *lctx_release_modelled(void);

/// The release named `name` ("modelled", "0.10.2", ...), or NULL when the
/// model does not know it (or `name` is NULL).
LCTX_API const lctx_release *lctx_release_find(const char *name);

/// Number of releases the model knows, oldest first, the modelled commit
/// among them where it falls in time (after 0.11.0, before 0.11.1).
LCTX_API size_t lctx_release_count(void);

/// The `i`-th release (below lctx_release_count), or NULL.
LCTX_API const lctx_release *lctx_release_at(size_t i);

/// The release's name; "modelled" for NULL.
LCTX_API const char *lctx_release_name(const lctx_release *r);

/// `r`, or the modelled commit when `r` is NULL: what the model calls
/// before reading a fact.
LCTX_API const lctx_release *lctx_release_resolve(const lctx_release *r);

/// Returns true when `name` is in `list` (exact bytes).
LCTX_API bool lctx_release_list_has(const lctx_release_list *list,
                                    lctx_str name);

/// Appends the names of `list` joined by `, ` (for traces).
LCTX_API void lctx_release_list_format(const lctx_release_list *list,
                                       lctx_buf *out);

/// Appends, for each fact in which releases `a` and `b` differ, "; model
/// fact NAME (release.c FN) changed in WHERE" (WHERE: the commit and its
/// first release, or for a change after the modelled commit the release
/// and the lines of its wheel). Returns how many it appended.
LCTX_API size_t lctx_release_describe_changes(const lctx_release *a,
                                              const lctx_release *b,
                                              lctx_buf *out);

/// Whether releases `a` and `b` behave alike in everything the model reads
/// (every fact but which ones were read).
LCTX_API bool lctx_release_same_behaviour(const lctx_release *a,
                                          const lctx_release *b);

/// The modelled operations, as far as a release may lack one.
typedef enum lctx_release_op {
  LCTX_RELEASE_OP_BACKENDS = 0,    ///< backends()
  LCTX_RELEASE_OP_CANONICALIZE,    ///< canonicalize_platform(name)
  LCTX_RELEASE_OP_XLA_GET_BACKEND, ///< xla_bridge.get_backend(platform)
  /// ModuleContext.get_backend() (`.backend` before 0.5.0).
  LCTX_RELEASE_OP_MODULE_GET_BACKEND,
  /// ModuleContext.get_backend(optional=True), and every rule action that
  /// calls it (read_client_platform, try_fallback_get_backend's retry).
  LCTX_RELEASE_OP_MODULE_GET_BACKEND_OPTIONAL,
  LCTX_RELEASE_OP_REGISTER_LOWERING, ///< register_lowering
  /// An equation lowered through lower_per_platform.
  LCTX_RELEASE_OP_LOWER_PER_PLATFORM,
} lctx_release_op;

/// Whether release `r` (NULL: modelled) has operation `op`. An operation it
/// lacks is not modelled there: the model's functions refuse it (see each)
/// and callers skip it.
LCTX_API bool lctx_release_has_op(const lctx_release *r, lctx_release_op op);

#ifdef __cplusplus
}
#endif

#endif /* LCTX_RELEASE_H */
