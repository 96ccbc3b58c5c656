/*
 * report_print.c - a finished run's table and summary as text (see
 * report_print.h).
 */
#include "report_print.h"

#include "escape.h"
#include "peer.h"
#include "sys.h"

#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// The text table and summary
//===----------------------------------------------------------------------===//

/* Per row with failures that pass as another release behaves: how many,
 * and why (lctx_oracle_drift): "RG-001: 120 fail; passes as JAX <=0.10.2
 * behaves: fact client-gpu changed in 00b8c5dbf03c (0.11.0)". */
static void print_drift(const lctx_report_doc *d, const lctx_report_text *t,
                        FILE *out) {
  const lctx_report *rep = d->report;
  bool head = false;
  for (size_t i = 0; i < rep->row_count; i++) {
    const lctx_report_row *s = &rep->rows[i];
    if (!s->drift_explained && !s->drift_new)
      continue;
    lctx_escaped esc;
    if (!head)
      fprintf(out, "behaviour of other JAX releases (judged as %s behaves):\n",
              lctx_esc(&esc, t->judged_as));
    head = true;
    if (s->drift_explained) {
      char some[64] = "";
      if (s->drift_explained < s->n[LCTX_VERDICT_FAIL])
        snprintf(some, sizeof some, "%zu of them ", s->drift_explained);
      fprintf(out, "%s: %zu fail; %s%s\n", s->id, s->n[LCTX_VERDICT_FAIL], some,
              lctx_esc(&esc, s->drift));
    }
    if (s->drift_new)
      fprintf(out, "%s: %zu fail; %zu of them %s\n", s->id,
              s->n[LCTX_VERDICT_FAIL], s->drift_new,
              lctx_esc(&esc, s->drift_new_text));
  }
}

/* A failing row's first verdict other than pass: what it was, with a fail's
 * expected and actual texts one above the other and their first difference
 * marked (`first_diff`), then how to see the reference run the case
 * (explain) and how to run it again (rerun). */
static void print_first(const lctx_report_row *row, FILE *out) {
  lctx_escaped esc;
  if (row->first_diff[0] && row->first_head < strlen(row->first)) {
    char head[sizeof row->first];
    snprintf(head, sizeof head, "%.*s", (int)row->first_head, row->first);
    fprintf(out, "%s: %s:\n", row->id, lctx_esc(&esc, head));
    lctx_escape_built_lines(out, "", row->first_diff);
  } else if (row->first[0]) {
    fprintf(out, "%s: %s\n", row->id, lctx_esc(&esc, row->first));
  }
  if (row->explain[0])
    fprintf(out, "  explain: %s\n", lctx_esc(&esc, row->explain));
  if (row->rerun[0])
    fprintf(out, "  rerun: %s\n", lctx_esc(&esc, row->rerun));
}

void lctx_report_print_table(const lctx_report_doc *d,
                             const lctx_report_text *t, FILE *out) {
  const lctx_report *rep = d->report;
  bool any_failed = false;
  for (size_t i = 0; i < rep->row_count; i++)
    any_failed = any_failed || lctx_report_row_failed(&rep->rows[i]);
  if (!t->quiet || any_failed) /* no header over an empty table */
    fprintf(out, "\n%-8s %9s %7s %6s %6s %6s %8s %12s %6s\n", "row", "pass",
            "fail", "xfail", "xpass", "crash", "timeout", "unsupported",
            "flaky");
  for (size_t i = 0; i < rep->row_count; i++) {
    const size_t *n = rep->rows[i].n;
    bool failed = lctx_report_row_failed(&rep->rows[i]);
    if (t->quiet && !failed)
      continue;
    fprintf(out, "%-8s %9zu %7zu %6zu %6zu %6zu %8zu %12zu %6zu%s\n",
            rep->rows[i].id, n[LCTX_VERDICT_PASS], n[LCTX_VERDICT_FAIL],
            n[LCTX_VERDICT_XFAIL], n[LCTX_VERDICT_XPASS], n[LCTX_VERDICT_CRASH],
            n[LCTX_VERDICT_TIMEOUT], n[LCTX_VERDICT_UNSUPPORTED],
            n[LCTX_VERDICT_FLAKY], failed ? "  <--" : "");
  }
  for (size_t i = 0; i < rep->row_count; i++)
    if (lctx_report_row_failed(&rep->rows[i]))
      print_first(&rep->rows[i], out);
  print_drift(d, t, out);
  if (rep->failed_once)
    fprintf(out, "first failure: %s (%s) after %.3f s%s\n",
            rep->rows[rep->first_failure_row].id,
            lctx_verdict_name(rep->first_failure_verdict),
            rep->first_failure_seconds,
            t->first_failure ? "; stopped there (--first-failure)" : "");
}

/* The line that says where the reports are (or why there are none) and
 * what results.jsonl does not hold. */
static void print_where(const lctx_report_doc *d, const lctx_report_text *t,
                        FILE *out) {
  const lctx_report *rep = d->report;
  lctx_escaped dir;
  if (t->report_dir)
    fprintf(out,
            "reports: %s/report.tap, report.junit.xml, report.json, "
            "results.jsonl",
            lctx_esc(&dir, t->report_dir));
  else if (t->bad_input)
    fputs("reports: none (the run stopped on bad input)", out);
  else
    fputs("no complete reports: a file could not be written (see above)", out);
  size_t dropped = 0;
  for (size_t i = 0; i < rep->row_count; i++)
    dropped += rep->rows[i].not_kept;
  if (dropped)
    fprintf(out,
            " (%zu more verdicts counted, not kept: at most %zu per row, "
            "--keep-failures)",
            dropped, t->keep_failures);
  fputc('\n', out);
}

void lctx_report_print_cases(const lctx_report *rep, FILE *out) {
  const size_t *src = rep->source_cases;
  size_t not_reached = lctx_report_cases_not_reached(rep);
  fprintf(out, "%zu cases (", lctx_report_cases_total(rep));
  if (src[0] + src[1] + src[2])
    fprintf(out, "%zu conformance, %zu domain, %zu random; ", src[0], src[1],
            src[2]);
  fprintf(out,
          "of them %zu judged, %zu skipped by shard or --ops, %zu "
          "unsupported",
          rep->cases_run, rep->cases_skipped, rep->cases_unsupported);
  if (rep->cases_not_judged)
    fprintf(out, ", %zu not judged at this release", rep->cases_not_judged);
  if (not_reached)
    fprintf(out, ", %zu not reached as the run stopped", not_reached);
  fputc(')', out);
}

void lctx_report_print_children(const lctx_report_doc *d, FILE *out) {
  char name[32];
  if (d->stop_signal > 0)
    fprintf(out, "stopped by %s: the run ended early, as on Ctrl-C\n",
            lctx_sys_signal_name(d->stop_signal, name, sizeof name));
  if (d->left_behind_killed > 0)
    fprintf(out, "processes left behind by children: %zu, killed\n",
            d->left_behind_killed);
  if (d->stops_continued > 0)
    fprintf(out,
            "lctx was stopped %zu time%s by a signal from outside and "
            "continued\n",
            d->stops_continued, d->stops_continued == 1 ? "" : "s");
  if (d->logs_capped > 0)
    fprintf(out,
            "implementation.log reached its cap of %zu MiB: the rest of the "
            "implementation's output was dropped\n",
            LCTX_PEER_LOG_CAP >> 20);
  if (d->isolation && strcmp(d->isolation, "none") == 0)
    fprintf(out, "isolation: none (no PID namespace here, or "
                 "LCTX_ISOLATION=none: the implementation can reach lctx's "
                 "processes; conformance/PROTOCOL.md)\n");
}

void lctx_report_print_summary(const lctx_report_doc *d,
                               const lctx_report_text *t, bool ok, FILE *out) {
  const lctx_report *rep = d->report;
  const size_t *n = rep->totals;
  lctx_escaped as;
  char absent[64] = "";
  if (!t->modelled)
    snprintf(absent, sizeof absent, " (%zu cases it cannot run)",
             rep->cases_absent);
  fputs("\nconform: ", out);
  lctx_report_print_cases(rep, out);
  fprintf(out,
          " as %s%s behaves, in %.1f s, %zu restarts, %zu recycled for "
          "memory\n"
          "operations: %zu pass, %zu fail, %zu xfail, %zu xpass, %zu crash, "
          "%zu timeout, %zu unsupported, %zu flaky%s\n",
          lctx_esc(&as, t->judged_as), absent, rep->seconds, rep->restarts,
          rep->recycles, n[LCTX_VERDICT_PASS], n[LCTX_VERDICT_FAIL],
          n[LCTX_VERDICT_XFAIL], n[LCTX_VERDICT_XPASS], n[LCTX_VERDICT_CRASH],
          n[LCTX_VERDICT_TIMEOUT], n[LCTX_VERDICT_UNSUPPORTED],
          n[LCTX_VERDICT_FLAKY],
          rep->spec_gaps ? " (and operations no spec row covers!)" : "");
  print_where(d, t, out);
  lctx_report_print_children(d, out);
  if (rep->cases_not_judged > 0) {
    lctx_escaped wb;
    size_t ops = 0;
    fprintf(out,
            "not judged: %zu cases need fact %s, not read at this release "
            "(%s); rows:",
            rep->cases_not_judged, rep->not_judged_fact,
            lctx_esc(&wb, rep->not_judged_why));
    for (size_t i = 0; i < rep->row_count; i++) {
      if (!rep->rows[i].not_judged)
        continue;
      ops += rep->rows[i].not_judged;
      fprintf(out, " %s (%zu)", rep->rows[i].id, rep->rows[i].not_judged);
    }
    fprintf(out, "; %zu operations in all\n", ops);
  }
  if (rep->modules_unjudged > 0)
    fprintf(out,
            "modules: %zu not judged: the MLIR judge could not start (see "
            "judge.log)\n",
            rep->modules_unjudged);
  fprintf(out, "result: %s\n",
          !ok                ? "ERROR (bad input or a report not written, "
                               "see above)"
          : rep->interrupted ? "INTERRUPTED (reports hold what ran)"
          : lctx_report_run_failed(rep) ? "FAIL"
          : rep->modules_unjudged > 0
              ? "INCOMPLETE (modules not judged, see above)"
          : rep->nothing_judged ? "NOTHING JUDGED (no operation was judged: "
                                  "no cases, or every one unsupported)"
                                : "PASS");
}

/* `file` without the working folder `cwd` ("" none) and its slash when
 * it lies under it. */
static void relative_to(char *file, const char *cwd) {
  size_t n = strlen(cwd);
  if (n == 0 || strncmp(file, cwd, n) != 0 || file[n] != '/' ||
      file[n + 1] == '\0')
    return;
  memmove(file, file + n + 1, strlen(file + n + 1) + 1);
}

void lctx_report_print_diagnoses(const lctx_diagnosis *diagnoses, size_t count,
                                 FILE *out) {
  if (!count)
    return;
  fprintf(out, "diagnoses: %zu in the user's and packages' programs\n", count);
  char cwd[4096];
  if (!lctx_sys_cwd(cwd, sizeof cwd) || strcmp(cwd, "/") == 0)
    cwd[0] = '\0';
  char *line = malloc(8192);
  lctx_diagnosis *d = malloc(sizeof *d);
  for (size_t i = 0; line && d && i < count; i++) {
    *d = diagnoses[i];
    relative_to(d->file, cwd);
    relative_to(d->rule.file, cwd);
    relative_to(d->call_site.file, cwd);
    lctx_diagnosis_text(d, line, 8192);
    lctx_escape_write(out, line, strlen(line));
    fputc('\n', out);
  }
  free(d);
  free(line);
}
