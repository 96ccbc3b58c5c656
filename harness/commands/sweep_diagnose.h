/*
 * sweep_diagnose.h - the diagnoses of a sweep (diagnose.h): which judged
 * cases are diagnosed (the programs of kind "user" and "package", from a
 * user's catalogue or a package's primitives: conformance/sweep/USER.md),
 * the known defects they are matched against, keeping each diagnosis once,
 * and the lines the sweep prints after its summary.
 */
#ifndef LCTX_DRIVE_SWEEP_DIAGNOSE_H
#define LCTX_DRIVE_SWEEP_DIAGNOSE_H

#include "sweep_state.h"

/// The most diagnoses a sweep keeps (those beyond are counted in
/// report.json's "caps_hit").
#define LCTX_SWEEP_DIAGNOSES_MAX 10000

/// Diagnoses judged case `e` when its program is a user's or a package's,
/// keeping each new diagnosis (one with the same text is kept once).
void lctx_sweep_diagnose(lctx_sweep *s, const lctx_sweep_exports *e);

/// The diagnoses of judged case `e` as results.jsonl's line keeps them
/// (report.json's form), or NULL when its program is not diagnosed.
struct json_t *lctx_sweep_diagnoses_line(const lctx_sweep *s,
                                         const lctx_sweep_exports *e);

/// Keeps the diagnoses of an earlier run's results.jsonl line (`list`, its
/// "diagnoses", lctx's own sealed line; a malformed item is left out), as
/// a resumed case.
void lctx_sweep_diagnoses_resume(lctx_sweep *s, struct json_t *list);

/// Prints the diagnoses kept, one line each in a compiler's style
/// (diagnose.h's text, escaped), after a line counting them; nothing when
/// there are none.
void lctx_sweep_print_diagnoses(const lctx_sweep *s);

#endif /* LCTX_DRIVE_SWEEP_DIAGNOSE_H */
