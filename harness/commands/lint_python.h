/*
 * lint_python.h - `lctx lint` of Python files: the static check of lowering
 * code (conformance/adapters/lctx_jax/lint.py, docs/lint.md), run as a
 * child process.
 *
 * Owns running `PYTHON -m lctx_jax.lint --output FILE PATH...` through
 * the process layer (peer.h) with PYTHONPATH the data folder's
 * conformance/adapters, in a scratch folder of its own under $TMPDIR (or
 * /tmp), and handing back what it wrote (its findings, its standard error)
 * and its exit status; what paths go to it (a .py file, a folder of .py
 * files and no .rule files). Printing and exit codes are cli/'s.
 */
#ifndef LCTX_COMMANDS_LINT_PYTHON_H
#define LCTX_COMMANDS_LINT_PYTHON_H

#include <stdbool.h>
#include <stddef.h>

#include "lctx/str.h"

/// The most bytes of findings or of standard error read back (16 MiB).
#define LCTX_LINT_PYTHON_TEXT_MAX ((size_t)16 << 20)

/// How long the linter may run (seconds).
#define LCTX_LINT_PYTHON_TIMEOUT 900.0

/// What one run of the Python linter gave.
typedef struct lctx_lint_python_result {
  /// Its exit status (0 clean, 1 findings, 2 bad input), or -1 when it
  /// did not exit by itself (killed, stopped at the timeout).
  int exit_code;
  /// How it ended, in words ("exited with status 3", "killed by signal 9
  /// (SIGKILL)", "stopped after 900 s").
  char how[128];
  /// Whether it wrote its findings file (a linter that never ran, as a
  /// Python without lctx_jax, writes none).
  bool wrote_findings;
  /// Its findings and its standard error, NUL-terminated (malloc'd, never
  /// NULL after a true return; free with lctx_lint_python_free). Bytes
  /// from outside: escape before showing them.
  char *findings;
  char *errors;
} lctx_lint_python_result;

/// Whether `path` goes to the Python linter: a file ending in .py, or a
/// folder that holds .py files (at any depth) and no .rule files (at its
/// top, where the rule-file lint looks).
bool lctx_lint_python_path(const char *path);

/// Runs the linter program `python` (looked up in PATH when it holds no
/// '/') as `python -m lctx_jax.lint --output FILE -- PATHS...` with
/// PYTHONPATH `adapters` (before the caller's PYTHONPATH) and
/// PYTHONDONTWRITEBYTECODE=1. True with `r` filled; false with why in
/// `error` (no scratch folder, the program could not be started).
bool lctx_lint_python_run(const char *python, const char *adapters,
                          char *const *paths, size_t count,
                          lctx_lint_python_result *r, lctx_buf *error);

/// Frees what a run gave.
void lctx_lint_python_free(lctx_lint_python_result *r);

#endif /* LCTX_COMMANDS_LINT_PYTHON_H */
