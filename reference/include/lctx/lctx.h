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

/* The version (LCTX_VERSION_STRING and its parts) is project()'s, written
 * by CMake into lctx/version.h (cmake/lctx_version.h.in). A build without
 * CMake (the OSS-Fuzz script) has none, and needs none. */
#if defined(__has_include)
#if __has_include("lctx/version.h")
#include "lctx/version.h"
#endif
#endif

/// The JAX commit whose behaviour the model reproduces.
#define LCTX_JAX_COMMIT "cec06d116c05"

#endif /* LCTX_LCTX_H */
