/*
 * corpus_rows.h - the spec rows a corpus hits.
 *
 * Owns, once for every caller (the campaign's live line and summary,
 * campaign.h; `lctx corpus rows` and the rows the corpus minimization
 * keeps, minimize.h; what a kill-matrix corpus reached, mutants.h), how an
 * input of a target whose inputs are cases (fuzz_model, fuzz_differential)
 * is judged: its first LCTX_CASE_BYTES_MAX bytes, all that the decoder
 * reads of any input (a longer file counts, as the fuzz target decodes
 * it), decoded and run through the reference model and the oracle of the
 * embedded spec table, invariants off, each operation counted on the rows
 * it matches.
 *
 * Also owns which spec rows a fuzz target can reach at all, decided from
 * the row and from what the target exercises (lctx_row_reach_of): a row of
 * the IR checker (`check = ir`) is judged on the MLIR module a lowering
 * emits, so only a target that emits modules and judges them reaches it
 * (the fuzzcheck.h table's needs_mlir: fuzz_lowering); a row of the sweep
 * judge (`check = sweep`) is judged on real JAX's export answers, which no
 * fuzz target runs; an operation row is reached only by a target whose
 * inputs are cases judged by the table (fuzz_model, fuzz_differential),
 * and not when the row is absent at the modelled commit, the one release
 * every fuzz target judges by (no input selects a release).
 */
#ifndef LCTX_DRIVE_CORPUS_ROWS_H
#define LCTX_DRIVE_CORPUS_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "case_bytes.h"
#include "lctx/str.h"
#include "oracle.h"

/// The rows counted over the inputs judged so far.
typedef struct lctx_row_hits {
  lctx_spec spec;
  lctx_oracle oracle;
  /// The last input read and decoded (lctx_row_hits_decode).
  lctx_case scratch;
  uint8_t head[LCTX_CASE_BYTES_MAX];
  size_t inputs;
} lctx_row_hits;

/// Whether the inputs of `target` are cases, whose rows can be told.
bool lctx_row_hits_of_target(const char *target);

/// What a fuzz target exercises, for the rows it can reach.
typedef struct lctx_target_exercises {
  /// Its inputs decode to cases, each operation judged by the table's
  /// operation rows (lctx_row_hits_of_target).
  bool operations;
  /// It emits the MLIR module of a lowering and judges it with the IR
  /// checker (its fuzzcheck.h row needs MLIR).
  bool modules;
} lctx_target_exercises;

/// What `target` exercises (nothing for an unknown name).
lctx_target_exercises lctx_target_exercises_of(const char *target);

/// Whether a target can hit a row, or why not.
typedef enum lctx_row_reach {
  LCTX_ROW_REACHABLE,
  /// A row of the IR checker (`check = ir`): the target emits no module.
  LCTX_ROW_NO_MODULE,
  /// A row of the sweep judge (`check = sweep`): judged on real JAX's
  /// export answers, which no fuzz target runs.
  LCTX_ROW_NO_SWEEP,
  /// An operation row: the target judges no case's operations by the table.
  LCTX_ROW_NO_CASES,
  /// An operation row absent at the table's selected release (the
  /// modelled commit for the fuzz targets): the operation does not exist.
  LCTX_ROW_ABSENT,
} lctx_row_reach;

/// Whether a target exercising `e` can hit `row` (of a table judged at its
/// selected release), or why not.
lctx_row_reach lctx_row_reach_of(const lctx_spec_row *row,
                                 lctx_target_exercises e);

/// Why a row is out of reach, in words (with what the rule read), for a
/// summary; "" for LCTX_ROW_REACHABLE.
const char *lctx_row_reach_why(lctx_row_reach reach);

/// Parses the embedded table and clears the counts; false (with a message
/// in `error`) when the table does not parse.
bool lctx_row_hits_init(lctx_row_hits *r, lctx_buf *error);

/// Reads and decodes the input `path` into r->scratch, counting nothing;
/// false when it cannot be read.
bool lctx_row_hits_decode(lctx_row_hits *r, const char *path);

/// Judges the input `path` and counts its rows; false when it cannot be
/// read.
bool lctx_row_hits_add(lctx_row_hits *r, const char *path);

/// Judges every file of the folder `dir` (not README.md, not dot files).
void lctx_row_hits_add_dir(lctx_row_hits *r, const char *dir);

/// How many rows the inputs judged hit.
size_t lctx_row_hits_hit(const lctx_row_hits *r);

/// How many operations hit the row `id` (0 for an unknown row).
size_t lctx_row_hits_hits_of(const lctx_row_hits *r, const char *id);

#endif /* LCTX_DRIVE_CORPUS_ROWS_H */
