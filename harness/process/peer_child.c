/*
 * peer_child.c - the processes of a peer before its program runs (see
 * peer_private.h): descriptors, namespaces, capabilities, the supervisor
 * that copies the peer's output into its log and ends as the peer did.
 */
#define _GNU_SOURCE /* close_range, unshare, CLONE_*, pipe2 */
#include "peer_private.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/capability.h>
#include <sys/prctl.h>
#endif

/* How long a supervisor still copies output after its peer ended (what a
 * descendant holding the pipe writes is not waited for longer). */
#define DRAIN_MS 1000

int lctx_peer_fd_above_standard(int fd) {
  if (fd < 0 || fd > 2)
    return fd;
  int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  close(fd);
  return moved;
}

/* Closes every descriptor above 2 but the `n` in `keep` (-1 entries
 * ignored), with close_range where the system has it and one close per
 * descriptor where it has not (or refuses). */
static void close_others(const int *keep, int n) {
  int k[8];
  int m = 0;
  for (int i = 0; i < n && m < 8; i++)
    if (keep[i] > 2)
      k[m++] = keep[i];
  for (int i = 0; i < m; i++) /* sorted */
    for (int j = i + 1; j < m; j++)
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
  for (int i = 0; i < m && done; i++) {
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
    bool kept = false;
    for (int i = 0; i < m; i++)
      kept = kept || fd == k[i];
    if (!kept)
      close(fd);
  }
}

/* `fd` becomes descriptor `target` (kept across exec). */
static void put_at(int fd, int target) {
  if (fd == target)
    fcntl(fd, F_SETFD, 0);
  else if (fd >= 0)
    dup2(fd, target);
}

static void write_record(int fd, int32_t kind, int32_t value) {
  if (fd < 0)
    return;
  lctx_peer_record r = {kind, value};
  while (write(fd, &r, sizeof r) < 0 && errno == EINTR)
    ;
}

static void write_all(int fd, const void *data, size_t n) {
  const char *p = data;
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return;
    p += w;
    n -= (size_t)w;
  }
}

/* Death with the parent (`signal` when it dies), and whether it is still
 * there: its pid is `parent` (0: not checked here). */
static void die_with_parent(pid_t parent) {
#ifdef __linux__
  prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
  if (parent > 0 && getppid() != parent)
    _exit(127); /* the parent died before the line above */
}

/* Signals as a fresh program has them. */
static void fresh_signals(void) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  signal(SIGPIPE, SIG_DFL);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGHUP, SIG_DFL);
}

//===----------------------------------------------------------------------===//
// The peer itself
//===----------------------------------------------------------------------===//

/* The peer's standard streams, its descriptors and environment, then its
 * program or body: `log` is where stderr (and stdout without a pipe) go. */
static _Noreturn void run_peer(const lctx_peer_child *c, int log) {
  const lctx_peer_spec *s = c->spec;
  bool program = s->body == NULL;
  int input = -1;
  if (!(program && c->in >= 0))
    input = lctx_peer_fd_above_standard(
        open(program && s->stdin_path ? s->stdin_path : "/dev/null",
             O_RDONLY | O_CLOEXEC));
  int std[3] = {program && c->in >= 0 ? c->in : input,
                program && c->out >= 0 ? c->out : log, log};
  for (int k = 0; k < 3; k++) {
    if (std[k] < 0)
      close(k);
    put_at(std[k], k);
  }
  int keep[3] = {program ? -1 : c->in, program ? -1 : c->out, c->err};
  close_others(keep, 3);
  fresh_signals();
  for (const char *const *e = s->env; e && e[0] && e[1]; e += 2)
    setenv(e[0], e[1], 1);
  if (!program) {
    if (c->err >= 0)
      close(c->err); /* lctx waits for it to close */
    s->body(s->user, c->in, c->out);
    _exit(0);
  }
  if (s->search_path)
    execvp(s->argv[0], s->argv);
  else
    execv(s->argv[0], s->argv);
  int e = errno;
  if (s->who)
    dprintf(2, "%s: cannot run %s: %s\n", s->who, s->argv[0], strerror(e));
  write_record(c->err, LCTX_PEER_RECORD_EXEC, e);
  _exit(127);
}

/* A plain peer: a session of its own, death with lctx, its log. */
static _Noreturn void plain_main(const lctx_peer_child *c) {
  const lctx_peer_spec *s = c->spec;
  setsid();
  if (!s->survives_lctx)
    die_with_parent(c->parent);
  int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
  flags |= s->truncate_log ? O_TRUNC : O_APPEND;
  /* Above the standard descriptors (a lctx started with one of them
   * closed would get them here), and none of lctx's left in their place
   * when a file cannot be opened. */
  int log = lctx_peer_fd_above_standard(
      open(s->log ? s->log : "/dev/null", flags, 0666));
  if (log < 0)
    log = lctx_peer_fd_above_standard(open("/dev/null", O_WRONLY | O_CLOEXEC));
  else
    fcntl(log, F_SETFL, fcntl(log, F_GETFL) & ~O_NONBLOCK);
  run_peer(c, log);
}

//===----------------------------------------------------------------------===//
// Namespaces
//===----------------------------------------------------------------------===//

/* `v` in decimal at `out` (room for 12 bytes); its length. */
static size_t decimal(unsigned long long v, char *out) {
  char tmp[24];
  size_t n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v > 0);
  for (size_t i = 0; i < n; i++)
    out[i] = tmp[n - 1 - i];
  return n;
}

static bool write_file(const char *path, const char *text, size_t n) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  bool ok = write(fd, text, n) == (ssize_t)n;
  close(fd);
  return ok;
}

/* In a fresh user namespace: uid and gid 0 there are lctx's. */
static bool map_ids(uid_t uid, gid_t gid) {
  char line[64] = "0 ";
  size_t n = 2 + decimal(uid, line + 2);
  memcpy(line + n, " 1\n", 3);
  if (!write_file("/proc/self/uid_map", line, n + 3))
    return false;
  (void)write_file("/proc/self/setgroups", "deny", 4);
  n = 2 + decimal(gid, line + 2);
  memcpy(line + n, " 1\n", 3);
  return write_file("/proc/self/gid_map", line, n + 3);
}

/* The namespaces the next child will be the init of: the isolation. */
static int enter_namespaces(const lctx_peer_child *c) {
  if (geteuid() == 0 && unshare(CLONE_NEWPID) == 0)
    return LCTX_PEER_ISOLATION_PID;
  if (unshare(CLONE_NEWUSER) != 0)
    return LCTX_PEER_ISOLATION_NONE;
  if (!map_ids(c->uid, c->gid) || unshare(CLONE_NEWPID) != 0)
    _exit(127); /* in a user namespace without its ids: cannot go on */
  return LCTX_PEER_ISOLATION_USER;
}

/* Folder `path` read-only in this mount namespace, or (`hide`) an empty
 * read-only folder in its place. A remount keeps the flags the mount had
 * (nosuid, nodev, noexec: a user namespace may not drop them). */
static void protect_folder(const char *path, bool hide) {
  if (hide) {
    (void)mount("tmpfs", path, "tmpfs",
                MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                "size=4k,mode=0500");
    return;
  }
  struct statvfs v;
  unsigned long keep = 0;
  if (statvfs(path, &v) == 0) {
    keep |= (v.f_flag & ST_NOSUID) ? MS_NOSUID : 0;
    keep |= (v.f_flag & ST_NODEV) ? MS_NODEV : 0;
    keep |= (v.f_flag & ST_NOEXEC) ? MS_NOEXEC : 0;
    keep |= (v.f_flag & ST_NOATIME) ? MS_NOATIME : 0;
    keep |= (v.f_flag & ST_NODIRATIME) ? MS_NODIRATIME : 0;
    keep |= (v.f_flag & ST_RELATIME) ? MS_RELATIME : 0;
  }
  if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) == 0)
    (void)mount(NULL, path, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | keep,
                NULL);
}

/* A fresh /proc that shows only the namespace, in a mount namespace of
 * its own; then no CAP_SYS_ADMIN (to undo it) or CAP_SYS_PTRACE. */
static void seal_namespace(const lctx_peer_child *c) {
  if (unshare(CLONE_NEWNS) == 0 &&
      mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0) {
    (void)mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                NULL);
    for (size_t i = 0; i < c->protect_count; i++)
      protect_folder(c->protect[i], c->hidden[i]);
  }
#ifdef __linux__
  /* Also what reaches a file past its mount (open_by_handle_at through
   * another mount of the same filesystem: CAP_DAC_READ_SEARCH), the disk
   * beneath (CAP_MKNOD, CAP_SYS_RAWIO), the kernel (CAP_SYS_MODULE,
   * CAP_SYS_BOOT) and other processes' memory (CAP_PERFMON, CAP_BPF,
   * CAP_CHECKPOINT_RESTORE). */
  static const int caps[] = {
      CAP_SYS_ADMIN,
      CAP_SYS_PTRACE,
      CAP_DAC_READ_SEARCH,
      CAP_MKNOD,
      CAP_SYS_RAWIO,
      CAP_SYS_MODULE,
      CAP_SYS_BOOT,
#ifdef CAP_PERFMON
      CAP_PERFMON,
#endif
#ifdef CAP_BPF
      CAP_BPF,
#endif
#ifdef CAP_CHECKPOINT_RESTORE
      CAP_CHECKPOINT_RESTORE,
#endif
  };
  enum { CAPS = sizeof caps / sizeof caps[0] };
  for (size_t i = 0; i < CAPS; i++)
    (void)prctl(PR_CAPBSET_DROP, caps[i], 0, 0, 0);
  struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2];
  if (syscall(SYS_capget, &head, data) == 0) {
    for (size_t i = 0; i < CAPS; i++) {
      uint32_t bit = 1u << (caps[i] & 31);
      data[caps[i] >> 5].effective &= ~bit;
      data[caps[i] >> 5].permitted &= ~bit;
      data[caps[i] >> 5].inheritable &= ~bit;
    }
    (void)syscall(SYS_capset, &head, data);
  }
#endif
}

/* The namespace's init I: forks the peer, reaps everything, and when the
 * peer ends hands its wait status to S on `status_fd` and ends (which
 * ends the namespace). `life` is a pipe S alone holds the write end of. */
static _Noreturn void init_main(const lctx_peer_child *c, int log, int life,
                                int status_fd) {
  die_with_parent(0);
  struct pollfd f = {life, POLLIN, 0};
  if (poll(&f, 1, 0) != 0)
    _exit(127); /* S died before the line above: its end closed */
  seal_namespace(c);
  if (c->dir && chdir(c->dir) != 0)
    _exit(127);
  pid_t peer = fork();
  if (peer == 0) {
    die_with_parent(1);
    close(life);
    close(status_fd);
    run_peer(c, log);
  }
  int keep[2] = {status_fd, -1};
  close_others(keep, 1);
  int devnull = open("/dev/null", O_RDWR);
  for (int k = 0; k < 3; k++)
    put_at(devnull, k);
  int status = 0x7f00; /* exited with status 127 when it could not fork */
  for (pid_t r; peer > 0;) {
    int st;
    r = waitpid(-1, &st, 0);
    if (r == peer) {
      status = st;
      break;
    }
    if (r < 0 && errno != EINTR)
      break;
  }
  write_all(status_fd, &status, sizeof status);
  _exit(0);
}

//===----------------------------------------------------------------------===//
// The supervisor
//===----------------------------------------------------------------------===//

/* The pid (lctx's view) of the one child of `pid`; -1 when there is none
 * (yet). */
static pid_t only_child_of(pid_t pid) {
  char path[64] = "/proc/", text[64];
  size_t n = 6 + decimal((unsigned)pid, path + 6);
  memcpy(path + n, "/task/", 6);
  n += 6;
  n += decimal((unsigned)pid, path + n);
  memcpy(path + n, "/children", 10);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t got = read(fd, text, sizeof text - 1);
  close(fd);
  if (got <= 0)
    return -1;
  pid_t child = 0;
  for (ssize_t i = 0; i < got && text[i] >= '0' && text[i] <= '9'; i++)
    child = child * 10 + (text[i] - '0');
  return child > 0 ? child : -1;
}

/* Copies what S reads to the log, up to its cap: the log's size (the file
 * may be shared with other peers) is checked before each write; the one
 * write that reaches the cap ends with a line that says so. */
typedef struct copier {
  const lctx_peer_child *c;
  bool capped;
} copier;

static void copy_out(copier *k, const char *data, size_t n) {
  const lctx_peer_child *c = k->c;
  if (c->log_fd < 0 || k->capped)
    return;
  size_t cap = c->spec->log_cap;
  struct stat st;
  if (cap == 0 || fstat(c->log_fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    write_all(c->log_fd, data, n);
    return;
  }
  size_t size = st.st_size > 0 ? (size_t)st.st_size : 0;
  size_t room = size < cap ? cap - size : 0;
  write_all(c->log_fd, data, n < room ? n : room);
  if (n <= room)
    return;
  k->capped = true;
  if (size <= cap) { /* past the cap after this line: written once */
    char line[128] = "\nlctx: this log reached its cap of ";
    size_t m = strlen(line);
    m += decimal(cap, line + m);
    static const char tail[] = " bytes; the rest was dropped\n";
    memcpy(line + m, tail, sizeof tail - 1);
    write_all(c->log_fd, line, m + sizeof tail - 1);
  }
  write_record(c->err, LCTX_PEER_RECORD_CAPPED, 0);
}

static int now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int)(t.tv_sec * 1000 + t.tv_nsec / 1000000);
}

/* Copies the output on `from` until `child` ended and its output is
 * drained (DRAIN_MS after its end at most); its wait status. */
static int supervise(const lctx_peer_child *c, int from, pid_t child,
                     int lctx_fd) {
  copier k = {c, false};
  char buf[65536];
  int pidfd = (int)syscall(SYS_pidfd_open, child, 0);
  int status = 0, drain_until = 0;
  bool gone = false;
  for (;;) {
    if (!gone) {
      pid_t r = waitpid(child, &status, WNOHANG);
      if (r == child || (r < 0 && errno != EINTR)) {
        gone = true;
        drain_until = now_ms() + DRAIN_MS;
      }
    }
    if (gone && (from < 0 || now_ms() >= drain_until))
      break;
    struct pollfd fds[3] = {{from, POLLIN, 0},
                            {gone ? -1 : pidfd, POLLIN, 0},
                            {lctx_fd, POLLIN, 0}};
    int wait = gone ? drain_until - now_ms() : pidfd >= 0 ? -1 : 50;
    if (from < 0 && pidfd < 0)
      wait = 50;
    poll(fds, 3, wait < 0 && gone ? 0 : wait);
    if (lctx_fd >= 0 && fds[2].revents) {
      kill(child, SIGKILL); /* lctx died: the peer, its namespace with it */
      _exit(137);
    }
    if (from >= 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t n = read(from, buf, sizeof buf);
      if (n > 0)
        copy_out(&k, buf, (size_t)n);
      else if (n == 0 || errno != EINTR) {
        close(from);
        from = -1;
      }
    }
  }
  return status;
}

/* Ends S as its peer ended: the same exit status, or the same signal. */
static _Noreturn void end_as(int status) {
  if (WIFEXITED(status))
    _exit(WEXITSTATUS(status));
  int sig = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
  struct rlimit none = {0, 0};
  setrlimit(RLIMIT_CORE, &none); /* the peer's core is its own */
  signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  kill(getpid(), sig);
  _exit(128 + sig);
}

/* S: a session of its own, death with lctx, the namespaces, then I (or
 * the peer itself) and the copy of its output. */
static _Noreturn void supervisor_main(const lctx_peer_child *c) {
  setsid();
  /* Death with lctx: lctx's pidfd is readable once the whole process has
   * ended. PR_SET_PDEATHSIG would fire when the thread that started this
   * peer ends (a job of --jobs), killing S before it reaps its child,
   * which then comes to lctx as a process left behind. It is the way only
   * where pidfds are missing. */
  int lctx_fd = (int)syscall(SYS_pidfd_open, c->parent, 0);
  if (lctx_fd < 0)
    die_with_parent(c->parent);
  else if (getppid() != c->parent)
    _exit(127); /* lctx died before its pidfd was taken */
  int keep[5] = {c->in, c->out, c->err, c->log_fd, lctx_fd};
  close_others(keep, 5);
  int devnull = open("/dev/null", O_RDWR);
  for (int k = 0; k < 3; k++)
    put_at(devnull, k);
  if (devnull > 2)
    close(devnull);
  int level = c->no_namespaces ? LCTX_PEER_ISOLATION_NONE : enter_namespaces(c);
  /* The peer's own error pipe (closed by its exec), relayed to lctx. */
  int out[2], life[2], st[2], ex[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(life, O_CLOEXEC) != 0 ||
      pipe2(st, O_CLOEXEC) != 0 || pipe2(ex, O_CLOEXEC) != 0) {
    write_record(c->err, LCTX_PEER_RECORD_EXEC, errno);
    _exit(127);
  }
  for (int i = 0; i < 2; i++) {
    out[i] = lctx_peer_fd_above_standard(out[i]);
    life[i] = lctx_peer_fd_above_standard(life[i]);
    st[i] = lctx_peer_fd_above_standard(st[i]);
    ex[i] = lctx_peer_fd_above_standard(ex[i]);
  }
  lctx_peer_child inner = *c;
  inner.err = ex[1];
  pid_t self = getpid();
  pid_t child = fork();
  if (child == 0) {
    close(out[0]);
    close(life[1]);
    close(st[0]);
    close(ex[0]);
    close(c->err);
    if (level != LCTX_PEER_ISOLATION_NONE)
      init_main(&inner, out[1], life[0], st[1]);
    die_with_parent(self);
    close(life[0]);
    close(st[1]);
    if (c->dir && chdir(c->dir) != 0)
      _exit(127);
    run_peer(&inner, out[1]);
  }
  int e = errno;
  close(ex[1]);
  close(out[1]);
  close(life[0]);
  close(st[1]);
  if (c->in >= 0)
    close(c->in);
  if (c->out >= 0)
    close(c->out);
  if (child < 0) {
    write_record(c->err, LCTX_PEER_RECORD_EXEC, e);
    _exit(127);
  }
  pid_t peer = child;
  if (level != LCTX_PEER_ISOLATION_NONE) {
    /* The peer, as lctx sees it: I's one child (I forks it first). */
    peer = -1;
    for (int tries = 0; tries < 2000 && peer < 0; tries++) {
      peer = only_child_of(child);
      if (peer < 0)
        nanosleep(&(struct timespec){0, 100000}, NULL);
    }
  }
  write_record(c->err, LCTX_PEER_RECORD_FIRST, child);
  write_record(c->err, LCTX_PEER_RECORD_INNER, peer);
  write_record(c->err, LCTX_PEER_RECORD_LEVEL, level);
  lctx_peer_record r;
  ssize_t got;
  while ((got = read(ex[0], &r, sizeof r)) != 0) {
    if (got == (ssize_t)sizeof r)
      write_record(c->err, r.kind, r.value);
    else if (got > 0 || errno != EINTR)
      break;
  }
  close(ex[0]);
  write_record(c->err, LCTX_PEER_RECORD_STARTED, 0);
  int status = supervise(c, out[0], child, lctx_fd);
  if (level != LCTX_PEER_ISOLATION_NONE) {
    /* I ended: the peer's status is what it handed over, if it did. */
    int peer_status;
    if (read(st[0], &peer_status, sizeof peer_status) ==
        (ssize_t)sizeof peer_status)
      status = peer_status;
  }
  end_as(status);
}

_Noreturn void lctx_peer_child_main(const lctx_peer_child *c) {
  if (c->spec->isolate)
    supervisor_main(c);
  plain_main(c);
}
