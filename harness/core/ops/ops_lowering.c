/*
 * ops_lowering.c - the table entries (case_ops.h) of the two lowering
 * operations: register_lowering and lower_per_platform.
 *
 * Owns their fields, their bits in the byte form, how the reference model
 * runs them (on the runner's lowering registry), which release has them and
 * how an implementation is called for them; their classification is
 * classify_lower.c's, their domain the lowering sub-domain of domain.c.
 */
#include "case_ops.h"
#include "classify.h"
#include "runner.h"

#include <stddef.h>
#include <string.h>

#define M(member) offsetof(lctx_case_op, member)
#define NO LCTX_OP_NO_MEMBER

//===----------------------------------------------------------------------===//
// The reference model
//===----------------------------------------------------------------------===//

static bool run_register(lctx_runner *r, lctx_registry *registry,
                         const lctx_case_op *op, lctx_outcome *out,
                         lctx_module_branch *branch) {
  (void)registry;
  if (branch)
    *branch = LCTX_BRANCH_ERROR;
  lctx_runner_lowering_ready(r);
  int primitive = lctx_lowering_primitive_add(
      &r->lowering, lctx_str_from_cstr(op->primitive));
  lctx_str platform = lctx_str_from_cstr(op->arg);
  int rule = lctx_runner_rule_id(r, op->rule);
  if (primitive < 0 || rule < 0) {
    lctx_outcome_set_none(out);
    return false;
  }
  lctx_lowering_register(&r->lowering, primitive, rule,
                         op->has_arg ? &platform : NULL, out);
  return true;
}

static bool run_lower(lctx_runner *r, lctx_registry *registry,
                      const lctx_case_op *op, lctx_outcome *out,
                      lctx_module_branch *branch) {
  (void)registry;
  if (branch)
    *branch = LCTX_BRANCH_ERROR;
  lctx_runner_lowering_ready(r);
  int primitive = lctx_lowering_primitive_add(
      &r->lowering, lctx_str_from_cstr(op->primitive));
  lctx_lowering_context *ctx = &r->context;
  lctx_lowering_context_init(ctx);
  lctx_case_module_context(r->c, op, &ctx->module);
  if (op->has_narrow) {
    lctx_str narrow[LCTX_MAX_MODULE_PLATFORMS];
    for (size_t i = 0; i < op->narrow_count; i++)
      narrow[i] = lctx_str_from_cstr(lctx_case_op_narrow(r->c, op, i));
    lctx_lowering_context_narrow(ctx, narrow, op->narrow_count);
  }
  ctx->has_compute_type = op->has_compute_type;
  ctx->compute_type = lctx_str_from_cstr(op->compute_type);
  /* The platform index is prepended to the dimension variables exactly when
   * the module is lowered for more than one platform. */
  ctx->dim_var_count = op->platform_count > 1 ? 1 : 0;
  if (op->has_override) {
    int rule = lctx_runner_rule_id(r, op->override);
    if (rule >= 0) {
      ctx->overrides.count = 1;
      ctx->overrides.primitives[0] = primitive;
      ctx->overrides.rules[0] = rule;
    }
  }
  r->has_result = true;
  if (primitive < 0) {
    lctx_outcome_set_none(out);
    return false;
  }
  lctx_lowering_lower_eqn(&r->lowering, &r->registry, ctx, primitive,
                          r->result);
  lctx_outcome_copy(out, &r->result->outcome);
  return r->result->limit == LCTX_LOWERING_LIMIT_NONE;
}

static bool has_register(const lctx_runner *r, const lctx_case_op *op) {
  (void)op;
  return lctx_release_has_op(r->config.release,
                             LCTX_RELEASE_OP_REGISTER_LOWERING);
}

/* Whether a case rule's action calls get_backend(optional=True). */
static bool action_needs_optional(const lctx_case_action *a) {
  switch (a->kind) {
  case LCTX_ACTION_GET_BACKEND:
  case LCTX_ACTION_GUARDED_GET_BACKEND:
    return a->optional;
  case LCTX_ACTION_TRY_FALLBACK_GET_BACKEND:
  case LCTX_ACTION_READ_CLIENT_PLATFORM:
    return true;
  case LCTX_ACTION_RAISE_IF_MULTI:
  case LCTX_ACTION_LOWER_FUN:
  case LCTX_ACTION_EMIT_MARKER:
    return false;
  }
  return false;
}

static bool has_lower(const lctx_runner *r, const lctx_case_op *op) {
  (void)op;
  const lctx_release *rel = r->config.release;
  if (!lctx_release_has_op(rel, LCTX_RELEASE_OP_LOWER_PER_PLATFORM))
    return false;
  if (lctx_release_has_op(rel, LCTX_RELEASE_OP_MODULE_GET_BACKEND_OPTIONAL))
    return true;
  for (size_t i = 0; i < r->c->rule_count; i++) {
    const lctx_case_rule *rule = &r->c->rules[i];
    for (size_t k = 0; k < rule->action_count; k++) {
      if (action_needs_optional(&rule->actions[k]))
        return false;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// The implementation ABI
//===----------------------------------------------------------------------===//

static lctx_impl_status call_register(const lctx_impl_table *t, void *session,
                                      const lctx_case *c,
                                      const lctx_case_op *op,
                                      lctx_impl_outcome *o, char *mlir,
                                      size_t *mlir_length) {
  (void)c, (void)mlir, (void)mlir_length;
  return t->register_lowering(session, op->primitive, op->rule,
                              op->has_arg ? op->arg : NULL, o);
}

static lctx_impl_status call_lower(const lctx_impl_table *t, void *session,
                                   const lctx_case *c, const lctx_case_op *op,
                                   lctx_impl_outcome *o, char *mlir,
                                   size_t *mlir_length) {
  const char *platforms[LCTX_MAX_MODULE_PLATFORMS];
  for (size_t k = 0; k < op->platform_count; k++)
    platforms[k] = lctx_case_op_platform(c, op, k);
  const char *narrow[LCTX_MAX_MODULE_PLATFORMS];
  for (size_t k = 0; k < op->narrow_count; k++)
    narrow[k] = lctx_case_op_narrow(c, op, k);
  lctx_impl_lowering l = {
      op->primitive,
      platforms,
      op->platform_count,
      op->has_backend ? op->backend : NULL,
      op->has_narrow ? narrow : NULL,
      op->has_narrow ? op->narrow_count : 0,
      op->has_compute_type ? op->compute_type : NULL,
      op->has_override ? op->override : NULL,
      op->x64,
  };
  size_t length = 0;
  lctx_impl_status st = t->lower_per_platform(
      session, &l, o, mlir, mlir ? LCTX_CASE_IMPL_MLIR_CAPACITY : 0, &length);
  if (mlir_length && mlir)
    *mlir_length = length; /* the caller checks it against the capacity */
  return st;
}

//===----------------------------------------------------------------------===//
// The byte form: bit 5 of the kind byte marks a lowering operation
//===----------------------------------------------------------------------===//

static void flags_register(lctx_case_op *op, uint8_t b, bool rule_found) {
  (void)rule_found;
  op->has_arg = (b >> 2) & 1;
}

static unsigned kind_register(const lctx_case_op *op) {
  return 0x20u | (op->has_arg ? 1u << 2 : 0);
}

static void flags_lower(lctx_case_op *op, uint8_t b, bool rule_found) {
  op->has_compute_type = (b >> 1) & 1;
  op->has_backend = (b >> 3) & 1;
  op->x64 = (b >> 4) & 1;
  op->has_narrow = (b >> 6) & 1;
  op->has_override = ((b >> 7) & 1) && rule_found;
}

static unsigned kind_lower(const lctx_case_op *op) {
  return 0x21u | (op->has_compute_type ? 1u << 1 : 0) |
         (op->has_backend ? 1u << 3 : 0) | (op->x64 ? 1u << 4 : 0) |
         (op->has_narrow ? 1u << 6 : 0) | (op->has_override ? 1u << 7 : 0);
}

//===----------------------------------------------------------------------===//
// The entries
//===----------------------------------------------------------------------===//

#define PRIMITIVE_FIELD                                                        \
  {                                                                            \
    LCTX_OP_FIELD_NAME, "primitive", "primitive", false, M(primitive), NO, NO, \
        "`primitive=\"...\"`", "a primitive name string", "primitive", NULL    \
  }

const lctx_op_def lctx_op_register_lowering = {
    .kind = LCTX_OP_REGISTER_LOWERING,
    .name = "register_lowering",
    .field_count = 3,
    .fields = {PRIMITIVE_FIELD,
               {LCTX_OP_FIELD_RULE, "rule", "rule", false, M(rule), NO, NO,
                "`rule=\"...\"`", NULL, "rule", NULL},
               {LCTX_OP_FIELD_NAME_OR_NONE, "platform", "platform", false,
                M(arg), M(has_arg), NO, "`platform=None` or `platform=\"...\"`",
                NULL, "register_lowering platform", NULL}},
    .lowering = true,
    .byte_mask = 0x21,
    .byte_code = 0x20,
    .byte_flags = flags_register,
    .byte_kind = kind_register,
    .run = run_register,
    .exists = has_register,
    .classify = lctx_classify_register_lowering,
    .impl_slot = offsetof(lctx_impl_table, register_lowering),
    .impl_version = 2,
    .impl_call = call_register,
};

const lctx_op_def lctx_op_lower_per_platform = {
    .kind = LCTX_OP_LOWER_PER_PLATFORM,
    .name = "lower_per_platform",
    .field_count = 7,
    .fields = {PRIMITIVE_FIELD,
               {LCTX_OP_FIELD_LIST, "platforms", "platforms", false,
                M(platform), NO, M(platform_count), "`platforms=[...]`", NULL,
                "module platform", "platforms"},
               {LCTX_OP_FIELD_NAME_OR_NONE, "backend", "backend", false,
                M(backend), M(has_backend), NO,
                "`backend=None` or `backend=\"...\"`", NULL, "backend", NULL},
               {LCTX_OP_FIELD_LIST, "narrow", "narrow", true, M(narrowed),
                M(has_narrow), M(narrow_count), "`narrow=[...]`", NULL,
                "narrow platform", "narrow platforms"},
               {LCTX_OP_FIELD_NAME, "compute_type", "compute_type", true,
                M(compute_type), M(has_compute_type), NO,
                "`compute_type=\"...\"`", "a compute type string",
                "compute type", NULL},
               {LCTX_OP_FIELD_RULE, "override", "override", true, M(override),
                M(has_override), NO, "`override=\"...\"`", NULL, "override",
                NULL},
               {LCTX_OP_FIELD_FLAG, "x64", "x64", true, M(x64), NO, NO, NULL,
                NULL, "x64", NULL}},
    .lowering = true,
    .byte_mask = 0x21,
    .byte_code = 0x21,
    .byte_flags = flags_lower,
    .byte_kind = kind_lower,
    .run = run_lower,
    .exists = has_lower,
    .classify = lctx_classify_lower_per_platform,
    .impl_slot = offsetof(lctx_impl_table, lower_per_platform),
    .impl_version = 2,
    .impl_call = call_lower,
};
