/*
 * spec_parse.c - the spec table parser: lctx_spec_parse and lctx_spec_load
 * (see spec.h and conformance/spec/README.md).
 *
 * Owns the lines of a table: the header keys, the row headers and their
 * keys (op, when, outcome, strict, check, refusal, bound, ...), what a row
 * must and must not hold, and compiling the parsed table (templates into
 * parts, rows indexed by operation and key) before it selects the modelled
 * commit. Tokens and outcomes are spec_lex.c's; releases, `was` lines and
 * facts spec_was.c's (spec_private.h).
 */
#include "spec_private.h"

#include "escape.h"
#include "file.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Rows and lines
//===----------------------------------------------------------------------===//

static bool parse_op(spec_parser *p, const char *s, const char *end) {
  if (end - s == 1 && *s == '*') {
    p->row->ops = (1u << LCTX_OP_KIND_COUNT) - 1;
    return true;
  }
  const char *tok_end = spec_token_end(s, end);
  if (!spec_expect_end(p, tok_end, end))
    return false;
  while (s < tok_end) {
    const char *bar = memchr(s, '|', (size_t)(tok_end - s));
    const char *e = bar ? bar : tok_end;
    lctx_op_kind kind;
    if (!lctx_op_kind_from_name(lctx_str_make(s, (size_t)(e - s)), &kind))
      return spec_fail_n(p, s, "unknown operation", s, (size_t)(e - s));
    p->row->ops |= 1u << kind;
    s = bar ? bar + 1 : tok_end;
  }
  return true;
}

static bool parse_when(spec_parser *p, const char *s, const char *end) {
  lctx_spec_row *row = p->row;
  for (s = spec_skip_space(s, end); s < end; s = spec_skip_space(s, end)) {
    const char *e = spec_token_end(s, end);
    const char *eq = memchr(s, '=', (size_t)(e - s));
    if (!eq || eq == s)
      return spec_fail_n(p, s, "expected feature=value, got", s,
                         (size_t)(e - s));
    bool negate = eq[-1] == '!';
    const char *name_end = negate ? eq - 1 : eq;
    lctx_feature f;
    if (!lctx_classify_feature_from_name(
            lctx_str_make(s, (size_t)(name_end - s)), &f))
      return spec_fail_n(p, s, "unknown feature", s, (size_t)(name_end - s));
    if (row->clause_count >= LCTX_SPEC_MAX_CLAUSES)
      return spec_fail(p, s, "too many clauses", NULL);
    lctx_spec_clause *cl = &row->clauses[row->clause_count++];
    cl->feature = f;
    cl->negate = negate;
    cl->values = 0;
    for (const char *v = eq + 1; v <= e;) {
      const char *bar = memchr(v, '|', (size_t)(e - v));
      const char *ve = bar ? bar : e;
      int value;
      if (!lctx_classify_value_from_name(f, lctx_str_make(v, (size_t)(ve - v)),
                                         &value)) {
        char msg[160];
        snprintf(msg, sizeof msg, "unknown value for feature '%s':",
                 lctx_classify_feature_name(f));
        return spec_fail_n(p, v, msg, v, (size_t)(ve - v));
      }
      cl->values |= 1u << value;
      if (!bar)
        break;
      v = bar + 1;
    }
    s = e;
  }
  return true;
}

/* `outcome = absent "why"`: the row's operations do not exist at the
 * modelled commit (a situation only older releases have): its only
 * outcome, kept as its current state. */
static bool parse_absent_outcome(spec_parser *p, const char *s,
                                 const char *end) {
  lctx_spec_row *row = p->row;
  if (row->outcome_count > 0 || row->was_count > 0 || p->seen[9])
    return spec_fail(p, s,
                     "'outcome = absent' is a row's only outcome, before "
                     "its was lines",
                     NULL);
  lctx_spec_was *w = spec_new_was(p, s);
  if (!w)
    return false;
  row->first_was = (uint8_t)(p->spec->was_count - 1);
  row->was_count = 1;
  row->absent = true;
  w->absent = true;
  s = spec_skip_space(spec_token_end(s, end), end);
  return spec_parse_string(p, &s, end, w->why, sizeof w->why) &&
         spec_expect_end(p, s, end);
}

static bool parse_outcome(spec_parser *p, const char *s, const char *end) {
  lctx_spec_row *row = p->row;
  if (lctx_str_equal_cstr(
          lctx_str_make(s, (size_t)(spec_token_end(s, end) - s)), "absent"))
    return parse_absent_outcome(p, s, end);
  if (row->absent)
    return spec_fail(p, s, "'outcome = absent' is a row's only outcome", NULL);
  if (row->outcome_count >= LCTX_SPEC_MAX_OUTCOMES)
    return spec_fail(p, s, "too many outcomes in one row", NULL);
  if (!spec_parse_outcome_into(p, s, end, &row->outcomes[row->outcome_count]))
    return false;
  row->outcome_count++;
  return true;
}

/* `refusal = CLASS "TEMPLATE"`: an allowed outcome of a sweep row. */
static bool parse_refusal(spec_parser *p, const char *s, const char *end) {
  lctx_spec_row *row = p->row;
  if (row->outcome_count >= LCTX_SPEC_MAX_OUTCOMES)
    return spec_fail(p, s, "too many refusals in one row", NULL);
  lctx_spec_outcome *o = &row->outcomes[row->outcome_count];
  memset(o, 0, sizeof *o);
  o->kind = LCTX_OUTCOME_RAISE;
  const char *e = spec_token_end(s, end);
  if (!lctx_error_class_from_name(lctx_str_make(s, (size_t)(e - s)), &o->error))
    return spec_fail_n(p, s, "unknown error class", s, (size_t)(e - s));
  if (!spec_parse_text(p, e, &s, end, o, true) || !spec_expect_end(p, s, end))
    return false;
  row->outcome_count++;
  return true;
}

/* `bound = NUMBER`: a finite number from 0 to 1. */
static bool parse_bound(spec_parser *p, const char *s, const char *end) {
  char text[32];
  size_t n = (size_t)(end - s);
  if (n == 0 || n >= sizeof text)
    return spec_fail(p, s, "expected a number from 0 to 1", NULL);
  memcpy(text, s, n);
  text[n] = '\0';
  char *stop;
  double v = strtod(text, &stop);
  if (*stop != '\0' || !(v >= 0 && v <= 1))
    return spec_fail(p, s, "expected a number from 0 to 1", NULL);
  p->row->bound = v;
  return true;
}

static const char *const ROW_KEYS[] = {"op",     "when", "outcome", "strict",
                                       "source", "note", "check",   "refusal",
                                       "bound",  "was"};
#define ROW_KEY_COUNT 10

/* A row with `was` lines keeps its current outcomes among the table's
 * `was_outcomes` too (lctx_spec_select puts them back). */
static bool keep_current(spec_parser *p) {
  lctx_spec_row *row = p->row;
  if (row->was_count == 0)
    return true;
  lctx_spec_was *current = &p->spec->was[row->first_was];
  current->first_outcome = (uint8_t)p->spec->was_outcome_count;
  current->outcome_count = (uint8_t)row->outcome_count;
  for (size_t k = 0; k < row->outcome_count; k++) {
    lctx_spec_outcome *o = spec_new_was_outcome(p, NULL);
    if (!o)
      return false;
    *o = row->outcomes[k];
  }
  return true;
}

/* Fails at the row's header line with "ROW-ID: WHAT 'KEY'". */
static bool fail_row_key(spec_parser *p, const char *what, const char *key) {
  int saved = p->line;
  p->line = p->row->line;
  char msg[128];
  snprintf(msg, sizeof msg, "%s '%s' %s '%s'",
           p->row->ir      ? "IR row"
           : p->row->sweep ? "sweep row"
                           : "row",
           p->row->id, what, key);
  spec_fail(p, NULL, msg, NULL);
  p->line = saved;
  return false;
}

static bool finish_row(spec_parser *p) {
  lctx_spec_row *row = p->row;
  if (!row)
    return true;
  if (row->ir || row->sweep) {
    /* An IR or sweep row: judged by the IR checker or the sweep judge,
     * never matched by features. */
    for (int i = 0; i < 4; i++) {
      if (p->seen[i])
        return fail_row_key(
            p, row->ir ? "(check = ir) takes no" : "(check = sweep) takes no",
            ROW_KEYS[i]);
    }
    row->ops = 0;
    if (p->seen[9])
      return fail_row_key(
          p, row->ir ? "(check = ir) takes no" : "(check = sweep) takes no",
          ROW_KEYS[9]);
  }
  for (int i = 7; i < 9; i++) {
    if (p->seen[i] && !row->sweep)
      return fail_row_key(p, "(not check = sweep) takes no", ROW_KEYS[i]);
  }
  static const char *const required[] = {"op", "outcome", "strict", "source"};
  static const int required_index[] = {0, 2, 3, 4};
  for (int i = row->ir || row->sweep ? 3 : 0; i < 4; i++) {
    if (!p->seen[required_index[i]]) {
      int saved = p->line;
      p->line = row->line;
      char msg[96];
      snprintf(msg, sizeof msg, "row '%s' has no '%s'", row->id, required[i]);
      spec_fail(p, NULL, msg, NULL);
      p->line = saved;
      return false;
    }
  }
  return keep_current(p);
}

static bool valid_id(const char *s, size_t n) {
  size_t i = 0;
  while (i < n && isupper((unsigned char)s[i]))
    i++;
  if (i == 0 || i + 4 != n || s[i] != '-')
    return false;
  for (size_t k = i + 1; k < n; k++) {
    if (!isdigit((unsigned char)s[k]))
      return false;
  }
  return true;
}

/* A row header `[ID]` or `[fact NAME]` at `s` (the line ends at `end`):
 * ends the row or fact before it and starts the next. */
static bool parse_header(spec_parser *p, const char *s, const char *end) {
  const char *close = memchr(s, ']', (size_t)(end - s));
  if (!close)
    return spec_fail(p, s, "unterminated row header", NULL);
  if (!spec_expect_end(p, close + 1, end))
    return false;
  size_t n = (size_t)(close - s - 1);
  if (!spec_finish_fact(p))
    return false;
  if (n > 5 && memcmp(s + 1, "fact ", 5) == 0) {
    if (!finish_row(p))
      return false;
    p->row = NULL;
    const char *name = spec_skip_space(s + 6, close);
    return spec_start_fact(p, name, (size_t)(close - name));
  }
  if (!valid_id(s + 1, n))
    return spec_fail_n(
        p, s + 1, "bad row ID (expected letters, '-', three digits):", s + 1,
        n);
  if (!finish_row(p))
    return false;
  for (size_t i = 0; i < p->spec->row_count; i++) {
    if (strlen(p->spec->rows[i].id) == n &&
        memcmp(p->spec->rows[i].id, s + 1, n) == 0) {
      char msg[96];
      snprintf(msg, sizeof msg,
               "duplicate row ID (first at line %d):", p->spec->rows[i].line);
      return spec_fail_n(p, s + 1, msg, s + 1, n);
    }
  }
  if (p->spec->row_count >= LCTX_SPEC_MAX_ROWS)
    return spec_fail(p, s, "too many rows", NULL);
  p->row = &p->spec->rows[p->spec->row_count++];
  memset(p->row, 0, sizeof *p->row);
  memcpy(p->row->id, s + 1, n);
  p->row->line = p->line;
  p->row->exact = true;
  memset(p->seen, 0, sizeof p->seen);
  return true;
}

/* `key = v` inside a row: the key's parser, each key once (but outcome,
 * refusal and was). */
static bool parse_row_key(spec_parser *p, const char *key, lctx_str k,
                          const char *v, const char *end) {
  int which = -1;
  for (int i = 0; i < ROW_KEY_COUNT; i++) {
    if (lctx_str_equal_cstr(k, ROW_KEYS[i]))
      which = i;
  }
  if (which < 0)
    return spec_fail_n(p, key, "unknown key", key, k.length);
  if (which != 2 && which != 7 && which != 9 && p->seen[which])
    return spec_fail_n(p, key, "duplicate key", key, k.length);
  p->seen[which] = true;
  switch (which) {
  case 0:
    return parse_op(p, v, end);
  case 1:
    return parse_when(p, v, end);
  case 2:
    return parse_outcome(p, v, end);
  case 3:
    if (lctx_str_equal(lctx_str_make(v, (size_t)(end - v)),
                       lctx_str_from_cstr("exact")))
      p->row->exact = true;
    else if (lctx_str_equal(lctx_str_make(v, (size_t)(end - v)),
                            lctx_str_from_cstr("class")))
      p->row->exact = false;
    else
      return spec_fail(p, v, "strict must be 'exact' or 'class'", NULL);
    return true;
  case 4:
    return spec_copy_value(p, v, end, p->row->source, sizeof p->row->source);
  case 6:
    if (lctx_str_equal_cstr(lctx_str_make(v, (size_t)(end - v)), "ir"))
      p->row->ir = true;
    else if (lctx_str_equal_cstr(lctx_str_make(v, (size_t)(end - v)), "sweep"))
      p->row->sweep = true;
    else if (!lctx_str_equal_cstr(lctx_str_make(v, (size_t)(end - v)),
                                  "outcome"))
      return spec_fail(p, v, "check must be 'outcome', 'ir' or 'sweep'", NULL);
    return true;
  case 7:
    return parse_refusal(p, v, end);
  case 8:
    return parse_bound(p, v, end);
  case 9:
    return spec_parse_row_was(p, v, end);
  default:
    return spec_copy_value(p, v, end, p->row->note, sizeof p->row->note);
  }
}

static bool parse_line(spec_parser *p, const char *s, const char *end) {
  s = spec_skip_space(s, end);
  while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
    end--;
  if (s == end || *s == '#')
    return true;
  if (*s == '[')
    return parse_header(p, s, end);
  const char *key = s;
  while (s < end && (islower((unsigned char)*s) || *s == '-' || *s == '_'))
    s++;
  lctx_str k = lctx_str_make(key, (size_t)(s - key));
  const char *eq = spec_skip_space(s, end);
  if (k.length == 0 || eq >= end || *eq != '=')
    return spec_fail(p, key, "expected 'key = value'", NULL);
  const char *v = spec_skip_space(eq + 1, end);
  if (p->fact)
    return spec_parse_fact_key(p, key, k, v, end);
  if (!p->row) {
    if (lctx_str_equal_cstr(k, "spec-version"))
      return spec_copy_value(p, v, end, p->spec->version,
                             sizeof p->spec->version);
    if (lctx_str_equal_cstr(k, "jax-commit"))
      return spec_copy_value(p, v, end, p->spec->jax_commit,
                             sizeof p->spec->jax_commit);
    if (lctx_str_equal_cstr(k, "releases"))
      return spec_parse_releases(p, v, end);
    return spec_fail_n(p, key, "unknown key before the first row:", key,
                       k.length);
  }
  return parse_row_key(p, key, k, v, end);
}

//===----------------------------------------------------------------------===//
// Compiling: templates into parts, rows indexed by operation
//===----------------------------------------------------------------------===//

/* The placeholder a checked template's `{` at `c` opens (check_template
 * accepted it), its closing brace in `*close`. */
static int placeholder_at(const char *c, const char **close) {
  *close = strchr(c, '}');
  lctx_placeholder ph;
  if (!*close || !lctx_classify_placeholder_from_name(
                     lctx_str_make(c + 1, (size_t)(*close - c - 1)), &ph))
    return -1;
  return (int)ph;
}

/* The placeholders of a checked template, a bit each. */
static uint32_t template_uses(const char *t) {
  uint32_t uses = 0;
  for (const char *c = t; *c; c++) {
    const char *close;
    if ((c[0] == '{' && c[1] == '{') || (c[0] == '}' && c[1] == '}')) {
      c++;
    } else if (c[0] == '{') {
      int ph = placeholder_at(c, &close);
      if (ph >= 0)
        uses |= 1u << ph;
      c = close ? close : c;
    }
  }
  return uses;
}

static bool add_part(lctx_spec_outcome *o, size_t offset, size_t length,
                     int placeholder) {
  if (o->part_count == LCTX_SPEC_MAX_PARTS)
    return false;
  o->parts[o->part_count++] =
      (lctx_spec_part){(uint16_t)offset, (uint16_t)length, (int8_t)placeholder};
  return true;
}

/* A checked registration template that is one placeholder alone: that
 * placeholder plus one; else 0. */
static uint8_t registration_part(const char *t) {
  const char *close = NULL;
  int ph = t[0] == '{' && t[1] != '{' ? placeholder_at(t, &close) : -1;
  return (uint8_t)(ph >= 0 && close[1] == '\0' ? ph + 1 : 0);
}

/* Splits `o->text` (checked) into parts: literal runs (a doubled brace
 * ends one and gives a part of one brace) and placeholders. */
static void compile_outcome(lctx_spec_outcome *o) {
  const char *t = o->text;
  o->part_count = 0;
  o->uses = template_uses(o->text) | template_uses(o->registration);
  o->registration_part = registration_part(o->registration);
  for (const char *c = t; *c;) {
    size_t run = strcspn(c, "{}");
    bool ok = true;
    if (run > 0) {
      ok = add_part(o, (size_t)(c - t), run, -1);
      c += run;
    } else if (c[0] == c[1]) { /* "{{" or "}}" */
      ok = add_part(o, (size_t)(c - t), 1, -1);
      c += 2;
    } else {
      const char *close;
      int ph = placeholder_at(c, &close);
      ok = ph >= 0 && add_part(o, 0, 0, ph);
      c = close ? close + 1 : c + strlen(c);
    }
    if (!ok) {
      o->part_count = LCTX_SPEC_MAX_PARTS + 1;
      return;
    }
  }
}

/* Whether every clause of `row` on feature `f` admits value `v`. */
static bool admits(const lctx_spec_row *row, int f, int v) {
  for (size_t i = 0; i < row->clause_count; i++) {
    const lctx_spec_clause *cl = &row->clauses[i];
    if ((int)cl->feature == f && (((cl->values >> v) & 1u) != 0) == cl->negate)
      return false;
  }
  return true;
}

/* The key of operation kind `op`: the feature its rows test most often,
 * and the rows admitting each of its values. */
static void index_by_key(lctx_spec *spec, unsigned op) {
  size_t tests[LCTX_FEATURE_COUNT] = {0};
  for (size_t k = 0; k < spec->op_row_count[op]; k++) {
    const lctx_spec_row *row = &spec->rows[spec->op_rows[op][k]];
    bool seen[LCTX_FEATURE_COUNT] = {false};
    for (size_t i = 0; i < row->clause_count; i++) {
      unsigned f = (unsigned)row->clauses[i].feature;
      if (f < LCTX_FEATURE_COUNT && !seen[f]) {
        seen[f] = true;
        tests[f]++;
      }
    }
  }
  int key = -1;
  for (int f = 0; f < LCTX_FEATURE_COUNT; f++) {
    if (tests[f] > 1 && (key < 0 || tests[f] > tests[key]))
      key = f;
  }
  spec->op_key[op] = key;
  for (int v = 0; key >= 0 && v <= LCTX_FEATURE_MAX_VALUES; v++) {
    for (size_t k = 0; k < spec->op_row_count[op]; k++) {
      uint8_t i = spec->op_rows[op][k];
      if (admits(&spec->rows[i], key, v))
        spec->key_rows[op][v][spec->key_row_count[op][v]++] = i;
    }
  }
}

/* The rows as sets: each in its operations' sets, and in the set of each
 * value of each feature its clauses admit. */
static void index_sets(lctx_spec *spec) {
  memset(spec->op_set, 0, sizeof spec->op_set);
  memset(spec->admit_set, 0, sizeof spec->admit_set);
  for (size_t i = 0; i < spec->row_count; i++) {
    const lctx_spec_row *row = &spec->rows[i];
    uint64_t bit = (uint64_t)1 << (i % 64);
    for (unsigned op = 0; op < LCTX_OP_KIND_COUNT; op++) {
      if (row->ops & (1u << op))
        spec->op_set[op][i / 64] |= bit;
    }
    for (int f = 0; f < LCTX_FEATURE_COUNT; f++) {
      for (int v = 0; v <= LCTX_FEATURE_MAX_VALUES; v++) {
        if (admits(row, f, v))
          spec->admit_set[f][v][i / 64] |= bit;
      }
    }
  }
}

static void compile_table(lctx_spec *spec) {
  memset(spec->op_row_count, 0, sizeof spec->op_row_count);
  memset(spec->key_row_count, 0, sizeof spec->key_row_count);
  for (size_t i = 0; i < spec->row_count; i++) {
    lctx_spec_row *row = &spec->rows[i];
    for (size_t k = 0; k < row->outcome_count && !row->sweep; k++)
      compile_outcome(&row->outcomes[k]);
    for (unsigned op = 0; op < LCTX_OP_KIND_COUNT; op++) {
      if (row->ops & (1u << op))
        spec->op_rows[op][spec->op_row_count[op]++] = (uint8_t)i;
    }
  }
  index_sets(spec);
  for (unsigned op = 0; op < LCTX_OP_KIND_COUNT; op++)
    index_by_key(spec, op);
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

bool lctx_spec_parse(const char *text, size_t length, const char *filename,
                     lctx_spec *out, lctx_buf *error) {
  memset(out, 0, sizeof *out);
  snprintf(out->filename, sizeof out->filename, "%s", filename);
  /* No `releases` line: the modelled commit alone. */
  memcpy(out->releases[0], LCTX_SPEC_MODELLED, sizeof LCTX_SPEC_MODELLED);
  spec_parser p = {filename, 0, text, error, out, NULL, NULL, {0}, false};
  const char *end = text + length;
  for (const char *s = text; s < end || p.line == 0;) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    const char *line_end = nl ? nl : end;
    p.line++;
    p.line_start = s;
    if (memchr(s, '\0', (size_t)(line_end - s)))
      return spec_fail(&p, memchr(s, '\0', (size_t)(line_end - s)),
                       "NUL byte in the table", NULL);
    if (!parse_line(&p, s, line_end))
      return false;
    if (!nl)
      break;
    s = nl + 1;
  }
  if (!finish_row(&p) || !spec_finish_fact(&p))
    return false;
  p.line_start = NULL;
  p.line = 1;
  if (out->version[0] == '\0')
    return spec_fail(&p, NULL, "missing 'spec-version'", NULL);
  if (out->row_count == 0)
    return spec_fail(&p, NULL, "the table has no rows", NULL);
  compile_table(out);
  for (size_t i = 0; i < out->was_outcome_count; i++)
    compile_outcome(&out->was_outcomes[i]);
  return lctx_spec_select(out, NULL, error);
}

static bool parse_file(const char *text, size_t length, const char *path,
                       void *out, lctx_buf *error) {
  return lctx_spec_parse(text, length, path, out, error);
}

bool lctx_spec_load(const char *path, lctx_spec *out, lctx_buf *error) {
  return lctx_file_parse(path, LCTX_SPEC_MAX_BYTES, parse_file, out, error);
}

bool lctx_spec_load_or_report(const char *path, lctx_spec *out, const char *who,
                              FILE *err) {
  char message[1024];
  lctx_buf e;
  lctx_buf_init(&e, message, sizeof message);
  if (lctx_spec_load(path, out, &e))
    return true;
  fprintf(err, "%s: ", who);
  lctx_escape_write(err, message, strlen(message));
  fputc('\n', err);
  return false;
}
