/*
 * case.c - the case model (see case.h): equality, validation, keywords, and
 * running an operation with the reference model.
 */
#include "case.h"

#include <string.h>

static const char *const OP_NAMES[LCTX_OP_KIND_COUNT] = {
    [LCTX_OP_BACKENDS] = "backends",
    [LCTX_OP_CANONICALIZE] = "canonicalize",
    [LCTX_OP_XLA_GET_BACKEND] = "get_backend",
    [LCTX_OP_MODULE_GET_BACKEND] = "module_get_backend",
};

static const char *const BEHAVIOUR_NAMES[] = {
    [LCTX_FACTORY_CLIENT] = "client",
    [LCTX_FACTORY_RAISES] = "raises",
    [LCTX_FACTORY_RETURNS_NONE] = "none",
    [LCTX_FACTORY_NO_DEVICES] = "no_devices",
};

void lctx_case_init(lctx_case *c) {
  memset(c, 0, sizeof *c);
}

const char *lctx_op_kind_name(lctx_op_kind kind) {
  return (unsigned)kind < LCTX_OP_KIND_COUNT ? OP_NAMES[kind] : "?";
}

bool lctx_op_kind_from_name(lctx_str name, lctx_op_kind *kind) {
  for (int i = 0; i < LCTX_OP_KIND_COUNT; i++) {
    if (lctx_str_equal_cstr(name, OP_NAMES[i])) {
      *kind = (lctx_op_kind)i;
      return true;
    }
  }
  return false;
}

const char *lctx_factory_behaviour_name(lctx_factory_behaviour behaviour) {
  return (unsigned)behaviour <= LCTX_FACTORY_NO_DEVICES
             ? BEHAVIOUR_NAMES[behaviour]
             : "?";
}

bool lctx_factory_behaviour_from_name(lctx_str name,
                                      lctx_factory_behaviour *behaviour) {
  for (int i = 0; i <= LCTX_FACTORY_NO_DEVICES; i++) {
    if (lctx_str_equal_cstr(name, BEHAVIOUR_NAMES[i])) {
      *behaviour = (lctx_factory_behaviour)i;
      return true;
    }
  }
  return false;
}

static bool op_equal(const lctx_case_op *a, const lctx_case_op *b) {
  if (a->kind != b->kind || a->has_arg != b->has_arg ||
      strcmp(a->arg, b->arg) != 0 || a->platform_count != b->platform_count ||
      a->has_backend != b->has_backend || strcmp(a->backend, b->backend) != 0 ||
      a->optional != b->optional)
    return false;
  for (size_t i = 0; i < a->platform_count; i++) {
    if (strcmp(a->platforms[i], b->platforms[i]) != 0)
      return false;
  }
  return true;
}

bool lctx_case_equal(const lctx_case *a, const lctx_case *b, bool with_expect) {
  if (a->factory_count != b->factory_count ||
      strcmp(a->jax_platforms, b->jax_platforms) != 0 ||
      strcmp(a->jax_platform_name, b->jax_platform_name) != 0 ||
      strcmp(a->jax_xla_backend, b->jax_xla_backend) != 0 ||
      a->nvidia_gpu_visible != b->nvidia_gpu_visible ||
      a->op_count != b->op_count)
    return false;
  for (size_t i = 0; i < a->factory_count; i++) {
    const lctx_case_factory *fa = &a->factories[i], *fb = &b->factories[i];
    if (strcmp(fa->name, fb->name) != 0 || fa->priority != fb->priority ||
        fa->fail_quietly != fb->fail_quietly ||
        fa->behaviour != fb->behaviour || strcmp(fa->message, fb->message) != 0)
      return false;
  }
  for (size_t i = 0; i < a->op_count; i++) {
    if (!op_equal(&a->ops[i], &b->ops[i]))
      return false;
    if (with_expect && (a->has_expect[i] != b->has_expect[i] ||
                        (a->has_expect[i] &&
                         !lctx_outcome_equal(&a->expect[i], &b->expect[i]))))
      return false;
  }
  return true;
}

void lctx_case_config(const lctx_case *c, lctx_registry_config *config) {
  lctx_registry_config_init(config);
  for (size_t i = 0; i < c->factory_count; i++) {
    const lctx_case_factory *f = &c->factories[i];
    config->factories[i] = (lctx_factory){f->name, f->priority, f->fail_quietly,
                                          f->behaviour, f->message};
  }
  config->factory_count = c->factory_count;
  config->jax_platforms = c->jax_platforms;
  config->jax_platform_name = c->jax_platform_name;
  config->jax_xla_backend = c->jax_xla_backend;
  config->nvidia_gpu_visible = c->nvidia_gpu_visible;
}

void lctx_case_module_context(const lctx_case_op *op,
                              lctx_module_context *context) {
  lctx_module_context_init(context);
  for (size_t i = 0; i < op->platform_count; i++)
    lctx_module_context_add_platform(context,
                                     lctx_str_from_cstr(op->platforms[i]));
  if (op->has_backend)
    lctx_module_context_pin(context, lctx_str_from_cstr(op->backend));
}

void lctx_case_run_op(lctx_registry *registry, const lctx_case_op *op,
                      lctx_outcome *out, lctx_module_branch *branch) {
  if (branch)
    *branch = LCTX_BRANCH_ERROR;
  switch (op->kind) {
  case LCTX_OP_BACKENDS:
    lctx_registry_backends(registry, out);
    break;
  case LCTX_OP_CANONICALIZE:
    lctx_canonicalize_platform(registry, lctx_str_from_cstr(op->arg), out);
    break;
  case LCTX_OP_XLA_GET_BACKEND: {
    lctx_str arg = lctx_str_from_cstr(op->arg);
    lctx_xla_get_backend(registry, op->has_arg ? &arg : NULL, out);
    break;
  }
  case LCTX_OP_MODULE_GET_BACKEND: {
    lctx_module_context context;
    lctx_case_module_context(op, &context);
    lctx_module_get_backend(registry, &context, op->optional, out, branch);
    break;
  }
  }
}

static bool check_name(const char *s, size_t max, const char *field, long index,
                       lctx_buf *error) {
  size_t n = strnlen(s, max + 1);
  if (n <= max && lctx_pyrepr_is_supported(lctx_str_make(s, n)))
    return true;
  lctx_buf_append_cstr(error, field);
  if (index >= 0) {
    lctx_buf_append_char(error, '[');
    lctx_buf_append_int(error, index);
    lctx_buf_append_char(error, ']');
  }
  lctx_buf_append_cstr(error, n > max ? " is too long"
                                      : " holds a byte outside 0x01-0x7f");
  return false;
}

bool lctx_case_validate(const lctx_case *c, lctx_buf *error) {
  if (c->factory_count > LCTX_MAX_FACTORIES) {
    lctx_buf_append_cstr(error, "factories: too many");
    return false;
  }
  if (c->op_count > LCTX_CASE_MAX_OPS) {
    lctx_buf_append_cstr(error, "operations: too many");
    return false;
  }
  lctx_registry_config config;
  lctx_case_config(c, &config);
  if (!lctx_registry_config_validate(&config, error))
    return false;
  for (size_t i = 0; i < c->op_count; i++) {
    const lctx_case_op *op = &c->ops[i];
    if ((unsigned)op->kind >= LCTX_OP_KIND_COUNT) {
      lctx_buf_append_cstr(error, "operations[");
      lctx_buf_append_int(error, (long long)i);
      lctx_buf_append_cstr(error, "].op is not a known operation");
      return false;
    }
    if (op->platform_count > LCTX_MAX_MODULE_PLATFORMS) {
      lctx_buf_append_cstr(error, "operations[].platforms: too many");
      return false;
    }
    if (!check_name(op->arg, LCTX_MAX_NAME, "operations[].arg", (long)i,
                    error) ||
        !check_name(op->backend, LCTX_MAX_NAME, "operations[].backend", (long)i,
                    error))
      return false;
    for (size_t k = 0; k < op->platform_count; k++) {
      if (!check_name(op->platforms[k], LCTX_MAX_NAME, "operations[].platforms",
                      (long)k, error))
        return false;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// The case through the implementation ABI
//===----------------------------------------------------------------------===//

void lctx_case_impl_config(const lctx_case *c,
                           lctx_impl_factory factories[LCTX_MAX_FACTORIES],
                           lctx_impl_config *config) {
  for (size_t i = 0; i < c->factory_count; i++)
    factories[i] = (lctx_impl_factory){
        c->factories[i].name, c->factories[i].priority,
        c->factories[i].fail_quietly, (int32_t)c->factories[i].behaviour,
        c->factories[i].message};
  *config = (lctx_impl_config){c->factory_count,   factories,
                               c->jax_platforms,   c->jax_platform_name,
                               c->jax_xla_backend, c->nvidia_gpu_visible};
}

lctx_impl_status lctx_case_impl_run_op(const lctx_impl_table *t, void *session,
                                       const lctx_case_op *op,
                                       lctx_impl_outcome *o) {
  switch (op->kind) {
  case LCTX_OP_BACKENDS:
    return t->backends ? t->backends(session, o) : 1;
  case LCTX_OP_CANONICALIZE:
    return t->canonicalize ? t->canonicalize(session, op->arg, o) : 1;
  case LCTX_OP_XLA_GET_BACKEND:
    return t->get_backend
               ? t->get_backend(session, op->has_arg ? op->arg : NULL, o)
               : 1;
  case LCTX_OP_MODULE_GET_BACKEND: {
    if (!t->module_get_backend)
      return 1;
    const char *platforms[LCTX_MAX_MODULE_PLATFORMS];
    for (size_t k = 0; k < op->platform_count; k++)
      platforms[k] = op->platforms[k];
    return t->module_get_backend(session, platforms, op->platform_count,
                                 op->has_backend ? op->backend : NULL,
                                 op->optional, o);
  }
  }
  return 1;
}

bool lctx_outcome_from_impl(int32_t kind, int32_t error_class, int32_t origin,
                            int32_t registration, const char *text,
                            size_t length, lctx_outcome *out,
                            const char **why) {
  if (kind < LCTX_IMPL_NONE || kind > LCTX_IMPL_RAISE) {
    *why = "an outcome with an unknown kind";
    return false;
  }
  if (kind == LCTX_IMPL_RAISE && (error_class < LCTX_IMPL_RUNTIME_ERROR ||
                                  error_class > LCTX_IMPL_INDEX_ERROR)) {
    *why = "a raise with an unknown error class";
    return false;
  }
  /* The ABI's numbering matches lctx_outcome_kind and lctx_error_class. */
  lctx_buf w =
      kind == LCTX_IMPL_RAISE
          ? lctx_outcome_begin_raise(out, (lctx_error_class)error_class)
          : lctx_outcome_begin(out, (lctx_outcome_kind)kind);
  lctx_buf_append(&w, text, length);
  lctx_outcome_end(out, &w);
  if (kind == LCTX_IMPL_CLIENT) {
    out->origin = origin == LCTX_IMPL_ORIGIN_PINNED ? LCTX_CLIENT_PINNED
                                                    : LCTX_CLIENT_REGISTRY;
    out->registration = out->origin == LCTX_CLIENT_PINNED ? -1 : registration;
  }
  return true;
}
