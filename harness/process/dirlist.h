/*
 * dirlist.h - the files of a folder that a command reads in turn (the
 * `*.case` files of `lctx eval DIR` and `lctx conform --cases DIR`, the
 * `*.rule` files of `lctx lint DIR`): their paths, sorted by name.
 *
 * Owns the one folder-listing rule: regular files only (and symlinks to
 * them), at most LCTX_MAX_FOLDER_FILES of them, and a failure naming the
 * folder, never a silent cut.
 */
#ifndef LCTX_DRIVE_DIRLIST_H
#define LCTX_DRIVE_DIRLIST_H

#include <stddef.h>

#include "lctx/str.h"

/// The most files a listing holds; one more is an error.
#define LCTX_MAX_FOLDER_FILES 100000

/// The files of DIR whose names end in SUFFIX, as "DIR/NAME" paths,
/// sorted, NULL-terminated; *count of them. NULL with a message naming DIR
/// in ERROR when DIR cannot be read, is not a folder, or holds more than
/// LCTX_MAX_FOLDER_FILES such files. Only regular files (and symlinks to
/// them) are listed; others are skipped. The messages:
///   DIR: cannot read folder: REASON
///   DIR: not a folder
///   DIR: more than 100000 *SUFFIX files
///   DIR: out of memory
char **lctx_dirlist_read(const char *dir, const char *suffix, size_t *count,
                         lctx_buf *error);

/// Frees an array from lctx_dirlist_read (NULL is fine).
void lctx_dirlist_free(char **paths);

#endif /* LCTX_DRIVE_DIRLIST_H */
