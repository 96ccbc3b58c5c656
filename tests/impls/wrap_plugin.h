/*
 * wrap_plugin.h - what the test plugins that wrap the example plugin
 * (misbehaving_plugin.c, hostile_plugin.c) share: the example plugin
 * itself, its entry renamed lctx_example_entry (inner_table() returns its
 * table), and w_destroy and the operations w_backends, w_canonicalize,
 * w_get_backend, w_module and w_register, each of which runs the example's
 * operation on the wrapped session and hands its status and outcome to the
 * including file's
 *
 *   static lctx_impl_status misbehave(const wrapped *w, lctx_impl_status st,
 *                                     lctx_impl_outcome *out);
 *
 * The including file defines the type `wrapped` (a struct with the member
 * `void *inner`, the example's session, which w_destroy destroys before it
 * frees the struct) before it includes this header, then misbehave,
 * w_create and its lctx_impl_entry: for a version 2 table, defined by
 * WRAPPED_ENTRY(NAME) below, after its w_lower.
 */
#ifndef LCTX_TESTS_WRAP_PLUGIN_H
#define LCTX_TESTS_WRAP_PLUGIN_H

/* Every file of the example plugin, in this one translation unit. */
#define lctx_impl_entry lctx_example_entry
#include "../../conformance/examples/c_plugin/lctx_example_plugin.c"
#include "../../conformance/examples/c_plugin/lowering.c"
#include "../../conformance/examples/c_plugin/outcome.c"
#include "../../conformance/examples/c_plugin/register_lowering.c"
#include "../../conformance/examples/c_plugin/registry.c"
#undef lctx_impl_entry

#include <stdlib.h>

static const lctx_impl_table *inner_table(void) {
  return lctx_example_entry();
}

static lctx_impl_status misbehave(const wrapped *w, lctx_impl_status st,
                                  lctx_impl_outcome *out);

static void w_destroy(void *p) {
  wrapped *w = p;
  inner_table()->session_destroy(w->inner);
  free(w);
}

static lctx_impl_status w_backends(void *p, lctx_impl_outcome *out) {
  wrapped *w = p;
  return misbehave(w, inner_table()->backends(w->inner, out), out);
}

static lctx_impl_status w_canonicalize(void *p, const char *name,
                                       lctx_impl_outcome *out) {
  wrapped *w = p;
  return misbehave(w, inner_table()->canonicalize(w->inner, name, out), out);
}

static lctx_impl_status w_get_backend(void *p, const char *platform,
                                      lctx_impl_outcome *out) {
  wrapped *w = p;
  return misbehave(w, inner_table()->get_backend(w->inner, platform, out), out);
}

static lctx_impl_status w_module(void *p, const char *const *platforms,
                                 size_t count, const char *backend,
                                 int32_t optional, lctx_impl_outcome *out) {
  wrapped *w = p;
  return misbehave(w,
                   inner_table()->module_get_backend(w->inner, platforms, count,
                                                     backend, optional, out),
                   out);
}

/* Unused by a version 1 table (misbehaving_plugin.c's). */
__attribute__((unused)) static lctx_impl_status
w_register(void *p, const char *primitive, const char *rule,
           const char *platform, lctx_impl_outcome *out) {
  wrapped *w = p;
  return misbehave(w,
                   inner_table()->register_lowering(w->inner, primitive, rule,
                                                    platform, out),
                   out);
}

/* WRAPPED_ENTRY(NAME): defines the exported lctx_impl_entry, a version 2
 * table named NAME with the example's operations, each wrapped: the
 * including file's w_create and w_lower and this header's others. */
#define WRAPPED_ENTRY(NAME)                                                    \
  __attribute__((visibility("default"))) const lctx_impl_table *               \
  lctx_impl_entry(void);                                                       \
                                                                               \
  const lctx_impl_table *lctx_impl_entry(void) {                               \
    static const lctx_impl_table table = {                                     \
        .abi_version = LCTX_IMPL_ABI_VERSION,                                  \
        .name = NAME,                                                          \
        .version = "0.0.1",                                                    \
        .operations =                                                          \
            LCTX_IMPL_OP_BACKENDS | LCTX_IMPL_OP_CANONICALIZE |                \
            LCTX_IMPL_OP_GET_BACKEND | LCTX_IMPL_OP_MODULE_GET_BACKEND |       \
            LCTX_IMPL_OP_REGISTER_LOWERING | LCTX_IMPL_OP_LOWER_PER_PLATFORM,  \
        .session_create = w_create,                                            \
        .session_destroy = w_destroy,                                          \
        .backends = w_backends,                                                \
        .canonicalize = w_canonicalize,                                        \
        .get_backend = w_get_backend,                                          \
        .module_get_backend = w_module,                                        \
        .register_lowering = w_register,                                       \
        .lower_per_platform = w_lower};                                        \
    return &table;                                                             \
  }

#endif
