/*
 * impl_private.h - what the parts of the runner of implementations share
 * (impl.c, impl_plugin.c, impl_process.c): the struct, the table of
 * operations each kind of implementation fills, and the code both use.
 * Not for use outside them.
 */
#ifndef LCTX_DRIVE_IMPL_PRIVATE_H
#define LCTX_DRIVE_IMPL_PRIVATE_H

#include "impl.h"
#include "peer.h"

#include <stdint.h>

/* The most words of a program's command line. */
#define IMPL_MAX_ARGS 64
/* How long a peer that is stopped gets to end by itself (on EOF). */
#define IMPL_STOP_GRACE 0.1

struct shared_results;

/* What a kind of implementation (plugin, process) does its own way. */
typedef struct impl_ops {
  const char *kind; /* lctx_impl_info.kind */
  const char *who;  /* its peer, in messages: "plugin worker", "program" */
  const char *one;  /* where cases are served together: "worker" */
  /* Starts a peer and reads its table (its handshake); false with why in
   * `error`, the peer stopped. */
  bool (*start)(lctx_impl *impl, lctx_buf *error);
  /* lctx_impl_run, once the results are released. */
  size_t (*run)(lctx_impl *impl, const lctx_case *const *cases, size_t n,
                lctx_case_result *results);
  /* Runs `c` alone in a fresh peer: its result, or its case marked (the
   * peer stopped) when the peer fails it. */
  void (*run_alone)(lctx_impl *impl, const lctx_case *c, lctx_case_result *res);
  /* lctx_impl_start (NULL: nothing to hand ahead). */
  void (*start_cases)(lctx_impl *impl, const lctx_case *const *cases, size_t n,
                      const lctx_impl_packed *packed);
  /* lctx_impl_exchange (NULL: not spoken). */
  lctx_result_status (*exchange)(lctx_impl *impl, const char *line,
                                 unsigned long long id, double timeout,
                                 struct json_t **answer, char *why, size_t cap);
  /* Before the peer is stopped for good (NULL: nothing). */
  void (*close)(lctx_impl *impl);
} impl_ops;

extern const impl_ops lctx_impl_plugin_ops;
extern const impl_ops lctx_impl_process_ops;

struct lctx_impl {
  const impl_ops *ops;
  lctx_impl_info info;
  double timeout;
  size_t restarts, recycles;
  /* Bytes of modules handed to results in this lctx_impl_run. */
  size_t held;
  bool process_per_case;
  /* Plugin: the library. Process: the command line split. */
  char path[4096];
  char command_storage[8192];
  char *argv[IMPL_MAX_ARGS];
  /* Where the peer's stdout (plugin) and stderr go. */
  char log_path[4096];
  /* The worker or program (its memory limit and interrupt flag set once). */
  lctx_peer peer;
  size_t served; /* cases it answered since it started */
  /* Between cases: its resident bytes at the last look, the cases served
   * then, and the number of served cases at which to look next. */
  double rss_seen, rss_growth; /* growth: the most per case seen yet */
  size_t rss_seen_at, rss_look_at;
  /* Plugin: the number the next queued case gets and the number of the
   * result awaited (both from 1 in each worker); the operation count of the
   * awaited case; the size of the complete record at the start of the read
   * buffer. */
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
  /* Whether the export extension is offered and, then, the last handshake
   * line (heap). */
  bool export_extension;
  char *handshake_text;
};

/* Whether a worker or program runs. */
static inline bool impl_running(const lctx_impl *impl) {
  return impl->peer.pid > 0;
}

/* The peer just started: it has served nothing, its counters start anew. */
void impl_peer_started(lctx_impl *impl);

/* Stops the peer (IMPL_STOP_GRACE to end by itself, then its process group
 * and what it left); says how it ended in `why` when it had ended by itself
 * (may be NULL). */
void impl_stop(lctx_impl *impl, char *why, size_t cap);

/* Refuses the peer's output: writes why to impl->peer.bad, returns -1. */
__attribute__((format(printf, 2, 3))) int impl_refuse(lctx_impl *impl,
                                                      const char *fmt, ...);

/* Keeps the name and version printable ASCII: they go into every report. */
void impl_sanitize_info(lctx_impl_info *info);

/* Marks a case: `status`, no outcomes, `why`. */
void impl_fail_case(lctx_case_result *r, lctx_result_status status,
                    const char *why);

/* Adds `o` to the outcomes of `r` (after outcome_count, which it counts);
 * false when out of memory or `r` is full. */
bool impl_result_add(lctx_case_result *r, const lctx_outcome *o);

/* A heap copy of `n` bytes plus a NUL; NULL when out of memory. */
char *impl_copy_text(const char *s, size_t n);

/* Adds the bytes of the modules `res` holds to impl->held; true when the
 * modules of this lctx_impl_run reached LCTX_IMPL_MODULE_BUDGET. */
bool impl_over_budget(lctx_impl *impl, const lctx_case_result *res);

/* Describes why the peer did not answer (`r`, not LCTX_PEER_DONE) after
 * waiting `waited` seconds; `how` says how it ended, if it did. Returns
 * the status the case gets. */
lctx_result_status impl_describe_loss(const lctx_impl *impl, lctx_peer_end r,
                                      double waited, const char *how, char *why,
                                      size_t cap);

/* Case `c` failed (`res`) in a peer that had served other cases: runs it
 * again alone in a fresh peer; FLAKY when it answers then. */
void impl_rerun_alone(lctx_impl *impl, const lctx_case *c,
                      lctx_case_result *res);

/* Between cases: a peer over half its memory limit is stopped (recycled);
 * true when it was. */
bool impl_recycle_if_big(lctx_impl *impl);

#endif /* LCTX_DRIVE_IMPL_PRIVATE_H */
