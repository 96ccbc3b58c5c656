/*
 * tests/case_gen.h - a seeded random generator of valid cases, outcomes and
 * byte strings, for the property tests of the case forms and of later
 * modules.
 *
 * Owns the distribution: every operation kind; 0 to LCTX_CASE_MAX_RULES
 * lowering rules with unique names and 0 to LCTX_CASE_MAX_ACTIONS actions
 * of every kind (primitives mostly "P", "Q", "R", "S", so that rules and
 * operations meet), register_lowering operations naming declared rules,
 * lower_per_platform operations with and without narrow, compute_type,
 * override and x64 (degraded until the case validates: no lower_fun
 * cycle, no nesting past the model's depth, the event bound kept); names
 * from the dictionary alphabet ("cpu", "cuda", "gpu", "GPU", "", ...) and
 * random strings of
 * bytes 0x01-0x7f biased towards quotes, backslashes, `#`, `,`, blanks and
 * control bytes, sometimes at their length limit; any int priority
 * (INT_MIN and INT_MAX included); 0 to LCTX_MAX_FACTORIES factories with
 * unique names, 0 to LCTX_CASE_MAX_OPS operations, 0 to
 * LCTX_MAX_MODULE_PLATFORMS module platforms; and, on request, an
 * expectation of every outcome kind. Every case it makes passes
 * lctx_case_validate and keeps the invariants of case.h (fields unused by a
 * kind are zero, for operations and rule actions alike, canonicalize has
 * `has_arg`, only raising factories have a message).
 *
 * Also the checks every generated case passes (case_gen_is_normal,
 * case_gen_is_valid) and hand-written cases from their text
 * (case_gen_parse_body).
 *
 * Header-only (static inline) so that any test can include it; the
 * sequence depends only on the seed (splitmix64).
 */
#ifndef LCTX_TESTS_CASE_GEN_H
#define LCTX_TESTS_CASE_GEN_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "case_text.h"

/// The generator state.
typedef struct case_gen {
  uint64_t state;
} case_gen;

/// Flags of case_gen_case and case_gen_outcome.
enum {
  /// Give operations expectations (about two in three).
  CASE_GEN_EXPECT = 1,
  /// Expectation texts are valid UTF-8 (what the JSON form carries);
  /// otherwise they hold any bytes 0x01-0xff.
  CASE_GEN_UTF8 = 2,
};

static inline void case_gen_seed(case_gen *g, uint64_t seed) {
  g->state = seed;
}

/// The next 64 random bits (splitmix64).
static inline uint64_t case_gen_next(case_gen *g) {
  uint64_t z = (g->state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// A number in [0, n) (n > 0).
static inline uint32_t case_gen_below(case_gen *g, uint32_t n) {
  return (uint32_t)(case_gen_next(g) % n);
}

/// True with probability percent/100.
static inline bool case_gen_chance(case_gen *g, uint32_t percent) {
  return case_gen_below(g, 100) < percent;
}

/// Fills `n` random bytes.
static inline void case_gen_bytes(case_gen *g, uint8_t *dst, size_t n) {
  for (size_t i = 0; i < n; i++)
    dst[i] = (uint8_t)case_gen_next(g);
}

/// A random byte 0x01-0x7f, often one that needs care in a printer.
static inline char case_gen_name_byte(case_gen *g) {
  static const char tricky[] = "\"\\#, =[]'\t\n\r\x01\x1b\x7f";
  if (case_gen_chance(g, 30))
    return tricky[case_gen_below(g, sizeof tricky - 1)];
  if (case_gen_chance(g, 60))
    return (char)(0x20 + case_gen_below(g, 0x5f));
  return (char)(1 + case_gen_below(g, 0x7f));
}

/// Writes a NUL-terminated name of at most `max` bytes to `dst`.
static inline void case_gen_name(case_gen *g, char *dst, size_t max) {
  static const char *const alphabet[] = {
      "cpu",   "cuda",  "rocm", "oneapi", "tpu", "gpu",
      "METAL", "bogus", "CPU",  "Cuda",   "GPU", "",
  };
  uint32_t mode = case_gen_below(g, 10);
  size_t n;
  if (mode < 5) {
    const char *s = alphabet[case_gen_below(g, 12)];
    n = strlen(s) <= max ? strlen(s) : 0;
    memcpy(dst, s, n);
  } else {
    n = mode == 5 ? max
                  : case_gen_below(g, (uint32_t)(max < 12 ? max : 12) + 1);
    for (size_t i = 0; i < n; i++)
      dst[i] = case_gen_name_byte(g);
  }
  dst[n] = '\0';
}

/// A comma-separated jax_platforms value of at most `max` bytes.
static inline void case_gen_platforms_config(case_gen *g, char *dst,
                                             size_t max) {
  size_t n = 0;
  uint32_t entries = 1 + case_gen_below(g, 4);
  for (uint32_t i = 0; i < entries; i++) {
    char name[LCTX_MAX_NAME + 1];
    case_gen_name(g, name, 12);
    size_t k = strlen(name);
    if (n + (i > 0) + k > max)
      break;
    if (i > 0)
      dst[n++] = ',';
    memcpy(dst + n, name, k);
    n += k;
  }
  dst[n] = '\0';
}

/// Any int, often one the model treats specially.
static inline int case_gen_priority(case_gen *g) {
  static const int interesting[] = {INT_MIN, INT_MAX, -1001, -1000, -999, -1,
                                    0,       1,       2,     300,   400,  401};
  switch (case_gen_below(g, 3)) {
  case 0:
    return interesting[case_gen_below(g, 12)];
  case 1:
    return (int)case_gen_below(g, 4001) - 2000;
  default: {
    uint32_t v = (uint32_t)case_gen_next(g);
    return v <= (uint32_t)INT_MAX ? (int)v : (int)(v - 0x80000000u) + INT_MIN;
  }
  }
}

/// Appends one random UTF-8 encoded code point (no NUL, no surrogates) to
/// dst[*n], if it fits before `max`.
static inline void case_gen_utf8(case_gen *g, char *dst, size_t *n,
                                 size_t max) {
  uint32_t cp;
  switch (case_gen_below(g, 4)) {
  case 0:
    cp = 0x80 + case_gen_below(g, 0x780);
    break;
  case 1:
    cp = 0x800 + case_gen_below(g, 0xd000);
    break;
  case 2:
    cp = 0x10000 + case_gen_below(g, 0x100000);
    break;
  default:
    cp = 1 + case_gen_below(g, 0x7f);
    break;
  }
  unsigned char b[4];
  size_t k;
  if (cp < 0x80) {
    b[0] = (unsigned char)cp;
    k = 1;
  } else if (cp < 0x800) {
    b[0] = (unsigned char)(0xc0 | (cp >> 6));
    b[1] = (unsigned char)(0x80 | (cp & 0x3f));
    k = 2;
  } else if (cp < 0x10000) {
    b[0] = (unsigned char)(0xe0 | (cp >> 12));
    b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
    b[2] = (unsigned char)(0x80 | (cp & 0x3f));
    k = 3;
  } else {
    b[0] = (unsigned char)(0xf0 | (cp >> 18));
    b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
    b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
    b[3] = (unsigned char)(0x80 | (cp & 0x3f));
    k = 4;
  }
  if (*n + k > max)
    return;
  memcpy(dst + *n, b, k);
  *n += k;
}

/// Fills an outcome text: usually short, sometimes up to the limit; bytes
/// 0x01-0xff, or valid UTF-8 with CASE_GEN_UTF8.
static inline void case_gen_text(case_gen *g, lctx_buf *w, unsigned flags) {
  static char text[LCTX_OUTCOME_TEXT_MAX];
  size_t max = LCTX_OUTCOME_TEXT_MAX - 1;
  size_t target = case_gen_chance(g, 3)    ? max - case_gen_below(g, 4)
                  : case_gen_chance(g, 10) ? case_gen_below(g, 300)
                                           : case_gen_below(g, 24);
  size_t n = 0;
  while (n < target) {
    if (flags & CASE_GEN_UTF8) {
      if (case_gen_chance(g, 70)) {
        text[n++] = case_gen_name_byte(g);
      } else {
        size_t before = n;
        case_gen_utf8(g, text, &n, target);
        if (n == before)
          break;
      }
    } else {
      unsigned char byte = case_gen_chance(g, 50)
                               ? (unsigned char)case_gen_name_byte(g)
                               : (unsigned char)(1 + case_gen_below(g, 255));
      memcpy(text + n++, &byte, 1);
    }
  }
  lctx_buf_append(w, text, n);
}

/// An outcome of any kind (never truncated; a raise has a class).
static inline void case_gen_outcome(case_gen *g, lctx_outcome *o,
                                    unsigned flags) {
  uint32_t kind = case_gen_below(g, 6);
  lctx_buf w;
  switch (kind) {
  case 0:
    lctx_outcome_set_none(o);
    return;
  case 1:
  case 2:
    w = lctx_outcome_begin(o, LCTX_OUTCOME_CLIENT);
    case_gen_text(g, &w, flags);
    lctx_outcome_end(o, &w);
    if (kind == 1) {
      o->origin = LCTX_CLIENT_PINNED;
      o->registration = -1;
    } else {
      o->origin = LCTX_CLIENT_REGISTRY;
      o->registration =
          case_gen_chance(g, 5) ? INT_MAX : (int)case_gen_below(g, 256);
    }
    return;
  case 3:
    w = lctx_outcome_begin(o, LCTX_OUTCOME_STRING);
    break;
  case 4:
    w = lctx_outcome_begin(o, LCTX_OUTCOME_PLATFORMS);
    break;
  default:
    w = lctx_outcome_begin_raise(
        o, (lctx_error_class)(LCTX_ERROR_RUNTIME + case_gen_below(g, 5)));
    break;
  }
  case_gen_text(g, &w, flags);
  lctx_outcome_end(o, &w);
}

/// A count in [0, max], sometimes exactly max.
static inline size_t case_gen_count(case_gen *g, size_t max) {
  return case_gen_chance(g, 8) ? max
                               : (size_t)case_gen_below(g, (uint32_t)max + 1);
}

/// A primitive name: usually one of "P", "Q", "R", "S" (so that rules
/// meet), sometimes any name.
static inline void case_gen_primitive(case_gen *g, char *dst) {
  static const char *const primitives[] = {"P", "Q", "R", "S"};
  if (case_gen_chance(g, 85)) {
    strcpy(dst, primitives[case_gen_below(g, 4)]);
    return;
  }
  case_gen_name(g, dst, LCTX_MAX_NAME);
}

/// A factory name: any name.
static inline void case_gen_factory_name(case_gen *g, char *dst) {
  case_gen_name(g, dst, LCTX_MAX_NAME);
}

/// Draws names into `name` with `draw`, at most 20 times, until one differs
/// from the name at the start of each of the `count` records `stride` bytes
/// apart from `records`; false when none did.
static inline bool case_gen_new_name(case_gen *g,
                                     void (*draw)(case_gen *, char *),
                                     char *name, const void *records,
                                     size_t stride, size_t count) {
  for (int attempt = 0; attempt < 20; attempt++) {
    draw(g, name);
    bool unique = true;
    for (size_t j = 0; j < count && unique; j++)
      unique = strcmp((const char *)records + j * stride, name) != 0;
    if (unique)
      return true;
  }
  return false;
}

/// A compute type: a JAX one or any name.
static inline void case_gen_compute_type(case_gen *g, char *dst) {
  static const char *const types[] = {"device_host", "device",
                                      "tpu_sparsecore"};
  if (case_gen_chance(g, 60)) {
    strcpy(dst, types[case_gen_below(g, 3)]);
    return;
  }
  case_gen_name(g, dst, LCTX_MAX_NAME);
}

/// A rule name (never empty): "P.cpu"-like, "r0".."r7", or any name.
static inline void case_gen_rule_name(case_gen *g, char *dst) {
  static const char *const names[] = {"P.cpu",     "P.cuda", "P.rocm", "P.tpu",
                                      "P.default", "Q.cpu",  "Q.gpu",  "R.cpu",
                                      "S.default", "r0",     "r1",     "r2"};
  if (case_gen_chance(g, 70)) {
    strcpy(dst, names[case_gen_below(g, 12)]);
    return;
  }
  case_gen_name(g, dst, LCTX_MAX_NAME);
  if (dst[0] == '\0')
    strcpy(dst, "r");
}

/// One action of any kind, with only the fields its kind uses set.
static inline void case_gen_action(case_gen *g, lctx_case_action *a) {
  memset(a, 0, sizeof *a);
  /* lower_fun and the get_backend kinds more often than the rest. */
  static const lctx_lowering_action_kind kinds[] = {
      LCTX_ACTION_GET_BACKEND,         LCTX_ACTION_GET_BACKEND,
      LCTX_ACTION_GUARDED_GET_BACKEND, LCTX_ACTION_TRY_FALLBACK_GET_BACKEND,
      LCTX_ACTION_RAISE_IF_MULTI,      LCTX_ACTION_READ_CLIENT_PLATFORM,
      LCTX_ACTION_LOWER_FUN,           LCTX_ACTION_LOWER_FUN,
      LCTX_ACTION_EMIT_MARKER,
  };
  a->kind = kinds[case_gen_below(g, sizeof kinds / sizeof kinds[0])];
  switch (a->kind) {
  case LCTX_ACTION_GET_BACKEND:
  case LCTX_ACTION_GUARDED_GET_BACKEND:
    a->optional = case_gen_chance(g, 50);
    break;
  case LCTX_ACTION_RAISE_IF_MULTI:
    case_gen_name(g, a->text, LCTX_MAX_NAME);
    break;
  case LCTX_ACTION_LOWER_FUN:
    case_gen_primitive(g, a->text);
    a->has_compute_type = case_gen_chance(g, 30);
    if (a->has_compute_type)
      case_gen_compute_type(g, a->compute_type);
    break;
  case LCTX_ACTION_TRY_FALLBACK_GET_BACKEND:
  case LCTX_ACTION_READ_CLIENT_PLATFORM:
  case LCTX_ACTION_EMIT_MARKER:
    break;
  }
}

/// True when `c` passes lctx_case_validate.
static inline bool case_gen_valid(const lctx_case *c) {
  char storage[256];
  lctx_buf e;
  lctx_buf_init(&e, storage, sizeof storage);
  return lctx_case_validate(c, &e);
}

/// Up to LCTX_CASE_MAX_RULES rules with unique names; lower_fun actions
/// that would break lctx_case_validate (too many primitive names) become
/// markers, the last first.
static inline void case_gen_rules(case_gen *g, lctx_case *c) {
  size_t rules = case_gen_chance(g, 40) ? 0
                 : case_gen_chance(g, 10)
                     ? LCTX_CASE_MAX_RULES
                     : 1 + case_gen_below(g, LCTX_CASE_MAX_RULES);
  for (size_t i = 0; i < rules; i++) {
    lctx_case_rule *r = &c->rules[c->rule_count];
    memset(r, 0, sizeof *r);
    if (!case_gen_new_name(g, case_gen_rule_name, r->name, c->rules,
                           sizeof c->rules[0], c->rule_count)) {
      memset(r, 0, sizeof *r);
      continue;
    }
    r->action_count = case_gen_count(g, LCTX_CASE_MAX_ACTIONS);
    for (size_t k = 0; k < r->action_count; k++)
      case_gen_action(g, &r->actions[k]);
    c->rule_count++;
  }
  for (size_t i = c->rule_count; i-- > 0 && !case_gen_valid(c);) {
    for (size_t k = c->rules[i].action_count; k-- > 0 && !case_gen_valid(c);) {
      lctx_case_action *a = &c->rules[i].actions[k];
      if (a->kind == LCTX_ACTION_LOWER_FUN) {
        memset(a, 0, sizeof *a);
        a->kind = LCTX_ACTION_EMIT_MARKER;
      }
    }
  }
}

/// A list of 0 to LCTX_MAX_MODULE_PLATFORMS names, usually short, interned
/// in `c` (a name past its full table is drawn and left out).
static inline size_t case_gen_platform_list(case_gen *g, lctx_case *c,
                                            uint8_t *dst) {
  size_t n = case_gen_chance(g, 80)
                 ? case_gen_below(g, 4)
                 : case_gen_count(g, LCTX_MAX_MODULE_PLATFORMS);
  size_t kept = 0;
  for (size_t k = 0; k < n; k++) {
    char name[LCTX_MAX_NAME + 1] = {0};
    case_gen_name(g, name, LCTX_MAX_NAME);
    kept += lctx_case_intern_cstr(c, name, &dst[kept]);
  }
  return kept;
}

/// One operation (index `i` of `c`) of any kind the case allows; a
/// lowering operation that would break lctx_case_validate loses its
/// override, its narrow list, then platforms, and is replaced by `backends`
/// if that is not enough.
static inline void case_gen_op(case_gen *g, lctx_case *c, size_t i) {
  lctx_case_op *op = &c->ops[i];
  memset(op, 0, sizeof *op);
  op->kind = (lctx_op_kind)case_gen_below(g, LCTX_OP_KIND_COUNT);
  if (op->kind == LCTX_OP_REGISTER_LOWERING && c->rule_count == 0)
    op->kind = LCTX_OP_LOWER_PER_PLATFORM;
  switch (op->kind) {
  case LCTX_OP_BACKENDS:
    break;
  case LCTX_OP_CANONICALIZE:
    op->has_arg = true;
    case_gen_name(g, op->arg, LCTX_MAX_NAME);
    break;
  case LCTX_OP_XLA_GET_BACKEND:
    op->has_arg = case_gen_chance(g, 70);
    if (op->has_arg)
      case_gen_name(g, op->arg, LCTX_MAX_NAME);
    break;
  case LCTX_OP_MODULE_GET_BACKEND:
    op->platform_count = case_gen_platform_list(g, c, op->platform);
    op->has_backend = case_gen_chance(g, 50);
    if (op->has_backend)
      case_gen_name(g, op->backend, LCTX_MAX_NAME);
    op->optional = case_gen_chance(g, 50);
    break;
  case LCTX_OP_REGISTER_LOWERING:
    case_gen_primitive(g, op->primitive);
    strcpy(op->rule, c->rules[case_gen_below(g, (uint32_t)c->rule_count)].name);
    op->has_arg = case_gen_chance(g, 80);
    if (op->has_arg)
      case_gen_name(g, op->arg, LCTX_MAX_NAME);
    break;
  case LCTX_OP_LOWER_PER_PLATFORM:
    case_gen_primitive(g, op->primitive);
    op->platform_count = case_gen_platform_list(g, c, op->platform);
    op->has_backend = case_gen_chance(g, 40);
    if (op->has_backend)
      case_gen_name(g, op->backend, LCTX_MAX_NAME);
    op->has_narrow = case_gen_chance(g, 25);
    if (op->has_narrow)
      op->narrow_count = case_gen_platform_list(g, c, op->narrowed);
    op->has_compute_type = case_gen_chance(g, 25);
    if (op->has_compute_type)
      case_gen_compute_type(g, op->compute_type);
    op->has_override = c->rule_count > 0 && case_gen_chance(g, 25);
    if (op->has_override)
      strcpy(op->override,
             c->rules[case_gen_below(g, (uint32_t)c->rule_count)].name);
    op->x64 = case_gen_chance(g, 30);
    break;
  }
  size_t saved = c->op_count;
  c->op_count = i + 1;
  if (op->kind == LCTX_OP_LOWER_PER_PLATFORM && !case_gen_valid(c)) {
    op->has_override = false;
    memset(op->override, 0, sizeof op->override);
    if (!case_gen_valid(c)) {
      op->has_narrow = false;
      op->narrow_count = 0;
      memset(op->narrowed, 0, sizeof op->narrowed);
    }
    while (op->platform_count > 0 && !case_gen_valid(c)) {
      op->platform_count--;
      op->platform[op->platform_count] = 0;
    }
  }
  if (!case_gen_valid(c)) {
    memset(op, 0, sizeof *op);
    op->kind = LCTX_OP_BACKENDS;
  }
  c->op_count = saved;
}

/// A valid case (see the header comment); `flags` from CASE_GEN_*.
static inline void case_gen_case(case_gen *g, lctx_case *c, lctx_case_expect *e,
                                 unsigned flags) {
  lctx_case_init(c);
  size_t factories = case_gen_count(g, LCTX_MAX_FACTORIES);
  for (size_t i = 0; i < factories; i++) {
    lctx_case_factory *f = &c->factories[c->factory_count];
    if (!case_gen_new_name(g, case_gen_factory_name, f->name, c->factories,
                           sizeof c->factories[0], c->factory_count)) {
      memset(f, 0, sizeof *f);
      continue;
    }
    f->priority = case_gen_priority(g);
    f->fail_quietly = case_gen_chance(g, 50);
    f->behaviour = (lctx_factory_behaviour)case_gen_below(g, 4);
    if (f->behaviour == LCTX_FACTORY_RAISES)
      case_gen_name(g, f->message, LCTX_MAX_MESSAGE);
    c->factory_count++;
  }
  if (case_gen_chance(g, 40))
    case_gen_platforms_config(g, c->jax_platforms, LCTX_MAX_PLATFORMS_CONFIG);
  else if (case_gen_chance(g, 10))
    case_gen_name(g, c->jax_platforms, LCTX_MAX_PLATFORMS_CONFIG);
  if (case_gen_chance(g, 30))
    case_gen_name(g, c->jax_platform_name, LCTX_MAX_NAME);
  if (case_gen_chance(g, 30))
    case_gen_name(g, c->jax_xla_backend, LCTX_MAX_NAME);
  c->nvidia_gpu_visible = case_gen_chance(g, 50);
  case_gen_rules(g, c);
  size_t ops = case_gen_count(g, LCTX_CASE_MAX_OPS);
  for (size_t i = 0; i < ops; i++) {
    case_gen_op(g, c, i);
    c->op_count = i + 1;
    if (e && (flags & CASE_GEN_EXPECT) && case_gen_below(g, 3) != 0) {
      static lctx_outcome o;
      case_gen_outcome(g, &o, flags);
      /* None when the texts would pass what a case holds together. */
      (void)lctx_case_expect_set(e, i, &o);
    }
  }
}

/// True when `c` keeps the invariants of case.h that lctx_case_validate does
/// not check: fields unused by an operation's or an action's kind are zero
/// (all bytes of the unused arrays), canonicalize has `has_arg`, only a
/// raising factory has a message, and no expectation is set past op_count.
static inline bool case_gen_is_normal(const lctx_case *c) {
  static const lctx_case_op zero_op;
  static const lctx_case_action zero_action;
#define CASE_GEN_ZERO(a, field)                                                \
  (memcmp((a)->field, zero_op.field, sizeof zero_op.field) == 0)
  for (size_t i = 0; i < c->factory_count; i++) {
    if (c->factories[i].behaviour != LCTX_FACTORY_RAISES &&
        c->factories[i].message[0])
      return false;
  }
  for (size_t i = 0; i < c->rule_count; i++) {
    for (size_t k = 0; k < c->rules[i].action_count; k++) {
      const lctx_case_action *a = &c->rules[i].actions[k];
      bool get = a->kind == LCTX_ACTION_GET_BACKEND ||
                 a->kind == LCTX_ACTION_GUARDED_GET_BACKEND;
      bool lower = a->kind == LCTX_ACTION_LOWER_FUN;
      bool text = lower || a->kind == LCTX_ACTION_RAISE_IF_MULTI;
      if ((!get && a->optional) ||
          (!text && memcmp(a->text, zero_action.text, sizeof a->text) != 0) ||
          (!lower && a->has_compute_type) ||
          (!a->has_compute_type &&
           memcmp(a->compute_type, zero_action.compute_type,
                  sizeof a->compute_type) != 0))
        return false;
    }
  }
  for (size_t i = 0; i < c->op_count; i++) {
    const lctx_case_op *op = &c->ops[i];
    bool module = op->kind == LCTX_OP_MODULE_GET_BACKEND;
    bool lower = op->kind == LCTX_OP_LOWER_PER_PLATFORM;
    bool reg = op->kind == LCTX_OP_REGISTER_LOWERING;
    bool uses_arg = op->kind == LCTX_OP_CANONICALIZE ||
                    op->kind == LCTX_OP_XLA_GET_BACKEND || reg;
    if (op->kind == LCTX_OP_CANONICALIZE && !op->has_arg)
      return false;
    if (!uses_arg && (op->has_arg || !CASE_GEN_ZERO(op, arg)))
      return false;
    if (uses_arg && !op->has_arg && !CASE_GEN_ZERO(op, arg))
      return false;
    if (!module && !lower &&
        (op->platform_count || op->has_backend ||
         !CASE_GEN_ZERO(op, platform) || !CASE_GEN_ZERO(op, backend)))
      return false;
    if ((module || lower) && !op->has_backend && !CASE_GEN_ZERO(op, backend))
      return false;
    if (!module && op->optional)
      return false;
    if (!reg && !lower && !CASE_GEN_ZERO(op, primitive))
      return false;
    if (!reg && !CASE_GEN_ZERO(op, rule))
      return false;
    if (!lower &&
        (op->has_narrow || op->has_compute_type || op->has_override || op->x64))
      return false;
    if (!op->has_narrow && (op->narrow_count || !CASE_GEN_ZERO(op, narrowed)))
      return false;
    if (!op->has_compute_type && !CASE_GEN_ZERO(op, compute_type))
      return false;
    if (!op->has_override && !CASE_GEN_ZERO(op, override))
      return false;
  }
#undef CASE_GEN_ZERO
  return true;
}

/// True when `c` passes lctx_case_validate and keeps the invariants
/// (case_gen_is_normal), as every generated case does; otherwise writes why
/// to `why` (`cap` bytes).
static inline bool case_gen_is_valid(const lctx_case *c, char *why,
                                     size_t cap) {
  lctx_buf e;
  lctx_buf_init(&e, why, cap);
  if (!lctx_case_validate(c, &e))
    return false;
  if (!case_gen_is_normal(c)) {
    lctx_buf_append_cstr(&e, "a field its kind does not use is set");
    return false;
  }
  return true;
}

/// Parses a case written in the text form without its `lctx-case 1` header
/// line (`body` is what follows it), as tests write cases by hand. On
/// failure writes the parser's message to `error` (`cap` bytes).
static inline bool case_gen_parse_body(const char *body, lctx_case *out,
                                       lctx_case_expect *expect, char *error,
                                       size_t cap) {
  static const char header[] = "lctx-case 1\n";
  size_t n = strlen(body);
  char *text = malloc(sizeof header + n);
  if (!text)
    return false;
  memcpy(text, header, sizeof header - 1);
  memcpy(text + sizeof header - 1, body, n + 1);
  lctx_buf e;
  lctx_buf_init(&e, error, cap);
  bool ok =
      lctx_case_parse(text, sizeof header - 1 + n, "t.case", out, expect, &e);
  free(text);
  return ok;
}

#endif /* LCTX_TESTS_CASE_GEN_H */
