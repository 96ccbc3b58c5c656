/*
 * names.h - finding a name in a table of names.
 *
 * Owns the one lookup behind every `*_from_name` of the harness: the index
 * of a name in a table of C strings indexed by an enum. libc only, so that
 * the fuzz build compiles it.
 */
#ifndef LCTX_CORE_NAMES_H
#define LCTX_CORE_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "lctx/str.h"

/// The index of the first of `names[0..count)` equal to `name`, or -1 when
/// none is; a NULL entry ends the table early.
int lctx_names_find(const char *const *names, size_t count, lctx_str name);

#endif /* LCTX_CORE_NAMES_H */
