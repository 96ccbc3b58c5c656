/*
 * replay.h - fuzz inputs through a target's own check, in process: `lctx
 * replay` and `lctx promote`.
 *
 * Owns running inputs (files, or every file of a folder) through the check
 * the fuzz targets run (fuzzcheck.h, fuzzlower.h) without an engine, and
 * keeping a finding as a regression input: copied under
 * REGRESSIONS/TARGET/ (named by its key, or its hash when it passes), with
 * a readable .case twin for fuzz_model. Findings come from findings.h's
 * directories or any input file.
 */
#ifndef LCTX_DRIVE_REPLAY_H
#define LCTX_DRIVE_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/// What lctx_replay_run replays.
typedef struct lctx_replay_options {
  /// A target name; NULL: told from each input's path.
  const char *target;
  /// Also print `ok PATH` for each input that passes.
  bool verbose;
  /// Files and folders (a folder: its regular files but README.md).
  char *const *inputs;
  size_t input_count;
  /// A fuzz build to run each input with, in a child process, instead of
  /// lctx's own check in process (NULL): the binary a campaign ran
  /// (`lctx fuzz --binary`), keyed as the campaign keys its findings.
  const char *binary;
  /// The engine `binary` was built for, "libfuzzer" (NULL) or "afl".
  const char *engine;
  /// The library fuzz_differential compares in process when
  /// LCTX_DIFF_PLUGIN is unset: the build's example plugin, the one the
  /// fuzz_differential target links (data_paths.h); NULL or "": none, and
  /// then LCTX_DIFF_PLUGIN is needed.
  const char *plugin;
} lctx_replay_options;

/// Replays every input and prints `FINDING PATH` with key and report for
/// each that fails, then `replay: N inputs, M findings`. Returns 0 when none
/// fails, 1 when some do, 2 when a target is unknown or cannot be told, an
/// input is missing, the binary is not an executable file, or the target
/// cannot run here (no implementation).
int lctx_replay_run(const lctx_replay_options *o, FILE *out, FILE *err);

/// What lctx_replay_promote keeps.
typedef struct lctx_replay_promote_options {
  /// A findings/KEY directory (its minimized input, else its input) or an
  /// input file.
  const char *finding;
  /// The file's stem; NULL: the key when it fails today, else
  /// input-HASH.
  const char *name;
  /// A target name; NULL: told from the finding's path.
  const char *target;
  /// The regression root; NULL: `regressions`.
  const char *to;
  /// The data folder's regression root (data_paths.h), the default of `to`.
  const char *regressions;
  /// The root `make test` replays (a source tree's corpus/regressions), or
  /// NULL when this lctx has no source tree: says whether a promoted input
  /// will be replayed.
  const char *replayed;
  /// As lctx_replay_options' `plugin`, for judging a fuzz_differential
  /// finding today.
  const char *plugin;
} lctx_replay_promote_options;

/// Copies the finding's input to ROOT/TARGET/STEM.{bin,case,lspec} (and for
/// fuzz_model its decoded case to ROOT/fuzz_model/text/STEM.case) and says
/// whether it fails today. Returns 0, or 2 when it cannot be read, its
/// target cannot be told, or the copy cannot be written.
int lctx_replay_promote(const lctx_replay_promote_options *o, FILE *out,
                        FILE *err);

#endif /* LCTX_DRIVE_REPLAY_H */
