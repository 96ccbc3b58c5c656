/*
 * campaign.c - fuzz campaigns, replay and promotion (see campaign.h).
 */
#include "campaign.h"

#include "case_bytes.h"
#include "case_text.h"
#include "exit.h"
#include "fuzzcheck.h"
#include "fuzzrun.h"
#include "oracle.h"
#include "sys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef LCTX_SOURCE_DIR
#define LCTX_SOURCE_DIR "."
#endif

#define MAX_INPUT (1 << 20)
#define MAX_JOBS 16

//===----------------------------------------------------------------------===//
// Small file helpers
//===----------------------------------------------------------------------===//

/* A fuzz target by name: any row of fuzzcheck.c's table (fuzzrun.h runs
 * it). */
static const lctx_fuzz_target *find_target(const char *name) {
  return lctx_fuzz_target_find(name);
}

static bool is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Reads up to `cap` bytes; returns the size or -1. */
static long read_bytes(const char *path, uint8_t *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return -1;
  size_t n = fread(buf, 1, cap, f);
  bool bad = ferror(f) != 0;
  fclose(f);
  return bad ? -1 : (long)n;
}

static bool write_bytes(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return false;
  bool ok = fwrite(data, 1, n, f) == n;
  return fclose(f) == 0 && ok;
}

static void sleep_seconds(double s) {
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL);
}

static uint64_t fnv1a(const void *data, size_t n) {
  const uint8_t *p = data;
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

/* A set of 64-bit hashes (file names already processed). */
typedef struct seen_set {
  uint64_t *slots;
  size_t capacity, count;
} seen_set;

static bool seen_add(seen_set *s, uint64_t h) {
  if (h == 0)
    h = 1;
  if (2 * (s->count + 1) > s->capacity) {
    size_t cap = s->capacity ? 2 * s->capacity : 1024;
    uint64_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
      return false;
    for (size_t i = 0; i < s->capacity; i++) {
      if (!s->slots[i])
        continue;
      size_t k = s->slots[i] & (cap - 1);
      while (slots[k])
        k = (k + 1) & (cap - 1);
      slots[k] = s->slots[i];
    }
    free(s->slots);
    s->slots = slots;
    s->capacity = cap;
  }
  size_t k = h & (s->capacity - 1);
  while (s->slots[k]) {
    if (s->slots[k] == h)
      return false;
    k = (k + 1) & (s->capacity - 1);
  }
  s->slots[k] = h;
  s->count++;
  return true;
}

/* Calls fn(path) for every regular file of `dir` (non-recursive). */
static void each_file(const char *dir, void (*fn)(void *, const char *),
                      void *user) {
  DIR *d = opendir(dir);
  if (!d)
    return;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (e->d_name[0] == '.')
      continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (is_file(path))
      fn(user, path);
  }
  closedir(d);
}

//===----------------------------------------------------------------------===//
// Findings
//===----------------------------------------------------------------------===//

static uint8_t g_input[MAX_INPUT];
static uint8_t g_trial[MAX_INPUT];
static lctx_fuzz_result g_result;

/* The key as a directory name: safe characters only. */
static void key_dirname(const char *key, char *out, size_t cap) {
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

typedef struct campaign {
  const lctx_fuzz_target *target;
  const char *engine;
  const char *out_dir;
  const char *binary;
  /* Runs one input and prints LCTX-FINDING: the engine binary itself for
   * libFuzzer (it runs file arguments once), the replay driver beside it for
   * AFL++. */
  char key_runner[4096];
  bool runner_reads_stdin;
  FILE *out;
  seen_set crashes_seen;
  size_t findings_new;
  size_t findings_duplicate;
  size_t findings_total;
  char new_keys[64][512]; /* directories of the new findings */
  char new_key_text[64][512];
} campaign;

/* Runs the key runner on `input` with a time limit, output to `log`.
 * Returns the wait status, or -1. */
static int run_once(const campaign *c, const char *input, const char *log,
                    double timeout) {
  char *args[3] = {(char *)c->key_runner,
                   c->runner_reads_stdin ? NULL : (char *)input, NULL};
  return lctx_sys_run_limited(args, log, c->runner_reads_stdin ? input : NULL,
                              NULL, NULL, timeout, NULL);
}

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

/* The semantic key of an input, as the engine's own build computes it (the
 * LCTX-FINDING line, or a sanitizer's SUMMARY line). Returns false when the
 * input does not fail there. */
static bool key_of(const campaign *c, const char *input, char *key, size_t cap,
                   char *report, size_t report_cap) {
  char log[4300];
  snprintf(log, sizeof log, "%s/logs/key-run.txt", c->out_dir);
  int status = run_once(c, input, log, 60);
  static char text[1 << 16];
  long n = read_bytes(log, (uint8_t *)text, sizeof text - 1);
  text[n > 0 ? n : 0] = '\0';
  if (report)
    snprintf(report, report_cap, "%s", text);
  if (find_line(text, "LCTX-FINDING ", key, cap))
    return true;
  char summary[400];
  if (find_line(text, "SUMMARY: ", summary, sizeof summary)) {
    snprintf(key, cap, "%s/sanitizer/%s", c->target->name, summary);
    return true;
  }
  if (status == -1 || (WIFEXITED(status) && WEXITSTATUS(status) == 0))
    return false;
  snprintf(key, cap, "%s/crash/%s-%d", c->target->name,
           WIFSIGNALED(status) ? "signal" : "exit",
           WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  return true;
}

/* Writes `data` to a scratch file and computes its key. */
static bool key_of_bytes(const campaign *c, const uint8_t *data, size_t n,
                         char *key, size_t cap) {
  char path[4300];
  snprintf(path, sizeof path, "%s/logs/trial.bin", c->out_dir);
  if (!write_bytes(path, data, n))
    return false;
  return key_of(c, path, key, cap, NULL, 0);
}

/* Shrinks `data` keeping the same key, running the engine's build; at most
 * `budget` trials. Returns the new size. */
static size_t minimize(const campaign *c, uint8_t *data, size_t n,
                       const char *want, int budget) {
  char key[512];
  int trials = 0;
  /* fuzz_model: the canonical encoding of the decoded case first. */
  if (strcmp(c->target->name, "fuzz_model") == 0 ||
      strcmp(c->target->name, "fuzz_differential") == 0) {
    static lctx_case decoded;
    lctx_case_decode(data, n, &decoded);
    size_t m = lctx_case_encode(&decoded, g_trial, sizeof g_trial);
    trials++;
    if (m <= sizeof g_trial && m < n &&
        key_of_bytes(c, g_trial, m, key, sizeof key) &&
        strcmp(key, want) == 0) {
      memcpy(data, g_trial, m);
      n = m;
    }
  }
  for (size_t chunk = n / 2; chunk >= 1 && trials < budget; chunk /= 2) {
    for (size_t i = 0; i + chunk <= n && trials < budget;) {
      memcpy(g_trial, data, i);
      memcpy(g_trial + i, data + i + chunk, n - i - chunk);
      trials++;
      if (key_of_bytes(c, g_trial, n - chunk, key, sizeof key) &&
          strcmp(key, want) == 0) {
        memcpy(data, g_trial, n - chunk);
        n -= chunk;
      } else {
        i += chunk;
      }
    }
  }
  return n;
}

static const char *replay_driver_hint(const char *target, char *buf,
                                      size_t cap) {
  snprintf(buf, cap, "%s/build/test/fuzzers/%s_replay", LCTX_SOURCE_DIR,
           target);
  return buf;
}

/* Writes a finding's minimized input, report and reproduction commands,
 * from g_input[0..m). */
static void finish_finding(campaign *c, const char *dir, const char *key,
                           const char *source, size_t original, size_t m) {
  const lctx_fuzz_target *t = c->target;
  char file[4300];
  snprintf(file, sizeof file, "%s/minimized", dir);
  write_bytes(file, g_input, m);
  static char report[1 << 16];
  char again[512];
  key_of(c, file, again, sizeof again, report, sizeof report);
  snprintf(file, sizeof file, "%s/report.txt", dir);
  FILE *f = fopen(file, "w");
  if (f) {
    fprintf(f,
            "key: %s\nfound by: %s under %s (%s), from %s\nminimized: %zu "
            "-> %zu bytes\n\n%s\n",
            key, t->name, c->engine, c->binary, source, original, m, report);
    fclose(f);
  }
  char hint[4200];
  snprintf(file, sizeof file, "%s/reproduce.txt", dir);
  f = fopen(file, "w");
  if (f) {
    fprintf(f,
            "# Reproduce with the build that found it:\n"
            "%s%s %s/minimized\n"
            "# with the replay driver (no engine, ASan+UBSan):\n"
            "%s %s/minimized\n"
            "# or with lctx (the same check, in-process):\n"
            "lctx replay --target %s %s/minimized\n"
            "# and keep it as a regression:\n"
            "lctx promote %s\n",
            c->key_runner, c->runner_reads_stdin ? " <" : "", dir,
            replay_driver_hint(t->name, hint, sizeof hint), dir, t->name, dir,
            dir);
    fclose(f);
  }
}

/* Turns one crash input into a finding (or counts it as a duplicate). */
static void record_crash(campaign *c, const char *path) {
  long n = read_bytes(path, g_input, sizeof g_input);
  if (n < 0)
    return;
  const lctx_fuzz_target *t = c->target;
  char key[512];
  if (!key_of(c, path, key, sizeof key, NULL, 0)) {
    /* The engine saw a crash that does not come back: keep it apart. */
    snprintf(key, sizeof key, "%s/not-reproduced/%016llx", t->name,
             (unsigned long long)fnv1a(g_input, (size_t)n));
  }
  char name[600], dir[4200], file[4300];
  key_dirname(key, name, sizeof name);
  snprintf(dir, sizeof dir, "%s/findings/%s", c->out_dir, name);
  c->findings_total++;
  if (is_dir(dir)) {
    c->findings_duplicate++;
    return;
  }
  if (!lctx_sys_mkdir_p(dir))
    return;
  snprintf(file, sizeof file, "%s/input", dir);
  write_bytes(file, g_input, (size_t)n);
  snprintf(file, sizeof file, "%s/key.txt", dir);
  write_bytes(file, key, strlen(key));
  if (c->findings_new < 64) {
    snprintf(c->new_keys[c->findings_new], sizeof c->new_keys[0], "%s", dir);
    snprintf(c->new_key_text[c->findings_new], sizeof c->new_key_text[0], "%s",
             key);
  }
  c->findings_new++;
  finish_finding(c, dir, key, path, (size_t)n, (size_t)n);
}

static void crash_visit(void *user, const char *path) {
  campaign *c = user;
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if (strncmp(base, "crash-", 6) != 0 && strncmp(base, "id:", 3) != 0 &&
      strncmp(base, "leak-", 5) != 0 && strncmp(base, "timeout-", 8) != 0 &&
      strncmp(base, "oom-", 4) != 0)
    return;
  if (!seen_add(&c->crashes_seen, fnv1a(path, strlen(path))))
    return;
  record_crash(c, path);
}

//===----------------------------------------------------------------------===//
// Rows hit by the corpus (fuzz_model)
//===----------------------------------------------------------------------===//

typedef struct rows_tracker {
  bool enabled;
  lctx_spec spec;
  lctx_oracle oracle;
  seen_set seen;
} rows_tracker;

static rows_tracker g_rows;

static void rows_visit(void *user, const char *path) {
  (void)user;
  if (!seen_add(&g_rows.seen, fnv1a(path, strlen(path))))
    return;
  long n = read_bytes(path, g_input, sizeof g_input);
  if (n < 0)
    return;
  static lctx_case c;
  lctx_case_decode(g_input, (size_t)n, &c);
  lctx_oracle_check_case(&g_rows.oracle, &c);
}

static size_t rows_hit(void) {
  size_t n = 0;
  for (size_t i = 0; i < g_rows.spec.row_count; i++)
    n += g_rows.oracle.hits[i] > 0;
  return n;
}

//===----------------------------------------------------------------------===//
// Engines
//===----------------------------------------------------------------------===//

static volatile sig_atomic_t g_stop;

static void on_signal(int sig) {
  (void)sig;
  g_stop = 1;
}

/* Starts argv in its own process group with stdout+stderr to `log`. */
static pid_t spawn(char *const argv[], const char *log, bool afl_env) {
  pid_t pid = fork();
  if (pid != 0)
    return pid;
  setpgid(0, 0);
  int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0666);
  if (fd >= 0) {
    dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
  }
  int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) {
    dup2(devnull, 0);
    close(devnull);
  }
  if (afl_env) {
    setenv("AFL_SKIP_CPUFREQ", "1", 1);
    setenv("AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES", "1", 1);
    setenv("AFL_NO_UI", "1", 1);
    setenv("AFL_AUTORESUME", "1", 1);
    setenv("AFL_NO_AFFINITY", "1", 1);
  }
  execvp(argv[0], argv);
  fprintf(stderr, "lctx fuzz: cannot run %s: %s\n", argv[0], strerror(errno));
  _exit(127);
}

typedef struct stats {
  double execs_per_sec;
  unsigned long corpus;
} stats;

/* Reads libFuzzer's last status line from its log. */
static void libfuzzer_stats(const char *log, stats *s) {
  FILE *f = fopen(log, "rb");
  if (!f)
    return;
  static char tail[65536];
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  long from = size > (long)sizeof tail - 1 ? size - (long)sizeof tail + 1 : 0;
  fseek(f, from, SEEK_SET);
  size_t n = fread(tail, 1, sizeof tail - 1, f);
  fclose(f);
  tail[n] = '\0';
  const char *last = NULL;
  for (const char *p = tail; (p = strstr(p, "exec/s: ")) != NULL; p++)
    last = p;
  if (!last)
    return;
  s->execs_per_sec = strtod(last + 8, NULL);
  const char *line = last;
  while (line > tail && line[-1] != '\n')
    line--;
  const char *corp = strstr(line, "corp: ");
  if (corp && corp < last)
    s->corpus = strtoul(corp + 6, NULL, 10);
}

/* Adds one AFL++ instance's fuzzer_stats. */
static void afl_stats(const char *path, stats *s) {
  FILE *f = fopen(path, "r");
  if (!f)
    return;
  char line[256];
  while (fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (!colon)
      continue;
    if (strncmp(line, "execs_per_sec", 13) == 0)
      s->execs_per_sec += strtod(colon + 1, NULL);
    else if (strncmp(line, "corpus_count", 12) == 0)
      s->corpus += strtoul(colon + 1, NULL, 10);
  }
  fclose(f);
}

typedef struct copy_job {
  const char *to;
} copy_job;

static void copy_one(void *user, const char *path) {
  const copy_job *job = user;
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if (strcmp(base, "README.md") == 0)
    return;
  long n = read_bytes(path, g_input, sizeof g_input);
  char dest[4500];
  snprintf(dest, sizeof dest, "%s/%s", job->to, base);
  if (n >= 0 && !is_file(dest))
    write_bytes(dest, g_input, (size_t)n);
}

/* Copies the regular top-level files of `from` into `to`. */
static void copy_seeds(const char *from, const char *to) {
  copy_job job = {to};
  each_file(from, copy_one, &job);
}

typedef struct fuzz_options {
  const char *engine;
  const char *target;
  double seconds;
  int jobs;
  const char *corpus;
  const char *out_dir;
  const char *binary;
} fuzz_options;

static void usage_fuzz(FILE *err) {
  fprintf(err, "usage: lctx fuzz --engine libfuzzer|afl --target NAME --time "
               "SECONDS [--jobs N]\n"
               "                 [--corpus DIR] [--out DIR] [--binary PATH]\n"
               "targets: fuzz_model, fuzz_case_text, fuzz_spec, "
               "fuzz_differential, fuzz_lowering\n");
}

static bool parse_number(const char *s, double min, double max, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
    return false;
  *out = v;
  return true;
}

int lctx_cmd_fuzz(int argc, char **argv, FILE *out, FILE *err) {
  fuzz_options o = {NULL, NULL, -1, 1, NULL, NULL, NULL};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    double num;
    if (strcmp(a, "--help") == 0) {
      usage_fuzz(out);
      return LCTX_EXIT_OK;
    }
    if (!v) {
      fprintf(err, "lctx fuzz: %s needs a value\n", a);
      usage_fuzz(err);
      return LCTX_EXIT_USAGE;
    }
    i++;
    if (strcmp(a, "--engine") == 0) {
      if (strcmp(v, "libfuzzer") != 0 && strcmp(v, "afl") != 0) {
        fprintf(err, "lctx fuzz: --engine: '%s' is not libfuzzer or afl\n", v);
        return LCTX_EXIT_USAGE;
      }
      o.engine = v;
    } else if (strcmp(a, "--target") == 0) {
      o.target = v;
    } else if (strcmp(a, "--time") == 0) {
      if (!parse_number(v, 1, 86400 * 30, &num)) {
        fprintf(err,
                "lctx fuzz: --time: '%s' is not a number of seconds "
                "(1 or more)\n",
                v);
        return LCTX_EXIT_USAGE;
      }
      o.seconds = num;
    } else if (strcmp(a, "--jobs") == 0) {
      if (!parse_number(v, 1, MAX_JOBS, &num) || num != (int)num) {
        fprintf(err,
                "lctx fuzz: --jobs: '%s' is not a whole number from 1 "
                "to %d\n",
                v, MAX_JOBS);
        return LCTX_EXIT_USAGE;
      }
      o.jobs = (int)num;
    } else if (strcmp(a, "--corpus") == 0) {
      o.corpus = v;
    } else if (strcmp(a, "--out") == 0) {
      o.out_dir = v;
    } else if (strcmp(a, "--binary") == 0) {
      o.binary = v;
    } else {
      fprintf(err, "lctx fuzz: unknown option '%s'\n", a);
      usage_fuzz(err);
      return LCTX_EXIT_USAGE;
    }
  }
  if (!o.engine || !o.target || o.seconds < 0) {
    fprintf(err, "lctx fuzz: --engine, --target and --time are required\n");
    usage_fuzz(err);
    return LCTX_EXIT_USAGE;
  }
  const lctx_fuzz_target *target = find_target(o.target);
  if (!target) {
    fprintf(err,
            "lctx fuzz: --target: unknown target '%s' (fuzz_model, "
            "fuzz_case_text, fuzz_spec, fuzz_differential, fuzz_lowering)\n",
            o.target);
    return LCTX_EXIT_USAGE;
  }
  bool afl = strcmp(o.engine, "afl") == 0;
  char binary[4096], out_dir[4096], seeds[4096], dict[4096];
  if (o.binary)
    snprintf(binary, sizeof binary, "%s", o.binary);
  else
    snprintf(binary, sizeof binary, "%s/build/%s/fuzzers/%s%s", LCTX_SOURCE_DIR,
             afl ? "afl" : "fuzz", o.target, afl ? "_afl" : "");
  if (!is_file(binary) || access(binary, X_OK) != 0) {
    fprintf(err,
            "lctx fuzz: %s: no %s build of %s (build it with: cmake --preset "
            "%s && cmake --build --preset %s)\n",
            binary, o.engine, o.target, afl ? "afl" : "fuzz",
            afl ? "afl" : "fuzz");
    return LCTX_EXIT_USAGE;
  }
  if (o.out_dir)
    snprintf(out_dir, sizeof out_dir, "%s", o.out_dir);
  else
    snprintf(out_dir, sizeof out_dir, "lctx-fuzz/%s-%s", o.target, o.engine);
  char seed_source[4096];
  snprintf(seed_source, sizeof seed_source, "%s/corpus/seeds/%s",
           LCTX_SOURCE_DIR, o.target);
  /* The engines read corpus folders recursively: hand them a flat copy of
   * the seeds, without the readable text twins. */
  snprintf(seeds, sizeof seeds, "%s/seeds", out_dir);
  snprintf(dict, sizeof dict, "%s/fuzzers/dict/%s.dict", LCTX_SOURCE_DIR,
           o.target);
  if (o.corpus && !is_dir(o.corpus)) {
    fprintf(err, "lctx fuzz: --corpus: %s is not a directory\n", o.corpus);
    return LCTX_EXIT_USAGE;
  }
  char corpus_dir[4200], artifacts[4200], logs[4200], afl_dir[4200],
      findings[4200];
  snprintf(corpus_dir, sizeof corpus_dir, "%s/corpus", out_dir);
  snprintf(artifacts, sizeof artifacts, "%s/artifacts", out_dir);
  snprintf(logs, sizeof logs, "%s/logs", out_dir);
  snprintf(afl_dir, sizeof afl_dir, "%s/afl", out_dir);
  snprintf(findings, sizeof findings, "%s/findings", out_dir);
  if (!lctx_sys_mkdir_p(corpus_dir) || !lctx_sys_mkdir_p(artifacts) ||
      !lctx_sys_mkdir_p(logs) || !lctx_sys_mkdir_p(findings) ||
      (afl && !lctx_sys_mkdir_p(afl_dir))) {
    fprintf(err, "lctx fuzz: %s: cannot create the campaign directory: %s\n",
            out_dir, strerror(errno));
    return LCTX_EXIT_USAGE;
  }
  if (!lctx_sys_mkdir_p(seeds)) {
    fprintf(err, "lctx fuzz: %s: cannot create: %s\n", seeds, strerror(errno));
    return LCTX_EXIT_USAGE;
  }
  copy_seeds(seed_source, seeds);
  {
    /* An engine needs at least one seed: the empty input will do. */
    char empty[4300];
    snprintf(empty, sizeof empty, "%s/empty", seeds);
    DIR *d = opendir(seeds);
    bool any = false;
    if (d) {
      for (struct dirent *e; (e = readdir(d)) != NULL;)
        any = any || e->d_name[0] != '.';
      closedir(d);
    }
    if (!any)
      write_bytes(empty, "", 0);
  }
  bool resumed = false;
  {
    DIR *d = opendir(afl ? afl_dir : corpus_dir);
    if (d) {
      for (struct dirent *e; (e = readdir(d)) != NULL;)
        resumed = resumed || e->d_name[0] != '.';
      closedir(d);
    }
  }

  /* Rows hit: only fuzz_model inputs are cases. */
  g_rows.enabled = strcmp(o.target, "fuzz_model") == 0 ||
                   strcmp(o.target, "fuzz_differential") == 0;
  if (g_rows.enabled) {
    char e[256];
    lctx_buf eb;
    lctx_buf_init(&eb, e, sizeof e);
    lctx_str spec = lctx_fuzz_embedded_spec();
    g_rows.enabled =
        lctx_spec_parse(spec.data, spec.length, "<spec>", &g_rows.spec, &eb);
    lctx_oracle_init(&g_rows.oracle, &g_rows.spec, lctx_engine_reference());
    g_rows.oracle.invariants = false;
    if (g_rows.enabled)
      each_file(seeds, rows_visit, NULL); /* the corpus starts from these */
  }

  /* Start the engine(s). */
  pid_t pids[MAX_JOBS];
  int npids = 0;
  char log[4300];
  char time_arg[64], jobs_arg[64], artifact_arg[4300], dict_arg[4300];
  snprintf(time_arg, sizeof time_arg, "%d", (int)o.seconds);
  if (!afl) {
    snprintf(log, sizeof log, "%s/libfuzzer.log", logs);
    snprintf(time_arg, sizeof time_arg, "-max_total_time=%d", (int)o.seconds);
    snprintf(jobs_arg, sizeof jobs_arg, "-fork=%d", o.jobs);
    snprintf(artifact_arg, sizeof artifact_arg, "-artifact_prefix=%s/",
             artifacts);
    snprintf(dict_arg, sizeof dict_arg, "-dict=%s", dict);
    char *args[16];
    int n = 0;
    args[n++] = binary;
    args[n++] = jobs_arg;
    args[n++] = "-ignore_crashes=1";
    args[n++] = "-ignore_timeouts=1";
    args[n++] = "-ignore_ooms=1";
    args[n++] = time_arg;
    args[n++] = artifact_arg;
    args[n++] = "-print_final_stats=1";
    if (is_file(dict))
      args[n++] = dict_arg;
    args[n++] = corpus_dir;
    if (is_dir(seeds))
      args[n++] = seeds;
    if (o.corpus)
      args[n++] = (char *)o.corpus;
    args[n] = NULL;
    pids[npids++] = spawn(args, log, false);
  } else {
    if (!is_dir(seeds)) {
      fprintf(err, "lctx fuzz: %s: AFL++ needs seeds\n", seeds);
      return LCTX_EXIT_USAGE;
    }
    for (int j = 0; j < o.jobs; j++) {
      char name[32], role[8], afl_log[4300];
      snprintf(name, sizeof name, j == 0 ? "main" : "secondary%d", j);
      snprintf(role, sizeof role, j == 0 ? "-M" : "-S");
      snprintf(afl_log, sizeof afl_log, "%s/afl-%s.log", logs, name);
      char *args[20];
      int n = 0;
      args[n++] = "afl-fuzz";
      args[n++] = "-i";
      args[n++] = o.corpus ? (char *)o.corpus : seeds;
      args[n++] = "-o";
      args[n++] = afl_dir;
      args[n++] = role;
      args[n++] = name;
      args[n++] = "-V";
      args[n++] = time_arg;
      if (is_file(dict)) {
        args[n++] = "-x";
        args[n++] = dict;
      }
      args[n++] = "--";
      args[n++] = binary;
      args[n] = NULL;
      pids[npids++] = spawn(args, afl_log, true);
    }
  }

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  g_stop = 0;

  campaign c;
  memset(&c, 0, sizeof c);
  c.target = target;
  c.engine = o.engine;
  c.out_dir = out_dir;
  c.binary = binary;
  c.out = out;
  if (afl) {
    /* The replay driver beside the AFL++ build reads a file argument. */
    char driver[4300];
    const char *slash = strrchr(binary, '/');
    snprintf(driver, sizeof driver, "%.*s%s_replay",
             slash ? (int)(slash + 1 - binary) : 0, binary, o.target);
    if (is_file(driver)) {
      snprintf(c.key_runner, sizeof c.key_runner, "%s", driver);
    } else {
      snprintf(c.key_runner, sizeof c.key_runner, "%s", binary);
      c.runner_reads_stdin = true;
    }
  } else {
    snprintf(c.key_runner, sizeof c.key_runner, "%s", binary);
  }
  bool tty = isatty(fileno(out)) != 0;
  fprintf(out,
          "lctx fuzz: %s under %s, %d job(s), %.0f s%s; campaign in %s\n"
          "  (Ctrl-C stops it early and keeps the corpus and findings)\n",
          o.target, o.engine, o.jobs, o.seconds,
          resumed ? ", resuming the existing corpus" : "", out_dir);
  fflush(out);
  double start = lctx_sys_now(), last_line = 0;
  int alive = npids;
  bool stopping = false;
  double stop_at = 0;
  stats st = {0, 0};
  while (alive > 0) {
    sleep_seconds(0.5);
    for (int j = 0; j < npids; j++) {
      if (pids[j] > 0 && waitpid(pids[j], NULL, WNOHANG) == pids[j]) {
        pids[j] = -1;
        alive--;
      }
    }
    double elapsed = lctx_sys_now() - start;
    if (!stopping && (g_stop || elapsed > o.seconds + 30)) {
      stopping = true;
      stop_at = lctx_sys_now();
      for (int j = 0; j < npids; j++) {
        if (pids[j] > 0)
          kill(-pids[j], SIGINT);
      }
    }
    if (stopping && lctx_sys_now() - stop_at > 10) {
      for (int j = 0; j < npids; j++) {
        if (pids[j] > 0)
          kill(-pids[j], SIGKILL);
      }
    }
    /* Findings and rows. */
    st.execs_per_sec = 0;
    st.corpus = 0;
    if (!afl) {
      libfuzzer_stats(log, &st);
      each_file(artifacts, crash_visit, &c);
      if (g_rows.enabled)
        each_file(corpus_dir, rows_visit, NULL);
    } else {
      DIR *d = opendir(afl_dir);
      if (d) {
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
          if (e->d_name[0] == '.')
            continue;
          char path[4700];
          snprintf(path, sizeof path, "%s/%s/fuzzer_stats", afl_dir, e->d_name);
          afl_stats(path, &st);
          snprintf(path, sizeof path, "%s/%s/crashes", afl_dir, e->d_name);
          each_file(path, crash_visit, &c);
          if (g_rows.enabled) {
            snprintf(path, sizeof path, "%s/%s/queue", afl_dir, e->d_name);
            each_file(path, rows_visit, NULL);
          }
        }
        closedir(d);
      }
    }
    if (tty || elapsed - last_line >= 10 || alive == 0) {
      char rows[64] = "n/a";
      if (g_rows.enabled)
        snprintf(rows, sizeof rows, "%zu/%zu", rows_hit(),
                 g_rows.spec.row_count);
      fprintf(out,
              "%s[%5.0fs] exec/s %9.0f  corpus %6lu  findings %zu (%zu "
              "unique)  spec rows hit %s%s",
              tty ? "\r" : "", elapsed, st.execs_per_sec, st.corpus,
              c.findings_total, c.findings_new, rows, tty ? "\033[K" : "\n");
      fflush(out);
      last_line = elapsed;
    }
  }
  if (tty)
    fputc('\n', out);
  /* Minimize the new findings, within a time budget. */
  double budget = o.seconds / 2 < 10    ? 10
                  : o.seconds / 2 > 120 ? 120
                                        : o.seconds / 2;
  double budget_end = lctx_sys_now() + budget;
  for (size_t i = 0; i < c.findings_new && i < 64 && !g_stop; i++) {
    char file[4300];
    snprintf(file, sizeof file, "%s/input", c.new_keys[i]);
    long n = read_bytes(file, g_input, sizeof g_input);
    if (n < 0 || strstr(c.new_key_text[i], "/not-reproduced/") ||
        lctx_sys_now() > budget_end)
      continue;
    fprintf(out, "minimizing %s ...", c.new_key_text[i]);
    fflush(out);
    size_t m = minimize(&c, g_input, (size_t)n, c.new_key_text[i], 200);
    fprintf(out, " %ld -> %zu bytes\n", n, m);
    finish_finding(&c, c.new_keys[i], c.new_key_text[i], file, (size_t)n, m);
  }
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);

  /* Count every finding in the directory (earlier runs included). */
  size_t unique = 0;
  DIR *d = opendir(findings);
  if (d) {
    for (struct dirent *e; (e = readdir(d)) != NULL;)
      unique += e->d_name[0] != '.';
    closedir(d);
  }
  char summary[4300];
  snprintf(summary, sizeof summary, "%s/summary.txt", out_dir);
  FILE *sf = fopen(summary, "w");
  for (int pass = 0; pass < 2; pass++) {
    FILE *w = pass == 0 ? out : sf;
    if (!w)
      continue;
    fprintf(w,
            "lctx fuzz: %s under %s %s after %.0f s: %zu crash input(s) "
            "this run, %zu new finding(s), %zu finding(s) in all\n",
            o.target, o.engine, g_stop ? "stopped" : "finished",
            lctx_sys_now() - start, c.findings_total, c.findings_new, unique);
    if (g_rows.enabled)
      fprintf(w, "  spec rows hit by the corpus: %zu of %zu\n", rows_hit(),
              g_rows.spec.row_count);
    fprintf(w, "  corpus:   %s\n  findings: %s\n  logs:     %s\n",
            afl ? afl_dir : corpus_dir, findings, logs);
    for (size_t i = 0; i < c.findings_new && i < 64; i++)
      fprintf(w, "  new finding: %s\n    reproduce: see %s/reproduce.txt\n",
              c.new_keys[i], c.new_keys[i]);
  }
  if (sf)
    fclose(sf);
  free(c.crashes_seen.slots);
  free(g_rows.seen.slots);
  memset(&g_rows.seen, 0, sizeof g_rows.seen);
  return unique > 0 ? LCTX_EXIT_VIOLATIONS : LCTX_EXIT_OK;
}

//===----------------------------------------------------------------------===//
// replay
//===----------------------------------------------------------------------===//

typedef struct replay_run {
  const lctx_fuzz_target *target;
  FILE *out;
  size_t inputs, failures;
  bool verbose;
  bool unusable; /* the target cannot run (no implementation to compare) */
} replay_run;

static void replay_one(void *user, const char *path) {
  replay_run *r = user;
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if (strcmp(base, "README.md") == 0)
    return;
  long n = read_bytes(path, g_input, sizeof g_input);
  if (n < 0) {
    fprintf(r->out, "ERROR %s: cannot read\n", path);
    r->failures++;
    return;
  }
  r->inputs++;
  if (r->unusable)
    return;
  if (lctx_fuzzrun_once(r->target, g_input, (size_t)n, &g_result) &&
      strstr(g_result.key, "/no-implementation")) {
    /* Not a finding: the target cannot run here at all. */
    fprintf(stderr, "lctx replay: %s\n", g_result.report);
    r->unusable = true;
    return;
  }
  if (g_result.failed) {
    r->failures++;
    fprintf(r->out, "FINDING %s\n  key: %s\n%s\n", path, g_result.key,
            g_result.report);
  } else if (r->verbose) {
    fprintf(r->out, "ok %s\n", path);
  }
}

/* The target a path belongs to: a directory component named after one. */
static const lctx_fuzz_target *target_of_path(const char *path) {
  for (const lctx_fuzz_target *t = lctx_fuzz_targets; t->name; t++) {
    char needle[64];
    snprintf(needle, sizeof needle, "/%s/", t->name);
    if (strstr(path, needle) ||
        strncmp(path, needle + 1, strlen(needle) - 1) == 0 ||
        strstr(path, t->name))
      return t;
  }
  return NULL;
}

int lctx_cmd_replay(int argc, char **argv, FILE *out, FILE *err) {
  const char *target_name = NULL;
  bool verbose = false;
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    if (strcmp(argv[i], "--target") == 0 && i + 1 < argc) {
      target_name = argv[++i];
    } else if (strcmp(argv[i], "--verbose") == 0) {
      verbose = true;
    } else {
      fprintf(err,
              "lctx replay: unknown option '%s' (usage: lctx replay "
              "[--target NAME] [--verbose] FILE|DIR...)\n",
              argv[i]);
      return LCTX_EXIT_USAGE;
    }
  }
  if (i >= argc) {
    fprintf(err, "lctx replay: no inputs (usage: lctx replay [--target NAME] "
                 "[--verbose] FILE|DIR...)\n");
    return LCTX_EXIT_USAGE;
  }
  replay_run r = {NULL, out, 0, 0, verbose, false};
  if (target_name) {
    r.target = find_target(target_name);
    if (!r.target) {
      fprintf(err, "lctx replay: --target: unknown target '%s'\n", target_name);
      return LCTX_EXIT_USAGE;
    }
  }
  for (; i < argc; i++) {
    const lctx_fuzz_target *t = r.target ? r.target : target_of_path(argv[i]);
    if (!t) {
      fprintf(err,
              "lctx replay: %s: cannot tell the target from the path; "
              "give --target\n",
              argv[i]);
      return LCTX_EXIT_USAGE;
    }
    replay_run one = r;
    one.target = t;
    if (is_dir(argv[i])) {
      each_file(argv[i], replay_one, &one);
    } else if (is_file(argv[i])) {
      replay_one(&one, argv[i]);
    } else {
      fprintf(err, "lctx replay: %s: no such file or directory\n", argv[i]);
      return LCTX_EXIT_USAGE;
    }
    r.inputs = one.inputs;
    r.failures = one.failures;
    if (one.unusable)
      return LCTX_EXIT_USAGE;
  }
  fprintf(out, "replay: %zu inputs, %zu findings\n", r.inputs, r.failures);
  return r.failures ? LCTX_EXIT_VIOLATIONS : LCTX_EXIT_OK;
}

//===----------------------------------------------------------------------===//
// promote
//===----------------------------------------------------------------------===//

static char g_text[LCTX_CASE_TEXT_MAX];

int lctx_cmd_promote(int argc, char **argv, FILE *out, FILE *err) {
  const char *name = NULL, *target_name = NULL, *dest_root = NULL;
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    if (strcmp(argv[i], "--name") == 0 && i + 1 < argc)
      name = argv[++i];
    else if (strcmp(argv[i], "--target") == 0 && i + 1 < argc)
      target_name = argv[++i];
    else if (strcmp(argv[i], "--to") == 0 && i + 1 < argc)
      dest_root = argv[++i];
    else {
      fprintf(err,
              "lctx promote: unknown option '%s' (usage: lctx promote "
              "[--name NAME] [--target T] [--to DIR] FINDING)\n",
              argv[i]);
      return LCTX_EXIT_USAGE;
    }
  }
  if (argc - i != 1) {
    fprintf(err, "lctx promote: expected one finding (a findings/KEY "
                 "directory or an input file)\n");
    return LCTX_EXIT_USAGE;
  }
  const char *finding = argv[i];
  char input[4200];
  if (is_dir(finding)) {
    snprintf(input, sizeof input, "%s/minimized", finding);
    if (!is_file(input))
      snprintf(input, sizeof input, "%s/input", finding);
  } else {
    snprintf(input, sizeof input, "%s", finding);
  }
  long n = read_bytes(input, g_input, sizeof g_input);
  if (n < 0) {
    fprintf(err, "lctx promote: %s: cannot read: %s\n", input, strerror(errno));
    return LCTX_EXIT_USAGE;
  }
  const lctx_fuzz_target *t =
      target_name ? find_target(target_name) : target_of_path(finding);
  if (!t) {
    fprintf(err,
            "lctx promote: cannot tell the target of %s; give --target "
            "fuzz_model|fuzz_case_text|fuzz_spec|fuzz_differential|"
            "fuzz_lowering\n",
            finding);
    return LCTX_EXIT_USAGE;
  }
  bool failing = lctx_fuzzrun_once(t, g_input, (size_t)n, &g_result);
  char stem[600];
  if (name)
    snprintf(stem, sizeof stem, "%s", name);
  else if (failing)
    key_dirname(g_result.key, stem, sizeof stem);
  else
    snprintf(stem, sizeof stem, "input-%016llx",
             (unsigned long long)fnv1a(g_input, (size_t)n));
  for (char *p = stem; *p; p++) {
    if (*p == '/')
      *p = '_';
  }
  char dir[4200], path[4900];
  snprintf(dir, sizeof dir, "%s/%s",
           dest_root ? dest_root : LCTX_SOURCE_DIR "/corpus/regressions",
           t->name);
  if (!lctx_sys_mkdir_p(dir)) {
    fprintf(err, "lctx promote: %s: cannot create: %s\n", dir, strerror(errno));
    return LCTX_EXIT_USAGE;
  }
  const char *ext = strcmp(t->name, "fuzz_model") == 0       ? ".bin"
                    : strcmp(t->name, "fuzz_case_text") == 0 ? ".case"
                                                             : ".lspec";
  snprintf(path, sizeof path, "%s/%s%s", dir, stem, ext);
  if (!write_bytes(path, g_input, (size_t)n)) {
    fprintf(err, "lctx promote: %s: cannot write: %s\n", path, strerror(errno));
    return LCTX_EXIT_USAGE;
  }
  fprintf(out, "promoted %s -> %s\n", input, path);
  if (strcmp(t->name, "fuzz_model") == 0) {
    /* The readable twin: the decoded case, with the finding's key. */
    static lctx_case c;
    lctx_case_decode(g_input, (size_t)n, &c);
    lctx_buf b;
    lctx_buf_init(&b, g_text, sizeof g_text);
    lctx_case_print(&c, &b);
    char text_dir[4300];
    snprintf(text_dir, sizeof text_dir, "%s/text", dir);
    lctx_sys_mkdir_p(text_dir);
    snprintf(path, sizeof path, "%s/%s.case", text_dir, stem);
    FILE *f = fopen(path, "w");
    if (f) {
      fprintf(f, "# Regression of fuzz_model: %s\n# key: %s\n%s", input,
              failing ? g_result.key : "(passes now)", g_text);
      fclose(f);
      fprintf(out, "readable twin: %s\n", path);
    }
  }
  fprintf(out, "%s\n",
          failing ? "it fails today: make test will fail until "
                    "the bug is fixed"
                  : "it passes today: make test keeps it so");
  return LCTX_EXIT_OK;
}
