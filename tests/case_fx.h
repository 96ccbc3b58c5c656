/*
 * tests/case_fx.h - pieces of hand-written case texts that the tests of the
 * case forms (text, JSON, bytes) share, and the check of their round
 * trips.
 *
 * Include it after <cmocka.h>.
 */
#ifndef LCTX_TESTS_CASE_FX_H
#define LCTX_TESTS_CASE_FX_H

#include <stdbool.h>
#include <stdlib.h>

#include "case_text.h"

/// A visible NVIDIA GPU, then backends() (expecting cpu and tpu),
/// canonicalize("gpu"), get_backend(None) and get_backend("cpu").
#define CASE_FX_STOCK_OPS                                                      \
  "nvidia_gpu visible\n"                                                       \
  "op backends\n"                                                              \
  "expect platforms \"['cpu', 'tpu']\"\n"                                      \
  "op canonicalize \"gpu\"\n"                                                  \
  "op get_backend None\n"                                                      \
  "op get_backend \"cpu\"\n"

/// A default rule and a rule registered for "oneapi" for primitive A, then
/// lower_per_platform of A for (cpu, oneapi): the modelled commit keeps both
/// rules (one dispatch), releases that refuse oneapi keep one.
#define CASE_FX_ONEAPI_KEPT_RULE                                               \
  "lctx-case 1\nfactory \"cpu\" priority=0 loud client\n"                      \
  "rule \"A.def\" marker\nrule \"A.one\" marker\n"                             \
  "op register_lowering primitive=\"A\" rule=\"A.def\" platform=None\n"        \
  "op register_lowering primitive=\"A\" rule=\"A.one\" "                       \
  "platform=\"oneapi\"\n"                                                      \
  "op lower_per_platform primitive=\"A\" platforms=[\"cpu\", "                 \
  "\"oneapi\"] backend=None\n"

/// Fails unless `b`, what the round trip `trip` made of `a` in round
/// `round`, equals `a`, and (when both are given) expectations `eb` equal
/// `ea`; prints the text of `a` on a mismatch.
static inline void case_fx_assert_round_trip(const lctx_case *a,
                                             const lctx_case *b,
                                             const lctx_case_expect *ea,
                                             const lctx_case_expect *eb,
                                             int round, const char *trip) {
  if (lctx_case_equal(a, b) &&
      (!ea || !eb || lctx_case_expect_equal(ea, eb, a->op_count)))
    return;
  char *text = malloc(LCTX_CASE_TEXT_MAX);
  lctx_buf t;
  lctx_buf_init(&t, text, text ? LCTX_CASE_TEXT_MAX : 0);
  lctx_case_print(a, ea, &t);
  print_error("round %d: %s != c for\n%s", round, trip, text ? text : "");
  free(text);
  fail();
}

/// The expectation of operation `i` of `e`, copied out (valid until the
/// next call); fails when it has none.
static inline const lctx_outcome *case_fx_expect(const lctx_case_expect *e,
                                                 size_t i) {
  static lctx_outcome o;
  if (!lctx_case_expect_get(e, i, &o))
    fail_msg("operation %zu has no expectation", i);
  return &o;
}

/// Fails unless the `n` bytes at `x` are the `m` bytes at `y`.
#define case_fx_assert_same_bytes(x, n, y, m)                                  \
  do {                                                                         \
    assert_int_equal((n), (m));                                                \
    assert_memory_equal((x), (y), (n));                                        \
  } while (0)

#endif // LCTX_TESTS_CASE_FX_H
