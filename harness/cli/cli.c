/*
 * cli.c - the `lctx` command line (see cli.h).
 */
#include "cli.h"
#include "sys.h"

#include "lctx/lctx.h"
#include "cmd_campaign.h"
#include "cmd_conform.h"
#include "commands.h"
#include "lint.h"

#ifndef LCTX_SOURCE_DIR
#define LCTX_SOURCE_DIR "."
#endif
#ifndef LCTX_EXAMPLE_PLUGIN
#define LCTX_EXAMPLE_PLUGIN "liblctx_example_plugin.so"
#endif

#include <stdlib.h>
#include <string.h>

typedef int (*command_fn)(int argc, char **argv, FILE *out, FILE *err);

typedef struct command {
  const char *name;
  const char *summary;
  command_fn run;
} command;

static int cmd_run(int argc, char **argv, FILE *out, FILE *err);

static const command COMMANDS[] = {
    {"run", "the main job: conformance cases, check-spec, a fuzz campaign",
     cmd_run},
    {"check-spec", "enumerate the bounded domain; model and table agree?",
     lctx_cmd_check_spec},
    {"eval", "evaluate .case files against the model and the spec",
     lctx_cmd_eval},
    {"explain", "show the decision trace and spec rows of a case",
     lctx_cmd_explain},
    {"encode", "write a .case file in the fuzzers' byte form", lctx_cmd_encode},
    {"decode", "print the case a byte string decodes to", lctx_cmd_decode},
    {"enumerate", "print (or --count) the cases of the bounded domain",
     lctx_cmd_enumerate},
    {"fuzz", "run a libFuzzer or AFL++ campaign on a target", lctx_cmd_fuzz},
    {"replay", "run fuzz inputs through a target's check", lctx_cmd_replay},
    {"promote", "keep a finding as a regression input", lctx_cmd_promote},
    {"conform", "judge an implementation (C plugin or process) by the spec",
     lctx_cmd_conform},
    {"lint", "is a primitive's rule file safe in multi-platform lowering?",
     lctx_cmd_lint},
    {"mutants", "kill matrix: conform and fuzzers against plugin mutants",
     lctx_cmd_mutants},
};

static void print_help(FILE *out) {
  fprintf(out,
          "usage: lctx [--help] [--version] COMMAND [ARGS]\n"
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

static int cmd_run(int argc, char **argv, FILE *out, FILE *err) {
  double seconds = 30;
  const char *campaign = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--fuzz-seconds") == 0 && i + 1 < argc) {
      char *end;
      seconds = strtod(argv[++i], &end);
      if (*end != '\0' || seconds < 0 || seconds > 86400) {
        fprintf(err,
                "lctx run: --fuzz-seconds: '%s' is not a number of "
                "seconds (0 skips the campaign)\n",
                argv[i]);
        return LCTX_EXIT_USAGE;
      }
    } else if (strcmp(argv[i], "--campaign") == 0 && i + 1 < argc) {
      campaign = argv[++i];
    } else {
      fprintf(err,
              "lctx run: unexpected argument '%s' (usage: lctx run "
              "[--fuzz-seconds N] [--campaign DIR])\n",
              argv[i]);
      return LCTX_EXIT_USAGE;
    }
  }
  char cases[4096], out_dir[4096], seconds_text[32];
  snprintf(cases, sizeof cases, "%s", lctx_sys_default_cases_path());
  snprintf(out_dir, sizeof out_dir, "%s",
           campaign ? campaign : LCTX_SOURCE_DIR "/build/campaign/fuzz_model");
  snprintf(seconds_text, sizeof seconds_text, "%.0f", seconds);
  fprintf(out, "== 1/4 conformance cases: lctx eval --cover %s\n", cases);
  char *eval_argv[] = {"eval", "--cover", "--quiet", cases, NULL};
  int eval = lctx_cmd_eval(4, eval_argv, out, err);
  fprintf(out, "\n== 2/4 exhaustive self-check: lctx check-spec --quiet\n");
  char *check_argv[] = {"check-spec", "--quiet", NULL};
  int check = lctx_cmd_check_spec(2, check_argv, out, err);
  char plugin[4096], reports[4096];
  snprintf(plugin, sizeof plugin, "%s", LCTX_EXAMPLE_PLUGIN);
  snprintf(reports, sizeof reports, "%s",
           LCTX_SOURCE_DIR "/build/conform/example-plugin");
  fprintf(out,
          "\n== 3/4 conformance of the example C plugin: lctx conform "
          "--impl %s\n",
          plugin);
  fflush(out);
  char *conform_argv[] = {"conform", "--impl",  plugin, "--report-dir",
                          reports,   "--quiet", NULL};
  int conform = lctx_cmd_conform(6, conform_argv, out, err);
  int fuzz = LCTX_EXIT_OK;
  if (seconds > 0) {
    fprintf(out,
            "\n== 4/4 fuzz campaign: lctx fuzz --engine libfuzzer --target "
            "fuzz_model --time %s --out %s\n",
            seconds_text, out_dir);
    fflush(out);
    char *fuzz_argv[] = {"fuzz",       "--engine", "libfuzzer",  "--target",
                         "fuzz_model", "--time",   seconds_text, "--out",
                         out_dir,      NULL};
    fuzz = lctx_cmd_fuzz(9, fuzz_argv, out, err);
  }
  int worst = eval > check ? eval : check;
  worst = fuzz > worst ? fuzz : worst;
  worst = conform > worst ? conform : worst;
  fprintf(out,
          "\nlctx run: %s\n  conformance cases: %s\n  check-spec:        "
          "%s\n  example plugin:    %s (reports in %s)\n  fuzz campaign:     "
          "%s\n",
          worst == LCTX_EXIT_OK ? "all good" : "PROBLEMS FOUND",
          eval == LCTX_EXIT_OK ? "pass" : "FAIL",
          check == LCTX_EXIT_OK ? "pass" : "FAIL",
          conform == LCTX_EXIT_OK ? "conforms" : "FAIL", reports,
          seconds <= 0                   ? "skipped"
          : fuzz == LCTX_EXIT_OK         ? "no findings"
          : fuzz == LCTX_EXIT_VIOLATIONS ? "FINDINGS"
                                         : "could not run");
  if (seconds > 0)
    fprintf(out,
            "  campaign directory: %s (summary.txt, findings/, corpus/, "
            "logs/)\n",
            out_dir);
  return worst;
}

int lctx_cli_main(int argc, char **argv, FILE *out, FILE *err) {
  if (argc < 2) {
    fprintf(err, "lctx: missing command (try 'lctx --help')\n");
    return LCTX_EXIT_USAGE;
  }
  const char *first = argv[1];
  if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0 ||
      strcmp(first, "help") == 0) {
    print_help(out);
    return LCTX_EXIT_OK;
  }
  if (strcmp(first, "--version") == 0 || strcmp(first, "version") == 0) {
    print_version(out);
    return LCTX_EXIT_OK;
  }
  if (first[0] == '-') {
    fprintf(err, "lctx: unknown option '%s' (try 'lctx --help')\n", first);
    return LCTX_EXIT_USAGE;
  }
  for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++) {
    if (strcmp(first, COMMANDS[i].name) == 0)
      return COMMANDS[i].run(argc - 1, argv + 1, out, err);
  }
  fprintf(err, "lctx: unknown command '%s' (try 'lctx --help')\n", first);
  return LCTX_EXIT_USAGE;
}
