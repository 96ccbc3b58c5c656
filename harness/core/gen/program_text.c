/*
 * program_text.c - generated programs as text (program_text.h): the one
 * parser, naming the line and column of what is wrong, and the one
 * printer, canonical.
 */
#include "program_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const READS[LCTX_PROG_READ_COUNT] = {
    "none", "get", "optional", "attr", "host"};
static const char *const EFFECTS[LCTX_PROG_EFFECT_COUNT] = {"none", "ordered",
                                                            "unordered"};

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

#define MAX_WORDS 16

typedef struct reader {
  lctx_program_desc *p;
  char *why;
  size_t cap;
  size_t line;
  char *w[MAX_WORDS];
  size_t col[MAX_WORDS];
  size_t nw;
  int open_fun; /* the function being read, or -1 */
  int order;
  bool have_arg, done;
  int last_prim; /* the primitive whose rules may follow, or -1 */
} reader;

__attribute__((format(printf, 3, 4))) static bool fail(reader *r, size_t word,
                                                       const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  size_t col = word < r->nw ? r->col[word] : r->nw ? r->col[r->nw - 1] : 1;
  snprintf(r->why, r->cap, "%zu:%zu: %s", r->line, col, msg);
  return false;
}

static bool valid_name(const char *w) {
  size_t n = strlen(w);
  if (n == 0 || n >= LCTX_PROG_NAME_MAX || w[0] < 'a' || w[0] > 'z')
    return false;
  for (size_t i = 0; i < n; i++)
    if (!((w[i] >= 'a' && w[i] <= 'z') || (w[i] >= '0' && w[i] <= '9') ||
          w[i] == '_'))
      return false;
  return true;
}

static bool name_taken(const reader *r, const char *w) {
  return lctx_prog_prim_find(r->p, w) >= 0 ||
         lctx_prog_fun_find(r->p, w, r->p->nfun) >= 0 || strcmp(w, "x") == 0 ||
         (w[0] == 'v' && w[1] >= '0' && w[1] <= '9');
}

static bool new_name(reader *r, size_t word, char *dst) {
  const char *w = r->w[word];
  if (!valid_name(w))
    return fail(r, word,
                "'%s' is not a name ([a-z][a-z0-9_]*, at most %d "
                "bytes)",
                w, LCTX_PROG_NAME_MAX - 1);
  if (name_taken(r, w))
    return fail(r, word, "'%s' is already defined (or is x or vN)", w);
  snprintf(dst, LCTX_PROG_NAME_MAX, "%s", w);
  return true;
}

static bool number(const char *w, long lo, long hi, long *out) {
  if (!*w || strlen(w) > 12)
    return false;
  char *end;
  long v = strtol(w, &end, 10);
  if (*end || v < lo || v > hi || (w[0] == '0' && w[1]) ||
      (w[0] == '-' && (w[1] == '0' || !w[1])) || w[0] == '+')
    return false;
  *out = v;
  return true;
}

static bool read_value(reader *r, size_t word, size_t defined,
                       lctx_prog_value *v) {
  const char *w = r->w[word];
  long k;
  if (strcmp(w, "x") == 0) {
    *v = -1;
    return true;
  }
  if (w[0] == 'v' && number(w + 1, 0, LCTX_PROG_MAX_STMTS - 1, &k) &&
      (size_t)k < defined) {
    *v = (int)k;
    return true;
  }
  return fail(r, word, "'%s' is not x or a value defined before (v0..v%zu)", w,
              defined ? defined - 1 : 0);
}

static bool read_fun_ref(reader *r, size_t word, int *f) {
  *f = lctx_prog_fun_find(r->p, r->w[word], (size_t)r->open_fun);
  if (*f < 0)
    return fail(r, word, "'%s' is not a function defined before", r->w[word]);
  return true;
}

static bool need_words(reader *r, size_t lo, size_t hi, const char *form) {
  if (r->nw < lo || r->nw > hi)
    return fail(r, r->nw < lo ? r->nw : hi, "expected: %s", form);
  return true;
}

static bool read_arg(reader *r) {
  lctx_program_desc *p = r->p;
  if (r->have_arg)
    return fail(r, 0, "a second arg line");
  if (r->p->nfun || r->p->nprim)
    return fail(r, 0, "the arg line comes before any prim or fun");
  if (!need_words(r, 2, 2 + LCTX_PROG_MAX_DIMS, "arg float32|int32 D..."))
    return false;
  if (strcmp(r->w[1], "float32") && strcmp(r->w[1], "int32"))
    return fail(r, 1, "'%s' is not float32 or int32", r->w[1]);
  p->int32 = strcmp(r->w[1], "int32") == 0;
  p->ndims = r->nw - 2;
  for (size_t i = 0; i < p->ndims; i++) {
    const char *w = r->w[2 + i];
    long d;
    bool sym = w[0] == 'b';
    if (!number(w + sym, 1, LCTX_PROG_MAX_DIM, &d))
      return fail(r, 2 + i, "'%s' is not a dimension (1 to %d, or bN)", w,
                  LCTX_PROG_MAX_DIM);
    if (sym && p->symbolic >= 0)
      return fail(r, 2 + i, "a second symbolic dimension");
    if (sym)
      p->symbolic = (int)i;
    p->dims[i] = (int)d;
  }
  r->have_arg = true;
  return true;
}

static bool read_option(reader *r, size_t word, const char *key,
                        const char *const *values, int n, int *out) {
  size_t k = strlen(key);
  const char *w = r->w[word];
  if (strncmp(w, key, k) != 0 || w[k] != '=')
    return false;
  *out = lctx_prog_find_text(values, n, w + k + 1);
  if (*out < 0) {
    fail(r, word, "'%s' is not a value of %s", w + k + 1, key);
    *out = -2;
  }
  return true;
}

static bool read_prim(reader *r) {
  lctx_program_desc *p = r->p;
  if (!need_words(r, 2, 4, "prim NAME [effect=E] [cache=yes|no]"))
    return false;
  if (p->nprim == LCTX_PROG_MAX_PRIMS)
    return fail(r, 0, "more than %d primitives", LCTX_PROG_MAX_PRIMS);
  lctx_prog_prim *q = &p->prim[p->nprim];
  memset(q, 0, sizeof *q);
  q->cache = true;
  if (!new_name(r, 1, q->name))
    return false;
  bool seen_e = false, seen_c = false;
  static const char *const yesno[] = {"no", "yes"};
  for (size_t i = 2; i < r->nw; i++) {
    int v;
    if (!seen_e && read_option(r, i, "effect", EFFECTS, 3, &v)) {
      if (v < 0)
        return false;
      q->effect = (lctx_prog_effect)v;
      seen_e = true;
    } else if (!seen_c && read_option(r, i, "cache", yesno, 2, &v)) {
      if (v < 0)
        return false;
      q->cache = v == 1;
      seen_c = true;
    } else {
      return fail(r, i, "'%s' is not effect=... or cache=... (once each)",
                  r->w[i]);
    }
  }
  q->order = r->order++;
  r->last_prim = (int)p->nprim++;
  return true;
}

static bool read_rule(reader *r) {
  lctx_program_desc *p = r->p;
  if (!need_words(r, 5, 6, "rule PRIM PLATFORM add C|fun F [read=R]"))
    return false;
  int q = lctx_prog_prim_find(p, r->w[1]);
  if (q < 0)
    return fail(r, 1, "'%s' is not a primitive defined before", r->w[1]);
  if (q != r->last_prim)
    return fail(r, 0, "the rules of %s follow its prim line directly", r->w[1]);
  lctx_prog_prim *pr = &p->prim[q];
  if (pr->nr == LCTX_PROG_MAX_RULES)
    return fail(r, 0, "more than %d rules", LCTX_PROG_MAX_RULES);
  lctx_prog_rule *u = &pr->r[pr->nr];
  memset(u, 0, sizeof *u);
  u->platform = lctx_prog_find_text(lctx_prog_platforms,
                                    LCTX_PROG_PLATFORM_COUNT, r->w[2]);
  if (u->platform < 0)
    return fail(r, 2, "'%s' is not cpu, cuda, rocm, tpu, oneapi or default",
                r->w[2]);
  for (size_t i = 0; i < pr->nr; i++)
    if (pr->r[i].platform == u->platform)
      return fail(r, 2, "a second rule of %s for %s", pr->name, r->w[2]);
  if (strcmp(r->w[3], "add") == 0) {
    if (!number(r->w[4], -LCTX_PROG_MAX_CONST, LCTX_PROG_MAX_CONST, &u->c))
      return fail(r, 4, "'%s' is not an integer from -%d to %d", r->w[4],
                  LCTX_PROG_MAX_CONST, LCTX_PROG_MAX_CONST);
  } else if (strcmp(r->w[3], "fun") == 0) {
    u->is_fun = true;
    if (!read_fun_ref(r, 4, &u->fun))
      return false;
  } else {
    return fail(r, 3, "'%s' is not add or fun", r->w[3]);
  }
  if (r->nw == 6) {
    int v;
    if (!read_option(r, 5, "read", READS, LCTX_PROG_READ_COUNT, &v))
      return fail(r, 5, "'%s' is not read=...", r->w[5]);
    if (v < 0)
      return false;
    u->read = (lctx_prog_read)v;
  }
  pr->nr++;
  return true;
}

static bool read_fun(reader *r) {
  lctx_program_desc *p = r->p;
  if (!need_words(r, 2, 3, "fun NAME [jit]"))
    return false;
  if (!r->have_arg)
    return fail(r, 0, "the arg line comes before any fun");
  if (p->nfun == LCTX_PROG_MAX_FUNS)
    return fail(r, 0, "more than %d functions", LCTX_PROG_MAX_FUNS);
  lctx_prog_fun *f = &p->fun[p->nfun];
  memset(f, 0, sizeof *f);
  if (!new_name(r, 1, f->name))
    return false;
  if (r->nw == 3 && strcmp(r->w[2], "jit") != 0)
    return fail(r, 2, "'%s' is not jit", r->w[2]);
  f->jit = r->nw == 3;
  f->order = r->order++;
  r->open_fun = (int)p->nfun++;
  r->last_prim = -1;
  return true;
}

static bool read_platform_branches(reader *r, lctx_prog_stmt *s) {
  if (r->nw < 5 || r->nw > 4 + LCTX_PROG_MAX_BRANCHES)
    return fail(r, r->nw, "expected: vN = platform A PLATFORM=F ... (1 to %d)",
                LCTX_PROG_MAX_BRANCHES);
  for (size_t i = 4; i < r->nw; i++) {
    char *eq = strchr(r->w[i], '=');
    if (!eq)
      return fail(r, i, "'%s' is not PLATFORM=F", r->w[i]);
    *eq = '\0';
    int pl = lctx_prog_find_text(lctx_prog_platforms, LCTX_PROG_PLATFORM_COUNT,
                                 r->w[i]);
    if (pl < 0)
      return fail(r, i, "'%s' is not a platform or default", r->w[i]);
    for (size_t k = 0; k < s->nfn; k++)
      if (s->plat[k] == pl)
        return fail(r, i, "a second branch for %s", r->w[i]);
    if (s->nfn && s->plat[s->nfn - 1] == LCTX_PROG_DEFAULT)
      return fail(r, i, "default=G comes last");
    r->col[i] += (size_t)(eq + 1 - r->w[i]);
    r->w[i] = eq + 1;
    s->plat[s->nfn] = pl;
    if (!read_fun_ref(r, i, &s->fn[s->nfn]))
      return false;
    s->nfn++;
  }
  if (s->nfn == 1 && s->plat[0] == LCTX_PROG_DEFAULT)
    return fail(r, 4,
                "a platform statement names 1 to 5 platforms besides "
                "default");
  return true;
}

static bool read_stmt(reader *r) {
  lctx_program_desc *p = r->p;
  lctx_prog_fun *f = &p->fun[r->open_fun];
  long k;
  if (!number(r->w[0] + 1, 0, LCTX_PROG_MAX_STMTS - 1, &k) || (size_t)k != f->n)
    return fail(r, 0, "expected v%zu (statements are numbered from 0)", f->n);
  if (f->n == LCTX_PROG_MAX_STMTS)
    return fail(r, 0, "more than %d statements", LCTX_PROG_MAX_STMTS);
  if (r->nw < 4 || strcmp(r->w[1], "=") != 0)
    return fail(r, 1, "expected: vN = STATEMENT ARGS");
  lctx_prog_stmt *s = &f->st[f->n];
  memset(s, 0, sizeof *s);
  s->b = -1;
  int kind =
      lctx_prog_find_text(lctx_prog_kind_names, LCTX_PS_KIND_COUNT, r->w[2]);
  if (kind < 0)
    return fail(r, 2, "'%s' is not a statement", r->w[2]);
  s->kind = (lctx_prog_kind)kind;
  size_t arg = 3;
  if (kind == LCTX_PS_JAX) {
    if (r->nw < 5)
      return fail(r, r->nw, "expected: vN = jax OP A [B]");
    s->what = lctx_prog_op_find(r->w[3]);
    if (s->what < 0)
      return fail(r, 3, "'%s' is not a JAX operation of PROGRAMS.md", r->w[3]);
    if (r->nw != (size_t)(4 + lctx_prog_op_arity(s->what)))
      return fail(r, r->nw > 4 ? 4 : r->nw, "jax %s takes %d values",
                  lctx_prog_op_name(s->what), lctx_prog_op_arity(s->what));
    arg = 4;
  } else if (kind == LCTX_PS_PRIM) {
    if (!need_words(r, 5, 5, "vN = prim P A"))
      return false;
    s->what = lctx_prog_prim_find(p, r->w[3]);
    if (s->what < 0)
      return fail(r, 3, "'%s' is not a primitive defined before", r->w[3]);
    arg = 4;
  } else if (kind == LCTX_PS_CALL) {
    if (!need_words(r, 5, 5, "vN = call F A"))
      return false;
    s->nfn = 1;
    if (!read_fun_ref(r, 3, &s->fn[0]))
      return false;
    arg = 4;
  }
  if (!read_value(r, arg, f->n, &s->a))
    return false;
  if (lctx_prog_stmt_binary(s) && !read_value(r, arg + 1, f->n, &s->b))
    return false;
  switch (s->kind) {
  case LCTX_PS_WHILE:
  case LCTX_PS_SCAN:
  case LCTX_PS_EXPORT:
    if (!need_words(r, 5, 5, "vN = KIND A F"))
      return false;
    s->nfn = 1;
    if (!read_fun_ref(r, 4, &s->fn[0]))
      return false;
    break;
  case LCTX_PS_COND:
  case LCTX_PS_SWITCH:
    if (!need_words(r, 6, s->kind == LCTX_PS_COND ? 6 : 7,
                    s->kind == LCTX_PS_COND ? "vN = cond A F G"
                                            : "vN = switch A F G [H]"))
      return false;
    for (size_t i = 4; i < r->nw; i++)
      if (!read_fun_ref(r, i, &s->fn[s->nfn++]))
        return false;
    break;
  case LCTX_PS_PLATFORM:
    if (!read_platform_branches(r, s))
      return false;
    break;
  case LCTX_PS_PRINT:
    if (!need_words(r, 4, 4, "vN = print A"))
      return false;
    break;
  case LCTX_PS_CALLBACK:
  case LCTX_PS_SHARD: {
    bool cb = s->kind == LCTX_PS_CALLBACK;
    if (!need_words(r, 5, 5, cb ? "vN = callback A KIND" : "vN = shard A COLL"))
      return false;
    s->what = cb ? lctx_prog_find_text(lctx_prog_callbacks,
                                       LCTX_PROG_CALLBACK_COUNT, r->w[4])
                 : lctx_prog_find_text(lctx_prog_collectives,
                                       LCTX_PROG_COLL_COUNT, r->w[4]);
    if (s->what < 0)
      return fail(r, 4, "'%s' is not a %s of PROGRAMS.md", r->w[4],
                  cb ? "callback kind" : "collective");
    break;
  }
  default:
    break;
  }
  f->n++;
  return true;
}

static bool read_ret(reader *r) {
  lctx_program_desc *p = r->p;
  lctx_prog_fun *f = &p->fun[r->open_fun];
  if (!need_words(r, 2, 2, "ret V"))
    return false;
  if (!read_value(r, 1, f->n, &f->ret))
    return false;
  if (strcmp(f->name, "main") == 0)
    r->done = true;
  r->open_fun = -1;
  return true;
}

static bool read_line(reader *r) {
  const char *w = r->w[0];
  if (r->done)
    return fail(r, 0, "nothing may follow the function main");
  if (r->open_fun >= 0) {
    if (strcmp(w, "ret") == 0)
      return read_ret(r);
    if (w[0] == 'v')
      return read_stmt(r);
    return fail(r, 0,
                "'%s': expected a statement vN = ... or ret V (the "
                "function %s is open)",
                w, r->p->fun[r->open_fun].name);
  }
  if (strcmp(w, "arg") == 0)
    return read_arg(r);
  if (strcmp(w, "prim") == 0)
    return read_prim(r);
  if (strcmp(w, "rule") == 0)
    return read_rule(r);
  if (strcmp(w, "fun") == 0)
    return read_fun(r);
  return fail(r, 0, "'%s' is not arg, prim, rule or fun", w);
}

/* Splits line `s` (NUL-terminated, modified) into single-space words. */
static bool split(reader *r, char *s) {
  r->nw = 0;
  size_t col = 1;
  char *at = s;
  for (;;) {
    if (*at == ' ' || *at == '\0') {
      if (at == s || (*at == ' ' && at[1] == ' ') ||
          (*at == '\0' && at > s && at[-1] == ' ') || (*at == ' ' && !at[1])) {
        r->nw = 0;
        r->col[0] = col;
        snprintf(r->why, r->cap,
                 "%zu:%zu: words are separated by single "
                 "spaces, with none at either end",
                 r->line, col);
        return false;
      }
      if (r->nw == MAX_WORDS) {
        snprintf(r->why, r->cap, "%zu:%zu: more than %d words", r->line, col,
                 MAX_WORDS);
        return false;
      }
      r->w[r->nw] = s;
      r->col[r->nw++] = col - (size_t)(at - s);
      if (*at == '\0')
        return true;
      *at = '\0';
      s = at + 1;
    }
    at++;
    col++;
  }
}

bool lctx_program_parse(const char *text, size_t n, lctx_program_desc *p,
                        char *why, size_t cap) {
  memset(p, 0, sizeof *p);
  p->symbolic = -1;
  reader r = {.p = p, .why = why, .cap = cap, .open_fun = -1, .last_prim = -1};
  if (n > LCTX_PROG_TEXT_MAX * 4) {
    snprintf(why, cap, "1:1: longer than %d bytes", LCTX_PROG_TEXT_MAX * 4);
    return false;
  }
  char line[512];
  size_t at = 0;
  for (r.line = 1; at < n; r.line++) {
    size_t end = at;
    while (end < n && text[end] != '\n')
      end++;
    size_t len = end - at;
    if (len && text[at + len - 1] == '\r')
      len--;
    if (len >= sizeof line) {
      snprintf(why, cap, "%zu:1: a line longer than %zu bytes", r.line,
               sizeof line - 1);
      return false;
    }
    for (size_t i = 0; i < len; i++) {
      unsigned char c = (unsigned char)text[at + i];
      if (c < 0x20 || c > 0x7e) {
        snprintf(why, cap, "%zu:%zu: byte 0x%02x (only printable ASCII)",
                 r.line, i + 1, c);
        return false;
      }
    }
    memcpy(line, text + at, len);
    line[len] = '\0';
    at = end + 1;
    if (r.line == 1) {
      if (strcmp(line, "lctx-program 1") != 0) {
        snprintf(why, cap,
                 "1:1: expected 'lctx-program 1' (the format and "
                 "its version)");
        return false;
      }
      continue;
    }
    if (len == 0 || line[0] == '#')
      continue;
    if (!split(&r, line) || !read_line(&r))
      return false;
  }
  if (r.line == 1) {
    snprintf(why, cap, "1:1: empty: expected 'lctx-program 1'");
    return false;
  }
  if (!r.done) {
    snprintf(why, cap, "%zu:1: %s", r.line,
             r.open_fun >= 0 ? "the last function has no ret"
             : !r.have_arg   ? "no arg line"
                             : "no function main (the last function)");
    return false;
  }
  for (size_t i = 0; i < p->nprim; i++)
    if (p->prim[i].nr == 0) {
      snprintf(why, cap, "%zu:1: the primitive %s has no rule", r.line,
               p->prim[i].name);
      return false;
    }
  return true;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

typedef struct writer {
  char *out;
  size_t cap, len;
  bool full;
} writer;

__attribute__((format(printf, 2, 3))) static void put(writer *w,
                                                      const char *fmt, ...) {
  if (w->full)
    return;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(w->out + w->len, w->cap - w->len, fmt, ap);
  va_end(ap);
  if (k < 0 || (size_t)k >= w->cap - w->len)
    w->full = true;
  else
    w->len += (size_t)k;
}

static void put_value(writer *w, lctx_prog_value v) {
  if (v < 0)
    put(w, " x");
  else
    put(w, " v%d", v);
}

static void print_prim(writer *w, const lctx_program_desc *p,
                       const lctx_prog_prim *q) {
  put(w, "prim %s", q->name);
  if (q->effect != LCTX_PROG_EFFECT_NONE)
    put(w, " effect=%s", EFFECTS[q->effect]);
  if (!q->cache)
    put(w, " cache=no");
  put(w, "\n");
  for (size_t i = 0; i < q->nr; i++) {
    const lctx_prog_rule *u = &q->r[i];
    put(w, "rule %s %s ", q->name, lctx_prog_platforms[u->platform]);
    if (u->is_fun)
      put(w, "fun %s", p->fun[u->fun].name);
    else
      put(w, "add %ld", u->c);
    if (u->read != LCTX_PROG_READ_NONE)
      put(w, " read=%s", READS[u->read]);
    put(w, "\n");
  }
}

static void print_fun(writer *w, const lctx_program_desc *p,
                      const lctx_prog_fun *f) {
  put(w, "fun %s%s\n", f->name, f->jit ? " jit" : "");
  for (size_t i = 0; i < f->n; i++) {
    const lctx_prog_stmt *s = &f->st[i];
    put(w, "v%zu = %s", i, lctx_prog_kind_names[s->kind]);
    if (s->kind == LCTX_PS_JAX)
      put(w, " %s", lctx_prog_op_name(s->what));
    if (s->kind == LCTX_PS_PRIM)
      put(w, " %s", p->prim[s->what].name);
    if (s->kind == LCTX_PS_CALL)
      put(w, " %s", p->fun[s->fn[0]].name);
    put_value(w, s->a);
    if (lctx_prog_stmt_binary(s))
      put_value(w, s->b);
    for (size_t k = 0; k < s->nfn && s->kind != LCTX_PS_CALL; k++) {
      if (s->kind == LCTX_PS_PLATFORM)
        put(w, " %s=%s", lctx_prog_platforms[s->plat[k]],
            p->fun[s->fn[k]].name);
      else
        put(w, " %s", p->fun[s->fn[k]].name);
    }
    if (s->kind == LCTX_PS_CALLBACK)
      put(w, " %s", lctx_prog_callbacks[s->what]);
    if (s->kind == LCTX_PS_SHARD)
      put(w, " %s", lctx_prog_collectives[s->what]);
    put(w, "\n");
  }
  put(w, "ret");
  put_value(w, f->ret);
  put(w, "\n");
}

size_t lctx_program_print(const lctx_program_desc *p, char *out, size_t cap) {
  writer w = {out, cap, 0, cap == 0};
  put(&w, "lctx-program 1\narg %s", p->int32 ? "int32" : "float32");
  for (size_t i = 0; i < p->ndims; i++)
    put(&w, " %s%d", (int)i == p->symbolic ? "b" : "", p->dims[i]);
  put(&w, "\n");
  int last = 0;
  for (size_t i = 0; i < p->nprim; i++)
    last = p->prim[i].order > last ? p->prim[i].order : last;
  for (size_t i = 0; i < p->nfun; i++)
    last = p->fun[i].order > last ? p->fun[i].order : last;
  for (int o = 0; o <= last; o++) {
    for (size_t i = 0; i < p->nprim; i++)
      if (p->prim[i].order == o)
        print_prim(&w, p, &p->prim[i]);
    for (size_t i = 0; i < p->nfun; i++)
      if (p->fun[i].order == o)
        print_fun(&w, p, &p->fun[i]);
  }
  if (w.full) {
    if (cap)
      out[0] = '\0';
    return 0;
  }
  return w.len;
}

bool lctx_program_check(const lctx_program_desc *p, char *why, size_t cap) {
  char *text = malloc(LCTX_PROG_TEXT_MAX);
  if (!text) {
    snprintf(why, cap, "out of memory");
    return false;
  }
  size_t n = lctx_program_print(p, text, LCTX_PROG_TEXT_MAX);
  lctx_program_desc *q = malloc(sizeof *q);
  bool ok = false;
  if (!n)
    snprintf(why, cap, "longer than %d bytes as text", LCTX_PROG_TEXT_MAX);
  else if (!q)
    snprintf(why, cap, "out of memory");
  else
    ok = lctx_program_parse(text, n, q, why, cap);
  free(q);
  free(text);
  return ok;
}
