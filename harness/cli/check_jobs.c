/*
 * check_jobs.c - check-spec on several threads (see check_jobs.h): each
 * share of the domain an item of the pool of jobs.h.
 */
#include "check_jobs.h"

#include "domain.h"
#include "jobs.h"

#include <stdlib.h>
#include <string.h>

/* One thread's share and what it found. */
typedef struct job {
  const lctx_spec *spec;
  const lctx_release *rel;
  lctx_domain_share share;
  lctx_oracle *oracle;
  size_t first_limit;
  size_t index; /* the case being judged */
  size_t first[LCTX_CHECK_JOBS_FIRST];
  size_t first_count;
  size_t cases;
} job;

/* Remembers the case of a violation (once per case, the first ones). */
static void remember(void *user, const lctx_violation *v) {
  (void)v;
  job *j = user;
  if (j->first_count > 0 && j->first[j->first_count - 1] == j->index)
    return;
  if (j->first_count < j->first_limit)
    j->first[j->first_count++] = j->index;
}

static bool judge(void *user, size_t index, uint64_t registry,
                  const lctx_case *c) {
  job *j = user;
  j->index = index;
  lctx_oracle_check_case_registry(j->oracle, c, registry);
  return true;
}

static void run_job(job *j) {
  lctx_oracle_init(j->oracle, j->spec, lctx_engine_reference());
  lctx_oracle_set_release(j->oracle, j->rel);
  j->oracle->on_violation = remember;
  j->oracle->user = j;
  uint64_t generations = 0; /* this job's oracle sees this walk's only */
  j->cases = lctx_domain_enumerate_registry(&j->share, &generations, judge, j);
}

static bool run_item(void *user, size_t worker, void *item) {
  (void)user;
  (void)worker;
  run_job(item);
  return true;
}

/* Adds job `j`'s counts to `r`. */
static void add(lctx_check_jobs_result *r, const job *j, size_t rows) {
  const lctx_oracle *o = j->oracle;
  r->cases += j->cases;
  r->ops += o->ops;
  r->absent += o->absent;
  r->violations += o->violations;
  r->invariant_checks += o->invariant_checks;
  for (size_t i = 0; i < rows; i++)
    r->hits[i] += o->hits[i];
}

/* The first violating cases of all jobs, in the domain's order: a merge of
 * their lists, each ascending. */
static void merge_first(lctx_check_jobs_result *r, const job *jobs, size_t n,
                        size_t limit) {
  size_t at[LCTX_CHECK_JOBS_MAX] = {0};
  while (r->first_count < limit) {
    size_t best = n;
    for (size_t k = 0; k < n; k++)
      if (at[k] < jobs[k].first_count &&
          (best == n || jobs[k].first[at[k]] < jobs[best].first[at[best]]))
        best = k;
    if (best == n)
      break;
    r->first[r->first_count++] = jobs[best].first[at[best]++];
  }
}

/* Runs every job on the pool, one worker each (on the calling thread
 * when there is no thread); false when a share came out empty (no memory
 * for its case: every share holds cases). `*threads`: the threads that
 * ran. */
static bool run_all(job *jobs, size_t n, size_t *threads) {
  lctx_jobs_config c = {.workers = n, .window = n, .run = run_item};
  char text[128];
  lctx_buf error;
  lctx_buf_init(&error, text, sizeof text);
  lctx_jobs *pool = lctx_jobs_start(&c, &error);
  *threads = pool ? lctx_jobs_threads(pool) : 1;
  for (size_t k = 0; k < n; k++) {
    if (!pool || !lctx_jobs_submit(pool, &jobs[k]))
      run_job(&jobs[k]); /* no thread for it: judged here */
  }
  lctx_jobs_state state;
  while (pool && lctx_jobs_next(pool, true, &state))
    ;
  lctx_jobs_end(pool);
  bool whole = true;
  for (size_t k = 0; k < n; k++)
    whole = whole && jobs[k].cases > 0;
  return whole;
}

bool lctx_check_jobs_run(const lctx_spec *spec, const lctx_release *rel,
                         size_t jobs, size_t first_limit,
                         lctx_check_jobs_result *r) {
  if (jobs < 1)
    jobs = 1;
  if (jobs > LCTX_CHECK_JOBS_MAX)
    jobs = LCTX_CHECK_JOBS_MAX;
  if (first_limit > LCTX_CHECK_JOBS_FIRST)
    first_limit = LCTX_CHECK_JOBS_FIRST;
  job *js = calloc(jobs, sizeof *js);
  bool ok = js != NULL;
  for (size_t k = 0; ok && k < jobs; k++) {
    js[k].spec = spec;
    js[k].rel = rel;
    js[k].share =
        (lctx_domain_share){0, SIZE_MAX, LCTX_CHECK_JOBS_CHUNK, k, jobs};
    js[k].first_limit = first_limit;
    js[k].oracle = malloc(sizeof *js[k].oracle); /* large for a stack */
    ok = js[k].oracle != NULL;
  }
  size_t threads = 0;
  if (ok)
    ok = run_all(js, jobs, &threads);
  if (ok) {
    memset(r, 0, sizeof *r);
    for (size_t k = 0; k < jobs; k++)
      add(r, &js[k], spec->row_count);
    r->threads = threads;
    merge_first(r, js, jobs, first_limit);
  }
  for (size_t k = 0; js && k < jobs; k++)
    free(js[k].oracle);
  free(js);
  return ok;
}

static bool judge_one(void *user, size_t index, const lctx_case *c) {
  (void)index;
  lctx_oracle_check_case(user, c);
  return true;
}

bool lctx_check_jobs_replay(lctx_oracle *oracle, size_t index) {
  lctx_domain_share one = {index, index + 1, 1, 0, 1};
  return lctx_domain_enumerate_share(&one, judge_one, oracle) == 1;
}
