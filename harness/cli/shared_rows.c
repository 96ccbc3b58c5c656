/*
 * shared_rows.c - the option rows several commands share (see
 * shared_rows.h): their names, value names, limits and help.
 */
#include "shared_rows.h"

lctx_option lctx_row_seed(unsigned long long *target, const char *help) {
  return lctx_options_u64("seed", target, "S", help, 0, 18446744073709551615.0,
                          NULL);
}

lctx_option lctx_row_timeout(double *target, const char *help) {
  return lctx_options_seconds("timeout", target, "SECONDS", help, 0, 3600,
                              "a number of seconds");
}

lctx_option lctx_row_shard(void *target, lctx_option_parse_fn parse) {
  return lctx_options_custom("shard", target, "I/N",
                             "run the I-th of N shares (1 <= I <= N)", parse);
}

lctx_option lctx_row_lists(size_t *target) {
  return lctx_options_size("lists", target, "N",
                           "platform lists per program (default 1)", 1, 64,
                           "a count from 1 to 64");
}

lctx_option lctx_row_sweep_spec(const char **target) {
  return lctx_options_string(
      "spec", target, "FILE",
      "the sweep table (default: jax-sweep.lspec beside\n"
      "the spec table)");
}

lctx_option lctx_row_plan_case(size_t *target) {
  return lctx_options_size("case", target, "INDEX",
                           "run only this case of the plan (a rerun line)", 0,
                           100000000, "a case index");
}

lctx_option lctx_row_time_limit(double *target) {
  return lctx_options_seconds("time-limit", target, "SECONDS",
                              "stop cleanly after this long (default: none)", 0,
                              1e9, "a number of seconds");
}

lctx_option lctx_row_restart(bool *target) {
  return lctx_options_flag("restart", target,
                           "remove the results of an earlier run in --out and\n"
                           "start anew (a run into the same folder resumes\n"
                           "only when its plan and identity match)");
}

lctx_option lctx_row_known(const char **target) {
  return lctx_options_string("known", target, "DIR",
                             "recorded known defects, counted as xfail\n"
                             "(default: conformance/sweep/regressions)");
}

lctx_option lctx_row_no_minimize(bool *target) {
  return lctx_options_flag("no-minimize", target,
                           "keep findings as found, not minimized");
}
