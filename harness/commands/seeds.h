/*
 * seeds.h - copying fuzz inputs into a corpus folder.
 *
 * Owns the one rule by which a seed corpus (corpus/seeds/TARGET), or any
 * input kept because of what it hits, is copied into a folder an engine
 * reads: the regular files directly in the source folder, not README.md
 * (the corpus' description), not dot files, each of at most
 * LCTX_SEEDS_MAX_INPUT bytes (the largest input a finding may hold; a
 * larger one is skipped, said by the count), under its own name, a file
 * already there kept. Used by the campaign (OUT/seeds), the kill matrix
 * (the corpus of a run from the seeds) and the corpus minimization (inputs
 * kept for a spec row).
 */
#ifndef LCTX_DRIVE_SEEDS_H
#define LCTX_DRIVE_SEEDS_H

#include <stdbool.h>
#include <stddef.h>

#include "findings.h"

/// The largest input copied (bytes).
#define LCTX_SEEDS_MAX_INPUT LCTX_FINDINGS_MAX_INPUT

/// Copies the file `path` into the folder `to` under its own name, unless
/// it is README.md or a file of that name is there. Returns true when `to`
/// holds it afterwards.
bool lctx_seeds_copy_file(const char *path, const char *to);

/// Copies every input of the folder `from` into the folder `to` (as
/// lctx_seeds_copy_file). Returns how many could not be copied (too large,
/// unreadable, not written).
size_t lctx_seeds_copy(const char *from, const char *to);

#endif /* LCTX_DRIVE_SEEDS_H */
