/*
 * tests/test_module_context.c - pins ModuleContext.get_backend(optional)
 * (semantics.md section 5), row by row, with both optional values.
 *
 * - B1: more than one module platform (duplicates count): NotImplementedError
 *   M1, or None; never looks at the pinned backend or the registry.
 * - B2a: a pinned client whose canonical platform differs from platforms[0]
 *   (compared raw: P0 is not canonicalized or lowercased): ValueError M2 with
 *   both names unquoted, or None.
 * - B2b: the pinned client itself (not a registry client), both optionals.
 * - B2 canonicalizes the pinned client's `.platform` first: a cuda, rocm or
 *   oneapi client reads as `gpu`, which initializes the registry and may
 *   raise even with optional=True; the ROCm and skipped-CUDA quirks.
 * - B3: xla_bridge.get_backend(platforms[0]), errors not suppressed by
 *   optional=True; ("",) falls back like get_backend("").
 * - Zero platforms: IndexError "tuple index out of range" (after the pinned
 *   client's canonicalization in B2).
 * - jax_platforms=cuda without a visible NVIDIA GPU: the bare AssertionError
 *   on every operation that initializes, whatever `optional` says.
 * - The partial registry as seen through a sequence of module operations.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_support.h"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Sets a context to `count` platforms and, if `pinned` is not NULL, a pinned
/// client whose real platform is `pinned`.
static void ctx_set(lctx_module_context *c, const char *pinned,
                    const char *const *platforms, size_t count) {
  lctx_module_context_init(c);
  for (size_t i = 0; i < count; ++i)
    assert_true(lctx_module_context_add_platform(c, ts_s(platforms[i])));
  if (pinned)
    lctx_module_context_pin(c, ts_s(pinned));
}

/// A context with the listed platforms (at least one).
#define CTX(c, pinned, ...)                                                    \
  ctx_set((c), (pinned), (const char *const[]){__VA_ARGS__},                   \
          sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))

/// Runs ModuleContext.get_backend(optional) into `o` and fails unless it took
/// `want` and its return value agrees with the outcome.
#define module_get(r, c, optional, o, want)                                    \
  module_get_at((r), (c), (optional), (o), (want), __FILE__, __LINE__)
static void module_get_at(lctx_registry *r, const lctx_module_context *c,
                          bool optional, lctx_outcome *o,
                          lctx_module_branch want, const char *file, int line) {
  lctx_module_branch got = (lctx_module_branch)0;
  bool ok = lctx_module_get_backend(r, c, optional, o, &got);
  ts_check_return_at(ok, o, file, line);
  if (got != want) {
    print_error("branch %s, expected %s\n", lctx_module_branch_name(got),
                lctx_module_branch_name(want));
    ts_print_outcome("outcome", o);
    _fail(file, line);
  }
}

static const char M1[] =
    "accessing .backend in multi-lowering setting. This can occur when "
    "lowering a primitive that has not been adapted to multi-platform "
    "lowering";

//===----------------------------------------------------------------------===//
// The context API
//===----------------------------------------------------------------------===//

static void test_module_context_init_and_add(void **state) {
  (void)state;
  lctx_module_context c;
  lctx_module_context_init(&c);
  assert_int_equal(c.platform_count, 0);
  assert_false(c.has_backend);
  for (int i = 0; i < LCTX_MAX_MODULE_PLATFORMS; ++i)
    assert_true(lctx_module_context_add_platform(&c, ts_s("cpu")));
  assert_false(lctx_module_context_add_platform(&c, ts_s("tpu")));
  assert_int_equal(c.platform_count, LCTX_MAX_MODULE_PLATFORMS);
  lctx_module_context_pin(&c, ts_s("rocm"));
  assert_true(c.has_backend);
  assert_str_view(c.backend_platform, "rocm");
  lctx_module_context_init(&c);
  assert_int_equal(c.platform_count, 0);
  assert_false(c.has_backend);
}

static void test_module_branch_names(void **state) {
  (void)state;
  assert_string_equal(lctx_module_branch_name(LCTX_BRANCH_B1), "B1");
  assert_string_equal(lctx_module_branch_name(LCTX_BRANCH_B2A), "B2a");
  assert_string_equal(lctx_module_branch_name(LCTX_BRANCH_B2B), "B2b");
  assert_string_equal(lctx_module_branch_name(LCTX_BRANCH_B3), "B3");
  assert_string_equal(lctx_module_branch_name(LCTX_BRANCH_ERROR), "error");
}

static void test_module_get_backend_branch_out_is_optional(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, NULL, "cpu");
  lctx_outcome o;
  assert_true(lctx_module_get_backend(&r, &c, false, &o, NULL));
  assert_registry_client(&o, 0, "cpu");
}

//===----------------------------------------------------------------------===//
// B1
//===----------------------------------------------------------------------===//

static void test_b1_multi_platform_optional_false(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, NULL, "cpu", "tpu");
  lctx_outcome o;
  module_get(&r, &c, false, &o, LCTX_BRANCH_B1);
  assert_raise(&o, LCTX_ERROR_NOT_IMPLEMENTED, M1);
  assert_int_equal(lctx_registry_init_runs(&r), 0);
}

static void test_b1_multi_platform_optional_true(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, NULL, "cpu", "tpu");
  lctx_outcome o;
  module_get(&r, &c, true, &o, LCTX_BRANCH_B1);
  assert_none(&o);
  assert_int_equal(lctx_registry_init_runs(&r), 0);
}

static void test_b1_duplicates_count_as_platforms(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, NULL, "cpu", "cpu");
  lctx_outcome o;
  module_get(&r, &c, false, &o, LCTX_BRANCH_B1);
  assert_raise(&o, LCTX_ERROR_NOT_IMPLEMENTED, M1);
  module_get(&r, &c, true, &o, LCTX_BRANCH_B1);
  assert_none(&o);
  /* With a pinned cpu client, (cpu, cpu) would match in B2b. */
  CTX(&c, "cpu", "cpu", "cpu");
  module_get(&r, &c, false, &o, LCTX_BRANCH_B1);
  assert_raise(&o, LCTX_ERROR_NOT_IMPLEMENTED, M1);
  module_get(&r, &c, true, &o, LCTX_BRANCH_B1);
  assert_none(&o);
}

static void test_b1_never_looks_at_backend_or_registry(void **state) {
  (void)state;
  /* A pinned cuda client would canonicalize `gpu` and raise here. */
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, "cuda", "cuda", "rocm");
  lctx_outcome o;
  module_get(&r, &c, false, &o, LCTX_BRANCH_B1);
  assert_raise(&o, LCTX_ERROR_NOT_IMPLEMENTED, M1);
  module_get(&r, &c, true, &o, LCTX_BRANCH_B1);
  assert_none(&o);
  assert_int_equal(lctx_registry_init_runs(&r), 0);

  /* An empty registry would raise the AssertionError. */
  ts_config_gpus(&config, false);
  config.jax_platforms = "cuda";
  ts_open(&r, &config);
  CTX(&c, NULL, "gpu", "cuda", "tpu");
  module_get(&r, &c, false, &o, LCTX_BRANCH_B1);
  assert_raise(&o, LCTX_ERROR_NOT_IMPLEMENTED, M1);
  module_get(&r, &c, true, &o, LCTX_BRANCH_B1);
  assert_none(&o);
  assert_int_equal(lctx_registry_init_runs(&r), 0);
}

static void test_b1_most_platforms(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  lctx_module_context_init(&c);
  for (int i = 0; i < LCTX_MAX_MODULE_PLATFORMS; ++i)
    assert_true(lctx_module_context_add_platform(&c, ts_s("tpu")));
  lctx_outcome o;
  module_get(&r, &c, false, &o, LCTX_BRANCH_B1);
  assert_raise(&o, LCTX_ERROR_NOT_IMPLEMENTED, M1);
}

//===----------------------------------------------------------------------===//
// B2a
//===----------------------------------------------------------------------===//

static void test_b2a_cross_lowering_optional_false(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, "cpu", "tpu");
  lctx_outcome o;
  module_get(&r, &c, false, &o, LCTX_BRANCH_B2A);
  assert_raise(&o, LCTX_ERROR_VALUE,
               "the platform for the specified backend cpu is different from "
               "the lowering platform tpu");
  /* Canonicalizing `cpu` does not initialize the registry. */
  assert_int_equal(lctx_registry_init_runs(&r), 0);
}

static void test_b2a_cross_lowering_optional_true(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, "cpu", "tpu");
  lctx_outcome o;
  module_get(&r, &c, true, &o, LCTX_BRANCH_B2A);
  assert_none(&o);
  assert_int_equal(lctx_registry_init_runs(&r), 0);
}

static void test_b2a_p0_gpu_not_canonicalized(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, true);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, "cuda", "gpu");
  lctx_outcome o;
  module_get(&r, &c, false, &o, LCTX_BRANCH_B2A);
  assert_raise(&o, LCTX_ERROR_VALUE,
               "the platform for the specified backend cuda is different from "
               "the lowering platform gpu");
  module_get(&r, &c, true, &o, LCTX_BRANCH_B2A);
  assert_none(&o);
}

static void test_b2a_p0_case_sensitive(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, "cpu", "CPU");
  lctx_outcome o;
  module_get(&r, &c, false, &o, LCTX_BRANCH_B2A);
  assert_raise(&o, LCTX_ERROR_VALUE,
               "the platform for the specified backend cpu is different from "
               "the lowering platform CPU");
  module_get(&r, &c, true, &o, LCTX_BRANCH_B2A);
  assert_none(&o);
}

static void test_b2a_p0_empty_string(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, "cpu", "");
  lctx_outcome o;
  module_get(&r, &c, false, &o, LCTX_BRANCH_B2A);
  assert_raise(&o, LCTX_ERROR_VALUE,
               "the platform for the specified backend cpu is different from "
               "the lowering platform ");
  assert_int_equal(lctx_registry_init_runs(&r), 0);
}

static void test_b2a_names_inserted_raw(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, "it's", "x\"y\t");
  lctx_outcome o;
  module_get(&r, &c, false, &o, LCTX_BRANCH_B2A);
  assert_raise(&o, LCTX_ERROR_VALUE,
               "the platform for the specified backend it's is different from "
               "the lowering platform x\"y\t");
}

static void test_b2a_rocm_quirk_optional_false(void **state) {
  (void)state;
  /* A ROCm client reads `gpu`, which resolves to cuda while it exists. */
  lctx_registry_config config;
  ts_config_gpus(&config, true);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, "rocm", "rocm");
  lctx_outcome o;
  module_get(&r, &c, false, &o, LCTX_BRANCH_B2A);
  assert_raise(&o, LCTX_ERROR_VALUE,
               "the platform for the specified backend cuda is different from "
               "the lowering platform rocm");
  assert_int_equal(lctx_registry_init_runs(&r), 1);
}

static void test_b2a_rocm_quirk_optional_true(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, true);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, "rocm", "rocm");
  lctx_outcome o;
  module_get(&r, &c, true, &o, LCTX_BRANCH_B2A);
  assert_none(&o);
}

static void test_b2a_cuda_client_with_cuda_skipped_reads_rocm(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, false);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, "cuda", "cuda");
  lctx_outcome o;
  module_get(&r, &c, false, &o, LCTX_BRANCH_B2A);
  assert_raise(&o, LCTX_ERROR_VALUE,
               "the platform for the specified backend rocm is different from "
               "the lowering platform cuda");
  module_get(&r, &c, true, &o, LCTX_BRANCH_B2A);
  assert_none(&o);
}

static void test_b2a_oneapi_client_reads_first_initialized(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, true);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, "oneapi", "oneapi");
  lctx_outcome o;
  module_get(&r, &c, false, &o, LCTX_BRANCH_B2A);
  assert_raise(&o, LCTX_ERROR_VALUE,
               "the platform for the specified backend cuda is different from "
               "the lowering platform oneapi");
}

//===----------------------------------------------------------------------===//
// B2b
//===----------------------------------------------------------------------===//

static void test_b2b_returns_pinned_client_optional_false(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, "cpu", "cpu");
  lctx_outcome o;
  module_get(&r, &c, false, &o, LCTX_BRANCH_B2B);
  assert_pinned_client(&o, "cpu");
  assert_int_equal(lctx_registry_init_runs(&r), 0);
}

static void test_b2b_returns_pinned_client_optional_true(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, "cpu", "cpu");
  lctx_outcome o;
  module_get(&r, &c, true, &o, LCTX_BRANCH_B2B);
  assert_pinned_client(&o, "cpu");
}

static void test_b2b_pinned_not_registry_client(void **state) {
  (void)state;
  /* The registry already holds a cpu client; the pinned one comes back. */
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  lctx_module_context c;
  CTX(&c, "cpu", "cpu");
  module_get(&r, &c, false, &o, LCTX_BRANCH_B2B);
  assert_pinned_client(&o, "cpu");
}

static void test_b2b_pinned_platform_need_not_be_registered(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, "METAL", "METAL");
  lctx_outcome o;
  module_get(&r, &c, false, &o, LCTX_BRANCH_B2B);
  assert_pinned_client(&o, "METAL");
  assert_int_equal(lctx_registry_init_runs(&r), 0);
}

static void test_b2b_pinned_cuda_on_cuda(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, true);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, "cuda", "cuda");
  lctx_outcome o;
  module_get(&r, &c, false, &o, LCTX_BRANCH_B2B);
  assert_pinned_client(&o, "cuda");
  module_get(&r, &c, true, &o, LCTX_BRANCH_B2B);
  assert_pinned_client(&o, "cuda");
  /* `.platform` is `gpu`, so canonicalization initialized the registry. */
  assert_int_equal(lctx_registry_init_runs(&r), 1);
}

static void test_b2b_rocm_quirk_returns_pinned_rocm(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, true);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, "rocm", "cuda");
  lctx_outcome o;
  module_get(&r, &c, false, &o, LCTX_BRANCH_B2B);
  assert_pinned_client(&o, "rocm");
  module_get(&r, &c, true, &o, LCTX_BRANCH_B2B);
  assert_pinned_client(&o, "rocm");
}

static void test_b2b_cuda_client_with_cuda_skipped_on_rocm(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, false);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, "cuda", "rocm");
  lctx_outcome o;
  module_get(&r, &c, false, &o, LCTX_BRANCH_B2B);
  assert_pinned_client(&o, "cuda");
}

//===----------------------------------------------------------------------===//
// B2: errors from canonicalizing the pinned client's `.platform`
//===----------------------------------------------------------------------===//

static void test_b2_pinned_gpu_client_gpu_error_optional_false(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, "cuda", "cuda");
  lctx_outcome o;
  module_get(&r, &c, false, &o, LCTX_BRANCH_ERROR);
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend: 'gpu' requested, but no platforms that are "
               "instances of gpu are present. Platforms present are: cpu,tpu");
}

static void test_b2_pinned_gpu_client_gpu_error_optional_true(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, "rocm", "tpu");
  lctx_outcome o;
  module_get(&r, &c, true, &o, LCTX_BRANCH_ERROR);
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend: 'gpu' requested, but no platforms that are "
               "instances of gpu are present. Platforms present are: cpu,tpu");
}

static void test_b2_pinned_gpu_client_init_failure_optional_true(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_raises("rocm", 400, false, "hipErrorNoDevice"));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, "oneapi", "cpu");
  lctx_outcome o;
  module_get(&r, &c, true, &o, LCTX_BRANCH_ERROR);
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'rocm': hipErrorNoDevice (you may "
               "need to uninstall the failing plugin package, or set "
               "JAX_PLATFORMS=cpu to skip this backend.)");
}

//===----------------------------------------------------------------------===//
// B3
//===----------------------------------------------------------------------===//

static void test_b3_registry_client_optional_false(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, NULL, "cpu");
  lctx_outcome o;
  module_get(&r, &c, false, &o, LCTX_BRANCH_B3);
  assert_registry_client(&o, 0, "cpu");
  assert_int_equal(lctx_registry_init_runs(&r), 1);
}

static void test_b3_registry_client_optional_true(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, NULL, "tpu");
  lctx_outcome o;
  module_get(&r, &c, true, &o, LCTX_BRANCH_B3);
  assert_registry_client(&o, 1, "tpu");
}

static void test_b3_gpu_platform_resolved(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, false);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, NULL, "gpu");
  lctx_outcome o;
  module_get(&r, &c, false, &o, LCTX_BRANCH_B3);
  assert_registry_client(&o, 3, "rocm");
}

static void test_b3_unknown_backend_not_suppressed(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, NULL, "metal");
  lctx_outcome o;
  for (int optional = 0; optional <= 1; ++optional) {
    module_get(&r, &c, optional, &o, LCTX_BRANCH_B3);
    assert_raise(&o, LCTX_ERROR_RUNTIME,
                 "Unknown backend metal. Available backends are ['cpu', "
                 "'tpu']");
  }
}

static void test_b3_case_sensitive_not_suppressed(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, NULL, "CPU");
  lctx_outcome o;
  module_get(&r, &c, true, &o, LCTX_BRANCH_B3);
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend CPU. Available backends are ['cpu', 'tpu']");
}

static void test_b3_failed_to_initialize_not_suppressed(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, false);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, NULL, "tpu");
  lctx_outcome o;
  module_get(&r, &c, true, &o, LCTX_BRANCH_B3);
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Backend 'tpu' failed to initialize: TPU not found. Available "
               "backends are ['cpu', 'rocm', 'oneapi']");
}

static void test_b3_gpu_error_not_suppressed(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, NULL, "gpu");
  lctx_outcome o;
  module_get(&r, &c, true, &o, LCTX_BRANCH_B3);
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend: 'gpu' requested, but no platforms that are "
               "instances of gpu are present. Platforms present are: cpu,tpu");
}

static void test_b3_init_failure_not_suppressed(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  config.jax_platforms = "cpu,tpu,";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, NULL, "cpu");
  lctx_outcome o;
  module_get(&r, &c, true, &o, LCTX_BRANCH_B3);
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend '': Backend '' is not in the "
               "list of known backends: ['cpu', 'tpu']. (set "
               "JAX_PLATFORMS='' to automatically choose an available "
               "backend)");
}

static void test_b3_empty_platform_falls_back_to_default(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, NULL, "");
  lctx_outcome o;
  module_get(&r, &c, false, &o, LCTX_BRANCH_B3);
  assert_registry_client(&o, 1, "tpu");
}

static void test_b3_empty_platform_falls_back_to_jax_xla_backend(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  config.jax_xla_backend = "cpu";
  config.jax_platform_name = "tpu";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, NULL, "");
  lctx_outcome o;
  module_get(&r, &c, true, &o, LCTX_BRANCH_B3);
  assert_registry_client(&o, 0, "cpu");
}

static void
test_b3_empty_platform_falls_back_to_jax_platform_name(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  config.jax_platform_name = "cpu";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  CTX(&c, NULL, "");
  lctx_outcome o;
  module_get(&r, &c, false, &o, LCTX_BRANCH_B3);
  assert_registry_client(&o, 0, "cpu");
}

//===----------------------------------------------------------------------===//
// Zero platforms
//===----------------------------------------------------------------------===//

static void test_zero_platforms_no_pin_index_error(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  ctx_set(&c, NULL, NULL, 0);
  lctx_outcome o;
  for (int optional = 0; optional <= 1; ++optional) {
    module_get(&r, &c, optional, &o, LCTX_BRANCH_ERROR);
    assert_raise(&o, LCTX_ERROR_INDEX, "tuple index out of range");
  }
  /* platforms[0] is read before get_backend: the registry is untouched. */
  assert_int_equal(lctx_registry_init_runs(&r), 0);
}

static void test_zero_platforms_pinned_index_error(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  ctx_set(&c, "cpu", NULL, 0);
  lctx_outcome o;
  for (int optional = 0; optional <= 1; ++optional) {
    module_get(&r, &c, optional, &o, LCTX_BRANCH_ERROR);
    assert_raise(&o, LCTX_ERROR_INDEX, "tuple index out of range");
  }
  assert_int_equal(lctx_registry_init_runs(&r), 0);
}

static void test_zero_platforms_pinned_gpu_canonicalizes_first(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, true);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  ctx_set(&c, "cuda", NULL, 0);
  lctx_outcome o;
  module_get(&r, &c, true, &o, LCTX_BRANCH_ERROR);
  assert_raise(&o, LCTX_ERROR_INDEX, "tuple index out of range");
  assert_int_equal(lctx_registry_init_runs(&r), 1);
}

static void
test_zero_platforms_pinned_gpu_error_before_index_error(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  ctx_set(&c, "rocm", NULL, 0);
  lctx_outcome o;
  module_get(&r, &c, true, &o, LCTX_BRANCH_ERROR);
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend: 'gpu' requested, but no platforms that are "
               "instances of gpu are present. Platforms present are: cpu,tpu");
}

//===----------------------------------------------------------------------===//
// jax_platforms=cuda without a visible NVIDIA GPU
//===----------------------------------------------------------------------===//

static void
test_jax_platforms_cuda_no_nvidia_every_operation_asserts(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, false);
  config.jax_platforms = "cuda";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  lctx_outcome o;

  CTX(&c, NULL, "cpu");
  module_get(&r, &c, true, &o, LCTX_BRANCH_B3);
  assert_raise(&o, LCTX_ERROR_ASSERTION, "");
  module_get(&r, &c, false, &o, LCTX_BRANCH_B3);
  assert_raise(&o, LCTX_ERROR_ASSERTION, "");

  CTX(&c, NULL, "");
  module_get(&r, &c, true, &o, LCTX_BRANCH_B3);
  assert_raise(&o, LCTX_ERROR_ASSERTION, "");

  CTX(&c, "cuda", "cuda");
  module_get(&r, &c, true, &o, LCTX_BRANCH_ERROR);
  assert_raise(&o, LCTX_ERROR_ASSERTION, "");

  assert_false(ts_xla(&r, "cuda", &o));
  assert_raise(&o, LCTX_ERROR_ASSERTION, "");
  assert_false(ts_canon(&r, "gpu", &o));
  assert_raise(&o, LCTX_ERROR_ASSERTION, "");
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_ASSERTION, "");
  assert_int_equal(lctx_registry_init_runs(&r), 7);
  assert_int_equal(lctx_registry_entry_count(&r), 0);
}

static void
test_jax_platforms_cuda_no_nvidia_non_initializing_rows(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, false);
  config.jax_platforms = "cuda";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  lctx_outcome o;
  CTX(&c, NULL, "cuda", "cpu");
  module_get(&r, &c, true, &o, LCTX_BRANCH_B1);
  assert_none(&o);
  CTX(&c, "cpu", "cpu");
  module_get(&r, &c, true, &o, LCTX_BRANCH_B2B);
  assert_pinned_client(&o, "cpu");
  CTX(&c, "tpu", "cuda");
  module_get(&r, &c, false, &o, LCTX_BRANCH_B2A);
  assert_raise(&o, LCTX_ERROR_VALUE,
               "the platform for the specified backend tpu is different from "
               "the lowering platform cuda");
  assert_true(ts_canon(&r, "cuda", &o));
  assert_string(&o, "cuda");
  assert_int_equal(lctx_registry_init_runs(&r), 0);
}

//===----------------------------------------------------------------------===//
// The partial registry through module operations
//===----------------------------------------------------------------------===//

static void
test_partial_registry_sequence_through_module_context(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_raises("tpu", 300, true, "tpu down"));
  ts_add(&config, ts_raises("cuda", 400, false, "cuda boom"));
  ts_add(&config, ts_client("rocm", 500, false));
  config.nvidia_gpu_visible = true;
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  lctx_outcome o;

  CTX(&c, NULL, "cpu");
  module_get(&r, &c, true, &o, LCTX_BRANCH_B3);
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'cuda': cuda boom (you may need "
               "to uninstall the failing plugin package, or set "
               "JAX_PLATFORMS=cpu to skip this backend.)");
  module_get(&r, &c, true, &o, LCTX_BRANCH_B3);
  assert_registry_client(&o, 0, "cpu");

  CTX(&c, NULL, "tpu");
  module_get(&r, &c, true, &o, LCTX_BRANCH_B3);
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Backend 'tpu' failed to initialize: tpu down. Available "
               "backends are ['cpu']");

  CTX(&c, NULL, "cuda");
  module_get(&r, &c, true, &o, LCTX_BRANCH_B3);
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend cuda. Available backends are ['cpu']");

  CTX(&c, NULL, "rocm");
  module_get(&r, &c, false, &o, LCTX_BRANCH_B3);
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend rocm. Available backends are ['cpu']");

  CTX(&c, "rocm", "rocm");
  module_get(&r, &c, true, &o, LCTX_BRANCH_ERROR);
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend: 'gpu' requested, but no platforms that are "
               "instances of gpu are present. Platforms present are: cpu");

  CTX(&c, NULL, "");
  module_get(&r, &c, false, &o, LCTX_BRANCH_B3);
  assert_registry_client(&o, 0, "cpu");
  assert_int_equal(lctx_registry_init_runs(&r), 1);
}

static void
test_partial_registry_without_default_b3_empty_platform(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", -1000, false));
  ts_add(&config, ts_raises("tpu", 300, false, "boom"));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_module_context c;
  lctx_outcome o;
  CTX(&c, NULL, "");
  module_get(&r, &c, true, &o, LCTX_BRANCH_B3);
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'tpu': boom (you may need to "
               "uninstall the failing plugin package, or set "
               "JAX_PLATFORMS=cpu to skip this backend.)");
  for (int i = 0; i < 2; ++i) {
    module_get(&r, &c, true, &o, LCTX_BRANCH_B3);
    assert_raise(&o, LCTX_ERROR_ASSERTION, "");
  }
  CTX(&c, NULL, "cpu");
  module_get(&r, &c, false, &o, LCTX_BRANCH_B3);
  assert_registry_client(&o, 0, "cpu");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_module_context_init_and_add),
      cmocka_unit_test(test_module_branch_names),
      cmocka_unit_test(test_module_get_backend_branch_out_is_optional),
      cmocka_unit_test(test_b1_multi_platform_optional_false),
      cmocka_unit_test(test_b1_multi_platform_optional_true),
      cmocka_unit_test(test_b1_duplicates_count_as_platforms),
      cmocka_unit_test(test_b1_never_looks_at_backend_or_registry),
      cmocka_unit_test(test_b1_most_platforms),
      cmocka_unit_test(test_b2a_cross_lowering_optional_false),
      cmocka_unit_test(test_b2a_cross_lowering_optional_true),
      cmocka_unit_test(test_b2a_p0_gpu_not_canonicalized),
      cmocka_unit_test(test_b2a_p0_case_sensitive),
      cmocka_unit_test(test_b2a_p0_empty_string),
      cmocka_unit_test(test_b2a_names_inserted_raw),
      cmocka_unit_test(test_b2a_rocm_quirk_optional_false),
      cmocka_unit_test(test_b2a_rocm_quirk_optional_true),
      cmocka_unit_test(test_b2a_cuda_client_with_cuda_skipped_reads_rocm),
      cmocka_unit_test(test_b2a_oneapi_client_reads_first_initialized),
      cmocka_unit_test(test_b2b_returns_pinned_client_optional_false),
      cmocka_unit_test(test_b2b_returns_pinned_client_optional_true),
      cmocka_unit_test(test_b2b_pinned_not_registry_client),
      cmocka_unit_test(test_b2b_pinned_platform_need_not_be_registered),
      cmocka_unit_test(test_b2b_pinned_cuda_on_cuda),
      cmocka_unit_test(test_b2b_rocm_quirk_returns_pinned_rocm),
      cmocka_unit_test(test_b2b_cuda_client_with_cuda_skipped_on_rocm),
      cmocka_unit_test(test_b2_pinned_gpu_client_gpu_error_optional_false),
      cmocka_unit_test(test_b2_pinned_gpu_client_gpu_error_optional_true),
      cmocka_unit_test(test_b2_pinned_gpu_client_init_failure_optional_true),
      cmocka_unit_test(test_b3_registry_client_optional_false),
      cmocka_unit_test(test_b3_registry_client_optional_true),
      cmocka_unit_test(test_b3_gpu_platform_resolved),
      cmocka_unit_test(test_b3_unknown_backend_not_suppressed),
      cmocka_unit_test(test_b3_case_sensitive_not_suppressed),
      cmocka_unit_test(test_b3_failed_to_initialize_not_suppressed),
      cmocka_unit_test(test_b3_gpu_error_not_suppressed),
      cmocka_unit_test(test_b3_init_failure_not_suppressed),
      cmocka_unit_test(test_b3_empty_platform_falls_back_to_default),
      cmocka_unit_test(test_b3_empty_platform_falls_back_to_jax_xla_backend),
      cmocka_unit_test(test_b3_empty_platform_falls_back_to_jax_platform_name),
      cmocka_unit_test(test_zero_platforms_no_pin_index_error),
      cmocka_unit_test(test_zero_platforms_pinned_index_error),
      cmocka_unit_test(test_zero_platforms_pinned_gpu_canonicalizes_first),
      cmocka_unit_test(test_zero_platforms_pinned_gpu_error_before_index_error),
      cmocka_unit_test(
          test_jax_platforms_cuda_no_nvidia_every_operation_asserts),
      cmocka_unit_test(test_jax_platforms_cuda_no_nvidia_non_initializing_rows),
      cmocka_unit_test(test_partial_registry_sequence_through_module_context),
      cmocka_unit_test(test_partial_registry_without_default_b3_empty_platform),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
