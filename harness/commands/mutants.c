/*
 * mutants.c - the kill matrix of the example plugin's mutants (see
 * mutants.h).
 */
#include "mutants_private.h"

#include "case_bytes.h"
#include "conform.h"
#include "corpus_rows.h"
#include "data_paths.h"
#include "escape.h"
#include "exit.h"
#include "file.h"
#include "finding_key.h"
#include "libfuzzer.h"
#include "seeds.h"
#include "lctx/lctx.h"
#include "oracle.h"
#include "peer.h"
#include "rerun_cmd.h"
#include "sys.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef LCTX_MUTANTS_DIR
#define LCTX_MUTANTS_DIR "conformance/mutants"
#endif
#ifndef LCTX_EXAMPLE_PLUGIN
#define LCTX_EXAMPLE_PLUGIN "liblctx_example_plugin.so"
#endif

/* Reads the first `cap - 1` bytes of a file (a log, a fuzz input: what
 * follows does not count), NUL-terminated; NULL if it cannot be read. The
 * caller frees. */
static char *read_head(const char *path, size_t cap, size_t *length) {
  FILE *f = lctx_sys_fopen_input(path);
  if (!f)
    return NULL;
  char *text = malloc(cap);
  if (!text) {
    fclose(f);
    return NULL;
  }
  size_t n = fread(text, 1, cap - 1, f);
  fclose(f);
  text[n] = '\0';
  if (length)
    *length = n;
  return text;
}

//===----------------------------------------------------------------------===//
// Conform
//===----------------------------------------------------------------------===//

/* Writes conform's first failure, naming the case file for "cases case N,
 * ..."; conform's text names every verdict but a plain fail. */
static void describe_failure(const lctx_report *report, char *out, size_t cap) {
  const lctx_report_row *row = &report->rows[report->first_failure_row];
  bool fail = report->first_failure_verdict == LCTX_VERDICT_FAIL;
  const char *prefix = fail ? "fail: " : "";
  unsigned long n;
  int used = 0;
  if (row->first_case[0] &&
      sscanf(row->first, "cases case %lu,%n", &n, &used) == 1 && used > 0)
    snprintf(out, cap, "%s%s,%s", prefix, row->first_case, row->first + used);
  else
    snprintf(out, cap, "%s%s", prefix, row->first);
}

/* Judges `library` with conform, stopping at the first failure, reports in
 * `dir` and conform's output in dir/conform.log; `quick`: the conformance
 * cases and 1000 random cases only. */
static void run_conform(state *st, const char *library, const char *dir,
                        bool quick, kill_cell *k) {
  memset(k, 0, sizeof *k);
  char log_path[PATH_CAP + 32];
  snprintf(log_path, sizeof log_path, "%s/conform.log", dir);
  FILE *log = lctx_sys_mkdir_p(dir) ? lctx_sys_fopen_in(log_path, "w") : NULL;
  if (!log) {
    k->status = K_ERROR;
    snprintf(k->detail, sizeof k->detail, "%s: %s", dir, strerror(errno));
    return;
  }
  lctx_conform_options o;
  lctx_conform_options_init(&o);
  o.impl_path = library;
  o.report_dir = dir;
  o.quiet = o.first_failure = true;
  o.batch = 32; /* small batches: conform judges the first cases sooner */
  o.handle_signals = false;
  if (quick) {
    o.domain = false;
    o.random = 1000;
  }
  double start = lctx_sys_now();
  int code = lctx_conform_run(&o, &st->report, log, log);
  fclose(log);
  k->seconds = k->wall = lctx_sys_now() - start;
  const lctx_report *report = &st->report;
  if (code == LCTX_EXIT_USAGE) {
    k->status = K_ERROR;
    snprintf(k->detail, sizeof k->detail,
             "lctx conform exited with %d without a report; see %s", code,
             log_path);
  } else if (report->failed_once) {
    k->status = K_KILLED;
    /* The time to the first failing verdict, from conform's start. */
    k->seconds = report->first_failure_seconds;
    snprintf(k->row, sizeof k->row, "%s",
             report->rows[report->first_failure_row].id);
    describe_failure(report, k->detail, sizeof k->detail);
    snprintf(k->reproduce, sizeof k->reproduce, "%s",
             report->rows[report->first_failure_row].rerun);
  } else if (code == LCTX_EXIT_OK) {
    k->status = K_LIVED;
    snprintf(k->detail, sizeof k->detail, "every operation passed");
  } else {
    k->status = K_ERROR;
    snprintf(k->detail, sizeof k->detail,
             "lctx conform exited with %d and no failing verdict; see %s", code,
             log_path);
  }
}

//===----------------------------------------------------------------------===//
// Fuzzing (fuzz_differential under libFuzzer)
//===----------------------------------------------------------------------===//

static void remove_file(void *user, const char *path) {
  (void)user;
  unlink(path);
}

/* Removes the regular files of a folder (a corpus from an earlier run). */
static void empty_folder(const char *dir) {
  lctx_sys_each_file(dir, remove_file, NULL);
}

/* Runs the fuzzer with LCTX_DIFF_PLUGIN=library; returns the wait status
 * (or -1), sets *seconds. Killed past `hard_limit` seconds. */
static int spawn_fuzzer(const state *st, const char *library,
                        const char *corpus, const char *artifacts,
                        const char *log, double hard_limit, double *seconds) {
  lctx_libfuzzer_run run;
  memset(&run, 0, sizeof run);
  run.binary = st->o.fuzzer;
  run.has_seed = true;
  run.seed = st->o.fuzz_seed;
  run.seconds = st->o.fuzz_seconds;
  run.timeout = 10;
  run.artifacts = artifacts;
  run.options_file = st->fuzz_options;
  run.corpora[0] = corpus;
  lctx_libfuzzer_argv a;
  lctx_libfuzzer_argv_build(&run, &a);
  char **args = a.argv;
  const char *env[] = {"LCTX_DIFF_PLUGIN", library, NULL};
  lctx_peer_spec child = {
      .argv = args, .log = log, .truncate_log = true, .env = env};
  lctx_peer_ran ran;
  (void)lctx_peer_run(&child, hard_limit, false, &ran, NULL);
  *seconds = ran.seconds;
  return ran.status;
}

/* The spec rows the inputs of `corpus` reach, by the reference model
 * (corpus_rows.h). */
static void rows_reached(state *st, const mutant *m, const char *corpus,
                         kill_cell *k) {
  lctx_row_hits *reached = &st->reached;
  char e[256] = "";
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  if (!lctx_row_hits_init(reached, &eb)) {
    snprintf(k->reached, sizeof k->reached, "the embedded spec: %s", e);
    return;
  }
  lctx_row_hits_add_dir(reached, corpus);
  size_t at = (size_t)snprintf(
      k->reached, sizeof k->reached,
      "corpus of %zu inputs; operations it ran per expected row:",
      reached->inputs);
  for (size_t i = 0; i < m->expected_count && at < sizeof k->reached; i++) {
    size_t hits = lctx_row_hits_hits_of(reached, m->expected[i]);
    at += (size_t)snprintf(k->reached + at, sizeof k->reached - at, "%s %s %zu",
                           i ? "," : "", m->expected[i], hits);
  }
}

/* Keeps the first crash input of `artifacts` (libFuzzer's crash-, leak-,
 * timeout-, oom- files) in `user` (a char[PATH_CAP]). */
static void first_artifact(void *user, const char *path) {
  char *kept = user;
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if (!kept[0] &&
      (strncmp(base, "crash-", 6) == 0 || strncmp(base, "leak-", 5) == 0 ||
       strncmp(base, "timeout-", 8) == 0 || strncmp(base, "oom-", 4) == 0))
    snprintf(kept, PATH_CAP, "%s", path);
}

/* The line that runs the crash input the fuzzer left in `artifacts` through
 * the fuzzer against `library` (rerun_cmd.h: from any folder, in an empty
 * environment); "" when it left none. */
static void fuzz_reproduce(const state *st, const char *library,
                           const char *artifacts, kill_cell *k) {
  char input[PATH_CAP] = "", lib[PATH_CAP], fuzzer[PATH_CAP], in[PATH_CAP];
  char *line = k->reproduce;
  size_t n = sizeof k->reproduce;
  lctx_sys_each_file(artifacts, first_artifact, input);
  if (!input[0] || !lctx_rerun_absolute(library, lib, sizeof lib) ||
      !lctx_rerun_absolute(st->o.fuzzer, fuzzer, sizeof fuzzer) ||
      !lctx_rerun_absolute(input, in, sizeof in) ||
      !lctx_rerun_begin(line, n, lctx_rerun_lctx_env) ||
      !lctx_rerun_setting(line, n, "LCTX_DIFF_PLUGIN", lib) ||
      !lctx_rerun_shell_word(line, n, fuzzer) ||
      !lctx_rerun_shell_word(line, n, in))
    line[0] = '\0';
}

/* The cell of a run whose log holds the finding `key`. */
static void judge_finding(const mutant *m, const char *key, kill_cell *k) {
  snprintf(k->detail, sizeof k->detail, "%s", key);
  bool differ = lctx_finding_key_is(key, "fuzz_differential", "differ");
  if (!differ && !lctx_finding_key_is(key, "fuzz_differential", "impl")) {
    k->status = K_ERROR; /* the reference, or no implementation */
    return;
  }
  k->status = K_KILLED;
  /* No row when the plugin failed to run an operation (impl/failed), or
   * when both outcomes were allowed but differ. */
  bool row = lctx_finding_key_field(key, "row", k->row, sizeof k->row);
  if (!row)
    snprintf(k->row, sizeof k->row, "%s", differ ? "differ" : "failed");
  k->row_expected = !row || (m && lctx_mutants_expected_row(m, k->row));
}

/* The cell of a run that failed without a finding line: a sanitizer report
 * or a libFuzzer crash, timeout or OOM means the mutant broke the process,
 * which kills it. Returns where the log names the error, or NULL. */
static const char *judge_crash(const char *text, int status, const char *log,
                               kill_cell *k) {
  const char *error = strstr(text, "ERROR: ");
  if (!error)
    error = strstr(text, "runtime error: ");
  if (!error) {
    k->status = K_ERROR;
    snprintf(k->detail, sizeof k->detail,
             "the fuzzer ended (status %d) without a finding; see %s", status,
             log);
    return NULL;
  }
  k->status = K_KILLED;
  snprintf(k->row, sizeof k->row, "crash");
  k->row_expected = true;
  size_t n = strcspn(error, "\n"); /* its line, at most 511 bytes */
  lctx_mutants_copy_field(k->detail, sizeof k->detail, error,
                          n < 511 ? n : 511);
  return error;
}

/* One bounded run of the fuzzer against `library` from `start`. */
static void run_fuzz(state *st, const mutant *m, const char *library,
                     const char *dir, int start, kill_cell *k) {
  memset(k, 0, sizeof *k);
  char corpus[PATH_CAP + 32], artifacts[PATH_CAP + 32], log[PATH_CAP + 32];
  snprintf(corpus, sizeof corpus, "%s/corpus", dir);
  snprintf(artifacts, sizeof artifacts, "%s/artifacts", dir);
  snprintf(log, sizeof log, "%s/fuzz.log", dir);
  if (!lctx_sys_mkdir_p(corpus) || !lctx_sys_mkdir_p(artifacts)) {
    k->status = K_ERROR;
    snprintf(k->detail, sizeof k->detail, "%s: %s", dir, strerror(errno));
    return;
  }
  empty_folder(corpus);
  empty_folder(artifacts);
  if (start == START_SEEDS)
    lctx_seeds_copy(st->seeds_dir, corpus);
  int status = spawn_fuzzer(st, library, corpus, artifacts, log,
                            st->o.fuzz_seconds + 60, &k->seconds);
  size_t length;
  char *text = read_head(log, 8u << 20, &length);
  if (!text || status < 0) {
    k->status = K_ERROR;
    snprintf(k->detail, sizeof k->detail, "the fuzzer did not run; see %s",
             log);
    free(text);
    return;
  }
  lctx_libfuzzer_stats said;
  lctx_libfuzzer_parse(text, &said);
  k->execs = said.execs;
  char key[LCTX_FINDING_KEY_MAX];
  const char *finding = lctx_finding_key_find(text, key, sizeof key);
  const char *inited = strstr(text, "INITED");
  if (finding) {
    judge_finding(m, key, k);
    fuzz_reproduce(st, library, artifacts, k);
    k->by_seed = start == START_SEEDS && (!inited || inited > finding);
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    k->status = K_LIVED;
    snprintf(k->detail, sizeof k->detail, "no finding in %.0f s",
             st->o.fuzz_seconds);
    if (m)
      rows_reached(st, m, corpus, k);
  } else {
    const char *error = judge_crash(text, status, log, k);
    if (k->status == K_KILLED)
      fuzz_reproduce(st, library, artifacts, k);
    k->by_seed = error && start == START_SEEDS && (!inited || inited > error);
  }
  free(text);
}

//===----------------------------------------------------------------------===//
// The run
//===----------------------------------------------------------------------===//

void lctx_mutants_options_init(lctx_mutants_options *o) {
  memset(o, 0, sizeof *o);
  o->list_path = lctx_data_paths_current()->mutants_list;
  o->seeds = lctx_data_paths_current()->seeds;
  o->dir = LCTX_MUTANTS_DIR;
  o->out_dir = "build/mutants";
  o->fuzzer = "";
  o->plugin = LCTX_EXAMPLE_PLUGIN;
  o->limit = 1;
  o->fuzz_min = 90;
  o->fuzz_seed = 1;
  o->fuzz_from_seeds = o->fuzz_from_empty = true;
  o->control = true;
}

/* One result as it comes; for a control run, living is passing. */
static void print_kill_line(FILE *out, const char *what, const kill_cell *k,
                            bool fuzz, bool control) {
  char text[128];
  if (control && k->status == K_LIVED)
    snprintf(text, sizeof text, "survived (%.2f s): good", k->seconds);
  else
    lctx_mutants_cell(k, fuzz, text, sizeof text);
  bool detail = k->status == K_ERROR || k->status == K_KILLED;
  lctx_escaped b1, b2;
  fprintf(out, "  %-24s %s%s%s\n", what, lctx_esc(&b1, text),
          detail ? ": " : "", lctx_esc(&b2, detail ? k->detail : ""));
  if (k->status == K_KILLED && k->reproduce[0])
    fprintf(out, "    reproduce: %s\n", lctx_esc(&b1, k->reproduce));
  fflush(out);
}

/* The fuzzer, its options and the seed corpus, when fuzzing. */
static bool check_fuzzer(state *st, FILE *err) {
  lctx_escaped b;
  if (!lctx_sys_is_file(st->o.fuzzer) || access(st->o.fuzzer, X_OK) != 0) {
    fprintf(err,
            "lctx mutants: --fuzzer: %s: no libFuzzer build of "
            "fuzz_differential (build it with: cmake --preset fuzz && "
            "cmake --build --preset fuzz)\n",
            lctx_esc(&b, st->o.fuzzer));
    return false;
  }
  snprintf(st->fuzz_options, sizeof st->fuzz_options, "%s.options",
           st->o.fuzzer);
  snprintf(st->seeds_dir, sizeof st->seeds_dir, "%s/fuzz_differential",
           st->o.seeds);
  if (st->starts[START_SEEDS] && !lctx_sys_is_dir(st->seeds_dir)) {
    fprintf(err, "lctx mutants: %s: no seed corpus\n",
            lctx_esc(&b, st->seeds_dir));
    return false;
  }
  return true;
}

/* Loads the spec and the list, and checks every input; false on bad input
 * (reported on err). */
static bool set_up(state *st, FILE *err) {
  lctx_escaped b;
  if (!lctx_spec_load_or_report(lctx_sys_default_spec_path(), &st->spec,
                                "lctx mutants", err))
    return false;
  if (!lctx_mutants_load_list(st, err) || !lctx_mutants_select_only(st, err) ||
      !lctx_mutants_find_libraries(st, err))
    return false;
  if (st->o.control && !lctx_sys_is_file(st->o.plugin)) {
    fprintf(err,
            "lctx mutants: --plugin: %s: no such library (or give "
            "--no-control)\n",
            lctx_esc(&b, st->o.plugin));
    return false;
  }
  if (st->o.fuzz_seconds > 0 && !check_fuzzer(st, err))
    return false;
  if (!lctx_sys_mkdir_p(st->o.out_dir)) {
    fprintf(err, "lctx mutants: --out: %s: %s\n", lctx_esc(&b, st->o.out_dir),
            strerror(errno));
    return false;
  }
  return true;
}

/* The control: the unmutated plugin passes what kills the mutants. Returns
 * whether it survived every run. */
static bool run_control(state *st, FILE *out) {
  char dir[PATH_CAP + 256];
  lctx_escaped b;
  fprintf(out, "control: the unmutated plugin %s\n",
          lctx_esc(&b, st->o.plugin));
  snprintf(dir, sizeof dir, "%s/conform/control", st->o.out_dir);
  run_conform(st, st->o.plugin, dir, true, &st->control_conform);
  print_kill_line(out, "conform (cases, 1000 random)", &st->control_conform,
                  false, true);
  bool ok = st->control_conform.status == K_LIVED;
  for (int s = 0; st->o.fuzz_seconds > 0 && s < START_COUNT; s++) {
    if (!st->starts[s])
      continue;
    snprintf(dir, sizeof dir, "%s/fuzz/control/%s", st->o.out_dir,
             START_NAMES[s]);
    run_fuzz(st, NULL, st->o.plugin, dir, s, &st->control_fuzz[s]);
    print_kill_line(out, START_TITLES[s], &st->control_fuzz[s], true, true);
    ok = ok && st->control_fuzz[s].status == K_LIVED;
  }
  if (!ok)
    fprintf(out, "control: FAILED: the unmutated plugin does not survive, "
                 "so kills prove nothing\n");
  return ok;
}

/* Conform, then each fuzz run, against mutant `i`. */
static void run_mutant(state *st, size_t i, FILE *out) {
  char dir[PATH_CAP + 256];
  mutant *m = &st->mutants[i];
  lctx_escaped b1, b2;
  fprintf(out, "%s: %s\n", lctx_esc(&b1, m->name),
          lctx_esc(&b2, m->description));
  snprintf(dir, sizeof dir, "%s/conform/%s", st->o.out_dir, m->name);
  run_conform(st, m->library, dir, false, &st->conform[i]);
  st->conform[i].row_expected =
      lctx_mutants_expected_row(m, st->conform[i].row);
  print_kill_line(out, "conform", &st->conform[i], false, false);
  for (int s = 0; st->o.fuzz_seconds > 0 && s < START_COUNT; s++) {
    if (!st->starts[s])
      continue;
    snprintf(dir, sizeof dir, "%s/fuzz/%s/%s", st->o.out_dir, m->name,
             START_NAMES[s]);
    run_fuzz(st, m, m->library, dir, s, &st->fuzz[i][s]);
    print_kill_line(out, START_TITLES[s], &st->fuzz[i][s], true, false);
  }
}

/* Prints conform's kills and what it missed or killed late; sets `*errors`
 * when a run could not be judged. Returns the tally. */
static tally print_conform_summary(const state *st, FILE *out, bool *errors) {
  tally c = lctx_mutants_tally(st, -1);
  fprintf(out,
          "\nconform: killed %zu of %zu (slowest %.2f s; %zu over the "
          "%.3g s limit)\n",
          c.killed, c.total, c.slowest, c.slow, st->o.limit);
  for (size_t i = 0; i < st->count; i++) {
    const kill_cell *k = &st->conform[i];
    *errors = *errors || k->status == K_ERROR;
    lctx_escaped b;
    if (k->status != K_KILLED)
      fprintf(out, "  %s %s: %s\n", st->mutants[i].name,
              STATUS_NAMES[k->status], lctx_esc(&b, k->detail));
    else if (k->seconds > st->o.limit)
      fprintf(out, "  %s killed only after %.2f s\n", st->mutants[i].name,
              k->seconds);
  }
  return c;
}

/* Prints the fuzzer's kills per start and what it missed; sets `*errors`
 * when a run could not be judged. Returns whether it killed too few. */
static bool print_fuzz_summary(const state *st, FILE *out, bool *errors) {
  bool fuzz_short = false;
  for (int s = 0; st->o.fuzz_seconds > 0 && s < START_COUNT; s++) {
    tally t = lctx_mutants_tally(st, s);
    if (!t.total)
      continue;
    bool enough = lctx_mutants_percent(t) >= st->o.fuzz_min;
    fuzz_short = fuzz_short || !enough;
    fprintf(out,
            "fuzz_differential %s: killed %zu of %zu (%.0f%%, required "
            "%.0f%%)\n",
            s == START_SEEDS ? "from seeds" : "from an empty corpus", t.killed,
            t.total, lctx_mutants_percent(t), st->o.fuzz_min);
    for (size_t i = 0; i < st->count; i++) {
      const kill_cell *k = &st->fuzz[i][s];
      *errors = *errors || k->status == K_ERROR;
      if (k->status == K_KILLED)
        continue;
      lctx_escaped b1, b2;
      fprintf(out, "  missed %s: %s (%s)\n", st->mutants[i].name,
              lctx_esc(&b1, st->mutants[i].note[0]
                                ? st->mutants[i].note
                                : "no reason recorded in the list"),
              lctx_esc(&b2, k->reached[0] ? k->reached : k->detail));
    }
  }
  return fuzz_short;
}

/* Runs the controls and every mutant, then prints and writes the matrix;
 * returns whether all went as required. */
static bool run_all(state *st, FILE *out) {
  bool fuzz = st->o.fuzz_seconds > 0;
  lctx_escaped b1, b2;
  fprintf(out, "lctx mutants: %zu mutants (%s), conform kill limit %.3g s%s\n",
          st->count, lctx_esc(&b1, st->o.list_path), st->o.limit,
          fuzz ? ", with fuzz_differential" : "");
  if (fuzz)
    fprintf(out, "  fuzzing: %s, %.0f s per run, -seed=%llu\n",
            lctx_esc(&b1, st->o.fuzzer), st->o.fuzz_seconds, st->o.fuzz_seed);
  fflush(out);
  bool control_ok = !st->o.control || run_control(st, out);
  for (size_t i = 0; i < st->count; i++)
    run_mutant(st, i, out);
  lctx_mutants_print_matrix(st, out);
  char json_path[PATH_CAP + 32], md_path[PATH_CAP + 32];
  snprintf(json_path, sizeof json_path, "%s/mutants.json", st->o.out_dir);
  snprintf(md_path, sizeof md_path, "%s/mutants.md", st->o.out_dir);
  bool written = lctx_mutants_write_json(st, json_path) &&
                 lctx_mutants_write_markdown(st, md_path);
  bool errors = false;
  tally c = print_conform_summary(st, out, &errors);
  bool fuzz_short = print_fuzz_summary(st, out, &errors);
  fprintf(out, "reports: %s, %s%s\n", lctx_esc(&b1, json_path),
          lctx_esc(&b2, md_path), written ? "" : " (COULD NOT BE WRITTEN)");
  bool pass = control_ok && !errors && written && c.killed == c.total &&
              c.slow == 0 && !fuzz_short;
  fprintf(out, "result: %s\n", pass ? "PASS" : "FAIL");
  return pass;
}

int lctx_mutants_run(const lctx_mutants_options *options, FILE *out,
                     FILE *err) {
  state *st = lctx_sys_alloc(sizeof *st, "lctx mutants", err);
  if (!st)
    return LCTX_EXIT_USAGE;
  st->o = *options;
  st->starts[START_SEEDS] = options->fuzz_from_seeds;
  st->starts[START_EMPTY] = options->fuzz_from_empty;
  int code = !set_up(st, err)   ? LCTX_EXIT_USAGE
             : run_all(st, out) ? LCTX_EXIT_OK
                                : LCTX_EXIT_VIOLATIONS;
  free(st);
  return code;
}
