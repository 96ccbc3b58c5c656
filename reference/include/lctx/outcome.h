/*
 * lctx/outcome.h - outcomes of modelled JAX operations, as values.
 *
 * Owns the outcome value: a returned client (and which one), a returned
 * string, a returned list of platforms, None, or a raised Python exception
 * with its class and exact message. Owns the error-class names and the
 * one-line rendering of an outcome. An outcome is self-contained: it holds
 * copies of its bytes and references no registry or configuration.
 */
#ifndef LCTX_OUTCOME_H
#define LCTX_OUTCOME_H

#include "lctx/str.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Capacity of an outcome's text, in bytes, including the terminating NUL.
/// Every message the model produces from a configuration accepted by
/// lctx_registry_config_validate fits; `truncated` reports the impossible.
#define LCTX_OUTCOME_TEXT_MAX 8192

/// What an operation did.
typedef enum lctx_outcome_kind {
  /// Returned None.
  LCTX_OUTCOME_NONE = 0,
  /// Returned a client; see `origin`, `registration` and `text`.
  LCTX_OUTCOME_CLIENT,
  /// Returned a string (canonicalize_platform); `text` holds it raw.
  LCTX_OUTCOME_STRING,
  /// Returned the initialized registry (backends()); `text` holds the Python
  /// list repr of its platform names in registry order.
  LCTX_OUTCOME_PLATFORMS,
  /// Raised; see `error` and `text` (the exact message, possibly empty).
  LCTX_OUTCOME_RAISE,
} lctx_outcome_kind;

/// The Python exception classes the modelled operations can raise.
typedef enum lctx_error_class {
  LCTX_ERROR_NONE = 0,
  LCTX_ERROR_RUNTIME,         ///< RuntimeError
  LCTX_ERROR_VALUE,           ///< ValueError
  LCTX_ERROR_NOT_IMPLEMENTED, ///< NotImplementedError
  LCTX_ERROR_ASSERTION,       ///< AssertionError
  LCTX_ERROR_INDEX,           ///< IndexError
} lctx_error_class;

/// Where a returned client came from.
typedef enum lctx_client_origin {
  /// Created by the registry during initialization. `registration` is the
  /// 0-based index of the registration that created it: the factory's
  /// position in default mode, the position in the expanded `jax_platforms`
  /// list otherwise. Two calls of one factory give two distinct clients.
  LCTX_CLIENT_REGISTRY = 0,
  /// The backend pinned on the module context.
  LCTX_CLIENT_PINNED,
} lctx_client_origin;

/// The outcome of one operation.
typedef struct lctx_outcome {
  lctx_outcome_kind kind;
  /// The raised class, for LCTX_OUTCOME_RAISE; LCTX_ERROR_NONE otherwise.
  lctx_error_class error;
  /// For LCTX_OUTCOME_CLIENT: where the client came from.
  lctx_client_origin origin;
  /// For a registry client: the registration index; -1 otherwise.
  int registration;
  /// Set if `text` had to be cut (never, for validated configurations).
  bool truncated;
  /// Number of bytes in `text`, excluding the terminating NUL.
  size_t length;
  /// The message (RAISE), the string (STRING), the list repr (PLATFORMS) or
  /// the client's real platform (CLIENT). NUL-terminated.
  char text[LCTX_OUTCOME_TEXT_MAX];
} lctx_outcome;

/// Sets the outcome to None.
LCTX_API void lctx_outcome_set_none(lctx_outcome *out);

/// Sets the outcome to a raise of `error` with an empty message and returns a
/// writer for the message.
LCTX_API lctx_buf lctx_outcome_begin_raise(lctx_outcome *out,
                                           lctx_error_class error);

/// Sets the outcome to `kind` (STRING, PLATFORMS or CLIENT) with empty text
/// and returns a writer for the text.
LCTX_API lctx_buf lctx_outcome_begin(lctx_outcome *out, lctx_outcome_kind kind);

/// Records the final length and truncation of text written through a writer
/// returned by lctx_outcome_begin or lctx_outcome_begin_raise.
LCTX_API void lctx_outcome_end(lctx_outcome *out, const lctx_buf *writer);

/// Sets the outcome to a returned client.
LCTX_API void lctx_outcome_set_client(lctx_outcome *out,
                                      lctx_client_origin origin,
                                      int registration, lctx_str platform);

/// Copies `src` to `dst`: the fields and the used part of the text (with
/// its NUL), not the whole text buffer.
LCTX_API void lctx_outcome_copy(lctx_outcome *dst, const lctx_outcome *src);

/// Returns a view of the outcome's text.
LCTX_API lctx_str lctx_outcome_text(const lctx_outcome *out);

/// Returns true when two outcomes are the same value (kind, class, client
/// identity, text).
LCTX_API bool lctx_outcome_equal(const lctx_outcome *a, const lctx_outcome *b);

/// Returns the Python name of an error class ("RuntimeError", ...), or ""
/// for LCTX_ERROR_NONE.
LCTX_API const char *lctx_error_class_name(lctx_error_class error);

/// Looks up an error class by its Python name. Returns false if unknown.
LCTX_API bool lctx_error_class_from_name(lctx_str name, lctx_error_class *out);

/// Appends a one-line rendering of the outcome:
///   `None`, `'cuda'` (a returned string, as Python's repr),
///   `['cpu', 'tpu']` (a returned registry),
///   `<client 'cpu' registration 0>`, `<pinned client 'rocm'>`,
///   `RuntimeError: message`, or the bare class name for an empty message
///   (`AssertionError`),
/// the way Python prints the last line of a traceback.
LCTX_API void lctx_outcome_format(const lctx_outcome *out, lctx_buf *buf);

#ifdef __cplusplus
}
#endif

#endif /* LCTX_OUTCOME_H */
