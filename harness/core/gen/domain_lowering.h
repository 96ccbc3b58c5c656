/*
 * domain_lowering.h - the lowering sub-domain of the bounded domain, and
 * the random lowering scenarios of random cases.
 *
 * Owns the cases of register_lowering and lower_per_platform: rule
 * selection and dispatch over one registry configuration, registrations of
 * every platform name, and rule bodies that read the backend over every
 * configuration (conformance/spec/README.md, "The bounded domain").
 * Decides no outcome.
 */
#ifndef LCTX_HARNESS_DOMAIN_LOWERING_H
#define LCTX_HARNESS_DOMAIN_LOWERING_H

#include "domain_walk.h"

/// Walks the lowering sub-domain (after the single operations).
void lctx_domain_lowering(lctx_domain_walk *w);

/// Replaces the operations of `c` by a random lowering scenario drawn from
/// `*state`, kept only when it validates (else `c` is as it was).
void lctx_domain_random_lowering(uint64_t *state, lctx_case *c);

#endif /* LCTX_HARNESS_DOMAIN_LOWERING_H */
