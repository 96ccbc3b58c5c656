/*
 * campaign_rows.h - the spec rows a campaign's corpus hits, and those its
 * target cannot reach (campaign.h).
 *
 * Owns, for a campaign whose target's inputs are cases (corpus_rows.h):
 * judging the seeds and every corpus input once (by path), the count the
 * live line and OUT/progress.jsonl show (rows hit, of the rows the target
 * can reach), and what the summary, the line after the live line and
 * OUT/state.json say about the rows: those hit, those the target can reach
 * and the corpus missed, and those the target cannot reach, each with why
 * (corpus_rows.h's lctx_row_reach_of: from the row and what the target
 * exercises, never from what a run hit).
 */
#ifndef LCTX_DRIVE_CAMPAIGN_ROWS_H
#define LCTX_DRIVE_CAMPAIGN_ROWS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "corpus_rows.h"
#include "seen.h"

/// The rows a campaign's corpus hits.
typedef struct lctx_campaign_rows {
  /// The target's inputs are cases and the embedded table parsed.
  bool enabled;
  /// The target's name.
  const char *target;
  /// Corpus files already judged (by path).
  lctx_seen seen;
  lctx_row_hits counted;
  /// Per row of the table: whether the target can reach it (lctx_row_reach).
  uint8_t reach[LCTX_SPEC_MAX_ROWS];
} lctx_campaign_rows;

/// Starts counting for `target` (a name of fuzzcheck.h's table) and judges
/// the seeds in `seeds`; nothing is counted when its inputs are not cases.
void lctx_campaign_rows_start(lctx_campaign_rows *r, const char *target,
                              const char *seeds);

/// Judges every file of `dir` not judged yet (a no-op when not enabled).
void lctx_campaign_rows_scan(lctx_campaign_rows *r, const char *dir);

/// How many rows the corpus hits.
size_t lctx_campaign_rows_hit(const lctx_campaign_rows *r);

/// How many rows the target can reach (or has hit).
size_t lctx_campaign_rows_reachable(const lctx_campaign_rows *r);

/// After the live line: `  spec rows missed (TARGET can reach them): ID...`
/// when the corpus missed a row the target can reach; nothing else.
void lctx_campaign_rows_print_missed(const lctx_campaign_rows *r, FILE *w);

/// The summary's lines: `  spec rows hit by the corpus: H of the R TARGET
/// can reach (T in the table); missed: ID... | none` and, when some are out
/// of reach, `  spec rows TARGET cannot reach: ID... (why); ID... (why)`.
void lctx_campaign_rows_summary(const lctx_campaign_rows *r, FILE *w);

/// Sets OUT/state.json's rows fields in `state`: rows_in_table,
/// rows_reachable, rows_hit, rows_missed (ids) and rows_not_reachable
/// ([{"id", "why"}]); none when not enabled.
void lctx_campaign_rows_json(const lctx_campaign_rows *r, json_t *state);

/// Releases what `r` holds.
void lctx_campaign_rows_free(lctx_campaign_rows *r);

#endif /* LCTX_DRIVE_CAMPAIGN_ROWS_H */
