/*
 * cmd_promote.c - `lctx promote` (see commands.h): its options and the
 * finding, with the regression root of the data paths (data.h), handed to
 * lctx_replay_promote (commands/replay.h).
 */
#include "commands.h"

#include "data.h"
#include "exit.h"
#include "options.h"
#include "replay.h"

#define PROMOTE_USAGE                                                          \
  "usage: lctx promote [--name NAME] [--target T] [--to DIR] FINDING\n"

int lctx_cmd_promote(int argc, char **argv, FILE *out, FILE *err) {
  const lctx_data_paths *data = lctx_data();
  lctx_replay_promote_options o = {
      .regressions = data->regressions,
      .replayed = data->source_tree ? data->regressions : NULL,
      .plugin = data->example_plugin,
  };
  const lctx_option options[] = {
      lctx_options_string("name", &o.name, "NAME",
                          "the file's name (default: its key, or its hash)"),
      lctx_options_string("target", &o.target, "T",
                          "the finding's target "
                          "(default: told from its path)"),
      lctx_options_string(
          "to", &o.to, "DIR",
          "regression root (default: the data folder's\ncorpus/regressions: "
          "the source tree's, which make test\nreplays, or the "
          "installation's share/lctx/corpus/regressions)"),
  };
  int first;
  LCTX_OPTIONS_PARSE_OR_RETURN(
      &LCTX_OPTIONS_SPEC("promote", PROMOTE_USAGE, options, true), argc, argv,
      &first, out, err);
  if (argc - first != 1) {
    fprintf(err, "lctx promote: expected one finding (a findings/KEY "
                 "directory or an input file)\n");
    return LCTX_EXIT_USAGE;
  }
  o.finding = argv[first];
  return lctx_replay_promote(&o, out, err);
}
