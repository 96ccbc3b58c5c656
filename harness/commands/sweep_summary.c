/*
 * sweep_summary.c - what a sweep says at its end, and the rerun line of a
 * case (see sweep_summary.h).
 */
#include "sweep_summary.h"

#include "escape.h"
#include "rerun_cmd.h"
#include "sweep_case.h"
#include "sweep_diagnose.h"
#include "sweep_record.h"
#include "sys.h"

#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// The rerun line of a case
//===----------------------------------------------------------------------===//

/* Appends the words of the sweep's selection (table, known defects,
 * subset, group, kind, generated programs, limit); false when they do not
 * fit. */
static bool selection_words(const lctx_sweep_options *o, char *dst, size_t n) {
  char number[64];
  /* The table and the known defects always, as this run resolved them, so
   * that the line judges alike without the environment that chose them. */
  const char *words[][2] = {
      {"--spec", o->spec_path},
      {"--known", o->known_dir},
      {"--subset", strcmp(o->subset, "all") ? o->subset : NULL},
      {"--group", o->group},
      {"--kind", o->kind}};
  bool ok = true;
  for (size_t i = 0; ok && i < sizeof words / sizeof words[0]; i++)
    if (words[i][1])
      ok = lctx_rerun_shell_word(dst, n, words[i][0]) &&
           lctx_rerun_shell_word(dst, n, words[i][1]);
  if (ok && o->generate && !o->gen_from) {
    snprintf(number, sizeof number, "--programs=%zu", o->generate);
    ok = lctx_rerun_shell_word(dst, n, number);
  }
  if (ok && o->gen_from)
    ok = lctx_rerun_shell_word(dst, n, "--from") &&
         lctx_rerun_shell_word(dst, n, o->gen_from);
  if (ok && o->limit) {
    snprintf(number, sizeof number, "%zu", o->limit);
    ok = lctx_rerun_shell_word(dst, n, "--limit") &&
         lctx_rerun_shell_word(dst, n, number);
  }
  return ok;
}

void lctx_sweep_rerun_line(const lctx_sweep *s, size_t index, char *dst,
                           size_t n) {
  const lctx_sweep_options *o = s->o;
  char program[4096], dir[4200], number[64];
  lctx_rerun_program(program, sizeof program);
  bool ok =
      lctx_rerun_dir(o->out_dir, dir, sizeof dir) &&
      lctx_rerun_start(dst, n, program, o->generate ? "generate" : "sweep") &&
      lctx_rerun_shell_word(dst, n, "--cmd") &&
      lctx_rerun_shell_word(dst, n, o->command);
  snprintf(number, sizeof number, "--seed=%llu", o->seed);
  ok = ok && lctx_rerun_shell_word(dst, n, number);
  snprintf(number, sizeof number, "--lists=%zu", o->lists);
  ok =
      ok && lctx_rerun_shell_word(dst, n, number) && selection_words(o, dst, n);
  snprintf(number, sizeof number, "%zu", index);
  ok = ok && lctx_rerun_shell_word(dst, n, "--case") &&
       lctx_rerun_shell_word(dst, n, number) &&
       lctx_rerun_shell_word(dst, n, "--out") &&
       lctx_rerun_shell_word(dst, n, dir);
  if (!ok)
    dst[0] = '\0';
}

//===----------------------------------------------------------------------===//
// The findings met
//===----------------------------------------------------------------------===//

void lctx_sweep_note_finding(lctx_sweep *s, size_t index, const char *key,
                             bool known) {
  for (size_t i = 0; i < s->noted_count; i++) {
    lctx_sweep_noted *f = &s->noted[i];
    if (f->known == known && strcmp(f->key, key) == 0) {
      f->cases++;
      f->first_case = index < f->first_case ? index : f->first_case;
      return;
    }
  }
  if (s->noted_count == s->noted_cap) {
    size_t cap = s->noted_cap ? 2 * s->noted_cap : 16;
    lctx_sweep_noted *p = realloc(s->noted, cap * sizeof *p);
    if (!p)
      return; /* not listed; counted in the reports all the same */
    s->noted = p;
    s->noted_cap = cap;
  }
  lctx_sweep_noted *f = &s->noted[s->noted_count++];
  snprintf(f->key, sizeof f->key, "%s", key);
  f->known = known;
  f->cases = 1;
  f->first_case = index;
}

void lctx_sweep_note_case(lctx_sweep *s, const lctx_sweep_exports *e) {
  size_t at = (size_t)snprintf(s->only_case_what, sizeof s->only_case_what,
                               "%s on ", lctx_sweep_program_name(s, e));
  for (size_t i = 0; i < e->list.count && at < sizeof s->only_case_what; i++)
    at +=
        (size_t)snprintf(s->only_case_what + at, sizeof s->only_case_what - at,
                         "%s%s", i ? "," : "", e->list.p[i]);
}

static int by_first_case(const void *a, const void *b) {
  const lctx_sweep_noted *x = a, *y = b;
  if (x->known != y->known)
    return x->known ? 1 : -1; /* the new ones first */
  return x->first_case < y->first_case ? -1 : x->first_case > y->first_case;
}

/* What the known defect of `key` is called, and the release fixing it. */
static void print_defect(const lctx_sweep *s, const char *key) {
  for (size_t i = 0; i < s->known_count; i++) {
    if (strcmp(s->known[i], key) != 0)
      continue;
    lctx_escaped a, b;
    fprintf(s->out, " (known defect %s%s%s)",
            lctx_esc(&a, s->known_defects[i].name),
            s->known_defects[i].fixed_in[0] ? ", fixed in JAX " : "",
            lctx_esc(&b, s->known_defects[i].fixed_in));
    return;
  }
}

/* Every finding met, new then known, each with its first case's rerun
 * line (not in a one-case rerun: the line is the one that ran). */
static void print_findings(lctx_sweep *s) {
  size_t known = 0, shown = 0;
  if (s->noted_count == 0)
    return;
  qsort(s->noted, s->noted_count, sizeof *s->noted, by_first_case);
  for (size_t i = 0; i < s->noted_count; i++)
    known += s->noted[i].known;
  bool one = s->o->only_case >= 0;
  fprintf(s->out, "findings: %zu new, %zu known%s\n", s->noted_count - known,
          known, one ? "" : "; each with the rerun line of its first case");
  for (size_t i = 0; i < s->noted_count; i++) {
    const lctx_sweep_noted *f = &s->noted[i];
    if (shown++ == LCTX_SWEEP_SUMMARY_FINDINGS_MAX) {
      fprintf(s->out, "  ... and %zu more (report.json, results.jsonl)\n",
              s->noted_count - LCTX_SWEEP_SUMMARY_FINDINGS_MAX);
      break;
    }
    lctx_escaped k;
    fprintf(s->out, "  %-5s %s", f->known ? "known" : "new",
            lctx_esc(&k, f->key));
    if (!one)
      fprintf(s->out, ": %zu case(s), the first case %zu", f->cases,
              f->first_case);
    char dir[4096];
    if (f->known)
      print_defect(s, f->key);
    else if (lctx_sweep_record_finding_dir(s, f->key, dir, sizeof dir) &&
             lctx_sys_is_dir(dir))
      fprintf(s->out, "; kept in %s", lctx_esc(&k, dir));
    fputc('\n', s->out);
    char rerun[2560];
    lctx_sweep_rerun_line(s, f->first_case, rerun, sizeof rerun);
    if (!one && rerun[0])
      fprintf(s->out, "        rerun: %s\n", lctx_esc(&k, rerun));
  }
}

//===----------------------------------------------------------------------===//
// The summary
//===----------------------------------------------------------------------===//

/* `lctx generate`: programs per second, and what the judged programs
 * covered of the generator's features and JAX operations. */
static void print_generated(lctx_sweep *s) {
  const lctx_report *r = s->rep;
  double el = lctx_sys_now() - s->start + 1e-9;
  size_t programs = r->cases_run / (s->o->lists ? s->o->lists : 1);
  fprintf(s->out,
          "generate: %zu programs judged (%zu cases, %zu resumed), %zu "
          "exports in %.1f s: %.2f programs/s, %.1f exports/s\n",
          programs, r->cases_run, s->resumed, lctx_sweep_exports_made(s), el,
          (double)(r->cases_run - s->resumed) / (double)(s->o->lists) / el,
          (double)lctx_sweep_exports_made(s) / el);
  size_t nf = 0, no = 0;
  for (size_t i = 0; i < LCTX_PROG_FEATURE_COUNT; i++)
    nf += s->features[i];
  for (size_t i = 0; s->ops && i < lctx_prog_op_count(); i++)
    no += s->ops[i];
  fprintf(s->out, "features covered: %zu of %d", nf, LCTX_PROG_FEATURE_COUNT);
  if (nf < LCTX_PROG_FEATURE_COUNT) {
    fprintf(s->out, " (not:");
    for (size_t i = 0; i < LCTX_PROG_FEATURE_COUNT; i++)
      if (!s->features[i])
        fprintf(s->out, " %s", lctx_prog_feature_names[i]);
    fprintf(s->out, ")");
  }
  fprintf(s->out, "; JAX operations drawn: %zu of %zu\n", no,
          lctx_prog_op_count());
}

/* The counts of each sweep row; a one-case rerun's rows with a verdict
 * only, and the verdicts it has. */
static void print_rows(const lctx_sweep *s) {
  static const lctx_verdict SHOWN[] = {LCTX_VERDICT_PASS, LCTX_VERDICT_FAIL,
                                       LCTX_VERDICT_XFAIL, LCTX_VERDICT_CRASH,
                                       LCTX_VERDICT_TIMEOUT};
  bool one = s->o->only_case >= 0;
  for (size_t i = 0; i < s->rep->row_count; i++) {
    const lctx_report_row *row = &s->rep->rows[i];
    size_t any = 0;
    for (size_t v = 0; v < sizeof SHOWN / sizeof SHOWN[0]; v++)
      any += row->n[SHOWN[v]];
    if (one && !any)
      continue;
    fprintf(s->out, "  %-7s", row->id);
    const char *gap = " ";
    for (size_t v = 0; v < sizeof SHOWN / sizeof SHOWN[0]; v++)
      if (!one || row->n[SHOWN[v]]) {
        fprintf(s->out, "%s%s %zu", gap, lctx_verdict_name(SHOWN[v]),
                row->n[SHOWN[v]]);
        gap = "  ";
      }
    fputc('\n', s->out);
  }
}

/* The reach: of a run, how many of JAX's lowering primitives the judged
 * programs lowered and which they did not; of a one-case rerun, the
 * primitives its case lowered. */
static void print_reach(const lctx_sweep *s) {
  size_t reached = 0;
  for (size_t i = 0; i < s->cat.primitive_count; i++)
    reached += s->reached[i];
  lctx_escaped b;
  if (lctx_sweep_user_run(s)) {
    lctx_sweep_print_user_reach(s);
    return;
  }
  bool one = s->o->only_case >= 0;
  if (one)
    fprintf(s->out,
            "reach: the case lowered %zu of the %zu primitives with "
            "lowering rules in JAX:",
            reached, s->cat.primitive_count);
  else
    fprintf(s->out,
            "reach: the judged programs lowered %zu of the %zu primitives "
            "with lowering rules in JAX (%s/reach.json lists both)\n",
            reached, s->cat.primitive_count, lctx_esc(&b, s->o->out_dir));
  if (!one && reached < s->cat.primitive_count)
    fprintf(s->out, "not reached (%zu):", s->cat.primitive_count - reached);
  if (one || reached < s->cat.primitive_count) {
    for (size_t i = 0; i < s->cat.primitive_count; i++)
      if (s->reached[i] == one)
        fprintf(s->out, " %s", lctx_esc(&b, s->cat.primitives[i]));
    fputc('\n', s->out);
  }
}

void lctx_sweep_print_summary(lctx_sweep *s) {
  const lctx_report *r = s->rep;
  double el = lctx_sys_now() - s->start;
  if (s->o->generate)
    print_generated(s);
  else if (s->o->only_case >= 0) {
    lctx_escaped b;
    fprintf(s->out,
            "sweep: case %ld of the plan (%s)%s, %zu exports in %.1f s\n",
            s->o->only_case,
            s->only_case_what[0] ? lctx_esc(&b, s->only_case_what) : "resumed",
            r->cases_run ? "" : ": not judged", lctx_sweep_exports_made(s), el);
  } else
    fprintf(s->out,
            "sweep: %zu programs of %zu in the catalogue, %zu cases "
            "(%zu resumed), %zu exports in %.1f s (%.1f exports/s)\n",
            s->selected_count, s->cat.count, r->cases_run, s->resumed,
            lctx_sweep_exports_made(s), el,
            lctx_sweep_exports_made(s) / (el + 1e-9));
  print_rows(s);
  print_findings(s);
  print_reach(s);
  lctx_sweep_print_diagnoses(s);
}
