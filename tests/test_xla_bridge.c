/*
 * tests/test_xla_bridge.c - pins canonicalize_platform (semantics.md
 * section 3), xla_bridge.get_backend (section 4) and the client `.platform`
 * shim (section 1).
 *
 * - `.platform` is `gpu` for cuda, rocm and oneapi clients, the real name
 *   otherwise; `gpu` is the only alias, case-sensitively.
 * - canonicalize: any non-alias (GPU, CPU, Cuda, the empty string, unknown
 *   names) comes back unchanged without touching the registry; `gpu`
 *   initializes and resolves among initialized (not registered) platforms in
 *   the order cuda, rocm, oneapi, else RuntimeError with the keys joined by
 *   "," and inserted raw; a factory literally named `gpu` is never the answer.
 * - get_backend: None and "" fall back to jax_xla_backend, then
 *   jax_platform_name, then the default client; the canonical name is looked
 *   up; "failed to initialize" (with the literal `..` and empty forms) for a
 *   quiet failure, "Unknown backend" otherwise, with the Python list repr of
 *   the initialized platforms; initialization errors propagate.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_support.h"

//===----------------------------------------------------------------------===//
// The `.platform` shim and the alias table
//===----------------------------------------------------------------------===//

static void test_client_platform_attr_gpu_for_cuda_rocm_oneapi(void **state) {
  (void)state;
  assert_str_view(lctx_client_platform_attr(ts_s("cuda")), "gpu");
  assert_str_view(lctx_client_platform_attr(ts_s("rocm")), "gpu");
  assert_str_view(lctx_client_platform_attr(ts_s("oneapi")), "gpu");
}

static void test_client_platform_attr_real_name_otherwise(void **state) {
  (void)state;
  const char *names[] = {"cpu",  "tpu",  "METAL", "gpu",
                         "CUDA", "Rocm", "",      "cuda "};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    lctx_str real = ts_s(names[i]);
    lctx_str attr = lctx_client_platform_attr(real);
    assert_str_view(attr, names[i]);
  }
  /* Documented: the name itself, not a copy. */
  lctx_str cpu = ts_s("cpu");
  assert_ptr_equal(lctx_client_platform_attr(cpu).data, cpu.data);
}

static void test_platform_is_alias_exactly_gpu(void **state) {
  (void)state;
  static const ts_verdict names[] = {
      TS_VERDICT("gpu", true),      TS_VERDICT("GPU", false),
      TS_VERDICT("Gpu", false),     TS_VERDICT("gpu ", false),
      TS_VERDICT("gp", false),      TS_VERDICT("", false),
      TS_VERDICT("cuda", false),    TS_VERDICT_N("gpux", 4, false),
      TS_VERDICT_N("gpux", 3, true)};
  ts_assert_verdicts(lctx_platform_is_alias, names);
}

//===----------------------------------------------------------------------===//
// canonicalize_platform
//===----------------------------------------------------------------------===//

/// canonicalize_platform on non-aliases: the name comes back unchanged and
/// the registry is untouched (here initialization would raise, and with
/// every GPU platform initializable GPU/CPU/Cuda still pass).
static const ts_scenario canonicalize_non_alias[] = {
    {TS_ROW("test_canonicalize_non_alias_unchanged_registry_untouched"),
     {.add = {TS_RAISES("tpu", 300, false, "boom")}},
     {TS_CANON_OK("cpu", "cpu"), TS_CANON_OK("tpu", "tpu"),
      TS_CANON_OK("cuda", "cuda"), TS_CANON_OK("rocm", "rocm"),
      TS_CANON_OK("oneapi", "oneapi"), TS_CANON_OK("metal", "metal"),
      TS_CANON_OK("GPU", "GPU"), TS_CANON_OK("CPU", "CPU"),
      TS_CANON_OK("Cuda", "Cuda"), TS_CANON_OK("", ""),
      TS_CANON_OK(" gpu", " gpu"), TS_CANON_OK("gpu ", "gpu "),
      TS_CANON_OK("it's", "it's"), TS_IS_RUNS(0), TS_IS_COUNT(0)}},
    {TS_ROW("test_canonicalize_case_variants_pass_through"),
     {.base = TS_GPUS, .nvidia = true},
     {TS_CANON_OK("GPU", "GPU"), TS_CANON_OK("CPU", "CPU"),
      TS_CANON_OK("Cuda", "Cuda"), TS_IS_COUNT(0), TS_IS_RUNS(0)}},
};

/// canonicalize_platform('gpu'): among the initialized platforms, cuda,
/// rocm, oneapi in that order, whatever the registration order.
static const ts_scenario canonicalize_gpu[] = {
    {TS_ROW("test_canonicalize_gpu_prefers_cuda"),
     {.base = TS_GPUS, .nvidia = true},
     {TS_CANON_OK("gpu", "cuda"), TS_IS_RUNS(1), TS_IS_COUNT(4)}},
    {TS_ROW("test_canonicalize_gpu_order_ignores_registration_order"),
     {.add = {TS_CLIENT("oneapi", 400, false), TS_CLIENT("rocm", 400, false),
              TS_CLIENT("cuda", 400, false)},
      .nvidia = true},
     {TS_CANON_OK("gpu", "cuda")}},
    {TS_ROW("test_canonicalize_gpu_order_ignores_registration_order_no_cuda"),
     {.add = {TS_CLIENT("oneapi", 400, false), TS_CLIENT("rocm", 400, false)}},
     {TS_CANON_OK("gpu", "rocm")}},
    /* cuda skipped. */
    {TS_ROW("test_canonicalize_gpu_rocm_when_cuda_skipped"),
     {.base = TS_GPUS},
     {TS_CANON_OK("gpu", "rocm")}},
    /* cuda and rocm are registered but fail quietly: oneapi is the answer. */
    {TS_ROW("test_canonicalize_gpu_initialized_not_registered"),
     {.add = {TS_CLIENT("cpu", 0, false),
              TS_RAISES("cuda", 400, true, "no CUDA"),
              TS_RETURNS_NONE("rocm", 400, true),
              TS_CLIENT("oneapi", 400, false)},
      .nvidia = true},
     {TS_CANON_OK("gpu", "oneapi")}},
    /* None present: RuntimeError with the keys joined by ",", raw. */
    {TS_ROW("test_canonicalize_gpu_none_present_runtime_error"),
     {.add = {TS_CLIENT("cpu", 0, false), TS_CLIENT("tpu", 300, true),
              TS_RAISES("cuda", 400, true, "no CUDA"),
              TS_RAISES("rocm", 400, true, "no ROCm"),
              TS_NO_DEVICES("oneapi", 400, true)},
      .nvidia = true},
     {TS_CANON_RAISE("gpu", TS_MSG_NO_GPU("cpu,tpu"))}},
    {TS_ROW("test_canonicalize_gpu_keys_joined_raw"),
     {.add = {TS_CLIENT("cpu", 0, false), TS_CLIENT("it's", 0, false),
              TS_CLIENT("a b", 0, false), TS_CLIENT("", 0, false),
              TS_CLIENT("GPU", 0, false)}},
     {TS_CANON_RAISE("gpu", TS_MSG_NO_GPU("cpu,it's,a b,,GPU"))}},
    /* A factory named `gpu` is never the answer, for get_backend('gpu')
     * either, though it is the default. */
    {TS_ROW("test_canonicalize_gpu_ignores_factory_named_gpu"),
     {.add = {TS_CLIENT("cpu", 0, false), TS_CLIENT("gpu", 500, false)}},
     {TS_CANON_RAISE("gpu", TS_MSG_NO_GPU("cpu,gpu")),
      TS_XLA_RAISE("gpu", TS_MSG_NO_GPU("cpu,gpu")),
      TS_XLA_CLIENT(NULL, 1, "gpu")}},
    /* A loud failure propagates; then the partial registry: only cpu, so
     * the gpu error. */
    {TS_ROW("test_canonicalize_gpu_propagates_loud_failure"),
     {.base = TS_GPUS, .nvidia = true, .jax_platforms = "cpu,metal"},
     {TS_CANON_RAISE("gpu",
                     TS_MSG_NOT_KNOWN("metal", "['cpu', 'tpu', 'cuda', 'rocm', "
                                               "'oneapi']")),
      TS_CANON_RAISE("gpu", TS_MSG_NO_GPU("cpu"))}},
};

static void test_canonicalize_gpu_propagates_assertion(void **state) {
  (void)state;
  static const ts_scenario row = {
      TS_ROW("test_canonicalize_gpu_propagates_assertion"),
      {.base = TS_GPUS, .jax_platforms = "cuda"},
      {TS_CANON_ASSERT("gpu")}};
  lctx_registry_config config;
  lctx_registry r;
  ts_row_enter(&row.at);
  ts_setup_open_at(&row.setup, &config, &r, row.at.file, row.at.line);
  ts_run_steps_at(&r, row.steps, row.at.file, row.at.line);
  lctx_outcome o;
  lctx_str canonical = {NULL, 0};
  assert_false(lctx_canonicalize(&r, ts_s("gpu"), &canonical, &o));
  assert_raise(&o, LCTX_ERROR_ASSERTION, "");
  assert_int_equal(lctx_registry_init_runs(&r), 2);
}

static void test_canonicalize_view_api_returns_name_itself(void **state) {
  (void)state;
  ts_world w;
  lctx_registry *r = ts_world_stock(&w);
  lctx_str name = ts_s("Cuda");
  lctx_str canonical = {NULL, 0};
  lctx_outcome err;
  ts_outcome_poison(&err);
  assert_true(lctx_canonicalize(r, name, &canonical, &err));
  assert_str_view(canonical, "Cuda");
  assert_string_equal(err.text, "poison");
  assert_int_equal(lctx_registry_init_runs(r), 0);
}

//===----------------------------------------------------------------------===//
// canonicalize_platform: the view API
//===----------------------------------------------------------------------===//

static void test_canonicalize_view_api_gpu(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, false);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_str canonical = {NULL, 0};
  lctx_outcome err;
  assert_true(lctx_canonicalize(&r, ts_s("gpu"), &canonical, &err));
  assert_str_view(canonical, "rocm");
}

//===----------------------------------------------------------------------===//
// get_backend
//===----------------------------------------------------------------------===//

/// get_backend with None or "": jax_xla_backend, then jax_platform_name,
/// then the default client; the fallback name is canonicalized.
static const ts_scenario get_backend_fallbacks[] = {
    {TS_ROW("test_get_backend_none_returns_default"),
     {.base = TS_STOCK},
     {TS_XLA_CLIENT(NULL, 1, "tpu"), TS_IS_RUNS(1)}},
    {TS_ROW("test_get_backend_empty_string_returns_default"),
     {.base = TS_STOCK},
     {TS_XLA_CLIENT("", 1, "tpu")}},
    /* A factory named '' is the default; "" still takes the fallbacks. */
    {TS_ROW("test_get_backend_empty_string_not_a_platform_name"),
     {.add = {TS_CLIENT("cpu", 0, false), TS_CLIENT("", 5, false),
              TS_CLIENT("tpu", -5, true)},
      .jax_platform_name = "tpu"},
     {TS_XLA_CLIENT("", 2, "tpu")}},
    {TS_ROW("test_get_backend_falls_back_to_jax_xla_backend"),
     {.base = TS_STOCK, .jax_xla_backend = "cpu"},
     {TS_XLA_CLIENT(NULL, 0, "cpu"), TS_XLA_CLIENT("", 0, "cpu")}},
    {TS_ROW("test_get_backend_falls_back_to_jax_platform_name"),
     {.base = TS_STOCK, .jax_platform_name = "cpu", .jax_xla_backend = ""},
     {TS_XLA_CLIENT(NULL, 0, "cpu"), TS_XLA_CLIENT("", 0, "cpu")}},
    /* jax_xla_backend before jax_platform_name. */
    {TS_ROW("test_get_backend_jax_xla_backend_before_platform_name"),
     {.base = TS_STOCK, .jax_xla_backend = "cpu", .jax_platform_name = "nope"},
     {TS_XLA_CLIENT(NULL, 0, "cpu")}},
    {TS_ROW("test_get_backend_fallback_name_canonicalized"),
     {.base = TS_GPUS, .nvidia = true, .jax_platform_name = "gpu"},
     {TS_XLA_CLIENT("", 2, "cuda")}},
    {TS_ROW("test_get_backend_fallback_name_unknown"),
     {.base = TS_STOCK, .jax_xla_backend = "nope"},
     {TS_XLA_RAISE(NULL, TS_MSG_UNKNOWN("nope", "['cpu', 'tpu']"))}},
    /* An explicit platform ignores the configs. */
    {TS_ROW("test_get_backend_explicit_platform_ignores_configs"),
     {.base = TS_STOCK, .jax_xla_backend = "nope", .jax_platform_name = "nope"},
     {TS_XLA_CLIENT("cpu", 0, "cpu")}},
};

/// get_backend of a named platform: the canonical name looked up, else
/// "Unknown backend" with the Python list repr of the initialized ones.
static const ts_scenario get_backend_named[] = {
    {TS_ROW("test_get_backend_named_platform"),
     {.base = TS_STOCK},
     {TS_XLA_CLIENT("cpu", 0, "cpu"), TS_XLA_CLIENT("tpu", 1, "tpu")}},
    {TS_ROW("test_get_backend_gpu_resolves_to_canonical"),
     {.base = TS_GPUS, .nvidia = true},
     {TS_XLA_CLIENT("gpu", 2, "cuda")}},
    {TS_ROW("test_get_backend_gpu_resolves_to_canonical_cuda_skipped"),
     {.base = TS_GPUS},
     {TS_XLA_CLIENT("gpu", 3, "rocm")}},
    {TS_ROW("test_get_backend_gpu_after_repeated_cuda"),
     {.base = TS_GPUS, .nvidia = true, .jax_platforms = "cuda,gpu"},
     {TS_XLA_CLIENT("gpu", 1, "cuda"), TS_XLA_CLIENT(NULL, 0, "cuda")}},
    {TS_ROW("test_get_backend_unknown_backend"),
     {.base = TS_STOCK},
     {TS_XLA_RAISE("metal", TS_MSG_UNKNOWN("metal", "['cpu', 'tpu']"))}},
    /* Case-sensitive. */
    {TS_ROW("test_get_backend_case_sensitive_names_unknown"),
     {.base = TS_GPUS, .nvidia = true},
     {TS_XLA_RAISE("CPU",
                   TS_MSG_UNKNOWN("CPU", "['cpu', 'cuda', 'rocm', 'oneapi']")),
      TS_XLA_RAISE("GPU",
                   TS_MSG_UNKNOWN("GPU", "['cpu', 'cuda', 'rocm', 'oneapi']")),
      TS_XLA_RAISE("Cuda", TS_MSG_UNKNOWN(
                               "Cuda", "['cpu', 'cuda', 'rocm', 'oneapi']"))}},
    /* The lookup of a quiet failure too: TPU is unknown, not tpu's failure. */
    {TS_ROW("test_get_backend_failed_lookup_is_case_sensitive"),
     {.base = TS_GPUS, .nvidia = true},
     {TS_XLA_RAISE("TPU", TS_MSG_UNKNOWN("TPU", "['cpu', 'cuda', 'rocm', "
                                                "'oneapi']"))}},
    /* The name is inserted raw. */
    {TS_ROW("test_get_backend_unknown_name_inserted_raw"),
     {.base = TS_STOCK},
     {TS_XLA_RAISE("x'y\t", TS_MSG_UNKNOWN("x'y\t", "['cpu', 'tpu']")),
      TS_XLA_RAISE(" cpu", TS_MSG_UNKNOWN(" cpu", "['cpu', 'tpu']"))}},
    {TS_ROW("test_get_backend_available_list_uses_python_repr"),
     {.add = {TS_CLIENT("cpu", 0, false), TS_CLIENT("it's", 0, false),
              TS_CLIENT("q\"d", 0, false), TS_CLIENT("a\tb", 0, false),
              TS_CLIENT("\x01", 0, false), TS_CLIENT("b\\s", 0, false),
              TS_CLIENT("x'\"", 0, false)}},
     {TS_XLA_RAISE("metal",
                   TS_MSG_UNKNOWN("metal", "['cpu', \"it's\", 'q\"d', "
                                           "'a\\tb', '\\x01', 'b\\\\s', "
                                           "'x\\'\"']")),
      TS_XLA_CLIENT("it's", 1, "it's")}},
    /* cuda skipped, and a platform not listed in jax_platforms: unknown. */
    {TS_ROW("test_get_backend_cuda_skipped_reads_unknown"),
     {.base = TS_GPUS},
     {TS_XLA_RAISE("cuda", TS_MSG_UNKNOWN("cuda", "['cpu', 'rocm', "
                                                  "'oneapi']"))}},
    {TS_ROW("test_get_backend_not_listed_in_jax_platforms_unknown"),
     {.base = TS_STOCK, .jax_platforms = "cpu"},
     {TS_XLA_RAISE("tpu", TS_MSG_UNKNOWN("tpu", "['cpu']"))}},
};

/// get_backend of a platform that failed quietly: "failed to initialize"
/// with the literal `..` and empty forms.
static const ts_scenario get_backend_failed[] = {
    {TS_ROW("test_get_backend_failed_to_initialize_message"),
     {.base = TS_GPUS, .nvidia = true},
     {TS_XLA_RAISE("tpu", TS_MSG_FAILED("tpu", "TPU not found",
                                        "['cpu', 'cuda', 'rocm', "
                                        "'oneapi']"))}},
    {TS_ROW("test_get_backend_failed_message_ending_in_period"),
     {.add = {TS_CLIENT("cpu", 0, false),
              TS_RAISES("tpu", 300, true, "no chips.")}},
     {TS_XLA_RAISE("tpu", TS_MSG_FAILED("tpu", "no chips.", "['cpu']"))}},
    {TS_ROW("test_get_backend_failed_empty_message"),
     {.add = {TS_CLIENT("cpu", 0, false), TS_RAISES("tpu", 300, true, "")}},
     {TS_XLA_RAISE("tpu", TS_MSG_FAILED("tpu", "", "['cpu']"))}},
    {TS_ROW("test_get_backend_failed_returned_none"),
     {.add = {TS_CLIENT("cpu", 0, false), TS_RETURNS_NONE("tpu", 300, true)}},
     {TS_XLA_RAISE("tpu",
                   TS_MSG_FAILED("tpu", "Could not initialize backend 'tpu'",
                                 "['cpu']"))}},
    {TS_ROW("test_get_backend_failed_no_devices_double_period"),
     {.add = {TS_CLIENT("cpu", 0, false), TS_NO_DEVICES("tpu", 300, true)}},
     {TS_XLA_RAISE("tpu",
                   TS_MSG_FAILED("tpu", "Backend 'tpu' provides no devices.",
                                 "['cpu']"))}},
    {TS_ROW("test_get_backend_failed_name_inserted_raw"),
     {.add = {TS_CLIENT("cpu", 0, false), TS_RAISES("it's", 300, true, "bad")}},
     {TS_XLA_RAISE("it's", TS_MSG_FAILED("it's", "bad", "['cpu']"))}},
};

/// get_backend: errors from initialization and canonicalization propagate.
static const ts_scenario get_backend_errors[] = {
    {TS_ROW("test_get_backend_gpu_without_gpu_platforms"),
     {.base = TS_STOCK},
     {TS_XLA_RAISE("gpu", TS_MSG_NO_GPU("cpu,tpu"))}},
    {TS_ROW("test_get_backend_propagates_loud_failure"),
     {.add = {TS_CLIENT("cpu", 0, false),
              TS_RAISES("tpu", 300, false, "boom")}},
     {TS_XLA_RAISE("metal", TS_MSG_LOUD("tpu", "boom"))}},
    /* An empty registry asserts for any platform. */
    {TS_ROW("test_get_backend_empty_registry_asserts_for_any_platform"),
     {.base = TS_GPUS, .jax_platforms = "cuda"},
     {TS_XLA_ASSERT("cpu"), TS_XLA_ASSERT(NULL), TS_XLA_ASSERT("gpu"),
      TS_IS_RUNS(3)}},
};

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_client_platform_attr_gpu_for_cuda_rocm_oneapi),
      cmocka_unit_test(test_client_platform_attr_real_name_otherwise),
      cmocka_unit_test(test_platform_is_alias_exactly_gpu),
      TS_TABLE_TEST(test_canonicalize_non_alias, canonicalize_non_alias),
      cmocka_unit_test(test_canonicalize_view_api_returns_name_itself),
      TS_TABLE_TEST(test_canonicalize_gpu, canonicalize_gpu),
      cmocka_unit_test(test_canonicalize_gpu_propagates_assertion),
      cmocka_unit_test(test_canonicalize_view_api_gpu),
      TS_TABLE_TEST(test_get_backend_fallbacks, get_backend_fallbacks),
      TS_TABLE_TEST(test_get_backend_named, get_backend_named),
      TS_TABLE_TEST(test_get_backend_failed, get_backend_failed),
      TS_TABLE_TEST(test_get_backend_errors, get_backend_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
