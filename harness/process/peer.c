/*
 * peer.c - every child process lctx starts (see peer.h).
 *
 * Starting: pipes made close-on-exec and above the standard descriptors,
 * fork, and in the child peer_child.c's part (a session of its own, death
 * with lctx, the standard streams, every other descriptor closed, the
 * environment, then the program or lctx's own code; for an isolated peer,
 * its supervisor and namespaces first). What a child has to say before its
 * program runs (an exec's errno, the pid of an isolated peer's program,
 * the isolation made) comes up the error pipe as records. Stopping: the
 * process group is killed, the peer reaped, then the sweep: lctx is the
 * child subreaper (set once, at the first start), so that whatever a peer
 * left becomes a child of lctx when its parent ends; every child that is
 * not a running peer (the registry below) is killed and reaped, pass after
 * pass, until none is left. No reap waits past a deadline (reap_until).
 * The registry is this module's one mutable state, with its counters: the
 * pids of the peers started and not yet reaped.
 */
#define _GNU_SOURCE /* pipe2, F_SETPIPE_SZ */
#include "peer.h"
#include "peer_private.h"
#include "sys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "escape.h"

/* How often memory and life are checked while waiting. */
#define WATCH_PERIOD 0.1
/* The most bytes one read() of a peer's output takes. */
#define READ_CHUNK (256u << 10)
/* A pump that finds more time passed than it waited by this much was
 * stopped (SIGSTOP, Ctrl-Z): the deadline moves by what it lost. */
#define STALL_SECONDS 1.0
/* How long a sweep goes on at most (a peer that forks without end), and
 * how long one pass waits for what it killed. */
#define SWEEP_SECONDS 5.0
#define SWEEP_PASS_SECONDS 1.0
/* How long a reap waits before it looks for a tracer or a stop, and how
 * often it looks again. */
#define FREE_AFTER 0.05
#define FREE_PERIOD 0.1

//===----------------------------------------------------------------------===//
// The registry of running peers
//===----------------------------------------------------------------------===//

static pid_t *running;
static size_t running_count, running_capacity;
/* The registry, and a fork until its child is listed, are one thread's at
 * a time: the jobs of a conform run start and stop peers at once, and a
 * sweep must never take a peer just forked for something it left. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
/* Counters (under registry_lock): processes swept, children given up,
 * logs capped and refused; the isolation last made (-1: none started). */
static size_t swept_total, given_up, logs_capped, logs_refused;
static int isolation = -1;

static void enlist(pid_t pid) {
  if (running_count == running_capacity) {
    size_t cap = running_capacity ? running_capacity * 2 : 16;
    pid_t *p = realloc(running, cap * sizeof *p);
    if (!p)
      return; /* not listed: a sweep may end it early, never leave it */
    running = p;
    running_capacity = cap;
  }
  running[running_count++] = pid;
}

static void delist_locked(pid_t pid) {
  for (size_t i = 0; i < running_count; i++) {
    if (running[i] == pid) {
      running[i] = running[--running_count];
      break;
    }
  }
}

static void delist(pid_t pid) {
  pthread_mutex_lock(&registry_lock);
  delist_locked(pid);
  pthread_mutex_unlock(&registry_lock);
}

static bool is_running_peer(pid_t pid) {
  for (size_t i = 0; i < running_count; i++) {
    if (running[i] == pid)
      return true;
  }
  return false;
}

/* Adds `n` to counter `c` under the lock; returns its value. */
static size_t count(size_t *c, size_t n) {
  pthread_mutex_lock(&registry_lock);
  size_t v = *c += n;
  pthread_mutex_unlock(&registry_lock);
  return v;
}

size_t lctx_peer_swept_total(void) {
  return count(&swept_total, 0);
}
size_t lctx_peer_given_up(void) {
  return count(&given_up, 0);
}
size_t lctx_peer_logs_capped(void) {
  return count(&logs_capped, 0);
}
size_t lctx_peer_logs_refused(void) {
  return count(&logs_refused, 0);
}

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
 * as left behind (they are the peer's own). A ring, under registry_lock. */
#define EXPECTED_MAX 64
static pid_t expected[EXPECTED_MAX];
static size_t expected_next;

static void expect_orphan(pid_t pid) {
  if (pid <= 0)
    return;
  pthread_mutex_lock(&registry_lock);
  expected[expected_next++ % EXPECTED_MAX] = pid;
  pthread_mutex_unlock(&registry_lock);
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
    if (pid == self || is_running_peer(pid) || parent_of(name) != self)
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
  pthread_mutex_lock(&registry_lock);
  for (size_t n; (n = sweep_once()) > 0 && lctx_sys_now() < until;)
    total += n;
  swept_total += total;
  pthread_mutex_unlock(&registry_lock);
  return total;
}

//===----------------------------------------------------------------------===//
// Starting
//===----------------------------------------------------------------------===//

static bool make_pipe(int fds[2]) {
  if (pipe2(fds, O_CLOEXEC) != 0)
    return false;
  fds[0] = lctx_peer_fd_above_standard(fds[0]);
  fds[1] = lctx_peer_fd_above_standard(fds[1]);
  if (fds[0] >= 0 && fds[1] >= 0)
    return true;
  if (fds[0] >= 0)
    close(fds[0]);
  if (fds[1] >= 0)
    close(fds[1]);
  return false;
}

static void close_pair(int fds[2]) {
  for (int i = 0; i < 2; i++) {
    if (fds[i] >= 0)
      close(fds[i]);
    fds[i] = -1;
  }
}

/* Sets lctx up as the subreaper of what it starts (once). */
static void adopt_orphans(void) {
#ifdef __linux__
  static bool done;
  if (!done)
    (void)prctl(PR_SET_CHILD_SUBREAPER, 1);
  done = true;
#endif
}

/* What the child said before its program ran. */
typedef struct started {
  int exec_errno; ///< 0: it started
  pid_t inner;    ///< the process running the program (0: the child)
  pid_t first;    ///< the supervisor's child (0: none)
  int level;      ///< the isolation made (-1: not said)
} started;

/* Reads the records of the error pipe `fd` until it closes (or, isolated,
 * until the program runs). */
static void read_records(int fd, started *out) {
  lctx_peer_record r;
  for (;;) {
    ssize_t got = read(fd, &r, sizeof r);
    if (got < 0 && errno == EINTR)
      continue;
    if (got != (ssize_t)sizeof r)
      return;
    if (r.kind == LCTX_PEER_RECORD_EXEC)
      out->exec_errno = r.value;
    else if (r.kind == LCTX_PEER_RECORD_INNER)
      out->inner = r.value;
    else if (r.kind == LCTX_PEER_RECORD_LEVEL)
      out->level = r.value;
    else if (r.kind == LCTX_PEER_RECORD_FIRST)
      out->first = r.value;
    else if (r.kind == LCTX_PEER_RECORD_STARTED)
      return;
  }
}

/* Forks the child of `c` (its spec, pipe ends and, isolated, its log and
 * directory); `*out` gets what it said before its program ran. A child
 * whose program could not start is killed. An isolated peer's error pipe
 * stays open for its notes: into `*notes` (may be NULL: closed). */
static pid_t fork_peer(lctx_peer_child *c, started *out, int *notes) {
  const lctx_peer_spec *s = c->spec;
  int err[2] = {-1, -1};
  *out = (started){0, 0, 0, -1};
  if ((!s->body || s->isolate) && !make_pipe(err))
    return -1;
  c->err = err[1];
  c->parent = getpid();
  c->uid = getuid();
  c->gid = getgid();
  fflush(NULL);
  pthread_mutex_lock(&registry_lock);
  adopt_orphans();
  pid_t pid = fork();
  int fork_errno = errno;
  if (pid == 0)
    lctx_peer_child_main(c);
  if (pid > 0)
    enlist(pid);
  pthread_mutex_unlock(&registry_lock);
  if (err[1] >= 0)
    close(err[1]);
  if (pid > 0 && err[0] >= 0) {
    read_records(err[0], out);
    if (out->exec_errno != 0)
      lctx_peer_kill(pid);
    if (out->level >= 0) {
      pthread_mutex_lock(&registry_lock);
      isolation = out->level;
      pthread_mutex_unlock(&registry_lock);
    }
  }
  if (notes && s->isolate && pid > 0 && out->exec_errno == 0)
    *notes = err[0];
  else if (err[0] >= 0)
    close(err[0]);
  errno = fork_errno;
  return pid;
}

pid_t lctx_peer_spawn(const lctx_peer_spec *s) {
  lctx_peer_child c = {.spec = s, .in = -1, .out = -1, .log_fd = -1};
  started st;
  lctx_peer_spec plain;
  if (s->isolate) { /* the log is lctx_peer_start's to open */
    plain = *s;
    plain.isolate = false;
    c.spec = &plain;
  }
  pid_t pid = fork_peer(&c, &st, NULL);
  if (pid > 0 && st.exec_errno != 0) {
    errno = st.exec_errno;
    return -1;
  }
  return pid;
}

static void set_nonblocking(int fd, size_t pipe_size) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
#ifdef F_SETPIPE_SZ
  if (pipe_size > 0)
    (void)fcntl(fd, F_SETPIPE_SZ, (int)pipe_size);
#else
  (void)pipe_size;
#endif
}

/* Says why a start failed: `what` and errno's text. */
static bool start_failed(lctx_buf *error, const char *what, int e) {
  lctx_buf_append_cstr(error, what);
  lctx_buf_append_cstr(error, strerror(e));
  return false;
}

/* An isolated peer's log, opened by lctx: never through a symbolic link,
 * a regular file or a character device (/dev/null) only, never blocking
 * (a FIFO); -1, said on stderr and counted, when refused. */
static int open_log(const lctx_peer_spec *s) {
  const char *path = s->log ? s->log : "/dev/null";
  int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
  flags |= s->truncate_log ? O_TRUNC : O_APPEND;
  int fd = open(path, flags, 0666);
  int e = errno;
  struct stat st;
  if (fd >= 0 && fstat(fd, &st) == 0 &&
      (S_ISREG(st.st_mode) || S_ISCHR(st.st_mode))) {
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return lctx_peer_fd_above_standard(fd);
  }
  if (fd >= 0) {
    close(fd);
    e = 0;
  }
  count(&logs_refused, 1);
  char text[512];
  lctx_buf b;
  lctx_buf_init(&b, text, sizeof text);
  lctx_buf_append_cstr(&b, "lctx: warning: the log '");
  lctx_escape_append(&b, path, strlen(path));
  lctx_buf_append_cstr(&b, "' is refused (");
  lctx_buf_append_cstr(&b, e == ELOOP ? "a symbolic link"
                           : e == 0   ? "not a regular file"
                                      : strerror(e));
  lctx_buf_append_cstr(&b, "): what the peer writes there is dropped\n");
  fputs(text, stderr);
  return -1;
}

bool lctx_peer_start(lctx_peer *p, const lctx_peer_spec *s, lctx_buf *error) {
  lctx_peer_stop(p, 0, NULL, 0);
  int down[2] = {-1, -1}, up[2] = {-1, -1};
  if (s->pipes && (!make_pipe(down) || !make_pipe(up))) {
    int e = errno;
    close_pair(down);
    close_pair(up);
    return start_failed(error, "pipe: ", e);
  }
  lctx_peer_child c = {.spec = s, .in = down[0], .out = up[1], .log_fd = -1};
  lctx_peer_spec copy;
  char **argv = NULL;
  if (s->isolate) {
    copy = *s;
    if (s->argv && !(argv = lctx_peer_absolute_argv(s->argv, s->search_path))) {
      close_pair(down);
      close_pair(up);
      return start_failed(error, "", ENOMEM);
    }
    if (argv)
      copy.argv = argv;
    c.spec = &copy;
    c.log_fd = open_log(s);
    c.dir = p->dir = lctx_peer_private_dir();
    c.protect_count = lctx_peer_protected(&c.protect, &c.hidden);
    const char *mode = getenv("LCTX_ISOLATION");
    c.no_namespaces = mode && strcmp(mode, "none") == 0;
  }
  started st;
  int notes = -1;
  pid_t pid = fork_peer(&c, &st, &notes);
  int fork_errno = errno;
  lctx_peer_free_argv(argv);
  int *parent_ends[] = {&down[0], &up[1], &c.log_fd};
  for (size_t i = 0; i < 3; i++) {
    if (*parent_ends[i] >= 0)
      close(*parent_ends[i]);
    *parent_ends[i] = -1;
  }
  p->note_fd = notes;
  if (pid < 0 || st.exec_errno != 0) {
    if (down[1] >= 0)
      close(down[1]);
    if (up[0] >= 0)
      close(up[0]);
    lctx_peer_stop(p, 0, NULL, 0); /* the directory and notes */
    if (pid < 0)
      return start_failed(error, "fork: ", fork_errno);
    lctx_buf_append_cstr(error, "cannot run '");
    lctx_escape_append(error, s->argv[0], strlen(s->argv[0]));
    lctx_buf_append_cstr(error, "': ");
    lctx_buf_append_cstr(error, strerror(st.exec_errno));
    return false;
  }
  p->pid = pid;
  p->inner = st.inner > 0 ? st.inner : pid;
  p->first = st.first > 0 ? st.first : -1;
  p->to_fd = down[1];
  p->from_fd = up[0];
  if (p->to_fd >= 0) {
    set_nonblocking(p->to_fd, s->pipe_size);
    set_nonblocking(p->from_fd, s->pipe_size);
  }
  if (p->note_fd >= 0)
    set_nonblocking(p->note_fd, 0);
  p->statm_fd = lctx_sys_statm_open(p->inner);
  p->next_watch = 0;
  return true;
}

/* The probe of lctx_peer_isolation: an isolated peer that ends at once. */
static void probe_body(void *user, int in_fd, int out_fd) {
  (void)user;
  (void)in_fd;
  (void)out_fd;
}

const char *lctx_peer_isolation(void) {
  pthread_mutex_lock(&registry_lock);
  int level = isolation;
  pthread_mutex_unlock(&registry_lock);
  if (level < 0) {
    lctx_peer probe;
    lctx_peer_init(&probe);
    lctx_peer_spec s = {.body = probe_body, .isolate = true};
    char text[256];
    lctx_buf error;
    lctx_buf_init(&error, text, sizeof text);
    if (lctx_peer_start(&probe, &s, &error))
      lctx_peer_stop(&probe, 1.0, NULL, 0);
    pthread_mutex_lock(&registry_lock);
    level = isolation;
    pthread_mutex_unlock(&registry_lock);
  }
  return level == LCTX_PEER_ISOLATION_PID    ? "pid namespace"
         : level == LCTX_PEER_ISOLATION_USER ? "user+pid namespace"
                                             : "none";
}

//===----------------------------------------------------------------------===//
// Waiting and stopping
//===----------------------------------------------------------------------===//

void lctx_peer_describe(int status, char *out, size_t cap) {
  if (WIFSIGNALED(status))
    snprintf(out, cap, "killed by signal %d (%s)", WTERMSIG(status),
             strsignal(WTERMSIG(status)));
  else if (WIFEXITED(status))
    snprintf(out, cap, "exited with status %d", WEXITSTATUS(status));
  else
    snprintf(out, cap, "stopped");
}

pid_t lctx_peer_reap(pid_t pid, bool block, int *status) {
  int st = 0;
  pid_t r;
  if (block) {
    r = reap_until(pid, lctx_sys_now() + LCTX_PEER_REAP_SECONDS, &st);
  } else {
    while ((r = waitpid(pid, &st, WNOHANG)) < 0 && errno == EINTR)
      ;
  }
  if (r == pid) {
    delist(pid);
    if (status)
      *status = st;
  } else if (r == 0 && block) {
    /* Given up: no longer a peer, so that later sweeps try again. */
    pthread_mutex_lock(&registry_lock);
    delist_locked(pid);
    given_up++;
    pthread_mutex_unlock(&registry_lock);
  }
  return r;
}

int lctx_peer_kill(pid_t pid) {
  if (pid <= 0)
    return -1;
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  int status = -1;
  if (lctx_peer_reap(pid, true, &status) != pid)
    status = -1;
  lctx_peer_sweep();
  return status;
}

int lctx_peer_run(const lctx_peer_spec *s, double timeout,
                  bool stop_on_interrupt, double *seconds, bool *stopped) {
  double start = lctx_sys_now();
  if (seconds)
    *seconds = 0;
  if (stopped)
    *stopped = false;
  pid_t pid = lctx_peer_spawn(s);
  if (pid < 0)
    return -1;
  int status = -1;
  for (;;) {
    pid_t r = lctx_peer_reap(pid, false, &status);
    if (r == pid || r < 0)
      break;
    if (lctx_sys_now() - start > timeout ||
        (stop_on_interrupt && lctx_sys_interrupted())) {
      status = lctx_peer_kill(pid);
      if (stopped)
        *stopped = true;
      break;
    }
    lctx_sys_sleep(0.002);
  }
  kill(-pid, SIGKILL); /* what it left in its group */
  lctx_peer_sweep();
  if (seconds)
    *seconds = lctx_sys_now() - start;
  return status;
}

void lctx_peer_init(lctx_peer *p) {
  memset(p, 0, sizeof *p);
  p->pid = p->inner = p->first = -1;
  p->to_fd = p->from_fd = p->statm_fd = p->note_fd = -1;
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

void lctx_peer_stop(lctx_peer *p, double grace, char *why, size_t cap) {
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
    int status = lctx_peer_kill(p->pid);
    if (why && ended)
      lctx_peer_describe(status, why, cap);
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
      count(&logs_capped, 1);
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
  lctx_peer_stop(p, 0, NULL, 0);
  free(p->in);
  free(p->out);
  p->in = p->out = NULL;
  p->in_capacity = p->out_capacity = 0;
}

//===----------------------------------------------------------------------===//
// Moving bytes
//===----------------------------------------------------------------------===//

static bool reserve(uint8_t **buf, size_t *capacity, size_t need) {
  if (need <= *capacity)
    return true;
  size_t cap = *capacity ? *capacity : 65536;
  while (cap < need)
    cap *= 2;
  uint8_t *p = realloc(*buf, cap);
  if (!p)
    return false;
  *buf = p;
  *capacity = cap;
  return true;
}

/* Room for `n` more bytes at the end of the read buffer: what is not yet
 * consumed moves to its start first (lctx_peer_consume only counts). */
static bool room_to_read(lctx_peer *p, size_t n) {
  if (p->in_off > 0) {
    memmove(p->in, lctx_peer_input(p), p->in_length);
    p->in_off = 0;
  }
  return reserve(&p->in, &p->in_capacity, p->in_length + n);
}

bool lctx_peer_queue(lctx_peer *p, const void *data, size_t n) {
  if (!reserve(&p->out, &p->out_capacity, p->out_length + n))
    return false;
  memcpy(p->out + p->out_length, data, n);
  p->out_length += n;
  return true;
}

void lctx_peer_consume(lctx_peer *p, size_t n) {
  p->in_length -= n;
  p->in_off = p->in_length > 0 ? p->in_off + n : 0;
}

void lctx_peer_drain(lctx_peer *p) {
  for (int k = 0; k < 16 && p->from_fd >= 0; k++) {
    if (!room_to_read(p, READ_CHUNK))
      return;
    ssize_t got = read(p->from_fd, p->in + p->in_length, READ_CHUNK);
    if (got <= 0)
      return;
    p->in_length += (size_t)got;
  }
}

bool lctx_peer_flush(lctx_peer *p) {
  while (p->out_sent < p->out_length) {
    ssize_t w =
        write(p->to_fd, p->out + p->out_sent, p->out_length - p->out_sent);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0)
      return errno == EAGAIN;
    p->out_sent += (size_t)w;
  }
  p->out_sent = p->out_length = 0;
  return true;
}

/* What ends a pump when the peer ended: what it wrote before may still be
 * what was wanted. */
static lctx_peer_end at_end(lctx_peer *p, lctx_peer_want want, void *user) {
  lctx_peer_drain(p);
  int w = want(user);
  return w > 0 ? LCTX_PEER_DONE : w < 0 ? LCTX_PEER_BAD : LCTX_PEER_EOF;
}

/* The peer's memory and life while waiting: LCTX_PEER_MEMORY over its
 * limit, LCTX_PEER_EOF when it ended (a child it left may hold its pipe
 * open), else LCTX_PEER_DONE. */
static lctx_peer_end watch(const lctx_peer *p) {
  if (p->memory_limit_mb > 0 && p->pid > 0 &&
      lctx_peer_resident(p) > (double)p->memory_limit_mb * 1048576.0)
    return LCTX_PEER_MEMORY;
  return lctx_peer_ended(p) ? LCTX_PEER_EOF : LCTX_PEER_DONE;
}

/* One poll() of both pipes for at most `left` seconds, and the bytes it
 * lets through: LCTX_PEER_DONE to go on, else how the pump ends. */
static lctx_peer_end move_bytes(lctx_peer *p, double left, lctx_peer_want want,
                                void *user) {
  struct pollfd fds[2];
  fds[0] = (struct pollfd){p->from_fd, POLLIN, 0};
  bool writing = p->out_sent < p->out_length;
  if (writing)
    fds[1] = (struct pollfd){p->to_fd, POLLOUT, 0};
  int r = poll(fds, writing ? 2 : 1, (int)(left * 1000) + 1);
  if (r < 0)
    return errno == EINTR ? LCTX_PEER_DONE : LCTX_PEER_EOF;
  if (writing && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
    ssize_t wr =
        write(p->to_fd, p->out + p->out_sent, p->out_length - p->out_sent);
    if (wr < 0 && errno != EAGAIN && errno != EINTR)
      return at_end(p, want, user); /* it closed its input */
    if (wr > 0)
      p->out_sent += (size_t)wr;
    if (p->out_sent == p->out_length)
      p->out_sent = p->out_length = 0;
  }
  if (fds[0].revents & (POLLIN | POLLERR | POLLHUP)) {
    if (!room_to_read(p, READ_CHUNK))
      return LCTX_PEER_EOF;
    ssize_t got = read(p->from_fd, p->in + p->in_length, READ_CHUNK);
    if (got == 0)
      return at_end(p, want, user);
    if (got < 0 && errno != EAGAIN && errno != EINTR)
      return LCTX_PEER_EOF;
    if (got > 0)
      p->in_length += (size_t)got;
  }
  return LCTX_PEER_DONE;
}

/* How a pump ends at its deadline: what the peer wrote meanwhile (lctx may
 * have been stopped, SIGSTOP or Ctrl-Z, while it came) may be what was
 * wanted. */
static lctx_peer_end at_deadline(lctx_peer *p, lctx_peer_want want,
                                 void *user) {
  lctx_peer_drain(p);
  int w = want(user);
  return w > 0 ? LCTX_PEER_DONE : w < 0 ? LCTX_PEER_BAD : LCTX_PEER_TIMEOUT;
}

lctx_peer_end lctx_peer_pump(lctx_peer *p, double deadline, lctx_peer_want want,
                             void *user) {
  double last = lctx_sys_now(), waited = 0;
  for (;;) {
    int w = want(user);
    if (w != 0)
      return w > 0 ? LCTX_PEER_DONE : LCTX_PEER_BAD;
    double now = lctx_sys_now();
    /* Time lctx itself did not run (it was stopped) is not the peer's. */
    if (now - last > waited + STALL_SECONDS)
      deadline += now - last - waited;
    last = now;
    if (now >= p->next_watch) {
      p->next_watch = now + WATCH_PERIOD;
      lctx_peer_end s = watch(p);
      if (s == LCTX_PEER_EOF)
        return at_end(p, want, user);
      if (s != LCTX_PEER_DONE)
        return s;
    }
    double left = deadline - now;
    if (p->stop_on_interrupt && lctx_sys_interrupted())
      return LCTX_PEER_TIMEOUT;
    if (left <= 0)
      return at_deadline(p, want, user);
    if (left > p->next_watch - now)
      left = p->next_watch - now;
    waited = left;
    lctx_peer_end s = move_bytes(p, left, want, user);
    if (s != LCTX_PEER_DONE)
      return s;
  }
}
