/*
 * tests/test_irjudge.c - pins lctx_irjudge_start (harness/process/irjudge.h),
 * which hands a batch of modules to the MLIR judge process ahead of the
 * lctx_irjudge_run that collects their verdicts.
 *
 * The jobs are the lower_per_platform operations of the first domain cases
 * that have one, with the modules the example C plugin returns for them
 * (most pass), and among them modules changed to fail: one that does not
 * parse, one nested too deep to be parsed, one that names a rule the
 * expectation does not keep. For every order of calls, each verdict must
 * equal that of a plain lctx_irjudge_run of the same jobs:
 * - start, then run of the same jobs, then a run of others;
 * - start, then run of other jobs (the started ones are dropped);
 * - start twice, then run of the second;
 * and no module kills the judge; and a judge stopped and killed from
 * outside with a batch in its pipe costs no module a verdict (each is
 * judged again alone).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "domain.h"
#include "impl.h"
#include "case_text.h"
#include "case_fx.h"
#include "irjudge.h"
#include "proc_fx.h"

#define N_CASES 48
#define N_JOBS (N_CASES * LCTX_CASE_MAX_OPS)

typedef struct fixture {
  lctx_case cases[N_CASES];
  const lctx_case *ptrs[N_CASES];
  size_t case_count;
  lctx_case_result results[N_CASES];
  lctx_irjudge_job jobs[N_JOBS];
  size_t job_count;
  char *changed[3];
  lctx_irjudge_verdict alone[N_JOBS], got[N_JOBS];
} fixture;

static bool take_lowering(void *user, const lctx_case *c) {
  fixture *f = user;
  bool lowers = false;
  for (size_t i = 0; i < c->op_count; i++)
    lowers |= c->ops[i].kind == LCTX_OP_LOWER_PER_PLATFORM;
  if (lowers)
    f->cases[f->case_count++] = *c;
  return f->case_count < N_CASES;
}

/* A module `depth` brackets deep (lctx_irjudge_depth_ok refuses it). */
static char *deep_module(size_t depth) {
  char *s = malloc(2 * depth + 1);
  assert_non_null(s);
  memset(s, '(', depth);
  memset(s + depth, ')', depth);
  s[2 * depth] = '\0';
  return s;
}

static int set_up(void **state) {
  fixture *f = calloc(1, sizeof *f);
  assert_non_null(f);
  lctx_domain_enumerate(take_lowering, f);
  assert_int_equal(f->case_count, N_CASES);
  for (size_t i = 0; i < N_CASES; i++)
    f->ptrs[i] = &f->cases[i];
  lctx_impl_options o;
  lctx_impl_options_init(&o);
  char e[512] = "";
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  lctx_impl *impl = lctx_impl_open_plugin(LCTX_EXAMPLE_PLUGIN, &o, &eb);
  if (!impl)
    fail_msg("cannot open the example plugin: %s", e);
  for (size_t done = 0; done < N_CASES;)
    done +=
        lctx_impl_run(impl, f->ptrs + done, N_CASES - done, f->results + done);
  lctx_impl_close(impl);
  for (size_t b = 0; b < N_CASES; b++)
    for (size_t i = 0; i < f->cases[b].op_count; i++)
      if (f->results[b].mlir[i])
        f->jobs[f->job_count++] =
            (lctx_irjudge_job){&f->cases[b], i, f->results[b].mlir[i], NULL, 0};
  assert_true(f->job_count >= 8);
  f->changed[0] = strdup("module { this does not parse");
  f->changed[1] = deep_module(LCTX_IRJUDGE_MAX_DEPTH + 1);
  f->changed[2] = strdup("module {\n  func.func @main() {\n    "
                         "func.call @not_a_kept_rule() : () -> ()\n"
                         "    return\n  }\n}\n");
  for (size_t k = 0; k < 3; k++) {
    assert_non_null(f->changed[k]);
    f->jobs[1 + 3 * k].mlir = f->changed[k];
  }
  *state = f;
  return 0;
}

static int tear_down(void **state) {
  fixture *f = *state;
  for (size_t b = 0; b < N_CASES; b++)
    lctx_case_result_release(&f->results[b]);
  for (size_t k = 0; k < 3; k++)
    free(f->changed[k]);
  free(f);
  return 0;
}

static lctx_irjudge *new_judge(void) {
  lctx_irjudge *j = lctx_irjudge_new(30, 0, NULL, NULL);
  assert_non_null(j);
  return j;
}

/* Every verdict of `got` equals that of `alone` from `from` on. */
static void assert_same(const fixture *f, size_t from, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const lctx_irjudge_verdict *a = &f->alone[from + i], *g = &f->got[i];
    if (a->status != g->status || a->passed != g->passed ||
        a->applicable != g->applicable || strcmp(a->row, g->row) != 0 ||
        strcmp(a->reason, g->reason) != 0)
      fail_msg("job %zu: %d %d %s '%s' alone, %d %d %s '%s' here", from + i,
               a->status, a->passed, a->row, a->reason, g->status, g->passed,
               g->row, g->reason);
  }
}

static void judge_alone(fixture *f) {
  lctx_irjudge *j = new_judge();
  lctx_irjudge_run(j, f->jobs, f->job_count, f->alone);
  assert_int_equal(lctx_irjudge_kills(j), 0);
  lctx_irjudge_free(j);
  size_t passed = 0, failed = 0, refused = 0;
  for (size_t i = 0; i < f->job_count; i++) {
    passed += f->alone[i].status == LCTX_IRJUDGE_JUDGED && f->alone[i].passed;
    failed += f->alone[i].status == LCTX_IRJUDGE_JUDGED && !f->alone[i].passed;
    refused += f->alone[i].status == LCTX_IRJUDGE_REFUSED;
  }
  /* The comparisons below see passing, failing and refused modules. */
  assert_true(passed > 0);
  assert_true(failed >= 2);
  assert_int_equal(refused, 1);
}

static void test_start_then_run(void **state) {
  fixture *f = *state;
  judge_alone(f);
  lctx_irjudge *j = new_judge();
  lctx_irjudge_run(j, f->jobs, 2, f->got); /* a judge runs */
  lctx_irjudge_start(j, f->jobs, f->job_count, f->got);
  lctx_irjudge_run(j, f->jobs, f->job_count, f->got);
  assert_same(f, 0, f->job_count);
  /* Nothing of the started jobs is left to be read as another's verdict. */
  lctx_irjudge_run(j, f->jobs + 3, f->job_count - 3, f->got);
  assert_same(f, 3, f->job_count - 3);
  assert_int_equal(lctx_irjudge_kills(j), 0);
  lctx_irjudge_free(j);
}

static void test_start_from_cold(void **state) {
  fixture *f = *state;
  judge_alone(f);
  lctx_irjudge *j = new_judge(); /* no judge process yet */
  lctx_irjudge_start(j, f->jobs, f->job_count, f->got);
  lctx_irjudge_run(j, f->jobs, f->job_count, f->got);
  assert_same(f, 0, f->job_count);
  lctx_irjudge_free(j);
}

static void test_start_then_run_of_others(void **state) {
  fixture *f = *state;
  judge_alone(f);
  lctx_irjudge *j = new_judge();
  static lctx_irjudge_verdict ahead[N_JOBS];
  lctx_irjudge_start(j, f->jobs, f->job_count, ahead);
  lctx_irjudge_run(j, f->jobs + 1, f->job_count - 1, f->got);
  assert_same(f, 1, f->job_count - 1);
  lctx_irjudge_start(j, f->jobs, f->job_count, ahead);
  lctx_irjudge_start(j, f->jobs + 2, f->job_count - 2, f->got);
  lctx_irjudge_run(j, f->jobs + 2, f->job_count - 2, f->got);
  assert_same(f, 2, f->job_count - 2);
  assert_int_equal(lctx_irjudge_kills(j), 0);
  lctx_irjudge_free(j);
}

/* The descendants of this process, as /proc lists them (at most `cap`):
 * the judge and, where it runs in a PID namespace of its own, the
 * processes around it. */
static size_t own_descendants(pid_t *out, size_t cap) {
  enum { MAX = 4096 };
  static pid_t pid[MAX], parent[MAX];
  size_t all = 0, n = 0;
  DIR *d = opendir("/proc");
  assert_non_null(d);
  for (struct dirent *e; (e = readdir(d)) != NULL && all < MAX;) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9')
      continue;
    char st;
    int ppid;
    if (proc_fx_stat(strtol(e->d_name, NULL, 10), &st, &ppid)) {
      pid[all] = (pid_t)strtol(e->d_name, NULL, 10);
      parent[all++] = (pid_t)ppid;
    }
  }
  closedir(d);
  out[n++] = getpid();
  for (size_t k = 0; k < n; k++) /* breadth first from this process */
    for (size_t i = 0; i < all && n < cap; i++)
      if (parent[i] == out[k])
        out[n++] = pid[i];
  memmove(out, out + 1, (n - 1) * sizeof *out);
  return n - 1;
}

/* A judge lost for a reason that is not the module's (another process
 * stopped it, then killed it, with a batch in its pipe) is run again: no
 * module of the batch is marked IR-000, every verdict is the one judged
 * alone. */
static void test_judge_killed_from_outside(void **state) {
  fixture *f = *state;
  judge_alone(f);
  lctx_irjudge *j = new_judge();
  lctx_irjudge_run(j, f->jobs, 2, f->got); /* a judge runs */
  pid_t kids[16];
  size_t n = own_descendants(kids, 16);
  assert_true(n >= 1);
  for (size_t i = 0; i < n; i++)
    kill(kids[i], SIGSTOP); /* it cannot answer what comes next */
  lctx_irjudge_start(j, f->jobs, f->job_count, f->got);
  for (size_t i = 0; i < n; i++)
    kill(kids[i], SIGKILL);
  lctx_irjudge_run(j, f->jobs, f->job_count, f->got);
  assert_same(f, 0, f->job_count);
  assert_int_equal(lctx_irjudge_kills(j), 0);
  assert_true(lctx_irjudge_retries(j) >= 1);
  lctx_irjudge_free(j);
}

/* The judge expects the module the model builds at the release it judges
 * as (found by the drift matrix: judged as the modelled commit, JAX 0.7.2's
 * module for a rule registered for oneapi, which 0.7.2 refuses, failed
 * IR-003). The example plugin builds the modelled commit's module: two
 * kept rules, one dispatch. Judged as 0.9.2, where the oneapi registration
 * raises and A has one rule, the dispatch is one too many. */
static void test_judge_at_a_release(void **state) {
  (void)state;
  static const char CASE[] = CASE_FX_ONEAPI_KEPT_RULE;
  static lctx_case c;
  static lctx_case_result result;
  char e[512] = "";
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  assert_true(lctx_case_parse(CASE, strlen(CASE), "t.case", &c, NULL, &eb));
  lctx_impl_options o;
  lctx_impl_options_init(&o);
  lctx_impl *impl = lctx_impl_open_plugin(LCTX_EXAMPLE_PLUGIN, &o, &eb);
  if (!impl)
    fail_msg("cannot open the example plugin: %s", e);
  const lctx_case *one = &c;
  assert_int_equal(lctx_impl_run(impl, &one, 1, &result), 1);
  lctx_impl_close(impl);
  assert_non_null(result.mlir[2]);
  lctx_irjudge_job job = {&c, 2, result.mlir[2], NULL, 0};
  lctx_irjudge_verdict v[2];
  const lctx_release *at[2] = {NULL, lctx_release_find("0.9.2")};
  assert_non_null(at[1]);
  for (size_t k = 0; k < 2; k++) {
    lctx_irjudge *j = lctx_irjudge_new(30, 0, NULL, at[k]);
    assert_non_null(j);
    lctx_irjudge_run(j, &job, 1, &v[k]);
    lctx_irjudge_free(j);
    assert_int_equal(v[k].status, LCTX_IRJUDGE_JUDGED);
  }
  assert_true(v[0].passed);
  assert_false(v[1].passed);
  lctx_case_result_release(&result);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_start_then_run),
      cmocka_unit_test(test_start_from_cold),
      cmocka_unit_test(test_start_then_run_of_others),
      cmocka_unit_test(test_judge_killed_from_outside),
      cmocka_unit_test(test_judge_at_a_release),
  };
  return cmocka_run_group_tests(tests, set_up, tear_down);
}
