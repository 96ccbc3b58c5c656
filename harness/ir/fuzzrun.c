/*
 * fuzzrun.c - runs any fuzz target in process (see fuzzrun.h): the ir
 * table of the checks that need MLIR, and the states of both families.
 */
#include "fuzzrun.h"

#include "fuzzlower.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A check that needs MLIR, by the name of its row in lctx_fuzz_targets[]. */
typedef struct ir_check {
  const char *name;
  bool (*check)(lctx_fuzz_lowering_state *state, const uint8_t *data,
                size_t size, lctx_fuzz_result *result);
} ir_check;

/* The rows of lctx_fuzz_targets[] with needs_mlir, resolved. */
static const ir_check k_ir_checks[] = {
    {"fuzz_lowering", lctx_fuzz_lowering},
};

struct lctx_fuzzrun {
  const char *plugin;
  lctx_fuzz_state *core;
  lctx_fuzz_lowering_state *lowering;
};

lctx_fuzzrun *lctx_fuzzrun_new(void) {
  return calloc(1, sizeof(lctx_fuzzrun));
}

void lctx_fuzzrun_set_plugin(lctx_fuzzrun *run, const char *path) {
  run->plugin = path;
}

void lctx_fuzzrun_free(lctx_fuzzrun *run) {
  if (!run)
    return;
  lctx_fuzz_state_free(run->core);
  lctx_fuzz_lowering_state_free(run->lowering);
  free(run);
}

/* The verdict when `target` cannot run: key `<target>/setup`. */
static bool setup_failed(const lctx_fuzz_target *target, const char *why,
                         lctx_fuzz_result *result) {
  result->failed = true;
  snprintf(result->key, sizeof result->key, "%s/setup", target->name);
  snprintf(result->report, sizeof result->report, "%s: %s", target->name, why);
  return true;
}

bool lctx_fuzzrun_check(lctx_fuzzrun *run, const lctx_fuzz_target *target,
                        const uint8_t *data, size_t size,
                        lctx_fuzz_result *result) {
  if (!target->needs_mlir) {
    if (!run->core) {
      run->core = lctx_fuzz_state_new();
      if (run->core)
        lctx_fuzz_state_set_plugin(run->core, run->plugin);
    }
    if (!run->core)
      return setup_failed(target, "out of memory", result);
    return target->check(run->core, data, size, result);
  }
  for (size_t i = 0; i < sizeof k_ir_checks / sizeof *k_ir_checks; i++) {
    if (strcmp(k_ir_checks[i].name, target->name) != 0)
      continue;
    if (!run->lowering)
      run->lowering = lctx_fuzz_lowering_state_new();
    if (!run->lowering)
      return setup_failed(target, "out of memory", result);
    return k_ir_checks[i].check(run->lowering, data, size, result);
  }
  return setup_failed(target, "no check in this build", result);
}

bool lctx_fuzzrun_once(const lctx_fuzz_target *target, const uint8_t *data,
                       size_t size, lctx_fuzz_result *result) {
  lctx_fuzzrun *run = lctx_fuzzrun_new();
  if (!run)
    return setup_failed(target, "out of memory", result);
  bool failed = lctx_fuzzrun_check(run, target, data, size, result);
  lctx_fuzzrun_free(run);
  return failed;
}
