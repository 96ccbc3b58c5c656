/*
 * main.c - the `lctx` program: makes itself out of its children's reach,
 * then hands the command line to cli.c.
 *
 * Not dumpable (PR_SET_DUMPABLE 0): a process of the same user without
 * CAP_SYS_PTRACE (a child lctx starts: an implementation, a fuzz engine)
 * can neither ptrace-attach lctx nor read its /proc/PID/fd, cwd, environ
 * or mem, so it can neither stop lctx in a trace nor find the report
 * folder through lctx's descriptors. A child forked from lctx's own code
 * (a plugin worker) stays so; a program lctx runs is dumpable again after
 * its exec. LeakSanitizer makes the process dumpable for the moment it
 * stops the world, so sanitizer builds keep their leak check.
 */
#include "cli.h"
#include "rerun_cmd.h"

#include <stdio.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

int main(int argc, char **argv) {
#ifdef __linux__
  (void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
#endif
  lctx_rerun_note_argv0(argc > 0 ? argv[0] : NULL);
  int code = lctx_cli_main(argc, argv, stdout, stderr);
  if (fflush(stdout) != 0) {
    fprintf(stderr, "lctx: error writing output\n");
    return LCTX_EXIT_USAGE;
  }
  return code;
}
