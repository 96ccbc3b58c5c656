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

/// A command: its argv, where results and diagnostics go; its exit code.
typedef int lctx_command_fn(int argc, char **argv, FILE *out, FILE *err);

/// One subcommand of a command with subcommands (lctx report, lctx export):
/// its name, its function, one line for the help.
typedef struct lctx_subcommand {
  const char *name;
  lctx_command_fn *run;
  const char *summary;
} lctx_subcommand;

/// Runs `lctx COMMAND SUBCOMMAND [ARGS]` (argv[0] is COMMAND) through the
/// table `subs[0..count)`; `help SUB`, `--help SUB` and `-h SUB` give SUB's
/// own help, as `SUB --help` does, and `help` alone the list with the
/// example of `command` (examples.h). Returns the subcommand's exit code, or
/// LCTX_EXIT_USAGE with a message on `err` for a missing or unknown one
/// (cli.c).
int lctx_cli_subcommands(const char *command, const lctx_subcommand *subs,
                         size_t count, int argc, char **argv, FILE *out,
                         FILE *err);

/// `lctx run [--fuzz-seconds N] [--campaign DIR]` (cmd_run.c): the main job,
/// eval of the conformance cases, check-spec, conform of the example plugin
/// and a fuzz campaign; the worst exit code of the four.
lctx_command_fn lctx_cmd_run;

/// `lctx check-spec [--spec FILE] [--jax RELEASE] [--jobs N] [--quiet]`
/// (cmd_check_spec.c): judges every case of the bounded domain against the
/// reference model, at every JAX release the table names and the modelled
/// commit (or at RELEASE alone), on N threads (default: the machine's
/// cores) with the output of one; exit 1 on a violation or a spec row no
/// case reaches.
lctx_command_fn lctx_cmd_check_spec;

/// `lctx eval [--spec FILE] [--cover] [--quiet] FILE|DIR...` (cmd_eval.c):
/// judges case files (a directory means its `*.case` files, sorted by
/// name: regular files only, at most LCTX_MAX_FOLDER_FILES), and the
/// reference's MLIR of each lowering; --cover also fails when a spec row has
/// no case. Exit 0 all good, 1 a violation, an unreached row (--cover) or
/// no operation judged at all ("nothing was judged": a folder without
/// cases, cases without operations), 2 an unreadable or malformed file.
lctx_command_fn lctx_cmd_eval;

/// `lctx explain [--spec FILE] FILE` (cmd_explain.c): the decision trace,
/// outcome and spec rows of each operation of a case, and its verdict.
lctx_command_fn lctx_cmd_explain;

/// `lctx encode FILE` (cmd_codec.c): writes the byte form of a case file.
lctx_command_fn lctx_cmd_encode;

/// `lctx decode BYTES` (cmd_codec.c): prints the case bytes decode to.
lctx_command_fn lctx_cmd_decode;

/// `lctx enumerate [--count] [--limit N]` (cmd_codec.c): prints the cases
/// of the bounded domain, or their number.
lctx_command_fn lctx_cmd_enumerate;

/// `lctx lint [--quiet] RULEFILE|DIR...` (cmd_lint.c): lints each file (a
/// directory means its `*.rule` files, sorted by name). Exit 0 when every
/// verdict equals its file's `expect`, 1 otherwise, 2 for bad usage or a
/// malformed file.
lctx_command_fn lctx_cmd_lint;

/// `lctx conform`: judges an implementation (a C plugin or a process) by
/// the spec table.
lctx_command_fn lctx_cmd_conform;

/// `lctx sweep` (cmd_sweep.c): real JAX's programs exported for seeded
/// platform lists and judged by the sweep rows; --judge and --replay of
/// recorded sweep cases (commands/sweep.h).
lctx_command_fn lctx_cmd_sweep;

/// `lctx generate` (cmd_generate.c): generated programs
/// (conformance/sweep/PROGRAMS.md) exported by real JAX and judged by the
/// sweep rows, as a campaign; --print and --check of program texts.
lctx_command_fn lctx_cmd_generate;

struct lctx_sweep_options;
/// The defaults of a sweep's options (sweep_options.h) with the sweep
/// table and the known defects found beside the spec table; false after a
/// message on `err`.
bool lctx_cmd_sweep_defaults(struct lctx_sweep_options *o, FILE *err);

/// `lctx mutants`: the kill matrix of conform and the differential fuzzer
/// against the plugin mutants.
lctx_command_fn lctx_cmd_mutants;

/// `lctx fuzz`: a libFuzzer or AFL++ campaign on a fuzz target.
lctx_command_fn lctx_cmd_fuzz;

/// `lctx replay`: runs fuzz inputs through a target's check.
lctx_command_fn lctx_cmd_replay;

/// `lctx corpus minimize|rows` (cmd_corpus.c): minimizes a fuzz corpus with
/// the engine's own pass, the folder replaced in one step; lists the spec
/// rows a corpus of cases hits.
lctx_command_fn lctx_cmd_corpus;

/// `lctx case export [--results FILE] [--seed S] [--out FILE] NAME`
/// (cmd_case.c): writes a case of a conform run (random:INDEX,
/// domain:INDEX, or any name of a results.jsonl) as a `.case` file with
/// the reference's outcomes as its expectations; exit 1 when the spec table
/// does not allow one, 2 for a case that cannot be found.
lctx_command_fn lctx_cmd_case;

/// `lctx promote`: keeps a finding as a regression input.
lctx_command_fn lctx_cmd_promote;

/// `lctx report SUBCOMMAND` (cmd_report.c): the report subcommands;
/// `lctx report merge --out DIR DIR...` merges the reports of sharded
/// conform runs (report/report_merge.h).
lctx_command_fn lctx_cmd_report;

struct lctx_report_html_options;
/// `lctx report html`'s work for the commands that write the page
/// (cmd_report.c, cmd_run.c): lctx_report_html with its warnings and
/// error printed on `err`; the exit code (LCTX_EXIT_OK, or LCTX_EXIT_USAGE
/// when no page was written).
int lctx_cli_report_html(const struct lctx_report_html_options *options,
                         FILE *out, FILE *err);

/// `lctx export spec|rules` (cmd_export.c): the spec table and the rule
/// corpus as JSON on stdout, read by lctx's own parsers (the shapes are
/// written in export_data.h); exit 2 for a file lctx refuses.
lctx_command_fn lctx_cmd_export;

/// The calls behind check-spec and eval, for a command that runs them with
/// options of its own (lctx run) instead of building an argv: the same
/// output and exit code as the commands given `--spec spec_path`, `--quiet`
/// and, for eval, `--cover` and the case files or folders `paths`.
int lctx_check_spec_run(const char *spec_path, bool quiet, FILE *out,
                        FILE *err);
int lctx_eval_run(const char *spec_path, const char *const *paths, size_t count,
                  bool cover, bool quiet, FILE *out, FILE *err);

#endif /* LCTX_CLI_COMMANDS_H */
