/*
 * cli.c - the `lctx` command line (see cli.h): the command table, the
 * global help and version, and dispatch to the commands (commands.h),
 * after resolving where the data is (data.h).
 */
#include "cli.h"

#include "commands.h"
#include "data.h"
#include "escape.h"
#include "lctx/lctx.h"

#include <stdlib.h>
#include <string.h>

/* One command: its name as typed, its function, one line for the help
 * (a command with subcommands names each there, as `SUB: what`). */
typedef struct command {
  const char *name;
  lctx_command_fn *run;
  const char *summary;
} command;

static const command COMMANDS[] = {
    {"run", lctx_cmd_run,
     "the main job: conformance cases, check-spec, a fuzz campaign"},
    {"check-spec", lctx_cmd_check_spec,
     "enumerate the bounded domain; model and table agree?"},
    {"eval", lctx_cmd_eval,
     "evaluate .case files against the model and the spec"},
    {"explain", lctx_cmd_explain,
     "show the decision trace and spec rows of a case"},
    {"encode", lctx_cmd_encode, "write a .case file in the fuzzers' byte form"},
    {"decode", lctx_cmd_decode, "print the case a byte string decodes to"},
    {"enumerate", lctx_cmd_enumerate,
     "print (or --count) the cases of the bounded domain"},
    {"fuzz", lctx_cmd_fuzz, "run a libFuzzer or AFL++ campaign on a target"},
    {"replay", lctx_cmd_replay, "run fuzz inputs through a target's check"},
    {"corpus", lctx_cmd_corpus,
     "minimize: a fuzz corpus minimized; rows: the spec rows it hits"},
    {"promote", lctx_cmd_promote, "keep a finding as a regression input"},
    {"case", lctx_cmd_case, "export: a case of a conform run as a .case file"},
    {"conform", lctx_cmd_conform,
     "judge an implementation (C plugin or process) by the spec"},
    {"sweep", lctx_cmd_sweep,
     "export JAX's own programs for platform lists; judge the answers"},
    {"generate", lctx_cmd_generate,
     "generated programs exported by JAX for platform lists; judged"},
    {"lint", lctx_cmd_lint,
     "is a primitive's rule file safe in multi-platform lowering?"},
    {"mutants", lctx_cmd_mutants,
     "kill matrix: conform and fuzzers against plugin mutants"},
    {"report", lctx_cmd_report,
     "merge: the reports of sharded conform runs; html: one HTML page"},
    {"export", lctx_cmd_export,
     "spec, rules: the spec table, the rule corpus as JSON"},
};

static void print_help(FILE *out) {
  fprintf(out,
          "usage: lctx [--help] [--version] COMMAND [ARGS]\n"
          "       lctx help COMMAND [SUBCOMMAND]\n"
          "\n"
          "lctx checks implementations of JAX's backend selection for single-\n"
          "and multi-platform lowering against a reference model and a\n"
          "conformance spec table.\n"
          "\n"
          "commands:\n");
  for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
    fprintf(out, "  %-12s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
  fprintf(out, "\n"
               "exit codes: 0 all good, 1 violations found, 2 bad usage or "
               "bad input\n");
}

static void print_version(FILE *out) {
  fprintf(out, "lctx %s (reference model of jax-ml/jax@%s)\n",
          LCTX_VERSION_STRING, LCTX_JAX_COMMIT);
}

static const command *find_command(const char *name) {
  for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
    if (strcmp(name, COMMANDS[i].name) == 0)
      return &COMMANDS[i];
  return NULL;
}

static int unknown_command(const char *name, FILE *err) {
  lctx_escaped b;
  fprintf(err, "lctx: unknown command '%s' (try 'lctx --help')\n",
          lctx_esc(&b, name));
  return LCTX_EXIT_USAGE;
}

/* `lctx help [COMMAND [ARGS]]`: the global help, or the command's: what
 * `lctx COMMAND ARGS --help` prints (`lctx help report html` is `lctx
 * report html --help`). */
static int help(int argc, char **argv, FILE *out, FILE *err) {
  if (argc < 3) {
    print_help(out);
    return LCTX_EXIT_OK;
  }
  const command *c = find_command(argv[2]);
  if (!c)
    return unknown_command(argv[2], err);
  int n = argc - 2; /* COMMAND ARGS */
  char **help_argv = calloc((size_t)n + 2, sizeof *help_argv);
  if (!help_argv) {
    fprintf(err, "lctx: out of memory\n");
    return LCTX_EXIT_USAGE;
  }
  memcpy(help_argv, argv + 2, (size_t)n * sizeof *help_argv);
  help_argv[n] = "--help";
  int code = c->run(n + 1, help_argv, out, err);
  free(help_argv);
  return code;
}

int lctx_cli_main(int argc, char **argv, FILE *out, FILE *err) {
  if (argc < 2) {
    fprintf(err, "lctx: missing command (try 'lctx --help')\n");
    return LCTX_EXIT_USAGE;
  }
  const char *first = argv[1];
  if (strcmp(first, "help") == 0)
    return help(argc, argv, out, err);
  if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
    print_help(out);
    return LCTX_EXIT_OK;
  }
  if (strcmp(first, "--version") == 0 || strcmp(first, "version") == 0) {
    print_version(out);
    return LCTX_EXIT_OK;
  }
  if (first[0] == '-') {
    lctx_escaped b;
    fprintf(err, "lctx: unknown option '%s' (try 'lctx --help')\n",
            lctx_esc(&b, first));
    return LCTX_EXIT_USAGE;
  }
  const command *c = find_command(first);
  if (!c)
    return unknown_command(first, err);
  lctx_data_start(err);
  return c->run(argc - 1, argv + 1, out, err);
}

static void print_subcommands(const char *command, const lctx_subcommand *subs,
                              size_t count, FILE *f) {
  fprintf(f,
          "usage: lctx %s SUBCOMMAND [ARGS]\n"
          "       lctx %s SUBCOMMAND --help\n"
          "       lctx %s help SUBCOMMAND\n\n"
          "subcommands:\n",
          command, command, command);
  for (size_t i = 0; i < count; i++)
    fprintf(f, "  %-8s %s\n", subs[i].name, subs[i].summary);
  fprintf(f, "example:\n  %s\n", lctx_cli_example(command));
}

int lctx_cli_subcommands(const char *command, const lctx_subcommand *subs,
                         size_t count, int argc, char **argv, FILE *out,
                         FILE *err) {
  if (argc < 2) {
    fprintf(err, "lctx %s: missing subcommand\n", command);
    print_subcommands(command, subs, count, err);
    return LCTX_EXIT_USAGE;
  }
  /* `help SUB`, `--help SUB`: SUB's own help, as `SUB --help` gives it. */
  bool help = strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
              strcmp(argv[1], "help") == 0;
  if (help && argc < 3) {
    print_subcommands(command, subs, count, out);
    return LCTX_EXIT_OK;
  }
  const char *name = help ? argv[2] : argv[1];
  for (size_t i = 0; i < count; i++) {
    if (strcmp(name, subs[i].name) != 0)
      continue;
    char *help_argv[] = {argv[2], "--help", NULL};
    return help ? subs[i].run(2, help_argv, out, err)
                : subs[i].run(argc - 1, argv + 1, out, err);
  }
  lctx_escaped esc;
  fprintf(err, "lctx %s: unknown subcommand '%s'\n", command,
          lctx_esc(&esc, name));
  print_subcommands(command, subs, count, err);
  return LCTX_EXIT_USAGE;
}
