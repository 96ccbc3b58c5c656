/*
 * campaign_work.c - a campaign's engine sanitizer options, working corpus,
 * its sync to OUT/corpus and the fast mode's triage (see campaign_work.h).
 */
#include "campaign_work.h"

#include "escape.h"
#include "file.h"
#include "peer.h"
#include "sys.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* statfs's f_type of a tmpfs (linux/magic.h). */
#define TMPFS_MAGIC_NUMBER 0x01021994
/* The largest corpus input copied (libFuzzer's -max_len is far below). */
#define MAX_INPUT (16u << 20)
/* The most inputs of one triage run. */
#define BATCH 64

bool lctx_campaign_asan_options(char *out, size_t cap) {
  const char *mine = getenv("ASAN_OPTIONS");
  bool set = mine && strstr(mine, "detect_stack_use_after_return=") != NULL;
  int n;
  if (set)
    n = snprintf(out, cap, "%s", mine);
  else
    n = snprintf(out, cap, "%s%s%s", mine && *mine ? mine : "",
                 mine && *mine ? ":" : "", LCTX_CAMPAIGN_ASAN_ADDED);
  if (n < 0 || (size_t)n >= cap) {
    /* The user's is too long to extend: theirs alone. */
    snprintf(out, cap, "%s", mine ? mine : "");
    return false;
  }
  return !set;
}

int lctx_campaign_engine_env(const char **env, int n, const char *afl_tmp,
                             lctx_campaign_env *store) {
  if (!afl_tmp) {
    lctx_campaign_asan_options(store->text[0], sizeof store->text[0]);
    env[n++] = "ASAN_OPTIONS";
    env[n++] = store->text[0];
    return n;
  }
  static const char *const afl_vars[] = {
      "AFL_SKIP_CPUFREQ",
      "1",
      "AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES",
      "1",
      "AFL_NO_UI",
      "1",
      "AFL_AUTORESUME",
      "1",
      "AFL_NO_AFFINITY",
      "1",
      "AFL_TMPDIR",
      NULL};
  for (const char *const *v = afl_vars; *v; v++)
    env[n++] = *v;
  env[n++] = afl_tmp;
  /* afl-fuzz refuses sanitizer options of the user's environment that
   * lack its own (abort_on_error=1, symbolize=0...): they are appended,
   * and win, as the sanitizers read the last of a key. */
  static const char *const afl_sanitizer[3][2] = {
      {"ASAN_OPTIONS", "abort_on_error=1:symbolize=0"},
      {"UBSAN_OPTIONS", "halt_on_error=1:abort_on_error=1:symbolize=0"},
      {"LSAN_OPTIONS", "symbolize=0"}};
  for (int k = 0; k < 3; k++) {
    const char *mine = getenv(afl_sanitizer[k][0]);
    char *text = store->text[k];
    size_t cap = sizeof store->text[k];
    int w = snprintf(text, cap, "%s%s%s", mine && *mine ? mine : "",
                     mine && *mine ? ":" : "", afl_sanitizer[k][1]);
    if (w < 0 || (size_t)w >= cap)
      snprintf(text, cap, "%s",
               afl_sanitizer[k][1]); /* the user's is too long: AFL's alone */
    env[n++] = afl_sanitizer[k][0];
    env[n++] = text;
  }
  return n;
}

static void add_size(void *user, const char *path) {
  struct stat st;
  if (stat(path, &st) == 0)
    *(unsigned long long *)user += (unsigned long long)st.st_size;
}

/* Whether `dir` is a tmpfs with `need` bytes free; why not into `why`. */
static bool tmpfs_room(const char *dir, unsigned long long need, char *why,
                       size_t cap) {
  struct statfs fs;
  lctx_escaped b;
  if (!dir || !*dir || statfs(dir, &fs) != 0) {
    if (dir && *dir)
      snprintf(why, cap, "%s: %s", lctx_esc(&b, dir), strerror(errno));
    return false;
  }
  if ((unsigned long)fs.f_type != TMPFS_MAGIC_NUMBER) {
    snprintf(why, cap, "%s is not a tmpfs", lctx_esc(&b, dir));
    return false;
  }
  unsigned long long room =
      (unsigned long long)fs.f_bavail * (unsigned long long)fs.f_bsize;
  if (room < need) {
    snprintf(why, cap, "%s has %llu MiB free, %llu MiB needed",
             lctx_esc(&b, dir), room >> 20, need >> 20);
    return false;
  }
  return true;
}

/* The tmpfs folder of the campaign: /dev/shm, else $XDG_RUNTIME_DIR. */
static bool choose_tmpfs(lctx_campaign_work *w, const char *token,
                         unsigned long long need) {
  const char *candidates[2] = {"/dev/shm", getenv("XDG_RUNTIME_DIR")};
  for (int i = 0; i < 2; i++) {
    if (!tmpfs_room(candidates[i], need, w->why, sizeof w->why))
      continue;
    snprintf(w->root, sizeof w->root, "%s/lctx-fuzz-%s", candidates[i], token);
    snprintf(w->dir, sizeof w->dir, "%s/corpus", w->root);
    if (lctx_sys_mkdir_p(w->dir))
      return true;
    lctx_escaped b;
    snprintf(w->why, sizeof w->why, "%s: %s", lctx_esc(&b, w->dir),
             strerror(errno));
    w->root[0] = '\0';
  }
  return false;
}

bool lctx_campaign_work_init(lctx_campaign_work *w, const char *out_dir,
                             const char *token, bool no_tmpfs,
                             const char *triage, FILE *err) {
  memset(w, 0, sizeof *w);
  w->triage = triage;
  w->every = 5;
  snprintf(w->corpus, sizeof w->corpus, "%s/corpus", out_dir);
  snprintf(w->artifacts, sizeof w->artifacts, "%s/artifacts", out_dir);
  snprintf(w->log, sizeof w->log, "%s/logs/triage.log", out_dir);
  const char *env = getenv(LCTX_CAMPAIGN_NO_TMPFS_ENV);
  unsigned long long used = 0;
  lctx_sys_each_file(w->corpus, add_size, &used);
  if (no_tmpfs || (env && strcmp(env, "1") == 0))
    snprintf(w->why, sizeof w->why, "%s",
             no_tmpfs ? "--no-tmpfs" : LCTX_CAMPAIGN_NO_TMPFS_ENV "=1");
  else if (choose_tmpfs(w, token, 2 * used + (64ull << 20)))
    return true;
  if (!triage) {
    snprintf(w->dir, sizeof w->dir, "%s", w->corpus);
    return true;
  }
  snprintf(w->dir, sizeof w->dir, "%s/tmp/work", out_dir);
  if (lctx_sys_mkdir_p(w->dir))
    return true;
  lctx_escaped b;
  fprintf(err, "lctx fuzz: %s: cannot create: %s\n", lctx_esc(&b, w->dir),
          strerror(errno));
  return false;
}

void lctx_campaign_work_describe(const lctx_campaign_work *w,
                                 const char *binary, FILE *out) {
  lctx_escaped b, b2, b3;
  if (w->root[0])
    fprintf(out,
            "  working corpus: %s (tmpfs), synced to %s every %.0f s and at "
            "the end\n",
            lctx_esc(&b, w->dir), lctx_esc(&b2, w->corpus), w->every);
  else
    fprintf(out, "  working corpus: %s (not on a tmpfs: %s)\n",
            lctx_esc(&b, w->dir), lctx_esc(&b2, w->why));
  if (w->triage)
    fprintf(out,
            "  fast mode: %s (no sanitizers) fuzzes; every input it adds to "
            "the corpus or flags is replayed through %s (ASan+UBSan) before "
            "it is kept in %s or reported; a crash of the fast build that "
            "build does not reproduce is reported as TARGET/not-reproduced/\n",
            lctx_esc(&b, binary), lctx_esc(&b2, w->triage),
            lctx_esc(&b3, w->corpus));
}

bool lctx_campaign_work_synced(const lctx_campaign_work *w) {
  return w->root[0] != '\0' || w->triage != NULL;
}

/* Copies `path` to `dir`/`name` through a temporary name; false when it
 * could not. */
static bool copy_into(const char *path, const char *dir, const char *name) {
  char *data = NULL;
  size_t n = 0;
  if (!lctx_file_read(path, MAX_INPUT, &data, &n, NULL))
    return false;
  char tmp[4500], final[4500];
  snprintf(tmp, sizeof tmp, "%s/.%s.part", dir, name);
  snprintf(final, sizeof final, "%s/%s", dir, name);
  bool ok = lctx_sys_write_file(tmp, data, n) && rename(tmp, final) == 0;
  if (!ok)
    remove(tmp);
  free(data);
  return ok;
}

/* Writes `path`'s bytes to OUT/artifacts/crash-triage-HASH and takes it
 * out of the working corpus: a finding, not a corpus input. */
static void flag(lctx_campaign_work *w, const char *path) {
  char *data = NULL;
  size_t n = 0;
  if (!lctx_file_read(path, MAX_INPUT, &data, &n, NULL))
    return;
  char name[64];
  snprintf(name, sizeof name, LCTX_CAMPAIGN_TRIAGE_PREFIX "%016llx",
           (unsigned long long)lctx_seen_hash(data, n));
  free(data);
  if (copy_into(path, w->artifacts, name)) {
    w->flagged++;
    unlink(path);
  }
}

/* Runs the ASan+UBSan build once over `paths`: whether every one passed. */
static bool triage_run(const lctx_campaign_work *w, char **paths, size_t n) {
  char *argv[BATCH + 3];
  argv[0] = (char *)w->triage;
  argv[1] = "-timeout=25";
  for (size_t i = 0; i < n; i++)
    argv[2 + i] = paths[i];
  argv[2 + n] = NULL;
  char asan[2048];
  lctx_campaign_asan_options(asan, sizeof asan);
  const char *env[] = {"ASAN_OPTIONS", asan, NULL};
  lctx_peer_spec child = {.argv = argv,
                          .log = w->log,
                          .truncate_log = true,
                          .env = env,
                          .who = "lctx fuzz triage"};
  lctx_peer_ran ran;
  (void)lctx_peer_run(&child, 30 + 5.0 * (double)n, false, &ran, NULL);
  return ran.status != -1 && WIFEXITED(ran.status) &&
         WEXITSTATUS(ran.status) == 0;
}

/* Keeps what passes the triage (every input when not in fast mode) in
 * OUT/corpus; flags the rest. */
static void keep(lctx_campaign_work *w, char **paths, size_t n) {
  bool all_pass = !w->triage || triage_run(w, paths, n);
  if (w->triage)
    w->triaged += n;
  for (size_t i = 0; i < n; i++) {
    if (!all_pass && !triage_run(w, &paths[i], 1)) {
      flag(w, paths[i]);
      continue;
    }
    const char *base = strrchr(paths[i], '/');
    if (copy_into(paths[i], w->corpus, base ? base + 1 : paths[i]))
      w->synced++;
  }
}

/* The files of one sync, gathered by sync_visit. */
typedef struct pending {
  lctx_campaign_work *w;
  bool last;
  double now;
  char *paths[BATCH];
  size_t n;
  size_t skipped; /* too young, or over the batch: the next sync */
} pending;

static void sync_visit(void *user, const char *path) {
  pending *p = user;
  lctx_campaign_work *w = p->w;
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if (base[0] == '.')
    return;
  struct stat st;
  if (stat(path, &st) != 0)
    return;
  if (!p->last && p->now - (double)st.st_mtime < 1.5) {
    p->skipped++;
    return;
  }
  char there[4500];
  snprintf(there, sizeof there, "%s/%s", w->corpus, base);
  if (lctx_sys_is_file(there)) { /* already kept (a resumed corpus) */
    lctx_seen_add(&w->taken, path);
    return;
  }
  if (p->n == BATCH) {
    keep(w, p->paths, p->n);
    for (size_t i = 0; i < p->n; i++)
      free(p->paths[i]);
    p->n = 0;
  }
  if (!lctx_seen_add(&w->taken, path))
    return;
  p->paths[p->n] = strdup(path);
  p->n += p->paths[p->n] != NULL;
}

void lctx_campaign_work_sync(lctx_campaign_work *w, bool last) {
  if (!lctx_campaign_work_synced(w))
    return;
  double now = lctx_sys_now();
  if (!last && now - w->last < w->every)
    return;
  w->last = now;
  pending p = {.w = w, .last = last, .now = (double)time(NULL)};
  lctx_sys_each_file(w->dir, sync_visit, &p);
  if (p.n > 0)
    keep(w, p.paths, p.n);
  for (size_t i = 0; i < p.n; i++)
    free(p.paths[i]);
}

/* The count of lctx_campaign_work_count, and the folder it adds. */
typedef struct counter {
  const lctx_campaign_work *w;
  size_t n;
} counter;

static void count_kept(void *user, const char *path) {
  const char *base = strrchr(path, '/');
  ((counter *)user)->n += (base ? base[1] : path[0]) != '.';
}

static void count_unsynced(void *user, const char *path) {
  counter *c = user;
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  char there[4500];
  snprintf(there, sizeof there, "%s/%s", c->w->corpus, base);
  c->n += base[0] != '.' && !lctx_sys_is_file(there);
}

size_t lctx_campaign_work_count(const lctx_campaign_work *w) {
  counter c = {w, 0};
  lctx_sys_each_file(w->corpus, count_kept, &c);
  if (lctx_campaign_work_synced(w))
    lctx_sys_each_file(w->dir, count_unsynced, &c);
  return c.n;
}

void lctx_campaign_work_end(lctx_campaign_work *w) {
  if (w->root[0])
    lctx_sys_remove_tree(w->root);
  lctx_seen_free(&w->taken);
}

static void abandon_visit(void *user, const char *path) {
  const lctx_campaign_work *w = user;
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  char there[4500];
  snprintf(there, sizeof there, "%s/%s", w->corpus, base);
  if (base[0] != '.' && !lctx_sys_is_file(there))
    copy_into(path, w->corpus, base);
}

void lctx_campaign_work_abandon(lctx_campaign_work *w) {
  if (!w->triage && w->root[0])
    lctx_sys_each_file(w->dir, abandon_visit, w);
  if (w->root[0])
    lctx_sys_remove_tree(w->root);
}

/* One stopper being dropped: its bytes, the folders, what was removed. */
typedef struct stopper {
  const char *const *dirs;
  double since;
  char *bytes;
  size_t length, dropped;
} stopper;

/* Removes `path` when it holds the stopper's bytes. */
static void drop_same(void *user, const char *path) {
  stopper *s = user;
  struct stat st;
  char *text = NULL;
  size_t n = 0;
  if (stat(path, &st) != 0 || (size_t)st.st_size != s->length ||
      !lctx_file_read(path, s->length + 1, &text, &n, NULL))
    return;
  if (n == s->length && memcmp(text, s->bytes, n) == 0 && unlink(path) == 0)
    s->dropped++;
  free(text);
}

/* One artifact: when it is a new stopper, drops its copies. */
static void drop_artifact(void *user, const char *path) {
  stopper *s = user;
  const char *name = strrchr(path, '/');
  name = name ? name + 1 : path;
  struct stat st;
  if (strncmp(name, LCTX_CAMPAIGN_TRIAGE_PREFIX,
              strlen(LCTX_CAMPAIGN_TRIAGE_PREFIX)) == 0 ||
      stat(path, &st) != 0 || (double)st.st_mtime < s->since ||
      !lctx_file_read(path, 1 << 24, &s->bytes, &s->length, NULL))
    return;
  for (size_t i = 0; s->dirs[i]; i++)
    if (lctx_sys_is_dir(s->dirs[i]))
      lctx_sys_each_file(s->dirs[i], drop_same, s);
  free(s->bytes);
  s->bytes = NULL;
}

size_t lctx_campaign_drop_stoppers(const char *artifacts, double since,
                                   const char *const *dirs) {
  stopper s = {.dirs = dirs, .since = since};
  lctx_sys_each_file(artifacts, drop_artifact, &s);
  return s.dropped;
}
