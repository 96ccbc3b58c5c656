/*
 * sweep_summary.h - what a sweep says on the terminal at its end, and the
 * rerun line of one of its cases.
 *
 * Owns the rerun line of a case (the lctx that runs, its table and known
 * defects, the case, into OUT/rerun: what report.json's rows and the
 * terminal name), the findings a run met (each key, new or known, with
 * its cases and its first case, noted as cases are taken or resumed), and
 * the summary: the counts per sweep row, every finding with the rerun line
 * of its first case (a known one with the defect that knows it), the reach
 * and the diagnoses. A one-case rerun (--case N) says only what concerns
 * its case: the case, its rows' verdicts, its findings and the primitives
 * it lowered. The result line and the reports are sweep.c's.
 */
#ifndef LCTX_DRIVE_SWEEP_SUMMARY_H
#define LCTX_DRIVE_SWEEP_SUMMARY_H

#include "sweep_state.h"

/// The most findings the summary lists (the rest counted, all in
/// report.json and results.jsonl).
#define LCTX_SWEEP_SUMMARY_FINDINGS_MAX 50

/// The rerun line of plan index `index` (its program, list, table and
/// known defects), as conform's: the lctx that runs, each word
/// shell-quoted, into OUT/rerun (OUT itself when it is a rerun folder); ""
/// when it does not fit.
void lctx_sweep_rerun_line(const lctx_sweep *s, size_t index, char *dst,
                           size_t n);

/// Notes a failure keyed `key` of plan index `index`: known (a known
/// defect's key, xfail) or new; its first case is the lowest index.
void lctx_sweep_note_finding(lctx_sweep *s, size_t index, const char *key,
                             bool known);

/// What a one-case rerun judged: "PROGRAM on P1,P2" of its case.
void lctx_sweep_note_case(lctx_sweep *s, const lctx_sweep_exports *e);

/// Prints the summary (above) to the sweep's out.
void lctx_sweep_print_summary(lctx_sweep *s);

#endif /* LCTX_DRIVE_SWEEP_SUMMARY_H */
