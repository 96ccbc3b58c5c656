/*
 * plugin.h - loading a C plugin (conformance/ABI.md) into this process.
 *
 * Owns the one way lctx opens an implementation library: dlopen, the entry
 * symbol LCTX_IMPL_ENTRY_SYMBOL, and the checks of the table it returns (an
 * ABI version lctx speaks, the session functions present), with one message
 * per way it can fail. Also owns which operations a table really offers.
 * Running a plugin's operations is case.h's (lctx_case_impl_run_op); running
 * it isolated in a worker process is the drive layer's. libc and dlopen only.
 */
#ifndef LCTX_CORE_PLUGIN_H
#define LCTX_CORE_PLUGIN_H

#include <stdbool.h>
#include <stdint.h>

#include "lctx/impl_abi.h"
#include "lctx/str.h"

/// Loads the library at `path` (dlopen RTLD_NOW | RTLD_LOCAL; it stays
/// loaded for the life of the process), calls its LCTX_IMPL_ENTRY_SYMBOL and
/// checks the table it returns (lctx_plugin_check_table). Returns the
/// table, or NULL with `dlopen: REASON`, `no symbol lctx_impl_entry: REASON`
/// or lctx_plugin_check_table's message appended to `error` (may be NULL).
const lctx_impl_table *lctx_plugin_load(const char *path, lctx_buf *error);

/// Checks the table an entry point returned (a loaded or a linked-in one):
/// it is there, its ABI version is one lctx speaks (1 to
/// LCTX_IMPL_ABI_VERSION), and session_create and session_destroy are set.
/// Returns false with `lctx_impl_entry returned NULL`, `ABI version N, but
/// lctx speaks versions 1 to M` or `session_create or session_destroy is
/// NULL` appended to `error` (may be NULL).
bool lctx_plugin_check_table(const lctx_impl_table *table, lctx_buf *error);

/// The LCTX_IMPL_OP_* bits of a checked table's `operations` whose function
/// is there: without the ones the table leaves NULL, and without the ABI
/// version 2 operations for a version 1 table.
uint32_t lctx_plugin_operations(const lctx_impl_table *table);

#endif /* LCTX_CORE_PLUGIN_H */
