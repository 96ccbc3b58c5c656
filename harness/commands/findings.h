/*
 * findings.h - the findings of a fuzz campaign: keys, duplicates, the files
 * that explain and reproduce each one, and the targets they belong to.
 *
 * Owns the semantic key of an input, computed by running it once through the
 * engine's own build (the LCTX-FINDING line the target prints, else a
 * sanitizer's kind from its SUMMARY line and the functions of its top three
 * frames from its DEDUP_TOKEN line, never a path, else how the process
 * ended); turning each crash
 * input an engine writes into a finding directory OUT/findings/KEY/ (input,
 * key.txt, minimized, report.txt, reproduce.txt, and `unminimized` while
 * minimize.h has not shrunk it) unless that key has one already (a
 * duplicate); the index of a campaign's findings (how many, how many wait
 * to be minimized, earlier runs included); and which fuzz target a name or a
 * path means.
 */
#ifndef LCTX_DRIVE_FINDINGS_H
#define LCTX_DRIVE_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fuzzcheck.h"
#include "seen.h"

/// The largest input a finding may hold (bytes).
#define LCTX_FINDINGS_MAX_INPUT (1 << 20)
/// How many new findings of one run are remembered (and minimized).
#define LCTX_FINDINGS_MAX_NEW 64

/// The findings of one campaign directory, and how their keys are computed.
typedef struct lctx_findings {
  const lctx_fuzz_target *target;
  /// "libfuzzer" or "afl", and the engine's build (for report.txt).
  const char *engine;
  const char *binary;
  /// OUT/findings, and OUT/logs (the key runs' output, trial inputs).
  char dir[4200];
  char logs[4200];
  /// Runs one input and prints LCTX-FINDING: the engine binary itself for
  /// libFuzzer (it runs file arguments once), the replay driver beside it
  /// for AFL++, else the AFL++ build (libAFLDriver runs file arguments once
  /// too).
  char key_runner[4096];
  /// The key runner reads its input on standard input (no longer set by
  /// lctx_findings_init; kept for callers that set it).
  bool runner_reads_stdin;
  /// The crash files already taken (by path).
  lctx_seen crashes_seen;
  /// This run: crash inputs taken, new findings, duplicates.
  size_t total, fresh, duplicates;
  /// The first LCTX_FINDINGS_MAX_NEW new findings: directory and key.
  char new_dirs[LCTX_FINDINGS_MAX_NEW][4300];
  char new_keys[LCTX_FINDINGS_MAX_NEW][512];
} lctx_findings;

/// Sets up the findings of the campaign directory `out_dir` (whose findings/
/// and logs/ folders must exist) for `target` under `engine` ("libfuzzer"
/// or "afl") with the build `binary`; `engine` and `binary` must outlive
/// `f`.
void lctx_findings_init(lctx_findings *f, const lctx_fuzz_target *target,
                        const char *engine, const char *binary,
                        const char *out_dir);

/// Releases what `f` holds.
void lctx_findings_free(lctx_findings *f);

/// Takes a file of an engine's crash folder, once per path: only crash,
/// leak, timeout and OOM inputs count (libFuzzer's crash-, leak-,
/// timeout-, oom- names; AFL++'s id: names). A key without a finding yet
/// makes a new one, recorded as unminimized (minimized is the input until
/// minimize.h shrinks it); an input that does not fail again is kept under
/// TARGET/not-reproduced/HASH, never minimized.
void lctx_findings_take(lctx_findings *f, const char *path);

/// The file of a finding directory whose presence records that the finding
/// waits to be minimized (its `minimized` is the input as found).
#define LCTX_FINDINGS_UNMINIMIZED "unminimized"

/// Whether the finding directory `dir` waits to be minimized.
bool lctx_findings_unminimized(const char *dir);

/// Records whether the finding directory `dir` has been minimized (removes
/// or writes LCTX_FINDINGS_UNMINIMIZED). Returns false when the record
/// cannot be changed.
bool lctx_findings_set_minimized(const char *dir, bool minimized);

/// The number of findings of the campaign directory that wait to be
/// minimized, earlier runs included.
size_t lctx_findings_count_unminimized(const lctx_findings *f);

/// The key of the input file `input` (at most `cap` bytes with the NUL).
/// Returns false when the input does not fail. When `log` is not NULL it
/// receives the run's output (malloc'd, NUL-terminated, the caller frees; an
/// empty string when there is none).
bool lctx_findings_key(const lctx_findings *f, const char *input, char *key,
                       size_t cap, char **log);

/// lctx_findings_key of bytes (written to OUT/logs/trial.bin first).
bool lctx_findings_key_of_bytes(const lctx_findings *f, const uint8_t *data,
                                size_t size, char *key, size_t cap);

/// Writes the finding directory `dir`'s minimized input (`size` bytes),
/// report.txt (key, who found it from `source`, `original` -> `size` bytes,
/// and the minimized input's run) and reproduce.txt (the commands that
/// reproduce it and keep it as a regression).
void lctx_findings_write(const lctx_findings *f, const char *dir,
                         const char *key, const char *source, size_t original,
                         const uint8_t *minimized, size_t size);

/// The first command of the finding directory `dir`'s reproduce.txt (its
/// first line that is not a comment: the build that found it, run on the
/// minimized input) into `buf` (`n` bytes), as written there (unescaped).
/// False when there is none or it does not fit.
bool lctx_findings_reproduce_line(const char *dir, char *buf, size_t n);

/// The number of findings in the campaign directory, earlier runs included.
size_t lctx_findings_count(const lctx_findings *f);

/// The key as a file name: '/' becomes "__", and every character but
/// letters, digits, '-', '.' and '=' becomes '_'.
void lctx_findings_dirname(const char *key, char *out, size_t cap);

/// The names of fuzzcheck.h's table of targets, in its order, each after
/// the first preceded by `sep` (e.g. ", " or "|"), into `out` (`cap`
/// bytes, cut to fit): the one list every message and usage names.
void lctx_findings_target_names(const char *sep, char *out, size_t cap);

/// The target a path belongs to: the first of fuzzcheck.h's table whose
/// name it contains. NULL if none.
const lctx_fuzz_target *lctx_findings_target_of_path(const char *path);

#endif /* LCTX_DRIVE_FINDINGS_H */
