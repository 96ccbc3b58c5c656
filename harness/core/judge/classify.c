/*
 * classify.c - the feature extractor (see classify.h).
 *
 * Written from semantics.md sections 2-7, independently of reference/: it
 * tracks which names are initialized or failed, which client is the default
 * and which lowering rules are registered, and classifies; it renders no
 * message.
 */
#include "classify.h"

#include "names.h"

#include <stdio.h>
#include <string.h>

/* Value indices; each list matches VALUES below. 0 is always "na". */
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

/* Name `i` of fact `f` of the state's release. */
static lctx_str fact_at(const lctx_feature_state *s, lctx_fact f, size_t i) {
  return lctx_str_from_cstr(s->facts->names[f][i]);
}

static size_t fact_count(const lctx_feature_state *s, lctx_fact f) {
  return s->facts->count[f];
}

/* Whether flag `f` is `yes` at the state's release. */
static bool flag(const lctx_feature_state *s, lctx_fact f) {
  return s->facts->count[f] == 1 && strcmp(s->facts->names[f][0], "yes") == 0;
}

/* Whether fact `f` of the state's release lists `name`. */
static bool fact_has(const lctx_feature_state *s, lctx_fact f, lctx_str name) {
  for (size_t i = 0; i < fact_count(s, f); i++) {
    if (lctx_str_equal(fact_at(s, f, i), name))
      return true;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// The simulated registry
//===----------------------------------------------------------------------===//

void lctx_classify_init(lctx_feature_state *state, const lctx_case *c) {
  lctx_classify_init_at(state, c, NULL);
}

void lctx_classify_init_at(lctx_feature_state *state, const lctx_case *c,
                           const lctx_facts *facts) {
  state->c = c;
  state->facts = facts ? facts : &MODELLED_FACTS;
  state->entry_count = 0;
  state->failure_count = 0;
  state->has_default = false;
  state->default_reg = -1;
  state->loud_factory = -1;
  state->loud_cause = NA;
  state->lowering_count = 0;
}

static int factory_index(const lctx_case *c, lctx_str name) {
  for (size_t i = 0; i < c->factory_count; i++) {
    if (lctx_str_equal_cstr(name, c->factories[i].name))
      return (int)i;
  }
  return -1;
}

static int entry_index(const lctx_feature_state *s, lctx_str name) {
  for (size_t i = 0; i < s->entry_count; i++) {
    if (lctx_str_equal(s->entry_name[i], name))
      return (int)i;
  }
  return -1;
}

static int failure_index(const lctx_feature_state *s, lctx_str name) {
  for (size_t i = 0; i < s->failure_count; i++) {
    if (lctx_str_equal(s->failure_name[i], name))
      return (int)i;
  }
  return -1;
}

/* One registration. Returns false on a loud failure. */
static bool attempt(lctx_feature_state *s, lctx_str name, long priority,
                    bool quiet, int reg, long *best) {
  const lctx_case *c = s->c;
  if (!c->nvidia_gpu_visible && lctx_str_equal_cstr(name, "cuda") &&
      flag(s, LCTX_FACT_CUDA_SKIP))
    return true;
  int f = factory_index(c, name);
  int cause = f < 0                                              ? CAUSE_UNKNOWN
              : c->factories[f].behaviour == LCTX_FACTORY_CLIENT ? NA
              : c->factories[f].behaviour == LCTX_FACTORY_RAISES ? CAUSE_RAISED
              : c->factories[f].behaviour == LCTX_FACTORY_RETURNS_NONE
                  ? CAUSE_NONE
                  : CAUSE_NO_DEVICES;
  if (cause == NA) {
    int e = entry_index(s, name);
    if (e < 0) {
      e = (int)s->entry_count++;
      s->entry_name[e] = name;
    }
    s->entry_reg[e] = reg;
    if (priority > *best) {
      *best = priority;
      s->has_default = true;
      s->default_name = name;
      s->default_reg = reg;
    }
    return true;
  }
  if (!quiet) {
    s->loud_name = name;
    s->loud_factory = f;
    s->loud_cause = cause;
    return false;
  }
  int k = failure_index(s, name);
  if (k < 0 && s->failure_count < LCTX_MAX_FACTORIES) {
    k = (int)s->failure_count++;
    s->failure_name[k] = name;
  }
  if (k >= 0) {
    s->failure_factory[k] = f;
    s->failure_cause[k] = cause;
  }
  return true;
}

/* Initializes if the registry holds no client; returns the INIT_* value. */
static int ensure(lctx_feature_state *s) {
  if (s->entry_count > 0)
    return INIT_READY;
  const lctx_case *c = s->c;
  long best = -1000;
  if (c->jax_platforms[0] != '\0') {
    /* Count the expanded entries first: priorities run N..1. */
    lctx_str pieces[LCTX_MAX_PLATFORMS_CONFIG + 1];
    size_t n = 0, total = 0;
    size_t members = fact_count(s, LCTX_FACT_GPU_ALIAS);
    const char *p = c->jax_platforms;
    for (;;) {
      const char *comma = strchr(p, ',');
      size_t len = comma ? (size_t)(comma - p) : strlen(p);
      pieces[n] = lctx_str_make(p, len);
      total += lctx_str_equal_cstr(pieces[n], "gpu") ? members : 1;
      n++;
      if (!comma)
        break;
      p = comma + 1;
    }
    int reg = 0;
    for (size_t i = 0; i < n; i++) {
      bool alias = lctx_str_equal_cstr(pieces[i], "gpu");
      for (size_t k = 0; k < (alias ? members : 1); k++, reg++) {
        lctx_str name = alias ? fact_at(s, LCTX_FACT_GPU_ALIAS, k) : pieces[i];
        if (!attempt(s, name, (long)total - reg, false, reg, &best))
          return INIT_LOUD;
      }
    }
  } else {
    for (size_t i = 0; i < c->factory_count; i++) {
      const lctx_case_factory *f = &c->factories[i];
      if (!attempt(s, lctx_str_from_cstr(f->name), f->priority, f->fail_quietly,
                   (int)i, &best))
        return INIT_LOUD;
    }
  }
  return s->has_default ? INIT_OK : INIT_ASSERT;
}

//===----------------------------------------------------------------------===//
// Placeholders
//===----------------------------------------------------------------------===//

static void put(lctx_features *f, lctx_placeholder p, lctx_str text) {
  f->has[p] = true;
  f->text[p] = text;
}

/* Builds text in the features' own storage. */
typedef struct store {
  lctx_features *f;
  lctx_buf buf;
} store;

static store store_begin(lctx_features *f) {
  store s = {f, {0}};
  lctx_buf_init(&s.buf, f->storage + f->storage_used,
                sizeof f->storage - f->storage_used);
  return s;
}

static lctx_str store_end(store *s) {
  lctx_str v = lctx_buf_view(&s->buf);
  s->f->storage_used += s->buf.length + 1;
  return v;
}

static void put_registry(lctx_features *f, const lctx_feature_state *s) {
  store a = store_begin(f);
  lctx_pyrepr_str_list(&a.buf, s->entry_name, s->entry_count);
  put(f, LCTX_P_AVAILABLE, store_end(&a));
  store b = store_begin(f);
  for (size_t i = 0; i < s->entry_count; i++) {
    if (i > 0)
      lctx_buf_append_char(&b.buf, ',');
    lctx_buf_append_str(&b.buf, s->entry_name[i]);
  }
  put(f, LCTX_P_PRESENT, store_end(&b));
}

static void put_int(lctx_features *f, lctx_placeholder p, long long v) {
  store s = store_begin(f);
  lctx_buf_append_int(&s.buf, v);
  put(f, p, store_end(&s));
}

/* Runs the registry access of an operation; returns true if it succeeded. */
static bool access(lctx_feature_state *s, lctx_features *f) {
  int init = ensure(s);
  if (f->value[LCTX_F_INIT] == NA || f->value[LCTX_F_INIT] == INIT_NONE)
    f->value[LCTX_F_INIT] = init;
  if (init == INIT_LOUD) {
    const lctx_case *c = s->c;
    f->value[LCTX_F_CAUSE] = s->loud_cause;
    put(f, LCTX_P_FAILED, s->loud_name);
    if (s->loud_factory >= 0)
      put(f, LCTX_P_ERR,
          lctx_str_from_cstr(c->factories[s->loud_factory].message));
    store st = store_begin(f);
    lctx_buf_append_char(&st.buf, '[');
    for (size_t i = 0; i < c->factory_count; i++) {
      if (i > 0)
        lctx_buf_append(&st.buf, ", ", 2);
      lctx_pyrepr_str(&st.buf, lctx_str_from_cstr(c->factories[i].name));
    }
    lctx_buf_append_char(&st.buf, ']');
    put(f, LCTX_P_FACTORIES, store_end(&st));
    return false;
  }
  if (init == INIT_ASSERT)
    return false;
  put_registry(f, s);
  return true;
}

/* Resolves `gpu`; returns false if nothing matched. */
static bool resolve_gpu(const lctx_feature_state *s, lctx_features *f,
                        lctx_str *out) {
  for (size_t k = 0; k < fact_count(s, LCTX_FACT_GPU_ALIAS); k++) {
    lctx_str m = fact_at(s, LCTX_FACT_GPU_ALIAS, k);
    int value;
    if (entry_index(s, m) >= 0) {
      /* A member the `gpu` feature has no value for reads as absent. */
      f->value[LCTX_F_GPU] =
          lctx_classify_value_from_name(LCTX_F_GPU, m, &value) && value != NA
              ? value
              : GPU_ABSENT;
      put(f, LCTX_P_GPU, m);
      *out = m;
      return true;
    }
  }
  f->value[LCTX_F_GPU] = GPU_ABSENT;
  return false;
}

/* xla_bridge.get_backend, shared by the get_backend operation and B3. */
static void get_backend(lctx_feature_state *s, lctx_features *f, bool has_arg,
                        lctx_str arg) {
  const lctx_case *c = s->c;
  lctx_str target = arg;
  int source = SRC_ARG;
  if (!has_arg || arg.length == 0) {
    if (c->jax_xla_backend[0] != '\0') {
      source = SRC_XLA_BACKEND;
      target = lctx_str_from_cstr(c->jax_xla_backend);
    } else if (c->jax_platform_name[0] != '\0') {
      source = SRC_PLATFORM_NAME;
      target = lctx_str_from_cstr(c->jax_platform_name);
    } else {
      source = SRC_NONE;
    }
  }
  f->value[LCTX_F_SOURCE] = source;
  bool alias = source != SRC_NONE && lctx_str_equal_cstr(target, "gpu");
  f->value[LCTX_F_TARGET] = source == SRC_NONE ? TARGET_NONE
                            : alias            ? TARGET_ALIAS
                                               : TARGET_NAME;
  if (!access(s, f))
    return;
  if (source == SRC_NONE) {
    if (!s->has_default) {
      f->value[LCTX_F_LOOKUP] = LOOKUP_NO_DEFAULT;
      return;
    }
    f->value[LCTX_F_LOOKUP] = LOOKUP_DEFAULT;
    put(f, LCTX_P_CLIENT, s->default_name);
    put_int(f, LCTX_P_CLIENT_REG, s->default_reg);
    return;
  }
  if (alias && !resolve_gpu(s, f, &target))
    return;
  put(f, LCTX_P_P, target);
  int e = entry_index(s, target);
  if (e >= 0) {
    f->value[LCTX_F_LOOKUP] = LOOKUP_FOUND;
    put(f, LCTX_P_CLIENT, s->entry_name[e]);
    put_int(f, LCTX_P_CLIENT_REG, s->entry_reg[e]);
    return;
  }
  int k = failure_index(s, target);
  if (k >= 0) {
    f->value[LCTX_F_LOOKUP] = LOOKUP_FAILED;
    f->value[LCTX_F_CAUSE] = s->failure_cause[k];
    if (s->failure_factory[k] >= 0)
      put(f, LCTX_P_ERR,
          lctx_str_from_cstr(c->factories[s->failure_factory[k]].message));
    return;
  }
  f->value[LCTX_F_LOOKUP] = LOOKUP_UNKNOWN;
}

/* The client's `.platform` reads "gpu": a platform the release's clients
 * report so, or a client whose real name is `gpu`. */
static bool reports_gpu(const lctx_feature_state *s, lctx_str real) {
  return fact_has(s, LCTX_FACT_CLIENT_GPU, real) ||
         lctx_str_equal_cstr(real, "gpu");
}

/* The `.backend` property of releases before 0.5.0, past B1: the pinned
 * client as it is (no platform check, the registry untouched), else
 * xla_bridge.get_backend(None) (the configured platform, or the default). */
static void property_backend(lctx_feature_state *s, lctx_features *f,
                             const lctx_case_op *op) {
  f->value[LCTX_F_ACCESS] = ACCESS_PROPERTY;
  if (!op->has_backend) {
    f->value[LCTX_F_PINNED] = PINNED_NONE;
    get_backend(s, f, false, lctx_str_from_cstr(""));
    return;
  }
  lctx_str real = lctx_str_from_cstr(op->backend);
  put(f, LCTX_P_PINNED, real);
  f->value[LCTX_F_PINNED] = reports_gpu(s, real) ? PINNED_GPU : PINNED_PLAIN;
}

static void module_get_backend(lctx_feature_state *s, lctx_features *f,
                               const lctx_case_op *op) {
  f->value[LCTX_F_OPTIONAL] = op->optional ? OPT_TRUE : OPT_FALSE;
  f->value[LCTX_F_COUNT] = op->platform_count == 0   ? COUNT_ZERO
                           : op->platform_count == 1 ? COUNT_ONE
                                                     : COUNT_MULTI;
  if (op->platform_count > 1)
    return; /* B1 reads nothing else */
  if (!flag(s, LCTX_FACT_MODULE_GET_BACKEND)) {
    property_backend(s, f, op);
    return;
  }
  if (op->platform_count == 0)
    put(f, LCTX_P_SEQ, lctx_str_from_cstr("tuple"));
  if (op->platform_count == 1)
    put(f, LCTX_P_P0, lctx_str_from_cstr(op->platforms[0]));
  if (!op->has_backend) {
    f->value[LCTX_F_PINNED] = PINNED_NONE;
    if (op->platform_count == 1)
      get_backend(s, f, true, lctx_str_from_cstr(op->platforms[0]));
    return;
  }
  lctx_str real = lctx_str_from_cstr(op->backend);
  put(f, LCTX_P_PINNED, real);
  lctx_str canonical = real;
  /* The client's `.platform`: "gpu" for the platforms the release's
   * clients report so, else its real name. */
  if (reports_gpu(s, real)) {
    f->value[LCTX_F_PINNED] = PINNED_GPU;
    if (!access(s, f) || !resolve_gpu(s, f, &canonical))
      return;
  } else {
    f->value[LCTX_F_PINNED] = PINNED_PLAIN;
  }
  put(f, LCTX_P_CANONICAL, canonical);
  f->value[LCTX_F_REAL] =
      lctx_str_equal(canonical, real) ? REAL_SAME : REAL_OTHER;
  if (op->platform_count == 0)
    return;
  f->value[LCTX_F_MATCH] =
      lctx_str_equal_cstr(canonical, op->platforms[0]) ? MATCH_YES : MATCH_NO;
}

//===----------------------------------------------------------------------===//
// Lowering (semantics.md sections 6 and 7)
//===----------------------------------------------------------------------===//

/* Known platforms: the release's known-platforms and every factory name. */
static bool is_known(const lctx_feature_state *s, lctx_str name) {
  return fact_has(s, LCTX_FACT_KNOWN_PLATFORMS, name) ||
         factory_index(s->c, name) >= 0;
}

static int compare_str(lctx_str a, lctx_str b) {
  size_t n = a.length < b.length ? a.length : b.length;
  int d = n ? memcmp(a.data, b.data, n) : 0;
  if (d != 0)
    return d;
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

static void put_known(lctx_features *f, const lctx_feature_state *s) {
  const lctx_case *c = s->c;
  lctx_str names[LCTX_MAX_FACTORIES + LCTX_FACT_MAX_NAMES];
  size_t n = 0;
  for (size_t i = 0; i < fact_count(s, LCTX_FACT_KNOWN_PLATFORMS); i++) {
    lctx_str name = fact_at(s, LCTX_FACT_KNOWN_PLATFORMS, i);
    bool seen = false;
    for (size_t k = 0; k < n && !seen; k++)
      seen = lctx_str_equal(names[k], name);
    if (!seen)
      names[n++] = name;
  }
  for (size_t i = 0; i < c->factory_count; i++) {
    lctx_str name = lctx_str_from_cstr(c->factories[i].name);
    bool seen = false;
    for (size_t k = 0; k < n && !seen; k++)
      seen = lctx_str_equal(names[k], name);
    if (!seen)
      names[n++] = name;
  }
  for (size_t i = 1; i < n; i++) { /* insertion sort by code point */
    lctx_str v = names[i];
    size_t k = i;
    for (; k > 0 && compare_str(names[k - 1], v) > 0; k--)
      names[k] = names[k - 1];
    names[k] = v;
  }
  store st = store_begin(f);
  for (size_t i = 0; i < n; i++) {
    if (i > 0)
      lctx_buf_append(&st.buf, ", ", 2);
    lctx_buf_append_str(&st.buf, names[i]);
  }
  put(f, LCTX_P_KNOWN, store_end(&st));
}

static void store_lowering(lctx_feature_state *s, lctx_str prim, bool common,
                           lctx_str platform, int rule) {
  for (size_t i = 0; i < s->lowering_count; i++) {
    if (lctx_str_equal(s->lowering_prim[i], prim) &&
        s->lowering_common[i] == common &&
        (common || lctx_str_equal(s->lowering_platform[i], platform))) {
      s->lowering_rule[i] = rule;
      return;
    }
  }
  if (s->lowering_count == 3 * LCTX_CASE_MAX_OPS)
    return;
  size_t i = s->lowering_count++;
  s->lowering_prim[i] = prim;
  s->lowering_common[i] = common;
  s->lowering_platform[i] = platform;
  s->lowering_rule[i] = rule;
}

static int find_lowering(const lctx_feature_state *s, lctx_str prim,
                         bool common, lctx_str platform) {
  for (size_t i = 0; i < s->lowering_count; i++) {
    if (lctx_str_equal(s->lowering_prim[i], prim) &&
        s->lowering_common[i] == common &&
        (common || lctx_str_equal(s->lowering_platform[i], platform)))
      return s->lowering_rule[i];
  }
  return -1;
}

static void register_lowering(lctx_feature_state *s, lctx_features *f,
                              const lctx_case_op *op) {
  const lctx_case *c = s->c;
  lctx_str prim = lctx_str_from_cstr(op->primitive);
  lctx_str platform = lctx_str_from_cstr(op->arg);
  int rule = lctx_case_rule_find(c, op->rule);
  put(f, LCTX_P_PRIM, prim);
  if (!op->has_arg) {
    f->value[LCTX_F_REG] = REG_DEFAULT;
    store_lowering(s, prim, true, platform, rule);
    return;
  }
  put(f, LCTX_P_PLATFORM, platform);
  /* A release whose register_lowering checks nothing stores the rule under
   * an unknown name too (reg=unknown, judged by the row as that release
   * has it). */
  bool checks = flag(s, LCTX_FACT_REGISTER_CHECKS);
  if (!is_known(s, platform)) {
    f->value[LCTX_F_REG] = REG_UNKNOWN;
    put_known(f, s);
    if (checks)
      return;
  }
  if (lctx_str_equal_cstr(platform, "gpu")) {
    f->value[LCTX_F_REG] = REG_ALIAS;
    for (size_t k = 0; k < fact_count(s, LCTX_FACT_GPU_ALIAS); k++)
      store_lowering(s, prim, false, fact_at(s, LCTX_FACT_GPU_ALIAS, k), rule);
    return;
  }
  if (f->value[LCTX_F_REG] != REG_UNKNOWN)
    f->value[LCTX_F_REG] = REG_KNOWN;
  store_lowering(s, prim, false, platform, rule);
}

/* Whether a ModuleContext.get_backend call with these features raises
 * (semantics.md section 5's table and the registry errors of sections 2-4).
 * The rows then say how. */
static bool module_call_raises(const lctx_features *f) {
  const int *v = f->value;
  if (v[LCTX_F_COUNT] == COUNT_MULTI)
    return v[LCTX_F_OPTIONAL] == OPT_FALSE; /* B1 */
  if (v[LCTX_F_INIT] == INIT_LOUD || v[LCTX_F_INIT] == INIT_ASSERT)
    return true; /* the registry failed while being read */
  if (v[LCTX_F_ACCESS] == ACCESS_PROPERTY && v[LCTX_F_PINNED] != PINNED_NONE)
    return false;                          /* the pinned client, unchecked */
  if (v[LCTX_F_ACCESS] == ACCESS_PROPERTY) /* get_backend(None) */
    return v[LCTX_F_LOOKUP] != LOOKUP_FOUND &&
           v[LCTX_F_LOOKUP] != LOOKUP_DEFAULT;
  if (v[LCTX_F_PINNED] == PINNED_GPU && v[LCTX_F_GPU] == GPU_ABSENT)
    return true; /* canonicalizing the client's `gpu` platform */
  if (v[LCTX_F_COUNT] == COUNT_ZERO)
    return true; /* platforms[0] */
  if (v[LCTX_F_PINNED] != PINNED_NONE)
    return v[LCTX_F_MATCH] == MATCH_NO && v[LCTX_F_OPTIONAL] == OPT_FALSE;
  /* B3: xla_bridge.get_backend(platforms[0]) */
  if (v[LCTX_F_TARGET] == TARGET_ALIAS && v[LCTX_F_GPU] == GPU_ABSENT)
    return true;
  return v[LCTX_F_LOOKUP] != LOOKUP_FOUND && v[LCTX_F_LOOKUP] != LOOKUP_DEFAULT;
}

/* A platform list as views. */
typedef struct plist {
  size_t count;
  lctx_str names[LCTX_MAX_MODULE_PLATFORMS];
} plist;

static bool plist_has(const plist *l, lctx_str name) {
  for (size_t i = 0; i < l->count; i++) {
    if (lctx_str_equal(l->names[i], name))
      return true;
  }
  return false;
}

/* A rule context: module platforms, narrowed platforms (set or not), the
 * equation's compute type. */
typedef struct walk_ctx {
  plist module;
  /* The module platforms are narrowed platforms that lower_fun put in place
   * (a Python list; the module's own are a tuple). */
  bool module_list;
  bool narrowed;
  plist narrow;
  bool has_compute;
  lctx_str compute;
} walk_ctx;

typedef struct walker {
  lctx_feature_state *s;
  lctx_features *f;
  const lctx_case_op *op; /* the lower_per_platform operation */
  bool platform_index;    /* the module has more than one platform */
} walker;

static bool walk_eqn(walker *w, lctx_str prim, const walk_ctx *ctx);

/* Clears what one ModuleContext.get_backend classification sets. */
static void clear_call(lctx_features *f) {
  int mode = f->value[LCTX_F_MODE];
  memset(f->value, 0, sizeof f->value);
  memset(f->has, 0, sizeof f->has);
  f->storage_used = 0;
  f->value[LCTX_F_MODE] = mode;
  f->value[LCTX_F_INIT] = INIT_NONE;
}

/* `ctx.module_context.get_backend(optional)`; false when it raised (the
 * features then describe that call, with stop=backend). */
static bool module_call(walker *w, const walk_ctx *ctx, bool optional) {
  /* The placeholders of a raising call view into it: the features hold it. */
  lctx_case_op *call = &w->f->call;
  memset(call, 0, sizeof *call);
  call->kind = LCTX_OP_MODULE_GET_BACKEND;
  call->platform_count = ctx->module.count;
  for (size_t i = 0; i < ctx->module.count; i++)
    snprintf(call->platforms[i], sizeof call->platforms[i], "%.*s",
             (int)ctx->module.names[i].length, ctx->module.names[i].data);
  call->has_backend = w->op->has_backend;
  memcpy(call->backend, w->op->backend, sizeof call->backend);
  call->optional = optional;
  clear_call(w->f);
  module_get_backend(w->s, w->f, call);
  if (ctx->module_list && ctx->module.count == 0)
    put(w->f, LCTX_P_SEQ, lctx_str_from_cstr("list"));
  if (module_call_raises(w->f)) {
    w->f->value[LCTX_F_STOP] = STOP_BACKEND;
    return false;
  }
  clear_call(w->f);
  return true;
}

static bool stop(walker *w, int why) {
  clear_call(w->f);
  w->f->value[LCTX_F_STOP] = why;
  return false;
}

/* Calls rule `rule` (a case rule index) in context `ctx`. */
static bool call_rule(walker *w, int rule, const walk_ctx *ctx) {
  if (rule < 0)
    return true;
  const lctx_case_rule *r = &w->s->c->rules[rule];
  for (size_t k = 0; k < r->action_count; k++) {
    const lctx_case_action *a = &r->actions[k];
    switch (a->kind) {
    case LCTX_ACTION_GET_BACKEND:
      if (!module_call(w, ctx, a->optional))
        return false;
      break;
    case LCTX_ACTION_GUARDED_GET_BACKEND:
      if (ctx->module.count <= 1 && !module_call(w, ctx, a->optional))
        return false;
      break;
    case LCTX_ACTION_TRY_FALLBACK_GET_BACKEND:
      /* Only B1 raises NotImplementedError; the retry returns None. */
      if (ctx->module.count <= 1 && !module_call(w, ctx, false))
        return false;
      break;
    case LCTX_ACTION_READ_CLIENT_PLATFORM:
      if (!module_call(w, ctx, true))
        return false;
      break;
    case LCTX_ACTION_RAISE_IF_MULTI:
      if (ctx->module.count > 1) {
        stop(w, STOP_RAISE_IF_MULTI);
        put(w->f, LCTX_P_MESSAGE, lctx_str_from_cstr(a->text));
        return false;
      }
      break;
    case LCTX_ACTION_LOWER_FUN: {
      /* `ctx.platforms is not None` replaces the module platforms. */
      walk_ctx sub = {0};
      sub.module = ctx->narrowed ? ctx->narrow : ctx->module;
      sub.module_list = ctx->narrowed || ctx->module_list;
      /* jaxpr_subcomp asserts that `gpu` is not a module platform. */
      if (plist_has(&sub.module, lctx_str_from_cstr("gpu")))
        return stop(w, STOP_GPU_ASSERT);
      /* The rule runs inside its equation's compute-type context, so the
       * traced function's equations take the outer compute type unless the
       * action sets its own (found on jax 0.10.2). */
      sub.has_compute = a->has_compute_type || ctx->has_compute;
      sub.compute = a->has_compute_type ? lctx_str_from_cstr(a->compute_type)
                                        : ctx->compute;
      /* Before 9dc26ee3a5f1 the sub-equation's context manager refuses a
       * compute type other than the one in force. */
      if (flag(w->s, LCTX_FACT_COMPUTE_NESTING) && ctx->has_compute &&
          a->has_compute_type && !lctx_str_equal(ctx->compute, sub.compute)) {
        stop(w, STOP_COMPUTE_NESTING);
        put(w->f, LCTX_P_COMPUTE, ctx->compute);
        return false;
      }
      if (!walk_eqn(w, lctx_str_from_cstr(a->text), &sub))
        return false;
      break;
    }
    case LCTX_ACTION_EMIT_MARKER:
      break;
    }
  }
  return true;
}

/* Lowers one equation of `prim` the way jaxpr_subcomp does. */
static bool walk_eqn(walker *w, lctx_str prim, const walk_ctx *ctx) {
  const lctx_case *c = w->s->c;
  /* `_platforms_for_eqn`: compute type, else narrowed (non-empty), else
   * module. Rule lookup reads the compute type or the module platforms. */
  plist eqn, lookup;
  static const char *const cpu = "cpu", *const tpu = "tpu";
  /* Releases before 0.4.31 ignore the compute type. */
  bool typed = ctx->has_compute && flag(w->s, LCTX_FACT_COMPUTE_TYPE);
  bool host = typed && lctx_str_equal_cstr(ctx->compute, "device_host");
  bool sparse = typed && lctx_str_equal_cstr(ctx->compute, "tpu_sparsecore");
  if (host || sparse) {
    eqn.count = 1;
    eqn.names[0] = lctx_str_from_cstr(host ? cpu : tpu);
    lookup = eqn;
  } else {
    eqn = ctx->narrowed && ctx->narrow.count > 0 ? ctx->narrow : ctx->module;
    lookup = ctx->module;
  }
  /* An override for this primitive becomes the default rule, with no
   * platform rules: lower_per_platform then calls it once, directly (but
   * still asserts on an empty platform list). */
  const lctx_case_op *op = w->op;
  bool overridden =
      op->has_override && lctx_str_equal_cstr(prim, op->primitive);
  /* The platform-rules map, in first-occurrence order of `lookup`. */
  plist keys = {0};
  int rules[LCTX_MAX_MODULE_PLATFORMS];
  for (size_t i = 0; !overridden && i < lookup.count; i++) {
    int r = find_lowering(w->s, prim, false, lookup.names[i]);
    if (r >= 0 && !plist_has(&keys, lookup.names[i])) {
      rules[keys.count] = r;
      keys.names[keys.count++] = lookup.names[i];
    }
  }
  int common = overridden ? lctx_case_rule_find(c, op->override)
                          : find_lowering(w->s, prim, true, prim);
  if (eqn.count == 1 && !plist_has(&keys, eqn.names[0]) && common < 0) {
    stop(w, STOP_NOT_FOUND_ONE);
    put(w->f, LCTX_P_PRIM, prim);
    put(w->f, LCTX_P_PLATFORM, eqn.names[0]);
    return false;
  }
  /* Kept rules: map entries whose platform is listed, in map order. */
  size_t kept = 0;
  int kept_rule[LCTX_MAX_MODULE_PLATFORMS + 1];
  plist kept_platforms[LCTX_MAX_MODULE_PLATFORMS + 1];
  for (size_t i = 0; i < keys.count; i++) {
    if (!plist_has(&eqn, keys.names[i]))
      continue;
    kept_rule[kept] = rules[i];
    kept_platforms[kept].count = 0;
    for (size_t k = 0; k < eqn.count; k++) {
      if (lctx_str_equal(eqn.names[k], keys.names[i]) &&
          !plist_has(&kept_platforms[kept], keys.names[i]))
        kept_platforms[kept].names[kept_platforms[kept].count++] =
            keys.names[i];
    }
    kept++;
  }
  plist missing = {0};
  for (size_t k = 0; k < eqn.count; k++) {
    if (!plist_has(&keys, eqn.names[k]))
      missing.names[missing.count++] = eqn.names[k];
  }
  if (missing.count > 0) {
    if (common < 0) {
      stop(w, STOP_NOT_FOUND_MANY);
      put(w->f, LCTX_P_PRIM, prim);
      store st = store_begin(w->f);
      lctx_pyrepr_str_list(&st.buf, missing.names, missing.count);
      put(w->f, LCTX_P_MISSING, store_end(&st));
      return false;
    }
    kept_rule[kept] = common;
    kept_platforms[kept].count = 0;
    for (size_t k = 0; k < missing.count; k++) {
      if (!plist_has(&kept_platforms[kept], missing.names[k]))
        kept_platforms[kept].names[kept_platforms[kept].count++] =
            missing.names[k];
    }
    kept++;
  }
  if (eqn.count == 0)
    return stop(w, STOP_NO_PLATFORMS);
  if (kept == 1)
    return call_rule(w, kept_rule[0], ctx);
  if (!w->platform_index)
    return stop(w, STOP_NO_INDEX);
  for (size_t i = 0; i < kept; i++) {
    walk_ctx branch = *ctx;
    branch.narrowed = true;
    branch.narrow = kept_platforms[i];
    if (!call_rule(w, kept_rule[i], &branch))
      return false;
  }
  return true;
}

/* Whether a rule of the case calls get_backend(optional=True): with
 * optional=true, or to retry (try_fallback_get_backend), or to read the
 * client's platform. */
static bool rules_need_optional(const lctx_case *c) {
  for (size_t i = 0; i < c->rule_count; i++) {
    for (size_t k = 0; k < c->rules[i].action_count; k++) {
      const lctx_case_action *a = &c->rules[i].actions[k];
      if (((a->kind == LCTX_ACTION_GET_BACKEND ||
            a->kind == LCTX_ACTION_GUARDED_GET_BACKEND) &&
           a->optional) ||
          a->kind == LCTX_ACTION_TRY_FALLBACK_GET_BACKEND ||
          a->kind == LCTX_ACTION_READ_CLIENT_PLATFORM)
        return true;
    }
  }
  return false;
}

static void lower_per_platform(lctx_feature_state *s, lctx_features *f,
                               const lctx_case_op *op) {
  if (!flag(s, LCTX_FACT_LOWER_PER_PLATFORM)) {
    f->value[LCTX_F_API] = API_NO_LOWER_PER_PLATFORM;
    return;
  }
  if (!flag(s, LCTX_FACT_MODULE_OPTIONAL) && rules_need_optional(s->c)) {
    f->value[LCTX_F_API] = API_NO_OPTIONAL;
    return;
  }
  walker w = {s, f, op, op->platform_count > 1};
  walk_ctx ctx = {0};
  ctx.module.count = op->platform_count;
  for (size_t i = 0; i < op->platform_count; i++)
    ctx.module.names[i] = lctx_str_from_cstr(op->platforms[i]);
  ctx.narrowed = op->has_narrow;
  ctx.narrow.count = op->narrow_count;
  for (size_t i = 0; i < op->narrow_count; i++)
    ctx.narrow.names[i] = lctx_str_from_cstr(op->narrow[i]);
  ctx.has_compute = op->has_compute_type;
  ctx.compute = lctx_str_from_cstr(op->compute_type);
  if (walk_eqn(&w, lctx_str_from_cstr(op->primitive), &ctx))
    stop(&w, STOP_NONE);
}

void lctx_classify_op(lctx_feature_state *state, size_t index,
                      lctx_features *out) {
  const lctx_case *c = state->c;
  const lctx_case_op *op = &c->ops[index];
  memset(out->value, 0, sizeof out->value);
  memset(out->has, 0, sizeof out->has);
  out->storage_used = 0;
  out->op = op->kind;
  out->value[LCTX_F_MODE] =
      c->jax_platforms[0] != '\0' ? MODE_PLATFORMS : MODE_DEFAULT;
  out->value[LCTX_F_INIT] = INIT_NONE;
  lctx_str arg = lctx_str_from_cstr(op->arg);
  switch (op->kind) {
  case LCTX_OP_BACKENDS:
    access(state, out);
    break;
  case LCTX_OP_CANONICALIZE:
    put(out, LCTX_P_ARG, arg);
    if (!lctx_str_equal_cstr(arg, "gpu")) {
      out->value[LCTX_F_ARG] = arg.length == 0 ? ARG_EMPTY : ARG_NAME;
      break;
    }
    out->value[LCTX_F_ARG] = ARG_ALIAS;
    if (access(state, out)) {
      lctx_str resolved;
      resolve_gpu(state, out, &resolved);
    }
    break;
  case LCTX_OP_XLA_GET_BACKEND:
    out->value[LCTX_F_ARG] = !op->has_arg                      ? ARG_NONE
                             : arg.length == 0                 ? ARG_EMPTY
                             : lctx_str_equal_cstr(arg, "gpu") ? ARG_ALIAS
                                                               : ARG_NAME;
    get_backend(state, out, op->has_arg, arg);
    break;
  case LCTX_OP_MODULE_GET_BACKEND:
    if (op->optional && !flag(state, LCTX_FACT_MODULE_OPTIONAL)) {
      out->value[LCTX_F_API] = API_NO_OPTIONAL;
      break;
    }
    module_get_backend(state, out, op);
    break;
  case LCTX_OP_REGISTER_LOWERING:
    register_lowering(state, out, op);
    break;
  case LCTX_OP_LOWER_PER_PLATFORM:
    lower_per_platform(state, out, op);
    break;
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
