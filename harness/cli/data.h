/*
 * data.h - where the running lctx finds its data and fuzz builds: resolved
 * once, at start-up, into the lctx_data_paths of process/data_paths.h that the
 * commands hand to the drive calls.
 *
 * Owns the only reads of the variables a user sets to move them
 * ($LCTX_DATA_DIR, $LCTX_SPEC, $LCTX_CASES, $LCTX_FUZZ_BUILD) and the
 * messages saying where lctx looked. No path of the machine that built lctx
 * is compiled in: the lctx of a build tree learns its source tree from the
 * file LCTX_BUILD_TREE_FILE beside it (written by CMake, never installed);
 * an installed lctx reads PROGRAM_DIR/../share/lctx and
 * PROGRAM_DIR/../libexec/lctx.
 */
#ifndef LCTX_CLI_DATA_H
#define LCTX_CLI_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "data_paths.h"

/// The file beside the build tree's lctx naming its trees, one `KEY=PATH` a
/// line: source, binary, example_plugin, mutants_dir.
#define LCTX_BUILD_TREE_FILE "lctx-build-tree.txt"

/// What LCTX_BUILD_TREE_FILE says ("" for a key it does not give).
typedef struct lctx_build_tree {
  char source[LCTX_DATA_PATH_MAX];
  char binary[LCTX_DATA_PATH_MAX];
  char example_plugin[LCTX_DATA_PATH_MAX];
  char mutants_dir[LCTX_DATA_PATH_MAX];
} lctx_build_tree;

/// Reads the build tree file `path` into `t` (zeroed first). False when it
/// cannot be read or holds a path that does not fit (`t` is then zeroed).
bool lctx_data_read_build_tree(const char *path, lctx_build_tree *t);

/// The folder lctx reads its data from, laid out as the source tree: the
/// spec table (LCTX_DATA_SPEC under it), the conformance cases, the seeds,
/// the dictionaries, the regressions. The first that holds the spec table
/// of:
///   1. $LCTX_DATA_DIR (then no other: a wrong one is an error);
///   2. the source tree (`source_dir`, NULL or "" when unknown), when the
///      running program lies under the build tree (`binary_dir`);
///   3. `../share/lctx` from the running program's folder (/proc/self/exe),
///      as `cmake --install` lays it out.
/// Writes the folder to `dir`. False, after a message naming every place
/// looked at on `err`, when none holds the table; `dir` is then the folder
/// that was to hold it ($LCTX_DATA_DIR, else `../share/lctx`; empty when the
/// running program is unknown), so that commands fail naming it rather than
/// read a source tree that happens to be there. `err` NULL: no message.
bool lctx_data_find_dir(const char *source_dir, const char *binary_dir,
                        char *dir, size_t size, FILE *err);

/// Resolves every path of `d` for the program running, with the build tree
/// file beside it (if any): the data folder (lctx_data_find_dir), the spec
/// table and cases ($LCTX_SPEC and $LCTX_CASES first), the fuzz builds
/// ($LCTX_FUZZ_BUILD, else the source tree's build/fuzz/fuzzers and
/// build/afl/fuzzers, else PROGRAM_DIR/../libexec/lctx). False after a
/// message on `err` when no data folder holds the spec table, or a path
/// does not fit (that field is then empty).
bool lctx_data_resolve(lctx_data_paths *d, FILE *err);

/// At start-up: lctx_data_resolve into the paths lctx_data() returns (and
/// process/data_paths.h's defaults). Prints `lctx: warning: ...` on `err`
/// when no folder holds the spec table; commands given --spec and --cases
/// are unaffected.
void lctx_data_start(FILE *err);

/// The paths resolved by lctx_data_start (before it: relative ones).
const lctx_data_paths *lctx_data(void);

/// The build of `target` for the engine ("afl" or else libFuzzer) that a
/// command uses when not given one, into `out`: false after a message
/// `lctx WHO: no ENGINE build of TARGET: PATH ...` naming where it looked
/// and how to get one (`option`: the command's option that names one).
bool lctx_data_fuzz_build(const lctx_data_paths *d, const char *who,
                          const char *target, const char *engine,
                          const char *option, char *out, size_t cap, FILE *err);

/// The seed corpus of `target` (a folder) and, when `dict` is not NULL,
/// its dictionary (a file) from the data folder, into `seeds` and `dict`:
/// false after a message naming what is missing and where it looked.
bool lctx_data_fuzz_inputs(const lctx_data_paths *d, const char *who,
                           const char *target, char *seeds, char *dict,
                           size_t cap, FILE *err);

#endif /* LCTX_CLI_DATA_H */
