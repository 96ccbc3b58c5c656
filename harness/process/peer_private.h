/*
 * peer_private.h - what runs in a peer's processes before its program or
 * lctx's own code (peer.h): the registry the parts of the peer module
 * share (peer.c's), the child side of a start, and, for an
 * isolated peer, its supervisor and namespaces (defined in peer_child.c,
 * the part of the peer module that runs in the child).
 *
 * Only syscalls run here (no allocation): lctx forks from several threads.
 * A plain peer is one process: a session of its own, death with lctx, its
 * standard streams, every other descriptor closed, the environment, then
 * the program or the body. An isolated peer is three: the supervisor S
 * (lctx's child, in lctx's PID namespace) holds the log and copies the
 * peer's stderr into it up to its cap, and ends as the peer ended; S
 * unshares a PID namespace (as root) or a user and a PID namespace, whose
 * init I (lctx's code) mounts a fresh /proc in a mount namespace of its
 * own, drops CAP_SYS_ADMIN and CAP_SYS_PTRACE, enters the private working
 * directory and forks the peer P (pid 2 there). When P ends, I hands its
 * wait status to S and ends, and the kernel kills whatever else lives in
 * the namespace; S dies with lctx, I with S. Where no namespace can be
 * made, S forks P itself (isolation "none").
 */
#ifndef LCTX_DRIVE_PEER_PRIVATE_H
#define LCTX_DRIVE_PEER_PRIVATE_H

#include "peer.h"

#include <stdint.h>
#include <sys/types.h>

/// The registry of running peers (peer.c) is one thread's at a time: a
/// fork until its child is listed, a sweep, a reap that delists.
void lctx_peer_registry_hold(void);
void lctx_peer_registry_release(void);

/// Under the hold: forgets `pid` as a running peer; whether it is one.
void lctx_peer_delist_held(pid_t pid);
bool lctx_peer_listed_held(pid_t pid);

/// The counters the lctx_peer_* functions of the same names read.
typedef enum lctx_peer_counter {
  LCTX_PEER_COUNT_SWEPT,
  LCTX_PEER_COUNT_GIVEN_UP,
  LCTX_PEER_COUNT_CAPPED,
  LCTX_PEER_COUNT_REFUSED,
  LCTX_PEER_COUNTERS
} lctx_peer_counter;

/// Adds `n` to counter `which` and returns its value (`_held`: under the
/// hold, the other takes it).
size_t lctx_peer_count(lctx_peer_counter which, size_t n);
size_t lctx_peer_count_held(lctx_peer_counter which, size_t n);

/// A record a child writes to lctx on its error pipe.
typedef struct lctx_peer_record {
  int32_t kind; ///< one of the LCTX_PEER_RECORD_ values
  int32_t value;
} lctx_peer_record;

enum {
  LCTX_PEER_RECORD_EXEC = 1,  ///< the program could not start: its errno
  LCTX_PEER_RECORD_INNER = 2, ///< the pid (lctx's view) running the program
  LCTX_PEER_RECORD_LEVEL = 3, ///< the isolation made: LCTX_PEER_ISOLATION_*
  LCTX_PEER_RECORD_FIRST = 4, ///< the supervisor's child (lctx's view)
  /// Isolated: the program runs (or could not: LCTX_PEER_RECORD_EXEC came
  /// first); the pipe stays open for the notes below, until S ends.
  LCTX_PEER_RECORD_STARTED = 5,
  LCTX_PEER_RECORD_CAPPED = 6, ///< the log reached its cap
};

enum {
  LCTX_PEER_ISOLATION_NONE = 0,
  LCTX_PEER_ISOLATION_PID = 1,  ///< a PID namespace (as root)
  LCTX_PEER_ISOLATION_USER = 2, ///< a user and a PID namespace
};

/// Everything a child needs, made by lctx before the fork.
typedef struct lctx_peer_child {
  const lctx_peer_spec *spec;
  pid_t parent; ///< lctx
  int in, out;  ///< the pipe ends (-1: none)
  int err;      ///< records to lctx (-1: none)
  /* Isolated peers only. */
  int log_fd;      ///< the log, opened by lctx (-1: none, output dropped)
  const char *dir; ///< the private working directory (NULL: none)
  uid_t uid;       ///< lctx's ids, for the user namespace's map
  gid_t gid;
  /// Folders made read-only (`hidden[i]` false) or replaced by an empty
  /// folder (true) in the peer's mount namespace (lctx_peer_protect).
  const char *const *protect;
  const bool *hidden;
  size_t protect_count;
  /// No namespace is made (LCTX_ISOLATION=none): as on a machine that
  /// allows none.
  bool no_namespaces;
} lctx_peer_child;

/// The folders of lctx_peer_protect (peer_setup.c): their count, the paths
/// and whether each is hidden in `*paths` and `*hidden`.
size_t lctx_peer_protected(const char *const **paths, const bool **hidden);

/// A private working directory under $TMPDIR (or /tmp), mode 0700, named
/// lctx-peer-PID-XXXXXX after lctx's pid; malloc'd, NULL when it cannot be
/// made.
char *lctx_peer_private_dir(void);

/// argv with every argument that names an existing file or directory
/// relative to lctx's working directory made absolute (argv[0] only when
/// it holds a '/'); malloc'd, NULL-terminated (the strings too), NULL when
/// out of memory. Freed by lctx_peer_free_argv.
char **lctx_peer_absolute_argv(char *const *argv, bool search_path);
void lctx_peer_free_argv(char **argv);

/// The child's side of a start: never returns.
_Noreturn void lctx_peer_child_main(const lctx_peer_child *c);

/// `fd` moved above the standard descriptors, close-on-exec (closed and
/// -1 when it cannot); -1 stays -1.
int lctx_peer_fd_above_standard(int fd);

#endif /* LCTX_DRIVE_PEER_PRIVATE_H */
