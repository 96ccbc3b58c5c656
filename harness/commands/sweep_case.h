/*
 * sweep_case.h - the mechanics of one case of a sweep (its state is
 * sweep_state.h's), used by sweep.c (the plan and the run): the export requests
 * of a case and their answers, judging, the results line (resuming is
 * sweep_resume.h's), findings (kept, minimized, recorded as case files) and
 * the recorded case files themselves (--judge, --replay).
 */
#ifndef LCTX_DRIVE_SWEEP_CASE_H
#define LCTX_DRIVE_SWEEP_CASE_H

#include "sweep_state.h"

/// A sweep with its table (the sweep rows found), its known findings and
/// its out folder made; NULL with why on `err`.
lctx_sweep *lctx_sweep_new(const lctx_sweep_options *o, FILE *out, FILE *err);
void lctx_sweep_free(lctx_sweep *s);

/// Stops every exporter (and what it started): at the end of a run, so
/// that nothing an exporter started writes once results.jsonl is checked.
void lctx_sweep_close_exporters(lctx_sweep *s);

/// Starts the program with the export extension, reads its catalogue and
/// selects the programs; false with why on `err`.
bool lctx_sweep_open(lctx_sweep *s);

/// Whether plan index `index` is done (resumed or run; sweep_resume.h).
bool lctx_sweep_done(const lctx_sweep *s, size_t index);

/// Starts the program of the sweep as exporter `x` (its stderr appended to
/// OUT/implementation.log); false with why in `why`.
bool lctx_sweep_exporter_open(const lctx_sweep *s, lctx_sweep_exporter *x,
                              char *why, size_t n);

/// The restarts and the exports of every exporter of the sweep.
size_t lctx_sweep_restarts(const lctx_sweep *s);
size_t lctx_sweep_exports_made(const lctx_sweep *s);

void lctx_sweep_exports_init(lctx_sweep_exports *e, size_t program,
                             const lctx_sweep_list *l);
/// Makes `e` a generated program named `name` with text `text`; false
/// with why when the text is not a program (the exports then hold none).
bool lctx_sweep_exports_set_source(lctx_sweep_exports *e, const char *name,
                                   const char *text, char *why, size_t cap);
/// The text of generated program `index` of the sweep (from the seed, or
/// from the bytes of the index-th file of --from) into `e`; false with
/// why.
bool lctx_sweep_draw_program(const lctx_sweep *s, size_t index,
                             lctx_sweep_exports *e, char *why, size_t cap);
void lctx_sweep_exports_release(lctx_sweep_exports *e);

/// Exports what case `e` needs (P, P reversed, ("cpu",), each platform
/// alone when P raised what no refusal allows; cpu alone is the ("cpu",)
/// export, not asked twice) through exporter `x` and judges it; returns
/// the verdicts written to `v` (at most `cap`). It reads `s` only (jobs
/// run it at once, each with its own exporter).
size_t lctx_sweep_run_case(const lctx_sweep *s, lctx_sweep_exporter *x,
                           lctx_sweep_exports *e, lctx_sweep_verdict *v,
                           size_t cap);

/// Numbers the next requests of exporter `x` as those of plan index
/// `index` (a case makes at most LCTX_SWEEP_IDS_PER_CASE), so that a
/// request's id, which messages quote, does not depend on the job that
/// sends it or on the cases before.
#define LCTX_SWEEP_IDS_PER_CASE 64
void lctx_sweep_exporter_at(lctx_sweep_exporter *x, size_t index);

/// Marks the lowering primitives of every answer of `e` reached.
void lctx_sweep_reach_exports(lctx_sweep *s, const lctx_sweep_exports *e);

/// Writes case `index`'s line to results.jsonl (and marks it done).
void lctx_sweep_write_line(lctx_sweep *s, size_t index,
                           const lctx_sweep_exports *e,
                           const lctx_sweep_verdict *v, size_t n);

/// Counts verdict `v` under `row` (first: the text of its first failure;
/// `at`: its plan case and place in the case, verdict.h's lctx_report_at).
void lctx_sweep_count(lctx_sweep *s, size_t row, lctx_verdict v,
                      const char *first, const char *rerun, lctx_report_at at);

/// Marks a lowering primitive reached.
void lctx_sweep_reach(lctx_sweep *s, const char *primitive);

/// Whether `key` is a known defect's; whether it is new in this run (then
/// remembered).
bool lctx_sweep_known(const lctx_sweep *s, const char *key);
bool lctx_sweep_new_key(lctx_sweep *s, const char *key);

/// The most finding folders OUT/findings holds (those of earlier runs
/// into it included); a finding beyond them is counted, not kept (said
/// when it first happens, and in report.json's "caps_hit").
#define LCTX_SWEEP_FINDINGS_KEPT_MAX 200

/// Keeps a new finding: OUT/findings/SLUG/ with case.json (the recorded
/// answers and verdict), minimized.json (fewest platforms, then the
/// smallest program of its group that still shows it) and report.txt;
/// beyond LCTX_SWEEP_FINDINGS_KEPT_MAX, only counted.
void lctx_sweep_keep_finding(lctx_sweep *s, const lctx_sweep_exports *e,
                             const lctx_sweep_verdict *v);

/// Writes OUT/reach.json: JAX's lowering primitives the judged programs
/// lowered, and those they did not (the summary prints them,
/// sweep_summary.h).
void lctx_sweep_write_reach(lctx_sweep *s);

#endif /* LCTX_DRIVE_SWEEP_CASE_H */
