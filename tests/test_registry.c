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

//===----------------------------------------------------------------------===//
// Laziness
//===----------------------------------------------------------------------===//

static void test_registry_uninitialized_until_first_need(void **state) {
  (void)state;
  ts_world w;
  lctx_registry *r = ts_world_stock(&w);
  assert_int_equal(lctx_registry_init_runs(r), 0);
  assert_int_equal(lctx_registry_entry_count(r), 0);
  assert_null(lctx_registry_default(r));
  assert_registry_platforms(r, "[]");
}

static void test_registry_initializes_once(void **state) {
  (void)state;
  ts_world w;
  lctx_registry *r = ts_world_stock(&w);
  lctx_outcome o;
  assert_true(ts_backends(r, &o));
  assert_platforms(&o, "['cpu', 'tpu']");
  assert_int_equal(lctx_registry_init_runs(r), 1);
  assert_true(ts_backends(r, &o));
  assert_platforms(&o, "['cpu', 'tpu']");
  assert_true(lctx_registry_ensure(r, &o));
  assert_int_equal(lctx_registry_init_runs(r), 1);

  /* ensure leaves the outcome untouched when it succeeds. */
  ts_open(r, &w.config);
  ts_outcome_poison(&o);
  assert_true(lctx_registry_ensure(r, &o));
  assert_int_equal(o.kind, LCTX_OUTCOME_STRING);
  assert_int_equal(o.registration, 12345);
  assert_string_equal(o.text, "poison");
  assert_int_equal(lctx_registry_init_runs(r), 1);
  assert_int_equal(lctx_registry_entry_count(r), 2);

  /* ... and reports the failure when it fails. */
  lctx_registry_config_init(&w.config);
  ts_add(&w.config, ts_raises("tpu", 300, false, "boom"));
  ts_open(r, &w.config);
  assert_false(lctx_registry_ensure(r, &o));
  assert_raise(&o, LCTX_ERROR_RUNTIME, TS_MSG_LOUD("tpu", "boom"));
}

//===----------------------------------------------------------------------===//
// backends() and the registry it leaves, one row per scenario
//===----------------------------------------------------------------------===//

/// Default mode: registrations and the default client.
static const ts_scenario default_mode[] = {
    /* The stock registry and its default. */
    {TS_ROW("test_default_mode_stock_registry_and_default"),
     {.base = TS_STOCK},
     {TS_BACKENDS_OK("['cpu', 'tpu']"), TS_IS_COUNT(2),
      TS_IS_ENTRY(0, "cpu", 0), TS_IS_ENTRY(1, "tpu", 1),
      TS_IS_DEFAULT("tpu", 1), TS_IS_NO_FAILURE("tpu"), TS_IS_FOUND("cpu", 0),
      TS_IS_NOT_FOUND("CPU"), TS_IS_NOT_FOUND("gpu")}},
    /* The registration is the factory's position. */
    {TS_ROW("test_default_mode_registration_is_factory_position"),
     {.add = {TS_CLIENT("cpu", 0, false),
              TS_RAISES("tpu", 300, true, "TPU not found"),
              TS_CLIENT("cuda", 400, false), TS_CLIENT("rocm", 400, false)}},
     {TS_BACKENDS_OK("['cpu', 'rocm']"), TS_IS_ENTRY(1, "rocm", 3),
      TS_IS_DEFAULT("rocm", 3)}},
    /* A priority tie keeps the earlier. */
    {TS_ROW("test_default_priority_tie_keeps_earlier"),
     {.add = {TS_CLIENT("cpu", 0, false), TS_CLIENT("tpu", 300, true),
              TS_CLIENT("METAL", 300, true), TS_CLIENT("other", 300, false)}},
     {TS_BACKENDS_OK("['cpu', 'tpu', 'METAL', 'other']"),
      TS_IS_DEFAULT("tpu", 1)}},
    /* A strictly greater priority wins. */
    {TS_ROW("test_default_priority_strictly_greater_wins"),
     {.add = {TS_CLIENT("cpu", 0, false), TS_CLIENT("tpu", 1, true),
              TS_CLIENT("METAL", -5, true)}},
     {TS_BACKENDS_OK("['cpu', 'tpu', 'METAL']"), TS_IS_DEFAULT("tpu", 1)}},
    /* Priority -999 can be the default. */
    {TS_ROW("test_default_priority_minus_999_can_be_default"),
     {.add = {TS_CLIENT("cpu", -999, false)}},
     {TS_BACKENDS_OK("['cpu']"), TS_IS_DEFAULT("cpu", 0)}},
    /* -1000 or lower is never the default; the client was stored before
     * the assertion: a partial registry. */
    {TS_ROW("test_default_priority_minus_1000_never_default"),
     {.add = {TS_CLIENT("cpu", -1000, false)}},
     {TS_BACKENDS_ASSERT, TS_IS_COUNT(1), TS_IS_NO_DEFAULT}},
    {TS_ROW("test_default_priority_minus_1000_never_default_1001"),
     {.add = {TS_CLIENT("cpu", -1001, false)}},
     {TS_BACKENDS_ASSERT, TS_IS_COUNT(1), TS_IS_NO_DEFAULT}},
    {TS_ROW("test_default_priority_minus_1000_never_default_int_min"),
     {.add = {TS_CLIENT("cpu", -2147483647 - 1, false)}},
     {TS_BACKENDS_ASSERT, TS_IS_COUNT(1), TS_IS_NO_DEFAULT}},
    /* -1000 twice, then a better one. */
    {TS_ROW("test_default_minus_1000_then_better_one"),
     {.add = {TS_CLIENT("cpu", -1000, false), TS_CLIENT("tpu", -1000, true),
              TS_CLIENT("METAL", -1, true)}},
     {TS_BACKENDS_OK("['cpu', 'tpu', 'METAL']"), TS_IS_DEFAULT("METAL", 2)}},
    /* A factory named `gpu` is initialized in default mode. */
    {TS_ROW("test_factory_named_gpu_initialized_in_default_mode"),
     {.add = {TS_CLIENT("cpu", 0, false), TS_CLIENT("gpu", 500, true)}},
     {TS_BACKENDS_OK("['cpu', 'gpu']"), TS_IS_DEFAULT("gpu", 1),
      TS_XLA_CLIENT(NULL, 1, "gpu")}},
};

/// Default mode: quiet failures are recorded with their own messages.
static const ts_scenario quiet_failures[] = {
    {TS_ROW("test_quiet_raise_recorded_with_own_message"),
     {.add = {TS_CLIENT("cpu", 0, false),
              TS_RAISES("tpu", 300, true, "TPU not found")}},
     {TS_BACKENDS_OK("['cpu']"), TS_IS_DEFAULT("cpu", 0),
      TS_IS_FAILURE("tpu", LCTX_FAILURE_RAISED, 1, "TPU not found"),
      TS_IS_NO_FAILURE("cpu")}},
    {TS_ROW("test_quiet_returns_none_recorded"),
     {.add = {TS_CLIENT("cpu", 0, false), TS_RETURNS_NONE("tpu", 300, true)}},
     {TS_BACKENDS_OK("['cpu']"),
      TS_IS_FAILURE("tpu", LCTX_FAILURE_RETURNED_NONE, 1,
                    "Could not initialize backend 'tpu'")}},
    {TS_ROW("test_quiet_no_devices_recorded"),
     {.add = {TS_NO_DEVICES("tpu", 300, true), TS_CLIENT("cpu", 0, false)}},
     {TS_BACKENDS_OK("['cpu']"), TS_IS_DEFAULT("cpu", 1),
      TS_IS_FAILURE("tpu", LCTX_FAILURE_NO_DEVICES, 0,
                    "Backend 'tpu' provides no devices.")}},
    /* An empty and a NULL message. */
    {TS_ROW("test_quiet_raise_empty_and_null_message"),
     {.add = {TS_CLIENT("cpu", 0, false), TS_RAISES("tpu", 300, true, ""),
              TS_RAISES("METAL", 300, true, NULL)}},
     {TS_BACKENDS_OK("['cpu']"),
      TS_IS_FAILURE("tpu", LCTX_FAILURE_RAISED, 1, ""),
      TS_IS_FAILURE("METAL", LCTX_FAILURE_RAISED, 2, "")}},
    /* Only quiet failures: the bare AssertionError. */
    {TS_ROW("test_all_quiet_failures_raise_bare_assertion"),
     {.add = {TS_RAISES("cpu", 0, true, "no cpu"),
              TS_RETURNS_NONE("tpu", 300, true)}},
     {TS_BACKENDS_ASSERT, TS_IS_COUNT(0),
      TS_IS_FAILURE("cpu", LCTX_FAILURE_RAISED, 0, "no cpu"),
      TS_IS_FAILURE("tpu", LCTX_FAILURE_RETURNED_NONE, 1,
                    "Could not initialize backend 'tpu'")}},
    /* No factories at all: the same. */
    {TS_ROW("test_no_factories_raise_bare_assertion"),
     {.base = TS_EMPTY},
     {TS_BACKENDS_ASSERT}},
};

/// Default mode: loud failures, and the cuda skip.
static const ts_scenario loud_failures[] = {
    /* A loud failure is not recorded as a quiet one. */
    {TS_ROW("test_loud_raise_default_mode_message"),
     {.add = {TS_CLIENT("cpu", 0, false),
              TS_RAISES("tpu", 300, false, "boom")}},
     {TS_BACKENDS_RAISE(TS_MSG_LOUD("tpu", "boom")), TS_IS_NO_FAILURE("tpu")}},
    {TS_ROW("test_loud_returns_none_default_mode_message"),
     {.add = {TS_RETURNS_NONE("cuda", 400, false)}, .nvidia = true},
     {TS_BACKENDS_RAISE(
         TS_MSG_LOUD("cuda", "Could not initialize backend 'cuda'"))}},
    {TS_ROW("test_loud_no_devices_default_mode_message"),
     {.add = {TS_CLIENT("cpu", 0, false), TS_NO_DEVICES("rocm", 400, false)}},
     {TS_BACKENDS_RAISE(
         TS_MSG_LOUD("rocm", "Backend 'rocm' provides no devices."))}},
    /* An empty or NULL message keeps both spaces. */
    {TS_ROW("test_loud_raise_empty_message_keeps_both_spaces"),
     {.add = {TS_RAISES("tpu", 300, false, "")}},
     {TS_BACKENDS_RAISE(TS_MSG_LOUD("tpu", ""))}},
    {TS_ROW("test_loud_raise_empty_message_keeps_both_spaces_null"),
     {.add = {TS_RAISES("tpu", 300, false, NULL)}},
     {TS_BACKENDS_RAISE(TS_MSG_LOUD("tpu", ""))}},
    /* The first loud failure stops initialization. */
    {TS_ROW("test_loud_failure_stops_before_later_factories"),
     {.add = {TS_RAISES("tpu", 300, false, "first"),
              TS_RAISES("METAL", 300, false, "second")}},
     {TS_BACKENDS_RAISE(TS_MSG_LOUD("tpu", "first"))}},
    /* cuda without a visible NVIDIA GPU: neither initialized nor failed. */
    {TS_ROW("test_cuda_skipped_without_nvidia_default_mode"),
     {.add = {TS_CLIENT("cpu", 0, false),
              TS_RAISES("cuda", 400, false, "no CUDA")}},
     {TS_BACKENDS_OK("['cpu']"), TS_IS_NOT_FOUND("cuda"),
      TS_IS_NO_FAILURE("cuda"), TS_IS_DEFAULT("cpu", 0)}},
    /* With one, cuda is initialized; the skip matches the exact name. */
    {TS_ROW("test_cuda_initialized_with_nvidia_default_mode"),
     {.add = {TS_CLIENT("cpu", 0, false),
              TS_RAISES("cuda", 400, false, "no CUDA")},
      .nvidia = true},
     {TS_BACKENDS_RAISE(TS_MSG_LOUD("cuda", "no CUDA"))}},
    {TS_ROW("test_cuda_skip_is_case_sensitive"),
     {.add = {TS_CLIENT("cpu", 0, false), TS_RAISES("CUDA", 400, false, "x")}},
     {TS_BACKENDS_RAISE(TS_MSG_LOUD("CUDA", "x"))}},
};

/// The jax_platforms mode.
static const ts_scenario jax_platforms[] = {
    /* jax_platforms=cuda without an NVIDIA GPU: an empty registry, so every
     * operation initializes again and raises again. */
    {TS_ROW("test_jax_platforms_cuda_without_nvidia_bare_assertion"),
     {.base = TS_GPUS, .jax_platforms = "cuda"},
     {TS_BACKENDS_ASSERT, TS_IS_COUNT(0), TS_IS_NO_FAILURE("cuda"),
      TS_IS_RUNS(1), TS_BACKENDS_ASSERT, TS_IS_RUNS(2)}},
    /* Only the listed platforms. */
    {TS_ROW("test_jax_platforms_only_listed_platforms"),
     {.base = TS_STOCK, .jax_platforms = "cpu"},
     {TS_BACKENDS_OK("['cpu']"), TS_IS_NO_FAILURE("tpu")}},
    /* Priorities 2 and 1 replace the factories' 0 and 300. */
    {TS_ROW("test_jax_platforms_priorities_descend_in_list_order"),
     {.base = TS_STOCK, .jax_platforms = "cpu,tpu"},
     {TS_BACKENDS_OK("['cpu', 'tpu']"), TS_IS_DEFAULT("cpu", 0),
      TS_IS_ENTRY(1, "tpu", 1)}},
    /* The list order is the registry order. */
    {TS_ROW("test_jax_platforms_list_order_is_registry_order"),
     {.base = TS_STOCK, .jax_platforms = "tpu,cpu"},
     {TS_BACKENDS_OK("['tpu', 'cpu']"), TS_IS_ENTRY(0, "tpu", 0),
      TS_IS_ENTRY(1, "cpu", 1), TS_IS_DEFAULT("tpu", 0)}},
    /* Every listed factory fails loudly. */
    {TS_ROW("test_jax_platforms_quiet_factory_fails_loudly"),
     {.add = {TS_CLIENT("cpu", 0, false),
              TS_RAISES("tpu", 300, true, "TPU not found")},
      .jax_platforms = "cpu,tpu"},
     {TS_BACKENDS_RAISE(TS_MSG_LISTED("tpu", "TPU not found")),
      TS_IS_NO_FAILURE("tpu")}},
    {TS_ROW("test_jax_platforms_returns_none_and_no_devices_loud"),
     {.add = {TS_RETURNS_NONE("tpu", 300, true), TS_NO_DEVICES("cpu", 0, true)},
      .jax_platforms = "tpu"},
     {TS_BACKENDS_RAISE(
         TS_MSG_LISTED("tpu", "Could not initialize backend 'tpu'"))}},
    {TS_ROW("test_jax_platforms_returns_none_and_no_devices_loud_cpu"),
     {.add = {TS_RETURNS_NONE("tpu", 300, true), TS_NO_DEVICES("cpu", 0, true)},
      .jax_platforms = "cpu"},
     {TS_BACKENDS_RAISE(
         TS_MSG_LISTED("cpu", "Backend 'cpu' provides no devices."))}},
    /* Unknown names list the factories; no trimming; a trailing comma asks
     * for the empty name. */
    {TS_ROW("test_jax_platforms_unknown_name_lists_factories"),
     {.base = TS_STOCK, .jax_platforms = "cpu,metal"},
     {TS_BACKENDS_RAISE(TS_MSG_NOT_KNOWN("metal", "['cpu', 'tpu']"))}},
    {TS_ROW("test_jax_platforms_not_trimmed_space"),
     {.base = TS_STOCK, .jax_platforms = "cpu, tpu"},
     {TS_BACKENDS_RAISE(TS_MSG_NOT_KNOWN(" tpu", "['cpu', 'tpu']"))}},
    {TS_ROW("test_jax_platforms_trailing_comma_asks_for_empty"),
     {.base = TS_STOCK, .jax_platforms = "cpu,"},
     {TS_BACKENDS_RAISE(TS_MSG_NOT_KNOWN("", "['cpu', 'tpu']"))}},
    /* ... which a factory named "" answers. */
    {TS_ROW("test_jax_platforms_empty_name_factory_selectable"),
     {.base = TS_STOCK,
      .add = {TS_CLIENT("", 0, true)},
      .jax_platforms = "cpu,"},
     {TS_BACKENDS_OK("['cpu', '']"), TS_IS_ENTRY(1, "", 1),
      TS_IS_DEFAULT("cpu", 0)}},
    /* The unknown list is a Python repr; the failing name is inserted raw. */
    {TS_ROW("test_jax_platforms_unknown_list_uses_python_repr"),
     {.add = {TS_CLIENT("cpu", 0, false), TS_CLIENT("it's", 0, false),
              TS_CLIENT("say \"hi\"", 0, false), TS_CLIENT("a\\b", 0, false),
              TS_CLIENT("tab\tname", 0, false), TS_CLIENT("cr\rnl\n", 0, false),
              TS_CLIENT("\x01", 0, false), TS_CLIENT("\x7f", 0, false),
              TS_CLIENT("b'\"", 0, false)},
      .jax_platforms = "nope"},
     {TS_BACKENDS_RAISE(
         "Unable to initialize backend 'nope': Backend 'nope' is not in "
         "the list of known backends: ['cpu', \"it's\", 'say \"hi\"', "
         "'a\\\\b', 'tab\\tname', 'cr\\rnl\\n', '\\x01', '\\x7f', "
         "'b\\'\"']. (set JAX_PLATFORMS='' to automatically choose an "
         "available backend)")}},
    {TS_ROW("test_jax_platforms_failing_name_inserted_raw"),
     {.add = {TS_CLIENT("cpu", 0, false)}, .jax_platforms = "it's"},
     {TS_BACKENDS_RAISE(TS_MSG_NOT_KNOWN("it's", "['cpu']"))}},
    /* Re-registration: the list of a later duplicate keeps the first
     * position. */
    {TS_ROW("test_add_factory_reregistration_order_in_unknown_list"),
     {.add = {TS_CLIENT("cpu", 0, false), TS_CLIENT("tpu", 300, true),
              TS_CLIENT("cpu", 900, false)},
      .jax_platforms = "x"},
     {TS_BACKENDS_RAISE(TS_MSG_NOT_KNOWN("x", "['cpu', 'tpu']"))}},
};

/// The `gpu` alias under jax_platforms, and repeated entries.
static const ts_scenario gpu_alias[] = {
    {TS_ROW("test_jax_platforms_gpu_alias_expands"),
     {.base = TS_GPUS, .nvidia = true, .jax_platforms = "gpu"},
     {TS_BACKENDS_OK("['cuda', 'rocm', 'oneapi']"), TS_IS_ENTRY(0, "cuda", 0),
      TS_IS_ENTRY(1, "rocm", 1), TS_IS_ENTRY(2, "oneapi", 2),
      TS_IS_DEFAULT("cuda", 0)}},
    /* A missing plugin. */
    {TS_ROW("test_jax_platforms_gpu_alias_missing_plugin"),
     {.add = {TS_CLIENT("cpu", 0, false), TS_CLIENT("cuda", 400, false),
              TS_CLIENT("rocm", 400, false)},
      .nvidia = true,
      .jax_platforms = "gpu"},
     {TS_BACKENDS_RAISE(
         TS_MSG_NOT_KNOWN("oneapi", "['cpu', 'cuda', 'rocm']"))}},
    /* cuda skipped. Registrations: cpu 0, cuda 1 (skipped), rocm 2,
     * oneapi 3. */
    {TS_ROW("test_jax_platforms_gpu_alias_cuda_skipped"),
     {.base = TS_GPUS, .jax_platforms = "cpu,gpu"},
     {TS_BACKENDS_OK("['cpu', 'rocm', 'oneapi']"), TS_IS_ENTRY(1, "rocm", 2),
      TS_IS_ENTRY(2, "oneapi", 3), TS_IS_DEFAULT("cpu", 0)}},
    /* The alias is case-sensitive. */
    {TS_ROW("test_jax_platforms_alias_is_case_sensitive"),
     {.base = TS_GPUS, .nvidia = true, .jax_platforms = "GPU"},
     {TS_BACKENDS_RAISE(
         TS_MSG_NOT_KNOWN("GPU", "['cpu', 'tpu', 'cuda', 'rocm', 'oneapi']"))}},
    /* A factory named `gpu` is never selected under jax_platforms. */
    {TS_ROW("test_factory_named_gpu_never_selected_under_jax_platforms"),
     {.add = {TS_CLIENT("cpu", 0, false), TS_CLIENT("gpu", 500, true)},
      .nvidia = true,
      .jax_platforms = "gpu"},
     {TS_BACKENDS_RAISE(TS_MSG_NOT_KNOWN("cuda", "['cpu', 'gpu']"))}},
    {TS_ROW(
         "test_factory_named_gpu_never_selected_under_jax_platforms_no_nvidia"),
     {.add = {TS_CLIENT("cpu", 0, false), TS_CLIENT("gpu", 500, true)},
      .jax_platforms = "gpu"},
     {TS_BACKENDS_RAISE(TS_MSG_NOT_KNOWN("rocm", "['cpu', 'gpu']"))}},
    /* A repeat replaces the entry; the default stays the first client,
     * and get_backend tells the two clients apart. */
    {TS_ROW("test_jax_platforms_repeat_replaces_entry_default_first"),
     {.base = TS_STOCK, .jax_platforms = "cpu,cpu"},
     {TS_BACKENDS_OK("['cpu']"), TS_IS_COUNT(1), TS_IS_ENTRY(0, "cpu", 1),
      TS_IS_DEFAULT("cpu", 0), TS_XLA_CLIENT("cpu", 1, "cpu"),
      TS_XLA_CLIENT(NULL, 0, "cpu")}},
    /* ... under its first position. */
    {TS_ROW("test_jax_platforms_repeat_keeps_first_position"),
     {.base = TS_STOCK, .jax_platforms = "cpu,tpu,cpu"},
     {TS_BACKENDS_OK("['cpu', 'tpu']"), TS_IS_ENTRY(0, "cpu", 2),
      TS_IS_ENTRY(1, "tpu", 1), TS_IS_DEFAULT("cpu", 0)}},
    {TS_ROW("test_jax_platforms_cuda_then_gpu_repeats_cuda"),
     {.base = TS_GPUS, .nvidia = true, .jax_platforms = "cuda,gpu"},
     {TS_BACKENDS_OK("['cuda', 'rocm', 'oneapi']"), TS_IS_ENTRY(0, "cuda", 1),
      TS_IS_ENTRY(1, "rocm", 2), TS_IS_ENTRY(2, "oneapi", 3),
      TS_IS_DEFAULT("cuda", 0)}},
};

/// Re-runs after a failure with no client, and the partial registry the
/// next operation sees after a failure that came after some successes.
static const ts_scenario partial_registry[] = {
    {TS_ROW("test_failure_without_clients_reruns_initialization"),
     {.add = {TS_RAISES("tpu", 300, true, "TPU not found"),
              TS_RAISES("cpu", 0, false, "no cpu")}},
     {TS_BACKENDS_RAISE(TS_MSG_LOUD("cpu", "no cpu")), TS_IS_RUNS(1),
      TS_IS_COUNT(0),
      TS_IS_FAILURE("tpu", LCTX_FAILURE_RAISED, 0, "TPU not found"),
      TS_BACKENDS_RAISE(TS_MSG_LOUD("cpu", "no cpu")), TS_IS_RUNS(2),
      TS_IS_COUNT(0),
      TS_IS_FAILURE("tpu", LCTX_FAILURE_RAISED, 0, "TPU not found"),
      TS_BACKENDS_RAISE(TS_MSG_LOUD("cpu", "no cpu")), TS_IS_RUNS(3),
      TS_IS_COUNT(0),
      TS_IS_FAILURE("tpu", LCTX_FAILURE_RAISED, 0, "TPU not found")}},
    {TS_ROW("test_assertion_without_clients_reruns_initialization"),
     {.add = {TS_RAISES("tpu", 300, true, "TPU not found")}},
     {TS_BACKENDS_ASSERT, TS_XLA_ASSERT(NULL), TS_IS_RUNS(2)}},
    /* After a loud failure the next operation sees the partial registry
     * and no error; a quiet failure before the loud one is still "failed
     * to initialize", the loudly failed platform and the one never
     * attempted are unknown. */
    {TS_ROW("test_partial_registry_after_loud_failure"),
     TS_SETUP_PARTIAL,
     {TS_BACKENDS_RAISE(TS_MSG_LOUD("cuda", "cuda boom")),
      TS_BACKENDS_OK("['cpu']"), TS_IS_RUNS(1), TS_IS_DEFAULT("cpu", 0),
      TS_IS_FAILURE("tpu", LCTX_FAILURE_RAISED, 1, "tpu down"),
      TS_IS_NO_FAILURE("cuda"), TS_IS_NOT_FOUND("rocm"),
      TS_IS_NO_FAILURE("rocm"),
      TS_XLA_RAISE("tpu", "Backend 'tpu' failed to initialize: tpu down. "
                          "Available backends are ['cpu']"),
      TS_XLA_RAISE("cuda",
                   "Unknown backend cuda. Available backends are ['cpu']"),
      TS_XLA_RAISE("rocm",
                   "Unknown backend rocm. Available backends are ['cpu']"),
      TS_XLA_CLIENT(NULL, 0, "cpu"), TS_XLA_CLIENT("cpu", 0, "cpu"),
      TS_IS_RUNS(1)}},
    /* The default is the best client before the failure. */
    {TS_ROW("test_partial_registry_default_is_best_before_failure"),
     {.add = {TS_CLIENT("cpu", 0, false), TS_CLIENT("tpu", 300, true),
              TS_CLIENT("METAL", 300, true),
              TS_RAISES("rocm", 400, false, "rocm boom"),
              TS_CLIENT("oneapi", 900, false)}},
     {TS_BACKENDS_RAISE(TS_MSG_LOUD("rocm", "rocm boom")),
      TS_XLA_CLIENT(NULL, 1, "tpu"),
      TS_BACKENDS_OK("['cpu', 'tpu', 'METAL']")}},
    /* Without a default, every call asserts. */
    {TS_ROW("test_partial_registry_without_default_asserts_each_call"),
     {.add = {TS_CLIENT("cpu", -1000, false),
              TS_RAISES("tpu", 300, false, "boom")}},
     {TS_BACKENDS_RAISE(TS_MSG_LOUD("tpu", "boom")), TS_IS_NO_DEFAULT,
      TS_XLA_ASSERT(NULL), TS_XLA_ASSERT(NULL), TS_XLA_CLIENT("cpu", 0, "cpu"),
      TS_BACKENDS_OK("['cpu']"), TS_IS_RUNS(1)}},
    /* After the assertion. */
    {TS_ROW("test_partial_registry_after_assertion"),
     {.add = {TS_CLIENT("cpu", -1000, false),
              TS_RAISES("tpu", 300, true, "TPU not found")}},
     {TS_BACKENDS_ASSERT, TS_BACKENDS_OK("['cpu']"), TS_IS_RUNS(1),
      TS_XLA_ASSERT(""),
      TS_XLA_RAISE("tpu", "Backend 'tpu' failed to initialize: TPU not found. "
                          "Available backends are ['cpu']")}},
    /* Failures are not cached. */
    {TS_ROW("test_partial_registry_failures_are_not_cached"),
     {.base = TS_STOCK, .jax_platforms = "cpu,metal,tpu"},
     {TS_XLA_RAISE("cpu", TS_MSG_NOT_KNOWN("metal", "['cpu', 'tpu']")),
      TS_XLA_CLIENT("cpu", 0, "cpu"),
      TS_XLA_RAISE("tpu",
                   "Unknown backend tpu. Available backends are ['cpu']"),
      TS_XLA_RAISE("metal",
                   "Unknown backend metal. Available backends are ['cpu']")}},
};

static void test_jax_platforms_most_registrations_fit(void **state) {
  (void)state;
  /* 255 commas: 256 registrations of the empty name. */
  static char commas[LCTX_MAX_PLATFORMS_CONFIG + 1];
  memset(commas, ',', LCTX_MAX_PLATFORMS_CONFIG);
  commas[LCTX_MAX_PLATFORMS_CONFIG] = '\0';
  /* 64 `gpu` entries: 192 registrations. */
  static char gpus[LCTX_MAX_PLATFORMS_CONFIG + 1];
  lctx_buf b;
  lctx_buf_init(&b, gpus, sizeof gpus);
  for (int i = 0; i < 64; ++i)
    lctx_buf_append_cstr(&b, i ? ",gpu" : "gpu");
  assert_false(b.overflow);
  assert_int_equal(b.length, 255);
  const ts_scenario rows[] = {
      {TS_ROW("test_jax_platforms_most_registrations_fit_empty_name"),
       {.add = {TS_CLIENT("", 0, false)}, .jax_platforms = commas},
       {TS_BACKENDS_OK("['']"), TS_IS_ENTRY(0, "", 255), TS_IS_DEFAULT("", 0)}},
      {TS_ROW("test_jax_platforms_most_registrations_fit_gpu"),
       {.base = TS_GPUS, .nvidia = true, .jax_platforms = gpus},
       {TS_BACKENDS_OK("['cuda', 'rocm', 'oneapi']"),
        TS_IS_ENTRY(0, "cuda", 189), TS_IS_ENTRY(1, "rocm", 190),
        TS_IS_ENTRY(2, "oneapi", 191), TS_IS_DEFAULT("cuda", 0)}},
  };
  ts_run_scenarios(rows);
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
  ts_world w;
  lctx_registry *r = ts_world_stock(&w);
  int events = 0;
  lctx_registry_set_trace(r, count_event, &events);
  lctx_outcome o;
  assert_true(ts_backends(r, &o));
  assert_platforms(&o, "['cpu', 'tpu']");
  assert_true(events > 0);
  lctx_registry_set_trace(r, NULL, NULL);
  int before = events;
  assert_true(ts_xla(r, "cpu", &o));
  assert_registry_client(&o, 0, "cpu");
  assert_int_equal(events, before);
}

//===----------------------------------------------------------------------===//
// Configuration: registration
//===----------------------------------------------------------------------===//

static void test_add_factory_appends_in_order(void **state) {
  (void)state;
  static const ts_setup three = {.add = {TS_CLIENT("cpu", 0, false),
                                         TS_CLIENT("tpu", 300, true),
                                         TS_CLIENT("CPU", 1, true)}};
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  assert_int_equal(config.factory_count, 0);
  assert_null(config.jax_platforms);
  assert_false(config.nvidia_gpu_visible);
  ts_setup_build_at(&three, &config, __FILE__, __LINE__);
  assert_int_equal(config.factory_count, 3);
  for (size_t i = 0; i < 3; ++i)
    ts_assert_factory_at(&config.factories[i], three.add[i], __FILE__,
                         __LINE__);
}

static void test_add_factory_reregistration_keeps_first_position(void **state) {
  (void)state;
  static const ts_scenario row = {
      TS_ROW("test_add_factory_reregistration_keeps_first_position"),
      {.add = {TS_CLIENT("cpu", 0, false), TS_CLIENT("tpu", 300, true),
               TS_RAISES("cpu", 500, true, "gone")}},
      {TS_BACKENDS_OK("['tpu']"), TS_IS_DEFAULT("tpu", 1),
       TS_IS_FAILURE("cpu", LCTX_FAILURE_RAISED, 0, "gone")}};
  lctx_registry_config config;
  ts_setup_build_at(&row.setup, &config, row.at.file, row.at.line);
  assert_int_equal(config.factory_count, 2);
  assert_factory(&config.factories[0], TS_RAISES("cpu", 500, true, "gone"));
  ts_run_scenarios_n(&row, 1);
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
    ts_fail(file, line);
  }
  size_t n = strlen(field);
  if (error.length <= n + 1 || strncmp(storage, field, n) != 0 ||
      (storage[n] != ' ' && storage[n] != ':')) {
    print_error("rejection message \"%s\" does not start by naming \"%s\"\n",
                storage, field);
    ts_fail(file, line);
  }
}

static bool validates(const lctx_registry_config *config) {
  char storage[512];
  lctx_buf error;
  lctx_buf_init(&error, storage, sizeof storage);
  return lctx_registry_config_validate(config, &error);
}

/// Validation: each row is accepted (`field` NULL) or rejected naming
/// `field`; a failure names the row.
typedef struct validation {
  ts_row at;
  ts_setup setup;
  const char *field;
} validation;

static void check_validation(const validation *rows, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const ts_row *at = &rows[i].at;
    lctx_registry_config config;
    ts_row_enter(at);
    ts_setup_build_at(&rows[i].setup, &config, at->file, at->line);
    if (rows[i].field)
      assert_rejected_at(&config, rows[i].field, at->file, at->line);
    else
      ts_check(validates(&config), "accepted", at->file, at->line);
  }
}

static void test_validate_alphabet(void **state) {
  (void)state;
  static const validation rows[] = {
      /* In scope: the empty name, odd ASCII, a NULL message, odd config
       * values. */
      {TS_ROW("test_validate_accepts_in_scope_configurations"),
       {.base = TS_GPUS,
        .nvidia = true,
        .add = {TS_CLIENT("", 0, true), TS_CLIENT("a'b\"\\\t\x01\x7f", 0, true),
                TS_RAISES("METAL", 400, true, NULL)},
        .jax_platforms = "cpu, tpu,,gpu",
        .jax_platform_name = "cpu",
        .jax_xla_backend = ""},
       NULL},
      {TS_ROW("test_validate_rejects_non_ascii_factory_name"),
       {.base = TS_STOCK, .add = {TS_CLIENT("caf\xc3\xa9", 0, true)}},
       "factories[2].name"},
      {TS_ROW("test_validate_rejects_non_ascii_message"),
       {.base = TS_STOCK, .add = {TS_RAISES("METAL", 0, true, "\xff")}},
       "factories[2].message"},
      {TS_ROW("test_validate_rejects_non_ascii_config_values"),
       {.base = TS_STOCK, .jax_platforms = "cpu,\x80"},
       "jax_platforms"},
      {TS_ROW("test_validate_rejects_non_ascii_config_values_platform_name"),
       {.base = TS_STOCK, .jax_platform_name = "\xc3\xa9"},
       "jax_platform_name"},
      {TS_ROW("test_validate_rejects_non_ascii_config_values_xla_backend"),
       {.base = TS_STOCK, .jax_xla_backend = "t\xffu"},
       "jax_xla_backend"},
  };
  check_validation(rows, sizeof rows / sizeof rows[0]);
}

static void test_validate_length_limits(void **state) {
  (void)state;
  char name[LCTX_MAX_NAME + 1], long_name[LCTX_MAX_NAME + 2];
  char message[LCTX_MAX_MESSAGE + 1], long_message[LCTX_MAX_MESSAGE + 2];
  char list[LCTX_MAX_PLATFORMS_CONFIG + 1];
  char long_list[LCTX_MAX_PLATFORMS_CONFIG + 2];
  memset(name, 'n', sizeof name - 1);
  memset(long_name, 'n', sizeof long_name - 1);
  memset(message, 'm', sizeof message - 1);
  memset(long_message, 'm', sizeof long_message - 1);
  memset(list, 'c', sizeof list - 1);
  memset(long_list, ',', sizeof long_list - 1);
  name[sizeof name - 1] = long_name[sizeof long_name - 1] = '\0';
  message[sizeof message - 1] = long_message[sizeof long_message - 1] = '\0';
  list[sizeof list - 1] = long_list[sizeof long_list - 1] = '\0';
  const validation rows[] = {
      {TS_ROW("test_validate_name_length_limit"),
       {.base = TS_STOCK,
        .add = {TS_CLIENT(name, 0, true)},
        .jax_platform_name = name,
        .jax_xla_backend = name},
       NULL},
      {TS_ROW("test_validate_name_length_limit_factory_name"),
       {.base = TS_STOCK, .add = {TS_CLIENT(long_name, 0, true)}},
       "factories[2].name"},
      {TS_ROW("test_validate_name_length_limit_platform_name"),
       {.base = TS_STOCK, .jax_platform_name = long_name},
       "jax_platform_name"},
      {TS_ROW("test_validate_name_length_limit_xla_backend"),
       {.base = TS_STOCK, .jax_xla_backend = long_name},
       "jax_xla_backend"},
      {TS_ROW("test_validate_message_length_limit"),
       {.base = TS_STOCK, .add = {TS_RAISES("METAL", 0, true, message)}},
       NULL},
      {TS_ROW("test_validate_message_length_limit_too_long"),
       {.base = TS_STOCK, .add = {TS_RAISES("METAL", 0, true, long_message)}},
       "factories[2].message"},
      {TS_ROW("test_validate_jax_platforms_length_limit"),
       {.base = TS_STOCK, .jax_platforms = list},
       NULL},
      {TS_ROW("test_validate_jax_platforms_length_limit_too_long"),
       {.base = TS_STOCK, .jax_platforms = long_list},
       "jax_platforms"},
  };
  check_validation(rows, sizeof rows / sizeof rows[0]);
}

static void test_validate_rejects_duplicate_names(void **state) {
  (void)state;
  lctx_registry_config config;
  ts_config_stock(&config);
  /* Bypass add_factory, which would merge the two. */
  config.factories[config.factory_count++] = ts_client("cpu", 5, true);
  assert_rejected(&config, "factories[2].name");
  ts_config_stock(&config);
  config.factory_count = LCTX_MAX_FACTORIES + 1;
  assert_rejected(&config, "factories");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_registry_uninitialized_until_first_need),
      cmocka_unit_test(test_registry_initializes_once),
      TS_TABLE_TEST(test_default_mode, default_mode),
      TS_TABLE_TEST(test_quiet_failures, quiet_failures),
      TS_TABLE_TEST(test_loud_failures_and_cuda_skip, loud_failures),
      TS_TABLE_TEST(test_jax_platforms, jax_platforms),
      TS_TABLE_TEST(test_jax_platforms_gpu_alias_and_repeats, gpu_alias),
      cmocka_unit_test(test_jax_platforms_most_registrations_fit),
      TS_TABLE_TEST(test_reruns_and_partial_registry, partial_registry),
      cmocka_unit_test(test_trace_reports_events_and_changes_nothing),
      cmocka_unit_test(test_add_factory_appends_in_order),
      cmocka_unit_test(test_add_factory_reregistration_keeps_first_position),
      cmocka_unit_test(test_add_factory_full_configuration),
      cmocka_unit_test(test_validate_alphabet),
      cmocka_unit_test(test_validate_length_limits),
      cmocka_unit_test(test_validate_rejects_duplicate_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
