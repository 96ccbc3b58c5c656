/*
 * impl.c - implementations under test, isolated (see impl.h).
 *
 * Plugin: a worker process (fork) loads the library with dlopen and serves
 * cases sent to it over a pipe in their packed form (the used parts of the
 * struct, their zero runs left out, see pack_case), each with a sequence
 * number, answering with binary records that carry a mark and that number.
 * It stages its records in memory shared with lctx and writes them to its
 * pipe many at a time; when it dies or hangs, lctx takes what it staged,
 * so that only the case it was lost in is marked. Process: the program runs
 * with pipes for stdin and stdout and speaks JSON lines
 * (conformance/PROTOCOL.md). Both are driven with poll(), never blocking on a
 * peer that stopped reading, and each peer runs in a process group of its own
 * that is killed whole when the peer stops. Every record is checked against its
 * limits as soon as its header arrives, so that what is buffered stays bounded
 * whatever the peer claims; the peer's resident memory is read from /proc while
 * waiting.
 */
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include "impl.h"
#include "sys.h"

#include "case_json.h"
#include "lctx/impl_abi.h"
#include "plugin.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define MAX_ARGS 64

/* The marks that start the worker's records. */
#define RESULT_MAGIC 0x5258434cu /* "LCXR" */
#define INFO_MAGIC 0x4958434cu   /* "LCXI" */
/* The longest text of an info record, and of a failure's detail. */
#define INFO_TEXT_MAX 1024u
#define DETAIL_MAX 1024u
/* How often the peer's memory and life are checked while waiting. */
#define WATCH_PERIOD 0.1
/* The most bytes one read() of the peer's output takes. */
#define READ_CHUNK (256u << 10)
/* The longest packed case: never more than the case without expectations. */
#define PACKED_MAX (offsetof(lctx_case, has_expect) + 16)
_Static_assert(PACKED_MAX <= LCTX_IMPL_PACKED_MAX,
               "LCTX_IMPL_PACKED_MAX holds every packed case");

/* What pump() ended with. */
enum {
  PUMP_DONE = 1, /* what was wanted is buffered */
  PUMP_EOF = 0,  /* the peer closed its output or died */
  PUMP_TIMEOUT = -1,
  PUMP_BAD = -2,    /* the peer's output was refused (why: impl->bad) */
  PUMP_MEMORY = -3, /* the peer went over its memory limit */
};

struct shared_results;

struct lctx_impl {
  lctx_impl_info info;
  double timeout;
  size_t memory_limit_mb;
  size_t restarts, recycles;
  /* Bytes of modules handed to results in this lctx_impl_run. */
  size_t held;
  bool is_plugin;
  bool process_per_case;
  /* Plugin. */
  char path[4096];
  /* Process. */
  char command_storage[8192];
  char *argv[MAX_ARGS];
  /* Where the peer's stdout (plugin) and stderr go. */
  char log_path[4096];
  /* Peer. */
  pid_t pid;         /* also its process group */
  int to_fd;         /* we write */
  int from_fd;       /* we read */
  int statm_fd;      /* its /proc/PID/statm (lctx_sys_statm_open), or -1 */
  size_t served;     /* cases it answered since it started */
  double next_watch; /* when its memory and life are checked next */
  /* Between cases: its resident bytes at the last look, the cases served
   * then, and the number of served cases at which to look next. */
  double rss_seen, rss_growth; /* growth: the most per case seen yet */
  size_t rss_seen_at, rss_look_at;
  /* Read buffer: in_length bytes not yet consumed, from in + in_off. */
  uint8_t *in;
  size_t in_off, in_length, in_capacity;
  /* Write buffer. */
  uint8_t *out;
  size_t out_length, out_sent, out_capacity;
  /* Plugin: the number the next queued case gets and the number of the
   * result awaited (both from 1 in each worker); the operation count of the
   * awaited case; the size of the complete record at the start of `in`. */
  uint32_t next_seq, await_seq;
  size_t await_ops;
  size_t ready;
  /* Plugin: the results stage shared with the current (or last) worker;
   * whether a record of a case before the awaited one is passed over
   * (salvage_results), and whether the record checked last was one. */
  struct shared_results *shared;
  bool pass_over_stale, stale;
  /* Plugin: whether the worker writes each result as its case ends (after
   * bytes that were not a record came in this lctx_impl_run). */
  bool careful;
  /* Plugin: the cases lctx_impl_start queued for the next lctx_impl_run
   * (NULL: none). */
  const lctx_case *const *started;
  size_t started_n;
  /* Process: the id of the last request; the longest line accepted now. */
  unsigned long long request_id;
  size_t line_cap, line_scanned; /* bytes known to hold no newline */
  /* Why the peer's output was refused (PUMP_BAD). */
  char bad[256];
  /* Whether the export extension is offered and, then, the last handshake
   * line (heap). */
  bool export_extension;
  char *handshake_text;
  bool stop_on_interrupt;
};

void lctx_impl_options_init(lctx_impl_options *o) {
  o->timeout = 5.0;
  o->log_path = NULL;
  o->memory_limit_mb = 1024;
  o->export_extension = false;
  o->stop_on_interrupt = false;
}

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

/* The first byte of the read buffer not yet consumed. */
static uint8_t *in_at(const lctx_impl *impl) {
  return impl->in + impl->in_off;
}

/* Room for `n` more bytes at the end of the read buffer: what is not yet
 * consumed moves to its start first (consume() only counts). */
static bool room_to_read(lctx_impl *impl, size_t n) {
  if (impl->in_off > 0) {
    memmove(impl->in, in_at(impl), impl->in_length);
    impl->in_off = 0;
  }
  return reserve(&impl->in, &impl->in_capacity, impl->in_length + n);
}

static bool queue(lctx_impl *impl, const void *data, size_t n) {
  if (!reserve(&impl->out, &impl->out_capacity, impl->out_length + n))
    return false;
  memcpy(impl->out + impl->out_length, data, n);
  impl->out_length += n;
  return true;
}

static void describe_status(int status, char *out, size_t cap) {
  if (WIFSIGNALED(status))
    snprintf(out, cap, "killed by signal %d (%s)", WTERMSIG(status),
             strsignal(WTERMSIG(status)));
  else if (WIFEXITED(status))
    snprintf(out, cap, "exited with status %d", WEXITSTATUS(status));
  else
    snprintf(out, cap, "stopped");
}

/* Whether process `pid` (our child, not yet reaped) has ended. */
static bool has_ended(pid_t pid) {
  siginfo_t si;
  memset(&si, 0, sizeof si);
  return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         si.si_pid == pid;
}

/* Stops the peer and everything in its process group; describes how the
 * peer ended in `why` if it had ended by itself. */
static void stop_peer(lctx_impl *impl, char *why, size_t cap) {
  if (impl->to_fd >= 0)
    close(impl->to_fd);
  if (impl->from_fd >= 0)
    close(impl->from_fd);
  impl->to_fd = impl->from_fd = -1;
  if (impl->statm_fd >= 0)
    close(impl->statm_fd);
  impl->statm_fd = -1;
  if (impl->pid > 0) {
    /* Give it a moment to exit on EOF, then end the whole group (the peer
     * is not reaped yet, so its group cannot have been reused). */
    bool ended = has_ended(impl->pid);
    for (int i = 0; i < 50 && !ended; i++) {
      struct timespec ts = {0, 2000000};
      nanosleep(&ts, NULL);
      ended = has_ended(impl->pid);
    }
    kill(-impl->pid, SIGKILL);
    if (!ended)
      kill(impl->pid, SIGKILL);
    int status = 0;
    while (waitpid(impl->pid, &status, 0) < 0 && errno == EINTR)
      ;
    /* What the peer started dies with its group: give it a moment to go. */
    for (int i = 0; i < 100 && kill(-impl->pid, 0) == 0; i++) {
      struct timespec ts = {0, 2000000};
      nanosleep(&ts, NULL);
    }
    if (why && ended)
      describe_status(status, why, cap);
    impl->pid = -1;
  }
  impl->in_off = impl->in_length = impl->out_length = impl->out_sent = 0;
  impl->line_scanned = 0;
}

/* The peer's resident bytes, through its kept statm descriptor. */
static double resident_bytes(const lctx_impl *impl) {
  return impl->statm_fd >= 0 ? lctx_sys_resident_bytes_at(impl->statm_fd)
                             : lctx_sys_resident_bytes(impl->pid);
}

/* Between cases: whether the peer holds more than half its memory limit.
 * /proc is read only as often as the growth seen so far requires: every
 * case while it grows fast, up to every 64 cases when it does not, so
 * that at its largest growth per case yet it cannot pass the half limit by
 * more than a quarter of the limit between two looks. */
static bool peer_over_half(lctx_impl *impl) {
  if (impl->memory_limit_mb == 0 || impl->pid <= 0 ||
      impl->served < impl->rss_look_at)
    return false;
  double half = (double)(impl->memory_limit_mb / 2) * 1048576.0;
  double rss = resident_bytes(impl);
  if (impl->served > impl->rss_seen_at && rss > impl->rss_seen) {
    double per_case =
        (rss - impl->rss_seen) / (double)(impl->served - impl->rss_seen_at);
    if (per_case > impl->rss_growth)
      impl->rss_growth = per_case;
  }
  size_t step = 64;
  if (impl->rss_growth > 0) {
    double room = (half - rss + half / 2) / impl->rss_growth;
    step = room < 1 ? 1 : room > 64 ? 64 : (size_t)room;
  }
  impl->rss_seen = rss;
  impl->rss_seen_at = impl->served;
  impl->rss_look_at = impl->served + step;
  return rss > half;
}

/* Whether the peer holds more than `mb` MB (never when there is no limit). */
static bool peer_over(const lctx_impl *impl, size_t mb) {
  return impl->memory_limit_mb > 0 && impl->pid > 0 &&
         resident_bytes(impl) > (double)mb * 1048576.0;
}

/* Reads what the peer has written, without waiting, up to 1 MiB. */
static void drain(lctx_impl *impl) {
  for (int k = 0; k < 16; k++) {
    if (!room_to_read(impl, READ_CHUNK))
      return;
    ssize_t got = read(impl->from_fd, impl->in + impl->in_length, READ_CHUNK);
    if (got <= 0)
      return;
    impl->in_length += (size_t)got;
  }
}

/* What a pump waits for: 1 when it is buffered, 0 for more, -1 when the
 * peer's output is refused (why in impl->bad). */
typedef int (*want_fn)(lctx_impl *impl);

/* The memory and life of the peer while waiting: PUMP_MEMORY over its
 * limit, PUMP_EOF when it ended (a child it left may hold its pipe open),
 * else PUMP_DONE. */
static int watch_peer(lctx_impl *impl) {
  if (peer_over(impl, impl->memory_limit_mb))
    return PUMP_MEMORY;
  if (impl->pid > 0 && has_ended(impl->pid))
    return PUMP_EOF;
  return PUMP_DONE;
}

/* What ends a pump when the peer ended: what it wrote before may still be
 * what was wanted. */
static int at_end(lctx_impl *impl, want_fn want) {
  drain(impl);
  int w = want(impl);
  return w > 0 ? PUMP_DONE : w < 0 ? PUMP_BAD : PUMP_EOF;
}

/* Moves bytes both ways until `want(impl)` is satisfied or refuses, the
 * peer ends or goes over its memory limit, or `deadline` passes. Returns a
 * PUMP_* code. */
static int pump(lctx_impl *impl, double deadline, want_fn want) {
  for (;;) {
    int w = want(impl);
    if (w != 0)
      return w > 0 ? PUMP_DONE : PUMP_BAD;
    double now = lctx_sys_now();
    if (now >= impl->next_watch) {
      impl->next_watch = now + WATCH_PERIOD;
      int s = watch_peer(impl);
      if (s == PUMP_EOF)
        return at_end(impl, want);
      if (s != PUMP_DONE)
        return s;
    }
    double left = deadline - now;
    if (left <= 0 || (impl->stop_on_interrupt && lctx_sys_interrupted()))
      return PUMP_TIMEOUT;
    if (left > impl->next_watch - now)
      left = impl->next_watch - now;
    struct pollfd fds[2];
    int n = 0;
    fds[n++] = (struct pollfd){impl->from_fd, POLLIN, 0};
    bool writing = impl->out_sent < impl->out_length;
    if (writing)
      fds[n++] = (struct pollfd){impl->to_fd, POLLOUT, 0};
    int r = poll(fds, (nfds_t)n, (int)(left * 1000) + 1);
    if (r < 0) {
      if (errno == EINTR)
        continue;
      return PUMP_EOF;
    }
    if (writing && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t wr = write(impl->to_fd, impl->out + impl->out_sent,
                         impl->out_length - impl->out_sent);
      if (wr < 0 && errno != EAGAIN && errno != EINTR)
        return at_end(impl, want);
      if (wr > 0)
        impl->out_sent += (size_t)wr;
      if (impl->out_sent == impl->out_length)
        impl->out_sent = impl->out_length = 0;
    }
    if (fds[0].revents & (POLLIN | POLLERR | POLLHUP)) {
      if (!room_to_read(impl, READ_CHUNK))
        return PUMP_EOF;
      ssize_t got = read(impl->from_fd, impl->in + impl->in_length, READ_CHUNK);
      if (got == 0) {
        w = want(impl);
        return w > 0 ? PUMP_DONE : w < 0 ? PUMP_BAD : PUMP_EOF;
      }
      if (got < 0 && errno != EAGAIN && errno != EINTR)
        return PUMP_EOF;
      if (got > 0)
        impl->in_length += (size_t)got;
    }
  }
}

/* Refuses the peer's output: writes why to impl->bad, returns -1. */
__attribute__((format(printf, 2, 3))) static int refuse(lctx_impl *impl,
                                                        const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(impl->bad, sizeof impl->bad, fmt, ap);
  va_end(ap);
  return -1;
}

static void consume(lctx_impl *impl, size_t n) {
  impl->in_length -= n;
  impl->in_off = impl->in_length > 0 ? impl->in_off + n : 0;
}

static void set_nonblocking(int fd) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/* The peer `pid` runs: we write to `to_fd` and read from `from_fd`. It gets
 * a process group of its own here too (as it does itself), so that there is
 * no moment in which killing the group misses it. */
static void attach_peer(lctx_impl *impl, pid_t pid, int to_fd, int from_fd) {
  setpgid(pid, pid);
  impl->pid = pid;
  impl->statm_fd = lctx_sys_statm_open(pid);
  impl->to_fd = to_fd;
  impl->from_fd = from_fd;
  impl->served = 0;
  impl->rss_seen = impl->rss_growth = 0;
  impl->rss_seen_at = impl->rss_look_at = 0;
  impl->next_watch = 0;
  impl->next_seq = impl->await_seq = 1;
  set_nonblocking(to_fd);
  set_nonblocking(from_fd);
}

/* In a new child: closes every descriptor above 2 but `a` and `b`, so that
 * the peer cannot write into lctx's reports or pipes it was not given. */
static void close_other_fds(int a, int b) {
#if defined(__linux__) && defined(__GLIBC__) &&                                \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  /* A few system calls instead of one for every possible descriptor. */
  int keep[2] = {a < b ? a : b, a < b ? b : a};
  unsigned from = 3;
  bool ok = true;
  for (int k = 0; k < 2 && ok; k++) {
    if (keep[k] < (int)from)
      continue;
    ok = keep[k] == (int)from ||
         close_range(from, (unsigned)keep[k] - 1, 0) == 0;
    from = (unsigned)keep[k] + 1;
  }
  if (ok && close_range(from, ~0u, 0) == 0)
    return;
#endif
  long max = sysconf(_SC_OPEN_MAX);
  if (max < 0 || max > 65536)
    max = 65536;
  for (int fd = 3; fd < (int)max; fd++) {
    if (fd != a && fd != b)
      close(fd);
  }
}

/* In a new child of `parent`: its own process group, killed when lctx dies;
 * stdout (when `out_too`) and stderr to `log` (appended). */
static void child_setup(pid_t parent, const char *log, bool out_too) {
  setpgid(0, 0);
#ifdef __linux__
  prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
  if (getppid() != parent)
    _exit(1); /* lctx died before the line above */
  int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (fd < 0)
    fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (fd >= 0) {
    if (out_too)
      dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
  }
}

/* Appends `n` bytes of `s` to `out`, control bytes and bytes over 0x7e as
 * \xNN, so that a peer's text printed on a terminal cannot drive it. */
static void append_escaped(lctx_buf *out, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c < 0x7f) {
      lctx_buf_append_char(out, (char)c);
    } else {
      char hex[8];
      snprintf(hex, sizeof hex, "\\x%02x", c);
      lctx_buf_append_cstr(out, hex);
    }
  }
}

/* Keeps the name and version printable ASCII: they go into every report. */
static void printable(char *s) {
  for (char *p = s; *p; p++) {
    if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
      *p = '?';
  }
}

static void sanitize_info(lctx_impl_info *info) {
  printable(info->name);
  printable(info->version);
}

static void fail_case(lctx_case_result *r, lctx_result_status status,
                      const char *why) {
  r->status = status;
  r->outcome_count = 0;
  snprintf(r->detail, sizeof r->detail, "%s", why);
}

void lctx_case_result_release(lctx_case_result *result) {
  for (size_t k = 0; k < LCTX_CASE_MAX_OPS; k++) {
    free(result->mlir[k]);
    result->mlir[k] = NULL;
  }
}

/* Adds the bytes of the modules `res` holds to impl->held; true when the
 * modules of this lctx_impl_run reached LCTX_IMPL_MODULE_BUDGET. */
static bool over_budget(lctx_impl *impl, const lctx_case_result *res) {
  for (size_t k = 0; k < LCTX_CASE_MAX_OPS; k++)
    impl->held += res->mlir[k] ? strlen(res->mlir[k]) : 0;
  return impl->held >= LCTX_IMPL_MODULE_BUDGET;
}

/* A heap copy of `n` bytes plus a NUL; NULL when out of memory. */
static char *copy_text(const char *s, size_t n) {
  char *t = malloc(n + 1);
  if (t) {
    memcpy(t, s, n);
    t[n] = '\0';
  }
  return t;
}

/* Describes why the peer did not answer (a PUMP_* code other than DONE);
 * `how` says how it ended, if it did. */
static lctx_result_status describe_loss(const lctx_impl *impl, int r,
                                        const char *how, const char *who,
                                        char *why, size_t cap) {
  if (r == PUMP_TIMEOUT)
    snprintf(why, cap, "no answer within %.1f s (hang)", impl->timeout);
  else if (r == PUMP_MEMORY)
    snprintf(why, cap, "used more than %zu MB of memory",
             impl->memory_limit_mb);
  else if (r == PUMP_BAD)
    snprintf(why, cap, "%s", impl->bad);
  else if (how[0])
    snprintf(why, cap, "the %s %s", who, how);
  else
    snprintf(why, cap, "the %s closed its output or died", who);
  return r == PUMP_TIMEOUT ? LCTX_RESULT_TIMEOUT : LCTX_RESULT_CRASH;
}

/* A case that failed (`first`) after `before` cases in one worker or
 * program answered when run alone: it becomes FLAKY. */
static void mark_flaky(lctx_case_result *res, const char *first, size_t before,
                       const char *who) {
  res->status = LCTX_RESULT_FLAKY;
  res->cases_before = before;
  snprintf(res->detail, sizeof res->detail,
           "failed after %zu cases in one %s (%.150s); alone it answered",
           before, who, first);
}

//===----------------------------------------------------------------------===//
// The packed case: what the worker is given of a case, as the struct holds
// it (same program, same machine): the factory count and the used
// factories, the configuration, the rule count and the used rules, the
// operation count and the used operations, each operation without the
// platform names past its counts. No expectations. Each part's size follows
// from the counts before it, so the parts are copied as they are: cheaper
// than leaving out their zero bytes, with both ends in shared memory.
//===----------------------------------------------------------------------===//

/* The parts of an operation: before its platforms, its platform names up to
 * its count, between, its narrowed platform names up to their count, and
 * after (lctx_case_op_copy's parts). */
#define OP_PLATFORMS offsetof(lctx_case_op, platforms)
#define OP_MIDDLE offsetof(lctx_case_op, has_backend)
#define OP_NARROW offsetof(lctx_case_op, narrow)
#define OP_TAIL offsetof(lctx_case_op, has_compute_type)
#define OP_NAME sizeof(((lctx_case_op *)0)->platforms[0])

/* Appends `n` bytes at `p` at `out + *at`. */
static void put_part(uint8_t *out, size_t *at, const void *p, size_t n) {
  memcpy(out + *at, p, n);
  *at += n;
}

/* Reads `n` bytes at `*at` of the `size` bytes at `in` into `dst`; false
 * when they are not all there. */
static bool get_part(const uint8_t *in, size_t size, size_t *at, void *dst,
                     size_t n) {
  if (size - *at < n)
    return false;
  memcpy(dst, in + *at, n);
  *at += n;
  return true;
}

/* Appends operation `op` part by part, leaving out the names past its
 * counts. */
static void pack_op(const lctx_case_op *op, uint8_t *out, size_t *at) {
  size_t max = LCTX_MAX_MODULE_PLATFORMS;
  size_t pc = op->platform_count < max ? op->platform_count : max;
  size_t nc = op->narrow_count < max ? op->narrow_count : max;
  const uint8_t *p = (const uint8_t *)op;
  /* The names follow the part before them: one copy for the two. */
  put_part(out, at, p, OP_PLATFORMS + pc * OP_NAME);
  put_part(out, at, p + OP_MIDDLE, OP_NARROW - OP_MIDDLE + nc * OP_NAME);
  put_part(out, at, p + OP_TAIL, sizeof *op - OP_TAIL);
}

/* Undoes pack_op() into `op`, whose names past its counts keep what they
 * held; false when the bytes are not what it writes. */
static bool unpack_op(const uint8_t *in, size_t n, size_t *at,
                      lctx_case_op *op) {
  uint8_t *p = (uint8_t *)op;
  size_t max = LCTX_MAX_MODULE_PLATFORMS;
  return get_part(in, n, at, p, OP_PLATFORMS) && op->platform_count <= max &&
         get_part(in, n, at, p + OP_PLATFORMS, op->platform_count * OP_NAME) &&
         get_part(in, n, at, p + OP_MIDDLE, OP_NARROW - OP_MIDDLE) &&
         op->narrow_count <= max &&
         get_part(in, n, at, p + OP_NARROW, op->narrow_count * OP_NAME) &&
         get_part(in, n, at, p + OP_TAIL, sizeof *op - OP_TAIL);
}

/* Writes the used parts of `c` to `out` (at most PACKED_MAX bytes), each
 * count as it is; returns the size. */
static size_t pack_case(const lctx_case *c, uint8_t *out) {
  size_t nf = c->factory_count < LCTX_MAX_FACTORIES ? c->factory_count
                                                    : LCTX_MAX_FACTORIES;
  size_t nr =
      c->rule_count < LCTX_CASE_MAX_RULES ? c->rule_count : LCTX_CASE_MAX_RULES;
  size_t no = c->op_count < LCTX_CASE_MAX_OPS ? c->op_count : LCTX_CASE_MAX_OPS;
  size_t from = offsetof(lctx_case, jax_platforms);
  size_t at = 0;
  put_part(out, &at, &nf, sizeof nf);
  put_part(out, &at, c->factories, nf * sizeof c->factories[0]);
  put_part(out, &at, (const uint8_t *)c + from,
           offsetof(lctx_case, rule_count) - from);
  put_part(out, &at, &nr, sizeof nr);
  put_part(out, &at, c->rules, nr * sizeof c->rules[0]);
  put_part(out, &at, &no, sizeof no);
  for (size_t i = 0; i < no; i++)
    pack_op(&c->ops[i], out, &at);
  return at;
}

/* Reads a count of at most `max` entries of `each` bytes at `*at`, and the
 * entries into `dst`; false when they are not in the `n` bytes. */
static bool unpack_part(const uint8_t *p, size_t n, size_t *at, size_t max,
                        size_t each, size_t *count, void *dst) {
  return get_part(p, n, at, count, sizeof *count) && *count <= max &&
         get_part(p, n, at, dst, *count * each);
}

/* Reads the operation count at `*at` and the operations of pack_op. */
static bool unpack_ops(const uint8_t *p, size_t n, size_t *at, lctx_case *c) {
  if (!get_part(p, n, at, &c->op_count, sizeof c->op_count) ||
      c->op_count > LCTX_CASE_MAX_OPS)
    return false;
  for (size_t i = 0; i < c->op_count; i++)
    if (!unpack_op(p, n, at, &c->ops[i]))
      return false;
  return true;
}

/* Unpacks `n` bytes made by pack_case into `c` (whose expectations stay as
 * they are: none); false when they are not a packed case. Entries past the
 * counts keep what they held: every reader of a case stops at its counts. */
static bool unpack_case(const uint8_t *p, size_t n, lctx_case *c) {
  size_t at = 0;
  size_t from = offsetof(lctx_case, jax_platforms);
  return unpack_part(p, n, &at, LCTX_MAX_FACTORIES, sizeof c->factories[0],
                     &c->factory_count, c->factories) &&
         get_part(p, n, &at, (uint8_t *)c + from,
                  offsetof(lctx_case, rule_count) - from) &&
         unpack_part(p, n, &at, LCTX_CASE_MAX_RULES, sizeof c->rules[0],
                     &c->rule_count, c->rules) &&
         unpack_ops(p, n, &at, c) && at == n;
}

//===----------------------------------------------------------------------===//
// Plugin worker (runs in the child)
//===----------------------------------------------------------------------===//

static bool write_full(int fd, const void *buf, size_t n) {
  const uint8_t *p = buf;
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return false;
    p += w;
    n -= (size_t)w;
  }
  return true;
}

static bool put_u32(int fd, uint32_t v) {
  return write_full(fd, &v, 4);
}

static bool put_text(int fd, const char *s, size_t n) {
  return put_u32(fd, (uint32_t)n) && write_full(fd, s, n);
}

static const char *supported_names[LCTX_OP_KIND_COUNT] = {
    "backends",           "canonicalize",      "get_backend",
    "module_get_backend", "register_lowering", "lower_per_platform"};

/* The largest result record: every operation with its text and module. */
#define RECORD_MAX                                                             \
  (16 +                                                                        \
   LCTX_CASE_MAX_OPS *                                                         \
       (LCTX_OUTCOME_TEXT_MAX + 32 + LCTX_CASE_IMPL_MLIR_CAPACITY) +           \
   256)

/* What the worker stages in memory it shares with lctx: whole result
 * records, `committed` bytes of them, that it has not yet written to its
 * pipe, and the case it began last. A worker that dies leaves there the
 * results it had not sent; lctx reads them once it is gone, so that only
 * the case it died in is marked (salvage_results). */
typedef struct shared_results {
  _Atomic uint64_t committed;    /* bytes of whole records in data */
  _Atomic int64_t serving_since; /* when it began, CLOCK_MONOTONIC ns */
  _Atomic uint32_t serving;      /* the number of the case begun last */
  uint8_t data[];
} shared_results;

/* The worker writes what it staged to its pipe when no more cases came yet
 * (before it waits for them), and between cases once it staged FLUSH_BYTES
 * or FLUSH_SECONDS passed since it last wrote. */
#define FLUSH_BYTES (256u << 10)
#define FLUSH_SECONDS 0.005
/* The mark of a request whose result is written as soon as it is built. */
#define CAREFUL 0x80000000u
#define SHARED_DATA (FLUSH_BYTES + RECORD_MAX)
/* After the stage: the cases lctx queued, packed (pack_case); a request
 * then carries only where its case is. Written by lctx only while the
 * worker has no case to read (every queued case answered), so that one
 * area serves every batch. */
#define REQUEST_AREA (32u << 20)
#define SHARED_SIZE (sizeof(shared_results) + SHARED_DATA + REQUEST_AREA)
/* The mark of a request whose case is in the request area, at the offset
 * the u32 after its case number gives. */
#define IN_SHARED 0x40000000u
/* The worker's input buffer: one read() brings many cases. */
#define WORKER_INPUT (1u << 20)

static uint8_t *request_area(shared_results *sh) {
  return sh->data + SHARED_DATA;
}

/* What the worker works in, one case at a time (heap: large). */
typedef struct worker {
  const lctx_impl_table *table;
  pid_t pid; /* the worker's own */
  int out_fd;
  lctx_sys_reader in;
  uint8_t bytes[PACKED_MAX]; /* the case as it came */
  lctx_case c;
  lctx_case_impl_views views;
  char text[LCTX_OUTCOME_TEXT_MAX];        /* an outcome's text */
  char mlir[LCTX_CASE_IMPL_MLIR_CAPACITY]; /* an operation's module */
  shared_results *shared;
  size_t staged;     /* bytes of whole records in shared->data */
  double written_at; /* when the staged records were last written */
  uint8_t input[WORKER_INPUT];
  /* The answer being built. Not in the stage: a process the plugin forked
   * runs on in this code until stay_alone() ends it, and writes only its
   * own copy of this. */
  uint8_t record[RECORD_MAX];
} worker;

/* After every call into the plugin: a process that is not the worker (the
 * child of a fork the plugin made, returning into the worker's code) ends
 * at once, writing nothing, so that there is never a second answerer. */
static void stay_alone(const worker *w) {
  if (getpid() != w->pid)
    _exit(0);
}

/* Loads the plugin and sends the info record (or the error). Returns the
 * table, or NULL when the plugin cannot serve. */
static const lctx_impl_table *worker_hello(const worker *w, const char *path,
                                           int out_fd) {
  char error[512] = "";
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  const lctx_impl_table *table = lctx_plugin_load(path, &e);
  stay_alone(w);
  if (!put_u32(out_fd, INFO_MAGIC))
    _exit(1);
  if (!table) {
    put_u32(out_fd, 1);
    put_text(out_fd, error, strlen(error));
    return NULL;
  }
  uint32_t ops = lctx_plugin_operations(table);
  const char *name = table->name ? table->name : "(unnamed)";
  const char *version = table->version ? table->version : "(no version)";
  if (!put_u32(out_fd, 0) || !put_text(out_fd, name, strnlen(name, 127)) ||
      !put_text(out_fd, version, strnlen(version, 63)) || !put_u32(out_fd, ops))
    _exit(1);
  return table;
}

/* Appends `n` bytes to the record at `*used`. */
static void record_put(worker *w, size_t *used, const void *data, size_t n) {
  memcpy(w->record + *used, data, n);
  *used += n;
}

/* Runs operation `i` of w->c and appends its outcome to the record; false
 * with why in `detail` when the plugin failed it. */
static bool serve_op(worker *w, void *session, size_t i, size_t *used,
                     char *detail, size_t cap) {
  const lctx_case_op *op = &w->c.ops[i];
  lctx_impl_outcome o = {0, 0, 0, -1, w->text, sizeof w->text, 0};
  w->text[0] = '\0';
  size_t mlir_length = 0;
  lctx_impl_status st =
      lctx_case_impl_run_op(w->table, session, op, &o, w->mlir, &mlir_length);
  if (st != 0) {
    snprintf(detail, cap, "%s returned status %d on operation %zu",
             supported_names[op->kind], st, i);
    return false;
  }
  if (o.text_length >= sizeof w->text) {
    snprintf(detail, cap,
             "text_length %zu beyond the capacity %zu on operation %zu",
             o.text_length, sizeof w->text, i);
    return false;
  }
  if (mlir_length >= sizeof w->mlir) {
    snprintf(detail, cap,
             "mlir_length %zu beyond the capacity %zu on operation %zu",
             mlir_length, sizeof w->mlir, i);
    return false;
  }
  int32_t head[4] = {o.kind, o.error_class, o.origin, o.registration};
  uint32_t len = (uint32_t)o.text_length, mlen = (uint32_t)mlir_length;
  record_put(w, used, head, sizeof head);
  record_put(w, used, &len, 4);
  record_put(w, used, w->text, len);
  record_put(w, used, &mlen, 4);
  record_put(w, used, w->mlir, mlen);
  return true;
}

/* Runs every operation of w->c (case number `seq`) in one session and
 * builds the result record; returns its size. */
static size_t serve_case(worker *w, uint32_t seq) {
  lctx_impl_config config;
  lctx_case_impl_config(&w->c, &w->views, &config);
  void *session = w->table->session_create(&config);
  size_t used = 16;
  uint32_t status = 0;
  char detail[200] = "";
  if (!session) {
    status = 1;
    snprintf(detail, sizeof detail, "session_create returned NULL");
  }
  for (size_t i = 0; session && i < w->c.op_count && status == 0; i++) {
    if (!serve_op(w, session, i, &used, detail, sizeof detail))
      status = 1;
  }
  if (session)
    w->table->session_destroy(session);
  /* A child the plugin forked, back in this code, ends before it writes
   * or reads a byte (it ran only plugin code in between). */
  stay_alone(w);
  uint32_t count = status == 0 ? (uint32_t)w->c.op_count : 0;
  if (status != 0) {
    uint32_t len = (uint32_t)strlen(detail);
    used = 16;
    record_put(w, &used, &len, 4);
    record_put(w, &used, detail, len);
  }
  uint32_t head[4] = {RESULT_MAGIC, seq, status, count};
  memcpy(w->record, head, sizeof head);
  return used;
}

/* Writes the staged records to the pipe and empties the stage; the worker
 * ends when lctx stopped reading. */
static void write_staged(worker *w) {
  if (w->staged > 0 && !write_full(w->out_fd, w->shared->data, w->staged))
    _exit(1);
  atomic_store_explicit(&w->shared->committed, 0, memory_order_release);
  w->staged = 0;
  w->written_at = lctx_sys_now();
}

/* Reads `n` bytes of the request stream; false at its end. What is staged
 * is written whenever no more cases came yet (write_staged, the reader's
 * idle step): lctx has every result before the worker waits for more. */
static bool worker_read(worker *w, void *dst, size_t n) {
  return lctx_sys_reader_read(&w->in, dst, n);
}

static void worker_idle(void *w) {
  write_staged(w);
}

/* Reads the case of a request of `size` bytes, from the pipe or (when
 * `in_shared`) from the request area; false when it is not a case. */
static bool read_request(worker *w, uint32_t size, bool in_shared) {
  if (!in_shared)
    return size <= sizeof w->bytes && worker_read(w, w->bytes, size) &&
           unpack_case(w->bytes, size, &w->c);
  uint32_t at;
  return worker_read(w, &at, sizeof at) && at <= REQUEST_AREA &&
         size <= REQUEST_AREA - at &&
         unpack_case(request_area(w->shared) + at, size, &w->c);
}

/* The worker: loads the plugin, reports its table, serves cases; never
 * returns. Records (native endianness, same machine):
 *   request: u32 size (| CAREFUL) | u32 case number | size bytes of the
 *            case (pack_case), or
 *            u32 size | IN_SHARED (| CAREFUL) | u32 case number | u32 its
 *            offset in the request area
 *   info:    u32 INFO_MAGIC | u32 status(0 ok) | text name | text version |
 *            u32 operations (status != 0: text error)
 *   result:  u32 RESULT_MAGIC | u32 case number | u32 status (0 ok, 1 the
 *            plugin failed) | u32 n_ops | n_ops x (i32 kind, i32 class,
 *            i32 origin, i32 registration, text, text module) |
 *            (status 1: text detail)
 * where a text is a u32 length and its bytes. Results are built in the
 * shared stage (`shared`, SHARED_SIZE bytes) and written to the pipe many
 * at a time (write_staged). */
static void plugin_worker(const char *path, int in_fd, int out_fd,
                          shared_results *shared) {
  worker *w = malloc(sizeof *w);
  if (!w)
    _exit(1);
  w->pid = getpid();
  w->out_fd = out_fd;
  lctx_sys_reader_init(&w->in, in_fd, w->input, sizeof w->input, worker_idle,
                       w);
  w->shared = shared;
  w->staged = 0;
  w->written_at = lctx_sys_now();
  lctx_case_init(&w->c);
  w->table = worker_hello(w, path, out_fd);
  if (!w->table)
    _exit(0);
  for (;;) {
    uint32_t head[2];
    if (!worker_read(w, head, sizeof head))
      _exit(0);
    bool careful = head[0] & CAREFUL, in_shared = head[0] & IN_SHARED;
    head[0] &= ~(CAREFUL | IN_SHARED);
    if (!read_request(w, head[0], in_shared))
      _exit(2);
    double now = lctx_sys_now();
    if (w->staged >= FLUSH_BYTES ||
        (w->staged > 0 && now - w->written_at >= FLUSH_SECONDS))
      write_staged(w);
    atomic_store_explicit(&shared->serving_since, (int64_t)(now * 1e9),
                          memory_order_relaxed);
    atomic_store_explicit(&shared->serving, head[1], memory_order_release);
    size_t used = serve_case(w, head[1]);
    memcpy(shared->data + w->staged, w->record, used);
    w->staged += used;
    atomic_store_explicit(&shared->committed, w->staged, memory_order_release);
    if (careful)
      write_staged(w);
  }
}

//===----------------------------------------------------------------------===//
// Plugin (parent side)
//===----------------------------------------------------------------------===//

/* Drops the stage of the last worker. */
static void drop_shared(lctx_impl *impl) {
  if (impl->shared)
    munmap(impl->shared, SHARED_SIZE);
  impl->shared = NULL;
}

/* A fresh stage for a new worker (never the last one's: a process the last
 * worker left behind may still map that one); NULL when it cannot map. */
static shared_results *new_shared(lctx_impl *impl) {
  drop_shared(impl);
  void *p = mmap(NULL, SHARED_SIZE, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  impl->shared = p;
  return p;
}

static bool start_plugin_worker(lctx_impl *impl) {
  int down[2], up[2];
  shared_results *shared = new_shared(impl);
  if (!shared)
    return false;
  if (pipe(down) != 0)
    return false;
  if (pipe(up) != 0) {
    close(down[0]);
    close(down[1]);
    return false;
  }
  fflush(NULL);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    close(down[0]);
    close(down[1]);
    close(up[0]);
    close(up[1]);
    return false;
  }
  if (pid == 0) {
    close(down[1]);
    close(up[0]);
    /* The plugin's prints must not corrupt our output: they go to the log. */
    child_setup(parent, impl->log_path, true);
    close_other_fds(down[0], up[1]);
    plugin_worker(impl->path, down[0], up[1], shared);
    _exit(0);
  }
  close(down[0]);
  close(up[1]);
  /* Larger pipes: fewer wake-ups per batch (the system may refuse). */
  (void)fcntl(down[1], F_SETPIPE_SZ, 1 << 20);
  (void)fcntl(up[0], F_SETPIPE_SZ, 1 << 20);
  attach_peer(impl, pid, down[1], up[0]);
  return true;
}

/* The u32 at `at` of the read buffer; false while it has not arrived. */
static bool peek_u32(const lctx_impl *impl, size_t at, uint32_t *v) {
  if (impl->in_length < at + 4)
    return false;
  memcpy(v, in_at(impl) + at, 4);
  return true;
}

/* A text of at most `max` bytes at `*at`: 1 when complete (`*at` moves past
 * it), 0 while incomplete, -1 (refused) when it claims more than `max`. */
static int peek_text(lctx_impl *impl, size_t *at, uint32_t max,
                     const char *what) {
  uint32_t n;
  if (!peek_u32(impl, *at, &n))
    return 0;
  if (n > max)
    return refuse(impl,
                  "protocol error: record of %u bytes claimed, over the "
                  "limit of %u (%s)",
                  n, max, what);
  if (impl->in_length < *at + 4 + n)
    return 0;
  *at += 4 + n;
  return 1;
}

/* Reads a text checked by peek_text at `*at`. */
static void take_text(const lctx_impl *impl, size_t *at, const char **s,
                      uint32_t *n) {
  memcpy(n, in_at(impl) + *at, 4);
  *s = (const char *)in_at(impl) + *at + 4;
  *at += 4 + *n;
}

/* The info record: complete (its size in impl->ready), incomplete, or
 * refused. */
static int want_info(lctx_impl *impl) {
  uint32_t v, status;
  size_t at = 8;
  int t;
  if (!peek_u32(impl, 0, &v))
    return 0;
  if (v != INFO_MAGIC)
    return refuse(impl, "protocol error: the worker's first record is not "
                        "its table (did the plugin write into its pipe?)");
  if (!peek_u32(impl, 4, &status))
    return 0;
  /* status 0: name, version, operations; otherwise the error. */
  if ((t = peek_text(impl, &at, INFO_TEXT_MAX, "a text of the table")) <= 0)
    return t;
  if (status == 0) {
    if ((t = peek_text(impl, &at, INFO_TEXT_MAX, "a text of the table")) <= 0)
      return t;
    if (impl->in_length < at + 4)
      return 0;
    at += 4;
  }
  impl->ready = at;
  return 1;
}

/* The result record of the awaited case (number impl->await_seq with
 * impl->await_ops operations): complete (its size in impl->ready),
 * incomplete, or refused. Every length is checked as soon as it arrives,
 * before what it claims is buffered. */
static int want_result(lctx_impl *impl) {
  uint32_t v, status, count;
  if (!peek_u32(impl, 0, &v))
    return 0;
  if (v != RESULT_MAGIC)
    return refuse(impl, "protocol error: bytes that are not a result record "
                        "(did the plugin write into the worker's pipe?)");
  if (!peek_u32(impl, 4, &v))
    return 0;
  impl->stale = impl->pass_over_stale && v < impl->await_seq;
  if (v != impl->await_seq && !impl->stale)
    return refuse(impl,
                  "protocol error: the result of case #%u where #%u was due", v,
                  impl->await_seq);
  if (!peek_u32(impl, 8, &status) || !peek_u32(impl, 12, &count))
    return 0;
  if (status > 1 || count > LCTX_CASE_MAX_OPS ||
      (!impl->stale && count != (status == 0 ? impl->await_ops : 0)))
    return refuse(impl,
                  "protocol error: a result of status %u with %u outcomes "
                  "for a case of %zu operations",
                  status, count, impl->await_ops);
  size_t at = 16;
  int t = 1;
  for (uint32_t k = 0; k < count && t > 0; k++) {
    at += 16;
    t = peek_text(impl, &at, LCTX_OUTCOME_TEXT_MAX - 1, "an outcome's text");
    if (t > 0)
      t = peek_text(impl, &at, LCTX_CASE_IMPL_MLIR_CAPACITY, "a module");
  }
  if (t > 0 && status != 0)
    t = peek_text(impl, &at, DETAIL_MAX, "a failure's detail");
  if (t <= 0)
    return t;
  impl->ready = at;
  return 1;
}

/* Reads the table of a worker that just started; false with why in
 * `error` (the worker is then stopped). */
static bool read_info(lctx_impl *impl, lctx_buf *error) {
  int r = pump(impl, lctx_sys_now() + impl->timeout + 5, want_info);
  if (r != PUMP_DONE) {
    char how[128] = "", why[300];
    stop_peer(impl, how, sizeof how);
    describe_loss(impl, r, how, "plugin worker", why, sizeof why);
    lctx_buf_append_cstr(error, "while loading the plugin: ");
    lctx_buf_append_cstr(error, why);
    return false;
  }
  size_t at = 8;
  uint32_t status, n;
  const char *s;
  memcpy(&status, in_at(impl) + 4, 4);
  if (status != 0) {
    take_text(impl, &at, &s, &n);
    append_escaped(error, s, n);
    stop_peer(impl, NULL, 0);
    return false;
  }
  take_text(impl, &at, &s, &n);
  snprintf(impl->info.name, sizeof impl->info.name, "%.*s", (int)n, s);
  take_text(impl, &at, &s, &n);
  snprintf(impl->info.version, sizeof impl->info.version, "%.*s", (int)n, s);
  uint32_t ops;
  memcpy(&ops, in_at(impl) + at, 4);
  consume(impl, impl->ready);
  sanitize_info(&impl->info);
  impl->info.operations = 0;
  for (int k = 0; k < LCTX_OP_KIND_COUNT; k++) {
    if (ops & (1u << k))
      impl->info.operations |= 1u << k;
  }
  return true;
}

/* A new implementation without a peer yet; NULL when out of memory. A peer
 * that stops reading must not kill us: SIGPIPE is ignored from here on. */
static lctx_impl *impl_new(bool is_plugin, const lctx_impl_options *o,
                           lctx_buf *error) {
  signal(SIGPIPE, SIG_IGN);
  lctx_impl *impl = calloc(1, sizeof *impl);
  if (!impl) {
    lctx_buf_append_cstr(error, "out of memory");
    return NULL;
  }
  lctx_impl_options defaults;
  lctx_impl_options_init(&defaults);
  if (!o)
    o = &defaults;
  impl->is_plugin = is_plugin;
  impl->timeout = o->timeout;
  impl->memory_limit_mb = o->memory_limit_mb;
  snprintf(impl->log_path, sizeof impl->log_path, "%s",
           o->log_path ? o->log_path : "/dev/null");
  impl->export_extension = o->export_extension;
  impl->stop_on_interrupt = o->stop_on_interrupt;
  impl->pid = -1;
  impl->to_fd = impl->from_fd = impl->statm_fd = -1;
  snprintf(impl->info.kind, sizeof impl->info.kind, "%s",
           is_plugin ? "plugin" : "process");
  return impl;
}

lctx_impl *lctx_impl_open_plugin(const char *path, const lctx_impl_options *o,
                                 lctx_buf *error) {
  lctx_impl *impl = impl_new(true, o, error);
  if (!impl)
    return NULL;
  if (strchr(path, '/'))
    snprintf(impl->path, sizeof impl->path, "%s", path);
  else
    snprintf(impl->path, sizeof impl->path, "./%s", path);
  if (access(impl->path, R_OK) != 0) {
    lctx_buf_append_cstr(error, path);
    lctx_buf_append_cstr(error, ": ");
    lctx_buf_append_cstr(error, strerror(errno));
    free(impl);
    return NULL;
  }
  if (!start_plugin_worker(impl) || !read_info(impl, error)) {
    if (error->length == 0)
      lctx_buf_append_cstr(error, "cannot start the plugin worker");
    lctx_impl_close(impl);
    return NULL;
  }
  return impl;
}

/* Reads outcome `k` (its text and module at `*at`) into `res`; false with
 * the case marked when the outcome is not one. */
static bool take_outcome(lctx_impl *impl, size_t *at, uint32_t k,
                         lctx_case_result *res) {
  int32_t head[4];
  memcpy(head, in_at(impl) + *at, sizeof head);
  *at += 16;
  const char *s, *m;
  uint32_t len, mlen;
  take_text(impl, at, &s, &len);
  take_text(impl, at, &m, &mlen);
  const char *why;
  char detail[128];
  const char *nul = memchr(s, '\0', len);
  const char *mnul = memchr(m, '\0', mlen);
  if (nul || mnul) {
    snprintf(detail, sizeof detail, "the %s holds a NUL byte at offset %zu",
             nul ? "outcome text" : "module",
             nul ? (size_t)(nul - s) : (size_t)(mnul - m));
    fail_case(res, LCTX_RESULT_CRASH, detail);
    return false;
  }
  if (!lctx_outcome_from_impl(head[0], head[1], head[2], head[3], s, len,
                              &res->outcomes[k], &why)) {
    fail_case(res, LCTX_RESULT_CRASH, why);
    return false;
  }
  if (mlen > 0)
    res->mlir[k] = copy_text(m, mlen);
  return true;
}

/* Reads the complete, checked result record at the start of the buffer
 * into `res` and consumes it. */
static void take_result(lctx_impl *impl, lctx_case_result *res) {
  uint32_t status, count;
  memcpy(&status, in_at(impl) + 8, 4);
  memcpy(&count, in_at(impl) + 12, 4);
  res->status = LCTX_RESULT_OK;
  res->detail[0] = '\0';
  res->cases_before = impl->served;
  res->outcome_count = count;
  size_t at = 16;
  for (uint32_t k = 0; k < count; k++) {
    if (!take_outcome(impl, &at, k, res))
      break;
  }
  if (status != 0) {
    const char *s;
    uint32_t len;
    take_text(impl, &at, &s, &len);
    char why[256];
    snprintf(why, sizeof why, "the plugin failed: %.*s", (int)len, s);
    fail_case(res, LCTX_RESULT_CRASH, why);
  }
  consume(impl, impl->ready);
  impl->served++;
}

/* Queues cases[from..n) for the worker, packed (pack_case), numbered on from
 * impl->next_seq. */
static bool queue_cases(lctx_impl *impl, const lctx_case *const *cases,
                        size_t from, size_t n, const lctx_impl_packed *pk) {
  impl->out_length = impl->out_sent = 0;
  uint8_t *area = impl->shared ? request_area(impl->shared) : NULL;
  size_t used = 0; /* of the request area */
  for (size_t i = from; i < n; i++) {
    if (!reserve(&impl->out, &impl->out_capacity,
                 impl->out_length + 8 + PACKED_MAX))
      return false;
    uint8_t *p = impl->out + impl->out_length;
    uint32_t mark = impl->careful ? CAREFUL : 0;
    if (area && REQUEST_AREA - used >= PACKED_MAX) {
      /* In the request area: the pipe carries where. */
      size_t len = pk ? pk->offset[i + 1] - pk->offset[i] : 0;
      if (pk && len <= PACKED_MAX)
        memcpy(area + used, pk->bytes + pk->offset[i], len);
      else
        len = pack_case(cases[i], area + used);
      uint32_t head[3] = {(uint32_t)len | mark | IN_SHARED, impl->next_seq++,
                          (uint32_t)used};
      memcpy(p, head, sizeof head);
      impl->out_length += sizeof head;
      used += (len + 7) & ~(size_t)7;
      continue;
    }
    /* Packed in place, behind its header. */
    size_t len = pack_case(cases[i], p + 8);
    uint32_t head[2] = {(uint32_t)len | mark, impl->next_seq++};
    memcpy(p, head, sizeof head);
    impl->out_length += 8 + len;
  }
  return true;
}

/* The awaited case's time ran out in pump(): a later deadline when the
 * stage shows the worker began a case since the wait began (the awaited one
 * late, or a later one, the awaited one's result then being staged), each
 * case its own time from when it began but never more than a timeout from
 * now; else 0. `*seen` is the case seen last, so that every case extends
 * the wait once at most. */
static double later_deadline(lctx_impl *impl, uint32_t *seen) {
  shared_results *sh = impl->shared;
  if (!sh)
    return 0;
  uint32_t s = atomic_load_explicit(&sh->serving, memory_order_acquire);
  double since =
      (double)atomic_load_explicit(&sh->serving_since, memory_order_relaxed) /
      1e9;
  if (s < impl->await_seq || s >= impl->next_seq || s <= *seen)
    return 0;
  *seen = s;
  double now = lctx_sys_now();
  double until = since + impl->timeout;
  return until > now + impl->timeout ? now + impl->timeout : until;
}

/* Waits for the result of the next queued case `c` and reads it into
 * `res`; returns the PUMP_* code (PUMP_DONE: `res` is filled). */
static int await_result(lctx_impl *impl, const lctx_case *c,
                        lctx_case_result *res) {
  impl->await_ops = c->op_count;
  /* Most results are in the buffer already: no clock read for them. */
  int r = want_result(impl);
  if (r != 0) {
    r = r > 0 ? PUMP_DONE : PUMP_BAD;
    if (r == PUMP_DONE) {
      take_result(impl, res);
      impl->await_seq++;
    }
    return r;
  }
  double deadline = lctx_sys_now() + impl->timeout;
  uint32_t seen = impl->await_seq - 1;
  while ((r = pump(impl, deadline, want_result)) == PUMP_TIMEOUT) {
    double later = later_deadline(impl, &seen);
    if (later <= lctx_sys_now())
      break;
    deadline = later;
  }
  if (r == PUMP_DONE) {
    take_result(impl, res);
    impl->await_seq++;
  }
  return r;
}

/* Takes the complete result records in the read buffer for cases[next..n)
 * in order, passing over records of cases already taken; returns the first
 * case without one, or the case after one that spent the budget (*spent
 * set). */
static size_t take_buffered(lctx_impl *impl, const lctx_case *const *cases,
                            size_t next, size_t n, lctx_case_result *results,
                            bool *spent) {
  impl->pass_over_stale = true;
  while (next < n && !*spent) {
    impl->await_ops = cases[next]->op_count;
    if (want_result(impl) != 1)
      break;
    if (impl->stale) {
      consume(impl, impl->ready);
      continue;
    }
    lctx_case_result_release(&results[next]);
    take_result(impl, &results[next]);
    impl->await_seq++;
    *spent = over_budget(impl, &results[next++]) && next < n;
  }
  impl->pass_over_stale = false;
  return next;
}

/* The worker is gone (stopped): takes the results it staged but had not
 * written, as take_buffered does. */
static size_t salvage_results(lctx_impl *impl, const lctx_case *const *cases,
                              size_t next, size_t n, lctx_case_result *results,
                              bool *spent) {
  shared_results *sh = impl->shared;
  if (!sh)
    return next;
  uint64_t staged = atomic_load_explicit(&sh->committed, memory_order_acquire);
  impl->in_off = impl->in_length = 0;
  if (staged > SHARED_DATA || !room_to_read(impl, (size_t)staged))
    return next;
  memcpy(impl->in, sh->data, (size_t)staged);
  impl->in_length = (size_t)staged;
  next = take_buffered(impl, cases, next, n, results, spent);
  impl->in_off = impl->in_length = 0;
  return next;
}

/* The worker did not answer case cases[next] (`r`, a PUMP_* code): takes
 * the results already in its pipe, stops it (with its group), takes the
 * results it staged (neither after output that was refused) and marks the
 * first case left without one. Returns that case, `n` when every case has
 * its result, or the case after one that spent the budget (*spent set:
 * nothing marked). */
static size_t lose_worker(lctx_impl *impl, int r, const lctx_case *const *cases,
                          size_t next, size_t n, lctx_case_result *results,
                          bool *spent) {
  char why[300], how[128] = "";
  *spent = false;
  if (r != PUMP_BAD) {
    drain(impl);
    next = take_buffered(impl, cases, next, n, results, spent);
  }
  stop_peer(impl, how, sizeof how);
  impl->restarts++;
  if (r != PUMP_BAD && !*spent)
    next = salvage_results(impl, cases, next, n, results, spent);
  if (next < n && !*spent) {
    lctx_case_result *res = &results[next];
    fail_case(res,
              describe_loss(impl, r, how, "plugin worker", why, sizeof why),
              why);
    res->cases_before = impl->served;
  }
  return next;
}

/* Starts a worker; false (with the cases from `next` on marked) when it
 * cannot start. */
static bool ensure_worker(lctx_impl *impl, lctx_case_result *results,
                          size_t next, size_t n) {
  if (impl->pid > 0)
    return true;
  char why[256] = "";
  lctx_buf e;
  lctx_buf_init(&e, why, sizeof why);
  if (start_plugin_worker(impl) && read_info(impl, &e))
    return true;
  for (; next < n; next++)
    fail_case(&results[next], LCTX_RESULT_CRASH,
              why[0] ? why : "cannot restart the plugin worker");
  return false;
}

/* Case `c` failed in a worker that had served other cases: runs it again
 * alone in a fresh worker; FLAKY when it answers then. */
static void rerun_plugin_case(lctx_impl *impl, const lctx_case *c,
                              lctx_case_result *res) {
  char first[256];
  size_t before = res->cases_before;
  snprintf(first, sizeof first, "%s", res->detail);
  if (!ensure_worker(impl, res, 0, 1))
    return;
  queue_cases(impl, &c, 0, 1, NULL);
  lctx_case_result_release(res);
  int r = await_result(impl, c, res);
  bool spent,
      answered = r == PUMP_DONE || lose_worker(impl, r, &c, 0, 1, res, &spent);
  if (answered && res->status == LCTX_RESULT_OK)
    mark_flaky(res, first, before, "worker");
  res->cases_before = res->status == LCTX_RESULT_FLAKY ? before : 0;
}

/* Between cases: a worker over half its memory limit is recycled. */
static bool recycle_if_big(lctx_impl *impl) {
  if (!peer_over_half(impl))
    return false;
  stop_peer(impl, NULL, 0);
  impl->recycles++;
  return true;
}

static size_t run_plugin(lctx_impl *impl, const lctx_case *const *cases,
                         size_t n, lctx_case_result *results) {
  size_t next = 0; /* first case without a result */
  /* What lctx_impl_start queued, to the worker that still runs. */
  bool queued = impl->started == cases && impl->started_n == n && impl->pid > 0;
  if (impl->started && !queued)
    stop_peer(impl, NULL, 0); /* it serves other cases first */
  impl->started = NULL;
  impl->careful = false;
  while (next < n) {
    if (!ensure_worker(impl, results, next, n))
      return n;
    /* Queue every remaining case. */
    if (!queued)
      queue_cases(impl, cases, next, n, NULL);
    queued = false;
    while (next < n) {
      int r = await_result(impl, cases[next], &results[next]);
      bool lost = r != PUMP_DONE;
      if (lost && r == PUMP_BAD && !impl->careful) {
        /* Bytes that are no record came while results were staged: they
         * were written during this case or one after it. Which one is
         * known only when each result is written as its case ends (as
         * every case is from here on), so these cases run again so. */
        stop_peer(impl, NULL, 0);
        impl->careful = true;
        break;
      }
      if (lost) {
        bool spent;
        next = lose_worker(impl, r, cases, next, n, results, &spent);
        if (spent || next == n)
          return next;
        if (results[next].cases_before > 0)
          rerun_plugin_case(impl, cases[next], &results[next]);
      }
      if (over_budget(impl, &results[next++]) && next < n) {
        stop_peer(impl, NULL, 0); /* it holds cases this call gives back */
        return next;
      }
      if (lost || recycle_if_big(impl))
        break; /* go on with the next case, in a fresh worker */
    }
  }
  return n;
}

//===----------------------------------------------------------------------===//
// Process
//===----------------------------------------------------------------------===//

int lctx_split_command(const char *line, char *storage, size_t storage_size,
                       char **argv, int max, lctx_buf *error) {
  int argc = 0;
  size_t used = 0;
  const char *p = line;
  for (;;) {
    while (*p == ' ' || *p == '\t')
      p++;
    if (*p == '\0')
      break;
    if (argc + 1 >= max) {
      lctx_buf_append_cstr(error, "too many words in the command line");
      return -1;
    }
    argv[argc++] = storage + used;
    while (*p && *p != ' ' && *p != '\t') {
      char c = *p++;
      if (c == '\'' || c == '"') {
        char quote = c;
        while (*p && *p != quote) {
          if (quote == '"' && *p == '\\' && p[1])
            p++;
          if (used + 2 >= storage_size)
            goto too_long;
          storage[used++] = *p++;
        }
        if (*p != quote) {
          lctx_buf_append_cstr(error, "unterminated ");
          lctx_buf_append_cstr(error, quote == '"' ? "\"" : "'");
          lctx_buf_append_cstr(error, " in the command line");
          return -1;
        }
        p++;
        continue;
      }
      if (c == '\\' && *p)
        c = *p++;
      if (used + 2 >= storage_size)
        goto too_long;
      storage[used++] = c;
    }
    storage[used++] = '\0';
  }
  argv[argc] = NULL;
  if (argc == 0) {
    lctx_buf_append_cstr(error, "the command line is empty");
    return -1;
  }
  return argc;
too_long:
  lctx_buf_append_cstr(error, "the command line is too long");
  return -1;
}

static bool start_process(lctx_impl *impl, lctx_buf *error) {
  int down[2], up[2], exec_err[2];
  if (pipe(down) != 0 || pipe(up) != 0 || pipe(exec_err) != 0) {
    lctx_buf_append_cstr(error, "pipe: ");
    lctx_buf_append_cstr(error, strerror(errno));
    return false;
  }
  fcntl(exec_err[1], F_SETFD, FD_CLOEXEC);
  fflush(NULL);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    lctx_buf_append_cstr(error, "fork: ");
    lctx_buf_append_cstr(error, strerror(errno));
    return false;
  }
  if (pid == 0) {
    dup2(down[0], 0);
    dup2(up[1], 1);
    child_setup(parent, impl->log_path, false);
    close(down[0]);
    close(down[1]);
    close(up[0]);
    close(up[1]);
    close_other_fds(exec_err[1], -1);
    execvp(impl->argv[0], impl->argv);
    int e = errno;
    (void)!write(exec_err[1], &e, sizeof e);
    _exit(127);
  }
  setpgid(pid, pid);
  close(down[0]);
  close(up[1]);
  close(exec_err[1]);
  int e = 0;
  ssize_t got = read(exec_err[0], &e, sizeof e);
  close(exec_err[0]);
  if (got == (ssize_t)sizeof e) {
    lctx_buf_append_cstr(error, "cannot run '");
    append_escaped(error, impl->argv[0], strlen(impl->argv[0]));
    lctx_buf_append_cstr(error, "': ");
    lctx_buf_append_cstr(error, strerror(e));
    close(down[1]);
    close(up[0]);
    kill(-pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return false;
  }
  attach_peer(impl, pid, down[1], up[0]);
  return true;
}

/* A whole line is buffered, or more than impl->line_cap bytes without one
 * (refused: lctx never buffers more). */
static int want_line(lctx_impl *impl) {
  size_t look = impl->in_length < impl->line_cap + 1 ? impl->in_length
                                                     : impl->line_cap + 1;
  if (look > impl->line_scanned &&
      memchr(in_at(impl) + impl->line_scanned, '\n', look - impl->line_scanned))
    return 1;
  impl->line_scanned = look;
  if (impl->in_length > impl->line_cap)
    return refuse(impl,
                  "protocol error: a line longer than %zu bytes (the limit)",
                  impl->line_cap);
  return 0;
}

/* Reads one line of at most `max` bytes (without the newline) into a fresh
 * NUL-terminated string the caller frees; NULL with `why` and the PUMP_*
 * code in `*code` on EOF, timeout, memory or a too long line. */
static char *read_line(lctx_impl *impl, double deadline, size_t max, char *why,
                       size_t cap, int *code) {
  impl->line_cap = max;
  *code = pump(impl, deadline, want_line);
  if (*code != PUMP_DONE) {
    describe_loss(impl, *code, "", "program", why, cap);
    return NULL;
  }
  uint8_t *nl = memchr(in_at(impl), '\n', impl->in_length);
  size_t n = (size_t)(nl - in_at(impl));
  char *line = malloc(n + 1);
  if (!line) {
    snprintf(why, cap, "out of memory");
    *code = PUMP_EOF;
    return NULL;
  }
  memcpy(line, in_at(impl), n);
  line[n] = '\0';
  consume(impl, n + 1);
  impl->line_scanned = 0;
  return line;
}

/* Whether the handshake's operations name one lctx does not know (said in
 * `error`, with the names lctx knows). */
static bool unknown_operation(json_t *j, lctx_buf *error) {
  size_t i;
  json_t *v;
  json_array_foreach(json_object_get(j, "operations"), i, v) {
    lctx_op_kind kind;
    if (json_is_string(v) &&
        (lctx_op_kind_from_name(lctx_str_from_cstr(json_string_value(v)),
                                &kind) ||
         strcmp(json_string_value(v), "export") == 0))
      continue;
    lctx_buf_append_cstr(error, "handshake: unknown operation ");
    char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    if (text)
      append_escaped(error, text, strlen(text));
    free(text);
    lctx_buf_append_cstr(error, " (lctx knows");
    for (int k = 0; k < LCTX_OP_KIND_COUNT; k++) {
      lctx_buf_append_cstr(error, k ? ", " : " ");
      lctx_buf_append_cstr(error, lctx_op_kind_name((lctx_op_kind)k));
    }
    lctx_buf_append_cstr(error, ", and the extension export)");
    return true;
  }
  return false;
}

/* Appends to `error` where the program's stderr went and its last lines
 * (at most 5, at most 600 bytes). */
static void append_log_tail(const lctx_impl *impl, lctx_buf *error) {
  if (strcmp(impl->log_path, "/dev/null") == 0)
    return;
  lctx_buf_append_cstr(error, "; its stderr is in ");
  append_escaped(error, impl->log_path, strlen(impl->log_path));
  FILE *f = fopen(impl->log_path, "r");
  if (!f)
    return;
  char tail[601];
  size_t n = 0;
  if (fseek(f, -600, SEEK_END) != 0)
    rewind(f);
  n = fread(tail, 1, 600, f);
  fclose(f);
  while (n > 0 && tail[n - 1] == '\n')
    n--;
  size_t start = n, lines = 0;
  while (start > 0 && lines < 5)
    lines += tail[--start] == '\n';
  if (start < n && tail[start] == '\n')
    start++;
  if (start >= n)
    return;
  lctx_buf_append_cstr(error, ", which ends: ");
  for (size_t i = start; i < n; i++) {
    if (tail[i] == '\n')
      lctx_buf_append_cstr(error, " | ");
    else
      append_escaped(error, tail + i, 1);
  }
}

/* Reads the handshake answer `j` into impl->info; false with why. */
static bool take_handshake(lctx_impl *impl, json_t *j, lctx_buf *error) {
  json_t *err = j ? json_object_get(j, "error") : NULL;
  if (!j || !json_is_object(j)) {
    lctx_buf_append_cstr(error, "handshake: the answer is not a JSON object");
  } else if (!json_is_integer(json_object_get(j, "protocol")) ||
             json_integer_value(json_object_get(j, "protocol")) != 1) {
    json_t *p = json_object_get(j, "protocol");
    char *sent = p ? json_dumps(p, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    lctx_buf_append_cstr(error, "handshake: the program sent \"protocol\": ");
    if (sent)
      append_escaped(error, sent, strlen(sent));
    else
      lctx_buf_append_cstr(error, "(nothing)");
    lctx_buf_append_cstr(error, "; lctx speaks protocol 1 (a number)");
    free(sent);
  } else if (unknown_operation(j, error)) {
    /* said in error */
  } else if (json_is_string(err)) {
    lctx_buf_append_cstr(error, "the program refused: ");
    append_escaped(error, json_string_value(err), json_string_length(err));
  } else if (!json_is_string(json_object_get(j, "name")) ||
             !json_is_string(json_object_get(j, "version")) ||
             !json_is_array(json_object_get(j, "operations"))) {
    lctx_buf_append_cstr(error, "handshake: name, version and operations "
                                "are required");
  } else {
    snprintf(impl->info.name, sizeof impl->info.name, "%s",
             json_string_value(json_object_get(j, "name")));
    snprintf(impl->info.version, sizeof impl->info.version, "%s",
             json_string_value(json_object_get(j, "version")));
    sanitize_info(&impl->info);
    impl->info.operations = 0;
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(j, "operations"), i, v) {
      lctx_op_kind kind;
      if (json_is_string(v) &&
          lctx_op_kind_from_name(lctx_str_from_cstr(json_string_value(v)),
                                 &kind))
        impl->info.operations |= 1u << kind;
    }
    return true;
  }
  return false;
}

static bool handshake(lctx_impl *impl, lctx_buf *error) {
  static const char hello[] = "{\"lctx\": \"hello\", \"protocol\": 1}\n";
  static const char hello_export[] = "{\"lctx\": \"hello\", \"protocol\": "
                                     "1, \"extensions\": [\"export\"]}\n";
  bool extended = impl->export_extension;
  impl->out_length = impl->out_sent = 0;
  if (extended)
    queue(impl, hello_export, sizeof hello_export - 1);
  else
    queue(impl, hello, sizeof hello - 1);
  char why[256];
  int code;
  char *line =
      read_line(impl, lctx_sys_now() + impl->timeout + 30,
                extended ? LCTX_IMPL_MAX_LINE : LCTX_IMPL_MAX_HANDSHAKE, why,
                sizeof why, &code);
  if (!line) {
    lctx_buf_append_cstr(error, "handshake: ");
    lctx_buf_append_cstr(error, why);
    if (code == PUMP_EOF)
      append_log_tail(impl, error);
    return false;
  }
  json_error_t je;
  json_t *j = json_loads(line, 0, &je);
  bool ok = take_handshake(impl, j, error);
  json_decref(j);
  if (ok && extended) {
    free(impl->handshake_text);
    impl->handshake_text = line;
  } else {
    free(line);
  }
  return ok;
}

/* Starts the program and shakes hands; the program is stopped on failure. */
static bool start_and_greet(lctx_impl *impl, lctx_buf *error) {
  if (start_process(impl, error) && handshake(impl, error))
    return true;
  stop_peer(impl, NULL, 0);
  return false;
}

lctx_impl *lctx_impl_open_process(const char *command_line,
                                  const lctx_impl_options *o, lctx_buf *error) {
  lctx_impl *impl = impl_new(false, o, error);
  if (!impl)
    return NULL;
  if (lctx_split_command(command_line, impl->command_storage,
                         sizeof impl->command_storage, impl->argv, MAX_ARGS,
                         error) < 0 ||
      !start_and_greet(impl, error)) {
    lctx_impl_close(impl);
    return NULL;
  }
  return impl;
}

/* The offset of the first NUL in a string of the outcome object `o`
 * (`*what`: which), or -1. */
static long nul_in_outcome(json_t *o, const char **what) {
  const char *key;
  json_t *v;
  json_object_foreach(o, key, v) {
    const char *s = json_is_string(v) ? json_string_value(v) : NULL;
    size_t n = s ? json_string_length(v) : 0;
    const char *nul = s ? memchr(s, '\0', n) : NULL;
    if (nul) {
      *what = strcmp(key, "mlir") == 0 ? "module" : "outcome text";
      return (long)(nul - s);
    }
  }
  return -1;
}

/* Reads outcome `k` of a result, with the module a lower_per_platform
 * outcome may carry as "mlir", into `res`; false with why in `e`. */
static bool read_outcome(json_t *o, lctx_case_result *res, size_t k,
                         lctx_buf *e) {
  json_t *mlir = json_is_object(o) ? json_object_get(o, "mlir") : NULL;
  json_t *bare = o;
  if (mlir) {
    bare = json_copy(o);
    json_object_del(bare, "mlir");
  }
  bool good = lctx_outcome_from_json(bare, &res->outcomes[k], e);
  if (mlir)
    json_decref(bare);
  if (good && mlir && !json_is_string(mlir)) {
    lctx_buf_append_cstr(e, "mlir: expected a string");
    good = false;
  } else if (good && mlir && json_string_length(mlir) > 0) {
    res->mlir[k] = copy_text(json_string_value(mlir), json_string_length(mlir));
  }
  return good;
}

/* Reads result `i` of an answer, for case `c`, into `res`; false (with why)
 * when it breaks the protocol. An error the program reports, or a NUL in a
 * text, marks only the case. */
static bool read_result(json_t *r, const lctx_case *c, size_t i,
                        lctx_case_result *res, char *why, size_t cap) {
  json_t *outcomes = json_object_get(r, "outcomes");
  json_t *err = json_object_get(r, "error");
  res->status = LCTX_RESULT_OK;
  res->detail[0] = '\0';
  if (json_is_string(err)) {
    char detail[200];
    snprintf(detail, sizeof detail, "the implementation failed: %s",
             json_string_value(err));
    fail_case(res, LCTX_RESULT_CRASH, detail);
    return true;
  }
  if (!json_is_array(outcomes) || json_array_size(outcomes) != c->op_count) {
    snprintf(why, cap,
             "protocol error: result %zu needs %zu outcomes or an error", i,
             c->op_count);
    return false;
  }
  res->outcome_count = c->op_count;
  for (size_t k = 0; k < c->op_count; k++) {
    json_t *o = json_array_get(outcomes, k);
    const char *what = "";
    long at = json_is_object(o) ? nul_in_outcome(o, &what) : -1;
    if (at >= 0) {
      char detail[128];
      snprintf(detail, sizeof detail,
               "the %s holds a NUL byte at offset %ld (operation %zu)", what,
               at, k);
      fail_case(res, LCTX_RESULT_CRASH, detail);
      return true;
    }
    char e[256];
    lctx_buf eb;
    lctx_buf_init(&eb, e, sizeof e);
    if (!read_outcome(o, res, k, &eb)) {
      snprintf(why, cap, "protocol error: results[%zu].outcomes[%zu]: %s", i, k,
               e);
      return false;
    }
  }
  return true;
}

/* Queues the request `{"id": ID, "cases": [...]}` of `n` cases. */
static bool send_request(lctx_impl *impl, const lctx_case *const *cases,
                         size_t n, unsigned long long id) {
  json_t *request = json_object();
  json_t *list = json_array();
  json_object_set_new(request, "id", json_integer((json_int_t)id));
  for (size_t i = 0; i < n; i++)
    json_array_append_new(list, lctx_case_to_json(cases[i]));
  json_object_set_new(request, "cases", list);
  char *text = json_dumps(request, JSON_COMPACT);
  json_decref(request);
  if (!text)
    return false;
  impl->out_length = impl->out_sent = 0;
  queue(impl, text, strlen(text));
  queue(impl, "\n", 1);
  free(text);
  return true;
}

/* Checks the answer `j` to request `id` of `n` cases and reads its results;
 * false (with why) when it breaks the protocol. */
static bool read_answer(json_t *j, const json_error_t *je,
                        const lctx_case *const *cases, size_t n,
                        unsigned long long id, lctx_case_result *results,
                        char *why, size_t cap) {
  json_t *results_json = j ? json_object_get(j, "results") : NULL;
  json_t *jid = j ? json_object_get(j, "id") : NULL;
  if (!j) {
    snprintf(why, cap, "protocol error: not JSON (%s)", je->text);
  } else if (!json_is_integer(jid) ||
             (unsigned long long)json_integer_value(jid) != id) {
    snprintf(why, cap,
             "protocol error: an answer that is not the one to request %llu "
             "(a stale or duplicate answer?)",
             id);
  } else if (!json_is_array(results_json) ||
             json_array_size(results_json) != n) {
    snprintf(why, cap, "protocol error: %zu results expected", n);
  } else {
    for (size_t i = 0; i < n; i++) {
      if (!read_result(json_array_get(results_json, i), cases[i], i,
                       &results[i], why, cap))
        return false;
    }
    return true;
  }
  return false;
}

/* Sends one request of `n` cases and parses the response into results.
 * Returns PUMP_DONE, or (with why) the PUMP_* code of how the program broke
 * the protocol (PUMP_BAD), died, hung or grew; the results are then unset. */
static int process_batch(lctx_impl *impl, const lctx_case *const *cases,
                         size_t n, lctx_case_result *results, char *why,
                         size_t cap) {
  unsigned long long id = ++impl->request_id;
  if (!send_request(impl, cases, n, id)) {
    snprintf(why, cap, "cannot encode the request");
    return PUMP_BAD;
  }
  int code;
  char *line = read_line(impl, lctx_sys_now() + impl->timeout * (double)n,
                         LCTX_IMPL_MAX_LINE, why, cap, &code);
  if (!line)
    return code;
  json_error_t je;
  json_t *j = json_loads(line, JSON_ALLOW_NUL, &je);
  free(line);
  bool ok = read_answer(j, &je, cases, n, id, results, why, cap);
  json_decref(j);
  if (ok && impl->in_length > 0) {
    snprintf(why, cap, "protocol error: more than one answer to request %llu",
             id);
    ok = false;
  }
  if (!ok)
    return PUMP_BAD;
  for (size_t i = 0; i < n; i++)
    results[i].cases_before = impl->served + i;
  impl->served += n;
  return PUMP_DONE;
}

/* A program that did not answer case `res` (`code`, with why): stopped
 * (with its group) and the case marked. */
static void lose_program(lctx_impl *impl, int code, const char *why,
                         lctx_case_result *res) {
  char how[128] = "", died[160];
  size_t before = impl->served;
  stop_peer(impl, how, sizeof how);
  impl->restarts++;
  if (code == PUMP_EOF && how[0]) {
    snprintf(died, sizeof died, "the program %s", how);
    why = died;
  }
  fail_case(res, code == PUMP_TIMEOUT ? LCTX_RESULT_TIMEOUT : LCTX_RESULT_CRASH,
            why);
  res->cases_before = before;
}

/* Starts a fresh program when there is none; false (with why) when it
 * cannot start. */
static bool ensure_program(lctx_impl *impl, char *why, size_t cap) {
  if (impl->pid > 0)
    return true;
  char e[256] = "";
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  if (start_and_greet(impl, &eb))
    return true;
  snprintf(why, cap, "cannot restart the program: %s", e);
  return false;
}

/* Runs case `c` alone in the current program (or a fresh one); marks it
 * when the program fails it. */
static void run_one(lctx_impl *impl, const lctx_case *c,
                    lctx_case_result *res) {
  char why[512];
  if (!ensure_program(impl, why, sizeof why)) {
    fail_case(res, LCTX_RESULT_CRASH, why);
    res->cases_before = 0;
    return;
  }
  int code = process_batch(impl, &c, 1, res, why, sizeof why);
  if (code != PUMP_DONE)
    lose_program(impl, code, why, res);
}

/* Case `c` failed in a program that had served other cases: runs it again
 * alone in a fresh program; FLAKY when it answers then. */
static void rerun_process_case(lctx_impl *impl, const lctx_case *c,
                               lctx_case_result *res) {
  char first[256];
  size_t before = res->cases_before;
  snprintf(first, sizeof first, "%s", res->detail);
  stop_peer(impl, NULL, 0);
  lctx_case_result_release(res);
  run_one(impl, c, res);
  if (res->status == LCTX_RESULT_OK)
    mark_flaky(res, first, before, "program");
  else
    res->cases_before = 0;
}

/* Between cases: a program over half its memory limit is recycled. */
static void recycle_program_if_big(lctx_impl *impl) {
  if (peer_over_half(impl)) {
    stop_peer(impl, NULL, 0);
    impl->recycles++;
  }
}

static size_t run_process(lctx_impl *impl, const lctx_case *const *cases,
                          size_t n, lctx_case_result *results) {
  char why[512];
  if (impl->process_per_case) {
    for (size_t i = 0; i < n; i++) {
      stop_peer(impl, NULL, 0);
      run_one(impl, cases[i], &results[i]);
      if (over_budget(impl, &results[i]))
        return i + 1;
    }
    return n;
  }
  /* A single case is run as in isolation, where a failure after other
   * cases were served leads to a run alone. */
  if (n > 1 && ensure_program(impl, why, sizeof why)) {
    int code = process_batch(impl, cases, n, results, why, sizeof why);
    if (code == PUMP_DONE) {
      recycle_program_if_big(impl);
      return n; /* one answer line: its modules are bounded by its size */
    }
    stop_peer(impl, NULL, 0);
    impl->restarts++;
  }
  /* Isolate: one case at a time, in a fresh program after each failure (or
   * in the current one for a single case); a case that fails after others
   * were served is run again alone. */
  for (size_t i = 0; i < n; i++) {
    run_one(impl, cases[i], &results[i]);
    if (results[i].status != LCTX_RESULT_OK && impl->pid <= 0 &&
        results[i].cases_before > 0)
      rerun_process_case(impl, cases[i], &results[i]);
    recycle_program_if_big(impl);
    if (over_budget(impl, &results[i]))
      return i + 1;
  }
  return n;
}

//===----------------------------------------------------------------------===//
// Common
//===----------------------------------------------------------------------===//

const lctx_impl_info *lctx_impl_get_info(const lctx_impl *impl) {
  return &impl->info;
}

size_t lctx_impl_pack(const lctx_case *c, uint8_t *out) {
  return pack_case(c, out);
}

void lctx_impl_start(lctx_impl *impl, const lctx_case *const *cases, size_t n,
                     const lctx_impl_packed *packed) {
  impl->started = NULL;
  if (!impl->is_plugin || impl->pid <= 0 || n == 0)
    return;
  impl->careful = false;
  if (!queue_cases(impl, cases, 0, n, packed)) {
    impl->out_length = 0; /* the run queues them again */
    return;
  }
  ssize_t w = write(impl->to_fd, impl->out, impl->out_length);
  if (w > 0)
    impl->out_sent = (size_t)w;
  if (impl->out_sent == impl->out_length)
    impl->out_sent = impl->out_length = 0;
  impl->started = cases;
  impl->started_n = n;
}

size_t lctx_impl_run(lctx_impl *impl, const lctx_case *const *cases, size_t n,
                     lctx_case_result *results) {
  if (n == 0)
    return 0;
  for (size_t i = 0; i < n; i++) {
    lctx_case_result_release(&results[i]);
    results[i].cases_before = 0;
  }
  impl->held = 0;
  return impl->is_plugin ? run_plugin(impl, cases, n, results)
                         : run_process(impl, cases, n, results);
}

size_t lctx_impl_restarts(const lctx_impl *impl) {
  return impl->restarts;
}

size_t lctx_impl_recycles(const lctx_impl *impl) {
  return impl->recycles;
}

void lctx_impl_close(lctx_impl *impl) {
  if (!impl)
    return;
  if (!impl->is_plugin && impl->pid > 0 && impl->to_fd >= 0) {
    static const char bye[] = "{\"lctx\": \"bye\"}\n";
    (void)!write(impl->to_fd, bye, sizeof bye - 1);
  }
  stop_peer(impl, NULL, 0);
  if (impl->is_plugin)
    drop_shared(impl);
  free(impl->in);
  free(impl->out);
  free(impl->handshake_text);
  free(impl);
}

const char *lctx_impl_handshake(const lctx_impl *impl) {
  return impl->handshake_text;
}

/* Answer line `line` parsed when it is a JSON object whose "id" is `id`;
 * else NULL, with why in `why`. */
static json_t *answer_to(const char *line, unsigned long long id, char *why,
                         size_t cap) {
  json_error_t je;
  json_t *j = json_loads(line, 0, &je);
  json_t *jid = json_object_get(j, "id");
  if (json_is_integer(jid) && (unsigned long long)json_integer_value(jid) == id)
    return j;
  if (!j)
    snprintf(why, cap, "protocol error: not JSON (%s)", je.text);
  else
    snprintf(why, cap,
             "protocol error: an answer that is not the one to request %llu "
             "(a stale or duplicate answer?)",
             id);
  json_decref(j);
  return NULL;
}

lctx_result_status lctx_impl_exchange(lctx_impl *impl, const char *line,
                                      unsigned long long id, double timeout,
                                      json_t **answer, char *why, size_t cap) {
  *answer = NULL;
  if (impl->is_plugin) {
    snprintf(why, cap, "a plugin does not speak the process protocol");
    return LCTX_RESULT_CRASH;
  }
  if (impl->pid > 0)
    recycle_program_if_big(impl);
  if (!ensure_program(impl, why, cap))
    return LCTX_RESULT_CRASH;
  impl->out_length = impl->out_sent = 0;
  queue(impl, line, strlen(line));
  queue(impl, "\n", 1);
  int code;
  double saved = impl->timeout;
  impl->timeout = timeout; /* what describe_loss says of a hang */
  char *got = read_line(impl, lctx_sys_now() + timeout, LCTX_IMPL_MAX_LINE, why,
                        cap, &code);
  impl->timeout = saved;
  bool answered = got != NULL;
  json_t *j = got ? answer_to(got, id, why, cap) : NULL;
  free(got);
  if (answered && !j) {
    code = PUMP_BAD;
  } else if (j && impl->in_length > 0) {
    snprintf(why, cap, "protocol error: more than one answer to request %llu",
             id);
    json_decref(j);
    code = PUMP_BAD;
  } else if (j) {
    impl->served++;
    *answer = j;
    return LCTX_RESULT_OK;
  }
  char how[128] = "";
  stop_peer(impl, how, sizeof how);
  impl->restarts++;
  if (code == PUMP_EOF && how[0])
    snprintf(why, cap, "the program %s", how);
  return code == PUMP_TIMEOUT ? LCTX_RESULT_TIMEOUT : LCTX_RESULT_CRASH;
}

void lctx_impl_set_process_per_case(lctx_impl *impl, bool on) {
  impl->process_per_case = on && !impl->is_plugin;
}
