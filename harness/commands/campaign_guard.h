/*
 * campaign_guard.h - the end of a fuzz campaign's processes, however the
 * campaign ends.
 *
 * Owns the campaign's use of the guard (guard.h: a process of lctx's that
 * outlives lctx, continues a stopped lctx, and when lctx dies without
 * ending its engines kills what lctx started): with the campaign's mark,
 * which every engine carries, and, once the engines are dead, the
 * working corpus abandoned (campaign_work.h) and OUT/tmp removed. Also the
 * killing of the marked processes itself, which lctx does at a clean end.
 */
#ifndef LCTX_DRIVE_CAMPAIGN_GUARD_H
#define LCTX_DRIVE_CAMPAIGN_GUARD_H

#include "campaign_work.h"
#include "guard.h"

/// The guard of one campaign; the strings and `work` must outlive it.
typedef struct lctx_campaign_guard {
  /// The guard (its peer's pid is -1: none).
  lctx_guard guard;
  /// The mark in every engine's environment (NAME=TOKEN).
  const char *mark;
  /// The working corpus, abandoned when lctx dies.
  lctx_campaign_work *work;
  /// OUT/tmp, removed when lctx dies.
  const char *tmp_dir;
} lctx_campaign_guard;

/// Kills every process that carries `mark` until none is left, for at
/// most 10 s.
void lctx_campaign_end_marked(const char *mark);

/// Starts the guard; without one (no pipe, no fork) the engines still die
/// with lctx, their children may not.
void lctx_campaign_guard_start(lctx_campaign_guard *g);

/// Tells the guard the campaign ended cleanly and waits for it.
void lctx_campaign_guard_stop(lctx_campaign_guard *g);

#endif /* LCTX_DRIVE_CAMPAIGN_GUARD_H */
