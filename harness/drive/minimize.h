/*
 * minimize.h - shrinking a campaign's findings.
 *
 * Owns making a finding's input smaller while it keeps its key, judged by
 * the engine's own build (findings.h's key runs): for fuzz_model and
 * fuzz_differential first the canonical encoding of the case the input
 * decodes to, then removing ever smaller chunks. Also the pass that
 * minimizes, within a time budget, the findings the store records as
 * waiting for it: a campaign's new ones after it fuzzed, and those an
 * interrupted campaign left when it is resumed, before it fuzzes.
 */
#ifndef LCTX_DRIVE_MINIMIZE_H
#define LCTX_DRIVE_MINIMIZE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "findings.h"

/// Shrinks `data[0..size)` (a buffer of LCTX_FINDINGS_MAX_INPUT bytes) while
/// its key stays `want`, in at most `budget` key runs, stopping early on
/// Ctrl-C (sys.h's interrupts). Returns the new size; `data` holds the
/// smaller input.
size_t lctx_minimize_input(const lctx_findings *f, uint8_t *data, size_t size,
                           const char *want, int budget);

/// Minimizes every finding of the campaign directory that waits for it
/// (findings.h's lctx_findings_unminimized: this run's new ones and those an
/// earlier, interrupted run left), starting none after `seconds` have passed
/// or Ctrl-C; rewrites their minimized, report.txt and reproduce.txt and
/// records each one finished as minimized (one cut short by Ctrl-C keeps
/// waiting). Prints `minimizing KEY ... N -> M bytes` for each to `out`.
/// Returns how many it finished.
size_t lctx_minimize_pending(const lctx_findings *f, double seconds, FILE *out);

#endif /* LCTX_DRIVE_MINIMIZE_H */
