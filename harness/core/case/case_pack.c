/*
 * case_pack.c - the packed form of a case (see case_pack.h).
 */
#include "case_pack.h"

#include <string.h>

/* The parts of an operation: before its platforms, its platform names up to
 * its count, between, its narrowed platform names up to their count, and
 * after (lctx_case_op_copy's parts). */
#define OP_PLATFORMS offsetof(lctx_case_op, platforms)
#define OP_MIDDLE offsetof(lctx_case_op, has_backend)
#define OP_NARROW offsetof(lctx_case_op, narrow)
#define OP_TAIL offsetof(lctx_case_op, has_compute_type)
#define OP_NAME sizeof(((lctx_case_op *)0)->platforms[0])

//===----------------------------------------------------------------------===//
// What the copies rely on
//===----------------------------------------------------------------------===//

/* `n` rounded up to a multiple of `a`. */
#define ALIGN_UP(n, a) (((n) + (a)-1) / (a) * (a))
/* Field `b` of T (of type `bt`) follows field `a` with nothing between
 * them but the padding `bt` needs. */
#define NEXT(T, a, b, bt)                                                      \
  _Static_assert(                                                              \
      offsetof(T, b) ==                                                        \
          ALIGN_UP(offsetof(T, a) + sizeof(((T *)0)->a), _Alignof(bt)),        \
      #T "." #b " follows " #T "." #a " (case_pack.c copies "                  \
         "the fields between them as one part)")

/* The operation, field after field: the first part runs from `kind` to
 * `platforms`, the middle from `has_backend` to `narrow`, the tail from
 * `has_compute_type` to the end. A field added or moved anywhere fails
 * one of these. */
NEXT(lctx_case_op, kind, has_arg, bool);
NEXT(lctx_case_op, has_arg, arg, char);
NEXT(lctx_case_op, arg, platform_count, size_t);
NEXT(lctx_case_op, platform_count, platforms, char);
NEXT(lctx_case_op, platforms, has_backend, bool);
NEXT(lctx_case_op, has_backend, backend, char);
NEXT(lctx_case_op, backend, optional, bool);
NEXT(lctx_case_op, optional, primitive, char);
NEXT(lctx_case_op, primitive, rule, char);
NEXT(lctx_case_op, rule, has_narrow, bool);
NEXT(lctx_case_op, has_narrow, narrow_count, size_t);
NEXT(lctx_case_op, narrow_count, narrow, char);
NEXT(lctx_case_op, narrow, has_compute_type, bool);
NEXT(lctx_case_op, has_compute_type, compute_type, char);
NEXT(lctx_case_op, compute_type, has_override, bool);
NEXT(lctx_case_op, has_override, override, char);
NEXT(lctx_case_op, override, x64, bool);
_Static_assert(sizeof(lctx_case_op) ==
                   ALIGN_UP(offsetof(lctx_case_op, x64) + sizeof(bool),
                            _Alignof(lctx_case_op)),
               "lctx_case_op.x64 is its last field (the tail part)");
_Static_assert(sizeof(((lctx_case_op *)0)->platforms) ==
                       LCTX_MAX_MODULE_PLATFORMS * OP_NAME &&
                   sizeof(((lctx_case_op *)0)->narrow) ==
                       LCTX_MAX_MODULE_PLATFORMS * OP_NAME,
               "platform lists are LCTX_MAX_MODULE_PLATFORMS names");

/* The case: the counts and their arrays, and the configuration from
 * `jax_platforms` to `rule_count` as one part. */
NEXT(lctx_case, factory_count, factories, lctx_case_factory);
NEXT(lctx_case, factories, jax_platforms, char);
NEXT(lctx_case, jax_platforms, jax_platform_name, char);
NEXT(lctx_case, jax_platform_name, jax_xla_backend, char);
NEXT(lctx_case, jax_xla_backend, nvidia_gpu_visible, bool);
NEXT(lctx_case, nvidia_gpu_visible, rule_count, size_t);
NEXT(lctx_case, rule_count, rules, lctx_case_rule);
NEXT(lctx_case, rules, op_count, size_t);
NEXT(lctx_case, op_count, ops, lctx_case_op);
_Static_assert(sizeof(lctx_case) == ALIGN_UP(offsetof(lctx_case, ops) +
                                                 sizeof(((lctx_case *)0)->ops),
                                             _Alignof(lctx_case)),
               "lctx_case.ops is its last field");
_Static_assert(sizeof(((lctx_case *)0)->factory_count) == sizeof(size_t) &&
                   sizeof(((lctx_case *)0)->rule_count) == sizeof(size_t) &&
                   sizeof(((lctx_case *)0)->op_count) == sizeof(size_t),
               "the counts are size_t, packed as they are");
_Static_assert(sizeof(size_t) + LCTX_MAX_FACTORIES * sizeof(lctx_case_factory) +
                       (offsetof(lctx_case, rule_count) -
                        offsetof(lctx_case, jax_platforms)) +
                       sizeof(size_t) +
                       LCTX_CASE_MAX_RULES * sizeof(lctx_case_rule) +
                       sizeof(size_t) +
                       LCTX_CASE_MAX_OPS * sizeof(lctx_case_op) <=
                   LCTX_CASE_PACKED_MAX,
               "LCTX_CASE_PACKED_MAX holds the largest packed case");

//===----------------------------------------------------------------------===//
// Parts
//===----------------------------------------------------------------------===//

/* Appends `n` bytes at `p` at `out + *at`. */
static void put_part(uint8_t *out, size_t *at, const void *p, size_t n) {
  memcpy(out + *at, p, n);
  *at += n;
}

/* Reads `n` bytes at `*at` of the `size` bytes at `in` into `dst`; false
 * when they are not all there. */
static bool get_part(const uint8_t *in, size_t size, size_t *at, void *dst,
                     size_t n) {
  if (size - *at < n)
    return false;
  memcpy(dst, in + *at, n);
  *at += n;
  return true;
}

/* Appends operation `op` part by part, leaving out the names past its
 * counts. */
static void pack_op(const lctx_case_op *op, uint8_t *out, size_t *at) {
  size_t max = LCTX_MAX_MODULE_PLATFORMS;
  size_t pc = op->platform_count < max ? op->platform_count : max;
  size_t nc = op->narrow_count < max ? op->narrow_count : max;
  const uint8_t *p = (const uint8_t *)op;
  /* The names follow the part before them: one copy for the two. */
  put_part(out, at, p, OP_PLATFORMS + pc * OP_NAME);
  put_part(out, at, p + OP_MIDDLE, OP_NARROW - OP_MIDDLE + nc * OP_NAME);
  put_part(out, at, p + OP_TAIL, sizeof *op - OP_TAIL);
}

/* Undoes pack_op() into `op`, whose names past its counts keep what they
 * held; false when the bytes are not what it writes. */
static bool unpack_op(const uint8_t *in, size_t n, size_t *at,
                      lctx_case_op *op) {
  uint8_t *p = (uint8_t *)op;
  size_t max = LCTX_MAX_MODULE_PLATFORMS;
  return get_part(in, n, at, p, OP_PLATFORMS) && op->platform_count <= max &&
         get_part(in, n, at, p + OP_PLATFORMS, op->platform_count * OP_NAME) &&
         get_part(in, n, at, p + OP_MIDDLE, OP_NARROW - OP_MIDDLE) &&
         op->narrow_count <= max &&
         get_part(in, n, at, p + OP_NARROW, op->narrow_count * OP_NAME) &&
         get_part(in, n, at, p + OP_TAIL, sizeof *op - OP_TAIL);
}

//===----------------------------------------------------------------------===//
// The case
//===----------------------------------------------------------------------===//

size_t lctx_case_pack(const lctx_case *c, uint8_t *out) {
  size_t nf = c->factory_count < LCTX_MAX_FACTORIES ? c->factory_count
                                                    : LCTX_MAX_FACTORIES;
  size_t nr =
      c->rule_count < LCTX_CASE_MAX_RULES ? c->rule_count : LCTX_CASE_MAX_RULES;
  size_t no = c->op_count < LCTX_CASE_MAX_OPS ? c->op_count : LCTX_CASE_MAX_OPS;
  size_t from = offsetof(lctx_case, jax_platforms);
  size_t at = 0;
  put_part(out, &at, &nf, sizeof nf);
  put_part(out, &at, c->factories, nf * sizeof c->factories[0]);
  put_part(out, &at, (const uint8_t *)c + from,
           offsetof(lctx_case, rule_count) - from);
  put_part(out, &at, &nr, sizeof nr);
  put_part(out, &at, c->rules, nr * sizeof c->rules[0]);
  put_part(out, &at, &no, sizeof no);
  for (size_t i = 0; i < no; i++)
    pack_op(&c->ops[i], out, &at);
  return at;
}

/* Reads a count of at most `max` entries of `each` bytes at `*at`, and the
 * entries into `dst`; false when they are not in the `n` bytes. */
static bool unpack_part(const uint8_t *p, size_t n, size_t *at, size_t max,
                        size_t each, size_t *count, void *dst) {
  return get_part(p, n, at, count, sizeof *count) && *count <= max &&
         get_part(p, n, at, dst, *count * each);
}

/* Reads the operation count at `*at` and the operations of pack_op. */
static bool unpack_ops(const uint8_t *p, size_t n, size_t *at, lctx_case *c) {
  if (!get_part(p, n, at, &c->op_count, sizeof c->op_count) ||
      c->op_count > LCTX_CASE_MAX_OPS)
    return false;
  for (size_t i = 0; i < c->op_count; i++)
    if (!unpack_op(p, n, at, &c->ops[i]))
      return false;
  return true;
}

bool lctx_case_unpack(const uint8_t *p, size_t n, lctx_case *c) {
  size_t at = 0;
  size_t from = offsetof(lctx_case, jax_platforms);
  return unpack_part(p, n, &at, LCTX_MAX_FACTORIES, sizeof c->factories[0],
                     &c->factory_count, c->factories) &&
         get_part(p, n, &at, (uint8_t *)c + from,
                  offsetof(lctx_case, rule_count) - from) &&
         unpack_part(p, n, &at, LCTX_CASE_MAX_RULES, sizeof c->rules[0],
                     &c->rule_count, c->rules) &&
         unpack_ops(p, n, &at, c) && at == n;
}
