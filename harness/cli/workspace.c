/*
 * workspace.c - the case and spec commands' shared context (see
 * workspace.h).
 */
#include "workspace.h"

#include "classify.h"
#include "data.h"
#include "escape.h"
#include "file.h"
#include "textdiff.h"

#include <stdlib.h>
#include <string.h>

lctx_workspace *lctx_workspace_create(FILE *err) {
  lctx_workspace *ws = calloc(1, sizeof *ws);
  if (!ws)
    fprintf(err, "lctx: out of memory\n");
  return ws;
}

void lctx_workspace_destroy(lctx_workspace *ws) {
  free(ws);
}

bool lctx_workspace_read_file(const char *path, char **data, size_t *length,
                              FILE *err) {
  char message[1024];
  lctx_buf e;
  lctx_buf_init(&e, message, sizeof message);
  lctx_escaped b;
  if (!lctx_file_read(path, LCTX_CASE_FILE_MAX, data, length, &e)) {
    fprintf(err, "lctx: %s\n", lctx_esc(&b, message));
    return false;
  }
  return true;
}

lctx_option lctx_workspace_spec_option(const char **path) {
  *path = lctx_data()->spec;
  return lctx_options_string(
      "spec", path, "FILE",
      "the spec table (default: $LCTX_SPEC, else the data folder's)");
}

bool lctx_workspace_parse_case(lctx_workspace *ws, const char *path,
                               const char *data, size_t n, FILE *err) {
  char message[1024];
  lctx_buf e;
  lctx_buf_init(&e, message, sizeof message);
  lctx_escaped b;
  if (!lctx_case_parse(data, n, path, &ws->c, &ws->expect, &e)) {
    fprintf(err, "lctx: %s\n", lctx_esc(&b, message));
    return false;
  }
  return true;
}

bool lctx_workspace_load_case(lctx_workspace *ws, const char *path, FILE *err) {
  char *data;
  size_t n;
  if (!lctx_workspace_read_file(path, &data, &n, err))
    return false;
  bool ok = lctx_workspace_parse_case(ws, path, data, n, err);
  free(data);
  return ok;
}

bool lctx_workspace_load_spec(lctx_workspace *ws, const char *path, FILE *err) {
  return lctx_spec_load_or_report(path, &ws->spec, "lctx", err);
}

void lctx_workspace_print_lines(FILE *out, const char *indent,
                                const char *text) {
  lctx_escape_lines(out, indent, text);
}

/* LABEL, then TEXT escaped whole (never cut), then a newline. */
static void print_field(FILE *out, const char *label, const char *text) {
  fputs(label, out);
  lctx_escape_write(out, text, strlen(text));
  fputc('\n', out);
}

/* The row a violation is under: its own, else the one spec row the
 * operation's features match (an expectation that differs names none),
 * else "-". */
static const char *violation_row(const lctx_workspace *ws,
                                 const lctx_violation *v) {
  if (v->row[0])
    return v->row;
  lctx_feature_state state;
  lctx_features features;
  lctx_classify_init_at(&state, v->c, lctx_spec_facts(&ws->spec));
  for (size_t i = 0; i <= v->op_index && i < v->c->op_count; i++)
    lctx_classify_op(&state, i, &features);
  size_t m[2];
  if (v->op_index < v->c->op_count &&
      lctx_spec_match(&ws->spec, &features, m, 2) == 1)
    return ws->spec.rows[m[0]].id;
  return "-";
}

static void print_violation(void *user, const lctx_violation *v) {
  lctx_violation_printer *p = user;
  if (p->shown++ >= p->limit)
    return;
  lctx_buf b;
  lctx_buf_init(&b, p->ws->text, sizeof p->ws->text);
  lctx_case_print(v->c, v->expect, &b);
  lctx_escaped e1, e2;
  fprintf(p->out, "VIOLATION %s%s%s: %s at operation %zu (%s)",
          p->file ? lctx_esc(&e1, p->file) : "", p->file ? " " : "",
          lctx_esc(&e2, violation_row(p->ws, v)),
          lctx_violation_kind_name(v->kind), v->op_index,
          lctx_op_kind_name(v->c->ops[v->op_index].kind));
  if (v->invariant[0])
    fprintf(p->out, " [%s]", lctx_esc(&e1, v->invariant));
  fputc('\n', p->out);
  print_field(p->out, "  features: ", v->features);
  /* Expected over actual, their first difference marked (textdiff.h). */
  char pair[2048];
  lctx_buf pb;
  lctx_buf_init(&pb, pair, sizeof pair);
  lctx_textdiff_append(&pb, "  ", "expected", v->expected, strlen(v->expected),
                       "actual", v->actual, strlen(v->actual));
  lctx_escape_built_lines(p->out, "", pair);
  fprintf(p->out, "  case:\n");
  /* The case format escapes its strings itself: shown as written, so that
   * it can be pasted into a .case file. */
  lctx_escape_built_lines(p->out, "    ", p->ws->text);
}

void lctx_workspace_print_violations(lctx_workspace *ws,
                                     lctx_violation_printer *p) {
  p->ws = ws;
  ws->oracle.on_violation = print_violation;
  ws->oracle.user = p;
}
