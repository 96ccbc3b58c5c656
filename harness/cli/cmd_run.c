/*
 * cmd_run.c - `lctx run` (see commands.h): the main job, in four steps,
 * each through the library call behind its command (no argv is built):
 * eval of the conformance cases, check-spec, conform of the example C
 * plugin, and a fuzz_model campaign; then one summary line per step, and
 * the HTML scoreboard of the conform run and the campaign
 * (build/report.html, report_html.h).
 */
#include "commands.h"

#include "campaign.h"
#include "conform.h"
#include "escape.h"
#include "exit.h"
#include "numbers.h"
#include "options.h"
#include "report_html.h"
#include "sys.h"

#include <math.h>
#include <stdlib.h>

#define RUN_USAGE "usage: lctx run [--fuzz-seconds N] [--campaign DIR]\n"

#ifndef LCTX_SOURCE_DIR
#define LCTX_SOURCE_DIR "."
#endif
#ifndef LCTX_EXAMPLE_PLUGIN
#define LCTX_EXAMPLE_PLUGIN "liblctx_example_plugin.so"
#endif

/* The results of the four steps. */
typedef struct run_steps {
  int eval, check, conform, fuzz;
} run_steps;

/* --fuzz-seconds: 0 to 86400 (0 skips the campaign). */
static bool parse_fuzz_seconds(const char *value, void *target, char *why,
                               size_t n) {
  double seconds;
  if (!lctx_numbers_parse_decimal(value, &seconds) || seconds > 86400) {
    snprintf(why, n, "'%s' is not a number of seconds (0 skips the campaign)",
             value);
    return false;
  }
  *(double *)target = seconds;
  return true;
}

static void print_summary(const run_steps *s, double seconds,
                          const char *reports, const char *campaign, int worst,
                          FILE *out) {
  fprintf(out,
          "\nlctx run: %s\n  conformance cases: %s\n  check-spec:        "
          "%s\n  example plugin:    %s (reports in %s)\n  fuzz campaign:     "
          "%s\n",
          worst == LCTX_EXIT_OK ? "all good" : "PROBLEMS FOUND",
          s->eval == LCTX_EXIT_OK ? "pass" : "FAIL",
          s->check == LCTX_EXIT_OK ? "pass" : "FAIL",
          s->conform == LCTX_EXIT_OK ? "conforms" : "FAIL", reports,
          seconds <= 0                      ? "skipped"
          : s->fuzz == LCTX_EXIT_OK         ? "no findings"
          : s->fuzz == LCTX_EXIT_VIOLATIONS ? "FINDINGS"
                                            : "could not run");
  lctx_escaped b;
  if (seconds > 0)
    fprintf(out,
            "  campaign directory: %s (summary.txt, findings/, corpus/, "
            "logs/)\n",
            lctx_esc(&b, campaign));
}

/* Runs the four steps, each through its library call; returns the worst
 * exit code. */
static int run_steps_all(double seconds, const char *campaign, FILE *out,
                         FILE *err) {
  const char *plugin = LCTX_EXAMPLE_PLUGIN;
  const char *reports = LCTX_SOURCE_DIR "/build/conform/example-plugin";
  const char *cases = lctx_sys_default_cases_path();
  run_steps s = {LCTX_EXIT_OK, LCTX_EXIT_OK, LCTX_EXIT_OK, LCTX_EXIT_OK};
  lctx_escaped b;
  fprintf(out, "== 1/4 conformance cases: lctx eval --cover %s\n", cases);
  s.eval = lctx_eval_run(lctx_sys_default_spec_path(), &cases, 1, true, true,
                         out, err);
  fprintf(out, "\n== 2/4 exhaustive self-check: lctx check-spec --quiet\n");
  s.check = lctx_check_spec_run(lctx_sys_default_spec_path(), true, out, err);
  fprintf(out,
          "\n== 3/4 conformance of the example C plugin: lctx conform "
          "--impl %s\n",
          plugin);
  fflush(out);
  lctx_conform_options conform;
  lctx_conform_options_init(&conform);
  conform.impl_path = plugin;
  conform.report_dir = reports;
  conform.quiet = true;
  s.conform = lctx_conform_run(&conform, NULL, out, err);
  if (seconds > 0) {
    fprintf(out,
            "\n== 4/4 fuzz campaign: lctx fuzz --engine libfuzzer --target "
            "fuzz_model --time %.0f --out %s\n",
            seconds, lctx_esc(&b, campaign));
    fflush(out);
    lctx_campaign_options fuzz;
    lctx_campaign_options_init(&fuzz);
    fuzz.engine = "libfuzzer";
    fuzz.target = "fuzz_model";
    fuzz.seconds = nearbyint(seconds); /* as the command line spells it */
    fuzz.out_dir = campaign;
    s.fuzz = lctx_campaign_run(&fuzz, out, err);
  }
  int worst = s.eval > s.check ? s.eval : s.check;
  worst = s.fuzz > worst ? s.fuzz : worst;
  worst = s.conform > worst ? s.conform : worst;
  print_summary(&s, seconds, reports, campaign, worst, out);
  const char *dirs[] = {reports, campaign};
  lctx_report_html_options html = {
      .out_path = LCTX_SOURCE_DIR "/build/report.html",
      .dirs = dirs,
      .dir_count = seconds > 0 ? 2 : 1,
  };
  fprintf(out, "  HTML scoreboard:   ");
  fflush(out);
  if (lctx_report_html(&html, out, err) != LCTX_EXIT_OK)
    worst = worst > LCTX_EXIT_VIOLATIONS ? worst : LCTX_EXIT_VIOLATIONS;
  return worst;
}

int lctx_cmd_run(int argc, char **argv, FILE *out, FILE *err) {
  double seconds = 30;
  const char *campaign = LCTX_SOURCE_DIR "/build/campaign/fuzz_model";
  const lctx_option options[] = {
      lctx_options_custom("fuzz-seconds", &seconds, "N",
                          "length of the fuzz campaign "
                          "(default 30; 0 skips it)",
                          parse_fuzz_seconds),
      lctx_options_string(
          "campaign", &campaign, "DIR",
          "the campaign directory (default: build/campaign/fuzz_model)"),
  };
  int first;
  LCTX_OPTIONS_PARSE_OR_RETURN(
      &LCTX_OPTIONS_SPEC("run", RUN_USAGE, options, false), argc, argv, &first,
      out, err);
  return run_steps_all(seconds, campaign, out, err);
}
