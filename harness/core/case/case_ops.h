/*
 * case_ops.h - the table of operations: what each operation of the case
 * model (case.h's LCTX_OP_LIST) is, as data the forms and the judges read.
 *
 * Owns the operation definition (lctx_op_def): its keyword, its fields (from
 * which the text form's parser and printer, the JSON reader and writer, the
 * validation of its names and the byte form's common layout follow), its
 * bits in the byte form, and the hooks for what an operation genuinely does
 * on its own: how the reference model runs it, whether a release has it,
 * how the feature extractor classifies it, how an implementation is called
 * for it, and its share of the bounded domain and of random cases. The
 * definitions themselves live in core/ops/ (one `lctx_op_<keyword>` each);
 * this module looks them up. Decides nothing itself.
 */
#ifndef LCTX_HARNESS_CASE_OPS_H
#define LCTX_HARNESS_CASE_OPS_H

#include "case.h"

#include <stddef.h>
#include <stdint.h>

struct lctx_runner;
struct lctx_feature_state;
struct lctx_features;
struct lctx_domain_walk;

/// What a field of an operation holds.
typedef enum lctx_op_field_kind {
  /// A name (char[LCTX_MAX_NAME + 1]).
  LCTX_OP_FIELD_NAME = 0,
  /// A name or None (`has` says which).
  LCTX_OP_FIELD_NAME_OR_NONE,
  /// The name of a rule the case declares.
  LCTX_OP_FIELD_RULE,
  /// A list of platform names, as indexes into the case's names (uint8_t
  /// [LCTX_MAX_MODULE_PLATFORMS], `count` a size_t).
  LCTX_OP_FIELD_LIST,
  /// true or false (a bool).
  LCTX_OP_FIELD_FLAG,
} lctx_op_field_kind;

/// No member: a field without a presence flag or a count.
#define LCTX_OP_NO_MEMBER ((size_t)-1)

/// One field of an operation: where it is in lctx_case_op and how its forms
/// write it.
typedef struct lctx_op_field {
  lctx_op_field_kind kind;
  /// Text form: the key of `key=value`, or NULL for a value without a key
  /// (only before every keyed field).
  const char *key;
  /// JSON form: the member's key.
  const char *json_key;
  /// Optional: in the text form a key that may be left out (the optional
  /// keys come after the others, in the table's order; a flag is printed
  /// only when true, another only when present); in the JSON form a member
  /// that is null when absent (a flag: a boolean).
  bool optional;
  /// offsetof the value in lctx_case_op.
  size_t value;
  /// offsetof the presence flag (a bool), or LCTX_OP_NO_MEMBER. A NAME
  /// with one sets it when read (it is always present).
  size_t has;
  /// LIST: offsetof the count (a size_t).
  size_t count;
  /// Text form: what `key=` is described as when it is missing
  /// ("`platforms=[...]`").
  const char *key_what;
  /// Text form: what the string is described as when it is missing ("a
  /// primitive name string"; NAME only).
  const char *string_what;
  /// The field's name in the text form's errors ("primitive", "module
  /// platform", "get_backend argument").
  const char *field;
  /// LIST: the list's name in "too many ..." ("platforms").
  const char *many;
} lctx_op_field;

/// Most fields one operation has.
#define LCTX_OP_MAX_FIELDS 8

/// One operation.
typedef struct lctx_op_def {
  lctx_op_kind kind;
  /// The keyword of the text and JSON forms.
  const char *name;
  size_t field_count;
  lctx_op_field fields[LCTX_OP_MAX_FIELDS];
  /// A lowering operation: it needs the case's lowering registry, is
  /// checked by lctx_case_validate_lowering after it is read, has no
  /// variant run from a kept registry state, and in the byte form carries
  /// the lowering slots (primitive, rule selector, narrowing, compute type).
  bool lowering;

  /// Byte form (case_bytes.h): the kind byte `b` selects this operation
  /// when `(b & byte_mask) == byte_code` (the match with the most mask bits
  /// wins); `byte_flags` sets the presence flags and booleans from `b` (the
  /// lowering slots' rule selector found a rule when `rule_found`);
  /// `byte_kind` is the kind byte the encoder writes.
  uint8_t byte_mask, byte_code;
  void (*byte_flags)(lctx_case_op *op, uint8_t b, bool rule_found);
  unsigned (*byte_kind)(const lctx_case_op *op);

  /// The reference model: runs `op` of the runner's case on `registry`
  /// (the runner's, or a kept state for a variant) into `out`; `branch` (may
  /// be NULL) receives a ModuleContext branch. False when a lowering went
  /// beyond the model's limits.
  bool (*run)(struct lctx_runner *r, lctx_registry *registry,
              const lctx_case_op *op, lctx_outcome *out,
              lctx_module_branch *branch);
  /// Whether the runner's release has `op`.
  bool (*exists)(const struct lctx_runner *r, const lctx_case_op *op);
  /// The feature extractor: classifies `op` into `f`, advancing `s`.
  void (*classify)(struct lctx_feature_state *s, const lctx_case_op *op,
                   struct lctx_features *f);

  /// The implementation ABI: the table's function for this operation sits
  /// at `impl_slot` (offsetof in lctx_impl_table) from ABI version
  /// `impl_version` on; `impl_call` calls it (lctx_case_impl_run_op).
  size_t impl_slot;
  uint32_t impl_version;
  lctx_impl_status (*impl_call)(const lctx_impl_table *t, void *session,
                                const lctx_case *c, const lctx_case_op *op,
                                lctx_impl_outcome *out, char *mlir,
                                size_t *mlir_length);

  /// The bounded domain (domain.h): how many single-operation cases this
  /// operation gives with module platform lists up to `max_platforms` long,
  /// and the walk writing them into `op` (false: the walk stopped). NULL:
  /// the operation has no part in the single-operation domain.
  size_t (*domain_count)(size_t max_platforms);
  bool (*domain_each)(struct lctx_domain_walk *w, lctx_case_op *op,
                      size_t max_platforms);
  /// Random cases: fills `op` (cleared, its kind set) of `c`; NULL: not
  /// drawn among the single operations.
  void (*random)(uint64_t *state, lctx_case *c, lctx_case_op *op);
} lctx_op_def;

/// The definitions in LCTX_OP_LIST order (defined in core/ops/).
#define LCTX_OP_DECLARE_(id, keyword)                                          \
  extern const lctx_op_def lctx_op_##keyword;
LCTX_OP_LIST(LCTX_OP_DECLARE_)
#undef LCTX_OP_DECLARE_

/// The definition of operation `kind`, or NULL for a kind outside the table.
const lctx_op_def *lctx_op_get(lctx_op_kind kind);

/// The field of `def` whose value is at `offset` in lctx_case_op, or NULL.
const lctx_op_field *lctx_op_field_at(const lctx_op_def *def, size_t offset);

/// Appends the keywords of every operation in table order, as "a, b or c"
/// (what an unknown operation's error lists).
void lctx_op_keywords(lctx_buf *out);

/// Whether the implementation table `t` has the function of operation
/// `def` (its ABI version has the slot, and the slot is not NULL).
bool lctx_case_impl_has(const lctx_impl_table *t, const lctx_op_def *def);

/// A field of `op`: its value, presence flag and count.
static inline char *lctx_op_text(lctx_case_op *op, const lctx_op_field *f) {
  return (char *)op + f->value;
}
static inline const char *lctx_op_ctext(const lctx_case_op *op,
                                        const lctx_op_field *f) {
  return (const char *)op + f->value;
}
static inline bool *lctx_op_has(lctx_case_op *op, const lctx_op_field *f) {
  return (bool *)((char *)op + f->has);
}
static inline bool lctx_op_chas(const lctx_case_op *op,
                                const lctx_op_field *f) {
  return f->has == LCTX_OP_NO_MEMBER ||
         *(const bool *)((const char *)op + f->has);
}
static inline size_t *lctx_op_count(lctx_case_op *op, const lctx_op_field *f) {
  return (size_t *)((char *)op + f->count);
}
static inline size_t lctx_op_ccount(const lctx_case_op *op,
                                    const lctx_op_field *f) {
  return *(const size_t *)((const char *)op + f->count);
}

/// Whether field `f` of `op` is present: a field without a presence flag
/// always is; a flag is present when true.
static inline bool lctx_op_present(const lctx_case_op *op,
                                   const lctx_op_field *f) {
  if (f->kind == LCTX_OP_FIELD_FLAG)
    return *(const bool *)((const char *)op + f->value);
  return lctx_op_chas(op, f);
}

#endif /* LCTX_HARNESS_CASE_OPS_H */
