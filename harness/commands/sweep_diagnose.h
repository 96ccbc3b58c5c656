/*
 * sweep_diagnose.h - the diagnoses of a sweep (diagnose.h): which judged
 * cases are diagnosed (the programs of kind "user" and "package", from a
 * user's catalogue or a package's primitives: conformance/sweep/USER.md),
 * the known defects they are matched against, keeping each diagnosis once,
 * and the lines the sweep prints after its summary.
 */
#ifndef LCTX_DRIVE_SWEEP_DIAGNOSE_H
#define LCTX_DRIVE_SWEEP_DIAGNOSE_H

#include "report_read.h"
#include "sweep_state.h"

/// The most diagnoses a sweep keeps (those beyond are counted in
/// report.json's "caps_hit"): what a report may hold.
#define LCTX_SWEEP_DIAGNOSES_MAX LCTX_REPORT_MAX_DIAGNOSES

/// Diagnoses judged case `e` (plan index `index`) when its program is a
/// user's or a package's, keeping each new diagnosis: the diagnoses are
/// kept in plan order, one like another (lctx_diagnosis_same) once, of the
/// earliest case, whatever the order the cases are taken in.
void lctx_sweep_diagnose(lctx_sweep *s, size_t index,
                         const lctx_sweep_exports *e);

/// The diagnoses of judged case `e` as results.jsonl's line keeps them
/// (report.json's form), or NULL when its program is not diagnosed.
struct json_t *lctx_sweep_diagnoses_line(const lctx_sweep *s,
                                         const lctx_sweep_exports *e);

/// Keeps the diagnoses of an earlier run's results.jsonl line of case
/// `index` (`list`, its "diagnoses", lctx's own sealed line; a malformed
/// item is left out), as a resumed case.
void lctx_sweep_diagnoses_resume(lctx_sweep *s, size_t index,
                                 struct json_t *list);

/// Prints the diagnoses kept, one line each in a compiler's style
/// (diagnose.h's text, escaped), after a line counting them; nothing when
/// there are none.
void lctx_sweep_print_diagnoses(const lctx_sweep *s);

/// Whether every program the sweep selected is a user's or a package's
/// (`--programs`, `--package`): its reach line is then of their own
/// primitives (lctx_sweep_print_user_reach), not of JAX's.
bool lctx_sweep_user_run(const lctx_sweep *s);

/// The reach of a user's run (conformance/sweep/README.md, "Reach"): of
/// the user's own primitives lctx knows, a package's discovered ones (the
/// last part of a package program's name) and those the diagnoses name
/// with a rule in the user's code (or a missing rule), which the judged
/// programs lowered and which not. reach.json still lists JAX's.
void lctx_sweep_print_user_reach(const lctx_sweep *s);

#endif /* LCTX_DRIVE_SWEEP_DIAGNOSE_H */
