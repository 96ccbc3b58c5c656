/*
 * jobs.h - the one pool of worker threads of lctx: check-spec's shares of
 * the domain, conform's batches and the sweep's cases all run on it.
 *
 * Owns the threads, the queue of items and their hand-back in the order
 * they were submitted. N workers each run on a thread of their own from
 * lctx_jobs_start to lctx_jobs_end, so that what a worker starts (an
 * implementation, an exporter, the MLIR judge) lives as long as the worker
 * (where pidfds are missing, a peer dies with the thread that started it:
 * PR_SET_PDEATHSIG, peer_child.c).
 * The caller submits items (its own memory, never copied) in order, at
 * most `window` of them not yet taken back; any worker takes the oldest
 * not started, runs it, and the caller takes the items back in the order
 * it submitted them, each once its worker is through with it, with how it
 * ended. Once a stop comes (lctx_jobs_stop, the `stop` callback, an
 * interrupt with `stop_on_interrupt`, an item cut short) no further item
 * starts: those still queued come back as not run. What an item is and
 * what a worker holds are the caller's; the pool prints nothing.
 *
 * Errors: a function that can fail returns bool (false on failure) or a
 * pointer (NULL on failure) and, when the caller needs the reason, takes
 * `lctx_buf *error` last and writes there one line naming what failed,
 * without a "lctx: " prefix; it never prints. errno is read only in
 * process/sys.c. Only cli/ prints errors and picks exit codes.
 */
#ifndef LCTX_PROCESS_JOBS_H
#define LCTX_PROCESS_JOBS_H

#include "lctx/str.h"

#include <stdbool.h>
#include <stddef.h>

/// The most workers of a pool.
#define LCTX_JOBS_MAX 256

/// How an item taken back ended.
typedef enum lctx_jobs_state {
  LCTX_JOBS_DONE,    ///< its worker ran it through
  LCTX_JOBS_CUT,     ///< its worker's `run` returned false (a stop follows)
  LCTX_JOBS_NOT_RUN, ///< no worker started it (a stop, or none was left)
} lctx_jobs_state;

/// What a pool runs. Every callback but `run` may be NULL; `user` is
/// handed to each. `worker` is 0 to workers - 1, one thread each.
typedef struct lctx_jobs_config {
  size_t workers; ///< 1 to LCTX_JOBS_MAX
  /// The most items submitted and not yet taken back (0: 2 * workers + 1).
  size_t window;
  void *user;
  /// On the worker's thread, first: false when it cannot work (it takes
  /// no item; the caller keeps why in its own state).
  bool (*open)(void *user, size_t worker);
  /// On the worker's thread, once the first item was submitted (or the
  /// pool ends), before it takes one: false when it takes none.
  bool (*ready)(void *user, size_t worker);
  /// Runs `item` on the worker's thread: false when it was cut short (no
  /// further item starts).
  bool (*run)(void *user, size_t worker, void *item);
  /// Before each item starts, on a worker's thread, one worker at a time:
  /// true when no further item should start (a time limit).
  bool (*stop)(void *user);
  /// On the worker's thread, after its last item (whether `open` held).
  void (*close)(void *user, size_t worker);
  /// No item starts once SIGINT or SIGTERM came (lctx_sys_interrupted).
  bool stop_on_interrupt;
} lctx_jobs_config;

typedef struct lctx_jobs lctx_jobs;

/// Starts the workers' threads (each calls `open` at once; this does not
/// wait for them). A thread that cannot be made is a worker fewer. NULL
/// with why in `error` when there is no memory or no thread at all.
lctx_jobs *lctx_jobs_start(const lctx_jobs_config *c, lctx_buf *error);

/// How many workers have a thread.
size_t lctx_jobs_threads(const lctx_jobs *j);

/// Waits until every worker's `open` returned: how many returned false.
size_t lctx_jobs_wait_open(lctx_jobs *j);

/// Queues `item` after those submitted before it (once stopped, it comes
/// back not run): false when `window` items are out (take the oldest back
/// first).
bool lctx_jobs_submit(lctx_jobs *j, void *item);

/// The oldest item submitted and not taken back, with how it ended in
/// `*state`, once no worker holds it (waiting for that when `wait`); NULL
/// when none is out, or (not waiting) while it is queued or running.
void *lctx_jobs_next(lctx_jobs *j, bool wait, lctx_jobs_state *state);

/// No further item starts; those running end as they do.
void lctx_jobs_stop(lctx_jobs *j);

/// Lets the workers run what is queued (unless stopped), then ends them:
/// each calls `close` on its thread; waits for them and frees the pool.
/// Items not taken back are forgotten (they are the caller's). NULL is
/// fine.
void lctx_jobs_end(lctx_jobs *j);

#endif /* LCTX_PROCESS_JOBS_H */
