/*
 * peer_setup.c - what lctx prepares, in its own process, before it starts
 * an isolated peer (see peer_private.h): the folders protected in the
 * peer's mount namespace, its private working directory (and removing
 * those a killed lctx left), its command line with relative paths made
 * absolute.
 */
#define _GNU_SOURCE /* realpath, PATH_MAX */
#include "peer_private.h"
#include "sys.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The folders of lctx_peer_protect (resolved, malloc'd), under `lock`. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *protected_path[LCTX_PEER_PROTECT_MAX];
static bool protected_hidden[LCTX_PEER_PROTECT_MAX];
static size_t protected_count;

bool lctx_peer_protect(const char *path, bool hide) {
  char *real = realpath(path, NULL);
  if (!real)
    return false;
  pthread_mutex_lock(&lock);
  bool room = protected_count < LCTX_PEER_PROTECT_MAX;
  if (room) {
    protected_hidden[protected_count] = hide;
    protected_path[protected_count++] = real;
  }
  pthread_mutex_unlock(&lock);
  if (!room)
    free(real);
  return room;
}

size_t lctx_peer_protected(const char *const **paths, const bool **hidden) {
  pthread_mutex_lock(&lock);
  size_t n = protected_count;
  pthread_mutex_unlock(&lock);
  *paths = (const char *const *)protected_path;
  *hidden = protected_hidden;
  return n;
}

void lctx_peer_unprotect(void) {
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < protected_count; i++)
    free(protected_path[i]);
  protected_count = 0;
  pthread_mutex_unlock(&lock);
}

/* Where private working directories are made: $TMPDIR, or /tmp. */
static const char *private_root(void) {
  const char *tmp = getenv("TMPDIR");
  return tmp && tmp[0] == '/' ? tmp : "/tmp";
}

/* What lctx_peer_remove_private_dirs removes. */
typedef struct private_prefix {
  char name[64];
  size_t length;
} private_prefix;

static void remove_if_private(void *user, const char *path) {
  const private_prefix *p = user;
  const char *base = strrchr(path, '/');
  if (base && strncmp(base + 1, p->name, p->length) == 0)
    (void)lctx_sys_remove_tree(path);
}

void lctx_peer_remove_private_dirs(pid_t lctx_pid) {
  private_prefix p;
  p.length =
      (size_t)snprintf(p.name, sizeof p.name, "lctx-peer-%ld-", (long)lctx_pid);
  lctx_sys_each_entry(private_root(), remove_if_private, &p);
}

/* A private working directory under $TMPDIR (or /tmp), mode 0700, named
 * after lctx's pid (lctx-peer-PID-XXXXXX: the guard removes what a killed
 * lctx left); malloc'd, NULL when it cannot be made. */
char *lctx_peer_private_dir(void) {
  const char *tmp = private_root();
  size_t n = strlen(tmp) + 48;
  char *dir = malloc(n);
  if (!dir)
    return NULL;
  snprintf(dir, n, "%s/lctx-peer-%ld-XXXXXX", tmp, (long)getpid());
  if (!mkdtemp(dir)) {
    free(dir);
    return NULL;
  }
  return dir;
}

/* argv with every argument that names an existing file or directory
 * relative to lctx's working directory made absolute (argv[0] only when it
 * holds a '/': a bare name is looked up in PATH); malloc'd, NULL-terminated
 * (the strings too), NULL when out of memory. */
char **lctx_peer_absolute_argv(char *const *argv, bool search_path) {
  size_t n = 0;
  while (argv[n])
    n++;
  char **out = calloc(n + 1, sizeof *out);
  if (!out)
    return NULL;
  char cwd[PATH_MAX];
  bool have_cwd = getcwd(cwd, sizeof cwd) != NULL;
  for (size_t i = 0; i < n; i++) {
    const char *a = argv[i];
    bool bare = i == 0 && search_path && !strchr(a, '/');
    /* The working directory prefixed, links kept as they are: a venv's
     * python is a link whose own path says which venv it runs. */
    if (have_cwd && a[0] != '/' && !bare && a[0] != '\0' &&
        access(a, F_OK) == 0) {
      while (a[0] == '.' && a[1] == '/')
        a += 2;
      size_t len = strlen(cwd) + strlen(a) + 2;
      out[i] = malloc(len);
      if (out[i])
        snprintf(out[i], len, "%s/%s", strcmp(cwd, "/") == 0 ? "" : cwd, a);
    } else {
      out[i] = strdup(a);
    }
    if (!out[i]) {
      for (size_t k = 0; k < i; k++)
        free(out[k]);
      free(out);
      return NULL;
    }
  }
  return out;
}

void lctx_peer_free_argv(char **argv) {
  for (size_t i = 0; argv && argv[i]; i++)
    free(argv[i]);
  free(argv);
}
