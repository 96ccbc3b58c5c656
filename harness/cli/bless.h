/*
 * bless.h - `lctx eval --bless`: writes the reference's outcomes into a
 * case file as `expect` lines, keeping every other line (comments, blank
 * lines, layout) byte for byte.
 *
 * Owns only the rewriting of one file; it refuses (and writes nothing)
 * when the spec table does not allow an outcome of the reference.
 */
#ifndef LCTX_CLI_BLESS_H
#define LCTX_CLI_BLESS_H

#include <stdbool.h>
#include <stdio.h>

#include "workspace.h"

/// Blesses the case file `path`, already loaded into `ws->c`: runs every
/// operation with the reference, judges each outcome by `ws->spec`, and
/// writes an `expect` line after each `op` line that has none (`all`:
/// every existing `expect` line is rewritten too, in its place). Returns
/// 0 when the file was written (or needed nothing), 1 when the table does
/// not allow an outcome (naming the operation and the row; the file is
/// left as it was), 2 when the file cannot be read or written.
int lctx_bless_case(lctx_workspace *ws, const char *path, bool all, FILE *out,
                    FILE *err);

/// Fills `*blessed`, the expectations beside `ws->c`, with the reference's
/// outcome of every operation, each judged by `ws->spec`; false, with a
/// line `REFUSED NAME: operation K: ... row ROW ...` on `out`, when the
/// table does not allow one (`name` names the case in it).
bool lctx_bless_outcomes(lctx_workspace *ws, const char *name,
                         lctx_case_expect *blessed, FILE *out);

#endif /* LCTX_CLI_BLESS_H */
