/*
 * guard.c - the guard of a command that starts children (see guard.h).
 *
 * The guard's side (guard_main): a loop of 0.1 s ticks over the pipe from
 * lctx, reading lctx's /proc/PID/stat, and every other tick a pass over
 * /proc that keeps lctx's descendants (the tables below, the guard's own
 * copy after the fork); at lctx's death, passes that kill. lctx's side: the
 * start, a watcher thread that continues a stopped guard (system calls
 * only: the thread must never hold a lock a fork would copy), the count of
 * stops read from the pipe, and the end.
 */
#include "guard.h"

#include "sys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The most processes a pass over /proc keeps. */
#define MAX_PROCS 16384
/* How long the kills after lctx's death go on at most. */
#define END_SECONDS 10.0

/* One process as /proc/PID/stat shows it. */
typedef struct proc_stat {
  pid_t pid, ppid, pgrp, sid, tpgid;
  int tty;
  char state;
  unsigned long long start;
} proc_stat;

/* Opens /proc/PID/stat of `pid` (-1: it cannot). */
static int open_stat(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
  return open(path, O_RDONLY | O_CLOEXEC);
}

/* Reads the stat of process `pid` from `fd`, a descriptor of open_stat
 * (read again from its start each time), into `st`; false when it cannot. */
static bool read_stat_at(int fd, pid_t pid, proc_stat *st) {
  char buf[1024];
  ssize_t n = fd >= 0 ? pread(fd, buf, sizeof buf - 1, 0) : -1;
  if (n <= 0)
    return false;
  buf[n] = '\0';
  /* PID (COMM) STATE PPID PGRP SESSION TTY TPGID ... START (field 22):
   * COMM may hold anything, ')' included. */
  const char *p = strrchr(buf, ')');
  if (!p)
    return false;
  int ppid, pgrp, sid, tty, tpgid;
  char state;
  if (sscanf(p + 1, " %c %d %d %d %d %d", &state, &ppid, &pgrp, &sid, &tty,
             &tpgid) != 6)
    return false;
  /* Skip to field 22: after ')' come fields 3, 4, ...; 19 spaces on. */
  for (int field = 3; field < 22; field++) {
    p = strchr(p + 1, ' ');
    if (!p)
      return false;
  }
  *st = (proc_stat){.pid = pid,
                    .ppid = ppid,
                    .pgrp = pgrp,
                    .sid = sid,
                    .tpgid = tpgid,
                    .tty = tty,
                    .state = state,
                    .start = strtoull(p + 1, NULL, 10)};
  return true;
}

/* Reads /proc/PID/stat of `pid`; false when it cannot. */
static bool read_stat(pid_t pid, proc_stat *st) {
  int fd = open_stat(pid);
  bool ok = read_stat_at(fd, pid, st);
  if (fd >= 0)
    close(fd);
  return ok;
}

//===----------------------------------------------------------------------===//
// The guard's side
//===----------------------------------------------------------------------===//

/* The processes of the last pass over /proc, and lctx's descendants kept
 * from the last note (sorted by pid). The guard's own copies. */
static proc_stat all[MAX_PROCS], kept[MAX_PROCS];
static size_t all_count, kept_count;
static bool doomed[MAX_PROCS];

static int by_pid(const void *a, const void *b) {
  pid_t x = ((const proc_stat *)a)->pid, y = ((const proc_stat *)b)->pid;
  return (x > y) - (x < y);
}

/* Reads every process of /proc but this one into `all`, sorted by pid. */
static void read_all(void) {
  all_count = 0;
  DIR *d = opendir("/proc");
  if (!d)
    return;
  pid_t self = getpid();
  for (struct dirent *e; (e = readdir(d)) != NULL && all_count < MAX_PROCS;) {
    const char *name = e->d_name;
    if (name[0] < '1' || name[0] > '9' ||
        name[strspn(name, "0123456789")] != '\0')
      continue;
    pid_t pid = (pid_t)strtol(name, NULL, 10);
    if (pid != self && read_stat(pid, &all[all_count]))
      all_count++;
  }
  closedir(d);
  qsort(all, all_count, sizeof all[0], by_pid);
}

static const proc_stat *find(const proc_stat *table, size_t n, pid_t pid) {
  proc_stat key = {.pid = pid};
  return bsearch(&key, table, n, sizeof key, by_pid);
}

/* Marks in `doomed` the descendants of the processes marked already,
 * until no more is found. */
static void spread_to_descendants(void) {
  for (bool more = true; more;) {
    more = false;
    for (size_t i = 0; i < all_count; i++) {
      if (doomed[i])
        continue;
      const proc_stat *parent = find(all, all_count, all[i].ppid);
      if (parent && doomed[parent - all]) {
        doomed[i] = true;
        more = true;
      }
    }
  }
}

/* Notes lctx's descendants (the guard aside) in `kept`. */
static void note_descendants(pid_t lctx) {
  read_all();
  memset(doomed, 0, all_count * sizeof doomed[0]);
  const proc_stat *root = find(all, all_count, lctx);
  if (!root || root->state == 'Z' || root->state == 'X')
    return; /* lctx is gone (its children went): keep the last note */
  doomed[root - all] = true;
  spread_to_descendants();
  kept_count = 0;
  for (size_t i = 0; i < all_count; i++) {
    if (doomed[i] && all[i].pid != lctx)
      kept[kept_count++] = all[i];
  }
}

/* Whether group or session `id` is one of those kept and not one of the
 * excluded (`not1`, `not2`: lctx's and the guard's). */
static bool kept_group(pid_t id, bool session, pid_t not1, pid_t not2,
                       pid_t not3, pid_t not4) {
  if (id <= 1 || id == not1 || id == not2 || id == not3 || id == not4)
    return false;
  for (size_t i = 0; i < kept_count; i++) {
    if ((session ? kept[i].sid : kept[i].pgrp) == id)
      return true;
  }
  return false;
}

/* One pass of the kills after lctx's death: returns how many. */
static size_t kill_pass(const proc_stat *lctx, const proc_stat *me) {
  read_all();
  for (size_t i = 0; i < all_count; i++) {
    const proc_stat *p = &all[i];
    const proc_stat *k = find(kept, kept_count, p->pid);
    doomed[i] =
        (k && k->start == p->start) ||
        kept_group(p->pgrp, false, lctx->pgrp, lctx->sid, me->pgrp, me->sid) ||
        kept_group(p->sid, true, lctx->pgrp, lctx->sid, me->pgrp, me->sid);
  }
  spread_to_descendants();
  size_t count = 0;
  for (size_t i = 0; i < all_count; i++) {
    if (doomed[i] && all[i].pid > 1 && all[i].state != 'Z' &&
        kill(all[i].pid, SIGKILL) == 0)
      count++;
  }
  return count;
}

/* Kills what lctx left, pass after pass, until a pass finds nothing. */
static void end_all(const proc_stat *lctx, const proc_stat *me,
                    const char *mark) {
  double until = lctx_sys_now() + END_SECONDS;
  for (;;) {
    size_t n = kill_pass(lctx, me);
    if (mark[0])
      n += lctx_peer_kill_marked(mark);
    if (n == 0 || lctx_sys_now() > until)
      break;
    lctx_sys_sleep(0.02);
  }
}

/* Whether a stop of `st` is the job control of its terminal: it has one,
 * and its foreground group is another (a shell took the terminal back). */
static bool job_control(const proc_stat *st) {
  return st->tty != 0 && st->tpgid > 0 && st->tpgid != st->pgrp;
}

/* Every signal a process may ignore, ignored. */
static void deaf(void) {
  for (int sig = 1; sig < LCTX_SYS_SIGNALS && sig <= SIGRTMAX; sig++) {
    if (sig != SIGKILL && sig != SIGSTOP && sig != SIGCHLD && sig != SIGCONT &&
        sig != SIGSEGV && sig != SIGBUS && sig != SIGFPE && sig != SIGILL &&
        sig != SIGABRT && sig != SIGTRAP && sig != SIGSYS)
      signal(sig, SIG_IGN);
  }
}

static void guard_main(void *user, int in_fd, int out_fd) {
  const lctx_guard *g = user;
  deaf();
  proc_stat lctx = {.pid = g->lctx_pid}, me = {.pid = getpid()};
  (void)read_stat(g->lctx_pid, &lctx);
  (void)read_stat(getpid(), &me);
  int stopped = 0;
  for (unsigned tick = 0;; tick++) {
    struct pollfd in = {in_fd, POLLIN, 0};
    if (poll(&in, 1, 100) > 0) {
      char byte;
      ssize_t n = read(in_fd, &byte, 1);
      if (n == 1)
        _exit(0); /* a clean end */
      if (n == 0 || (errno != EINTR && errno != EAGAIN))
        break; /* lctx died */
    }
    proc_stat now;
    if (read_stat(g->lctx_pid, &now) && now.state == 'T' &&
        !job_control(&now)) {
      if (++stopped >= 2) {
        kill(g->lctx_pid, SIGCONT);
        (void)!write(out_fd, "c", 1);
        stopped = 0;
      }
    } else {
      stopped = 0;
    }
    if (tick % 2 == 1)
      note_descendants(g->lctx_pid);
  }
  end_all(&lctx, &me, g->mark);
  lctx_peer_remove_private_dirs(g->lctx_pid);
  if (g->spec.on_death)
    g->spec.on_death(g->spec.user);
  _exit(0);
}

//===----------------------------------------------------------------------===//
// lctx's side
//===----------------------------------------------------------------------===//

/* The stops the guards that ended continued, and the running guard. */
static size_t ended_continued;
static lctx_guard *running_guard;

/* lctx's watch: a stopped guard is continued. System calls only, on one
 * descriptor opened before (none opened meanwhile: a run at the limit of
 * its descriptors never loses one to the watch). */
static void *watch_guard(void *user) {
  lctx_guard *g = user;
  int stopped = 0;
  while (!g->quit) {
    struct timespec tick = {0, 100 * 1000 * 1000};
    nanosleep(&tick, NULL);
    proc_stat st;
    if (read_stat_at(g->stat_fd, g->peer.pid, &st) && st.state == 'T') {
      if (++stopped >= 2) {
        kill(g->peer.pid, SIGCONT);
        stopped = 0;
      }
    } else {
      stopped = 0;
    }
  }
  return NULL;
}

bool lctx_guard_start(lctx_guard *g, const lctx_guard_spec *spec) {
  memset(g, 0, sizeof *g);
  g->stat_fd = -1;
  lctx_peer_init(&g->peer);
  g->spec = *spec;
  g->lctx_pid = getpid();
  if (spec->mark) {
    snprintf(g->mark, sizeof g->mark, "%s", spec->mark);
  } else {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    char token[64];
    snprintf(token, sizeof token, "%ld-%lld-%ld", (long)g->lctx_pid,
             (long long)ts.tv_sec, (long)ts.tv_nsec);
    g->own_mark = setenv("LCTX_GUARD_MARK", token, 1) == 0;
    if (g->own_mark)
      snprintf(g->mark, sizeof g->mark, "LCTX_GUARD_MARK=%s", token);
  }
  /* Only lctx holds the write end of its pipe: no other child inherits
   * it (peer.h closes every other descriptor). */
  lctx_peer_spec peer = {
      .body = guard_main, .user = g, .pipes = true, .survives_lctx = true};
  char text[256];
  lctx_buf error;
  lctx_buf_init(&error, text, sizeof text);
  if (!lctx_peer_start(&g->peer, &peer, &error))
    return false;
  /* The watcher takes no signal: they are for the threads that wait. */
  sigset_t all_signals, old;
  sigfillset(&all_signals);
  g->stat_fd = open_stat(g->peer.pid);
  pthread_sigmask(SIG_SETMASK, &all_signals, &old);
  g->watching =
      g->stat_fd >= 0 && pthread_create(&g->watcher, NULL, watch_guard, g) == 0;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  running_guard = g;
  return true;
}

size_t lctx_guard_continued(lctx_guard *g) {
  if (g->peer.pid <= 0 || g->peer.from_fd < 0)
    return g->continued;
  char buf[256];
  for (ssize_t n; (n = read(g->peer.from_fd, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      break;
    g->continued += (size_t)n;
  }
  return g->continued;
}

size_t lctx_guard_continued_total(void) {
  return ended_continued +
         (running_guard ? lctx_guard_continued(running_guard) : 0);
}

void lctx_guard_end(lctx_guard *g) {
  if (g->watching) {
    g->quit = 1;
    pthread_join(g->watcher, NULL);
    g->watching = false;
  }
  if (g->peer.pid > 0 && g->stat_fd >= 0)
    close(g->stat_fd); /* a guard never started has none */
  g->stat_fd = -1;
  if (g->peer.pid > 0) {
    (void)lctx_guard_continued(g);
    if (lctx_peer_queue(&g->peer, "", 1))
      (void)lctx_peer_flush(&g->peer);
    lctx_peer_free(&g->peer); /* after it read the byte and ended */
  }
  if (running_guard == g) {
    ended_continued += g->continued;
    running_guard = NULL;
  }
  if (g->own_mark)
    unsetenv("LCTX_GUARD_MARK");
  g->own_mark = false;
}
