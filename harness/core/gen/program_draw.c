/*
 * program_draw.c - generated programs drawn (program_draw.h): from a seed
 * or a fuzz engine's bytes, always a program the format allows.
 */
#include "program_draw.h"

#include <stdio.h>
#include <string.h>

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
    st->what = (int)draw(s, (int)lctx_prog_op_count());
    if (lctx_prog_op_arity(st->what) == 2)
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
