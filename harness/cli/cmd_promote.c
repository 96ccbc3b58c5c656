/*
 * cmd_promote.c - `lctx promote` (see commands.h): its options and the
 * finding, handed to lctx_replay_promote (drive/replay.h).
 */
#include "commands.h"

#include "exit.h"
#include "options.h"
#include "replay.h"

#define PROMOTE_USAGE                                                          \
  "usage: lctx promote [--name NAME] [--target T] [--to DIR] FINDING\n"

int lctx_cmd_promote(int argc, char **argv, FILE *out, FILE *err) {
  lctx_replay_promote_options o = {NULL, NULL, NULL, NULL};
  const lctx_option options[] = {
      {"name", LCTX_OPTION_STRING, &o.name, "NAME",
       "the file's name (default: its key, or its hash)", 0, 0, NULL, NULL},
      {"target", LCTX_OPTION_STRING, &o.target, "T",
       "the finding's target (default: told from its path)", 0, 0, NULL, NULL},
      {"to", LCTX_OPTION_STRING, &o.to, "DIR",
       "regression root (default: corpus/regressions)", 0, 0, NULL, NULL},
  };
  const lctx_option_spec spec = {"promote", PROMOTE_USAGE, options,
                                 sizeof options / sizeof options[0], true};
  int first = argc;
  lctx_options_result parsed =
      lctx_options_parse(&spec, argc, argv, &first, out, err);
  if (parsed != LCTX_OPTIONS_OK)
    return lctx_options_exit_code(parsed);
  if (argc - first != 1) {
    fprintf(err, "lctx promote: expected one finding (a findings/KEY "
                 "directory or an input file)\n");
    return LCTX_EXIT_USAGE;
  }
  o.finding = argv[first];
  return lctx_replay_promote(&o, out, err);
}
