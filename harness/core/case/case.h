/*
 * case.h - the one case model of lctx: a registry configuration plus a
 * sequence of operations run against one registry; the optional expected
 * outcomes travel beside it (lctx_case_expect).
 *
 * Owns the case value, its limits, equality, validation, the keywords of its
 * operations, behaviours and actions, and the bridges to the reference model
 * (an lctx_registry_config and lctx_module_context that point into the case)
 * and to the implementation ABI (lctx/impl_abi.h). A case holds all its bytes
 * itself (no pointers), so it can be copied with `=` and compared field by
 * field; operations name platforms by index into the case's table of
 * distinct names, so an operation means something only beside its case.
 * It is at most 16 KB (asserted below). Text, byte and JSON forms live in
 * case_text.h, case_bytes.h and process/case_json.h; running a case with the
 * reference model in run/runner.h.
 */
#ifndef LCTX_HARNESS_CASE_H
#define LCTX_HARNESS_CASE_H

#include "lctx/impl_abi.h"
#include "lctx/lctx.h"

/// Most operations one case may hold.
#define LCTX_CASE_MAX_OPS 8

/// Most distinct platform names (module platforms and narrowed platforms of
/// all its operations together) one case holds: each is stored once, in
/// the case's table of names, and operations refer to it by index.
#define LCTX_CASE_MAX_NAMES 48

/// Indexes from LCTX_CASE_NAME_BUILTIN up name platforms every case has
/// without holding them in its table ("cpu", then "tpu"): what a variant of
/// an operation (the oracle's invariants) may name that its case does not.
/// No case in any form holds one; lctx_case_validate refuses them.
#define LCTX_CASE_NAME_BUILTIN 254
#define LCTX_CASE_NAME_CPU 254
#define LCTX_CASE_NAME_TPU 255

/// The operations of the case model, one line each: X(ID, keyword), the
/// enum value LCTX_OP_<ID> and the keyword of the text and JSON forms, in
/// the order of lctx_op_kind. Everything else an operation is (its fields,
/// codecs, validation, how the model runs it, how it is classified, how an
/// implementation is called, its part of the domain) is its lctx_op_def
/// `lctx_op_<keyword>` (case_ops.h), defined in core/ops/. Adding an
/// operation adds a line here and a file there.
///   backends()                          initializes the registry; returns
///                                       its platform list
///   canonicalize_platform(arg)
///   xla_bridge.get_backend(arg)         arg possibly None
///   ModuleContext(platforms, backend).get_backend(optional)
///   register_lowering(primitive, rule, platform)   platform possibly None
///   lower_per_platform: lowers one equation of `primitive` the way
///     `jaxpr_subcomp` does: rule selection (`_get_lowering_rules`) then
///     `lower_per_platform(ctx, str(primitive), ...)`, in a module lowered
///     for `platforms` with the pinned `backend`, the rule context narrowed
///     to `narrow`, the equation's `compute_type`, an `override` rule for
///     `primitive`, and the platform index typed i64 under `x64`. Returns
///     None or raises.
/// LCTX_OPS_EXTRA(X) adds lines after these; it is empty unless a build
/// defines LCTX_OPS_EXTRA_HEADER, a header that defines it (a test's way to
/// add an operation through the table).
#ifdef LCTX_OPS_EXTRA_HEADER
#include LCTX_OPS_EXTRA_HEADER
#else
#define LCTX_OPS_EXTRA(X)
#endif
#define LCTX_OP_LIST(X)                                                        \
  X(BACKENDS, backends)                                                        \
  X(CANONICALIZE, canonicalize)                                                \
  X(XLA_GET_BACKEND, get_backend)                                              \
  X(MODULE_GET_BACKEND, module_get_backend)                                    \
  X(REGISTER_LOWERING, register_lowering)                                      \
  X(LOWER_PER_PLATFORM, lower_per_platform)                                    \
  LCTX_OPS_EXTRA(X)

#define LCTX_OP_ENUM_(id, keyword) LCTX_OP_##id,
typedef enum lctx_op_kind { LCTX_OP_LIST(LCTX_OP_ENUM_) } lctx_op_kind;
#undef LCTX_OP_ENUM_
#define LCTX_OP_COUNT_(id, keyword) +1
/// How many operations the table holds.
#define LCTX_OP_KIND_COUNT (0 LCTX_OP_LIST(LCTX_OP_COUNT_))

/// Most rules one case declares.
#define LCTX_CASE_MAX_RULES 8
/// Most actions in the body of one case rule.
#define LCTX_CASE_MAX_ACTIONS 4

/// One action of a case rule's body (lctx/lowering.h describes each kind).
typedef struct lctx_case_action {
  lctx_lowering_action_kind kind;
  /// GET_BACKEND and GUARDED_GET_BACKEND: the `optional` argument.
  bool optional;
  /// RAISE_IF_MULTI: the message. LOWER_FUN: the sub-primitive's name.
  char text[LCTX_MAX_NAME + 1];
  /// LOWER_FUN: the sub-equation's compute type, if any.
  bool has_compute_type;
  char compute_type[LCTX_MAX_NAME + 1];
} lctx_case_action;

/// A lowering rule object declared by a case: a unique name and a body.
/// Operations refer to it by name.
typedef struct lctx_case_rule {
  char name[LCTX_MAX_NAME + 1];
  size_t action_count;
  lctx_case_action actions[LCTX_CASE_MAX_ACTIONS];
} lctx_case_rule;

/// One factory, with its strings held inline.
typedef struct lctx_case_factory {
  char name[LCTX_MAX_NAME + 1];
  int priority;
  bool fail_quietly;
  lctx_factory_behaviour behaviour;
  /// The raise message (LCTX_FACTORY_RAISES only; empty otherwise).
  char message[LCTX_MAX_MESSAGE + 1];
} lctx_case_factory;

/// One operation. Fields not used by `kind` are zero.
typedef struct lctx_case_op {
  lctx_op_kind kind;
  /// CANONICALIZE: the name. XLA_GET_BACKEND and REGISTER_LOWERING: the
  /// platform, or None when `has_arg` is false.
  bool has_arg;
  char arg[LCTX_MAX_NAME + 1];
  /// MODULE_GET_BACKEND and LOWER_PER_PLATFORM: the module platforms, as
  /// indexes into the case's names (lctx_case_op_platform).
  size_t platform_count;
  uint8_t platform[LCTX_MAX_MODULE_PLATFORMS];
  /// MODULE_GET_BACKEND and LOWER_PER_PLATFORM: the real platform of the
  /// pinned client, if any.
  bool has_backend;
  char backend[LCTX_MAX_NAME + 1];
  /// MODULE_GET_BACKEND: the `optional` argument.
  bool optional;
  /// REGISTER_LOWERING and LOWER_PER_PLATFORM: the primitive's name.
  char primitive[LCTX_MAX_NAME + 1];
  /// REGISTER_LOWERING: the name of a rule the case declares.
  char rule[LCTX_MAX_NAME + 1];
  /// LOWER_PER_PLATFORM: the rule context's narrowed platforms, if set, as
  /// indexes into the case's names (lctx_case_op_narrow).
  bool has_narrow;
  size_t narrow_count;
  uint8_t narrowed[LCTX_MAX_MODULE_PLATFORMS];
  /// LOWER_PER_PLATFORM: the equation's compute type, if any.
  bool has_compute_type;
  char compute_type[LCTX_MAX_NAME + 1];
  /// LOWER_PER_PLATFORM: an override rule (a declared rule's name) for
  /// `primitive` in the module's lowering parameters, if any.
  bool has_override;
  char override[LCTX_MAX_NAME + 1];
  /// LOWER_PER_PLATFORM: the platform index is i64 (jax_enable_x64).
  bool x64;
} lctx_case_op;

/// A case. Zero-initialized (lctx_case_init) it is: no factories, no config
/// values, no visible GPU, no operations.
typedef struct lctx_case {
  size_t factory_count;
  lctx_case_factory factories[LCTX_MAX_FACTORIES];
  /// The three config values; "" means unset (JAX treats both alike).
  char jax_platforms[LCTX_MAX_PLATFORMS_CONFIG + 1];
  char jax_platform_name[LCTX_MAX_NAME + 1];
  char jax_xla_backend[LCTX_MAX_NAME + 1];
  bool nvidia_gpu_visible;
  /// The lowering rules the operations refer to, names unique.
  size_t rule_count;
  lctx_case_rule rules[LCTX_CASE_MAX_RULES];
  size_t op_count;
  lctx_case_op ops[LCTX_CASE_MAX_OPS];
  /// The distinct platform names the operations refer to by index, each
  /// once (lctx_case_intern); zero past `name_count`.
  size_t name_count;
  char names[LCTX_CASE_MAX_NAMES][LCTX_MAX_NAME + 1];
} lctx_case;

_Static_assert(sizeof(lctx_case) <= 16384,
               "an lctx_case is at most 16 KB (it is copied and zeroed "
               "often; expectations travel beside it, names are interned)");

/// The name of index `index` of `c`'s table: a held name, a built-in one
/// (LCTX_CASE_NAME_BUILTIN), or "" past the table.
const char *lctx_case_name(const lctx_case *c, size_t index);

/// lctx_case_name as a view (its bytes up to the NUL, at most
/// LCTX_MAX_NAME): read a word at a time, not measured byte by byte.
lctx_str lctx_case_name_view(const lctx_case *c, size_t index);

/// A view of the name field `field` (LCTX_MAX_NAME + 1 bytes: an
/// operation's or a rule's name): its bytes up to the NUL, at most
/// LCTX_MAX_NAME; lctx_str_from_cstr's view of a valid case's field.
lctx_str lctx_case_field_view(const char field[LCTX_MAX_NAME + 1]);

/// Module platform `i` of operation `op` of `c`.
static inline const char *
lctx_case_op_platform(const lctx_case *c, const lctx_case_op *op, size_t i) {
  return lctx_case_name(c, op->platform[i]);
}

/// Narrowed platform `i` of operation `op` of `c`.
static inline const char *
lctx_case_op_narrow(const lctx_case *c, const lctx_case_op *op, size_t i) {
  return lctx_case_name(c, op->narrowed[i]);
}

/// Stores the index of the name `name` (`n` bytes, at most LCTX_MAX_NAME,
/// no NUL) of `c`'s table in `*index`, adding it when it is not there yet.
/// Returns false, changing nothing, when it is new and the table is full
/// (LCTX_CASE_MAX_NAMES) or the name too long.
bool lctx_case_intern(lctx_case *c, lctx_str name, uint8_t *index);

/// lctx_case_intern of a NUL-terminated name.
bool lctx_case_intern_cstr(lctx_case *c, const char *name, uint8_t *index);

/// The most bytes of expectation text one case holds, its operations'
/// texts together; each text is also at most LCTX_OUTCOME_TEXT_MAX - 1
/// (8191) bytes. A case's forms refuse a case beyond it.
#define LCTX_CASE_EXPECT_TEXT_MAX 16000

/// An outcome without its text, which is the `length` bytes at `offset` of
/// a pool of text its holder keeps: what lctx_case_expect and the process
/// layer's results hold instead of whole lctx_outcome values (each of
/// which has room for the longest text).
typedef struct lctx_outcome_head {
  lctx_outcome_kind kind;
  lctx_error_class error;
  lctx_client_origin origin;
  int registration;
  bool truncated;
  uint32_t offset;
  uint32_t length;
} lctx_outcome_head;

/// The head of `o`, its text to be stored at `offset` of a pool.
void lctx_outcome_head_set(lctx_outcome_head *h, const lctx_outcome *o,
                           size_t offset);

/// Copies the outcome of head `h`, whose text is in `pool`, into `out`
/// (its fields, its text and a NUL; the rest of `out->text` untouched) and
/// returns `out`. The text must fit (`h->length` below
/// LCTX_OUTCOME_TEXT_MAX), as lctx_outcome_head_set made it.
const lctx_outcome *lctx_outcome_head_get(const lctx_outcome_head *h,
                                          const char *pool, lctx_outcome *out);

/// lctx_outcome_equal of two heads with their pools.
bool lctx_outcome_head_equal(const lctx_outcome_head *a, const char *pool_a,
                             const lctx_outcome_head *b, const char *pool_b);

/// The expected outcomes of a case's operations (text and JSON forms only),
/// which travel beside the case. Not part of the byte form. Read and
/// written through lctx_case_expect_has, _get and _set: `has[i]` says
/// whether operation i carries one, `op[i]` is its head, and its text is
/// in one pool shared by all (so that the value stays small, and filling
/// it never allocates). Zero-initialized it holds none; every byte of
/// `text` past `used` is zero.
typedef struct lctx_case_expect {
  bool has[LCTX_CASE_MAX_OPS];
  lctx_outcome_head op[LCTX_CASE_MAX_OPS];
  size_t used;
  char text[LCTX_CASE_EXPECT_TEXT_MAX];
} lctx_case_expect;

_Static_assert(sizeof(lctx_case_expect) <= 16384,
               "an lctx_case_expect is at most 16 KB (it travels beside "
               "each case; its texts share one pool)");

/// Whether operation `i` carries an expectation.
static inline bool lctx_case_expect_has(const lctx_case_expect *e, size_t i) {
  return i < LCTX_CASE_MAX_OPS && e->has[i];
}

/// Copies the expectation of operation `i` into `out`; false (`out`
/// untouched) when it has none.
bool lctx_case_expect_get(const lctx_case_expect *e, size_t i,
                          lctx_outcome *out);

/// Sets the expectation of operation `i` (below LCTX_CASE_MAX_OPS) to
/// `o`, replacing the one it had. Returns false, changing nothing, when
/// the texts would then need more than LCTX_CASE_EXPECT_TEXT_MAX bytes
/// together.
bool lctx_case_expect_set(lctx_case_expect *e, size_t i, const lctx_outcome *o);

/// Empties a case.
void lctx_case_init(lctx_case *c);

/// Zeroes an operation.
void lctx_case_op_clear(lctx_case_op *op);

/// Copies `src` into `dst` (`*dst = *src`); the indexes keep naming the
/// names of the case `src` belongs to.
void lctx_case_op_copy(lctx_case_op *dst, const lctx_case_op *src);

/// Copies `src` over `dst` (`*dst = *src`).
void lctx_case_op_assign(lctx_case_op *dst, const lctx_case_op *src);

/// Empties a case that keeps the invariants of a decoded one (every field
/// outside its counts, and every byte after a string's end, zero), such as
/// one lctx_case_init or lctx_case_decode wrote, clearing only its used
/// parts. The result equals that of lctx_case_init byte for byte.
void lctx_case_reset(lctx_case *c);

/// Returns true when the registry configurations and operations of two cases
/// are equal.
bool lctx_case_equal(const lctx_case *a, const lctx_case *b);

/// Empties expectations (none for any operation).
void lctx_case_expect_init(lctx_case_expect *e);

/// Empties expectations, clearing only the text in use: the result equals
/// that of lctx_case_expect_init byte for byte.
void lctx_case_expect_reset(lctx_case_expect *e);

/// Returns true when the expectations of the first `op_count` operations
/// are equal (presence and outcome).
bool lctx_case_expect_equal(const lctx_case_expect *a,
                            const lctx_case_expect *b, size_t op_count);

/// Fills `config` with views into `c` (valid while `c` lives, unmoved): every
/// field, but the factories past `c`'s count, which are left as they were.
void lctx_case_config(const lctx_case *c, lctx_registry_config *config);

/// Fills `context` with views into operation `op` (a MODULE_GET_BACKEND)
/// and the names of `c`, its case.
void lctx_case_module_context(const lctx_case *c, const lctx_case_op *op,
                              lctx_module_context *context);

/// Returns the index of the rule named `name` in the case, or -1.
int lctx_case_rule_find(const lctx_case *c, const char *name);

/// lctx_case_rule_find of a name held in a name field (LCTX_MAX_NAME + 1
/// bytes, as an operation's `rule` and `override`): compared a word at a
/// time.
int lctx_case_rule_find_field(const lctx_case *c,
                              const char name[LCTX_MAX_NAME + 1]);

//===----------------------------------------------------------------------===//
// The case through the implementation ABI (lctx/impl_abi.h)
//===----------------------------------------------------------------------===//

/// Storage an lctx_impl_config points into.
typedef struct lctx_case_impl_views {
  lctx_impl_factory factories[LCTX_MAX_FACTORIES];
  lctx_impl_rule rules[LCTX_CASE_MAX_RULES];
  lctx_impl_action actions[LCTX_CASE_MAX_RULES][LCTX_CASE_MAX_ACTIONS];
} lctx_case_impl_views;

/// Fills `config` (and `views`, which it points to) with views into `c`,
/// as an implementation's session_create receives them.
void lctx_case_impl_config(const lctx_case *c, lctx_case_impl_views *views,
                           lctx_impl_config *config);

/// Capacity of the MLIR buffer given to a LOWER_PER_PLATFORM call.
#define LCTX_CASE_IMPL_MLIR_CAPACITY (1u << 20)

/// Calls the table's function for `op`, an operation of `c` (whose names
/// it gives), on `session`. Returns its status, or
/// 1 when the table leaves that operation NULL or its ABI version lacks it.
/// For LOWER_PER_PLATFORM, `mlir` (may be NULL: then no buffer is offered)
/// holds LCTX_CASE_IMPL_MLIR_CAPACITY bytes and `*mlir_length` receives the
/// module text's length (0 when none) as the implementation set it, not
/// clamped: a length of the capacity or more is the caller's to refuse.
lctx_impl_status lctx_case_impl_run_op(const lctx_impl_table *table,
                                       void *session, const lctx_case *c,
                                       const lctx_case_op *op,
                                       lctx_impl_outcome *out, char *mlir,
                                       size_t *mlir_length);

/// Turns an ABI outcome (kind, class, origin, registration, `length` bytes
/// of text) into an lctx_outcome. Returns false, with `*why` set, for an
/// unknown kind or a raise with an unknown error class.
bool lctx_outcome_from_impl(int32_t kind, int32_t error_class, int32_t origin,
                            int32_t registration, const char *text,
                            size_t length, lctx_outcome *out, const char **why);

/// Checks that every name of the case is within lctx's limits and alphabet
/// (bytes 0x01-0x7f), and that its lowering parts stay within the model's
/// tables: rule names unique and non-empty, every rule an operation names
/// declared, at most LCTX_LOWERING_MAX_PRIMITIVES distinct primitive names,
/// no primitive reaching itself through rules' `lower_fun` (JAX would
/// recurse without end), `lower_fun` nested at most LCTX_LOWERING_MAX_DEPTH
/// deep, and no lowering able to record more than LCTX_LOWERING_MAX_EVENTS
/// events. On failure writes a message naming the field to `error` and
/// returns false.
bool lctx_case_validate(const lctx_case *c, lctx_buf *error);

/// The lowering part of lctx_case_validate without its name checks: rule
/// names non-empty and unique, declared rules, the primitive table,
/// lower_fun cycles, depth and events. For a case whose names are valid by
/// construction (the byte decoder's), the same verdict as
/// lctx_case_validate at a fraction of its cost.
bool lctx_case_validate_lowering(const lctx_case *c, lctx_buf *error);

/// Returns the operation's keyword in the text and JSON forms:
/// "backends", "canonicalize", "get_backend", "module_get_backend",
/// "register_lowering", "lower_per_platform".
const char *lctx_op_kind_name(lctx_op_kind kind);

/// Looks an operation keyword up; returns false if unknown.
bool lctx_op_kind_from_name(lctx_str name, lctx_op_kind *kind);

/// Returns the keyword of a factory behaviour: "client", "raises", "none",
/// "no_devices".
const char *lctx_factory_behaviour_name(lctx_factory_behaviour behaviour);

/// Looks a behaviour keyword up; returns false if unknown.
bool lctx_factory_behaviour_from_name(lctx_str name,
                                      lctx_factory_behaviour *behaviour);

/// Returns the keyword of a rule action in the text and JSON forms:
/// "get_backend", "guarded_get_backend", "try_fallback_get_backend",
/// "raise_if_multi", "read_client_platform", "lower_fun", "marker".
const char *lctx_action_kind_name(lctx_lowering_action_kind kind);

/// Looks an action keyword up; returns false if unknown.
bool lctx_action_kind_from_name(lctx_str name, lctx_lowering_action_kind *kind);

#endif /* LCTX_HARNESS_CASE_H */
