/*
 * jobs.c - the pool of worker threads (see jobs.h): a ring of the items
 * out, [head, tail) in the order submitted, those before `next_start`
 * started; one lock and one condition for every change.
 */
#include "jobs.h"

#include "sys.h"

#include <pthread.h>
#include <stdlib.h>

typedef enum entry_state { QUEUED, RUNNING, DONE, CUT, NOT_RUN } entry_state;

typedef struct entry {
  void *item;
  entry_state state;
} entry;

typedef struct worker {
  lctx_jobs *pool;
  size_t k;
  pthread_t thread;
} worker;

struct lctx_jobs {
  lctx_jobs_config c;
  worker *workers;
  size_t threads; /* workers with a thread (the first `threads`) */
  entry *ring;    /* c.window entries */
  pthread_mutex_t lock;
  pthread_cond_t changed; /* any change below; broadcast */
  size_t head, next_start, tail;
  size_t opened, open_failed; /* workers through with `open`, and failed */
  size_t live;                /* workers that may still take an item */
  bool no_more;               /* no further item starts */
  bool closing;               /* the workers end once the queue is empty */
};

/* Whether worker k may start the next item: waits, with the lock held,
 * for an item or the end. */
static bool wait_for_item(lctx_jobs *j) {
  while (j->next_start == j->tail && !j->closing && !j->no_more)
    pthread_cond_wait(&j->changed, &j->lock);
  return !j->no_more && j->next_start < j->tail;
}

/* Whether no item starts any more: the caller's stop or an interrupt
 * (then said to every waiter). With the lock held. */
static bool stopping(lctx_jobs *j) {
  if ((j->c.stop && j->c.stop(j->c.user)) ||
      (j->c.stop_on_interrupt && lctx_sys_interrupted())) {
    j->no_more = true;
    pthread_cond_broadcast(&j->changed);
  }
  return j->no_more;
}

/* Runs items until the end; with the lock held, returns with it held. */
static void take_items(lctx_jobs *j, size_t k) {
  while (wait_for_item(j) && !stopping(j)) {
    entry *e = &j->ring[j->next_start++ % j->c.window];
    e->state = RUNNING;
    pthread_mutex_unlock(&j->lock);
    bool whole = j->c.run(j->c.user, k, e->item);
    pthread_mutex_lock(&j->lock);
    e->state = whole ? DONE : CUT;
    if (!whole)
      j->no_more = true;
    pthread_cond_broadcast(&j->changed);
  }
}

static void *worker_main(void *arg) {
  worker *w = arg;
  lctx_jobs *j = w->pool;
  bool ok = !j->c.open || j->c.open(j->c.user, w->k);
  pthread_mutex_lock(&j->lock);
  j->opened++;
  j->open_failed += !ok;
  pthread_cond_broadcast(&j->changed);
  if (ok && j->c.ready) {
    ok = wait_for_item(j);
    if (ok) { /* called without the lock: it may take long */
      pthread_mutex_unlock(&j->lock);
      ok = j->c.ready(j->c.user, w->k);
      pthread_mutex_lock(&j->lock);
    }
  }
  if (ok)
    take_items(j, w->k);
  if (--j->live == 0)
    j->no_more = true; /* none left to start what is queued */
  pthread_cond_broadcast(&j->changed);
  pthread_mutex_unlock(&j->lock);
  if (j->c.close)
    j->c.close(j->c.user, w->k);
  return NULL;
}

lctx_jobs *lctx_jobs_start(const lctx_jobs_config *c, lctx_buf *error) {
  lctx_jobs *j = calloc(1, sizeof *j);
  size_t n = c->workers < 1               ? 1
             : c->workers > LCTX_JOBS_MAX ? LCTX_JOBS_MAX
                                          : c->workers;
  if (j) {
    j->c = *c;
    j->c.workers = n;
    if (j->c.window == 0)
      j->c.window = 2 * n + 1;
    j->ring = calloc(j->c.window, sizeof *j->ring);
    j->workers = calloc(n, sizeof *j->workers);
  }
  if (!j || !j->ring || !j->workers) {
    if (j) {
      free(j->ring);
      free(j->workers);
    }
    free(j);
    lctx_buf_append_cstr(error, "cannot start the jobs: out of memory");
    return NULL;
  }
  pthread_mutex_init(&j->lock, NULL);
  pthread_cond_init(&j->changed, NULL);
  pthread_mutex_lock(&j->lock); /* a worker that fails at once waits */
  for (size_t k = 0; k < n; k++) {
    j->workers[j->threads] = (worker){.pool = j, .k = j->threads};
    if (pthread_create(&j->workers[j->threads].thread, NULL, worker_main,
                       &j->workers[j->threads]) != 0)
      break;
    j->threads++;
    j->live++;
  }
  pthread_mutex_unlock(&j->lock);
  if (j->threads == 0) {
    lctx_jobs_end(j);
    lctx_buf_append_cstr(error, "cannot start the jobs: no thread");
    return NULL;
  }
  return j;
}

size_t lctx_jobs_threads(const lctx_jobs *j) {
  return j->threads;
}

size_t lctx_jobs_wait_open(lctx_jobs *j) {
  pthread_mutex_lock(&j->lock);
  while (j->opened < j->threads)
    pthread_cond_wait(&j->changed, &j->lock);
  size_t failed = j->open_failed;
  pthread_mutex_unlock(&j->lock);
  return failed;
}

bool lctx_jobs_submit(lctx_jobs *j, void *item) {
  pthread_mutex_lock(&j->lock);
  bool room = j->tail - j->head < j->c.window;
  if (room) {
    j->ring[j->tail++ % j->c.window] = (entry){item, QUEUED};
    pthread_cond_broadcast(&j->changed);
  }
  pthread_mutex_unlock(&j->lock);
  return room;
}

void *lctx_jobs_next(lctx_jobs *j, bool wait, lctx_jobs_state *state) {
  void *item = NULL;
  pthread_mutex_lock(&j->lock);
  if (j->head < j->tail) {
    entry *e = &j->ring[j->head % j->c.window];
    for (;;) {
      if (e->state == QUEUED && j->no_more)
        e->state = NOT_RUN; /* no worker starts it any more */
      if ((e->state != QUEUED && e->state != RUNNING) || !wait)
        break;
      pthread_cond_wait(&j->changed, &j->lock);
    }
    if (e->state != QUEUED && e->state != RUNNING) {
      item = e->item;
      *state = e->state == DONE  ? LCTX_JOBS_DONE
               : e->state == CUT ? LCTX_JOBS_CUT
                                 : LCTX_JOBS_NOT_RUN;
      if (j->next_start == j->head)
        j->next_start++; /* not run: never to be started */
      j->head++;
      pthread_cond_broadcast(&j->changed);
    }
  }
  pthread_mutex_unlock(&j->lock);
  return item;
}

void lctx_jobs_stop(lctx_jobs *j) {
  pthread_mutex_lock(&j->lock);
  j->no_more = true;
  pthread_cond_broadcast(&j->changed);
  pthread_mutex_unlock(&j->lock);
}

void lctx_jobs_end(lctx_jobs *j) {
  if (!j)
    return;
  pthread_mutex_lock(&j->lock);
  j->closing = true;
  pthread_cond_broadcast(&j->changed);
  pthread_mutex_unlock(&j->lock);
  for (size_t k = 0; k < j->threads; k++)
    pthread_join(j->workers[k].thread, NULL);
  pthread_cond_destroy(&j->changed);
  pthread_mutex_destroy(&j->lock);
  free(j->ring);
  free(j->workers);
  free(j);
}
