/*
 * tests/op_table/op_dummy.c - the table entry of the `dummy` operation
 * (op_dummy.h), the one other file an operation needs: `dummy name="..."
 * platforms=[...] [flag=true]`. The model gives the string
 * "dummy:NAME:PLATFORM-COUNT"; it is classified with `arg` = name and the
 * {arg} placeholder; an implementation is called through its canonicalize
 * slot; the domain writes it once per alphabet name.
 */
#include "case_ops.h"
#include "classify.h"
#include "domain_walk.h"
#include "runner.h"

#include <stddef.h>

#define M(member) offsetof(lctx_case_op, member)
#define NO LCTX_OP_NO_MEMBER

static bool run_dummy(lctx_runner *r, lctx_registry *registry,
                      const lctx_case_op *op, lctx_outcome *out,
                      lctx_module_branch *branch) {
  (void)r, (void)registry;
  if (branch)
    *branch = LCTX_BRANCH_ERROR;
  lctx_buf w = lctx_outcome_begin(out, LCTX_OUTCOME_STRING);
  lctx_buf_append_cstr(&w, "dummy:");
  lctx_buf_append_cstr(&w, op->arg);
  lctx_buf_append_char(&w, ':');
  lctx_buf_append_int(&w, (long long)op->platform_count);
  lctx_outcome_end(out, &w);
  return true;
}

static bool has_dummy(const lctx_runner *r, const lctx_case_op *op) {
  (void)r;
  return !op->optional;
}

static void classify_dummy(lctx_feature_state *s, const lctx_case_op *op,
                           lctx_features *f) {
  (void)s;
  int value = 0;
  lctx_classify_value_from_name(LCTX_F_ARG, lctx_str_from_cstr("name"), &value);
  f->value[LCTX_F_ARG] = value;
  f->has[LCTX_P_ARG] = true;
  f->text[LCTX_P_ARG] = lctx_str_from_cstr(op->arg);
}

static lctx_impl_status call_dummy(const lctx_impl_table *t, void *session,
                                   const lctx_case *c, const lctx_case_op *op,
                                   lctx_impl_outcome *o, char *mlir,
                                   size_t *mlir_length) {
  (void)c, (void)mlir, (void)mlir_length;
  return t->canonicalize(session, op->arg, o);
}

static void flags_dummy(lctx_case_op *op, uint8_t b, bool rule_found) {
  (void)rule_found;
  op->has_arg = true;
  op->optional = (b >> 4) & 1;
}

static unsigned kind_dummy(const lctx_case_op *op) {
  return 0x40u | (op->optional ? 1u << 4 : 0);
}

static size_t count_dummy(size_t max_platforms) {
  (void)max_platforms;
  return lctx_domain_alphabet_size();
}

static bool each_dummy(lctx_domain_walk *w, lctx_case_op *op,
                       size_t max_platforms) {
  (void)max_platforms;
  for (size_t a = 0; a < lctx_domain_alphabet_size(); a++) {
    lctx_domain_clear_op(op, LCTX_OP_DUMMY);
    op->has_arg = true;
    lctx_domain_set_name(op->arg, a);
    if (!lctx_domain_emit(w))
      return false;
  }
  return true;
}

const lctx_op_def lctx_op_dummy = {
    .kind = LCTX_OP_DUMMY,
    .name = "dummy",
    .field_count = 3,
    .fields = {{LCTX_OP_FIELD_NAME, "name", "name", false, M(arg), M(has_arg),
                NO, "`name=\"...\"`", "a name string", "dummy name", NULL},
               {LCTX_OP_FIELD_LIST, "platforms", "platforms", false,
                M(platform), NO, M(platform_count), "`platforms=[...]`", NULL,
                "dummy platform", "dummy platforms"},
               {LCTX_OP_FIELD_FLAG, "flag", "flag", true, M(optional), NO, NO,
                NULL, NULL, "flag", NULL}},
    .byte_mask = 0xe3,
    .byte_code = 0x40,
    .byte_flags = flags_dummy,
    .byte_kind = kind_dummy,
    .run = run_dummy,
    .exists = has_dummy,
    .classify = classify_dummy,
    .impl_slot = offsetof(lctx_impl_table, canonicalize),
    .impl_version = 1,
    .impl_call = call_dummy,
    .domain_count = count_dummy,
    .domain_each = each_dummy,
};
