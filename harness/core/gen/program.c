/*
 * program.c - generated programs (program.h): the tables of the format
 * (conformance/sweep/PROGRAMS.md), the look-ups the other program_*.c
 * share, the node count, the check and the features.
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

int lctx_prog_find_text(const char *const *names, int n, const char *w) {
  for (int i = 0; i < n; i++)
    if (strcmp(names[i], w) == 0)
      return i;
  return -1;
}

int lctx_prog_op_find(const char *w) {
  for (int i = 0; i < OP_COUNT; i++)
    if (strcmp(OPS[i].name, w) == 0)
      return i;
  return -1;
}

int lctx_prog_prim_find(const lctx_program_desc *p, const char *w) {
  for (size_t i = 0; i < p->nprim; i++)
    if (strcmp(p->prim[i].name, w) == 0)
      return (int)i;
  return -1;
}

/* A function defined and closed (not `upto`, the one being read). */
int lctx_prog_fun_find(const lctx_program_desc *p, const char *w, size_t upto) {
  for (size_t i = 0; i < upto; i++)
    if (strcmp(p->fun[i].name, w) == 0)
      return (int)i;
  return -1;
}

bool lctx_prog_stmt_binary(const lctx_prog_stmt *s) {
  return s->kind == LCTX_PS_JAX && OPS[s->what].arity == 2;
}

size_t lctx_program_size(const lctx_program_desc *p) {
  size_t n = 0;
  for (size_t i = 0; i < p->nprim; i++)
    n += p->prim[i].nr;
  for (size_t i = 0; i < p->nfun; i++)
    n += p->fun[i].n;
  return n;
}

//===----------------------------------------------------------------------===//
// Features
//===----------------------------------------------------------------------===//

static void set_feature(bool *features, const char *name) {
  int i = lctx_prog_find_text(lctx_prog_feature_names, LCTX_PROG_FEATURE_COUNT,
                              name);
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
