/*
 * minimize.h - shrinking a campaign's findings.
 *
 * Owns making a finding's input smaller while it keeps its key, judged by
 * the engine's own build (findings.h's key runs): for fuzz_model and
 * fuzz_differential first the canonical encoding of the case the input
 * decodes to, then removing ever smaller chunks. Also the pass that
 * minimizes, within a time budget, the findings the store records as
 * waiting for it: a campaign's new ones after it fuzzed, and those an
 * interrupted campaign left when it is resumed, before it fuzzes.
 *
 * Also owns corpus minimization (`lctx corpus minimize`, and a campaign's
 * corpus when it ends): the engine's own pass (libFuzzer's -merge=1, or
 * afl-cmin) into a fresh folder beside the corpus, repeated over its own
 * output until a pass shrinks it no more (bounded), which then takes the
 * corpus' place in one step (Linux renameat2 RENAME_EXCHANGE; elsewhere two
 * renames), so that a pass that fails or is cut short leaves the corpus as
 * it was. For cases (fuzz_model, fuzz_differential) the engine's pass,
 * which keeps inputs by code coverage, is followed by one that copies back
 * an input for every spec row the minimized corpus no longer hits, so that
 * no row is lost; and the spec rows a corpus of cases hits.
 */
#ifndef LCTX_DRIVE_MINIMIZE_H
#define LCTX_DRIVE_MINIMIZE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "data_paths.h"
#include "findings.h"

/// Shrinks `data[0..size)` (a buffer of LCTX_FINDINGS_MAX_INPUT bytes) while
/// its key stays `want`, in at most `budget` key runs, stopping early on
/// Ctrl-C (sys.h's interrupts). Returns the new size; `data` holds the
/// smaller input.
size_t lctx_minimize_input(const lctx_findings *f, uint8_t *data, size_t size,
                           const char *want, int budget);

/// Minimizes every finding of the campaign directory that waits for it
/// (findings.h's lctx_findings_unminimized: this run's new ones and those an
/// earlier, interrupted run left), starting none after `seconds` have passed
/// or Ctrl-C; rewrites their minimized, report.txt and reproduce.txt and
/// records each one finished as minimized (one cut short by Ctrl-C keeps
/// waiting). Prints `minimizing KEY ... N -> M bytes` for each to `out`.
/// Returns how many it finished.
size_t lctx_minimize_pending(const lctx_findings *f, double seconds, FILE *out);

/// What lctx_corpus_minimize shrinks, and with what.
typedef struct lctx_corpus_options {
  /// The fuzz target (a name of fuzzcheck.h's table).
  const char *target;
  /// "libfuzzer" (-merge=1) or "afl" (afl-cmin); NULL: libfuzzer.
  const char *engine;
  /// The engine's build of the target; NULL: the fuzz build of `data`
  /// (FUZZ_BUILD/TARGET or AFL_BUILD/TARGET_afl).
  const char *binary;
  /// Where the fuzz builds are (data_paths.h); NULL: the current paths.
  const lctx_data_paths *data;
  /// The corpus folder.
  const char *dir;
  /// Where the minimized corpus goes (a folder that must not exist, or be
  /// empty); NULL: it replaces `dir`.
  const char *out_dir;
  /// The longest the engine's passes may take in all (seconds); 0: 600.
  double timeout;
} lctx_corpus_options;

/// The most passes lctx_corpus_minimize runs over one corpus.
#define LCTX_CORPUS_MAX_PASSES 10

/// What lctx_corpus_minimize did.
typedef struct lctx_corpus_result {
  /// The files of the corpus before and after.
  size_t before, after;
  /// The passes that ended well (the last one, which shrank nothing and
  /// whose output is dropped, included).
  size_t passes;
  /// The last pass shrank nothing: minimizing the result again keeps its
  /// count. False when the passes stopped at LCTX_CORPUS_MAX_PASSES, the
  /// time limit or a failed pass while still shrinking.
  bool fixed_point;
} lctx_corpus_result;

/// Minimizes a corpus with the engine's own pass into a fresh folder, then
/// passes again over that folder while a pass shrinks it (the engine keeps
/// inputs greedily, so that one pass over its own output can drop more),
/// up to LCTX_CORPUS_MAX_PASSES passes and `timeout` in all, then puts the
/// folder in the place of `dir` (or of `out_dir`); `r` receives the counts
/// and passes. Returns 0 when done, 1 when the first pass failed or was
/// interrupted (the corpus is left as it was; a later pass that fails only
/// ends the passes), 2 for bad options, a missing build or folder (each
/// with a message to `err`, naming the path).
int lctx_corpus_minimize(const lctx_corpus_options *o, lctx_corpus_result *r,
                         FILE *err);

/// Prints the ids of the spec rows the inputs of `dir` hit, one a line in
/// table order, when they are cases (fuzz_model, fuzz_differential).
/// Returns how many, or -1 (with a message to `err`) when the target's
/// inputs are not cases or `dir` is not a folder.
long lctx_corpus_rows(const char *target, const char *dir, FILE *out,
                      FILE *err);

#endif /* LCTX_DRIVE_MINIMIZE_H */
