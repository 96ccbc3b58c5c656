/*
 * guard.h - the guard of a command that starts children (conform, sweep
 * and generate, fuzz): what no child can undo by stopping lctx, and what
 * lctx leaves when it is killed.
 *
 * Owns the guard process and lctx's watch over it. The guard is a peer of
 * lctx's (peer.h) that outlives lctx, in a session of its own, deaf to
 * every signal a process can ignore, and waits on a pipe from lctx:
 *   - every 0.1 s it reads lctx's state (/proc/PID/stat); lctx found
 *     stopped twice in a row (SIGSTOP, or SIGTSTP, SIGTTIN or SIGTTOU from
 *     a child), when the stop is not the job control of a terminal (lctx
 *     has no controlling terminal, or its process group is still the
 *     terminal's foreground group: no shell took the terminal back), is
 *     continued (SIGCONT) and told so, one byte on a pipe lctx reads: the
 *     summary and report.json say how many times;
 *   - every 0.2 s it notes lctx's descendants (pid and start time, process
 *     group, session); lctx is the subreaper of what it starts, so while
 *     it runs every process a child left is one of them;
 *   - a byte from lctx: a clean end, the guard exits. End of file: lctx
 *     died (SIGKILL, the OOM killer): the guard kills, until none is left
 *     (10 s at most), every process noted (the same start time), every
 *     process of a noted process group or session (lctx's own and the
 *     guard's aside), their descendants, and every process whose
 *     environment holds the run's mark (every child inherits it); then
 *     removes the private working directories lctx's peers had
 *     (peer.h) and runs the command's own clean-up (a campaign's working
 *     corpus).
 * lctx watches the guard in turn (a thread that reads its state every
 * 0.1 s): a stopped guard is continued.
 *
 * What remains possible where the children share lctx's user and PID
 * namespace (peer.h isolates implementations where the machine allows):
 * a child that stops lctx and the guard at once (two signals a few
 * microseconds apart, before either watch looks) stops both until
 * something else continues them; a child that kills the guard first leaves
 * lctx unguarded (its signals are still a clean stop: sys.h); a process
 * started within 0.2 s of lctx's death that left every noted process group
 * and session, cleared its environment and lost every noted ancestor
 * before the guard's first pass survives. A stop of a background job of an
 * interactive shell (its terminal's foreground is another group) is left
 * to that shell, as Ctrl-Z is.
 */
#ifndef LCTX_DRIVE_GUARD_H
#define LCTX_DRIVE_GUARD_H

#include "peer.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/// What a guard does beyond the common part.
typedef struct lctx_guard_spec {
  /// NAME=VALUE that every child carries in its environment; NULL: the
  /// guard puts its own, LCTX_GUARD_MARK=TOKEN, into lctx's environment
  /// (from which every child inherits it) until lctx_guard_end.
  const char *mark;
  /// Run in the guard after the kills when lctx died (NULL: nothing); it
  /// sees the memory lctx had when the guard started.
  void (*on_death)(void *user);
  void *user;
} lctx_guard_spec;

/// A running guard (or none: peer.pid is -1).
typedef struct lctx_guard {
  lctx_peer peer;
  lctx_guard_spec spec;
  pid_t lctx_pid;
  char mark[96];
  bool own_mark;
  /// Stops of lctx the guard undid, as read so far.
  size_t continued;
  /// lctx's watch over the guard: its /proc/PID/stat, its thread.
  int stat_fd;
  pthread_t watcher;
  bool watching;
  volatile int quit;
} lctx_guard;

/// Starts the guard of `spec` (copied; its strings must outlive the
/// guard); false when it cannot (no pipe, no fork): the run goes on
/// unguarded, its children still die with lctx (peer.h).
bool lctx_guard_start(lctx_guard *g, const lctx_guard_spec *spec);

/// How many times the guard continued a stopped lctx so far.
size_t lctx_guard_continued(lctx_guard *g);

/// How many times any guard of this process continued it: the running
/// guard's count read now, plus those of the guards that ended.
size_t lctx_guard_continued_total(void);

/// Tells the guard that lctx ends cleanly, waits for it, and takes the
/// mark it added out of lctx's environment.
void lctx_guard_end(lctx_guard *g);

#endif /* LCTX_DRIVE_GUARD_H */
