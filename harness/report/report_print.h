/*
 * report_print.h - a finished run as `lctx conform` (and `lctx report
 * merge`) prints it: the per-row table, the cases line, what the
 * children did to lctx, and the summary with its result line.
 *
 * Owns the text of those lines, the outside text in them escaped
 * (escape.h); the report files are report_write.h's.
 */
#ifndef LCTX_HARNESS_REPORT_PRINT_H
#define LCTX_HARNESS_REPORT_PRINT_H

#include "report_write.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/// How `lctx conform` prints a finished run.
typedef struct lctx_report_text {
  bool quiet;         ///< the table lists only failing rows
  bool first_failure; ///< the run stopped at its first failure
  size_t keep_failures;
  /// The release judged as: "the modelled JAX commit C" or "JAX R".
  const char *judged_as;
  bool modelled; ///< judged as the modelled commit
  /// Where the reports were written; NULL when they were not.
  const char *report_dir;
  bool bad_input; ///< the run stopped on bad input (no reports)
} lctx_report_text;

/// The diagnoses of a sweep (diagnose.h) as `lctx sweep` and `lctx report
/// merge` print them: a count line, then one compiler-style line each,
/// escaped, with the files under the working folder shown relative to it.
void lctx_report_print_diagnoses(const lctx_diagnosis *diagnoses, size_t count,
                                 FILE *out);

/// The per-row table (only failing rows when quiet), each failing row's
/// first failure (a fail's expected text over its actual one, the first
/// differing byte marked), explain line and rerun line, the rows other
/// releases explain, and the run's first failure.
void lctx_report_print_table(const lctx_report_doc *doc,
                             const lctx_report_text *t, FILE *out);

/// The cases of a run on one line, its parts adding up: "T cases (C
/// conformance, D domain, R random; of them J judged, S skipped by shard or
/// --ops, U unsupported[, N not reached as the run stopped])", T = C + D +
/// R = J + S + U + N (the sources left out when none is recorded; no
/// newline).
void lctx_report_print_cases(const lctx_report *rep, FILE *out);

/// What the run's children did to lctx, one line each when it happened:
/// the signal that stopped it, the processes they left that lctx killed,
/// the stops of lctx its guard undid.
void lctx_report_print_children(const lctx_report_doc *doc, FILE *out);

/// The summary: cases, operations, where the reports are, and the result
/// line; `ok`: no bad input and every file written.
void lctx_report_print_summary(const lctx_report_doc *doc,
                               const lctx_report_text *t, bool ok, FILE *out);

#endif /* LCTX_HARNESS_REPORT_PRINT_H */
