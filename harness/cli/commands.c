/*
 * commands.c - case and spec subcommands (see commands.h).
 */
#include "commands.h"
#include "sys.h"

#include "case_bytes.h"
#include "case_text.h"
#include "cli.h"
#include "domain.h"
#include "irexpect.h"
#include "lctx/mlir_emit.h"
#include "oracle.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Large buffers, shared by the commands (the CLI is single-threaded). */
static lctx_spec g_spec;
static lctx_case g_case;
static char g_text[LCTX_CASE_TEXT_MAX];
static char g_file[1 << 20];

/* Reads a whole file into g_file; returns its size or -1 (message on err). */
static long read_file(const char *path, FILE *err) {
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (!f) {
    fprintf(err, "lctx: %s: cannot open: %s\n", path, strerror(errno));
    return -1;
  }
  size_t n = fread(g_file, 1, sizeof g_file, f);
  bool too_big = n == sizeof g_file;
  bool failed = ferror(f) != 0;
  if (f != stdin)
    fclose(f);
  if (failed || too_big) {
    fprintf(err, "lctx: %s: %s\n", path,
            too_big ? "file larger than 1 MiB" : "read error");
    return -1;
  }
  return (long)n;
}

static bool load_case(const char *path, lctx_case *c, FILE *err) {
  long n = read_file(path, err);
  if (n < 0)
    return false;
  char message[1024];
  lctx_buf e;
  lctx_buf_init(&e, message, sizeof message);
  if (!lctx_case_parse(g_file, (size_t)n, path, c, &e)) {
    fprintf(err, "lctx: %s\n", message);
    return false;
  }
  return true;
}

static bool load_spec(const char *path, FILE *err) {
  char message[1024];
  lctx_buf e;
  lctx_buf_init(&e, message, sizeof message);
  if (!lctx_spec_load(path, &g_spec, &e)) {
    fprintf(err, "lctx: %s\n", message);
    return false;
  }
  return true;
}

/* Options shared by the commands: --spec FILE. Returns the index of the
 * first operand, or -1 after printing a usage error. */
static int parse_options(int argc, char **argv, const char **spec_path,
                         bool *flag, const char *flag_name, bool *quiet,
                         FILE *err) {
  int i = 1;
  for (; i < argc; i++) {
    if (quiet && strcmp(argv[i], "--quiet") == 0) {
      *quiet = true;
      continue;
    }
    if (strcmp(argv[i], "--spec") == 0) {
      if (i + 1 >= argc) {
        fprintf(err, "lctx %s: --spec needs a file\n", argv[0]);
        return -1;
      }
      *spec_path = argv[++i];
    } else if (flag_name && strcmp(argv[i], flag_name) == 0) {
      *flag = true;
    } else if (strcmp(argv[i], "--") == 0) {
      return i + 1;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      fprintf(err, "lctx %s: unknown option '%s'\n", argv[0], argv[i]);
      return -1;
    } else {
      break;
    }
  }
  return i;
}

//===----------------------------------------------------------------------===//
// Violation printing
//===----------------------------------------------------------------------===//

typedef struct printer {
  FILE *out;
  size_t shown;
  size_t limit;
  const char *file;
} printer;

static void print_violation(void *user, const lctx_violation *v) {
  printer *p = user;
  if (p->shown++ >= p->limit)
    return;
  lctx_buf b;
  lctx_buf_init(&b, g_text, sizeof g_text);
  lctx_case_print(v->c, &b);
  fprintf(p->out, "VIOLATION %s%s%s: %s at operation %zu (%s)",
          p->file ? p->file : "", p->file ? " " : "", v->row[0] ? v->row : "-",
          lctx_violation_kind_name(v->kind), v->op_index,
          lctx_op_kind_name(v->c->ops[v->op_index].kind));
  if (v->invariant[0])
    fprintf(p->out, " [%s]", v->invariant);
  fprintf(p->out, "\n  features: %s\n  expected: %s\n  actual:   %s\n  case:\n",
          v->features, v->expected, v->actual);
  for (const char *line = g_text; *line;) {
    const char *nl = strchr(line, '\n');
    int len = nl ? (int)(nl - line) : (int)strlen(line);
    fprintf(p->out, "    %.*s\n", len, line);
    line += len + (nl ? 1 : 0);
  }
}

//===----------------------------------------------------------------------===//
// check-spec
//===----------------------------------------------------------------------===//

typedef struct check_run {
  lctx_oracle oracle;
} check_run;

static bool check_visit(void *user, const lctx_case *c) {
  check_run *run = user;
  lctx_oracle_check_case(&run->oracle, c);
  return true;
}

int lctx_cmd_check_spec(int argc, char **argv, FILE *out, FILE *err) {
  const char *spec_path = lctx_sys_default_spec_path();
  bool quiet = false;
  int first = parse_options(argc, argv, &spec_path, NULL, NULL, &quiet, err);
  if (first < 0)
    return LCTX_EXIT_USAGE;
  if (first < argc) {
    fprintf(err, "lctx check-spec: unexpected argument '%s'\n", argv[first]);
    return LCTX_EXIT_USAGE;
  }
  if (!load_spec(spec_path, err))
    return LCTX_EXIT_USAGE;
  static check_run run;
  printer p = {out, 0, 20, NULL};
  lctx_oracle_init(&run.oracle, &g_spec, lctx_engine_reference());
  run.oracle.on_violation = print_violation;
  run.oracle.user = &p;
  double start = lctx_sys_now();
  size_t cases = lctx_domain_enumerate(check_visit, &run);
  double elapsed = lctx_sys_now() - start;
  size_t unreached = 0;
  fprintf(out,
          "check-spec: spec %s (version %s, %zu rows) against the reference\n"
          "domain: %zu registry configurations, %zu names, %zu cases, %zu "
          "operations, %zu invariant runs, %.2f s\n",
          spec_path, g_spec.version, g_spec.row_count,
          lctx_domain_registry_count(), lctx_domain_alphabet_size(), cases,
          run.oracle.ops, run.oracle.invariant_checks, elapsed);
  if (!quiet)
    fprintf(out, "hits per row:\n");
  size_t ir_rows = 0;
  for (size_t i = 0; i < g_spec.row_count; i++) {
    if (g_spec.rows[i].ir) {
      ir_rows++; /* judged on MLIR: lctx eval and fuzz_lowering */
      continue;
    }
    if (!quiet || run.oracle.hits[i] == 0)
      fprintf(out, "  %-8s %9zu%s\n", g_spec.rows[i].id, run.oracle.hits[i],
              run.oracle.hits[i] == 0 ? "  NOT REACHED by the domain" : "");
    unreached += run.oracle.hits[i] == 0;
  }
  if (ir_rows)
    fprintf(out,
            "(%zu IR rows are judged on emitted MLIR, by lctx eval and "
            "fuzz_lowering, not here)\n",
            ir_rows);
  if (p.shown > p.limit)
    fprintf(out, "(%zu more violations not shown)\n", p.shown - p.limit);
  fprintf(out, "result: %zu violations, %zu rows not reached: %s\n",
          run.oracle.violations, unreached,
          run.oracle.violations == 0 && unreached == 0 ? "PASS" : "FAIL");
  return run.oracle.violations == 0 && unreached == 0 ? LCTX_EXIT_OK
                                                      : LCTX_EXIT_VIOLATIONS;
}

//===----------------------------------------------------------------------===//
// eval
//===----------------------------------------------------------------------===//

#define MAX_CASE_FILES 4096

typedef struct file_list {
  size_t count;
  char *paths[MAX_CASE_FILES];
} file_list;

static int compare_paths(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool add_path(file_list *list, const char *path, FILE *err) {
  if (list->count >= MAX_CASE_FILES) {
    fprintf(err, "lctx eval: more than %d case files\n", MAX_CASE_FILES);
    return false;
  }
  list->paths[list->count] = strdup(path);
  if (!list->paths[list->count]) {
    fprintf(err, "lctx eval: out of memory\n");
    return false;
  }
  list->count++;
  return true;
}

/* Adds a file, or every *.case file of a directory in name order. */
static bool expand(file_list *list, const char *path, FILE *err) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
    return add_path(list, path, err);
  DIR *dir = opendir(path);
  if (!dir) {
    fprintf(err, "lctx eval: %s: cannot open directory: %s\n", path,
            strerror(errno));
    return false;
  }
  size_t first = list->count;
  bool ok = true;
  for (struct dirent *e; ok && (e = readdir(dir)) != NULL;) {
    size_t n = strlen(e->d_name);
    if (n <= 5 || strcmp(e->d_name + n - 5, ".case") != 0)
      continue;
    char full[4096];
    snprintf(full, sizeof full, "%s/%s", path, e->d_name);
    ok = add_path(list, full, err);
  }
  closedir(dir);
  qsort(list->paths + first, list->count - first, sizeof list->paths[0],
        compare_paths);
  if (ok && list->count == first)
    fprintf(err, "lctx eval: %s: no .case files\n", path);
  return ok && list->count > first;
}

static void free_list(file_list *list) {
  for (size_t i = 0; i < list->count; i++)
    free(list->paths[i]);
  list->count = 0;
}

/* The MLIR side of eval: every successful lower_per_platform of a case is
 * emitted by the reference and judged by the IR checker. */
typedef struct ir_eval {
  MlirContext mlir;
  lctx_ircheck *ck;
  unsigned hits[8]; /* checks that exercised IR-00N */
} ir_eval;

static size_t ir_check_case(ir_eval *ir, const lctx_case *c, const char *path,
                            FILE *out) {
  static lctx_case_runner runner;
  static lctx_ir_expect_store store;
  static lctx_ir_report report;
  static char text[1 << 20], error[8192];
  if (!ir->ck) {
    ir->mlir = lctx_mlir_context_create();
    ir->ck = lctx_ircheck_create();
  }
  size_t violations = 0;
  lctx_case_runner_init(&runner, c);
  for (size_t i = 0; i < c->op_count; i++) {
    lctx_outcome outcome;
    if (!lctx_case_runner_op(&runner, &c->ops[i], &outcome, NULL) ||
        c->ops[i].kind != LCTX_OP_LOWER_PER_PLATFORM ||
        outcome.kind == LCTX_OUTCOME_RAISE)
      continue;
    lctx_buf eb, tb;
    lctx_buf_init(&eb, error, sizeof error);
    lctx_buf_init(&tb, text, sizeof text);
    MlirModule module = {NULL};
    lctx_ir_verdict verdict;
    const char *why = NULL;
    if (!lctx_mlir_emit(ir->mlir, &runner.lowering, runner.result,
                        c->ops[i].x64, &module, &eb)) {
      why = error;
    } else {
      lctx_mlir_print(module, &tb);
      mlirModuleDestroy(module);
      if (!lctx_ir_expect_from_lowering(&runner.lowering, runner.result,
                                        c->ops[i].x64, &store))
        why = "the lowering exceeds the IR checker's limits";
      else if (!lctx_ir_judge(ir->ck, lctx_buf_view(&tb), &store, &report,
                              &verdict))
        why = verdict.reason;
    }
    if (why) {
      violations++;
      fprintf(out,
              "VIOLATION %s: the reference's module at operation %zu "
              "(lower_per_platform): %s\n  in %s\n",
              verdict.row[0] ? verdict.row : "IR-000", i, why, path);
      continue;
    }
    for (int r = 0; r < 8; r++)
      ir->hits[r] += (verdict.applicable >> r) & 1u;
  }
  return violations;
}

int lctx_cmd_eval(int argc, char **argv, FILE *out, FILE *err) {
  const char *spec_path = lctx_sys_default_spec_path();
  bool cover = false, quiet_ok = false;
  int first =
      parse_options(argc, argv, &spec_path, &cover, "--cover", &quiet_ok, err);
  if (first < 0)
    return LCTX_EXIT_USAGE;
  if (first >= argc) {
    fprintf(err, "lctx eval: no case files given (usage: lctx eval [--spec "
                 "FILE] [--cover] [--quiet] FILE|DIR...)\n");
    return LCTX_EXIT_USAGE;
  }
  if (!load_spec(spec_path, err))
    return LCTX_EXIT_USAGE;
  static lctx_oracle oracle;
  lctx_oracle_init(&oracle, &g_spec, lctx_engine_reference());
  printer p = {out, 0, 1000, NULL};
  oracle.on_violation = print_violation;
  oracle.user = &p;
  size_t passed = 0, failed = 0, bad = 0, without_expect = 0;
  static ir_eval ir;
  static file_list files;
  for (int i = first; i < argc; i++) {
    if (!expand(&files, argv[i], err)) {
      free_list(&files);
      return LCTX_EXIT_USAGE;
    }
  }
  for (size_t f = 0; f < files.count; f++) {
    const char *path = files.paths[f];
    if (!load_case(path, &g_case, err)) {
      bad++;
      continue;
    }
    p.file = path;
    size_t v = lctx_oracle_check_case(&oracle, &g_case);
    v += ir_check_case(&ir, &g_case, path, out);
    for (size_t k = 0; k < g_case.op_count; k++)
      without_expect += !g_case.has_expect[k];
    if (v == 0) {
      passed++;
      if (!quiet_ok)
        fprintf(out, "ok   %s (%zu operations)\n", path, g_case.op_count);
    } else {
      failed++;
      fprintf(out, "FAIL %s (%zu violations)\n", path, v);
    }
  }
  free_list(&files);
  size_t unreached = 0;
  if (cover) {
    for (size_t i = 0; i < g_spec.row_count; i++) {
      const char *id = g_spec.rows[i].id;
      bool ir_row = g_spec.rows[i].ir && strncmp(id, "IR-00", 5) == 0 &&
                    id[5] >= '0' && id[5] <= '7';
      if (ir_row ? ir.hits[id[5] - '0'] == 0 : oracle.hits[i] == 0) {
        fprintf(out, "row %s has no case\n", g_spec.rows[i].id);
        unreached++;
      }
    }
  }
  fprintf(out,
          "eval: %zu cases passed, %zu failed, %zu unreadable; %zu operations "
          "(%zu without an expectation)%s\n",
          passed, failed, bad, oracle.ops, without_expect,
          cover ? (unreached ? "; some rows have no case"
                             : "; every row has a case")
                : "");
  if (bad)
    return LCTX_EXIT_USAGE;
  return failed || unreached ? LCTX_EXIT_VIOLATIONS : LCTX_EXIT_OK;
}

//===----------------------------------------------------------------------===//
// explain
//===----------------------------------------------------------------------===//

static void trace_line(void *user, const char *event) {
  fprintf((FILE *)user, "    trace: %s\n", event);
}

int lctx_cmd_explain(int argc, char **argv, FILE *out, FILE *err) {
  const char *spec_path = lctx_sys_default_spec_path();
  int first = parse_options(argc, argv, &spec_path, NULL, NULL, NULL, err);
  if (first < 0)
    return LCTX_EXIT_USAGE;
  if (argc - first != 1) {
    fprintf(err, "lctx explain: expected one case file (usage: lctx explain "
                 "[--spec FILE] FILE)\n");
    return LCTX_EXIT_USAGE;
  }
  if (!load_spec(spec_path, err) || !load_case(argv[first], &g_case, err))
    return LCTX_EXIT_USAGE;
  static lctx_oracle oracle;
  lctx_oracle_init(&oracle, &g_spec, lctx_engine_reference());
  static lctx_case_runner runner;
  static lctx_outcome outcome;
  lctx_case_runner_init(&runner, &g_case);
  lctx_registry_set_trace(&runner.registry, trace_line, out);
  int code = LCTX_EXIT_OK;
  for (size_t i = 0; i < g_case.op_count; i++) {
    lctx_buf b;
    lctx_buf_init(&b, g_text, sizeof g_text);
    lctx_case op_only = g_case;
    op_only.factory_count = 0;
    fprintf(out, "operation %zu: %s\n", i,
            lctx_op_kind_name(g_case.ops[i].kind));
    lctx_module_branch branch;
    lctx_case_runner_op(&runner, &g_case.ops[i], &outcome, &branch);
    if (g_case.ops[i].kind == LCTX_OP_MODULE_GET_BACKEND)
      fprintf(out, "    branch: %s\n", lctx_module_branch_name(branch));
    if (g_case.ops[i].kind == LCTX_OP_LOWER_PER_PLATFORM) {
      /* What ran, and what each platform index runs in the module. */
      lctx_buf_reset(&b);
      lctx_lowering_format_events(&runner.lowering, runner.result, &b);
      fprintf(out, "    lowering:\n");
      for (const char *line = g_text; *line;) {
        const char *nl = strchr(line, '\n');
        int len = nl ? (int)(nl - line) : (int)strlen(line);
        fprintf(out, "      %.*s\n", len, line);
        line += len + (nl ? 1 : 0);
      }
      for (size_t k = 0;
           runner.result->evaluated && k < runner.result->index_count; k++) {
        lctx_buf_reset(&b);
        lctx_lowering_format_path(&runner.lowering, runner.result,
                                  &runner.result->actual[k], &b);
        fprintf(out, "    index %zu (%.*s) runs: %s%s\n", k,
                (int)runner.result->index_platforms[k].length,
                runner.result->index_platforms[k].data, g_text,
                runner.result->mismatch[k]
                    ? "  (JAX's nested platform-index defect: not the "
                      "intended rules)"
                    : "");
      }
      lctx_buf_reset(&b);
    }
    lctx_outcome_format(&outcome, &b);
    fprintf(out, "    outcome: %s\n", g_text);
    lctx_buf_reset(&b);
    lctx_oracle_explain(&oracle, &g_case, i, &b);
    for (const char *line = g_text; *line;) {
      const char *nl = strchr(line, '\n');
      int len = nl ? (int)(nl - line) : (int)strlen(line);
      fprintf(out, "    %.*s\n", len, line);
      line += len + (nl ? 1 : 0);
    }
  }
  printer p = {out, 0, 100, argv[first]};
  oracle.on_violation = print_violation;
  oracle.user = &p;
  size_t v = lctx_oracle_check_case(&oracle, &g_case);
  fprintf(out, "verdict: %s (%zu violations)\n", v ? "FAIL" : "ok", v);
  if (v)
    code = LCTX_EXIT_VIOLATIONS;
  return code;
}

//===----------------------------------------------------------------------===//
// encode, decode, enumerate
//===----------------------------------------------------------------------===//

static int write_all(FILE *out, const void *data, size_t n, FILE *err) {
  if (fwrite(data, 1, n, out) != n) {
    fprintf(err, "lctx: write error\n");
    return LCTX_EXIT_USAGE;
  }
  return LCTX_EXIT_OK;
}

int lctx_cmd_encode(int argc, char **argv, FILE *out, FILE *err) {
  if (argc != 2) {
    fprintf(err, "lctx encode: expected one case file, or - for stdin "
                 "(usage: lctx encode FILE > BYTES)\n");
    return LCTX_EXIT_USAGE;
  }
  if (!load_case(argv[1], &g_case, err))
    return LCTX_EXIT_USAGE;
  static uint8_t bytes[1 << 16];
  size_t n = lctx_case_encode(&g_case, bytes, sizeof bytes);
  if (n > sizeof bytes) {
    fprintf(err, "lctx encode: %s: encoding too large\n", argv[1]);
    return LCTX_EXIT_USAGE;
  }
  return write_all(out, bytes, n, err);
}

int lctx_cmd_decode(int argc, char **argv, FILE *out, FILE *err) {
  if (argc != 2) {
    fprintf(err, "lctx decode: expected one byte file, or - for stdin "
                 "(usage: lctx decode BYTES > FILE.case)\n");
    return LCTX_EXIT_USAGE;
  }
  long n = read_file(argv[1], err);
  if (n < 0)
    return LCTX_EXIT_USAGE;
  lctx_case_decode((const uint8_t *)g_file, (size_t)n, &g_case);
  lctx_buf b;
  lctx_buf_init(&b, g_text, sizeof g_text);
  lctx_case_print(&g_case, &b);
  return write_all(out, g_text, b.length, err);
}

typedef struct enum_run {
  FILE *out;
  size_t limit;
  size_t printed;
  bool count_only;
} enum_run;

static bool enumerate_visit(void *user, const lctx_case *c) {
  enum_run *run = user;
  if (run->count_only)
    return true;
  if (run->printed >= run->limit)
    return false;
  lctx_buf b;
  lctx_buf_init(&b, g_text, sizeof g_text);
  lctx_case_print(c, &b);
  fprintf(run->out, "# case %zu\n%s\n", run->printed, g_text);
  run->printed++;
  return true;
}

int lctx_cmd_enumerate(int argc, char **argv, FILE *out, FILE *err) {
  enum_run run = {out, (size_t)-1, 0, false};
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--count") == 0) {
      run.count_only = true;
    } else if (strcmp(argv[i], "--limit") == 0 && i + 1 < argc) {
      char *end;
      errno = 0;
      unsigned long long v = strtoull(argv[++i], &end, 10);
      if (*end != '\0' || errno != 0 || argv[i][0] == '-') {
        fprintf(err, "lctx enumerate: --limit: '%s' is not a count\n", argv[i]);
        return LCTX_EXIT_USAGE;
      }
      run.limit = (size_t)v;
    } else {
      fprintf(err,
              "lctx enumerate: unknown argument '%s' (usage: lctx "
              "enumerate [--count] [--limit N])\n",
              argv[i]);
      return LCTX_EXIT_USAGE;
    }
  }
  size_t n = lctx_domain_enumerate(enumerate_visit, &run);
  if (run.count_only)
    fprintf(out, "%zu cases in the bounded domain\n", n);
  return LCTX_EXIT_OK;
}
