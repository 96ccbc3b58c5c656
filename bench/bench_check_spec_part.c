/*
 * bench_check_spec_part.c - check-spec's judging of the bounded domain at
 * one release, for instruction counts under callgrind
 * (bench/instructions.py).
 *
 * Enumerates the first LIMIT cases of the domain (a LIMIT above the
 * domain's size: all of them, the whole job of `lctx check-spec --jax
 * RELEASE --jobs 1`), in check-spec's order, and judges each with the
 * oracle against the reference model at RELEASE (default: the modelled
 * commit), spec rows and invariants, as check-spec does (told each case's
 * registry generation, lctx_oracle_check_case_registry); so the cost per
 * operation includes the enumeration, as check-spec's does. LIMIT 0 judges
 * none: the start-up run to subtract.
 *
 * SELECT (absent or judged; default all) counts the cost of one kind of
 * case only, for the per-operation cost of the operations a release does not
 * have (absent, neither judged nor varied) apart from the others: each case
 * is first judged by a second oracle with callgrind's collection off, to
 * learn its kind, and then, collection on, by the counted oracle when every
 * operation of it is absent (absent) or none is (judged); the enumeration is
 * not collected, and cases mixing both kinds are counted apart and not
 * judged. So a SELECT figure is the judging alone, enumeration left out.
 *
 * Prints `N cases judged, N operations (N absent), N violations, release
 * NAME` and, with SELECT, `select KIND: N cases, N operations; N mixed cases
 * (N operations) left out`; exit status 0, 1 on a violation, 2 on bad usage.
 * Usage: bench_check_spec_part SPEC LIMIT [RELEASE [SELECT]]
 */
#include "domain.h"
#include "oracle.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#endif
#endif
#ifndef HAVE_CALLGRIND
#define HAVE_CALLGRIND 0
#endif

typedef enum { SELECT_ALL, SELECT_ABSENT, SELECT_JUDGED } select_kind;

typedef struct {
  lctx_oracle *oracle, *probe;
  select_kind select;
  size_t limit, judged, violations;
  size_t mixed_cases, mixed_ops, selected_cases;
} sample;

/* Whether callgrind collects now: on at the start (--collect-atstart=yes,
 * as bench/instructions.py runs it). */
static bool collecting = true;

static void collect(bool on) {
#if HAVE_CALLGRIND
  if (on != collecting)
    CALLGRIND_TOGGLE_COLLECT;
#endif
  collecting = on;
}

/* Whether case `c` is of the kind counted: judged by the probe oracle first
 * (not collected), its absent operations against its operations. */
static bool selected(sample *s, uint64_t registry, const lctx_case *c) {
  size_t ops = s->probe->ops, absent = s->probe->absent;
  lctx_oracle_check_case_registry(s->probe, c, registry);
  ops = s->probe->ops - ops;
  absent = s->probe->absent - absent;
  if (absent != 0 && absent != ops) {
    s->mixed_cases++;
    s->mixed_ops += ops;
    return false;
  }
  return (absent != 0) == (s->select == SELECT_ABSENT);
}

static bool visit(void *user, size_t index, uint64_t registry,
                  const lctx_case *c) {
  (void)index;
  sample *s = user;
  if (s->judged == s->limit)
    return false;
  s->judged++;
  if (s->select == SELECT_ALL) {
    s->violations += lctx_oracle_check_case_registry(s->oracle, c, registry);
    return true;
  }
  if (selected(s, registry, c)) {
    s->selected_cases++;
    collect(true);
    s->violations += lctx_oracle_check_case_registry(s->oracle, c, registry);
    collect(false);
  }
  return true;
}

static lctx_spec spec;
static lctx_oracle oracle, probe;

static bool parse_select(const char *text, select_kind *out) {
  static const char *const names[] = {"all", "absent", "judged"};
  for (int i = 0; i < 3; i++)
    if (strcmp(text, names[i]) == 0) {
      *out = (select_kind)i;
      return true;
    }
  return false;
}

int main(int argc, char **argv) {
  const char *release = argc > 3 ? argv[3] : LCTX_SPEC_MODELLED;
  select_kind select = SELECT_ALL;
  char *end = NULL;
  unsigned long long limit = argc > 2 ? strtoull(argv[2], &end, 10) : 0;
  if (argc < 3 || argc > 5 || !isdigit((unsigned char)*argv[2]) ||
      *end != '\0' || (argc == 5 && !parse_select(argv[4], &select))) {
    fprintf(stderr, "usage: bench_check_spec_part SPEC LIMIT [RELEASE "
                    "[all|absent|judged]]\n");
    return 2;
  }
  if (select != SELECT_ALL && !HAVE_CALLGRIND) {
    fprintf(stderr, "bench_check_spec_part: built without valgrind's "
                    "callgrind.h: no SELECT\n");
    return 2;
  }
  char error[512];
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  if (!lctx_spec_load(argv[1], &spec, &e) ||
      !lctx_spec_select(&spec, release, &e)) {
    fprintf(stderr, "bench_check_spec_part: %s\n", error);
    return 2;
  }
  const lctx_release *rel = lctx_release_find(release);
  if (!rel) {
    fprintf(stderr,
            "bench_check_spec_part: the reference model does not know JAX "
            "release '%s'\n",
            release);
    return 2;
  }
  lctx_oracle_init(&oracle, &spec, lctx_engine_reference());
  lctx_oracle_set_release(&oracle, rel);
  lctx_oracle_init(&probe, &spec, lctx_engine_reference());
  lctx_oracle_set_release(&probe, rel);
  sample s = {.oracle = &oracle,
              .probe = &probe,
              .select = select,
              .limit = (size_t)limit};
  if (select != SELECT_ALL)
    collect(false);
  static const lctx_domain_share all = {0, SIZE_MAX, 1, 0, 1};
  uint64_t generations = 0;
  lctx_domain_enumerate_registry(&all, &generations, visit, &s);
  collect(true);
  printf("%zu cases judged, %zu operations (%zu absent), %zu violations, "
         "release %s\n",
         s.judged, oracle.ops, oracle.absent, s.violations, release);
  if (select != SELECT_ALL)
    printf("select %s: %zu cases, %zu operations; %zu mixed cases (%zu "
           "operations) left out\n",
           argv[4], s.selected_cases, oracle.ops, s.mixed_cases, s.mixed_ops);
  return s.violations ? 1 : 0;
}
