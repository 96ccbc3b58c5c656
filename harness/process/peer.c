/*
 * peer.c - starting the child processes of lctx (see peer.h), and the
 * registry of those running.
 *
 * Starting: pipes made close-on-exec and above the standard descriptors,
 * fork, and in the child peer_child.c's part (a session of its own, death
 * with lctx, the standard streams, every other descriptor closed, the
 * environment, then the program or lctx's own code; for an isolated peer,
 * its supervisor and namespaces first). What a child has to say before its
 * program runs (an exec's errno, the pid of an isolated peer's program,
 * the isolation made) comes up the error pipe as records. lctx is the
 * child subreaper (set once, at the first start), so that whatever a peer
 * left becomes a child of lctx when its parent ends (peer_stop.c kills and
 * reaps it). The registry is this module's one mutable state, with its
 * counters: the pids of the peers started and not yet reaped.
 */
#define _GNU_SOURCE /* pipe2, F_SETPIPE_SZ */
#include "peer.h"
#include "peer_private.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "escape.h"

//===----------------------------------------------------------------------===//
// The registry of running peers
//===----------------------------------------------------------------------===//

static pid_t *running;
static size_t running_count, running_capacity;
/* The registry, and a fork until its child is listed, are one thread's at
 * a time: the jobs of a conform run start and stop peers at once, and a
 * sweep must never take a peer just forked for something it left. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
/* Counters (under registry_lock): lctx_peer_counter's; the isolation last
 * made (-1: none started). */
static size_t counters[LCTX_PEER_COUNTERS];
static int isolation = -1;

void lctx_peer_registry_hold(void) {
  pthread_mutex_lock(&registry_lock);
}

void lctx_peer_registry_release(void) {
  pthread_mutex_unlock(&registry_lock);
}

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

void lctx_peer_delist_held(pid_t pid) {
  for (size_t i = 0; i < running_count; i++) {
    if (running[i] == pid) {
      running[i] = running[--running_count];
      break;
    }
  }
}

bool lctx_peer_listed_held(pid_t pid) {
  for (size_t i = 0; i < running_count; i++) {
    if (running[i] == pid)
      return true;
  }
  return false;
}

size_t lctx_peer_count(lctx_peer_counter which, size_t n) {
  pthread_mutex_lock(&registry_lock);
  size_t v = counters[which] += n;
  pthread_mutex_unlock(&registry_lock);
  return v;
}

size_t lctx_peer_count_held(lctx_peer_counter which, size_t n) {
  return counters[which] += n;
}

size_t lctx_peer_swept_total(void) {
  return lctx_peer_count(LCTX_PEER_COUNT_SWEPT, 0);
}
size_t lctx_peer_given_up(void) {
  return lctx_peer_count(LCTX_PEER_COUNT_GIVEN_UP, 0);
}
size_t lctx_peer_logs_capped(void) {
  return lctx_peer_count(LCTX_PEER_COUNT_CAPPED, 0);
}
size_t lctx_peer_logs_refused(void) {
  return lctx_peer_count(LCTX_PEER_COUNT_REFUSED, 0);
}

void lctx_peer_init(lctx_peer *p) {
  memset(p, 0, sizeof *p);
  p->pid = p->inner = p->first = -1;
  p->to_fd = p->from_fd = p->statm_fd = p->note_fd = -1;
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
  int fork_errno; ///< the pipe's or fork's errno when there is no child
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
  *out = (started){0, 0, 0, 0, -1};
  if ((!s->body || s->isolate) && !make_pipe(err)) {
    out->fork_errno = errno;
    return -1;
  }
  c->err = err[1];
  c->parent = getpid();
  c->uid = getuid();
  c->gid = getgid();
  fflush(NULL);
  pthread_mutex_lock(&registry_lock);
  adopt_orphans();
  pid_t pid = fork();
  out->fork_errno = pid < 0 ? errno : 0;
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
      (void)lctx_peer_kill(pid, NULL);
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
  return pid;
}

/* Says why a start failed: `what` and errno's text. */
static bool start_failed(lctx_buf *error, const char *what, int e) {
  if (!error)
    return false;
  lctx_buf_append_cstr(error, what);
  lctx_buf_append_cstr(error, strerror(e));
  return false;
}

/* Says that the program of `s` could not run: its errno `e`. */
static bool exec_failed(lctx_buf *error, const lctx_peer_spec *s, int e) {
  const char *name = s->argv && s->argv[0] ? s->argv[0] : "";
  if (!error)
    return false;
  lctx_buf_append_cstr(error, "cannot run '");
  lctx_escape_append(error, name, strlen(name));
  lctx_buf_append_cstr(error, "': ");
  lctx_buf_append_cstr(error, strerror(e));
  return false;
}

bool lctx_peer_spawn(const lctx_peer_spec *s, pid_t *pid, lctx_buf *error) {
  lctx_peer_child c = {.spec = s, .in = -1, .out = -1, .log_fd = -1};
  started st;
  lctx_peer_spec plain;
  if (s->isolate) { /* the log is lctx_peer_start's to open */
    plain = *s;
    plain.isolate = false;
    c.spec = &plain;
  }
  *pid = fork_peer(&c, &st, NULL);
  if (*pid < 0)
    return start_failed(error, "fork: ", st.fork_errno);
  if (st.exec_errno != 0) {
    *pid = -1;
    return exec_failed(error, s, st.exec_errno);
  }
  return true;
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
  lctx_peer_count(LCTX_PEER_COUNT_REFUSED, 1);
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
  lctx_peer_stop(p, 0, NULL);
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
    lctx_peer_stop(p, 0, NULL); /* the directory and notes */
    if (pid < 0)
      return start_failed(error, "fork: ", st.fork_errno);
    return exec_failed(error, s, st.exec_errno);
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
      lctx_peer_stop(&probe, 1.0, NULL);
    pthread_mutex_lock(&registry_lock);
    level = isolation;
    pthread_mutex_unlock(&registry_lock);
  }
  return level == LCTX_PEER_ISOLATION_PID    ? "pid namespace"
         : level == LCTX_PEER_ISOLATION_USER ? "user+pid namespace"
                                             : "none";
}
