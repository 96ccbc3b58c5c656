/*
 * sweep_files.h - recorded sweep case files read back: judged offline by
 * the sweep rows (`lctx sweep --judge`) or exported again through the
 * program (`lctx sweep --replay`). Writing them is sweep_record.h's.
 */
#ifndef LCTX_DRIVE_SWEEP_FILES_H
#define LCTX_DRIVE_SWEEP_FILES_H

#include "sweep_options.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/// Judges the recorded answers of sweep case files (a file, or every
/// `*.json` of a folder) by the table, offline: each file's verdicts must
/// be its `expect` list exactly. Exit codes as lctx_sweep_run.
int lctx_sweep_judge_files(const char *spec_path, const char *const *paths,
                           size_t n, bool quiet, FILE *out, FILE *err);

/// Exports the program and platform lists of recorded case files again
/// through `o->command` and judges them: every verdict a file expects
/// must be found again (a known defect still there); a missing one is a
/// failure that names it ("fixed, or changed").
int lctx_sweep_replay(const lctx_sweep_options *o, const char *const *paths,
                      size_t n, FILE *out, FILE *err);

#endif /* LCTX_DRIVE_SWEEP_FILES_H */
