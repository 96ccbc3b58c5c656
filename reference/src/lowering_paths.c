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
  for (size_t i = 0; i < count; i++)
    dst[i] = src[i];
}

static void path_push(lctx_lowering_path *path, int event) {
  if (path->count >= LCTX_LOWERING_MAX_PATH) {
    path->truncated = true;
    return;
  }
  path->events[path->count++] = event;
}

static void walk(const lctx_lowering_result *res, int e, size_t index,
                 bool intended, lctx_lowering_path *path) {
  if (!path->determined)
    return;
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
    for (size_t c = (size_t)e + 1; c < res->event_count; c++) {
      const lctx_lowering_event *ch = &res->events[c];
      if (ch->parent == e && ch->kind == LCTX_EVENT_BRANCH &&
          ch->branch == slot) {
        walk(res, (int)c, index, intended, path);
        return;
      }
    }
    return;
  }
  for (size_t c = (size_t)e + 1; c < res->event_count; c++) {
    if (res->events[c].parent == e)
      walk(res, (int)c, index, intended, path);
  }
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
  for (size_t i = 0; i < res->index_count; i++) {
    lctx_lowering_path *a = &res->actual[i], *t = &res->intended[i];
    memset(a, 0, sizeof *a);
    memset(t, 0, sizeof *t);
    a->determined = t->determined = true;
    if (res->event_count > 0) {
      walk(res, 0, i, false, a);
      walk(res, 0, i, true, t);
    }
    res->mismatch[i] = !same_path(a, t);
  }
}
