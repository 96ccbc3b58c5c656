/*
 * workspace.h - what the case and spec commands (check-spec, eval, explain,
 * encode, decode, enumerate) share: one heap context for their large
 * buffers, reading their input files, and printing cases and violations.
 *
 * Owns the messages for unreadable input (`lctx: PATH: cannot open: ...`,
 * `lctx: FILE:LINE:COL: ...` for a malformed case or spec table) and the
 * VIOLATION block that eval, explain and check-spec print. Also where lctx
 * finds its data (the spec table and the conformance cases) at start-up.
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

/// Where the spec table and the conformance cases are in a data folder.
#define LCTX_DATA_SPEC "conformance/spec/backend-selection.lspec"
#define LCTX_DATA_CASES "conformance/cases"

/// The largest byte form `lctx encode` writes.
#define LCTX_WORKSPACE_BYTES_MAX ((size_t)1 << 16)

/// The large state of one command run, on the heap (lctx_workspace_create),
/// so that nothing is shared between runs in one process.
typedef struct lctx_workspace {
  /// The spec table (lctx_workspace_load_spec).
  lctx_spec spec;
  /// The case being worked on (lctx_workspace_load_case, decode).
  lctx_case c;
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
/// sets `*path` to the default table (sys.h) until the option is given.
lctx_option lctx_workspace_spec_option(const char **path);

/// The folder lctx reads its data from, laid out as the source tree: the
/// spec table (LCTX_DATA_SPEC under it) and the conformance cases
/// (LCTX_DATA_CASES). The first that holds the spec table of:
///   1. $LCTX_DATA_DIR (then no other: a wrong one is an error);
///   2. the source tree (`source_dir`), when the running program lies under
///      the build tree (`binary_dir`);
///   3. `../share/lctx` from the running program's folder (/proc/self/exe),
///      as `cmake --install` lays it out.
/// Writes the folder to `dir`. False, after a message naming every place
/// looked at on `err`, when none holds the table; `dir` is then the folder
/// that was to hold it ($LCTX_DATA_DIR, else `../share/lctx`; empty when the
/// running program is unknown), so that commands fail naming it rather than
/// read a source tree that happens to be there.
bool lctx_workspace_find_data(const char *source_dir, const char *binary_dir,
                              char *dir, size_t size, FILE *err);

/// At start-up: lctx_workspace_find_data with this build's folders, then
/// sets $LCTX_SPEC and $LCTX_CASES (the defaults of sys.h, which a user's
/// settings of them override) to the folder's. Prints `lctx: warning: ...`
/// on `err` when no folder holds the table (they are then set to the folder
/// that was to hold it); commands given --spec and --cases are unaffected.
void lctx_workspace_use_data(FILE *err);

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
