/*
 * lctx/impl_abi.h - the C ABI an implementation under test exports, so that
 * `lctx conform --impl LIB.so` can judge it.
 *
 * Owns the contract only (no code): one exported entry symbol,
 * `lctx_impl_entry`, returns a table with the ABI version, the
 * implementation's name and version, the operations it supports, and one
 * function per operation. A case runs in a session: a fresh registry built
 * from the case's configuration, then the case's operations in order against
 * it (so an implementation must keep its registry state, partial registries
 * included, within a session). The full text is conformance/ABI.md.
 *
 * The header depends on nothing else of lctx: an implementation includes it
 * alone. Plain C types only; strings are NUL-terminated ASCII (bytes
 * 0x01-0x7f).
 */
#ifndef LCTX_IMPL_ABI_H
#define LCTX_IMPL_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The ABI version this header describes. lctx accepts tables of version 1
/// (the four backend-selection operations; the table ends after
/// `module_get_backend`) and 2 (adds the lowering operations), and refuses
/// any other.
#define LCTX_IMPL_ABI_VERSION 2

/// The name of the symbol an implementation exports.
#define LCTX_IMPL_ENTRY_SYMBOL "lctx_impl_entry"

//===----------------------------------------------------------------------===//
// Operations
//===----------------------------------------------------------------------===//

/// Operation bits for `lctx_impl_table.operations`.
enum {
  LCTX_IMPL_OP_BACKENDS = 1u << 0,           ///< backends()
  LCTX_IMPL_OP_CANONICALIZE = 1u << 1,       ///< canonicalize_platform(name)
  LCTX_IMPL_OP_GET_BACKEND = 1u << 2,        ///< xla_bridge.get_backend(p)
  LCTX_IMPL_OP_MODULE_GET_BACKEND = 1u << 3, ///< ModuleContext.get_backend
  LCTX_IMPL_OP_REGISTER_LOWERING = 1u << 4,  ///< register_lowering (v2)
  LCTX_IMPL_OP_LOWER_PER_PLATFORM = 1u << 5, ///< lowering an equation (v2)
};

//===----------------------------------------------------------------------===//
// Configuration of a session (one case)
//===----------------------------------------------------------------------===//

/// What a factory does when called.
enum {
  LCTX_IMPL_FACTORY_CLIENT = 0,     ///< returns a client with devices
  LCTX_IMPL_FACTORY_RAISES = 1,     ///< raises; str(err) is `message`
  LCTX_IMPL_FACTORY_NONE = 2,       ///< returns None
  LCTX_IMPL_FACTORY_NO_DEVICES = 3, ///< returns a client with no devices
};

/// One registered backend factory, in registration order (names unique).
typedef struct lctx_impl_factory {
  const char *name;
  int32_t priority;
  int32_t fail_quietly; ///< 0 or 1
  int32_t behaviour;    ///< LCTX_IMPL_FACTORY_*
  const char *message;  ///< LCTX_IMPL_FACTORY_RAISES only; "" otherwise
} lctx_impl_factory;

/// What one step of a lowering rule's body does (ABI v2; semantics.md
/// section 7, and conformance/ABI.md).
enum {
  /// `ctx.module_context.get_backend(optional)`; a raise aborts the lowering.
  LCTX_IMPL_ACTION_GET_BACKEND = 0,
  /// `if len(ctx.module_context.platforms) <= 1: get_backend(optional)`.
  LCTX_IMPL_ACTION_GUARDED_GET_BACKEND = 1,
  /// `get_backend()`, and on NotImplementedError `get_backend(optional=True)`.
  LCTX_IMPL_ACTION_TRY_FALLBACK_GET_BACKEND = 2,
  /// `if len(ctx.module_context.platforms) > 1: raise
  /// NotImplementedError(text)`.
  LCTX_IMPL_ACTION_RAISE_IF_MULTI = 3,
  /// `get_backend(optional=True)`, then reads the client's `.platform`.
  LCTX_IMPL_ACTION_READ_CLIENT_PLATFORM = 4,
  /// Lowers an equation of primitive `text` through `lower_fun` (compute
  /// type `compute_type`, NULL for none).
  LCTX_IMPL_ACTION_LOWER_FUN = 5,
  /// Emits a marker: this rule ran, for `_platforms_for_eqn(ctx)`.
  LCTX_IMPL_ACTION_EMIT_MARKER = 6,
};

/// One action of a rule body (ABI v2).
typedef struct lctx_impl_action {
  int32_t kind;             ///< LCTX_IMPL_ACTION_*
  int32_t optional;         ///< GET_BACKEND, GUARDED_GET_BACKEND: 0 or 1
  const char *text;         ///< RAISE_IF_MULTI: message; LOWER_FUN: primitive
  const char *compute_type; ///< LOWER_FUN: compute type, or NULL
} lctx_impl_action;

/// A lowering rule object the case declares (ABI v2). Rules are identified
/// by name; the same rule registered for two platforms is one object.
typedef struct lctx_impl_rule {
  const char *name;
  size_t action_count;
  const lctx_impl_action *actions;
} lctx_impl_rule;

/// Everything backend initialization reads, and (ABI v2) the case's rules.
/// Config strings are "" when unset.
typedef struct lctx_impl_config {
  size_t factory_count;
  const lctx_impl_factory *factories;
  const char *jax_platforms;
  const char *jax_platform_name;
  const char *jax_xla_backend;
  int32_t nvidia_gpu_visible; ///< 0 or 1
  /// ABI v2: the lowering rules the case declares (0 and NULL when none).
  size_t rule_count;
  const lctx_impl_rule *rules;
} lctx_impl_config;

/// One equation lowered by lower_per_platform (ABI v2): a module lowered
/// for `platforms` with the pinned `backend` (NULL for none), the rule
/// context narrowed to `narrow` (NULL when not narrowed), the equation's
/// `compute_type` (NULL for none), `override` the name of a rule given as
/// the override lowering rule of `primitive` (NULL for none), and the
/// platform index typed i64 when `x64`.
typedef struct lctx_impl_lowering {
  const char *primitive;
  const char *const *platforms;
  size_t platform_count;
  const char *backend;
  const char *const *narrow;
  size_t narrow_count;
  const char *compute_type;
  const char *override_rule;
  int32_t x64;
} lctx_impl_lowering;

//===----------------------------------------------------------------------===//
// Outcomes
//===----------------------------------------------------------------------===//

/// What an operation did.
enum {
  LCTX_IMPL_NONE = 0,      ///< returned None
  LCTX_IMPL_CLIENT = 1,    ///< returned a client
  LCTX_IMPL_STRING = 2,    ///< returned a string (canonicalize_platform)
  LCTX_IMPL_PLATFORMS = 3, ///< returned the registry (backends())
  LCTX_IMPL_RAISE = 4,     ///< raised
};

/// Python exception classes.
enum {
  LCTX_IMPL_RUNTIME_ERROR = 1,
  LCTX_IMPL_VALUE_ERROR = 2,
  LCTX_IMPL_NOT_IMPLEMENTED_ERROR = 3,
  LCTX_IMPL_ASSERTION_ERROR = 4,
  LCTX_IMPL_INDEX_ERROR = 5,
};

/// Where a returned client came from.
enum {
  LCTX_IMPL_ORIGIN_REGISTRY = 0, ///< created by the registry
  LCTX_IMPL_ORIGIN_PINNED = 1,   ///< the module context's pinned backend
};

/// An outcome, filled by the implementation. lctx provides `text` with
/// `text_capacity` bytes (8192); the implementation writes at most
/// `text_capacity - 1` bytes plus a NUL and sets `text_length`.
typedef struct lctx_impl_outcome {
  int32_t kind;         ///< LCTX_IMPL_NONE ... LCTX_IMPL_RAISE
  int32_t error_class;  ///< LCTX_IMPL_RAISE: LCTX_IMPL_*_ERROR
  int32_t origin;       ///< LCTX_IMPL_CLIENT: LCTX_IMPL_ORIGIN_*
  int32_t registration; ///< registry client: its registration index
  char *text;           ///< message, string, list repr, or client platform
  size_t text_capacity;
  size_t text_length;
} lctx_impl_outcome;

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

/// Returned by every operation: 0 when the outcome was filled (a raised
/// Python error is an outcome, not a failure), non-zero when the
/// implementation could not run the operation at all (lctx records it as a
/// crash of that case).
typedef int32_t lctx_impl_status;

/// The table an implementation exports through `lctx_impl_entry`.
typedef struct lctx_impl_table {
  uint32_t abi_version; ///< LCTX_IMPL_ABI_VERSION
  const char *name;     ///< implementation name
  const char *version;  ///< implementation version
  uint32_t operations;  ///< LCTX_IMPL_OP_* bits supported
  /// Creates a session: an uninitialized registry over `config` (which, with
  /// its strings, stays valid until session_destroy). NULL on failure.
  void *(*session_create)(const lctx_impl_config *config);
  /// Destroys a session.
  void (*session_destroy)(void *session);
  /// backends(): LCTX_IMPL_PLATFORMS with the list repr, or a raise.
  lctx_impl_status (*backends)(void *session, lctx_impl_outcome *out);
  /// canonicalize_platform(name).
  lctx_impl_status (*canonicalize)(void *session, const char *name,
                                   lctx_impl_outcome *out);
  /// xla_bridge.get_backend(platform); `platform` NULL means None.
  lctx_impl_status (*get_backend)(void *session, const char *platform,
                                  lctx_impl_outcome *out);
  /// ModuleContext(platforms, backend).get_backend(optional); `backend` is
  /// the real platform of the pinned client, NULL for none.
  lctx_impl_status (*module_get_backend)(void *session,
                                         const char *const *platforms,
                                         size_t platform_count,
                                         const char *backend, int32_t optional,
                                         lctx_impl_outcome *out);
  /* ABI version 2 only: a version 1 table ends here. */
  /// register_lowering(primitive, rule, platform): `rule` names one of the
  /// session's rules; `platform` NULL means None. LCTX_IMPL_NONE or a raise.
  lctx_impl_status (*register_lowering)(void *session, const char *primitive,
                                        const char *rule, const char *platform,
                                        lctx_impl_outcome *out);
  /// Lowers one equation (lctx_impl_lowering): LCTX_IMPL_NONE or a raise.
  /// On success an implementation that can emit MLIR writes the module's
  /// text to `mlir` (at most `mlir_capacity - 1` bytes plus a NUL, capacity
  /// 1 MiB) and sets `*mlir_length`; it leaves `*mlir_length` 0 otherwise.
  lctx_impl_status (*lower_per_platform)(void *session,
                                         const lctx_impl_lowering *lowering,
                                         lctx_impl_outcome *out, char *mlir,
                                         size_t mlir_capacity,
                                         size_t *mlir_length);
} lctx_impl_table;

/// The entry point an implementation exports (with C linkage and default
/// visibility): returns its table, which must stay valid while the library
/// is loaded.
typedef const lctx_impl_table *(*lctx_impl_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* LCTX_IMPL_ABI_H */
