/*
 * case.c - the case model (see case.h): equality, validation, keywords, the
 * views the reference model and the implementation ABI take of a case.
 */
#include "case.h"

#include "names.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static const char *const OP_NAMES[LCTX_OP_KIND_COUNT] = {
    [LCTX_OP_BACKENDS] = "backends",
    [LCTX_OP_CANONICALIZE] = "canonicalize",
    [LCTX_OP_XLA_GET_BACKEND] = "get_backend",
    [LCTX_OP_MODULE_GET_BACKEND] = "module_get_backend",
    [LCTX_OP_REGISTER_LOWERING] = "register_lowering",
    [LCTX_OP_LOWER_PER_PLATFORM] = "lower_per_platform",
};

#define ACTION_KIND_COUNT (LCTX_ACTION_EMIT_MARKER + 1)
static const char *const ACTION_NAMES[ACTION_KIND_COUNT] = {
    [LCTX_ACTION_GET_BACKEND] = "get_backend",
    [LCTX_ACTION_GUARDED_GET_BACKEND] = "guarded_get_backend",
    [LCTX_ACTION_TRY_FALLBACK_GET_BACKEND] = "try_fallback_get_backend",
    [LCTX_ACTION_RAISE_IF_MULTI] = "raise_if_multi",
    [LCTX_ACTION_READ_CLIENT_PLATFORM] = "read_client_platform",
    [LCTX_ACTION_LOWER_FUN] = "lower_fun",
    [LCTX_ACTION_EMIT_MARKER] = "marker",
};

static const char *const BEHAVIOUR_NAMES[] = {
    [LCTX_FACTORY_CLIENT] = "client",
    [LCTX_FACTORY_RAISES] = "raises",
    [LCTX_FACTORY_RETURNS_NONE] = "none",
    [LCTX_FACTORY_NO_DEVICES] = "no_devices",
};

void lctx_case_init(lctx_case *c) {
  memset(c, 0, sizeof *c);
}

void lctx_case_op_clear(lctx_case_op *op) {
  memset(op, 0, sizeof *op);
}

void lctx_case_op_copy(lctx_case_op *dst, const lctx_case_op *src) {
  *dst = *src;
}

void lctx_case_op_assign(lctx_case_op *dst, const lctx_case_op *src) {
  *dst = *src;
}

const char *lctx_case_name(const lctx_case *c, size_t index) {
  if (index < LCTX_CASE_MAX_NAMES)
    return c->names[index];
  if (index == LCTX_CASE_NAME_CPU)
    return "cpu";
  if (index == LCTX_CASE_NAME_TPU)
    return "tpu";
  return "";
}

bool lctx_case_intern(lctx_case *c, lctx_str name, uint8_t *index) {
  size_t n =
      c->name_count < LCTX_CASE_MAX_NAMES ? c->name_count : LCTX_CASE_MAX_NAMES;
  if (name.length > LCTX_MAX_NAME)
    return false;
  /* Each name is zero-padded to its slot: its bytes and the NUL after
   * them are all a comparison needs (no strlen per name). */
  for (size_t i = 0; i < n; i++) {
    if (c->names[i][name.length] == '\0' &&
        (name.length == 0 ||
         (c->names[i][0] == name.data[0] &&
          memcmp(c->names[i], name.data, name.length) == 0))) {
      *index = (uint8_t)i;
      return true;
    }
  }
  if (n >= LCTX_CASE_MAX_NAMES)
    return false;
  memcpy(c->names[n], name.data, name.length);
  memset(c->names[n] + name.length, 0, sizeof c->names[n] - name.length);
  c->name_count = n + 1;
  *index = (uint8_t)n;
  return true;
}

bool lctx_case_intern_cstr(lctx_case *c, const char *name, uint8_t *index) {
  return lctx_case_intern(
      c, lctx_str_make(name, strnlen(name, LCTX_MAX_NAME + 1)), index);
}

void lctx_case_reset(lctx_case *c) {
  memset(c->factories, 0, c->factory_count * sizeof c->factories[0]);
  c->factory_count = 0;
  memset(c->jax_platforms, 0, sizeof c->jax_platforms);
  memset(c->jax_platform_name, 0, sizeof c->jax_platform_name);
  memset(c->jax_xla_backend, 0, sizeof c->jax_xla_backend);
  c->nvidia_gpu_visible = false;
  memset(c->rules, 0, c->rule_count * sizeof c->rules[0]);
  c->rule_count = 0;
  for (size_t i = 0; i < c->op_count; i++)
    lctx_case_op_clear(&c->ops[i]);
  c->op_count = 0;
  size_t n =
      c->name_count < LCTX_CASE_MAX_NAMES ? c->name_count : LCTX_CASE_MAX_NAMES;
  memset(c->names, 0, n * sizeof c->names[0]);
  c->name_count = 0;
}

void lctx_case_expect_init(lctx_case_expect *e) {
  memset(e, 0, sizeof *e);
}

void lctx_case_expect_reset(lctx_case_expect *e) {
  for (size_t i = 0; i < LCTX_CASE_MAX_OPS; i++) {
    if (e->has[i])
      memset(&e->outcome[i], 0, sizeof e->outcome[i]);
    e->has[i] = false;
  }
}

bool lctx_case_expect_equal(const lctx_case_expect *a,
                            const lctx_case_expect *b, size_t op_count) {
  for (size_t i = 0; i < op_count && i < LCTX_CASE_MAX_OPS; i++) {
    if (a->has[i] != b->has[i] ||
        (a->has[i] && !lctx_outcome_equal(&a->outcome[i], &b->outcome[i])))
      return false;
  }
  return true;
}

const char *lctx_op_kind_name(lctx_op_kind kind) {
  return (unsigned)kind < LCTX_OP_KIND_COUNT ? OP_NAMES[kind] : "?";
}

bool lctx_op_kind_from_name(lctx_str name, lctx_op_kind *kind) {
  int i = lctx_names_find(OP_NAMES, LCTX_OP_KIND_COUNT, name);
  if (i < 0)
    return false;
  *kind = (lctx_op_kind)i;
  return true;
}

const char *lctx_action_kind_name(lctx_lowering_action_kind kind) {
  return (unsigned)kind < ACTION_KIND_COUNT ? ACTION_NAMES[kind] : "?";
}

bool lctx_action_kind_from_name(lctx_str name,
                                lctx_lowering_action_kind *kind) {
  int i = lctx_names_find(ACTION_NAMES, ACTION_KIND_COUNT, name);
  if (i < 0)
    return false;
  *kind = (lctx_lowering_action_kind)i;
  return true;
}

const char *lctx_factory_behaviour_name(lctx_factory_behaviour behaviour) {
  return (unsigned)behaviour <= LCTX_FACTORY_NO_DEVICES
             ? BEHAVIOUR_NAMES[behaviour]
             : "?";
}

bool lctx_factory_behaviour_from_name(lctx_str name,
                                      lctx_factory_behaviour *behaviour) {
  int i = lctx_names_find(BEHAVIOUR_NAMES, LCTX_FACTORY_NO_DEVICES + 1, name);
  if (i < 0)
    return false;
  *behaviour = (lctx_factory_behaviour)i;
  return true;
}

/* Whether lists of `na` and `nb` indexes into the names of `ca` and `cb`
 * name the same platforms. */
static bool list_equal(const lctx_case *ca, size_t na, const uint8_t *a,
                       const lctx_case *cb, size_t nb, const uint8_t *b) {
  if (na != nb || na > LCTX_MAX_MODULE_PLATFORMS)
    return na == nb;
  for (size_t i = 0; i < na; i++) {
    if (strcmp(lctx_case_name(ca, a[i]), lctx_case_name(cb, b[i])) != 0)
      return false;
  }
  return true;
}

static bool op_equal(const lctx_case *ca, const lctx_case_op *a,
                     const lctx_case *cb, const lctx_case_op *b) {
  return a->kind == b->kind && a->has_arg == b->has_arg &&
         strcmp(a->arg, b->arg) == 0 &&
         list_equal(ca, a->platform_count, a->platform, cb, b->platform_count,
                    b->platform) &&
         a->has_backend == b->has_backend &&
         strcmp(a->backend, b->backend) == 0 && a->optional == b->optional &&
         strcmp(a->primitive, b->primitive) == 0 &&
         strcmp(a->rule, b->rule) == 0 && a->has_narrow == b->has_narrow &&
         list_equal(ca, a->narrow_count, a->narrowed, cb, b->narrow_count,
                    b->narrowed) &&
         a->has_compute_type == b->has_compute_type &&
         strcmp(a->compute_type, b->compute_type) == 0 &&
         a->has_override == b->has_override &&
         strcmp(a->override, b->override) == 0 && a->x64 == b->x64;
}

static bool rule_equal(const lctx_case_rule *a, const lctx_case_rule *b) {
  if (strcmp(a->name, b->name) != 0 || a->action_count != b->action_count)
    return false;
  for (size_t i = 0; i < a->action_count; i++) {
    const lctx_case_action *x = &a->actions[i], *y = &b->actions[i];
    if (x->kind != y->kind || x->optional != y->optional ||
        strcmp(x->text, y->text) != 0 ||
        x->has_compute_type != y->has_compute_type ||
        strcmp(x->compute_type, y->compute_type) != 0)
      return false;
  }
  return true;
}

bool lctx_case_equal(const lctx_case *a, const lctx_case *b) {
  if (a->factory_count != b->factory_count ||
      strcmp(a->jax_platforms, b->jax_platforms) != 0 ||
      strcmp(a->jax_platform_name, b->jax_platform_name) != 0 ||
      strcmp(a->jax_xla_backend, b->jax_xla_backend) != 0 ||
      a->nvidia_gpu_visible != b->nvidia_gpu_visible ||
      a->rule_count != b->rule_count || a->op_count != b->op_count)
    return false;
  for (size_t i = 0; i < a->rule_count; i++) {
    if (!rule_equal(&a->rules[i], &b->rules[i]))
      return false;
  }
  for (size_t i = 0; i < a->factory_count; i++) {
    const lctx_case_factory *fa = &a->factories[i], *fb = &b->factories[i];
    if (strcmp(fa->name, fb->name) != 0 || fa->priority != fb->priority ||
        fa->fail_quietly != fb->fail_quietly ||
        fa->behaviour != fb->behaviour || strcmp(fa->message, fb->message) != 0)
      return false;
  }
  for (size_t i = 0; i < a->op_count; i++) {
    if (!op_equal(a, &a->ops[i], b, &b->ops[i]))
      return false;
  }
  return true;
}

void lctx_case_config(const lctx_case *c, lctx_registry_config *config) {
  /* Every field lctx_registry_config_init would clear is written below but
   * the factories past the count, which nothing reads: the runner fills a
   * configuration once per case, and the whole is large. */
  size_t n = c->factory_count < LCTX_MAX_FACTORIES ? c->factory_count
                                                   : LCTX_MAX_FACTORIES;
  for (size_t i = 0; i < n; i++) {
    const lctx_case_factory *f = &c->factories[i];
    config->factories[i] = (lctx_factory){f->name, f->priority, f->fail_quietly,
                                          f->behaviour, f->message};
  }
  config->factory_count = n;
  config->jax_platforms = c->jax_platforms;
  config->jax_platform_name = c->jax_platform_name;
  config->jax_xla_backend = c->jax_xla_backend;
  config->nvidia_gpu_visible = c->nvidia_gpu_visible;
}

/* A view of a name field of an operation: its bytes up to the NUL, at most
 * LCTX_MAX_NAME (a validated name is shorter). The field is read eight bytes
 * at a time (it is LCTX_MAX_NAME + 1 bytes, a multiple of eight): this runs
 * for every platform of every module operation judged. */
static lctx_str name_view(const char name[LCTX_MAX_NAME + 1]) {
  _Static_assert((LCTX_MAX_NAME + 1) % 8 == 0, "a name field is whole words");
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  for (size_t at = 0; at < LCTX_MAX_NAME + 1; at += 8) {
    uint64_t w;
    memcpy(&w, name + at, sizeof w);
    /* The lowest set bit marks the first zero byte (none above it counts). */
    uint64_t zero = (w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL;
    if (zero) {
      size_t n = at + (size_t)__builtin_ctzll(zero) / 8;
      return (lctx_str){name, n < LCTX_MAX_NAME ? n : LCTX_MAX_NAME};
    }
  }
  return (lctx_str){name, LCTX_MAX_NAME};
#else
  size_t n = 0;
  while (n < LCTX_MAX_NAME && name[n] != '\0')
    n++;
  return (lctx_str){name, n};
#endif
}

void lctx_case_module_context(const lctx_case *c, const lctx_case_op *op,
                              lctx_module_context *context) {
  /* What lctx_module_context_init, _add_platform and _pin write, written
   * here field by field: this runs for every module operation judged. */
  size_t n = op->platform_count < LCTX_MAX_MODULE_PLATFORMS
                 ? op->platform_count
                 : LCTX_MAX_MODULE_PLATFORMS;
  for (size_t i = 0; i < n; i++)
    context->platforms[i] =
        op->platform[i] < LCTX_CASE_MAX_NAMES
            ? name_view(c->names[op->platform[i]])
            : lctx_str_from_cstr(lctx_case_name(c, op->platform[i]));
  context->platform_count = n;
  context->has_backend = op->has_backend;
  context->backend_platform =
      op->has_backend ? name_view(op->backend) : (lctx_str){NULL, 0};
  context->platforms_are_list = false;
}

int lctx_case_rule_find(const lctx_case *c, const char *name) {
  for (size_t i = 0; i < c->rule_count && i < LCTX_CASE_MAX_RULES; i++) {
    if (strcmp(c->rules[i].name, name) == 0)
      return (int)i;
  }
  return -1;
}

static bool check_name(const char *s, size_t max, const char *field, long index,
                       lctx_buf *error) {
  size_t n = strnlen(s, max + 1);
  if (n <= max && lctx_pyrepr_is_supported(lctx_str_make(s, n)))
    return true;
  lctx_buf_append_cstr(error, field);
  if (index >= 0) {
    lctx_buf_append_char(error, '[');
    lctx_buf_append_int(error, index);
    lctx_buf_append_char(error, ']');
  }
  lctx_buf_append_cstr(error, n > max ? " is too long"
                                      : " holds a byte outside 0x01-0x7f");
  return false;
}

static bool fail_at(lctx_buf *error, const char *field, size_t index,
                    const char *rest) {
  lctx_buf_append_cstr(error, field);
  lctx_buf_append_char(error, '[');
  lctx_buf_append_int(error, (long long)index);
  lctx_buf_append_cstr(error, "]");
  lctx_buf_append_cstr(error, rest);
  return false;
}

/* The primitive names of a case, in first-appearance order. */
typedef struct prim_table {
  size_t count;
  const char *names[LCTX_LOWERING_MAX_PRIMITIVES];
} prim_table;

static int prim_index(prim_table *t, const char *name, bool add) {
  for (size_t i = 0; i < t->count; i++) {
    if (strcmp(t->names[i], name) == 0)
      return (int)i;
  }
  if (!add || t->count == LCTX_LOWERING_MAX_PRIMITIVES)
    return -1;
  t->names[t->count] = name;
  return (int)t->count++;
}

/* What the lower_fun graph check needs: the rules bound to each primitive
 * (by a register_lowering or an override), and the primitives each rule
 * lowers through lower_fun. */
typedef struct lower_graph {
  prim_table prims;
  bool bound[LCTX_LOWERING_MAX_PRIMITIVES][LCTX_CASE_MAX_RULES];
  int state[LCTX_LOWERING_MAX_PRIMITIVES]; /* 0 new, 1 open, 2 done */
  int depth[LCTX_LOWERING_MAX_PRIMITIVES];
  long events[LCTX_LOWERING_MAX_PRIMITIVES];
  long slots; /* most kept rules of one dispatch */
  const lctx_case *c;
  const char *cycle; /* the primitive closing a cycle */
} lower_graph;

/* Depth-first: the deepest lower_fun nesting below `p` and an upper bound
 * of the events one equation of `p` records. False on a cycle. */
static bool walk(lower_graph *g, int p) {
  if (g->state[p] == 2)
    return true;
  if (g->state[p] == 1) {
    g->cycle = g->prims.names[p];
    return false;
  }
  g->state[p] = 1;
  int depth = 0;
  long body_max = 0;
  bool any = false;
  for (size_t r = 0; r < g->c->rule_count; r++) {
    if (!g->bound[p][r])
      continue;
    any = true;
    long body = 0;
    const lctx_case_rule *rule = &g->c->rules[r];
    for (size_t k = 0; k < rule->action_count; k++) {
      const lctx_case_action *a = &rule->actions[k];
      if (a->kind != LCTX_ACTION_LOWER_FUN) {
        body += 2; /* a get_backend and its retry, a raise or a marker */
        continue;
      }
      int q = prim_index(&g->prims, a->text, false);
      if (q < 0)
        return false;
      if (!walk(g, q))
        return false;
      if (g->depth[q] + 1 > depth)
        depth = g->depth[q] + 1;
      body += g->events[q];
    }
    if (body > body_max)
      body_max = body;
  }
  g->depth[p] = depth;
  /* EQN, DISPATCH, then per kept rule a BRANCH, a CALL and the body. */
  g->events[p] = any ? 2 + g->slots * (2 + body_max) : 1;
  if (g->events[p] > 1000000)
    g->events[p] = 1000000;
  g->state[p] = 2;
  return true;
}

/* The lowering checks; `names` adds the alphabet and length check of every
 * name they read (lctx_case_validate_lowering leaves it to the caller). */
static bool validate_lowering(const lctx_case *c, lctx_buf *error, bool names) {
  if (c->rule_count > LCTX_CASE_MAX_RULES) {
    lctx_buf_append_cstr(error, "rules: too many");
    return false;
  }
  lower_graph g;
  memset(&g, 0, sizeof g);
  g.c = c;
  for (size_t i = 0; i < c->rule_count; i++) {
    const lctx_case_rule *rule = &c->rules[i];
    if (names &&
        !check_name(rule->name, LCTX_MAX_NAME, "rules[].name", (long)i, error))
      return false;
    if (rule->name[0] == '\0')
      return fail_at(error, "rules", i, ".name is empty");
    if (lctx_case_rule_find(c, rule->name) != (int)i)
      return fail_at(error, "rules", i, ".name is declared twice");
    if (rule->action_count > LCTX_CASE_MAX_ACTIONS)
      return fail_at(error, "rules", i, ".actions: too many");
    for (size_t k = 0; k < rule->action_count; k++) {
      const lctx_case_action *a = &rule->actions[k];
      if ((unsigned)a->kind > LCTX_ACTION_EMIT_MARKER)
        return fail_at(error, "rules", i, ".actions[].action is not known");
      if (names &&
          (!check_name(a->text, LCTX_MAX_NAME, "rules[].actions[].text",
                       (long)k, error) ||
           !check_name(a->compute_type, LCTX_MAX_NAME,
                       "rules[].actions[].compute_type", (long)k, error)))
        return false;
      if (a->kind == LCTX_ACTION_LOWER_FUN &&
          prim_index(&g.prims, a->text, true) < 0) {
        lctx_buf_append_cstr(error, "primitives: more than 8 distinct names");
        return false;
      }
    }
  }
  long slots = 1;
  for (size_t i = 0; i < c->op_count; i++) {
    const lctx_case_op *op = &c->ops[i];
    if (op->kind != LCTX_OP_REGISTER_LOWERING &&
        op->kind != LCTX_OP_LOWER_PER_PLATFORM)
      continue;
    if (names && (!check_name(op->primitive, LCTX_MAX_NAME,
                              "operations[].primitive", (long)i, error) ||
                  !check_name(op->rule, LCTX_MAX_NAME, "operations[].rule",
                              (long)i, error) ||
                  !check_name(op->compute_type, LCTX_MAX_NAME,
                              "operations[].compute_type", (long)i, error) ||
                  !check_name(op->override, LCTX_MAX_NAME,
                              "operations[].override", (long)i, error)))
      return false;
    if (op->narrow_count > LCTX_MAX_MODULE_PLATFORMS) {
      lctx_buf_append_cstr(error, "operations[].narrow: too many");
      return false;
    }
    for (size_t k = 0; k < op->narrow_count; k++) {
      if (op->narrowed[k] >= c->name_count ||
          op->narrowed[k] >= LCTX_CASE_MAX_NAMES) {
        lctx_buf_append_cstr(error, "operations[].narrow: not in the names");
        return false;
      }
      if (names && !check_name(lctx_case_op_narrow(c, op, k), LCTX_MAX_NAME,
                               "operations[].narrow", (long)k, error))
        return false;
    }
    int p = prim_index(&g.prims, op->primitive, true);
    if (p < 0) {
      lctx_buf_append_cstr(error, "primitives: more than 8 distinct names");
      return false;
    }
    const char *bound = NULL;
    if (op->kind == LCTX_OP_REGISTER_LOWERING)
      bound = op->rule;
    else if (op->has_override)
      bound = op->override;
    if (bound) {
      int r = lctx_case_rule_find(c, bound);
      if (r < 0)
        return fail_at(error, "operations", i,
                       op->kind == LCTX_OP_REGISTER_LOWERING
                           ? ".rule names no declared rule"
                           : ".override names no declared rule");
      g.bound[p][r] = true;
    }
    if (op->kind == LCTX_OP_LOWER_PER_PLATFORM) {
      long n = (long)(op->platform_count > op->narrow_count ? op->platform_count
                                                            : op->narrow_count);
      if (n + 1 > slots)
        slots = n + 1;
    }
  }
  g.slots = slots;
  for (size_t p = 0; p < g.prims.count; p++) {
    if (!walk(&g, (int)p)) {
      lctx_buf_append_cstr(error, "rules: primitive '");
      lctx_buf_append_cstr(error, g.cycle ? g.cycle : "?");
      lctx_buf_append_cstr(
          error, "' reaches itself through lower_fun (JAX would not end)");
      return false;
    }
    if (g.depth[p] > LCTX_LOWERING_MAX_DEPTH) {
      lctx_buf_append_cstr(error, "rules: lower_fun nested more than 4 deep");
      return false;
    }
  }
  for (size_t i = 0; i < c->op_count; i++) {
    const lctx_case_op *op = &c->ops[i];
    if (op->kind != LCTX_OP_LOWER_PER_PLATFORM)
      continue;
    int p = prim_index(&g.prims, op->primitive, false);
    if (p >= 0 && g.events[p] > LCTX_LOWERING_MAX_EVENTS)
      return fail_at(error, "operations", i,
                     ": this lowering may record more than 128 events "
                     "(the model's limit); use fewer platforms, rules or "
                     "lower_fun actions");
  }
  return true;
}

bool lctx_case_validate(const lctx_case *c, lctx_buf *error) {
  if (c->factory_count > LCTX_MAX_FACTORIES) {
    lctx_buf_append_cstr(error, "factories: too many");
    return false;
  }
  if (c->op_count > LCTX_CASE_MAX_OPS) {
    lctx_buf_append_cstr(error, "operations: too many");
    return false;
  }
  if (c->name_count > LCTX_CASE_MAX_NAMES) {
    lctx_buf_append_cstr(error, "names: too many");
    return false;
  }
  lctx_registry_config config;
  lctx_case_config(c, &config);
  if (!lctx_registry_config_validate(&config, error))
    return false;
  for (size_t i = 0; i < c->op_count; i++) {
    const lctx_case_op *op = &c->ops[i];
    if ((unsigned)op->kind >= LCTX_OP_KIND_COUNT) {
      lctx_buf_append_cstr(error, "operations[");
      lctx_buf_append_int(error, (long long)i);
      lctx_buf_append_cstr(error, "].op is not a known operation");
      return false;
    }
    if (op->platform_count > LCTX_MAX_MODULE_PLATFORMS) {
      lctx_buf_append_cstr(error, "operations[].platforms: too many");
      return false;
    }
    if (!check_name(op->arg, LCTX_MAX_NAME, "operations[].arg", (long)i,
                    error) ||
        !check_name(op->backend, LCTX_MAX_NAME, "operations[].backend", (long)i,
                    error))
      return false;
    for (size_t k = 0; k < op->platform_count; k++) {
      if (op->platform[k] >= c->name_count ||
          op->platform[k] >= LCTX_CASE_MAX_NAMES) {
        lctx_buf_append_cstr(error, "operations[].platforms: not in the names");
        return false;
      }
      if (!check_name(lctx_case_op_platform(c, op, k), LCTX_MAX_NAME,
                      "operations[].platforms", (long)k, error))
        return false;
    }
  }
  return validate_lowering(c, error, true);
}

bool lctx_case_validate_lowering(const lctx_case *c, lctx_buf *error) {
  return validate_lowering(c, error, false);
}

//===----------------------------------------------------------------------===//
// The case through the implementation ABI
//===----------------------------------------------------------------------===//

void lctx_case_impl_config(const lctx_case *c, lctx_case_impl_views *v,
                           lctx_impl_config *config) {
  for (size_t i = 0; i < c->factory_count; i++)
    v->factories[i] = (lctx_impl_factory){
        c->factories[i].name, c->factories[i].priority,
        c->factories[i].fail_quietly, (int32_t)c->factories[i].behaviour,
        c->factories[i].message};
  for (size_t i = 0; i < c->rule_count; i++) {
    const lctx_case_rule *rule = &c->rules[i];
    for (size_t k = 0; k < rule->action_count; k++) {
      const lctx_case_action *a = &rule->actions[k];
      bool text = a->kind == LCTX_ACTION_RAISE_IF_MULTI ||
                  a->kind == LCTX_ACTION_LOWER_FUN;
      /* lctx_lowering_action_kind and LCTX_IMPL_ACTION_* share numbers. */
      v->actions[i][k] = (lctx_impl_action){
          (int32_t)a->kind, a->optional, text ? a->text : NULL,
          a->kind == LCTX_ACTION_LOWER_FUN && a->has_compute_type
              ? a->compute_type
              : NULL};
    }
    v->rules[i] =
        (lctx_impl_rule){rule->name, rule->action_count, v->actions[i]};
  }
  *config =
      (lctx_impl_config){c->factory_count,   v->factories,
                         c->jax_platforms,   c->jax_platform_name,
                         c->jax_xla_backend, c->nvidia_gpu_visible,
                         c->rule_count,      c->rule_count ? v->rules : NULL};
}

lctx_impl_status lctx_case_impl_run_op(const lctx_impl_table *t, void *session,
                                       const lctx_case *c,
                                       const lctx_case_op *op,
                                       lctx_impl_outcome *o, char *mlir,
                                       size_t *mlir_length) {
  if (mlir_length)
    *mlir_length = 0;
  const char *platforms[LCTX_MAX_MODULE_PLATFORMS];
  for (size_t k = 0; k < op->platform_count; k++)
    platforms[k] = lctx_case_op_platform(c, op, k);
  switch (op->kind) {
  case LCTX_OP_BACKENDS:
    return t->backends ? t->backends(session, o) : 1;
  case LCTX_OP_CANONICALIZE:
    return t->canonicalize ? t->canonicalize(session, op->arg, o) : 1;
  case LCTX_OP_XLA_GET_BACKEND:
    return t->get_backend
               ? t->get_backend(session, op->has_arg ? op->arg : NULL, o)
               : 1;
  case LCTX_OP_MODULE_GET_BACKEND:
    if (!t->module_get_backend)
      return 1;
    return t->module_get_backend(session, platforms, op->platform_count,
                                 op->has_backend ? op->backend : NULL,
                                 op->optional, o);
  case LCTX_OP_REGISTER_LOWERING:
    if (t->abi_version < 2 || !t->register_lowering)
      return 1;
    return t->register_lowering(session, op->primitive, op->rule,
                                op->has_arg ? op->arg : NULL, o);
  case LCTX_OP_LOWER_PER_PLATFORM: {
    if (t->abi_version < 2 || !t->lower_per_platform)
      return 1;
    const char *narrow[LCTX_MAX_MODULE_PLATFORMS];
    for (size_t k = 0; k < op->narrow_count; k++)
      narrow[k] = lctx_case_op_narrow(c, op, k);
    lctx_impl_lowering l = {
        op->primitive,
        platforms,
        op->platform_count,
        op->has_backend ? op->backend : NULL,
        op->has_narrow ? narrow : NULL,
        op->has_narrow ? op->narrow_count : 0,
        op->has_compute_type ? op->compute_type : NULL,
        op->has_override ? op->override : NULL,
        op->x64,
    };
    size_t length = 0;
    lctx_impl_status st = t->lower_per_platform(
        session, &l, o, mlir, mlir ? LCTX_CASE_IMPL_MLIR_CAPACITY : 0, &length);
    if (mlir_length && mlir)
      *mlir_length = length; /* the caller checks it against the capacity */
    return st;
  }
  }
  return 1;
}

bool lctx_outcome_from_impl(int32_t kind, int32_t error_class, int32_t origin,
                            int32_t registration, const char *text,
                            size_t length, lctx_outcome *out,
                            const char **why) {
  if (kind < LCTX_IMPL_NONE || kind > LCTX_IMPL_RAISE) {
    *why = "an outcome with an unknown kind";
    return false;
  }
  if (kind == LCTX_IMPL_RAISE && (error_class < LCTX_IMPL_RUNTIME_ERROR ||
                                  error_class > LCTX_IMPL_INDEX_ERROR)) {
    *why = "a raise with an unknown error class";
    return false;
  }
  /* The ABI's numbering matches lctx_outcome_kind and lctx_error_class. */
  lctx_buf w =
      kind == LCTX_IMPL_RAISE
          ? lctx_outcome_begin_raise(out, (lctx_error_class)error_class)
          : lctx_outcome_begin(out, (lctx_outcome_kind)kind);
  lctx_buf_append(&w, text, length);
  lctx_outcome_end(out, &w);
  if (kind == LCTX_IMPL_CLIENT) {
    out->origin = origin == LCTX_IMPL_ORIGIN_PINNED ? LCTX_CLIENT_PINNED
                                                    : LCTX_CLIENT_REGISTRY;
    out->registration = out->origin == LCTX_CLIENT_PINNED ? -1 : registration;
  }
  return true;
}
