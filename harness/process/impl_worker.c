/*
 * impl_worker.c - the plugin worker, in the child a plugin is run in (see
 * impl_worker.h for its records, impl_plugin.c for lctx's side).
 *
 * It loads the library with dlopen and serves cases sent to it over a pipe
 * in their packed form (case_pack.h), each with a sequence number,
 * answering with binary records that carry a mark and that number. It
 * stages its records in memory shared with lctx and writes them to its
 * pipe many at a time; when it dies or hangs, lctx takes what it staged,
 * so that only the case it was lost in is marked.
 */
#include "impl_worker.h"
#include "sys.h"

#include "case_pack.h"
#include "lctx/impl_abi.h"
#include "plugin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The worker's input buffer: one read() brings many cases. */
#define WORKER_INPUT (1u << 20)

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

/* What the worker works in, one case at a time (heap: large). */
typedef struct worker {
  const lctx_impl_table *table;
  pid_t pid; /* the worker's own */
  int out_fd;
  lctx_sys_reader in;
  uint8_t bytes[LCTX_CASE_PACKED_MAX]; /* the case as it came */
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
  lctx_impl_status st = lctx_case_impl_run_op(w->table, session, &w->c, op, &o,
                                              w->mlir, &mlir_length);
  if (st != 0) {
    snprintf(detail, cap, "%s returned status %d on operation %zu",
             lctx_op_kind_name(op->kind), st, i);
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
           lctx_case_unpack(w->bytes, size, &w->c);
  uint32_t at;
  return worker_read(w, &at, sizeof at) && at <= REQUEST_AREA &&
         size <= REQUEST_AREA - at &&
         lctx_case_unpack(request_area(w->shared) + at, size, &w->c);
}

_Noreturn void lctx_impl_worker(const char *path, int in_fd, int out_fd,
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
