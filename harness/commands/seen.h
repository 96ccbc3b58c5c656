/*
 * seen.h - a set of names already handled, by their 64-bit hash.
 *
 * Owns remembering which files a campaign has already looked at (crash
 * inputs, corpus entries) so that a directory scanned every half second is
 * processed once per file, and the FNV-1a hash it keys on, which also names
 * inputs that have no semantic key.
 */
#ifndef LCTX_DRIVE_SEEN_H
#define LCTX_DRIVE_SEEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// An open-addressing set of nonzero 64-bit hashes. Zero-initialized it is
/// empty; lctx_seen_free releases it.
typedef struct lctx_seen {
  uint64_t *slots;
  size_t capacity, count;
} lctx_seen;

/// The 64-bit FNV-1a hash of `size` bytes.
uint64_t lctx_seen_hash(const void *data, size_t size);

/// Adds the hash of the string `name`. Returns true when it was not in the
/// set yet, false when it was (or memory ran out).
bool lctx_seen_add(lctx_seen *set, const char *name);

/// Empties the set and releases its memory.
void lctx_seen_free(lctx_seen *set);

#endif /* LCTX_DRIVE_SEEN_H */
