/*
 * sweep_jobs.c - several exporters at once over the cases of a sweep, on
 * the pool of jobs.h, handed back in plan order (see sweep_jobs.h).
 */
#include "sweep_jobs.h"

#include "escape.h"
#include "jobs.h"
#include "sweep_case.h"
#include "sys.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Cases a job may run ahead of the oldest case not yet taken, per job. */
#define AHEAD_PER_JOB 4

/* One case in flight: the pool's item. */
typedef struct slot {
  size_t index; /* its plan index */
  bool used;    /* a job began it: its exports are to be released */
  lctx_sweep_exports e;
  lctx_sweep_verdict v[LCTX_SWEEP_CASE_VERDICTS];
  size_t n;
} slot;

/* The jobs of a sweep, from lctx_sweep_jobs_start to lctx_sweep_jobs_end
 * (s->jobs). */
typedef struct pool {
  lctx_sweep *s;
  lctx_jobs *jobs;
  const lctx_sweep_jobs_plan *p; /* set before the first case is queued */
  slot *slots;
  size_t window;
  pthread_mutex_t say; /* one job's message at a time */
} pool;

/* Exports and judges `todo[i]` into `sl` through exporter `x`; false when
 * an interrupt cut it short. */
static bool run_one(const lctx_sweep *s, const lctx_sweep_jobs_plan *p,
                    size_t index, lctx_sweep_exporter *x, slot *sl) {
  size_t program = 0;
  lctx_sweep_list l;
  p->plan(s, index, &program, &l);
  lctx_sweep_exports_init(&sl->e, program, &l);
  lctx_sweep_exporter_at(x, index);
  sl->n = lctx_sweep_run_case(s, x, &sl->e, sl->v, LCTX_SWEEP_CASE_VERDICTS);
  return !lctx_sys_interrupted();
}

/* Job k > 0: starts its own exporter; false (said) when it cannot. */
static bool open_own(void *user, size_t k) {
  pool *pl = user;
  lctx_sweep *s = pl->s;
  char why[1024] = "";
  if (k == 0 || lctx_sweep_exporter_open(s, &s->x[k], why, sizeof why))
    return true;
  lctx_escaped b;
  pthread_mutex_lock(&pl->say);
  fprintf(s->err, "%s: job %zu does not run: %s\n", lctx_sweep_who(s), k + 1,
          lctx_esc(&b, why));
  pthread_mutex_unlock(&pl->say);
  return false;
}

/* Job k > 0, once the plan is set (x[0] open): whether its exporter offers
 * the first one's catalogue (said when not). */
static bool same_catalogue(void *user, size_t k) {
  pool *pl = user;
  lctx_sweep *s = pl->s;
  if (k == 0)
    return true;
  const char *mine = lctx_impl_handshake(s->x[k].impl);
  const char *first = s->x[0].impl ? lctx_impl_handshake(s->x[0].impl) : NULL;
  if (mine && first && strcmp(mine, first) == 0)
    return true;
  pthread_mutex_lock(&pl->say);
  fprintf(s->err,
          "%s: job %zu does not run: its program's handshake "
          "differs from the first one's\n",
          lctx_sweep_who(s), k + 1);
  pthread_mutex_unlock(&pl->say);
  return false;
}

static bool run_slot(void *user, size_t k, void *item) {
  pool *pl = user;
  slot *sl = item;
  sl->used = true;
  return run_one(pl->s, pl->p, sl->index, &pl->s->x[k], sl);
}

static bool stop_plan(void *user) {
  pool *pl = user;
  return pl->p->stop(pl->s);
}

/* The calling thread: queues the cases, at most a window ahead, and takes
 * the judged ones in order until one was not judged whole (those after it
 * are dropped: a resumed run does them again); returns how many. */
static size_t take_in_order(pool *pl, const size_t *todo, size_t n) {
  size_t queued = 0, back = 0, taken = 0;
  bool broken = false;
  while (back < queued || (!broken && queued < n)) {
    for (; !broken && queued < n && queued - back < pl->window; queued++) {
      slot *sl = &pl->slots[queued % pl->window];
      sl->index = todo[queued];
      sl->used = false;
      (void)lctx_jobs_submit(pl->jobs, sl); /* room: within the window */
    }
    lctx_jobs_state state;
    slot *sl = lctx_jobs_next(pl->jobs, true, &state);
    back++;
    if (!broken && state == LCTX_JOBS_DONE) {
      pl->p->take(pl->s, sl->index, &sl->e, sl->v, sl->n);
      taken++;
    } else if (!broken) {
      broken = true;
      lctx_jobs_stop(pl->jobs);
    }
    if (sl->used)
      lctx_sweep_exports_release(&sl->e);
  }
  return taken;
}

/* One job, on the calling thread, through x[0]. */
static size_t run_alone(lctx_sweep *s, const size_t *todo, size_t n,
                        const lctx_sweep_jobs_plan *p) {
  slot *sl = calloc(1, sizeof *sl);
  size_t taken = 0;
  for (; sl && taken < n && !p->stop(s); taken++) {
    if (!run_one(s, p, todo[taken], &s->x[0], sl)) {
      lctx_sweep_exports_release(&sl->e);
      break;
    }
    p->take(s, todo[taken], &sl->e, sl->v, sl->n);
    lctx_sweep_exports_release(&sl->e);
  }
  free(sl);
  return taken;
}

static void free_pool(pool *pl) {
  if (!pl)
    return;
  free(pl->slots);
  pthread_mutex_destroy(&pl->say);
  free(pl);
}

void lctx_sweep_jobs_start(lctx_sweep *s) {
  if (s->x_count < 2 || s->jobs)
    return;
  pool *pl = calloc(1, sizeof *pl);
  if (!pl)
    return;
  pthread_mutex_init(&pl->say, NULL);
  pl->s = s;
  pl->window = AHEAD_PER_JOB * s->x_count;
  pl->slots = calloc(pl->window, sizeof *pl->slots);
  /* Job 0's exporter is x[0] (lctx_sweep_open); the others open theirs on
   * their threads now. */
  lctx_jobs_config c = {.workers = s->x_count,
                        .window = pl->window,
                        .user = pl,
                        .open = open_own,
                        .ready = same_catalogue,
                        .run = run_slot,
                        .stop = stop_plan};
  char text[256];
  lctx_buf error;
  lctx_buf_init(&error, text, sizeof text);
  pl->jobs = pl->slots ? lctx_jobs_start(&c, &error) : NULL;
  if (!pl->jobs) { /* no thread: one job, on the calling thread */
    free_pool(pl);
    return;
  }
  s->jobs = pl;
}

void lctx_sweep_jobs_end(lctx_sweep *s) {
  pool *pl = s->jobs;
  if (!pl)
    return;
  lctx_jobs_stop(pl->jobs);
  lctx_jobs_end(pl->jobs); /* their exporters end with their threads */
  free_pool(pl);
  s->jobs = NULL;
}

size_t lctx_sweep_jobs_run(lctx_sweep *s, const size_t *todo, size_t n,
                           const lctx_sweep_jobs_plan *p) {
  if (n > 1)
    lctx_sweep_jobs_start(s);
  pool *pl = s->jobs;
  if (!pl || n <= 1) {
    lctx_sweep_jobs_end(s);
    return run_alone(s, todo, n, p);
  }
  s->parallel = true;
  pl->p = p;
  size_t taken = take_in_order(pl, todo, n);
  lctx_sweep_jobs_end(s);
  s->parallel = false;
  return taken;
}
