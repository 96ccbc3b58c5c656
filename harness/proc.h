/*
 * proc.h - running a helper program with a time limit.
 *
 * Owns starting a program in a process group of its own, with its stdout and
 * stderr in a log file, its stdin from a file, optionally one environment
 * variable set, and killing the whole group past a deadline. Used by the
 * campaign runner (reproducing and minimizing findings) and by lctx mutants
 * (fuzz runs).
 */
#ifndef LCTX_HARNESS_PROC_H
#define LCTX_HARNESS_PROC_H

/// Runs `argv` (argv[0] a path, not searched in PATH) with stdout and stderr
/// truncated into `log`, stdin from `stdin_path` (NULL: /dev/null), and, when
/// `env_name` is not NULL, `env_name=env_value` set. Kills its process group
/// after `timeout` seconds. Returns the wait status, or -1 when it could not
/// be started or waited for; `*seconds` (may be NULL) receives how long it
/// ran.
int lctx_run_limited(char *const argv[], const char *log,
                     const char *stdin_path, const char *env_name,
                     const char *env_value, double timeout, double *seconds);

#endif /* LCTX_HARNESS_PROC_H */
