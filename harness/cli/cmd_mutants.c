/*
 * cmd_mutants.c - `lctx mutants` (see commands.h): the option table of
 * lctx_mutants_run (commands/mutants.h), its defaults from the data paths
 * (data.h).
 */
#include "commands.h"

#include "data.h"
#include "escape.h"
#include "exit.h"
#include "mutants.h"
#include "numbers.h"
#include "options.h"

#include <stdlib.h>
#include <string.h>

static const char USAGE[] =
    "usage: lctx mutants [options]\n"
    "  runs lctx conform (and with --fuzz, fuzz_differential) against every\n"
    "  mutant of the example C plugin and prints the kill matrix\n"
    "exit: 0 every mutant killed as required, 1 a mutant lived (or conform\n"
    "took longer than the limit, or the fuzzer killed too few, or a control\n"
    "run failed), 2 bad usage or input\n";

/* A number option: from `min` to `max` (both included), or 0 when
 * `or_zero`; `noun` says what it must be. */
typedef struct bounded {
  double *value;
  double min, max;
  bool or_zero;
  const char *noun;
} bounded;

static bool parse_bounded(const char *v, void *target, char *why, size_t n) {
  const bounded *b = target;
  double d;
  if (!lctx_numbers_parse_decimal(v, &d) ||
      !((d >= b->min && d <= b->max) || (b->or_zero && d == 0))) {
    snprintf(why, n, "'%s' is not %s", v, b->noun);
    return false;
  }
  *b->value = d;
  return true;
}

static bool parse_start(const char *v, void *target, char *why, size_t n) {
  lctx_mutants_options *o = target;
  bool seeds = strcmp(v, "seeds") == 0, empty = strcmp(v, "empty") == 0,
       both = strcmp(v, "both") == 0;
  if (!seeds && !empty && !both) {
    snprintf(why, n, "'%s' is not seeds, empty or both", v);
    return false;
  }
  o->fuzz_from_seeds = seeds || both;
  o->fuzz_from_empty = empty || both;
  return true;
}

/* The defaults of the data paths `d`: the list, the seeds, the fuzz build
 * (into `fuzzer`), and the build tree's mutants and example plugin. False
 * after a message when a path does not fit. */
static bool data_defaults(lctx_mutants_options *o, const lctx_data_paths *d,
                          char *fuzzer, size_t cap, FILE *err) {
  o->list_path = d->mutants_list;
  o->seeds = d->seeds;
  if (d->mutants_dir[0])
    o->dir = d->mutants_dir;
  if (d->example_plugin[0])
    o->plugin = d->example_plugin;
  char seeds[LCTX_DATA_PATH_MAX];
  lctx_escaped b;
  if (!lctx_data_join(seeds, sizeof seeds, d->seeds, "fuzz_differential")) {
    fprintf(err, "lctx mutants: %s/fuzz_differential: path too long\n",
            lctx_esc(&b, d->seeds));
    return false;
  }
  if (lctx_data_fuzz_binary(d, "fuzz_differential", false, fuzzer, cap))
    o->fuzzer = fuzzer;
  return true;
}

int lctx_cmd_mutants(int argc, char **argv, FILE *out, FILE *err) {
  lctx_mutants_options o;
  lctx_mutants_options_init(&o);
  char fuzzer[LCTX_DATA_PATH_MAX];
  if (!data_defaults(&o, lctx_data(), fuzzer, sizeof fuzzer, err))
    return LCTX_EXIT_USAGE;
  bool no_control = false;
  bounded limit = {&o.limit, 0.001, 3600, false,
                   "a number of seconds (0.001 to 3600)"};
  bounded fuzz = {&o.fuzz_seconds, 1, 86400, true,
                  "a number of seconds (0 for no fuzzing, else 1 to 86400)"};
  bounded fuzz_min = {&o.fuzz_min, 0, 100, false, "a percentage (0 to 100)"};
  const lctx_option table[] = {
      lctx_options_string("list", &o.list_path, "FILE",
                          "the mutant list (default: the data folder's\n"
                          "conformance/mutants/MUTANTS)"),
      lctx_options_string("dir", &o.dir, "DIR",
                          "the mutant libraries NAME.so "
                          "(default: this build's)"),
      lctx_options_string("only", &o.only, "A,B", "only these mutants"),
      lctx_options_string("out", &o.out_dir, "DIR",
                          "reports: mutants.json, mutants.md, conform/, fuzz/\n"
                          "(default: build/mutants)"),
      lctx_options_custom("limit", &limit, "SECONDS",
                          "conform must kill each mutant within this "
                          "(default 1)",
                          parse_bounded),
      lctx_options_custom("fuzz", &fuzz, "SECONDS",
                          "also run fuzz_differential for at most SECONDS per\n"
                          "mutant and start (default 0: conform only)",
                          parse_bounded),
      lctx_options_custom("fuzz-start", &o, "FROM",
                          "the starting corpus: seeds, empty or both "
                          "(default both)",
                          parse_start),
      lctx_options_custom("fuzz-min", &fuzz_min, "PERCENT",
                          "the fuzzer must kill this share (default 90)",
                          parse_bounded),
      lctx_options_u64("fuzz-seed", &o.fuzz_seed, "N",
                       "libFuzzer's -seed (default 1)", 0, 4294967295.0,
                       "a seed"),
      lctx_options_string("fuzzer", &o.fuzzer, "PATH",
                          "the libFuzzer fuzz_differential binary (default:\n"
                          "as lctx fuzz finds it)"),
      lctx_options_string("plugin", &o.plugin, "LIB",
                          "the unmutated plugin for the control runs "
                          "(default:\n"
                          "this build's example plugin)"),
      lctx_options_flag("no-control", &no_control, "skip the control runs"),
  };
  const lctx_option_spec spec =
      LCTX_OPTIONS_SPEC("mutants", USAGE, table, false);
  int first, code = lctx_options_command(&spec, argc, argv, &first, out, err);
  o.control = !no_control;
  return code == LCTX_OPTIONS_GO_ON ? lctx_mutants_run(&o, out, err) : code;
}
