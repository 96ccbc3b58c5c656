/*
 * cmd_codec.c - `lctx encode`, `lctx decode` and `lctx enumerate` (see
 * commands.h): a case's text form to the fuzzers' byte form and back
 * (case_bytes.h, case_text.h), and the cases of the bounded domain
 * (domain.h) in text form.
 */
#include "commands.h"

#include "case_bytes.h"
#include "domain.h"
#include "escape.h"
#include "exit.h"
#include "options.h"
#include "workspace.h"

#include <stdint.h>
#include <stdlib.h>

#define ENUMERATE_USAGE "usage: lctx enumerate [--count] [--limit N]\n"

static int write_all(FILE *out, const void *data, size_t n, FILE *err) {
  if (fwrite(data, 1, n, out) != n) {
    fprintf(err, "lctx: write error\n");
    return LCTX_EXIT_USAGE;
  }
  return LCTX_EXIT_OK;
}

/* Writes the byte form of the case text `data` (from `path`). */
static int encode(lctx_workspace *ws, const char *path, const char *data,
                  size_t n, FILE *out, FILE *err) {
  if (!lctx_workspace_parse_case(ws, path, data, n, err))
    return LCTX_EXIT_USAGE;
  size_t size = lctx_case_encode(&ws->c, ws->bytes, sizeof ws->bytes);
  if (size > sizeof ws->bytes) {
    lctx_escaped b;
    fprintf(err, "lctx encode: %s: encoding too large\n", lctx_esc(&b, path));
    return LCTX_EXIT_USAGE;
  }
  return write_all(out, ws->bytes, size, err);
}

/* Writes the text of the case the bytes `data` decode to. */
static int decode(lctx_workspace *ws, const char *data, size_t n, FILE *out,
                  FILE *err) {
  lctx_case_decode((const uint8_t *)data, n, &ws->c);
  lctx_buf b;
  lctx_buf_init(&b, ws->text, sizeof ws->text);
  lctx_case_print(&ws->c, NULL, &b);
  return write_all(out, ws->text, b.length, err);
}

/* `lctx encode FILE` (to_bytes) or `lctx decode BYTES`. */
static int convert(bool to_bytes, int argc, char **argv, FILE *out, FILE *err) {
  const char *usage = to_bytes ? "usage: lctx encode FILE > BYTES"
                               : "usage: lctx decode BYTES > FILE.case";
  const lctx_option_spec spec = {to_bytes ? "encode" : "decode", usage, NULL, 0,
                                 true};
  int first;
  LCTX_OPTIONS_PARSE_OR_RETURN(&spec, argc, argv, &first, out, err);
  if (argc - first != 1) {
    fprintf(err, "lctx %s: expected one %s file, or - for stdin (%s)\n",
            spec.command, to_bytes ? "case" : "byte", usage);
    return LCTX_EXIT_USAGE;
  }
  const char *path = argv[first];
  lctx_workspace *ws = lctx_workspace_create(err);
  char *data = NULL;
  size_t n;
  int code = LCTX_EXIT_USAGE;
  if (ws && lctx_workspace_read_file(path, &data, &n, err))
    code = to_bytes ? encode(ws, path, data, n, out, err)
                    : decode(ws, data, n, out, err);
  free(data);
  lctx_workspace_destroy(ws);
  return code;
}

int lctx_cmd_encode(int argc, char **argv, FILE *out, FILE *err) {
  return convert(true, argc, argv, out, err);
}

int lctx_cmd_decode(int argc, char **argv, FILE *out, FILE *err) {
  return convert(false, argc, argv, out, err);
}

typedef struct enum_run {
  FILE *out;
  lctx_workspace *ws;
  size_t limit;
  size_t printed;
  bool count_only;
} enum_run;

static bool enumerate_visit(void *user, const lctx_case *c) {
  enum_run *run = user;
  if (run->count_only)
    return true;
  if (run->printed >= run->limit)
    return false;
  lctx_buf b;
  lctx_buf_init(&b, run->ws->text, sizeof run->ws->text);
  lctx_case_print(c, NULL, &b);
  fprintf(run->out, "# case %zu\n%s\n", run->printed, run->ws->text);
  run->printed++;
  return true;
}

int lctx_cmd_enumerate(int argc, char **argv, FILE *out, FILE *err) {
  enum_run run = {.out = out, .limit = SIZE_MAX};
  const lctx_option options[] = {
      lctx_options_flag("count", &run.count_only,
                        "print only the number of cases"),
      lctx_options_size("limit", &run.limit, "N",
                        "print at most N cases (default: all)", 0, 0,
                        "a count"),
  };
  int first;
  LCTX_OPTIONS_PARSE_OR_RETURN(
      &LCTX_OPTIONS_SPEC("enumerate", ENUMERATE_USAGE, options, false), argc,
      argv, &first, out, err);
  if (!run.count_only && !(run.ws = lctx_workspace_create(err)))
    return LCTX_EXIT_USAGE;
  size_t n = lctx_domain_enumerate(enumerate_visit, &run);
  if (run.count_only)
    fprintf(out, "%zu cases in the bounded domain\n", n);
  lctx_workspace_destroy(run.ws);
  return LCTX_EXIT_OK;
}
