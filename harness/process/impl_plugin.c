/*
 * impl_plugin.c - a C plugin under test, lctx's side (see impl.h,
 * impl_worker.h for the records, impl_worker.c for the worker).
 *
 * The worker is a peer (peer.h) whose body is impl_worker.c's: lctx queues
 * the cases, packed, in the memory it shares with the worker (the request
 * area) and sends where each is, numbered; the worker answers with result
 * records that carry the number. Every record is checked against its
 * limits as soon as its header arrives, so that what is buffered stays
 * bounded whatever the worker claims. When the worker dies or hangs, the
 * results in its pipe and those it staged are taken, and only the case it
 * was lost in is marked; a case that failed after others in one worker is
 * run again alone (impl_rerun_alone).
 */
#define _GNU_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include "impl_private.h"

#include "escape.h"
#include "impl_worker.h"
#include "sys.h"

#include "case_pack.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

/* The worker's side of the peer: the plugin served in the child. */
static void worker_body(void *user, int in_fd, int out_fd) {
  lctx_impl *impl = user;
  lctx_impl_worker(impl->path, in_fd, out_fd, impl->shared);
}

/* Starts a worker with a fresh stage; false with why in `error`. The
 * plugin's prints must not corrupt lctx's output: its stdout and stderr go
 * to the log. */
static bool start_worker(lctx_impl *impl, lctx_buf *error) {
  if (!new_shared(impl)) {
    lctx_buf_append_cstr(error, "cannot map the worker's stage: ");
    lctx_buf_append_cstr(error, strerror(errno));
    return false;
  }
  /* Absolute: the worker runs in a working directory of its own. */
  char real[PATH_MAX];
  if (impl->path[0] != '/' && realpath(impl->path, real))
    snprintf(impl->path, sizeof impl->path, "%s", real);
  lctx_peer_spec spec = {.body = worker_body,
                         .user = impl,
                         .pipes = true,
                         .log = impl->log_path,
                         .isolate = true,
                         .log_cap = LCTX_PEER_LOG_CAP,
                         /* fewer wake-ups per batch (may be refused) */
                         .pipe_size = 1u << 20};
  if (!lctx_peer_start(&impl->peer, &spec, error))
    return false;
  impl_peer_started(impl);
  return true;
}

/* The u32 at `at` of the read buffer; false while it has not arrived. */
static bool peek_u32(const lctx_impl *impl, size_t at, uint32_t *v) {
  if (impl->peer.in_length < at + 4)
    return false;
  memcpy(v, lctx_peer_input(&impl->peer) + at, 4);
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
    return impl_refuse(impl,
                       "protocol error: record of %u bytes claimed, over the "
                       "limit of %u (%s)",
                       n, max, what);
  if (impl->peer.in_length < *at + 4 + n)
    return 0;
  *at += 4 + n;
  return 1;
}

/* Reads a text checked by peek_text at `*at`. */
static void take_text(const lctx_impl *impl, size_t *at, const char **s,
                      uint32_t *n) {
  memcpy(n, lctx_peer_input(&impl->peer) + *at, 4);
  *s = (const char *)lctx_peer_input(&impl->peer) + *at + 4;
  *at += 4 + *n;
}

/* The info record: complete (its size in impl->ready), incomplete, or
 * refused. */
static int want_info(void *user) {
  lctx_impl *impl = user;
  uint32_t v, status;
  size_t at = 8;
  int t;
  if (!peek_u32(impl, 0, &v))
    return 0;
  if (v != INFO_MAGIC)
    return impl_refuse(impl, "protocol error: the worker's first record is not "
                             "its table (did the plugin write into its pipe?)");
  if (!peek_u32(impl, 4, &status))
    return 0;
  /* status 0: name, version, operations; otherwise the error. */
  if ((t = peek_text(impl, &at, INFO_TEXT_MAX, "a text of the table")) <= 0)
    return t;
  if (status == 0) {
    if ((t = peek_text(impl, &at, INFO_TEXT_MAX, "a text of the table")) <= 0)
      return t;
    if (impl->peer.in_length < at + 4)
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
static int want_result(void *user) {
  lctx_impl *impl = user;
  uint32_t v, status, count;
  if (!peek_u32(impl, 0, &v))
    return 0;
  if (v != RESULT_MAGIC)
    return impl_refuse(impl,
                       "protocol error: bytes that are not a result record "
                       "(did the plugin write into the worker's pipe?)");
  if (!peek_u32(impl, 4, &v))
    return 0;
  impl->stale = impl->pass_over_stale && v < impl->await_seq;
  if (v != impl->await_seq && !impl->stale)
    return impl_refuse(
        impl, "protocol error: the result of case #%u where #%u was due", v,
        impl->await_seq);
  if (!peek_u32(impl, 8, &status) || !peek_u32(impl, 12, &count))
    return 0;
  if (status > 1 || count > LCTX_CASE_MAX_OPS ||
      (!impl->stale && count != (status == 0 ? impl->await_ops : 0)))
    return impl_refuse(impl,
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
  double wait = impl->timeout + 5;
  lctx_peer_end r =
      lctx_peer_pump(&impl->peer, lctx_sys_now() + wait, want_info, impl);
  if (r != LCTX_PEER_DONE) {
    char how[128] = "", why[300];
    impl_stop(impl, how, sizeof how);
    impl_describe_loss(impl, r, wait, how, why, sizeof why);
    lctx_buf_append_cstr(error, "while loading the plugin: ");
    lctx_buf_append_cstr(error, why);
    return false;
  }
  size_t at = 8;
  uint32_t status, n;
  const char *s;
  memcpy(&status, lctx_peer_input(&impl->peer) + 4, 4);
  if (status != 0) {
    take_text(impl, &at, &s, &n);
    lctx_escape_append(error, s, n);
    impl_stop(impl, NULL, 0);
    return false;
  }
  take_text(impl, &at, &s, &n);
  snprintf(impl->info.name, sizeof impl->info.name, "%.*s", (int)n, s);
  take_text(impl, &at, &s, &n);
  snprintf(impl->info.version, sizeof impl->info.version, "%.*s", (int)n, s);
  uint32_t ops;
  memcpy(&ops, lctx_peer_input(&impl->peer) + at, 4);
  lctx_peer_consume(&impl->peer, impl->ready);
  impl_sanitize_info(&impl->info);
  impl->info.operations = 0;
  for (int k = 0; k < LCTX_OP_KIND_COUNT; k++) {
    if (ops & (1u << k))
      impl->info.operations |= 1u << k;
  }
  return true;
}

/* Starts a worker and reads its table (impl_ops.start). */
static bool start_plugin(lctx_impl *impl, lctx_buf *error) {
  if (start_worker(impl, error) && read_info(impl, error))
    return true;
  impl_stop(impl, NULL, 0);
  return false;
}

/* Reads outcome `k` (its text and module at `*at`) into `res`; false with
 * the case marked when the outcome is not one. */
static bool take_outcome(lctx_impl *impl, size_t *at, uint32_t k,
                         lctx_case_result *res) {
  int32_t head[4];
  memcpy(head, lctx_peer_input(&impl->peer) + *at, sizeof head);
  *at += 16;
  const char *s, *m;
  uint32_t len, mlen;
  take_text(impl, at, &s, &len);
  take_text(impl, at, &m, &mlen);
  const char *why;
  char detail[128];
  lctx_outcome o;
  const char *nul = memchr(s, '\0', len);
  const char *mnul = memchr(m, '\0', mlen);
  if (nul || mnul) {
    snprintf(detail, sizeof detail, "the %s holds a NUL byte at offset %zu",
             nul ? "outcome text" : "module",
             nul ? (size_t)(nul - s) : (size_t)(mnul - m));
    impl_fail_case(res, LCTX_RESULT_CRASH, detail);
    return false;
  }
  if (!lctx_outcome_from_impl(head[0], head[1], head[2], head[3], s, len, &o,
                              &why)) {
    impl_fail_case(res, LCTX_RESULT_CRASH, why);
    return false;
  }
  if (!impl_result_add(res, &o)) {
    impl_fail_case(res, LCTX_RESULT_CRASH, "out of memory for its outcomes");
    return false;
  }
  if (mlen > 0)
    res->mlir[k] = impl_copy_text(m, mlen);
  return true;
}

/* Reads the complete, checked result record at the start of the buffer
 * into `res` and consumes it. */
static void take_result(lctx_impl *impl, lctx_case_result *res) {
  uint32_t status, count;
  memcpy(&status, lctx_peer_input(&impl->peer) + 8, 4);
  memcpy(&count, lctx_peer_input(&impl->peer) + 12, 4);
  res->status = LCTX_RESULT_OK;
  res->detail[0] = '\0';
  res->cases_before = impl->served;
  res->outcome_count = 0;
  res->text_length = 0;
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
    impl_fail_case(res, LCTX_RESULT_CRASH, why);
  }
  lctx_peer_consume(&impl->peer, impl->ready);
  impl->served++;
}

/* Queues cases[from..n) for the worker, packed (lctx_case_pack), numbered
 * from impl->next_seq; false when out of memory. */
static bool queue_cases(lctx_impl *impl, const lctx_case *const *cases,
                        size_t from, size_t n, const lctx_impl_packed *pk) {
  lctx_peer *p = &impl->peer;
  p->out_length = p->out_sent = 0;
  uint8_t *area = impl->shared ? request_area(impl->shared) : NULL;
  size_t used = 0;       /* of the request area */
  uint8_t *spill = NULL; /* a case packed behind its header */
  bool ok = true;
  for (size_t i = from; i < n && ok; i++) {
    uint32_t mark = impl->careful ? CAREFUL : 0;
    if (area && REQUEST_AREA - used >= LCTX_CASE_PACKED_MAX) {
      /* In the request area: the pipe carries where. */
      size_t len = pk ? pk->offset[i + 1] - pk->offset[i] : 0;
      if (pk && len <= LCTX_CASE_PACKED_MAX)
        memcpy(area + used, pk->bytes + pk->offset[i], len);
      else
        len = lctx_case_pack(cases[i], area + used);
      uint32_t head[3] = {(uint32_t)len | mark | IN_SHARED, impl->next_seq++,
                          (uint32_t)used};
      ok = lctx_peer_queue(p, head, sizeof head);
      used += (len + 7) & ~(size_t)7;
      continue;
    }
    /* Packed behind its header, in the pipe. */
    if (!spill && !(spill = malloc(8 + LCTX_CASE_PACKED_MAX)))
      return false;
    size_t len = lctx_case_pack(cases[i], spill + 8);
    uint32_t head[2] = {(uint32_t)len | mark, impl->next_seq++};
    memcpy(spill, head, sizeof head);
    ok = lctx_peer_queue(p, spill, 8 + len);
  }
  free(spill);
  return ok;
}

/* The awaited case's time ran out in lctx_peer_pump: a later deadline when the
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
 * `res`; returns how the wait ended (LCTX_PEER_DONE: `res` is filled). */
static lctx_peer_end await_result(lctx_impl *impl, const lctx_case *c,
                                  lctx_case_result *res) {
  impl->await_ops = c->op_count;
  /* Most results are in the buffer already: no clock read for them. */
  int w = want_result(impl);
  lctx_peer_end r;
  if (w != 0) {
    r = w > 0 ? LCTX_PEER_DONE : LCTX_PEER_BAD;
    if (r == LCTX_PEER_DONE) {
      take_result(impl, res);
      impl->await_seq++;
    }
    return r;
  }
  double deadline = lctx_sys_now() + impl->timeout;
  uint32_t seen = impl->await_seq - 1;
  while ((r = lctx_peer_pump(&impl->peer, deadline, want_result, impl)) ==
         LCTX_PEER_TIMEOUT) {
    double later = later_deadline(impl, &seen);
    if (later <= lctx_sys_now())
      break;
    deadline = later;
  }
  if (r == LCTX_PEER_DONE) {
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
      lctx_peer_consume(&impl->peer, impl->ready);
      continue;
    }
    lctx_case_result_release(&results[next]);
    take_result(impl, &results[next]);
    impl->await_seq++;
    *spent = impl_over_budget(impl, &results[next++]) && next < n;
  }
  impl->pass_over_stale = false;
  return next;
}

/* Puts `n` bytes in the (empty) read buffer of `p`. */
static bool load_input(lctx_peer *p, const uint8_t *data, size_t n) {
  if (n > p->in_capacity) {
    uint8_t *in = realloc(p->in, n);
    if (!in)
      return false;
    p->in = in;
    p->in_capacity = n;
  }
  memcpy(p->in, data, n);
  p->in_length = n;
  return true;
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
  lctx_peer *p = &impl->peer;
  p->in_off = p->in_length = 0;
  if (staged > SHARED_DATA || !load_input(p, sh->data, (size_t)staged))
    return next;
  next = take_buffered(impl, cases, next, n, results, spent);
  p->in_off = p->in_length = 0;
  return next;
}

/* The worker did not answer case cases[next] (how the wait ended: `r`): takes
 * the results already in its pipe, stops it (with its group), takes the
 * results it staged (neither after output that was refused) and marks the
 * first case left without one. Returns that case, `n` when every case has
 * its result, or the case after one that spent the budget (*spent set:
 * nothing marked). */
static size_t lose_worker(lctx_impl *impl, lctx_peer_end r,
                          const lctx_case *const *cases, size_t next, size_t n,
                          lctx_case_result *results, bool *spent) {
  char why[300], how[128] = "";
  *spent = false;
  if (r != LCTX_PEER_BAD) {
    lctx_peer_drain(&impl->peer);
    next = take_buffered(impl, cases, next, n, results, spent);
  }
  impl_stop(impl, how, sizeof how);
  impl->restarts++;
  if (r != LCTX_PEER_BAD && !*spent)
    next = salvage_results(impl, cases, next, n, results, spent);
  if (next < n && !*spent) {
    lctx_case_result *res = &results[next];
    lctx_result_status st =
        impl_describe_loss(impl, r, impl->timeout, how, why, sizeof why);
    impl_fail_case(res, st, why);
    res->cases_before = impl->served;
  }
  return next;
}

/* Starts a worker; false (with the cases from `next` on marked) when it
 * cannot start. */
static bool ensure_worker(lctx_impl *impl, lctx_case_result *results,
                          size_t next, size_t n) {
  if (impl_running(impl))
    return true;
  char why[256] = "";
  lctx_buf e;
  lctx_buf_init(&e, why, sizeof why);
  if (start_plugin(impl, &e))
    return true;
  for (; next < n; next++)
    impl_fail_case(&results[next], LCTX_RESULT_CRASH,
                   why[0] ? why : "cannot restart the plugin worker");
  return false;
}

/* Runs `c` alone in a fresh worker (impl_ops.run_alone). */
static void run_alone(lctx_impl *impl, const lctx_case *c,
                      lctx_case_result *res) {
  if (!ensure_worker(impl, res, 0, 1))
    return;
  queue_cases(impl, &c, 0, 1, NULL);
  lctx_peer_end r = await_result(impl, c, res);
  bool spent;
  if (r != LCTX_PEER_DONE)
    lose_worker(impl, r, &c, 0, 1, res, &spent);
}

/* lctx_impl_run (impl_ops.run). */
static size_t run_plugin(lctx_impl *impl, const lctx_case *const *cases,
                         size_t n, lctx_case_result *results) {
  size_t next = 0; /* first case without a result */
  /* What lctx_impl_start queued, to the worker that still runs. */
  bool queued =
      impl->started == cases && impl->started_n == n && impl_running(impl);
  if (impl->started && !queued)
    impl_stop(impl, NULL, 0); /* it serves other cases first */
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
      lctx_peer_end r = await_result(impl, cases[next], &results[next]);
      bool lost = r != LCTX_PEER_DONE;
      if (lost && r == LCTX_PEER_BAD && !impl->careful) {
        /* Bytes that are no record came while results were staged: they
         * were written during this case or one after it. Which one is
         * known only when each result is written as its case ends (as
         * every case is from here on), so these cases run again so. */
        impl_stop(impl, NULL, 0);
        impl->careful = true;
        break;
      }
      if (lost) {
        bool spent;
        next = lose_worker(impl, r, cases, next, n, results, &spent);
        if (spent || next == n)
          return next;
        if (results[next].cases_before > 0)
          impl_rerun_alone(impl, cases[next], &results[next]);
      }
      if (impl_over_budget(impl, &results[next++]) && next < n) {
        impl_stop(impl, NULL, 0); /* it holds cases this call gives back */
        return next;
      }
      if (lost || impl_recycle_if_big(impl))
        break; /* go on with the next case, in a fresh worker */
    }
  }
  return n;
}

/* lctx_impl_start (impl_ops.start_cases): the cases queued and written as
 * far as the pipe takes them now. */
static void start_cases(lctx_impl *impl, const lctx_case *const *cases,
                        size_t n, const lctx_impl_packed *packed) {
  impl->careful = false;
  if (!queue_cases(impl, cases, 0, n, packed)) {
    impl->peer.out_length = impl->peer.out_sent = 0; /* the run queues them */
    return;
  }
  (void)lctx_peer_flush(&impl->peer);
  impl->started = cases;
  impl->started_n = n;
}

/* impl_ops.close. */
static void close_plugin(lctx_impl *impl) {
  impl_stop(impl, NULL, 0);
  drop_shared(impl);
}

const impl_ops lctx_impl_plugin_ops = {
    .kind = "plugin",
    .who = "plugin worker",
    .one = "worker",
    .start = start_plugin,
    .run = run_plugin,
    .run_alone = run_alone,
    .start_cases = start_cases,
    .exchange = NULL,
    .close = close_plugin,
};
