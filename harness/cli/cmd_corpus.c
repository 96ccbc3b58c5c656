/*
 * cmd_corpus.c - `lctx corpus` (see commands.h): `minimize`, the engine's
 * own corpus minimization with the folder replaced in one step, and `rows`,
 * the spec rows a corpus of cases hits (commands/minimize.h). Their options
 * are checked first: no text a terminal would not show as it is reaches
 * the drive layer, which echoes them.
 */
#include "commands.h"

#include "argcheck.h"
#include "data.h"
#include "escape.h"
#include "examples.h"
#include "exit.h"
#include "minimize.h"
#include "options.h"
#include "sys.h"

#include <string.h>

#define MINIMIZE_USAGE                                                         \
  "usage: lctx corpus minimize --target NAME [--engine libfuzzer|afl]\n"       \
  "                            [--binary PATH] [--out DIR] DIR\n"
#define MINIMIZE_TEXT                                                          \
  "minimize: libFuzzer -merge=1 (or afl-cmin) into a fresh folder, again\n"    \
  "  over its output until a pass shrinks it no more (at most 10 passes),\n"   \
  "  which then replaces DIR (or becomes --out DIR); exit 0 done, 1 the\n"     \
  "  engine's pass failed (DIR is left as it was), 2 bad usage or a\n"         \
  "  missing build.\n"
#define ROWS_USAGE "usage: lctx corpus rows --target NAME DIR\n"
#define ROWS_TEXT                                                              \
  "rows: the spec rows the inputs of DIR hit (fuzz_model,\n"                   \
  "  fuzz_differential), one id a line.\n"
#define CORPUS_USAGE                                                           \
  MINIMIZE_USAGE                                                               \
  "       lctx corpus rows --target NAME DIR\n" MINIMIZE_TEXT ROWS_TEXT
/* The help names the most passes. */
_Static_assert(LCTX_CORPUS_MAX_PASSES == 10, "MINIMIZE_TEXT says 10 passes");

/* The corpus folder DIR of `who`: plain text, and a folder; false after a
 * message. */
static bool corpus_dir(const char *who, const char *dir, FILE *err) {
  if (!lctx_argcheck_plain(who, "DIR", dir, err))
    return false;
  if (lctx_sys_is_dir(dir))
    return true;
  lctx_escaped b;
  fprintf(err, "lctx %s: %s: not a directory\n", who, lctx_esc(&b, dir));
  return false;
}

/* The options of `corpus minimize` checked, and its build (unless
 * --binary) from the data paths into `binary`; false after a message. */
static bool minimize_inputs(lctx_corpus_options *o, char *binary, size_t cap,
                            FILE *err) {
  const char *who = "corpus minimize";
  if (o->engine && strcmp(o->engine, "libfuzzer") != 0 &&
      strcmp(o->engine, "afl") != 0) {
    lctx_escaped b;
    fprintf(err, "lctx %s: --engine: '%s' is not libfuzzer or afl\n", who,
            lctx_esc(&b, o->engine));
    return false;
  }
  if (!lctx_argcheck_target(who, o->target, err) ||
      !lctx_argcheck_plain(who, "--binary", o->binary, err) ||
      !lctx_argcheck_plain(who, "--out", o->out_dir, err) ||
      !corpus_dir(who, o->dir, err))
    return false;
  o->data = lctx_data();
  if (o->binary)
    return true;
  if (!lctx_data_fuzz_build(o->data, who, o->target, o->engine, "--binary",
                            binary, cap, err))
    return false;
  o->binary = binary;
  return true;
}

static int corpus_minimize(int argc, char **argv, FILE *out, FILE *err) {
  lctx_corpus_options o;
  memset(&o, 0, sizeof o);
  const lctx_option options[] = {
      lctx_options_string("target", &o.target, "NAME",
                          "the fuzz target (required)"),
      lctx_options_string("engine", &o.engine, "ENGINE",
                          "libfuzzer (default) or afl"),
      lctx_options_string("binary", &o.binary, "PATH",
                          "the engine's build (default: as lctx fuzz finds "
                          "it)"),
      lctx_options_string("out", &o.out_dir, "DIR",
                          "write the minimized corpus there, keep DIR"),
  };
  int first;
  LCTX_OPTIONS_PARSE_OR_RETURN(&LCTX_OPTIONS_SPEC("corpus minimize",
                                                  MINIMIZE_USAGE MINIMIZE_TEXT,
                                                  options, true),
                               argc, argv, &first, out, err);
  if (!o.target || first + 1 != argc) {
    fprintf(err, "lctx corpus minimize: --target and one DIR are required\n%s",
            CORPUS_USAGE);
    return LCTX_EXIT_USAGE;
  }
  o.dir = argv[first];
  char binary[LCTX_DATA_PATH_MAX];
  if (!minimize_inputs(&o, binary, sizeof binary, err))
    return LCTX_EXIT_USAGE;
  lctx_corpus_result r;
  int code = lctx_corpus_minimize(&o, &r, err);
  lctx_escaped b1, b2;
  if (code == LCTX_EXIT_OK)
    fprintf(out, "corpus %s: %zu -> %zu inputs (%s, %zu pass%s%s)%s%s\n",
            lctx_esc(&b1, o.dir), r.before, r.after,
            o.engine && strcmp(o.engine, "afl") == 0 ? "afl-cmin"
                                                     : "libFuzzer -merge=1",
            r.passes, r.passes == 1 ? "" : "es",
            r.fixed_point ? "" : ", still shrinking when they stopped",
            o.out_dir ? ", written to " : "",
            o.out_dir ? lctx_esc(&b2, o.out_dir) : "");
  return code;
}

static int corpus_rows(int argc, char **argv, FILE *out, FILE *err) {
  const char *target = NULL;
  const lctx_option options[] = {
      lctx_options_string("target", &target, "NAME",
                          "fuzz_model or fuzz_differential (required)"),
  };
  int first;
  LCTX_OPTIONS_PARSE_OR_RETURN(
      &LCTX_OPTIONS_SPEC("corpus rows", ROWS_USAGE ROWS_TEXT, options, true),
      argc, argv, &first, out, err);
  if (!target || first + 1 != argc) {
    fprintf(err, "lctx corpus rows: --target and one DIR are required\n%s",
            CORPUS_USAGE);
    return LCTX_EXIT_USAGE;
  }
  if (!lctx_argcheck_target("corpus rows", target, err) ||
      !corpus_dir("corpus rows", argv[first], err))
    return LCTX_EXIT_USAGE;
  return lctx_corpus_rows(target, argv[first], out, err) < 0 ? LCTX_EXIT_USAGE
                                                             : LCTX_EXIT_OK;
}

int lctx_cmd_corpus(int argc, char **argv, FILE *out, FILE *err) {
  const char *sub = argc > 1 ? argv[1] : "";
  if (strcmp(sub, "minimize") == 0)
    return corpus_minimize(argc - 1, argv + 1, out, err);
  if (strcmp(sub, "rows") == 0)
    return corpus_rows(argc - 1, argv + 1, out, err);
  if (strcmp(sub, "-h") == 0 || strcmp(sub, "--help") == 0) {
    fprintf(out, "%sexample:\n  %s\n", CORPUS_USAGE,
            lctx_cli_example("corpus"));
    return LCTX_EXIT_OK;
  }
  lctx_escaped b;
  if (!sub[0])
    fprintf(err, "lctx corpus: missing subcommand (minimize or rows)\n%s",
            CORPUS_USAGE);
  else
    fprintf(err, "lctx corpus: unknown subcommand '%s'\n%s", lctx_esc(&b, sub),
            CORPUS_USAGE);
  return LCTX_EXIT_USAGE;
}
