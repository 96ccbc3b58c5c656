/*
 * irexpect.c - IR expectations of a reference lowering and the verdict on a
 * module (see irexpect.h).
 */
#include "irexpect.h"

#include <stdio.h>
#include <string.h>

/* The marker rule names on a path; false when they do not fit. */
static bool path_markers(const lctx_lowering_registry *registry,
                         const lctx_lowering_result *result,
                         const lctx_lowering_path *path,
                         char (*storage)[LCTX_IR_NAME_MAX],
                         lctx_ir_rules *out) {
  out->count = 0;
  if (path->truncated)
    return false;
  for (size_t k = 0; k < path->count; k++) {
    const lctx_lowering_event *ev = &result->events[path->events[k]];
    if (ev->kind != LCTX_EVENT_MARKER)
      continue;
    if (out->count >= LCTX_IR_MAX_RULES)
      return false;
    lctx_str name = lctx_lowering_rule_name(registry, ev->rule);
    char *dst = storage[out->count];
    snprintf(dst, LCTX_IR_NAME_MAX, "%.*s", (int)name.length, name.data);
    out->names[out->count++] = dst;
  }
  return true;
}

static bool same_rules(const lctx_ir_rules *a, const lctx_ir_rules *b) {
  if (a->count != b->count)
    return false;
  for (size_t k = 0; k < a->count; k++) {
    if (strcmp(a->names[k], b->names[k]) != 0)
      return false;
  }
  return true;
}

/* The innermost BRANCH event above `e`, or -1 (the body of @main). */
static int enclosing_branch(const lctx_lowering_result *result, int e) {
  for (int p = result->events[e].parent; p >= 0; p = result->events[p].parent)
    if (result->events[p].kind == LCTX_EVENT_BRANCH)
      return p;
  return -1;
}

/* The dispatches in the pre-order the checker numbers them: a two-level
 * dispatch per DISPATCH event, and a one-rule dispatch per `lctx.marker` op
 * except the first one of each second-switch branch (which the checker takes
 * as that branch's rule). False when they do not fit. */
static bool fill_dispatches(const lctx_lowering_result *result,
                            lctx_ir_expectation *e) {
  bool first_seen[LCTX_LOWERING_MAX_EVENTS];
  memset(first_seen, 0, sizeof first_seen);
  e->dispatch_count = 0;
  for (size_t i = 0; i < result->event_count; i++) {
    const lctx_lowering_event *ev = &result->events[i];
    lctx_ir_dispatch d = {0, 0};
    if (ev->kind == LCTX_EVENT_DISPATCH) {
      d.entry_count = ev->platform_count;
      d.kept_count = ev->kept_count;
    } else if (ev->kind == LCTX_EVENT_MARKER) {
      int b = enclosing_branch(result, (int)i);
      if (b >= 0 && !first_seen[b]) {
        first_seen[b] = true;
        continue;
      }
      d.kept_count = 1; /* entries unchecked */
    } else {
      continue;
    }
    if (e->dispatch_count >= LCTX_IR_MAX_DISPATCHES)
      return false;
    e->dispatches[e->dispatch_count++] = d;
  }
  return true;
}

bool lctx_ir_expect_from_lowering(const lctx_lowering_registry *registry,
                                  const lctx_lowering_result *result, bool x64,
                                  lctx_ir_expect_store *out) {
  lctx_ir_expectation *e = &out->expect;
  memset(e, 0, sizeof *e);
  memset(out->defect, 0, sizeof out->defect);
  out->any_defect = false;
  if (!result->evaluated || result->index_count > LCTX_IR_MAX_PLATFORMS)
    return false;
  e->platform_count = result->index_count;
  e->x64 = x64;
  for (size_t i = 0; i < result->index_count; i++) {
    lctx_str p = result->index_platforms[i];
    snprintf(out->platforms[i], LCTX_IR_NAME_MAX, "%.*s", (int)p.length,
             p.data);
    e->platforms[i] = out->platforms[i];
    if (!path_markers(registry, result, &result->actual[i], out->names[1][i],
                      &e->jax_actual[i]))
      return false;
    e->has_jax_actual[i] = true;
    if (result->intended[i].determined) {
      if (!path_markers(registry, result, &result->intended[i],
                        out->names[0][i], &e->intended[i]))
        return false;
    } else {
      /* No intended path (a narrowed top context without this module
       * platform): judge only against what JAX runs. */
      e->intended[i] = e->jax_actual[i];
    }
    /* IR-006 sees marker names only: a mismatch of rule calls that emit no
     * marker, or emit the same ones, is invisible in the module. */
    out->defect[i] = result->mismatch[i] && result->intended[i].determined &&
                     !same_rules(&e->intended[i], &e->jax_actual[i]);
    out->any_defect = out->any_defect || out->defect[i];
  }
  return fill_dispatches(result, e);
}

bool lctx_ir_judge(lctx_ircheck *ck, lctx_str mlir_text,
                   const lctx_ir_expect_store *store, lctx_ir_report *report,
                   lctx_ir_verdict *verdict) {
  memset(verdict, 0, sizeof *verdict);
  const lctx_ir_expectation *e = &store->expect;
  verdict->applicable =
      LCTX_IR_ROW_BIT(0) | LCTX_IR_ROW_BIT(1) | LCTX_IR_ROW_BIT(5);
  for (size_t i = 0; i < e->dispatch_count; i++)
    verdict->applicable |= e->dispatches[i].kept_count >= 2
                               ? LCTX_IR_ROW_BIT(2) | LCTX_IR_ROW_BIT(3)
                               : LCTX_IR_ROW_BIT(4);
  if (store->any_defect)
    verdict->applicable |= LCTX_IR_ROW_BIT(6);
  lctx_ircheck_run(ck, mlir_text, e, report);
  bool saw_defect = false;
  for (size_t k = 0; k < report->count; k++) {
    const lctx_ir_violation *v = &report->violations[k];
    if (strcmp(v->row, "IR-006") == 0) {
      saw_defect = true;
      continue;
    }
    snprintf(verdict->row, sizeof verdict->row, "%s", v->row);
    snprintf(verdict->reason, sizeof verdict->reason, "%s", v->message);
    return false;
  }
  if (saw_defect != store->any_defect && report->dropped == 0) {
    snprintf(verdict->row, sizeof verdict->row, "IR-006");
    snprintf(verdict->reason, sizeof verdict->reason, "%s",
             store->any_defect
                 ? "the lowering has JAX's nested platform-index defect but "
                   "the module dispatches as intended"
                 : "the module shows the nested platform-index defect where "
                   "JAX has none");
    return false;
  }
  verdict->ok = true;
  return true;
}
