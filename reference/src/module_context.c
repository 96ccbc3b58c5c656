/*
 * module_context.c - ModuleContext.get_backend(optional) (see
 * lctx/module_context.h; semantics.md section 5; jax/_src/interpreters/mlir.py
 * at jax-ml/jax@cec06d116c05, lines 890-907).
 *
 * Owns the order of the checks B1, B2a/B2b, B3 and the IndexError of an empty
 * platform tuple (or list, after lower_fun narrowed the platforms), and their
 * older forms as the release (lctx/release.h) says: no `optional` before
 * jax-v0.7.2; the `.backend` property before jax-v0.5.0 (the pinned client
 * unchecked, else `xb.get_backend(None)`). Must not allocate or compare
 * versions; B1 must not look at the backend or the registry.
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

/* A pinned client's `.platform` canonicalized and compared with
 * platforms[0] (B2a/B2b), from jax-v0.5.0. */
static bool pinned_checked(lctx_registry *registry,
                           const lctx_module_context *context, bool optional,
                           lctx_outcome *out, lctx_module_branch *taken) {
  const lctx_release *release = registry->config->release;
  lctx_str attr =
      lctx_client_platform_attr_at(release, context->backend_platform);
  lctx_str canonical;
  LCTX_REGISTRY_TRACEF(registry,
                       "module get_backend: pinned client '%.*s' has .platform "
                       "'%.*s'",
                       (int)context->backend_platform.length,
                       context->backend_platform.data, (int)attr.length,
                       attr.data);
  if (!lctx_canonicalize(registry, attr, &canonical, out))
    return false;
  if (context->platform_count == 0)
    return index_error(registry, context, out);
  if (lctx_str_equal(canonical, context->platforms[0])) {
    *taken = LCTX_BRANCH_B2B;
    LCTX_REGISTRY_TRACEF(registry,
                         "module get_backend: B2b, the pinned client");
    lctx_outcome_set_client(out, LCTX_CLIENT_PINNED, -1,
                            context->backend_platform);
    return true;
  }
  *taken = LCTX_BRANCH_B2A;
  LCTX_REGISTRY_TRACEF(registry,
                       "module get_backend: B2a, canonical '%.*s' differs from "
                       "platforms[0], optional=%s",
                       (int)canonical.length, canonical.data,
                       optional ? "True" : "False");
  if (optional) {
    lctx_outcome_set_none(out);
    return true;
  }
  lctx_buf w = lctx_outcome_begin_raise(out, LCTX_ERROR_VALUE);
  lctx_buf_append_cstr(&w, "the platform for the specified backend ");
  lctx_buf_append_str(&w, canonical);
  lctx_buf_append_cstr(&w, " is different from the lowering platform ");
  lctx_buf_append_str(&w, context->platforms[0]);
  lctx_outcome_end(out, &w);
  return false;
}

/* After B1: the pinned client or the registry look-up, as the release's
 * ModuleContext does it. */
static bool single_platform(lctx_registry *registry,
                            const lctx_module_context *context, bool optional,
                            lctx_outcome *out, lctx_module_branch *taken) {
  const lctx_release *release = lctx_release_resolve(registry->config->release);
  if (context->has_backend) {
    if (release->module_pinned_check)
      return pinned_checked(registry, context, optional, out, taken);
    /* `.backend` before jax-v0.5.0: the pinned client, unchecked. */
    *taken = LCTX_BRANCH_B2B;
    LCTX_REGISTRY_TRACEF(registry, "module get_backend: B2b, the pinned "
                                   "client (.backend: not compared)");
    lctx_outcome_set_client(out, LCTX_CLIENT_PINNED, -1,
                            context->backend_platform);
    return true;
  }
  if (!release->module_lookup_first_platform) {
    /* `.backend` before jax-v0.5.0: `xb.get_backend(backend_or_name)` with
     * no backend, whatever the platforms. */
    *taken = LCTX_BRANCH_B3;
    LCTX_REGISTRY_TRACEF(registry, "module get_backend: B3, "
                                   "xla_bridge.get_backend(None) (.backend)");
    return lctx_xla_get_backend(registry, NULL, out);
  }
  if (context->platform_count == 0)
    return index_error(registry, context, out);
  *taken = LCTX_BRANCH_B3;
  LCTX_REGISTRY_TRACEF(registry,
                       "module get_backend: B3, xla_bridge.get_backend of "
                       "platforms[0]");
  return lctx_xla_get_backend(registry, &context->platforms[0], out);
}

bool lctx_module_get_backend(lctx_registry *registry,
                             const lctx_module_context *context, bool optional,
                             lctx_outcome *out, lctx_module_branch *branch) {
  lctx_module_branch taken = LCTX_BRANCH_ERROR;
  bool ok;
  if (optional &&
      !lctx_release_has_op(registry->config->release,
                           LCTX_RELEASE_OP_MODULE_GET_BACKEND_OPTIONAL)) {
    /* No such call at this release: not modelled. */
    lctx_outcome_set_none(out);
    ok = false;
  } else if (context->platform_count > 1) {
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
  } else {
    ok = single_platform(registry, context, optional, out, &taken);
  }
  if (branch)
    *branch = taken;
  return ok;
}
