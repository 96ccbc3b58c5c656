/*
 * cmd_fuzz.c - `lctx fuzz` (see commands.h): its options, handed to
 * lctx_campaign_run (drive/campaign.h).
 */
#include "commands.h"

#include "campaign.h"
#include "exit.h"
#include "options.h"

#include <string.h>

#define FUZZ_USAGE                                                             \
  "usage: lctx fuzz --engine libfuzzer|afl --target NAME --time SECONDS "      \
  "[--jobs N]\n"                                                               \
  "                 [--corpus DIR] [--out DIR] [--binary PATH]\n"              \
  "targets: fuzz_model, fuzz_case_text, fuzz_spec, fuzz_differential, "        \
  "fuzz_lowering\n"                                                            \
  "exit status: 0 no finding; 1 findings (earlier runs' too), interrupted\n"   \
  "  (Ctrl-C, SIGTERM) or the engine ran no input; 2 bad usage, or the\n"      \
  "  summary or the state could not be written. The same command resumes\n"    \
  "  a campaign; OUT/state.json says how its last run ended.\n"

/* The double just below 1: --time takes 1 second or more. */
#define BELOW_ONE 0x1.fffffffffffffp-1

static bool parse_engine(const char *value, void *target, char *why,
                         size_t size) {
  if (strcmp(value, "libfuzzer") != 0 && strcmp(value, "afl") != 0) {
    snprintf(why, size, "'%s' is not libfuzzer or afl", value);
    return false;
  }
  *(const char **)target = value;
  return true;
}

int lctx_cmd_fuzz(int argc, char **argv, FILE *out, FILE *err) {
  lctx_campaign_options o;
  lctx_campaign_options_init(&o);
  const lctx_option options[] = {
      lctx_options_custom("engine", &o.engine, "ENGINE",
                          "libfuzzer or afl (required)", parse_engine),
      lctx_options_string("target", &o.target, "NAME",
                          "the fuzz target (required)"),
      lctx_options_seconds("time", &o.seconds, "SECONDS",
                           "seconds of fuzzing, 1 or more (required)",
                           BELOW_ONE, 86400 * 30,
                           "a number of seconds (1 or more)"),
      lctx_options_size("jobs", &o.jobs, "N",
                        "libFuzzer -fork jobs or AFL++ instances (default 1)",
                        1, LCTX_CAMPAIGN_MAX_JOBS,
                        "a whole number from 1 to 16"),
      lctx_options_string("corpus", &o.corpus, "DIR",
                          "a further corpus (AFL++: instead of the seeds)"),
      lctx_options_string("out", &o.out_dir, "DIR",
                          "campaign directory "
                          "(default lctx-fuzz/TARGET-ENGINE)"),
      lctx_options_string("binary", &o.binary, "PATH",
                          "the engine's build "
                          "(default: build/fuzz or build/afl)"),
  };
  int first;
  LCTX_OPTIONS_PARSE_OR_RETURN(
      &LCTX_OPTIONS_SPEC("fuzz", FUZZ_USAGE, options, false), argc, argv,
      &first, out, err);
  if (!o.engine || !o.target || o.seconds < 0) {
    fprintf(err, "lctx fuzz: --engine, --target and --time are required\n%s",
            FUZZ_USAGE);
    return LCTX_EXIT_USAGE;
  }
  return lctx_campaign_run(&o, out, err);
}
