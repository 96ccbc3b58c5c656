/*
 * cmd_conform.h - the commands that judge implementations: `lctx conform`
 * (cmd_conform.c) and `lctx mutants` (cmd_mutants.c).
 *
 * Each reads its command line with options.h into the options struct of its
 * library call (drive/conform.h, drive/mutants.h) and returns that call's
 * exit code (exit.h).
 */
#ifndef LCTX_CLI_CMD_CONFORM_H
#define LCTX_CLI_CMD_CONFORM_H

#include <stdio.h>

/// `lctx conform (--impl LIB.so | --cmd "PROGRAM ARGS") [options]`.
int lctx_cmd_conform(int argc, char **argv, FILE *out, FILE *err);

/// `lctx mutants [options]`.
int lctx_cmd_mutants(int argc, char **argv, FILE *out, FILE *err);

#endif /* LCTX_CLI_CMD_CONFORM_H */
