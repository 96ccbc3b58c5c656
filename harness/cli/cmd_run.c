/*
 * cmd_run.c - `lctx run` (see commands.h): the main job, in four steps,
 * each through the library call behind its command (no argv is built):
 * eval of the conformance cases, check-spec, conform of the example C
 * plugin, and a fuzz_model campaign; then one summary line per step, and
 * the HTML scoreboard of the conform run and the campaign
 * (build/report.html, report_html.h). Where it reads and writes is the data
 * paths' (data.h): the build tree's example plugin and its source tree's
 * build/ folder; an installed lctx, which has no example plugin, writes
 * into lctx-run/.
 */
#include "commands.h"

#include "campaign.h"
#include "conform.h"
#include "data.h"
#include "escape.h"
#include "exit.h"
#include "numbers.h"
#include "options.h"
#include "report_html.h"

#include <math.h>
#include <stdlib.h>

#define RUN_USAGE "usage: lctx run [--fuzz-seconds N] [--campaign DIR]\n"

/* The results of the four steps. */
typedef struct run_steps {
  int eval, check, conform, fuzz;
} run_steps;

/* Where the steps write, under the data paths' work folder. */
typedef struct run_paths {
  char reports[LCTX_DATA_PATH_MAX], html[LCTX_DATA_PATH_MAX];
  char campaign[LCTX_DATA_PATH_MAX];
} run_paths;

/* The paths of `run` under WORK; false after a message when one does not
 * fit. */
static bool run_paths_of(run_paths *p, const char *work, FILE *err) {
  if (lctx_data_join(p->reports, sizeof p->reports, work,
                     "conform/example-plugin") &&
      lctx_data_join(p->html, sizeof p->html, work, "report.html") &&
      lctx_data_join(p->campaign, sizeof p->campaign, work,
                     "campaign/fuzz_model"))
    return true;
  lctx_escaped b;
  fprintf(err, "lctx run: %s: path too long for the reports\n",
          lctx_esc(&b, work));
  return false;
}

/* Step 3: conform of the example plugin of the build tree. */
static int run_conform(const lctx_data_paths *d, const char *reports, FILE *out,
                       FILE *err) {
  lctx_escaped b;
  fprintf(out,
          "\n== 3/4 conformance of the example C plugin: lctx conform "
          "--impl %s\n",
          d->example_plugin[0] ? lctx_esc(&b, d->example_plugin) : "(none)");
  fflush(out);
  if (!d->example_plugin[0]) {
    fprintf(err, "lctx run: no example plugin: it is built in a build tree "
                 "only, and this lctx is not the lctx of a build tree\n");
    return LCTX_EXIT_USAGE;
  }
  lctx_conform_options conform;
  lctx_conform_options_init(&conform);
  conform.spec_path = d->spec;
  conform.cases_dir = d->cases;
  conform.impl_path = d->example_plugin;
  conform.report_dir = reports;
  conform.quiet = true;
  return lctx_conform_run(&conform, NULL, out, err);
}

/* Step 4: a fuzz_model campaign of `seconds` into `campaign`. */
static int run_fuzz(const lctx_data_paths *d, double seconds,
                    const char *campaign, FILE *out, FILE *err) {
  lctx_escaped b;
  fprintf(out,
          "\n== 4/4 fuzz campaign: lctx fuzz --engine libfuzzer --target "
          "fuzz_model --time %.0f --out %s\n",
          seconds, lctx_esc(&b, campaign));
  fflush(out);
  lctx_campaign_options fuzz;
  lctx_campaign_options_init(&fuzz);
  char binary[LCTX_DATA_PATH_MAX], seeds[LCTX_DATA_PATH_MAX],
      dict[LCTX_DATA_PATH_MAX];
  if (!lctx_data_fuzz_build(d, "run", "fuzz_model", "libfuzzer", NULL, binary,
                            sizeof binary, err) ||
      !lctx_data_fuzz_inputs(d, "run", "fuzz_model", seeds, dict, sizeof seeds,
                             err))
    return LCTX_EXIT_USAGE;
  fuzz.engine = "libfuzzer";
  fuzz.target = "fuzz_model";
  fuzz.seconds = nearbyint(seconds); /* as the command line spells it */
  fuzz.out_dir = campaign;
  fuzz.binary = binary;
  fuzz.data = d;
  return lctx_campaign_run(&fuzz, out, err);
}

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
  lctx_escaped b;
  fprintf(out,
          "\nlctx run: %s\n  conformance cases: %s\n  check-spec:        "
          "%s\n  example plugin:    %s (reports in %s)\n  fuzz campaign:     "
          "%s\n",
          worst == LCTX_EXIT_OK ? "all good" : "PROBLEMS FOUND",
          s->eval == LCTX_EXIT_OK ? "pass" : "FAIL",
          s->check == LCTX_EXIT_OK ? "pass" : "FAIL",
          s->conform == LCTX_EXIT_OK ? "conforms" : "FAIL",
          lctx_esc(&b, reports),
          seconds <= 0                      ? "skipped"
          : s->fuzz == LCTX_EXIT_OK         ? "no findings"
          : s->fuzz == LCTX_EXIT_VIOLATIONS ? "FINDINGS"
                                            : "could not run");
  if (seconds > 0)
    fprintf(out,
            "  campaign directory: %s (summary.txt, findings/, corpus/, "
            "logs/)\n",
            lctx_esc(&b, campaign));
}

/* Runs the four steps, each through its library call; returns the worst
 * exit code. */
static int run_steps_all(const lctx_data_paths *d, const run_paths *p,
                         double seconds, const char *campaign, FILE *out,
                         FILE *err) {
  const char *cases = d->cases;
  run_steps s = {LCTX_EXIT_OK, LCTX_EXIT_OK, LCTX_EXIT_OK, LCTX_EXIT_OK};
  lctx_escaped b;
  fprintf(out, "== 1/4 conformance cases: lctx eval --cover %s\n",
          lctx_esc(&b, cases));
  s.eval = lctx_eval_run(d->spec, &cases, 1, true, true, out, err);
  fprintf(out, "\n== 2/4 exhaustive self-check: lctx check-spec --quiet\n");
  s.check = lctx_check_spec_run(d->spec, true, out, err);
  s.conform = run_conform(d, p->reports, out, err);
  if (seconds > 0)
    s.fuzz = run_fuzz(d, seconds, campaign, out, err);
  int worst = s.eval > s.check ? s.eval : s.check;
  worst = s.fuzz > worst ? s.fuzz : worst;
  worst = s.conform > worst ? s.conform : worst;
  print_summary(&s, seconds, p->reports, campaign, worst, out);
  const char *dirs[] = {p->reports, campaign};
  lctx_report_html_options html = {
      .out_path = p->html,
      .dirs = dirs,
      .dir_count = seconds > 0 ? 2 : 1,
  };
  fprintf(out, "  HTML scoreboard:   ");
  fflush(out);
  if (lctx_cli_report_html(&html, out, err) != LCTX_EXIT_OK)
    worst = worst > LCTX_EXIT_VIOLATIONS ? worst : LCTX_EXIT_VIOLATIONS;
  return worst;
}

int lctx_cmd_run(int argc, char **argv, FILE *out, FILE *err) {
  double seconds = 30;
  const lctx_data_paths *d = lctx_data();
  run_paths *p = calloc(1, sizeof *p);
  if (!p || !run_paths_of(p, d->work, err)) {
    if (!p)
      fprintf(err, "lctx run: out of memory\n");
    free(p);
    return LCTX_EXIT_USAGE;
  }
  const char *campaign = p->campaign;
  const lctx_option options[] = {
      lctx_options_custom("fuzz-seconds", &seconds, "N",
                          "length of the fuzz campaign "
                          "(default 30; 0 skips it)",
                          parse_fuzz_seconds),
      lctx_options_string(
          "campaign", &campaign, "DIR",
          "the campaign directory (default: build/campaign/fuzz_model\n"
          "of the source tree; an installed lctx: lctx-run/...)"),
  };
  int first, code = lctx_options_command(
                 &LCTX_OPTIONS_SPEC("run", RUN_USAGE, options, false), argc,
                 argv, &first, out, err);
  if (code == LCTX_OPTIONS_GO_ON)
    code = run_steps_all(d, p, seconds, campaign, out, err);
  free(p);
  return code;
}
