/*
 * minimize.h - shrinking a campaign's findings.
 *
 * Owns making a finding's input smaller while it keeps its key, judged by
 * the engine's own build (findings.h's key runs): for fuzz_model and
 * fuzz_differential first the canonical encoding of the case the input
 * decodes to, then removing ever smaller chunks. Also the pass after a
 * campaign that minimizes its new findings within a time budget.
 */
#ifndef LCTX_DRIVE_MINIMIZE_H
#define LCTX_DRIVE_MINIMIZE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "findings.h"

/// Shrinks `data[0..size)` (a buffer of LCTX_FINDINGS_MAX_INPUT bytes) while
/// its key stays `want`, in at most `budget` key runs. Returns the new size;
/// `data` holds the smaller input.
size_t lctx_minimize_input(const lctx_findings *f, uint8_t *data, size_t size,
                           const char *want, int budget);

/// Minimizes this run's new findings (not those kept as not-reproduced) in
/// order, starting none after `seconds` have passed or Ctrl-C
/// (sys.h's interrupts), and rewrites their minimized, report.txt and
/// reproduce.txt. Prints `minimizing KEY ... N -> M bytes` for each to `out`.
void lctx_minimize_findings(const lctx_findings *f, double seconds, FILE *out);

#endif /* LCTX_DRIVE_MINIMIZE_H */
