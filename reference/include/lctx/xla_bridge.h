/*
 * lctx/xla_bridge.h - canonicalize_platform, xla_bridge.get_backend and the
 * client's `.platform` shim.
 *
 * Owns the use of the alias table (`gpu` -> cuda, rocm, oneapi at the
 * modelled commit; the members are the release's, lctx/release.h), JAX's
 * `canonicalize_platform` (jax/_src/xla_bridge.py at jax-ml/jax@cec06d116c05,
 * lines 729-747) and `get_backend` / `_get_backend_uncached` (lines 927-958),
 * and the `.platform` attribute of a client (jaxlib reports `gpu` for cuda,
 * rocm and oneapi clients; for cuda and rocm only before jax-v0.11.0). The
 * operations read the release of the registry's configuration. Uses
 * lctx/registry.h for initialization; does not know about module contexts.
 * Never allocates.
 */
#ifndef LCTX_XLA_BRIDGE_H
#define LCTX_XLA_BRIDGE_H

#include "lctx/outcome.h"
#include "lctx/registry.h"
#include "lctx/str.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Returns the `.platform` attribute of a client whose real platform is
/// `real_platform`, at the modelled commit: "gpu" for cuda, rocm and oneapi,
/// the name itself otherwise. The result is a static string or
/// `real_platform` itself.
LCTX_API lctx_str lctx_client_platform_attr(lctx_str real_platform);

/// lctx_client_platform_attr at release `release` (NULL: modelled): "gpu"
/// for the release's `client_gpu` platforms.
LCTX_API lctx_str lctx_client_platform_attr_at(const lctx_release *release,
                                               lctx_str real_platform);

/// Returns true for the one platform alias, exactly `gpu` (case-sensitive).
LCTX_API bool lctx_platform_is_alias(lctx_str name);

/// Resolves a name to a canonical platform without filling an outcome.
/// Non-aliases come back unchanged and the registry is untouched. `gpu`
/// initializes the registry and resolves to the first of the release's alias
/// members (cuda, rocm, oneapi) that is initialized. On success stores the
/// result in `*canonical` (a
/// static string or `name` itself) and returns true; on failure fills `err`
/// with the raise and returns false.
LCTX_API bool lctx_canonicalize(lctx_registry *registry, lctx_str name,
                                lctx_str *canonical, lctx_outcome *err);

/// The `canonicalize_platform(name)` operation: `out` becomes the returned
/// string (LCTX_OUTCOME_STRING) or the raise. Returns true on success.
LCTX_API bool lctx_canonicalize_platform(lctx_registry *registry, lctx_str name,
                                         lctx_outcome *out);

/// The `xla_bridge.get_backend(platform)` operation. `platform` NULL means
/// None. None or the empty string fall back to `jax_xla_backend`, then
/// `jax_platform_name`, then None (the default client). `out` becomes a
/// registry client (LCTX_OUTCOME_CLIENT) or the raise ("Unknown backend
/// {p}" lists the available backends from jax-v0.4.26). Returns true on
/// success.
LCTX_API bool lctx_xla_get_backend(lctx_registry *registry,
                                   const lctx_str *platform, lctx_outcome *out);

#ifdef __cplusplus
}
#endif

#endif /* LCTX_XLA_BRIDGE_H */
