/*
 * seal.h - results files lctx alone writes, and how a later run tells
 * lctx's lines from anything else.
 *
 * Owns the key store (a private folder outside every report folder:
 * $LCTX_STATE_DIR, else $XDG_STATE_HOME/lctx, else $HOME/.local/state/lctx;
 * one 0600 file of 32 random bytes per run, named by the run's random id),
 * the writer of a results file (every byte it writes goes into a running
 * HMAC-SHA256 under the run's key), the seal file beside it (the run id,
 * the length sealed and the HMAC of those bytes, replaced whole after each
 * flush), reading a sealed file back (resume: only the sealed bytes are
 * trusted) and the check at the end of a run that the file at its path is
 * still the one written, byte for byte.
 */
#ifndef LCTX_HARNESS_SEAL_H
#define LCTX_HARNESS_SEAL_H

#include "sha256.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/// A run id: 32 lowercase hex digits (16 random bytes), with its NUL.
#define LCTX_SEAL_ID_SIZE 33
/// A key: 32 random bytes.
#define LCTX_SEAL_KEY_SIZE 32
#define LCTX_SEAL_PATH_MAX 4200

/// A new random run id and key (getrandom); false with why.
bool lctx_seal_new_run(char id[LCTX_SEAL_ID_SIZE],
                       uint8_t key[LCTX_SEAL_KEY_SIZE], char *why, size_t n);
/// Whether `id` is a run id (32 lowercase hex digits).
bool lctx_seal_is_id(const char *id);

/// The key store's folder into `dst`; false with why (no HOME).
bool lctx_seal_store_dir(char *dst, size_t n, char *why, size_t why_n);
/// lctx_seal_store_dir, made (private: 0700 and ours) when missing.
bool lctx_seal_store_make(char *dst, size_t n, char *why, size_t why_n);
/// Keeps `key` as run `id`'s in the key store (the folder made private
/// first); false with why.
bool lctx_seal_store_key(const char *id, const uint8_t key[LCTX_SEAL_KEY_SIZE],
                         char *why, size_t n);
/// Run `id`'s key from the key store; false with why (missing, unreadable).
bool lctx_seal_load_key(const char *id, uint8_t key[LCTX_SEAL_KEY_SIZE],
                        char *why, size_t n);
/// Removes run `id`'s key (a run that is over for good).
void lctx_seal_drop_key(const char *id);

/// A results file being written.
typedef struct lctx_seal_writer {
  int fd;
  int error;       ///< errno of the first failed write, 0: none
  uint64_t length; ///< bytes written
  lctx_hmac256 mac;
  char path[LCTX_SEAL_PATH_MAX];      ///< where the file is
  char seal_path[LCTX_SEAL_PATH_MAX]; ///< its seal; "": none kept
  char id[LCTX_SEAL_ID_SIZE];
} lctx_seal_writer;

/// Creates (or truncates) `path` as lctx writes its files (no link
/// followed, a regular file), to be sealed under `key` as run `id` in
/// `seal_path` (NULL: the bytes are checked at the end only). NULL with
/// errno set.
lctx_seal_writer *lctx_seal_create(const char *path, const char *seal_path,
                                   const char *id,
                                   const uint8_t key[LCTX_SEAL_KEY_SIZE]);
/// Writes `n` bytes (all of them, or false with w->error set).
bool lctx_seal_write(lctx_seal_writer *w, const void *data, size_t n);
/// Renames the file to `path` (w->path follows).
bool lctx_seal_rename(lctx_seal_writer *w, const char *path);
/// Replaces the seal file with the length and HMAC of what was written;
/// false with errno set.
bool lctx_seal_commit(const lctx_seal_writer *w);
/// Whether the file at w->path is still the one written: the same file
/// (device and inode), the same length and the same bytes. False with why
/// ("results.jsonl was altered during the run by another process (N bytes
/// not written by lctx)").
bool lctx_seal_check(const lctx_seal_writer *w, char *why, size_t n);
/// Closes the file (the seal stays); false when the close failed.
bool lctx_seal_close(lctx_seal_writer *w);

/// What a sealed file read back holds.
typedef enum lctx_seal_status {
  LCTX_SEAL_OK,           ///< its sealed part is lctx's
  LCTX_SEAL_UNVERIFIABLE, ///< no seal, or a seal of another run
  LCTX_SEAL_ALTERED,      ///< its sealed part is not what lctx wrote
} lctx_seal_status;

/// Reads `f` (from its start) against the seal at `seal_path` of run `id`
/// under `key`: each line of the sealed part (without its newline) goes to
/// `each` only once all of it is verified (lines in memory meanwhile);
/// `*dropped` counts the lines after it, which are not trusted. Why in
/// `why` unless OK.
lctx_seal_status lctx_seal_read(FILE *f, const char *seal_path, const char *id,
                                const uint8_t key[LCTX_SEAL_KEY_SIZE],
                                void (*each)(void *ctx, const char *line),
                                void *ctx, size_t *dropped, char *why,
                                size_t n);

/// The SHA-256 of the file at `path` as hex (links followed, a regular
/// file only); false when it cannot be read.
bool lctx_seal_file_sha256(const char *path, char hex[LCTX_SHA256_HEX]);

#endif /* LCTX_HARNESS_SEAL_H */
