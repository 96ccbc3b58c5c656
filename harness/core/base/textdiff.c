/*
 * textdiff.c - two texts with their first difference marked (see
 * textdiff.h).
 *
 * Every walk over a text goes piece by piece as escape.h shows it
 * (lctx_escape_piece), so that the bytes cut, the columns counted and the
 * bytes shown agree with what a terminal shows.
 */
#include "textdiff.h"

#include "escape.h"

#include <stdio.h>
#include <string.h>

/* The code point of the UTF-8 character of SIZE (2 to 4) bytes at S, kept
 * whole by lctx_escape_piece (so valid). */
static unsigned code_point(const unsigned char *s, size_t size) {
  unsigned v = s[0] & (0x7f >> size);
  for (size_t k = 1; k < size; k++)
    v = (v << 6) | (s[k] & 0x3f);
  return v;
}

/* Whether code point V takes two columns on a terminal: the East Asian
 * wide and fullwidth blocks and the emoji planes (the common ones; a rarer
 * wide character shifts the caret by a column, never its byte offset). */
static bool wide(unsigned v) {
  return (v >= 0x1100 && v <= 0x115f) || (v >= 0x2e80 && v <= 0xa4cf) ||
         (v >= 0xac00 && v <= 0xd7a3) || (v >= 0xf900 && v <= 0xfaff) ||
         (v >= 0xfe30 && v <= 0xfe4f) || (v >= 0xff00 && v <= 0xff60) ||
         (v >= 0xffe0 && v <= 0xffe6) || (v >= 0x1f300 && v <= 0x1faff) ||
         (v >= 0x20000 && v <= 0x3fffd);
}

/* The piece of S at its first byte (N > 0 left): its length in S, and in
 * *COLS the columns it takes as shown. */
static size_t piece(const char *s, size_t n, size_t *cols) {
  char shown[16];
  size_t size, len = lctx_escape_piece(s, n, shown, &size);
  if (size == 1 || shown[0] == '\\') /* ASCII, \\ or \xNN: a column each */
    *cols = size;
  else
    *cols = wide(code_point((const unsigned char *)shown, size)) ? 2 : 1;
  return len;
}

/* The columns of bytes [FROM, TO) of S (FROM a piece's start). */
static size_t columns(const char *s, size_t from, size_t to) {
  size_t total = 0;
  for (size_t at = from; at < to;) {
    size_t w;
    at += piece(s + at, to - at, &w);
    total += w;
  }
  return total;
}

/* The first piece start of S (N bytes) from which the columns up to MARK
 * are at most KEEP. */
static size_t cut_before(const char *s, size_t n, size_t mark, size_t keep) {
  size_t left = columns(s, 0, mark), at = 0;
  while (at < mark && left > keep) {
    size_t w;
    at += piece(s + at, n - at, &w);
    left -= w;
  }
  return at;
}

/* Where bytes of S (N bytes) from MARK on stop when at most KEEP columns
 * are shown (at a piece's end). */
static size_t cut_after(const char *s, size_t n, size_t mark, size_t keep) {
  size_t at = mark, used = 0;
  while (at < n) {
    size_t w, len = piece(s + at, n - at, &w);
    if (used + w > keep)
      break;
    used += w;
    at += len;
  }
  return at;
}

void lctx_textdiff_find(const char *a, size_t na, const char *b, size_t nb,
                        lctx_textdiff *d) {
  size_t n = na < nb ? na : nb, at = 0;
  while (at < n && a[at] == b[at])
    at++;
  memset(d, 0, sizeof *d);
  d->na = na;
  d->nb = nb;
  d->at = at;
  d->same = at == na && at == nb;
  /* The pieces before `at` lie wholly in the equal bytes, so that A's
   * piece starts are B's there. */
  size_t mark = 0;
  while (mark < at) {
    size_t w, len = piece(a + mark, na - mark, &w);
    if (mark + len > at)
      break;
    mark += len;
  }
  d->mark = mark;
  d->to_a = na;
  d->to_b = nb;
  if (columns(a, 0, na) <= LCTX_TEXTDIFF_WIDTH &&
      columns(b, 0, nb) <= LCTX_TEXTDIFF_WIDTH)
    return;
  size_t lead = columns(a, 0, mark);
  if (lead > LCTX_TEXTDIFF_LEAD) {
    d->from = cut_before(a, na, mark, LCTX_TEXTDIFF_BEFORE);
    lead = columns(a, d->from, mark);
  }
  d->to_a = cut_after(a, na, mark, LCTX_TEXTDIFF_WIDTH - lead);
  d->to_b = cut_after(b, nb, mark, LCTX_TEXTDIFF_WIDTH - lead);
}

/* One text's line: INDENT, LABEL and its colon padded to WIDTH, the shown
 * bytes [FROM, TO) of S (N bytes), "..." at a cut end. */
static void text_line(lctx_buf *out, const char *indent, const char *label,
                      size_t width, const char *s, size_t n, size_t from,
                      size_t to) {
  lctx_buf_append_cstr(out, indent);
  lctx_buf_append_cstr(out, label);
  lctx_buf_append_char(out, ':');
  for (size_t k = strlen(label) + 1; k < width; k++)
    lctx_buf_append_char(out, ' ');
  if (from > 0)
    lctx_buf_append_cstr(out, "...");
  lctx_escape_append(out, s + from, to - from);
  if (to < n)
    lctx_buf_append_cstr(out, "...");
  lctx_buf_append_char(out, '\n');
}

/* "; cut (...) to bytes F..L of N (LABEL)[, F..L of N (LABEL)]": the
 * bytes shown of each text that is cut (nothing when none is). */
static void say_cut(lctx_buf *out, const lctx_textdiff *d, const char *label_a,
                    const char *label_b) {
  const struct {
    size_t to, n;
    const char *label;
  } texts[] = {{d->to_a, d->na, label_a}, {d->to_b, d->nb, label_b}};
  bool first = true;
  for (size_t k = 0; k < 2; k++) {
    if (d->from == 0 && texts[k].to == texts[k].n)
      continue;
    char text[128];
    if (texts[k].to > d->from)
      snprintf(text, sizeof text, "%s%zu..%zu of %zu (%s)",
               first ? "; cut (...) to bytes " : ", ", d->from, texts[k].to - 1,
               texts[k].n, texts[k].label);
    else
      snprintf(text, sizeof text, "%snone of %zu (%s)",
               first ? "; cut (...) to bytes " : ", ", texts[k].n,
               texts[k].label);
    lctx_buf_append_cstr(out, text);
    first = false;
  }
}

void lctx_textdiff_append(lctx_buf *out, const char *indent,
                          const char *label_a, const char *a, size_t na,
                          const char *label_b, const char *b, size_t nb) {
  lctx_textdiff d;
  lctx_textdiff_find(a, na, b, nb, &d);
  size_t la = strlen(label_a), lb = strlen(label_b);
  size_t width = (la > lb ? la : lb) + 2; /* "label: " */
  text_line(out, indent, label_a, width, a, na, d.from, d.to_a);
  text_line(out, indent, label_b, width, b, nb, d.from, d.to_b);
  lctx_buf_append_cstr(out, indent);
  if (d.same) {
    lctx_buf_append_cstr(out, "(the texts are the same)\n");
    return;
  }
  size_t pad = width + (d.from > 0 ? 3 : 0) + columns(a, d.from, d.mark);
  for (size_t k = 0; k < pad; k++)
    lctx_buf_append_char(out, ' ');
  char text[96];
  snprintf(text, sizeof text, "^ first difference at byte %zu (from 0)", d.at);
  lctx_buf_append_cstr(out, text);
  if (d.at == na || d.at == nb) {
    lctx_buf_append_cstr(out, "; ");
    lctx_buf_append_cstr(out, d.at == na ? label_a : label_b);
    lctx_buf_append_cstr(out, " ends there");
  }
  say_cut(out, &d, label_a, label_b);
  lctx_buf_append_char(out, '\n');
}
