/*
 * peer.h - every child process lctx starts: an implementation's plugin
 * worker or protocol program, the MLIR judge, a fuzz engine, a helper tool.
 *
 * Owns starting, feeding, watching and stopping them, once: the only module
 * (with peer_child.c, its child side) that forks, calls prctl, setsid,
 * unshare, close_range, mount or capset (a house rule). A peer runs in a
 * session of its own, so that it has no controlling terminal (opening
 * /dev/tty fails) and its process group can be killed whole; its standard
 * input is a pipe from lctx or /dev/null, never lctx's own; its output goes
 * to a pipe or a log (never through a symbolic link), and every other
 * descriptor is closed (close_range, or one close per descriptor where that
 * is missing). It gets SIGKILL when lctx dies (PR_SET_PDEATHSIG, with the
 * check that lctx did not die before it was set). lctx is the child
 * subreaper of everything it starts: a peer's descendants that leave its
 * process group or session (double-forked daemons included) come back to
 * lctx when their parents end, and lctx_peer_stop kills and reaps every
 * such process that is not a peer still running.
 *
 * No wait for a child blocks: reaping polls with a deadline; a child that
 * does not go is looked at in /proc, its tracer (a descendant that
 * ptrace-attached it: a traced zombie is reported only to its tracer) is
 * killed with its process group, a stopped child is killed and continued
 * again, and one still there at the deadline is given up (counted; the
 * next sweeps try again).
 *
 * An isolated peer (`isolate`: implementations and the MLIR judge) is out
 * of reach of lctx and of every other peer: it runs in a PID namespace of
 * its own (as root; otherwise in a user and a PID namespace, where the
 * machine allows), with a /proc that shows only that namespace and without
 * CAP_SYS_ADMIN, CAP_SYS_PTRACE and the capabilities that reach past a
 * mount or into the kernel (peer_child.c lists them), so that it cannot
 * name, signal, trace or
 * read lctx, the judge or a sibling; everything it starts dies with it (a
 * daemon that left its session included) and with lctx. It starts in a
 * private working directory, removed when it stops; the arguments of a
 * program that name an existing file or directory relative to lctx's
 * working directory are made absolute first, so that `python3
 * adapters/x.py` keeps working. Its stderr (and stdout without a pipe) is a
 * pipe to its supervisor, a process of lctx's outside the namespace that
 * copies it into the log up to `log_cap` bytes: no descriptor of the peer
 * names a file of the report folder. The folders lctx_peer_protect names
 * (a report folder, the key store) are read-only or absent in its mount
 * namespace. peer_private.h says how (peer_setup.c prepares, in lctx, what
 * peer_child.c uses in the child). Where no
 * namespace can be made, the peer runs as a plain one would
 * (lctx_peer_isolation says which holds). While lctx waits for a peer, the
 * peer's resident memory is watched (the program's, not its supervisor's)
 * and each request has its deadline; how a wait ended is one lctx_peer_end.
 *
 * Split by mechanism: peer.c starts peers and keeps the registry of those
 * running, peer_child.c is the child's side of a start, peer_stop.c reaps,
 * kills, sweeps and stops, peer_pump.c moves the bytes.
 *
 * Errors (the convention of every layer of lctx): a function that can fail
 * returns bool (false on failure) or a pointer (NULL on failure) and, when
 * the caller needs the reason, takes `lctx_buf *error` last and writes
 * there one line naming what failed (the program, the file, the field),
 * without a "lctx: " prefix; it never prints. errno is read only in
 * process/sys.c. Only cli/ prints errors and picks exit codes.
 */
#ifndef LCTX_DRIVE_PEER_H
#define LCTX_DRIVE_PEER_H

#include "lctx/str.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// How a wait for a peer ended.
typedef enum lctx_peer_end {
  LCTX_PEER_DONE = 1,     ///< what was wanted is buffered
  LCTX_PEER_EOF = 0,      ///< the peer closed its output or ended
  LCTX_PEER_TIMEOUT = -1, ///< the deadline passed (or an interrupt came)
  LCTX_PEER_BAD = -2,     ///< its output was refused (why: lctx_peer.bad)
  LCTX_PEER_MEMORY = -3,  ///< it went over its memory limit
} lctx_peer_end;

/// What a peer is and where its standard streams go.
typedef struct lctx_peer_spec {
  /// A program and its arguments (NULL-terminated)...
  char *const *argv;
  /// ...looked up in PATH (else argv[0] is a path).
  bool search_path;
  /// ...or lctx's own code, run in the child instead of a program: it gets
  /// the pipe ends (-1 without `pipes`) and must not return.
  void (*body)(void *user, int in_fd, int out_fd);
  void *user;
  /// lctx talks to the peer: a program's stdin and stdout are pipes from
  /// and to lctx; a body gets them as in_fd and out_fd (its stdin is
  /// /dev/null and its stdout the log).
  bool pipes;
  /// Without `pipes`: the file standard input reads (NULL: /dev/null).
  const char *stdin_path;
  /// Where stderr goes, and stdout when it is not a pipe (NULL:
  /// /dev/null); appended to, or truncated when `truncate_log`.
  const char *log;
  bool truncate_log;
  /// NAME, VALUE, NAME, VALUE, ..., NULL: set in the child (may be NULL).
  const char *const *env;
  /// When not NULL, a program that cannot be started writes
  /// `WHO: cannot run ARGV0: REASON` to the log.
  const char *who;
  /// The size asked for the pipes (0: the system's).
  size_t pipe_size;
  /// Not killed when lctx dies (no PR_SET_PDEATHSIG): a guard that cleans
  /// up after a lctx that was killed. Everything else dies with lctx.
  bool survives_lctx;
  /// Out of reach of lctx and of other peers (see the top comment): its
  /// own namespaces, a private working directory (lctx_peer_start only),
  /// its output copied into the log by its supervisor. The wait status
  /// lctx sees is the peer's own.
  bool isolate;
  /// With `isolate`: the most bytes the log may hold (0: no cap); output
  /// past it is dropped, after one line that says so, and counted by
  /// lctx_peer_logs_capped.
  size_t log_cap;
} lctx_peer_spec;

/// The cap of an implementation's log (implementation.log).
#define LCTX_PEER_LOG_CAP ((size_t)64 << 20)

/// A running peer and what moves between lctx and it.
typedef struct lctx_peer {
  pid_t pid; ///< also its session and process group; -1: none
  /// The process that runs the program or body: pid, or, isolated, the
  /// one its supervisor `pid` watches over (lctx's pid for it).
  pid_t inner;
  /// Isolated: the supervisor's child (the namespace's init, or `inner`),
  /// killed first at a stop so that the supervisor reaps it.
  pid_t first;
  int to_fd, from_fd, statm_fd;
  /// Isolated: the supervisor's notes (a record when the log hit its cap),
  /// and the private working directory (malloc'd; removed at stop).
  int note_fd;
  char *dir;
  /// Resident memory limit in MB (0: none), checked every 0.1 s of a pump.
  size_t memory_limit_mb;
  /// A pump ends as a timeout when SIGINT or SIGTERM arrived
  /// (lctx_sys_interrupted).
  bool stop_on_interrupt;
  double next_watch;
  /// Read buffer: in_length bytes not yet consumed, from in + in_off.
  uint8_t *in;
  size_t in_off, in_length, in_capacity;
  /// Write buffer: out_length bytes, out_sent of them written.
  uint8_t *out;
  size_t out_length, out_sent, out_capacity;
  /// Why the output was refused (LCTX_PEER_BAD), set by a want function.
  char bad[256];
} lctx_peer;

/// A peer that runs nothing (pid -1, no descriptors, empty buffers).
void lctx_peer_init(lctx_peer *p);

/// Starts `s`: returns true with `p` running, or false with why in `error`
/// (no pipe, no fork, or, for a program, the exec failure with its errno,
/// argv[0] escaped). `p`'s limits are kept; its buffers are emptied.
bool lctx_peer_start(lctx_peer *p, const lctx_peer_spec *s, lctx_buf *error);

/// Starts `s` without pipes and without a lctx_peer (a helper program, a
/// fuzz engine, a guard): true with its pid in `*pid`, or false (`*pid`
/// -1) with why in `error` (may be NULL), as lctx_peer_start says it. It
/// is a peer as
/// every other (own session, dies with lctx, its descendants swept); reap
/// it with lctx_peer_reap.
bool lctx_peer_spawn(const lctx_peer_spec *s, pid_t *pid, lctx_buf *error);

/// Reaps a peer of lctx_peer_spawn: true once it is no more (its wait
/// status in `*status`, may be NULL; -1 when it was no child of lctx's),
/// false while it runs. Never waits for long: without `block` it only
/// looks; with it, it waits at most LCTX_PEER_REAP_SECONDS, freeing the
/// peer of a tracer or a stop meanwhile, and gives it up (false, counted by
/// lctx_peer_given_up; it is no longer a peer, the next sweeps try again)
/// when it is still there. A peer reaped is no longer a peer.
bool lctx_peer_reap(pid_t pid, bool block, int *status);

/// How long lctx_peer_reap and lctx_peer_kill wait for a child at most.
#define LCTX_PEER_REAP_SECONDS 2.0

/// Kills the process group of a peer of lctx_peer_spawn, then the peer, and
/// reaps it (lctx_peer_reap, blocking); then sweeps (lctx_peer_sweep).
/// True with its wait status in `*status` (may be NULL), false (status -1)
/// when it could not be reaped.
bool lctx_peer_kill(pid_t pid, int *status);

/// Sends `sig` to the process group of `pid`, a peer of lctx_peer_spawn
/// still running (not reaped: its number is its own): a request to stop
/// before lctx_peer_kill. False when `pid` is not such a peer or the
/// signal could not be sent.
bool lctx_peer_signal(pid_t pid, int sig);

/// Kills (SIGKILL) every process but lctx whose environment, as it was
/// started, holds the entry `entry` (NAME=VALUE), as far as /proc shows
/// them (processes that ended, zombies and other users' are not seen):
/// what a peer marked so left running outside lctx's children. Returns how
/// many were killed.
size_t lctx_peer_kill_marked(const char *entry);

/// How many children lctx gave up waiting for since it started (each was
/// sent SIGKILL; a later sweep may still reap it).
size_t lctx_peer_given_up(void);

/// The isolation isolated peers get on this machine: "pid namespace",
/// "user+pid namespace" or "none" (the first call may start a peer to
/// find out). LCTX_ISOLATION=none in lctx's environment makes no
/// namespace, as on a machine that allows none (the implementation can
/// then reach lctx: the guard and the signal handling are what holds).
const char *lctx_peer_isolation(void);

/// How many isolated peers' logs reached their cap since lctx started.
size_t lctx_peer_logs_capped(void);

/// How many isolated peers' logs could not be opened (a symbolic link, a
/// FIFO, ...: the peer's output was dropped, said on stderr).
size_t lctx_peer_logs_refused(void);

/// Kills and reaps every child of lctx that is not a running peer (what
/// peers left: daemons, double-forked processes, engine jobs), and what
/// they leave when they die, until none is left. Returns how many.
size_t lctx_peer_sweep(void);

/// The most folders lctx_peer_protect keeps.
#define LCTX_PEER_PROTECT_MAX 8

/// From now on, every isolated peer started sees folder `path` read-only
/// (`hide` false: a report folder, whose files only lctx writes) or not at
/// all (`hide`: an empty, read-only folder in its place: the key store), in
/// its mount namespace, which it cannot change (it has no CAP_SYS_ADMIN).
/// Where no mount namespace can be made, nothing changes. False when
/// `path` cannot be resolved or LCTX_PEER_PROTECT_MAX are kept.
bool lctx_peer_protect(const char *path, bool hide);

/// Forgets the folders of lctx_peer_protect (the end of a run).
void lctx_peer_unprotect(void);

/// Removes the private working directories that the lctx of pid
/// `lctx_pid` made and did not remove (it was killed): what its guard does
/// after it (guard.h).
void lctx_peer_remove_private_dirs(pid_t lctx_pid);

/// How many left-behind processes the sweeps killed since lctx started
/// (what the summary and the reports say).
size_t lctx_peer_swept_total(void);

/// How a peer of lctx_peer_run ended.
typedef struct lctx_peer_ran {
  int status;     ///< its wait status (-1: it could not be reaped)
  double seconds; ///< how long it ran
  bool stopped;   ///< it was killed (the timeout or an interrupt)
} lctx_peer_ran;

/// Runs `s` (lctx_peer_spawn) until it ends, `timeout` seconds at most, or
/// (`stop_on_interrupt`) an interrupt; then kills what is left of it.
/// True with how it ended in `*ran`; false (`ran->status` -1) with why in
/// `error` (may be NULL) when it could not be started.
bool lctx_peer_run(const lctx_peer_spec *s, double timeout,
                   bool stop_on_interrupt, lctx_peer_ran *ran, lctx_buf *error);

/// What a pump waits for: 1 when it is buffered, 0 for more, -1 when the
/// peer's output is refused (why in p->bad).
typedef int (*lctx_peer_want)(void *user);

/// Moves bytes both ways until `want(user)` is satisfied or refuses, the
/// peer ends or goes over its memory limit, or `deadline` (lctx_sys_now)
/// passes. Time in which lctx itself did not run (stopped by SIGSTOP or
/// Ctrl-Z: more than 1 s beyond what the pump waited) moves the deadline,
/// and at the deadline what the peer wrote meanwhile is read first: a stop
/// of lctx is never the peer's hang.
lctx_peer_end lctx_peer_pump(lctx_peer *p, double deadline, lctx_peer_want want,
                             void *user);

/// Reads what the peer has written, without waiting (up to 4 MiB).
void lctx_peer_drain(lctx_peer *p);

/// Appends `n` bytes to the write buffer; false when out of memory.
bool lctx_peer_queue(lctx_peer *p, const void *data, size_t n);

/// Writes what the write buffer holds without waiting; false when the peer
/// stopped reading for good (its pipe is closed).
bool lctx_peer_flush(lctx_peer *p);

/// The first byte of the read buffer not yet consumed (NULL before the
/// first byte came).
static inline uint8_t *lctx_peer_input(const lctx_peer *p) {
  return p->in ? p->in + p->in_off : NULL;
}

/// Drops the first `n` buffered bytes.
void lctx_peer_consume(lctx_peer *p, size_t n);

/// Whether the peer has ended (it is not reaped: its status is kept).
bool lctx_peer_ended(const lctx_peer *p);

/// Its resident memory in bytes (0 when it cannot be read).
double lctx_peer_resident(const lctx_peer *p);

/// Stops the peer: closes the pipes, gives it `grace` seconds to end by
/// itself, kills its process group, reaps it and sweeps what it left
/// (lctx_peer_sweep). When it had ended by itself, appends how (exited
/// with status N, killed by signal N (NAME)) to `how` (may be NULL).
/// Empties the buffers; keeps the limits and the buffers' memory.
void lctx_peer_stop(lctx_peer *p, double grace, lctx_buf *how);

/// lctx_peer_stop, and frees the buffers.
void lctx_peer_free(lctx_peer *p);

/// Appends "exited with status N", "killed by signal N (NAME)" or
/// "stopped" of a wait status to `out`.
void lctx_peer_describe(int status, lctx_buf *out);

#endif /* LCTX_DRIVE_PEER_H */
