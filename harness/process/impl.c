/*
 * impl.c - implementations under test, isolated (see impl.h): the public
 * calls, the options and results, and what a plugin and a program share
 * (impl_private.h). Each kind fills a table of operations (impl_ops):
 * impl_plugin.c runs a plugin in a worker process (whose side is
 * impl_worker.c), impl_process.c a program that speaks the process
 * protocol. Every child is started, fed, watched and stopped through
 * peer.h: a session of its own, no controlling terminal, no descriptor of
 * lctx's but its pipes, killed with what it left when it stops.
 */
#include "impl_private.h"

#include "case_pack.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Static_assert(LCTX_CASE_PACKED_MAX <= LCTX_IMPL_PACKED_MAX,
               "LCTX_IMPL_PACKED_MAX holds every packed case");

void lctx_impl_options_init(lctx_impl_options *o) {
  o->timeout = 5.0;
  o->log_path = NULL;
  o->memory_limit_mb = 1024;
  o->export_extension = false;
  o->stop_on_interrupt = false;
}

//===----------------------------------------------------------------------===//
// Shared by the plugin and the program
//===----------------------------------------------------------------------===//

void impl_peer_started(lctx_impl *impl) {
  impl->served = 0;
  impl->rss_seen = impl->rss_growth = 0;
  impl->rss_seen_at = impl->rss_look_at = 0;
  impl->next_seq = impl->await_seq = 1;
  impl->line_scanned = 0;
}

void impl_stop(lctx_impl *impl, char *why, size_t cap) {
  lctx_buf how;
  if (why && cap > 0)
    lctx_buf_init(&how, why, cap);
  lctx_peer_stop(&impl->peer, IMPL_STOP_GRACE, why && cap > 0 ? &how : NULL);
  impl->line_scanned = 0;
}

int impl_refuse(lctx_impl *impl, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(impl->peer.bad, sizeof impl->peer.bad, fmt, ap);
  va_end(ap);
  return -1;
}

static void printable(char *s) {
  for (char *p = s; *p; p++) {
    if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
      *p = '?';
  }
}

void impl_sanitize_info(lctx_impl_info *info) {
  printable(info->name);
  printable(info->version);
}

void impl_fail_case(lctx_case_result *r, lctx_result_status status,
                    const char *why) {
  r->status = status;
  r->outcome_count = 0;
  r->text_length = 0;
  snprintf(r->detail, sizeof r->detail, "%s", why);
}

bool impl_result_add(lctx_case_result *r, const lctx_outcome *o) {
  size_t n = o->length < LCTX_OUTCOME_TEXT_MAX ? o->length : 0;
  if (r->outcome_count >= LCTX_CASE_MAX_OPS)
    return false;
  if (n > r->text_capacity - r->text_length) {
    size_t want = r->text_capacity ? 2 * r->text_capacity : 256;
    while (want < r->text_length + n)
      want *= 2;
    char *t = realloc(r->text, want);
    if (!t)
      return false;
    r->text = t;
    r->text_capacity = want;
  }
  lctx_outcome_head_set(&r->outcomes[r->outcome_count++], o, r->text_length);
  if (n > 0)
    memcpy(r->text + r->text_length, o->text, n);
  r->text_length += n;
  return true;
}

void lctx_case_result_release(lctx_case_result *result) {
  free(result->text);
  result->text = NULL;
  result->text_length = result->text_capacity = 0;
  result->outcome_count = 0;
  for (size_t k = 0; k < LCTX_CASE_MAX_OPS; k++) {
    free(result->mlir[k]);
    result->mlir[k] = NULL;
  }
}

char *impl_copy_text(const char *s, size_t n) {
  char *t = malloc(n + 1);
  if (t) {
    memcpy(t, s, n);
    t[n] = '\0';
  }
  return t;
}

bool impl_over_budget(lctx_impl *impl, const lctx_case_result *res) {
  for (size_t k = 0; k < LCTX_CASE_MAX_OPS; k++)
    impl->held += res->mlir[k] ? strlen(res->mlir[k]) : 0;
  return impl->held >= LCTX_IMPL_MODULE_BUDGET;
}

lctx_result_status impl_describe_loss(const lctx_impl *impl, lctx_peer_end r,
                                      double waited, const char *how, char *why,
                                      size_t cap) {
  if (r == LCTX_PEER_TIMEOUT)
    snprintf(why, cap, "no answer within %.1f s (hang)", waited);
  else if (r == LCTX_PEER_MEMORY)
    snprintf(why, cap, "used more than %zu MB of memory",
             impl->peer.memory_limit_mb);
  else if (r == LCTX_PEER_BAD)
    snprintf(why, cap, "%s", impl->peer.bad);
  else if (how[0])
    snprintf(why, cap, "the %s %s", impl->ops->who, how);
  else
    snprintf(why, cap, "the %s closed its output or died", impl->ops->who);
  return r == LCTX_PEER_TIMEOUT ? LCTX_RESULT_TIMEOUT : LCTX_RESULT_CRASH;
}

void impl_rerun_alone(lctx_impl *impl, const lctx_case *c,
                      lctx_case_result *res) {
  char first[256];
  size_t before = res->cases_before;
  snprintf(first, sizeof first, "%s", res->detail);
  impl_stop(impl, NULL, 0);
  lctx_case_result_release(res);
  impl->ops->run_alone(impl, c, res);
  if (res->status == LCTX_RESULT_OK) {
    res->status = LCTX_RESULT_FLAKY;
    res->cases_before = before;
    snprintf(res->detail, sizeof res->detail,
             "failed after %zu cases in one %s (%.150s); alone it answered",
             before, impl->ops->one, first);
  } else {
    res->cases_before = 0;
  }
}

/* Between cases: whether the peer holds more than half its memory limit.
 * /proc is read only as often as the growth seen so far requires: every
 * case while it grows fast, up to every 64 cases when it does not, so
 * that at its largest growth per case yet it cannot pass the half limit by
 * more than a quarter of the limit between two looks. */
static bool over_half(lctx_impl *impl) {
  size_t limit = impl->peer.memory_limit_mb;
  if (limit == 0 || !impl_running(impl) || impl->served < impl->rss_look_at)
    return false;
  double half = (double)(limit / 2) * 1048576.0;
  double rss = lctx_peer_resident(&impl->peer);
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

bool impl_recycle_if_big(lctx_impl *impl) {
  if (!over_half(impl))
    return false;
  impl_stop(impl, NULL, 0);
  impl->recycles++;
  return true;
}

//===----------------------------------------------------------------------===//
// The public calls
//===----------------------------------------------------------------------===//

/* A new implementation of kind `ops` without a peer yet; NULL when out of
 * memory. A peer that stops reading must not kill us: SIGPIPE is ignored
 * from here on. */
static lctx_impl *impl_new(const impl_ops *ops, const lctx_impl_options *o,
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
  impl->ops = ops;
  impl->timeout = o->timeout;
  lctx_peer_init(&impl->peer);
  impl->peer.memory_limit_mb = o->memory_limit_mb;
  impl->peer.stop_on_interrupt = o->stop_on_interrupt;
  snprintf(impl->log_path, sizeof impl->log_path, "%s",
           o->log_path ? o->log_path : "/dev/null");
  impl->export_extension = o->export_extension;
  snprintf(impl->info.kind, sizeof impl->info.kind, "%s", ops->kind);
  return impl;
}

lctx_impl *lctx_impl_open_plugin(const char *path, const lctx_impl_options *o,
                                 lctx_buf *error) {
  lctx_impl *impl = impl_new(&lctx_impl_plugin_ops, o, error);
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
    lctx_impl_close(impl);
    return NULL;
  }
  if (!impl->ops->start(impl, error)) {
    if (error->length == 0)
      lctx_buf_append_cstr(error, "cannot start the plugin worker");
    lctx_impl_close(impl);
    return NULL;
  }
  return impl;
}

lctx_impl *lctx_impl_open_process(const char *command_line,
                                  const lctx_impl_options *o, lctx_buf *error) {
  lctx_impl *impl = impl_new(&lctx_impl_process_ops, o, error);
  if (!impl)
    return NULL;
  if (lctx_split_command(command_line, impl->command_storage,
                         sizeof impl->command_storage, impl->argv,
                         IMPL_MAX_ARGS, error) < 0 ||
      !impl->ops->start(impl, error)) {
    lctx_impl_close(impl);
    return NULL;
  }
  return impl;
}

const lctx_impl_info *lctx_impl_get_info(const lctx_impl *impl) {
  return &impl->info;
}

size_t lctx_impl_pack(const lctx_case *c, uint8_t *out) {
  return lctx_case_pack(c, out);
}

void lctx_impl_start(lctx_impl *impl, const lctx_case *const *cases, size_t n,
                     const lctx_impl_packed *packed) {
  impl->started = NULL;
  if (impl->ops->start_cases && impl_running(impl) && n > 0)
    impl->ops->start_cases(impl, cases, n, packed);
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
  return impl->ops->run(impl, cases, n, results);
}

lctx_result_status lctx_impl_exchange(lctx_impl *impl, const char *line,
                                      unsigned long long id, double timeout,
                                      struct json_t **answer, char *why,
                                      size_t cap) {
  *answer = NULL;
  if (!impl->ops->exchange) {
    snprintf(why, cap, "a plugin does not speak the process protocol");
    return LCTX_RESULT_CRASH;
  }
  return impl->ops->exchange(impl, line, id, timeout, answer, why, cap);
}

const char *lctx_impl_handshake(const lctx_impl *impl) {
  return impl->handshake_text;
}

void lctx_impl_set_process_per_case(lctx_impl *impl, bool on) {
  impl->process_per_case = on; /* a plugin's run does not look */
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
  if (impl->ops->close)
    impl->ops->close(impl);
  lctx_peer_free(&impl->peer);
  free(impl->handshake_text);
  free(impl);
}
