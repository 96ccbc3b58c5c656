/*
 * model_dispatch.c - a generated program's primitive lowered by lctx's
 * lowering model (model_dispatch.h).
 */
#include "model_dispatch.h"

#include "lctx/lctx.h"
#include "lctx/lowering.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>

typedef struct world {
  lctx_registry_config config;
  lctx_registry backends;
  lctx_lowering_registry lowering;
  lctx_lowering_context ctx;
  lctx_lowering_result result;
} world;

static void copy_list(char (*dst)[LCTX_DISPATCH_NAME_MAX], size_t *n,
                      const lctx_str *src, size_t count) {
  *n = 0;
  for (size_t i = 0; i < count && i < LCTX_DISPATCH_MAX_PLATFORMS; i++) {
    size_t len = src[i].length < LCTX_DISPATCH_NAME_MAX - 1
                     ? src[i].length
                     : LCTX_DISPATCH_NAME_MAX - 1;
    if (len)
      memcpy(dst[*n], src[i].data, len);
    dst[(*n)++][len] = '\0';
  }
}

/* The rule's name is its platform in the description ("default"). */
static void rule_name(const world *w, int rule, char *dst) {
  lctx_str s = lctx_lowering_rule_name(&w->lowering, rule);
  size_t len = s.length < LCTX_DISPATCH_NAME_MAX - 1
                   ? s.length
                   : LCTX_DISPATCH_NAME_MAX - 1;
  if (len)
    memcpy(dst, s.data, len);
  dst[len] = '\0';
}

bool lctx_model_dispatch(const lctx_program_desc *p, int prim,
                         const char *const *platforms, size_t count,
                         lctx_dispatch_event *out) {
  if (prim < 0 || (size_t)prim >= p->nprim || count == 0 ||
      count > LCTX_DISPATCH_MAX_PLATFORMS)
    return false;
  world *w = calloc(1, sizeof *w);
  if (!w)
    return false;
  lctx_registry_config_init(&w->config);
  lctx_registry_config_add_factory(
      &w->config, (lctx_factory){"cpu", 0, false, LCTX_FACTORY_CLIENT, NULL});
  lctx_registry_config_add_factory(
      &w->config, (lctx_factory){"tpu", 300, true, LCTX_FACTORY_CLIENT, NULL});
  lctx_registry_init(&w->backends, &w->config);
  lctx_lowering_registry_init(&w->lowering, &w->config);
  const lctx_prog_prim *q = &p->prim[prim];
  int id =
      lctx_lowering_primitive_add(&w->lowering, lctx_str_from_cstr(q->name));
  bool ok = id >= 0;
  for (size_t i = 0; ok && i < q->nr; i++) {
    const char *name = lctx_prog_platforms[q->r[i].platform];
    lctx_lowering_action marker = lctx_action_emit_marker();
    int rule = lctx_lowering_rule_add(&w->lowering, lctx_str_from_cstr(name),
                                      &marker, 1);
    lctx_str plat = lctx_str_from_cstr(name);
    lctx_outcome o;
    ok = rule >= 0 &&
         lctx_lowering_register(
             &w->lowering, id, rule,
             q->r[i].platform == LCTX_PROG_DEFAULT ? NULL : &plat, &o);
  }
  lctx_lowering_context_init(&w->ctx);
  lctx_module_context_init(&w->ctx.module);
  for (size_t i = 0; ok && i < count; i++)
    ok = lctx_module_context_add_platform(&w->ctx.module,
                                          lctx_str_from_cstr(platforms[i]));
  w->ctx.dim_var_count = count > 1 ? 1 : 0;
  ok = ok && lctx_lowering_lower_eqn(&w->lowering, &w->backends, &w->ctx, id,
                                     &w->result);
  memset(out, 0, sizeof *out);
  snprintf(out->primitive, sizeof out->primitive, "%s", q->name);
  for (size_t i = 0; i < count; i++)
    snprintf(out->platforms[out->count++], LCTX_DISPATCH_NAME_MAX, "%s",
             platforms[i]);
  /* The top equation's rule calls: one per kept rule, each with the
   * platforms it is lowered for (a direct call: every platform). */
  for (size_t i = 0; ok && i < w->result.event_count; i++) {
    const lctx_lowering_event *e = &w->result.events[i];
    if (e->kind != LCTX_EVENT_CALL || e->level != 0 ||
        out->rule_count == LCTX_DISPATCH_MAX_RULES)
      continue;
    lctx_dispatch_rule *r = &out->rules[out->rule_count++];
    rule_name(w, e->rule, r->rule);
    if (e->has_platforms)
      copy_list(r->platforms, &r->count, e->platforms, e->platform_count);
    else
      copy_list(r->platforms, &r->count, e->module_platforms,
                e->module_platform_count);
  }
  ok = ok && out->rule_count > 0;
  free(w);
  return ok;
}
