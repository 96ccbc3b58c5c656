/*
 * data_paths.h - where lctx's data and fuzz builds are, resolved once.
 *
 * Owns the one structure that says where every file lctx reads but does not
 * take from its command line is: the spec table, the conformance cases, the
 * seed corpora, the fuzz dictionaries, the regression corpora, the mutant
 * list, the fuzz builds and, for the lctx of a build tree, that build's
 * example plugin and mutant libraries. The command line resolves it at
 * start-up (cli/data.h: $LCTX_DATA_DIR, the build tree's source tree, or the
 * installation's share/lctx; $LCTX_FUZZ_BUILD, the source tree's build/fuzz
 * and build/afl, or the installation's libexec/lctx) and hands it to the
 * drive calls that need it (campaign.h, minimize.h, replay.h, mutants.h).
 * Nothing here reads the environment, and no path of the machine that
 * built lctx is compiled in.
 */
#ifndef LCTX_DRIVE_DATA_PATHS_H
#define LCTX_DRIVE_DATA_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/// The longest path a field holds (with its NUL).
#define LCTX_DATA_PATH_MAX 4096

/// Where the data folder keeps each kind of data (laid out as the source
/// tree, and as `cmake --install` lays out PREFIX/share/lctx).
#define LCTX_DATA_SPEC "conformance/spec/backend-selection.lspec"
#define LCTX_DATA_CASES "conformance/cases"
#define LCTX_DATA_SEEDS "corpus/seeds"
#define LCTX_DATA_DICTS "fuzzers/dict"
#define LCTX_DATA_REGRESSIONS "corpus/regressions"
#define LCTX_DATA_MUTANTS "conformance/mutants/MUTANTS"

/// Where lctx's data and fuzz builds are. Every field is a path ("" when
/// unknown), never cut: a path that does not fit is refused when resolved.
typedef struct lctx_data_paths {
  /// The data folder ("" when none holds the spec table).
  char dir[LCTX_DATA_PATH_MAX];
  /// Whether `dir` is the source tree (the lctx of a build tree).
  bool source_tree;
  /// The spec table ($LCTX_SPEC, else DIR/LCTX_DATA_SPEC).
  char spec[LCTX_DATA_PATH_MAX];
  /// The conformance cases folder ($LCTX_CASES, else DIR/LCTX_DATA_CASES).
  char cases[LCTX_DATA_PATH_MAX];
  /// The seed corpora, one folder per target (DIR/LCTX_DATA_SEEDS).
  char seeds[LCTX_DATA_PATH_MAX];
  /// The fuzz dictionaries, TARGET.dict (DIR/LCTX_DATA_DICTS).
  char dicts[LCTX_DATA_PATH_MAX];
  /// The regression corpora, one folder per target
  /// (DIR/LCTX_DATA_REGRESSIONS): where `lctx promote` keeps a finding.
  char regressions[LCTX_DATA_PATH_MAX];
  /// The mutant list (DIR/LCTX_DATA_MUTANTS).
  char mutants_list[LCTX_DATA_PATH_MAX];
  /// The folders of the libFuzzer builds (TARGET) and of the AFL++ builds
  /// (TARGET_afl), and whence each came, for messages (e.g. "the
  /// installation's libexec/lctx").
  char fuzz_build[LCTX_DATA_PATH_MAX];
  char afl_build[LCTX_DATA_PATH_MAX];
  char fuzz_build_from[128];
  char afl_build_from[128];
  /// The build tree's example plugin and mutant libraries ("" for an
  /// installed lctx).
  char example_plugin[LCTX_DATA_PATH_MAX];
  char mutants_dir[LCTX_DATA_PATH_MAX];
  /// Where `lctx run` writes its reports: the source tree's build/ in a
  /// build tree, else lctx-run (in the working folder).
  char work[LCTX_DATA_PATH_MAX];
} lctx_data_paths;

/// Writes DIR/NAME (or NAME alone when DIR is "") into `out` (`cap` bytes).
/// False, with `out` empty, when it does not fit.
bool lctx_data_join(char *out, size_t cap, const char *dir, const char *name);

/// The build of fuzz target `target` for the engine (AFL++ when `afl`):
/// FUZZ_BUILD/TARGET or AFL_BUILD/TARGET_afl, into `out`. False, with `out`
/// empty, when it does not fit or no folder is known.
bool lctx_data_fuzz_binary(const lctx_data_paths *d, const char *target,
                           bool afl, char *out, size_t cap);

/// Makes `d` (which must outlive every later call) the paths that the drive
/// layer's defaults use (sys.h's default spec table and cases, for a caller
/// that sets none): the command line does it once, after resolving them.
void lctx_data_paths_use(const lctx_data_paths *d);

/// The paths given to lctx_data_paths_use; before that, paths relative to
/// the working folder (LCTX_DATA_SPEC, LCTX_DATA_CASES, ...).
const lctx_data_paths *lctx_data_paths_current(void);

#endif /* LCTX_DRIVE_DATA_PATHS_H */
