/*
 * cmd_campaign.h - the fuzz campaign commands: `lctx fuzz` (cmd_fuzz.c),
 * `lctx replay` (cmd_replay.c) and `lctx promote` (cmd_promote.c).
 *
 * Each declares its options with options.h, hands them to the drive layer
 * (campaign.h, replay.h) and returns its exit code (cli.h).
 */
#ifndef LCTX_CLI_CMD_CAMPAIGN_H
#define LCTX_CLI_CMD_CAMPAIGN_H

#include <stdio.h>

/// `lctx fuzz --engine libfuzzer|afl --target NAME --time SECONDS [--jobs N]
/// [--corpus DIR] [--out DIR] [--binary PATH]`: a campaign
/// (lctx_campaign_run).
int lctx_cmd_fuzz(int argc, char **argv, FILE *out, FILE *err);

/// `lctx replay [--target NAME] [--verbose] FILE|DIR...`: inputs through
/// their target's check (lctx_replay_run).
int lctx_cmd_replay(int argc, char **argv, FILE *out, FILE *err);

/// `lctx promote [--name NAME] [--target T] [--to DIR] FINDING`: a finding
/// kept as a regression input (lctx_replay_promote).
int lctx_cmd_promote(int argc, char **argv, FILE *out, FILE *err);

#endif /* LCTX_CLI_CMD_CAMPAIGN_H */
