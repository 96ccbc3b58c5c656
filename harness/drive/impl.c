/*
 * impl.c - implementations under test, isolated (see impl.h).
 *
 * Plugin: a worker process (fork) loads the library with dlopen and serves
 * cases sent to it in the byte form (case_bytes.h) over a pipe, answering
 * with binary outcome records. Process: the program runs with pipes for
 * stdin and stdout and speaks JSON lines (conformance/PROTOCOL.md). Both are
 * driven with poll(), never blocking on a peer that stopped reading.
 */
#include "impl.h"
#include "sys.h"

#include "case_bytes.h"
#include "case_json.h"
#include "lctx/impl_abi.h"
#include "plugin.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_LINE (16u << 20)
#define MAX_ARGS 64

struct lctx_impl {
  lctx_impl_info info;
  double timeout;
  size_t restarts;
  bool is_plugin;
  bool process_per_case;
  /* Plugin. */
  char path[4096];
  /* Process. */
  char command_storage[8192];
  char *argv[MAX_ARGS];
  char log_path[4096];
  /* Peer. */
  pid_t pid;
  int to_fd;   /* we write */
  int from_fd; /* we read */
  /* Read buffer. */
  uint8_t *in;
  size_t in_length, in_capacity;
  /* Write buffer. */
  uint8_t *out;
  size_t out_length, out_sent, out_capacity;
  /* Plugin: one case in the byte form, as it is queued. */
  uint8_t case_bytes[LCTX_CASE_BYTES_MAX + 16];
  /* Process: the id of the last request. */
  unsigned long long request_id;
};

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

/* Stops the peer; describes how it ended in `why` if it had ended. */
static void stop_peer(lctx_impl *impl, char *why, size_t cap) {
  if (impl->to_fd >= 0)
    close(impl->to_fd);
  if (impl->from_fd >= 0)
    close(impl->from_fd);
  impl->to_fd = impl->from_fd = -1;
  if (impl->pid > 0) {
    int status = 0;
    pid_t r = waitpid(impl->pid, &status, WNOHANG);
    if (r == 0) {
      /* Give it a moment to exit on EOF, then insist. */
      for (int i = 0; i < 50 && r == 0; i++) {
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
        r = waitpid(impl->pid, &status, WNOHANG);
      }
      if (r == 0) {
        kill(impl->pid, SIGKILL);
        waitpid(impl->pid, &status, 0);
      }
    }
    if (why && r == impl->pid)
      describe_status(status, why, cap);
    impl->pid = -1;
  }
  impl->in_length = impl->out_length = impl->out_sent = 0;
}

/* Moves bytes both ways until `want(impl)` is satisfied, the peer closes,
 * or `deadline` passes. Returns 1 when satisfied, 0 on EOF/error, -1 on
 * timeout. */
static int pump(lctx_impl *impl, double deadline,
                bool (*want)(const lctx_impl *impl, void *arg), void *arg) {
  for (;;) {
    if (want(impl, arg))
      return 1;
    double left = deadline - lctx_sys_now();
    if (left <= 0)
      return -1;
    struct pollfd fds[2];
    int n = 0;
    fds[n++] = (struct pollfd){impl->from_fd, POLLIN, 0};
    bool writing = impl->out_sent < impl->out_length;
    if (writing)
      fds[n++] = (struct pollfd){impl->to_fd, POLLOUT, 0};
    int timeout_ms = left > 1 ? 1000 : (int)(left * 1000) + 1;
    int r = poll(fds, (nfds_t)n, timeout_ms);
    if (r < 0) {
      if (errno == EINTR)
        continue;
      return 0;
    }
    if (writing && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t w = write(impl->to_fd, impl->out + impl->out_sent,
                        impl->out_length - impl->out_sent);
      if (w < 0 && errno != EAGAIN && errno != EINTR)
        return 0;
      if (w > 0)
        impl->out_sent += (size_t)w;
      if (impl->out_sent == impl->out_length)
        impl->out_sent = impl->out_length = 0;
    }
    if (fds[0].revents & (POLLIN | POLLERR | POLLHUP)) {
      if (!reserve(&impl->in, &impl->in_capacity, impl->in_length + 65536))
        return 0;
      ssize_t got = read(impl->from_fd, impl->in + impl->in_length, 65536);
      if (got == 0)
        return want(impl, arg) ? 1 : 0;
      if (got < 0 && errno != EAGAIN && errno != EINTR)
        return 0;
      if (got > 0)
        impl->in_length += (size_t)got;
    }
  }
}

static void consume(lctx_impl *impl, size_t n) {
  memmove(impl->in, impl->in + n, impl->in_length - n);
  impl->in_length -= n;
}

static void set_nonblocking(int fd) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/* The peer `pid` runs: we write to `to_fd` and read from `from_fd`. */
static void attach_peer(lctx_impl *impl, pid_t pid, int to_fd, int from_fd) {
  impl->pid = pid;
  impl->to_fd = to_fd;
  impl->from_fd = from_fd;
  set_nonblocking(to_fd);
  set_nonblocking(from_fd);
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
  (8 +                                                                         \
   LCTX_CASE_MAX_OPS *                                                         \
       (LCTX_OUTCOME_TEXT_MAX + 32 + LCTX_CASE_IMPL_MLIR_CAPACITY) +           \
   256)

/* What the worker works in, one case at a time (heap: the record alone may
 * hold a module per operation). */
typedef struct worker {
  const lctx_impl_table *table;
  uint8_t bytes[LCTX_CASE_BYTES_MAX + 16]; /* the case as it came */
  lctx_case c;
  lctx_case_impl_views views;
  char text[LCTX_OUTCOME_TEXT_MAX];        /* an outcome's text */
  char mlir[LCTX_CASE_IMPL_MLIR_CAPACITY]; /* an operation's module */
  uint8_t record[RECORD_MAX];              /* the answer being built */
} worker;

/* Loads the plugin and sends the info record (or the error). Returns the
 * table, or NULL when the plugin cannot serve. */
static const lctx_impl_table *worker_hello(const char *path, int out_fd) {
  char error[512] = "";
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  const lctx_impl_table *table = lctx_plugin_load(path, &e);
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

/* Runs every operation of w->c in one session and builds the result record;
 * returns its size. */
static size_t serve_case(worker *w) {
  lctx_impl_config config;
  lctx_case_impl_config(&w->c, &w->views, &config);
  void *session = w->table->session_create(&config);
  size_t used = 8;
  uint32_t status = 0;
  char detail[200] = "";
  if (!session) {
    status = 1;
    snprintf(detail, sizeof detail, "session_create returned NULL");
  }
  for (size_t i = 0; session && i < w->c.op_count && status == 0; i++) {
    const lctx_case_op *op = &w->c.ops[i];
    lctx_impl_outcome o = {0, 0, 0, -1, w->text, sizeof w->text, 0};
    w->text[0] = '\0';
    size_t mlir_length = 0;
    lctx_impl_status st =
        lctx_case_impl_run_op(w->table, session, op, &o, w->mlir, &mlir_length);
    if (st != 0) {
      status = 1;
      snprintf(detail, sizeof detail, "%s returned status %d on operation %zu",
               supported_names[op->kind], st, i);
    } else if (o.text_length >= sizeof w->text) {
      status = 1;
      snprintf(detail, sizeof detail,
               "text_length %zu beyond the capacity on operation %zu",
               o.text_length, i);
    } else {
      int32_t head[4] = {o.kind, o.error_class, o.origin, o.registration};
      uint32_t len = (uint32_t)o.text_length, mlen = (uint32_t)mlir_length;
      record_put(w, &used, head, sizeof head);
      record_put(w, &used, &len, 4);
      record_put(w, &used, w->text, len);
      record_put(w, &used, &mlen, 4);
      record_put(w, &used, w->mlir, mlen);
    }
  }
  if (session)
    w->table->session_destroy(session);
  uint32_t count = status == 0 ? (uint32_t)w->c.op_count : 0;
  if (status != 0) {
    uint32_t len = (uint32_t)strlen(detail);
    used = 8;
    record_put(w, &used, &len, 4);
    record_put(w, &used, detail, len);
  }
  memcpy(w->record, &status, 4);
  memcpy(w->record + 4, &count, 4);
  return used;
}

/* The worker: loads the plugin, reports its table, serves cases; never
 * returns. Record formats (native endianness, same machine):
 *   info:   u32 status(0 ok) | text name | text version | u32 operations
 *           (status != 0: text error)
 *   result: u32 status (0 ok, 1 the plugin failed) | u32 n_ops |
 *           n_ops x (i32 kind, i32 class, i32 origin, i32 registration,
 *           text, text module) | (status 1: text detail) */
static void plugin_worker(const char *path, int in_fd, int out_fd) {
  worker *w = malloc(sizeof *w);
  if (!w)
    _exit(1);
  w->table = worker_hello(path, out_fd);
  if (!w->table)
    _exit(0);
  /* Buffered input: one read() brings many cases. */
  FILE *in = fdopen(in_fd, "rb");
  if (!in)
    _exit(1);
  for (;;) {
    uint32_t n;
    if (fread(&n, 4, 1, in) != 1)
      _exit(0);
    if (n > sizeof w->bytes || fread(w->bytes, 1, n, in) != n)
      _exit(2);
    lctx_case_decode(w->bytes, n, &w->c);
    size_t used = serve_case(w);
    if (!write_full(out_fd, w->record, used))
      _exit(1);
  }
}

//===----------------------------------------------------------------------===//
// Plugin (parent side)
//===----------------------------------------------------------------------===//

static bool start_plugin_worker(lctx_impl *impl) {
  int down[2], up[2];
  if (pipe(down) != 0)
    return false;
  if (pipe(up) != 0) {
    close(down[0]);
    close(down[1]);
    return false;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0)
    return false;
  if (pid == 0) {
    close(down[1]);
    close(up[0]);
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) {
      dup2(devnull, 1); /* a plugin's prints must not corrupt our output */
      close(devnull);
    }
    plugin_worker(impl->path, down[0], up[1]);
    _exit(0);
  }
  close(down[0]);
  close(up[1]);
  attach_peer(impl, pid, down[1], up[0]);
  return true;
}

void lctx_case_result_release(lctx_case_result *result) {
  for (size_t k = 0; k < LCTX_CASE_MAX_OPS; k++) {
    free(result->mlir[k]);
    result->mlir[k] = NULL;
  }
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

/* Parses a u32-length text at `*at`; false if incomplete. */
static bool take_text(const lctx_impl *impl, size_t *at, const char **s,
                      uint32_t *n) {
  if (impl->in_length < *at + 4)
    return false;
  memcpy(n, impl->in + *at, 4);
  if (impl->in_length < *at + 4 + *n)
    return false;
  *s = (const char *)impl->in + *at + 4;
  *at += 4 + *n;
  return true;
}

/* The size of the complete info record at the start of the buffer, or 0. */
static size_t info_record_size(const lctx_impl *impl) {
  size_t at = 0;
  uint32_t status, n;
  const char *s;
  if (impl->in_length < 4)
    return 0;
  memcpy(&status, impl->in, 4);
  at = 4;
  if (status != 0)
    return take_text(impl, &at, &s, &n) ? at : 0;
  if (!take_text(impl, &at, &s, &n) || !take_text(impl, &at, &s, &n) ||
      impl->in_length < at + 4)
    return 0;
  return at + 4;
}

static bool want_info(const lctx_impl *impl, void *arg) {
  (void)arg;
  return info_record_size(impl) > 0;
}

/* The size of the complete result record at the start of the buffer, or 0. */
static size_t result_record_size(const lctx_impl *impl) {
  if (impl->in_length < 8)
    return 0;
  uint32_t status, count;
  memcpy(&status, impl->in, 4);
  memcpy(&count, impl->in + 4, 4);
  size_t at = 8;
  for (uint32_t i = 0; i < count; i++) {
    const char *s;
    uint32_t n;
    at += 16;
    if (!take_text(impl, &at, &s, &n) || !take_text(impl, &at, &s, &n))
      return 0; /* the outcome's text, then the MLIR text */
  }
  if (status != 0) {
    const char *s;
    uint32_t n;
    if (!take_text(impl, &at, &s, &n))
      return 0;
  }
  return at;
}

static bool want_result(const lctx_impl *impl, void *arg) {
  (void)arg;
  return result_record_size(impl) > 0;
}

static bool read_info(lctx_impl *impl, lctx_buf *error) {
  int r = pump(impl, lctx_sys_now() + impl->timeout + 5, want_info, NULL);
  if (r != 1) {
    char why[128] = "no answer";
    stop_peer(impl, why, sizeof why);
    lctx_buf_append_cstr(error, r < 0 ? "the plugin worker timed out while "
                                        "loading the plugin"
                                      : "the plugin worker died while "
                                        "loading the plugin (");
    if (r >= 0) {
      lctx_buf_append_cstr(error, why);
      lctx_buf_append_char(error, ')');
    }
    return false;
  }
  size_t at = 4;
  uint32_t status, n;
  const char *s;
  memcpy(&status, impl->in, 4);
  if (status != 0) {
    take_text(impl, &at, &s, &n);
    lctx_buf_append(error, s, n);
    stop_peer(impl, NULL, 0);
    return false;
  }
  take_text(impl, &at, &s, &n);
  snprintf(impl->info.name, sizeof impl->info.name, "%.*s", (int)n, s);
  take_text(impl, &at, &s, &n);
  snprintf(impl->info.version, sizeof impl->info.version, "%.*s", (int)n, s);
  uint32_t ops;
  memcpy(&ops, impl->in + at, 4);
  consume(impl, at + 4);
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
static lctx_impl *impl_new(bool is_plugin, double timeout, lctx_buf *error) {
  signal(SIGPIPE, SIG_IGN);
  lctx_impl *impl = calloc(1, sizeof *impl);
  if (!impl) {
    lctx_buf_append_cstr(error, "out of memory");
    return NULL;
  }
  impl->is_plugin = is_plugin;
  impl->timeout = timeout;
  impl->pid = -1;
  impl->to_fd = impl->from_fd = -1;
  snprintf(impl->info.kind, sizeof impl->info.kind, "%s",
           is_plugin ? "plugin" : "process");
  return impl;
}

lctx_impl *lctx_impl_open_plugin(const char *path, double timeout,
                                 lctx_buf *error) {
  lctx_impl *impl = impl_new(true, timeout, error);
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

static void fail_case(lctx_case_result *r, lctx_result_status status,
                      const char *why) {
  r->status = status;
  r->outcome_count = 0;
  snprintf(r->detail, sizeof r->detail, "%s", why);
}

/* Reads the complete result record at the start of the buffer into `res`
 * (the result of `c`) and consumes it. */
static void take_result(lctx_impl *impl, const lctx_case *c,
                        lctx_case_result *res) {
  size_t size = result_record_size(impl);
  uint32_t status, count;
  memcpy(&status, impl->in, 4);
  memcpy(&count, impl->in + 4, 4);
  res->status = LCTX_RESULT_OK;
  res->detail[0] = '\0';
  res->outcome_count = count;
  size_t at = 8;
  for (uint32_t k = 0; k < count && k < LCTX_CASE_MAX_OPS; k++) {
    int32_t head[4];
    memcpy(head, impl->in + at, sizeof head);
    at += 16;
    const char *s;
    uint32_t len;
    take_text(impl, &at, &s, &len);
    const char *why;
    bool good = lctx_outcome_from_impl(head[0], head[1], head[2], head[3], s,
                                       len, &res->outcomes[k], &why);
    take_text(impl, &at, &s, &len);
    if (!good) {
      fail_case(res, LCTX_RESULT_CRASH, why);
      break;
    }
    if (len > 0)
      res->mlir[k] = copy_text(s, len);
  }
  if (status != 0) {
    const char *s;
    uint32_t len;
    take_text(impl, &at, &s, &len);
    char why[256];
    snprintf(why, sizeof why, "the plugin failed: %.*s", (int)len, s);
    fail_case(res, LCTX_RESULT_CRASH, why);
  } else if (res->status == LCTX_RESULT_OK && count != c->op_count) {
    fail_case(res, LCTX_RESULT_CRASH, "wrong number of outcomes");
  }
  consume(impl, size);
}

/* Queues cases[from..n) for the worker, in the byte form. */
static void queue_cases(lctx_impl *impl, const lctx_case *const *cases,
                        size_t from, size_t n) {
  impl->out_length = impl->out_sent = 0;
  for (size_t i = from; i < n; i++) {
    size_t len =
        lctx_case_encode(cases[i], impl->case_bytes, sizeof impl->case_bytes);
    uint32_t len32 = (uint32_t)len;
    queue(impl, &len32, 4);
    queue(impl, impl->case_bytes, len);
  }
}

/* The worker did not answer case `res` (r: 0 it died, -1 it hung): stops it
 * and marks the case. */
static void lose_worker(lctx_impl *impl, int r, lctx_case_result *res) {
  char why[256] = "the worker stopped answering";
  char how[128] = "";
  stop_peer(impl, how, sizeof how);
  impl->restarts++;
  if (r < 0)
    snprintf(why, sizeof why, "no answer within %.1f s (hang)", impl->timeout);
  else if (how[0])
    snprintf(why, sizeof why, "the plugin worker %s", how);
  fail_case(res, r < 0 ? LCTX_RESULT_TIMEOUT : LCTX_RESULT_CRASH, why);
}

static void run_plugin(lctx_impl *impl, const lctx_case *const *cases, size_t n,
                       lctx_case_result *results) {
  size_t next = 0; /* first case without a result */
  while (next < n) {
    if (impl->pid <= 0) {
      char why[256] = "";
      lctx_buf e;
      lctx_buf_init(&e, why, sizeof why);
      if (!start_plugin_worker(impl) || !read_info(impl, &e)) {
        for (; next < n; next++)
          fail_case(&results[next], LCTX_RESULT_CRASH,
                    why[0] ? why : "cannot restart the plugin worker");
        return;
      }
    }
    /* Queue every remaining case. */
    queue_cases(impl, cases, next, n);
    while (next < n) {
      int r = pump(impl, lctx_sys_now() + impl->timeout, want_result, NULL);
      if (r != 1) {
        lose_worker(impl, r, &results[next]);
        next++;
        break; /* restart with the next case */
      }
      take_result(impl, cases[next], &results[next]);
      next++;
    }
  }
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
  pid_t pid = fork();
  if (pid < 0) {
    lctx_buf_append_cstr(error, "fork: ");
    lctx_buf_append_cstr(error, strerror(errno));
    return false;
  }
  if (pid == 0) {
    dup2(down[0], 0);
    dup2(up[1], 1);
    int log = open(impl->log_path, O_WRONLY | O_CREAT | O_APPEND, 0666);
    if (log >= 0)
      dup2(log, 2);
    close(down[0]);
    close(down[1]);
    close(up[0]);
    close(up[1]);
    close(exec_err[0]);
    execvp(impl->argv[0], impl->argv);
    int e = errno;
    (void)!write(exec_err[1], &e, sizeof e);
    _exit(127);
  }
  close(down[0]);
  close(up[1]);
  close(exec_err[1]);
  int e = 0;
  ssize_t got = read(exec_err[0], &e, sizeof e);
  close(exec_err[0]);
  if (got == (ssize_t)sizeof e) {
    lctx_buf_append_cstr(error, "cannot run '");
    lctx_buf_append_cstr(error, impl->argv[0]);
    lctx_buf_append_cstr(error, "': ");
    lctx_buf_append_cstr(error, strerror(e));
    close(down[1]);
    close(up[0]);
    waitpid(pid, NULL, 0);
    return false;
  }
  attach_peer(impl, pid, down[1], up[0]);
  return true;
}

static bool want_line(const lctx_impl *impl, void *arg) {
  (void)arg;
  return (impl->in_length > 0 &&
          memchr(impl->in, '\n', impl->in_length) != NULL) ||
         impl->in_length > MAX_LINE;
}

/* Reads one line (without the newline) into a fresh NUL-terminated string
 * the caller frees; NULL with `why` on EOF, timeout or a too long line. */
static char *read_line(lctx_impl *impl, double deadline, char *why, size_t cap,
                       bool *timed_out) {
  *timed_out = false;
  int r = pump(impl, deadline, want_line, NULL);
  if (r != 1) {
    *timed_out = r < 0;
    snprintf(why, cap,
             r < 0 ? "no answer in time (hang)"
                   : "the program closed its output or died");
    return NULL;
  }
  uint8_t *nl = memchr(impl->in, '\n', impl->in_length);
  if (!nl) {
    snprintf(why, cap, "a line longer than %u bytes", MAX_LINE);
    return NULL;
  }
  size_t n = (size_t)(nl - impl->in);
  char *line = malloc(n + 1);
  if (!line) {
    snprintf(why, cap, "out of memory");
    return NULL;
  }
  memcpy(line, impl->in, n);
  line[n] = '\0';
  consume(impl, n + 1);
  return line;
}

static bool handshake(lctx_impl *impl, lctx_buf *error) {
  static const char hello[] = "{\"lctx\": \"hello\", \"protocol\": 1}\n";
  impl->out_length = impl->out_sent = 0;
  queue(impl, hello, sizeof hello - 1);
  char why[256];
  bool timed_out;
  char *line = read_line(impl, lctx_sys_now() + impl->timeout + 30, why,
                         sizeof why, &timed_out);
  if (!line) {
    lctx_buf_append_cstr(error, "handshake: ");
    lctx_buf_append_cstr(error, why);
    return false;
  }
  json_error_t je;
  json_t *j = json_loads(line, 0, &je);
  free(line);
  bool ok = false;
  if (!j || !json_is_object(j)) {
    lctx_buf_append_cstr(error, "handshake: the answer is not a JSON object");
  } else if (json_integer_value(json_object_get(j, "protocol")) != 1) {
    lctx_buf_append_cstr(error, "handshake: the program speaks protocol ");
    lctx_buf_append_int(error,
                        json_integer_value(json_object_get(j, "protocol")));
    lctx_buf_append_cstr(error, ", lctx speaks protocol 1");
  } else if (json_is_string(json_object_get(j, "error"))) {
    lctx_buf_append_cstr(error, "the program refused: ");
    lctx_buf_append_cstr(error, json_string_value(json_object_get(j, "error")));
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
    ok = true;
  }
  json_decref(j);
  return ok;
}

lctx_impl *lctx_impl_open_process(const char *command_line, double timeout,
                                  const char *log_path, lctx_buf *error) {
  lctx_impl *impl = impl_new(false, timeout, error);
  if (!impl)
    return NULL;
  snprintf(impl->log_path, sizeof impl->log_path, "%s",
           log_path ? log_path : "/dev/null");
  if (lctx_split_command(command_line, impl->command_storage,
                         sizeof impl->command_storage, impl->argv, MAX_ARGS,
                         error) < 0 ||
      !start_process(impl, error) || !handshake(impl, error)) {
    lctx_impl_close(impl);
    return NULL;
  }
  return impl;
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
 * when it breaks the protocol. An error the program reports marks only the
 * case. */
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
    char e[256];
    lctx_buf eb;
    lctx_buf_init(&eb, e, sizeof e);
    if (!read_outcome(json_array_get(outcomes, k), res, k, &eb)) {
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

/* Sends one request of `n` cases and parses the response into results.
 * Returns false (with why) when the program broke the protocol, died or
 * hung; the results are then unset. */
static bool process_batch(lctx_impl *impl, const lctx_case *const *cases,
                          size_t n, lctx_case_result *results, char *why,
                          size_t cap, bool *timed_out) {
  unsigned long long id = ++impl->request_id;
  *timed_out = false;
  if (!send_request(impl, cases, n, id)) {
    snprintf(why, cap, "cannot encode the request");
    return false;
  }
  char *line = read_line(impl, lctx_sys_now() + impl->timeout * (double)n, why,
                         cap, timed_out);
  if (!line)
    return false;
  json_error_t je;
  json_t *j = json_loads(line, 0, &je);
  free(line);
  bool ok = false;
  json_t *results_json = j ? json_object_get(j, "results") : NULL;
  if (!j) {
    snprintf(why, cap, "protocol error: not JSON (%s)", je.text);
  } else if (!json_is_integer(json_object_get(j, "id")) ||
             (unsigned long long)json_integer_value(json_object_get(j, "id")) !=
                 id) {
    snprintf(why, cap, "protocol error: the answer's id is not %llu", id);
  } else if (!json_is_array(results_json) ||
             json_array_size(results_json) != n) {
    snprintf(why, cap, "protocol error: %zu results expected", n);
  } else {
    ok = true;
    for (size_t i = 0; i < n && ok; i++)
      ok = read_result(json_array_get(results_json, i), cases[i], i,
                       &results[i], why, cap);
  }
  json_decref(j);
  return ok;
}

static bool restart_process(lctx_impl *impl, char *why, size_t cap) {
  stop_peer(impl, NULL, 0);
  impl->restarts++;
  char e[256];
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  if (!start_process(impl, &eb) || !handshake(impl, &eb)) {
    snprintf(why, cap, "cannot restart the program: %s", e);
    return false;
  }
  return true;
}

static void run_process(lctx_impl *impl, const lctx_case *const *cases,
                        size_t n, lctx_case_result *results) {
  char why[512];
  bool timed_out;
  if (impl->process_per_case) {
    for (size_t i = 0; i < n; i++) {
      char e[256];
      stop_peer(impl, NULL, 0);
      lctx_buf eb;
      lctx_buf_init(&eb, e, sizeof e);
      if (!start_process(impl, &eb) || !handshake(impl, &eb)) {
        fail_case(&results[i], LCTX_RESULT_CRASH, e);
        continue;
      }
      if (!process_batch(impl, &cases[i], 1, &results[i], why, sizeof why,
                         &timed_out))
        fail_case(&results[i],
                  timed_out ? LCTX_RESULT_TIMEOUT : LCTX_RESULT_CRASH, why);
    }
    return;
  }
  if (impl->pid > 0 &&
      process_batch(impl, cases, n, results, why, sizeof why, &timed_out))
    return;
  /* Isolate: one case at a time, restarting after each failure. */
  for (size_t i = 0; i < n; i++) {
    if (impl->pid <= 0 || impl->to_fd < 0 || i == 0) {
      char e[256];
      if (!restart_process(impl, e, sizeof e)) {
        for (; i < n; i++)
          fail_case(&results[i], LCTX_RESULT_CRASH, e);
        return;
      }
    }
    if (!process_batch(impl, &cases[i], 1, &results[i], why, sizeof why,
                       &timed_out)) {
      fail_case(&results[i],
                timed_out ? LCTX_RESULT_TIMEOUT : LCTX_RESULT_CRASH, why);
      stop_peer(impl, NULL, 0);
    }
  }
}

//===----------------------------------------------------------------------===//
// Common
//===----------------------------------------------------------------------===//

const lctx_impl_info *lctx_impl_get_info(const lctx_impl *impl) {
  return &impl->info;
}

void lctx_impl_run(lctx_impl *impl, const lctx_case *const *cases, size_t n,
                   lctx_case_result *results) {
  if (n == 0)
    return;
  for (size_t i = 0; i < n; i++)
    lctx_case_result_release(&results[i]);
  if (impl->is_plugin)
    run_plugin(impl, cases, n, results);
  else
    run_process(impl, cases, n, results);
}

size_t lctx_impl_restarts(const lctx_impl *impl) {
  return impl->restarts;
}

void lctx_impl_close(lctx_impl *impl) {
  if (!impl)
    return;
  if (!impl->is_plugin && impl->pid > 0 && impl->to_fd >= 0) {
    static const char bye[] = "{\"lctx\": \"bye\"}\n";
    (void)!write(impl->to_fd, bye, sizeof bye - 1);
  }
  stop_peer(impl, NULL, 0);
  free(impl->in);
  free(impl->out);
  free(impl);
}

void lctx_impl_set_process_per_case(lctx_impl *impl, bool on) {
  impl->process_per_case = on && !impl->is_plugin;
}
