/*
 * program_reduce.c - generated programs made smaller (program_reduce.h):
 * the reductions the minimizer tries, each giving a valid program.
 */
#include "program_reduce.h"

#include "program_text.h"

#include <stdio.h>
#include <string.h>

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
    if (lctx_prog_stmt_binary(&s))
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

/* Reductions 1 to 4 (statements, rules, calls, branches): true when `*k`
 * is one of them, which is applied (`applied`: it changed something);
 * otherwise false with `*k` counted down past them. */
static bool apply_structure(lctx_program_desc *out, size_t *k, bool *applied) {
  /* 1. remove a statement (main's last one never: it would leave x) */
  for (size_t f = 0; f < out->nfun; f++)
    for (size_t s = out->fun[f].n; s-- > 0;) {
      if ((*k)-- == 0) {
        remove_stmt(&out->fun[f], s);
        return *applied = true;
      }
    }
  /* 2. remove a rule (a primitive keeps one) */
  for (size_t q = 0; q < out->nprim; q++)
    for (size_t r = 0; r < out->prim[q].nr; r++) {
      if ((*k)-- == 0) {
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
      if ((*k)-- == 0) {
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
        if ((*k)-- == 0) {
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
  return false;
}

/* Reductions 5 to 7 (simpler rules and primitives, no jit, a smaller
 * argument), as apply_structure. */
static bool apply_simpler(lctx_program_desc *out, size_t *k, bool *applied) {
  /* 5. simpler rules and primitives */
  for (size_t q = 0; q < out->nprim; q++) {
    lctx_prog_prim *pr = &out->prim[q];
    if ((*k)-- == 0) {
      *applied = pr->effect != LCTX_PROG_EFFECT_NONE;
      pr->effect = LCTX_PROG_EFFECT_NONE;
      return true;
    }
    if ((*k)-- == 0) {
      *applied = !pr->cache;
      pr->cache = true;
      return true;
    }
    for (size_t r = 0; r < pr->nr; r++) {
      if ((*k)-- == 0) {
        *applied = pr->r[r].is_fun;
        pr->r[r].is_fun = false;
        pr->r[r].c = 1;
        return true;
      }
      if ((*k)-- == 0) {
        *applied = pr->r[r].read != LCTX_PROG_READ_NONE;
        pr->r[r].read = LCTX_PROG_READ_NONE;
        return true;
      }
    }
  }
  /* 6. no jit */
  for (size_t f = 0; f < out->nfun; f++) {
    if ((*k)-- == 0) {
      *applied = out->fun[f].jit;
      out->fun[f].jit = false;
      return true;
    }
  }
  /* 7. a smaller argument */
  for (size_t i = 0; i < LCTX_PROG_MAX_DIMS; i++) {
    if ((*k)-- == 0) {
      if (i >= out->ndims)
        return true;
      drop_dim(out, i);
      return *applied = true;
    }
    if ((*k)-- == 0) {
      *applied = i < out->ndims && out->dims[i] > 1;
      if (*applied)
        out->dims[i] = out->dims[i] > 2 ? 2 : 1;
      return true;
    }
  }
  if ((*k)-- == 0) {
    *applied = out->symbolic >= 0;
    out->symbolic = -1;
    return true;
  }
  if ((*k)-- == 0) {
    *applied = out->int32;
    out->int32 = false;
    return true;
  }
  return false;
}

/* Applies reduction k to out (a copy of p); false when k is past the last.
 * `applied` says whether it changed anything. */
static bool apply(lctx_program_desc *out, size_t k, bool *applied) {
  *applied = false;
  return apply_structure(out, &k, applied) || apply_simpler(out, &k, applied);
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
