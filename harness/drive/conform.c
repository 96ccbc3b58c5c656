/*
 * conform.c - `lctx conform` (see conform.h).
 */
#include "conform.h"
#include "sys.h"

#include "case_bytes.h"
#include "case_json.h"
#include "case_text.h"
#include "exit.h"
#include "domain.h"
#include "impl.h"
#include "lctx/lctx.h"
#include "irexpect.h"
#include "oracle.h"

#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#ifndef LCTX_SOURCE_DIR
#define LCTX_SOURCE_DIR "."
#endif

#define MAX_BATCH 256

typedef enum verdict {
  V_PASS = 0,
  V_FAIL,
  V_XFAIL,
  V_XPASS,
  V_CRASH,
  V_TIMEOUT,
  V_UNSUPPORTED,
  V_COUNT
} verdict;

static const char *const VERDICT_NAMES[V_COUNT] = {
    "pass", "fail", "xfail", "xpass", "crash", "timeout", "unsupported"};

typedef struct row_stats {
  size_t n[V_COUNT];
  char first[1024]; /* the first failure, for the reports */
} row_stats;

typedef struct options {
  const char *impl_path;
  const char *command;
  const char *spec_path;
  const char *cases_dir;
  const char *xfail_path;
  const char *report_dir;
  bool exact;
  unsigned ops;     /* bit per op kind allowed by --ops */
  unsigned shard_i; /* 1-based */
  unsigned shard_n;
  unsigned long long seed;
  size_t random;
  bool domain;
  double timeout;
  size_t batch;          /* cases per request */
  bool process_per_case; /* a fresh program for every case */
  bool quiet;            /* no per-row table */
  bool first_failure;    /* stop after the batch of the first failure */
} options;

/* The IR rows, IR-000 .. IR-006 (irexpect.h's LCTX_IR_ROW_BIT). */
#define IR_ROWS 7

typedef struct run {
  options o;
  lctx_spec spec;
  lctx_impl *impl;
  const lctx_impl_info *info;
  bool xfail[LCTX_SPEC_MAX_ROWS];
  char xfail_reason[LCTX_SPEC_MAX_ROWS][160];
  row_stats rows[LCTX_SPEC_MAX_ROWS];
  size_t spec_gaps; /* operations without exactly one row */
  size_t global_index;
  size_t cases_run, cases_skipped, cases_unsupported;
  size_t source_cases[3];
  /* The batch. */
  lctx_case *batch;
  const lctx_case *batch_ptrs[MAX_BATCH];
  lctx_case_result *results;
  const char *batch_source[MAX_BATCH];
  size_t batch_index[MAX_BATCH];
  size_t batch_count;
  FILE *stream;
  FILE *out;
  double begin; /* the command started */
  double start; /* the cases started */
  bool interrupted;
  /* The IR checker for the modules of lower_per_platform operations. */
  lctx_ircheck *ck;
  size_t modules_checked;
  /* The rows IR-000 .. IR-006 (bit k of a verdict's `applicable`), or -1. */
  size_t ir_rows[IR_ROWS];
  /* The first failing verdict (fail, xpass, crash, timeout). */
  bool failed_once;
  double first_failure_seconds; /* after the command started */
  size_t first_failure_row;
  verdict first_failure_verdict;
} run;

static volatile sig_atomic_t g_interrupt;

static void on_interrupt(int sig) {
  (void)sig;
  g_interrupt = 1;
}

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

static char g_expected[4 * (LCTX_OUTCOME_TEXT_MAX + 32)];
static char g_actual[LCTX_OUTCOME_TEXT_MAX + 64];

static void stream_verdict(run *r, size_t b, size_t op, const char *row,
                           verdict v, const char *detail) {
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
  if (v == V_FAIL || v == V_XFAIL) {
    json_object_set_new(j, "expected", json_text(g_expected));
    json_object_set_new(j, "actual", json_text(g_actual));
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

static void note_first(run *r, size_t row, size_t b, size_t op, verdict v,
                       const char *detail) {
  row_stats *s = &r->rows[row];
  if (s->first[0])
    return;
  if (v == V_FAIL || v == V_XFAIL)
    snprintf(s->first, sizeof s->first,
             "%s case %zu, operation %zu: expected %.300s; got %.300s",
             r->batch_source[b], r->batch_index[b], op, g_expected, g_actual);
  else
    snprintf(s->first, sizeof s->first, "%s case %zu, operation %zu: %s: %s",
             r->batch_source[b], r->batch_index[b], op, VERDICT_NAMES[v],
             detail ? detail : "");
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
 * IR rows the check exercised (`applicable`, LCTX_IR_ROW_BIT). */
static size_t judge_module(run *r, const lctx_case *c, size_t index,
                           const char *mlir, bool *passed, unsigned *applicable,
                           char *why, size_t cap) {
  static lctx_case_runner runner;
  static lctx_ir_expect_store store;
  static lctx_ir_report report;
  *passed = false;
  *applicable = 0;
  if (!r->ck && !(r->ck = lctx_ircheck_create()))
    return (size_t)-1;
  lctx_case_runner_init(&runner, c);
  lctx_outcome outcome;
  for (size_t i = 0; i <= index; i++) {
    if (!lctx_case_runner_op(&runner, &c->ops[i], &outcome, NULL))
      return (size_t)-1;
  }
  if (outcome.kind == LCTX_OUTCOME_RAISE ||
      !lctx_ir_expect_from_lowering(&runner.lowering, runner.result,
                                    c->ops[index].x64, &store))
    return (size_t)-1;
  lctx_ir_verdict verdict;
  r->modules_checked++;
  *passed =
      lctx_ir_judge(r->ck, lctx_str_from_cstr(mlir), &store, &report, &verdict);
  *applicable = verdict.applicable;
  if (*passed)
    return find_row(r, "IR-005");
  snprintf(why, cap, "the module: %s: %s", verdict.row, verdict.reason);
  return find_row(r, verdict.row);
}

static void judge_batch(run *r) {
  static lctx_features features;
  for (size_t b = 0; b < r->batch_count; b++) {
    const lctx_case *c = r->batch_ptrs[b];
    const lctx_case_result *res = &r->results[b];
    lctx_feature_state state;
    lctx_feature_state_init(&state, c);
    for (size_t i = 0; i < c->op_count; i++) {
      lctx_features_compute(&state, i, &features);
      lctx_buf eb, ab;
      lctx_buf_init(&eb, g_expected, sizeof g_expected);
      lctx_buf_init(&ab, g_actual, sizeof g_actual);
      size_t row;
      verdict v;
      const char *detail = NULL;
      if (res->status != LCTX_RESULT_OK) {
        /* The row still comes from the features: attribute the crash. */
        size_t m[2];
        size_t n = lctx_spec_match(&r->spec, &features, m, 2);
        if (n != 1) {
          r->spec_gaps++;
          continue;
        }
        row = m[0];
        v = res->status == LCTX_RESULT_TIMEOUT ? V_TIMEOUT : V_CRASH;
        detail = res->detail;
      } else {
        lctx_outcome_format(&res->outcomes[i], &ab);
        lctx_judgement j =
            lctx_oracle_judge(&r->spec, &features, &res->outcomes[i],
                              r->o.exact, &row, &eb, NULL);
        if (j == LCTX_JUDGE_NO_ROW || j == LCTX_JUDGE_SEVERAL_ROWS) {
          r->spec_gaps++;
          continue;
        }
        bool ok = j == LCTX_JUDGE_ALLOWED;
        v = r->xfail[row] ? (ok ? V_XPASS : V_XFAIL) : (ok ? V_PASS : V_FAIL);
        if (ok && res->mlir[i] &&
            c->ops[i].kind == LCTX_OP_LOWER_PER_PLATFORM) {
          /* The outcome passed; its module is judged by the IR rows. */
          static char why[LCTX_IR_MESSAGE_MAX + 128];
          bool passed;
          unsigned applicable;
          size_t ir_row = judge_module(r, c, i, res->mlir[i], &passed,
                                       &applicable, why, sizeof why);
          if (ir_row < r->spec.row_count && passed) {
            /* An accepted module passes every IR row that judged it (IR-005,
             * the row judge_module names, always among them). */
            r->rows[ir_row].n[V_PASS]++;
            for (unsigned k = 0; k < IR_ROWS; k++) {
              if (((applicable >> k) & 1u) && r->ir_rows[k] != ir_row &&
                  r->ir_rows[k] < r->spec.row_count)
                r->rows[r->ir_rows[k]].n[V_PASS]++;
            }
          } else if (ir_row < r->spec.row_count) {
            /* The operation fails under the IR row that rejected it. */
            snprintf(g_expected, sizeof g_expected,
                     "a module the IR rows accept");
            snprintf(g_actual, sizeof g_actual, "%s", why);
            row = ir_row;
            v = r->xfail[row] ? V_XFAIL : V_FAIL;
            detail = why;
          }
        }
      }
      r->rows[row].n[v]++;
      if (!r->failed_once && v != V_PASS && v != V_XFAIL) {
        r->failed_once = true;
        r->first_failure_seconds = lctx_sys_now() - r->begin;
        r->first_failure_row = row;
        r->first_failure_verdict = v;
      }
      if (v != V_PASS) {
        note_first(r, row, b, i, v, detail);
        stream_verdict(r, b, i, r->spec.rows[row].id, v, detail);
      }
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
  r->cases_run += r->batch_count;
  r->batch_count = 0;
  if (g_interrupt)
    r->interrupted = true;
}

/* Whether the run stops: interrupted, or --first-failure and one failed. */
static bool stopping(const run *r) {
  return r->interrupted || (r->o.first_failure && r->failed_once);
}

/* Counts every operation of an unsupported case under its row. */
static void note_unsupported(run *r, const lctx_case *c) {
  static lctx_features features;
  lctx_feature_state state;
  lctx_feature_state_init(&state, c);
  for (size_t i = 0; i < c->op_count; i++) {
    lctx_features_compute(&state, i, &features);
    size_t m[2];
    if (lctx_spec_match(&r->spec, &features, m, 2) == 1)
      r->rows[m[0]].n[V_UNSUPPORTED]++;
  }
}

/* Offers one case to the run; returns false to stop early. */
static bool offer(run *r, const char *source, size_t index,
                  const lctx_case *c) {
  size_t g = r->global_index++;
  if (stopping(r))
    return false;
  if (r->o.shard_n > 1 && g % r->o.shard_n != r->o.shard_i - 1) {
    r->cases_skipped++;
    return true;
  }
  unsigned needed = 0;
  for (size_t i = 0; i < c->op_count; i++)
    needed |= 1u << c->ops[i].kind;
  if (needed & ~r->o.ops) {
    r->cases_skipped++;
    return true;
  }
  if (needed & ~r->info->operations) {
    r->cases_unsupported++;
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
  return offer(r, "domain", r->source_cases[1]++, c);
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Parses and offers every .case file of the directory; false on a bad
 * file (reported on err). */
static bool run_case_files(run *r, FILE *err) {
  DIR *d = opendir(r->o.cases_dir);
  if (!d) {
    fprintf(err, "lctx conform: %s: cannot open: %s\n", r->o.cases_dir,
            strerror(errno));
    return false;
  }
  char *names[4096];
  size_t count = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL && count < 4096;) {
    size_t n = strlen(e->d_name);
    if (n > 5 && strcmp(e->d_name + n - 5, ".case") == 0)
      names[count++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, count, sizeof names[0], compare_names);
  static lctx_case c;
  static char text[1 << 20];
  bool ok = true;
  for (size_t i = 0; i < count && ok; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", r->o.cases_dir, names[i]);
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(text, 1, sizeof text, f) : 0;
    if (f)
      fclose(f);
    char e[1024];
    lctx_buf eb;
    lctx_buf_init(&eb, e, sizeof e);
    if (!f || !lctx_case_parse(text, n, path, &c, &eb)) {
      fprintf(err, "lctx conform: %s\n", f ? e : path);
      ok = false;
      break;
    }
    offer(r, "cases", r->source_cases[0]++, &c);
  }
  for (size_t i = 0; i < count; i++)
    free(names[i]);
  return ok;
}

static void run_random(run *r) {
  uint64_t state = r->o.seed;
  static lctx_case c;
  for (size_t i = 0; i < r->o.random && !stopping(r); i++) {
    lctx_domain_random_case(&state, &c);
    offer(r, "random", r->source_cases[2]++, &c);
  }
}

//===----------------------------------------------------------------------===//
// Reports
//===----------------------------------------------------------------------===//

static bool row_failed(const row_stats *s) {
  return s->n[V_FAIL] || s->n[V_XPASS] || s->n[V_CRASH] || s->n[V_TIMEOUT];
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
          r->interrupted ? ", INTERRUPTED" : "");
}

static void write_tap(const run *r, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f)
    return;
  fprintf(f, "TAP version 13\n1..%zu\n", r->spec.row_count);
  stamp_text(r, f, "# ");
  for (size_t i = 0; i < r->spec.row_count; i++) {
    const row_stats *s = &r->rows[i];
    size_t total = 0;
    for (int v = 0; v < V_COUNT; v++)
      total += s->n[v];
    const char *directive = "";
    if (r->xfail[i])
      directive = " # TODO expected failure";
    else if (total == s->n[V_UNSUPPORTED])
      directive = total ? " # SKIP unsupported" : " # SKIP not reached";
    fprintf(f, "%s %zu - %s%s\n", row_failed(s) ? "not ok" : "ok", i + 1,
            r->spec.rows[i].id, directive);
    fprintf(f, "  ---\n");
    for (int v = 0; v < V_COUNT; v++)
      fprintf(f, "  %s: %zu\n", VERDICT_NAMES[v], s->n[v]);
    if (s->first[0]) {
      fprintf(f, "  first: \"");
      for (const char *p = s->first; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\')
          fprintf(f, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
          fprintf(f, "\\x%02x", c); /* YAML double-quoted escape */
        else
          fputc(c, f);
      }
      fprintf(f, "\"\n");
    }
    fprintf(f, "  ...\n");
  }
  fclose(f);
}

static void write_junit(const run *r, const char *path, double elapsed) {
  FILE *f = fopen(path, "w");
  if (!f)
    return;
  size_t failures = 0, errors = 0, skipped = 0;
  for (size_t i = 0; i < r->spec.row_count; i++) {
    const row_stats *s = &r->rows[i];
    if (s->n[V_CRASH] || s->n[V_TIMEOUT])
      errors++;
    else if (s->n[V_FAIL] || s->n[V_XPASS])
      failures++;
    else if (r->xfail[i] || s->n[V_PASS] == 0)
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
  for (size_t i = 0; i < r->spec.row_count; i++) {
    const row_stats *s = &r->rows[i];
    fprintf(f, "<testcase classname=\"spec\" name=\"%s\">", r->spec.rows[i].id);
    if (s->n[V_CRASH] || s->n[V_TIMEOUT]) {
      fprintf(f, "<error message=\"%zu crash, %zu timeout\">", s->n[V_CRASH],
              s->n[V_TIMEOUT]);
      xml_escape(f, s->first);
      fprintf(f, "</error>");
    } else if (s->n[V_FAIL] || s->n[V_XPASS]) {
      fprintf(f, "<failure message=\"%zu fail, %zu unexpected pass\">",
              s->n[V_FAIL], s->n[V_XPASS]);
      xml_escape(f, s->first);
      fprintf(f, "</failure>");
    } else if (r->xfail[i]) {
      fprintf(f, "<skipped message=\"expected failure: ");
      xml_escape(f, r->xfail_reason[i]);
      fprintf(f, "\"/>");
    } else if (s->n[V_PASS] == 0) {
      fprintf(f, "<skipped message=\"%s\"/>",
              s->n[V_UNSUPPORTED] ? "unsupported" : "not reached");
    }
    fprintf(f, "<system-out>");
    for (int v = 0; v < V_COUNT; v++)
      fprintf(f, "%s=%zu ", VERDICT_NAMES[v], s->n[v]);
    fprintf(f, "</system-out></testcase>\n");
  }
  fprintf(f, "</testsuite></testsuites>\n");
  fclose(f);
}

static void write_json(const run *r, const char *path, double elapsed) {
  json_t *j = json_object();
  json_object_set_new(j, "spec_version", json_string(r->spec.version));
  json_object_set_new(j, "lctx_version", json_string(LCTX_VERSION_STRING));
  json_object_set_new(j, "implementation", json_string(r->info->name));
  json_object_set_new(j, "implementation_version",
                      json_string(r->info->version));
  json_object_set_new(j, "implementation_kind", json_string(r->info->kind));
  json_object_set_new(j, "seed", json_integer((json_int_t)r->o.seed));
  json_object_set_new(j, "interrupted", json_boolean(r->interrupted));
  json_object_set_new(j, "seconds", json_real(elapsed));
  json_object_set_new(j, "cases_run", json_integer((json_int_t)r->cases_run));
  json_object_set_new(j, "cases_unsupported",
                      json_integer((json_int_t)r->cases_unsupported));
  json_object_set_new(j, "cases_skipped",
                      json_integer((json_int_t)r->cases_skipped));
  json_object_set_new(j, "restarts",
                      json_integer((json_int_t)lctx_impl_restarts(r->impl)));
  json_t *rows = json_array();
  for (size_t i = 0; i < r->spec.row_count; i++) {
    json_t *row = json_object();
    json_object_set_new(row, "id", json_string(r->spec.rows[i].id));
    for (int v = 0; v < V_COUNT; v++)
      json_object_set_new(row, VERDICT_NAMES[v],
                          json_integer((json_int_t)r->rows[i].n[v]));
    if (r->xfail[i])
      json_object_set_new(row, "xfail_reason", json_string(r->xfail_reason[i]));
    if (r->rows[i].first[0])
      json_object_set_new(row, "first", json_text(r->rows[i].first));
    json_array_append_new(rows, row);
  }
  json_object_set_new(j, "rows", rows);
  json_object_set_new(j, "stopped_at_first_failure",
                      json_boolean(r->o.first_failure && r->failed_once));
  if (r->failed_once) {
    const row_stats *s = &r->rows[r->first_failure_row];
    json_t *ff = json_object();
    json_object_set_new(ff, "row",
                        json_string(r->spec.rows[r->first_failure_row].id));
    json_object_set_new(ff, "verdict",
                        json_string(VERDICT_NAMES[r->first_failure_verdict]));
    json_object_set_new(ff, "seconds", json_real(r->first_failure_seconds));
    json_object_set_new(ff, "first", json_text(s->first));
    json_object_set_new(j, "first_failure", ff);
  }
  json_dump_file(j, path, JSON_INDENT(2));
  json_decref(j);
}

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

static void usage(FILE *f) {
  fprintf(f,
          "usage: lctx conform (--impl LIB.so | --cmd \"PROGRAM ARGS\") "
          "[options]\n"
          "  --spec FILE          the spec table (default: the source tree's)\n"
          "  --cases DIR          conformance cases (default: "
          "conformance/cases)\n"
          "  --random N           N seeded random cases (default 10000)\n"
          "  --seed S             seed of the random cases (default 1)\n"
          "  --no-domain          skip the exhaustive domain of check-spec\n"
          "  --xfail FILE         expected failures: 'ROW-ID reason' per line\n"
          "  --messages exact|class   compare messages, or classes only\n"
          "  --ops LIST           only cases whose operations are all in "
          "LIST\n"
          "                       (backends,canonicalize,get_backend,"
          "module_get_backend,\n"
          "                       register_lowering,lower_per_platform)\n"
          "  --shard I/N          run the I-th of N shares (1 <= I <= N)\n"
          "  --timeout SECONDS    per case (default 5)\n"
          "  --batch N            cases per request or worker round (1-256, "
          "default 256)\n"
          "  --process-per-case   start the program afresh for every case\n"
          "  --quiet              no per-row table, only failing rows\n"
          "  --first-failure      stop after the batch that holds the first "
          "failure\n"
          "  --report-dir DIR     where reports go (default: "
          "lctx-conform)\n");
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

static bool parse_options(int argc, char **argv, options *o, FILE *out,
                          FILE *err, int *code) {
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
  *code = LCTX_EXIT_USAGE;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0) {
      usage(out);
      *code = LCTX_EXIT_OK;
      return false;
    }
    if (strcmp(a, "--no-domain") == 0) {
      o->domain = false;
      continue;
    }
    if (strcmp(a, "--process-per-case") == 0) {
      o->process_per_case = true;
      continue;
    }
    if (strcmp(a, "--quiet") == 0) {
      o->quiet = true;
      continue;
    }
    if (strcmp(a, "--first-failure") == 0) {
      o->first_failure = true;
      continue;
    }
    if (i + 1 >= argc) {
      fprintf(err, "lctx conform: %s needs a value (or is unknown)\n", a);
      usage(err);
      return false;
    }
    const char *v = argv[++i];
    char *end;
    if (strcmp(a, "--impl") == 0) {
      o->impl_path = v;
    } else if (strcmp(a, "--cmd") == 0) {
      o->command = v;
    } else if (strcmp(a, "--spec") == 0) {
      o->spec_path = v;
    } else if (strcmp(a, "--cases") == 0) {
      o->cases_dir = v;
    } else if (strcmp(a, "--xfail") == 0) {
      o->xfail_path = v;
    } else if (strcmp(a, "--report-dir") == 0) {
      o->report_dir = v;
    } else if (strcmp(a, "--messages") == 0) {
      if (strcmp(v, "exact") != 0 && strcmp(v, "class") != 0) {
        fprintf(err, "lctx conform: --messages: '%s' is not exact or class\n",
                v);
        return false;
      }
      o->exact = strcmp(v, "exact") == 0;
    } else if (strcmp(a, "--ops") == 0) {
      o->ops = 0;
      char copy[256];
      snprintf(copy, sizeof copy, "%s", v);
      for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        lctx_op_kind k;
        if (!lctx_op_kind_from_name(lctx_str_from_cstr(tok), &k)) {
          fprintf(err, "lctx conform: --ops: unknown operation '%s'\n", tok);
          return false;
        }
        o->ops |= 1u << k;
      }
      if (!o->ops) {
        fprintf(err, "lctx conform: --ops: no operation given\n");
        return false;
      }
    } else if (strcmp(a, "--shard") == 0) {
      unsigned si, sn;
      char extra;
      if (sscanf(v, "%u/%u%c", &si, &sn, &extra) != 2 || sn == 0 || si == 0 ||
          si > sn) {
        fprintf(err,
                "lctx conform: --shard: '%s' is not I/N with 1 <= I <= "
                "N\n",
                v);
        return false;
      }
      o->shard_i = si;
      o->shard_n = sn;
    } else if (strcmp(a, "--seed") == 0) {
      errno = 0;
      o->seed = strtoull(v, &end, 10);
      if (*end || errno || v[0] == '-') {
        fprintf(err, "lctx conform: --seed: '%s' is not a number\n", v);
        return false;
      }
    } else if (strcmp(a, "--random") == 0) {
      errno = 0;
      unsigned long long n = strtoull(v, &end, 10);
      if (*end || errno || v[0] == '-' || n > 100000000ULL) {
        fprintf(err, "lctx conform: --random: '%s' is not a count\n", v);
        return false;
      }
      o->random = (size_t)n;
    } else if (strcmp(a, "--batch") == 0) {
      errno = 0;
      unsigned long long n = strtoull(v, &end, 10);
      if (*end || errno || n == 0 || n > MAX_BATCH) {
        fprintf(err,
                "lctx conform: --batch: '%s' is not a count from 1 to "
                "%d\n",
                v, MAX_BATCH);
        return false;
      }
      o->batch = (size_t)n;
    } else if (strcmp(a, "--timeout") == 0) {
      o->timeout = strtod(v, &end);
      if (*end || !(o->timeout > 0) || o->timeout > 3600) {
        fprintf(err,
                "lctx conform: --timeout: '%s' is not a number of "
                "seconds\n",
                v);
        return false;
      }
    } else {
      fprintf(err, "lctx conform: unknown option '%s'\n", a);
      usage(err);
      return false;
    }
  }
  if (!o->impl_path == !o->command) {
    fprintf(err, "lctx conform: give exactly one of --impl LIB.so and --cmd "
                 "\"PROGRAM ARGS\"\n");
    usage(err);
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// The command
//===----------------------------------------------------------------------===//

int lctx_cmd_conform(int argc, char **argv, FILE *out, FILE *err) {
  static run r;
  memset(&r, 0, sizeof r);
  r.begin = lctx_sys_now();
  int code;
  if (!parse_options(argc, argv, &r.o, out, err, &code))
    return code;
  char e[1024];
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  if (!lctx_spec_load(r.o.spec_path, &r.spec, &eb)) {
    fprintf(err, "lctx conform: %s\n", e);
    return LCTX_EXIT_USAGE;
  }
  for (unsigned k = 0; k < IR_ROWS; k++) {
    char id[8];
    snprintf(id, sizeof id, "IR-%03u", k);
    r.ir_rows[k] = find_row(&r, id);
  }
  if (r.o.xfail_path && !load_xfail(&r, err))
    return LCTX_EXIT_USAGE;
  if (!lctx_sys_mkdir_p(r.o.report_dir)) {
    fprintf(err, "lctx conform: --report-dir: %s: %s\n", r.o.report_dir,
            strerror(errno));
    return LCTX_EXIT_USAGE;
  }
  char path[4200];
  snprintf(path, sizeof path, "%s/implementation.log", r.o.report_dir);
  lctx_buf_reset(&eb);
  r.impl = r.o.impl_path
               ? lctx_impl_open_plugin(r.o.impl_path, r.o.timeout, &eb)
               : lctx_impl_open_process(r.o.command, r.o.timeout, path, &eb);
  if (!r.impl) {
    fprintf(err, "lctx conform: %s: %s\n",
            r.o.impl_path ? r.o.impl_path : r.o.command, e);
    return LCTX_EXIT_USAGE;
  }
  r.info = lctx_impl_get_info(r.impl);
  lctx_impl_set_process_per_case(r.impl, r.o.process_per_case);
  r.batch = calloc(MAX_BATCH, sizeof *r.batch);
  r.results = calloc(MAX_BATCH, sizeof *r.results);
  snprintf(path, sizeof path, "%s/results.jsonl", r.o.report_dir);
  r.stream = fopen(path, "w");
  if (!r.batch || !r.results || !r.stream) {
    fprintf(err, "lctx conform: cannot set up the run (%s)\n", strerror(errno));
    for (size_t i = 0; r.results && i < MAX_BATCH; i++)
      lctx_case_result_release(&r.results[i]);
    free(r.batch);
    free(r.results);
    if (r.stream)
      fclose(r.stream);
    lctx_impl_close(r.impl);
    return LCTX_EXIT_USAGE;
  }
  r.out = out;
  {
    json_t *h = json_object();
    json_object_set_new(h, "spec_version", json_string(r.spec.version));
    json_object_set_new(h, "lctx_version", json_string(LCTX_VERSION_STRING));
    json_object_set_new(h, "implementation", json_string(r.info->name));
    json_object_set_new(h, "implementation_version",
                        json_string(r.info->version));
    json_object_set_new(h, "seed", json_integer((json_int_t)r.o.seed));
    char *t = json_dumps(h, JSON_COMPACT);
    if (t) {
      fprintf(r.stream, "%s\n", t);
      free(t);
    }
    json_decref(h);
  }
  stamp_text(&r, out, "lctx conform: ");
  fflush(out);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_interrupt;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  g_interrupt = 0;
  r.start = lctx_sys_now();
  bool ok = run_case_files(&r, err);
  if (ok && r.o.domain && !stopping(&r))
    lctx_domain_enumerate(domain_visit, &r);
  if (ok && !stopping(&r))
    run_random(&r);
  if (ok)
    flush_batch(&r);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  double elapsed = lctx_sys_now() - r.start;

  /* The table, and the totals. */
  size_t totals[V_COUNT] = {0};
  fprintf(out, "\n%-8s %9s %7s %6s %6s %6s %8s %12s\n", "row", "pass", "fail",
          "xfail", "xpass", "crash", "timeout", "unsupported");
  for (size_t i = 0; i < r.spec.row_count; i++) {
    const row_stats *s = &r.rows[i];
    for (int v = 0; v < V_COUNT; v++)
      totals[v] += s->n[v];
    if (r.o.quiet && !row_failed(s))
      continue;
    fprintf(out, "%-8s %9zu %7zu %6zu %6zu %6zu %8zu %12zu%s\n",
            r.spec.rows[i].id, s->n[V_PASS], s->n[V_FAIL], s->n[V_XFAIL],
            s->n[V_XPASS], s->n[V_CRASH], s->n[V_TIMEOUT], s->n[V_UNSUPPORTED],
            row_failed(s) ? "  <--" : "");
  }
  for (size_t i = 0; i < r.spec.row_count; i++) {
    if (r.rows[i].first[0] && row_failed(&r.rows[i]))
      fprintf(out, "%s: %s\n", r.spec.rows[i].id, r.rows[i].first);
  }
  if (r.failed_once)
    fprintf(out, "first failure: %s (%s) after %.3f s%s\n",
            r.spec.rows[r.first_failure_row].id,
            VERDICT_NAMES[r.first_failure_verdict], r.first_failure_seconds,
            r.o.first_failure ? "; stopped there (--first-failure)" : "");
  snprintf(path, sizeof path, "%s/report.tap", r.o.report_dir);
  write_tap(&r, path);
  snprintf(path, sizeof path, "%s/report.junit.xml", r.o.report_dir);
  write_junit(&r, path, elapsed);
  snprintf(path, sizeof path, "%s/report.json", r.o.report_dir);
  write_json(&r, path, elapsed);
  bool failed = totals[V_FAIL] || totals[V_XPASS] || totals[V_CRASH] ||
                totals[V_TIMEOUT] || r.spec_gaps;
  fprintf(out,
          "\nconform: %zu cases (%zu conformance, %zu domain, %zu random; "
          "%zu skipped by shard or --ops, %zu unsupported) in %.1f s, %zu "
          "restarts\n"
          "operations: %zu pass, %zu fail, %zu xfail, %zu xpass, %zu crash, "
          "%zu timeout, %zu unsupported%s\n"
          "reports: %s/report.tap, report.junit.xml, report.json, "
          "results.jsonl\n"
          "result: %s\n",
          r.cases_run, r.source_cases[0], r.source_cases[1], r.source_cases[2],
          r.cases_skipped, r.cases_unsupported, elapsed,
          lctx_impl_restarts(r.impl), totals[V_PASS], totals[V_FAIL],
          totals[V_XFAIL], totals[V_XPASS], totals[V_CRASH], totals[V_TIMEOUT],
          totals[V_UNSUPPORTED],
          r.spec_gaps ? " (and operations no spec row covers!)" : "",
          r.o.report_dir,
          !ok             ? "ERROR (bad input, see above)"
          : r.interrupted ? "INTERRUPTED (reports hold what ran)"
          : failed        ? "FAIL"
                          : "PASS");
  fclose(r.stream);
  for (size_t i = 0; i < MAX_BATCH; i++)
    lctx_case_result_release(&r.results[i]);
  free(r.batch);
  free(r.results);
  lctx_impl_close(r.impl);
  lctx_ircheck_destroy(r.ck);
  if (!ok)
    return LCTX_EXIT_USAGE;
  return failed || r.interrupted ? LCTX_EXIT_VIOLATIONS : LCTX_EXIT_OK;
}
