/*
 * tests/test_case_bytes_layout.c - pins the layout of the byte form of a
 * case (harness/core/case/case_bytes.h): dictionaries, literals, the byte
 * mapping, explicit priorities, dropped duplicates, the lowering parts and
 * how they are degraded until the case validates, the encoder's capacity
 * contract, and the span ends the decoder reports. The properties (round
 * trips, totality, locality) are in test_case_bytes.c.
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

static lctx_case g_a, g_b;
static uint8_t g_bytes[LCTX_CASE_BYTES_MAX];

//===----------------------------------------------------------------------===//
// Checks of a decoded case
//===----------------------------------------------------------------------===//

/// Fails unless the canonical text of `c` is `expected`.
#define assert_case_text(c, expected)                                          \
  assert_case_text_at((c), (expected), __FILE__, __LINE__)
static void assert_case_text_at(const lctx_case *c, const char *expected,
                                const char *file, int line) {
  static char text[LCTX_CASE_TEXT_MAX];
  lctx_buf b;
  lctx_buf_init(&b, text, sizeof text);
  lctx_case_print(c, NULL, &b);
  ts_assert_buf_at(&b, expected, file, line);
}

/// Fails unless `c` is valid (lctx_case_validate and case.h's invariants).
static void assert_valid(const lctx_case *c) {
  char why[512];
  if (!case_gen_is_valid(c, why, sizeof why))
    fail_msg("invalid case: %s", why);
}

/// One span end the decoder reports: its field, its value and the one
/// expected. SPAN(field, want) reads the field of a local `spans`.
typedef struct {
  const char *field;
  size_t got, want;
} span_check;
#define SPAN(field, want)                                                      \
  { #field, spans.field, (want) }

/// Fails at the first span end that is not the one expected.
static void assert_spans(const span_check *checks, size_t count) {
  for (size_t i = 0; i < count; i++)
    if (checks[i].got != checks[i].want)
      fail_msg("spans.%s is %zu, expected %zu", checks[i].field, checks[i].got,
               checks[i].want);
}

/// Fills a platform list to its limit: LCTX_MAX_MODULE_PLATFORMS names of
/// LCTX_MAX_NAME bytes `c`.
static void fill_platform_list(lctx_case *cs, uint8_t *list, size_t *count,
                               char c) {
  char name[LCTX_MAX_NAME + 1] = {0};
  memset(name, c, LCTX_MAX_NAME);
  *count = LCTX_MAX_MODULE_PLATFORMS;
  for (size_t k = 0; k < LCTX_MAX_MODULE_PLATFORMS; k++)
    assert_true(lctx_case_intern_cstr(cs, name, &list[k]));
}

//===----------------------------------------------------------------------===//
// The layout
//===----------------------------------------------------------------------===//

static void test_empty_input_is_the_empty_case(void **state) {
  (void)state;
  lctx_case_decode(NULL, 0, &g_a);
  lctx_case_init(&g_b);
  assert_memory_equal(&g_a, &g_b, sizeof g_a);
  /* Zeros are defaults too: no factories, "" values, no operations. */
  const uint8_t zeros[64] = {0};
  lctx_case_decode(zeros, sizeof zeros, &g_a);
  assert_memory_equal(&g_a, &g_b, sizeof g_a);
  /* The empty case encodes to 6 zero bytes. */
  assert_int_equal(lctx_case_encode(&g_b, NULL, 0), 6);
}

static void test_layout_pinned_example(void **state) {
  (void)state;
  const uint8_t data[] = {
      3,                                   /* three factories */
      0xc4,        'c',  'u',  'd',  'a',  /* literal "cuda" */
      4,                                   /* priority 300 */
      0x03,                                /* quiet, raises */
      1,                                   /* "TPU not found" */
      1,                                   /* "cpu" */
      0xf0,        0xfe, 0xff, 0xff, 0xff, /* explicit priority -2 */
      0x06 | 0x08, /* loud, no_devices (bit 3 ignored) */
      0x85,        'h',  'e',  'l',  'l',  'o', /* a literal message, dropped */
      2,                             /* "cuda": repeats factory 0, dropped */
      0,           0,    0,    0x01, /* nvidia visible */
      6,                             /* jax_platforms "cpu,tpu" */
      0xc3,        't',  'p',  'u',  /* jax_platform_name "tpu" */
      12 + 7,                        /* jax_xla_backend: 19 % 12 = 7, "METAL" */
      4 + 9,                         /* four operations (13 % 9) */
      3 | 8 | 16,                    /* module_get_backend, backend, optional */
      0xc1,        'z',              /* arg: ignored */
      2,           1,    0xc1, 0x80, /* platforms "cpu", " " */
      3,                             /* backend "rocm" */
      2,                             /* get_backend, no arg */
      5,                             /* arg "tpu": ignored */
      1,           1,                /* a platform: ignored */
      9,                             /* backend: ignored */
      2 | 4,       11,   0,    0,    /* get_backend "GPU" */
      1,           0xc2, 0x00, 0xff, /* canonicalize "_@", then the end */
  };
  lctx_case_byte_spans spans;
  lctx_case_decode_spans(data, sizeof data, &g_a, &spans);
  assert_valid(&g_a);
  assert_case_text(&g_a, "lctx-case 1\n"
                         "factory \"cuda\" priority=300 quiet raises \"TPU not "
                         "found\"\n"
                         "factory \"cpu\" priority=-2 loud no_devices\n"
                         "jax_platforms \"cpu,tpu\"\n"
                         "jax_platform_name \"tpu\"\n"
                         "jax_xla_backend \"METAL\"\n"
                         "nvidia_gpu visible\n"
                         "op module_get_backend platforms=[\"cpu\", \" \"] "
                         "backend=\"rocm\" optional=true\n"
                         "op get_backend None\n"
                         "op get_backend \"GPU\"\n"
                         "op canonicalize \"_@\"\n");
  /* The last operation read two zeros past the end. */
  const span_check checks[] = {SPAN(factory_end[0], 9),
                               SPAN(factory_end[1], 22),
                               SPAN(config_end, 33),
                               SPAN(op_end[0], 42),
                               SPAN(op_end[1], 47),
                               SPAN(op_end[2], 51),
                               SPAN(op_end[3], sizeof data + 2)};
  assert_spans(checks, sizeof checks / sizeof checks[0]);
}

/* Eight module operations of sixteen distinct names each: the decoder keeps
 * the first LCTX_CASE_MAX_NAMES distinct names and leaves the others out of
 * their lists (it reads them all, so what follows is read as before). */
static void test_decode_keeps_the_names_a_case_holds(void **state) {
  (void)state;
  static uint8_t data[1024];
  size_t n = 0;
  data[n++] = 0; /* no factories */
  data[n++] = 0; /* no rules, nvidia hidden */
  data[n++] = 0; /* jax_platforms, jax_platform_name, jax_xla_backend */
  data[n++] = 0;
  data[n++] = 0;
  data[n++] = 8; /* eight operations */
  for (int op = 0; op < 8; op++) {
    data[n++] = 3; /* module_get_backend */
    data[n++] = 0; /* arg: ignored */
    data[n++] = 16;
    for (int k = 0; k < 16; k++) {
      data[n++] = 0xc2; /* a literal of two bytes */
      data[n++] = (uint8_t)('a' + op);
      data[n++] = (uint8_t)('a' + k);
    }
    data[n++] = 0; /* backend */
  }
  lctx_case_decode(data, n, &g_a);
  assert_valid(&g_a);
  assert_int_equal(g_a.op_count, 8);
  assert_int_equal(g_a.name_count, LCTX_CASE_MAX_NAMES);
  size_t kept = 0;
  for (size_t i = 0; i < g_a.op_count; i++)
    kept += g_a.ops[i].platform_count;
  assert_int_equal(kept, LCTX_CASE_MAX_NAMES);
  assert_string_equal(lctx_case_op_platform(&g_a, &g_a.ops[0], 0), "aa");
  /* Names seen before are reused, past the full table too. */
  for (int k = 0; k < 16; k++)
    data[n - 1 - 48 + 3 * k + 1] = (uint8_t)'a';
  lctx_case_decode(data, n, &g_b);
  assert_int_equal(g_b.name_count, LCTX_CASE_MAX_NAMES);
  assert_int_equal(g_b.ops[7].platform_count, 16);
  assert_string_equal(lctx_case_op_platform(&g_b, &g_b.ops[7], 3), "ad");
}

static void test_literal_byte_mapping(void **state) {
  (void)state;
  for (int b = 0; b < 256; b++) {
    char c = lctx_case_bytes_literal_char((uint8_t)b);
    assert_true(c >= 0x01 && c <= 0x7f);
    if (b >= 0x01 && b <= 0x7f)
      assert_int_equal(c, b);
  }
  assert_int_equal(lctx_case_bytes_literal_char(0x00), '_');
  assert_int_equal(lctx_case_bytes_literal_char(0x80), ' ');
  assert_int_equal(lctx_case_bytes_literal_char(0xde), '~');
  assert_int_equal(lctx_case_bytes_literal_char(0xdf), ' ');
  /* Every byte 0x01-0x7f in a name survives encode and decode. */
  lctx_case_init(&g_a);
  g_a.op_count = 2;
  g_a.ops[0].kind = g_a.ops[1].kind = LCTX_OP_CANONICALIZE;
  g_a.ops[0].has_arg = g_a.ops[1].has_arg = true;
  for (int i = 0; i < 63; i++) {
    g_a.ops[0].arg[i] = (char)(1 + i);
    g_a.ops[1].arg[i] = (char)(64 + i);
  }
  g_a.ops[1].arg[63 - 1] = 0x7f;
  size_t n = lctx_case_encode(&g_a, g_bytes, sizeof g_bytes);
  lctx_case_decode(g_bytes, n, &g_b);
  assert_true(lctx_case_equal(&g_a, &g_b));
}

static void test_dictionary_names_take_one_byte(void **state) {
  (void)state;
  static const char *const names[] = {"",       "cpu", "cuda", "rocm",
                                      "oneapi", "tpu", "gpu",  "METAL",
                                      "bogus",  "CPU", "Cuda", "GPU"};
  for (size_t i = 0; i < 12; i++) {
    lctx_case_init(&g_a);
    g_a.op_count = 1;
    g_a.ops[0].kind = LCTX_OP_CANONICALIZE;
    g_a.ops[0].has_arg = true;
    snprintf(g_a.ops[0].arg, sizeof g_a.ops[0].arg, "%s", names[i]);
    size_t n = lctx_case_encode(&g_a, g_bytes, sizeof g_bytes);
    /* count, flags, three config values, op count, then kind, arg, platform
     * count, backend. */
    assert_int_equal(n, 10);
    assert_int_equal(g_bytes[7], i);
    /* Every selector with the same residue picks the same name. */
    for (unsigned s = (unsigned)i; s < 192; s += 12) {
      g_bytes[7] = (uint8_t)s;
      lctx_case_decode(g_bytes, n, &g_b);
      assert_string_equal(g_b.ops[0].arg, names[i]);
    }
  }
  /* A fuzz-dictionary token with its length selector decodes unchanged. */
  const uint8_t token[] = {0, 0, 0, 0, 0, 1, 1, 0xc4, 'c', 'u', 'd', 'a'};
  lctx_case_decode(token, sizeof token, &g_a);
  assert_string_equal(g_a.ops[0].arg, "cuda");
}

static void test_priorities(void **state) {
  (void)state;
  static const int table[16] = {0,     1,    -1,      2,      300, 400,
                                -1000, -999, -1001,   100,    299, 301,
                                401,   3,    INT_MIN, INT_MAX};
  uint8_t data[] = {1, 1, 0, 0, 0};
  for (unsigned s = 0; s < 240; s++) {
    data[2] = (uint8_t)s;
    lctx_case_decode(data, sizeof data, &g_a);
    assert_int_equal(g_a.factories[0].priority, table[s % 16]);
  }
  const int values[] = {INT_MIN, INT_MIN + 1, -1002, 4, 65536, INT_MAX - 1};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    lctx_case_init(&g_a);
    g_a.factory_count = 1;
    g_a.factories[0].priority = values[i];
    size_t n = lctx_case_encode(&g_a, g_bytes, sizeof g_bytes);
    lctx_case_decode(g_bytes, n, &g_b);
    assert_int_equal(g_b.factories[0].priority, values[i]);
  }
  const uint8_t explicit_min[] = {1, 1, 0xff, 0x00, 0x00, 0x00, 0x80, 0};
  lctx_case_decode(explicit_min, sizeof explicit_min, &g_a);
  assert_int_equal(g_a.factories[0].priority, INT_MIN);
}

static void test_duplicate_factory_names_are_dropped(void **state) {
  (void)state;
  const uint8_t data[] = {4, 1, 0, 0, 0, 1, 4, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0};
  lctx_case_decode(data, sizeof data, &g_a);
  assert_valid(&g_a);
  assert_int_equal(g_a.factory_count, 2);
  assert_string_equal(g_a.factories[0].name, "cpu");
  assert_int_equal(g_a.factories[0].priority, 0);
  assert_string_equal(g_a.factories[1].name, "tpu");
}

static void test_input_ending_early_gives_defaults(void **state) {
  (void)state;
  /* 16 factories asked for; the input ends inside the second one. */
  const uint8_t data[] = {16, 1, 4, 1, 0, 0xc5, 'a'};
  lctx_case_decode(data, sizeof data, &g_a);
  assert_valid(&g_a);
  assert_case_text(&g_a, "lctx-case 1\n"
                         "factory \"cpu\" priority=300 quiet client\n"
                         "factory \"a____\" priority=0 loud client\n"
                         "nvidia_gpu hidden\n");
}

static void test_encode_capacity_contract(void **state) {
  (void)state;
  case_gen g;
  case_gen_seed(&g, 0xcab);
  for (int round = 0; round < 200; round++) {
    case_gen_case(&g, &g_a, NULL, 0);
    size_t n = lctx_case_encode(&g_a, NULL, 0);
    assert_true(n >= 6 && n <= LCTX_CASE_BYTES_MAX);
    memset(g_bytes, 0xaa, sizeof g_bytes);
    assert_int_equal(lctx_case_encode(&g_a, g_bytes, n - 1), n);
    for (size_t i = 0; i < n; i++)
      assert_int_equal(g_bytes[i], 0xaa);
    assert_int_equal(lctx_case_encode(&g_a, g_bytes, n), n);
    assert_int_equal(g_bytes[n], 0xaa);
    lctx_case_decode(g_bytes, n, &g_b);
    assert_true(lctx_case_equal(&g_a, &g_b));
  }
}

static void test_maximal_case_fits_bytes_max(void **state) {
  (void)state;
  lctx_case_init(&g_a);
  g_a.factory_count = LCTX_MAX_FACTORIES;
  for (size_t i = 0; i < LCTX_MAX_FACTORIES; i++) {
    lctx_case_factory *f = &g_a.factories[i];
    memset(f->name, 'n', LCTX_MAX_NAME);
    f->name[0] = (char)('A' + i);
    memset(f->message, 'm', LCTX_MAX_MESSAGE);
    f->priority = 12345;
    f->behaviour = LCTX_FACTORY_RAISES;
  }
  memset(g_a.jax_platforms, 'p', LCTX_MAX_PLATFORMS_CONFIG);
  memset(g_a.jax_platform_name, 'q', LCTX_MAX_NAME);
  memset(g_a.jax_xla_backend, 'r', LCTX_MAX_NAME);
  /* Every rule: four lower_fun actions of one unbound primitive, with
   * compute types, all literals. */
  g_a.rule_count = LCTX_CASE_MAX_RULES;
  for (size_t i = 0; i < LCTX_CASE_MAX_RULES; i++) {
    lctx_case_rule *r = &g_a.rules[i];
    memset(r->name, 'u', LCTX_MAX_NAME);
    r->name[0] = (char)('A' + i);
    r->action_count = LCTX_CASE_MAX_ACTIONS;
    for (size_t k = 0; k < LCTX_CASE_MAX_ACTIONS; k++) {
      r->actions[k].kind = LCTX_ACTION_LOWER_FUN;
      memset(r->actions[k].text, 'X', LCTX_MAX_NAME);
      r->actions[k].has_compute_type = true;
      memset(r->actions[k].compute_type, 'c', LCTX_MAX_NAME);
    }
  }
  /* Every operation: lower_per_platform with every field at its limit. */
  g_a.op_count = LCTX_CASE_MAX_OPS;
  for (size_t i = 0; i < LCTX_CASE_MAX_OPS; i++) {
    lctx_case_op *op = &g_a.ops[i];
    op->kind = LCTX_OP_LOWER_PER_PLATFORM;
    memset(op->primitive, 'Y', LCTX_MAX_NAME);
    fill_platform_list(&g_a, op->platform, &op->platform_count, 's');
    op->has_backend = true;
    memset(op->backend, 't', LCTX_MAX_NAME);
    op->has_narrow = true;
    fill_platform_list(&g_a, op->narrowed, &op->narrow_count, 'v');
    op->has_compute_type = true;
    memset(op->compute_type, 'w', LCTX_MAX_NAME);
    op->has_override = true;
    memcpy(op->override, g_a.rules[i].name, sizeof op->override);
    op->x64 = true;
  }
  assert_valid(&g_a);
  size_t n = lctx_case_encode(&g_a, g_bytes, sizeof g_bytes);
  /* Ops lose one byte each: the unused arg is a single selector. */
  assert_int_equal(n, LCTX_CASE_BYTES_MAX - LCTX_CASE_MAX_OPS * LCTX_MAX_NAME);
  lctx_case_decode(g_bytes, n, &g_b);
  assert_true(lctx_case_equal(&g_a, &g_b));
}

/// A case without lowering encodes as before rules existed: configuration
/// flags 0 or 1, operation kind bytes below 0x20.
static void test_cases_without_lowering_keep_their_bytes(void **state) {
  (void)state;
  const uint8_t data[] = {
      1,          1, 0, 0, 0, /* factory "cpu" priority 0 loud client */
      1,                      /* nvidia visible, no rules */
      1,          0, 0,       /* jax_platforms "cpu" */
      2,                      /* two operations */
      3 | 8 | 16, 0,          /* module_get_backend ... */
      1,          5,          /* platforms ["tpu"] */
      1,                      /* backend "cpu" */
      2 | 4,      2, 0, 0,    /* get_backend "cuda" */
  };
  lctx_case_decode(data, sizeof data, &g_a);
  assert_case_text(&g_a, "lctx-case 1\n"
                         "factory \"cpu\" priority=0 loud client\n"
                         "jax_platforms \"cpu\"\n"
                         "nvidia_gpu visible\n"
                         "op module_get_backend platforms=[\"tpu\"] "
                         "backend=\"cpu\" optional=true\n"
                         "op get_backend \"cuda\"\n");
  assert_int_equal(lctx_case_encode(&g_a, g_bytes, sizeof g_bytes),
                   sizeof data);
  assert_memory_equal(g_bytes, data, sizeof data);
}

/// The bytes of test_lowering_layout_pinned_example, one part a line.
// clang-format off
static const uint8_t LOWERING_LAYOUT[] = {
    0, /* no factories */
    0x01 | 3 << 1, /* nvidia visible, three rules */
    0, 0, 0, /* the jax_* values */
    8, /* rule "P.cpu" */
    3, /* three actions */
    0 | 8, 0, 0, /* get_backend optional=true (text ignored) */
    5 | 16, 1, 1, /* lower_fun "Q" compute_type="device_host" */
    6, 0, 0, /* marker */
    8 + 16, 0, /* "P.cpu" again, no actions: dropped */
    0xc1, 'x', 2, /* rule "x", two actions */
    3, 2, 0, /* raise_if_multi "multi-platform ..." */
    7, 0, 0, /* kind 7 reads as get_backend */
    5, /* five operations */
    0x20 | 4, 1, 0, 0, /* register_lowering, platform "cpu" */
    0, 0, 0, 0, /* "P", rule 0 ("P.cpu"), no narrow, - */
    0x20, 0, 0, 0, /* register_lowering, platform None */
    1, 1, 0, 0, /* "Q", rule 1 ("x") */
    0xfb, /* lower_per_platform, every flag */
    0, 2, 1, 5, /* platforms ["cpu", "tpu"] */
    2, /* backend "cuda" */
    0, 3, /* "P", override rule 3 % 2 = 1 ("x") */
    1, 1, /* narrow ["cpu"] */
    2, /* compute_type "device" */
    0x20, 0, 0, 0, /* register_lowering "Q" -> "P.cpu": a cycle */
    1, 0, 0, 0, /* (dropped) */
    0x21, 0, 16, /* lower_per_platform, 16 platforms */
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, /* the platforms */
    0, 0, 0, 0, 0, /* None, "P", -, no narrow, - */
};

// clang-format on

static void test_lowering_layout_pinned_example(void **state) {
  (void)state;
  lctx_case_byte_spans spans;
  lctx_case_decode_spans(LOWERING_LAYOUT, sizeof LOWERING_LAYOUT, &g_a, &spans);
  assert_valid(&g_a);
  /* The last lowering keeps the platforms the event bound allows. */
  assert_case_text(&g_a,
                   "lctx-case 1\n"
                   "nvidia_gpu visible\n"
                   "rule \"P.cpu\" get_backend optional=true, lower_fun \"Q\" "
                   "compute_type=\"device_host\", marker\n"
                   "rule \"x\" raise_if_multi \"multi-platform lowering is "
                   "not supported\", get_backend optional=false\n"
                   "op register_lowering primitive=\"P\" rule=\"P.cpu\" "
                   "platform=\"cpu\"\n"
                   "op register_lowering primitive=\"Q\" rule=\"x\" "
                   "platform=None\n"
                   "op lower_per_platform primitive=\"P\" platforms=[\"cpu\", "
                   "\"tpu\"] backend=\"cuda\" narrow=[\"cpu\"] "
                   "compute_type=\"device\" override=\"x\" x64=true\n"
                   "op lower_per_platform primitive=\"P\" platforms=[\"cpu\", "
                   "\"cuda\"] backend=None\n");
  const span_check checks[] = {SPAN(config_end, 5),
                               SPAN(rule_end[0], 16),
                               SPAN(rule_end[1], 27),
                               SPAN(rules_end, 27),
                               SPAN(op_end[0], 36),
                               SPAN(op_end[1], 44),
                               SPAN(op_end[2], 55),
                               SPAN(op_end[3], 87),
                               SPAN(end, sizeof LOWERING_LAYOUT)};
  assert_spans(checks, sizeof checks / sizeof checks[0]);
  /* The encoding of the decoded case: canonical bytes, same case. */
  size_t n = lctx_case_encode(&g_a, g_bytes, sizeof g_bytes);
  lctx_case_decode(g_bytes, n, &g_b);
  assert_true(lctx_case_equal(&g_a, &g_b));
}

static void test_rules_dropped_and_degraded(void **state) {
  (void)state;
  const uint8_t data[] = {
      0, 4 << 1, 0, 0, 0, /* four rules */
      0xc0, 1, 6, 0, 0,   /* an empty name: dropped */
      /* r0: lower_fun "1", "2", "3", "4" */
      0, 4, 5, 0xc1, '1', 0, 5, 0xc1, '2', 0, 5, 0xc1, '3', 0, 5, 0xc1, '4', 0,
      /* r1: lower_fun "5", "6", "7", "8" */
      1, 4, 5, 0xc1, '5', 0, 5, 0xc1, '6', 0, 5, 0xc1, '7', 0, 5, 0xc1, '8', 0,
      /* r2: lower_fun "1", then a ninth name "9" (a marker, and its
       * compute type dropped with it), raise_if_multi "boom" */
      2, 3, 5, 0xc1, '1', 0, 5 | 16, 0xc1, '9', 1, 3, 1, 0,
      0, /* no operations */
  };
  lctx_case_decode(data, sizeof data, &g_a);
  assert_valid(&g_a);
  assert_case_text(&g_a,
                   "lctx-case 1\n"
                   "nvidia_gpu hidden\n"
                   "rule \"r0\" lower_fun \"1\", lower_fun \"2\", lower_fun "
                   "\"3\", lower_fun \"4\"\n"
                   "rule \"r1\" lower_fun \"5\", lower_fun \"6\", lower_fun "
                   "\"7\", lower_fun \"8\"\n"
                   "rule \"r2\" lower_fun \"1\", marker, raise_if_multi "
                   "\"boom\"\n");
}

static void test_lowering_operations_degraded(void **state) {
  (void)state;
  /* No rules: register_lowering is dropped, an override cleared. */
  const uint8_t no_rules[] = {
      0,    0, 0, 0, 0,          /* nothing configured */
      2,                         /* two operations */
      0x20, 0, 0, 0, 0, 0, 0, 0, /* register_lowering: dropped */
      0xa1, 0, 0, 0, 0, 0, 0, 0, /* lower_per_platform, override */
  };
  lctx_case_byte_spans spans;
  lctx_case_decode_spans(no_rules, sizeof no_rules, &g_a, &spans);
  assert_valid(&g_a);
  assert_case_text(&g_a, "lctx-case 1\n"
                         "nvidia_gpu hidden\n"
                         "op lower_per_platform primitive=\"P\" platforms=[] "
                         "backend=None\n");
  assert_int_equal(spans.op_end[0], sizeof no_rules);
  /* A lower_fun cycle through an override: the override goes, the rest of
   * the operation stays. */
  const uint8_t cycle[] = {
      0,           1 << 1, 0, 0, 0, /* one rule */
      0,           1,      5, 0, 0, /* r0: lower_fun "P" */
      1,                            /* one operation */
      0xe1 | 0x10, 0,      1, 1, 0, /* lower_per_platform ["cpu"], x64 */
      0,           0,      1, 5, 0, /* "P", override r0, narrow ["tpu"] */
  };
  lctx_case_decode(cycle, sizeof cycle, &g_a);
  assert_valid(&g_a);
  assert_case_text(&g_a, "lctx-case 1\n"
                         "nvidia_gpu hidden\n"
                         "rule \"r0\" lower_fun \"P\"\n"
                         "op lower_per_platform primitive=\"P\" "
                         "platforms=[\"cpu\"] backend=None narrow=[\"tpu\"] "
                         "x64=true\n");
  /* The same rule registered for "P": dropped, then a register_lowering of
   * another primitive stays. */
  const uint8_t registered[] = {
      0,    1 << 1, 0, 0, 0,          /* one rule */
      0,    1,      5, 0, 0,          /* r0: lower_fun "P" */
      2,                              /* two operations */
      0x20, 0,      0, 0, 0, 0, 0, 0, /* "P" -> r0: a cycle, dropped */
      0x20, 0,      0, 0, 1, 0, 0, 0, /* "Q" -> r0 */
  };
  lctx_case_decode_spans(registered, sizeof registered, &g_a, &spans);
  assert_valid(&g_a);
  assert_int_equal(g_a.op_count, 1);
  assert_string_equal(g_a.ops[0].primitive, "Q");
  assert_int_equal(spans.op_end[0], sizeof registered);
  assert_int_equal(spans.end, sizeof registered);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_empty_input_is_the_empty_case),
      cmocka_unit_test(test_layout_pinned_example),
      cmocka_unit_test(test_decode_keeps_the_names_a_case_holds),
      cmocka_unit_test(test_literal_byte_mapping),
      cmocka_unit_test(test_dictionary_names_take_one_byte),
      cmocka_unit_test(test_priorities),
      cmocka_unit_test(test_duplicate_factory_names_are_dropped),
      cmocka_unit_test(test_input_ending_early_gives_defaults),
      cmocka_unit_test(test_encode_capacity_contract),
      cmocka_unit_test(test_maximal_case_fits_bytes_max),
      cmocka_unit_test(test_cases_without_lowering_keep_their_bytes),
      cmocka_unit_test(test_lowering_layout_pinned_example),
      cmocka_unit_test(test_rules_dropped_and_degraded),
      cmocka_unit_test(test_lowering_operations_degraded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
