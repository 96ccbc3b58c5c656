/*
 * cmd_explain.c - `lctx explain` (see commands.h): runs a case operation
 * by operation with the registry's decision trace on, and prints each
 * outcome, what a lowering ran per platform index, the spec rows that
 * apply (oracle.h), and the case's verdict. A lower_per_platform that
 * succeeds is also emitted as MLIR and judged by the IR checker
 * (irexpect.h): the IR rows that judged the module and what each reported
 * are printed, and with --mlir the module itself.
 */
#include "commands.h"

#include "escape.h"
#include "exit.h"
#include "irexpect.h"
#include "lctx/mlir_emit.h"
#include "options.h"
#include "workspace.h"

#define EXPLAIN_USAGE "lctx explain [--spec FILE] [--mlir] FILE"

#include <stdlib.h>
#include <string.h>

/* The MLIR side of one explain run, on the heap; created at the first
 * lowering that succeeds. */
typedef struct explain_ir {
  bool print_module;
  bool created;
  MlirContext mlir;
  lctx_ircheck *ck;
  lctx_ir_expect_store store;
  lctx_ir_report report;
  char text[1 << 20], error[8192];
} explain_ir;

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

/* Prints the IR rows that judged the module, what each reported and the
 * verdict on it. */
static void print_ir_rows(const explain_ir *ir, const lctx_ir_verdict *v,
                          FILE *out) {
  fputs("    IR rows that judged the module:", out);
  for (int r = 0; r < 7; r++)
    if ((v->applicable >> r) & 1u)
      fprintf(out, " IR-00%d", r);
  fputc('\n', out);
  for (size_t k = 0; k < ir->report.count; k++) {
    const lctx_ir_violation *iv = &ir->report.violations[k];
    bool defect = strcmp(iv->row, "IR-006") == 0 && ir->store.any_defect;
    fprintf(out, "    %s reported%s: ", iv->row,
            defect ? " (JAX's nested platform-index defect is present, as "
                     "expected)"
                   : "");
    lctx_escape_write(out, iv->message, strlen(iv->message));
    fputc('\n', out);
  }
  if (v->ok) {
    fputs("    IR verdict: ok\n", out);
    return;
  }
  fprintf(out, "    IR verdict: %s violated: ", v->row);
  lctx_escape_write(out, v->reason, strlen(v->reason));
  fputc('\n', out);
}

/* Emits the reference's module of the lowering that just ran, prints it
 * with --mlir, and judges it by the IR checker. */
static void explain_ir_op(lctx_workspace *ws, explain_ir *ir,
                          const lctx_case_op *op, FILE *out) {
  if (!ir->created) {
    ir->mlir = lctx_mlir_context_create();
    ir->ck = lctx_ircheck_create();
    ir->created = true;
  }
  const lctx_runner *runner = &ws->runner;
  lctx_buf eb, tb;
  lctx_buf_init(&eb, ir->error, sizeof ir->error);
  lctx_buf_init(&tb, ir->text, sizeof ir->text);
  MlirModule module = {NULL};
  if (!ir->ck || !lctx_mlir_emit(ir->mlir, &runner->lowering, runner->result,
                                 op->x64, &module, &eb)) {
    fputs("    mlir: not emitted: ", out);
    lctx_escape_write(out, ir->error, strlen(ir->error));
    fputc('\n', out);
    return;
  }
  lctx_mlir_print(module, &tb);
  mlirModuleDestroy(module);
  if (ir->print_module) {
    fputs("    mlir (the reference's module):\n", out);
    /* MLIR escapes the bytes of its strings itself. */
    lctx_escape_built_lines(out, "      ", ir->text);
  }
  if (!lctx_ir_expect_from_lowering(&runner->lowering, runner->result, op->x64,
                                    &ir->store)) {
    fputs("    IR rows: not judged (the lowering exceeds the IR checker's "
          "limits)\n",
          out);
    return;
  }
  lctx_ir_verdict verdict;
  lctx_ir_judge(ir->ck, lctx_buf_view(&tb), &ir->store, &ir->report, &verdict);
  print_ir_rows(ir, &verdict, out);
}

/* Runs operation `i` of ws->c and prints what it did and why. */
static void explain_op(lctx_workspace *ws, explain_ir *ir, size_t i,
                       FILE *out) {
  const lctx_case_op *op = &ws->c.ops[i];
  fprintf(out, "operation %zu: %s\n", i, lctx_op_kind_name(op->kind));
  lctx_module_branch branch;
  lctx_runner_op(&ws->runner, op, &ws->outcome, &branch);
  if (op->kind == LCTX_OP_MODULE_GET_BACKEND)
    fprintf(out, "    branch: %s\n", lctx_module_branch_name(branch));
  if (op->kind == LCTX_OP_LOWER_PER_PLATFORM)
    print_lowering(ws, out);
  if (op->kind == LCTX_OP_LOWER_PER_PLATFORM &&
      ws->outcome.kind != LCTX_OUTCOME_RAISE && ws->runner.result)
    explain_ir_op(ws, ir, op, out);
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

static int explain(lctx_workspace *ws, explain_ir *ir, const char *path,
                   FILE *out) {
  lctx_oracle_init(&ws->oracle, &ws->spec, lctx_engine_reference());
  lctx_runner_init(&ws->runner, &ws->c);
  lctx_registry_set_trace(&ws->runner.registry, trace_line, out);
  for (size_t i = 0; i < ws->c.op_count; i++)
    explain_op(ws, ir, i, out);
  lctx_violation_printer p = {.out = out, .limit = 100, .file = path};
  lctx_workspace_print_violations(ws, &p);
  size_t v = lctx_oracle_check_case_expect(&ws->oracle, &ws->c, &ws->expect);
  fprintf(out, "verdict: %s (%zu violations)\n", v ? "FAIL" : "ok", v);
  return v ? LCTX_EXIT_VIOLATIONS : LCTX_EXIT_OK;
}

int lctx_cmd_explain(int argc, char **argv, FILE *out, FILE *err) {
  const char *spec_path;
  bool print_module = false;
  const lctx_option options[] = {
      lctx_workspace_spec_option(&spec_path),
      lctx_options_flag("mlir", &print_module,
                        "print the reference's module of each lowering that "
                        "succeeds (the IR rows that judged it are always "
                        "printed)")};
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
  explain_ir *ir = calloc(1, sizeof *ir);
  if (!ir)
    fprintf(err, "lctx explain: out of memory\n");
  int code = LCTX_EXIT_USAGE;
  if (ws && ir) {
    ir->print_module = print_module;
    if (lctx_workspace_load_spec(ws, spec_path, err) &&
        lctx_workspace_load_case(ws, argv[first], err))
      code = explain(ws, ir, argv[first], out);
  }
  if (ir && ir->created) {
    lctx_ircheck_destroy(ir->ck);
    mlirContextDestroy(ir->mlir);
  }
  free(ir);
  lctx_workspace_destroy(ws);
  return code;
}
