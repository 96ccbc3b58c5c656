/*
 * attack_plugin.c - a test implementation under test (C ABI) that is the
 * example plugin, except that on cases whose jax_platform_name is HOSTILE
 * it attacks lctx and its other children in the way the environment
 * variable LCTX_ATTACK names:
 *   kill    SIGKILL to every other child of its parent it can see in
 *           /proc (lctx's MLIR judge and other workers, when they are in
 *           reach), SIGSTOP to its parent, then answers as the example
 *           does
 *   trace   fork a grandchild that leaves the session, PTRACE_SEIZEs the
 *           worker and sleeps 600 s; then the worker crashes (SIGSEGV)
 * Used by tests/test_attacks.sh.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <unistd.h>

typedef struct wrapped {
  void *inner;
  bool marked; /* jax_platform_name is HOSTILE */
} wrapped;

#include "wrap_plugin.h"

/* SIGKILL to every other child of its parent (lctx's MLIR judge and its
 * other workers, when they are in reach), SIGSTOP to its parent. */
static void kill_others(void) {
  DIR *d = opendir("/proc");
  pid_t self = getpid(), parent = getppid();
  for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
    pid_t pid = (pid_t)atoi(e->d_name);
    if (pid <= 1 || pid == self)
      continue;
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    int ppid = -1;
    if (f && fgets(line, sizeof line, f)) {
      const char *end = strrchr(line, ')');
      if (!end || sscanf(end + 1, " %*c %d", &ppid) != 1)
        ppid = -1;
    }
    if (f)
      fclose(f);
    if (ppid == parent)
      kill(pid, SIGKILL);
  }
  if (d)
    closedir(d);
  kill(parent, SIGSTOP);
}

/* A grandchild in a session of its own traces this process, which then
 * crashes: its end is reported to the tracer alone. */
static void traced_crash(void) {
  pid_t worker = getpid();
  pid_t child = fork();
  if (child == 0) {
    if (fork() == 0) {
      setsid();
      (void)ptrace(PTRACE_SEIZE, worker, NULL, NULL);
      sleep(600);
    }
    _exit(0);
  }
  sleep(1); /* the grandchild attaches */
  raise(SIGSEGV);
}

static lctx_impl_status misbehave(const wrapped *w, lctx_impl_status st,
                                  lctx_impl_outcome *out) {
  (void)out;
  const char *mode = getenv("LCTX_ATTACK");
  if (!w->marked || !mode)
    return st;
  if (strcmp(mode, "kill") == 0)
    kill_others();
  if (strcmp(mode, "trace") == 0)
    traced_crash();
  return st;
}

static void *w_create(const lctx_impl_config *config) {
  wrapped *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  const char *name = config->jax_platform_name ? config->jax_platform_name : "";
  w->marked = strcmp(name, "HOSTILE") == 0;
  w->inner = inner_table()->session_create(config);
  return w;
}

static lctx_impl_status w_lower(void *p, const lctx_impl_lowering *lowering,
                                lctx_impl_outcome *out, char *mlir,
                                size_t capacity, size_t *length) {
  wrapped *w = p;
  return misbehave(w,
                   inner_table()->lower_per_platform(w->inner, lowering, out,
                                                     mlir, capacity, length),
                   out);
}

WRAPPED_ENTRY("lctx-attack-c")
