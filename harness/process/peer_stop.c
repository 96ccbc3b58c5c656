/*
 * peer_stop.c - the end of the child processes of lctx (see peer.h):
 * reaping without blocking, killing, the sweep of what peers left, and
 * stopping a peer.
 *
 * Stopping: the process group is killed, the peer reaped, then the sweep:
 * every child of lctx that is not a running peer (peer.c's registry) is
 * killed and reaped, pass after pass, until none is left. No reap waits
 * past a deadline (reap_until). Killing the processes a mark names (their
 * environment holds it) is here too: what a child left running outside
 * lctx's children.
 */
#include "peer.h"
#include "peer_private.h"
#include "sys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* How long a sweep goes on at most (a peer that forks without end), and
 * how long one pass waits for what it killed. */
#define SWEEP_SECONDS 5.0
#define SWEEP_PASS_SECONDS 1.0
/* How long a reap waits before it looks for a tracer or a stop, and how
 * often it looks again. */
#define FREE_AFTER 0.05
#define FREE_PERIOD 0.1

//===----------------------------------------------------------------------===//
// Reaping without blocking
//===----------------------------------------------------------------------===//

/* The value of field `key` (e.g. "TracerPid:") of /proc/PID/status, its
 * first word into `out`; false when it cannot be read. */
static bool status_field(pid_t pid, const char *key, char *out, size_t cap) {
  char path[64], buf[4096];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return false;
  buf[n] = '\0';
  size_t k = strlen(key);
  for (const char *line = buf; line && *line;) {
    if (strncmp(line, key, k) == 0) {
      line += k;
      line += strspn(line, " \t");
      size_t w = strcspn(line, " \t\n");
      snprintf(out, cap, "%.*s", (int)(w < cap ? w : cap - 1), line);
      return true;
    }
    line = strchr(line, '\n');
    line = line ? line + 1 : NULL;
  }
  return false;
}

/* Frees child `pid`, killed and not yet gone, of what may hold it: a
 * tracer (a traced zombie is reported to its tracer alone) is killed with
 * its process group; a stopped child is killed and continued again. */
static void free_child(pid_t pid) {
  char v[32];
  if (status_field(pid, "TracerPid:", v, sizeof v)) {
    pid_t tracer = (pid_t)strtol(v, NULL, 10);
    if (tracer > 1 && tracer != getpid()) {
      pid_t group = getpgid(tracer);
      if (group > 1 && group != getpgrp())
        kill(-group, SIGKILL);
      kill(tracer, SIGKILL);
    }
  }
  if (status_field(pid, "State:", v, sizeof v) && (v[0] == 'T' || v[0] == 't'))
    kill(pid, SIGCONT);
  kill(pid, SIGKILL);
}

/* waitpid(pid) that never blocks past `deadline`: polls, and past
 * FREE_AFTER frees the child (free_child) every FREE_PERIOD. Returns pid
 * once reaped (its status in `*status`), 0 at the deadline, -1 on an
 * error (not a child). */
static pid_t reap_until(pid_t pid, double deadline, int *status) {
  double start = lctx_sys_now(), next_free = start + FREE_AFTER;
  double pause = 0.0002;
  for (;;) {
    int st = 0;
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r < 0 && errno == EINTR)
      continue;
    if (r != 0) {
      if (r == pid && status)
        *status = st;
      return r;
    }
    double now = lctx_sys_now();
    if (now >= deadline)
      return 0;
    if (now >= next_free) {
      free_child(pid);
      next_free = now + FREE_PERIOD;
    }
    lctx_sys_sleep(pause);
    pause = pause * 2 < 0.01 ? pause * 2 : 0.01;
  }
}

//===----------------------------------------------------------------------===//
// The sweep
//===----------------------------------------------------------------------===//

/* The parent pid of process `name` (a /proc entry), or -1. */
static pid_t parent_of(const char *name) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%s/stat", name);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return -1;
  buf[n] = '\0';
  /* PID (COMM) STATE PPID ...: COMM may hold anything, ')' included. */
  const char *end = strrchr(buf, ')');
  if (!end)
    return -1;
  char state;
  int ppid;
  return sscanf(end + 1, " %c %d", &state, &ppid) == 2 ? (pid_t)ppid : -1;
}

/* Kills the children of lctx that are not running peers, as /proc lists
 * them now, and reaps them within SWEEP_PASS_SECONDS (what does not go by
 * then is left to the next sweep); returns how many were reaped. */
/* The inner processes of isolated peers being stopped (their supervisor's
 * child and the program): when their supervisor dies first they come to
 * lctx, the subreaper, and the sweep that reaps them does not count them
 * as left behind (they are the peer's own). A ring, under the registry's hold.
 */
#define EXPECTED_MAX 64
static pid_t expected[EXPECTED_MAX];
static size_t expected_next;

static void expect_orphan(pid_t pid) {
  if (pid <= 0)
    return;
  lctx_peer_registry_hold();
  expected[expected_next++ % EXPECTED_MAX] = pid;
  lctx_peer_registry_release();
}

/* Whether `pid` was expected (forgotten then). */
static bool take_expected(pid_t pid) {
  for (size_t i = 0; i < EXPECTED_MAX; i++) {
    if (expected[i] == pid) {
      expected[i] = 0;
      return true;
    }
  }
  return false;
}

static size_t sweep_once(void) {
  DIR *d = opendir("/proc");
  if (!d)
    return 0;
  pid_t self = getpid(), found[256];
  size_t n = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL && n < 256;) {
    const char *name = e->d_name;
    if (name[0] < '1' || name[0] > '9' ||
        name[strspn(name, "0123456789")] != '\0')
      continue;
    pid_t pid = (pid_t)strtol(name, NULL, 10);
    if (pid == self || lctx_peer_listed_held(pid) || parent_of(name) != self)
      continue;
    kill(pid, SIGKILL);
    found[n++] = pid;
  }
  closedir(d);
  size_t reaped = 0;
  double deadline = lctx_sys_now() + SWEEP_PASS_SECONDS;
  for (size_t i = 0; i < n; i++) {
    if (reap_until(found[i], deadline, NULL) == found[i])
      reaped += take_expected(found[i]) ? 0 : 1;
  }
  return reaped;
}

size_t lctx_peer_sweep(void) {
  size_t total = 0;
  double until = lctx_sys_now() + SWEEP_SECONDS;
  lctx_peer_registry_hold();
  for (size_t n; (n = sweep_once()) > 0 && lctx_sys_now() < until;)
    total += n;
  lctx_peer_count_held(LCTX_PEER_COUNT_SWEPT, total);
  lctx_peer_registry_release();
  return total;
}

//===----------------------------------------------------------------------===//
// Waiting and stopping
//===----------------------------------------------------------------------===//

void lctx_peer_describe(int status, lctx_buf *out) {
  char text[128];
  if (WIFSIGNALED(status))
    snprintf(text, sizeof text, "killed by signal %d (%s)", WTERMSIG(status),
             strsignal(WTERMSIG(status)));
  else if (WIFEXITED(status))
    snprintf(text, sizeof text, "exited with status %d", WEXITSTATUS(status));
  else
    snprintf(text, sizeof text, "stopped");
  lctx_buf_append_cstr(out, text);
}

bool lctx_peer_reap(pid_t pid, bool block, int *status) {
  int st = 0;
  pid_t r;
  if (block) {
    r = reap_until(pid, lctx_sys_now() + LCTX_PEER_REAP_SECONDS, &st);
  } else {
    while ((r = waitpid(pid, &st, WNOHANG)) < 0 && errno == EINTR)
      ;
  }
  if (r == pid || r < 0) {
    lctx_peer_registry_hold();
    lctx_peer_delist_held(pid);
    lctx_peer_registry_release();
    if (status)
      *status = r == pid ? st : -1;
    return true;
  }
  if (block) {
    /* Given up: no longer a peer, so that later sweeps try again. */
    lctx_peer_registry_hold();
    lctx_peer_delist_held(pid);
    lctx_peer_count_held(LCTX_PEER_COUNT_GIVEN_UP, 1);
    lctx_peer_registry_release();
  }
  return false;
}

bool lctx_peer_kill(pid_t pid, int *status) {
  if (status)
    *status = -1;
  if (pid <= 0)
    return false;
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  int st = -1;
  bool reaped = lctx_peer_reap(pid, true, &st) && st != -1;
  if (reaped && status)
    *status = st;
  lctx_peer_sweep();
  return reaped;
}

bool lctx_peer_signal(pid_t pid, int sig) {
  lctx_peer_registry_hold();
  bool peer = pid > 0 && lctx_peer_listed_held(pid);
  /* Under the hold: a peer listed is not reaped, its number not reused. */
  bool sent = peer && kill(-pid, sig) == 0;
  lctx_peer_registry_release();
  return sent;
}

bool lctx_peer_run(const lctx_peer_spec *s, double timeout,
                   bool stop_on_interrupt, lctx_peer_ran *ran,
                   lctx_buf *error) {
  double start = lctx_sys_now();
  *ran = (lctx_peer_ran){.status = -1};
  pid_t pid;
  if (!lctx_peer_spawn(s, &pid, error))
    return false;
  int status = -1;
  while (!lctx_peer_reap(pid, false, &status)) {
    if (lctx_sys_now() - start > timeout ||
        (stop_on_interrupt && lctx_sys_interrupted())) {
      (void)lctx_peer_kill(pid, &status);
      ran->stopped = true;
      break;
    }
    lctx_sys_sleep(0.002);
  }
  kill(-pid, SIGKILL); /* what it left in its group */
  lctx_peer_sweep();
  ran->status = status;
  ran->seconds = lctx_sys_now() - start;
  return true;
}

/* Whether child `pid` has ended (not reaped: its status is kept). */
static bool child_ended(pid_t pid) {
  siginfo_t si;
  memset(&si, 0, sizeof si);
  return pid > 0 &&
         waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         si.si_pid == pid;
}

/* Whether process `pid` (not lctx's child) is gone or a zombie. */
static bool process_gone(pid_t pid) {
  char v[32];
  return !status_field(pid, "State:", v, sizeof v) || v[0] == 'Z' ||
         v[0] == 'X';
}

bool lctx_peer_ended(const lctx_peer *p) {
  /* Isolated, the program ends a moment before its supervisor does. */
  return child_ended(p->pid) || (p->pid > 0 && p->inner != p->pid &&
                                 p->inner > 0 && process_gone(p->inner));
}

double lctx_peer_resident(const lctx_peer *p) {
  return p->statm_fd >= 0 ? lctx_sys_resident_bytes_at(p->statm_fd)
                          : lctx_sys_resident_bytes(p->inner);
}

void lctx_peer_stop(lctx_peer *p, double grace, lctx_buf *how) {
  int *fds[2] = {&p->to_fd, &p->from_fd};
  for (int i = 0; i < 2; i++) {
    if (*fds[i] >= 0)
      close(*fds[i]);
    *fds[i] = -1;
  }
  if (p->pid > 0) {
    /* A moment to end on EOF; then the whole group (not reaped yet, so
     * its number cannot have been taken by another). */
    double until = lctx_sys_now() + grace;
    bool ended = lctx_peer_ended(p);
    while (!ended && lctx_sys_now() < until) {
      lctx_sys_sleep(0.002);
      ended = lctx_peer_ended(p);
    }
    /* Ended by itself, isolated: its supervisor ends as it did. */
    for (double end = lctx_sys_now() + 1.0;
         ended && !child_ended(p->pid) && lctx_sys_now() < end;)
      lctx_sys_sleep(0.001);
    if (!ended && p->first > 0) {
      /* Its supervisor's child first: the supervisor reaps it, copies
       * what is left of the output and ends (nothing is left to lctx's
       * sweep that was the peer's own). */
      kill(p->first, SIGKILL);
      for (double end = lctx_sys_now() + 0.5;
           !child_ended(p->pid) && lctx_sys_now() < end;)
        lctx_sys_sleep(0.001);
    }
    if (p->first > 0 && p->first != p->pid)
      expect_orphan(p->first);
    if (p->inner > 0 && p->inner != p->pid)
      expect_orphan(p->inner);
    int status = -1;
    (void)lctx_peer_kill(p->pid, &status);
    if (how && ended)
      lctx_peer_describe(status, how);
    p->pid = p->inner = p->first = -1;
  }
  if (p->statm_fd >= 0)
    close(p->statm_fd);
  p->statm_fd = -1;
  if (p->note_fd >= 0) {
    lctx_peer_record r;
    bool capped = false;
    while (read(p->note_fd, &r, sizeof r) == (ssize_t)sizeof r)
      capped = capped || r.kind == LCTX_PEER_RECORD_CAPPED;
    if (capped)
      lctx_peer_count(LCTX_PEER_COUNT_CAPPED, 1);
    close(p->note_fd);
    p->note_fd = -1;
  }
  if (p->dir) {
    (void)lctx_sys_remove_tree(p->dir);
    free(p->dir);
    p->dir = NULL;
  }
  p->in_off = p->in_length = p->out_length = p->out_sent = 0;
}

void lctx_peer_free(lctx_peer *p) {
  lctx_peer_stop(p, 0, NULL);
  free(p->in);
  free(p->out);
  p->in = p->out = NULL;
  p->in_capacity = p->out_capacity = 0;
}

//===----------------------------------------------------------------------===//
// What a mark names
//===----------------------------------------------------------------------===//

/* Whether the NUL-separated entries of /proc/PID/environ hold `entry`. */
static bool environ_holds(const char *pid, const char *entry, char *buf,
                          size_t cap) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%s/environ", pid);
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    return false;
  size_t n = 0;
  for (ssize_t r; n + 1 < cap && (r = read(fd, buf + n, cap - 1 - n)) > 0;)
    n += (size_t)r;
  close(fd);
  buf[n] = '\0';
  for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
    if (strcmp(buf + i, entry) == 0)
      return true;
  }
  return false;
}

size_t lctx_peer_kill_marked(const char *entry) {
  size_t cap = 1u << 20, count = 0;
  char *buf = malloc(cap);
  DIR *d = buf ? opendir("/proc") : NULL;
  if (!d) {
    free(buf);
    return 0;
  }
  char self[32];
  snprintf(self, sizeof self, "%ld", (long)getpid());
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    const char *name = e->d_name;
    if (name[0] < '1' || name[0] > '9' ||
        name[strspn(name, "0123456789")] != '\0' || strcmp(name, self) == 0)
      continue;
    if (environ_holds(name, entry, buf, cap) &&
        kill((pid_t)strtol(name, NULL, 10), SIGKILL) == 0)
      count++;
  }
  closedir(d);
  free(buf);
  return count;
}
