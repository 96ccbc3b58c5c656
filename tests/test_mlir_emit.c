/*
 * test_mlir_emit.c - pins the MLIR a lowering emits (lctx/mlir_emit.h):
 * the platform index argument exactly when there are several platforms
 * (i32, or i64 under x64, marked jax.global_constant), the two-level
 * dispatch as scf.index_switch ops (last branch as default), one marker per
 * rule, a module that parses and verifies with the MLIR C API; and, run
 * through the IR checker, that each platform runs its rule, except JAX's
 * nested platform-index defect, reported under its own row (IR-006).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ircheck.h"
#include "lctx/lctx.h"
#include "lctx/mlir_emit.h"
#include "lowering_fx.h"

#include <stdio.h>
#include <string.h>

/// The lowering (lowering_fx.h), the module's text and the expectations.
typedef struct fx {
  ts_lowering_fx l;
  char text[1 << 16];
  char error[4096];
  char names[LCTX_IR_MAX_PLATFORMS][LCTX_IR_MAX_RULES][64];
  lctx_ir_expectation expect;
} fx;

static fx g;

static lctx_str s(const char *c) {
  return lctx_str_from_cstr(c);
}

static void setup(const char *const *platforms, size_t n) {
  memset(&g, 0, sizeof g);
  lctx_registry_config_init(&g.l.config);
  lctx_registry_config_add_factory(
      &g.l.config, (lctx_factory){"cpu", 0, false, LCTX_FACTORY_CLIENT, NULL});
  lctx_registry_config_add_factory(
      &g.l.config, (lctx_factory){"tpu", 300, true, LCTX_FACTORY_CLIENT, NULL});
  lctx_registry_init(&g.l.backends, &g.l.config);
  lctx_lowering_registry_init(&g.l.lowering, &g.l.config);
  lctx_lowering_context_init(&g.l.ctx);
  lctx_module_context_init(&g.l.ctx.module);
  for (size_t i = 0; i < n; i++)
    assert_true(
        lctx_module_context_add_platform(&g.l.ctx.module, s(platforms[i])));
  g.l.ctx.dim_var_count = n > 1 ? 1 : 0;
}

static int marker_rule(const char *name) {
  lctx_lowering_action a = lctx_action_emit_marker();
  int r = lctx_lowering_rule_add(&g.l.lowering, s(name), &a, 1);
  assert_true(r >= 0);
  return r;
}

static void reg(int p, int r, const char *platform) {
  lctx_str pl = s(platform ? platform : "");
  assert_true(lctx_lowering_register(&g.l.lowering, p, r, platform ? &pl : NULL,
                                     &g.l.o));
}

/* Emits, and returns the printed, verified module text. */
static const char *emit(bool x64) {
  MlirContext ctx = lctx_mlir_context_create();
  MlirModule m;
  lctx_buf e, t;
  lctx_buf_init(&e, g.error, sizeof g.error);
  lctx_buf_init(&t, g.text, sizeof g.text);
  bool ok = lctx_mlir_emit(ctx, &g.l.lowering, &g.l.result, x64, &m, &e);
  if (!ok)
    fail_msg("emit failed: %s", g.error);
  lctx_mlir_print(m, &t);
  mlirModuleDestroy(m);
  mlirContextDestroy(ctx);
  return g.text;
}

static size_t count(const char *text, const char *needle) {
  size_t n = 0;
  for (const char *p = text; (p = strstr(p, needle)) != NULL; p++)
    n++;
  return n;
}

/* The marker rules on a path of the lowering result. */
static void path_markers(const lctx_lowering_path *path, size_t index,
                         lctx_ir_rules *out, int which) {
  out->count = 0;
  for (size_t k = 0; k < path->count; k++) {
    const lctx_lowering_event *ev = &g.l.result.events[path->events[k]];
    if (ev->kind != LCTX_EVENT_MARKER)
      continue;
    lctx_str name = lctx_lowering_rule_name(&g.l.lowering, ev->rule);
    char *dst = g.names[index][out->count + (size_t)which * 8];
    snprintf(dst, 64, "%.*s", (int)name.length, name.data);
    out->names[out->count++] = dst;
  }
}

/* Expectations from the model: intended and (optionally) JAX's actual. */
static void expect_from_result(bool with_actual, bool x64) {
  memset(&g.expect, 0, sizeof g.expect);
  g.expect.platform_count = g.l.result.index_count;
  g.expect.x64 = x64;
  static char platform_names[LCTX_IR_MAX_PLATFORMS][64];
  for (size_t i = 0; i < g.l.result.index_count; i++) {
    snprintf(platform_names[i], 64, "%.*s",
             (int)g.l.result.index_platforms[i].length,
             g.l.result.index_platforms[i].data);
    g.expect.platforms[i] = platform_names[i];
    path_markers(&g.l.result.intended[i], i, &g.expect.intended[i], 0);
    g.expect.has_jax_actual[i] = with_actual;
    if (with_actual)
      path_markers(&g.l.result.actual[i], i, &g.expect.jax_actual[i], 1);
  }
}

static lctx_ir_report report;

static void check(bool with_actual, bool x64) {
  lctx_ircheck *ck = lctx_ircheck_create();
  expect_from_result(with_actual, x64);
  lctx_ircheck_run(ck, s(g.text), &g.expect, &report);
  lctx_ircheck_destroy(ck);
}

static void test_single_platform_no_index_no_switch(void **state) {
  (void)state;
  setup((const char *const[]){"cpu"}, 1);
  int p = lctx_lowering_primitive_add(&g.l.lowering, s("P"));
  reg(p, marker_rule("P.cpu"), "cpu");
  assert_true(lctx_lowering_lower_eqn(&g.l.lowering, &g.l.backends, &g.l.ctx, p,
                                      &g.l.result));
  const char *text = emit(false);
  assert_null(strstr(text, "%arg0"));
  assert_int_equal(count(text, "scf.index_switch"), 0);
  if (!strstr(text, "\"lctx.marker\"() {platforms = [\"cpu\"], "
                    "primitive = \"P\", rule = \"P.cpu\"}"))
    fail_msg("no marker in:\n%s", text);
  check(true, false);
  assert_true(report.verified);
  assert_int_equal(report.count, 0);
}

static void test_two_platforms_index_and_two_switches(void **state) {
  (void)state;
  for (int x64 = 0; x64 < 2; x64++) {
    setup((const char *const[]){"cpu", "tpu"}, 2);
    int p = lctx_lowering_primitive_add(&g.l.lowering, s("P"));
    reg(p, marker_rule("P.cpu"), "cpu");
    reg(p, marker_rule("P.default"), NULL);
    assert_true(lctx_lowering_lower_eqn(&g.l.lowering, &g.l.backends, &g.l.ctx,
                                        p, &g.l.result));
    const char *text = emit(x64);
    char want[128];
    snprintf(want, sizeof want,
             "%%arg0: %s {jax.global_constant = \"_platform_index\"}",
             x64 ? "i64" : "i32");
    assert_non_null(strstr(text, want));
    assert_int_equal(count(text, "scf.index_switch"), 2);
    assert_int_equal(count(text, "lctx.marker"), 2);
    check(true, x64);
    assert_true(report.verified);
    assert_int_equal(report.count, 0);
  }
}

static void test_nested_defect_is_ir_006(void **state) {
  (void)state;
  setup((const char *const[]){"cpu", "tpu", "cuda"}, 3);
  int p = lctx_lowering_primitive_add(&g.l.lowering, s("P"));
  int q = lctx_lowering_primitive_add(&g.l.lowering, s("Q"));
  lctx_lowering_action lf = lctx_action_lower_fun(q);
  int pd = lctx_lowering_rule_add(&g.l.lowering, s("P.default"), &lf, 1);
  reg(p, marker_rule("P.cpu"), "cpu");
  reg(p, pd, NULL);
  reg(q, marker_rule("Q.tpu"), "tpu");
  reg(q, marker_rule("Q.cuda"), "cuda");
  assert_true(lctx_lowering_lower_eqn(&g.l.lowering, &g.l.backends, &g.l.ctx, p,
                                      &g.l.result));
  assert_true(g.l.result.mismatch[1]);
  const char *text = emit(false);
  assert_int_equal(count(text, "scf.index_switch"), 4);
  /* Judged against what JAX really runs: the known upstream defect. */
  check(true, false);
  assert_true(report.verified);
  assert_int_equal(report.count, 1);
  assert_string_equal(report.violations[0].row, "IR-006");
  assert_non_null(strstr(report.violations[0].message,
                         "platform tpu runs ['Q.cuda'] instead of "
                         "['Q.tpu']"));
  /* Without JAX's actual behaviour, the same module is a plain IR-005. */
  check(false, false);
  assert_int_equal(report.count, 1);
  assert_string_equal(report.violations[0].row, "IR-005");
}

static void test_raise_emits_nothing(void **state) {
  (void)state;
  setup((const char *const[]){"cpu", "tpu"}, 2);
  int p = lctx_lowering_primitive_add(&g.l.lowering, s("P"));
  reg(p, marker_rule("P.tpu"), "tpu");
  assert_false(lctx_lowering_lower_eqn(&g.l.lowering, &g.l.backends, &g.l.ctx,
                                       p, &g.l.result));
  MlirContext ctx = lctx_mlir_context_create();
  MlirModule m;
  lctx_buf e;
  lctx_buf_init(&e, g.error, sizeof g.error);
  assert_false(lctx_mlir_emit(ctx, &g.l.lowering, &g.l.result, false, &m, &e));
  assert_string_equal(g.error, "the lowering did not succeed: no module");
  mlirContextDestroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_single_platform_no_index_no_switch),
      cmocka_unit_test(test_two_platforms_index_and_two_switches),
      cmocka_unit_test(test_nested_defect_is_ir_006),
      cmocka_unit_test(test_raise_emits_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
