/*
 * sys.h - what the drive layer asks of the operating system.
 *
 * Owns the clock, memory for a command's state, files and directories (kinds,
 * the one way lctx opens a file of its folders: never through a link, a
 * regular file only, never blocking; writing a whole file, reading the end of
 * a log, listing a directory, creating directory paths), the default locations
 * of the spec table and the conformance cases, and catching Ctrl-C (SIGINT,
 * SIGTERM) and every other signal a process may send as a request to stop
 * (child processes are peer.h's). Reading a whole file is core/base/file.h's.
 * Also removing a directory tree.
 *
 * Errors (the convention of every layer of lctx): a function that can fail
 * returns bool (false on failure) or a pointer (NULL on failure) and, when
 * the caller needs the reason, takes `lctx_buf *error` last and writes
 * there one line naming what failed (the file, the field), without a
 * "lctx: " prefix; it never prints. errno is read only in process/sys.c.
 * Only cli/ prints errors and picks exit codes. Not yet converted here:
 * the file functions that leave their reason in errno (read with
 * lctx_sys_file_error), lctx_sys_alloc (FILE *err) and the lock functions
 * (why/cap, -1).
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

/// The working folder into `dst` (n bytes); false (dst "") when it cannot
/// be read or is longer.
bool lctx_sys_cwd(char *dst, size_t n);

/// Writes `size` bytes to `path`, created or truncated, opened as
/// lctx_sys_open_file opens it (no link followed, a regular file only).
/// Returns false, with errno set, when they cannot all be written.
bool lctx_sys_write_file(const char *path, const void *data, size_t size);

/// Opens `path` as lctx opens every file it writes or reads back in its
/// own folders: with O_CLOEXEC and O_NOCTTY, a symbolic link as its last
/// name never followed (unless `follow`: an input file the user named),
/// and what is opened must be a regular file. `flags` are open(2)'s
/// (O_RDONLY; O_WRONLY | O_CREAT, with O_TRUNC or O_APPEND); O_TRUNC is
/// applied only once the file is known to be a regular one. The open never
/// blocks (a FIFO is opened with O_NONBLOCK, then refused). Returns the
/// descriptor (blocking again), or -1 with errno set: ELOOP for a link,
/// EISDIR for a folder, ESPIPE for a FIFO, ENODEV for a device, ENXIO for a
/// socket; lctx_sys_file_error says each in words.
int lctx_sys_open_file(const char *path, int flags, bool follow);

/// lctx_sys_open_file as a stream: `mode` is "r", "w" or "a" (a "b" is
/// ignored), links not followed. NULL with errno set.
FILE *lctx_sys_fopen_in(const char *path, const char *mode);

/// lctx_sys_open_file for reading an input file the user named: a link
/// followed, a regular file only, never blocking. NULL with errno set.
FILE *lctx_sys_fopen_input(const char *path);

/// The reason for `errnum` after lctx_sys_open_file: its own errors in
/// words ("a symbolic link, not followed", "not a regular file (a FIFO)"),
/// strerror's otherwise.
const char *lctx_sys_file_error(int errnum);

/// Creates the folder `path` inside a folder lctx writes (a finding's
/// folder), its parent being there already: an existing folder is fine, a
/// link or anything else in its place is not (false, errno ELOOP or
/// ENOTDIR).
bool lctx_sys_mkdir_in(const char *path);

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

/// Takes DIR/.lock for this process (an exclusive flock, released when the
/// process ends) and writes "WHO, pid N, started DATE" into it. Returns the
/// descriptor to keep open for as long as DIR is in use, or -1: with
/// `*busy` true and the holder's line in `holder` when another process
/// holds it, else with errno set.
int lctx_sys_lock_dir(const char *dir, const char *who, bool *busy,
                      char *holder, size_t cap);

/// lctx_sys_lock_dir for a command's folder, named on its command line by
/// `option` (e.g. "--out"): the descriptor, or -1 with why in `why`,
/// escaped ("OPTION DIR is in use by another run (HOLDER); wait for it or
/// choose another folder", or "DIR/.lock: REASON").
int lctx_sys_lock_run_dir(const char *dir, const char *who, const char *option,
                          char *why, size_t cap);

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

/// The signals lctx_sys_catch_interrupts takes over, numbered 1 to 64.
#define LCTX_SYS_SIGNALS 65

/// The actions the signals had before lctx_sys_catch_interrupts.
typedef struct lctx_sys_interrupts {
  struct sigaction old[LCTX_SYS_SIGNALS];
  bool taken[LCTX_SYS_SIGNALS];
} lctx_sys_interrupts;

/// From now on no signal that another process may send (a child of
/// lctx's included) ends the process: SIGINT, SIGTERM, SIGHUP, SIGQUIT,
/// SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ,
/// SIGPWR, SIGIO, SIGSTKFLT and the real-time signals make
/// lctx_sys_interrupted() true (a request to stop, as Ctrl-C); so do
/// SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP and SIGSYS when
/// another process sent them (a fault of lctx's own, or its own abort(),
/// goes to the action they had, a sanitizer's included); SIGPIPE is
/// ignored (a write to a closed pipe fails with EPIPE). SIGKILL and SIGSTOP
/// cannot be caught; SIGTSTP, SIGTTIN and SIGTTOU keep their job control
/// (a stop from outside is the guard's to undo: guard.h). A process forked
/// meanwhile starts with these signals at their defaults. Clears an
/// earlier interruption and keeps the actions they had in `saved`.
void lctx_sys_catch_interrupts(lctx_sys_interrupts *saved);

/// Whether one of those signals arrived since lctx_sys_catch_interrupts.
bool lctx_sys_interrupted(void);

/// The first signal that arrived since lctx_sys_catch_interrupts (0:
/// none).
int lctx_sys_interrupt_signal(void);

/// The name of signal `sig` ("SIGHUP", "SIGRTMIN+3", "signal 99") in
/// `buf`; returns `buf`.
const char *lctx_sys_signal_name(int sig, char *buf, size_t cap);

/// Gives the signals back the actions kept in `saved`.
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
