/*
 * file.h - reading a whole file into memory, with a size limit.
 *
 * Owns the one way lctx reads an input file (a case, a spec table, a rule
 * file, a seed): all of it or nothing, never silently cut, with a message
 * naming the file when it cannot be opened, read, or is over the limit.
 * Also the one way to load such a file: read it whole, then parse it.
 * libc only, so that the fuzz build compiles it.
 */
#ifndef LCTX_CORE_FILE_H
#define LCTX_CORE_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "lctx/str.h"

/// Reads all of `path` (`-` is standard input) into a new buffer of
/// `*length` + 1 bytes, NUL-terminated, that the caller frees. Fails, with
/// `PATH: cannot open: REASON`, `PATH: read error: REASON` or `PATH: file
/// larger than MAX bytes` appended to `error` (may be NULL) and `*text`
/// NULL, when the file cannot be read whole or holds more than `max` bytes.
bool lctx_file_read(const char *path, size_t max, char **text, size_t *length,
                    lctx_buf *error);

/// Parses TEXT (LENGTH bytes, NUL-terminated) read from PATH into OUT;
/// false with a message naming PATH appended to ERROR when it is not valid.
typedef bool (*lctx_file_parser)(const char *text, size_t length,
                                 const char *path, void *out, lctx_buf *error);

/// Reads all of `path` as lctx_file_read does (at most `max` bytes) and
/// gives it to `parse` with `out`; the text is freed before returning. False
/// with lctx_file_read's message, or with the one `parse` gives.
bool lctx_file_parse(const char *path, size_t max, lctx_file_parser parse,
                     void *out, lctx_buf *error);

#endif /* LCTX_CORE_FILE_H */
