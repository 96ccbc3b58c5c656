/*
 * file.h - reading a whole input file into memory, with a size limit.
 *
 * Owns the one way lctx reads an input file (a case, a spec table, a rule
 * file, an --xfail file, a seed): regular files only, all of it or
 * nothing, never silently cut, with a message naming the file when it
 * cannot be opened, is not a regular file, cannot be read, or is over the
 * limit. A FIFO, a device, a socket or a folder is refused at once, without
 * blocking and without reading from it. Also the one way to load such a
 * file: read it whole, then parse it. libc (POSIX) only, so that the fuzz
 * build compiles it.
 */
#ifndef LCTX_CORE_FILE_H
#define LCTX_CORE_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "lctx/str.h"

/// The largest case file any command reads (`lctx eval`, `lctx explain`,
/// `lctx conform --cases`, `lctx encode`): 1 MiB.
#define LCTX_CASE_FILE_MAX ((size_t)1 << 20)

/// Reads all of `path` into a new buffer of `*length` + 1 bytes,
/// NUL-terminated, that the caller frees. `-` is standard input, read as it
/// is (a pipe included). Any other path is opened with O_RDONLY |
/// O_NONBLOCK | O_CLOEXEC and must be a regular file (or a symlink to
/// one). Fails, with `*text` NULL and one of these appended to `error` (may
/// be NULL):
///   PATH: cannot open: REASON
///   PATH: not a regular file (a fifo|a folder|a device|a socket)
///   PATH: read error: REASON
///   PATH: file larger than MAX bytes
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
