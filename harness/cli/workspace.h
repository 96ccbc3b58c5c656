/*
 * workspace.h - what the case and spec commands (check-spec, eval, explain,
 * encode, decode, enumerate) share: one heap context for their large
 * buffers, reading their input files, and printing cases and violations.
 *
 * Owns the messages for unreadable input (`lctx: PATH: cannot open: ...`,
 * `lctx: FILE:LINE:COL: ...` for a malformed case or spec table) and the
 * VIOLATION block that eval, explain and check-spec print. Where lctx
 * finds its data is data.h's.
 */
#ifndef LCTX_CLI_WORKSPACE_H
#define LCTX_CLI_WORKSPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "case.h"
#include "options.h"
#include "case_text.h"
#include "oracle.h"

/// The largest byte form `lctx encode` writes.
#define LCTX_WORKSPACE_BYTES_MAX ((size_t)1 << 16)

/// The large state of one command run, on the heap (lctx_workspace_create),
/// so that nothing is shared between runs in one process.
typedef struct lctx_workspace {
  /// The spec table (lctx_workspace_load_spec).
  lctx_spec spec;
  /// The case being worked on (lctx_workspace_load_case, decode).
  lctx_case c;
  /// The expectations beside `c` (lctx_workspace_load_case).
  lctx_case_expect expect;
  /// The judge of the case or the domain, over `spec`.
  lctx_oracle oracle;
  /// Runs `c` operation by operation (explain, eval's IR check).
  lctx_runner runner;
  lctx_outcome outcome;
  /// Scratch text: a printed case, an outcome, an explanation.
  char text[LCTX_CASE_TEXT_MAX];
  /// Scratch bytes: a case's byte form.
  uint8_t bytes[LCTX_WORKSPACE_BYTES_MAX];
} lctx_workspace;

/// A zeroed workspace, or NULL after `lctx: out of memory` on `err`.
lctx_workspace *lctx_workspace_create(FILE *err);

void lctx_workspace_destroy(lctx_workspace *ws);

/// Reads all of `path` (`-` is standard input, at most LCTX_CASE_FILE_MAX
/// bytes, file.h: a case or fuzz bytes; a regular file) into a new
/// NUL-terminated buffer the caller frees. False after `lctx: PATH: REASON` on
/// `err`.
bool lctx_workspace_read_file(const char *path, char **data, size_t *length,
                              FILE *err);

/// The `--spec FILE` option of a command that judges by the spec table;
/// sets `*path` to the default table (the data folder's, data.h) until the
/// option is given.
lctx_option lctx_workspace_spec_option(const char **path);

/// Parses the case text `data` (`n` bytes, read from `path`) into `ws->c`.
/// False after a message naming the file and line on `err`.
bool lctx_workspace_parse_case(lctx_workspace *ws, const char *path,
                               const char *data, size_t n, FILE *err);

/// Reads and parses the case file `path` into `ws->c`. False after a
/// message naming the file (and line) on `err`.
bool lctx_workspace_load_case(lctx_workspace *ws, const char *path, FILE *err);

/// Loads the spec table `path` into `ws->spec`. False after a message
/// naming the file (and line) on `err`.
bool lctx_workspace_load_spec(lctx_workspace *ws, const char *path, FILE *err);

/// Prints each line of `text` to `out`, after `indent`, escaped
/// (escape.h): the text holds bytes of an input file.
void lctx_workspace_print_lines(FILE *out, const char *indent,
                                const char *text);

/// Prints violations as they are found, up to `limit` of them.
typedef struct lctx_violation_printer {
  FILE *out;
  /// Where the case is printed (its `text` is overwritten).
  lctx_workspace *ws;
  /// How many violations were reported (printed or not).
  size_t shown;
  size_t limit;
  /// The case file named in each VIOLATION line, or NULL.
  const char *file;
} lctx_violation_printer;

/// Makes `ws->oracle` report its violations to `p`.
void lctx_workspace_print_violations(lctx_workspace *ws,
                                     lctx_violation_printer *p);

#endif /* LCTX_CLI_WORKSPACE_H */
