/*
 * tests/proc_fx.h - what the tests that look for processes left behind
 * (test_impl_hostile.c, test_irjudge.c) read of a process in /proc.
 */
#ifndef LCTX_TESTS_PROC_FX_H
#define LCTX_TESTS_PROC_FX_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/// Reads the state letter and the parent of process `pid` from
/// /proc/PID/stat (after the last ')': the command name may hold any
/// byte). False when the process is gone or its line cannot be read.
static inline bool proc_fx_stat(long pid, char *state, int *ppid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  FILE *f = fopen(path, "r");
  if (!f)
    return false;
  size_t got = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[got] = '\0';
  const char *end = strrchr(buf, ')');
  return end && sscanf(end + 1, " %c %d", state, ppid) == 2;
}

#endif
