/*
 * cmd_explain.c - `lctx explain` (see commands.h): runs a case operation
 * by operation with the registry's decision trace on, and prints each
 * outcome, what a lowering ran per platform index, the spec rows that
 * apply (oracle.h), and the case's verdict.
 */
#include "commands.h"

#include "escape.h"
#include "exit.h"
#include "options.h"
#include "workspace.h"

#define EXPLAIN_USAGE "lctx explain [--spec FILE] FILE"

#include <string.h>

static void trace_line(void *user, const char *event) {
  FILE *out = user;
  fputs("    trace: ", out);
  lctx_escape_write(out, event, strlen(event));
  fputc('\n', out);
}

/* What the lower_per_platform that just ran did, and what each platform
 * index runs in the module. */
static void print_lowering(lctx_workspace *ws, FILE *out) {
  const lctx_runner *runner = &ws->runner;
  const lctx_lowering_result *result = runner->result;
  lctx_buf b;
  lctx_buf_init(&b, ws->text, sizeof ws->text);
  lctx_lowering_format_events(&runner->lowering, result, &b);
  fprintf(out, "    lowering:\n");
  lctx_workspace_print_lines(out, "      ", ws->text);
  for (size_t k = 0; result->evaluated && k < result->index_count; k++) {
    lctx_buf_reset(&b);
    lctx_lowering_format_path(&runner->lowering, result, &result->actual[k],
                              &b);
    fprintf(out, "    index %zu (", k);
    lctx_escape_write(out, result->index_platforms[k].data,
                      result->index_platforms[k].length);
    fputs(") runs: ", out);
    lctx_escape_write(out, ws->text, strlen(ws->text));
    fprintf(out, "%s\n",
            result->mismatch[k]
                ? "  (JAX's nested platform-index defect: not the "
                  "intended rules)"
                : "");
  }
}

/* Runs operation `i` of ws->c and prints what it did and why. */
static void explain_op(lctx_workspace *ws, size_t i, FILE *out) {
  const lctx_case_op *op = &ws->c.ops[i];
  fprintf(out, "operation %zu: %s\n", i, lctx_op_kind_name(op->kind));
  lctx_module_branch branch;
  lctx_runner_op(&ws->runner, op, &ws->outcome, &branch);
  if (op->kind == LCTX_OP_MODULE_GET_BACKEND)
    fprintf(out, "    branch: %s\n", lctx_module_branch_name(branch));
  if (op->kind == LCTX_OP_LOWER_PER_PLATFORM)
    print_lowering(ws, out);
  lctx_buf b;
  lctx_buf_init(&b, ws->text, sizeof ws->text);
  lctx_outcome_format(&ws->outcome, &b);
  fputs("    outcome: ", out);
  lctx_escape_write(out, ws->text, strlen(ws->text));
  fputc('\n', out);
  lctx_buf_reset(&b);
  lctx_oracle_explain(&ws->oracle, &ws->c, i, &b);
  lctx_workspace_print_lines(out, "    ", ws->text);
}

static int explain(lctx_workspace *ws, const char *path, FILE *out) {
  lctx_oracle_init(&ws->oracle, &ws->spec, lctx_engine_reference());
  lctx_runner_init(&ws->runner, &ws->c);
  lctx_registry_set_trace(&ws->runner.registry, trace_line, out);
  for (size_t i = 0; i < ws->c.op_count; i++)
    explain_op(ws, i, out);
  lctx_violation_printer p = {.out = out, .limit = 100, .file = path};
  lctx_workspace_print_violations(ws, &p);
  size_t v = lctx_oracle_check_case(&ws->oracle, &ws->c);
  fprintf(out, "verdict: %s (%zu violations)\n", v ? "FAIL" : "ok", v);
  return v ? LCTX_EXIT_VIOLATIONS : LCTX_EXIT_OK;
}

int lctx_cmd_explain(int argc, char **argv, FILE *out, FILE *err) {
  const char *spec_path;
  const lctx_option options[] = {lctx_workspace_spec_option(&spec_path)};
  int first;
  LCTX_OPTIONS_PARSE_OR_RETURN(&LCTX_OPTIONS_SPEC("explain",
                                                  "usage: " EXPLAIN_USAGE "\n",
                                                  options, true),
                               argc, argv, &first, out, err);
  if (argc - first != 1) {
    fprintf(err, "lctx explain: expected one case file (usage: " EXPLAIN_USAGE
                 ")\n");
    return LCTX_EXIT_USAGE;
  }
  lctx_workspace *ws = lctx_workspace_create(err);
  int code = LCTX_EXIT_USAGE;
  if (ws && lctx_workspace_load_spec(ws, spec_path, err) &&
      lctx_workspace_load_case(ws, argv[first], err))
    code = explain(ws, argv[first], out);
  lctx_workspace_destroy(ws);
  return code;
}
