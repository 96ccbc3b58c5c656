/*
 * oracle_drift.h - drift: how an operation judged at the spec's selected
 * release fares as the other releases the spec names behave, and why (the
 * facts and row `was` lines that differ, with their commits). What
 * `lctx conform` says of each failing operation. Included by oracle.h.
 */
#ifndef LCTX_HARNESS_ORACLE_DRIFT_H
#define LCTX_HARNESS_ORACLE_DRIFT_H

#include "classify.h"
#include "spec.h"

/// How an operation judged at the spec's selected release (lctx_spec_select)
/// fares as the other releases the spec names behave: operation `index` of
/// `c`, with outcome `actual` (compared as lctx_oracle_judge compares with
/// `exact`), is classified by each release's facts and judged by its rows'
/// outcomes there (a case using an operation a release lacks does not pass
/// there). Returns the releases it passes at, a bit per index
/// (lctx_spec_release_index; the selected one left out), and when there
/// are any appends to `out` why, naming the facts and row `was` lines that
/// differ between the selected release and the nearest release on each
/// side where it passes, with their commits: "passes as JAX <=0.10.2
/// behaves: fact client-gpu changed in 00b8c5dbf03c (0.11.0)". `scratch`
/// is the features it classifies into. What `lctx conform` says of each
/// failing operation.
uint32_t lctx_oracle_drift(const lctx_spec *spec, const lctx_case *c,
                           size_t index, const lctx_outcome *actual, bool exact,
                           lctx_features *scratch, lctx_buf *out);

/// lctx_oracle_drift for a module an IR row rejected (operation `index` of
/// `c`, a lowering whose outcome passed): `passes` holds the releases (a
/// bit per index) at which the module meets the expectation of the
/// reference model there (irjudge.h's passes_at, by release name). When
/// there are any, appends "passes as JAX 0.12.1 behaves" and the facts that
/// differ (as lctx_oracle_drift), and returns them; 0 otherwise.
uint32_t lctx_oracle_drift_ir(const lctx_spec *spec, const lctx_case *c,
                              size_t index, uint32_t passes,
                              lctx_features *scratch, lctx_buf *out);

/// What a failure that passes at no release the table names is: new at the
/// judged release. Appends "new at JAX R" (or "new at the modelled commit
/// C") ": no release lctx knows behaves so; the row cites SOURCE at C
/// (tools/jax_release.py VERSION shows how those lines differ in an
/// installed release)".
void lctx_oracle_drift_new(const lctx_spec *spec, size_t row, lctx_buf *out);

#endif /* LCTX_HARNESS_ORACLE_DRIFT_H */
