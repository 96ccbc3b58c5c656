/*
 * cmd_sweep.c - `lctx sweep` (see commands.h): the option table of
 * lctx_sweep_run, lctx_sweep_judge_files and lctx_sweep_replay
 * (commands/sweep.h), and where the sweep table and the known defects are
 * found by default (beside the spec table).
 */
#include "commands.h"

#include "data.h"
#include "escape.h"
#include "exit.h"
#include "numbers.h"
#include "options.h"
#include "rerun_cmd.h"
#include "shared_rows.h"
#include "sweep.h"
#include "sys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char USAGE[] =
    "usage: lctx sweep --cmd \"PROGRAM ARGS\" [--out DIR] [options]\n"
    "       lctx sweep --programs SPEC|--package PKG [--python PATH] "
    "[options]\n"
    "       lctx sweep --cmd \"PROGRAM ARGS\" --replay FILE|DIR...\n"
    "       lctx sweep --judge FILE|DIR...\n"
    "exports the programs of a catalogue (real JAX: conformance/adapters/\n"
    "jax_export.py) for seeded platform lists through the process\n"
    "protocol's export operation and judges the answers by the sweep rows\n"
    "(conformance/spec/jax-sweep.lspec). --programs and --package sweep a\n"
    "user's catalogue (conformance/sweep/USER.md) or a package's\n"
    "primitives through jax_export.py, and print a diagnosis of each\n"
    "mistake found in them. --replay exports recorded cases\n"
    "again (a known defect must still show); --judge judges recorded\n"
    "answers offline. --jobs N runs N exporters at once (default: the\n"
    "online cores). Exit 0 when all passed, 1 on a finding, crash,\n"
    "timeout, interrupt or nothing judged, 2 on bad input.\n"
    /* The full catalogue's time, written by tools/sweep_figures.py --write
     * from docs/sweep-figures.json (make sweep-record): not by hand. */
    /* lctx-sweep-figures:begin */
    "time: the full catalogue (5708 cases, JAX 0.10.2) took 7 minutes\n"
    "at --jobs 2 on 2 cores under a load average of 1.4 at its start\n"
    "and 3.1 at its end (measured 2026-12-07 by make sweep-record,\n"
    "docs/sweep-figures.json).\n"
    /* lctx-sweep-figures:end */;

static bool parse_shard(const char *v, void *target, char *why, size_t n) {
  lctx_sweep_options *o = target;
  return lctx_numbers_parse_shard(v, &o->shard_i, &o->shard_n, why, n);
}

static bool parse_subset(const char *v, void *target, char *why, size_t n) {
  if (strcmp(v, "all") != 0 && strcmp(v, "ci") != 0) {
    snprintf(why, n, "'%s' is not all or ci", v);
    return false;
  }
  *(const char **)target = v;
  return true;
}

/* PATH with its last component replaced by NAME, `up` folders higher;
 * false after a message when it does not fit. */
static bool beside(const char *path, int up, const char *name, char *dst,
                   size_t n, FILE *err) {
  if (snprintf(dst, n, "%s", path) >= (int)n) {
    lctx_escaped b;
    fprintf(err, "lctx sweep: %s: path too long\n", lctx_esc(&b, path));
    return false;
  }
  for (int i = 0; i <= up; i++) {
    char *slash = strrchr(dst, '/');
    if (slash)
      *slash = '\0';
    else
      snprintf(dst, n, ".");
  }
  size_t at = strlen(dst);
  if (snprintf(dst + at, n - at, "/%s", name) < (int)(n - at))
    return true;
  lctx_escaped b;
  fprintf(err, "lctx sweep: %s: path too long for %s beside it\n",
          lctx_esc(&b, path), name);
  return false;
}

/* What --programs and --package ask for: the exporter's command, built. */
typedef struct user_sweep {
  const char *programs, *packages, *python, *platforms;
  char command[16384];
} user_sweep;

/* Appends `--NAME ITEM` for each item of the comma-separated `list`. */
static bool add_items(char *dst, size_t n, const char *name, const char *list) {
  for (const char *p = list; p && *p;) {
    size_t len = strcspn(p, ",");
    char item[4096];
    snprintf(item, sizeof item, "%.*s", (int)len, p);
    if (!lctx_rerun_shell_word(dst, n, name) ||
        !lctx_rerun_shell_word(dst, n, item))
      return false;
    p += len + (p[len] == ',');
  }
  return true;
}

/* The exporter's command of --programs and --package: the Python of
 * --python, else $LCTX_PYTHON, else the pinned JAX venv of the data
 * folder (build/jax/venv-0.10.2, as `make jax` makes it), running the
 * data folder's conformance/adapters/jax_export.py with --lctx this lctx;
 * false after a message. */
static bool user_command(user_sweep *u, FILE *err) {
  const char *dir = lctx_data()->dir;
  char python[LCTX_DATA_PATH_MAX + 64], adapter[LCTX_DATA_PATH_MAX + 64];
  char self[4096];
  const char *env = getenv("LCTX_PYTHON");
  const char *from = u->python ? "--python" : "$LCTX_PYTHON";
  snprintf(python, sizeof python, "%s", u->python ? u->python : env ? env : "");
  if (!python[0]) {
    from = "the pinned JAX (make jax)";
    lctx_data_join(python, sizeof python, dir,
                   "build/jax/venv-0.10.2/bin/python");
  }
  lctx_data_join(adapter, sizeof adapter, dir,
                 "conformance/adapters/jax_export.py");
  lctx_escaped b;
  if (!python[0] || !lctx_sys_is_file(python)) {
    fprintf(err,
            "lctx sweep: no Python with JAX at %s (%s): give --python PATH or "
            "set LCTX_PYTHON\n",
            python[0] ? lctx_esc(&b, python) : "?", from);
    return false;
  }
  if (!adapter[0] || !lctx_sys_is_file(adapter)) {
    fprintf(err, "lctx sweep: no conformance/adapters/jax_export.py in the "
                 "data folder (set LCTX_DATA_DIR)\n");
    return false;
  }
  lctx_rerun_program(self, sizeof self);
  u->command[0] = '\0';
  bool ok =
      lctx_rerun_shell_word(u->command, sizeof u->command, python) &&
      lctx_rerun_shell_word(u->command, sizeof u->command, adapter) &&
      lctx_rerun_shell_word(u->command, sizeof u->command, "--lctx") &&
      lctx_rerun_shell_word(u->command, sizeof u->command, self) &&
      add_items(u->command, sizeof u->command, "--programs", u->programs) &&
      add_items(u->command, sizeof u->command, "--package", u->packages) &&
      (!u->platforms ||
       (lctx_rerun_shell_word(u->command, sizeof u->command, "--platforms") &&
        lctx_rerun_shell_word(u->command, sizeof u->command, u->platforms)));
  if (!ok)
    fprintf(err, "lctx sweep: the exporter's command is over %zu bytes\n",
            sizeof u->command);
  /* lctx_rerun_shell_word puts a space before each word. */
  if (ok && u->command[0] == ' ')
    memmove(u->command, u->command + 1, strlen(u->command));
  return ok;
}

bool lctx_cmd_sweep_defaults(lctx_sweep_options *o, FILE *err) {
  lctx_sweep_options_init(o);
  o->jobs = lctx_numbers_cores(LCTX_SWEEP_MAX_JOBS);
  static char spec[LCTX_DATA_PATH_MAX], known[LCTX_DATA_PATH_MAX];
  const char *main_spec = lctx_data()->spec;
  if (!beside(main_spec, 0, "jax-sweep.lspec", spec, sizeof spec, err) ||
      !beside(main_spec, 1, "sweep/regressions", known, sizeof known, err))
    return false;
  o->spec_path = spec;
  o->known_dir = o->known_default = known;
  return true;
}

int lctx_cmd_sweep(int argc, char **argv, FILE *out, FILE *err) {
  lctx_sweep_options o;
  if (!lctx_cmd_sweep_defaults(&o, err))
    return LCTX_EXIT_USAGE;
  o.out_dir = "lctx-sweep";
  bool judge = false, replay = false, no_minimize = false;
  size_t only_case = (size_t)-1;
  static user_sweep u;
  const lctx_option table[] = {
      lctx_options_string("cmd", &o.command, "\"PROGRAM ARGS\"",
                          "the program offering the export operation"),
      lctx_options_string("programs", &u.programs, "SPEC,...",
                          "instead of --cmd: the user catalogues SPEC\n"
                          "(dir/mod.py or a dotted module, USER.md) through\n"
                          "jax_export.py; their mistakes are diagnosed"),
      lctx_options_string("package", &u.packages, "PKG,...",
                          "instead of --cmd: a program per primitive the\n"
                          "packages PKG register, through jax_export.py"),
      lctx_options_string("platforms", &u.platforms, "L1;L2",
                          "with --programs or --package: the platform lists\n"
                          "of the programs that declare none (cpu,cuda;\n"
                          "cuda,rocm,cpu), not drawn ones"),
      lctx_options_string("python", &u.python, "PATH",
                          "the Python of --programs and --package (default:\n"
                          "$LCTX_PYTHON, else the pinned JAX's venv)"),
      lctx_row_sweep_spec(&o.spec_path),
      lctx_options_string("out", &o.out_dir, "DIR",
                          "reports and findings (default: lctx-sweep); a\n"
                          "run into the same folder resumes"),
      lctx_row_seed(&o.seed, "seed of the platform lists (default 1)"),
      lctx_row_lists(&o.lists),
      lctx_options_custom("subset", &o.subset, "all|ci",
                          "every program, or ci: the first harness of each\n"
                          "group and every other program",
                          parse_subset),
      lctx_options_string("group", &o.group, "NAME",
                          "only the programs of this group"),
      lctx_options_string("kind", &o.kind, "KIND",
                          "only the programs of this kind (harness, effect,\n"
                          "custom, control, corpus, extra)"),
      lctx_options_size("limit", &o.limit, "N",
                        "at most N programs (default: all)", 0, 100000000,
                        "a count"),
      lctx_row_plan_case(&only_case),
      lctx_row_shard(&o, parse_shard),
      lctx_options_size("jobs", &o.jobs, "N",
                        "exporter processes at once, each on other cases\n"
                        "(default: the online cores); results, findings\n"
                        "and reports are those of --jobs 1",
                        1, LCTX_SWEEP_MAX_JOBS, "a whole number from 1 to 64"),
      lctx_row_timeout(&o.timeout, "per export (default 60)"),
      lctx_row_time_limit(&o.time_limit),
      lctx_row_restart(&o.restart),
      lctx_row_known(&o.known_dir),
      lctx_row_no_minimize(&no_minimize),
      lctx_options_flag("judge", &judge, "judge recorded case files offline"),
      lctx_options_flag("replay", &replay,
                        "export recorded case files again and judge them"),
      lctx_options_flag("quiet", &o.quiet, "no live progress line"),
  };
  const lctx_option_spec ospec = LCTX_OPTIONS_SPEC("sweep", USAGE, table, true);
  int first;
  LCTX_OPTIONS_PARSE_OR_RETURN(&ospec, argc, argv, &first, out, err);
  o.minimize = !no_minimize;
  o.only_case = only_case == (size_t)-1 ? -1 : (long)only_case;
  const char *const *paths = (const char *const *)(argv + first);
  size_t n = (size_t)(argc - first);
  bool user = u.programs || u.packages;
  const char *problem =
      judge && replay     ? "give --judge or --replay, not both"
      : user && o.command ? "give --cmd, or --programs and --package, not both"
      : u.python && !user ? "--python is for --programs and --package"
      : u.platforms && !user ? "--platforms is for --programs and --package"
      : (judge || replay) && n == 0 ? "name the case files or folders to judge"
      : !judge && !replay && n > 0
          ? "case files are read only with --judge or --replay"
      : !judge && !o.command && !user
          ? "--cmd \"PROGRAM ARGS\" (or --programs or --package) is required"
          : NULL;
  if (problem) {
    fprintf(err, "lctx sweep: %s\n", problem);
    lctx_options_help(&ospec, err);
    return LCTX_EXIT_USAGE;
  }
  if (judge)
    return lctx_sweep_judge_files(o.spec_path, paths, n, o.quiet, out, err);
  if (user && !user_command(&u, err))
    return LCTX_EXIT_USAGE;
  if (user)
    o.command = u.command;
  if (replay)
    return lctx_sweep_replay(&o, paths, n, out, err);
  return lctx_sweep_run(&o, out, err);
}
