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

/// The ABI version this header describes. lctx refuses a table whose
/// `abi_version` differs.
#define LCTX_IMPL_ABI_VERSION 1

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

/// Everything backend initialization reads. Config strings are "" when
/// unset.
typedef struct lctx_impl_config {
  size_t factory_count;
  const lctx_impl_factory *factories;
  const char *jax_platforms;
  const char *jax_platform_name;
  const char *jax_xla_backend;
  int32_t nvidia_gpu_visible; ///< 0 or 1
} lctx_impl_config;

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
} lctx_impl_table;

/// The entry point an implementation exports (with C linkage and default
/// visibility): returns its table, which must stay valid while the library
/// is loaded.
typedef const lctx_impl_table *(*lctx_impl_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* LCTX_IMPL_ABI_H */
