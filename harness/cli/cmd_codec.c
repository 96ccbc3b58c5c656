/*
 * cmd_codec.c - `lctx encode`, `lctx decode` and `lctx enumerate` (see
 * commands.h): a case's text form to the fuzzers' byte form and back
 * (case_bytes.h, case_text.h), and the cases of the bounded domain
 * (domain.h) in text form.
 */
#include "commands.h"

#include "case_bytes.h"
#include "domain.h"
#include "exit.h"
#include "options.h"
#include "workspace.h"

#include <stdint.h>
#include <stdlib.h>

static int write_all(FILE *out, const void *data, size_t n, FILE *err) {
  if (fwrite(data, 1, n, out) != n) {
    fprintf(err, "lctx: write error\n");
    return LCTX_EXIT_USAGE;
  }
  return LCTX_EXIT_OK;
}

/* Parses a command that takes no options and one operand, the file named
 * in `usage`. Returns -1 when it goes on, else an exit code. */
static int parse_one_file(const char *command, const char *usage,
                          const char *wrong_count, int argc, char **argv,
                          FILE *out, FILE *err) {
  const lctx_option_spec spec = {command, usage, NULL, 0, true};
  int first;
  lctx_options_result r =
      lctx_options_parse(&spec, argc, argv, &first, out, err);
  if (r != LCTX_OPTIONS_OK)
    return lctx_options_exit_code(r);
  if (first != 1 || argc != 2) {
    fprintf(err, "lctx %s: %s (%s)\n", command, wrong_count, usage);
    return LCTX_EXIT_USAGE;
  }
  return -1;
}

int lctx_cmd_encode(int argc, char **argv, FILE *out, FILE *err) {
  int code = parse_one_file("encode", "usage: lctx encode FILE > BYTES",
                            "expected one case file, or - for stdin", argc,
                            argv, out, err);
  if (code >= 0)
    return code;
  lctx_workspace *ws = lctx_workspace_create(err);
  code = LCTX_EXIT_USAGE;
  if (ws && lctx_workspace_load_case(ws, argv[1], err)) {
    size_t n = lctx_case_encode(&ws->c, ws->bytes, sizeof ws->bytes);
    if (n > sizeof ws->bytes)
      fprintf(err, "lctx encode: %s: encoding too large\n", argv[1]);
    else
      code = write_all(out, ws->bytes, n, err);
  }
  lctx_workspace_destroy(ws);
  return code;
}

int lctx_cmd_decode(int argc, char **argv, FILE *out, FILE *err) {
  int code = parse_one_file("decode", "usage: lctx decode BYTES > FILE.case",
                            "expected one byte file, or - for stdin", argc,
                            argv, out, err);
  if (code >= 0)
    return code;
  lctx_workspace *ws = lctx_workspace_create(err);
  char *data = NULL;
  size_t n;
  code = LCTX_EXIT_USAGE;
  if (ws && lctx_workspace_read_file(argv[1], &data, &n, err)) {
    lctx_case_decode((const uint8_t *)data, n, &ws->c);
    lctx_buf b;
    lctx_buf_init(&b, ws->text, sizeof ws->text);
    lctx_case_print(&ws->c, &b);
    code = write_all(out, ws->text, b.length, err);
  }
  free(data);
  lctx_workspace_destroy(ws);
  return code;
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
  lctx_case_print(c, &b);
  fprintf(run->out, "# case %zu\n%s\n", run->printed, run->ws->text);
  run->printed++;
  return true;
}

int lctx_cmd_enumerate(int argc, char **argv, FILE *out, FILE *err) {
  enum_run run = {.out = out, .limit = SIZE_MAX};
  const lctx_option options[] = {
      {.name = "count",
       .kind = LCTX_OPTION_FLAG,
       .target = &run.count_only,
       .help = "print only the number of cases"},
      {.name = "limit",
       .kind = LCTX_OPTION_SIZE,
       .target = &run.limit,
       .value_name = "N",
       .help = "print at most N cases (default: all)",
       .number_noun = "a count"},
  };
  const lctx_option_spec spec = {
      "enumerate", "usage: lctx enumerate [--count] [--limit N]\n", options,
      sizeof options / sizeof options[0], false};
  int first;
  lctx_options_result r =
      lctx_options_parse(&spec, argc, argv, &first, out, err);
  if (r != LCTX_OPTIONS_OK)
    return lctx_options_exit_code(r);
  if (!run.count_only && !(run.ws = lctx_workspace_create(err)))
    return LCTX_EXIT_USAGE;
  size_t n = lctx_domain_enumerate(enumerate_visit, &run);
  if (run.count_only)
    fprintf(out, "%zu cases in the bounded domain\n", n);
  lctx_workspace_destroy(run.ws);
  return LCTX_EXIT_OK;
}
