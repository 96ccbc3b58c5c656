/*
 * lowering_paths.c - evaluating a recorded run by platform index (see
 * lctx/lowering.h, lctx_lowering_result): for each platform the module is
 * lowered for, the calls the emitted stablehlo.case dispatches run (the
 * actual path, an index out of range taking the last branch) and the ones
 * the platform's own rules would run (the intended path), and whether they
 * differ. Reads the events lowering_run.c recorded; must not allocate or
 * keep global state.
 */
#include "lowering_private.h"

#include <string.h>

void lctx_lowering_copy_list(lctx_str *dst, size_t *dst_count,
                             const lctx_str *src, size_t count) {
  *dst_count = count;
  if (count > 0) /* one copy, not a loop (`src` may be NULL at 0) */
    memmove(dst, src, count * sizeof *dst);
}

static void path_push(lctx_lowering_path *path, int event) {
  if (path->count >= LCTX_LOWERING_MAX_PATH) {
    path->truncated = true;
    return;
  }
  path->events[path->count++] = event;
}

/* The events a walk reads, with `end[e]`: the index after event e's
 * subtree when the events are in pre-order (each event after its parent,
 * each subtree contiguous: lowering_run.c appends them so), else NULL and
 * every child is found by a scan of the later events. */
typedef struct tree {
  const lctx_lowering_result *res;
  const int *end;
} tree;

/* The first child of event e at or after `from`, or -1. */
static int next_child(const tree *t, int e, int from) {
  const lctx_lowering_result *res = t->res;
  if (t->end) {
    /* Children of e start at e + 1 and follow each other's subtrees. */
    return from < t->end[e] ? from : -1;
  }
  for (size_t c = (size_t)from; c < res->event_count; c++) {
    if (res->events[c].parent == e)
      return (int)c;
  }
  return -1;
}

/* The child after child c of event e, or -1. */
static int next_sibling(const tree *t, int e, int c) {
  return next_child(t, e, t->end ? t->end[c] : c + 1);
}

static void walk(const tree *t, int e, size_t index, bool intended,
                 lctx_lowering_path *path) {
  if (!path->determined)
    return;
  const lctx_lowering_result *res = t->res;
  const lctx_lowering_event *ev = &res->events[e];
  if (ev->kind == LCTX_EVENT_CALL || ev->kind == LCTX_EVENT_MARKER)
    path_push(path, e);
  if (ev->kind == LCTX_EVENT_DISPATCH) {
    size_t n = ev->platform_count, entry = n;
    if (intended) {
      for (size_t k = 0; k < n && entry == n; k++) {
        if (lctx_str_equal(ev->platforms[k], res->index_platforms[index]))
          entry = k;
      }
      if (entry == n) {
        path->determined = false;
        return;
      }
    } else {
      /* stablehlo.case runs its last branch for an index out of range. */
      entry = index < n ? index : n - 1;
    }
    int slot = ev->slots[entry];
    for (int c = next_child(t, e, e + 1); c >= 0; c = next_sibling(t, e, c)) {
      const lctx_lowering_event *ch = &res->events[c];
      if (ch->kind == LCTX_EVENT_BRANCH && ch->branch == slot) {
        walk(t, c, index, intended, path);
        return;
      }
    }
    return;
  }
  for (int c = next_child(t, e, e + 1); c >= 0; c = next_sibling(t, e, c))
    walk(t, c, index, intended, path);
}

/* Fills `end` (see tree) and returns true when the events are in
 * pre-order: each event's parent before it, and each event inside its
 * parent's subtree as the ends chain (computed from the last event back,
 * so every child's end is known before its parent's). */
static bool subtree_ends(const lctx_lowering_result *res, int *end) {
  int n = (int)res->event_count;
  for (int e = n - 1; e >= 0; e--) {
    int c = e + 1;
    while (c < n && res->events[c].parent == e)
      c = end[c];
    end[e] = c;
  }
  /* Every event must be reached: a child of e outside [e + 1, end[e]) is
   * out of order. */
  for (int c = 1; c < n; c++) {
    int p = res->events[c].parent;
    if (p < 0 || p >= c || c >= end[p])
      return false;
  }
  return n == 0 || res->events[0].parent < 0;
}

static bool same_path(const lctx_lowering_path *a,
                      const lctx_lowering_path *b) {
  if (a->determined != b->determined || a->count != b->count)
    return false;
  for (size_t i = 0; i < a->count; i++) {
    if (a->events[i] != b->events[i])
      return false;
  }
  return true;
}

void lctx_lowering_evaluate(lctx_lowering_result *res,
                            const lctx_lowering_context *ctx) {
  res->evaluated = true;
  lctx_lowering_copy_list(res->index_platforms, &res->index_count,
                          ctx->module.platforms, ctx->module.platform_count);
  int end[LCTX_LOWERING_MAX_EVENTS];
  tree t = {res, NULL};
  if (res->index_count > 0 && res->event_count > 0 && subtree_ends(res, end))
    t.end = end;
  for (size_t i = 0; i < res->index_count; i++) {
    lctx_lowering_path *a = &res->actual[i], *p = &res->intended[i];
    memset(a, 0, sizeof *a);
    memset(p, 0, sizeof *p);
    a->determined = p->determined = true;
    if (res->event_count > 0) {
      walk(&t, 0, i, false, a);
      walk(&t, 0, i, true, p);
    }
    res->mismatch[i] = !same_path(a, p);
  }
}
