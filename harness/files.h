/*
 * files.h - the few file-system helpers the commands share.
 *
 * Owns creating directory paths; nothing else.
 */
#ifndef LCTX_HARNESS_FILES_H
#define LCTX_HARNESS_FILES_H

#include <stdbool.h>

/// Creates `path` and its missing parents (like `mkdir -p`). Returns false
/// with errno set when a component cannot be created.
bool lctx_mkdir_p(const char *path);

#endif /* LCTX_HARNESS_FILES_H */
