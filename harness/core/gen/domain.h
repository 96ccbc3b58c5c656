/*
 * domain.h - the bounded domain that `lctx check-spec` enumerates
 * completely.
 *
 * Owns the documented domain (conformance/spec/README.md, "The bounded
 * domain"): the name alphabet, the representative registry configurations,
 * and the operation sequences (every single operation, and two-operation
 * sequences that observe an earlier initialization), and random cases
 * beyond it. Decides no outcome. The single operations are the table's
 * (case_ops.h: each operation's domain walk); the lowering sub-domain is
 * domain_lowering.h's; the alphabet, the registry configurations and the
 * walk's steps are domain_walk.h's.
 */
#ifndef LCTX_HARNESS_DOMAIN_H
#define LCTX_HARNESS_DOMAIN_H

#include "domain_walk.h"

/// Calls `visit` once per case of the domain, in a fixed order; stops early
/// when `visit` returns false. The case is only valid during the call.
/// Returns the number of cases visited (0, visiting none, when there is no
/// memory for the case).
size_t lctx_domain_enumerate(bool (*visit)(void *user, const lctx_case *c),
                             void *user);

/// Calls `visit` once per case of `share`, in the domain's order, with the
/// case's index; stops early when `visit` returns false. The cases outside
/// the share are counted but not built where the walk can tell beforehand,
/// so a share costs about its own cases. The case is only valid during the
/// call. Returns the number of cases visited (0 when there is no memory for
/// the case, or `chunk` or `parts` is 0).
size_t lctx_domain_enumerate_share(const lctx_domain_share *share,
                                   bool (*visit)(void *user, size_t index,
                                                 const lctx_case *c),
                                   void *user);

/// lctx_domain_enumerate_share, telling `visit` each case's registry
/// generation too (lctx_domain_visit), drawn from `*generations` (the last
/// one given, which the walk advances: the caller's, shared by every walk
/// whose cases one judge sees): what lets a judge of many cases reuse what
/// it set up for a registry configuration across the cases that share it
/// (lctx_oracle_check_case_registry).
size_t lctx_domain_enumerate_registry(const lctx_domain_share *share,
                                      uint64_t *generations,
                                      lctx_domain_visit visit, void *user);

/// Fills `c` with a random case drawn from `*state` (a splitmix64 state:
/// the same seed gives the same cases): 0-5 factories named from the
/// alphabet (or, now and then, an odd printable name), random priorities
/// around the interesting values, every behaviour, random config values
/// and GPU visibility, and 1-4 operations of every kind with platform lists
/// up to length 4. Beyond the bounded domain, for `lctx conform --random`.
void lctx_domain_random_case(uint64_t *state, lctx_case *c);

/// lctx_domain_random_case into a case that came from lctx_case_init or an
/// earlier call (or holds nothing past its counts, as case.h requires):
/// cleared with lctx_case_reset, which clears only what it used, instead of
/// zeroed whole. The same case, byte for byte.
void lctx_domain_random_case_reuse(uint64_t *state, lctx_case *c);

#endif /* LCTX_HARNESS_DOMAIN_H */
