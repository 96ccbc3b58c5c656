/*
 * domain.c - the bounded domain and random cases (see domain.h): the
 * single operations of the table (case_ops.h) over every registry
 * configuration, the two-operation sequences, and the lowering sub-domain
 * (domain_lowering.h), walked over a share; the building blocks are
 * domain_walk.h's.
 */
#include "domain.h"
#include "case_ops.h"
#include "domain_lowering.h"

#include <stdlib.h>
#include <string.h>

/* How many cases each_op writes with lists up to `max_platforms` long. */
static size_t each_op_count(size_t max_platforms) {
  size_t n = 0;
  for (size_t k = 0; k < LCTX_OP_KIND_COUNT; k++) {
    const lctx_op_def *def = lctx_op_get((lctx_op_kind)k);
    if (def->domain_each)
      n += def->domain_count(max_platforms);
  }
  return n;
}

/* Every operation of the table that has a part in the single-operation
 * domain, in table order, with module platform lists up to
 * `max_platforms` long, written at position `slot`. */
static void each_op(lctx_domain_walk *w, size_t slot, size_t max_platforms) {
  if (lctx_domain_skip(w, each_op_count(max_platforms)))
    return;
  lctx_case_op *op = &w->c->ops[slot];
  w->c->op_count = slot + 1;
  for (size_t k = 0; k < LCTX_OP_KIND_COUNT; k++) {
    const lctx_op_def *def = lctx_op_get((lctx_op_kind)k);
    if (def->domain_each && !def->domain_each(w, op, max_platforms))
      return;
  }
}

/* Walks the whole domain in its order, building and visiting the cases of
 * the lctx_domain_walk's share. */
static void walk(lctx_domain_walk *w) {
  lctx_case *c = w->c;
  for (size_t r = 0; r < lctx_domain_registry_count() && !w->stopped; r++) {
    lctx_domain_walk_registry(w, r);
    /* Single operations, platform lists up to length 3. */
    each_op(w, 0, 3);
    /* Two operations: a first one that initializes (backends) or one that
     * does not (canonicalize 'cpu'), then every operation with platform
     * lists up to length 1, so that what the first left behind (a partial
     * registry, recorded failures, a re-run initialization) is observed. */
    for (int first = 0; first < 2 && !w->stopped; first++) {
      if (lctx_domain_skip(w, each_op_count(1)))
        continue;
      lctx_domain_walk_registry(w, r);
      lctx_domain_clear_op(&c->ops[0], first == 0 ? LCTX_OP_BACKENDS
                                                  : LCTX_OP_CANONICALIZE);
      if (first == 1) {
        c->ops[0].has_arg = true;
        lctx_domain_set_text(c->ops[0].arg, sizeof c->ops[0].arg, "cpu");
      }
      each_op(w, 1, 1);
    }
  }
  lctx_domain_lowering(w);
}

/* Walks `share` with `visit`; returns the walk's counts through `*w`.
 * False when there is no memory for the case. */
static bool walk_share(lctx_domain_walk *w, const lctx_domain_share *share,
                       uint64_t *generations, lctx_domain_visit visit,
                       void *user) {
  memset(w, 0, sizeof *w);
  if (share->chunk == 0 || share->parts == 0 || share->part >= share->parts)
    return false;
  w->c = malloc(sizeof *w->c); /* large for the stack */
  if (!w->c)
    return false;
  lctx_case_init(w->c); /* once: from here on only used parts are cleared */
  w->visit = visit;
  w->user = user;
  w->generations = generations;
  w->share = *share;
  w->stopped = share->from >= share->to;
  walk(w);
  free(w->c);
  return true;
}

size_t lctx_domain_enumerate_registry(const lctx_domain_share *share,
                                      uint64_t *generations,
                                      lctx_domain_visit visit, void *user) {
  lctx_domain_walk w;
  return walk_share(&w, share, generations, visit, user) ? w.visited : 0;
}

/* A visitor told less than a walk's (lctx_domain_visit), called from
 * one. */
typedef struct told_less {
  bool (*visit_index)(void *user, size_t index, const lctx_case *c);
  bool (*visit)(void *user, const lctx_case *c);
  void *user;
} told_less;

static bool visit_index(void *user, size_t index, uint64_t registry,
                        const lctx_case *c) {
  (void)registry;
  told_less *h = user;
  return h->visit_index(h->user, index, c);
}

size_t lctx_domain_enumerate_share(const lctx_domain_share *share,
                                   bool (*visit)(void *user, size_t index,
                                                 const lctx_case *c),
                                   void *user) {
  told_less h = {visit, NULL, user};
  return lctx_domain_enumerate_registry(share, NULL, visit_index, &h);
}

static bool visit_whole(void *user, size_t index, uint64_t registry,
                        const lctx_case *c) {
  (void)index, (void)registry;
  told_less *h = user;
  return h->visit(h->user, c);
}

size_t lctx_domain_enumerate(bool (*visit)(void *user, const lctx_case *c),
                             void *user) {
  static const lctx_domain_share all = {0, SIZE_MAX, 1, 0, 1};
  told_less h = {NULL, visit, user};
  lctx_domain_walk w;
  return walk_share(&w, &all, NULL, visit_whole, &h) ? w.count : 0;
}

//===----------------------------------------------------------------------===//
// Random cases
//===----------------------------------------------------------------------===//

/* How many operations of the table are drawn as single operations. */
static size_t random_ops(void) {
  size_t n = 0;
  for (size_t k = 0; k < LCTX_OP_KIND_COUNT; k++)
    n += lctx_op_get((lctx_op_kind)k)->random != NULL;
  return n;
}

/* The `i`-th of them, in table order. */
static const lctx_op_def *random_op(size_t i) {
  for (size_t k = 0;; k++) {
    const lctx_op_def *def = lctx_op_get((lctx_op_kind)k);
    if (def->random && i-- == 0)
      return def;
  }
}

static void random_case(uint64_t *state, lctx_case *c) {
  static const int priorities[] = {-2000, -1001, -1000, -999, -1,  0,
                                   1,     2,     100,   300,  400, 500};
  static const char *const platform_lists[] = {
      "",         "cpu",  "cpu,tpu", "tpu,cpu",  "gpu",   "cuda",
      "cpu, tpu", "cpu,", "cpu,cpu", "cuda,gpu", "METAL", "rocm,cuda"};
  size_t factories = lctx_domain_below(state, 6);
  for (size_t i = 0; i < factories; i++) {
    lctx_case_factory *f = &c->factories[c->factory_count];
    lctx_domain_random_name(state, f->name, sizeof f->name);
    bool duplicate = false;
    for (size_t k = 0; k < c->factory_count; k++)
      duplicate = duplicate || strcmp(c->factories[k].name, f->name) == 0;
    if (duplicate) {
      memset(f, 0, sizeof *f); /* nothing past the counts */
      continue;
    }
    f->priority = priorities[lctx_domain_below(
        state, sizeof priorities / sizeof priorities[0])];
    f->fail_quietly = lctx_domain_below(state, 2) == 0;
    size_t b = lctx_domain_below(state, 8);
    f->behaviour =
        b < 5 ? LCTX_FACTORY_CLIENT : (lctx_factory_behaviour)(b - 4);
    if (f->behaviour == LCTX_FACTORY_RAISES)
      lctx_domain_set_text(f->message, sizeof f->message,
                           lctx_domain_below(state, 3) == 0 ? ""
                                                            : "init failed.");
    c->factory_count++;
  }
  if (lctx_domain_below(state, 4) == 0)
    lctx_domain_set_text(
        c->jax_platforms, sizeof c->jax_platforms,
        platform_lists[lctx_domain_below(state, sizeof platform_lists /
                                                    sizeof platform_lists[0])]);
  if (lctx_domain_below(state, 6) == 0)
    lctx_domain_random_name(state, c->jax_platform_name,
                            sizeof c->jax_platform_name);
  if (lctx_domain_below(state, 6) == 0)
    lctx_domain_random_name(state, c->jax_xla_backend,
                            sizeof c->jax_xla_backend);
  c->nvidia_gpu_visible = lctx_domain_below(state, 2) == 0;
  c->op_count = 1 + lctx_domain_below(state, 4);
  for (size_t i = 0; i < c->op_count; i++) {
    lctx_case_op *op = &c->ops[i];
    const lctx_op_def *def = random_op(lctx_domain_below(state, random_ops()));
    lctx_domain_clear_op(op, def->kind);
    def->random(state, c, op);
  }
  if (lctx_domain_below(state, 3) == 0)
    lctx_domain_random_lowering(state, c);
}

void lctx_domain_random_case(uint64_t *state, lctx_case *c) {
  lctx_case_init(c);
  random_case(state, c);
}

void lctx_domain_random_case_reuse(uint64_t *state, lctx_case *c) {
  lctx_case_reset(c);
  random_case(state, c);
}
