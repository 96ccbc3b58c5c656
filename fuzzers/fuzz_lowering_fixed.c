/*
 * fuzz_lowering_fixed.c - the baseline of bench/bench_fuzz_lowering.sh: a
 * libFuzzer target built exactly like fuzz_lowering that ignores its input
 * and, per input, emits, parses and verifies ONE fixed two-platform module
 * (module platforms (cpu, tpu); P with a cpu rule and a default rule, each
 * a marker) through lctx_mlir_emit in a reused MLIR context, recreated every
 * LCTX_FUZZ_LOWERING_RECYCLE inputs like fuzz_lowering's. The exec/s ratio
 * fuzz_lowering / fuzz_lowering_fixed then measures the cost of varying the
 * scenario and of the IR checker against the bare cost of one small module.
 */
#include "fuzzlower.h"
#include "lctx/lctx.h"
#include "lctx/mlir_emit.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static lctx_registry_config g_config;
static lctx_registry g_backends;
static lctx_lowering_registry g_lowering;
static lctx_lowering_context g_ctx;
static lctx_lowering_result g_result;
static MlirContext g_mlir;
static size_t g_inputs;
static char g_error[4096];

static void shutdown_fixed(void) {
  if (g_mlir.ptr)
    mlirContextDestroy(g_mlir);
  g_mlir.ptr = NULL;
}

static void setup_fixed(void) {
  lctx_registry_config_init(&g_config);
  lctx_registry_config_add_factory(
      &g_config, (lctx_factory){"cpu", 0, false, LCTX_FACTORY_CLIENT, NULL});
  lctx_registry_config_add_factory(
      &g_config, (lctx_factory){"tpu", 300, true, LCTX_FACTORY_CLIENT, NULL});
  lctx_registry_init(&g_backends, &g_config);
  lctx_lowering_registry_init(&g_lowering, &g_config);
  lctx_lowering_context_init(&g_ctx);
  lctx_module_context_init(&g_ctx.module);
  lctx_module_context_add_platform(&g_ctx.module, lctx_str_from_cstr("cpu"));
  lctx_module_context_add_platform(&g_ctx.module, lctx_str_from_cstr("tpu"));
  g_ctx.dim_var_count = 1;
  int p = lctx_lowering_primitive_add(&g_lowering, lctx_str_from_cstr("P"));
  lctx_lowering_action marker = lctx_action_emit_marker();
  int cpu = lctx_lowering_rule_add(&g_lowering, lctx_str_from_cstr("P.cpu"),
                                   &marker, 1);
  int def = lctx_lowering_rule_add(&g_lowering, lctx_str_from_cstr("P.default"),
                                   &marker, 1);
  lctx_str cpu_name = lctx_str_from_cstr("cpu");
  lctx_outcome o;
  if (!lctx_lowering_register(&g_lowering, p, cpu, &cpu_name, &o) ||
      !lctx_lowering_register(&g_lowering, p, def, NULL, &o) ||
      !lctx_lowering_lower_eqn(&g_lowering, &g_backends, &g_ctx, p,
                               &g_result)) {
    fprintf(stderr, "fuzz_lowering_fixed: the fixed lowering failed\n");
    abort();
  }
  atexit(shutdown_fixed);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  (void)data;
  (void)size;
  if (g_inputs == 0)
    setup_fixed();
  if (g_mlir.ptr && g_inputs % LCTX_FUZZ_LOWERING_RECYCLE == 0) {
    mlirContextDestroy(g_mlir);
    g_mlir.ptr = NULL;
  }
  if (!g_mlir.ptr)
    g_mlir = lctx_mlir_context_create();
  g_inputs++;
  lctx_buf err;
  lctx_buf_init(&err, g_error, sizeof g_error);
  MlirModule module;
  if (!lctx_mlir_emit(g_mlir, &g_lowering, &g_result, false, &module, &err)) {
    fprintf(stderr, "fuzz_lowering_fixed: emit failed: %s\n", g_error);
    abort();
  }
  mlirModuleDestroy(module);
  return 0;
}
