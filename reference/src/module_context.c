/*
 * module_context.c - ModuleContext.get_backend(optional) (see
 * lctx/module_context.h; semantics.md section 5; jax/_src/interpreters/mlir.py
 * at jax-ml/jax@cec06d116c05, lines 890-907).
 *
 * Owns the order of the checks B1, B2a/B2b, B3 and the IndexError of an empty
 * platform tuple (or list, after lower_fun narrowed the platforms). Must not
 * allocate; B1 must not look at the backend or the registry.
 */
#include "lctx/module_context.h"

#include "lctx/xla_bridge.h"

static const char M1[] =
    "accessing .backend in multi-lowering setting. This can occur when "
    "lowering a primitive that has not been adapted to multi-platform "
    "lowering";

void lctx_module_context_init(lctx_module_context *context) {
  context->platform_count = 0;
  context->has_backend = false;
  context->backend_platform = lctx_str_make(NULL, 0);
  context->platforms_are_list = false;
}

bool lctx_module_context_add_platform(lctx_module_context *context,
                                      lctx_str platform) {
  if (context->platform_count >= LCTX_MAX_MODULE_PLATFORMS)
    return false;
  context->platforms[context->platform_count++] = platform;
  return true;
}

void lctx_module_context_pin(lctx_module_context *context, lctx_str platform) {
  context->has_backend = true;
  context->backend_platform = platform;
}

const char *lctx_module_branch_name(lctx_module_branch branch) {
  switch (branch) {
  case LCTX_BRANCH_B1:
    return "B1";
  case LCTX_BRANCH_B2A:
    return "B2a";
  case LCTX_BRANCH_B2B:
    return "B2b";
  case LCTX_BRANCH_B3:
    return "B3";
  case LCTX_BRANCH_ERROR:
    return "error";
  }
  return "?";
}

static bool index_error(lctx_registry *registry,
                        const lctx_module_context *context, lctx_outcome *out) {
  const char *seq = context->platforms_are_list ? "list" : "tuple";
  LCTX_REGISTRY_TRACEF(registry,
                       "module get_backend: platforms[0] of an empty %s: "
                       "IndexError",
                       seq);
  lctx_buf w = lctx_outcome_begin_raise(out, LCTX_ERROR_INDEX);
  lctx_buf_append_cstr(&w, seq);
  lctx_buf_append_cstr(&w, " index out of range");
  lctx_outcome_end(out, &w);
  return false;
}

bool lctx_module_get_backend(lctx_registry *registry,
                             const lctx_module_context *context, bool optional,
                             lctx_outcome *out, lctx_module_branch *branch) {
  lctx_module_branch taken = LCTX_BRANCH_ERROR;
  bool ok;
  if (context->platform_count > 1) {
    taken = LCTX_BRANCH_B1;
    LCTX_REGISTRY_TRACEF(registry,
                         "module get_backend: B1, %zu platforms, optional=%s",
                         context->platform_count, optional ? "True" : "False");
    if (optional) {
      lctx_outcome_set_none(out);
      ok = true;
    } else {
      lctx_buf w = lctx_outcome_begin_raise(out, LCTX_ERROR_NOT_IMPLEMENTED);
      lctx_buf_append(&w, M1, sizeof M1 - 1);
      lctx_outcome_end(out, &w);
      ok = false;
    }
  } else if (context->has_backend) {
    lctx_str attr = lctx_client_platform_attr(context->backend_platform);
    lctx_str canonical;
    LCTX_REGISTRY_TRACEF(
        registry,
        "module get_backend: pinned client '%.*s' has .platform "
        "'%.*s'",
        (int)context->backend_platform.length, context->backend_platform.data,
        (int)attr.length, attr.data);
    if (!lctx_canonicalize(registry, attr, &canonical, out)) {
      ok = false;
    } else if (context->platform_count == 0) {
      ok = index_error(registry, context, out);
    } else if (!lctx_str_equal(canonical, context->platforms[0])) {
      taken = LCTX_BRANCH_B2A;
      LCTX_REGISTRY_TRACEF(
          registry,
          "module get_backend: B2a, canonical '%.*s' differs from "
          "platforms[0], optional=%s",
          (int)canonical.length, canonical.data, optional ? "True" : "False");
      if (optional) {
        lctx_outcome_set_none(out);
        ok = true;
      } else {
        lctx_buf w = lctx_outcome_begin_raise(out, LCTX_ERROR_VALUE);
        lctx_buf_append_cstr(&w, "the platform for the specified backend ");
        lctx_buf_append_str(&w, canonical);
        lctx_buf_append_cstr(&w, " is different from the lowering platform ");
        lctx_buf_append_str(&w, context->platforms[0]);
        lctx_outcome_end(out, &w);
        ok = false;
      }
    } else {
      taken = LCTX_BRANCH_B2B;
      LCTX_REGISTRY_TRACEF(registry,
                           "module get_backend: B2b, the pinned client");
      lctx_outcome_set_client(out, LCTX_CLIENT_PINNED, -1,
                              context->backend_platform);
      ok = true;
    }
  } else if (context->platform_count == 0) {
    ok = index_error(registry, context, out);
  } else {
    taken = LCTX_BRANCH_B3;
    LCTX_REGISTRY_TRACEF(registry,
                         "module get_backend: B3, xla_bridge.get_backend of "
                         "platforms[0]");
    ok = lctx_xla_get_backend(registry, &context->platforms[0], out);
  }
  if (branch)
    *branch = taken;
  return ok;
}
