/*
 * sys.h - what the drive layer asks of the operating system.
 *
 * Owns the clock, creating directory paths, the default locations of the
 * spec table and the conformance cases, and running a helper program with a
 * time limit. Reading a whole file is core/base/file.h's.
 */
#ifndef LCTX_DRIVE_SYS_H
#define LCTX_DRIVE_SYS_H

#include <stdbool.h>

/// Seconds on the monotonic clock (for durations only).
double lctx_sys_now(void);

/// Creates `path` and its missing parents (like `mkdir -p`). Returns false
/// with errno set when a component cannot be created.
bool lctx_sys_mkdir_p(const char *path);

/// The spec table used when no --spec is given ($LCTX_SPEC, else the
/// source tree's).
const char *lctx_sys_default_spec_path(void);

/// The conformance case directory of the source tree ($LCTX_CASES, else the
/// source tree's).
const char *lctx_sys_default_cases_path(void);

/// Runs `argv` (argv[0] a path, not searched in PATH) in a process group of
/// its own, with stdout and stderr truncated into `log`, stdin from
/// `stdin_path` (NULL: /dev/null), and, when `env_name` is not NULL,
/// `env_name=env_value` set. Kills its process group after `timeout`
/// seconds. Returns the wait status, or -1 when it could not be started or
/// waited for; `*seconds` (may be NULL) receives how long it ran.
int lctx_sys_run_limited(char *const argv[], const char *log,
                         const char *stdin_path, const char *env_name,
                         const char *env_value, double timeout,
                         double *seconds);

#endif /* LCTX_DRIVE_SYS_H */
