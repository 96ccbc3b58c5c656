/*
 * campaign.h - fuzz campaigns a person can run and read: the engine side of
 * `lctx fuzz`.
 *
 * Owns starting the engines (libFuzzer as one plain process per job,
 * restarted on the same corpus after it stops on a finding, or AFL++ main and
 * secondary instances, the first secondary with the CMPLOG build
 * TARGET_cmplog beside TARGET_afl, `-c`, when there is one) as child
 * processes, the live progress line, resuming
 * a campaign directory, stopping on time or
 * Ctrl-C, ending every engine process however the campaign ends (lctx
 * killed included: the engines die with it), and the summary. Findings are
 * findings.h's (keys, duplicates, reproduce.txt), minimizing them
 * minimize.h's (a resumed campaign first minimizes what an interrupted one
 * left); the spec rows the corpus hits, and those the target cannot reach,
 * campaign_rows.h's; replay and promotion are replay.h's. A campaign directory
 * holds everything and can be resumed:
 *
 *   OUT/seeds/               a flat copy of the target's seeds (libFuzzer:
 *                            less an input that stopped a run, which is in
 *                            OUT/artifacts and a finding)
 *   OUT/given/               libFuzzer: a flat copy of --corpus (the user's
 *                            folder is never changed); an input that stops
 *                            a run is dropped from it, as from the seeds
 *   OUT/corpus/              the corpus (libFuzzer), kept and minimized
 *                            when a run ends: the working corpus itself,
 *                            or its copy when that is on a tmpfs or in
 *                            fast mode (campaign_work.h); AFL++: the
 *                            minimized main queue
 *   OUT/afl/                 AFL++ sync directory (main + secondaries), kept
 *   OUT/artifacts/           raw crash inputs from the engines
 *   OUT/logs/                engine output
 *   OUT/findings/KEY/        input, minimized, report.txt, reproduce.txt
 *   OUT/tmp/                 the engines' TMPDIR (libFuzzer's -merge work
 *                            folder, AFL++'s .cur_input), removed when the
 *                            run ends
 *   OUT/summary.txt          the last summary
 *   OUT/progress.jsonl       the last run's progress, one JSON line per
 *                            point (seconds, execs, execs_per_sec, corpus:
 *                            the live line's, rows_hit, findings,
 *                            crash_inputs)
 *   OUT/state.json           how the last run ended: status "running"
 *                            (while it runs, or it was killed),
 *                            "finished", "interrupted" or "nothing-run";
 *                            inputs_run, findings, new_findings,
 *                            unminimized, seconds, target, engine,
 *                            corpus_before, corpus_after, corpus_passes
 *                            and corpus_fixed_point (the corpus minimized
 *                            at the end), and for targets whose inputs are
 *                            cases the rows fields of campaign_rows.h
 *
 * The live line's corpus is the campaign's own (campaign_work.h's count:
 * OUT/corpus and the working corpus' inputs not synced yet; AFL++: the main
 * queue), the count the minimization at the end starts from.
 */
#ifndef LCTX_HARNESS_CAMPAIGN_H
#define LCTX_HARNESS_CAMPAIGN_H

#include <stddef.h>
#include <stdio.h>

#include "data_paths.h"

/// The most engine jobs (libFuzzer processes, or AFL++ instances).
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
  /// libFuzzer processes sharing the corpus, or AFL++ instances (1 to
  /// LCTX_CAMPAIGN_MAX_JOBS; default 1).
  size_t jobs;
  /// A further corpus folder (AFL++: instead of the seeds, unless it holds
  /// no file), or NULL.
  const char *corpus;
  /// The campaign directory; NULL: lctx-fuzz/TARGET-ENGINE.
  const char *out_dir;
  /// The engine's build of the target; NULL: the fuzz build of `data`
  /// (FUZZ_BUILD/TARGET or AFL_BUILD/TARGET_afl).
  const char *binary;
  /// Fast mode (libFuzzer): `binary` is a build without sanitizers and
  /// this the ASan+UBSan build every input it adds to the corpus or flags
  /// is replayed through before it is kept or reported
  /// (campaign_work.h); NULL: not fast mode.
  const char *triage;
  /// Keep libFuzzer's working corpus in OUT/corpus (or OUT/tmp/work) even
  /// when there is a tmpfs (campaign_work.h).
  bool no_tmpfs;
  /// Where the seeds (SEEDS/TARGET), the dictionary (DICTS/TARGET.dict)
  /// and the fuzz builds are (data_paths.h); init: the current paths.
  const lctx_data_paths *data;
} lctx_campaign_options;

/// The defaults: no engine, no target, no time (-1), one job, the rest NULL.
void lctx_campaign_options_init(lctx_campaign_options *o);

/// Runs a campaign: prints a header to `out`, minimizes the findings an
/// earlier run left unminimized, prints a live line, stops after `seconds`
/// (or Ctrl-C / SIGTERM: the engines' process groups get SIGINT, SIGKILL
/// 10 s later, and every process they left is killed before it returns),
/// minimizes the new findings, minimizes the corpus with the engine's own
/// pass (minimize.h; not when interrupted: libFuzzer's OUT/corpus in place,
/// AFL++'s main queue into OUT/corpus), saying so with the counts before
/// and after, and writes the summary (to `out` and
/// OUT/summary.txt, ending with a `result:` line) and OUT/state.json.
/// Returns 0 when the campaign directory holds no finding; 1 when it holds
/// some (earlier runs included), when the run was interrupted ("result:
/// INTERRUPTED") or when the engines ran no input ("result: NOTHING RUN",
/// with a message to `err`); 2 for an unknown target, a missing build, a
/// bad corpus or a directory that cannot be created (with a message to
/// `err`).
int lctx_campaign_run(const lctx_campaign_options *o, FILE *out, FILE *err);

#endif /* LCTX_HARNESS_CAMPAIGN_H */
