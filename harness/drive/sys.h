/*
 * sys.h - what the drive layer asks of the operating system.
 *
 * Owns the clock, memory for a command's state, files and directories (kinds,
 * writing a whole file, reading the end of a log, listing a directory, creating
 * directory paths), the default locations of the spec table and the conformance
 * cases, and catching Ctrl-C (SIGINT, SIGTERM) as a request to stop (child
 * processes are peer.h's). Reading a whole file is
 * core/base/file.h's. Also removing a directory tree, and signalling the
 * processes whose environment carries a mark (what a child left running).
 */
#ifndef LCTX_DRIVE_SYS_H
#define LCTX_DRIVE_SYS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/// Seconds on the monotonic clock (for durations only).
double lctx_sys_now(void);

/// Sleeps `seconds` (fractions allowed).
void lctx_sys_sleep(double seconds);

/// `size` bytes of zeroed memory (free them), or NULL with "WHO: out of
/// memory" written on `err`.
void *lctx_sys_alloc(size_t size, const char *who, FILE *err);

/// Whether `path` is a directory (links followed).
bool lctx_sys_is_dir(const char *path);

/// Whether `path` is a regular file (links followed).
bool lctx_sys_is_file(const char *path);

/// Writes `size` bytes to `path`, created or truncated. Returns false when
/// they cannot all be written.
bool lctx_sys_write_file(const char *path, const void *data, size_t size);

/// Reads the last `cap` - 1 bytes of `path` (all of it when shorter) into
/// `buf`, NUL-terminated: the end of a log that keeps growing. Returns the
/// number of bytes read; 0 (and "") when it cannot be read.
size_t lctx_sys_read_tail(const char *path, char *buf, size_t cap);

/// Reads one line of `f` into `buf` (at most `cap` - 1 bytes,
/// NUL-terminated, without its newline): its length, or -1 at the end of
/// the file. `*over` says the line was longer: the rest of it is skipped,
/// never held, so that a reader's memory stays bounded whatever the file.
long lctx_sys_read_line(FILE *f, char *buf, size_t cap, bool *over);

/// Calls `visit(user, PATH)` for each entry of `dir` (file, folder or
/// other) whose name does not start with '.', in the order the directory
/// lists them; PATH is `dir/NAME`. A directory that cannot be opened has
/// none.
void lctx_sys_each_entry(const char *dir,
                         void (*visit)(void *user, const char *path),
                         void *user);

/// lctx_sys_each_entry for the regular files only (not those of
/// subdirectories).
void lctx_sys_each_file(const char *dir,
                        void (*visit)(void *user, const char *path),
                        void *user);

/// The number of entries lctx_sys_each_entry visits.
size_t lctx_sys_count_entries(const char *dir);

/// Creates `path` and its missing parents (like `mkdir -p`). Returns false
/// with errno set when a component cannot be created.
bool lctx_sys_mkdir_p(const char *path);

/// Removes `path` and, when it is a directory, everything under it (links
/// are removed, not followed). Returns false with errno set when something
/// could not be removed; a `path` that does not exist is not an error.
bool lctx_sys_remove_tree(const char *path);

/// The spec table used when no --spec is given: that of the data paths the
/// command line resolved (data_paths.h: $LCTX_SPEC, else the data
/// folder's).
const char *lctx_sys_default_spec_path(void);

/// The conformance case directory used when no --cases is given (the data
/// paths': $LCTX_CASES, else the data folder's).
const char *lctx_sys_default_cases_path(void);

/// Sends `sig` to every process but this one whose environment, as it was
/// started, holds the entry `entry` (NAME=VALUE), as far as /proc shows
/// them (processes that ended, zombies and other users' are not seen).
/// Returns how many were signalled.
size_t lctx_sys_signal_marked(const char *entry, int sig);

/// Takes DIR/.lock for this process (an exclusive flock, released when the
/// process ends) and writes "WHO, pid N, started DATE" into it. Returns the
/// descriptor to keep open for as long as DIR is in use, or -1: with
/// `*busy` true and the holder's line in `holder` when another process
/// holds it, else with errno set.
int lctx_sys_lock_dir(const char *dir, const char *who, bool *busy,
                      char *holder, size_t cap);

/// The resident memory of process `pid` in bytes (from /proc/PID/statm),
/// or 0 when it cannot be read.
double lctx_sys_resident_bytes(pid_t pid);

/// Opens /proc/PID/statm of process `pid` (close-on-exec) for
/// lctx_sys_resident_bytes_at, so that a process watched often is read
/// without a path look-up each time; -1 when it cannot. The descriptor
/// stands for that process, not its number: once the process is reaped,
/// reads fail instead of reading another that took the number.
int lctx_sys_statm_open(pid_t pid);

/// The resident memory in bytes read from a descriptor of
/// lctx_sys_statm_open, or 0 when it cannot be read.
double lctx_sys_resident_bytes_at(int fd);

/// The actions SIGINT and SIGTERM had before lctx_sys_catch_interrupts.
typedef struct lctx_sys_interrupts {
  struct sigaction old_int, old_term;
} lctx_sys_interrupts;

/// From now on SIGINT and SIGTERM do not end the process: they make
/// lctx_sys_interrupted() true. Clears an earlier interruption and keeps
/// the actions they had in `saved`.
void lctx_sys_catch_interrupts(lctx_sys_interrupts *saved);

/// Whether SIGINT or SIGTERM arrived since lctx_sys_catch_interrupts.
bool lctx_sys_interrupted(void);

/// Gives SIGINT and SIGTERM back the actions kept in `saved`.
void lctx_sys_release_interrupts(const lctx_sys_interrupts *saved);

/// A reader of a child's input stream, many records a read: the
/// descriptor is made non-blocking, and `idle(user)` runs whenever no more
/// input came yet, before the reader waits for it (a child writes what it
/// holds back there, so that its answers never wait on its next question).
typedef struct lctx_sys_reader {
  int fd;
  void (*idle)(void *user);
  void *user;
  uint8_t *buf;
  size_t capacity, at, length;
} lctx_sys_reader;

/// Sets `r` up over `fd` with the buffer `buf` of `capacity` bytes.
void lctx_sys_reader_init(lctx_sys_reader *r, int fd, uint8_t *buf,
                          size_t capacity, void (*idle)(void *), void *user);

/// Reads exactly `n` bytes into `dst`; false at the end of the stream or on
/// an error.
bool lctx_sys_reader_read(lctx_sys_reader *r, void *dst, size_t n);

#endif /* LCTX_DRIVE_SYS_H */
