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

/// MODULE(pinned, optional, branch, want, platforms...): get_backend(optional)
/// on a context pinned to `pinned` (or not, NULL) with the listed platforms
/// (NULL alone: none) takes LCTX_BRANCH_<branch> and has the outcome `want`.
#define MODULE TS_DO_MODULE

/// The expected outcomes: M1, M2 (a pinned client on `backend` lowering
/// for `lowering`), the IndexError of zero platforms, a RuntimeError, the
/// bare AssertionError.
#define NOT_IMPLEMENTED TS_WANT_RAISE(LCTX_ERROR_NOT_IMPLEMENTED, TS_MSG_M1)
#define CROSS(backend, lowering)                                               \
  TS_WANT_RAISE(LCTX_ERROR_VALUE,                                              \
                "the platform for the specified backend " backend              \
                " is different from the lowering "                             \
                "platform " lowering)
#define INDEX_ERROR TS_WANT_RAISE(LCTX_ERROR_INDEX, "tuple index out of range")
#define RUNTIME(message) TS_WANT_RAISE(LCTX_ERROR_RUNTIME, (message))
#define ASSERTION TS_WANT_RAISE(LCTX_ERROR_ASSERTION, "")

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
  ts_world w;
  lctx_registry *r = ts_world_stock(&w);
  lctx_module_context c;
  lctx_module_context_init(&c);
  assert_true(lctx_module_context_add_platform(&c, ts_s("cpu")));
  lctx_outcome o;
  assert_true(lctx_module_get_backend(r, &c, false, &o, NULL));
  assert_registry_client(&o, 0, "cpu");
}

//===----------------------------------------------------------------------===//
// The branches, one row per scenario
//===----------------------------------------------------------------------===//

/// B1: more than one module platform; never looks at the pinned backend or
/// the registry.
static const ts_scenario b1[] = {
    {TS_ROW("test_b1_multi_platform_optional_false"),
     {.base = TS_STOCK},
     {MODULE(NULL, false, B1, NOT_IMPLEMENTED, "cpu", "tpu"), TS_IS_RUNS(0)}},
    {TS_ROW("test_b1_multi_platform_optional_true"),
     {.base = TS_STOCK},
     {MODULE(NULL, true, B1, TS_WANT_NONE, "cpu", "tpu"), TS_IS_RUNS(0)}},
    /* Duplicates count as platforms; with a pinned cpu client, (cpu, cpu)
     * would match in B2b. */
    {TS_ROW("test_b1_duplicates_count_as_platforms"),
     {.base = TS_STOCK},
     {MODULE(NULL, false, B1, NOT_IMPLEMENTED, "cpu", "cpu"),
      MODULE(NULL, true, B1, TS_WANT_NONE, "cpu", "cpu"),
      MODULE("cpu", false, B1, NOT_IMPLEMENTED, "cpu", "cpu"),
      MODULE("cpu", true, B1, TS_WANT_NONE, "cpu", "cpu")}},
    /* A pinned cuda client would canonicalize `gpu` and raise here. */
    {TS_ROW("test_b1_never_looks_at_backend_or_registry"),
     {.base = TS_STOCK},
     {MODULE("cuda", false, B1, NOT_IMPLEMENTED, "cuda", "rocm"),
      MODULE("cuda", true, B1, TS_WANT_NONE, "cuda", "rocm"), TS_IS_RUNS(0)}},
    /* An empty registry would raise the AssertionError. */
    {TS_ROW("test_b1_never_looks_at_backend_or_registry_empty_registry"),
     {.base = TS_GPUS, .jax_platforms = "cuda"},
     {MODULE(NULL, false, B1, NOT_IMPLEMENTED, "gpu", "cuda", "tpu"),
      MODULE(NULL, true, B1, TS_WANT_NONE, "gpu", "cuda", "tpu"),
      TS_IS_RUNS(0)}},
    /* The most platforms a context holds. */
    {TS_ROW("test_b1_most_platforms"),
     {.base = TS_STOCK},
     {MODULE(NULL, false, B1, NOT_IMPLEMENTED, "tpu", "tpu", "tpu", "tpu",
             "tpu", "tpu", "tpu", "tpu", "tpu", "tpu", "tpu", "tpu", "tpu",
             "tpu", "tpu", "tpu")}},
};

/// B2a: the pinned client's canonical platform differs from platforms[0],
/// compared raw.
static const ts_scenario b2a[] = {
    /* Canonicalizing `cpu` does not initialize the registry. */
    {TS_ROW("test_b2a_cross_lowering_optional_false"),
     {.base = TS_STOCK},
     {MODULE("cpu", false, B2A, CROSS("cpu", "tpu"), "tpu"), TS_IS_RUNS(0)}},
    {TS_ROW("test_b2a_cross_lowering_optional_true"),
     {.base = TS_STOCK},
     {MODULE("cpu", true, B2A, TS_WANT_NONE, "tpu"), TS_IS_RUNS(0)}},
    /* P0 is not canonicalized, nor lowercased; names are inserted raw. */
    {TS_ROW("test_b2a_p0_gpu_not_canonicalized"),
     {.base = TS_GPUS, .nvidia = true},
     {MODULE("cuda", false, B2A, CROSS("cuda", "gpu"), "gpu"),
      MODULE("cuda", true, B2A, TS_WANT_NONE, "gpu")}},
    {TS_ROW("test_b2a_p0_case_sensitive"),
     {.base = TS_STOCK},
     {MODULE("cpu", false, B2A, CROSS("cpu", "CPU"), "CPU"),
      MODULE("cpu", true, B2A, TS_WANT_NONE, "CPU")}},
    {TS_ROW("test_b2a_p0_empty_string"),
     {.base = TS_STOCK},
     {MODULE("cpu", false, B2A, CROSS("cpu", ""), ""), TS_IS_RUNS(0)}},
    {TS_ROW("test_b2a_names_inserted_raw"),
     {.base = TS_STOCK},
     {MODULE("it's", false, B2A, CROSS("it's", "x\"y\t"), "x\"y\t")}},
    /* A ROCm client reads `gpu`, which resolves to cuda while it exists. */
    {TS_ROW("test_b2a_rocm_quirk_optional_false"),
     {.base = TS_GPUS, .nvidia = true},
     {MODULE("rocm", false, B2A, CROSS("cuda", "rocm"), "rocm"),
      TS_IS_RUNS(1)}},
    {TS_ROW("test_b2a_rocm_quirk_optional_true"),
     {.base = TS_GPUS, .nvidia = true},
     {MODULE("rocm", true, B2A, TS_WANT_NONE, "rocm")}},
    /* A cuda client with cuda skipped reads rocm. */
    {TS_ROW("test_b2a_cuda_client_with_cuda_skipped_reads_rocm"),
     {.base = TS_GPUS},
     {MODULE("cuda", false, B2A, CROSS("rocm", "cuda"), "cuda"),
      MODULE("cuda", true, B2A, TS_WANT_NONE, "cuda")}},
    /* A oneapi client reads the first initialized GPU platform. */
    {TS_ROW("test_b2a_oneapi_client_reads_first_initialized"),
     {.base = TS_GPUS, .nvidia = true},
     {MODULE("oneapi", false, B2A, CROSS("cuda", "oneapi"), "oneapi")}},
};

/// B2b: the pinned client itself, not a registry client.
static const ts_scenario b2b[] = {
    {TS_ROW("test_b2b_returns_pinned_client_optional_false"),
     {.base = TS_STOCK},
     {MODULE("cpu", false, B2B, TS_WANT_PINNED("cpu"), "cpu"), TS_IS_RUNS(0)}},
    {TS_ROW("test_b2b_returns_pinned_client_optional_true"),
     {.base = TS_STOCK},
     {MODULE("cpu", true, B2B, TS_WANT_PINNED("cpu"), "cpu")}},
    /* The registry already holds a cpu client; the pinned one comes back. */
    {TS_ROW("test_b2b_pinned_not_registry_client"),
     {.base = TS_STOCK},
     {TS_BACKENDS_OK("['cpu', 'tpu']"),
      MODULE("cpu", false, B2B, TS_WANT_PINNED("cpu"), "cpu")}},
    /* The pinned platform need not be registered. */
    {TS_ROW("test_b2b_pinned_platform_need_not_be_registered"),
     {.base = TS_STOCK},
     {MODULE("METAL", false, B2B, TS_WANT_PINNED("METAL"), "METAL"),
      TS_IS_RUNS(0)}},
    /* `.platform` is `gpu`, so canonicalization initialized the registry. */
    {TS_ROW("test_b2b_pinned_cuda_on_cuda"),
     {.base = TS_GPUS, .nvidia = true},
     {MODULE("cuda", false, B2B, TS_WANT_PINNED("cuda"), "cuda"),
      MODULE("cuda", true, B2B, TS_WANT_PINNED("cuda"), "cuda"),
      TS_IS_RUNS(1)}},
    /* The ROCm quirk returns the pinned rocm client. */
    {TS_ROW("test_b2b_rocm_quirk_returns_pinned_rocm"),
     {.base = TS_GPUS, .nvidia = true},
     {MODULE("rocm", false, B2B, TS_WANT_PINNED("rocm"), "cuda"),
      MODULE("rocm", true, B2B, TS_WANT_PINNED("rocm"), "cuda")}},
    {TS_ROW("test_b2b_cuda_client_with_cuda_skipped_on_rocm"),
     {.base = TS_GPUS},
     {MODULE("cuda", false, B2B, TS_WANT_PINNED("cuda"), "rocm")}},
};

/// B2: errors from canonicalizing the pinned client's `.platform`, even
/// with optional=True.
static const ts_scenario b2_errors[] = {
    {TS_ROW("test_b2_pinned_gpu_client_gpu_error_optional_false"),
     {.base = TS_STOCK},
     {MODULE("cuda", false, ERROR, RUNTIME(TS_MSG_NO_GPU("cpu,tpu")), "cuda")}},
    {TS_ROW("test_b2_pinned_gpu_client_gpu_error_optional_true"),
     {.base = TS_STOCK},
     {MODULE("rocm", true, ERROR, RUNTIME(TS_MSG_NO_GPU("cpu,tpu")), "tpu")}},
    {TS_ROW("test_b2_pinned_gpu_client_init_failure_optional_true"),
     {.add = {TS_CLIENT("cpu", 0, false),
              TS_RAISES("rocm", 400, false, "hipErrorNoDevice")}},
     {MODULE("oneapi", true, ERROR,
             RUNTIME(TS_MSG_LOUD("rocm", "hipErrorNoDevice")), "cpu")}},
};

/// B3: xla_bridge.get_backend(platforms[0]), errors not suppressed by
/// optional=True; ("",) falls back like get_backend("").
static const ts_scenario b3[] = {
    {TS_ROW("test_b3_registry_client_optional_false"),
     {.base = TS_STOCK},
     {MODULE(NULL, false, B3, TS_WANT_CLIENT(0, "cpu"), "cpu"), TS_IS_RUNS(1)}},
    {TS_ROW("test_b3_registry_client_optional_true"),
     {.base = TS_STOCK},
     {MODULE(NULL, true, B3, TS_WANT_CLIENT(1, "tpu"), "tpu")}},
    {TS_ROW("test_b3_gpu_platform_resolved"),
     {.base = TS_GPUS},
     {MODULE(NULL, false, B3, TS_WANT_CLIENT(3, "rocm"), "gpu")}},
    {TS_ROW("test_b3_unknown_backend_not_suppressed"),
     {.base = TS_STOCK},
     {MODULE(NULL, false, B3,
             RUNTIME(TS_MSG_UNKNOWN("metal", "['cpu', 'tpu']")), "metal"),
      MODULE(NULL, true, B3, RUNTIME(TS_MSG_UNKNOWN("metal", "['cpu', 'tpu']")),
             "metal")}},
    {TS_ROW("test_b3_case_sensitive_not_suppressed"),
     {.base = TS_STOCK},
     {MODULE(NULL, true, B3, RUNTIME(TS_MSG_UNKNOWN("CPU", "['cpu', 'tpu']")),
             "CPU")}},
    {TS_ROW("test_b3_failed_to_initialize_not_suppressed"),
     {.base = TS_GPUS},
     {MODULE(NULL, true, B3,
             RUNTIME(TS_MSG_FAILED("tpu", "TPU not found",
                                   "['cpu', 'rocm', 'oneapi']")),
             "tpu")}},
    {TS_ROW("test_b3_gpu_error_not_suppressed"),
     {.base = TS_STOCK},
     {MODULE(NULL, true, B3, RUNTIME(TS_MSG_NO_GPU("cpu,tpu")), "gpu")}},
    {TS_ROW("test_b3_init_failure_not_suppressed"),
     {.base = TS_STOCK, .jax_platforms = "cpu,tpu,"},
     {MODULE(NULL, true, B3, RUNTIME(TS_MSG_NOT_KNOWN("", "['cpu', 'tpu']")),
             "cpu")}},
    /* The empty platform: the default, jax_xla_backend, jax_platform_name. */
    {TS_ROW("test_b3_empty_platform_falls_back_to_default"),
     {.base = TS_STOCK},
     {MODULE(NULL, false, B3, TS_WANT_CLIENT(1, "tpu"), "")}},
    {TS_ROW("test_b3_empty_platform_falls_back_to_jax_xla_backend"),
     {.base = TS_STOCK, .jax_xla_backend = "cpu", .jax_platform_name = "tpu"},
     {MODULE(NULL, true, B3, TS_WANT_CLIENT(0, "cpu"), "")}},
    {TS_ROW("test_b3_empty_platform_falls_back_to_jax_platform_name"),
     {.base = TS_STOCK, .jax_platform_name = "cpu"},
     {MODULE(NULL, false, B3, TS_WANT_CLIENT(0, "cpu"), "")}},
};

/// Zero platforms: IndexError, after the pinned client's canonicalization;
/// platforms[0] is read before get_backend, so the registry is untouched.
static const ts_scenario zero_platforms[] = {
    {TS_ROW("test_zero_platforms_no_pin_index_error"),
     {.base = TS_STOCK},
     {MODULE(NULL, false, ERROR, INDEX_ERROR, NULL),
      MODULE(NULL, true, ERROR, INDEX_ERROR, NULL), TS_IS_RUNS(0)}},
    {TS_ROW("test_zero_platforms_pinned_index_error"),
     {.base = TS_STOCK},
     {MODULE("cpu", false, ERROR, INDEX_ERROR, NULL),
      MODULE("cpu", true, ERROR, INDEX_ERROR, NULL), TS_IS_RUNS(0)}},
    {TS_ROW("test_zero_platforms_pinned_gpu_canonicalizes_first"),
     {.base = TS_GPUS, .nvidia = true},
     {MODULE("cuda", true, ERROR, INDEX_ERROR, NULL), TS_IS_RUNS(1)}},
    {TS_ROW("test_zero_platforms_pinned_gpu_error_before_index_error"),
     {.base = TS_STOCK},
     {MODULE("rocm", true, ERROR, RUNTIME(TS_MSG_NO_GPU("cpu,tpu")), NULL)}},
};

/// jax_platforms=cuda without a visible NVIDIA GPU: the bare AssertionError
/// on every operation that initializes, whatever `optional` says; the rows
/// that do not initialize are unaffected.
static const ts_scenario cuda_without_nvidia[] = {
    {TS_ROW("test_jax_platforms_cuda_no_nvidia_every_operation_asserts"),
     {.base = TS_GPUS, .jax_platforms = "cuda"},
     {MODULE(NULL, true, B3, ASSERTION, "cpu"),
      MODULE(NULL, false, B3, ASSERTION, "cpu"),
      MODULE(NULL, true, B3, ASSERTION, ""),
      MODULE("cuda", true, ERROR, ASSERTION, "cuda"), TS_XLA_ASSERT("cuda"),
      TS_CANON_ASSERT("gpu"), TS_BACKENDS_ASSERT, TS_IS_RUNS(7),
      TS_IS_COUNT(0)}},
    {TS_ROW("test_jax_platforms_cuda_no_nvidia_non_initializing_rows"),
     {.base = TS_GPUS, .jax_platforms = "cuda"},
     {MODULE(NULL, true, B1, TS_WANT_NONE, "cuda", "cpu"),
      MODULE("cpu", true, B2B, TS_WANT_PINNED("cpu"), "cpu"),
      MODULE("tpu", false, B2A, CROSS("tpu", "cuda"), "cuda"),
      TS_CANON_OK("cuda", "cuda"), TS_IS_RUNS(0)}},
};

/// The partial registry through a sequence of module operations.
static const ts_scenario partial_registry[] = {
    {TS_ROW("test_partial_registry_sequence_through_module_context"),
     TS_SETUP_PARTIAL,
     {MODULE(NULL, true, B3, RUNTIME(TS_MSG_LOUD("cuda", "cuda boom")), "cpu"),
      MODULE(NULL, true, B3, TS_WANT_CLIENT(0, "cpu"), "cpu"),
      MODULE(NULL, true, B3,
             RUNTIME(TS_MSG_FAILED("tpu", "tpu down", "['cpu']")), "tpu"),
      MODULE(NULL, true, B3, RUNTIME(TS_MSG_UNKNOWN("cuda", "['cpu']")),
             "cuda"),
      MODULE(NULL, false, B3, RUNTIME(TS_MSG_UNKNOWN("rocm", "['cpu']")),
             "rocm"),
      MODULE("rocm", true, ERROR, RUNTIME(TS_MSG_NO_GPU("cpu")), "rocm"),
      MODULE(NULL, false, B3, TS_WANT_CLIENT(0, "cpu"), ""), TS_IS_RUNS(1)}},
    /* Without a default, ("",) asserts on each call. */
    {TS_ROW("test_partial_registry_without_default_b3_empty_platform"),
     {.add = {TS_CLIENT("cpu", -1000, false),
              TS_RAISES("tpu", 300, false, "boom")}},
     {MODULE(NULL, true, B3, RUNTIME(TS_MSG_LOUD("tpu", "boom")), ""),
      MODULE(NULL, true, B3, ASSERTION, ""),
      MODULE(NULL, true, B3, ASSERTION, ""),
      MODULE(NULL, false, B3, TS_WANT_CLIENT(0, "cpu"), "cpu")}},
};

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_module_context_init_and_add),
      cmocka_unit_test(test_module_branch_names),
      cmocka_unit_test(test_module_get_backend_branch_out_is_optional),
      TS_TABLE_TEST(test_b1, b1),
      TS_TABLE_TEST(test_b2a, b2a),
      TS_TABLE_TEST(test_b2b, b2b),
      TS_TABLE_TEST(test_b2_pinned_gpu_client_errors, b2_errors),
      TS_TABLE_TEST(test_b3, b3),
      TS_TABLE_TEST(test_zero_platforms, zero_platforms),
      TS_TABLE_TEST(test_jax_platforms_cuda_no_nvidia, cuda_without_nvidia),
      TS_TABLE_TEST(test_partial_registry_through_module_context,
                    partial_registry),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
