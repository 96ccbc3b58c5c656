/*
 * commands.h - the commands of `lctx`, one function each, as cli.c's
 * command table calls them.
 *
 * Each takes the command's argv (argv[0] is the command's name), writes
 * results to `out` and diagnostics to `err`, declares its options with
 * options.h (so `-h`/`--help`, `--opt=value` and `--` work), and returns an
 * exit code (exit.h): 0 all good, 1 violations found, 2 bad usage or bad
 * input. Each lives in its own cmd_*.c.
 */
#ifndef LCTX_CLI_COMMANDS_H
#define LCTX_CLI_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/// `lctx run [--fuzz-seconds N] [--campaign DIR]` (cmd_run.c): the main job,
/// eval of the conformance cases, check-spec, conform of the example plugin
/// and a fuzz campaign; the worst exit code of the four.
int lctx_cmd_run(int argc, char **argv, FILE *out, FILE *err);

/// `lctx check-spec [--spec FILE] [--quiet]` (cmd_check_spec.c): judges
/// every case of the bounded domain; exit 1 on a violation or a spec row no
/// case reaches.
int lctx_cmd_check_spec(int argc, char **argv, FILE *out, FILE *err);

/// `lctx eval [--spec FILE] [--cover] [--quiet] FILE|DIR...` (cmd_eval.c):
/// judges case files (a directory means its `*.case` files, sorted by
/// name), and the reference's MLIR of each lowering; --cover also fails
/// when a spec row has no case.
int lctx_cmd_eval(int argc, char **argv, FILE *out, FILE *err);

/// `lctx explain [--spec FILE] FILE` (cmd_explain.c): the decision trace,
/// outcome and spec rows of each operation of a case, and its verdict.
int lctx_cmd_explain(int argc, char **argv, FILE *out, FILE *err);

/// `lctx encode FILE` (cmd_codec.c): writes the byte form of a case file.
int lctx_cmd_encode(int argc, char **argv, FILE *out, FILE *err);

/// `lctx decode BYTES` (cmd_codec.c): prints the case bytes decode to.
int lctx_cmd_decode(int argc, char **argv, FILE *out, FILE *err);

/// `lctx enumerate [--count] [--limit N]` (cmd_codec.c): prints the cases
/// of the bounded domain, or their number.
int lctx_cmd_enumerate(int argc, char **argv, FILE *out, FILE *err);

/// `lctx lint [--quiet] RULEFILE|DIR...` (cmd_lint.c): lints each file (a
/// directory means its `*.rule` files, sorted by name). Exit 0 when every
/// verdict equals its file's `expect`, 1 otherwise, 2 for bad usage or a
/// malformed file.
int lctx_cmd_lint(int argc, char **argv, FILE *out, FILE *err);

/// `lctx conform`: judges an implementation (a C plugin or a process) by
/// the spec table.
int lctx_cmd_conform(int argc, char **argv, FILE *out, FILE *err);

/// `lctx mutants`: the kill matrix of conform and the differential fuzzer
/// against the plugin mutants.
int lctx_cmd_mutants(int argc, char **argv, FILE *out, FILE *err);

/// `lctx fuzz`: a libFuzzer or AFL++ campaign on a fuzz target.
int lctx_cmd_fuzz(int argc, char **argv, FILE *out, FILE *err);

/// `lctx replay`: runs fuzz inputs through a target's check.
int lctx_cmd_replay(int argc, char **argv, FILE *out, FILE *err);

/// `lctx promote`: keeps a finding as a regression input.
int lctx_cmd_promote(int argc, char **argv, FILE *out, FILE *err);

/// The calls behind check-spec and eval, for a command that runs them with
/// options of its own (lctx run) instead of building an argv: the same
/// output and exit code as the commands given `--spec spec_path`, `--quiet`
/// and, for eval, `--cover` and the case files or folders `paths`.
int lctx_check_spec_run(const char *spec_path, bool quiet, FILE *out,
                        FILE *err);
int lctx_eval_run(const char *spec_path, const char *const *paths, size_t count,
                  bool cover, bool quiet, FILE *out, FILE *err);

#endif /* LCTX_CLI_COMMANDS_H */
