/*
 * cmd_check_spec.c - `lctx check-spec` (see commands.h): the spec table
 * against the reference over the whole bounded domain (domain.h), with the
 * hits of each row, at every JAX release the table names (each against the
 * model at that release) or at the one --jax names, on --jobs threads
 * (check_jobs.h) with the output of one.
 */
#include "commands.h"

#include "check_jobs.h"
#include "domain.h"
#include "escape.h"
#include "exit.h"
#include "numbers.h"
#include "options.h"
#include "sys.h"
#include "workspace.h"

#include <stdlib.h>
#include <string.h>

#define CHECK_SPEC_USAGE                                                       \
  "usage: lctx check-spec [--spec FILE] [--jax RELEASE] [--jobs N] "           \
  "[--quiet]\n"

/* What the releases checked add up to. */
typedef struct totals {
  size_t releases;
  size_t cases;
  size_t ops;
  size_t absent;
  size_t invariants;
  size_t violations;
  double seconds;
  size_t hits[LCTX_SPEC_MAX_ROWS];
} totals;

static bool check_visit(void *user, size_t index, uint64_t registry,
                        const lctx_case *c) {
  (void)index;
  lctx_oracle_check_case_registry(user, c, registry);
  return true;
}

/* Prints the hits of each row (only the unreached with --quiet); returns
 * how many rows the domain does not reach. */
static size_t print_hits(const totals *t, const lctx_spec *spec, bool quiet,
                         FILE *out) {
  if (!quiet)
    fprintf(out, "hits per row%s:\n",
            t->releases > 1 ? " (over every release)" : "");
  size_t ir_rows = 0, unreached = 0;
  for (size_t i = 0; i < spec->row_count; i++) {
    if (spec->rows[i].ir) {
      ir_rows++; /* judged on MLIR: lctx eval and fuzz_lowering */
      continue;
    }
    lctx_escaped b;
    if (!quiet || t->hits[i] == 0)
      fprintf(out, "  %-8s %9zu%s\n", lctx_esc(&b, spec->rows[i].id),
              t->hits[i], t->hits[i] == 0 ? "  NOT REACHED by the domain" : "");
    unreached += t->hits[i] == 0;
  }
  if (ir_rows)
    fprintf(out,
            "(%zu IR rows are judged on emitted MLIR, by lctx eval and "
            "fuzz_lowering, not here)\n",
            ir_rows);
  return unreached;
}

/* The domain judged on one thread, as check-spec always did: violations
 * printed as they are found. */
static bool check_one_thread(lctx_workspace *ws, const lctx_release *rel,
                             lctx_violation_printer *p,
                             lctx_check_jobs_result *r) {
  lctx_oracle *oracle = &ws->oracle;
  lctx_oracle_init(oracle, &ws->spec, lctx_engine_reference());
  lctx_oracle_set_release(oracle, rel);
  lctx_workspace_print_violations(ws, p);
  static const lctx_domain_share all = {0, SIZE_MAX, 1, 0, 1};
  uint64_t generations = 0; /* the oracle sees this walk's only */
  r->cases =
      lctx_domain_enumerate_registry(&all, &generations, check_visit, oracle);
  r->ops = oracle->ops;
  r->absent = oracle->absent;
  r->violations = oracle->violations;
  r->invariant_checks = oracle->invariant_checks;
  memcpy(r->hits, oracle->hits, sizeof r->hits);
  return r->cases > 0;
}

/* The domain judged on `jobs` threads; then the cases of the first
 * violations judged again, in the domain's order, to print them as one
 * thread does (up to the printer's limit, the others counted). */
static bool check_threads(lctx_workspace *ws, const lctx_release *rel,
                          size_t jobs, lctx_violation_printer *p,
                          lctx_check_jobs_result *r) {
  size_t left = p->shown < p->limit ? p->limit - p->shown : 0;
  if (!lctx_check_jobs_run(&ws->spec, rel, jobs, left, r))
    return false;
  size_t shown = p->shown;
  lctx_oracle *oracle = &ws->oracle;
  lctx_oracle_init(oracle, &ws->spec, lctx_engine_reference());
  lctx_oracle_set_release(oracle, rel);
  lctx_workspace_print_violations(ws, p);
  for (size_t i = 0; i < r->first_count && p->shown < p->limit; i++)
    if (!lctx_check_jobs_replay(oracle, r->first[i]))
      return false;
  p->shown = shown + r->violations;
  return true;
}

/* Checks the table at release `index` against the model at that release,
 * adding to `t`; false (said on err) when the model does not know it, or
 * there is no memory to check it. */
static bool check_release(lctx_workspace *ws, size_t index, size_t jobs,
                          lctx_violation_printer *p, totals *t, FILE *out,
                          FILE *err) {
  lctx_spec *spec = &ws->spec;
  const char *name = lctx_spec_release_name(spec, index);
  char e[512];
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  const lctx_release *rel = lctx_release_find(name);
  if (!lctx_spec_select(spec, name, &eb) || !rel) {
    lctx_escaped b;
    fprintf(err,
            "lctx check-spec: the reference model does not know JAX "
            "release '%s'\n",
            lctx_esc(&b, name));
    return false;
  }
  lctx_check_jobs_result *r = malloc(sizeof *r);
  double start = lctx_sys_now();
  bool done = r && (jobs == 1 ? check_one_thread(ws, rel, p, r)
                              : check_threads(ws, rel, jobs, p, r));
  double elapsed = lctx_sys_now() - start;
  if (!done) {
    free(r);
    fprintf(err, "lctx check-spec: out of memory\n");
    return false;
  }
  fprintf(out,
          "release %-8s %9zu operations (%zu absent), %zu violations, "
          "%.3f s\n",
          name, r->ops, r->absent, r->violations, elapsed);
  t->releases++;
  t->cases = r->cases;
  t->ops += r->ops;
  t->absent += r->absent;
  t->invariants += r->invariant_checks;
  t->violations += r->violations;
  t->seconds += elapsed;
  for (size_t i = 0; i < spec->row_count; i++)
    t->hits[i] += r->hits[i];
  free(r);
  return true;
}

/* Checks the table at release `only` (NULL: every release it names, and
 * the modelled commit). */
static int check_spec(lctx_workspace *ws, const char *spec_path,
                      const char *only, size_t jobs, bool quiet, FILE *out,
                      FILE *err) {
  lctx_spec *spec = &ws->spec;
  int first = lctx_spec_release_index(spec, only);
  if (only && first < 0) {
    char e[512];
    lctx_buf eb;
    lctx_buf_init(&eb, e, sizeof e);
    lctx_spec_select(spec, only, &eb);
    lctx_escaped b;
    fprintf(err, "lctx check-spec: --jax: %s\n", lctx_esc(&b, e));
    return LCTX_EXIT_USAGE;
  }
  size_t from = only ? (size_t)first : 0;
  size_t to = only ? (size_t)first : spec->release_count;
  lctx_escaped b1, b2;
  fprintf(out,
          "check-spec: spec %s (version %s, %zu rows) against the reference, "
          "at %zu JAX release%s\n",
          lctx_esc(&b1, spec_path), lctx_esc(&b2, spec->version),
          spec->row_count, to - from + 1, to == from ? "" : "s");
  totals *t = calloc(1, sizeof *t);
  lctx_violation_printer p = {.out = out, .limit = 20};
  bool known = t != NULL;
  for (size_t r = from; known && r <= to; r++) {
    /* A release where the model and the table both say what they say at a
     * release already checked is that check again: said, not rerun. */
    size_t same = r;
    for (size_t k = from; k < r && same == r && r != spec->modelled; k++) {
      const lctx_release *a =
          lctx_release_find(lctx_spec_release_name(spec, k));
      const lctx_release *b =
          lctx_release_find(lctx_spec_release_name(spec, r));
      if (a && b && lctx_release_same_behaviour(a, b) &&
          lctx_spec_same_at(spec, k, r))
        same = k;
    }
    if (same != r) {
      fprintf(out,
              "release %-8s the model and the table say what they say at "
              "%s (checked above)\n",
              lctx_spec_release_name(spec, r),
              lctx_spec_release_name(spec, same));
      t->releases++;
      continue;
    }
    known = check_release(ws, r, jobs, &p, t, out, err);
  }
  if (!known) {
    free(t);
    return LCTX_EXIT_USAGE;
  }
  fprintf(out,
          "domain: %zu registry configurations, %zu names, %zu cases, %zu "
          "operations (%zu absent), %zu invariant runs, %.3f s\n",
          lctx_domain_registry_count(), lctx_domain_alphabet_size(), t->cases,
          t->ops, t->absent, t->invariants, t->seconds);
  size_t unreached = print_hits(t, spec, quiet, out);
  if (p.shown > p.limit)
    fprintf(out, "(%zu more violations not shown)\n", p.shown - p.limit);
  /* One release alone need not reach the rows of situations only other
   * releases have; every release together must reach every row. */
  bool counted = !only;
  bool pass = t->violations == 0 && (unreached == 0 || !counted);
  fprintf(out, "result: %zu violations, %zu rows not reached%s: %s\n",
          t->violations, unreached,
          counted || unreached == 0
              ? ""
              : " at this release (not counted: without --jax, every row "
                "must be reached at some release)",
          pass ? "PASS" : "FAIL");
  free(t);
  return pass ? LCTX_EXIT_OK : LCTX_EXIT_VIOLATIONS;
}

int lctx_cmd_check_spec(int argc, char **argv, FILE *out, FILE *err) {
  const char *spec_path;
  const char *jax = NULL;
  bool quiet = false;
  size_t jobs = 0; /* not given: the machine's cores */
  const lctx_option options[] = {
      lctx_workspace_spec_option(&spec_path),
      lctx_options_string(
          "jax", &jax, "RELEASE",
          "check only as JAX RELEASE behaves: one the table names\n"
          "(`releases`), or \"modelled\" (default: every one)"),
      lctx_options_size("jobs", &jobs, "N",
                        "threads judging the domain, 1 to 256 (default: the\n"
                        "online cores); the output is the same",
                        1, LCTX_CHECK_JOBS_MAX, "a whole number from 1 to 256"),
      lctx_options_flag(
          "quiet", &quiet,
          "print only the rows no case reaches, not every row's hits"),
  };
  int first;
  LCTX_OPTIONS_PARSE_OR_RETURN(
      &LCTX_OPTIONS_SPEC("check-spec", CHECK_SPEC_USAGE, options, false), argc,
      argv, &first, out, err);
  lctx_workspace *ws = lctx_workspace_create(err);
  int code = LCTX_EXIT_USAGE;
  if (ws && lctx_workspace_load_spec(ws, spec_path, err))
    code = check_spec(ws, spec_path, jax,
                      jobs ? jobs : lctx_numbers_cores(LCTX_CHECK_JOBS_MAX),
                      quiet, out, err);
  lctx_workspace_destroy(ws);
  return code;
}

int lctx_check_spec_run(const char *spec_path, bool quiet, FILE *out,
                        FILE *err) {
  lctx_workspace *ws = lctx_workspace_create(err);
  int code = LCTX_EXIT_USAGE;
  if (ws && lctx_workspace_load_spec(ws, spec_path, err))
    code = check_spec(ws, spec_path, NULL,
                      lctx_numbers_cores(LCTX_CHECK_JOBS_MAX), quiet, out, err);
  lctx_workspace_destroy(ws);
  return code;
}
