/*
 * irjudge.h - judging the modules an implementation returned, in a child
 * process that may die.
 *
 * Owns parsing and checking hostile MLIR text (an implementation's
 * lower_per_platform modules) where it cannot take lctx down: a module is
 * first bounded in size and nesting depth, then the reference lowering of
 * its case and the IR checker (irexpect.h) run in a forked judge process of
 * its own process group, with its memory watched and a time limit per
 * module. A module that kills the judge (a stack overflow in the MLIR
 * parser, an abort, too much memory, too much time) gets a verdict under
 * IR-000 that says so; the judge is restarted and the next module goes on.
 * A judge lost on a module is first run again on that module alone: only
 * a module that loses the fresh judge too is marked, so that a judge
 * killed or stopped from outside is never blamed on the module it held.
 * Which row a verdict counts under is the caller's.
 */
#ifndef LCTX_DRIVE_IRJUDGE_H
#define LCTX_DRIVE_IRJUDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "case.h"

#include <stdint.h>
#include "ircheck.h"
#include "lctx/release.h"

/// The deepest bracket nesting a module may have before it is parsed.
#define LCTX_IRJUDGE_MAX_DEPTH 256

/// What became of one module.
typedef enum lctx_irjudge_status {
  LCTX_IRJUDGE_JUDGED = 0, ///< `passed`, `applicable`, `row` and `reason`
  LCTX_IRJUDGE_NOT_JUDGED, ///< the reference lowering cannot be checked
  LCTX_IRJUDGE_REFUSED,    ///< IR-000: too deep; `reason` says where
  LCTX_IRJUDGE_KILLED,     ///< IR-000: the module killed the judge
} lctx_irjudge_status;

/// The verdict on one module.
typedef struct lctx_irjudge_verdict {
  lctx_irjudge_status status;
  bool passed;
  unsigned applicable; ///< the IR rows exercised (LCTX_IR_ROW_BIT)
  /// When judged and not passed: the releases of the model (a bit per
  /// lctx_release_at index) at which the module meets the expectation of
  /// the same case's reference lowering (0: at none).
  uint32_t passes_at;
  char row[8]; ///< the first offending row, when not passed
  char reason[LCTX_IR_MESSAGE_MAX + 128];
} lctx_irjudge_verdict;

/// One module to judge: operation `op` (a lower_per_platform) of case `c`
/// returned `mlir` (NUL-terminated). `packed` (may be NULL) holds
/// lctx_case_pack of `c` (`packed_size` bytes), as a plugin's worker was
/// given it: sent as it is rather than packed again.
typedef struct lctx_irjudge_job {
  const lctx_case *c;
  size_t op;
  const char *mlir;
  const uint8_t *packed;
  size_t packed_size;
} lctx_irjudge_job;

typedef struct lctx_irjudge lctx_irjudge;

/// A judge with `timeout` seconds per module and a memory limit (resident,
/// MB; 0: none); its stderr goes to `log_path` (NULL: /dev/null). The
/// process starts on first use. NULL when out of memory.
/// The expected structure of each module comes from the reference model at
/// JAX release `release` (lctx/release.h; NULL: the modelled commit), the
/// release the run judges as.
lctx_irjudge *lctx_irjudge_new(double timeout, size_t memory_limit_mb,
                               const char *log_path,
                               const lctx_release *release);

/// Hands `n` modules to the judge without waiting, so that it judges them
/// while the caller does other work; the next lctx_irjudge_run with the
/// same `jobs`, `n` and `verdicts` then collects their verdicts (any other
/// call stops that judge first). The jobs, what they point to and the
/// verdicts must stay as they are until then.
void lctx_irjudge_start(lctx_irjudge *j, const lctx_irjudge_job *jobs, size_t n,
                        lctx_irjudge_verdict *verdicts);

/// Judges `n` modules; fills `verdicts[i]` for each.
void lctx_irjudge_run(lctx_irjudge *j, const lctx_irjudge_job *jobs, size_t n,
                      lctx_irjudge_verdict *verdicts);

/// Modules that killed the judge so far (each killed a fresh judge again
/// when judged alone).
size_t lctx_irjudge_kills(const lctx_irjudge *j);

/// Judges lost so far and the module judged again alone (a judge killed
/// or stopped by another process is not the module's doing: the module is
/// marked only when it loses the fresh judge too).
size_t lctx_irjudge_retries(const lctx_irjudge *j);

/// The modules lctx_irjudge_run left NOT_JUDGED because no judge process
/// could be started (no pipe, no fork, no memory): a run must not call
/// them judged.
size_t lctx_irjudge_unstarted(const lctx_irjudge *j);

/// Stops the judge process and frees everything (NULL is fine).
void lctx_irjudge_free(lctx_irjudge *j);

/// Whether `mlir` nests brackets ((, [, {, <) at most `max_depth` deep
/// outside string literals; if not, says where in `why`.
bool lctx_irjudge_depth_ok(const char *mlir, size_t max_depth, char *why,
                           size_t cap);

#endif /* LCTX_DRIVE_IRJUDGE_H */
