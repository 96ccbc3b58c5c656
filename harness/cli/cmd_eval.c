/*
 * cmd_eval.c - `lctx eval` (see commands.h): judges case files by the spec
 * table (oracle.h), and the reference's MLIR of every successful
 * lower_per_platform by the IR checker (irexpect.h); with --cover, every
 * spec row must be reached by some case.
 */
#include "commands.h"

#include "bless.h"

#include "dirlist.h"
#include "escape.h"
#include "exit.h"
#include "file.h"
#include "irexpect.h"
#include "lctx/mlir_emit.h"
#include "options.h"
#include "workspace.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define EVAL_USAGE                                                             \
  "lctx eval [--spec FILE] [--cover] [--quiet] [--bless[=all]] FILE|DIR..."

/* --bless: 0 not given, 1 missing expect lines, 2 all of them. */
static bool parse_bless(const char *v, void *target, char *why, size_t n) {
  if (v && strcmp(v, "all") != 0) {
    snprintf(why, n, "'%s' is not all (--bless or --bless=all)", v);
    return false;
  }
  *(int *)target = v ? 2 : 1;
  return true;
}

/* The case files, in the order they are judged: at most
 * LCTX_MAX_FOLDER_FILES in all. */
typedef struct file_list {
  size_t count, capacity;
  char **paths;
} file_list;

/* One run of eval; on the heap (it holds an MLIR text of up to 1 MiB). */
typedef struct eval_run {
  lctx_workspace *ws;
  file_list files;
  /* The MLIR side, created at the first lowering to check. */
  MlirContext mlir;
  lctx_ircheck *ck;
  lctx_ir_expect_store store;
  lctx_ir_report report;
  unsigned ir_hits[8]; /* checks that exercised IR-00N */
  size_t ir_modules;   /* modules judged */
  char mlir_text[1 << 20], error[8192];
} eval_run;

static bool add_path(file_list *list, const char *path, FILE *err) {
  if (list->count >= LCTX_MAX_FOLDER_FILES) {
    fprintf(err, "lctx eval: more than %d case files\n", LCTX_MAX_FOLDER_FILES);
    return false;
  }
  if (list->count == list->capacity) {
    size_t grown = list->capacity ? 2 * list->capacity : 64;
    char **bigger = realloc(list->paths, grown * sizeof *bigger);
    if (!bigger) {
      fprintf(err, "lctx eval: out of memory\n");
      return false;
    }
    list->paths = bigger;
    list->capacity = grown;
  }
  list->paths[list->count] = strdup(path);
  if (!list->paths[list->count]) {
    fprintf(err, "lctx eval: out of memory\n");
    return false;
  }
  list->count++;
  return true;
}

/* Adds a file, or every *.case file of a folder in name order (none is
 * not an error: a run that judges nothing says so at its end). */
static bool expand(file_list *list, const char *path, FILE *err) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
    return add_path(list, path, err);
  size_t count;
  char message[1024];
  lctx_buf e;
  lctx_buf_init(&e, message, sizeof message);
  lctx_escaped b;
  char **paths = lctx_dirlist_read(path, ".case", &count, &e);
  if (!paths) {
    fprintf(err, "lctx eval: %s\n", lctx_esc(&b, message));
    return false;
  }
  bool ok = true;
  for (size_t i = 0; ok && i < count; i++)
    ok = add_path(list, paths[i], err);
  lctx_dirlist_free(paths);
  if (ok && count == 0)
    fprintf(err, "lctx eval: %s: no .case files\n", lctx_esc(&b, path));
  return ok;
}

/* Judges the reference's module of operation `i` (a lower_per_platform that
 * ran): the reason it fails, or NULL with the rows it exercised counted. */
static const char *ir_check_op(eval_run *run, const lctx_case_op *op,
                               lctx_ir_verdict *verdict) {
  lctx_runner *runner = &run->ws->runner;
  lctx_buf eb, tb;
  lctx_buf_init(&eb, run->error, sizeof run->error);
  lctx_buf_init(&tb, run->mlir_text, sizeof run->mlir_text);
  MlirModule module = {NULL};
  if (!lctx_mlir_emit(run->mlir, &runner->lowering, runner->result, op->x64,
                      &module, &eb))
    return run->error;
  lctx_mlir_print(module, &tb);
  mlirModuleDestroy(module);
  if (!lctx_ir_expect_from_lowering(&runner->lowering, runner->result, op->x64,
                                    &run->store))
    return "the lowering exceeds the IR checker's limits";
  if (!lctx_ir_judge(run->ck, lctx_buf_view(&tb), &run->store, &run->report,
                     verdict))
    return verdict->reason;
  for (int r = 0; r < 8; r++)
    run->ir_hits[r] += (verdict->applicable >> r) & 1u;
  run->ir_modules++;
  return NULL;
}

/* The MLIR side of eval: every successful lower_per_platform of the case is
 * emitted by the reference and judged by the IR checker. Returns the
 * number of violations (each printed). */
static size_t ir_check_case(eval_run *run, const char *path, FILE *out) {
  const lctx_case *c = &run->ws->c;
  if (!run->ck) {
    run->mlir = lctx_mlir_context_create();
    run->ck = lctx_ircheck_create();
  }
  size_t violations = 0;
  lctx_runner_init(&run->ws->runner, c);
  for (size_t i = 0; i < c->op_count; i++) {
    lctx_outcome *outcome = &run->ws->outcome;
    if (!lctx_runner_op(&run->ws->runner, &c->ops[i], outcome, NULL) ||
        c->ops[i].kind != LCTX_OP_LOWER_PER_PLATFORM ||
        outcome->kind == LCTX_OUTCOME_RAISE)
      continue;
    lctx_ir_verdict verdict = {0};
    const char *why = ir_check_op(run, &c->ops[i], &verdict);
    if (why) {
      violations++;
      lctx_escaped b1, b2, b3;
      fprintf(out,
              "VIOLATION %s: the reference's module at operation %zu "
              "(lower_per_platform): %s\n  in %s\n",
              lctx_esc(&b1, verdict.row[0] ? verdict.row : "IR-000"), i,
              lctx_esc(&b2, why), lctx_esc(&b3, path));
    }
  }
  return violations;
}

/* What a case needs for the IR row IR-00N to judge its module. */
static const char *const ir_needs[7] = {
    "any lower_per_platform that succeeds",
    "any lower_per_platform that succeeds",
    "a dispatch that keeps two or more rules",
    "a dispatch that keeps two or more rules",
    "a dispatch that keeps exactly one rule",
    "any lower_per_platform that succeeds",
    ("a default rule (lower_fun) whose primitive has its own platform "
     "rules, under several module platforms: JAX's nested platform-index "
     "defect"),
};

/* Prints how the IR rows are reached: on the reference's MLIR of every
 * lower_per_platform that succeeds, one count per row. */
static void print_ir_cover(const eval_run *run, FILE *out) {
  fprintf(out,
          "IR rows are judged on the MLIR the reference emits for each "
          "lower_per_platform that succeeds (lctx eval of lowering cases, "
          "and the fuzz_lowering target); modules judged: %zu\n",
          run->ir_modules);
  for (int r = 0; r < 7; r++)
    fprintf(out, "  IR-00%d: %u modules (needs %s)\n", r, run->ir_hits[r],
            ir_needs[r]);
}

/* Prints each row no case reached; returns how many. A row absent at the
 * modelled commit (a situation only older releases have, which
 * `lctx check-spec` reaches there) needs none. */
static size_t print_uncovered(const eval_run *run, FILE *out) {
  const lctx_spec *spec = &run->ws->spec;
  size_t unreached = 0, older = 0;
  print_ir_cover(run, out);
  for (size_t i = 0; i < spec->row_count; i++) {
    if (spec->rows[i].absent && run->ws->oracle.hits[i] == 0) {
      lctx_escaped b;
      fprintf(out, "%s %s",
              older++ ? ","
                      : "rows of older JAX releases only "
                        "(check-spec reaches them):",
              lctx_esc(&b, spec->rows[i].id));
      continue;
    }
    const char *id = spec->rows[i].id;
    bool ir_row = spec->rows[i].ir && strncmp(id, "IR-00", 5) == 0 &&
                  id[5] >= '0' && id[5] <= '6';
    if (ir_row ? run->ir_hits[id[5] - '0'] == 0
               : run->ws->oracle.hits[i] == 0) {
      lctx_escaped b;
      fprintf(out, "row %s has no case", lctx_esc(&b, id));
      if (ir_row)
        fprintf(out,
                ": an IR row, judged on the reference's MLIR of a "
                "lower_per_platform that succeeds; it needs %s",
                ir_needs[id[5] - '0']);
      fputc('\n', out);
      unreached++;
    }
  }
  if (older)
    fputc('\n', out);
  return unreached;
}

/* Judges every file of the list, then prints the summary. */
static int eval_files(eval_run *run, bool cover, bool quiet, FILE *out,
                      FILE *err) {
  lctx_workspace *ws = run->ws;
  lctx_violation_printer p = {.out = out, .limit = 1000};
  lctx_oracle_init(&ws->oracle, &ws->spec, lctx_engine_reference());
  lctx_workspace_print_violations(ws, &p);
  size_t passed = 0, failed = 0, bad = 0, without_expect = 0;
  for (size_t f = 0; f < run->files.count; f++) {
    const char *path = run->files.paths[f];
    lctx_escaped b;
    if (!lctx_workspace_load_case(ws, path, err)) {
      bad++;
      continue;
    }
    p.file = path;
    size_t v = lctx_oracle_check_case_expect(&ws->oracle, &ws->c, &ws->expect);
    v += ir_check_case(run, path, out);
    for (size_t k = 0; k < ws->c.op_count; k++)
      without_expect += !lctx_case_expect_has(&ws->expect, k);
    if (v == 0) {
      passed++;
      if (!quiet)
        fprintf(out, "ok   %s (%zu operations)\n", lctx_esc(&b, path),
                ws->c.op_count);
    } else {
      failed++;
      fprintf(out, "FAIL %s (%zu violations)\n", lctx_esc(&b, path), v);
    }
  }
  size_t unreached = cover ? print_uncovered(run, out) : 0;
  fprintf(out,
          "eval: %zu cases passed, %zu failed, %zu unreadable; %zu operations "
          "(%zu without an expectation)%s\n",
          passed, failed, bad, ws->oracle.ops, without_expect,
          cover ? (unreached ? "; some rows have no case"
                             : "; every row has a case")
                : "");
  if (bad)
    return LCTX_EXIT_USAGE;
  if (ws->oracle.ops == 0) {
    fprintf(out, "eval: nothing was judged\n");
    return LCTX_EXIT_VIOLATIONS;
  }
  return failed || unreached ? LCTX_EXIT_VIOLATIONS : LCTX_EXIT_OK;
}

static void free_run(eval_run *run) {
  if (!run)
    return;
  for (size_t i = 0; i < run->files.count; i++)
    free(run->files.paths[i]);
  free(run->files.paths);
  if (run->ck) {
    lctx_ircheck_destroy(run->ck);
    mlirContextDestroy(run->mlir);
  }
  lctx_workspace_destroy(run->ws);
  free(run);
}

/* `lctx eval --bless`: blesses every case file named or in a folder
 * named; the worst exit code. */
static int bless_files(const char *spec_path, char **paths, size_t count,
                       bool all, FILE *out, FILE *err) {
  eval_run *run = calloc(1, sizeof *run);
  if (run)
    run->ws = lctx_workspace_create(err);
  bool ok = run && run->ws && lctx_workspace_load_spec(run->ws, spec_path, err);
  for (size_t i = 0; ok && i < count; i++)
    ok = expand(&run->files, paths[i], err);
  int code = ok ? LCTX_EXIT_OK : LCTX_EXIT_USAGE;
  for (size_t f = 0; ok && f < run->files.count; f++) {
    const char *path = run->files.paths[f];
    int rc = lctx_workspace_load_case(run->ws, path, err)
                 ? lctx_bless_case(run->ws, path, all, out, err)
                 : LCTX_EXIT_USAGE;
    code = rc > code ? rc : code;
  }
  free_run(run);
  return code;
}

int lctx_cmd_eval(int argc, char **argv, FILE *out, FILE *err) {
  const char *spec_path;
  bool cover = false, quiet = false;
  int bless = 0;
  const lctx_option options[] = {
      lctx_workspace_spec_option(&spec_path),
      lctx_options_flag("cover", &cover,
                        "also fail when a spec row has no case"),
      lctx_options_flag("quiet", &quiet,
                        "print failing cases only, not an ok line per case"),
      lctx_options_optional(
          "bless", &bless, "all",
          "write the reference's outcomes as expect lines after each op\n"
          "without one (=all: rewrite every expect line); refused when\n"
          "the spec table does not allow an outcome",
          parse_bless),
  };
  int first;
  LCTX_OPTIONS_PARSE_OR_RETURN(
      &LCTX_OPTIONS_SPEC("eval", "usage: " EVAL_USAGE "\n", options, true),
      argc, argv, &first, out, err);
  if (first >= argc) {
    fprintf(err, "lctx eval: no case files given (usage: " EVAL_USAGE ")\n");
    return LCTX_EXIT_USAGE;
  }
  if (bless)
    return bless_files(spec_path, argv + first, (size_t)(argc - first),
                       bless == 2, out, err);
  return lctx_eval_run(spec_path, (const char *const *)argv + first,
                       (size_t)(argc - first), cover, quiet, out, err);
}

int lctx_eval_run(const char *spec_path, const char *const *paths, size_t count,
                  bool cover, bool quiet, FILE *out, FILE *err) {
  eval_run *run = calloc(1, sizeof *run);
  if (run)
    run->ws = lctx_workspace_create(err);
  else
    fprintf(err, "lctx: out of memory\n");
  int code = LCTX_EXIT_USAGE;
  bool ok = run && run->ws && lctx_workspace_load_spec(run->ws, spec_path, err);
  for (size_t i = 0; ok && i < count; i++)
    ok = expand(&run->files, paths[i], err);
  if (ok)
    code = eval_files(run, cover, quiet, out, err);
  free_run(run);
  return code;
}
