/*
 * classify.c - the feature extractor: the simulated registry (see
 * classify.h).
 *
 * Written from semantics.md sections 2-7, independently of reference/: it
 * tracks which names are initialized or failed, which client is the default
 * and which lowering rules are registered, and classifies each operation;
 * it renders no message. Owns the registry and its initialization, the
 * placeholders, the get_backend family (xla_bridge.get_backend,
 * canonicalize, ModuleContext.get_backend) and the operations' dispatch;
 * lowering is classify_lower.c's, the names and values tables
 * classify_values.c's (classify_private.h).
 */
#include "case_ops.h"
#include "classify_private.h"

#include <stdio.h>
#include <string.h>

/* Name `i` of fact `f` of the state's release. */
lctx_str classify_fact_at(const lctx_feature_state *s, lctx_fact f, size_t i) {
  return lctx_str_from_cstr(s->facts->names[f][i]);
}

size_t classify_fact_count(const lctx_feature_state *s, lctx_fact f) {
  return s->facts->count[f];
}

/* Whether flag `f` is `yes` at the state's release. */
bool classify_flag(const lctx_feature_state *s, lctx_fact f) {
  if (s->facts->count[f] != 1)
    return false;
  /* strcmp(name, "yes") == 0 in place (a call costs more than the bytes),
   * reading no further than the first byte that differs. */
  const char *name = s->facts->names[f][0];
  return name[0] == 'y' && name[1] == 'e' && name[2] == 's' && name[3] == '\0';
}

/* Whether fact `f` of the state's release lists `name`. */
bool classify_fact_has(const lctx_feature_state *s, lctx_fact f,
                       lctx_str name) {
  for (size_t i = 0; i < classify_fact_count(s, f); i++) {
    if (classify_name_is(name, s->facts->names[f][i]))
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
  state->facts = facts ? facts : lctx_classify_modelled_facts();
  state->entry_count = 0;
  state->failure_count = 0;
  state->has_default = false;
  state->default_reg = -1;
  state->loud_factory = -1;
  state->loud_cause = NA;
  state->lowering_count = 0;
  state->memo = NULL;
}

void lctx_classify_use_memo(lctx_feature_state *state,
                            lctx_classify_memo *memo) {
  state->memo = memo;
}

int classify_factory_index(const lctx_case *c, lctx_str name) {
  for (size_t i = 0; i < c->factory_count; i++) {
    if (classify_name_is(name, c->factories[i].name))
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
      classify_flag(s, LCTX_FACT_CUDA_SKIP))
    return true;
  int f = classify_factory_index(c, name);
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

/* ensure's registrations under JAX_PLATFORMS: false when one failed
 * loudly. Apart (not inlined), so that its list of pieces (4 KiB) is on
 * the stack only of the cases that set the variable. */
__attribute__((noinline)) static bool ensure_listed(lctx_feature_state *s,
                                                    long *best) {
  const lctx_case *c = s->c;
  /* Count the expanded entries first: priorities run N..1. */
  lctx_str pieces[LCTX_MAX_PLATFORMS_CONFIG + 1];
  size_t n = 0, total = 0;
  size_t members = classify_fact_count(s, LCTX_FACT_GPU_ALIAS);
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
      lctx_str name =
          alias ? classify_fact_at(s, LCTX_FACT_GPU_ALIAS, k) : pieces[i];
      if (!attempt(s, name, (long)total - reg, false, reg, best))
        return false;
    }
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
    if (!ensure_listed(s, &best))
      return INIT_LOUD;
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

classify_store classify_store_begin(lctx_features *f) {
  classify_store s = {f, {0}};
  lctx_buf_init(&s.buf, f->storage + f->storage_used,
                sizeof f->storage - f->storage_used);
  return s;
}

lctx_str classify_store_end(classify_store *s) {
  lctx_str v = lctx_buf_view(&s->buf);
  s->f->storage_used += s->buf.length + 1;
  return v;
}

/* {available} and {present}: the registry's names, rendered when read. */
static void put_registry(lctx_features *f, const lctx_feature_state *s) {
  memcpy(f->registry, s->entry_name, s->entry_count * sizeof *s->entry_name);
  f->registry_count = s->entry_count;
  classify_defer(f, LCTX_P_AVAILABLE);
  classify_defer(f, LCTX_P_PRESENT);
}

/* Appends the list repr of the case's factory names ({factories}). */
static void render_factories(const lctx_case *c, lctx_buf *out) {
  lctx_buf_append_char(out, '[');
  for (size_t i = 0; i < c->factory_count; i++) {
    if (i > 0)
      lctx_buf_append(out, ", ", 2);
    lctx_pyrepr_str(out, lctx_str_from_cstr(c->factories[i].name));
  }
  lctx_buf_append_char(out, ']');
}

/* Renders pending placeholder `p` into `out`. */
static void render_pending(const lctx_features *f, lctx_placeholder p,
                           lctx_buf *out) {
  switch (p) {
  case LCTX_P_AVAILABLE:
    lctx_pyrepr_str_list(out, f->registry, f->registry_count);
    break;
  case LCTX_P_PRESENT:
    for (size_t i = 0; i < f->registry_count; i++) {
      if (i > 0)
        lctx_buf_append_char(out, ',');
      lctx_buf_append_str(out, f->registry[i]);
    }
    break;
  case LCTX_P_CLIENT_REG:
    lctx_buf_append_int(out, f->client_reg);
    break;
  case LCTX_P_FACTORIES:
    render_factories(f->c, out);
    break;
  case LCTX_P_MISSING:
    lctx_pyrepr_str_list(out, f->missing, f->missing_count);
    break;
  case LCTX_P_KNOWN:
    classify_render_known(f, out);
    break;
  default: /* never pending */
    break;
  }
}

lctx_str lctx_classify_text_pending(const lctx_features *f,
                                    lctx_placeholder p) {
  /* The features' render cache: written through a view the readers hold
   * const (lctx_features is never defined const). */
  lctx_features *w = (lctx_features *)f;
  classify_store st = classify_store_begin(w);
  render_pending(f, p, &st.buf);
  classify_put(w, p, classify_store_end(&st));
  return w->text[p];
}

/* {client_reg}, rendered when read. */
static void put_client_reg(lctx_features *f, int reg) {
  f->client_reg = reg;
  classify_defer(f, LCTX_P_CLIENT_REG);
}

/* Runs the registry access of an operation; returns true if it succeeded. */
static bool access(lctx_feature_state *s, lctx_features *f) {
  int init = ensure(s);
  if (f->value[LCTX_F_INIT] == NA || f->value[LCTX_F_INIT] == INIT_NONE)
    f->value[LCTX_F_INIT] = init;
  if (init == INIT_LOUD) {
    const lctx_case *c = s->c;
    f->value[LCTX_F_CAUSE] = s->loud_cause;
    classify_put(f, LCTX_P_FAILED, s->loud_name);
    if (s->loud_factory >= 0)
      classify_put(f, LCTX_P_ERR,
                   lctx_str_from_cstr(c->factories[s->loud_factory].message));
    classify_defer(f, LCTX_P_FACTORIES);
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
  for (size_t k = 0; k < classify_fact_count(s, LCTX_FACT_GPU_ALIAS); k++) {
    lctx_str m = classify_fact_at(s, LCTX_FACT_GPU_ALIAS, k);
    int value;
    if (entry_index(s, m) >= 0) {
      /* A member the `gpu` feature has no value for reads as absent. */
      f->value[LCTX_F_GPU] =
          lctx_classify_value_from_name(LCTX_F_GPU, m, &value) && value != NA
              ? value
              : GPU_ABSENT;
      classify_put(f, LCTX_P_GPU, m);
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
    classify_put(f, LCTX_P_CLIENT, s->default_name);
    put_client_reg(f, s->default_reg);
    return;
  }
  if (alias && !resolve_gpu(s, f, &target))
    return;
  classify_put(f, LCTX_P_P, target);
  int e = entry_index(s, target);
  if (e >= 0) {
    f->value[LCTX_F_LOOKUP] = LOOKUP_FOUND;
    classify_put(f, LCTX_P_CLIENT, s->entry_name[e]);
    put_client_reg(f, s->entry_reg[e]);
    return;
  }
  int k = failure_index(s, target);
  if (k >= 0) {
    f->value[LCTX_F_LOOKUP] = LOOKUP_FAILED;
    f->value[LCTX_F_CAUSE] = s->failure_cause[k];
    if (s->failure_factory[k] >= 0)
      classify_put(
          f, LCTX_P_ERR,
          lctx_str_from_cstr(c->factories[s->failure_factory[k]].message));
    return;
  }
  f->value[LCTX_F_LOOKUP] = LOOKUP_UNKNOWN;
}

/* The client's `.platform` reads "gpu": a platform the release's clients
 * report so, or a client whose real name is `gpu`. */
static bool reports_gpu(const lctx_feature_state *s, lctx_str real) {
  return classify_fact_has(s, LCTX_FACT_CLIENT_GPU, real) ||
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
  lctx_str real = lctx_case_field_view(op->backend);
  classify_put(f, LCTX_P_PINNED, real);
  f->value[LCTX_F_PINNED] = reports_gpu(s, real) ? PINNED_GPU : PINNED_PLAIN;
}

void classify_module_get_backend(lctx_feature_state *s, lctx_features *f,
                                 const lctx_case_op *op, lctx_str p0) {
  f->value[LCTX_F_OPTIONAL] = op->optional ? OPT_TRUE : OPT_FALSE;
  f->value[LCTX_F_COUNT] = op->platform_count == 0   ? COUNT_ZERO
                           : op->platform_count == 1 ? COUNT_ONE
                                                     : COUNT_MULTI;
  if (op->platform_count > 1)
    return; /* B1 reads nothing else */
  if (!classify_flag(s, LCTX_FACT_MODULE_GET_BACKEND)) {
    property_backend(s, f, op);
    return;
  }
  if (op->platform_count == 0)
    classify_put(f, LCTX_P_SEQ, lctx_str_from_cstr("tuple"));
  if (op->platform_count == 1)
    classify_put(f, LCTX_P_P0, p0);
  if (!op->has_backend) {
    f->value[LCTX_F_PINNED] = PINNED_NONE;
    if (op->platform_count == 1)
      get_backend(s, f, true, p0);
    return;
  }
  lctx_str real = lctx_case_field_view(op->backend);
  classify_put(f, LCTX_P_PINNED, real);
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
  classify_put(f, LCTX_P_CANONICAL, canonical);
  f->value[LCTX_F_REAL] =
      lctx_str_equal(canonical, real) ? REAL_SAME : REAL_OTHER;
  if (op->platform_count == 0)
    return;
  f->value[LCTX_F_MATCH] = lctx_str_equal(canonical, p0) ? MATCH_YES : MATCH_NO;
}

//===----------------------------------------------------------------------===//
// Operations
//===----------------------------------------------------------------------===//

void lctx_classify_backends(lctx_feature_state *state, const lctx_case_op *op,
                            lctx_features *out) {
  (void)op;
  access(state, out);
}

void lctx_classify_canonicalize(lctx_feature_state *state,
                                const lctx_case_op *op, lctx_features *out) {
  lctx_str arg = lctx_case_field_view(op->arg);
  classify_put(out, LCTX_P_ARG, arg);
  if (!lctx_str_equal_cstr(arg, "gpu")) {
    out->value[LCTX_F_ARG] = arg.length == 0 ? ARG_EMPTY : ARG_NAME;
    return;
  }
  out->value[LCTX_F_ARG] = ARG_ALIAS;
  if (access(state, out)) {
    lctx_str resolved;
    resolve_gpu(state, out, &resolved);
  }
}

void lctx_classify_get_backend(lctx_feature_state *state,
                               const lctx_case_op *op, lctx_features *out) {
  lctx_str arg = lctx_case_field_view(op->arg);
  out->value[LCTX_F_ARG] = !op->has_arg                      ? ARG_NONE
                           : arg.length == 0                 ? ARG_EMPTY
                           : lctx_str_equal_cstr(arg, "gpu") ? ARG_ALIAS
                                                             : ARG_NAME;
  get_backend(state, out, op->has_arg, arg);
}

void lctx_classify_module_get_backend(lctx_feature_state *state,
                                      const lctx_case_op *op,
                                      lctx_features *out) {
  if (op->optional && !classify_flag(state, LCTX_FACT_MODULE_OPTIONAL)) {
    out->value[LCTX_F_API] = API_NO_OPTIONAL;
    return;
  }
  /* platforms[0], read only with one platform (B1 reads nothing). */
  classify_module_get_backend(
      state, out, op,
      op->platform_count == 1 ? lctx_case_name_view(state->c, op->platform[0])
                              : (lctx_str){"", 0});
}

void lctx_classify_op(lctx_feature_state *state, size_t index,
                      lctx_features *out) {
  const lctx_case *c = state->c;
  const lctx_case_op *op = &c->ops[index];
  memset(out->value, 0, sizeof out->value);
  memset(out->has, 0, sizeof out->has);
  out->pending = 0;
  out->c = c;
  out->facts = state->facts;
  out->memo = state->memo;
  out->storage_used = 0;
  out->op = op->kind;
  out->value[LCTX_F_MODE] =
      c->jax_platforms[0] != '\0' ? MODE_PLATFORMS : MODE_DEFAULT;
  out->value[LCTX_F_INIT] = INIT_NONE;
  const lctx_op_def *def = lctx_op_get(op->kind);
  if (def)
    def->classify(state, op, out);
}

/* FNV-1a over `n` bytes, on from `h`. */
static uint64_t fnv(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

void lctx_classify_signature(const lctx_case *c, size_t index,
                             const lctx_facts *facts, lctx_features *f,
                             uint64_t *sig) {
  lctx_feature_state state;
  lctx_classify_init_at(&state, c, facts);
  for (size_t k = 0; k <= index && k < c->op_count; k++) {
    lctx_classify_op(&state, k, f);
    uint64_t h = fnv(0xcbf29ce484222325ULL, f->value, sizeof f->value);
    for (size_t p = 0; p < LCTX_PLACEHOLDER_COUNT; p++) {
      h = fnv(h, &f->has[p], 1);
      if (f->has[p]) {
        lctx_str t = lctx_classify_text(f, (lctx_placeholder)p);
        h = fnv(h, t.data, t.length);
      }
    }
    sig[k] = h;
  }
}
