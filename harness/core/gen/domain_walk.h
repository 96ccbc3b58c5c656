/*
 * domain_walk.h - the building blocks of the bounded domain (domain.h): the
 * name alphabet, the representative registry configurations, the walk over
 * a share of the domain's cases (which builds only the cases of its share
 * and counts the others), and the random draws of random cases.
 *
 * What an operation's entry in the table (case_ops.h) uses to write its
 * part of the domain and of random cases. Decides no outcome.
 */
#ifndef LCTX_HARNESS_DOMAIN_WALK_H
#define LCTX_HARNESS_DOMAIN_WALK_H

#include "case.h"

#include <stdint.h>

/// Number of names in the domain's alphabet.
size_t lctx_domain_alphabet_size(void);

/// Name `a` of the alphabet, and its length.
const char *lctx_domain_alphabet(size_t a);
size_t lctx_domain_name_length(size_t a);

/// Number of registry configurations in the domain.
size_t lctx_domain_registry_count(void);

/// Fills `c` with registry configuration `i` (no operations) and returns its
/// one-line description.
const char *lctx_domain_registry(size_t i, lctx_case *c);

/// A share of the domain's cases: those whose index `i` (the position in
/// lctx_domain_enumerate's order, from 0) lies in [from, to) and whose chunk
/// `i / chunk` is `part` modulo `parts`. {0, SIZE_MAX, 1, 0, 1} is the whole
/// domain; the shares {0, SIZE_MAX, K, p, N} for p in 0..N-1 cover it
/// exactly once, in interleaved chunks of K cases (what check-spec --jobs N
/// gives each thread); {i, i + 1, 1, 0, 1} is case i alone.
typedef struct lctx_domain_share {
  size_t from, to;
  size_t chunk;
  size_t part, parts;
} lctx_domain_share;

/// What a walk calls for each case of its share: the case's index in the
/// domain's order, and its registry configuration's generation: a number
/// given each time the walk fills its case with a registry configuration
/// (lctx_domain_walk_registry), from a counter the caller keeps (never
/// giving a number twice), so that cases visited with the same generation
/// are the same case object holding the same registry fields (factories,
/// platform settings, GPU visibility).
/// Returns false to stop the walk.
typedef bool (*lctx_domain_visit)(void *user, size_t index, uint64_t registry,
                                  const lctx_case *c);

/// A walk over a share of the domain: `count` cases passed so far (built
/// and visited, or skipped); `registry` the generation of the case's
/// registry configuration; `slot[a]` the index of alphabet name `a` in the
/// case's names once interned since its last reset (NO_SLOT: not yet).
typedef struct lctx_domain_walk {
  lctx_domain_visit visit;
  void *user;
  uint64_t registry;
  /// The last generation given (the caller's counter), or NULL: 0 for all.
  uint64_t *generations;
  lctx_domain_share share;
  size_t count;
  size_t visited;
  bool stopped;
  lctx_case *c;
  uint8_t slot[16];
} lctx_domain_walk;

#define NO_SLOT 0xff

/// Whether no case of the next `n` belongs to the share: then they are
/// counted as passed, unbuilt (the walk stops past its share's end).
bool lctx_domain_skip(lctx_domain_walk *w, size_t n);

/// Passes the walk's case: visits it when it belongs to the share. False
/// when the walk stopped.
bool lctx_domain_emit(lctx_domain_walk *w);

/// Empties the walk's case (only its used parts) and fills it with registry
/// configuration `i`, forgetting the names it interned, under a new
/// generation (lctx_domain_visit).
const char *lctx_domain_walk_registry(lctx_domain_walk *w, size_t i);

/// Sets `*index` to the index of alphabet name `a` in the walk's case's
/// names, interned once per lctx_domain_walk_registry.
void lctx_domain_set_platform(lctx_domain_walk *w, uint8_t *index, size_t a);

/// Copies alphabet name `a` into a name field (every one fits).
void lctx_domain_set_name(char *dst, size_t a);

/// Copies `src` into `dst` (capacity `cap`), cut to fit.
void lctx_domain_set_text(char *dst, size_t cap, const char *src);

/// Sets `*index` to the index of `name` in `c`'s names, interning it (the
/// generators draw from sets small enough to fit).
void lctx_domain_intern(lctx_case *c, uint8_t *index, const char *name);

/// Zeroes `op` (every list is written up to its count only) and sets its
/// kind.
void lctx_domain_clear_op(lctx_case_op *op, lctx_op_kind kind);

/// A number below `n` drawn from the splitmix64 state `*s`.
size_t lctx_domain_below(uint64_t *s, size_t n);

/// A name drawn from `*s`: mostly from the alphabet, sometimes odd printable
/// bytes; into `out` of capacity `cap`.
void lctx_domain_random_name(uint64_t *s, char *out, size_t cap);

/// Draws the module of `op`: fewer than `platforms` random platform names,
/// then a random pinned backend one time in `backend_one_in`.
void lctx_domain_random_module(uint64_t *state, lctx_case *c, lctx_case_op *op,
                               size_t platforms, size_t backend_one_in);

#endif /* LCTX_HARNESS_DOMAIN_WALK_H */
