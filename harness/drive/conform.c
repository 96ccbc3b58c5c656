/*
 * conform.c - judging an implementation by the spec table (see conform.h).
 *
 * A run offers cases from three sources (the conformance case files, the
 * domain, random cases) to a batch; a full batch goes to the implementation
 * (impl.h) and every operation's outcome is judged by the spec table, and a
 * module a lower_per_platform returned by the IR rows (irexpect.h). The
 * verdicts are counted per row in the lctx_conform_report and streamed to
 * results.jsonl; the reports are written at the end.
 */
#include "conform.h"
#include "sys.h"

#include "case_json.h"
#include "case_text.h"
#include "domain.h"
#include "exit.h"
#include "file.h"
#include "impl.h"
#include "irexpect.h"
#include "lctx/lctx.h"
#include "oracle.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BATCH LCTX_CONFORM_MAX_BATCH
/* The most conformance case files a run reads. */
#define MAX_CASE_FILES 4096
/* The largest conformance case file. */
#define MAX_CASE_FILE_BYTES (1u << 20)

static const char *const VERDICT_NAMES[LCTX_CONFORM_VERDICT_COUNT] = {
    "pass", "fail", "xfail", "xpass", "crash", "timeout", "unsupported"};

const char *lctx_conform_verdict_name(lctx_conform_verdict v) {
  return v < LCTX_CONFORM_VERDICT_COUNT ? VERDICT_NAMES[v] : "?";
}

/* The IR rows, IR-000 .. IR-006 (irexpect.h's LCTX_IR_ROW_BIT). */
#define IR_ROWS 7

/* One run: everything lctx_conform_run works with, passed down to every
 * step. Heap-allocated: the batch and the judge's scratch are large. */
typedef struct run {
  lctx_conform_options o;
  lctx_conform_report *report; /* the counts: the caller's, or `own` */
  lctx_conform_report own;
  lctx_spec spec;
  lctx_impl *impl;
  const lctx_impl_info *info;
  bool xfail[LCTX_SPEC_MAX_ROWS];
  char xfail_reason[LCTX_SPEC_MAX_ROWS][160];
  size_t global_index; /* cases offered so far, for the shard */
  /* The conformance case files in name order (the source "cases"). */
  char **case_names;
  size_t case_count;
  /* The batch. */
  lctx_case batch[MAX_BATCH];
  const lctx_case *batch_ptrs[MAX_BATCH];
  lctx_case_result results[MAX_BATCH];
  const char *batch_source[MAX_BATCH];
  size_t batch_index[MAX_BATCH];
  size_t batch_count;
  FILE *stream; /* results.jsonl */
  FILE *out;
  double begin; /* lctx_conform_run started */
  double start; /* the cases started */
  /* The IR checker for the modules of lower_per_platform operations. */
  lctx_ircheck *ck;
  size_t modules_checked;
  /* The rows IR-000 .. IR-006 (bit k of a verdict's `applicable`), or -1. */
  size_t ir_rows[IR_ROWS];
  /* The judge's scratch: one operation's texts and features, the reference
   * run and IR expectations of one module, a case read or generated. */
  char expected[4 * (LCTX_OUTCOME_TEXT_MAX + 32)];
  char actual[LCTX_OUTCOME_TEXT_MAX + 64];
  char why[LCTX_IR_MESSAGE_MAX + 128];
  lctx_features features;
  lctx_runner runner;
  lctx_ir_expect_store store;
  lctx_ir_report ir_report;
  lctx_case scratch;
} run;

//===----------------------------------------------------------------------===//
// Judging a batch
//===----------------------------------------------------------------------===//

/* A JSON string of arbitrary bytes: bytes that do not form UTF-8 become
 * U+FFFD, so that a report stays valid whatever an implementation wrote. */
static json_t *json_text(const char *s) {
  json_t *j = json_string(s);
  if (j)
    return j;
  size_t n = strlen(s);
  char *copy = malloc(3 * n + 1);
  if (!copy)
    return json_string("?");
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c < 0x80) {
      copy[k++] = (char)c;
    } else {
      copy[k++] = (char)0xef; /* U+FFFD in UTF-8 */
      copy[k++] = (char)0xbf;
      copy[k++] = (char)0xbd;
    }
  }
  copy[k] = '\0';
  j = json_string(copy);
  free(copy);
  return j ? j : json_string("?");
}

static void stream_verdict(run *r, size_t b, size_t op, const char *row,
                           lctx_conform_verdict v, const char *detail) {
  if (!r->stream)
    return;
  json_t *j = json_object();
  json_object_set_new(j, "source", json_string(r->batch_source[b]));
  json_object_set_new(j, "index", json_integer((json_int_t)r->batch_index[b]));
  json_object_set_new(j, "operation", json_integer((json_int_t)op));
  json_object_set_new(j, "row", json_string(row));
  json_object_set_new(j, "verdict", json_string(VERDICT_NAMES[v]));
  if (detail)
    json_object_set_new(j, "detail", json_text(detail));
  if (v == LCTX_CONFORM_FAIL || v == LCTX_CONFORM_XFAIL) {
    json_object_set_new(j, "expected", json_text(r->expected));
    json_object_set_new(j, "actual", json_text(r->actual));
  }
  json_t *c = lctx_case_to_json(r->batch_ptrs[b]);
  if (c)
    json_object_set_new(j, "case", c);
  char *text = json_dumps(j, JSON_COMPACT);
  if (text) {
    fprintf(r->stream, "%s\n", text);
    free(text);
  }
  json_decref(j);
}

static void note_first(run *r, size_t row, size_t b, size_t op,
                       lctx_conform_verdict v, const char *detail) {
  lctx_conform_row *s = &r->report->rows[row];
  if (s->first[0])
    return;
  if (v == LCTX_CONFORM_FAIL || v == LCTX_CONFORM_XFAIL)
    snprintf(s->first, sizeof s->first,
             "%s case %zu, operation %zu: expected %.300s; got %.300s",
             r->batch_source[b], r->batch_index[b], op, r->expected, r->actual);
  else
    snprintf(s->first, sizeof s->first, "%s case %zu, operation %zu: %s: %s",
             r->batch_source[b], r->batch_index[b], op, VERDICT_NAMES[v],
             detail ? detail : "");
  if (strcmp(r->batch_source[b], "cases") == 0 &&
      r->batch_index[b] < r->case_count)
    snprintf(s->first_case, sizeof s->first_case, "%s",
             r->case_names[r->batch_index[b]]);
}

static size_t find_row(const run *r, const char *id) {
  for (size_t i = 0; i < r->spec.row_count; i++) {
    if (strcmp(r->spec.rows[i].id, id) == 0)
      return i;
  }
  return (size_t)-1;
}

/* Judges the module an implementation returned for operation `index` of
 * `c` (a lower_per_platform whose outcome passed) against what the IR rows
 * expect of the reference lowering of the same case. Returns the row that
 * judged it (or -1 when it could not be judged), whether it passed, and the
 * IR rows the check exercised (`applicable`, LCTX_IR_ROW_BIT); why it
 * failed goes to r->why. */
static size_t judge_module(run *r, const lctx_case *c, size_t index,
                           const char *mlir, bool *passed,
                           unsigned *applicable) {
  *passed = false;
  *applicable = 0;
  if (!r->ck && !(r->ck = lctx_ircheck_create()))
    return (size_t)-1;
  lctx_runner_init(&r->runner, c);
  lctx_outcome outcome;
  for (size_t i = 0; i <= index; i++) {
    if (!lctx_runner_op(&r->runner, &c->ops[i], &outcome, NULL))
      return (size_t)-1;
  }
  if (outcome.kind == LCTX_OUTCOME_RAISE ||
      !lctx_ir_expect_from_lowering(&r->runner.lowering, r->runner.result,
                                    c->ops[index].x64, &r->store))
    return (size_t)-1;
  lctx_ir_verdict verdict;
  r->modules_checked++;
  *passed = lctx_ir_judge(r->ck, lctx_str_from_cstr(mlir), &r->store,
                          &r->ir_report, &verdict);
  *applicable = verdict.applicable;
  if (*passed)
    return find_row(r, "IR-005");
  snprintf(r->why, sizeof r->why, "the module: %s: %s", verdict.row,
           verdict.reason);
  return find_row(r, verdict.row);
}

/* The module of a passing lower_per_platform operation `i`: an accepted
 * module passes every IR row that judged it (IR-005, the row judge_module
 * names, always among them); a rejected one fails the operation under the
 * IR row that rejected it (`*row`, `*v`, `*detail`). */
static void judge_ir(run *r, const lctx_case *c, size_t i, const char *mlir,
                     size_t *row, lctx_conform_verdict *v,
                     const char **detail) {
  bool passed;
  unsigned applicable;
  size_t ir_row = judge_module(r, c, i, mlir, &passed, &applicable);
  lctx_conform_row *rows = r->report->rows;
  if (ir_row < r->spec.row_count && passed) {
    rows[ir_row].n[LCTX_CONFORM_PASS]++;
    for (unsigned k = 0; k < IR_ROWS; k++) {
      if (((applicable >> k) & 1u) && r->ir_rows[k] != ir_row &&
          r->ir_rows[k] < r->spec.row_count)
        rows[r->ir_rows[k]].n[LCTX_CONFORM_PASS]++;
    }
  } else if (ir_row < r->spec.row_count) {
    snprintf(r->expected, sizeof r->expected, "a module the IR rows accept");
    snprintf(r->actual, sizeof r->actual, "%s", r->why);
    *row = ir_row;
    *v = r->xfail[ir_row] ? LCTX_CONFORM_XFAIL : LCTX_CONFORM_FAIL;
    *detail = r->why;
  }
}

/* Judges operation `i` of case `c` with result `res` (its features in
 * r->features): the row and the verdict, and the detail of a crash, a
 * timeout or a rejected module. False when no single row covers it. */
static bool judge_op(run *r, const lctx_case *c, const lctx_case_result *res,
                     size_t i, size_t *row, lctx_conform_verdict *v,
                     const char **detail) {
  lctx_buf eb, ab;
  lctx_buf_init(&eb, r->expected, sizeof r->expected);
  lctx_buf_init(&ab, r->actual, sizeof r->actual);
  *detail = NULL;
  if (res->status != LCTX_RESULT_OK) {
    /* The row still comes from the features: attribute the crash. */
    size_t m[2];
    if (lctx_spec_match(&r->spec, &r->features, m, 2) != 1)
      return false;
    *row = m[0];
    *v = res->status == LCTX_RESULT_TIMEOUT ? LCTX_CONFORM_TIMEOUT
                                            : LCTX_CONFORM_CRASH;
    *detail = res->detail;
    return true;
  }
  lctx_outcome_format(&res->outcomes[i], &ab);
  lctx_judgement j = lctx_oracle_judge(
      &r->spec, &r->features, &res->outcomes[i], r->o.exact, row, &eb, NULL);
  if (j == LCTX_JUDGE_NO_ROW || j == LCTX_JUDGE_SEVERAL_ROWS)
    return false;
  bool ok = j == LCTX_JUDGE_ALLOWED;
  *v = r->xfail[*row] ? (ok ? LCTX_CONFORM_XPASS : LCTX_CONFORM_XFAIL)
                      : (ok ? LCTX_CONFORM_PASS : LCTX_CONFORM_FAIL);
  if (ok && res->mlir[i] && c->ops[i].kind == LCTX_OP_LOWER_PER_PLATFORM)
    judge_ir(r, c, i, res->mlir[i], row, v, detail);
  return true;
}

/* Counts the verdict of operation `i` of batch entry `b`; notes and streams
 * what did not pass, and the first failure. */
static void count_verdict(run *r, size_t b, size_t i, size_t row,
                          lctx_conform_verdict v, const char *detail) {
  lctx_conform_report *rep = r->report;
  rep->rows[row].n[v]++;
  if (!rep->failed_once && v != LCTX_CONFORM_PASS && v != LCTX_CONFORM_XFAIL) {
    rep->failed_once = true;
    rep->first_failure_seconds = lctx_sys_now() - r->begin;
    rep->first_failure_row = row;
    rep->first_failure_verdict = v;
  }
  if (v != LCTX_CONFORM_PASS) {
    note_first(r, row, b, i, v, detail);
    stream_verdict(r, b, i, r->spec.rows[row].id, v, detail);
  }
}

static void judge_batch(run *r) {
  for (size_t b = 0; b < r->batch_count; b++) {
    const lctx_case *c = r->batch_ptrs[b];
    lctx_feature_state state;
    lctx_classify_init(&state, c);
    for (size_t i = 0; i < c->op_count; i++) {
      lctx_classify_op(&state, i, &r->features);
      size_t row;
      lctx_conform_verdict v;
      const char *detail;
      if (judge_op(r, c, &r->results[b], i, &row, &v, &detail))
        count_verdict(r, b, i, row, v, detail);
      else
        r->report->spec_gaps++;
    }
  }
  if (r->stream)
    fflush(r->stream);
}

static void flush_batch(run *r) {
  if (r->batch_count == 0)
    return;
  lctx_impl_run(r->impl, r->batch_ptrs, r->batch_count, r->results);
  judge_batch(r);
  r->report->cases_run += r->batch_count;
  r->batch_count = 0;
  if (r->o.handle_signals && lctx_sys_interrupted())
    r->report->interrupted = true;
}

/* Whether the run stops: interrupted, or `first_failure` and one failed. */
static bool stopping(const run *r) {
  return r->report->interrupted ||
         (r->o.first_failure && r->report->failed_once);
}

/* Counts every operation of an unsupported case under its row. */
static void note_unsupported(run *r, const lctx_case *c) {
  lctx_feature_state state;
  lctx_classify_init(&state, c);
  for (size_t i = 0; i < c->op_count; i++) {
    lctx_classify_op(&state, i, &r->features);
    size_t m[2];
    if (lctx_spec_match(&r->spec, &r->features, m, 2) == 1)
      r->report->rows[m[0]].n[LCTX_CONFORM_UNSUPPORTED]++;
  }
}

/* Offers one case to the run; returns false to stop early. */
static bool offer(run *r, const char *source, size_t index,
                  const lctx_case *c) {
  size_t g = r->global_index++;
  if (stopping(r))
    return false;
  if (r->o.shard_n > 1 && g % r->o.shard_n != r->o.shard_i - 1) {
    r->report->cases_skipped++;
    return true;
  }
  unsigned needed = 0;
  for (size_t i = 0; i < c->op_count; i++)
    needed |= 1u << c->ops[i].kind;
  if (needed & ~r->o.ops) {
    r->report->cases_skipped++;
    return true;
  }
  if (needed & ~r->info->operations) {
    r->report->cases_unsupported++;
    note_unsupported(r, c);
    return true;
  }
  size_t b = r->batch_count++;
  /* Copy the case without its expectations (most of its size). */
  memcpy(&r->batch[b], c, offsetof(lctx_case, has_expect));
  memset(r->batch[b].has_expect, 0, sizeof r->batch[b].has_expect);
  r->batch_ptrs[b] = &r->batch[b];
  r->batch_source[b] = source;
  r->batch_index[b] = index;
  if (r->batch_count == r->o.batch)
    flush_batch(r);
  return !stopping(r);
}

//===----------------------------------------------------------------------===//
// Sources
//===----------------------------------------------------------------------===//

static bool domain_visit(void *user, const lctx_case *c) {
  run *r = user;
  return offer(r, "domain", r->report->source_cases[1]++, c);
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lists the .case files of the cases directory into r->case_names, sorted;
 * false when the directory cannot be read (reported on err). */
static bool list_case_files(run *r, FILE *err) {
  DIR *d = opendir(r->o.cases_dir);
  if (!d) {
    fprintf(err, "lctx conform: %s: cannot open: %s\n", r->o.cases_dir,
            strerror(errno));
    return false;
  }
  r->case_names = calloc(MAX_CASE_FILES, sizeof *r->case_names);
  for (struct dirent *e;
       r->case_names && r->case_count < MAX_CASE_FILES && (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n > 5 && strcmp(e->d_name + n - 5, ".case") == 0)
      r->case_names[r->case_count++] = strdup(e->d_name);
  }
  closedir(d);
  if (!r->case_names) {
    fprintf(err, "lctx conform: %s: out of memory\n", r->o.cases_dir);
    return false;
  }
  qsort(r->case_names, r->case_count, sizeof *r->case_names, compare_names);
  return true;
}

/* Parses and offers every .case file of the directory; false on a bad
 * file (reported on err). */
static bool run_case_files(run *r, FILE *err) {
  if (!list_case_files(r, err))
    return false;
  for (size_t i = 0; i < r->case_count; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", r->o.cases_dir, r->case_names[i]);
    char e[1024];
    lctx_buf eb;
    lctx_buf_init(&eb, e, sizeof e);
    char *text;
    size_t n;
    bool ok = lctx_file_read(path, MAX_CASE_FILE_BYTES, &text, &n, &eb) &&
              lctx_case_parse(text, n, path, &r->scratch, &eb);
    free(text);
    if (!ok) {
      fprintf(err, "lctx conform: %s\n", e);
      return false;
    }
    offer(r, "cases", r->report->source_cases[0]++, &r->scratch);
  }
  return true;
}

static void run_random(run *r) {
  uint64_t state = r->o.seed;
  for (size_t i = 0; i < r->o.random && !stopping(r); i++) {
    lctx_domain_random_case(&state, &r->scratch);
    offer(r, "random", r->report->source_cases[2]++, &r->scratch);
  }
}

//===----------------------------------------------------------------------===//
// Reports
//===----------------------------------------------------------------------===//

static bool row_failed(const lctx_conform_row *s) {
  return s->n[LCTX_CONFORM_FAIL] || s->n[LCTX_CONFORM_XPASS] ||
         s->n[LCTX_CONFORM_CRASH] || s->n[LCTX_CONFORM_TIMEOUT];
}

static void xml_escape(FILE *f, const char *s) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '<')
      fputs("&lt;", f);
    else if (c == '>')
      fputs("&gt;", f);
    else if (c == '&')
      fputs("&amp;", f);
    else if (c == '"')
      fputs("&quot;", f);
    else if ((c < 0x20 && c != '\t' && c != '\n') || c >= 0x7f)
      fprintf(f, "&#x%x;", 0xfffd); /* not allowed in XML 1.0, or not UTF-8 */
    else
      fputc(c, f);
  }
}

static void stamp_text(const run *r, FILE *f, const char *prefix) {
  fprintf(f,
          "%sspec %s (version %s), lctx %s, implementation %s %s (%s), seed "
          "%llu%s\n",
          prefix, r->spec.filename, r->spec.version, LCTX_VERSION_STRING,
          r->info->name, r->info->version, r->info->kind, r->o.seed,
          r->report->interrupted ? ", INTERRUPTED" : "");
}

/* A YAML double-quoted string. */
static void yaml_quoted(FILE *f, const char *s) {
  fputc('"', f);
  for (const char *p = s; *p; p++) {
    unsigned char c = (unsigned char)*p;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20 || c >= 0x7f)
      fprintf(f, "\\x%02x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

static void write_tap(const run *r, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f)
    return;
  fprintf(f, "TAP version 13\n1..%zu\n", r->spec.row_count);
  stamp_text(r, f, "# ");
  for (size_t i = 0; i < r->spec.row_count; i++) {
    const lctx_conform_row *s = &r->report->rows[i];
    size_t total = 0;
    for (int v = 0; v < LCTX_CONFORM_VERDICT_COUNT; v++)
      total += s->n[v];
    const char *directive = "";
    if (r->xfail[i])
      directive = " # TODO expected failure";
    else if (total == s->n[LCTX_CONFORM_UNSUPPORTED])
      directive = total ? " # SKIP unsupported" : " # SKIP not reached";
    fprintf(f, "%s %zu - %s%s\n", row_failed(s) ? "not ok" : "ok", i + 1,
            r->spec.rows[i].id, directive);
    fprintf(f, "  ---\n");
    for (int v = 0; v < LCTX_CONFORM_VERDICT_COUNT; v++)
      fprintf(f, "  %s: %zu\n", VERDICT_NAMES[v], s->n[v]);
    if (s->first[0]) {
      fprintf(f, "  first: ");
      yaml_quoted(f, s->first);
      fprintf(f, "\n");
    }
    fprintf(f, "  ...\n");
  }
  fclose(f);
}

/* The JUnit <testsuite> line and its stamp as <properties>. */
static void junit_head(const run *r, FILE *f, double elapsed) {
  size_t failures = 0, errors = 0, skipped = 0;
  for (size_t i = 0; i < r->spec.row_count; i++) {
    const lctx_conform_row *s = &r->report->rows[i];
    if (s->n[LCTX_CONFORM_CRASH] || s->n[LCTX_CONFORM_TIMEOUT])
      errors++;
    else if (s->n[LCTX_CONFORM_FAIL] || s->n[LCTX_CONFORM_XPASS])
      failures++;
    else if (r->xfail[i] || s->n[LCTX_CONFORM_PASS] == 0)
      skipped++;
  }
  fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  fprintf(f,
          "<testsuites><testsuite name=\"lctx conform\" tests=\"%zu\" "
          "failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n",
          r->spec.row_count, failures, errors, skipped, elapsed);
  fprintf(f, "<properties>");
  const char *keys[] = {"spec_version", "lctx_version", "implementation",
                        "implementation_version", "seed"};
  char seed[32];
  snprintf(seed, sizeof seed, "%llu", r->o.seed);
  const char *values[] = {r->spec.version, LCTX_VERSION_STRING, r->info->name,
                          r->info->version, seed};
  for (int k = 0; k < 5; k++) {
    fprintf(f, "<property name=\"%s\" value=\"", keys[k]);
    xml_escape(f, values[k]);
    fprintf(f, "\"/>");
  }
  fprintf(f, "</properties>\n");
}

/* One JUnit <testcase>: spec row `i`. */
static void junit_case(const run *r, FILE *f, size_t i) {
  const lctx_conform_row *s = &r->report->rows[i];
  fprintf(f, "<testcase classname=\"spec\" name=\"%s\">", r->spec.rows[i].id);
  if (s->n[LCTX_CONFORM_CRASH] || s->n[LCTX_CONFORM_TIMEOUT]) {
    fprintf(f, "<error message=\"%zu crash, %zu timeout\">",
            s->n[LCTX_CONFORM_CRASH], s->n[LCTX_CONFORM_TIMEOUT]);
    xml_escape(f, s->first);
    fprintf(f, "</error>");
  } else if (s->n[LCTX_CONFORM_FAIL] || s->n[LCTX_CONFORM_XPASS]) {
    fprintf(f, "<failure message=\"%zu fail, %zu unexpected pass\">",
            s->n[LCTX_CONFORM_FAIL], s->n[LCTX_CONFORM_XPASS]);
    xml_escape(f, s->first);
    fprintf(f, "</failure>");
  } else if (r->xfail[i]) {
    fprintf(f, "<skipped message=\"expected failure: ");
    xml_escape(f, r->xfail_reason[i]);
    fprintf(f, "\"/>");
  } else if (s->n[LCTX_CONFORM_PASS] == 0) {
    fprintf(f, "<skipped message=\"%s\"/>",
            s->n[LCTX_CONFORM_UNSUPPORTED] ? "unsupported" : "not reached");
  }
  fprintf(f, "<system-out>");
  for (int v = 0; v < LCTX_CONFORM_VERDICT_COUNT; v++)
    fprintf(f, "%s=%zu ", VERDICT_NAMES[v], s->n[v]);
  fprintf(f, "</system-out></testcase>\n");
}

static void write_junit(const run *r, const char *path, double elapsed) {
  FILE *f = fopen(path, "w");
  if (!f)
    return;
  junit_head(r, f, elapsed);
  for (size_t i = 0; i < r->spec.row_count; i++)
    junit_case(r, f, i);
  fprintf(f, "</testsuite></testsuites>\n");
  fclose(f);
}

/* The stamp every JSON header carries (results.jsonl's first line, and
 * report.json). */
static json_t *json_stamp(const run *r) {
  json_t *j = json_object();
  json_object_set_new(j, "spec_version", json_string(r->spec.version));
  json_object_set_new(j, "lctx_version", json_string(LCTX_VERSION_STRING));
  json_object_set_new(j, "implementation", json_string(r->info->name));
  json_object_set_new(j, "implementation_version",
                      json_string(r->info->version));
  return j;
}

static json_t *json_rows(const run *r) {
  const lctx_conform_report *rep = r->report;
  json_t *rows = json_array();
  for (size_t i = 0; i < r->spec.row_count; i++) {
    json_t *row = json_object();
    json_object_set_new(row, "id", json_string(r->spec.rows[i].id));
    for (int v = 0; v < LCTX_CONFORM_VERDICT_COUNT; v++)
      json_object_set_new(row, VERDICT_NAMES[v],
                          json_integer((json_int_t)rep->rows[i].n[v]));
    if (r->xfail[i])
      json_object_set_new(row, "xfail_reason", json_string(r->xfail_reason[i]));
    if (rep->rows[i].first[0])
      json_object_set_new(row, "first", json_text(rep->rows[i].first));
    json_array_append_new(rows, row);
  }
  return rows;
}

static void write_json(const run *r, const char *path) {
  const lctx_conform_report *rep = r->report;
  json_t *j = json_stamp(r);
  json_object_set_new(j, "implementation_kind", json_string(r->info->kind));
  json_object_set_new(j, "seed", json_integer((json_int_t)r->o.seed));
  json_object_set_new(j, "interrupted", json_boolean(rep->interrupted));
  json_object_set_new(j, "seconds", json_real(rep->seconds));
  json_object_set_new(j, "cases_run", json_integer((json_int_t)rep->cases_run));
  json_object_set_new(j, "cases_unsupported",
                      json_integer((json_int_t)rep->cases_unsupported));
  json_object_set_new(j, "cases_skipped",
                      json_integer((json_int_t)rep->cases_skipped));
  json_object_set_new(j, "restarts", json_integer((json_int_t)rep->restarts));
  json_object_set_new(j, "rows", json_rows(r));
  json_object_set_new(j, "stopped_at_first_failure",
                      json_boolean(r->o.first_failure && rep->failed_once));
  if (rep->failed_once) {
    size_t row = rep->first_failure_row;
    json_t *ff = json_object();
    json_object_set_new(ff, "row", json_string(r->spec.rows[row].id));
    json_object_set_new(ff, "verdict",
                        json_string(VERDICT_NAMES[rep->first_failure_verdict]));
    json_object_set_new(ff, "seconds", json_real(rep->first_failure_seconds));
    json_object_set_new(ff, "first", json_text(rep->rows[row].first));
    json_object_set_new(j, "first_failure", ff);
  }
  json_dump_file(j, path, JSON_INDENT(2));
  json_decref(j);
}

/* The per-row table (only failing rows when quiet), each failing row's
 * first failure, and the first failure of the run. */
static void print_table(const run *r) {
  const lctx_conform_report *rep = r->report;
  FILE *out = r->out;
  fprintf(out, "\n%-8s %9s %7s %6s %6s %6s %8s %12s\n", "row", "pass", "fail",
          "xfail", "xpass", "crash", "timeout", "unsupported");
  for (size_t i = 0; i < r->spec.row_count; i++) {
    const size_t *n = rep->rows[i].n;
    if (r->o.quiet && !row_failed(&rep->rows[i]))
      continue;
    fprintf(out, "%-8s %9zu %7zu %6zu %6zu %6zu %8zu %12zu%s\n",
            r->spec.rows[i].id, n[LCTX_CONFORM_PASS], n[LCTX_CONFORM_FAIL],
            n[LCTX_CONFORM_XFAIL], n[LCTX_CONFORM_XPASS], n[LCTX_CONFORM_CRASH],
            n[LCTX_CONFORM_TIMEOUT], n[LCTX_CONFORM_UNSUPPORTED],
            row_failed(&rep->rows[i]) ? "  <--" : "");
  }
  for (size_t i = 0; i < r->spec.row_count; i++) {
    if (rep->rows[i].first[0] && row_failed(&rep->rows[i]))
      fprintf(out, "%s: %s\n", r->spec.rows[i].id, rep->rows[i].first);
  }
  if (rep->failed_once)
    fprintf(out, "first failure: %s (%s) after %.3f s%s\n",
            r->spec.rows[rep->first_failure_row].id,
            VERDICT_NAMES[rep->first_failure_verdict],
            rep->first_failure_seconds,
            r->o.first_failure ? "; stopped there (--first-failure)" : "");
}

static void print_summary(const run *r, bool ok, bool failed) {
  const lctx_conform_report *rep = r->report;
  const size_t *t = rep->totals;
  fprintf(r->out,
          "\nconform: %zu cases (%zu conformance, %zu domain, %zu random; "
          "%zu skipped by shard or --ops, %zu unsupported) in %.1f s, %zu "
          "restarts\n"
          "operations: %zu pass, %zu fail, %zu xfail, %zu xpass, %zu crash, "
          "%zu timeout, %zu unsupported%s\n"
          "reports: %s/report.tap, report.junit.xml, report.json, "
          "results.jsonl\n"
          "result: %s\n",
          rep->cases_run, rep->source_cases[0], rep->source_cases[1],
          rep->source_cases[2], rep->cases_skipped, rep->cases_unsupported,
          rep->seconds, rep->restarts, t[LCTX_CONFORM_PASS],
          t[LCTX_CONFORM_FAIL], t[LCTX_CONFORM_XFAIL], t[LCTX_CONFORM_XPASS],
          t[LCTX_CONFORM_CRASH], t[LCTX_CONFORM_TIMEOUT],
          t[LCTX_CONFORM_UNSUPPORTED],
          rep->spec_gaps ? " (and operations no spec row covers!)" : "",
          r->o.report_dir,
          !ok                ? "ERROR (bad input, see above)"
          : rep->interrupted ? "INTERRUPTED (reports hold what ran)"
          : failed           ? "FAIL"
                             : "PASS");
}

static void write_reports(const run *r) {
  char path[4200];
  snprintf(path, sizeof path, "%s/report.tap", r->o.report_dir);
  write_tap(r, path);
  snprintf(path, sizeof path, "%s/report.junit.xml", r->o.report_dir);
  write_junit(r, path, r->report->seconds);
  snprintf(path, sizeof path, "%s/report.json", r->o.report_dir);
  write_json(r, path);
}

//===----------------------------------------------------------------------===//
// Setting up
//===----------------------------------------------------------------------===//

void lctx_conform_options_init(lctx_conform_options *o) {
  memset(o, 0, sizeof *o);
  o->spec_path = lctx_sys_default_spec_path();
  o->cases_dir = lctx_sys_default_cases_path();
  o->report_dir = "lctx-conform";
  o->exact = true;
  o->ops = (1u << LCTX_OP_KIND_COUNT) - 1;
  o->shard_i = o->shard_n = 1;
  o->seed = 1;
  o->random = 10000;
  o->domain = true;
  o->timeout = 5;
  o->batch = MAX_BATCH;
  o->handle_signals = true;
}

static bool load_xfail(run *r, FILE *err) {
  FILE *f = fopen(r->o.xfail_path, "r");
  if (!f) {
    fprintf(err, "lctx conform: --xfail: %s: %s\n", r->o.xfail_path,
            strerror(errno));
    return false;
  }
  char line[512];
  int number = 0;
  bool ok = true;
  while (ok && fgets(line, sizeof line, f)) {
    number++;
    char *p = line;
    while (*p == ' ' || *p == '\t')
      p++;
    if (*p == '#' || *p == '\n' || *p == '\0')
      continue;
    char *end = p;
    while (*end && *end != ' ' && *end != '\t' && *end != '\n')
      end++;
    char id[LCTX_SPEC_MAX_ID] = "";
    snprintf(id, sizeof id, "%.*s", (int)(end - p), p);
    const lctx_spec_row *row = lctx_spec_find(&r->spec, id);
    if (!row) {
      fprintf(err, "lctx conform: %s:%d:%d: unknown spec row '%.*s'\n",
              r->o.xfail_path, number, (int)(p - line) + 1, (int)(end - p), p);
      ok = false;
      break;
    }
    size_t index = (size_t)(row - r->spec.rows);
    char *reason = end;
    while (*reason == ' ' || *reason == '\t')
      reason++;
    reason[strcspn(reason, "\n")] = '\0';
    if (!*reason) {
      fprintf(err, "lctx conform: %s:%d:%d: row %s needs a reason\n",
              r->o.xfail_path, number, (int)(end - line) + 1, id);
      ok = false;
      break;
    }
    r->xfail[index] = true;
    snprintf(r->xfail_reason[index], sizeof r->xfail_reason[index], "%s",
             reason);
  }
  fclose(f);
  return ok;
}

/* Options a caller could get wrong; the command line checks them first. */
static bool valid_options(const lctx_conform_options *o, FILE *err) {
  if (!o->impl_path == !o->command) {
    fprintf(err, "lctx conform: name exactly one implementation (a plugin or "
                 "a command)\n");
    return false;
  }
  if (o->batch == 0 || o->batch > MAX_BATCH || o->shard_n == 0 ||
      o->shard_i == 0 || o->shard_i > o->shard_n || !(o->timeout > 0)) {
    fprintf(err, "lctx conform: a batch, shard or timeout out of range\n");
    return false;
  }
  return true;
}

/* Loads the spec table and the expected failures, and fills the report's
 * rows. */
static bool load_spec(run *r, FILE *err) {
  if (!lctx_spec_load_or_report(r->o.spec_path, &r->spec, "lctx conform", err))
    return false;
  r->report->row_count = r->spec.row_count;
  for (size_t i = 0; i < r->spec.row_count; i++)
    snprintf(r->report->rows[i].id, sizeof r->report->rows[i].id, "%s",
             r->spec.rows[i].id);
  for (unsigned k = 0; k < IR_ROWS; k++) {
    char id[8];
    snprintf(id, sizeof id, "IR-%03u", k);
    r->ir_rows[k] = find_row(r, id);
  }
  return !r->o.xfail_path || load_xfail(r, err);
}

/* Starts the implementation (a plugin's worker, or the program). */
static bool open_impl(run *r, FILE *err) {
  char e[1024];
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  char log[4200];
  snprintf(log, sizeof log, "%s/implementation.log", r->o.report_dir);
  lctx_impl_options io;
  lctx_impl_options_init(&io);
  io.timeout = r->o.timeout;
  io.log_path = log;
  r->impl = r->o.impl_path ? lctx_impl_open_plugin(r->o.impl_path, &io, &eb)
                           : lctx_impl_open_process(r->o.command, &io, &eb);
  if (!r->impl) {
    fprintf(err, "lctx conform: %s: %s\n",
            r->o.impl_path ? r->o.impl_path : r->o.command, e);
    return false;
  }
  r->info = lctx_impl_get_info(r->impl);
  lctx_impl_set_process_per_case(r->impl, r->o.process_per_case);
  return true;
}

/* Opens results.jsonl and writes its stamp line. */
static bool open_stream(run *r, FILE *err) {
  char path[4200];
  snprintf(path, sizeof path, "%s/results.jsonl", r->o.report_dir);
  r->stream = fopen(path, "w");
  if (!r->stream) {
    fprintf(err, "lctx conform: cannot set up the run (%s)\n", strerror(errno));
    return false;
  }
  json_t *h = json_stamp(r);
  json_object_set_new(h, "seed", json_integer((json_int_t)r->o.seed));
  char *t = json_dumps(h, JSON_COMPACT);
  if (t) {
    fprintf(r->stream, "%s\n", t);
    free(t);
  }
  json_decref(h);
  return true;
}

static bool set_up(run *r, FILE *err) {
  if (!load_spec(r, err))
    return false;
  if (!lctx_sys_mkdir_p(r->o.report_dir)) {
    fprintf(err, "lctx conform: --report-dir: %s: %s\n", r->o.report_dir,
            strerror(errno));
    return false;
  }
  return open_impl(r, err) && open_stream(r, err);
}

static void tear_down(run *r) {
  for (size_t i = 0; i < MAX_BATCH; i++)
    lctx_case_result_release(&r->results[i]);
  if (r->stream)
    fclose(r->stream);
  lctx_impl_close(r->impl);
  lctx_ircheck_destroy(r->ck);
  for (size_t i = 0; i < r->case_count; i++)
    free(r->case_names[i]);
  free(r->case_names);
}

//===----------------------------------------------------------------------===//
// The run
//===----------------------------------------------------------------------===//

/* Offers the cases of every source, then judges the last batch; false on
 * bad input. SIGINT and SIGTERM stop it early when the options say so. */
static bool run_sources(run *r, FILE *err) {
  lctx_sys_interrupts saved;
  if (r->o.handle_signals)
    lctx_sys_catch_interrupts(&saved);
  r->start = lctx_sys_now();
  bool ok = run_case_files(r, err);
  if (ok && r->o.domain && !stopping(r))
    lctx_domain_enumerate(domain_visit, r);
  if (ok && !stopping(r))
    run_random(r);
  if (ok)
    flush_batch(r);
  if (r->o.handle_signals)
    lctx_sys_release_interrupts(&saved);
  r->report->seconds = lctx_sys_now() - r->start;
  return ok;
}

/* Runs the cases, prints the table and the summary, writes the reports;
 * returns the exit code. */
static int judge_all(run *r, FILE *err) {
  lctx_conform_report *rep = r->report;
  stamp_text(r, r->out, "lctx conform: ");
  fflush(r->out);
  bool ok = run_sources(r, err);
  rep->restarts = lctx_impl_restarts(r->impl);
  for (size_t i = 0; i < r->spec.row_count; i++)
    for (int v = 0; v < LCTX_CONFORM_VERDICT_COUNT; v++)
      rep->totals[v] += rep->rows[i].n[v];
  print_table(r);
  write_reports(r);
  const size_t *t = rep->totals;
  bool failed = t[LCTX_CONFORM_FAIL] || t[LCTX_CONFORM_XPASS] ||
                t[LCTX_CONFORM_CRASH] || t[LCTX_CONFORM_TIMEOUT] ||
                rep->spec_gaps;
  print_summary(r, ok, failed);
  if (!ok)
    return LCTX_EXIT_USAGE;
  return failed || rep->interrupted ? LCTX_EXIT_VIOLATIONS : LCTX_EXIT_OK;
}

int lctx_conform_run(const lctx_conform_options *options,
                     lctx_conform_report *report, FILE *out, FILE *err) {
  if (!valid_options(options, err))
    return LCTX_EXIT_USAGE;
  run *r = calloc(1, sizeof *r);
  if (!r) {
    fprintf(err, "lctx conform: cannot set up the run (%s)\n", strerror(errno));
    return LCTX_EXIT_USAGE;
  }
  r->begin = lctx_sys_now();
  r->o = *options;
  r->out = out;
  r->report = report ? report : &r->own;
  memset(r->report, 0, sizeof *r->report);
  int code = set_up(r, err) ? judge_all(r, err) : LCTX_EXIT_USAGE;
  tear_down(r);
  free(r);
  return code;
}
