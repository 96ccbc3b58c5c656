/*
 * data_paths.c - where lctx's data and fuzz builds are (see data_paths.h).
 */
#include "data_paths.h"

#include <stdio.h>

bool lctx_data_join(char *out, size_t cap, const char *dir, const char *name) {
  int n = dir[0] ? snprintf(out, cap, "%s/%s", dir, name)
                 : snprintf(out, cap, "%s", name);
  if (n < 0 || (size_t)n >= cap) {
    if (cap)
      out[0] = '\0';
    return false;
  }
  return true;
}

bool lctx_data_fuzz_binary(const lctx_data_paths *d, const char *target,
                           bool afl, char *out, size_t cap) {
  const char *dir = afl ? d->afl_build : d->fuzz_build;
  int n = snprintf(out, cap, "%s/%s%s", dir, target, afl ? "_afl" : "");
  if (!dir[0] || n < 0 || (size_t)n >= cap) {
    if (cap)
      out[0] = '\0';
    return false;
  }
  return true;
}

/* The paths before the command line resolves them: relative to the
 * working folder. */
static const lctx_data_paths RELATIVE = {
    .dir = ".",
    .spec = LCTX_DATA_SPEC,
    .cases = LCTX_DATA_CASES,
    .seeds = LCTX_DATA_SEEDS,
    .dicts = LCTX_DATA_DICTS,
    .regressions = LCTX_DATA_REGRESSIONS,
    .mutants_list = LCTX_DATA_MUTANTS,
    .work = "lctx-run",
};

static const lctx_data_paths *current = &RELATIVE;

void lctx_data_paths_use(const lctx_data_paths *d) {
  current = d ? d : &RELATIVE;
}

const lctx_data_paths *lctx_data_paths_current(void) {
  return current;
}
