/*
 * program.c - generated programs (program.h): the format of
 * conformance/sweep/PROGRAMS.md read, written, drawn and reduced.
 */
#include "program.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const lctx_prog_platforms[LCTX_PROG_PLATFORM_COUNT] = {
    "cpu", "cuda", "rocm", "tpu", "oneapi", "default"};

const char *const lctx_prog_kind_names[LCTX_PS_KIND_COUNT] = {
    "prim", "call",     "jax",   "cond",     "switch", "while",
    "scan", "platform", "print", "callback", "export", "shard"};

const char *const lctx_prog_callbacks[LCTX_PROG_CALLBACK_COUNT] = {
    "io_ordered", "io_unordered", "pure", "debug"};

const char *const lctx_prog_collectives[LCTX_PROG_COLL_COUNT] = {
    "psum",     "pmax",       "pmin",         "pmean",     "all_gather",
    "ppermute", "axis_index", "psum_scatter", "all_to_all"};

static const char *const READS[LCTX_PROG_READ_COUNT] = {
    "none", "get", "optional", "attr", "host"};
static const char *const EFFECTS[LCTX_PROG_EFFECT_COUNT] = {"none", "ordered",
                                                            "unordered"};

/* The JAX operations of PROGRAMS.md, with their arity. */
static const struct {
  const char *name;
  int arity;
} OPS[] = {
    {"neg", 1},
    {"abs", 1},
    {"sign", 1},
    {"square", 1},
    {"cumsum", 1},
    {"cumprod", 1},
    {"cummax", 1},
    {"sort", 1},
    {"rev", 1},
    {"transpose", 1},
    {"reduce_sum", 1},
    {"argmax", 1},
    {"round", 1},
    {"floor", 1},
    {"ceil", 1},
    {"sin", 1},
    {"cos", 1},
    {"tanh", 1},
    {"exp", 1},
    {"log1p", 1},
    {"logistic", 1},
    {"erf", 1},
    {"sqrt", 1},
    {"rsqrt", 1},
    {"fft", 1},
    {"cholesky", 1},
    {"qr", 1},
    {"svd", 1},
    {"eigh", 1},
    {"triangular_solve", 1},
    {"lu", 1},
    {"add", 2},
    {"sub", 2},
    {"mul", 2},
    {"max", 2},
    {"min", 2},
    {"pow", 2},
    {"atan2", 2},
    {"rem", 2},
    {"dot", 2},
    {"select", 2},
    {"concat", 2},
    {"pad", 2},
    {"gather", 2},
    {"scatter_add", 2},
    {"dynamic_slice", 2},
    {"dynamic_update_slice", 2},
    {"clamp", 2},
};
enum { OP_COUNT = sizeof OPS / sizeof OPS[0] };

size_t lctx_prog_op_count(void) {
  return OP_COUNT;
}
const char *lctx_prog_op_name(int op) {
  return op >= 0 && op < OP_COUNT ? OPS[op].name : "?";
}
int lctx_prog_op_arity(int op) {
  return op >= 0 && op < OP_COUNT ? OPS[op].arity : 0;
}

const char *const lctx_prog_feature_names[LCTX_PROG_FEATURE_COUNT] = {
    "stmt:prim",
    "stmt:call",
    "stmt:jax",
    "stmt:cond",
    "stmt:switch",
    "stmt:while",
    "stmt:scan",
    "stmt:platform",
    "stmt:print",
    "stmt:callback",
    "stmt:export",
    "stmt:shard",
    "jit",
    "jit-reused",
    "rule:add",
    "rule:fun",
    "rule:default",
    "rule:nested-prim",
    "effect:ordered",
    "effect:unordered",
    "uncacheable",
    "read:get",
    "read:optional",
    "read:attr",
    "read:host",
    "arg:symbolic",
    "arg:int32",
    "arg:scalar",
    "prim-in-control",
    "platform+rule",
    "export-nested",
    "several-rules"};

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static int find_text(const char *const *names, int n, const char *w) {
  for (int i = 0; i < n; i++)
    if (strcmp(names[i], w) == 0)
      return i;
  return -1;
}

static int find_op(const char *w) {
  for (int i = 0; i < OP_COUNT; i++)
    if (strcmp(OPS[i].name, w) == 0)
      return i;
  return -1;
}

static int find_prim(const lctx_program_desc *p, const char *w) {
  for (size_t i = 0; i < p->nprim; i++)
    if (strcmp(p->prim[i].name, w) == 0)
      return (int)i;
  return -1;
}

/* A function defined and closed (not `upto`, the one being read). */
static int find_fun(const lctx_program_desc *p, const char *w, size_t upto) {
  for (size_t i = 0; i < upto; i++)
    if (strcmp(p->fun[i].name, w) == 0)
      return (int)i;
  return -1;
}

static bool binary(const lctx_prog_stmt *s) {
  return s->kind == LCTX_PS_JAX && OPS[s->what].arity == 2;
}

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
  return find_prim(r->p, w) >= 0 || find_fun(r->p, w, r->p->nfun) >= 0 ||
         strcmp(w, "x") == 0 || (w[0] == 'v' && w[1] >= '0' && w[1] <= '9');
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
  *f = find_fun(r->p, r->w[word], (size_t)r->open_fun);
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
  *out = find_text(values, n, w + k + 1);
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
  int q = find_prim(p, r->w[1]);
  if (q < 0)
    return fail(r, 1, "'%s' is not a primitive defined before", r->w[1]);
  if (q != r->last_prim)
    return fail(r, 0, "the rules of %s follow its prim line directly", r->w[1]);
  lctx_prog_prim *pr = &p->prim[q];
  if (pr->nr == LCTX_PROG_MAX_RULES)
    return fail(r, 0, "more than %d rules", LCTX_PROG_MAX_RULES);
  lctx_prog_rule *u = &pr->r[pr->nr];
  memset(u, 0, sizeof *u);
  u->platform =
      find_text(lctx_prog_platforms, LCTX_PROG_PLATFORM_COUNT, r->w[2]);
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
    int pl = find_text(lctx_prog_platforms, LCTX_PROG_PLATFORM_COUNT, r->w[i]);
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
  int kind = find_text(lctx_prog_kind_names, LCTX_PS_KIND_COUNT, r->w[2]);
  if (kind < 0)
    return fail(r, 2, "'%s' is not a statement", r->w[2]);
  s->kind = (lctx_prog_kind)kind;
  size_t arg = 3;
  if (kind == LCTX_PS_JAX) {
    if (r->nw < 5)
      return fail(r, r->nw, "expected: vN = jax OP A [B]");
    s->what = find_op(r->w[3]);
    if (s->what < 0)
      return fail(r, 3, "'%s' is not a JAX operation of PROGRAMS.md", r->w[3]);
    if (r->nw != (size_t)(4 + OPS[s->what].arity))
      return fail(r, r->nw > 4 ? 4 : r->nw, "jax %s takes %d values",
                  OPS[s->what].name, OPS[s->what].arity);
    arg = 4;
  } else if (kind == LCTX_PS_PRIM) {
    if (!need_words(r, 5, 5, "vN = prim P A"))
      return false;
    s->what = find_prim(p, r->w[3]);
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
  if (binary(s) && !read_value(r, arg + 1, f->n, &s->b))
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
    s->what =
        cb ? find_text(lctx_prog_callbacks, LCTX_PROG_CALLBACK_COUNT, r->w[4])
           : find_text(lctx_prog_collectives, LCTX_PROG_COLL_COUNT, r->w[4]);
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
      put(w, " %s", OPS[s->what].name);
    if (s->kind == LCTX_PS_PRIM)
      put(w, " %s", p->prim[s->what].name);
    if (s->kind == LCTX_PS_CALL)
      put(w, " %s", p->fun[s->fn[0]].name);
    put_value(w, s->a);
    if (binary(s))
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

size_t lctx_program_size(const lctx_program_desc *p) {
  size_t n = 0;
  for (size_t i = 0; i < p->nprim; i++)
    n += p->prim[i].nr;
  for (size_t i = 0; i < p->nfun; i++)
    n += p->fun[i].n;
  return n;
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

//===----------------------------------------------------------------------===//
// Drawing
//===----------------------------------------------------------------------===//

static uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

void lctx_prog_source_seed(lctx_prog_source *s, uint64_t seed, uint64_t index) {
  memset(s, 0, sizeof *s);
  s->state = mix64(seed ^ mix64(index + 0x51ed));
}

void lctx_prog_source_bytes(lctx_prog_source *s, const uint8_t *data,
                            size_t n) {
  memset(s, 0, sizeof *s);
  s->data = data;
  s->n = n;
}

/* A number in [0, bound). */
static unsigned draw(lctx_prog_source *s, unsigned bound) {
  if (bound <= 1)
    return 0;
  if (s->data) {
    unsigned v = 0;
    if (s->pos < s->n)
      v = s->data[s->pos++];
    if (bound > 256 && s->pos < s->n)
      v = v << 8 | s->data[s->pos++];
    return v % bound;
  }
  s->state = mix64(s->state);
  return (unsigned)(s->state % bound);
}

static bool chance(lctx_prog_source *s, unsigned percent) {
  return draw(s, 100) < percent;
}

/* A value defined in `f` so far (or x). */
static lctx_prog_value any_value(lctx_prog_source *s, const lctx_prog_fun *f) {
  unsigned k = draw(s, (unsigned)f->n + 1);
  /* Prefer recent values: the program then chains. */
  if (f->n && chance(s, 60))
    return (lctx_prog_value)(f->n - 1);
  return k == 0 ? -1 : (lctx_prog_value)(k - 1);
}

static int any_fun(lctx_prog_source *s, size_t nfun) {
  return (int)draw(s, (unsigned)nfun);
}

typedef struct drawing {
  lctx_prog_source *s;
  lctx_program_desc *p;
  int order;
  long next_const;
} drawing;

/* Whether function f binds a primitive with two rules or more. */
static bool uses_dispatching_prim(const lctx_program_desc *p, int f) {
  for (size_t k = 0; k < p->fun[f].n; k++) {
    const lctx_prog_stmt *st = &p->fun[f].st[k];
    if (st->kind == LCTX_PS_PRIM && p->prim[st->what].nr > 1)
      return true;
  }
  return false;
}

static void draw_prim(drawing *d) {
  lctx_program_desc *p = d->p;
  lctx_prog_source *s = d->s;
  lctx_prog_prim *q = &p->prim[p->nprim];
  memset(q, 0, sizeof *q);
  snprintf(q->name, sizeof q->name, "p%zu", p->nprim);
  q->effect = chance(s, 85)   ? LCTX_PROG_EFFECT_NONE
              : chance(s, 50) ? LCTX_PROG_EFFECT_ORDERED
                              : LCTX_PROG_EFFECT_UNORDERED;
  q->cache = chance(s, 75);
  size_t rules = 1 + draw(s, 3);
  bool used[LCTX_PROG_PLATFORM_COUNT] = {0};
  /* Layering, where defects live: half the time a primitive whose default
   * rule lowers a function that binds a primitive with several rules. */
  int layer = -1;
  for (size_t i = 0; i < p->nfun && layer < 0; i++)
    if (uses_dispatching_prim(p, (int)i))
      layer = (int)i;
  if (layer >= 0 && chance(s, 50)) {
    lctx_prog_rule *u = &q->r[q->nr++];
    memset(u, 0, sizeof *u);
    u->platform = LCTX_PROG_DEFAULT;
    u->is_fun = true;
    u->fun = layer;
    used[LCTX_PROG_DEFAULT] = true;
  }
  for (size_t i = 0; i < rules; i++) {
    /* default is drawn more often than any one platform. */
    int pl = chance(s, 30) ? LCTX_PROG_DEFAULT
                           : (int)draw(s, LCTX_PROG_PLATFORM_COUNT - 1);
    if (used[pl])
      continue;
    used[pl] = true;
    lctx_prog_rule *u = &q->r[q->nr++];
    memset(u, 0, sizeof *u);
    u->platform = pl;
    /* Functions drawn before it may be its rule (lower_fun). */
    if (p->nfun && chance(s, 45)) {
      u->is_fun = true;
      u->fun = any_fun(s, p->nfun);
    } else {
      u->c = d->next_const;
      d->next_const = d->next_const * 10 % 1000000;
      if (d->next_const == 0)
        d->next_const = 3;
    }
    u->read =
        chance(s, 88) ? LCTX_PROG_READ_NONE : (lctx_prog_read)(1 + draw(s, 4));
  }
  q->order = d->order++;
  p->nprim++;
}

/* The statement kinds a function draws from, with their weights (out of
 * 100) in a function and in main; one whose primitives or functions are
 * missing becomes a JAX operation. */
static const struct {
  lctx_prog_kind kind;
  unsigned fun, main;
} WEIGHTS[] = {
    {LCTX_PS_PRIM, 26, 34},   {LCTX_PS_CALL, 8, 16},    {LCTX_PS_COND, 4, 4},
    {LCTX_PS_SWITCH, 2, 2},   {LCTX_PS_WHILE, 3, 3},    {LCTX_PS_SCAN, 3, 3},
    {LCTX_PS_EXPORT, 2, 3},   {LCTX_PS_PLATFORM, 6, 6}, {LCTX_PS_PRINT, 2, 2},
    {LCTX_PS_CALLBACK, 2, 2}, {LCTX_PS_SHARD, 3, 3},    {LCTX_PS_JAX, 39, 22},
};

static void draw_stmt(drawing *d, lctx_prog_fun *f, size_t nfun_before,
                      bool is_main) {
  lctx_program_desc *p = d->p;
  lctx_prog_source *s = d->s;
  lctx_prog_stmt *st = &f->st[f->n];
  memset(st, 0, sizeof *st);
  st->b = -1;
  st->a = any_value(s, f);
  unsigned r = draw(s, 100), at = 0;
  lctx_prog_kind kind = LCTX_PS_JAX;
  for (size_t i = 0; i < sizeof WEIGHTS / sizeof WEIGHTS[0]; i++) {
    at += is_main ? WEIGHTS[i].main : WEIGHTS[i].fun;
    if (r < at) {
      kind = WEIGHTS[i].kind;
      break;
    }
  }
  bool funs = nfun_before > 0;
  if ((kind == LCTX_PS_PRIM && p->nprim == 0) ||
      (!funs && (kind == LCTX_PS_CALL || kind == LCTX_PS_COND ||
                 kind == LCTX_PS_SWITCH || kind == LCTX_PS_WHILE ||
                 kind == LCTX_PS_SCAN || kind == LCTX_PS_EXPORT ||
                 kind == LCTX_PS_PLATFORM)))
    kind = LCTX_PS_JAX;
  st->kind = kind;
  switch (kind) {
  case LCTX_PS_PRIM:
    st->what = (int)draw(s, (unsigned)p->nprim);
    break;
  case LCTX_PS_CALL:
  case LCTX_PS_WHILE:
  case LCTX_PS_SCAN:
  case LCTX_PS_EXPORT:
    st->fn[st->nfn++] = any_fun(s, nfun_before);
    break;
  case LCTX_PS_COND:
  case LCTX_PS_SWITCH: {
    size_t k = kind == LCTX_PS_COND ? 2 : 2 + draw(s, 2);
    for (size_t i = 0; i < k; i++)
      st->fn[st->nfn++] = any_fun(s, nfun_before);
    break;
  }
  case LCTX_PS_PLATFORM: {
    size_t k = 1 + draw(s, 3);
    bool used[LCTX_PROG_PLATFORM_COUNT] = {0};
    for (size_t i = 0; i < k; i++) {
      int pl = chance(s, 30) ? LCTX_PROG_DEFAULT
                             : (int)draw(s, LCTX_PROG_PLATFORM_COUNT - 1);
      if (used[pl])
        continue;
      used[pl] = true;
      st->plat[st->nfn] = pl;
      st->fn[st->nfn++] = any_fun(s, nfun_before);
    }
    if (st->nfn == 1 && st->plat[0] == LCTX_PROG_DEFAULT) {
      st->plat[1] = LCTX_PROG_DEFAULT;
      st->fn[1] = st->fn[0];
      st->plat[0] = (int)draw(s, LCTX_PROG_PLATFORM_COUNT - 1);
      st->nfn = 2;
    }
    /* default=G comes last */
    for (size_t i = 0; i + 1 < st->nfn; i++)
      if (st->plat[i] == LCTX_PROG_DEFAULT) {
        int fp = st->fn[i];
        st->plat[i] = st->plat[st->nfn - 1];
        st->fn[i] = st->fn[st->nfn - 1];
        st->plat[st->nfn - 1] = LCTX_PROG_DEFAULT;
        st->fn[st->nfn - 1] = fp;
      }
    break;
  }
  case LCTX_PS_CALLBACK:
    st->what = (int)draw(s, LCTX_PROG_CALLBACK_COUNT);
    break;
  case LCTX_PS_SHARD:
    st->what = (int)draw(s, LCTX_PROG_COLL_COUNT);
    break;
  case LCTX_PS_JAX:
    st->what = (int)draw(s, OP_COUNT);
    if (OPS[st->what].arity == 2)
      st->b = any_value(s, f);
    break;
  default:
    break;
  }
  f->n++;
}

/* Whether anything refers to primitive `q` (is_fun false) or function
 * `q`. */
static bool referenced(const lctx_program_desc *p, bool is_fun, int q) {
  for (size_t i = 0; i < p->nprim; i++)
    for (size_t r = 0; is_fun && r < p->prim[i].nr; r++)
      if (p->prim[i].r[r].is_fun && p->prim[i].r[r].fun == q)
        return true;
  for (size_t i = 0; i < p->nfun; i++)
    for (size_t k = 0; k < p->fun[i].n; k++) {
      const lctx_prog_stmt *st = &p->fun[i].st[k];
      if (!is_fun && st->kind == LCTX_PS_PRIM && st->what == q)
        return true;
      for (size_t b = 0; is_fun && b < st->nfn; b++)
        if (st->fn[b] == q)
          return true;
    }
  return false;
}

/* main first uses, most of the time, what nothing uses yet (the latest
 * definitions first): a drawn definition is rarely dead. */
static void use_unused(drawing *d, lctx_prog_fun *f, size_t nfun_before) {
  lctx_program_desc *p = d->p;
  for (int o = d->order - 1; o >= 0 && f->n < 4; o--) {
    for (size_t i = 0; i < p->nprim; i++) {
      if (p->prim[i].order != o || referenced(p, false, (int)i) ||
          !chance(d->s, 80))
        continue;
      lctx_prog_stmt *st = &f->st[f->n];
      memset(st, 0, sizeof *st);
      *st = (lctx_prog_stmt){.kind = LCTX_PS_PRIM,
                             .what = (int)i,
                             .b = -1,
                             .a = any_value(d->s, f)};
      f->n++;
    }
    for (size_t i = 0; i < nfun_before; i++) {
      if (p->fun[i].order != o || referenced(p, true, (int)i) ||
          !chance(d->s, 80))
        continue;
      lctx_prog_stmt *st = &f->st[f->n];
      memset(st, 0, sizeof *st);
      *st = (lctx_prog_stmt){
          .kind = LCTX_PS_CALL, .b = -1, .a = any_value(d->s, f), .nfn = 1};
      st->fn[0] = (int)i;
      f->n++;
    }
  }
}

static void draw_fun(drawing *d, bool is_main) {
  lctx_program_desc *p = d->p;
  lctx_prog_source *s = d->s;
  size_t before = p->nfun;
  lctx_prog_fun *f = &p->fun[p->nfun];
  memset(f, 0, sizeof *f);
  if (is_main)
    snprintf(f->name, sizeof f->name, "main");
  else
    snprintf(f->name, sizeof f->name, "f%zu", p->nfun);
  f->jit = !is_main && chance(s, 40);
  if (is_main) {
    use_unused(d, f, before);
  } else {
    /* Often a function binds a primitive with several rules first. */
    for (size_t i = 0; i < p->nprim; i++)
      if (p->prim[i].nr > 1 && f->n == 0 && chance(s, 40)) {
        f->st[0] = (lctx_prog_stmt){
            .kind = LCTX_PS_PRIM, .what = (int)i, .a = -1, .b = -1};
        f->n = 1;
      }
  }
  size_t n = 1 + draw(s, is_main ? 4 : 3);
  for (size_t i = 0; i < n && f->n < LCTX_PROG_MAX_STMTS; i++)
    draw_stmt(d, f, before, is_main);
  f->ret = (lctx_prog_value)(f->n - 1);
  f->order = d->order++;
  p->nfun++;
}

void lctx_program_generate(lctx_prog_source *src, lctx_program_desc *p) {
  memset(p, 0, sizeof *p);
  p->symbolic = -1;
  drawing d = {.s = src, .p = p, .next_const = 1};
  p->int32 = chance(src, 20);
  p->ndims = draw(src, 4);
  if (p->ndims == 0 && chance(src, 70))
    p->ndims = 1 + draw(src, 2);
  for (size_t i = 0; i < p->ndims; i++)
    p->dims[i] = 1 + (int)draw(src, 6);
  if (p->ndims && chance(src, 10))
    p->symbolic = 0;
  size_t defs = 2 + draw(src, 5);
  for (size_t i = 0; i < defs; i++) {
    if (p->nprim < LCTX_PROG_MAX_PRIMS && chance(src, 50))
      draw_prim(&d);
    else if (p->nfun < LCTX_PROG_MAX_FUNS - 1)
      draw_fun(&d, false);
  }
  draw_fun(&d, true);
}

//===----------------------------------------------------------------------===//
// Reducing
//===----------------------------------------------------------------------===//

/* Drops the primitives and functions main does not reach (renumbering
 * references). */
static void collect(lctx_program_desc *p) {
  bool prim_used[LCTX_PROG_MAX_PRIMS] = {0}, fun_used[LCTX_PROG_MAX_FUNS] = {0};
  fun_used[p->nfun - 1] = true;
  /* Definitions refer only backwards: one pass from the end suffices,
   * but a rule's function may be defined before a function that uses the
   * rule's primitive, so repeat until nothing changes. */
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = p->nfun; i-- > 0;) {
      if (!fun_used[i])
        continue;
      const lctx_prog_fun *f = &p->fun[i];
      for (size_t k = 0; k < f->n; k++) {
        const lctx_prog_stmt *s = &f->st[k];
        if (s->kind == LCTX_PS_PRIM && !prim_used[s->what])
          prim_used[s->what] = changed = true;
        for (size_t b = 0; b < s->nfn; b++)
          if (!fun_used[s->fn[b]])
            fun_used[s->fn[b]] = changed = true;
      }
    }
    for (size_t i = 0; i < p->nprim; i++) {
      if (!prim_used[i])
        continue;
      for (size_t r = 0; r < p->prim[i].nr; r++) {
        const lctx_prog_rule *u = &p->prim[i].r[r];
        if (u->is_fun && !fun_used[u->fun])
          fun_used[u->fun] = changed = true;
      }
    }
  }
  int prim_map[LCTX_PROG_MAX_PRIMS], fun_map[LCTX_PROG_MAX_FUNS];
  size_t np = 0, nf = 0;
  for (size_t i = 0; i < p->nprim; i++) {
    prim_map[i] = prim_used[i] ? (int)np : -1;
    if (prim_used[i])
      p->prim[np++] = p->prim[i];
  }
  for (size_t i = 0; i < p->nfun; i++) {
    fun_map[i] = fun_used[i] ? (int)nf : -1;
    if (fun_used[i])
      p->fun[nf++] = p->fun[i];
  }
  p->nprim = np;
  p->nfun = nf;
  for (size_t i = 0; i < np; i++)
    for (size_t r = 0; r < p->prim[i].nr; r++)
      if (p->prim[i].r[r].is_fun)
        p->prim[i].r[r].fun = fun_map[p->prim[i].r[r].fun];
  for (size_t i = 0; i < nf; i++)
    for (size_t k = 0; k < p->fun[i].n; k++) {
      lctx_prog_stmt *s = &p->fun[i].st[k];
      if (s->kind == LCTX_PS_PRIM)
        s->what = prim_map[s->what];
      for (size_t b = 0; b < s->nfn; b++)
        s->fn[b] = fun_map[s->fn[b]];
    }
}

static lctx_prog_value remap(lctx_prog_value v, int k, lctx_prog_value with,
                             int shift) {
  if (v == k)
    return with;
  return v > k ? v + shift : v;
}

/* Removes statement k of f: its uses become its first operand. */
static void remove_stmt(lctx_prog_fun *f, size_t k) {
  lctx_prog_value with = f->st[k].a;
  for (size_t i = k + 1; i < f->n; i++) {
    lctx_prog_stmt *s = &f->st[i];
    s->a = remap(s->a, (int)k, with, -1);
    if (s->b >= 0)
      s->b = remap(s->b, (int)k, with, -1);
    f->st[i - 1] = *s;
  }
  f->ret = remap(f->ret, (int)k, with, -1);
  f->n--;
}

/* Inlines the call at statement k of f (a CALL of g). */
static bool inline_call(lctx_program_desc *p, size_t fi, size_t k) {
  lctx_prog_fun *f = &p->fun[fi];
  const lctx_prog_fun *g = &p->fun[f->st[k].fn[0]];
  if (f->n - 1 + g->n > LCTX_PROG_MAX_STMTS)
    return false;
  lctx_prog_value arg = f->st[k].a;
  lctx_prog_value result = g->ret < 0 ? arg : (lctx_prog_value)(k + g->ret);
  lctx_prog_stmt out[LCTX_PROG_MAX_STMTS];
  size_t n = 0;
  for (size_t i = 0; i < k; i++)
    out[n++] = f->st[i];
  for (size_t i = 0; i < g->n; i++) {
    lctx_prog_stmt s = g->st[i];
    s.a = s.a < 0 ? arg : (lctx_prog_value)(k + s.a);
    if (binary(&s))
      s.b = s.b < 0 ? arg : (lctx_prog_value)(k + s.b);
    out[n++] = s;
  }
  int shift = (int)g->n - 1;
  for (size_t i = k + 1; i < f->n; i++) {
    lctx_prog_stmt s = f->st[i];
    s.a = remap(s.a, (int)k, result, shift);
    if (s.b >= 0)
      s.b = remap(s.b, (int)k, result, shift);
    out[n++] = s;
  }
  f->ret = remap(f->ret, (int)k, result, shift);
  memcpy(f->st, out, n * sizeof out[0]);
  f->n = n;
  return true;
}

static void drop_dim(lctx_program_desc *p, size_t i) {
  for (size_t k = i + 1; k < p->ndims; k++)
    p->dims[k - 1] = p->dims[k];
  if (p->symbolic == (int)i)
    p->symbolic = -1;
  else if (p->symbolic > (int)i)
    p->symbolic--;
  p->ndims--;
}

/* Applies reduction k to out (a copy of p); false when k is past the last.
 * `applied` says whether it changed anything. */
static bool apply(lctx_program_desc *out, size_t k, bool *applied) {
  *applied = false;
  /* 1. remove a statement (main's last one never: it would leave x) */
  for (size_t f = 0; f < out->nfun; f++)
    for (size_t s = out->fun[f].n; s-- > 0;) {
      if (k-- == 0) {
        remove_stmt(&out->fun[f], s);
        return *applied = true;
      }
    }
  /* 2. remove a rule (a primitive keeps one) */
  for (size_t q = 0; q < out->nprim; q++)
    for (size_t r = 0; r < out->prim[q].nr; r++) {
      if (k-- == 0) {
        lctx_prog_prim *pr = &out->prim[q];
        if (pr->nr < 2)
          return true;
        memmove(&pr->r[r], &pr->r[r + 1], (pr->nr - r - 1) * sizeof pr->r[0]);
        pr->nr--;
        return *applied = true;
      }
    }
  /* 3. inline a call */
  for (size_t f = 0; f < out->nfun; f++)
    for (size_t s = 0; s < out->fun[f].n; s++) {
      if (k-- == 0) {
        if (out->fun[f].st[s].kind != LCTX_PS_CALL)
          return true;
        *applied = inline_call(out, f, s);
        return true;
      }
    }
  /* 4. drop a branch of a platform or switch statement */
  for (size_t f = 0; f < out->nfun; f++)
    for (size_t s = 0; s < out->fun[f].n; s++)
      for (size_t b = 0; b < LCTX_PROG_MAX_BRANCHES; b++) {
        if (k-- == 0) {
          lctx_prog_stmt *st = &out->fun[f].st[s];
          size_t least = st->kind == LCTX_PS_PLATFORM ? 1
                         : st->kind == LCTX_PS_SWITCH ? 2
                                                      : LCTX_PROG_MAX_BRANCHES;
          if (b >= st->nfn || st->nfn <= least ||
              (st->kind == LCTX_PS_PLATFORM && st->nfn == 2 &&
               st->plat[1] == LCTX_PROG_DEFAULT && b == 0))
            return true;
          for (size_t i = b + 1; i < st->nfn; i++) {
            st->fn[i - 1] = st->fn[i];
            st->plat[i - 1] = st->plat[i];
          }
          st->nfn--;
          return *applied = true;
        }
      }
  /* 5. simpler rules and primitives */
  for (size_t q = 0; q < out->nprim; q++) {
    lctx_prog_prim *pr = &out->prim[q];
    if (k-- == 0) {
      *applied = pr->effect != LCTX_PROG_EFFECT_NONE;
      pr->effect = LCTX_PROG_EFFECT_NONE;
      return true;
    }
    if (k-- == 0) {
      *applied = !pr->cache;
      pr->cache = true;
      return true;
    }
    for (size_t r = 0; r < pr->nr; r++) {
      if (k-- == 0) {
        *applied = pr->r[r].is_fun;
        pr->r[r].is_fun = false;
        pr->r[r].c = 1;
        return true;
      }
      if (k-- == 0) {
        *applied = pr->r[r].read != LCTX_PROG_READ_NONE;
        pr->r[r].read = LCTX_PROG_READ_NONE;
        return true;
      }
    }
  }
  /* 6. no jit */
  for (size_t f = 0; f < out->nfun; f++) {
    if (k-- == 0) {
      *applied = out->fun[f].jit;
      out->fun[f].jit = false;
      return true;
    }
  }
  /* 7. a smaller argument */
  for (size_t i = 0; i < LCTX_PROG_MAX_DIMS; i++) {
    if (k-- == 0) {
      if (i >= out->ndims)
        return true;
      drop_dim(out, i);
      return *applied = true;
    }
    if (k-- == 0) {
      *applied = i < out->ndims && out->dims[i] > 1;
      if (*applied)
        out->dims[i] = out->dims[i] > 2 ? 2 : 1;
      return true;
    }
  }
  if (k-- == 0) {
    *applied = out->symbolic >= 0;
    out->symbolic = -1;
    return true;
  }
  if (k-- == 0) {
    *applied = out->int32;
    out->int32 = false;
    return true;
  }
  return false;
}

static long measure_dims(const lctx_program_desc *p) {
  long m = 0;
  for (size_t i = 0; i < p->ndims; i++)
    m += p->dims[i];
  return m + (p->symbolic >= 0) + p->int32;
}

bool lctx_program_reduce(const lctx_program_desc *p, size_t k,
                         lctx_program_desc *out) {
  *out = *p;
  bool applied;
  if (!apply(out, k, &applied))
    return false;
  if (applied)
    collect(out);
  char a[LCTX_PROG_TEXT_MAX], b[LCTX_PROG_TEXT_MAX], why[128];
  size_t na = lctx_program_print(p, a, sizeof a);
  size_t nb = lctx_program_print(out, b, sizeof b);
  size_t sa = lctx_program_size(p), sb = lctx_program_size(out);
  bool smaller = sb < sa || (sb == sa && nb < na) ||
                 (sb == sa && nb == na && measure_dims(out) < measure_dims(p));
  if (!applied || !nb || !smaller || !lctx_program_check(out, why, sizeof why))
    *out = *p; /* no change: the caller sees out equal to p */
  return true;
}

//===----------------------------------------------------------------------===//
// Features
//===----------------------------------------------------------------------===//

static void set_feature(bool *features, const char *name) {
  int i = find_text(lctx_prog_feature_names, LCTX_PROG_FEATURE_COUNT, name);
  if (i >= 0)
    features[i] = true;
}

static bool fun_uses_prim(const lctx_program_desc *p, int f) {
  for (size_t k = 0; k < p->fun[f].n; k++)
    if (p->fun[f].st[k].kind == LCTX_PS_PRIM)
      return true;
  return false;
}

void lctx_program_features(const lctx_program_desc *p, bool *features,
                           bool *ops) {
  int calls[LCTX_PROG_MAX_FUNS] = {0};
  bool has_rule = false, has_platform = false;
  for (size_t q = 0; q < p->nprim; q++) {
    const lctx_prog_prim *pr = &p->prim[q];
    if (pr->effect == LCTX_PROG_EFFECT_ORDERED)
      set_feature(features, "effect:ordered");
    if (pr->effect == LCTX_PROG_EFFECT_UNORDERED)
      set_feature(features, "effect:unordered");
    if (!pr->cache)
      set_feature(features, "uncacheable");
    if (pr->nr > 1)
      set_feature(features, "several-rules");
    for (size_t r = 0; r < pr->nr; r++) {
      const lctx_prog_rule *u = &pr->r[r];
      has_rule = has_rule || u->platform != LCTX_PROG_DEFAULT;
      set_feature(features, u->is_fun ? "rule:fun" : "rule:add");
      if (u->platform == LCTX_PROG_DEFAULT)
        set_feature(features, "rule:default");
      if (u->is_fun && fun_uses_prim(p, u->fun))
        set_feature(features, "rule:nested-prim");
      static const char *const rf[] = {NULL, "read:get", "read:optional",
                                       "read:attr", "read:host"};
      if (u->read != LCTX_PROG_READ_NONE)
        set_feature(features, rf[u->read]);
    }
  }
  for (size_t f = 0; f < p->nfun; f++) {
    for (size_t k = 0; k < p->fun[f].n; k++) {
      const lctx_prog_stmt *s = &p->fun[f].st[k];
      char name[32];
      snprintf(name, sizeof name, "stmt:%s", lctx_prog_kind_names[s->kind]);
      set_feature(features, name);
      if (s->kind == LCTX_PS_JAX && ops)
        ops[s->what] = true;
      if (s->kind == LCTX_PS_PLATFORM)
        has_platform = true;
      if (s->kind == LCTX_PS_EXPORT && p->fun[s->fn[0]].n &&
          fun_uses_prim(p, s->fn[0]))
        set_feature(features, "export-nested");
      for (size_t b = 0; b < s->nfn; b++) {
        calls[s->fn[b]]++;
        if (s->kind != LCTX_PS_CALL && s->kind != LCTX_PS_EXPORT &&
            fun_uses_prim(p, s->fn[b]))
          set_feature(features, "prim-in-control");
      }
    }
    if (p->fun[f].jit)
      set_feature(features, "jit");
  }
  for (size_t f = 0; f < p->nfun; f++)
    if (p->fun[f].jit && calls[f] > 1)
      set_feature(features, "jit-reused");
  if (has_rule && has_platform)
    set_feature(features, "platform+rule");
  if (p->symbolic >= 0)
    set_feature(features, "arg:symbolic");
  if (p->int32)
    set_feature(features, "arg:int32");
  if (p->ndims == 0)
    set_feature(features, "arg:scalar");
}
