/*
 * release.c - the table of JAX releases and their facts (see lctx/release.h).
 *
 * Owns the one place where releases differ: one record per release, each
 * fact cited (file:line at that release's tag in jax-ml/jax, and the commit
 * that changed it; `git tag --contains C` gives the first release). The rest
 * of the model reads these fields by name and never compares versions. Must
 * hold no mutable state: the table is `static const`.
 *
 * The facts, the commits that changed them, and the first tag holding each:
 *
 * F1 gpu_alias - `_platform_aliases` (jax/_src/xla_bridge.py): {cuda, rocm}
 *    until 5e1c8e7295 "Introducing OneAPI PJRT plugin." (jax-v0.10.1) added
 *    "oneapi": "gpu". Read by canonicalize_platform, expand_platform_alias
 *    (jax_platforms and register_lowering('gpu')) and known_platforms().
 * F2 client_gpu - the client's `.platform` shim, PyClient::platform_name():
 *    cuda and rocm report "gpu" until 00b8c5dbf0 "add test utilities
 *    functions for oneapi" (jax-v0.11.0) added oneapi. jaxlib's sources moved
 *    into jax-ml/jax with 39d7c38229 (jax-v0.6.1; jax-v0.6.0 holds
 *    jaxlib/xla/py_client.h); before, they are openxla/xla
 *    xla/python/py_client.h at the XLA_COMMIT of third_party/xla/workspace.bzl
 *    (0.4.20 ca31652cdbeb, 0.4.30 79fd5733f99b, 0.5.3 df971129bd82), not in
 *    the jax mirror: the shim there tests only "cuda" || "rocm" (oneapi was
 *    no PJRT platform name of jaxlib then).
 * F3 known_builtin - `known_platforms()` minus the factory names, added with
 *    the register_lowering check by 2aaa108f06 "Raise an error when
 *    registering a lowering for an unknown platform" (jax-v0.4.35):
 *    `_nonexperimental_plugins` {cuda, rocm} | `_experimental_plugins`
 *    {METAL} | alias values {gpu}; fc5fccff70 "Remove mentions of jax-metal"
 *    (jax-v0.9.1) dropped `_experimental_plugins` from it; 5e1c8e7295
 *    (jax-v0.10.1) added the alias keys {cuda, rocm, oneapi} (its
 *    `_experimental_plugins = {"oneapi"}` is not read by known_platforms).
 *    Before 2aaa108f06 only is_known_platform existed (factories and alias
 *    keys), unused by register_lowering.
 * F4 lowering_checks_platform - register_lowering's NotImplementedError for
 *    an unknown platform (jax/_src/interpreters/mlir.py): 2aaa108f06
 *    (jax-v0.4.35). Before, any name is stored.
 * F5 cuda_skip - backends() `if platform == "cuda" and not
 *    hardware_utils.has_visible_nvidia_gpu(): continue`: 0224235edf "Skip
 *    cuda backend initialization if no nvidia GPUs are visible."
 *    (jax-v0.4.31).
 * F6 unknown_backend_lists_available - _get_backend_uncached's "Unknown
 *    backend {p}. Available backends are {list(bs)}": 5a2fb38c0f "List all
 *    available backends when `jax.devices()` is called with an unknown
 *    platform" (jax-v0.4.26); before, "Unknown backend {p}".
 * F7 module_pinned_check, module_lookup_first_platform - ModuleContext: the
 *    `.backend` property (B1; then `xb.get_backend(backend_or_name)` when
 *    none is pinned, else the pinned client unchecked) became
 *    `get_backend()` (B1, B2a/B2b, B3 on platforms[0]) with fdb6af82d2
 *    "Clean up `backend_or_name` vs. `platforms` in lowering code."
 *    (jax-v0.5.0).
 * F8 module_optional - `get_backend(self, optional: bool = False)`:
 *    e86b6ae292 "[Pallas:TPU] Use the lowering backend to query the libTPU
 *    version" (jax-v0.7.2).
 * F9 has_lower_per_platform - `lower_per_platform`: 2d9da6c8fb "Cleanup the
 *    code to picking lowering rules based on platform." (jax-v0.4.21);
 *    jax-v0.4.20 selects rules inside jaxpr_subcomp (mlir.py:1371-1411) and
 *    dispatches with lower_multi_platform (mlir.py:1469), not modelled.
 * F10 compute_type_platforms - `_platforms_for_eqn_ctx`: ba5b3c7941 "Make
 *    lowering aware of `compute_type` so that we choose the correct lowering
 *    code." (jax-v0.4.31). In 0.4.30 jaxpr_subcomp selects over
 *    `ctx.platforms` (mlir.py:1556) and lower_per_platform reads
 *    `ctx.platforms or ctx.module_context.platforms` (mlir.py:1661).
 * F11 compute_nesting_check - JaxprEqnContextManager.__enter__ refusing a
 *    compute type other than the one in force: from 2d6d408b19 "Initial
 *    commit for `jax.experimental.compute_on` API." (jax-v0.4.29; in
 *    compute_on.extend_compute_type) until 9dc26ee3a5 "Update
 *    test_qr_decomposition_offload to use compute_on2 ..." (jax-v0.10.1).
 *
 * F12 dispatch_module_platforms - lower_per_platform's first case over
 *    `ctx.module_context.shape_poly_state.lowering_platforms` (one branch per
 *    platform of the module, `platform_to_kept_rules_idx.get(p, 0)`), after
 *    `assert module_platforms is not None and len(module_platforms) > 1`:
 *    first in jax-v0.12.1 (mlir.py:2778-2793 of its wheel). The commit is
 *    not known here: the jax-ml/jax history readable ends at cec06d116c05,
 *    so 0.11.1 to 0.12.1 were read from their wheels (jax/_src/...), and
 *    0.12.0.1 still has the narrowed first case (mlir.py:2698).
 * F13 client_gpu_unread - jaxlib's py_client.h after cec06d116c05 is in no
 *    tree readable here (the wheels hold the compiled extension only), so
 *    F2 is not read for 0.11.1 to 0.12.1; the modelled commit's list stands
 *    in, and what depends on it is not judged at those releases.
 *
 * The releases after the modelled commit (0.11.1, 0.11.2, 0.12.0, 0.12.0.1,
 * 0.12.1) were compared with it function by function (ast.unparse of
 * xla_bridge.py, mlir.py and core.py from each wheel): backends(),
 * _init_backend, canonicalize_platform, _get_backend_uncached,
 * known_platforms, ModuleContext.get_backend, register_lowering's check,
 * _get_lowering_rules' selection and lower_fun's narrowing are unchanged
 * (0.12.0 adds a `proxy` factory, priority -1, to the stock registry, which
 * a case does not use; 0.12.1 reads the compute type from
 * `config.compute_on_context_manager` in _platforms_for_eqn_ctx, which the
 * equation's context manager sets to the same value); only F12 differs.
 *
 * Unchanged over the ten up to the modelled commit (checked function by
 * function): backends()'s
 * registrations, priorities, messages and AssertionError; _init_backend's
 * messages; canonicalize_platform's message; _get_backend_uncached but F6;
 * the M1 and M2 messages; and, wherever lower_per_platform exists (F9),
 * its checks and messages (but F10's platform list), the override rule, the
 * platform-specific and common rule selection (inline in jaxpr_subcomp,
 * then `_uncached_lowering` from jax-v0.7.x, then `_get_lowering_rules`
 * from 92c2a5410e, jax-v0.10.2), lower_fun's narrowing (97db0e758d,
 * jax-v0.4.30) and jaxpr_subcomp's `assert "gpu" not in ctx.platforms`.
 *
 * Differences the model does not represent (no field here): before
 * 08d81e45d4 (jax-v0.5.1) _init_backend's "provides no devices" reads only
 * device_count() (the model's no_devices client has no devices at all, the
 * same either way); the stock factories JAX registers itself (cuda and rocm
 * before jax-v0.6.0: a case declares its own factories); 0.4.20's
 * lower_multi_platform (F9); the TypeError of get_backend(optional=True)
 * before F8 (the call does not exist there: lctx_release_has_op). Before F7
 * `ctx.module_context.get_backend()` is an AttributeError: the model's
 * module get_backend(optional=False) is then the `.backend` property, what
 * rules of those releases call.
 */
#include "lctx/release.h"

#include <string.h>

/* clang-format off */
#define S(lit) {(lit), sizeof(lit) - 1}
#define LIST2(a, b) {2, {S(a), S(b)}}
#define LIST3(a, b, c) {3, {S(a), S(b), S(c)}}
#define LIST4(a, b, c, d) {4, {S(a), S(b), S(c), S(d)}}
/* clang-format on */

/* The lists the table uses. */
#define CUDA_ROCM LIST2("cuda", "rocm")
#define CUDA_ROCM_ONEAPI LIST3("cuda", "rocm", "oneapi")
/* known_platforms() 0.5.3-0.8.3: nonexperimental, experimental, aliases. */
#define KNOWN_METAL LIST4("cuda", "rocm", "METAL", "gpu")
/* known_platforms() 0.9.2: nonexperimental, alias values. */
#define KNOWN_0_9 LIST3("cuda", "rocm", "gpu")
/* known_platforms() from 0.10.1: nonexperimental, alias values and keys. */
#define KNOWN_ONEAPI LIST4("cuda", "rocm", "gpu", "oneapi")

/* A release after the modelled commit (F12 `module_wide`), as the table
 * below says. */
#define AFTER_MODELLED(release, module_wide)                                   \
  {                                                                            \
    .name = release, .jax_ref = "jax-v" release " (wheel)",                    \
    .gpu_alias = CUDA_ROCM_ONEAPI, .known_builtin = KNOWN_ONEAPI,              \
    .cuda_skip = true, .unknown_backend_lists_available = true,                \
    .client_gpu = CUDA_ROCM_ONEAPI, .client_gpu_unread = true,                 \
    .module_optional = true, .module_pinned_check = true,                      \
    .module_lookup_first_platform = true, .lowering_checks_platform = true,    \
    .has_lower_per_platform = true, .compute_type_platforms = true,            \
    .compute_nesting_check = false, .dispatch_module_platforms = module_wide,  \
  }

/* Each field: the fact (the F of the top comment), the commit that
 * changed it, and where the release holds it (a path of jax-ml/jax at the
 * release's `jax_ref`, unless another repository is named). */
static const lctx_release RELEASES[] = {
    {
        .name = "0.4.20",
        .jax_ref = "jax-v0.4.20",
        /* F1 5e1c8e7295: xla_bridge.py:531-534 */
        .gpu_alias = CUDA_ROCM,
        /* F3 2aaa108f06: is_known_platform, xla_bridge.py:541-546 */
        .known_builtin = CUDA_ROCM,
        /* F5 0224235edf: backends() loop, xla_bridge.py:621-628 */
        .cuda_skip = false,
        /* F6 5a2fb38c0f: xla_bridge.py:768 */
        .unknown_backend_lists_available = false,
        /* F2 00b8c5dbf0: openxla/xla@ca31652cdbeb xla/python/py_client.h */
        .client_gpu = CUDA_ROCM,
        /* F8 e86b6ae292: `.backend` property, mlir.py:519-529 */
        .module_optional = false,
        /* F7 fdb6af82d2: mlir.py:529 */
        .module_pinned_check = false,
        /* F7 fdb6af82d2: mlir.py:527-528 */
        .module_lookup_first_platform = false,
        /* F4 2aaa108f06: register_lowering, mlir.py:584-595 */
        .lowering_checks_platform = false,
        /* F9 2d9da6c8fb: jaxpr_subcomp, mlir.py:1371-1411 */
        .has_lower_per_platform = false,
        /* F10 ba5b3c7941: no lower_per_platform */
        .compute_type_platforms = false,
        /* F11 2d6d408b19: no compute_on */
        .compute_nesting_check = false,
    },
    {
        .name = "0.4.30",
        .jax_ref = "jax-v0.4.30",
        /* F1 5e1c8e7295: xla_bridge.py:764-767 */
        .gpu_alias = CUDA_ROCM,
        /* F3 2aaa108f06: is_known_platform, xla_bridge.py:774-779 */
        .known_builtin = CUDA_ROCM,
        /* F5 0224235edf: backends() loop, xla_bridge.py:877-884 */
        .cuda_skip = false,
        /* F6 5a2fb38c0f: xla_bridge.py:1005 */
        .unknown_backend_lists_available = true,
        /* F2 00b8c5dbf0: openxla/xla@79fd5733f99b xla/python/py_client.h */
        .client_gpu = CUDA_ROCM,
        /* F8 e86b6ae292: `.backend` property, mlir.py:639-649 */
        .module_optional = false,
        /* F7 fdb6af82d2: mlir.py:648 */
        .module_pinned_check = false,
        /* F7 fdb6af82d2: mlir.py:646-647 */
        .module_lookup_first_platform = false,
        /* F4 2aaa108f06: register_lowering, mlir.py:710-721 */
        .lowering_checks_platform = false,
        /* F9 2d9da6c8fb: mlir.py:1620 */
        .has_lower_per_platform = true,
        /* F10 ba5b3c7941: mlir.py:1556, 1661 */
        .compute_type_platforms = false,
        /* F11 9dc26ee3a5: compute_on.py:30-35 */
        .compute_nesting_check = true,
    },
    {
        .name = "0.5.3",
        .jax_ref = "jax-v0.5.3",
        /* F1 5e1c8e7295: xla_bridge.py:789-792 */
        .gpu_alias = CUDA_ROCM,
        /* F3 2aaa108f06: xla_bridge.py:799-805, 201, 204 */
        .known_builtin = KNOWN_METAL,
        /* F5 0224235edf: xla_bridge.py:912 */
        .cuda_skip = true,
        /* F6 5a2fb38c0f: xla_bridge.py:1038 */
        .unknown_backend_lists_available = true,
        /* F2 00b8c5dbf0: openxla/xla@df971129bd82 xla/python/py_client.h */
        .client_gpu = CUDA_ROCM,
        /* F8 e86b6ae292: get_backend(self), mlir.py:767-780 */
        .module_optional = false,
        /* F7 fdb6af82d2: mlir.py:773-779 */
        .module_pinned_check = true,
        /* F7 fdb6af82d2: mlir.py:780 */
        .module_lookup_first_platform = true,
        /* F4 2aaa108f06: mlir.py:861-866 */
        .lowering_checks_platform = true,
        /* F9 2d9da6c8fb: mlir.py:2030 */
        .has_lower_per_platform = true,
        /* F10 ba5b3c7941: mlir.py:2018 */
        .compute_type_platforms = true,
        /* F11 9dc26ee3a5: core.py:296-305 */
        .compute_nesting_check = true,
    },
    {
        .name = "0.6.2",
        .jax_ref = "jax-v0.6.2",
        /* F1 5e1c8e7295: xla_bridge.py:616-619 */
        .gpu_alias = CUDA_ROCM,
        /* F3 2aaa108f06: xla_bridge.py:626-632, 220, 223 */
        .known_builtin = KNOWN_METAL,
        /* F5 0224235edf: xla_bridge.py:739 */
        .cuda_skip = true,
        /* F6 5a2fb38c0f: xla_bridge.py:865 */
        .unknown_backend_lists_available = true,
        /* F2 00b8c5dbf0: jaxlib/py_client.h:100-111 */
        .client_gpu = CUDA_ROCM,
        /* F8 e86b6ae292: get_backend(self), mlir.py:759-772 */
        .module_optional = false,
        /* F7 fdb6af82d2: mlir.py:765-771 */
        .module_pinned_check = true,
        /* F7 fdb6af82d2: mlir.py:772 */
        .module_lookup_first_platform = true,
        /* F4 2aaa108f06: mlir.py:860-865 */
        .lowering_checks_platform = true,
        /* F9 2d9da6c8fb: mlir.py:2092 */
        .has_lower_per_platform = true,
        /* F10 ba5b3c7941: mlir.py:2075 */
        .compute_type_platforms = true,
        /* F11 9dc26ee3a5: core.py:316-325 */
        .compute_nesting_check = true,
    },
    {
        .name = "0.7.2",
        .jax_ref = "jax-v0.7.2",
        /* F1 5e1c8e7295: xla_bridge.py:686-689 */
        .gpu_alias = CUDA_ROCM,
        /* F3 2aaa108f06: xla_bridge.py:696-702, 276, 279 */
        .known_builtin = KNOWN_METAL,
        /* F5 0224235edf: xla_bridge.py:809 */
        .cuda_skip = true,
        /* F6 5a2fb38c0f: xla_bridge.py:933 */
        .unknown_backend_lists_available = true,
        /* F2 00b8c5dbf0: jaxlib/py_client.h:101-112 */
        .client_gpu = CUDA_ROCM,
        /* F8 e86b6ae292: get_backend(optional), mlir.py:821-838 */
        .module_optional = true,
        /* F7 fdb6af82d2: mlir.py:829-837 */
        .module_pinned_check = true,
        /* F7 fdb6af82d2: mlir.py:838 */
        .module_lookup_first_platform = true,
        /* F4 2aaa108f06: mlir.py:961-966 */
        .lowering_checks_platform = true,
        /* F9 2d9da6c8fb: mlir.py:2394 */
        .has_lower_per_platform = true,
        /* F10 ba5b3c7941: mlir.py:2377 */
        .compute_type_platforms = true,
        /* F11 9dc26ee3a5: core.py:346-355 */
        .compute_nesting_check = true,
    },
    {
        .name = "0.8.3",
        .jax_ref = "jax-v0.8.3",
        /* F1 5e1c8e7295: xla_bridge.py:674-677 */
        .gpu_alias = CUDA_ROCM,
        /* F3 2aaa108f06: xla_bridge.py:684-690, 272, 275 */
        .known_builtin = KNOWN_METAL,
        /* F5 0224235edf: xla_bridge.py:797 */
        .cuda_skip = true,
        /* F6 5a2fb38c0f: xla_bridge.py:921 */
        .unknown_backend_lists_available = true,
        /* F2 00b8c5dbf0: jaxlib/py_client.h:102-113 */
        .client_gpu = CUDA_ROCM,
        /* F8 e86b6ae292: mlir.py:754-771 */
        .module_optional = true,
        /* F7 fdb6af82d2: mlir.py:762-770 */
        .module_pinned_check = true,
        /* F7 fdb6af82d2: mlir.py:771 */
        .module_lookup_first_platform = true,
        /* F4 2aaa108f06: mlir.py:894-899 */
        .lowering_checks_platform = true,
        /* F9 2d9da6c8fb: mlir.py:2295 */
        .has_lower_per_platform = true,
        /* F10 ba5b3c7941: mlir.py:2278 */
        .compute_type_platforms = true,
        /* F11 9dc26ee3a5: core.py:345-354 */
        .compute_nesting_check = true,
    },
    {
        .name = "0.9.2",
        .jax_ref = "jax-v0.9.2",
        /* F1 5e1c8e7295: xla_bridge.py:690-693 */
        .gpu_alias = CUDA_ROCM,
        /* F3 fc5fccff70: xla_bridge.py:700-705, 289 */
        .known_builtin = KNOWN_0_9,
        /* F5 0224235edf: xla_bridge.py:809 */
        .cuda_skip = true,
        /* F6 5a2fb38c0f: xla_bridge.py:933 */
        .unknown_backend_lists_available = true,
        /* F2 00b8c5dbf0: jaxlib/py_client.h:102-113 */
        .client_gpu = CUDA_ROCM,
        /* F8 e86b6ae292: mlir.py:767-784 */
        .module_optional = true,
        /* F7 fdb6af82d2: mlir.py:775-783 */
        .module_pinned_check = true,
        /* F7 fdb6af82d2: mlir.py:784 */
        .module_lookup_first_platform = true,
        /* F4 2aaa108f06: mlir.py:907-912 */
        .lowering_checks_platform = true,
        /* F9 2d9da6c8fb: mlir.py:2345 */
        .has_lower_per_platform = true,
        /* F10 ba5b3c7941: mlir.py:2319 */
        .compute_type_platforms = true,
        /* F11 9dc26ee3a5: core.py:345-354 */
        .compute_nesting_check = true,
    },
    {
        .name = "0.10.2",
        .jax_ref = "jax-v0.10.2",
        /* F1 5e1c8e7295: xla_bridge.py:715-719 */
        .gpu_alias = CUDA_ROCM_ONEAPI,
        /* F3 5e1c8e7295: xla_bridge.py:726-732, 307 */
        .known_builtin = KNOWN_ONEAPI,
        /* F5 0224235edf: xla_bridge.py:836 */
        .cuda_skip = true,
        /* F6 5a2fb38c0f: xla_bridge.py:962 */
        .unknown_backend_lists_available = true,
        /* F2 00b8c5dbf0: jaxlib/py_client.h:102-113 */
        .client_gpu = CUDA_ROCM,
        /* F8 e86b6ae292: mlir.py:853-870 */
        .module_optional = true,
        /* F7 fdb6af82d2: mlir.py:861-869 */
        .module_pinned_check = true,
        /* F7 fdb6af82d2: mlir.py:870 */
        .module_lookup_first_platform = true,
        /* F4 2aaa108f06: mlir.py:987-992 */
        .lowering_checks_platform = true,
        /* F9 2d9da6c8fb: mlir.py:2462 */
        .has_lower_per_platform = true,
        /* F10 ba5b3c7941: mlir.py:2434 */
        .compute_type_platforms = true,
        /* F11 9dc26ee3a5: core.py JaxprEqnContextManager */
        .compute_nesting_check = false,
    },
    {
        .name = "0.11.0",
        .jax_ref = "jax-v0.11.0",
        /* F1 5e1c8e7295: xla_bridge.py:702-706 */
        .gpu_alias = CUDA_ROCM_ONEAPI,
        /* F3 5e1c8e7295: xla_bridge.py:713-719, 294 */
        .known_builtin = KNOWN_ONEAPI,
        /* F5 0224235edf: xla_bridge.py:823 */
        .cuda_skip = true,
        /* F6 5a2fb38c0f: xla_bridge.py:947 */
        .unknown_backend_lists_available = true,
        /* F2 00b8c5dbf0: jaxlib/py_client.h:102-114 */
        .client_gpu = CUDA_ROCM_ONEAPI,
        /* F8 e86b6ae292: mlir.py:866-883 */
        .module_optional = true,
        /* F7 fdb6af82d2: mlir.py:874-882 */
        .module_pinned_check = true,
        /* F7 fdb6af82d2: mlir.py:883 */
        .module_lookup_first_platform = true,
        /* F4 2aaa108f06: mlir.py:1000-1005 */
        .lowering_checks_platform = true,
        /* F9 2d9da6c8fb: mlir.py:2491 */
        .has_lower_per_platform = true,
        /* F10 ba5b3c7941: mlir.py:2463 */
        .compute_type_platforms = true,
        /* F11 9dc26ee3a5: core.py JaxprEqnContextManager */
        .compute_nesting_check = false,
    },
    {
        .name = "modelled",
        .jax_ref = "cec06d116c05",
        /* F1 5e1c8e7295: xla_bridge.py:702-706 */
        .gpu_alias = CUDA_ROCM_ONEAPI,
        /* F3 5e1c8e7295: xla_bridge.py:713-719, 294 */
        .known_builtin = KNOWN_ONEAPI,
        /* F5 0224235edf: xla_bridge.py:823 */
        .cuda_skip = true,
        /* F6 5a2fb38c0f: xla_bridge.py:947 */
        .unknown_backend_lists_available = true,
        /* F2 00b8c5dbf0: jaxlib/py_client.h:104-116 */
        .client_gpu = CUDA_ROCM_ONEAPI,
        /* F8 e86b6ae292: mlir.py:890-907 */
        .module_optional = true,
        /* F7 fdb6af82d2: mlir.py:898-906 */
        .module_pinned_check = true,
        /* F7 fdb6af82d2: mlir.py:907 */
        .module_lookup_first_platform = true,
        /* F4 2aaa108f06: mlir.py:1024-1029 */
        .lowering_checks_platform = true,
        /* F9 2d9da6c8fb: mlir.py:2512 */
        .has_lower_per_platform = true,
        /* F10 ba5b3c7941: mlir.py:2484 */
        .compute_type_platforms = true,
        /* F11 9dc26ee3a5: core.py:366-381 */
        .compute_nesting_check = false,
    },
    /* The releases after the modelled commit, read from their wheels: every
     * fact as at the modelled commit but F2, not read (F13: the modelled
     * commit's list stands in), and F12 from 0.12.1. Where each wheel holds
     * the facts (xla_bridge.py, mlir.py, core.py):
     *
     *   release   F1       F3       F5   F6   F7, F8   F4         F9    F10
     *   0.11.1    702-706  713-719  823  947  893-910  1027-1032  2516  2488
     *   0.11.2    703-707  714-720  824  948  940-957  1074-1079  2578  2550
     *   0.12.0    727-731  738-744  848  972  940-957  1074-1079  2604  2576
     *   0.12.0.1  727-731  738-744  848  972  940-957  1074-1079  2604  2576
     *   0.12.1    727-731  738-744  848  972  968-985  1136-1141  2694  2666
     *
     * F11: JaxprEqnContextManager, core.py 358, 359, 351, 351, 350. */
    AFTER_MODELLED("0.11.1", false),
    AFTER_MODELLED("0.11.2", false),
    AFTER_MODELLED("0.12.0", false),
    AFTER_MODELLED("0.12.0.1", false),
    AFTER_MODELLED("0.12.1", true),
};

#define RELEASE_COUNT (sizeof RELEASES / sizeof RELEASES[0])

/* The modelled commit's place in RELEASES: after 0.11.0. */
#define MODELLED_INDEX 9

const lctx_release *lctx_release_modelled(void) {
  return &RELEASES[MODELLED_INDEX];
}

const lctx_release *lctx_release_find(const char *name) {
  if (name == NULL)
    return NULL;
  for (size_t i = 0; i < RELEASE_COUNT; i++) {
    if (strcmp(RELEASES[i].name, name) == 0)
      return &RELEASES[i];
  }
  return NULL;
}

size_t lctx_release_count(void) {
  return RELEASE_COUNT;
}

const lctx_release *lctx_release_at(size_t i) {
  return i < RELEASE_COUNT ? &RELEASES[i] : NULL;
}

const char *lctx_release_name(const lctx_release *r) {
  return lctx_release_resolve(r)->name;
}

const lctx_release *lctx_release_resolve(const lctx_release *r) {
  return r ? r : lctx_release_modelled();
}

bool lctx_release_list_has(const lctx_release_list *list, lctx_str name) {
  for (size_t i = 0; i < list->count; i++) {
    if (lctx_str_equal(list->names[i], name))
      return true;
  }
  return false;
}

void lctx_release_list_format(const lctx_release_list *list, lctx_buf *out) {
  for (size_t i = 0; i < list->count; i++) {
    if (i > 0)
      lctx_buf_append(out, ", ", 2);
    lctx_buf_append_str(out, list->names[i]);
  }
}

bool lctx_release_has_op(const lctx_release *r, lctx_release_op op) {
  r = lctx_release_resolve(r);
  switch (op) {
  case LCTX_RELEASE_OP_MODULE_GET_BACKEND_OPTIONAL:
    return r->module_optional;
  case LCTX_RELEASE_OP_LOWER_PER_PLATFORM:
    return r->has_lower_per_platform;
  case LCTX_RELEASE_OP_BACKENDS:
  case LCTX_RELEASE_OP_CANONICALIZE:
  case LCTX_RELEASE_OP_XLA_GET_BACKEND:
  case LCTX_RELEASE_OP_MODULE_GET_BACKEND:
  case LCTX_RELEASE_OP_REGISTER_LOWERING:
    return true;
  }
  return false;
}

/* The facts, as lctx_release_describe_changes names them: how to compare
 * two records, and where the fact changed (the top comment's F lines). */
typedef struct fact_desc {
  const char *name;
  const char *where;
  bool (*differ)(const lctx_release *a, const lctx_release *b);
} fact_desc;

static bool lists_differ(const lctx_release_list *a,
                         const lctx_release_list *b) {
  if (a->count != b->count)
    return true;
  for (size_t i = 0; i < a->count; i++)
    if (!lctx_str_equal(a->names[i], b->names[i]))
      return true;
  return false;
}

#define LIST_FACT(field)                                                       \
  static bool differ_##field(const lctx_release *a, const lctx_release *b) {   \
    return lists_differ(&a->field, &b->field);                                 \
  }
#define FLAG_FACT(field)                                                       \
  static bool differ_##field(const lctx_release *a, const lctx_release *b) {   \
    return a->field != b->field;                                               \
  }
LIST_FACT(gpu_alias)
LIST_FACT(known_builtin)
LIST_FACT(client_gpu)
FLAG_FACT(cuda_skip)
FLAG_FACT(unknown_backend_lists_available)
FLAG_FACT(module_optional)
FLAG_FACT(module_pinned_check)
FLAG_FACT(module_lookup_first_platform)
FLAG_FACT(lowering_checks_platform)
FLAG_FACT(has_lower_per_platform)
FLAG_FACT(compute_type_platforms)
FLAG_FACT(compute_nesting_check)
FLAG_FACT(dispatch_module_platforms)

static const fact_desc FACTS[] = {
    {"gpu_alias (F1)", "5e1c8e729594 (0.10.2)", differ_gpu_alias},
    {"client_gpu (F2)", "00b8c5dbf03c (0.11.0)", differ_client_gpu},
    {"known_builtin (F3)",
     "2aaa108f06ed (0.5.3), fc5fccff7084 (0.9.2), "
     "5e1c8e729594 (0.10.2)",
     differ_known_builtin},
    {"lowering_checks_platform (F4)", "2aaa108f06ed (0.5.3)",
     differ_lowering_checks_platform},
    {"cuda_skip (F5)", "0224235edf26 (0.5.3)", differ_cuda_skip},
    {"unknown_backend_lists_available (F6)", "5a2fb38c0f91 (0.4.30)",
     differ_unknown_backend_lists_available},
    {"module_pinned_check (F7)", "fdb6af82d2eb (0.5.3)",
     differ_module_pinned_check},
    {"module_lookup_first_platform (F7)", "fdb6af82d2eb (0.5.3)",
     differ_module_lookup_first_platform},
    {"module_optional (F8)", "e86b6ae2924d (0.7.2)", differ_module_optional},
    {"has_lower_per_platform (F9)", "2d9da6c8fb0a (0.4.30)",
     differ_has_lower_per_platform},
    {"compute_type_platforms (F10)", "ba5b3c7941f8 (0.5.3)",
     differ_compute_type_platforms},
    {"compute_nesting_check (F11)",
     "2d6d408b19d2 (0.4.30), 9dc26ee3a5f1 "
     "(0.10.2)",
     differ_compute_nesting_check},
    {"dispatch_module_platforms (F12)",
     "jax-v0.12.1 (read from its wheel, jax/_src/interpreters/mlir.py:"
     "2778-2793; the commit is after the readable history)",
     differ_dispatch_module_platforms},
};

size_t lctx_release_describe_changes(const lctx_release *a,
                                     const lctx_release *b, lctx_buf *out) {
  a = lctx_release_resolve(a);
  b = lctx_release_resolve(b);
  size_t n = 0;
  for (size_t i = 0; i < sizeof FACTS / sizeof FACTS[0]; i++) {
    if (!FACTS[i].differ(a, b))
      continue;
    lctx_buf_append_cstr(out, "; model fact ");
    lctx_buf_append_cstr(out, FACTS[i].name);
    lctx_buf_append_cstr(out, " changed in ");
    lctx_buf_append_cstr(out, FACTS[i].where);
    n++;
  }
  return n;
}

bool lctx_release_same_behaviour(const lctx_release *a, const lctx_release *b) {
  a = lctx_release_resolve(a);
  b = lctx_release_resolve(b);
  for (size_t i = 0; i < sizeof FACTS / sizeof FACTS[0]; i++)
    if (FACTS[i].differ(a, b))
      return false;
  return true;
}
