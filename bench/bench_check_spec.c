/*
 * bench_check_spec.c - check-spec throughput, as a ratio measured in one run.
 *
 * Encodes every case of the bounded domain to the fuzzers' byte form, then
 * times, back to back in one process, (a) a loop that only decodes those
 * bytes and (b) the same loop that also judges each case with the oracle
 * against the reference model (spec rows and invariants), as check-spec
 * does. Prints cases per second of both and the ratio (b)/(a), which is what
 * to compare across changes: absolute figures on these machines are noisy.
 * Usage: bench_check_spec [SPEC] [ROUNDS]
 */
#include "case_bytes.h"
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
  free(g_bytes);
  free(g_offsets);
  return violations == 0 ? 0 : 1;
}
