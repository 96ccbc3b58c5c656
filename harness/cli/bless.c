/*
 * bless.c - `lctx eval --bless` (see bless.h): the reference's outcomes,
 * judged by the spec table, written into a case file as `expect` lines in
 * the canonical form of lctx_case_print.
 */
#include "bless.h"

#include "case_text.h"
#include "classify.h"
#include "escape.h"
#include "exit.h"
#include "file.h"
#include "oracle.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* One line of a text: where it starts and its length with its newline. */
typedef struct line {
  const char *at;
  size_t n;
} line;

/* Whether line `l` starts (after blanks) with the word `word`. */
static bool starts_with_word(line l, const char *word) {
  size_t p = 0, w = strlen(word);
  while (p < l.n && (l.at[p] == ' ' || l.at[p] == '\t'))
    p++;
  return p + w < l.n && memcmp(l.at + p, word, w) == 0 &&
         (l.at[p + w] == ' ' || l.at[p + w] == '\t');
}

/* The next line of text[*at..n), moving *at past it. */
static line next_line(const char *text, size_t n, size_t *at) {
  const char *nl = memchr(text + *at, '\n', n - *at);
  line l = {text + *at, nl ? (size_t)(nl - (text + *at)) + 1 : n - *at};
  *at += l.n;
  return l;
}

/* Finds the `expect` line of each operation in the canonical text `t`
 * (every operation has one there). */
static void expect_lines(const char *t, size_t n, line *lines, size_t ops) {
  size_t k = 0;
  for (size_t at = 0; at < n && k < ops;) {
    line l = next_line(t, n, &at);
    if (starts_with_word(l, "expect"))
      lines[k++] = l;
  }
}

/* Writes `n` bytes to `path` through a temporary file renamed over it. */
static bool write_file(const char *path, const char *text, size_t n,
                       FILE *err) {
  char tmp[4200];
  lctx_escaped b;
  snprintf(tmp, sizeof tmp, "%s.bless-tmp", path);
  FILE *f = fopen(tmp, "w");
  bool ok = f && fwrite(text, 1, n, f) == n;
  ok = f && fclose(f) == 0 && ok;
  if (!ok || rename(tmp, path) != 0) {
    fprintf(err, "lctx eval --bless: %s: cannot write: %s\n",
            lctx_esc(&b, path), strerror(errno ? errno : EIO));
    remove(tmp);
    return false;
  }
  return true;
}

bool lctx_bless_outcomes(lctx_workspace *ws, const char *path,
                         lctx_case_expect *blessed, FILE *out) {
  const lctx_case *c = &ws->c;
  lctx_case_expect_init(blessed);
  lctx_feature_state state;
  lctx_features features;
  lctx_classify_init_at(&state, c, lctx_spec_facts(&ws->spec));
  lctx_runner_init(&ws->runner, c);
  char expected[2048];
  lctx_outcome outcome, *o = &outcome;
  for (size_t i = 0; i < c->op_count; i++) {
    lctx_runner_op(&ws->runner, &c->ops[i], o, NULL);
    lctx_classify_op(&state, i, &features);
    size_t row = (size_t)-1;
    lctx_buf eb;
    lctx_buf_init(&eb, expected, sizeof expected);
    lctx_judgement j =
        lctx_oracle_judge(&ws->spec, &features, o, true, &row, &eb, NULL);
    if (j != LCTX_JUDGE_ALLOWED) {
      char actual[1024];
      lctx_buf ab;
      lctx_buf_init(&ab, actual, sizeof actual);
      lctx_outcome_format(o, &ab);
      lctx_escaped b1, b2, b3;
      fprintf(out,
              "REFUSED %s: operation %zu: the reference's outcome %s is not "
              "allowed by row %s (allowed: %s); nothing written\n",
              lctx_esc(&b1, path), i, lctx_esc(&b2, actual),
              row < ws->spec.row_count ? ws->spec.rows[row].id : "(none)",
              lctx_esc(&b3, expected));
      return false;
    }
    if (!lctx_case_expect_set(blessed, i, o)) {
      lctx_escaped b1;
      fprintf(out,
              "REFUSED %s: operation %zu: the reference's outcome texts come "
              "to more than the %d bytes a case holds together; nothing "
              "written\n",
              lctx_esc(&b1, path), i, LCTX_CASE_EXPECT_TEXT_MAX);
      return false;
    }
  }
  return true;
}

/* The file's text with the expect lines `lines` written in (see bless.h);
 * the number of lines written in `*written`. */
static bool rewrite(const char *text, size_t n, const lctx_case *c,
                    const lctx_case_expect *expect, const line *lines, bool all,
                    lctx_buf *out, size_t *written) {
  size_t op = 0;
  *written = 0;
  for (size_t at = 0; at < n;) {
    line l = next_line(text, n, &at);
    bool is_op = starts_with_word(l, "op");
    if (starts_with_word(l, "expect") && all && op > 0) {
      lctx_buf_append(out, lines[op - 1].at, lines[op - 1].n);
      (*written)++;
      continue;
    }
    lctx_buf_append(out, l.at, l.n);
    if (!is_op || op >= c->op_count)
      continue;
    if (!lctx_case_expect_has(expect, op)) {
      if (l.at[l.n - 1] != '\n')
        lctx_buf_append(out, "\n", 1);
      lctx_buf_append(out, lines[op].at, lines[op].n);
      (*written)++;
    }
    op++;
  }
  return !out->overflow;
}

int lctx_bless_case(lctx_workspace *ws, const char *path, bool all, FILE *out,
                    FILE *err) {
  lctx_case_expect *blessed = malloc(sizeof *blessed);
  size_t cap = 2 * LCTX_CASE_TEXT_MAX + 2 * LCTX_CASE_FILE_MAX;
  char *canon = malloc(LCTX_CASE_TEXT_MAX), *result = malloc(cap), *text = NULL;
  char e[1024];
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  size_t n = 0;
  int code = LCTX_EXIT_USAGE;
  lctx_escaped b;
  if (!blessed || !canon || !result) {
    fprintf(err, "lctx eval --bless: out of memory\n");
  } else if (!lctx_file_read(path, LCTX_CASE_FILE_MAX, &text, &n, &eb)) {
    fprintf(err, "lctx eval --bless: %s\n", lctx_esc(&b, e));
  } else {
    code = LCTX_EXIT_VIOLATIONS;
  }
  if (code == LCTX_EXIT_VIOLATIONS &&
      lctx_bless_outcomes(ws, path, blessed, out)) {
    lctx_buf cb, rb;
    lctx_buf_init(&cb, canon, LCTX_CASE_TEXT_MAX);
    lctx_case_print(&ws->c, blessed, &cb);
    line lines[LCTX_CASE_MAX_OPS] = {{0}};
    expect_lines(canon, cb.length, lines, ws->c.op_count);
    lctx_buf_init(&rb, result, cap);
    size_t written;
    code = LCTX_EXIT_USAGE;
    if (rewrite(text, n, &ws->c, &ws->expect, lines, all, &rb, &written) &&
        (written == 0 || write_file(path, result, rb.length, err))) {
      fprintf(out, "blessed %s: %zu expect lines written\n", lctx_esc(&b, path),
              written);
      code = LCTX_EXIT_OK;
    }
  }
  free(text);
  free(result);
  free(canon);
  free(blessed);
  return code;
}
