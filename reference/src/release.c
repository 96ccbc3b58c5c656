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

/* The flag facts, one bit each (the F of the top comment). */
enum {
  CUDA_SKIP = 1 << 0,                 /* F5 */
  LISTS_AVAILABLE = 1 << 1,           /* F6 */
  MODULE_OPTIONAL = 1 << 2,           /* F8 */
  MODULE_PINNED_CHECK = 1 << 3,       /* F7 */
  MODULE_LOOKUP_FIRST = 1 << 4,       /* F7 */
  LOWERING_CHECKS_PLATFORM = 1 << 5,  /* F4 */
  PER_PLATFORM = 1 << 6,              /* F9 */
  COMPUTE_TYPE_PLATFORMS = 1 << 7,    /* F10 */
  COMPUTE_NESTING_CHECK = 1 << 8,     /* F11 */
  DISPATCH_MODULE_PLATFORMS = 1 << 9, /* F12 */
  CLIENT_GPU_UNREAD = 1 << 10,        /* F13 */
};

/* What 0.5.3 holds and every later release keeps (F4, F5, F6, F7, F9,
 * F10). */
#define FROM_0_5_3                                                             \
  (CUDA_SKIP | LISTS_AVAILABLE | MODULE_PINNED_CHECK | MODULE_LOOKUP_FIRST |   \
   LOWERING_CHECKS_PLATFORM | PER_PLATFORM | COMPUTE_TYPE_PLATFORMS)
/* The modelled commit's flags; the releases after it add F13 (and F12). */
#define MODELLED_FLAGS (FROM_0_5_3 | MODULE_OPTIONAL)

#define HAS(facts, bit) (((facts) & (bit)) != 0)

/* One record: its name, JAX ref, the three lists (F1, F3, F2) and the flag
 * facts that hold. */
#define RELEASE(release, ref, gpu, known, client, facts)                       \
  {                                                                            \
    .name = release, .jax_ref = ref, .gpu_alias = gpu, .known_builtin = known, \
    .client_gpu = client, .cuda_skip = HAS(facts, CUDA_SKIP),                  \
    .unknown_backend_lists_available = HAS(facts, LISTS_AVAILABLE),            \
    .module_optional = HAS(facts, MODULE_OPTIONAL),                            \
    .module_pinned_check = HAS(facts, MODULE_PINNED_CHECK),                    \
    .module_lookup_first_platform = HAS(facts, MODULE_LOOKUP_FIRST),           \
    .lowering_checks_platform = HAS(facts, LOWERING_CHECKS_PLATFORM),          \
    .has_lower_per_platform = HAS(facts, PER_PLATFORM),                        \
    .compute_type_platforms = HAS(facts, COMPUTE_TYPE_PLATFORMS),              \
    .compute_nesting_check = HAS(facts, COMPUTE_NESTING_CHECK),                \
    .dispatch_module_platforms = HAS(facts, DISPATCH_MODULE_PLATFORMS),        \
    .client_gpu_unread = HAS(facts, CLIENT_GPU_UNREAD),                        \
  }

/* A release after the modelled commit, read from its wheel. */
#define AFTER_MODELLED(release, facts)                                         \
  RELEASE(release, "jax-v" release " (wheel)", CUDA_ROCM_ONEAPI, KNOWN_ONEAPI, \
          CUDA_ROCM_ONEAPI, MODELLED_FLAGS | CLIENT_GPU_UNREAD | (facts))

/* Where each release holds its facts: line numbers in jax-ml/jax at the
 * release's `jax_ref` (the commit that changed each fact is in the top
 * comment) of jax/_src/xla_bridge.py (F1, F3, F5, F6),
 * jax/_src/interpreters/mlir.py (F4, F7, F8, F9, F10), jax/_src/core.py
 * (F11) and jaxlib/py_client.h (F2), unless a cell names its file. Columns
 * stand two or more spaces apart: tools/lctx_release/record.py reads these
 * tables and drafts a new release's lines in this form.
 *
 *   release   F1       F3                 F5       F6    F8       F7 pinned
 *   0.4.20    531-534  541-546 (a)        621-628  768   519-529  529
 *   0.4.30    764-767  774-779 (a)        877-884  1005  639-649  648
 *   0.5.3     789-792  799-805, 201, 204  912      1038  767-780  773-779
 *   0.6.2     616-619  626-632, 220, 223  739      865   759-772  765-771
 *   0.7.2     686-689  696-702, 276, 279  809      933   821-838  829-837
 *   0.8.3     674-677  684-690, 272, 275  797      921   754-771  762-770
 *   0.9.2     690-693  700-705, 289 (b)   809      933   767-784  775-783
 *   0.10.2    715-719  726-732, 307 (c)   836      962   853-870  861-869
 *   0.11.0    702-706  713-719, 294 (c)   823      947   866-883  874-882
 *   modelled  702-706  713-719, 294 (c)   823      947   890-907  898-906
 *
 *   release   F7 lookup  F4         F9         F10         F11
 *   0.4.20    527-528    584-595    1371-1411  (d)         (e)
 *   0.4.30    646-647    710-721    1620       1556, 1661  compute_on.py:30-35
 *   0.5.3     780        861-866    2030       2018        296-305
 *   0.6.2     772        860-865    2092       2075        316-325
 *   0.7.2     838        961-966    2394       2377        346-355
 *   0.8.3     771        894-899    2295       2278        345-354
 *   0.9.2     784        907-912    2345       2319        345-354
 *   0.10.2    870        987-992    2462       2434        (f)
 *   0.11.0    883        1000-1005  2491       2463        (f)
 *   modelled  907        1024-1029  2512       2484        366-381
 *
 *   release   F2
 *   0.4.20    openxla/xla@ca31652cdbeb xla/python/py_client.h
 *   0.4.30    openxla/xla@79fd5733f99b xla/python/py_client.h
 *   0.5.3     openxla/xla@df971129bd82 xla/python/py_client.h
 *   0.6.2     100-111
 *   0.7.2     101-112
 *   0.8.3     102-113
 *   0.9.2     102-113
 *   0.10.2    102-113
 *   0.11.0    102-114
 *   modelled  104-116
 *
 * F5 is in the backends() loop; F8 at 0.4.20 and 0.4.30 is the `.backend`
 * property, at 0.5.3 and 0.6.2 get_backend(self), from 0.7.2
 * get_backend(optional); F4 is register_lowering; F9 at 0.4.20 is
 * jaxpr_subcomp.
 * (a) is_known_platform. (b) fc5fccff70. (c) 5e1c8e7295. (d) no
 * lower_per_platform. (e) no compute_on (2d6d408b19). (f)
 * JaxprEqnContextManager. */
static const lctx_release RELEASES[] = {
    RELEASE("0.4.20", "jax-v0.4.20", CUDA_ROCM, CUDA_ROCM, CUDA_ROCM, 0),
    RELEASE("0.4.30", "jax-v0.4.30", CUDA_ROCM, CUDA_ROCM, CUDA_ROCM,
            LISTS_AVAILABLE | PER_PLATFORM | COMPUTE_NESTING_CHECK),
    RELEASE("0.5.3", "jax-v0.5.3", CUDA_ROCM, KNOWN_METAL, CUDA_ROCM,
            FROM_0_5_3 | COMPUTE_NESTING_CHECK),
    RELEASE("0.6.2", "jax-v0.6.2", CUDA_ROCM, KNOWN_METAL, CUDA_ROCM,
            FROM_0_5_3 | COMPUTE_NESTING_CHECK),
    RELEASE("0.7.2", "jax-v0.7.2", CUDA_ROCM, KNOWN_METAL, CUDA_ROCM,
            FROM_0_5_3 | MODULE_OPTIONAL | COMPUTE_NESTING_CHECK),
    RELEASE("0.8.3", "jax-v0.8.3", CUDA_ROCM, KNOWN_METAL, CUDA_ROCM,
            FROM_0_5_3 | MODULE_OPTIONAL | COMPUTE_NESTING_CHECK),
    RELEASE("0.9.2", "jax-v0.9.2", CUDA_ROCM, KNOWN_0_9, CUDA_ROCM,
            FROM_0_5_3 | MODULE_OPTIONAL | COMPUTE_NESTING_CHECK),
    RELEASE("0.10.2", "jax-v0.10.2", CUDA_ROCM_ONEAPI, KNOWN_ONEAPI, CUDA_ROCM,
            MODELLED_FLAGS),
    RELEASE("0.11.0", "jax-v0.11.0", CUDA_ROCM_ONEAPI, KNOWN_ONEAPI,
            CUDA_ROCM_ONEAPI, MODELLED_FLAGS),
    RELEASE("modelled", "cec06d116c05", CUDA_ROCM_ONEAPI, KNOWN_ONEAPI,
            CUDA_ROCM_ONEAPI, MODELLED_FLAGS),
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
    AFTER_MODELLED("0.11.1", 0),
    AFTER_MODELLED("0.11.2", 0),
    AFTER_MODELLED("0.12.0", 0),
    AFTER_MODELLED("0.12.0.1", 0),
    AFTER_MODELLED("0.12.1", DISPATCH_MODULE_PLATFORMS),
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
