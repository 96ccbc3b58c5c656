/*
 * cmd_fuzz.c - `lctx fuzz` (see commands.h): its options, checked (no text
 * a terminal would not show as it is reaches the campaign, which echoes
 * them), with the fuzz build, seeds and dictionary of the data paths
 * (data.h), handed to lctx_campaign_run (commands/campaign.h).
 */
#include "commands.h"

#include "argcheck.h"
#include "campaign.h"
#include "data.h"
#include "exit.h"
#include "findings.h"
#include "options.h"
#include "escape.h"
#include "sys.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The usage, around the targets of fuzzcheck.h's table (fuzz_usage). */
#define FUZZ_USAGE_HEAD                                                        \
  "usage: lctx fuzz --engine libfuzzer|afl --target NAME --time SECONDS "      \
  "[--jobs N]\n"                                                               \
  "                 [--corpus DIR] [--out DIR] [--binary PATH]\n"              \
  "                 [--fast [--triage-binary PATH]] [--no-tmpfs]\n"            \
  "targets: "
#define FUZZ_USAGE_TAIL                                                        \
  "\nexit status: 0 no finding; 1 findings (earlier runs' too), interrupted\n" \
  "  (Ctrl-C, SIGTERM) or the engine ran no input; 2 bad usage, or the\n"      \
  "  summary or the state could not be written. The same command resumes\n"    \
  "  a campaign; OUT/state.json says how its last run ended.\n"                \
  "libFuzzer campaigns run with detect_stack_use_after_return=0 appended to\n" \
  "  ASAN_OPTIONS (unless yours sets it), and keep their working corpus on "   \
  "a\n"                                                                        \
  "  tmpfs (/dev/shm, else $XDG_RUNTIME_DIR) when there is room, synced to\n"  \
  "  OUT/corpus every 5 s and at the end (--no-tmpfs or "                      \
  "LCTX_FUZZ_NO_TMPFS=1:\n"                                                    \
  "  in OUT itself). --fast: the fuzz-fast preset's build (no sanitizers,\n"   \
  "  several times the inputs per second, as make bench measures;\n"           \
  "  $LCTX_FUZZ_FAST_BUILD/TARGET, else\n"                                     \
  "  build/fuzz-fast/fuzzers/TARGET) fuzzes, and every input it adds to the\n" \
  "  corpus or flags is replayed through the ASan+UBSan fuzz build\n"          \
  "  (--triage-binary, default the --binary default of a campaign without\n"   \
  "  --fast) before it is kept or reported: what that build flags is a\n"      \
  "  finding, with its report; a crash it does not reproduce is reported\n"    \
  "  as TARGET/not-reproduced/HASH.\n"

/* The usage, naming the targets of the table. */
static void fuzz_usage(char *out, size_t cap) {
  char names[256];
  lctx_findings_target_names(", ", names, sizeof names);
  snprintf(out, cap, "%s%s%s", FUZZ_USAGE_HEAD, names, FUZZ_USAGE_TAIL);
}

/* The double just below 1: --time takes 1 second or more. */
#define BELOW_ONE 0x1.fffffffffffffp-1

/* The fast build of --fast without --binary: $LCTX_FUZZ_FAST_BUILD/TARGET,
 * else the fuzz-fast folder beside a build/fuzz/fuzzers; false after a
 * message. */
static bool fast_build(lctx_campaign_options *o, char *out, size_t cap,
                       FILE *err) {
  const char *env = getenv("LCTX_FUZZ_FAST_BUILD");
  const char *fuzz = o->data->fuzz_build;
  const char *tail = "build/fuzz/fuzzers";
  size_t n = strlen(fuzz), t = strlen(tail);
  int w = -1;
  if (env && *env)
    w = snprintf(out, cap, "%s/%s", env, o->target);
  else if (n >= t && strcmp(fuzz + n - t, tail) == 0)
    w = snprintf(out, cap, "%.*sbuild/fuzz-fast/fuzzers/%s", (int)(n - t), fuzz,
                 o->target);
  lctx_escaped b;
  if (w < 0 || (size_t)w >= cap) {
    fprintf(err,
            "lctx fuzz: --fast: no fuzz-fast build of %s is known; set "
            "LCTX_FUZZ_FAST_BUILD to its folder or give --binary PATH\n",
            o->target);
    return false;
  }
  if (lctx_sys_is_file(out) && access(out, X_OK) == 0)
    return true;
  fprintf(err,
          "lctx fuzz: --fast: no fuzz-fast build of %s: %s is not an "
          "executable file; build it with `make build-fuzz` (or cmake "
          "--preset fuzz-fast && cmake --build --preset fuzz-fast --target "
          "%s), set LCTX_FUZZ_FAST_BUILD to the folder that holds it, or "
          "give --binary PATH\n",
          o->target, lctx_esc(&b, out), o->target);
  return false;
}

/* The fuzz build (unless --binary; with --fast, the fast build, and the
 * fuzz build as the triage build unless --triage-binary), the seeds and
 * the dictionary of the data paths: false after a message naming what is
 * missing and where it looked. */
static bool fuzz_inputs(lctx_campaign_options *o, bool fast, char *binary,
                        char *triage, size_t cap, FILE *err) {
  const char *texts[][2] = {{"--target", o->target},
                            {"--corpus", o->corpus},
                            {"--out", o->out_dir},
                            {"--binary", o->binary},
                            {"--triage-binary", o->triage}};
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
    if (!lctx_argcheck_plain("fuzz", texts[i][0], texts[i][1], err))
      return false;
  if (!lctx_argcheck_target("fuzz", o->target, err))
    return false;
  o->data = lctx_data();
  char seeds[LCTX_DATA_PATH_MAX], dict[LCTX_DATA_PATH_MAX];
  /* The fast build first: it is what --fast asks for. */
  if (fast && !o->binary) {
    if (!fast_build(o, binary, cap, err))
      return false;
    o->binary = binary;
  }
  if (fast && !o->triage) {
    if (!lctx_data_fuzz_build(o->data, "fuzz", o->target, o->engine,
                              "--triage-binary", triage, cap, err))
      return false;
    o->triage = triage;
  }
  if (!o->binary) {
    if (!lctx_data_fuzz_build(o->data, "fuzz", o->target, o->engine, "--binary",
                              binary, cap, err))
      return false;
    o->binary = binary;
  }
  return lctx_data_fuzz_inputs(o->data, "fuzz", o->target, seeds, dict,
                               sizeof seeds, err);
}

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
  bool fast = false;
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
                        "libFuzzer processes or AFL++ instances (default 1)", 1,
                        LCTX_CAMPAIGN_MAX_JOBS, "a whole number from 1 to 16"),
      lctx_options_string("corpus", &o.corpus, "DIR",
                          "a further corpus (AFL++: instead of the seeds, "
                          "unless empty)"),
      lctx_options_string("out", &o.out_dir, "DIR",
                          "campaign directory "
                          "(default lctx-fuzz/TARGET-ENGINE)"),
      lctx_options_string("binary", &o.binary, "PATH",
                          "the engine's build (default: $LCTX_FUZZ_BUILD/"
                          "TARGET[_afl],\nelse the source tree's build/fuzz "
                          "or build/afl,\nelse the installation's "
                          "libexec/lctx; --fast: the fuzz-fast build)"),
      lctx_options_flag("fast", &fast,
                        "libFuzzer: fuzz with the build without sanitizers "
                        "(fuzz-fast preset),\nreplaying every input it adds "
                        "or flags through the ASan+UBSan build"),
      lctx_options_string("triage-binary", &o.triage, "PATH",
                          "--fast: the ASan+UBSan build the triage replays "
                          "through\n(default: the fuzz build)"),
      lctx_options_flag("no-tmpfs", &o.no_tmpfs,
                        "keep libFuzzer's working corpus in --out, not on a "
                        "tmpfs"),
  };
  int first;
  char usage[2600];
  fuzz_usage(usage, sizeof usage);
  LCTX_OPTIONS_PARSE_OR_RETURN(
      &LCTX_OPTIONS_SPEC("fuzz", usage, options, false), argc, argv, &first,
      out, err);
  if (!o.engine || !o.target || o.seconds < 0) {
    fprintf(err, "lctx fuzz: --engine, --target and --time are required\n%s",
            usage);
    return LCTX_EXIT_USAGE;
  }
  if ((fast || o.triage) && strcmp(o.engine, "libfuzzer") != 0) {
    fprintf(err,
            "lctx fuzz: --fast and --triage-binary need --engine "
            "libfuzzer\n%s",
            usage);
    return LCTX_EXIT_USAGE;
  }
  if (o.triage && !fast) {
    fprintf(err, "lctx fuzz: --triage-binary needs --fast\n%s", usage);
    return LCTX_EXIT_USAGE;
  }
  char binary[LCTX_DATA_PATH_MAX], triage[LCTX_DATA_PATH_MAX];
  if (!fuzz_inputs(&o, fast, binary, triage, sizeof binary, err))
    return LCTX_EXIT_USAGE;
  return lctx_campaign_run(&o, out, err);
}
