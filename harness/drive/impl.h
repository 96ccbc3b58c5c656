/*
 * impl.h - implementations under test, isolated: a C plugin (conformance/
 * ABI.md) run in a forked worker process, or a program speaking the process
 * protocol (conformance/PROTOCOL.md).
 *
 * Owns starting, feeding and restarting them, and turning whatever they do
 * (answer, crash, hang, write garbage or too much) into a result per case. A
 * crash or hang marks only the case that caused it: the worker or program is
 * restarted and the batch goes on. Never runs a plugin's code in the calling
 * process, and never starts a program through a shell.
 */
#ifndef LCTX_HARNESS_IMPL_H
#define LCTX_HARNESS_IMPL_H

#include "case.h"

/// What became of one case.
typedef enum lctx_result_status {
  LCTX_RESULT_OK = 0,  ///< every operation has an outcome
  LCTX_RESULT_CRASH,   ///< the implementation died, failed or broke protocol
  LCTX_RESULT_TIMEOUT, ///< it did not answer within the timeout
} lctx_result_status;

/// The result of one case.
typedef struct lctx_case_result {
  lctx_result_status status;
  char detail[256]; ///< why, for CRASH and TIMEOUT
  size_t outcome_count;
  lctx_outcome outcomes[LCTX_CASE_MAX_OPS];
  /// The MLIR text a LOWER_PER_PLATFORM operation returned (heap, NUL
  /// terminated), or NULL when it returned none. Freed by
  /// lctx_case_result_release (and by the next lctx_impl_run on the same
  /// result).
  char *mlir[LCTX_CASE_MAX_OPS];
} lctx_case_result;

/// Frees the MLIR texts of a result.
void lctx_case_result_release(lctx_case_result *result);

/// What the implementation says of itself.
typedef struct lctx_impl_info {
  char name[128];
  char version[64];
  unsigned operations; ///< bit per lctx_op_kind
  char kind[16];       ///< "plugin" or "process"
} lctx_impl_info;

typedef struct lctx_impl lctx_impl;

/// Loads a C plugin (in a worker, to read its table). `timeout` is per case,
/// in seconds. On failure writes why to `error` and returns NULL.
lctx_impl *lctx_impl_open_plugin(const char *path, double timeout,
                                 lctx_buf *error);

/// Starts a program from a command line split into words (quotes and
/// backslashes group; no shell), performs the handshake. Its stderr goes to
/// `log_path` (appended). On failure writes why to `error` and returns NULL.
lctx_impl *lctx_impl_open_process(const char *command_line, double timeout,
                                  const char *log_path, lctx_buf *error);

/// Splits a command line into at most `max - 1` words (NULL-terminated),
/// stored in `storage`. Returns the word count, or -1 with a message in
/// `error` (unterminated quote, too many words).
int lctx_split_command(const char *line, char *storage, size_t storage_size,
                       char **argv, int max, lctx_buf *error);

/// The implementation's name, version and operations.
const lctx_impl_info *lctx_impl_get_info(const lctx_impl *impl);

/// Runs `n` cases; fills `results[i]` for each (releasing what they held).
/// Restarts the worker or program as needed. `results` must be zeroed
/// before its first use.
void lctx_impl_run(lctx_impl *impl, const lctx_case *const *cases, size_t n,
                   lctx_case_result *results);

/// Process implementations only: start a fresh program for every case (to
/// measure what batching saves). Off by default.
void lctx_impl_set_process_per_case(lctx_impl *impl, bool on);

/// Number of restarts so far (crashes, hangs, protocol errors).
size_t lctx_impl_restarts(const lctx_impl *impl);

/// Stops the worker or program and frees everything.
void lctx_impl_close(lctx_impl *impl);

#endif /* LCTX_HARNESS_IMPL_H */
