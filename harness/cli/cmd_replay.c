/*
 * cmd_replay.c - `lctx replay` (see commands.h): its options and inputs,
 * handed to lctx_replay_run (commands/replay.h), with fuzz_differential's
 * implementation as its fuzz build links it: the build's example plugin
 * (data.h), unless LCTX_DIFF_PLUGIN names another.
 */
#include "commands.h"

#include "data.h"
#include "exit.h"
#include "findings.h"
#include "options.h"
#include "replay.h"

#define REPLAY_USAGE_HEAD                                                      \
  "usage: lctx replay [--target NAME] [--verbose] [--binary BIN [--engine "    \
  "E]] FILE|DIR...\n"                                                          \
  "targets: "
#define REPLAY_USAGE_TAIL                                                      \
  "\nfuzz_differential compares the library LCTX_DIFF_PLUGIN names, else\n"    \
  "the example plugin its fuzz build links (the lctx of a build tree\n"        \
  "takes that build's liblctx_example_plugin.so; an installed lctx has\n"      \
  "none: set LCTX_DIFF_PLUGIN=LIB.so, or give --binary a fuzz build).\n"       \
  "exit status: 0 no finding, 1 findings, 2 bad usage, a missing input or\n"   \
  "no implementation to compare\n"

int lctx_cmd_replay(int argc, char **argv, FILE *out, FILE *err) {
  const lctx_data_paths *data = lctx_data();
  lctx_replay_options o = {.plugin = data->example_plugin};
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
  char names[256], usage[1024];
  lctx_findings_target_names(", ", names, sizeof names);
  snprintf(usage, sizeof usage, "%s%s%s", REPLAY_USAGE_HEAD, names,
           REPLAY_USAGE_TAIL);
  const lctx_option_spec spec =
      LCTX_OPTIONS_SPEC("replay", usage, options, true);
  int first;
  LCTX_OPTIONS_PARSE_OR_RETURN(&spec, argc, argv, &first, out, err);
  if (first >= argc) {
    fprintf(err, "lctx replay: no inputs: name the files or folders to "
                 "replay\n");
    lctx_options_help(&spec, err);
    return LCTX_EXIT_USAGE;
  }
  o.inputs = argv + first;
  o.input_count = (size_t)(argc - first);
  return lctx_replay_run(&o, out, err);
}
