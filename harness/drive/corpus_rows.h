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
