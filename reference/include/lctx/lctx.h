/*
 * lctx/lctx.h - umbrella header and version of the lctx reference model.
 *
 * Includes every public header of the reference lowering context and states
 * the library version.
 */
#ifndef LCTX_LCTX_H
#define LCTX_LCTX_H

#include "lctx/lowering.h"
#include "lctx/module_context.h"
#include "lctx/outcome.h"
#include "lctx/pyrepr.h"
#include "lctx/registry.h"
#include "lctx/str.h"
#include "lctx/xla_bridge.h"

#define LCTX_VERSION_MAJOR 0
#define LCTX_VERSION_MINOR 1
#define LCTX_VERSION_PATCH 0
#define LCTX_VERSION_STRING "0.1.0"

/// The JAX commit whose behaviour the model reproduces.
#define LCTX_JAX_COMMIT "cec06d116c05"

#endif /* LCTX_LCTX_H */
