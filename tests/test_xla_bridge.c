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
  assert_true(lctx_platform_is_alias(ts_s("gpu")));
  assert_false(lctx_platform_is_alias(ts_s("GPU")));
  assert_false(lctx_platform_is_alias(ts_s("Gpu")));
  assert_false(lctx_platform_is_alias(ts_s("gpu ")));
  assert_false(lctx_platform_is_alias(ts_s("gp")));
  assert_false(lctx_platform_is_alias(ts_s("")));
  assert_false(lctx_platform_is_alias(ts_s("cuda")));
  assert_false(lctx_platform_is_alias(lctx_str_make("gpux", 4)));
  assert_true(lctx_platform_is_alias(lctx_str_make("gpux", 3)));
}

//===----------------------------------------------------------------------===//
// canonicalize_platform: non-aliases
//===----------------------------------------------------------------------===//

static void
test_canonicalize_non_alias_unchanged_registry_untouched(void **state) {
  (void)state;
  /* Initialization would raise; a non-alias must never start it. */
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_raises("tpu", 300, false, "boom"));
  const char *names[] = {"cpu",   "tpu",  "cuda", "rocm", "oneapi",
                         "metal", "GPU",  "CPU",  "Cuda", "",
                         " gpu",  "gpu ", "it's"};
  lctx_registry r;
  ts_open(&r, &config);
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    lctx_outcome o;
    assert_true(ts_canon(&r, names[i], &o));
    assert_string(&o, names[i]);
  }
  assert_int_equal(lctx_registry_init_runs(&r), 0);
  assert_int_equal(lctx_registry_entry_count(&r), 0);
}

static void test_canonicalize_case_variants_pass_through(void **state) {
  (void)state;
  /* With every GPU platform initializable, GPU/CPU/Cuda still pass. */
  lctx_registry_config config;
  ts_config_gpus(&config, true);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_canon(&r, "GPU", &o));
  assert_string(&o, "GPU");
  assert_true(ts_canon(&r, "CPU", &o));
  assert_string(&o, "CPU");
  assert_true(ts_canon(&r, "Cuda", &o));
  assert_string(&o, "Cuda");
  assert_int_equal(lctx_registry_entry_count(&r), 0);
  assert_int_equal(lctx_registry_init_runs(&r), 0);
}

static void test_canonicalize_view_api_returns_name_itself(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_str name = ts_s("Cuda");
  lctx_str canonical = {NULL, 0};
  lctx_outcome err;
  ts_outcome_poison(&err);
  assert_true(lctx_canonicalize(&r, name, &canonical, &err));
  assert_str_view(canonical, "Cuda");
  assert_string_equal(err.text, "poison");
  assert_int_equal(lctx_registry_init_runs(&r), 0);
}

//===----------------------------------------------------------------------===//
// canonicalize_platform: `gpu`
//===----------------------------------------------------------------------===//

static void test_canonicalize_gpu_prefers_cuda(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, true);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_canon(&r, "gpu", &o));
  assert_string(&o, "cuda");
  assert_int_equal(lctx_registry_init_runs(&r), 1);
  assert_int_equal(lctx_registry_entry_count(&r), 4);
}

static void
test_canonicalize_gpu_order_ignores_registration_order(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("oneapi", 400, false));
  ts_add(&config, ts_client("rocm", 400, false));
  ts_add(&config, ts_client("cuda", 400, false));
  config.nvidia_gpu_visible = true;
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_canon(&r, "gpu", &o));
  assert_string(&o, "cuda");

  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("oneapi", 400, false));
  ts_add(&config, ts_client("rocm", 400, false));
  ts_open(&r, &config);
  assert_true(ts_canon(&r, "gpu", &o));
  assert_string(&o, "rocm");
}

static void test_canonicalize_gpu_rocm_when_cuda_skipped(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, false);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_canon(&r, "gpu", &o));
  assert_string(&o, "rocm");
}

static void test_canonicalize_gpu_initialized_not_registered(void **state) {
  (void)state;
  /* cuda and rocm are registered but fail quietly: oneapi is the answer. */
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_raises("cuda", 400, true, "no CUDA"));
  ts_add(&config, ts_returns_none("rocm", 400, true));
  ts_add(&config, ts_client("oneapi", 400, false));
  config.nvidia_gpu_visible = true;
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_canon(&r, "gpu", &o));
  assert_string(&o, "oneapi");
}

static void test_canonicalize_gpu_none_present_runtime_error(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_client("tpu", 300, true));
  ts_add(&config, ts_raises("cuda", 400, true, "no CUDA"));
  ts_add(&config, ts_raises("rocm", 400, true, "no ROCm"));
  ts_add(&config, ts_no_devices("oneapi", 400, true));
  config.nvidia_gpu_visible = true;
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_canon(&r, "gpu", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend: 'gpu' requested, but no platforms that are "
               "instances of gpu are present. Platforms present are: cpu,tpu");
}

static void test_canonicalize_gpu_keys_joined_raw(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_client("it's", 0, false));
  ts_add(&config, ts_client("a b", 0, false));
  ts_add(&config, ts_client("", 0, false));
  ts_add(&config, ts_client("GPU", 0, false));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_canon(&r, "gpu", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend: 'gpu' requested, but no platforms that are "
               "instances of gpu are present. Platforms present are: "
               "cpu,it's,a b,,GPU");
}

static void test_canonicalize_gpu_ignores_factory_named_gpu(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_client("gpu", 500, false));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_canon(&r, "gpu", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend: 'gpu' requested, but no platforms that are "
               "instances of gpu are present. Platforms present are: cpu,gpu");
  /* The same for get_backend('gpu'), though `gpu` is the default. */
  assert_false(ts_xla(&r, "gpu", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend: 'gpu' requested, but no platforms that are "
               "instances of gpu are present. Platforms present are: cpu,gpu");
  assert_true(ts_xla(&r, NULL, &o));
  assert_registry_client(&o, 1, "gpu");
}

static void test_canonicalize_gpu_propagates_loud_failure(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, true);
  config.jax_platforms = "cpu,metal";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_canon(&r, "gpu", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'metal': Backend 'metal' is not "
               "in the list of known backends: ['cpu', 'tpu', 'cuda', 'rocm', "
               "'oneapi']. (set JAX_PLATFORMS='' to automatically choose an "
               "available backend)");
  /* Then the partial registry: only cpu, so the gpu error. */
  assert_false(ts_canon(&r, "gpu", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend: 'gpu' requested, but no platforms that are "
               "instances of gpu are present. Platforms present are: cpu");
}

static void test_canonicalize_gpu_propagates_assertion(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, false);
  config.jax_platforms = "cuda";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_canon(&r, "gpu", &o));
  assert_raise(&o, LCTX_ERROR_ASSERTION, "");
  lctx_str canonical = {NULL, 0};
  assert_false(lctx_canonicalize(&r, ts_s("gpu"), &canonical, &o));
  assert_raise(&o, LCTX_ERROR_ASSERTION, "");
  assert_int_equal(lctx_registry_init_runs(&r), 2);
}

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
// get_backend: None, the empty string and the config fallbacks
//===----------------------------------------------------------------------===//

static void test_get_backend_none_returns_default(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_xla(&r, NULL, &o));
  assert_registry_client(&o, 1, "tpu");
  assert_int_equal(lctx_registry_init_runs(&r), 1);
}

static void test_get_backend_empty_string_returns_default(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_xla(&r, "", &o));
  assert_registry_client(&o, 1, "tpu");
}

static void test_get_backend_empty_string_not_a_platform_name(void **state) {
  (void)state;
  /* A factory named '' is the default; "" still takes the fallbacks. */
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_client("", 5, false));
  ts_add(&config, ts_client("tpu", -5, true));
  config.jax_platform_name = "tpu";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_xla(&r, "", &o));
  assert_registry_client(&o, 2, "tpu");
}

static void test_get_backend_falls_back_to_jax_xla_backend(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  config.jax_xla_backend = "cpu";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_xla(&r, NULL, &o));
  assert_registry_client(&o, 0, "cpu");
  assert_true(ts_xla(&r, "", &o));
  assert_registry_client(&o, 0, "cpu");
}

static void test_get_backend_falls_back_to_jax_platform_name(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  config.jax_platform_name = "cpu";
  config.jax_xla_backend = "";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_xla(&r, NULL, &o));
  assert_registry_client(&o, 0, "cpu");
  assert_true(ts_xla(&r, "", &o));
  assert_registry_client(&o, 0, "cpu");
}

static void
test_get_backend_jax_xla_backend_before_platform_name(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  config.jax_xla_backend = "cpu";
  config.jax_platform_name = "nope";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_xla(&r, NULL, &o));
  assert_registry_client(&o, 0, "cpu");
}

static void test_get_backend_fallback_name_canonicalized(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, true);
  config.jax_platform_name = "gpu";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_xla(&r, "", &o));
  assert_registry_client(&o, 2, "cuda");
}

static void test_get_backend_fallback_name_unknown(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  config.jax_xla_backend = "nope";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_xla(&r, NULL, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend nope. Available backends are ['cpu', 'tpu']");
}

static void test_get_backend_explicit_platform_ignores_configs(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  config.jax_xla_backend = "nope";
  config.jax_platform_name = "nope";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_xla(&r, "cpu", &o));
  assert_registry_client(&o, 0, "cpu");
}

//===----------------------------------------------------------------------===//
// get_backend: named platforms
//===----------------------------------------------------------------------===//

static void test_get_backend_named_platform(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_xla(&r, "cpu", &o));
  assert_registry_client(&o, 0, "cpu");
  assert_true(ts_xla(&r, "tpu", &o));
  assert_registry_client(&o, 1, "tpu");
}

static void test_get_backend_gpu_resolves_to_canonical(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, true);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_xla(&r, "gpu", &o));
  assert_registry_client(&o, 2, "cuda");

  ts_config_gpus(&config, false);
  ts_open(&r, &config);
  assert_true(ts_xla(&r, "gpu", &o));
  assert_registry_client(&o, 3, "rocm");
}

static void test_get_backend_gpu_after_repeated_cuda(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, true);
  config.jax_platforms = "cuda,gpu";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_xla(&r, "gpu", &o));
  assert_registry_client(&o, 1, "cuda");
  assert_true(ts_xla(&r, NULL, &o));
  assert_registry_client(&o, 0, "cuda");
}

static void test_get_backend_unknown_backend(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_xla(&r, "metal", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend metal. Available backends are ['cpu', 'tpu']");
}

static void test_get_backend_case_sensitive_names_unknown(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, true);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_xla(&r, "CPU", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend CPU. Available backends are ['cpu', 'cuda', "
               "'rocm', 'oneapi']");
  assert_false(ts_xla(&r, "GPU", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend GPU. Available backends are ['cpu', 'cuda', "
               "'rocm', 'oneapi']");
  assert_false(ts_xla(&r, "Cuda", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend Cuda. Available backends are ['cpu', 'cuda', "
               "'rocm', 'oneapi']");
}

static void test_get_backend_unknown_name_inserted_raw(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_xla(&r, "x'y\t", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend x'y\t. Available backends are ['cpu', 'tpu']");
  assert_false(ts_xla(&r, " cpu", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend  cpu. Available backends are ['cpu', 'tpu']");
}

static void test_get_backend_available_list_uses_python_repr(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  const char *names[] = {"cpu", "it's", "q\"d", "a\tb", "\x01", "b\\s", "x'\""};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    ts_add(&config, ts_client(names[i], 0, false));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_xla(&r, "metal", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend metal. Available backends are ['cpu', "
               "\"it's\", 'q\"d', 'a\\tb', '\\x01', 'b\\\\s', 'x\\'\"']");
  assert_true(ts_xla(&r, "it's", &o));
  assert_registry_client(&o, 1, "it's");
}

static void test_get_backend_cuda_skipped_reads_unknown(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, false);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_xla(&r, "cuda", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend cuda. Available backends are ['cpu', 'rocm', "
               "'oneapi']");
}

static void test_get_backend_not_listed_in_jax_platforms_unknown(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  config.jax_platforms = "cpu";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_xla(&r, "tpu", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend tpu. Available backends are ['cpu']");
}

//===----------------------------------------------------------------------===//
// get_backend: quiet failures
//===----------------------------------------------------------------------===//

static void test_get_backend_failed_to_initialize_message(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, true);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_xla(&r, "tpu", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Backend 'tpu' failed to initialize: TPU not found. Available "
               "backends are ['cpu', 'cuda', 'rocm', 'oneapi']");
}

static void test_get_backend_failed_message_ending_in_period(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_raises("tpu", 300, true, "no chips."));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_xla(&r, "tpu", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Backend 'tpu' failed to initialize: no chips.. Available "
               "backends are ['cpu']");
}

static void test_get_backend_failed_empty_message(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_raises("tpu", 300, true, ""));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_xla(&r, "tpu", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Backend 'tpu' failed to initialize: . Available backends are "
               "['cpu']");
}

static void test_get_backend_failed_returned_none(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_returns_none("tpu", 300, true));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_xla(&r, "tpu", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Backend 'tpu' failed to initialize: Could not initialize "
               "backend 'tpu'. Available backends are ['cpu']");
}

static void test_get_backend_failed_no_devices_double_period(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_no_devices("tpu", 300, true));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_xla(&r, "tpu", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Backend 'tpu' failed to initialize: Backend 'tpu' provides no "
               "devices.. Available backends are ['cpu']");
}

static void test_get_backend_failed_name_inserted_raw(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_raises("it's", 300, true, "bad"));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_xla(&r, "it's", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Backend 'it's' failed to initialize: bad. Available backends "
               "are ['cpu']");
}

static void test_get_backend_failed_lookup_is_case_sensitive(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, true);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_xla(&r, "TPU", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend TPU. Available backends are ['cpu', 'cuda', "
               "'rocm', 'oneapi']");
}

//===----------------------------------------------------------------------===//
// get_backend: errors from initialization and canonicalization
//===----------------------------------------------------------------------===//

static void test_get_backend_gpu_without_gpu_platforms(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_xla(&r, "gpu", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend: 'gpu' requested, but no platforms that are "
               "instances of gpu are present. Platforms present are: cpu,tpu");
}

static void test_get_backend_propagates_loud_failure(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_raises("tpu", 300, false, "boom"));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_xla(&r, "metal", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'tpu': boom (you may need to "
               "uninstall the failing plugin package, or set "
               "JAX_PLATFORMS=cpu to skip this backend.)");
}

static void
test_get_backend_empty_registry_asserts_for_any_platform(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, false);
  config.jax_platforms = "cuda";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_xla(&r, "cpu", &o));
  assert_raise(&o, LCTX_ERROR_ASSERTION, "");
  assert_false(ts_xla(&r, NULL, &o));
  assert_raise(&o, LCTX_ERROR_ASSERTION, "");
  assert_false(ts_xla(&r, "gpu", &o));
  assert_raise(&o, LCTX_ERROR_ASSERTION, "");
  assert_int_equal(lctx_registry_init_runs(&r), 3);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_client_platform_attr_gpu_for_cuda_rocm_oneapi),
      cmocka_unit_test(test_client_platform_attr_real_name_otherwise),
      cmocka_unit_test(test_platform_is_alias_exactly_gpu),
      cmocka_unit_test(
          test_canonicalize_non_alias_unchanged_registry_untouched),
      cmocka_unit_test(test_canonicalize_case_variants_pass_through),
      cmocka_unit_test(test_canonicalize_view_api_returns_name_itself),
      cmocka_unit_test(test_canonicalize_gpu_prefers_cuda),
      cmocka_unit_test(test_canonicalize_gpu_order_ignores_registration_order),
      cmocka_unit_test(test_canonicalize_gpu_rocm_when_cuda_skipped),
      cmocka_unit_test(test_canonicalize_gpu_initialized_not_registered),
      cmocka_unit_test(test_canonicalize_gpu_none_present_runtime_error),
      cmocka_unit_test(test_canonicalize_gpu_keys_joined_raw),
      cmocka_unit_test(test_canonicalize_gpu_ignores_factory_named_gpu),
      cmocka_unit_test(test_canonicalize_gpu_propagates_loud_failure),
      cmocka_unit_test(test_canonicalize_gpu_propagates_assertion),
      cmocka_unit_test(test_canonicalize_view_api_gpu),
      cmocka_unit_test(test_get_backend_none_returns_default),
      cmocka_unit_test(test_get_backend_empty_string_returns_default),
      cmocka_unit_test(test_get_backend_empty_string_not_a_platform_name),
      cmocka_unit_test(test_get_backend_falls_back_to_jax_xla_backend),
      cmocka_unit_test(test_get_backend_falls_back_to_jax_platform_name),
      cmocka_unit_test(test_get_backend_jax_xla_backend_before_platform_name),
      cmocka_unit_test(test_get_backend_fallback_name_canonicalized),
      cmocka_unit_test(test_get_backend_fallback_name_unknown),
      cmocka_unit_test(test_get_backend_explicit_platform_ignores_configs),
      cmocka_unit_test(test_get_backend_named_platform),
      cmocka_unit_test(test_get_backend_gpu_resolves_to_canonical),
      cmocka_unit_test(test_get_backend_gpu_after_repeated_cuda),
      cmocka_unit_test(test_get_backend_unknown_backend),
      cmocka_unit_test(test_get_backend_case_sensitive_names_unknown),
      cmocka_unit_test(test_get_backend_unknown_name_inserted_raw),
      cmocka_unit_test(test_get_backend_available_list_uses_python_repr),
      cmocka_unit_test(test_get_backend_cuda_skipped_reads_unknown),
      cmocka_unit_test(test_get_backend_not_listed_in_jax_platforms_unknown),
      cmocka_unit_test(test_get_backend_failed_to_initialize_message),
      cmocka_unit_test(test_get_backend_failed_message_ending_in_period),
      cmocka_unit_test(test_get_backend_failed_empty_message),
      cmocka_unit_test(test_get_backend_failed_returned_none),
      cmocka_unit_test(test_get_backend_failed_no_devices_double_period),
      cmocka_unit_test(test_get_backend_failed_name_inserted_raw),
      cmocka_unit_test(test_get_backend_failed_lookup_is_case_sensitive),
      cmocka_unit_test(test_get_backend_gpu_without_gpu_platforms),
      cmocka_unit_test(test_get_backend_propagates_loud_failure),
      cmocka_unit_test(
          test_get_backend_empty_registry_asserts_for_any_platform),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
