/*
 * exit.h - the exit statuses every layer reports in.
 *
 * Owns the three answers of a run: 0 when all is good, 1 when violations
 * were found, 2 for bad usage or bad input (with a message naming what is
 * wrong). Library calls return them; only cli/main.c hands one to the
 * operating system.
 */
#ifndef LCTX_CORE_EXIT_H
#define LCTX_CORE_EXIT_H

/// Exit codes of the `lctx` command and of the library calls behind it.
enum {
  LCTX_EXIT_OK = 0,
  LCTX_EXIT_VIOLATIONS = 1,
  LCTX_EXIT_USAGE = 2,
};

#endif /* LCTX_CORE_EXIT_H */
