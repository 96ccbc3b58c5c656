/*
 * shared_rows.h - the option rows several commands share, each written
 * once: a seed, a per-item timeout, a shard, and the rows of the sweep
 * family (generate and sweep: the platform lists, the sweep table, a case
 * of the plan, and a resumable run's --time-limit, --restart, --known and
 * --no-minimize). Each returns one row of an options.h table; where the
 * meaning differs by command, the caller gives the help line.
 */
#ifndef LCTX_CLI_SHARED_ROWS_H
#define LCTX_CLI_SHARED_ROWS_H

#include "options.h"

/// --seed S: any 64-bit seed; `help` says of what and the default.
lctx_option lctx_row_seed(unsigned long long *target, const char *help);

/// --timeout SECONDS (at most an hour); `help` says per what and the
/// default.
lctx_option lctx_row_timeout(double *target, const char *help);

/// --shard I/N, parsed by the command's `parse` into `target`.
lctx_option lctx_row_shard(void *target, lctx_option_parse_fn parse);

/// --lists N: platform lists per program (1 to 64).
lctx_option lctx_row_lists(size_t *target);

/// --spec FILE: the sweep table.
lctx_option lctx_row_sweep_spec(const char **target);

/// --case INDEX: one case of the plan, as a rerun line names it.
lctx_option lctx_row_plan_case(size_t *target);

/// --time-limit SECONDS: stop cleanly after this long.
lctx_option lctx_row_time_limit(double *target);

/// --restart: drop an earlier run's results in --out.
lctx_option lctx_row_restart(bool *target);

/// --known DIR: recorded known defects.
lctx_option lctx_row_known(const char **target);

/// --no-minimize: keep findings as found.
lctx_option lctx_row_no_minimize(bool *target);

#endif
