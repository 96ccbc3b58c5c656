/*
 * case_pack.c - the packed form of a case (see case_pack.h).
 */
#include "case_pack.h"

#include <string.h>

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

/* The operation is copied whole: its platform lists are indexes into the
 * case's names, no larger than their arrays. */
_Static_assert(sizeof(((lctx_case_op *)0)->platform) ==
                       LCTX_MAX_MODULE_PLATFORMS &&
                   sizeof(((lctx_case_op *)0)->narrowed) ==
                       LCTX_MAX_MODULE_PLATFORMS,
               "platform lists are LCTX_MAX_MODULE_PLATFORMS indexes");

/* The case: the counts and their arrays, and the configuration from
 * `jax_platforms` to `rule_count` as one part; the names last. */
NEXT(lctx_case, factory_count, factories, lctx_case_factory);
NEXT(lctx_case, factories, jax_platforms, char);
NEXT(lctx_case, jax_platforms, jax_platform_name, char);
NEXT(lctx_case, jax_platform_name, jax_xla_backend, char);
NEXT(lctx_case, jax_xla_backend, nvidia_gpu_visible, bool);
NEXT(lctx_case, nvidia_gpu_visible, rule_count, size_t);
NEXT(lctx_case, rule_count, rules, lctx_case_rule);
NEXT(lctx_case, rules, op_count, size_t);
NEXT(lctx_case, op_count, ops, lctx_case_op);
NEXT(lctx_case, ops, name_count, size_t);
NEXT(lctx_case, name_count, names, char);
_Static_assert(sizeof(lctx_case) ==
                   ALIGN_UP(offsetof(lctx_case, names) +
                                sizeof(((lctx_case *)0)->names),
                            _Alignof(lctx_case)),
               "lctx_case.names is its last field");
_Static_assert(sizeof(((lctx_case *)0)->factory_count) == sizeof(size_t) &&
                   sizeof(((lctx_case *)0)->rule_count) == sizeof(size_t) &&
                   sizeof(((lctx_case *)0)->op_count) == sizeof(size_t) &&
                   sizeof(((lctx_case *)0)->name_count) == sizeof(size_t),
               "the counts are size_t, packed as they are");
_Static_assert(
    sizeof(size_t) + LCTX_MAX_FACTORIES * sizeof(lctx_case_factory) +
            (offsetof(lctx_case, rule_count) -
             offsetof(lctx_case, jax_platforms)) +
            sizeof(size_t) + LCTX_CASE_MAX_RULES * sizeof(lctx_case_rule) +
            sizeof(size_t) + LCTX_CASE_MAX_OPS * sizeof(lctx_case_op) +
            sizeof(size_t) + LCTX_CASE_MAX_NAMES * (LCTX_MAX_NAME + 1) <=
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

//===----------------------------------------------------------------------===//
// The case
//===----------------------------------------------------------------------===//

size_t lctx_case_pack(const lctx_case *c, uint8_t *out) {
  size_t nf = c->factory_count < LCTX_MAX_FACTORIES ? c->factory_count
                                                    : LCTX_MAX_FACTORIES;
  size_t nr =
      c->rule_count < LCTX_CASE_MAX_RULES ? c->rule_count : LCTX_CASE_MAX_RULES;
  size_t no = c->op_count < LCTX_CASE_MAX_OPS ? c->op_count : LCTX_CASE_MAX_OPS;
  size_t nn =
      c->name_count < LCTX_CASE_MAX_NAMES ? c->name_count : LCTX_CASE_MAX_NAMES;
  size_t from = offsetof(lctx_case, jax_platforms);
  size_t at = 0;
  put_part(out, &at, &nf, sizeof nf);
  put_part(out, &at, c->factories, nf * sizeof c->factories[0]);
  put_part(out, &at, (const uint8_t *)c + from,
           offsetof(lctx_case, rule_count) - from);
  put_part(out, &at, &nr, sizeof nr);
  put_part(out, &at, c->rules, nr * sizeof c->rules[0]);
  put_part(out, &at, &no, sizeof no);
  put_part(out, &at, c->ops, no * sizeof c->ops[0]);
  put_part(out, &at, &nn, sizeof nn);
  put_part(out, &at, c->names, nn * sizeof c->names[0]);
  return at;
}

/* Reads a count of at most `max` entries of `each` bytes at `*at`, and the
 * entries into `dst`; false when they are not in the `n` bytes. */
static bool unpack_part(const uint8_t *p, size_t n, size_t *at, size_t max,
                        size_t each, size_t *count, void *dst) {
  return get_part(p, n, at, count, sizeof *count) && *count <= max &&
         get_part(p, n, at, dst, *count * each);
}

/* Whether every operation's platform lists are within their arrays and
 * name held names. */
static bool ops_in_range(const lctx_case *c) {
  for (size_t i = 0; i < c->op_count; i++) {
    const lctx_case_op *op = &c->ops[i];
    if (op->platform_count > LCTX_MAX_MODULE_PLATFORMS ||
        op->narrow_count > LCTX_MAX_MODULE_PLATFORMS)
      return false;
    for (size_t k = 0; k < op->platform_count; k++)
      if (op->platform[k] >= c->name_count)
        return false;
    for (size_t k = 0; k < op->narrow_count; k++)
      if (op->narrowed[k] >= c->name_count)
        return false;
  }
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
         unpack_part(p, n, &at, LCTX_CASE_MAX_OPS, sizeof c->ops[0],
                     &c->op_count, c->ops) &&
         unpack_part(p, n, &at, LCTX_CASE_MAX_NAMES, sizeof c->names[0],
                     &c->name_count, c->names) &&
         at == n && ops_in_range(c);
}
