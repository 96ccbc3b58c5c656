/*
 * classify_values.c - the names and values tables of the feature extractor
 * (see classify.h): features and their values as spec predicates write
 * them, placeholders, the release facts and their values at the modelled
 * commit, and formatting features as `name=value`. The value indices are
 * classify_private.h's; it classifies nothing.
 */
#include "classify_private.h"

#include "names.h"

#include <stdio.h>
#include <string.h>

static const char *const FEATURE_NAMES[LCTX_FEATURE_COUNT] = {
    "mode",  "init",   "cause", "arg",      "source", "target",
    "gpu",   "lookup", "count", "optional", "pinned", "real",
    "match", "reg",    "stop",  "access",   "api"};

static const char
    *const VALUES[LCTX_FEATURE_COUNT][LCTX_FEATURE_MAX_VALUES + 1] = {
        [LCTX_F_MODE] = {"na", "default", "platforms"},
        [LCTX_F_INIT] = {"na", "none", "ready", "ok", "loud", "assert"},
        [LCTX_F_CAUSE] = {"na", "raised", "none", "no_devices", "unknown"},
        [LCTX_F_ARG] = {"na", "none", "empty", "alias", "name"},
        [LCTX_F_SOURCE] = {"na", "arg", "xla_backend", "platform_name", "none"},
        [LCTX_F_TARGET] = {"na", "none", "alias", "name"},
        [LCTX_F_GPU] = {"na", "cuda", "rocm", "oneapi", "absent"},
        [LCTX_F_LOOKUP] = {"na", "default", "no_default", "found", "failed",
                           "unknown"},
        [LCTX_F_COUNT] = {"na", "zero", "one", "multi"},
        [LCTX_F_OPTIONAL] = {"na", "true", "false"},
        [LCTX_F_PINNED] = {"na", "none", "plain", "gpu"},
        [LCTX_F_REAL] = {"na", "same", "other"},
        [LCTX_F_MATCH] = {"na", "yes", "no"},
        [LCTX_F_REG] = {"na", "default", "known", "alias", "unknown"},
        [LCTX_F_STOP] = {"na", "none", "not_found_one", "not_found_many",
                         "no_platforms", "no_index", "raise_if_multi",
                         "backend", "gpu_assert", "compute_nesting"},
        [LCTX_F_ACCESS] = {"na", "property"},
        [LCTX_F_API] = {"na", "no_optional", "no_lower_per_platform"},
};

static const char *const PLACEHOLDER_NAMES[LCTX_PLACEHOLDER_COUNT] = {
    "failed", "err",     "factories",  "available", "present",
    "arg",    "gpu",     "p",          "p0",        "canonical",
    "pinned", "client",  "client_reg", "prim",      "platform",
    "known",  "missing", "message",    "seq",       "compute"};

const char *lctx_classify_feature_name(lctx_feature f) {
  return (unsigned)f < LCTX_FEATURE_COUNT ? FEATURE_NAMES[f] : "?";
}

bool lctx_classify_feature_from_name(lctx_str name, lctx_feature *f) {
  int i = lctx_names_find(FEATURE_NAMES, LCTX_FEATURE_COUNT, name);
  if (i < 0)
    return false;
  *f = (lctx_feature)i;
  return true;
}

bool lctx_classify_value_from_name(lctx_feature f, lctx_str name, int *value) {
  int i = lctx_names_find(VALUES[f], LCTX_FEATURE_MAX_VALUES + 1, name);
  if (i < 0)
    return false;
  *value = i;
  return true;
}

const char *lctx_classify_placeholder_name(lctx_placeholder p) {
  return (unsigned)p < LCTX_PLACEHOLDER_COUNT ? PLACEHOLDER_NAMES[p] : "?";
}

bool lctx_classify_placeholder_from_name(lctx_str name, lctx_placeholder *p) {
  int i = lctx_names_find(PLACEHOLDER_NAMES, LCTX_PLACEHOLDER_COUNT, name);
  if (i < 0)
    return false;
  *p = (lctx_placeholder)i;
  return true;
}

//===----------------------------------------------------------------------===//
// Release facts
//===----------------------------------------------------------------------===//

static const char *const FACT_NAMES[LCTX_FACT_COUNT] = {
    "gpu-alias",       "client-gpu",         "known-platforms",
    "register-checks", "cuda-skip",          "module-get-backend",
    "module-optional", "lower-per-platform", "compute-type",
    "compute-nesting"};

/* At the modelled commit (semantics.md sections 2, 5, 6 and 7). */
static const lctx_facts MODELLED_FACTS = {
    .count = {3, 3, 4, 1, 1, 1, 1, 1, 1, 1},
    .names = {[LCTX_FACT_GPU_ALIAS] = {"cuda", "rocm", "oneapi"},
              [LCTX_FACT_CLIENT_GPU] = {"cuda", "rocm", "oneapi"},
              [LCTX_FACT_KNOWN_PLATFORMS] = {"cuda", "rocm", "gpu", "oneapi"},
              [LCTX_FACT_REGISTER_CHECKS] = {"yes"},
              [LCTX_FACT_CUDA_SKIP] = {"yes"},
              [LCTX_FACT_MODULE_GET_BACKEND] = {"yes"},
              [LCTX_FACT_MODULE_OPTIONAL] = {"yes"},
              [LCTX_FACT_LOWER_PER_PLATFORM] = {"yes"},
              [LCTX_FACT_COMPUTE_TYPE] = {"yes"},
              [LCTX_FACT_COMPUTE_NESTING] = {"no"}},
};

const lctx_facts *lctx_classify_modelled_facts(void) {
  return &MODELLED_FACTS;
}

const char *lctx_classify_fact_name(lctx_fact f) {
  return (unsigned)f < LCTX_FACT_COUNT ? FACT_NAMES[f] : "?";
}

bool lctx_classify_fact_from_name(lctx_str name, lctx_fact *f) {
  int i = lctx_names_find(FACT_NAMES, LCTX_FACT_COUNT, name);
  if (i < 0)
    return false;
  *f = (lctx_fact)i;
  return true;
}

bool lctx_classify_fact_is_flag(lctx_fact f) {
  return f >= LCTX_FACT_REGISTER_CHECKS && f < LCTX_FACT_COUNT;
}

bool lctx_classify_fact_equal(const lctx_facts *a, const lctx_facts *b,
                              lctx_fact f) {
  if (a->count[f] != b->count[f])
    return false;
  for (size_t i = 0; i < a->count[f]; i++) {
    if (strcmp(a->names[f][i], b->names[f][i]) != 0)
      return false;
  }
  return true;
}

void lctx_classify_fact_format(const lctx_facts *facts, lctx_fact f,
                               lctx_buf *out) {
  for (size_t i = 0; i < facts->count[f]; i++) {
    if (i > 0)
      lctx_buf_append_char(out, ' ');
    lctx_buf_append_cstr(out, facts->names[f][i]);
  }
}

void lctx_classify_format(const lctx_features *f, lctx_buf *out) {
  bool first = true;
  for (int i = 0; i < LCTX_FEATURE_COUNT; i++) {
    if (f->value[i] == NA)
      continue;
    if (!first)
      lctx_buf_append_char(out, ' ');
    first = false;
    lctx_buf_append_cstr(out, FEATURE_NAMES[i]);
    lctx_buf_append_char(out, '=');
    lctx_buf_append_cstr(out, VALUES[i][f->value[i]]);
  }
}
