/*
 * cmd_export.c - `lctx export spec|rules` (see commands.h): the spec table
 * (core/judge/spec.h) and the rule corpus (core/case/rulefile.h) as JSON on
 * stdout (shapes: export_data.h), read by lctx's own parsers, so that the
 * Python side (the JAX adapters, the tools) reads what lctx reads instead
 * of parsing the files again. A file lctx cannot read, or a malformed row
 * or rule, is refused as lctx refuses it (FILE:LINE:COL) with exit 2;
 * nothing is printed on stdout then.
 */
#include "commands.h"

#include "data.h"
#include "dirlist.h"
#include "escape.h"
#include "examples.h"
#include "exit.h"
#include "export_data.h"
#include "options.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

//===----------------------------------------------------------------------===//
// The subcommands
//===----------------------------------------------------------------------===//

/* Appends `v` (stolen) to `a`; false when `v` is NULL or the append fails. */
static bool add(json_t *a, json_t *v) {
  return v && json_array_append_new(a, v) == 0;
}

/* Prints `j` (stolen) on `out`, indented, with a final newline. */
static int print_json(json_t *j, FILE *out, FILE *err, const char *who) {
  int rc = json_dumpf(j, out, JSON_INDENT(1) | JSON_ENSURE_ASCII);
  json_decref(j);
  if (rc != 0 || fputc('\n', out) == EOF) {
    fprintf(err, "lctx export %s: cannot write the JSON\n", who);
    return LCTX_EXIT_USAGE;
  }
  return LCTX_EXIT_OK;
}

static const char SPEC_USAGE[] =
    "usage: lctx export spec [--spec FILE]\n"
    "prints the spec table as JSON on stdout, as lctx reads it: its\n"
    "releases, the facts it states, and per row its id, line, check (op,\n"
    "ir or sweep), the protocol operations it judges, its outcomes, source,\n"
    "note and `was` lines (release, commit, line, outcome). The shape is\n"
    "written in harness/cli/export_data.h. A table lctx cannot\n"
    "read is refused as FILE:LINE:COL (exit 2)\n";

static int export_spec(int argc, char **argv, FILE *out, FILE *err) {
  const char *path = lctx_data()->spec;
  const lctx_option table[] = {
      lctx_options_string("spec", &path, "FILE",
                          "the spec table (default: $LCTX_SPEC, else the data "
                          "folder's)"),
  };
  const lctx_option_spec spec =
      LCTX_OPTIONS_SPEC("export spec", SPEC_USAGE, table, false);
  int first;
  LCTX_OPTIONS_PARSE_OR_RETURN(&spec, argc, argv, &first, out, err);
  lctx_spec *s = malloc(sizeof *s);
  char message[2048] = "";
  lctx_buf e;
  lctx_buf_init(&e, message, sizeof message);
  json_t *j = s && lctx_spec_load(path, s, &e)
                  ? lctx_export_spec_json(s, path, &e)
                  : NULL;
  free(s);
  if (!j) {
    lctx_escaped b;
    fprintf(err, "lctx export spec: %s\n",
            message[0] ? lctx_esc(&b, message) : "out of memory");
    return LCTX_EXIT_USAGE;
  }
  return print_json(j, out, err, "spec");
}

/* Adds the rule files of `path` (a file, or a folder's *.rule files sorted
 * by name) to `files`; false with the reason in `e`. */
static bool add_rules(json_t *files, const char *path, lctx_rulefile *f,
                      lctx_buf *e) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
    return lctx_rulefile_load(path, f, e) &&
           add(files, lctx_export_rulefile_json(f, path, e));
  }
  size_t count;
  char **paths = lctx_dirlist_read(path, ".rule", &count, e);
  if (!paths)
    return false;
  bool ok = true;
  for (size_t i = 0; ok && i < count; i++)
    ok = lctx_rulefile_load(paths[i], f, e) &&
         add(files, lctx_export_rulefile_json(f, paths[i], e));
  if (ok && count == 0) {
    lctx_buf_append_cstr(e, path);
    lctx_buf_append_cstr(e, ": no .rule files");
    ok = false;
  }
  lctx_dirlist_free(paths);
  return ok;
}

static const char RULES_USAGE[] =
    "usage: lctx export rules [RULEFILE|DIR...]\n"
    "prints rule files (default: the data folder's corpus/rules; a folder\n"
    "means its *.rule files, sorted by name) as JSON on stdout, as `lctx\n"
    "lint` reads them: per file its path, stem, primitives in order,\n"
    "sources and expect line, and each rule with its primitive, line,\n"
    "registrations and actions, each action with its line. The shape is\n"
    "written in harness/cli/export_data.h. A file lctx cannot\n"
    "read is refused as FILE:LINE:COL (exit 2)\n";

static int export_rules(int argc, char **argv, FILE *out, FILE *err) {
  const lctx_option_spec spec = {"export rules", RULES_USAGE, NULL, 0, true};
  int first;
  LCTX_OPTIONS_PARSE_OR_RETURN(&spec, argc, argv, &first, out, err);
  char corpus[LCTX_DATA_PATH_MAX + 32];
  snprintf(corpus, sizeof corpus, "%s/corpus/rules", lctx_data()->dir);
  lctx_rulefile *f = malloc(sizeof *f);
  json_t *j = json_object(), *files = json_array();
  char message[2048] = "";
  lctx_buf e;
  lctx_buf_init(&e, message, sizeof message);
  bool ok = f && j && files;
  if (ok && first >= argc)
    ok = add_rules(files, corpus, f, &e);
  for (int i = first; ok && i < argc; i++)
    ok = add_rules(files, argv[i], f, &e);
  ok = ok && json_object_set(j, "rules", files) == 0;
  free(f);
  json_decref(files);
  if (!ok) {
    lctx_escaped b;
    fprintf(err, "lctx export rules: %s\n",
            message[0] ? lctx_esc(&b, message) : "out of memory");
    json_decref(j);
    return LCTX_EXIT_USAGE;
  }
  return print_json(j, out, err, "rules");
}

/* The subcommands: name, function, one line for the help. */
static const lctx_subcommand SUBCOMMANDS[] = {
    {"spec", export_spec, "the spec table as JSON, as lctx reads it"},
    {"rules", export_rules, "the rule corpus as JSON, as lctx lint reads it"},
};

int lctx_cmd_export(int argc, char **argv, FILE *out, FILE *err) {
  return lctx_cli_subcommands("export", SUBCOMMANDS,
                              sizeof SUBCOMMANDS / sizeof SUBCOMMANDS[0], argc,
                              argv, out, err);
}
