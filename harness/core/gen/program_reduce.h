/*
 * program_reduce.h - generated programs made smaller: the reductions the
 * minimizer (lctx generate) tries, in order, each a valid program.
 */
#ifndef LCTX_HARNESS_PROGRAM_REDUCE_H
#define LCTX_HARNESS_PROGRAM_REDUCE_H

#include "program.h"

/// The reductions of `p`, in the order the minimizer tries them (the most
/// removing first): writes reduction `k` applied to `p` into `out` and
/// returns true, or false when there is no reduction `k` (k counts from
/// 0). Every reduced program is checked and strictly smaller by
/// (size, then text length).
bool lctx_program_reduce(const lctx_program_desc *p, size_t k,
                         lctx_program_desc *out);

#endif /* LCTX_HARNESS_PROGRAM_REDUCE_H */
