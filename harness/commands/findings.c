/*
 * findings.c - keys, duplicates, reports and reproduction of a campaign's
 * findings (see findings.h).
 */
#include "findings.h"

#include "escape.h"
#include "file.h"
#include "finding_key.h"
#include "peer.h"
#include "rerun_cmd.h"
#include "sys.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The largest key-run output read; report.txt keeps its first 64 KiB. */
#define MAX_LOG (64u << 20)
#define REPORT_LOG 65535

void lctx_findings_init(lctx_findings *f, const lctx_fuzz_target *target,
                        const char *engine, const char *binary,
                        const char *out_dir) {
  memset(f, 0, sizeof *f);
  f->target = target;
  f->engine = engine;
  f->binary = binary;
  snprintf(f->dir, sizeof f->dir, "%s/findings", out_dir);
  snprintf(f->logs, sizeof f->logs, "%s/logs", out_dir);
  snprintf(f->key_runner, sizeof f->key_runner, "%s", binary);
  if (strcmp(engine, "afl") != 0)
    return;
  /* The replay driver beside the AFL++ build reads a file argument. */
  char driver[4300];
  const char *slash = strrchr(binary, '/');
  snprintf(driver, sizeof driver, "%.*s%s_replay",
           slash ? (int)(slash + 1 - binary) : 0, binary, target->name);
  /* Else the AFL++ build itself: libAFLDriver runs file arguments once. */
  if (lctx_sys_is_file(driver))
    snprintf(f->key_runner, sizeof f->key_runner, "%s", driver);
}

void lctx_findings_free(lctx_findings *f) {
  lctx_seen_free(&f->crashes_seen);
}

void lctx_findings_dirname(const char *key, char *out, size_t cap) {
  size_t n = 0;
  for (const char *k = key; *k && n + 2 < cap; k++) {
    char c = *k;
    if (c == '/') {
      out[n++] = '_';
      out[n++] = '_';
    } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
               (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '=') {
      out[n++] = c;
    } else {
      out[n++] = '_';
    }
  }
  out[n] = '\0';
}

void lctx_findings_target_names(const char *sep, char *out, size_t cap) {
  size_t n = 0;
  out[0] = '\0';
  for (const lctx_fuzz_target *t = lctx_fuzz_targets; t->name && n < cap; t++) {
    int w = snprintf(out + n, cap - n, "%s%s", n ? sep : "", t->name);
    n += w > 0 ? (size_t)w : 0;
  }
}

const lctx_fuzz_target *lctx_findings_target_of_path(const char *path) {
  for (const lctx_fuzz_target *t = lctx_fuzz_targets; t->name; t++) {
    if (strstr(path, t->name))
      return t;
  }
  return NULL;
}

//===----------------------------------------------------------------------===//
// Keys
//===----------------------------------------------------------------------===//

/* Copies the rest of the first line that starts with `prefix`. */
static bool find_line(const char *text, const char *prefix, char *out,
                      size_t cap) {
  size_t plen = strlen(prefix);
  for (const char *line = text; *line;) {
    if (strncmp(line, prefix, plen) == 0) {
      const char *p = line + plen;
      size_t n = 0;
      while (*p && *p != '\n' && n + 1 < cap)
        out[n++] = *p++;
      out[n] = '\0';
      return true;
    }
    const char *nl = strchr(line, '\n');
    if (!nl)
      break;
    line = nl + 1;
  }
  return false;
}

/* The sanitizer options of the key run: the caller's, then the dedup token
 * of the top 3 frames (the sanitizers' DEDUP_TOKEN line, which names
 * functions, never paths) and UBSan's stack, without which it has none. */
static void sanitizer_options(const char *name, const char *extra, char *out,
                              size_t cap) {
  const char *own = getenv(name);
  snprintf(out, cap, "%s%s%s", own && *own ? own : "", own && *own ? ":" : "",
           extra);
}

/* Runs the key runner on `input` with a time limit, output to `log`.
 * Returns the wait status, or -1. */
static int run_once(const lctx_findings *f, const char *input,
                    const char *log) {
  char *args[3] = {(char *)f->key_runner,
                   f->runner_reads_stdin ? NULL : (char *)input, NULL};
  char asan[1024], ubsan[1024];
  sanitizer_options("ASAN_OPTIONS", "dedup_token_length=3", asan, sizeof asan);
  sanitizer_options("UBSAN_OPTIONS", "dedup_token_length=3:print_stacktrace=1",
                    ubsan, sizeof ubsan);
  const char *env[] = {"ASAN_OPTIONS", asan, "UBSAN_OPTIONS", ubsan, NULL};
  lctx_peer_spec child = {.argv = args,
                          .log = log,
                          .truncate_log = true,
                          .stdin_path = f->runner_reads_stdin ? input : NULL,
                          .env = env};
  lctx_peer_ran ran;
  (void)lctx_peer_run(&child, 60, false, &ran, NULL);
  return ran.status;
}

/* The kind of a sanitizer's SUMMARY line without its location:
 * `AddressSanitizer-heap-buffer-overflow`, `AddressSanitizer-leak`. */
static void summary_kind(const char *summary, char *out, size_t cap) {
  size_t n = 0;
  int words = 0;
  for (const char *p = summary; *p && n + 1 < cap; p++) {
    if (*p == ':')
      continue;
    if (*p == ' ') {
      if (++words == 2 || n == 0)
        break;
      out[n++] = '-';
      continue;
    }
    out[n++] = *p;
  }
  out[n] = '\0';
  if (strstr(summary, " leaked in ")) { /* `N byte(s) leaked in ...` */
    char *dash = strchr(out, '-');
    if (dash && (size_t)(dash - out) + 6 < cap)
      strcpy(dash + 1, "leak");
  }
}

/* The key in a run's output and status; false when the run passed. A
 * sanitizer's finding is keyed by its kind and its DEDUP_TOKEN (the top
 * frames' functions), so the key does not change with the build folder. */
static bool key_of_run(const lctx_findings *f, const char *text, int status,
                       char *key, size_t cap) {
  if (lctx_finding_key_find(text, key, cap))
    return true;
  char summary[400];
  if (find_line(text, "SUMMARY: ", summary, sizeof summary)) {
    char kind[128], token[300];
    summary_kind(summary, kind, sizeof kind);
    if (!find_line(text, "DEDUP_TOKEN: ", token, sizeof token))
      snprintf(token, sizeof token, "-");
    snprintf(key, cap, "%s/sanitizer/%s/%s", f->target->name, kind, token);
    return true;
  }
  if (status == -1 || (WIFEXITED(status) && WEXITSTATUS(status) == 0))
    return false;
  snprintf(key, cap, "%s/crash/%s-%d", f->target->name,
           WIFSIGNALED(status) ? "signal" : "exit",
           WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  return true;
}

bool lctx_findings_key(const lctx_findings *f, const char *input, char *key,
                       size_t cap, char **log) {
  char path[4300];
  snprintf(path, sizeof path, "%s/key-run.txt", f->logs);
  int status = run_once(f, input, path);
  char *text = NULL;
  size_t length = 0;
  if (!lctx_file_read(path, MAX_LOG, &text, &length, NULL))
    text = calloc(1, 1);
  bool failed = text && key_of_run(f, text, status, key, cap);
  if (log)
    *log = text;
  else
    free(text);
  return failed;
}

bool lctx_findings_key_of_bytes(const lctx_findings *f, const uint8_t *data,
                                size_t size, char *key, size_t cap) {
  char path[4300];
  snprintf(path, sizeof path, "%s/trial.bin", f->logs);
  if (!lctx_sys_write_file(path, data, size))
    return false;
  return lctx_findings_key(f, path, key, cap, NULL);
}

//===----------------------------------------------------------------------===//
// Finding directories
//===----------------------------------------------------------------------===//

/* A path of the finding as an absolute path into `out` (as it is when it
 * cannot be made so: the line's `cd` still holds it). */
static void absolute(const char *path, char *out, size_t cap) {
  if (!lctx_rerun_absolute(path, out, cap))
    snprintf(out, cap, "%s", path);
}

/* The report's lines on what the target read from the environment: the
 * implementation fuzz_differential judged (the library LCTX_DIFF_PLUGIN
 * names, else the example plugin linked into the build: the name its table
 * gives is the example's for every mutant of it), and each variable of
 * lctx_rerun_target_env that is set. */
static void write_environment(FILE *w, const lctx_findings *f) {
  const char *plugin = getenv("LCTX_DIFF_PLUGIN");
  lctx_escaped e;
  char path[4400];
  if (strcmp(f->target->name, "fuzz_differential") == 0) {
    if (plugin && *plugin) {
      absolute(plugin, path, sizeof path);
      fprintf(w, "implementation: %s (LCTX_DIFF_PLUGIN)\n", lctx_esc(&e, path));
    } else {
      fputs("implementation: the example plugin linked into the build "
            "(LCTX_DIFF_PLUGIN unset)\n",
            w);
    }
  }
  for (const char *const *v = lctx_rerun_target_env; *v; v++) {
    char set[4400] = "";
    if (lctx_rerun_setting_of(set, sizeof set, *v) && set[0])
      fprintf(w, "environment: %s\n", lctx_esc(&e, set));
  }
}

/* Writes the text of the report: every text from outside lctx (the key,
 * the paths, the run's output) escaped as a terminal shows it, line by
 * line. */
static void write_report(const lctx_findings *f, const char *dir,
                         const char *key, const char *source, size_t original,
                         size_t size, const char *log) {
  char file[4400];
  snprintf(file, sizeof file, "%s/report.txt", dir);
  FILE *w = lctx_sys_fopen_in(file, "w");
  if (!w)
    return;
  size_t shown = strlen(log);
  shown = shown < REPORT_LOG ? shown : REPORT_LOG;
  char *cut = malloc(shown + 1);
  lctx_escaped k, b, src;
  char binary[4400], from[4400];
  absolute(f->binary, binary, sizeof binary);
  absolute(source, from, sizeof from);
  fprintf(w,
          "key: %s\nfound by: %s under %s (%s), from %s\nminimized: %zu "
          "-> %zu bytes\n",
          lctx_esc(&k, key), f->target->name, f->engine, lctx_esc(&b, binary),
          lctx_esc(&src, from), original, size);
  write_environment(w, f);
  fputc('\n', w);
  if (cut) {
    memcpy(cut, log, shown);
    cut[shown] = '\0';
    lctx_escape_lines(w, "", cut);
    free(cut);
  }
  fclose(w);
}

/* One shell line: the environment of a reproduction (the working folder,
 * then the variables the target and lctx read that are set), `program`
 * (NULL: none, the first word is the program) and each of `words`
 * (NULL-terminated) quoted as one shell word ("<" as it is). */
static void shell_line(FILE *w, const char *program, const char *const *words) {
  char line[16384];
  bool ok = lctx_rerun_begin(line, sizeof line, lctx_rerun_target_env);
  for (const char *const *v = lctx_rerun_lctx_env; ok && *v; v++)
    ok = lctx_rerun_setting_of(line, sizeof line, *v);
  ok = ok && (!program || lctx_rerun_shell_word(line, sizeof line, program));
  for (const char *const *x = words; ok && *x; x++) {
    size_t at = strlen(line);
    if (strcmp(*x, "<") == 0)
      snprintf(line + at, sizeof line - at, " %s", *x);
    else
      ok = lctx_rerun_shell_word(line, sizeof line, *x);
  }
  lctx_escaped e;
  if (!ok)
    fputs("# (this line does not fit in 16 KiB: paths too long)\n", w);
  else
    fprintf(w, "%s\n", lctx_esc(&e, line[0] == ' ' ? line + 1 : line));
}

/* The replay driver of `target` in the build tree of the running lctx
 * (BUILD/harness/lctx: BUILD/fuzzers/TARGET_replay) into `out`; false when
 * there is none. */
static bool driver_beside(const char *lctx, const char *target, char *out,
                          size_t cap) {
  const char *slash = strrchr(lctx, '/');
  size_t up = slash ? (size_t)(slash - lctx) : 0;
  while (up > 0 && lctx[up - 1] != '/')
    up--; /* BUILD/ */
  if (up == 0)
    return false;
  int w = snprintf(out, cap, "%.*sfuzzers/%s_replay", (int)up, lctx, target);
  return w > 0 && (size_t)w < cap && lctx_sys_is_file(out);
}

static void write_reproduce(const lctx_findings *f, const char *dir) {
  const char *name = f->target->name;
  char file[4400], input[4400], at[4400], runner[4400], binary[4400];
  char lctx[4400], driver[4400];
  snprintf(file, sizeof file, "%s/reproduce.txt", dir);
  FILE *w = lctx_sys_fopen_in(file, "w");
  if (!w)
    return;
  bool afl = strcmp(f->engine, "afl") == 0;
  absolute(dir, at, sizeof at);
  snprintf(input, sizeof input, "%s/minimized", at);
  absolute(f->key_runner, runner, sizeof runner);
  absolute(f->binary, binary, sizeof binary);
  lctx_rerun_program(lctx, sizeof lctx);
  fputs("# Each line runs from any folder, in an empty environment (it "
        "carries\n# the variables the target reads). Reproduce with the "
        "build that found it:\n",
        w);
  shell_line(w, NULL,
             (const char *const[]){runner, f->runner_reads_stdin ? "<" : input,
                                   f->runner_reads_stdin ? input : NULL, NULL});
  fputs("# or with lctx, running that build and keying as the campaign "
        "did:\n",
        w);
  shell_line(w, lctx,
             (const char *const[]){"replay", "--target", name, "--binary",
                                   binary, afl ? "--engine" : input,
                                   afl ? "afl" : NULL, input, NULL});
  fputs("# lctx's own check of this source tree, in process (a finding "
        "of\n# another build passes here unless the line names it):\n",
        w);
  shell_line(w, lctx,
             (const char *const[]){"replay", "--target", name, input, NULL});
  if (driver_beside(lctx, name, driver, sizeof driver)) {
    fputs("# the replay driver of lctx's build tree (no engine, "
          "ASan+UBSan):\n",
          w);
    shell_line(w, NULL, (const char *const[]){driver, input, NULL});
  }
  fputs("# and keep it as a regression:\n", w);
  shell_line(w, lctx, (const char *const[]){"promote", at, NULL});
  fclose(w);
}

bool lctx_findings_reproduce_line(const char *dir, char *buf, size_t n) {
  char file[4400];
  int w = snprintf(file, sizeof file, "%s/reproduce.txt", dir);
  char *text = NULL;
  size_t length = 0;
  if (w < 0 || (size_t)w >= sizeof file ||
      !lctx_file_read(file, 1u << 20, &text, &length, NULL))
    return false;
  bool found = false;
  for (const char *at = text; *at && !found;) {
    const char *end = strchr(at, '\n');
    size_t len = end ? (size_t)(end - at) : strlen(at);
    if (len > 0 && at[0] != '#') {
      found = len < n;
      if (found) {
        memcpy(buf, at, len);
        buf[len] = '\0';
      }
      break;
    }
    at = end ? end + 1 : at + len;
  }
  free(text);
  return found;
}

void lctx_findings_write(const lctx_findings *f, const char *dir,
                         const char *key, const char *source, size_t original,
                         const uint8_t *minimized, size_t size) {
  char file[4400];
  snprintf(file, sizeof file, "%s/minimized", dir);
  lctx_sys_write_file(file, minimized, size);
  char again[512];
  char *log = NULL;
  lctx_findings_key(f, file, again, sizeof again, &log);
  write_report(f, dir, key, source, original, size, log ? log : "");
  free(log);
  write_reproduce(f, dir);
}

/* Turns one crash input into a finding (or counts it as a duplicate). */
static void record_crash(lctx_findings *f, const char *path) {
  char *input = NULL;
  size_t n = 0;
  if (!lctx_file_read(path, LCTX_FINDINGS_MAX_INPUT, &input, &n, NULL))
    return;
  char key[512];
  if (!lctx_findings_key(f, path, key, sizeof key, NULL)) {
    /* The engine saw a crash that does not come back: keep it apart. */
    snprintf(key, sizeof key, "%s/not-reproduced/%016llx", f->target->name,
             (unsigned long long)lctx_seen_hash(input, n));
  }
  char name[600], dir[4300], file[4400];
  lctx_findings_dirname(key, name, sizeof name);
  snprintf(dir, sizeof dir, "%s/%s", f->dir, name);
  f->total++;
  if (lctx_sys_is_dir(dir)) {
    f->duplicates++;
  } else if (lctx_sys_mkdir_p(dir)) {
    /* Recorded first: a run that ends here leaves it to the next one. */
    if (!strstr(key, "/not-reproduced/"))
      lctx_findings_set_minimized(dir, false);
    snprintf(file, sizeof file, "%s/input", dir);
    lctx_sys_write_file(file, input, n);
    snprintf(file, sizeof file, "%s/key.txt", dir);
    lctx_sys_write_file(file, key, strlen(key));
    if (f->fresh < LCTX_FINDINGS_MAX_NEW) {
      snprintf(f->new_dirs[f->fresh], sizeof f->new_dirs[0], "%s", dir);
      snprintf(f->new_keys[f->fresh], sizeof f->new_keys[0], "%s", key);
    }
    f->fresh++;
    lctx_findings_write(f, dir, key, path, n, (const uint8_t *)input, n);
  }
  free(input);
}

void lctx_findings_take(lctx_findings *f, const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if (strncmp(base, "crash-", 6) != 0 && strncmp(base, "id:", 3) != 0 &&
      strncmp(base, "leak-", 5) != 0 && strncmp(base, "timeout-", 8) != 0 &&
      strncmp(base, "oom-", 4) != 0)
    return;
  if (!lctx_seen_add(&f->crashes_seen, path))
    return;
  record_crash(f, path);
}

size_t lctx_findings_count(const lctx_findings *f) {
  return lctx_sys_count_entries(f->dir);
}

bool lctx_findings_unminimized(const char *dir) {
  char file[4400];
  snprintf(file, sizeof file, "%s/%s", dir, LCTX_FINDINGS_UNMINIMIZED);
  return lctx_sys_is_file(file);
}

bool lctx_findings_set_minimized(const char *dir, bool minimized) {
  char file[4400];
  snprintf(file, sizeof file, "%s/%s", dir, LCTX_FINDINGS_UNMINIMIZED);
  if (!minimized)
    return lctx_sys_write_file(file, "", 0);
  return unlink(file) == 0 || errno == ENOENT;
}

static void count_unminimized(void *user, const char *dir) {
  *(size_t *)user += lctx_findings_unminimized(dir);
}

size_t lctx_findings_count_unminimized(const lctx_findings *f) {
  size_t n = 0;
  lctx_sys_each_entry(f->dir, count_unminimized, &n);
  return n;
}
