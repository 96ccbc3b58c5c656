/*
 * ops_registry.c - the table entries (case_ops.h) of the four
 * backend-selection operations: backends, canonicalize, get_backend and
 * module_get_backend.
 *
 * Owns their fields, their bits in the byte form, how the reference model
 * runs them, which release has them, how an implementation is called for
 * them, and their share of the bounded domain and of random cases; their
 * classification is classify.c's.
 */
#include "case_ops.h"
#include "classify.h"
#include "domain_walk.h"
#include "runner.h"

#include <stddef.h>
#include <string.h>

#define M(member) offsetof(lctx_case_op, member)
#define NO LCTX_OP_NO_MEMBER

//===----------------------------------------------------------------------===//
// The reference model
//===----------------------------------------------------------------------===//

static bool run_backends(lctx_runner *r, lctx_registry *registry,
                         const lctx_case_op *op, lctx_outcome *out,
                         lctx_module_branch *branch) {
  (void)r, (void)op;
  if (branch)
    *branch = LCTX_BRANCH_ERROR;
  lctx_registry_backends(registry, out);
  return true;
}

static bool run_canonicalize(lctx_runner *r, lctx_registry *registry,
                             const lctx_case_op *op, lctx_outcome *out,
                             lctx_module_branch *branch) {
  (void)r;
  if (branch)
    *branch = LCTX_BRANCH_ERROR;
  lctx_canonicalize_platform(registry, lctx_str_from_cstr(op->arg), out);
  return true;
}

static bool run_get_backend(lctx_runner *r, lctx_registry *registry,
                            const lctx_case_op *op, lctx_outcome *out,
                            lctx_module_branch *branch) {
  (void)r;
  if (branch)
    *branch = LCTX_BRANCH_ERROR;
  lctx_str arg = lctx_str_from_cstr(op->arg);
  lctx_xla_get_backend(registry, op->has_arg ? &arg : NULL, out);
  return true;
}

static bool run_module(lctx_runner *r, lctx_registry *registry,
                       const lctx_case_op *op, lctx_outcome *out,
                       lctx_module_branch *branch) {
  if (branch)
    *branch = LCTX_BRANCH_ERROR;
  lctx_module_context context;
  lctx_case_module_context(r->c, op, &context);
  lctx_module_get_backend(registry, &context, op->optional, out, branch);
  return true;
}

static bool has_backends(const lctx_runner *r, const lctx_case_op *op) {
  (void)op;
  return lctx_release_has_op(r->config.release, LCTX_RELEASE_OP_BACKENDS);
}

static bool has_canonicalize(const lctx_runner *r, const lctx_case_op *op) {
  (void)op;
  return lctx_release_has_op(r->config.release, LCTX_RELEASE_OP_CANONICALIZE);
}

static bool has_get_backend(const lctx_runner *r, const lctx_case_op *op) {
  (void)op;
  return lctx_release_has_op(r->config.release,
                             LCTX_RELEASE_OP_XLA_GET_BACKEND);
}

static bool has_module(const lctx_runner *r, const lctx_case_op *op) {
  return lctx_release_has_op(r->config.release,
                             op->optional
                                 ? LCTX_RELEASE_OP_MODULE_GET_BACKEND_OPTIONAL
                                 : LCTX_RELEASE_OP_MODULE_GET_BACKEND);
}

//===----------------------------------------------------------------------===//
// The implementation ABI
//===----------------------------------------------------------------------===//

static lctx_impl_status call_backends(const lctx_impl_table *t, void *session,
                                      const lctx_case *c,
                                      const lctx_case_op *op,
                                      lctx_impl_outcome *o, char *mlir,
                                      size_t *mlir_length) {
  (void)c, (void)op, (void)mlir, (void)mlir_length;
  return t->backends(session, o);
}

static lctx_impl_status call_canonicalize(const lctx_impl_table *t,
                                          void *session, const lctx_case *c,
                                          const lctx_case_op *op,
                                          lctx_impl_outcome *o, char *mlir,
                                          size_t *mlir_length) {
  (void)c, (void)mlir, (void)mlir_length;
  return t->canonicalize(session, op->arg, o);
}

static lctx_impl_status call_get_backend(const lctx_impl_table *t,
                                         void *session, const lctx_case *c,
                                         const lctx_case_op *op,
                                         lctx_impl_outcome *o, char *mlir,
                                         size_t *mlir_length) {
  (void)c, (void)mlir, (void)mlir_length;
  return t->get_backend(session, op->has_arg ? op->arg : NULL, o);
}

static lctx_impl_status call_module(const lctx_impl_table *t, void *session,
                                    const lctx_case *c, const lctx_case_op *op,
                                    lctx_impl_outcome *o, char *mlir,
                                    size_t *mlir_length) {
  (void)mlir, (void)mlir_length;
  const char *platforms[LCTX_MAX_MODULE_PLATFORMS];
  for (size_t k = 0; k < op->platform_count; k++)
    platforms[k] = lctx_case_op_platform(c, op, k);
  return t->module_get_backend(session, platforms, op->platform_count,
                               op->has_backend ? op->backend : NULL,
                               op->optional, o);
}

//===----------------------------------------------------------------------===//
// The byte form
//===----------------------------------------------------------------------===//

static void flags_none(lctx_case_op *op, uint8_t b, bool rule_found) {
  (void)op, (void)b, (void)rule_found;
}

static unsigned kind_backends(const lctx_case_op *op) {
  (void)op;
  return 0;
}

static void flags_canonicalize(lctx_case_op *op, uint8_t b, bool rule_found) {
  (void)b, (void)rule_found;
  op->has_arg = true;
}

static unsigned kind_canonicalize(const lctx_case_op *op) {
  (void)op;
  return 1;
}

static void flags_get_backend(lctx_case_op *op, uint8_t b, bool rule_found) {
  (void)rule_found;
  op->has_arg = (b >> 2) & 1;
}

static unsigned kind_get_backend(const lctx_case_op *op) {
  return 2u | (op->has_arg ? 1u << 2 : 0);
}

static void flags_module(lctx_case_op *op, uint8_t b, bool rule_found) {
  (void)rule_found;
  op->has_backend = (b >> 3) & 1;
  op->optional = (b >> 4) & 1;
}

static unsigned kind_module(const lctx_case_op *op) {
  return 3u | (op->has_backend ? 1u << 3 : 0) | (op->optional ? 1u << 4 : 0);
}

//===----------------------------------------------------------------------===//
// The bounded domain and random cases
//===----------------------------------------------------------------------===//

static size_t count_one(size_t max_platforms) {
  (void)max_platforms;
  return 1;
}

static bool each_backends(struct lctx_domain_walk *w, lctx_case_op *op,
                          size_t max_platforms) {
  (void)max_platforms;
  lctx_domain_clear_op(op, LCTX_OP_BACKENDS);
  return lctx_domain_emit(w);
}

static size_t count_canonicalize(size_t max_platforms) {
  (void)max_platforms;
  return lctx_domain_alphabet_size();
}

static bool each_canonicalize(struct lctx_domain_walk *w, lctx_case_op *op,
                              size_t max_platforms) {
  (void)max_platforms;
  for (size_t a = 0; a < lctx_domain_alphabet_size(); a++) {
    lctx_domain_clear_op(op, LCTX_OP_CANONICALIZE);
    op->has_arg = true; /* canonicalize always has its argument */
    lctx_domain_set_name(op->arg, a);
    if (!lctx_domain_emit(w))
      return false;
  }
  return true;
}

static size_t count_get_backend(size_t max_platforms) {
  (void)max_platforms;
  return lctx_domain_alphabet_size() + 1;
}

static bool each_get_backend(struct lctx_domain_walk *w, lctx_case_op *op,
                             size_t max_platforms) {
  (void)max_platforms;
  size_t n = lctx_domain_alphabet_size();
  for (size_t a = 0; a <= n; a++) {
    lctx_domain_clear_op(op, LCTX_OP_XLA_GET_BACKEND);
    op->has_arg = a < n;
    if (op->has_arg)
      lctx_domain_set_name(op->arg, a);
    if (!lctx_domain_emit(w))
      return false;
  }
  return true;
}

static size_t count_module(size_t max_platforms) {
  size_t a = lctx_domain_alphabet_size(), n = 0, lists = 1;
  for (size_t length = 0; length <= max_platforms; length++) {
    n += lists * (a + 1) * 2;
    lists *= a;
  }
  return n;
}

/* Every module platform list of length 0..max over the alphabet, every
 * pinned backend (and none), optional false and true. */
static bool each_module(struct lctx_domain_walk *w, lctx_case_op *op,
                        size_t max_platforms) {
  size_t a = lctx_domain_alphabet_size();
  for (size_t length = 0; length <= max_platforms; length++) {
    size_t lists = 1;
    for (size_t k = 0; k < length; k++)
      lists *= a;
    for (size_t index = 0; index < lists; index++) {
      if (lctx_domain_skip(w, (a + 1) * 2))
        continue;
      /* The operation is written once per platform list: the cases that
       * follow differ only in the pinned backend (written over the last,
       * whose bytes are cleared, so the operation is byte for byte the one
       * written afresh) and in `optional` (the visitor cannot change the
       * case). */
      lctx_domain_clear_op(op, LCTX_OP_MODULE_GET_BACKEND);
      size_t rest = index;
      op->platform_count = length;
      for (size_t k = 0; k < length; k++) {
        lctx_domain_set_platform(w, &op->platform[k], rest % a);
        rest /= a;
      }
      for (size_t pinned = 0; pinned <= a; pinned++) {
        if (pinned > 0)
          memset(op->backend, 0, lctx_domain_name_length(pinned - 1));
        op->has_backend = pinned < a;
        if (op->has_backend)
          lctx_domain_set_name(op->backend, pinned);
        for (int optional = 0; optional < 2; optional++) {
          op->optional = optional != 0;
          if (!lctx_domain_emit(w))
            return false;
        }
      }
    }
  }
  return true;
}

static void random_canonicalize(uint64_t *state, lctx_case *c,
                                lctx_case_op *op) {
  (void)c;
  op->has_arg = true;
  lctx_domain_random_name(state, op->arg, sizeof op->arg);
}

static void random_get_backend(uint64_t *state, lctx_case *c,
                               lctx_case_op *op) {
  (void)c;
  op->has_arg = lctx_domain_below(state, 4) != 0;
  if (op->has_arg)
    lctx_domain_random_name(state, op->arg, sizeof op->arg);
}

static void random_module(uint64_t *state, lctx_case *c, lctx_case_op *op) {
  lctx_domain_random_module(state, c, op, 5, 2);
  op->optional = lctx_domain_below(state, 2) == 0;
}

static void random_nothing(uint64_t *state, lctx_case *c, lctx_case_op *op) {
  (void)state, (void)c, (void)op;
}

//===----------------------------------------------------------------------===//
// The entries
//===----------------------------------------------------------------------===//

#define BACKEND_FIELD                                                          \
  {                                                                            \
    LCTX_OP_FIELD_NAME_OR_NONE, "backend", "backend", false, M(backend),       \
        M(has_backend), NO, "`backend=None` or `backend=\"...\"`", NULL,       \
        "backend", NULL                                                        \
  }

const lctx_op_def lctx_op_backends = {
    .kind = LCTX_OP_BACKENDS,
    .name = "backends",
    .byte_mask = 0x23,
    .byte_code = 0x00,
    .byte_flags = flags_none,
    .byte_kind = kind_backends,
    .run = run_backends,
    .exists = has_backends,
    .classify = lctx_classify_backends,
    .impl_slot = offsetof(lctx_impl_table, backends),
    .impl_version = 1,
    .impl_call = call_backends,
    .domain_count = count_one,
    .domain_each = each_backends,
    .random = random_nothing,
};

const lctx_op_def lctx_op_canonicalize = {
    .kind = LCTX_OP_CANONICALIZE,
    .name = "canonicalize",
    .field_count = 1,
    .fields = {{LCTX_OP_FIELD_NAME, NULL, "name", false, M(arg), M(has_arg), NO,
                NULL, "a platform name string", "canonicalize argument", NULL}},
    .byte_mask = 0x23,
    .byte_code = 0x01,
    .byte_flags = flags_canonicalize,
    .byte_kind = kind_canonicalize,
    .run = run_canonicalize,
    .exists = has_canonicalize,
    .classify = lctx_classify_canonicalize,
    .impl_slot = offsetof(lctx_impl_table, canonicalize),
    .impl_version = 1,
    .impl_call = call_canonicalize,
    .domain_count = count_canonicalize,
    .domain_each = each_canonicalize,
    .random = random_canonicalize,
};

const lctx_op_def lctx_op_get_backend = {
    .kind = LCTX_OP_XLA_GET_BACKEND,
    .name = "get_backend",
    .field_count = 1,
    .fields = {{LCTX_OP_FIELD_NAME_OR_NONE, NULL, "platform", false, M(arg),
                M(has_arg), NO, NULL, NULL, "get_backend argument", NULL}},
    .byte_mask = 0x23,
    .byte_code = 0x02,
    .byte_flags = flags_get_backend,
    .byte_kind = kind_get_backend,
    .run = run_get_backend,
    .exists = has_get_backend,
    .classify = lctx_classify_get_backend,
    .impl_slot = offsetof(lctx_impl_table, get_backend),
    .impl_version = 1,
    .impl_call = call_get_backend,
    .domain_count = count_get_backend,
    .domain_each = each_get_backend,
    .random = random_get_backend,
};

const lctx_op_def lctx_op_module_get_backend = {
    .kind = LCTX_OP_MODULE_GET_BACKEND,
    .name = "module_get_backend",
    .field_count = 3,
    .fields = {{LCTX_OP_FIELD_LIST, "platforms", "platforms", false,
                M(platform), NO, M(platform_count), "`platforms=[...]`", NULL,
                "module platform", "platforms"},
               BACKEND_FIELD,
               {LCTX_OP_FIELD_FLAG, "optional", "optional", false, M(optional),
                NO, NO, NULL, NULL, "optional", NULL}},
    .byte_mask = 0x23,
    .byte_code = 0x03,
    .byte_flags = flags_module,
    .byte_kind = kind_module,
    .run = run_module,
    .exists = has_module,
    .classify = lctx_classify_module_get_backend,
    .impl_slot = offsetof(lctx_impl_table, module_get_backend),
    .impl_version = 1,
    .impl_call = call_module,
    .domain_count = count_module,
    .domain_each = each_module,
    .random = random_module,
};
