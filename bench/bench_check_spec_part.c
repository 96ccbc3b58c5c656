/*
 * bench_check_spec_part.c - check-spec over a sample of the bounded domain,
 * for instruction counts under callgrind (bench/instructions.py), where the
 * whole domain would take minutes.
 *
 * Enumerates the first LIMIT cases of the domain, in check-spec's order, and
 * judges each with the oracle against the reference model (spec rows and
 * invariants, lctx_oracle_check_case), as check-spec does; so the cost per
 * operation includes the enumeration, as check-spec's does. LIMIT 0 judges
 * none: the start-up run to subtract. Prints `N cases judged, N operations,
 * N violations`; exit status 0, 1 on a violation, 2 on bad usage.
 * Usage: bench_check_spec_part SPEC LIMIT
 */
#include "domain.h"
#include "oracle.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
  lctx_oracle *oracle;
  size_t limit, judged, violations;
} sample;

static bool visit(void *user, const lctx_case *c) {
  sample *s = user;
  if (s->judged == s->limit)
    return false;
  s->judged++;
  s->violations += lctx_oracle_check_case(s->oracle, c);
  return true;
}

static lctx_spec spec;
static lctx_oracle oracle;

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: bench_check_spec_part SPEC LIMIT\n");
    return 2;
  }
  char error[512];
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  if (!lctx_spec_load(argv[1], &spec, &e)) {
    fprintf(stderr, "bench_check_spec_part: %s\n", error);
    return 2;
  }
  lctx_oracle_init(&oracle, &spec, lctx_engine_reference());
  sample s = {&oracle, (size_t)strtoul(argv[2], NULL, 10), 0, 0};
  lctx_domain_enumerate(visit, &s);
  printf("%zu cases judged, %zu operations, %zu violations\n", s.judged,
         oracle.ops, s.violations);
  return s.violations ? 1 : 0;
}
