/*
 * peer.c - every child process lctx starts (see peer.h).
 *
 * Starting: pipes made close-on-exec and above the standard descriptors,
 * fork, and in the child (child_main) a session of its own, death with
 * lctx, the standard streams, every other descriptor closed, the
 * environment, then the program or lctx's own code. Stopping: the process
 * group is killed, the peer reaped, then the sweep: lctx is the child
 * subreaper (set once, at the first start), so that whatever a peer left
 * becomes a child of lctx when its parent ends; every child that is not a
 * running peer (the registry below) is killed and reaped, pass after pass,
 * until none is left. The registry is this module's one mutable state: the
 * pids of the peers started and not yet reaped.
 */
#define _GNU_SOURCE /* pipe2, F_SETPIPE_SZ, close_range */
#include "peer.h"
#include "sys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
/* How long a sweep goes on at most (a peer that forks without end). */
#define SWEEP_SECONDS 5.0

//===----------------------------------------------------------------------===//
// The registry of running peers
//===----------------------------------------------------------------------===//

static pid_t *running;
static size_t running_count, running_capacity;
/* Guards the registry, and makes a fork and its listing one step against a
 * sweep (peers may be started and stopped from several threads). */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

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

static void delist(pid_t pid) {
  pthread_mutex_lock(&registry_lock);
  for (size_t i = 0; i < running_count; i++) {
    if (running[i] == pid) {
      running[i] = running[--running_count];
      break;
    }
  }
  pthread_mutex_unlock(&registry_lock);
}

static bool is_running_peer(pid_t pid) {
  for (size_t i = 0; i < running_count; i++) {
    if (running[i] == pid)
      return true;
  }
  return false;
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

/* Kills and reaps the children of lctx that are not running peers, as
 * /proc lists them now; returns how many. */
static size_t sweep_once(void) {
  DIR *d = opendir("/proc");
  if (!d)
    return 0;
  pid_t self = getpid();
  size_t count = 0;
  pthread_mutex_lock(&registry_lock);
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    const char *name = e->d_name;
    if (name[0] < '1' || name[0] > '9' ||
        name[strspn(name, "0123456789")] != '\0')
      continue;
    pid_t pid = (pid_t)strtol(name, NULL, 10);
    if (pid == self || is_running_peer(pid) || parent_of(name) != self)
      continue;
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
      ;
    count++;
  }
  pthread_mutex_unlock(&registry_lock);
  closedir(d);
  return count;
}

size_t lctx_peer_sweep(void) {
  size_t total = 0;
  double until = lctx_sys_now() + SWEEP_SECONDS;
  for (size_t n; (n = sweep_once()) > 0 && lctx_sys_now() < until;)
    total += n;
  return total;
}

//===----------------------------------------------------------------------===//
// Starting
//===----------------------------------------------------------------------===//

/* `fd` moved above the standard descriptors (a lctx started with one of
 * them closed gets pipes there), close-on-exec. */
static int above_standard(int fd) {
  if (fd < 0 || fd > 2)
    return fd;
  int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  close(fd);
  return moved;
}

static bool make_pipe(int fds[2]) {
  if (pipe2(fds, O_CLOEXEC) != 0)
    return false;
  fds[0] = above_standard(fds[0]);
  fds[1] = above_standard(fds[1]);
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

/* In the child: closes every descriptor above 2 but those in `keep` (-1
 * entries ignored), with close_range where the system has it and one
 * close per descriptor where it has not (or refuses). */
static void close_others(const int keep[3]) {
  int k[3] = {keep[0], keep[1], keep[2]};
  for (int i = 0; i < 3; i++) /* sorted */
    for (int j = i + 1; j < 3; j++)
      if (k[j] < k[i]) {
        int t = k[i];
        k[i] = k[j];
        k[j] = t;
      }
  bool done = false;
#if defined(__linux__) && defined(__GLIBC__) &&                                \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  unsigned from = 3;
  done = true;
  for (int i = 0; i < 3 && done; i++) {
    if (k[i] < (int)from)
      continue;
    done = k[i] == (int)from || close_range(from, (unsigned)k[i] - 1, 0) == 0;
    from = (unsigned)k[i] + 1;
  }
  done = done && close_range(from, ~0u, 0) == 0;
#endif
  if (done)
    return;
  long max = sysconf(_SC_OPEN_MAX);
  if (max < 0 || max > 65536)
    max = 65536;
  for (int fd = 3; fd < (int)max; fd++) {
    if (fd != k[0] && fd != k[1] && fd != k[2])
      close(fd);
  }
}

/* In the child: `fd` becomes descriptor `target` (kept across exec). */
static void put_at(int fd, int target) {
  if (fd == target)
    fcntl(fd, F_SETFD, 0);
  else if (fd >= 0)
    dup2(fd, target);
}

/* In the child: a session of its own, death with `parent`, signals as a
 * fresh program has them. */
static void become_peer(pid_t parent, bool survives_lctx) {
  setsid();
#ifdef __linux__
  if (!survives_lctx)
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
  if (!survives_lctx && getppid() != parent)
    _exit(127); /* lctx died before the line above */
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  signal(SIGPIPE, SIG_DFL);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGHUP, SIG_DFL);
}

/* The child's side of lctx_peer_start and lctx_peer_spawn: `in` and `out`
 * are its pipe ends (-1: none), `err` the pipe an exec failure's errno
 * goes up (-1: none). */
static _Noreturn void child_main(const lctx_peer_spec *s, pid_t parent, int in,
                                 int out, int err) {
  become_peer(parent, s->survives_lctx);
  int flags = O_WRONLY | O_CREAT | O_CLOEXEC;
  flags |= s->truncate_log ? O_TRUNC : O_APPEND;
  /* Above the standard descriptors (a lctx started with one of them
   * closed would get them here), and none of lctx's left in their place
   * when a file cannot be opened. */
  int log = above_standard(open(s->log ? s->log : "/dev/null", flags, 0666));
  if (log < 0)
    log = above_standard(open("/dev/null", O_WRONLY | O_CLOEXEC));
  bool program = s->body == NULL;
  int input = -1;
  if (!(program && in >= 0))
    input = above_standard(
        open(program && s->stdin_path ? s->stdin_path : "/dev/null",
             O_RDONLY | O_CLOEXEC));
  int std[3] = {program && in >= 0 ? in : input,
                program && out >= 0 ? out : log, log};
  for (int k = 0; k < 3; k++) {
    if (std[k] < 0)
      close(k);
    put_at(std[k], k);
  }
  int keep[3] = {program ? -1 : in, program ? -1 : out, err};
  close_others(keep);
  for (const char *const *e = s->env; e && e[0] && e[1]; e += 2)
    setenv(e[0], e[1], 1);
  if (!program) {
    s->body(s->user, in, out);
    _exit(0);
  }
  if (s->search_path)
    execvp(s->argv[0], s->argv);
  else
    execv(s->argv[0], s->argv);
  int e = errno;
  if (s->who)
    dprintf(2, "%s: cannot run %s: %s\n", s->who, s->argv[0], strerror(e));
  if (err >= 0)
    (void)!write(err, &e, sizeof e);
  _exit(127);
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

/* Forks the child of `s` with the pipe ends `in` and `out` (-1: none);
 * `*exec_errno` gets the errno of a failed exec (0: it started). */
static pid_t fork_peer(const lctx_peer_spec *s, int in, int out,
                       int *exec_errno) {
  int err[2] = {-1, -1};
  *exec_errno = 0;
  if (!s->body && !make_pipe(err))
    return -1;
  adopt_orphans();
  fflush(NULL);
  pid_t parent = getpid();
  pthread_mutex_lock(&registry_lock);
  pid_t pid = fork();
  int fork_errno = errno;
  if (pid == 0)
    child_main(s, parent, in, out, err[1]);
  if (pid > 0)
    enlist(pid);
  pthread_mutex_unlock(&registry_lock);
  if (err[1] >= 0)
    close(err[1]);
  if (pid > 0 && err[0] >= 0) {
    int e = 0;
    ssize_t got;
    while ((got = read(err[0], &e, sizeof e)) < 0 && errno == EINTR)
      ;
    if (got == (ssize_t)sizeof e) {
      *exec_errno = e;
      lctx_peer_kill(pid);
    }
  }
  if (err[0] >= 0)
    close(err[0]);
  errno = fork_errno;
  return pid;
}

pid_t lctx_peer_spawn(const lctx_peer_spec *s) {
  int e;
  pid_t pid = fork_peer(s, -1, -1, &e);
  if (pid > 0 && e != 0) {
    errno = e;
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

bool lctx_peer_start(lctx_peer *p, const lctx_peer_spec *s, lctx_buf *error) {
  lctx_peer_stop(p, 0, NULL, 0);
  int down[2] = {-1, -1}, up[2] = {-1, -1};
  if (s->pipes && (!make_pipe(down) || !make_pipe(up))) {
    int e = errno;
    close_pair(down);
    return start_failed(error, "pipe: ", e);
  }
  int e = 0;
  pid_t pid = fork_peer(s, down[0], up[1], &e);
  int fork_errno = errno;
  if (down[0] >= 0)
    close(down[0]);
  if (up[1] >= 0)
    close(up[1]);
  if (pid < 0 || e != 0) {
    if (down[1] >= 0)
      close(down[1]);
    if (up[0] >= 0)
      close(up[0]);
    if (pid < 0)
      return start_failed(error, "fork: ", fork_errno);
    lctx_buf_append_cstr(error, "cannot run '");
    lctx_escape_append(error, s->argv[0], strlen(s->argv[0]));
    lctx_buf_append_cstr(error, "': ");
    lctx_buf_append_cstr(error, strerror(e));
    return false;
  }
  p->pid = pid;
  p->to_fd = down[1];
  p->from_fd = up[0];
  if (p->to_fd >= 0) {
    set_nonblocking(p->to_fd, s->pipe_size);
    set_nonblocking(p->from_fd, s->pipe_size);
  }
  p->statm_fd = lctx_sys_statm_open(pid);
  p->next_watch = 0;
  return true;
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
  while ((r = waitpid(pid, &st, block ? 0 : WNOHANG)) < 0 && errno == EINTR)
    ;
  if (r == pid) {
    delist(pid);
    if (status)
      *status = st;
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
  p->pid = -1;
  p->to_fd = p->from_fd = p->statm_fd = -1;
}

bool lctx_peer_ended(const lctx_peer *p) {
  siginfo_t si;
  memset(&si, 0, sizeof si);
  return p->pid > 0 &&
         waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         si.si_pid == p->pid;
}

double lctx_peer_resident(const lctx_peer *p) {
  return p->statm_fd >= 0 ? lctx_sys_resident_bytes_at(p->statm_fd)
                          : lctx_sys_resident_bytes(p->pid);
}

void lctx_peer_stop(lctx_peer *p, double grace, char *why, size_t cap) {
  int *fds[3] = {&p->to_fd, &p->from_fd, &p->statm_fd};
  for (int i = 0; i < 3; i++) {
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
    int status = lctx_peer_kill(p->pid);
    if (why && ended)
      lctx_peer_describe(status, why, cap);
    p->pid = -1;
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
