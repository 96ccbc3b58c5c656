/*
 * classify_private.h - what the parts of the feature extractor share
 * (classify.c, the simulated registry and the get_backend family;
 * classify_lower.c, the lowering walk; classify_values.c, the names and
 * values tables): the value indices of every feature, the release facts of
 * the state, and the placeholder stores. Not for use outside them.
 */
#ifndef LCTX_HARNESS_CLASSIFY_PRIVATE_H
#define LCTX_HARNESS_CLASSIFY_PRIVATE_H

#include "classify.h"

/* Value indices; each list matches classify_values.c's VALUES. 0 is always
 * "na". */
enum { NA = 0 };
enum { MODE_DEFAULT = 1, MODE_PLATFORMS };
enum { INIT_NONE = 1, INIT_READY, INIT_OK, INIT_LOUD, INIT_ASSERT };
enum { CAUSE_RAISED = 1, CAUSE_NONE, CAUSE_NO_DEVICES, CAUSE_UNKNOWN };
enum { ARG_NONE = 1, ARG_EMPTY, ARG_ALIAS, ARG_NAME };
enum { SRC_ARG = 1, SRC_XLA_BACKEND, SRC_PLATFORM_NAME, SRC_NONE };
enum { TARGET_NONE = 1, TARGET_ALIAS, TARGET_NAME };
enum { GPU_CUDA = 1, GPU_ROCM, GPU_ONEAPI, GPU_ABSENT };
enum {
  LOOKUP_DEFAULT = 1,
  LOOKUP_NO_DEFAULT,
  LOOKUP_FOUND,
  LOOKUP_FAILED,
  LOOKUP_UNKNOWN
};
enum { COUNT_ZERO = 1, COUNT_ONE, COUNT_MULTI };
enum { OPT_TRUE = 1, OPT_FALSE };
enum { PINNED_NONE = 1, PINNED_PLAIN, PINNED_GPU };
enum { REAL_SAME = 1, REAL_OTHER };
enum { MATCH_YES = 1, MATCH_NO };
enum { REG_DEFAULT = 1, REG_KNOWN, REG_ALIAS, REG_UNKNOWN };
enum {
  STOP_NONE = 1,
  STOP_NOT_FOUND_ONE,
  STOP_NOT_FOUND_MANY,
  STOP_NO_PLATFORMS,
  STOP_NO_INDEX,
  STOP_RAISE_IF_MULTI,
  STOP_BACKEND,
  STOP_GPU_ASSERT,
  STOP_COMPUTE_NESTING
};
enum { ACCESS_PROPERTY = 1 };
enum { API_NO_OPTIONAL = 1, API_NO_LOWER_PER_PLATFORM };

/* Builds text in the features' own storage. */
typedef struct classify_store {
  lctx_features *f;
  lctx_buf buf;
} classify_store;

//===----------------------------------------------------------------------===//
// classify.c
//===----------------------------------------------------------------------===//

/* Name `i` of fact `f` of the state's release. */
lctx_str classify_fact_at(const lctx_feature_state *s, lctx_fact f, size_t i);

/* How many names fact `f` of the state's release lists. */
size_t classify_fact_count(const lctx_feature_state *s, lctx_fact f);

/* Whether flag `f` is `yes` at the state's release. */
bool classify_flag(const lctx_feature_state *s, lctx_fact f);

/* Whether fact `f` of the state's release lists `name`. */
bool classify_fact_has(const lctx_feature_state *s, lctx_fact f, lctx_str name);

/* The index of the case's factory `name`, or -1. */
int classify_factory_index(const lctx_case *c, lctx_str name);

/* Sets placeholder `p` to `text`. */
static inline void classify_put(lctx_features *f, lctx_placeholder p,
                                lctx_str text) {
  f->has[p] = true;
  f->text[p] = text;
  f->pending &= ~(1u << p);
}

/* lctx_str_equal_cstr(name, s), its most common answer (the first bytes
 * differ) found in place. */
static inline bool classify_name_is(lctx_str name, const char *s) {
  if (name.length > 0 && name.data[0] != s[0])
    return false;
  return lctx_str_equal_cstr(name, s);
}

/* Marks placeholder `p` as applying, its text rendered on its first read
 * (lctx_classify_text) from what the features hold for it. */
static inline void classify_defer(lctx_features *f, lctx_placeholder p) {
  f->has[p] = true;
  f->pending |= 1u << p;
}

/* Starts text in the features' storage. */
classify_store classify_store_begin(lctx_features *f);

/* Ends it: its view, its NUL kept in the storage. */
lctx_str classify_store_end(classify_store *s);

/* ModuleContext.get_backend(`op`): the module_get_backend operation, and
 * a rule body's call in a lowering; `p0` is its first platform when it has
 * one (a view its features may keep). */
void classify_module_get_backend(lctx_feature_state *s, lctx_features *f,
                                 const lctx_case_op *op, lctx_str p0);

//===----------------------------------------------------------------------===//
// classify_lower.c
//===----------------------------------------------------------------------===//

/* Classifies a register_lowering operation and stores its rule. */
void classify_register_lowering(lctx_feature_state *s, lctx_features *f,
                                const lctx_case_op *op);

/* Appends {known}: the release's known platforms and the case's factory
 * names, each once, sorted, joined by ", ". */
void classify_render_known(const lctx_features *f, lctx_buf *out);

/* Classifies a lower_per_platform operation by walking it. */
void classify_lower_per_platform(lctx_feature_state *s, lctx_features *f,
                                 const lctx_case_op *op);

#endif /* LCTX_HARNESS_CLASSIFY_PRIVATE_H */
