/*
 * classify.c - the feature extractor (see classify.h).
 *
 * Written from semantics.md sections 2-5, independently of reference/: it
 * tracks which names are initialized or failed and which client is the
 * default, and classifies; it renders no message.
 */
#include "classify.h"

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

static const char *const FEATURE_NAMES[LCTX_FEATURE_COUNT] = {
    "mode",   "init",  "cause",    "arg",    "source", "target", "gpu",
    "lookup", "count", "optional", "pinned", "real",   "match"};

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
};

static const char *const PLACEHOLDER_NAMES[LCTX_PLACEHOLDER_COUNT] = {
    "failed", "err", "factories", "available", "present", "arg",       "gpu",
    "p",      "p0",  "canonical", "pinned",    "client",  "client_reg"};

const char *lctx_feature_name(lctx_feature f) {
  return (unsigned)f < LCTX_FEATURE_COUNT ? FEATURE_NAMES[f] : "?";
}

bool lctx_feature_from_name(lctx_str name, lctx_feature *f) {
  for (int i = 0; i < LCTX_FEATURE_COUNT; i++) {
    if (lctx_str_equal_cstr(name, FEATURE_NAMES[i])) {
      *f = (lctx_feature)i;
      return true;
    }
  }
  return false;
}

const char *const *lctx_feature_values(lctx_feature f) {
  return VALUES[f];
}

bool lctx_feature_value_from_name(lctx_feature f, lctx_str name, int *value) {
  for (int i = 0; VALUES[f][i]; i++) {
    if (lctx_str_equal_cstr(name, VALUES[f][i])) {
      *value = i;
      return true;
    }
  }
  return false;
}

const char *lctx_placeholder_name(lctx_placeholder p) {
  return (unsigned)p < LCTX_PLACEHOLDER_COUNT ? PLACEHOLDER_NAMES[p] : "?";
}

bool lctx_placeholder_from_name(lctx_str name, lctx_placeholder *p) {
  for (int i = 0; i < LCTX_PLACEHOLDER_COUNT; i++) {
    if (lctx_str_equal_cstr(name, PLACEHOLDER_NAMES[i])) {
      *p = (lctx_placeholder)i;
      return true;
    }
  }
  return false;
}

//===----------------------------------------------------------------------===//
// The simulated registry
//===----------------------------------------------------------------------===//

void lctx_feature_state_init(lctx_feature_state *state, const lctx_case *c) {
  state->c = c;
  state->entry_count = 0;
  state->failure_count = 0;
  state->has_default = false;
  state->default_reg = -1;
  state->loud_factory = -1;
  state->loud_cause = NA;
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
  if (!c->nvidia_gpu_visible && lctx_str_equal_cstr(name, "cuda"))
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
    const char *p = c->jax_platforms;
    for (;;) {
      const char *comma = strchr(p, ',');
      size_t len = comma ? (size_t)(comma - p) : strlen(p);
      pieces[n] = lctx_str_make(p, len);
      total += lctx_str_equal_cstr(pieces[n], "gpu") ? 3 : 1;
      n++;
      if (!comma)
        break;
      p = comma + 1;
    }
    static const char *const gpu_members[] = {"cuda", "rocm", "oneapi"};
    int reg = 0;
    for (size_t i = 0; i < n; i++) {
      bool alias = lctx_str_equal_cstr(pieces[i], "gpu");
      for (int k = 0; k < (alias ? 3 : 1); k++, reg++) {
        lctx_str name = alias ? lctx_str_from_cstr(gpu_members[k]) : pieces[i];
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
  static const char *const members[] = {"cuda", "rocm", "oneapi"};
  for (int k = 0; k < 3; k++) {
    lctx_str m = lctx_str_from_cstr(members[k]);
    if (entry_index(s, m) >= 0) {
      f->value[LCTX_F_GPU] = GPU_CUDA + k;
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

static bool is_gpu_member(lctx_str s) {
  return lctx_str_equal_cstr(s, "cuda") || lctx_str_equal_cstr(s, "rocm") ||
         lctx_str_equal_cstr(s, "oneapi");
}

static void module_get_backend(lctx_feature_state *s, lctx_features *f,
                               const lctx_case_op *op) {
  f->value[LCTX_F_OPTIONAL] = op->optional ? OPT_TRUE : OPT_FALSE;
  f->value[LCTX_F_COUNT] = op->platform_count == 0   ? COUNT_ZERO
                           : op->platform_count == 1 ? COUNT_ONE
                                                     : COUNT_MULTI;
  if (op->platform_count > 1)
    return; /* B1 reads nothing else */
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
  if (is_gpu_member(real) || lctx_str_equal_cstr(real, "gpu")) {
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

void lctx_features_compute(lctx_feature_state *state, size_t index,
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
    module_get_backend(state, out, op);
    break;
  case LCTX_OP_REGISTER_LOWERING: /* TODO(lowering-ops) */
  case LCTX_OP_LOWER_PER_PLATFORM:
    break;
  }
}

void lctx_features_format(const lctx_features *f, lctx_buf *out) {
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
