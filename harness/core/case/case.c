/*
 * case.c - the case model (see case.h): equality, keywords, the views the
 * reference model and the implementation ABI take of a case. Validation is
 * case_validate.c's; the operations' keywords and their calls through the
 * implementation ABI are the table's (case_ops.c).
 */
#include "case.h"

#include "names.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
  size_t used =
      e->used < LCTX_CASE_EXPECT_TEXT_MAX ? e->used : LCTX_CASE_EXPECT_TEXT_MAX;
  memset(e->text, 0, used);
  memset(e->has, 0, sizeof e->has);
  memset(e->op, 0, sizeof e->op);
  e->used = 0;
}

void lctx_outcome_head_set(lctx_outcome_head *h, const lctx_outcome *o,
                           size_t offset) {
  h->kind = o->kind;
  h->error = o->error;
  h->origin = o->origin;
  h->registration = o->registration;
  h->truncated = o->truncated;
  h->offset = (uint32_t)offset;
  h->length = (uint32_t)o->length;
}

const lctx_outcome *lctx_outcome_head_get(const lctx_outcome_head *h,
                                          const char *pool, lctx_outcome *out) {
  size_t n = h->length < LCTX_OUTCOME_TEXT_MAX ? h->length : 0;
  out->kind = h->kind;
  out->error = h->error;
  out->origin = h->origin;
  out->registration = h->registration;
  out->truncated = h->truncated;
  out->length = n;
  if (n > 0)
    memcpy(out->text, pool + h->offset, n);
  out->text[n] = '\0';
  return out;
}

bool lctx_outcome_head_equal(const lctx_outcome_head *a, const char *pool_a,
                             const lctx_outcome_head *b, const char *pool_b) {
  if (a->kind != b->kind)
    return false;
  if (a->kind == LCTX_OUTCOME_NONE)
    return true;
  if (a->kind == LCTX_OUTCOME_CLIENT &&
      (a->origin != b->origin || a->registration != b->registration))
    return false;
  if (a->kind == LCTX_OUTCOME_RAISE && a->error != b->error)
    return false;
  return a->truncated == b->truncated && a->length == b->length &&
         (a->length == 0 ||
          memcmp(pool_a + a->offset, pool_b + b->offset, a->length) == 0);
}

bool lctx_case_expect_get(const lctx_case_expect *e, size_t i,
                          lctx_outcome *out) {
  if (!lctx_case_expect_has(e, i))
    return false;
  lctx_outcome_head_get(&e->op[i], e->text, out);
  return true;
}

/* Takes the text of operation `i` out of the pool, closing the gap. */
static void expect_drop_text(lctx_case_expect *e, size_t i) {
  lctx_outcome_head *h = &e->op[i];
  size_t end = (size_t)h->offset + h->length;
  memmove(e->text + h->offset, e->text + end, e->used - end);
  memset(e->text + e->used - h->length, 0, h->length);
  e->used -= h->length;
  for (size_t k = 0; k < LCTX_CASE_MAX_OPS; k++) {
    if (e->has[k] && e->op[k].offset > h->offset)
      e->op[k].offset -= h->length;
  }
  h->offset = 0;
  h->length = 0;
}

bool lctx_case_expect_set(lctx_case_expect *e, size_t i,
                          const lctx_outcome *o) {
  if (i >= LCTX_CASE_MAX_OPS)
    return false;
  size_t n = o->length;
  size_t held = e->has[i] ? e->op[i].length : 0;
  if (n >= LCTX_OUTCOME_TEXT_MAX ||
      e->used - held + n > LCTX_CASE_EXPECT_TEXT_MAX)
    return false;
  if (e->has[i])
    expect_drop_text(e, i);
  e->has[i] = true;
  lctx_outcome_head_set(&e->op[i], o, e->used);
  memcpy(e->text + e->used, o->text, n);
  e->used += n;
  return true;
}

bool lctx_case_expect_equal(const lctx_case_expect *a,
                            const lctx_case_expect *b, size_t op_count) {
  for (size_t i = 0; i < op_count && i < LCTX_CASE_MAX_OPS; i++) {
    if (a->has[i] != b->has[i] ||
        (a->has[i] &&
         !lctx_outcome_head_equal(&a->op[i], a->text, &b->op[i], b->text)))
      return false;
  }
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
#if defined(__GNUC__) || defined(__clang__)
#define NAME_VIEW_INLINE __attribute__((always_inline)) inline
#else
#define NAME_VIEW_INLINE inline
#endif
static NAME_VIEW_INLINE lctx_str name_view(const char name[LCTX_MAX_NAME + 1]) {
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

lctx_str lctx_case_name_view(const lctx_case *c, size_t index) {
  return index < LCTX_CASE_MAX_NAMES
             ? name_view(c->names[index])
             : lctx_str_from_cstr(lctx_case_name(c, index));
}

lctx_str lctx_case_field_view(const char field[LCTX_MAX_NAME + 1]) {
  return name_view(field);
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
  /* strcmp's equality in place: rule names are short and most differ
   * within their first bytes, where a call costs more than the bytes. */
  for (size_t i = 0; i < c->rule_count && i < LCTX_CASE_MAX_RULES; i++) {
    const char *a = c->rules[i].name, *b = name;
    while (*a != '\0' && *a == *b) {
      a++;
      b++;
    }
    if (*a == *b)
      return (int)i;
  }
  return -1;
}

/* Whether the names in the fields `a` and `b` (LCTX_MAX_NAME + 1 bytes) are
 * equal, as strcmp says, read a word at a time: the lowest byte the
 * zero-byte test marks in a word of `b` is its first zero byte (none above
 * it counts), and the names are equal when the bytes up to and including
 * it are. */
static bool same_name_field(const char *a, const char *b) {
  for (size_t at = 0; at < LCTX_MAX_NAME + 1; at += 8) {
    uint64_t wa, wb;
    memcpy(&wa, a + at, sizeof wa);
    memcpy(&wb, b + at, sizeof wb);
    uint64_t zero = (wb - 0x0101010101010101ULL) & ~wb & 0x8080808080808080ULL;
    if (zero) {
      uint64_t low = zero & (~zero + 1);
      return ((wa ^ wb) & ((low << 1) - 1)) == 0; /* all bits: the last byte */
    }
    if (wa != wb)
      return false;
  }
  return true;
}

int lctx_case_rule_find_field(const lctx_case *c,
                              const char name[LCTX_MAX_NAME + 1]) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  for (size_t i = 0; i < c->rule_count && i < LCTX_CASE_MAX_RULES; i++) {
    if (same_name_field(c->rules[i].name, name))
      return (int)i;
  }
  return -1;
#else
  return lctx_case_rule_find(c, name);
#endif
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
