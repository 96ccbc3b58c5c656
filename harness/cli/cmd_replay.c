/*
 * cmd_replay.c - `lctx replay` (see commands.h): its options and inputs,
 * handed to lctx_replay_run (drive/replay.h).
 */
#include "commands.h"

#include "exit.h"
#include "options.h"
#include "replay.h"

#define REPLAY_USAGE                                                           \
  "usage: lctx replay [--target NAME] [--verbose] FILE|DIR...\n"

int lctx_cmd_replay(int argc, char **argv, FILE *out, FILE *err) {
  lctx_replay_options o = {NULL, false, NULL, 0};
  const lctx_option options[] = {
      {"target", LCTX_OPTION_STRING, &o.target, "NAME",
       "the inputs' target (default: from each path)", 0, 0, NULL, NULL},
      {"verbose", LCTX_OPTION_FLAG, &o.verbose, NULL,
       "also print the inputs that pass", 0, 0, NULL, NULL},
  };
  const lctx_option_spec spec = {"replay", REPLAY_USAGE, options,
                                 sizeof options / sizeof options[0], true};
  int first = argc;
  lctx_options_result parsed =
      lctx_options_parse(&spec, argc, argv, &first, out, err);
  if (parsed != LCTX_OPTIONS_OK)
    return lctx_options_exit_code(parsed);
  if (first >= argc) {
    fprintf(err, "lctx replay: no inputs (usage: lctx replay [--target NAME] "
                 "[--verbose] FILE|DIR...)\n");
    return LCTX_EXIT_USAGE;
  }
  o.inputs = argv + first;
  o.input_count = (size_t)(argc - first);
  return lctx_replay_run(&o, out, err);
}
