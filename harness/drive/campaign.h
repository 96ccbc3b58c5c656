/*
 * campaign.h - fuzz campaigns a person can run and read: the engine side of
 * `lctx fuzz`.
 *
 * Owns starting the engines (libFuzzer in fork mode, or AFL++ main and
 * secondary instances) as child processes, the live progress line, resuming
 * a campaign directory, the spec rows the corpus hits, stopping on time or
 * Ctrl-C, and the summary. Findings are findings.h's (keys, duplicates,
 * reproduce.txt), minimizing them minimize.h's; replay and promotion are
 * replay.h's. A campaign directory holds everything and can be resumed:
 *
 *   OUT/seeds/               a flat copy of the target's seeds
 *   OUT/corpus/              the working corpus (libFuzzer), kept
 *   OUT/afl/                 AFL++ sync directory (main + secondaries), kept
 *   OUT/artifacts/           raw crash inputs from the engines
 *   OUT/logs/                engine output
 *   OUT/findings/KEY/        input, minimized, report.txt, reproduce.txt
 *   OUT/summary.txt          the last summary
 */
#ifndef LCTX_HARNESS_CAMPAIGN_H
#define LCTX_HARNESS_CAMPAIGN_H

#include <stddef.h>
#include <stdio.h>

/// The most engine jobs (libFuzzer -fork=N, or AFL++ instances).
#define LCTX_CAMPAIGN_MAX_JOBS 16

/// What a campaign runs.
typedef struct lctx_campaign_options {
  /// "libfuzzer" or "afl".
  const char *engine;
  /// A fuzz target: fuzz_model, fuzz_case_text, fuzz_spec,
  /// fuzz_differential or fuzz_lowering.
  const char *target;
  /// How long the engines fuzz, 1 second or more.
  double seconds;
  /// libFuzzer's -fork=N, or the number of AFL++ instances (1 to
  /// LCTX_CAMPAIGN_MAX_JOBS; default 1).
  size_t jobs;
  /// A further corpus folder (AFL++: instead of the seeds), or NULL.
  const char *corpus;
  /// The campaign directory; NULL: lctx-fuzz/TARGET-ENGINE.
  const char *out_dir;
  /// The engine's build of the target; NULL: the source tree's
  /// build/fuzz/fuzzers/TARGET or build/afl/fuzzers/TARGET_afl.
  const char *binary;
} lctx_campaign_options;

/// The defaults: no engine, no target, no time (-1), one job, the rest NULL.
void lctx_campaign_options_init(lctx_campaign_options *o);

/// Runs a campaign: prints a header and a live line to `out`, stops after
/// `seconds` (or Ctrl-C), minimizes the new findings and writes the summary
/// (to `out` and OUT/summary.txt). Returns 0 when the campaign directory
/// holds no finding, 1 when it holds some (earlier runs included), 2 for an
/// unknown target, a missing build, a bad corpus or a directory that cannot
/// be created (with a message to `err`).
int lctx_campaign_run(const lctx_campaign_options *o, FILE *out, FILE *err);

#endif /* LCTX_HARNESS_CAMPAIGN_H */
