/*
 * sweep_jobs.c - several exporters at once over the cases of a sweep,
 * handed back in plan order (see sweep_jobs.h).
 */
#include "sweep_jobs.h"

#include "escape.h"
#include "sweep_case.h"
#include "sys.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Cases a job may run ahead of the oldest case not yet taken, per job. */
#define AHEAD_PER_JOB 4

typedef enum slot_state { FREE, RUNNING, JUDGED, CUT } slot_state;

/* One case in flight. */
typedef struct slot {
  slot_state state;
  lctx_sweep_exports e;
  lctx_sweep_verdict v[LCTX_SWEEP_CASE_VERDICTS];
  size_t n;
} slot;

typedef struct job job;

/* The jobs of a sweep, from lctx_sweep_jobs_start to lctx_sweep_jobs_end
 * (s->jobs). */
typedef struct pool {
  lctx_sweep *s;
  job *jobs;
  size_t job_count;
  bool go; /* the plan is set: jobs take cases (or the end: no_more) */
  const lctx_sweep_jobs_plan *p;
  const size_t *todo;
  size_t count;
  slot *slots;
  size_t window;
  /* Guarded by `lock`: */
  size_t next_start; /* the next case of `todo` a job starts */
  size_t next_take;  /* the next case the calling thread takes */
  bool no_more;      /* no further case starts (stop, interrupt, the end) */
  size_t live;       /* jobs still taking cases */
  pthread_mutex_t lock;
  pthread_cond_t changed;
} pool;

struct job {
  pool *pool;
  size_t k; /* its exporter: s->x[k] */
  pthread_t thread;
  bool started;
};

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
static bool open_own(pool *pl, size_t k) {
  lctx_sweep *s = pl->s;
  char why[1024] = "";
  if (lctx_sweep_exporter_open(s, &s->x[k], why, sizeof why))
    return true;
  lctx_escaped b;
  pthread_mutex_lock(&pl->lock);
  fprintf(s->err, "%s: job %zu does not run: %s\n", lctx_sweep_who(s), k + 1,
          lctx_esc(&b, why));
  pthread_mutex_unlock(&pl->lock);
  return false;
}

/* Job k > 0, once the plan is set (x[0] open): whether its exporter offers
 * the first one's catalogue (said when not). Called with the lock held. */
static bool same_catalogue(pool *pl, size_t k) {
  lctx_sweep *s = pl->s;
  const char *mine = lctx_impl_handshake(s->x[k].impl);
  const char *first = s->x[0].impl ? lctx_impl_handshake(s->x[0].impl) : NULL;
  if (mine && first && strcmp(mine, first) == 0)
    return true;
  fprintf(s->err,
          "%s: job %zu does not run: its program's handshake "
          "differs from the first one's\n",
          lctx_sweep_who(s), k + 1);
  return false;
}

static void *job_main(void *arg) {
  job *j = arg;
  pool *pl = j->pool;
  lctx_sweep *s = pl->s;
  bool opened = j->k == 0 || open_own(pl, j->k);
  pthread_mutex_lock(&pl->lock);
  while (!pl->go)
    pthread_cond_wait(&pl->changed, &pl->lock);
  opened = opened && !pl->no_more && (j->k == 0 || same_catalogue(pl, j->k));
  while (opened) {
    while (!pl->no_more && pl->next_start < pl->count &&
           pl->next_start >= pl->next_take + pl->window)
      pthread_cond_wait(&pl->changed, &pl->lock);
    if (pl->no_more || pl->next_start >= pl->count)
      break;
    if (pl->p->stop(s)) {
      pl->no_more = true;
      pthread_cond_broadcast(&pl->changed);
      break;
    }
    size_t i = pl->next_start++;
    slot *sl = &pl->slots[i % pl->window];
    sl->state = RUNNING;
    pthread_mutex_unlock(&pl->lock);
    bool whole = run_one(s, pl->p, pl->todo[i], &s->x[j->k], sl);
    pthread_mutex_lock(&pl->lock);
    sl->state = whole ? JUDGED : CUT;
    if (!whole)
      pl->no_more = true;
    pthread_cond_broadcast(&pl->changed);
  }
  if (--pl->live == 0) {
    pl->no_more = true; /* none left to start what remains */
    pthread_cond_broadcast(&pl->changed);
  }
  pthread_mutex_unlock(&pl->lock);
  return NULL;
}

/* The calling thread: takes the judged cases in order; returns how many. */
static size_t take_in_order(pool *pl) {
  size_t taken = 0;
  pthread_mutex_lock(&pl->lock);
  for (; taken < pl->count; taken++) {
    slot *sl = &pl->slots[taken % pl->window];
    while (!(taken < pl->next_start && sl->state != RUNNING) &&
           !(pl->no_more && taken >= pl->next_start))
      pthread_cond_wait(&pl->changed, &pl->lock);
    if (taken >= pl->next_start || sl->state == CUT)
      break;
    pthread_mutex_unlock(&pl->lock);
    pl->p->take(pl->s, pl->todo[taken], &sl->e, sl->v, sl->n);
    lctx_sweep_exports_release(&sl->e);
    pthread_mutex_lock(&pl->lock);
    sl->state = FREE;
    pl->next_take = taken + 1;
    pthread_cond_broadcast(&pl->changed);
  }
  pl->no_more = true;
  pthread_cond_broadcast(&pl->changed);
  pthread_mutex_unlock(&pl->lock);
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

/* A job's thread; false when it could not be made. */
static bool start_job(pool *pl, size_t k) {
  job *j = &pl->jobs[k];
  *j = (job){.pool = pl, .k = k};
  j->started = pthread_create(&j->thread, NULL, job_main, j) == 0;
  pthread_mutex_lock(&pl->lock);
  if (!j->started && --pl->live == 0)
    pl->no_more = true;
  pthread_mutex_unlock(&pl->lock);
  return j->started;
}

void lctx_sweep_jobs_start(lctx_sweep *s) {
  if (s->x_count < 2 || s->jobs)
    return;
  pool *pl = calloc(1, sizeof *pl);
  if (pl) {
    pl->window = AHEAD_PER_JOB * s->x_count;
    pl->slots = calloc(pl->window, sizeof *pl->slots);
    pl->jobs = calloc(s->x_count, sizeof *pl->jobs);
  }
  if (!pl || !pl->slots || !pl->jobs) {
    if (pl) {
      free(pl->slots);
      free(pl->jobs);
    }
    free(pl);
    return;
  }
  pl->s = s;
  pl->job_count = pl->live = s->x_count;
  pthread_mutex_init(&pl->lock, NULL);
  pthread_cond_init(&pl->changed, NULL);
  s->jobs = pl;
  /* Job 0's exporter is x[0] (lctx_sweep_open); its thread comes with the
   * plan. */
  for (size_t k = 1; k < pl->job_count; k++)
    start_job(pl, k);
}

void lctx_sweep_jobs_end(lctx_sweep *s) {
  pool *pl = s->jobs;
  if (!pl)
    return;
  pthread_mutex_lock(&pl->lock);
  pl->go = pl->no_more = true;
  pthread_cond_broadcast(&pl->changed);
  pthread_mutex_unlock(&pl->lock);
  for (size_t k = 0; k < pl->job_count; k++) {
    if (pl->jobs[k].started)
      pthread_join(pl->jobs[k].thread, NULL);
  }
  /* Judged after the first case not taken: dropped (a resumed run does
   * them again). */
  for (size_t i = 0; i < pl->window; i++) {
    if (pl->slots[i].state != FREE)
      lctx_sweep_exports_release(&pl->slots[i].e);
  }
  pthread_cond_destroy(&pl->changed);
  pthread_mutex_destroy(&pl->lock);
  free(pl->slots);
  free(pl->jobs);
  free(pl);
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
  start_job(pl, 0);
  pthread_mutex_lock(&pl->lock);
  pl->p = p;
  pl->todo = todo;
  pl->count = n;
  pl->go = true;
  pthread_cond_broadcast(&pl->changed);
  bool none = pl->live == 0;
  pthread_mutex_unlock(&pl->lock);
  size_t taken = none ? 0 : take_in_order(pl);
  lctx_sweep_jobs_end(s);
  s->parallel = false;
  if (none) /* no thread: one job here */
    return run_alone(s, todo, n, p);
  return taken;
}
