/*
 * main.c - the `lctx` program: hands the command line to cli.c.
 */
#include "cli.h"
#include "rerun_cmd.h"

#include <stdio.h>

int main(int argc, char **argv) {
  lctx_rerun_note_argv0(argc > 0 ? argv[0] : NULL);
  int code = lctx_cli_main(argc, argv, stdout, stderr);
  if (fflush(stdout) != 0) {
    fprintf(stderr, "lctx: error writing output\n");
    return LCTX_EXIT_USAGE;
  }
  return code;
}
