/*
 * dirlist.h - the files of a directory that a command reads in turn (the
 * `*.case` files of `lctx eval DIR`, the `*.rule` files of `lctx lint
 * DIR`): their paths, sorted by name.
 */
#ifndef LCTX_CLI_DIRLIST_H
#define LCTX_CLI_DIRLIST_H

#include <stddef.h>

/// The paths `DIR/NAME` of the entries of `dir` whose names end in `suffix`
/// and are longer than it, sorted by name: a NULL-terminated array for
/// lctx_dirlist_free, with `*count` entries. NULL, with errno set, when
/// `dir` cannot be read or memory runs out.
char **lctx_dirlist_read(const char *dir, const char *suffix, size_t *count);

/// Frees an array from lctx_dirlist_read (NULL is fine).
void lctx_dirlist_free(char **paths);

#endif /* LCTX_CLI_DIRLIST_H */
