/*
 * lowering_private.h - what the parts of the lowering module share
 * (lowering.c, the registry, rule selection and contexts; lowering_run.c,
 * running rules through lower_per_platform; lowering_paths.c, evaluating a
 * run by platform index; lowering_format.c, rendering): the release of a
 * registry, the id checks and list copies. Not for use outside them.
 */
#ifndef LCTX_LOWERING_PRIVATE_H
#define LCTX_LOWERING_PRIVATE_H

#include "lctx/lowering.h"

/* The release of the registry's configuration (the modelled commit without
 * one). */
const lctx_release *
lctx_lowering_release_of(const lctx_lowering_registry *registry);

/* Whether `primitive` (`rule`) is an id the registry gave out. */
bool lctx_lowering_valid_primitive(const lctx_lowering_registry *registry,
                                   int primitive);
bool lctx_lowering_valid_rule(const lctx_lowering_registry *registry, int rule);

/* Copies `count` names to `dst` and sets `*dst_count`. */
void lctx_lowering_copy_list(lctx_str *dst, size_t *dst_count,
                             const lctx_str *src, size_t count);

/* Fills the result's paths by platform index (the module platforms of
 * `context`): the branch each index takes and the one it should. */
void lctx_lowering_evaluate(lctx_lowering_result *result,
                            const lctx_lowering_context *context);

#endif
