/*
 * tests/test_case_bytes.c - pins the byte form of a case
 * (harness/core/case/case_bytes.h): the fuzzers' input format.
 *
 * - Properties over generated cases (tests/case_gen.h, fixed seeds):
 *   decode(encode(c)) == c, and encoding is a fixed point of
 *   decode-then-encode.
 * - Totality: random byte strings of 0 to 512 bytes always decode to a case
 *   that passes lctx_case_validate and keeps case.h's invariants;
 *   decoding is deterministic (the same bytes give the same struct, byte for
 *   byte) and linear (it never reads past LCTX_CASE_BYTES_MAX).
 * - Locality, the prefix property: changing the byte at offset p leaves
 *   every factory, the configuration, every rule and every operation that
 *   ended at or before p unchanged.
 * The layout itself is pinned in test_case_bytes_layout.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <stdlib.h>

#include "case_bytes.h"
#include "case_fx.h"
#include "case_gen.h"
#include "case_text.h"
#include "test_support.h"

#define ROUNDS 20000

static lctx_case g_a, g_b, g_c;
static uint8_t g_bytes[LCTX_CASE_BYTES_MAX];
static uint8_t g_bytes2[LCTX_CASE_BYTES_MAX];

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static void assert_valid(const lctx_case *c) {
  char why[512];
  if (!case_gen_is_valid(c, why, sizeof why))
    fail_msg("invalid case: %s", why);
}

/// Decodes from an exact-size heap copy, so ASan sees any over-read.
static void decode_exact(const uint8_t *data, size_t n, lctx_case *out,
                         lctx_case_byte_spans *spans) {
  uint8_t *copy = malloc(n ? n : 1);
  assert_non_null(copy);
  if (n)
    memcpy(copy, data, n);
  lctx_case_decode_spans(copy, n, out, spans);
  free(copy);
}

static bool factory_equal(const lctx_case_factory *a,
                          const lctx_case_factory *b) {
  return strcmp(a->name, b->name) == 0 && a->priority == b->priority &&
         a->fail_quietly == b->fail_quietly && a->behaviour == b->behaviour &&
         strcmp(a->message, b->message) == 0;
}

/// Compares operation i (or, with `rule`, rule i) of two cases through
/// cases holding only that item.
static bool item_equal(const lctx_case *a, const lctx_case *b, size_t i,
                       bool rule) {
  static lctx_case x, y;
  lctx_case_init(&x);
  lctx_case_init(&y);
  if (rule) {
    x.rule_count = y.rule_count = 1;
    x.rules[0] = a->rules[i];
    y.rules[0] = b->rules[i];
  } else {
    x.op_count = y.op_count = 1;
    x.ops[0] = a->ops[i];
    y.ops[0] = b->ops[i];
  }
  return lctx_case_equal(&x, &y);
}

static bool config_equal(const lctx_case *a, const lctx_case *b) {
  return strcmp(a->jax_platforms, b->jax_platforms) == 0 &&
         strcmp(a->jax_platform_name, b->jax_platform_name) == 0 &&
         strcmp(a->jax_xla_backend, b->jax_xla_backend) == 0 &&
         a->nvidia_gpu_visible == b->nvidia_gpu_visible;
}

//===----------------------------------------------------------------------===//
// Properties
//===----------------------------------------------------------------------===//

static void test_decode_encode_round_trip_generated(void **state) {
  (void)state;
  case_gen g;
  case_gen_seed(&g, 0xb7e5);
  for (int round = 0; round < ROUNDS; round++) {
    case_gen_case(&g, &g_a, NULL, 0);
    size_t n = lctx_case_encode(&g_a, g_bytes, sizeof g_bytes);
    assert_true(n <= LCTX_CASE_BYTES_MAX);
    decode_exact(g_bytes, n, &g_b, NULL);
    case_fx_assert_round_trip(&g_a, &g_b, NULL, NULL, round,
                              "decode(encode(c))");
    assert_valid(&g_b);
    /* Re-encoding the decoded case gives the same bytes. */
    size_t m = lctx_case_encode(&g_b, g_bytes2, sizeof g_bytes2);
    case_fx_assert_same_bytes(g_bytes, n, g_bytes2, m);
  }
}

static void test_decode_is_total_and_deterministic(void **state) {
  (void)state;
  case_gen g;
  case_gen_seed(&g, 0x707a1);
  static uint8_t data[512];
  size_t rules = 0, lowering = 0, ops = 0;
  for (int round = 0; round < ROUNDS; round++) {
    size_t n = case_gen_below(&g, sizeof data + 1);
    case_gen_bytes(&g, data, n);
    decode_exact(data, n, &g_a, NULL);
    assert_valid(&g_a);
    rules += g_a.rule_count;
    ops += g_a.op_count;
    for (size_t i = 0; i < g_a.op_count; i++)
      lowering += g_a.ops[i].kind == LCTX_OP_REGISTER_LOWERING ||
                  g_a.ops[i].kind == LCTX_OP_LOWER_PER_PLATFORM;
    lctx_case_decode(data, n, &g_b);
    assert_memory_equal(&g_a, &g_b, sizeof g_a);
    /* A decoded case round trips through the encoder, and the encoding is
     * canonical: decoding it again gives the same case. */
    size_t m = lctx_case_encode(&g_a, g_bytes, sizeof g_bytes);
    decode_exact(g_bytes, m, &g_c, NULL);
    assert_true(lctx_case_equal(&g_a, &g_c));
  }
  /* Random bytes reach the lowering parts. */
  print_message("rules %zu, operations %zu, lowering operations %zu\n", rules,
                ops, lowering);
  assert_true(rules > ROUNDS / 2);
  assert_true(lowering > ops / 10);
}

/* Decoding into the last decoded case gives, byte for byte, what a decode
 * into a fresh case gives; emptying it gives the zero case. */
static void test_decode_reuse_equals_decode(void **state) {
  (void)state;
  case_gen g;
  case_gen_seed(&g, 0x5e05e);
  static uint8_t data[4096];
  static lctx_case zero;
  lctx_case_init(&g_c);
  for (int round = 0; round < ROUNDS; round++) {
    size_t n = case_gen_below(&g, round % 4 ? 512 : sizeof data + 1);
    case_gen_bytes(&g, data, n);
    if (n > 0 && round % 3 == 0)
      data[0] = 16; /* the most factories */
    lctx_case_decode_reuse(data, n, &g_c);
    lctx_case_decode(data, n, &g_b);
    assert_memory_equal(&g_b, &g_c, sizeof g_b);
  }
  lctx_case_reset(&g_c);
  assert_memory_equal(&zero, &g_c, sizeof zero);
}

/* Decodes up to 2 KiB of random bytes into `c`. */
static void decode_random(case_gen *g, lctx_case *c) {
  uint8_t data[2048];
  size_t n = case_gen_below(g, sizeof data);
  case_gen_bytes(g, data, n);
  lctx_case_decode(data, n, c);
}

/* lctx_case_op_copy into operations full of garbage gives a case equal to
 * the original (every reader stops at the counts). */
static void test_op_copy_equals_assignment(void **state) {
  (void)state;
  case_gen g;
  case_gen_seed(&g, 0xc0b1);
  static lctx_case copy;
  size_t lists = 0;
  for (int round = 0; round < ROUNDS; round++) {
    decode_random(&g, &g_a);
    memcpy(&copy, &g_a, sizeof copy);
    memset(copy.ops, 0x5a, sizeof copy.ops);
    for (size_t i = 0; i < g_a.op_count; i++) {
      lctx_case_op_copy(&copy.ops[i], &g_a.ops[i]);
      lists += g_a.ops[i].platform_count > 0 && g_a.ops[i].narrow_count > 0;
    }
    assert_true(lctx_case_equal(&g_a, &copy));
  }
  assert_true(lists > 0); /* both lists were copied somewhere */
}

/* lctx_case_op_assign of one decoded operation over another leaves exactly
 * the source's bytes (both zero past their counts): what it does not copy
 * it clears. */
static void test_op_assign_equals_the_source(void **state) {
  (void)state;
  case_gen g;
  case_gen_seed(&g, 0xa551);
  static lctx_case other;
  size_t shrunk = 0;
  for (int round = 0; round < ROUNDS; round++) {
    decode_random(&g, &g_a);
    decode_random(&g, &other);
    for (size_t i = 0; i < g_a.op_count && i < other.op_count; i++) {
      shrunk += other.ops[i].platform_count > g_a.ops[i].platform_count ||
                other.ops[i].narrow_count > g_a.ops[i].narrow_count;
      lctx_case_op_assign(&other.ops[i], &g_a.ops[i]);
      assert_memory_equal(&other.ops[i], &g_a.ops[i], sizeof g_a.ops[i]);
    }
  }
  assert_true(shrunk > 0); /* names past the new counts were cleared */
}

static void test_decode_reads_at_most_bytes_max(void **state) {
  (void)state;
  case_gen g;
  case_gen_seed(&g, 0x11ea);
  size_t n = 1 << 20;
  uint8_t *data = malloc(n);
  assert_non_null(data);
  for (int round = 0; round < 20; round++) {
    case_gen_bytes(&g, data, n);
    /* Ask for the most of everything: 16 factories, 8 operations. */
    data[0] = 16;
    lctx_case_byte_spans spans;
    lctx_case_decode_spans(data, n, &g_a, &spans);
    assert_valid(&g_a);
    assert_true(spans.end <= LCTX_CASE_BYTES_MAX);
  }
  free(data);
}

static void test_flipping_a_byte_keeps_what_came_before(void **state) {
  (void)state;
  case_gen g;
  case_gen_seed(&g, 0x10ca1);
  static uint8_t data[512];
  size_t kept_factories = 0, kept_rules = 0, kept_ops = 0, changed = 0;
  for (int round = 0; round < ROUNDS; round++) {
    size_t n = 1 + case_gen_below(&g, sizeof data);
    /* Half of the inputs are encodings of generated cases, whose parts are
     * all present; the other half random bytes. */
    if (round % 2) {
      case_gen_case(&g, &g_c, NULL, 0);
      n = lctx_case_encode(&g_c, data, sizeof data);
      if (n > sizeof data || n == 0)
        continue;
    } else {
      case_gen_bytes(&g, data, n);
    }
    lctx_case_byte_spans before_spans, after_spans;
    decode_exact(data, n, &g_a, &before_spans);
    size_t p = case_gen_below(&g, (uint32_t)n);
    data[p] ^= (uint8_t)(1 + case_gen_below(&g, 255));
    decode_exact(data, n, &g_b, &after_spans);
    assert_valid(&g_b);
    for (size_t i = 0; i < g_a.factory_count; i++) {
      if (before_spans.factory_end[i] > p)
        break;
      assert_true(i < g_b.factory_count);
      assert_true(factory_equal(&g_a.factories[i], &g_b.factories[i]));
      assert_int_equal(before_spans.factory_end[i], after_spans.factory_end[i]);
      kept_factories++;
    }
    if (before_spans.config_end <= p) {
      assert_int_equal(g_a.factory_count, g_b.factory_count);
      assert_true(config_equal(&g_a, &g_b));
      for (size_t i = 0; i < g_a.rule_count; i++) {
        if (before_spans.rule_end[i] > p)
          break;
        assert_true(i < g_b.rule_count);
        assert_true(item_equal(&g_a, &g_b, i, true));
        assert_int_equal(before_spans.rule_end[i], after_spans.rule_end[i]);
        kept_rules++;
      }
    }
    if (before_spans.rules_end <= p) {
      assert_int_equal(g_a.rule_count, g_b.rule_count);
      for (size_t i = 0; i < g_a.op_count; i++) {
        if (before_spans.op_end[i] > p)
          break;
        assert_true(i < g_b.op_count);
        assert_true(item_equal(&g_a, &g_b, i, false));
        kept_ops++;
      }
      if (before_spans.end <= p)
        assert_true(lctx_case_equal(&g_a, &g_b));
    }
    changed += !lctx_case_equal(&g_a, &g_b);
  }
  print_message("kept factories %zu, kept rules %zu, kept operations %zu, "
                "changed %zu\n",
                kept_factories, kept_rules, kept_ops, changed);
  /* The property was exercised, not vacuous. */
  assert_true(kept_factories > ROUNDS);
  assert_true(kept_rules > ROUNDS / 10);
  assert_true(kept_ops > ROUNDS / 4);
  assert_true(changed > ROUNDS / 2);
}

static void test_literal_content_edit_changes_one_field(void **state) {
  (void)state;
  /* Two factories with literal names; editing a content byte of the first
   * name changes that name only. */
  const uint8_t data[] = {2,    0xc3, 'a', 'b', 'c', 0, 0, 0,
                          0xc3, 'x',  'y', 'z', 4,   1, 1};
  lctx_case_decode(data, sizeof data, &g_a);
  assert_int_equal(g_a.factory_count, 2);
  uint8_t edited[sizeof data];
  memcpy(edited, data, sizeof data);
  edited[3] = 'B';
  lctx_case_decode(edited, sizeof edited, &g_b);
  assert_string_equal(g_b.factories[0].name, "aBc");
  g_b.factories[0].name[1] = 'b';
  assert_true(lctx_case_equal(&g_a, &g_b));
  /* A flags byte: only that factory's behaviour changes. */
  memcpy(edited, data, sizeof data);
  edited[6] = 2 << 1;
  lctx_case_decode(edited, sizeof edited, &g_b);
  assert_int_equal(g_b.factories[0].behaviour, LCTX_FACTORY_RETURNS_NONE);
  g_b.factories[0].behaviour = LCTX_FACTORY_CLIENT;
  assert_true(lctx_case_equal(&g_a, &g_b));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_decode_encode_round_trip_generated),
      cmocka_unit_test(test_decode_is_total_and_deterministic),
      cmocka_unit_test(test_decode_reuse_equals_decode),
      cmocka_unit_test(test_op_copy_equals_assignment),
      cmocka_unit_test(test_op_assign_equals_the_source),
      cmocka_unit_test(test_decode_reads_at_most_bytes_max),
      cmocka_unit_test(test_flipping_a_byte_keeps_what_came_before),
      cmocka_unit_test(test_literal_content_edit_changes_one_field),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
