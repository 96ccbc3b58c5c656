/*
 * plugin.h - what the files of the example plugin share (private to this
 * folder; lctx sees only lctx_impl_entry): the session and its registry,
 * the outcome helpers, and the few functions one file calls in another.
 * The overview of the files is at the top of lctx_example_plugin.c.
 *
 * Every name here has external linkage between the plugin's own files but
 * is hidden in the shared library (-fvisibility=hidden), so that only
 * lctx_impl_entry is exported.
 */
#ifndef LCTX_EXAMPLE_PLUGIN_H
#define LCTX_EXAMPLE_PLUGIN_H

#include "lctx/impl_abi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

//===----------------------------------------------------------------------===//
// The session
//===----------------------------------------------------------------------===//

/// One attempt to initialize a platform: what backends() loops over.
typedef struct registration {
  const char *platform;
  int64_t priority;
  bool fail_quietly;
} registration;

/// A client held by the registry: the platform it is stored under (its real
/// platform) and the registration that created it.
typedef struct client {
  const char *platform;
  int32_t registration;
} client;

/// A quiet initialization failure: the platform and the factory whose
/// failure it was (its message is rebuilt from the factory when needed).
typedef struct failure {
  const char *platform;
  const lctx_impl_factory *factory;
} failure;

/// One stored lowering rule (ABI v2): `rule` (an index into the config's
/// rules) is the rule of `primitive` for `platform`, or its common rule when
/// `platform` is NULL. Both strings are owned copies.
typedef struct lowering_entry {
  char *primitive;
  char *platform;
  size_t rule;
} lowering_entry;

typedef struct session {
  const lctx_impl_config *config;

  // Lowering rules registered so far (ABI v2), one entry per (primitive,
  // platform) pair; a later registration replaces the rule in place.
  lowering_entry *lowerings;
  size_t lowering_count;
  size_t lowering_capacity;

  // The registration plan, fixed at session creation.
  char *platform_list; ///< copy of jax_platforms with ',' turned into NUL
  registration *plan;  ///< registrations in order
  size_t plan_count;

  // The registry: empty until the first successful initialization, then
  // never changed again. Both arrays have room for plan_count entries.
  client *clients; ///< initialized platforms, in registry order, unique
  size_t client_count;
  failure *failures; ///< quiet failures, unique platforms
  size_t failure_count;
  bool has_default;
  client default_client;
} session;

/// The only platform alias: "gpu" stands for these, in this order
/// (registry.c).
#define GPU_PLATFORM_COUNT 3
extern const char *const gpu_platforms[GPU_PLATFORM_COUNT];

//===----------------------------------------------------------------------===//
// outcome.c: writing an operation's result into lctx's buffer
//===----------------------------------------------------------------------===//

/// Marks an outcome whose text did not fit in lctx's buffer. The operation
/// then reports a failure (non-zero status) instead of a truncated message.
#define TEXT_OVERFLOW SIZE_MAX

void outcome_reset(lctx_impl_outcome *out);
void append(lctx_impl_outcome *out, const char *s);
lctx_impl_status outcome_status(const lctx_impl_outcome *out);
bool raise_error(lctx_impl_outcome *out, int32_t error_class,
                 const char *message);
void append_list_repr(lctx_impl_outcome *out, const void *items, size_t count,
                      const char *(*name)(const void *, size_t));

//===----------------------------------------------------------------------===//
// registry.c: registry initialization and the backend-selection operations
//===----------------------------------------------------------------------===//

bool jax_platforms_set(const session *s);
const lctx_impl_factory *find_factory(const session *s, const char *name);
void module_get_backend_into(session *s, const char *const *platforms,
                             size_t platform_count, const char *backend,
                             bool optional, const char *empty_index,
                             lctx_impl_outcome *out);

lctx_impl_status op_backends(void *opaque, lctx_impl_outcome *out);
lctx_impl_status op_canonicalize(void *opaque, const char *name,
                                 lctx_impl_outcome *out);
lctx_impl_status op_get_backend(void *opaque, const char *platform,
                                lctx_impl_outcome *out);
lctx_impl_status op_module_get_backend(void *opaque,
                                       const char *const *platforms,
                                       size_t platform_count,
                                       const char *backend, int32_t optional,
                                       lctx_impl_outcome *out);

//===----------------------------------------------------------------------===//
// register_lowering.c: the session's lowering rules
//===----------------------------------------------------------------------===//

ptrdiff_t find_rule(const session *s, const char *name);
ptrdiff_t find_lowering(const session *s, const char *primitive,
                        const char *platform);

lctx_impl_status op_register_lowering(void *opaque, const char *primitive,
                                      const char *rule, const char *platform,
                                      lctx_impl_outcome *out);

//===----------------------------------------------------------------------===//
// lowering.c: lowering one equation, and its MLIR text
//===----------------------------------------------------------------------===//

lctx_impl_status op_lower_per_platform(void *opaque,
                                       const lctx_impl_lowering *lowering,
                                       lctx_impl_outcome *out, char *mlir,
                                       size_t mlir_capacity,
                                       size_t *mlir_length);

#endif
