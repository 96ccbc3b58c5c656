/*
 * cmd_replay.c - `lctx replay` (see commands.h): its options and inputs,
 * handed to lctx_replay_run (drive/replay.h).
 */
#include "commands.h"

#include "exit.h"
#include "options.h"
#include "replay.h"

#define REPLAY_USAGE                                                           \
  "usage: lctx replay [--target NAME] [--verbose] [--binary BIN [--engine "    \
  "E]] FILE|DIR...\n"

int lctx_cmd_replay(int argc, char **argv, FILE *out, FILE *err) {
  lctx_replay_options o = {NULL, false, NULL, 0, NULL, NULL};
  const lctx_option options[] = {
      lctx_options_string("target", &o.target, "NAME",
                          "the inputs' target (default: from each path)"),
      lctx_options_flag("verbose", &o.verbose,
                        "also print the inputs that pass"),
      lctx_options_string("binary", &o.binary, "BIN",
                          "run each input with this fuzz build, as a "
                          "campaign\nkeys its findings (default: lctx's "
                          "own check, in process)"),
      lctx_options_string("engine", &o.engine, "E",
                          "the engine BIN was built for: libfuzzer or afl "
                          "(default: libfuzzer)"),
  };
  int first;
  LCTX_OPTIONS_PARSE_OR_RETURN(
      &LCTX_OPTIONS_SPEC("replay", REPLAY_USAGE, options, true), argc, argv,
      &first, out, err);
  if (first >= argc) {
    fprintf(err, "lctx replay: no inputs (usage: lctx replay [--target NAME] "
                 "[--verbose] [--binary BIN [--engine E]] FILE|DIR...)\n");
    return LCTX_EXIT_USAGE;
  }
  o.inputs = argv + first;
  o.input_count = (size_t)(argc - first);
  return lctx_replay_run(&o, out, err);
}
