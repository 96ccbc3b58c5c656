/*
 * commands.h - the subcommands of `lctx` that work on cases and the spec
 * table: check-spec, eval, explain, encode, decode, enumerate.
 *
 * Owns reading files named on the command line, printing results and
 * violations for people, and choosing exit codes (cli.h). Judging is done by
 * oracle.h; nothing here decides an outcome.
 */
#ifndef LCTX_HARNESS_COMMANDS_H
#define LCTX_HARNESS_COMMANDS_H

#include <stdio.h>

int lctx_cmd_check_spec(int argc, char **argv, FILE *out, FILE *err);
int lctx_cmd_eval(int argc, char **argv, FILE *out, FILE *err);
int lctx_cmd_explain(int argc, char **argv, FILE *out, FILE *err);
int lctx_cmd_encode(int argc, char **argv, FILE *out, FILE *err);
int lctx_cmd_decode(int argc, char **argv, FILE *out, FILE *err);
int lctx_cmd_enumerate(int argc, char **argv, FILE *out, FILE *err);

/// `lctx lint [--quiet] RULEFILE|DIR...`: lints each file (a directory means
/// its `*.rule` files, sorted by name). Exit 0 when every verdict equals its
/// file's `expect`, 1 otherwise, 2 for bad usage or a malformed file.
int lctx_cmd_lint(int argc, char **argv, FILE *out, FILE *err);

/// `lctx lint [--quiet] RULEFILE|DIR...`: lints each file (a directory means
/// its `*.rule` files, sorted by name). Exit 0 when every verdict equals its
/// file's `expect`, 1 otherwise, 2 for bad usage or a malformed file.
int lctx_cmd_lint(int argc, char **argv, FILE *out, FILE *err);

/// The spec table used when no --spec is given ($LCTX_SPEC, else the
/// source tree's).
const char *lctx_sys_default_spec_path(void);

/// The conformance case directory of the source tree ($LCTX_CASES, else the
/// source tree's).
const char *lctx_sys_default_cases_path(void);

#endif /* LCTX_HARNESS_COMMANDS_H */
