/*
 * cli.h - the `lctx` command line: the command table (commands.h), the
 * global help (`lctx help [COMMAND]`), the version and exit codes. Each
 * command parses its own options (options.h).
 *
 * Owns what a user types and what the process returns: 0 when all is good,
 * 1 when violations were found, 2 for bad usage or bad input (with a message
 * naming what is wrong). Commands report through return codes; nothing here
 * calls exit().
 */
#ifndef LCTX_HARNESS_CLI_H
#define LCTX_HARNESS_CLI_H

#include <stdio.h>

#include "examples.h"
#include "exit.h"

/// Runs the command line `argv[0..argc)`, writing results to `out` and
/// diagnostics to `err`. Returns the process exit code.
int lctx_cli_main(int argc, char **argv, FILE *out, FILE *err);

#endif /* LCTX_HARNESS_CLI_H */
