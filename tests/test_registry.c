/*
 * tests/test_registry.c - pins registry initialization, `backends()`
 * (semantics.md section 2), and the configuration API around it.
 *
 * - Default mode: factories in registration order with their own priority
 *   and fail_quietly; quiet failures recorded with their messages (raise,
 *   None, no devices); loud failures as RuntimeError "Unable to initialize
 *   backend ..." with the plugin suffix; the default client (strictly greater
 *   priority, ties keep the earlier, -1000 or lower never default); the bare
 *   AssertionError when no default was chosen.
 * - The cuda skip (no visible NVIDIA GPU), in both modes, exact name only.
 * - The jax_platforms mode: split on ',' without trimming, alias expansion,
 *   priorities N..1, all loud with the JAX_PLATFORMS='' suffix, unknown names
 *   with the repr of the factory list, repeated entries (later client kept
 *   under the first position, default stays the first client).
 * - Laziness, re-runs after a failure with no client, and the partial
 *   registry a later operation sees after a failure that came after some
 *   successes.
 * - lctx_registry_config_add_factory (re-registration keeps first position)
 *   and lctx_registry_config_validate (limits, alphabet, field named).
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

/// Fails unless the registry's `index`-th platform is `name`, holding the
/// client of registration `reg`.
#define assert_entry(registry, index, name, reg)                               \
  do {                                                                         \
    lctx_registry_entry e_ = lctx_registry_entry_at((registry), (index));      \
    assert_str_view(e_.platform, (name));                                      \
    assert_int_equal(e_.registration, (reg));                                  \
  } while (0)

/// Fails unless the default client came from registration `reg` on `name`.
#define assert_default(registry, name, reg)                                    \
  do {                                                                         \
    const lctx_registry_entry *d_ = lctx_registry_default(registry);           \
    assert_non_null(d_);                                                       \
    assert_str_view(d_->platform, (name));                                     \
    assert_int_equal(d_->registration, (reg));                                 \
  } while (0)

/// Fails unless a quiet failure of kind `how` by factory `index` is recorded
/// for `name` with str(err) exactly `message`.
#define assert_failure(registry, name, how, index, message)                    \
  do {                                                                         \
    const lctx_registry_failure *f_ =                                          \
        lctx_registry_find_failure((registry), ts_s(name));                    \
    assert_non_null(f_);                                                       \
    assert_str_view(f_->platform, (name));                                     \
    assert_int_equal(f_->kind, (how));                                         \
    assert_int_equal(f_->factory, (index));                                    \
    char s_[LCTX_OUTCOME_TEXT_MAX];                                            \
    lctx_buf b_;                                                               \
    lctx_buf_init(&b_, s_, sizeof s_);                                         \
    lctx_registry_failure_message((registry), f_, &b_);                        \
    assert_buf(&b_, (message));                                                \
  } while (0)

//===----------------------------------------------------------------------===//
// Laziness
//===----------------------------------------------------------------------===//

static void test_registry_uninitialized_until_first_need(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  assert_int_equal(lctx_registry_init_runs(&r), 0);
  assert_int_equal(lctx_registry_entry_count(&r), 0);
  assert_null(lctx_registry_default(&r));
  assert_registry_platforms(&r, "[]");
}

static void test_registry_initializes_once(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cpu', 'tpu']");
  assert_int_equal(lctx_registry_init_runs(&r), 1);
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cpu', 'tpu']");
  assert_true(lctx_registry_ensure(&r, &o));
  assert_int_equal(lctx_registry_init_runs(&r), 1);
}

static void test_registry_ensure_leaves_outcome_untouched(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  ts_outcome_poison(&o);
  assert_true(lctx_registry_ensure(&r, &o));
  assert_int_equal(o.kind, LCTX_OUTCOME_STRING);
  assert_int_equal(o.registration, 12345);
  assert_string_equal(o.text, "poison");
  assert_int_equal(lctx_registry_init_runs(&r), 1);
  assert_int_equal(lctx_registry_entry_count(&r), 2);
}

static void test_registry_ensure_reports_failure(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_raises("tpu", 300, false, "boom"));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(lctx_registry_ensure(&r, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'tpu': boom (you may need to "
               "uninstall the failing plugin package, or set "
               "JAX_PLATFORMS=cpu to skip this backend.)");
}

//===----------------------------------------------------------------------===//
// Default mode: registrations, default client
//===----------------------------------------------------------------------===//

static void test_default_mode_stock_registry_and_default(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cpu', 'tpu']");
  assert_int_equal(lctx_registry_entry_count(&r), 2);
  assert_entry(&r, 0, "cpu", 0);
  assert_entry(&r, 1, "tpu", 1);
  assert_default(&r, "tpu", 1);
  assert_null(lctx_registry_find_failure(&r, ts_s("tpu")));
  const lctx_registry_entry *cpu = lctx_registry_find(&r, ts_s("cpu"));
  assert_non_null(cpu);
  assert_int_equal(cpu->registration, 0);
  assert_null(lctx_registry_find(&r, ts_s("CPU")));
  assert_null(lctx_registry_find(&r, ts_s("gpu")));
}

static void test_default_mode_registration_is_factory_position(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_raises("tpu", 300, true, "TPU not found"));
  ts_add(&config, ts_client("cuda", 400, false));
  ts_add(&config, ts_client("rocm", 400, false));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cpu', 'rocm']");
  assert_entry(&r, 1, "rocm", 3);
  assert_default(&r, "rocm", 3);
}

static void test_default_priority_tie_keeps_earlier(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_client("tpu", 300, true));
  ts_add(&config, ts_client("METAL", 300, true));
  ts_add(&config, ts_client("other", 300, false));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cpu', 'tpu', 'METAL', 'other']");
  assert_default(&r, "tpu", 1);
}

static void test_default_priority_strictly_greater_wins(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_client("tpu", 1, true));
  ts_add(&config, ts_client("METAL", -5, true));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_default(&r, "tpu", 1);
}

static void test_default_priority_minus_999_can_be_default(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", -999, false));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cpu']");
  assert_default(&r, "cpu", 0);
}

static void test_default_priority_minus_1000_never_default(void **state) {
  (void)state;
  const int priorities[] = {-1000, -1001, -2147483647 - 1};
  for (size_t i = 0; i < 3; ++i) {
    lctx_registry_config config;
    lctx_registry_config_init(&config);
    ts_add(&config, ts_client("cpu", priorities[i], false));
    lctx_registry r;
    ts_open(&r, &config);
    lctx_outcome o;
    assert_false(ts_backends(&r, &o));
    assert_raise(&o, LCTX_ERROR_ASSERTION, "");
    /* The client was stored before the assertion: a partial registry. */
    assert_int_equal(lctx_registry_entry_count(&r), 1);
    assert_null(lctx_registry_default(&r));
  }
}

static void test_default_minus_1000_then_better_one(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", -1000, false));
  ts_add(&config, ts_client("tpu", -1000, true));
  ts_add(&config, ts_client("METAL", -1, true));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_default(&r, "METAL", 2);
}

//===----------------------------------------------------------------------===//
// Default mode: quiet failures
//===----------------------------------------------------------------------===//

static void test_quiet_raise_recorded_with_own_message(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_raises("tpu", 300, true, "TPU not found"));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cpu']");
  assert_default(&r, "cpu", 0);
  assert_failure(&r, "tpu", LCTX_FAILURE_RAISED, 1, "TPU not found");
  assert_null(lctx_registry_find_failure(&r, ts_s("cpu")));
}

static void test_quiet_returns_none_recorded(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_returns_none("tpu", 300, true));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cpu']");
  assert_failure(&r, "tpu", LCTX_FAILURE_RETURNED_NONE, 1,
                 "Could not initialize backend 'tpu'");
}

static void test_quiet_no_devices_recorded(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_no_devices("tpu", 300, true));
  ts_add(&config, ts_client("cpu", 0, false));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cpu']");
  assert_default(&r, "cpu", 1);
  assert_failure(&r, "tpu", LCTX_FAILURE_NO_DEVICES, 0,
                 "Backend 'tpu' provides no devices.");
}

static void test_quiet_raise_empty_and_null_message(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_raises("tpu", 300, true, ""));
  ts_add(&config, ts_raises("METAL", 300, true, NULL));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_failure(&r, "tpu", LCTX_FAILURE_RAISED, 1, "");
  assert_failure(&r, "METAL", LCTX_FAILURE_RAISED, 2, "");
}

static void test_all_quiet_failures_raise_bare_assertion(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_raises("cpu", 0, true, "no cpu"));
  ts_add(&config, ts_returns_none("tpu", 300, true));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_ASSERTION, "");
  assert_int_equal(lctx_registry_entry_count(&r), 0);
  assert_failure(&r, "cpu", LCTX_FAILURE_RAISED, 0, "no cpu");
  assert_failure(&r, "tpu", LCTX_FAILURE_RETURNED_NONE, 1,
                 "Could not initialize backend 'tpu'");
}

static void test_no_factories_raise_bare_assertion(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_ASSERTION, "");
}

//===----------------------------------------------------------------------===//
// Default mode: loud failures
//===----------------------------------------------------------------------===//

static void test_loud_raise_default_mode_message(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_raises("tpu", 300, false, "boom"));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'tpu': boom (you may need to "
               "uninstall the failing plugin package, or set "
               "JAX_PLATFORMS=cpu to skip this backend.)");
  /* A loud failure is not recorded as a quiet one. */
  assert_null(lctx_registry_find_failure(&r, ts_s("tpu")));
}

static void test_loud_returns_none_default_mode_message(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_returns_none("cuda", 400, false));
  config.nvidia_gpu_visible = true;
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'cuda': Could not initialize "
               "backend 'cuda' (you may need to uninstall the failing plugin "
               "package, or set JAX_PLATFORMS=cpu to skip this backend.)");
}

static void test_loud_no_devices_default_mode_message(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_no_devices("rocm", 400, false));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'rocm': Backend 'rocm' provides "
               "no devices. (you may need to uninstall the failing plugin "
               "package, or set JAX_PLATFORMS=cpu to skip this backend.)");
}

static void test_loud_raise_empty_message_keeps_both_spaces(void **state) {
  (void)state;
  const char *messages[] = {"", NULL};
  for (size_t i = 0; i < 2; ++i) {
    lctx_registry_config config;
    lctx_registry_config_init(&config);
    ts_add(&config, ts_raises("tpu", 300, false, messages[i]));
    lctx_registry r;
    ts_open(&r, &config);
    lctx_outcome o;
    assert_false(ts_backends(&r, &o));
    assert_raise(&o, LCTX_ERROR_RUNTIME,
                 "Unable to initialize backend 'tpu':  (you may need to "
                 "uninstall the failing plugin package, or set "
                 "JAX_PLATFORMS=cpu to skip this backend.)");
  }
}

static void test_loud_failure_stops_before_later_factories(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_raises("tpu", 300, false, "first"));
  ts_add(&config, ts_raises("METAL", 300, false, "second"));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'tpu': first (you may need to "
               "uninstall the failing plugin package, or set "
               "JAX_PLATFORMS=cpu to skip this backend.)");
}

//===----------------------------------------------------------------------===//
// The cuda skip
//===----------------------------------------------------------------------===//

static void test_cuda_skipped_without_nvidia_default_mode(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_raises("cuda", 400, false, "no CUDA"));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cpu']");
  /* Neither initialized nor failed. */
  assert_null(lctx_registry_find(&r, ts_s("cuda")));
  assert_null(lctx_registry_find_failure(&r, ts_s("cuda")));
  assert_default(&r, "cpu", 0);
}

static void test_cuda_initialized_with_nvidia_default_mode(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_raises("cuda", 400, false, "no CUDA"));
  config.nvidia_gpu_visible = true;
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'cuda': no CUDA (you may need to "
               "uninstall the failing plugin package, or set "
               "JAX_PLATFORMS=cpu to skip this backend.)");
}

static void test_cuda_skip_is_case_sensitive(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_raises("CUDA", 400, false, "x"));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'CUDA': x (you may need to "
               "uninstall the failing plugin package, or set "
               "JAX_PLATFORMS=cpu to skip this backend.)");
}

static void
test_jax_platforms_cuda_without_nvidia_bare_assertion(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, false);
  config.jax_platforms = "cuda";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_ASSERTION, "");
  assert_int_equal(lctx_registry_entry_count(&r), 0);
  assert_null(lctx_registry_find_failure(&r, ts_s("cuda")));
  assert_int_equal(lctx_registry_init_runs(&r), 1);
  /* Empty registry: every operation initializes again and raises again. */
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_ASSERTION, "");
  assert_int_equal(lctx_registry_init_runs(&r), 2);
}

//===----------------------------------------------------------------------===//
// The jax_platforms mode
//===----------------------------------------------------------------------===//

static void test_jax_platforms_only_listed_platforms(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  config.jax_platforms = "cpu";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cpu']");
  assert_null(lctx_registry_find_failure(&r, ts_s("tpu")));
}

static void test_jax_platforms_priorities_descend_in_list_order(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  config.jax_platforms = "cpu,tpu";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cpu', 'tpu']");
  /* Priorities 2 and 1 replace the factories' 0 and 300. */
  assert_default(&r, "cpu", 0);
  assert_entry(&r, 1, "tpu", 1);
}

static void test_jax_platforms_list_order_is_registry_order(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  config.jax_platforms = "tpu,cpu";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['tpu', 'cpu']");
  assert_entry(&r, 0, "tpu", 0);
  assert_entry(&r, 1, "cpu", 1);
  assert_default(&r, "tpu", 0);
}

static void test_jax_platforms_quiet_factory_fails_loudly(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_raises("tpu", 300, true, "TPU not found"));
  config.jax_platforms = "cpu,tpu";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'tpu': TPU not found (set "
               "JAX_PLATFORMS='' to automatically choose an available "
               "backend)");
  assert_null(lctx_registry_find_failure(&r, ts_s("tpu")));
}

static void test_jax_platforms_returns_none_and_no_devices_loud(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_returns_none("tpu", 300, true));
  ts_add(&config, ts_no_devices("cpu", 0, true));
  config.jax_platforms = "tpu";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'tpu': Could not initialize "
               "backend 'tpu' (set JAX_PLATFORMS='' to automatically choose "
               "an available backend)");

  config.jax_platforms = "cpu";
  ts_open(&r, &config);
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'cpu': Backend 'cpu' provides no "
               "devices. (set JAX_PLATFORMS='' to automatically choose an "
               "available backend)");
}

static void test_jax_platforms_unknown_name_lists_factories(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  config.jax_platforms = "cpu,metal";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'metal': Backend 'metal' is not "
               "in the list of known backends: ['cpu', 'tpu']. (set "
               "JAX_PLATFORMS='' to automatically choose an available "
               "backend)");
}

static void test_jax_platforms_not_trimmed_space(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  config.jax_platforms = "cpu, tpu";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend ' tpu': Backend ' tpu' is not in "
               "the list of known backends: ['cpu', 'tpu']. (set "
               "JAX_PLATFORMS='' to automatically choose an available "
               "backend)");
}

static void test_jax_platforms_trailing_comma_asks_for_empty(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  config.jax_platforms = "cpu,";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend '': Backend '' is not in the "
               "list of known backends: ['cpu', 'tpu']. (set "
               "JAX_PLATFORMS='' to automatically choose an available "
               "backend)");
}

static void test_jax_platforms_empty_name_factory_selectable(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  ts_add(&config, ts_client("", 0, true));
  config.jax_platforms = "cpu,";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cpu', '']");
  assert_entry(&r, 1, "", 1);
  assert_default(&r, "cpu", 0);
}

static void test_jax_platforms_unknown_list_uses_python_repr(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  const char *names[] = {"cpu",      "it's", "say \"hi\"", "a\\b", "tab\tname",
                         "cr\rnl\n", "\x01", "\x7f",       "b'\""};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    ts_add(&config, ts_client(names[i], 0, false));
  config.jax_platforms = "nope";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'nope': Backend 'nope' is not in "
               "the list of known backends: ['cpu', \"it's\", 'say \"hi\"', "
               "'a\\\\b', 'tab\\tname', 'cr\\rnl\\n', '\\x01', '\\x7f', "
               "'b\\'\"']. (set JAX_PLATFORMS='' to automatically choose an "
               "available backend)");
}

static void test_jax_platforms_failing_name_inserted_raw(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  config.jax_platforms = "it's";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'it's': Backend 'it's' is not in "
               "the list of known backends: ['cpu']. (set JAX_PLATFORMS='' to "
               "automatically choose an available backend)");
}

static void test_jax_platforms_gpu_alias_expands(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, true);
  config.jax_platforms = "gpu";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cuda', 'rocm', 'oneapi']");
  assert_entry(&r, 0, "cuda", 0);
  assert_entry(&r, 1, "rocm", 1);
  assert_entry(&r, 2, "oneapi", 2);
  assert_default(&r, "cuda", 0);
}

static void test_jax_platforms_gpu_alias_missing_plugin(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_client("cuda", 400, false));
  ts_add(&config, ts_client("rocm", 400, false));
  config.nvidia_gpu_visible = true;
  config.jax_platforms = "gpu";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'oneapi': Backend 'oneapi' is not "
               "in the list of known backends: ['cpu', 'cuda', 'rocm']. (set "
               "JAX_PLATFORMS='' to automatically choose an available "
               "backend)");
}

static void test_jax_platforms_gpu_alias_cuda_skipped(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, false);
  config.jax_platforms = "cpu,gpu";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cpu', 'rocm', 'oneapi']");
  /* Registrations: cpu 0, cuda 1 (skipped), rocm 2, oneapi 3. */
  assert_entry(&r, 1, "rocm", 2);
  assert_entry(&r, 2, "oneapi", 3);
  assert_default(&r, "cpu", 0);
}

static void test_jax_platforms_alias_is_case_sensitive(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, true);
  config.jax_platforms = "GPU";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'GPU': Backend 'GPU' is not in "
               "the list of known backends: ['cpu', 'tpu', 'cuda', 'rocm', "
               "'oneapi']. (set JAX_PLATFORMS='' to automatically choose an "
               "available backend)");
}

static void
test_jax_platforms_repeat_replaces_entry_default_first(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  config.jax_platforms = "cpu,cpu";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cpu']");
  assert_int_equal(lctx_registry_entry_count(&r), 1);
  assert_entry(&r, 0, "cpu", 1);
  assert_default(&r, "cpu", 0);
  /* The two clients are told apart through get_backend. */
  assert_true(ts_xla(&r, "cpu", &o));
  assert_registry_client(&o, 1, "cpu");
  assert_true(ts_xla(&r, NULL, &o));
  assert_registry_client(&o, 0, "cpu");
}

static void test_jax_platforms_repeat_keeps_first_position(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  config.jax_platforms = "cpu,tpu,cpu";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cpu', 'tpu']");
  assert_entry(&r, 0, "cpu", 2);
  assert_entry(&r, 1, "tpu", 1);
  assert_default(&r, "cpu", 0);
}

static void test_jax_platforms_cuda_then_gpu_repeats_cuda(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, true);
  config.jax_platforms = "cuda,gpu";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cuda', 'rocm', 'oneapi']");
  assert_entry(&r, 0, "cuda", 1);
  assert_entry(&r, 1, "rocm", 2);
  assert_entry(&r, 2, "oneapi", 3);
  assert_default(&r, "cuda", 0);
}

static void test_jax_platforms_most_registrations_fit(void **state) {
  (void)state;
  /* 255 commas: 256 registrations of the empty name. */
  static char commas[LCTX_MAX_PLATFORMS_CONFIG + 1];
  memset(commas, ',', LCTX_MAX_PLATFORMS_CONFIG);
  commas[LCTX_MAX_PLATFORMS_CONFIG] = '\0';
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("", 0, false));
  config.jax_platforms = commas;
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['']");
  assert_entry(&r, 0, "", 255);
  assert_default(&r, "", 0);

  /* 64 `gpu` entries: 192 registrations. */
  static char gpus[LCTX_MAX_PLATFORMS_CONFIG + 1];
  lctx_buf b;
  lctx_buf_init(&b, gpus, sizeof gpus);
  for (int i = 0; i < 64; ++i)
    lctx_buf_append_cstr(&b, i ? ",gpu" : "gpu");
  assert_false(b.overflow);
  assert_int_equal(b.length, 255);
  ts_config_gpus(&config, true);
  config.jax_platforms = gpus;
  ts_open(&r, &config);
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cuda', 'rocm', 'oneapi']");
  assert_entry(&r, 0, "cuda", 189);
  assert_entry(&r, 1, "rocm", 190);
  assert_entry(&r, 2, "oneapi", 191);
  assert_default(&r, "cuda", 0);
}

//===----------------------------------------------------------------------===//
// A factory named `gpu`
//===----------------------------------------------------------------------===//

static void test_factory_named_gpu_initialized_in_default_mode(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_client("gpu", 500, true));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cpu', 'gpu']");
  assert_default(&r, "gpu", 1);
  assert_true(ts_xla(&r, NULL, &o));
  assert_registry_client(&o, 1, "gpu");
}

static void
test_factory_named_gpu_never_selected_under_jax_platforms(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_client("gpu", 500, true));
  config.jax_platforms = "gpu";
  config.nvidia_gpu_visible = true;
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'cuda': Backend 'cuda' is not in "
               "the list of known backends: ['cpu', 'gpu']. (set "
               "JAX_PLATFORMS='' to automatically choose an available "
               "backend)");

  config.nvidia_gpu_visible = false;
  ts_open(&r, &config);
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'rocm': Backend 'rocm' is not in "
               "the list of known backends: ['cpu', 'gpu']. (set "
               "JAX_PLATFORMS='' to automatically choose an available "
               "backend)");
}

//===----------------------------------------------------------------------===//
// Re-runs and the partial registry
//===----------------------------------------------------------------------===//

static void test_failure_without_clients_reruns_initialization(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_raises("tpu", 300, true, "TPU not found"));
  ts_add(&config, ts_raises("cpu", 0, false, "no cpu"));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  for (int run = 1; run <= 3; ++run) {
    assert_false(ts_backends(&r, &o));
    assert_raise(&o, LCTX_ERROR_RUNTIME,
                 "Unable to initialize backend 'cpu': no cpu (you may need to "
                 "uninstall the failing plugin package, or set "
                 "JAX_PLATFORMS=cpu to skip this backend.)");
    assert_int_equal(lctx_registry_init_runs(&r), run);
    assert_int_equal(lctx_registry_entry_count(&r), 0);
    assert_failure(&r, "tpu", LCTX_FAILURE_RAISED, 0, "TPU not found");
  }
}

static void test_assertion_without_clients_reruns_initialization(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_raises("tpu", 300, true, "TPU not found"));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_ASSERTION, "");
  assert_false(ts_xla(&r, NULL, &o));
  assert_raise(&o, LCTX_ERROR_ASSERTION, "");
  assert_int_equal(lctx_registry_init_runs(&r), 2);
}

static void test_partial_registry_after_loud_failure(void **state) {
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
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'cuda': cuda boom (you may need "
               "to uninstall the failing plugin package, or set "
               "JAX_PLATFORMS=cpu to skip this backend.)");
  /* The next operation sees the partial registry and no error. */
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cpu']");
  assert_int_equal(lctx_registry_init_runs(&r), 1);
  assert_default(&r, "cpu", 0);
  assert_failure(&r, "tpu", LCTX_FAILURE_RAISED, 1, "tpu down");
  assert_null(lctx_registry_find_failure(&r, ts_s("cuda")));
  assert_null(lctx_registry_find(&r, ts_s("rocm")));
  assert_null(lctx_registry_find_failure(&r, ts_s("rocm")));
  /* Quiet failure before the loud one: still "failed to initialize". */
  assert_false(ts_xla(&r, "tpu", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Backend 'tpu' failed to initialize: tpu down. Available "
               "backends are ['cpu']");
  /* The loudly failed platform and the one never attempted: unknown. */
  assert_false(ts_xla(&r, "cuda", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend cuda. Available backends are ['cpu']");
  assert_false(ts_xla(&r, "rocm", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend rocm. Available backends are ['cpu']");
  assert_true(ts_xla(&r, NULL, &o));
  assert_registry_client(&o, 0, "cpu");
  assert_true(ts_xla(&r, "cpu", &o));
  assert_registry_client(&o, 0, "cpu");
  assert_int_equal(lctx_registry_init_runs(&r), 1);
}

static void test_partial_registry_default_is_best_before_failure(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_client("tpu", 300, true));
  ts_add(&config, ts_client("METAL", 300, true));
  ts_add(&config, ts_raises("rocm", 400, false, "rocm boom"));
  ts_add(&config, ts_client("oneapi", 900, false));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'rocm': rocm boom (you may need "
               "to uninstall the failing plugin package, or set "
               "JAX_PLATFORMS=cpu to skip this backend.)");
  assert_true(ts_xla(&r, NULL, &o));
  assert_registry_client(&o, 1, "tpu");
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cpu', 'tpu', 'METAL']");
}

static void
test_partial_registry_without_default_asserts_each_call(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", -1000, false));
  ts_add(&config, ts_raises("tpu", 300, false, "boom"));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'tpu': boom (you may need to "
               "uninstall the failing plugin package, or set "
               "JAX_PLATFORMS=cpu to skip this backend.)");
  assert_null(lctx_registry_default(&r));
  for (int i = 0; i < 2; ++i) {
    assert_false(ts_xla(&r, NULL, &o));
    assert_raise(&o, LCTX_ERROR_ASSERTION, "");
  }
  assert_true(ts_xla(&r, "cpu", &o));
  assert_registry_client(&o, 0, "cpu");
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cpu']");
  assert_int_equal(lctx_registry_init_runs(&r), 1);
}

static void test_partial_registry_after_assertion(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", -1000, false));
  ts_add(&config, ts_raises("tpu", 300, true, "TPU not found"));
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_ASSERTION, "");
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cpu']");
  assert_int_equal(lctx_registry_init_runs(&r), 1);
  assert_false(ts_xla(&r, "", &o));
  assert_raise(&o, LCTX_ERROR_ASSERTION, "");
  assert_false(ts_xla(&r, "tpu", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Backend 'tpu' failed to initialize: TPU not found. Available "
               "backends are ['cpu']");
}

static void test_partial_registry_failures_are_not_cached(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  config.jax_platforms = "cpu,metal,tpu";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_xla(&r, "cpu", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'metal': Backend 'metal' is not "
               "in the list of known backends: ['cpu', 'tpu']. (set "
               "JAX_PLATFORMS='' to automatically choose an available "
               "backend)");
  assert_true(ts_xla(&r, "cpu", &o));
  assert_registry_client(&o, 0, "cpu");
  assert_false(ts_xla(&r, "tpu", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend tpu. Available backends are ['cpu']");
  assert_false(ts_xla(&r, "metal", &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unknown backend metal. Available backends are ['cpu']");
}

//===----------------------------------------------------------------------===//
// Tracing
//===----------------------------------------------------------------------===//

static void count_event(void *user_data, const char *event) {
  assert_non_null(event);
  ++*(int *)user_data;
}

static void test_trace_reports_events_and_changes_nothing(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  lctx_registry r;
  ts_open(&r, &config);
  int events = 0;
  lctx_registry_set_trace(&r, count_event, &events);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['cpu', 'tpu']");
  assert_true(events > 0);
  lctx_registry_set_trace(&r, NULL, NULL);
  int before = events;
  assert_true(ts_xla(&r, "cpu", &o));
  assert_registry_client(&o, 0, "cpu");
  assert_int_equal(events, before);
}

//===----------------------------------------------------------------------===//
// Configuration: registration
//===----------------------------------------------------------------------===//

static void test_add_factory_appends_in_order(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  assert_int_equal(config.factory_count, 0);
  assert_null(config.jax_platforms);
  assert_false(config.nvidia_gpu_visible);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_client("tpu", 300, true));
  ts_add(&config, ts_client("CPU", 1, true));
  assert_int_equal(config.factory_count, 3);
  assert_string_equal(config.factories[0].name, "cpu");
  assert_string_equal(config.factories[1].name, "tpu");
  assert_string_equal(config.factories[2].name, "CPU");
}

static void test_add_factory_reregistration_keeps_first_position(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_client("tpu", 300, true));
  ts_add(&config, ts_raises("cpu", 500, true, "gone"));
  assert_int_equal(config.factory_count, 2);
  assert_string_equal(config.factories[0].name, "cpu");
  assert_int_equal(config.factories[0].priority, 500);
  assert_true(config.factories[0].fail_quietly);
  assert_int_equal(config.factories[0].behaviour, LCTX_FACTORY_RAISES);
  assert_string_equal(config.factories[0].message, "gone");
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_true(ts_backends(&r, &o));
  assert_platforms(&o, "['tpu']");
  assert_default(&r, "tpu", 1);
  assert_failure(&r, "cpu", LCTX_FAILURE_RAISED, 0, "gone");
}

static void
test_add_factory_reregistration_order_in_unknown_list(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  ts_add(&config, ts_client("cpu", 0, false));
  ts_add(&config, ts_client("tpu", 300, true));
  ts_add(&config, ts_client("cpu", 900, false));
  config.jax_platforms = "x";
  lctx_registry r;
  ts_open(&r, &config);
  lctx_outcome o;
  assert_false(ts_backends(&r, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME,
               "Unable to initialize backend 'x': Backend 'x' is not in the "
               "list of known backends: ['cpu', 'tpu']. (set "
               "JAX_PLATFORMS='' to automatically choose an available "
               "backend)");
}

static void test_add_factory_full_configuration(void **state) {
  (void)state;
  static const char *names[LCTX_MAX_FACTORIES] = {
      "f0", "f1", "f2",  "f3",  "f4",  "f5",  "f6",  "f7",
      "f8", "f9", "f10", "f11", "f12", "f13", "f14", "f15"};
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  for (int i = 0; i < LCTX_MAX_FACTORIES; ++i)
    ts_add(&config, ts_client(names[i], i, false));
  assert_false(
      lctx_registry_config_add_factory(&config, ts_client("f16", 0, false)));
  assert_int_equal(config.factory_count, LCTX_MAX_FACTORIES);
  assert_string_equal(config.factories[LCTX_MAX_FACTORIES - 1].name, "f15");
  /* Re-registering a present name needs no new slot. */
  assert_true(
      lctx_registry_config_add_factory(&config, ts_client("f3", 77, true)));
  assert_int_equal(config.factory_count, LCTX_MAX_FACTORIES);
  assert_int_equal(config.factories[3].priority, 77);
}

//===----------------------------------------------------------------------===//
// Configuration: validation
//===----------------------------------------------------------------------===//

/// Fails unless validation rejects the configuration with a message that
/// starts by naming `field` ("factories[2].name", "jax_platforms", ...)
/// followed by a space or a colon and an explanation.
#define assert_rejected(config, field)                                         \
  assert_rejected_at((config), (field), __FILE__, __LINE__)
static void assert_rejected_at(const lctx_registry_config *config,
                               const char *field, const char *file, int line) {
  char storage[512];
  lctx_buf error;
  lctx_buf_init(&error, storage, sizeof storage);
  if (lctx_registry_config_validate(config, &error)) {
    print_error("configuration accepted; expected rejection naming %s\n",
                field);
    _fail(file, line);
  }
  size_t n = strlen(field);
  if (error.length <= n + 1 || strncmp(storage, field, n) != 0 ||
      (storage[n] != ' ' && storage[n] != ':')) {
    print_error("rejection message \"%s\" does not start by naming \"%s\"\n",
                storage, field);
    _fail(file, line);
  }
}

static bool validates(const lctx_registry_config *config) {
  char storage[512];
  lctx_buf error;
  lctx_buf_init(&error, storage, sizeof storage);
  return lctx_registry_config_validate(config, &error);
}

static void test_validate_accepts_in_scope_configurations(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_gpus(&config, true);
  ts_add(&config, ts_client("", 0, true));
  ts_add(&config, ts_client("a'b\"\\\t\x01\x7f", 0, true));
  ts_add(&config, ts_raises("METAL", 400, true, NULL));
  config.jax_platforms = "cpu, tpu,,gpu";
  config.jax_platform_name = "cpu";
  config.jax_xla_backend = "";
  assert_true(validates(&config));
}

static void test_validate_rejects_non_ascii_factory_name(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  ts_add(&config, ts_client("caf\xc3\xa9", 0, true));
  assert_rejected(&config, "factories[2].name");
}

static void test_validate_rejects_non_ascii_message(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  ts_add(&config, ts_raises("METAL", 0, true, "\xff"));
  assert_rejected(&config, "factories[2].message");
}

static void test_validate_rejects_non_ascii_config_values(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  config.jax_platforms = "cpu,\x80";
  assert_rejected(&config, "jax_platforms");
  ts_config_stock(&config);
  config.jax_platform_name = "\xc3\xa9";
  assert_rejected(&config, "jax_platform_name");
  ts_config_stock(&config);
  config.jax_xla_backend = "t\xffu";
  assert_rejected(&config, "jax_xla_backend");
}

static void test_validate_name_length_limit(void **state) {
  (void)state;
  char longest[LCTX_MAX_NAME + 1];
  char too_long[LCTX_MAX_NAME + 2];
  memset(longest, 'n', LCTX_MAX_NAME);
  longest[LCTX_MAX_NAME] = '\0';
  memset(too_long, 'n', LCTX_MAX_NAME + 1);
  too_long[LCTX_MAX_NAME + 1] = '\0';

  lctx_registry_config config;
  ts_config_stock(&config);
  ts_add(&config, ts_client(longest, 0, true));
  config.jax_platform_name = longest;
  config.jax_xla_backend = longest;
  assert_true(validates(&config));

  ts_config_stock(&config);
  ts_add(&config, ts_client(too_long, 0, true));
  assert_rejected(&config, "factories[2].name");

  ts_config_stock(&config);
  config.jax_platform_name = too_long;
  assert_rejected(&config, "jax_platform_name");

  ts_config_stock(&config);
  config.jax_xla_backend = too_long;
  assert_rejected(&config, "jax_xla_backend");
}

static void test_validate_message_length_limit(void **state) {
  (void)state;
  char longest[LCTX_MAX_MESSAGE + 1];
  char too_long[LCTX_MAX_MESSAGE + 2];
  memset(longest, 'm', LCTX_MAX_MESSAGE);
  longest[LCTX_MAX_MESSAGE] = '\0';
  memset(too_long, 'm', LCTX_MAX_MESSAGE + 1);
  too_long[LCTX_MAX_MESSAGE + 1] = '\0';

  lctx_registry_config config;
  ts_config_stock(&config);
  ts_add(&config, ts_raises("METAL", 0, true, longest));
  assert_true(validates(&config));

  ts_config_stock(&config);
  ts_add(&config, ts_raises("METAL", 0, true, too_long));
  assert_rejected(&config, "factories[2].message");
}

static void test_validate_jax_platforms_length_limit(void **state) {
  (void)state;
  char longest[LCTX_MAX_PLATFORMS_CONFIG + 1];
  char too_long[LCTX_MAX_PLATFORMS_CONFIG + 2];
  memset(longest, 'c', LCTX_MAX_PLATFORMS_CONFIG);
  longest[LCTX_MAX_PLATFORMS_CONFIG] = '\0';
  memset(too_long, ',', LCTX_MAX_PLATFORMS_CONFIG + 1);
  too_long[LCTX_MAX_PLATFORMS_CONFIG + 1] = '\0';

  lctx_registry_config config;
  ts_config_stock(&config);
  config.jax_platforms = longest;
  assert_true(validates(&config));

  config.jax_platforms = too_long;
  assert_rejected(&config, "jax_platforms");
}

static void test_validate_rejects_duplicate_names(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  /* Bypass add_factory, which would merge the two. */
  config.factories[config.factory_count++] = ts_client("cpu", 5, true);
  assert_rejected(&config, "factories[2].name");
}

static void test_validate_rejects_too_many_factories(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  config.factory_count = LCTX_MAX_FACTORIES + 1;
  assert_rejected(&config, "factories");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_registry_uninitialized_until_first_need),
      cmocka_unit_test(test_registry_initializes_once),
      cmocka_unit_test(test_registry_ensure_leaves_outcome_untouched),
      cmocka_unit_test(test_registry_ensure_reports_failure),
      cmocka_unit_test(test_default_mode_stock_registry_and_default),
      cmocka_unit_test(test_default_mode_registration_is_factory_position),
      cmocka_unit_test(test_default_priority_tie_keeps_earlier),
      cmocka_unit_test(test_default_priority_strictly_greater_wins),
      cmocka_unit_test(test_default_priority_minus_999_can_be_default),
      cmocka_unit_test(test_default_priority_minus_1000_never_default),
      cmocka_unit_test(test_default_minus_1000_then_better_one),
      cmocka_unit_test(test_quiet_raise_recorded_with_own_message),
      cmocka_unit_test(test_quiet_returns_none_recorded),
      cmocka_unit_test(test_quiet_no_devices_recorded),
      cmocka_unit_test(test_quiet_raise_empty_and_null_message),
      cmocka_unit_test(test_all_quiet_failures_raise_bare_assertion),
      cmocka_unit_test(test_no_factories_raise_bare_assertion),
      cmocka_unit_test(test_loud_raise_default_mode_message),
      cmocka_unit_test(test_loud_returns_none_default_mode_message),
      cmocka_unit_test(test_loud_no_devices_default_mode_message),
      cmocka_unit_test(test_loud_raise_empty_message_keeps_both_spaces),
      cmocka_unit_test(test_loud_failure_stops_before_later_factories),
      cmocka_unit_test(test_cuda_skipped_without_nvidia_default_mode),
      cmocka_unit_test(test_cuda_initialized_with_nvidia_default_mode),
      cmocka_unit_test(test_cuda_skip_is_case_sensitive),
      cmocka_unit_test(test_jax_platforms_cuda_without_nvidia_bare_assertion),
      cmocka_unit_test(test_jax_platforms_only_listed_platforms),
      cmocka_unit_test(test_jax_platforms_priorities_descend_in_list_order),
      cmocka_unit_test(test_jax_platforms_list_order_is_registry_order),
      cmocka_unit_test(test_jax_platforms_quiet_factory_fails_loudly),
      cmocka_unit_test(test_jax_platforms_returns_none_and_no_devices_loud),
      cmocka_unit_test(test_jax_platforms_unknown_name_lists_factories),
      cmocka_unit_test(test_jax_platforms_not_trimmed_space),
      cmocka_unit_test(test_jax_platforms_trailing_comma_asks_for_empty),
      cmocka_unit_test(test_jax_platforms_empty_name_factory_selectable),
      cmocka_unit_test(test_jax_platforms_unknown_list_uses_python_repr),
      cmocka_unit_test(test_jax_platforms_failing_name_inserted_raw),
      cmocka_unit_test(test_jax_platforms_gpu_alias_expands),
      cmocka_unit_test(test_jax_platforms_gpu_alias_missing_plugin),
      cmocka_unit_test(test_jax_platforms_gpu_alias_cuda_skipped),
      cmocka_unit_test(test_jax_platforms_alias_is_case_sensitive),
      cmocka_unit_test(test_jax_platforms_repeat_replaces_entry_default_first),
      cmocka_unit_test(test_jax_platforms_repeat_keeps_first_position),
      cmocka_unit_test(test_jax_platforms_cuda_then_gpu_repeats_cuda),
      cmocka_unit_test(test_jax_platforms_most_registrations_fit),
      cmocka_unit_test(test_factory_named_gpu_initialized_in_default_mode),
      cmocka_unit_test(
          test_factory_named_gpu_never_selected_under_jax_platforms),
      cmocka_unit_test(test_failure_without_clients_reruns_initialization),
      cmocka_unit_test(test_assertion_without_clients_reruns_initialization),
      cmocka_unit_test(test_partial_registry_after_loud_failure),
      cmocka_unit_test(test_partial_registry_default_is_best_before_failure),
      cmocka_unit_test(test_partial_registry_without_default_asserts_each_call),
      cmocka_unit_test(test_partial_registry_after_assertion),
      cmocka_unit_test(test_partial_registry_failures_are_not_cached),
      cmocka_unit_test(test_trace_reports_events_and_changes_nothing),
      cmocka_unit_test(test_add_factory_appends_in_order),
      cmocka_unit_test(test_add_factory_reregistration_keeps_first_position),
      cmocka_unit_test(test_add_factory_reregistration_order_in_unknown_list),
      cmocka_unit_test(test_add_factory_full_configuration),
      cmocka_unit_test(test_validate_accepts_in_scope_configurations),
      cmocka_unit_test(test_validate_rejects_non_ascii_factory_name),
      cmocka_unit_test(test_validate_rejects_non_ascii_message),
      cmocka_unit_test(test_validate_rejects_non_ascii_config_values),
      cmocka_unit_test(test_validate_name_length_limit),
      cmocka_unit_test(test_validate_message_length_limit),
      cmocka_unit_test(test_validate_jax_platforms_length_limit),
      cmocka_unit_test(test_validate_rejects_duplicate_names),
      cmocka_unit_test(test_validate_rejects_too_many_factories),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
