/*
 * case_ops.c - looking operations up in the table (see case_ops.h): by
 * kind and keyword, their fields, and their calls through the
 * implementation ABI; the entries are core/ops/'s.
 */
#include "case_ops.h"

#include <string.h>

#define LCTX_OP_ENTRY_(id, keyword) &lctx_op_##keyword,
static const lctx_op_def *const TABLE[] = {LCTX_OP_LIST(LCTX_OP_ENTRY_)};
#undef LCTX_OP_ENTRY_

_Static_assert(sizeof TABLE / sizeof TABLE[0] == LCTX_OP_KIND_COUNT,
               "one entry per operation");

const lctx_op_def *lctx_op_get(lctx_op_kind kind) {
  return (unsigned)kind < LCTX_OP_KIND_COUNT ? TABLE[kind] : NULL;
}

const lctx_op_field *lctx_op_field_at(const lctx_op_def *def, size_t offset) {
  for (size_t i = 0; def && i < def->field_count; i++) {
    if (def->fields[i].value == offset)
      return &def->fields[i];
  }
  return NULL;
}

void lctx_op_keywords(lctx_buf *out) {
  for (size_t i = 0; i < LCTX_OP_KIND_COUNT; i++) {
    if (i > 0)
      lctx_buf_append_cstr(out, i + 1 == LCTX_OP_KIND_COUNT ? " or " : ", ");
    lctx_buf_append_cstr(out, TABLE[i]->name);
  }
}

const char *lctx_op_kind_name(lctx_op_kind kind) {
  const lctx_op_def *def = lctx_op_get(kind);
  return def ? def->name : "?";
}

bool lctx_op_kind_from_name(lctx_str name, lctx_op_kind *kind) {
  for (size_t i = 0; i < LCTX_OP_KIND_COUNT; i++) {
    if (lctx_str_equal_cstr(name, lctx_op_get((lctx_op_kind)i)->name)) {
      *kind = (lctx_op_kind)i;
      return true;
    }
  }
  return false;
}

lctx_impl_status lctx_case_impl_run_op(const lctx_impl_table *t, void *session,
                                       const lctx_case *c,
                                       const lctx_case_op *op,
                                       lctx_impl_outcome *o, char *mlir,
                                       size_t *mlir_length) {
  if (mlir_length)
    *mlir_length = 0;
  const lctx_op_def *def = lctx_op_get(op->kind);
  if (!def || !lctx_case_impl_has(t, def))
    return 1;
  return def->impl_call(t, session, c, op, o, mlir, mlir_length);
}

bool lctx_case_impl_has(const lctx_impl_table *t, const lctx_op_def *def) {
  /* A table of an older ABI version ends before the later slots: never
   * read them. */
  if (t->abi_version < def->impl_version)
    return false;
  void (*slot)(void);
  memcpy(&slot, (const char *)t + def->impl_slot, sizeof slot);
  return slot != NULL;
}
