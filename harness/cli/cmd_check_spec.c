/*
 * cmd_check_spec.c - `lctx check-spec` (see commands.h): the spec table
 * against the reference over the whole bounded domain (domain.h), with the
 * hits of each row.
 */
#include "commands.h"

#include "domain.h"
#include "escape.h"
#include "exit.h"
#include "options.h"
#include "sys.h"
#include "workspace.h"

#include <stdlib.h>

#define CHECK_SPEC_USAGE "usage: lctx check-spec [--spec FILE] [--quiet]\n"

static bool check_visit(void *user, const lctx_case *c) {
  lctx_oracle_check_case(user, c);
  return true;
}

/* Prints the hits of each row (only the unreached with --quiet); returns
 * how many rows the domain does not reach. */
static size_t print_hits(const lctx_oracle *oracle, const lctx_spec *spec,
                         bool quiet, FILE *out) {
  if (!quiet)
    fprintf(out, "hits per row:\n");
  size_t ir_rows = 0, unreached = 0;
  for (size_t i = 0; i < spec->row_count; i++) {
    if (spec->rows[i].ir) {
      ir_rows++; /* judged on MLIR: lctx eval and fuzz_lowering */
      continue;
    }
    lctx_escaped b;
    if (!quiet || oracle->hits[i] == 0)
      fprintf(out, "  %-8s %9zu%s\n", lctx_esc(&b, spec->rows[i].id),
              oracle->hits[i],
              oracle->hits[i] == 0 ? "  NOT REACHED by the domain" : "");
    unreached += oracle->hits[i] == 0;
  }
  if (ir_rows)
    fprintf(out,
            "(%zu IR rows are judged on emitted MLIR, by lctx eval and "
            "fuzz_lowering, not here)\n",
            ir_rows);
  return unreached;
}

static int check_spec(lctx_workspace *ws, const char *spec_path, bool quiet,
                      FILE *out) {
  lctx_oracle *oracle = &ws->oracle;
  lctx_violation_printer p = {.out = out, .limit = 20};
  lctx_oracle_init(oracle, &ws->spec, lctx_engine_reference());
  lctx_workspace_print_violations(ws, &p);
  double start = lctx_sys_now();
  size_t cases = lctx_domain_enumerate(check_visit, oracle);
  double elapsed = lctx_sys_now() - start;
  lctx_escaped b1, b2;
  fprintf(out,
          "check-spec: spec %s (version %s, %zu rows) against the reference\n"
          "domain: %zu registry configurations, %zu names, %zu cases, %zu "
          "operations, %zu invariant runs, %.2f s\n",
          lctx_esc(&b1, spec_path), lctx_esc(&b2, ws->spec.version),
          ws->spec.row_count, lctx_domain_registry_count(),
          lctx_domain_alphabet_size(), cases, oracle->ops,
          oracle->invariant_checks, elapsed);
  size_t unreached = print_hits(oracle, &ws->spec, quiet, out);
  if (p.shown > p.limit)
    fprintf(out, "(%zu more violations not shown)\n", p.shown - p.limit);
  bool pass = oracle->violations == 0 && unreached == 0;
  fprintf(out, "result: %zu violations, %zu rows not reached: %s\n",
          oracle->violations, unreached, pass ? "PASS" : "FAIL");
  return pass ? LCTX_EXIT_OK : LCTX_EXIT_VIOLATIONS;
}

int lctx_cmd_check_spec(int argc, char **argv, FILE *out, FILE *err) {
  const char *spec_path;
  bool quiet = false;
  const lctx_option options[] = {
      lctx_workspace_spec_option(&spec_path),
      lctx_options_flag(
          "quiet", &quiet,
          "print only the rows no case reaches, not every row's hits"),
  };
  int first;
  LCTX_OPTIONS_PARSE_OR_RETURN(
      &LCTX_OPTIONS_SPEC("check-spec", CHECK_SPEC_USAGE, options, false), argc,
      argv, &first, out, err);
  return lctx_check_spec_run(spec_path, quiet, out, err);
}

int lctx_check_spec_run(const char *spec_path, bool quiet, FILE *out,
                        FILE *err) {
  lctx_workspace *ws = lctx_workspace_create(err);
  int code = LCTX_EXIT_USAGE;
  if (ws && lctx_workspace_load_spec(ws, spec_path, err))
    code = check_spec(ws, spec_path, quiet, out);
  lctx_workspace_destroy(ws);
  return code;
}
