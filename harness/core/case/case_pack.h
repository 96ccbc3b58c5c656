/*
 * case_pack.h - the packed form of a case: what a plugin's worker is given
 * of it (harness/process/impl_worker.c), as the struct holds it (same program,
 * same machine).
 *
 * Owns the encoder and its checked decoder. The packed case is the factory
 * count and the used factories, the configuration, the rule count and the
 * used rules, the operation count and the used operations, the name count
 * and the used names; no expectations. Each part's
 * size follows from the counts before it, so the parts are copied as they
 * are: cheaper than leaving out their zero bytes. The copies rely on the
 * order of the fields of lctx_case and lctx_case_op (case.h); case_pack.c
 * asserts it at compile time, so that reordering or adding a field there
 * fails the build instead of silently changing the worker's wire format.
 */
#ifndef LCTX_CORE_CASE_PACK_H
#define LCTX_CORE_CASE_PACK_H

#include "case.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// The longest packed case: never more than the case.
#define LCTX_CASE_PACKED_MAX (sizeof(lctx_case) + 16)

/// Writes the used parts of `c` to `out` (at most LCTX_CASE_PACKED_MAX
/// bytes): the factory, rule and operation counts capped at their arrays'
/// sizes; returns the size.
size_t lctx_case_pack(const lctx_case *c, uint8_t *out);

/// Unpacks `n` bytes made by lctx_case_pack into `c`; false when they are not a
/// packed case (a count over its array, a part cut short, bytes left over,
/// an operation's platform index past the names).
/// Entries past the counts keep what they held: every reader of a case stops at
/// its counts.
bool lctx_case_unpack(const uint8_t *p, size_t n, lctx_case *c);

#endif /* LCTX_CORE_CASE_PACK_H */
