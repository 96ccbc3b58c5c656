/*
 * campaign.h - fuzz campaigns a person can run and read: `lctx fuzz`,
 * `lctx replay`, `lctx promote`.
 *
 * Owns starting the engines (libFuzzer in fork mode, or AFL++ main and
 * secondary instances) as child processes, the live progress line,
 * collecting crash inputs into findings keyed semantically (so duplicates
 * collapse), minimizing each finding in-process with the same check the
 * targets run (fuzzcheck.h), and writing the command that reproduces it.
 * A campaign directory holds everything and can be resumed:
 *
 *   OUT/corpus/              the working corpus (libFuzzer), kept
 *   OUT/afl/                 AFL++ sync directory (main + secondaries), kept
 *   OUT/artifacts/           raw crash inputs from the engines
 *   OUT/logs/                engine output
 *   OUT/findings/KEY/        input, minimized, report.txt, reproduce.txt
 *   OUT/summary.txt          the last summary
 */
#ifndef LCTX_HARNESS_CAMPAIGN_H
#define LCTX_HARNESS_CAMPAIGN_H

#include <stdio.h>

int lctx_cmd_fuzz(int argc, char **argv, FILE *out, FILE *err);
int lctx_cmd_replay(int argc, char **argv, FILE *out, FILE *err);
int lctx_cmd_promote(int argc, char **argv, FILE *out, FILE *err);

#endif /* LCTX_HARNESS_CAMPAIGN_H */
