/*
 * replay.c - fuzz inputs through a target's own check, and promotion of
 * findings to regression inputs (see replay.h).
 */
#include "replay.h"

#include "case_bytes.h"
#include "case_text.h"
#include "escape.h"
#include "exit.h"
#include "file.h"
#include "findings.h"
#include "fuzzrun.h"
#include "runner.h"
#include "sys.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What one replay or promotion works with, passed down instead of
 * file-scope buffers: the target, the streams, the counts and the check's
 * verdict. */
typedef struct replay_ctx {
  const lctx_fuzz_target *target;
  FILE *out, *err;
  bool verbose;
  /* The target cannot run here (no implementation to compare). */
  bool unusable;
  size_t inputs, failures;
  lctx_fuzz_result result;
  /* The checks' states, made on the first input and kept for the rest. */
  lctx_fuzzrun *run;
  /* With a binary: how it runs and keys an input, and the scratch folder
   * its runs write their output to. */
  const char *binary, *engine;
  /* fuzz_differential's implementation when LCTX_DIFF_PLUGIN is unset. */
  const char *plugin;
  lctx_findings *findings;
  char scratch[4200];
} replay_ctx;

/* Runs the binary on one input, as a campaign keys its findings
 * (findings.h). Returns true on a finding, described in r->result. */
static bool check_with_binary(replay_ctx *r, const uint8_t *data, size_t size) {
  lctx_findings_init(r->findings, r->target,
                     r->engine ? r->engine : "libfuzzer", r->binary,
                     r->scratch);
  char *log = NULL;
  memset(&r->result, 0, sizeof r->result);
  r->result.failed = lctx_findings_key_of_bytes(
      r->findings, data, size, r->result.key, sizeof r->result.key);
  char path[4400];
  snprintf(path, sizeof path, "%s/logs/key-run.txt", r->scratch);
  size_t n = 0;
  if (r->result.failed && lctx_file_read(path, 1u << 26, &log, &n, NULL))
    snprintf(r->result.report, sizeof r->result.report, "%s", log);
  free(log);
  return r->result.failed;
}

/* Runs the target's own check on one input: the one place lctx calls a fuzz
 * check in process. Returns true on a finding, described in r->result. */
static bool check_input(replay_ctx *r, const uint8_t *data, size_t size) {
  if (r->binary)
    return check_with_binary(r, data, size);
  if (!r->run) {
    r->run = lctx_fuzzrun_new();
    if (r->run)
      lctx_fuzzrun_set_plugin(r->run, r->plugin);
  }
  if (!r->run)
    return lctx_fuzzrun_once(r->target, data, size, &r->result);
  return lctx_fuzzrun_check(r->run, r->target, data, size, &r->result);
}

//===----------------------------------------------------------------------===//
// replay
//===----------------------------------------------------------------------===//

static void replay_one(void *user, const char *path) {
  replay_ctx *r = user;
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if (strcmp(base, "README.md") == 0)
    return;
  char *data = NULL, why[4500];
  size_t n = 0;
  lctx_buf e;
  lctx_buf_init(&e, why, sizeof why);
  lctx_escaped b1, b2;
  if (!lctx_file_read(path, LCTX_FINDINGS_MAX_INPUT, &data, &n, &e)) {
    fprintf(r->out, "ERROR %s\n", lctx_esc(&b1, why));
    r->failures++;
    return;
  }
  r->inputs++;
  bool failed = !r->unusable && check_input(r, (const uint8_t *)data, n);
  free(data);
  if (r->unusable)
    return;
  /* The report is no text lctx escaped where it built it: the check's
   * report quotes an implementation's messages as they are (a raise
   * message, a loader's error) beside the case text, and a binary's is its
   * whole output. So each of its lines shows escaped, and indented, so that
   * none of them starts a line of its own. */
  if (failed && strstr(r->result.key, "/no-implementation")) {
    /* Not a finding: the target cannot run here at all (one line). */
    fprintf(r->err, "lctx replay: %s\n", lctx_esc(&b1, r->result.report));
    r->unusable = true;
  } else if (r->result.failed) {
    r->failures++;
    fprintf(r->out, "FINDING %s\n  key: %s\n", lctx_esc(&b1, path),
            lctx_esc(&b2, r->result.key));
    lctx_escape_lines(r->out, "  ", r->result.report);
    size_t k = strlen(r->result.report);
    if (k && r->result.report[k - 1] == '\n')
      fputc('\n', r->out); /* the blank line after a report */
  } else if (r->verbose) {
    fprintf(r->out, "ok %s\n", lctx_esc(&b1, path));
  }
}

/* Replays one operand. Returns an exit code: 0 to go on, 2 to stop. */
static int replay_operand(replay_ctx *r, const lctx_fuzz_target *given,
                          const char *path) {
  r->target = given ? given : lctx_findings_target_of_path(path);
  lctx_escaped b;
  if (!r->target) {
    fprintf(r->err,
            "lctx replay: %s: cannot tell the target from the path; "
            "give --target\n",
            lctx_esc(&b, path));
    return LCTX_EXIT_USAGE;
  }
  if (lctx_sys_is_dir(path)) {
    lctx_sys_each_file(path, replay_one, r);
  } else if (lctx_sys_is_file(path)) {
    replay_one(r, path);
  } else {
    fprintf(r->err, "lctx replay: %s: no such file or directory\n",
            lctx_esc(&b, path));
    return LCTX_EXIT_USAGE;
  }
  return r->unusable ? LCTX_EXIT_USAGE : LCTX_EXIT_OK;
}

/* Prepares replaying with o->binary: checks it, makes the scratch folder.
 * Returns an exit code: 0 to go on, 2 after a message. */
static int use_binary(replay_ctx *r, const lctx_replay_options *o) {
  lctx_escaped b;
  if (o->engine && strcmp(o->engine, "libfuzzer") != 0 &&
      strcmp(o->engine, "afl") != 0) {
    fprintf(r->err, "lctx replay: --engine: '%s' is not libfuzzer or afl\n",
            lctx_esc(&b, o->engine));
    return LCTX_EXIT_USAGE;
  }
  if (!lctx_sys_is_file(o->binary) || access(o->binary, X_OK) != 0) {
    fprintf(r->err, "lctx replay: --binary: %s is not an executable file\n",
            lctx_esc(&b, o->binary));
    return LCTX_EXIT_USAGE;
  }
  const char *tmp = getenv("TMPDIR");
  snprintf(r->scratch, sizeof r->scratch, "%s/lctx-replay-XXXXXX",
           tmp && *tmp ? tmp : "/tmp");
  char logs[4300];
  r->findings = malloc(sizeof *r->findings);
  if (!r->findings || !mkdtemp(r->scratch)) {
    fprintf(r->err, "lctx replay: cannot make a scratch folder: %s\n",
            strerror(errno ? errno : ENOMEM));
    r->scratch[0] = '\0';
    return LCTX_EXIT_USAGE;
  }
  snprintf(logs, sizeof logs, "%s/logs", r->scratch);
  lctx_sys_mkdir_p(logs);
  r->binary = o->binary;
  r->engine = o->engine;
  return LCTX_EXIT_OK;
}

int lctx_replay_run(const lctx_replay_options *o, FILE *out, FILE *err) {
  const lctx_fuzz_target *given = NULL;
  if (o->target) {
    given = lctx_fuzz_target_find(o->target);
    if (!given) {
      lctx_escaped b;
      char names[256];
      lctx_findings_target_names(", ", names, sizeof names);
      fprintf(err, "lctx replay: --target: unknown target '%s' (targets: %s)\n",
              lctx_esc(&b, o->target), names);
      return LCTX_EXIT_USAGE;
    }
  }
  replay_ctx *r = lctx_sys_alloc(sizeof *r, "lctx replay", err);
  if (!r)
    return LCTX_EXIT_USAGE;
  r->out = out;
  r->err = err;
  r->verbose = o->verbose;
  r->plugin = o->plugin;
  int code = o->binary ? use_binary(r, o) : LCTX_EXIT_OK;
  for (size_t i = 0; i < o->input_count && code == LCTX_EXIT_OK; i++)
    code = replay_operand(r, given, o->inputs[i]);
  if (code == LCTX_EXIT_OK) {
    fprintf(out, "replay: %zu inputs, %zu findings\n", r->inputs, r->failures);
    code = r->failures ? LCTX_EXIT_VIOLATIONS : LCTX_EXIT_OK;
  }
  lctx_fuzzrun_free(r->run);
  if (r->scratch[0])
    lctx_sys_remove_tree(r->scratch);
  free(r->findings);
  free(r);
  return code;
}

//===----------------------------------------------------------------------===//
// promote
//===----------------------------------------------------------------------===//

/* Reads the finding's input: a directory's minimized (else input) file, or
 * the file itself. Returns false after a message. */
static bool read_finding(const char *finding, char *input, size_t cap,
                         char **data, size_t *size, FILE *err) {
  if (lctx_sys_is_dir(finding)) {
    snprintf(input, cap, "%s/minimized", finding);
    if (!lctx_sys_is_file(input))
      snprintf(input, cap, "%s/input", finding);
  } else {
    snprintf(input, cap, "%s", finding);
  }
  char why[4500];
  lctx_buf e;
  lctx_buf_init(&e, why, sizeof why);
  if (lctx_file_read(input, LCTX_FINDINGS_MAX_INPUT, data, size, &e))
    return true;
  lctx_escaped b;
  fprintf(err, "lctx promote: %s\n", lctx_esc(&b, why));
  return false;
}

/* The key a findings/KEY directory recorded (its key.txt), into `key`;
 * empty when there is none. */
static void recorded_key(const char *finding, char *key, size_t cap) {
  key[0] = '\0';
  char file[4300], *data = NULL;
  size_t n = 0;
  snprintf(file, sizeof file, "%s/key.txt", finding);
  if (!lctx_sys_is_dir(finding) ||
      !lctx_file_read(file, cap - 1, &data, &n, NULL))
    return;
  while (n > 0 && (data[n - 1] == '\n' || data[n - 1] == '\r'))
    n--;
  snprintf(key, cap, "%.*s", (int)n, data);
  free(data);
}

/* The regression's file stem: --name, the key when it fails, else the key
 * the finding recorded, else the input's hash; no '/'. */
static void stem_of(const replay_ctx *r, const char *name, bool failing,
                    const char *recorded, const char *data, size_t size,
                    char *stem, size_t cap) {
  if (name)
    snprintf(stem, cap, "%s", name);
  else if (failing)
    lctx_findings_dirname(r->result.key, stem, cap);
  else if (recorded[0])
    lctx_findings_dirname(recorded, stem, cap);
  else
    snprintf(stem, cap, "input-%016llx",
             (unsigned long long)lctx_seen_hash(data, size));
  for (char *p = stem; *p; p++) {
    if (*p == '/')
      *p = '_';
  }
}

/* Sets every operation's expectation of `c`, in `e`, to the reference's
 * outcome today; returns how many were left without one because their texts
 * would not fit in a case (LCTX_CASE_EXPECT_TEXT_MAX). */
static size_t expect_today(const lctx_case *c, lctx_case_expect *e) {
  lctx_runner *runner = malloc(sizeof *runner);
  lctx_outcome *o = malloc(sizeof *o);
  size_t left = 0;
  if (runner && o) {
    lctx_runner_init(runner, c);
    for (size_t i = 0; i < c->op_count; i++) {
      lctx_runner_op(runner, &c->ops[i], o, NULL);
      left += !lctx_case_expect_set(e, i, o);
    }
  }
  free(runner);
  free(o);
  return left;
}

/* fuzz_model: the readable twin DIR/text/STEM.case, with the key (today's,
 * else the one the finding recorded) and the reference's outcomes today as
 * its expect lines. */
static void write_twin(const replay_ctx *r, const char *dir, const char *stem,
                       const char *input, const char *data, size_t size,
                       bool failing, const char *recorded) {
  lctx_case *c = malloc(sizeof *c);
  lctx_case_expect *e = calloc(1, sizeof *e);
  char *text = malloc(LCTX_CASE_TEXT_MAX);
  if (c && e && text) {
    lctx_case_decode((const uint8_t *)data, size, c);
    size_t left = expect_today(c, e);
    lctx_buf b;
    lctx_buf_init(&b, text, LCTX_CASE_TEXT_MAX);
    lctx_case_print(c, e, &b);
    char text_dir[4300], path[4900];
    snprintf(text_dir, sizeof text_dir, "%s/text", dir);
    lctx_sys_mkdir_p(text_dir);
    snprintf(path, sizeof path, "%s/%s.case", text_dir, stem);
    FILE *f = lctx_sys_fopen_in(path, "w");
    if (f) {
      const char *key = failing       ? r->result.key
                        : recorded[0] ? recorded
                                      : "(none recorded)";
      fprintf(f,
              "# Regression of fuzz_model: %s\n# key: %s\n# %s; the expect "
              "lines are the reference's outcomes when promoted\n%s%s",
              input, key, failing ? "it fails today" : "it passes today",
              left ? "# (some operations have none: their texts would pass "
                     "the case's limit)\n"
                   : "",
              text);
      fclose(f);
      lctx_escaped shown;
      fprintf(r->out, "readable twin: %s\n", lctx_esc(&shown, path));
    }
  }
  free(c);
  free(e);
  free(text);
}

/* Whether `root` is `replayed` (NULL: none), the source tree's
 * corpus/regressions, which make test replays. */
static bool is_source_regressions(const char *root, const char *replayed) {
  struct stat a, b;
  return replayed && stat(root, &a) == 0 && stat(replayed, &b) == 0 &&
         a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Says what is true of the promoted input where it was written: whether it
 * fails today and what replays it. */
static void print_what_replays(const replay_ctx *r, const char *root,
                               const char *replayed, const char *path,
                               bool failing) {
  lctx_escaped b1, b2;
  fprintf(r->out, "%s\n", failing ? "it fails today" : "it passes today");
  fprintf(r->out, "replay it with: lctx replay --target %s %s\n",
          r->target->name, lctx_esc(&b1, path));
  if (is_source_regressions(root, replayed))
    fprintf(r->out, "%s\n",
            failing ? "make test replays it: it will fail until the bug is "
                      "fixed"
                    : "make test replays it and keeps it passing");
  else
    fprintf(r->out,
            "make test does not replay %s (it replays the source tree's "
            "corpus/regressions)\n",
            lctx_esc(&b2, root));
}

/* Writes the regression input (and twin). Returns an exit code. */
static int keep(replay_ctx *r, const lctx_replay_promote_options *o,
                const char *input, const char *data, size_t size) {
  bool failing = check_input(r, (const uint8_t *)data, size);
  const char *name = r->target->name;
  char stem[600], dir[4200], path[4900], recorded[512];
  recorded_key(o->finding, recorded, sizeof recorded);
  stem_of(r, o->name, failing, recorded, data, size, stem, sizeof stem);
  const char *root = o->to ? o->to : o->regressions;
  if (!root) {
    fprintf(r->err, "lctx promote: no regression root: give --to DIR\n");
    return LCTX_EXIT_USAGE;
  }
  snprintf(dir, sizeof dir, "%s/%s", root, name);
  lctx_escaped b1, b2;
  if (!lctx_sys_mkdir_p(dir)) {
    fprintf(r->err, "lctx promote: %s: cannot create: %s\n", lctx_esc(&b1, dir),
            strerror(errno));
    return LCTX_EXIT_USAGE;
  }
  /* The inputs' form: case text, a spec table, else bytes (as the seeds
   * and regressions of each target are named). */
  const char *ext = strcmp(name, "fuzz_case_text") == 0 ? ".case"
                    : strcmp(name, "fuzz_spec") == 0    ? ".lspec"
                                                        : ".bin";
  snprintf(path, sizeof path, "%s/%s%s", dir, stem, ext);
  if (!lctx_sys_write_file(path, data, size)) {
    fprintf(r->err, "lctx promote: %s: cannot write: %s\n", lctx_esc(&b1, path),
            lctx_sys_file_error(errno));
    return LCTX_EXIT_USAGE;
  }
  fprintf(r->out, "promoted %s -> %s\n", lctx_esc(&b1, input),
          lctx_esc(&b2, path));
  if (strcmp(name, "fuzz_model") == 0)
    write_twin(r, dir, stem, input, data, size, failing, recorded);
  print_what_replays(r, root, o->replayed, path, failing);
  return LCTX_EXIT_OK;
}

int lctx_replay_promote(const lctx_replay_promote_options *o, FILE *out,
                        FILE *err) {
  char input[4200];
  char *data = NULL;
  size_t size = 0;
  if (!read_finding(o->finding, input, sizeof input, &data, &size, err))
    return LCTX_EXIT_USAGE;
  replay_ctx *r = lctx_sys_alloc(sizeof *r, "lctx promote", err);
  int code = LCTX_EXIT_USAGE;
  if (r) {
    r->out = out;
    r->err = err;
    r->plugin = o->plugin;
    lctx_escaped b;
    r->target = o->target ? lctx_fuzz_target_find(o->target)
                          : lctx_findings_target_of_path(o->finding);
    char names[256];
    lctx_findings_target_names("|", names, sizeof names);
    if (r->target)
      code = keep(r, o, input, data, size);
    else
      fprintf(err,
              "lctx promote: cannot tell the target of %s; give --target "
              "%s\n",
              lctx_esc(&b, o->finding), names);
    lctx_fuzzrun_free(r->run);
  }
  free(r);
  free(data);
  return code;
}
