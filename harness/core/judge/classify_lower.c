/*
 * classify_lower.c - the feature extractor's lowering walk (see classify.h
 * and classify_private.h).
 *
 * Written from semantics.md sections 6 and 7, independently of reference/:
 * classifies register_lowering by its platform (`reg`), and follows a
 * lower_per_platform operation through rule selection, dispatch, rule
 * bodies and nested lower_fun until it finishes or stops (`stop`); a rule
 * body's ModuleContext.get_backend is classified by classify.c's
 * module_get_backend. It renders no message.
 */
#include "classify_private.h"

#include <string.h>

//===----------------------------------------------------------------------===//
// Lowering (semantics.md sections 6 and 7)
//===----------------------------------------------------------------------===//

/* Known platforms: the release's known-platforms and every factory name. */
static bool is_known(const lctx_feature_state *s, lctx_str name) {
  return classify_fact_has(s, LCTX_FACT_KNOWN_PLATFORMS, name) ||
         classify_factory_index(s->c, name) >= 0;
}

static int compare_str(lctx_str a, lctx_str b) {
  /* memcmp's order in place: names are short and most differ in their
   * first byte. */
  size_t n = a.length < b.length ? a.length : b.length;
  for (size_t i = 0; i < n; i++) {
    unsigned char x = (unsigned char)a.data[i], y = (unsigned char)b.data[i];
    if (x != y)
      return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/* {known} rendered from the release's known platforms and the case's
 * factory names. */
static void render_known(const lctx_facts *facts, const lctx_case *c,
                         lctx_buf *out) {
  /* Every name, sorted by code point, then each written once: the same
   * text as each kept once then sorted (a repeated name is the same
   * bytes), without a look-up a name. */
  lctx_str names[LCTX_MAX_FACTORIES + LCTX_FACT_MAX_NAMES];
  size_t n = 0;
  for (size_t i = 0; i < facts->count[LCTX_FACT_KNOWN_PLATFORMS]; i++)
    names[n++] = lctx_str_from_cstr(facts->names[LCTX_FACT_KNOWN_PLATFORMS][i]);
  for (size_t i = 0; i < c->factory_count; i++)
    names[n++] = lctx_str_from_cstr(c->factories[i].name);
  for (size_t i = 1; i < n; i++) { /* insertion sort by code point */
    lctx_str v = names[i];
    size_t k = i;
    for (; k > 0 && compare_str(names[k - 1], v) > 0; k--)
      names[k] = names[k - 1];
    names[k] = v;
  }
  /* Joined in place, then appended at once. */
  char text[(LCTX_MAX_FACTORIES + LCTX_FACT_MAX_NAMES) * (LCTX_MAX_NAME + 2)];
  size_t length = 0;
  for (size_t i = 0; i < n; i++) {
    if (i > 0 && compare_str(names[i - 1], names[i]) == 0)
      continue;
    size_t k =
        names[i].length < LCTX_MAX_NAME ? names[i].length : LCTX_MAX_NAME;
    if (i > 0) {
      text[length++] = ',';
      text[length++] = ' ';
    }
    memcpy(text + length, names[i].data, k);
    length += k;
  }
  lctx_buf_append(out, text, length);
}

/* Whether the memo holds {known} of these facts and factories. */
static bool memo_holds(const lctx_classify_memo *m, const lctx_facts *facts,
                       const lctx_case *c) {
  size_t nf = facts->count[LCTX_FACT_KNOWN_PLATFORMS];
  if (!m->valid || m->fact_count != nf || m->factory_count != c->factory_count)
    return false;
  for (size_t i = 0; i < nf; i++) {
    if (strcmp(m->facts[i], facts->names[LCTX_FACT_KNOWN_PLATFORMS][i]) != 0)
      return false;
  }
  for (size_t i = 0; i < c->factory_count; i++) {
    if (strcmp(m->factories[i], c->factories[i].name) != 0)
      return false;
  }
  return true;
}

/* Renders {known} into the memo, and keeps what it was rendered from; false
 * when it does not fit (the memo then holds nothing). */
static bool memo_fill(lctx_classify_memo *m, const lctx_facts *facts,
                      const lctx_case *c) {
  lctx_buf t;
  lctx_buf_init(&t, m->text, sizeof m->text);
  render_known(facts, c, &t);
  m->valid = !t.overflow;
  m->length = t.length;
  m->fact_count = facts->count[LCTX_FACT_KNOWN_PLATFORMS];
  memcpy(m->facts, facts->names[LCTX_FACT_KNOWN_PLATFORMS], sizeof m->facts);
  m->factory_count = c->factory_count;
  for (size_t i = 0; i < c->factory_count; i++)
    memcpy(m->factories[i], c->factories[i].name, sizeof m->factories[i]);
  return m->valid;
}

void classify_render_known(const lctx_features *f, lctx_buf *out) {
  lctx_classify_memo *m = f->memo;
  if (m && (memo_holds(m, f->facts, f->c) || memo_fill(m, f->facts, f->c)))
    lctx_buf_append(out, m->text, m->length);
  else
    render_known(f->facts, f->c, out);
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

void classify_register_lowering(lctx_feature_state *s, lctx_features *f,
                                const lctx_case_op *op) {
  const lctx_case *c = s->c;
  lctx_str prim = lctx_case_field_view(op->primitive);
  lctx_str platform = lctx_case_field_view(op->arg);
  int rule = lctx_case_rule_find_field(c, op->rule);
  classify_put(f, LCTX_P_PRIM, prim);
  if (!op->has_arg) {
    f->value[LCTX_F_REG] = REG_DEFAULT;
    store_lowering(s, prim, true, platform, rule);
    return;
  }
  classify_put(f, LCTX_P_PLATFORM, platform);
  /* A release whose register_lowering checks nothing stores the rule under
   * an unknown name too (reg=unknown, judged by the row as that release
   * has it). */
  bool checks = classify_flag(s, LCTX_FACT_REGISTER_CHECKS);
  if (!is_known(s, platform)) {
    f->value[LCTX_F_REG] = REG_UNKNOWN;
    classify_defer(f, LCTX_P_KNOWN);
    if (checks)
      return;
  }
  if (lctx_str_equal_cstr(platform, "gpu")) {
    f->value[LCTX_F_REG] = REG_ALIAS;
    for (size_t k = 0; k < classify_fact_count(s, LCTX_FACT_GPU_ALIAS); k++)
      store_lowering(s, prim, false,
                     classify_fact_at(s, LCTX_FACT_GPU_ALIAS, k), rule);
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
  f->pending = 0;
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
  /* Its first module platform, cut to fit (a copy: no formatting). */
  char *p0 = w->f->call_p0;
  size_t p0_length = 0;
  if (ctx->module.count > 0) {
    p0_length = ctx->module.names[0].length;
    if (p0_length > sizeof w->f->call_p0 - 1)
      p0_length = sizeof w->f->call_p0 - 1;
    memcpy(p0, ctx->module.names[0].data, p0_length);
  }
  p0[p0_length] = '\0';
  call->has_backend = w->op->has_backend;
  memcpy(call->backend, w->op->backend, sizeof call->backend);
  call->optional = optional;
  clear_call(w->f);
  classify_module_get_backend(w->s, w->f, call, (lctx_str){p0, p0_length});
  if (ctx->module_list && ctx->module.count == 0)
    classify_put(w->f, LCTX_P_SEQ, lctx_str_from_cstr("list"));
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
        classify_put(w->f, LCTX_P_MESSAGE, lctx_str_from_cstr(a->text));
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
      if (classify_flag(w->s, LCTX_FACT_COMPUTE_NESTING) && ctx->has_compute &&
          a->has_compute_type && !lctx_str_equal(ctx->compute, sub.compute)) {
        stop(w, STOP_COMPUTE_NESTING);
        classify_put(w->f, LCTX_P_COMPUTE, ctx->compute);
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

/* The branches of a multi-platform dispatch: kept rule `i` called in
 * `ctx` narrowed to its platform `name[i]` (for i < `keyed`), or, the
 * common rule, to the platforms in `missing`, each once. */
static bool walk_branches(walker *w, const walk_ctx *ctx, const int *rule,
                          size_t kept, const lctx_str *name, size_t keyed,
                          const plist *missing) {
  for (size_t i = 0; i < kept; i++) {
    walk_ctx branch = *ctx;
    branch.narrowed = true;
    branch.narrow.count = 0;
    if (i < keyed) {
      branch.narrow.names[branch.narrow.count++] = name[i];
    } else {
      for (size_t k = 0; k < missing->count; k++) {
        if (!plist_has(&branch.narrow, missing->names[k]))
          branch.narrow.names[branch.narrow.count++] = missing->names[k];
      }
    }
    if (!call_rule(w, rule[i], &branch))
      return false;
  }
  return true;
}

/* Lowers one equation of `prim` the way jaxpr_subcomp does. */
static bool walk_eqn(walker *w, lctx_str prim, const walk_ctx *ctx) {
  const lctx_case *c = w->s->c;
  /* `_platforms_for_eqn`: compute type, else narrowed (non-empty), else
   * module. Rule lookup reads the compute type or the module platforms. */
  plist typed_list; /* the compute type's one platform */
  const plist *eqn, *lookup;
  /* Releases before 0.4.31 ignore the compute type. */
  bool typed = ctx->has_compute && classify_flag(w->s, LCTX_FACT_COMPUTE_TYPE);
  bool host = typed && lctx_str_equal_cstr(ctx->compute, "device_host");
  bool sparse = typed && lctx_str_equal_cstr(ctx->compute, "tpu_sparsecore");
  if (host || sparse) {
    typed_list.count = 1;
    typed_list.names[0] = host ? (lctx_str){"cpu", 3} : (lctx_str){"tpu", 3};
    eqn = lookup = &typed_list;
  } else {
    eqn = ctx->narrowed && ctx->narrow.count > 0 ? &ctx->narrow : &ctx->module;
    lookup = &ctx->module;
  }
  /* An override for this primitive becomes the default rule, with no
   * platform rules: lower_per_platform then calls it once, directly (but
   * still asserts on an empty platform list). */
  const lctx_case_op *op = w->op;
  bool overridden =
      op->has_override && lctx_str_equal_cstr(prim, op->primitive);
  /* The platform-rules map, in first-occurrence order of `lookup`. */
  plist keys; /* read below its count only */
  keys.count = 0;
  int rules[LCTX_MAX_MODULE_PLATFORMS];
  for (size_t i = 0; !overridden && i < lookup->count; i++) {
    int r = find_lowering(w->s, prim, false, lookup->names[i]);
    if (r >= 0 && !plist_has(&keys, lookup->names[i])) {
      rules[keys.count] = r;
      keys.names[keys.count++] = lookup->names[i];
    }
  }
  int common = overridden ? lctx_case_rule_find_field(c, op->override)
                          : find_lowering(w->s, prim, true, prim);
  if (eqn->count == 1 && !plist_has(&keys, eqn->names[0]) && common < 0) {
    stop(w, STOP_NOT_FOUND_ONE);
    classify_put(w->f, LCTX_P_PRIM, prim);
    classify_put(w->f, LCTX_P_PLATFORM, eqn->names[0]);
    return false;
  }
  /* Kept rules: map entries whose platform is listed, in map order; each
   * narrows its branch to that one platform (`kept_name`), the common
   * rule (last) to the platforms without a rule (`missing`, each once). */
  size_t kept = 0;
  int kept_rule[LCTX_MAX_MODULE_PLATFORMS + 1];
  lctx_str kept_name[LCTX_MAX_MODULE_PLATFORMS];
  for (size_t i = 0; i < keys.count; i++) {
    if (!plist_has(eqn, keys.names[i]))
      continue;
    kept_rule[kept] = rules[i];
    kept_name[kept] = keys.names[i];
    kept++;
  }
  size_t keyed = kept;
  plist missing;
  missing.count = 0;
  for (size_t k = 0; k < eqn->count; k++) {
    if (!plist_has(&keys, eqn->names[k]))
      missing.names[missing.count++] = eqn->names[k];
  }
  if (missing.count > 0) {
    if (common < 0) {
      stop(w, STOP_NOT_FOUND_MANY);
      classify_put(w->f, LCTX_P_PRIM, prim);
      memcpy(w->f->missing, missing.names,
             missing.count * sizeof *missing.names);
      w->f->missing_count = missing.count;
      classify_defer(w->f, LCTX_P_MISSING);
      return false;
    }
    kept_rule[kept++] = common;
  }
  if (eqn->count == 0)
    return stop(w, STOP_NO_PLATFORMS);
  if (kept == 1)
    return call_rule(w, kept_rule[0], ctx);
  if (!w->platform_index)
    return stop(w, STOP_NO_INDEX);
  return walk_branches(w, ctx, kept_rule, kept, kept_name, keyed, &missing);
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

void classify_lower_per_platform(lctx_feature_state *s, lctx_features *f,
                                 const lctx_case_op *op) {
  if (!classify_flag(s, LCTX_FACT_LOWER_PER_PLATFORM)) {
    f->value[LCTX_F_API] = API_NO_LOWER_PER_PLATFORM;
    return;
  }
  if (!classify_flag(s, LCTX_FACT_MODULE_OPTIONAL) &&
      rules_need_optional(s->c)) {
    f->value[LCTX_F_API] = API_NO_OPTIONAL;
    return;
  }
  walker w = {s, f, op, op->platform_count > 1};
  walk_ctx ctx = {0};
  ctx.module.count = op->platform_count;
  for (size_t i = 0; i < op->platform_count; i++)
    ctx.module.names[i] = lctx_case_name_view(s->c, op->platform[i]);
  ctx.narrowed = op->has_narrow;
  ctx.narrow.count = op->narrow_count;
  for (size_t i = 0; i < op->narrow_count; i++)
    ctx.narrow.names[i] = lctx_case_name_view(s->c, op->narrowed[i]);
  ctx.has_compute = op->has_compute_type;
  ctx.compute = lctx_case_field_view(op->compute_type);
  if (walk_eqn(&w, lctx_case_field_view(op->primitive), &ctx))
    stop(&w, STOP_NONE);
}

void lctx_classify_register_lowering(lctx_feature_state *state,
                                     const lctx_case_op *op,
                                     lctx_features *out) {
  classify_register_lowering(state, out, op);
}

void lctx_classify_lower_per_platform(lctx_feature_state *state,
                                      const lctx_case_op *op,
                                      lctx_features *out) {
  classify_lower_per_platform(state, out, op);
}
