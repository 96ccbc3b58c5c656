/*
 * campaign_work.h - the working side of a libFuzzer campaign (campaign.h):
 * the sanitizer options its engines run with, where its working corpus
 * lives and how that reaches OUT/corpus, and the fast mode's triage.
 *
 * Owns:
 * - the engines' ASAN_OPTIONS: the user's own, with
 *   detect_stack_use_after_return=0 appended unless the user set that key
 *   (it costs a fifth of the inputs per second and finds nothing in code
 *   that returns no pointers to its locals);
 * - the working corpus, the folder the engine writes new inputs to: on a
 *   tmpfs (/dev/shm, else $XDG_RUNTIME_DIR) with enough free space, in a
 *   folder of the campaign's own that is removed at the end, else OUT/corpus
 *   itself (or, in fast mode, OUT/tmp/work); forced to the fallback by
 *   `no_tmpfs` or LCTX_FUZZ_NO_TMPFS=1;
 * - the count of the campaign's corpus (OUT/corpus and what is not synced
 *   there yet), the one the live line shows;
 * - the sync of the working corpus to OUT/corpus: every file not taken yet
 *   (and at least a second old, so that it is whole, unless it is the last
 *   sync) is copied there under its own name, through a temporary name and
 *   a rename, so that OUT/corpus never holds half a file;
 * - the fast mode's triage: before it reaches OUT/corpus, every new input of
 *   the fast (sanitizer-free) build is run through the ASan+UBSan build
 *   (several inputs a run, one by one when that run fails); an input that
 *   build flags is written to OUT/artifacts as crash-triage-HASH at once,
 *   where the campaign takes it as a finding (findings.h, keyed by that same
 *   build, its report the sanitizer's), and removed from the working
 *   corpus, whose inputs the campaign counts as its corpus.
 * - the stoppers: an input that stopped a plain libFuzzer process (its
 *   artifact in OUT/artifacts, kept as a finding) is taken out of the
 *   campaign's own corpus folders, so that the restarted process does not
 *   stop on it again while reading its corpus.
 * Every child (the triage runs) goes through peer.h.
 */
#ifndef LCTX_DRIVE_CAMPAIGN_WORK_H
#define LCTX_DRIVE_CAMPAIGN_WORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "seen.h"

/// The option that lctx adds to the user's ASAN_OPTIONS.
#define LCTX_CAMPAIGN_ASAN_ADDED "detect_stack_use_after_return=0"
/// The environment variable that forces the working corpus into --out.
#define LCTX_CAMPAIGN_NO_TMPFS_ENV "LCTX_FUZZ_NO_TMPFS"
/// The prefix of the inputs the triage flags, in OUT/artifacts.
#define LCTX_CAMPAIGN_TRIAGE_PREFIX "crash-triage-"

/// The ASAN_OPTIONS of the engines into `out`: the user's, and
/// LCTX_CAMPAIGN_ASAN_ADDED unless the user set its key. Returns whether
/// lctx added it.
bool lctx_campaign_asan_options(char *out, size_t cap);

/// The texts of an engine's environment (lctx_campaign_engine_env).
typedef struct lctx_campaign_env {
  char text[3][2048];
} lctx_campaign_env;

/// Appends the engine's settings, NAME, VALUE pairs, to `env` from index
/// `n` (room for 20 more) and returns the new count: libFuzzer (`afl_tmp`
/// NULL): ASAN_OPTIONS as lctx_campaign_asan_options; AFL++: its settings,
/// `afl_tmp` as AFL_TMPDIR (where its .cur_input goes), and the user's
/// sanitizer options with the ones afl-fuzz insists on appended. The texts
/// are kept in `store`.
int lctx_campaign_engine_env(const char **env, int n, const char *afl_tmp,
                             lctx_campaign_env *store);

/// A campaign's working corpus and its sync to OUT/corpus.
typedef struct lctx_campaign_work {
  /// The folder the engine writes new inputs to.
  char dir[4200];
  /// The campaign's own folder on the tmpfs, removed at the end ("" when
  /// the working corpus is not on a tmpfs).
  char root[4200];
  /// OUT/corpus, OUT/artifacts and the triage's log (OUT/logs/triage.log).
  char corpus[4200], artifacts[4200], log[4300];
  /// The ASan+UBSan build the fast mode replays inputs through (NULL: not
  /// fast mode).
  const char *triage;
  /// Why the working corpus is not on a tmpfs (when `root` is "").
  char why[256];
  /// The working-corpus files already taken (by path).
  lctx_seen taken;
  /// Inputs copied to OUT/corpus, replayed by the triage, flagged by it.
  size_t synced, triaged, flagged;
  /// When the last sync ran (lctx_sys_now), and how often one runs.
  double last, every;
} lctx_campaign_work;

/// Chooses the working corpus of the campaign OUT (`out_dir`, whose
/// corpus/, artifacts/, logs/ and tmp/ exist) named `token`: a tmpfs with
/// room for twice OUT/corpus and 64 MiB more, unless `no_tmpfs`; `triage`
/// is the fast mode's ASan+UBSan build, or NULL. False after a message to
/// `err` (the folder could not be created).
bool lctx_campaign_work_init(lctx_campaign_work *w, const char *out_dir,
                             const char *token, bool no_tmpfs,
                             const char *triage, FILE *err);

/// Prints where the working corpus is (and why not on a tmpfs) and, in
/// fast mode, what fuzzes (`binary`) and what the triage replays through.
void lctx_campaign_work_describe(const lctx_campaign_work *w,
                                 const char *binary, FILE *out);

/// Whether the engine's new inputs go through the sync (a tmpfs, or the
/// fast mode), not straight into OUT/corpus.
bool lctx_campaign_work_synced(const lctx_campaign_work *w);

/// Syncs the working corpus to OUT/corpus when `every` seconds have passed
/// since the last sync, or at once when `last` (every file, however young).
void lctx_campaign_work_sync(lctx_campaign_work *w, bool last);

/// The inputs of the campaign's corpus: those of OUT/corpus and those of the
/// working corpus not synced there yet, each name once. This is what the
/// corpus minimization at the end starts from once the last sync has run
/// (less what the fast mode's triage flags then).
size_t lctx_campaign_work_count(const lctx_campaign_work *w);

/// After the last sync: removes the tmpfs folder; releases what `w` holds.
void lctx_campaign_work_end(lctx_campaign_work *w);

/// For a guard whose lctx died: copies the working corpus to OUT/corpus
/// unless in fast mode (no triage there: what is not triaged is not kept),
/// then removes the tmpfs folder. Runs no child.
void lctx_campaign_work_abandon(lctx_campaign_work *w);

/// Removes from each folder of `dirs` (NULL-terminated) every file with
/// the bytes of an input of `artifacts` written at `since` or later (not
/// the triage's); returns how many files it removed.
size_t lctx_campaign_drop_stoppers(const char *artifacts, double since,
                                   const char *const *dirs);

#endif /* LCTX_DRIVE_CAMPAIGN_WORK_H */
