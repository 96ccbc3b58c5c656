/*
 * cmd_generate.c - `lctx generate` (see commands.h): the option table of a
 * campaign of generated programs (commands/sweep.h with
 * lctx_sweep_options.generate), and --print / --check of program texts
 * (core/gen/program.h).
 */
#include "commands.h"

#include "escape.h"
#include "exit.h"
#include "file.h"
#include "options.h"
#include "shared_rows.h"
#include "program.h"
#include "program_draw.h"
#include "program_text.h"
#include "sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char USAGE[] =
    "usage: lctx generate --cmd \"PROGRAM ARGS\" [--programs N] [--out DIR] "
    "[options]\n"
    "       lctx generate --print INDEX [--seed S]\n"
    "       lctx generate --check FILE...\n"
    "draws programs (conformance/sweep/PROGRAMS.md) from a seed, or from\n"
    "the bytes of the files of --from DIR (a fuzz corpus), has a JAX\n"
    "exporter (conformance/adapters/jax_export.py) build and export each\n"
    "for seeded platform lists, and judges the answers by the sweep rows\n"
    "(conformance/spec/jax-sweep.lspec), SW-009 comparing the rules JAX\n"
    "lowered with lctx's lowering model. A finding is kept once per key\n"
    "under OUT/findings/, its program minimized, with a standalone\n"
    "reproduction (repro.py). A run into the same folder resumes. Exit 0\n"
    "when all passed, 1 on a finding, crash, timeout, interrupt or nothing\n"
    "judged, 2 on bad input.\n";

/* --print: program INDEX of seed S. */
static int print_program(unsigned long long seed, size_t index, FILE *out,
                         FILE *err) {
  lctx_program_desc *p = malloc(sizeof *p);
  char *text = malloc(LCTX_PROG_TEXT_MAX);
  int code = LCTX_EXIT_OK;
  if (!p || !text) {
    fprintf(err, "lctx generate: out of memory\n");
    code = LCTX_EXIT_USAGE;
  } else {
    lctx_prog_source src;
    lctx_prog_source_seed(&src, seed, index);
    lctx_program_generate(&src, p);
    lctx_program_print(p, text, LCTX_PROG_TEXT_MAX);
    const char *body = strchr(text, '\n');
    body = body ? body + 1 : text;
    fprintf(out, "lctx-program 1\n# program %zu of seed %llu (%zu nodes)\n%s",
            index, seed, lctx_program_size(p), body);
    if (fflush(out) != 0 || ferror(out))
      code = LCTX_EXIT_USAGE;
  }
  free(p);
  free(text);
  return code;
}

/* --check: each file must be a program. */
static int check_files(char *const *paths, size_t n, FILE *out, FILE *err) {
  int code = LCTX_EXIT_OK;
  lctx_program_desc *p = malloc(sizeof *p);
  for (size_t i = 0; p && i < n; i++) {
    char *text = NULL, msg[512] = "", why[256];
    size_t len = 0;
    lctx_buf e;
    lctx_buf_init(&e, msg, sizeof msg);
    lctx_escaped b, c;
    if (!lctx_file_read(paths[i], 4 * LCTX_PROG_TEXT_MAX, &text, &len, &e)) {
      fprintf(err, "lctx generate: %s\n", lctx_esc(&b, msg));
      code = LCTX_EXIT_USAGE;
    } else if (!lctx_program_parse(text, len, p, why, sizeof why)) {
      fprintf(err, "%s:%s\n", lctx_esc(&b, paths[i]), lctx_esc(&c, why));
      code = LCTX_EXIT_USAGE;
    } else {
      fprintf(out, "%s: a program of %zu nodes\n", lctx_esc(&b, paths[i]),
              lctx_program_size(p));
    }
    free(text);
  }
  if (!p)
    code = LCTX_EXIT_USAGE;
  free(p);
  return code;
}

int lctx_cmd_generate(int argc, char **argv, FILE *out, FILE *err) {
  lctx_sweep_options o;
  if (!lctx_cmd_sweep_defaults(&o, err))
    return LCTX_EXIT_USAGE;
  o.out_dir = "lctx-generate";
  o.generate = 1000;
  bool no_minimize = false, check = false;
  size_t only_case = (size_t)-1, print = (size_t)-1;
  const lctx_option table[] = {
      lctx_options_string("cmd", &o.command, "\"PROGRAM ARGS\"",
                          "the exporter building generated programs\n"
                          "(its hello says \"generate\": 1)"),
      lctx_options_size("programs", &o.generate, "N",
                        "programs drawn from the seed (default 1000)", 1,
                        100000000, "a count from 1"),
      lctx_options_string("from", &o.gen_from, "DIR",
                          "draw one program from the bytes of each file of\n"
                          "DIR (a fuzz corpus) instead of from the seed"),
      lctx_row_seed(&o.seed,
                    "seed of the programs and platform lists (default 1)"),
      lctx_row_lists(&o.lists),
      lctx_row_sweep_spec(&o.spec_path),
      lctx_options_string("out", &o.out_dir, "DIR",
                          "the campaign's reports and findings (default:\n"
                          "lctx-generate); a run into the same folder resumes"),
      lctx_row_plan_case(&only_case),
      lctx_options_size("jobs", &o.jobs, "N",
                        "exporter processes at once (default: the online\n"
                        "cores)",
                        1, LCTX_SWEEP_MAX_JOBS, "a whole number from 1 to 64"),
      lctx_row_timeout(&o.timeout, "per export (default 60)"),
      lctx_row_time_limit(&o.time_limit),
      lctx_row_restart(&o.restart),
      lctx_row_known(&o.known_dir),
      lctx_row_no_minimize(&no_minimize),
      lctx_options_size("minimize-budget", &o.minimize_budget, "N",
                        "candidate programs tried per finding (default 120)", 1,
                        100000, "a count from 1"),
      lctx_options_size("print", &print, "INDEX",
                        "print program INDEX of the seed and exit", 0,
                        100000000, "a program index"),
      lctx_options_flag("check", &check,
                        "check program files (PROGRAMS.md) and exit"),
      lctx_options_flag("quiet", &o.quiet, "no live progress line"),
  };
  const lctx_option_spec ospec =
      LCTX_OPTIONS_SPEC("generate", USAGE, table, true);
  int first;
  LCTX_OPTIONS_PARSE_OR_RETURN(&ospec, argc, argv, &first, out, err);
  o.minimize = !no_minimize;
  o.only_case = only_case == (size_t)-1 ? -1 : (long)only_case;
  size_t n = (size_t)(argc - first);
  const char *problem =
      check && n == 0   ? "--check names the program files to check"
      : !check && n > 0 ? "program files are read only with --check"
      : print != (size_t)-1 && check ? "give --print or --check, not both"
      : print == (size_t)-1 && !check && !o.command
          ? "--cmd \"PROGRAM ARGS\" is required"
          : NULL;
  if (problem) {
    fprintf(err, "lctx generate: %s\n", problem);
    lctx_options_help(&ospec, err);
    return LCTX_EXIT_USAGE;
  }
  if (check)
    return check_files(argv + first, n, out, err);
  if (print != (size_t)-1)
    return print_program(o.seed, print, out, err);
  return lctx_sweep_run(&o, out, err);
}
