/*
 * bench_check_spec.c - check-spec throughput, as a ratio measured in one run.
 *
 * Encodes every case of the bounded domain to the fuzzers' byte form, then
 * times, back to back in one process, (a) a loop that only decodes those
 * bytes and (b) the same loop that also judges each case with the oracle
 * against the reference model (spec rows and invariants), as check-spec
 * does. Prints cases per second of both and the ratio (b)/(a), which is what
 * to compare across changes: absolute figures on these machines are noisy.
 * Then judges the whole domain at one release, the modelled commit (where
 * no operation is absent), as check-spec --jax modelled --jobs 1 and
 * --jobs 2 do (check_jobs.h), alternating, and prints the best judged
 * operations per second of each and their ratio as `figure` lines. Every
 * release's figures, and the same job against a baseline build, are
 * bench/wall.py's (lctx check-spec itself).
 * Usage: bench_check_spec [SPEC] [ROUNDS]
 */
#include "case_bytes.h"
#include "check_jobs.h"
#include "domain.h"
#include "oracle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint8_t *g_bytes;
static size_t *g_offsets;
static size_t g_count, g_used, g_capacity;

static bool collect(void *user, const lctx_case *c) {
  (void)user;
  uint8_t tmp[4096];
  size_t n = lctx_case_encode(c, tmp, sizeof tmp);
  if (n > sizeof tmp)
    return false;
  if (g_used + n > g_capacity) {
    g_capacity = 2 * (g_capacity + n);
    g_bytes = realloc(g_bytes, g_capacity);
    if (!g_bytes)
      return false;
  }
  memcpy(g_bytes + g_used, tmp, n);
  g_offsets[g_count++] = g_used;
  g_used += n;
  return true;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static lctx_spec spec;
static lctx_case decoded;
static lctx_oracle oracle;
static lctx_check_jobs_result jobs_result;

/* check-spec's throughput on 1 and on 2 threads, in one run: rounds
 * alternating which goes first, the best time of each. False when a run
 * fails or finds a violation. */
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool jobs_figures(int rounds) {
  double best[2] = {1e30, 1e30}, cpu[2] = {1e30, 1e30};
  size_t ops = 0, absent = 0;
  for (int r = 0; r < rounds; r++) {
    for (int which = 0; which < 2; which++) {
      size_t k = (size_t)((which + r) % 2); /* 0: one thread, 1: two */
      double t0 = now(), c0 = cpu_now();
      if (!lctx_check_jobs_run(&spec, NULL, k + 1, 0, &jobs_result) ||
          jobs_result.violations != 0)
        return false;
      double t = now() - t0, c = cpu_now() - c0;
      if (t < best[k])
        best[k] = t;
      if (c < cpu[k])
        cpu[k] = c;
      ops = jobs_result.ops - jobs_result.absent;
      absent = jobs_result.absent;
    }
  }
  /* The CPU time of both threads together: how much work the split adds,
   * whatever share of the cores the machine leaves the bench. */
  printf("  cpu seconds per domain: jobs1 %.3f, jobs2 %.3f (both threads)\n",
         cpu[0], cpu[1]);
  printf("  the job: the whole bounded domain at the modelled commit alone "
         "(one release, no operation absent: %zu operations, %zu absent), "
         "judged in process as check-spec --jax modelled does "
         "(check_jobs.h), --jobs 1 against --jobs 2 of this build, the best "
         "of %d runs each; operations/s are judged operations\n",
         ops, absent, rounds);
  printf("figure check_spec.ops_per_s.jobs1: %.0f\n", (double)ops / best[0]);
  printf("figure check_spec.ops_per_s.jobs2: %.0f\n", (double)ops / best[1]);
  printf("figure check_spec.jobs2_vs_jobs1: %.3f\n", best[0] / best[1]);
  return true;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1]
                              : LCTX_SOURCE_DIR
                         "/conformance/spec/backend-selection.lspec";
  int rounds = argc > 2 ? atoi(argv[2]) : 3;
  char error[512];
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  if (!lctx_spec_load(path, &spec, &e)) {
    fprintf(stderr, "bench_check_spec: %s\n", error);
    return 2;
  }
  g_offsets = malloc(sizeof *g_offsets * 2000000);
  if (!g_offsets)
    return 2;
  lctx_domain_enumerate(collect, NULL);
  g_offsets[g_count] = g_used;
  lctx_oracle_init(&oracle, &spec, lctx_engine_reference());
  double decode_best = 1e30, check_best = 1e30;
  size_t violations = 0;
  for (int r = 0; r < rounds; r++) {
    /* Alternate the order so that drift hits both loops alike. */
    for (int which = 0; which < 2; which++) {
      bool check = (which + r) % 2 == 1;
      double t0 = now();
      for (size_t i = 0; i < g_count; i++) {
        lctx_case_decode(g_bytes + g_offsets[i],
                         g_offsets[i + 1] - g_offsets[i], &decoded);
        if (check)
          violations += lctx_oracle_check_case(&oracle, &decoded);
      }
      double t = now() - t0;
      if (check && t < check_best)
        check_best = t;
      if (!check && t < decode_best)
        decode_best = t;
    }
  }
  printf("bench_check_spec: %zu domain cases, %zu operations per round, best "
         "of %d rounds\n",
         g_count, oracle.ops / (size_t)rounds, rounds);
  printf("  decode only:          %12.0f cases/s\n", g_count / decode_best);
  printf("  decode + check-spec:  %12.0f cases/s\n", g_count / check_best);
  printf("  ratio check/decode:   %12.3f (throughput of check-spec relative "
         "to decoding alone)\n",
         decode_best / check_best);
  printf("  violations: %zu\n", violations);
  if (!jobs_figures(rounds)) {
    fprintf(stderr, "bench_check_spec: the domain on 1 or 2 threads failed\n");
    violations++;
  }
  free(g_bytes);
  free(g_offsets);
  return violations == 0 ? 0 : 1;
}
