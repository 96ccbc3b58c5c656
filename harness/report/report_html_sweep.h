/*
 * report_html_sweep.h - the view of one `lctx sweep` folder on the HTML
 * page: its stamp (implementation, seed, lists, subset, shard, cases), the
 * cases passed of judged by program group and platform-list length, the
 * programs with a non-pass verdict against the platform lists (each
 * verdict opening its key, detail and outcome) and the lowering primitives
 * reached (reach.json). The sweeps' scoreboard and the rest of the page
 * are report_html.c's; the sums report_html_sweep_sum.c's.
 */
#ifndef LCTX_HARNESS_REPORT_HTML_SWEEP_H
#define LCTX_HARNESS_REPORT_HTML_SWEEP_H

#include <stddef.h>
#include <stdio.h>

#include "report_html_data.h"

/// Writes sweep number `n` (1-based) of the page as a <section>.
void lctx_html_write_sweep(FILE *f, const lctx_html_sweep *s, size_t n);

#endif /* LCTX_HARNESS_REPORT_HTML_SWEEP_H */
