/*
 * seen.c - a set of names already handled (see seen.h).
 */
#include "seen.h"

#include <stdlib.h>
#include <string.h>

uint64_t lctx_seen_hash(const void *data, size_t size) {
  const uint8_t *p = data;
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < size; i++)
    h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

/* Puts `h` into `slots` (a power-of-two table with room). Returns false when
 * it is there already. */
static bool insert(uint64_t *slots, size_t capacity, uint64_t h) {
  size_t k = h & (capacity - 1);
  while (slots[k]) {
    if (slots[k] == h)
      return false;
    k = (k + 1) & (capacity - 1);
  }
  slots[k] = h;
  return true;
}

static bool grow(lctx_seen *set) {
  size_t cap = set->capacity ? 2 * set->capacity : 1024;
  uint64_t *slots = calloc(cap, sizeof *slots);
  if (!slots)
    return false;
  for (size_t i = 0; i < set->capacity; i++) {
    if (set->slots[i])
      insert(slots, cap, set->slots[i]);
  }
  free(set->slots);
  set->slots = slots;
  set->capacity = cap;
  return true;
}

bool lctx_seen_add(lctx_seen *set, const char *name) {
  uint64_t h = lctx_seen_hash(name, strlen(name));
  if (h == 0)
    h = 1;
  if (2 * (set->count + 1) > set->capacity && !grow(set))
    return false;
  if (!insert(set->slots, set->capacity, h))
    return false;
  set->count++;
  return true;
}

void lctx_seen_free(lctx_seen *set) {
  free(set->slots);
  memset(set, 0, sizeof *set);
}
