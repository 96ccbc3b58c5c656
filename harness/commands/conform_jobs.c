/*
 * conform_jobs.c - the jobs of a conform run (see conform_jobs.h), on the
 * pool of jobs.h: one worker per job, owning its implementation and its
 * MLIR judge from start to end (a child started by a thread dies with that
 * thread, peer.h's PR_SET_PDEATHSIG, and a worker's thread outlives its
 * children), the batches handed out and taken back in the order they were
 * filled.
 */
#include "conform_jobs.h"

#include "jobs.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* One job: its implementation, judges and counts. */
typedef struct job {
  struct lctx_conform_jobs *owner;
  lctx_impl *impl;
  lctx_irjudge *judge; /* started on first use */
  size_t kills;        /* modules that killed its judge */
  lctx_report_judge verdicts;
  lctx_report counts;
  char error[1024];
} job;

struct lctx_conform_jobs {
  lctx_conform_jobs_config c;
  lctx_jobs *pool; /* NULL once ended */
  /* The batches: `cap` of them, those not out in free[0..free_n). */
  size_t cap;
  lctx_conform_batch **all, **free;
  size_t free_n;
  lctx_impl_info info; /* the first job's, kept past its end */
  job *jobs[LCTX_CONFORM_JOBS_MAX];
};

//===----------------------------------------------------------------------===//
// Filling a batch
//===----------------------------------------------------------------------===//

/* Copies what an implementation is given of `c` into `dst`: its used
 * factories, rules, operations and names and its configuration. Both keep
 * case.h's invariant (zero past their counts, as run_random's lctx_case_reset
 * of the slot needs): the used parts of `c` are copied over those of `dst`, and
 * only what `dst` used past the counts of `c` is cleared, not all it used
 * first. */
void lctx_conform_batch_copy(lctx_case *dst, const lctx_case *c) {
  if (c->factory_count > LCTX_MAX_FACTORIES ||
      c->rule_count > LCTX_CASE_MAX_RULES || c->op_count > LCTX_CASE_MAX_OPS) {
    *dst = *c; /* never */
    return;
  }
  size_t nf = c->factory_count, nr = c->rule_count, no = c->op_count;
  if (dst->factory_count > nf)
    memset(dst->factories + nf, 0,
           (dst->factory_count - nf) * sizeof dst->factories[0]);
  if (dst->rule_count > nr)
    memset(dst->rules + nr, 0, (dst->rule_count - nr) * sizeof dst->rules[0]);
  for (size_t i = no; i < dst->op_count; i++)
    lctx_case_op_clear(&dst->ops[i]);
  dst->factory_count = nf;
  memcpy(dst->factories, c->factories, nf * sizeof c->factories[0]);
  size_t from = offsetof(lctx_case, jax_platforms);
  memcpy((char *)dst + from, (const char *)c + from,
         offsetof(lctx_case, rule_count) - from);
  dst->rule_count = nr;
  memcpy(dst->rules, c->rules, nr * sizeof c->rules[0]);
  dst->op_count = no;
  for (size_t i = 0; i < no; i++)
    lctx_case_op_assign(&dst->ops[i], &c->ops[i]);
  size_t nn =
      c->name_count < LCTX_CASE_MAX_NAMES ? c->name_count : LCTX_CASE_MAX_NAMES;
  if (dst->name_count > nn)
    memset(dst->names[nn], 0, (dst->name_count - nn) * sizeof dst->names[0]);
  dst->name_count = nn;
  memcpy(dst->names, c->names, nn * sizeof c->names[0]);
}

//===----------------------------------------------------------------------===//
// A job's batch
//===----------------------------------------------------------------------===//

/* Lists the module of every lower_per_platform operation of entries
 * [from, to) of `s` that has one, after those of earlier entries (so that
 * the verdicts of a case the run judges later stay); returns the first. */
static size_t gather(lctx_conform_batch *s, size_t from, size_t to) {
  if (from == 0)
    s->job_count = 0;
  size_t first = s->job_count, n = first;
  for (size_t b = from; b < to; b++) {
    const lctx_case *c = s->ptrs[b];
    const lctx_case_result *res = &s->results[b];
    bool answered =
        res->status == LCTX_RESULT_OK || res->status == LCTX_RESULT_FLAKY;
    for (size_t i = 0; i < LCTX_CASE_MAX_OPS; i++) {
      s->job_of[b][i] = (size_t)-1;
      if (i < c->op_count && answered && res->mlir[i] &&
          c->ops[i].kind == LCTX_OP_LOWER_PER_PLATFORM) {
        s->job_of[b][i] = n;
        s->jobs[n++] = (lctx_irjudge_job){c, i, res->mlir[i], NULL, 0};
      }
    }
  }
  s->job_count = n;
  return first;
}

/* Has the modules of entries [from, to) of `s` judged by the job's judge,
 * and counts them as conform.c's judge_modules does. */
static void judge_modules(job *w, lctx_conform_batch *s, size_t from,
                          size_t to) {
  size_t first = gather(s, from, to), n = s->job_count - first;
  if (n == 0)
    return;
  const lctx_conform_jobs_config *c = &w->owner->c;
  if (!w->judge)
    w->judge = lctx_irjudge_new(c->judge_timeout, c->judge_memory_mb,
                                c->judge_log, c->model_release);
  size_t unstarted = w->judge ? lctx_irjudge_unstarted(w->judge) : 0;
  lctx_irjudge_verdict *v = s->verdicts + first;
  if (w->judge)
    lctx_irjudge_run(w->judge, s->jobs + first, n, v);
  for (size_t k = 0; k < n; k++) {
    if (!w->judge) {
      w->counts.modules_unjudged += v[k].status == LCTX_IRJUDGE_JUDGED;
      v[k].status = LCTX_IRJUDGE_NOT_JUDGED;
    }
    w->counts.modules_judged += v[k].status != LCTX_IRJUDGE_NOT_JUDGED;
  }
  if (w->judge)
    w->counts.modules_unjudged += lctx_irjudge_unstarted(w->judge) - unstarted;
}

/* Runs batch `s` and judges what passes; the rest keeps its result (and
 * modules) for the run. */
static void run_batch(job *w, lctx_conform_batch *s) {
  /* Packed straight into the worker's request area (here, not in the run's
   * thread): one copy of each case's used parts. */
  if (w->owner->c.impl_path)
    lctx_impl_start(w->impl, s->ptrs, s->count, NULL);
  for (size_t from = 0; from < s->count;) {
    size_t done = lctx_impl_run(w->impl, s->ptrs + from, s->count - from,
                                s->results + from);
    size_t to = done && done <= s->count - from ? from + done : s->count;
    judge_modules(w, s, from, to);
    for (size_t b = from; b < to; b++) {
      lctx_report_subject subject = {s->ptrs[b],  &s->results[b], s->source[b],
                                     s->index[b], NULL,           {NULL}};
      for (size_t i = 0; i < LCTX_CASE_MAX_OPS; i++) {
        size_t k = s->job_of[b][i];
        subject.module[i] = k == (size_t)-1 ? NULL : &s->verdicts[k];
      }
      s->counted[b] = lctx_report_judge_case_if_pass(&w->verdicts, &subject);
      if (s->counted[b])
        lctx_case_result_release(&s->results[b]);
    }
    from = to;
  }
}

//===----------------------------------------------------------------------===//
// The workers
//===----------------------------------------------------------------------===//

/* Opens the job's implementation; false with why in w->error. */
static bool open_impl(void *user, size_t k) {
  job *w = ((lctx_conform_jobs *)user)->jobs[k];
  const lctx_conform_jobs_config *c = &w->owner->c;
  lctx_buf eb;
  lctx_buf_init(&eb, w->error, sizeof w->error);
  w->impl = c->impl_path ? lctx_impl_open_plugin(c->impl_path, &c->impl, &eb)
                         : lctx_impl_open_process(c->command, &c->impl, &eb);
  if (w->impl)
    lctx_impl_set_process_per_case(w->impl, c->process_per_case);
  return w->impl != NULL;
}

static bool run_item(void *user, size_t k, void *item) {
  run_batch(((lctx_conform_jobs *)user)->jobs[k], item);
  return true;
}

/* Stops the job's implementation and judge, on the thread that started
 * them. */
static void close_job(void *user, size_t k) {
  job *w = ((lctx_conform_jobs *)user)->jobs[k];
  if (w->impl) {
    w->counts.restarts = lctx_impl_restarts(w->impl);
    w->counts.recycles = lctx_impl_recycles(w->impl);
  }
  lctx_impl_close(w->impl);
  w->impl = NULL;
  if (w->judge)
    w->kills = lctx_irjudge_kills(w->judge);
  lctx_irjudge_free(w->judge);
  w->judge = NULL;
}

/* Sets the batches up: two per job and one more (one filled while each job
 * runs one and has the next waiting). */
static bool make_batches(lctx_conform_jobs *j) {
  j->cap = 2 * j->c.jobs + 1;
  j->all = calloc(j->cap, sizeof *j->all);
  j->free = calloc(j->cap, sizeof *j->free);
  if (!j->all || !j->free)
    return false;
  for (size_t k = 0; k < j->cap; k++) {
    j->all[k] = calloc(1, sizeof *j->all[k]);
    if (!j->all[k])
      return false;
    j->free[j->free_n++] = j->all[k];
  }
  return true;
}

static job *new_job(lctx_conform_jobs *j) {
  job *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  w->owner = j;
  w->verdicts = *j->c.judge;
  w->verdicts.report = &w->counts;
  w->verdicts.stream = NULL;
  w->counts.row_count = j->c.judge->report->row_count;
  return w;
}

/* Starts the pool, one worker per job; false (said) when it cannot or a
 * job's implementation does not open. */
static bool start_pool(lctx_conform_jobs *j, lctx_buf *error) {
  lctx_jobs_config pc = {.workers = j->c.jobs,
                         .window = j->cap,
                         .user = j,
                         .open = open_impl,
                         .run = run_item,
                         .close = close_job};
  j->pool = lctx_jobs_start(&pc, error);
  if (!j->pool)
    return false;
  if (lctx_jobs_threads(j->pool) < j->c.jobs) {
    lctx_buf_append_cstr(error, "cannot start the jobs (out of threads)");
    return false;
  }
  if (lctx_jobs_wait_open(j->pool) == 0)
    return true;
  for (size_t k = 0; k < j->c.jobs; k++) {
    if (!j->jobs[k]->impl) {
      lctx_buf_append_cstr(error, j->jobs[k]->error);
      break;
    }
  }
  return false;
}

lctx_conform_jobs *lctx_conform_jobs_start(const lctx_conform_jobs_config *c,
                                           lctx_buf *error) {
  lctx_conform_jobs *j = calloc(1, sizeof *j);
  if (!j) {
    lctx_buf_append_cstr(error, "out of memory");
    return NULL;
  }
  j->c = *c;
  j->c.jobs = c->jobs < 1                       ? 1
              : c->jobs > LCTX_CONFORM_JOBS_MAX ? LCTX_CONFORM_JOBS_MAX
                                                : c->jobs;
  bool ok = make_batches(j);
  for (size_t k = 0; ok && k < j->c.jobs; k++)
    ok = (j->jobs[k] = new_job(j)) != NULL;
  if (!ok)
    lctx_buf_append_cstr(error, "cannot start the jobs (out of memory)");
  if (ok && start_pool(j, error)) {
    j->info = *lctx_impl_get_info(j->jobs[0]->impl);
    return j;
  }
  lctx_conform_jobs_free(j);
  return NULL;
}

const lctx_impl_info *lctx_conform_jobs_info(const lctx_conform_jobs *j) {
  return &j->info;
}

lctx_conform_batch *lctx_conform_jobs_fill(lctx_conform_jobs *j) {
  if (j->free_n == 0)
    return NULL;
  lctx_conform_batch *b = j->free[--j->free_n];
  b->count = 0;
  return b;
}

void lctx_conform_jobs_submit(lctx_conform_jobs *j, lctx_conform_batch *b) {
  (void)lctx_jobs_submit(j->pool, b); /* room: as many as batches */
}

lctx_conform_batch *lctx_conform_jobs_next(lctx_conform_jobs *j, bool wait) {
  lctx_jobs_state state;
  return lctx_jobs_next(j->pool, wait, &state);
}

void lctx_conform_jobs_recycle(lctx_conform_jobs *j, lctx_conform_batch *b) {
  b->count = 0;
  j->free[j->free_n++] = b;
}

size_t lctx_conform_jobs_merge(const lctx_conform_jobs *j,
                               lctx_report *report) {
  lctx_conform_jobs *m = (lctx_conform_jobs *)j;
  lctx_jobs_end(m->pool); /* each job closes its implementation and judge */
  m->pool = NULL;
  size_t kills = 0;
  for (size_t k = 0; k < j->c.jobs; k++) {
    const lctx_report *n = &j->jobs[k]->counts;
    for (size_t i = 0; i < report->row_count; i++)
      for (int v = 0; v < LCTX_VERDICT_COUNT; v++)
        report->rows[i].n[v] += n->rows[i].n[v];
    report->spec_gaps += n->spec_gaps;
    report->modules_judged += n->modules_judged;
    report->modules_unjudged += n->modules_unjudged;
    report->restarts += n->restarts;
    report->recycles += n->recycles;
    kills += j->jobs[k]->kills;
  }
  return kills;
}

void lctx_conform_jobs_free(lctx_conform_jobs *j) {
  if (!j)
    return;
  lctx_jobs_end(j->pool);
  for (size_t k = 0; k < j->c.jobs; k++)
    free(j->jobs[k]);
  for (size_t k = 0; j->all && k < j->cap; k++) {
    if (!j->all[k])
      continue;
    for (size_t i = 0; i < LCTX_CONFORM_BATCH_MAX; i++)
      lctx_case_result_release(&j->all[k]->results[i]);
    free(j->all[k]);
  }
  free(j->all);
  free(j->free);
  free(j);
}
