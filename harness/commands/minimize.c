/*
 * minimize.c - shrinking findings while they keep their key, and corpora
 * while they keep their coverage (see minimize.h).
 */
#define _GNU_SOURCE /* renameat2 */
#include "minimize.h"

#include "case_bytes.h"
#include "corpus_rows.h"
#include "escape.h"
#include "exit.h"
#include "file.h"
#include "oracle.h"
#include "peer.h"
#include "seeds.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Whether `trial[0..size)` still has the key `want`. */
static bool same_key(const lctx_findings *f, const uint8_t *trial, size_t size,
                     const char *want) {
  char key[512];
  return lctx_findings_key_of_bytes(f, trial, size, key, sizeof key) &&
         strcmp(key, want) == 0;
}

/* fuzz_model, fuzz_differential: the canonical encoding of the decoded case,
 * when it is shorter and keeps the key. Returns the new size. */
static size_t canonical(const lctx_findings *f, uint8_t *data, size_t size,
                        uint8_t *trial, const char *want) {
  lctx_case *decoded = malloc(sizeof *decoded);
  if (!decoded)
    return size;
  lctx_case_decode(data, size, decoded);
  size_t m = lctx_case_encode(decoded, trial, LCTX_FINDINGS_MAX_INPUT);
  free(decoded);
  if (m <= LCTX_FINDINGS_MAX_INPUT && m < size && same_key(f, trial, m, want)) {
    memcpy(data, trial, m);
    return m;
  }
  return size;
}

size_t lctx_minimize_input(const lctx_findings *f, uint8_t *data, size_t size,
                           const char *want, int budget) {
  uint8_t *trial = malloc(LCTX_FINDINGS_MAX_INPUT);
  if (!trial)
    return size;
  int trials = 0;
  const char *target = f->target->name;
  if (strcmp(target, "fuzz_model") == 0 ||
      strcmp(target, "fuzz_differential") == 0) {
    size = canonical(f, data, size, trial, want);
    trials++;
  }
  for (size_t chunk = size / 2;
       chunk >= 1 && trials < budget && !lctx_sys_interrupted(); chunk /= 2) {
    for (size_t i = 0;
         i + chunk <= size && trials < budget && !lctx_sys_interrupted();) {
      memcpy(trial, data, i);
      memcpy(trial + i, data + i + chunk, size - i - chunk);
      trials++;
      if (same_key(f, trial, size - chunk, want)) {
        memcpy(data, trial, size - chunk);
        size -= chunk;
      } else {
        i += chunk;
      }
    }
  }
  free(trial);
  return size;
}

/* The pass over the findings directory (lctx_minimize_pending). */
typedef struct pending {
  const lctx_findings *f;
  uint8_t *data;
  double end;
  FILE *out;
  size_t done;
} pending;

/* Minimizes one finding directory when it waits for it. */
static void minimize_one(void *user, const char *dir) {
  pending *p = user;
  if (!lctx_findings_unminimized(dir) || lctx_sys_interrupted() ||
      lctx_sys_now() > p->end)
    return;
  char file[4400], key[512];
  snprintf(file, sizeof file, "%s/key.txt", dir);
  char *text = NULL, *input = NULL;
  size_t n = 0;
  if (!lctx_file_read(file, sizeof key - 1, &text, &n, NULL))
    return;
  snprintf(key, sizeof key, "%.*s", (int)strcspn(text, "\n"), text);
  free(text);
  snprintf(file, sizeof file, "%s/input", dir);
  if (!lctx_file_read(file, LCTX_FINDINGS_MAX_INPUT, &input, &n, NULL))
    return;
  memcpy(p->data, input, n);
  free(input);
  lctx_escaped b;
  fprintf(p->out, "minimizing %s ...", lctx_esc(&b, key));
  fflush(p->out);
  size_t m = lctx_minimize_input(p->f, p->data, n, key, 200);
  bool finished = !lctx_sys_interrupted();
  fprintf(p->out, " %zu -> %zu bytes%s\n", n, m,
          finished ? "" : " (interrupted: left for the next run)");
  lctx_findings_write(p->f, dir, key, file, n, p->data, m);
  if (finished && lctx_findings_set_minimized(dir, true))
    p->done++;
}

size_t lctx_minimize_pending(const lctx_findings *f, double seconds,
                             FILE *out) {
  pending p = {f, malloc(LCTX_FINDINGS_MAX_INPUT), lctx_sys_now() + seconds,
               out, 0};
  if (p.data)
    lctx_sys_each_entry(f->dir, minimize_one, &p);
  free(p.data);
  return p.done;
}

//===----------------------------------------------------------------------===//
// Corpora
//===----------------------------------------------------------------------===//

static size_t keep_rows(const char *target, const char *dir, const char *fresh,
                        FILE *err);

/* Runs `child` until it ends, `timeout` seconds at most, or an interrupt
 * (its process group is killed then). Returns the wait status, or -1. */
static int run_child(const lctx_peer_spec *child, double timeout) {
  lctx_peer_ran ran;
  (void)lctx_peer_run(child, timeout, true, &ran, NULL);
  return ran.stopped ? -1 : ran.status;
}

/* The engine's pass from `from` into the empty folder `fresh`, its output
 * in `log`, within `timeout` seconds. True when it ended well. */
static bool engine_pass(const char *from, bool afl, const char *binary,
                        const char *fresh, const char *log, double timeout) {
  if (!afl) {
    char *argv[] = {(char *)binary, "-merge=1", (char *)fresh, (char *)from,
                    NULL};
    lctx_peer_spec child = {.argv = argv, .log = log, .truncate_log = true};
    int st = run_child(&child, timeout);
    return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
  }
  /* afl-cmin feeds each input on standard input: libAFLDriver's `-`. It
   * refuses folders under /tmp unless AFL_ALLOW_TMP is set; the folder it
   * writes is lctx's own fresh one. */
  char *argv[] = {"afl-cmin", "-i",           (char *)from, "-o", (char *)fresh,
                  "--",       (char *)binary, "-",          NULL};
  const char *env[] = {"AFL_SKIP_CPUFREQ", "1", "AFL_NO_UI", "1",
                       "AFL_ALLOW_TMP",    "1", NULL};
  lctx_peer_spec child = {.argv = argv,
                          .search_path = true,
                          .log = log,
                          .truncate_log = true,
                          .env = env,
                          .who = "lctx corpus"};
  int st = run_child(&child, timeout);
  return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Puts `fresh` in the place of `dir` in one step where the system can;
 * the old corpus is removed. False with errno set. */
static bool swap_in(const char *fresh, const char *dir) {
#if defined(__linux__) && defined(RENAME_EXCHANGE)
  if (renameat2(AT_FDCWD, fresh, AT_FDCWD, dir, RENAME_EXCHANGE) == 0) {
    lctx_sys_remove_tree(fresh); /* it holds the old corpus now */
    return true;
  }
#endif
  char old[4300];
  snprintf(old, sizeof old, "%s.old-%ld", dir, (long)getpid());
  if (rename(dir, old) != 0)
    return false;
  if (rename(fresh, dir) != 0) {
    int e = errno;
    rename(old, dir);
    errno = e;
    return false;
  }
  lctx_sys_remove_tree(old);
  return true;
}

/* Checks the options and resolves the build; false after a message. */
static bool corpus_resolve(const lctx_corpus_options *o, bool *afl,
                           char *binary, size_t cap, FILE *err) {
  *afl = o->engine && strcmp(o->engine, "afl") == 0;
  lctx_escaped b;
  if (o->engine && !*afl && strcmp(o->engine, "libfuzzer") != 0) {
    fprintf(err, "lctx corpus: --engine: '%s' is not libfuzzer or afl\n",
            lctx_esc(&b, o->engine));
    return false;
  }
  if (!o->target || !lctx_fuzz_target_find(o->target)) {
    fprintf(err, "lctx corpus: --target: unknown target '%s'\n",
            lctx_esc(&b, o->target));
    return false;
  }
  if (!o->dir || !lctx_sys_is_dir(o->dir)) {
    fprintf(err, "lctx corpus: %s: not a directory\n", lctx_esc(&b, o->dir));
    return false;
  }
  if (o->binary)
    snprintf(binary, cap, "%s", o->binary);
  else
    lctx_data_fuzz_binary(o->data ? o->data : lctx_data_paths_current(),
                          o->target, *afl, binary, cap);
  if (!lctx_sys_is_file(binary) || access(binary, X_OK) != 0) {
    fprintf(err, "lctx corpus: %s: no %s build of %s\n", lctx_esc(&b, binary),
            *afl ? "afl" : "libfuzzer", o->target);
    return false;
  }
  if (o->out_dir && lctx_sys_is_dir(o->out_dir) &&
      lctx_sys_count_entries(o->out_dir) > 0) {
    fprintf(err, "lctx corpus: --out: %s is not empty\n",
            lctx_esc(&b, o->out_dir));
    return false;
  }
  return true;
}

/* One pass (the engine's, then the rows it lost copied back) from `from`
 * into the fresh folder `fresh` (made here; afl-cmin makes its own) before
 * `deadline`. True when it ended well with inputs, or `from` had none. */
static bool one_pass(const lctx_corpus_options *o, bool afl, const char *binary,
                     const char *from, const char *fresh, const char *log,
                     double deadline, FILE *err) {
  lctx_sys_remove_tree(fresh);
  if (!afl && !lctx_sys_mkdir_p(fresh)) {
    lctx_escaped b;
    fprintf(err, "lctx corpus: %s: cannot create: %s\n", lctx_esc(&b, fresh),
            strerror(errno));
    return false;
  }
  double left = deadline - lctx_sys_now();
  if (left < 1 || !engine_pass(from, afl, binary, fresh, log, left))
    return false;
  keep_rows(o->target, from, fresh, err);
  return lctx_sys_count_entries(fresh) > 0 || lctx_sys_count_entries(from) == 0;
}

/* Passes again over the minimized corpus `fresh` (`*after` inputs) while one
 * shrinks it, up to LCTX_CORPUS_MAX_PASSES in all: a pass that keeps every
 * input is a fixed point, and its output is dropped. */
static void more_passes(const lctx_corpus_options *o, bool afl,
                        const char *binary, const char *fresh, const char *log,
                        double deadline, lctx_corpus_result *r, FILE *err) {
  char again[4400];
  snprintf(again, sizeof again, "%s.again", fresh);
  while (r->passes < LCTX_CORPUS_MAX_PASSES && !lctx_sys_interrupted()) {
    bool ok = one_pass(o, afl, binary, fresh, again, log, deadline, err);
    r->passes++;
    size_t n = ok ? lctx_sys_count_entries(again) : 0;
    if (!ok || n >= r->after) {
      r->fixed_point = ok;
      r->passes -= !ok; /* a pass that failed or ran out of time */
      break;
    }
    if (!lctx_sys_remove_tree(fresh) || rename(again, fresh) != 0)
      break;
    r->after = n;
  }
  lctx_sys_remove_tree(again);
}

int lctx_corpus_minimize(const lctx_corpus_options *o, lctx_corpus_result *r,
                         FILE *err) {
  memset(r, 0, sizeof *r);
  bool afl;
  char binary[4096];
  if (!corpus_resolve(o, &afl, binary, sizeof binary, err))
    return LCTX_EXIT_USAGE;
  r->before = lctx_sys_count_entries(o->dir);
  char fresh[4300], log[4400];
  snprintf(fresh, sizeof fresh, "%s.min-%ld", o->dir, (long)getpid());
  snprintf(log, sizeof log, "%s.log", fresh);
  lctx_escaped b1, b2;
  double deadline = lctx_sys_now() + (o->timeout > 0 ? o->timeout : 600);
  bool ok = one_pass(o, afl, binary, o->dir, fresh, log, deadline, err);
  if (!ok) {
    fprintf(err,
            "lctx corpus: the %s pass over %s failed or was interrupted; the "
            "corpus is left as it was (its output: %s)\n",
            afl ? "afl-cmin" : "libFuzzer -merge=1", lctx_esc(&b1, o->dir),
            lctx_esc(&b2, log));
    lctx_sys_remove_tree(fresh);
    r->after = r->before;
    return LCTX_EXIT_VIOLATIONS;
  }
  r->passes = 1;
  r->after = lctx_sys_count_entries(fresh);
  if (r->after < r->before)
    more_passes(o, afl, binary, fresh, log, deadline, r, err);
  else
    r->fixed_point = true;
  const char *dest = o->out_dir ? o->out_dir : o->dir;
  bool moved = o->out_dir ? (rmdir(dest) == 0 || errno == ENOENT) &&
                                rename(fresh, dest) == 0
                          : swap_in(fresh, dest);
  if (!moved) {
    fprintf(err, "lctx corpus: %s: cannot put the minimized corpus there: %s\n",
            lctx_esc(&b1, dest), strerror(errno));
    lctx_sys_remove_tree(fresh);
    return LCTX_EXIT_USAGE;
  }
  unlink(log);
  return LCTX_EXIT_OK;
}

/* The spec rows inputs hit (corpus_rows.h), and what keep_lost needs. */
typedef struct rows_keeper {
  lctx_row_hits all; /* all inputs visited */
  lctx_oracle one;   /* the last input alone */
  /* keep_lost: copies an input of `from` that hits a row `all` lacks into
   * `into`, and counts it in `all`. */
  const char *into;
  size_t kept;
} rows_keeper;

/* A rows counter over the embedded table; NULL after a message. */
static rows_keeper *rows_new(FILE *err) {
  rows_keeper *r = calloc(1, sizeof *r);
  char e[256] = "out of memory";
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  if (!r || !lctx_row_hits_init(&r->all, &eb)) {
    fprintf(err, "lctx corpus: the embedded spec: %s\n", e);
    free(r);
    return NULL;
  }
  return r;
}

static void keep_lost(void *user, const char *path) {
  rows_keeper *r = user;
  lctx_row_hits *all = &r->all;
  if (!lctx_row_hits_decode(all, path))
    return;
  lctx_oracle_init(&r->one, &all->spec, lctx_engine_reference());
  r->one.invariants = false;
  lctx_oracle_check_case(&r->one, &all->scratch);
  bool lost = false;
  for (size_t i = 0; i < all->spec.row_count; i++)
    lost = lost || (r->one.hits[i] > 0 && all->oracle.hits[i] == 0);
  if (lost && lctx_seeds_copy_file(path, r->into)) {
    lctx_oracle_check_case(&all->oracle, &all->scratch);
    r->kept++;
  }
}

/* For cases: copies into `fresh` one input of `dir` for every spec row the
 * inputs of `dir` hit and those of `fresh` do not (the engine keeps inputs
 * by code coverage, which need not tell every row apart). Returns how many
 * it copied. */
static size_t keep_rows(const char *target, const char *dir, const char *fresh,
                        FILE *err) {
  if (!lctx_row_hits_of_target(target))
    return 0;
  rows_keeper *r = rows_new(err);
  if (!r)
    return 0;
  lctx_row_hits_add_dir(&r->all, fresh);
  r->into = fresh;
  lctx_sys_each_file(dir, keep_lost, r);
  size_t kept = r->kept;
  free(r);
  return kept;
}

long lctx_corpus_rows(const char *target, const char *dir, FILE *out,
                      FILE *err) {
  lctx_escaped b;
  if (!lctx_row_hits_of_target(target)) {
    fprintf(err, "lctx corpus rows: the inputs of %s are not cases\n",
            lctx_esc(&b, target));
    return -1;
  }
  if (!lctx_sys_is_dir(dir)) {
    fprintf(err, "lctx corpus rows: %s: not a directory\n", lctx_esc(&b, dir));
    return -1;
  }
  rows_keeper *r = rows_new(err);
  if (!r)
    return -1;
  lctx_row_hits_add_dir(&r->all, dir);
  long hit = 0;
  for (size_t i = 0; i < r->all.spec.row_count; i++) {
    if (r->all.oracle.hits[i] > 0) {
      fprintf(out, "%s\n", r->all.spec.rows[i].id);
      hit++;
    }
  }
  free(r);
  return hit;
}
