/*
 * tests/test_case_text.c - pins the `.case` text form
 * (harness/core/case/case_text.h, conformance/cases/README.md).
 *
 * - Properties over generated cases (tests/case_gen.h, fixed seeds):
 *   parse(print(c)) == c with expectations, and print is a fixed point of
 *   parse-then-print (canonical idempotence).
 * - Robustness: mutated and random texts never crash the parser; what it
 *   accepts is valid and prints canonically.
 * - The canonical form of a hand-written file (comments, blanks, CRLF,
 *   escapes), the string escapes, the bounds of the printer.
 * - Every parse error message, with its exact FILE:LINE:COL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "case_fx.h"
#include "case_gen.h"
#include "case_text.h"
#include "test_support.h"

#define ROUNDS 20000

static char g_text[LCTX_CASE_TEXT_MAX];
static char g_text2[LCTX_CASE_TEXT_MAX];
static lctx_case g_a, g_b, g_c;
/* The expectations beside g_a, g_b and g_c. */
static lctx_case_expect g_ea, g_eb, g_ec;

/// The expectations beside `c` when it is g_a, g_b or g_c, else NULL.
static lctx_case_expect *expect_of(const lctx_case *c) {
  return c == &g_a ? &g_ea : c == &g_b ? &g_eb : c == &g_c ? &g_ec : NULL;
}

/// lctx_case_equal, and the expectations beside both equal.
static bool cases_equal(const lctx_case *a, const lctx_case *b) {
  const lctx_case_expect *ea = expect_of(a), *eb = expect_of(b);
  return lctx_case_equal(a, b) &&
         (!ea || !eb || lctx_case_expect_equal(ea, eb, a->op_count));
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Prints `c` into `storage` (LCTX_CASE_TEXT_MAX); fails on overflow.
static size_t print_case(const lctx_case *c, char *storage) {
  lctx_buf b;
  lctx_buf_init(&b, storage, LCTX_CASE_TEXT_MAX);
  lctx_case_print(c, expect_of(c), &b);
  assert_false(b.overflow);
  return b.length;
}

/// Parses `n` bytes from an exact-size heap copy (so that ASan catches any
/// read past the end). Returns the result; the error goes to `error`.
static bool parse_exact(const char *text, size_t n, lctx_case *out, char *error,
                        size_t error_cap) {
  char *copy = malloc(n ? n : 1);
  assert_non_null(copy);
  if (n)
    memcpy(copy, text, n);
  lctx_buf e;
  lctx_buf_init(&e, error, error_cap);
  bool ok = lctx_case_parse(copy, n, "t.case", out, expect_of(out), &e);
  free(copy);
  return ok;
}

/// Fails unless `text` parses.
#define assert_parses(text, out) assert_parses_at((text), (out), __LINE__)
static void assert_parses_at(const char *text, lctx_case *out, int line) {
  char error[512];
  if (!parse_exact(text, strlen(text), out, error, sizeof error)) {
    print_error("parse failed: %s\n", error);
    _fail(__FILE__, line);
  }
}

/// Fails unless `text` is rejected with exactly `expected`.
#define assert_parse_error(text, expected)                                     \
  assert_parse_error_at((text), strlen(text), (expected), __LINE__)
#define assert_parse_error_n(text, n, expected)                                \
  assert_parse_error_at((text), (n), (expected), __LINE__)
static void assert_parse_error_at(const char *text, size_t n,
                                  const char *expected, int line) {
  char error[1024];
  if (parse_exact(text, n, &g_c, error, sizeof error)) {
    print_error("parse unexpectedly succeeded; expected %s\n", expected);
    _fail(__FILE__, line);
  }
  if (!ts_text_matches("parse error", error, strlen(error), expected))
    _fail(__FILE__, line);
}

/// Fails unless `c` passes lctx_case_validate and the invariants.
static void assert_valid(const lctx_case *c) {
  char why[512];
  if (!case_gen_is_valid(c, why, sizeof why))
    fail_msg("invalid case: %s", why);
}

/// Fails unless `text` parses, prints as exactly `canonical`, and
/// `canonical` parses to the same case (the canonical text is a fixed
/// point).
static void assert_prints_canonically(const char *text, const char *canonical) {
  assert_parses(text, &g_a);
  lctx_buf b;
  lctx_buf_init(&b, g_text, sizeof g_text);
  lctx_case_print(&g_a, &g_ea, &b);
  assert_buf(&b, canonical);
  assert_parses(canonical, &g_b);
  assert_true(cases_equal(&g_a, &g_b));
}

//===----------------------------------------------------------------------===//
// Properties
//===----------------------------------------------------------------------===//

static void test_parse_print_round_trip_generated(void **state) {
  (void)state;
  case_gen g;
  case_gen_seed(&g, 0x7e47);
  for (int round = 0; round < ROUNDS; round++) {
    lctx_case_expect_init(&g_ea);
    case_gen_case(&g, &g_a, &g_ea, CASE_GEN_EXPECT);
    assert_valid(&g_a);
    size_t n = print_case(&g_a, g_text);
    char error[512];
    if (!parse_exact(g_text, n, &g_b, error, sizeof error)) {
      print_error("round %d: %s\n%s", round, error, g_text);
      fail();
    }
    case_fx_assert_round_trip(&g_a, &g_b, &g_ea, &g_eb, round,
                              "parse(print(c))");
    size_t m = print_case(&g_b, g_text2);
    case_fx_assert_same_bytes(g_text, n, g_text2, m);
  }
}

static void test_print_is_ascii_one_directive_per_line(void **state) {
  (void)state;
  case_gen g;
  case_gen_seed(&g, 0xa5c11);
  for (int round = 0; round < 2000; round++) {
    lctx_case_expect_init(&g_ea);
    case_gen_case(&g, &g_a, &g_ea, CASE_GEN_EXPECT);
    size_t n = print_case(&g_a, g_text);
    size_t lines = 0;
    for (size_t i = 0; i < n; i++) {
      unsigned char c = (unsigned char)g_text[i];
      assert_true(c == '\n' || (c >= 0x20 && c < 0x7f));
      lines += c == '\n';
    }
    size_t expects = 0;
    for (size_t i = 0; i < g_a.op_count; i++)
      expects += g_ea.has[i];
    size_t config = (g_a.jax_platforms[0] != 0) +
                    (g_a.jax_platform_name[0] != 0) +
                    (g_a.jax_xla_backend[0] != 0);
    assert_int_equal(lines, 2 + g_a.factory_count + config + g_a.rule_count +
                                g_a.op_count + expects);
    assert_int_equal(g_text[n - 1], '\n');
  }
}

/// Mutates printed cases (byte changes, insertions, deletions, cuts): the
/// parser never crashes, and whatever it accepts is valid and canonical.
static void test_mutated_text_is_total(void **state) {
  (void)state;
  static const char pieces[] = "\"\\#=[],\n\r\t x0-";
  case_gen g;
  case_gen_seed(&g, 0xf022);
  size_t accepted = 0;
  for (int round = 0; round < ROUNDS; round++) {
    lctx_case_expect_init(&g_ea);
    case_gen_case(&g, &g_a, &g_ea, CASE_GEN_EXPECT);
    size_t n = print_case(&g_a, g_text);
    int edits = 1 + (int)case_gen_below(&g, 3);
    for (int k = 0; k < edits && n > 0; k++) {
      size_t at = case_gen_below(&g, (uint32_t)n);
      switch (case_gen_below(&g, 4)) {
      case 0:
        g_text[at] = (char)case_gen_next(&g);
        break;
      case 1:
        g_text[at] = pieces[case_gen_below(&g, sizeof pieces - 1)];
        break;
      case 2:
        memmove(g_text + at, g_text + at + 1, n - at - 1);
        n--;
        break;
      default:
        n = at;
        break;
      }
    }
    char error[1024];
    if (!parse_exact(g_text, n, &g_b, error, sizeof error)) {
      assert_true(strncmp(error, "t.case:", 7) == 0);
      continue;
    }
    accepted++;
    assert_valid(&g_b);
    size_t m = print_case(&g_b, g_text2);
    assert_true(parse_exact(g_text2, m, &g_c, error, sizeof error));
    assert_true(cases_equal(&g_b, &g_c));
  }
  /* Both outcomes must be exercised. */
  assert_true(accepted > ROUNDS / 20);
  assert_true(accepted < ROUNDS);
}

static void test_random_bytes_are_total(void **state) {
  (void)state;
  case_gen g;
  case_gen_seed(&g, 0xb17e5);
  static uint8_t bytes[600];
  for (int round = 0; round < ROUNDS; round++) {
    size_t n = case_gen_below(&g, sizeof bytes);
    case_gen_bytes(&g, bytes, n);
    if (round % 2)
      memcpy(bytes, "lctx-case 1\n", n < 12 ? n : 12);
    char error[1024];
    if (parse_exact((const char *)bytes, n, &g_b, error, sizeof error))
      assert_valid(&g_b);
  }
}

/// Every conformance case parses, and round trips through its canonical
/// form.
static void test_conformance_cases_round_trip(void **state) {
  (void)state;
#ifdef LCTX_SOURCE_DIR
  const char *dir_name = LCTX_SOURCE_DIR "/conformance/cases";
  DIR *dir = opendir(dir_name);
  assert_non_null(dir);
  size_t files = 0;
  for (struct dirent *entry; (entry = readdir(dir)) != NULL;) {
    size_t len = strlen(entry->d_name);
    if (len < 6 || strcmp(entry->d_name + len - 5, ".case") != 0)
      continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir_name, entry->d_name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(g_text2, 1, sizeof g_text2, f);
    fclose(f);
    char error[512];
    if (!parse_exact(g_text2, n, &g_a, error, sizeof error)) {
      print_error("%s: %s\n", path, error);
      fail();
    }
    assert_valid(&g_a);
    size_t m = print_case(&g_a, g_text);
    assert_true(parse_exact(g_text, m, &g_b, error, sizeof error));
    assert_true(cases_equal(&g_a, &g_b));
    files++;
  }
  closedir(dir);
  assert_true(files > 0);
#else
  skip();
#endif
}

//===----------------------------------------------------------------------===//
// The canonical form
//===----------------------------------------------------------------------===//

static const char EXAMPLE[] =
    "# A hand-written case: comments, blanks, tabs, CRLF, odd spacing.\n"
    "\n"
    "   lctx-case 1   # the header\n"
    "factory \"cpu\" priority=0 loud client\r\n"
    "factory\t\"tpu\"\tpriority = 300 quiet raises \"TPU not found\"\n"
    "factory \"odd\\x4A\\\\\" priority=-1001 quiet none #c\n"
    "factory \"cuda\" priority=+400 loud no_devices\n"
    "nvidia_gpu visible\n"
    "jax_xla_backend \"x\"\n"
    "jax_platforms \"cpu,tpu\"\n"
    "jax_platform_name \"\"\n"
    "op backends\n"
    "expect platforms \"['cpu', 'tpu']\"\n"
    "op canonicalize \"gpu\"\n"
    "op get_backend None # no expectation\n"
    "op get_backend \"cpu\"\n"
    "expect client registry 0 \"cpu\"\n"
    "op module_get_backend platforms=[\"cpu\",\"tpu\" ] backend=\"rocm\" "
    "optional=true\n"
    "expect None\n"
    "op module_get_backend platforms=[ ] backend=None optional=false\n"
    "expect raise IndexError \"tuple index out of range\"\n"
    "op canonicalize \"\\t\\n\\r\\\"\\x01\\x7F\"\n"
    "expect string \"caf\xc3\xa9\"\n"
    "op get_backend \"\"\n"
    "expect client pinned \"rocm\"";

static const char EXAMPLE_CANONICAL[] =
    "lctx-case 1\n"
    "factory \"cpu\" priority=0 loud client\n"
    "factory \"tpu\" priority=300 quiet raises \"TPU not found\"\n"
    "factory \"oddJ\\\\\" priority=-1001 quiet none\n"
    "factory \"cuda\" priority=400 loud no_devices\n"
    "jax_platforms \"cpu,tpu\"\n"
    "jax_xla_backend \"x\"\n" CASE_FX_STOCK_OPS
    "expect client registry 0 \"cpu\"\n"
    "op module_get_backend platforms=[\"cpu\", \"tpu\"] backend=\"rocm\" "
    "optional=true\n"
    "expect None\n"
    "op module_get_backend platforms=[] backend=None optional=false\n"
    "expect raise IndexError \"tuple index out of range\"\n"
    "op canonicalize \"\\t\\n\\r\\\"\\x01\\x7f\"\n"
    "expect string \"caf\\xc3\\xa9\"\n"
    "op get_backend \"\"\n"
    "expect client pinned \"rocm\"\n";

static void test_example_fields(void **state) {
  (void)state;
  assert_parses(EXAMPLE, &g_a);
  assert_int_equal(g_a.factory_count, 4);
  assert_string_equal(g_a.factories[1].name, "tpu");
  assert_int_equal(g_a.factories[1].priority, 300);
  assert_true(g_a.factories[1].fail_quietly);
  assert_int_equal(g_a.factories[1].behaviour, LCTX_FACTORY_RAISES);
  assert_string_equal(g_a.factories[1].message, "TPU not found");
  assert_string_equal(g_a.factories[2].name, "oddJ\\");
  assert_int_equal(g_a.factories[2].priority, -1001);
  assert_int_equal(g_a.factories[2].behaviour, LCTX_FACTORY_RETURNS_NONE);
  assert_string_equal(g_a.factories[2].message, "");
  assert_int_equal(g_a.factories[3].behaviour, LCTX_FACTORY_NO_DEVICES);
  assert_string_equal(g_a.jax_platforms, "cpu,tpu");
  assert_string_equal(g_a.jax_platform_name, "");
  assert_string_equal(g_a.jax_xla_backend, "x");
  assert_true(g_a.nvidia_gpu_visible);
  assert_int_equal(g_a.op_count, 8);
  assert_int_equal(g_a.ops[1].kind, LCTX_OP_CANONICALIZE);
  assert_true(g_a.ops[1].has_arg);
  assert_false(g_a.ops[2].has_arg);
  assert_false(g_ea.has[1]);
  assert_false(g_ea.has[2]);
  assert_registry_client(&g_ea.outcome[3], 0, "cpu");
  assert_int_equal(g_a.ops[4].platform_count, 2);
  assert_string_equal(lctx_case_op_platform(&g_a, &g_a.ops[4], 1), "tpu");
  assert_true(g_a.ops[4].has_backend);
  assert_string_equal(g_a.ops[4].backend, "rocm");
  assert_true(g_a.ops[4].optional);
  assert_none(&g_ea.outcome[4]);
  assert_int_equal(g_a.ops[5].platform_count, 0);
  assert_false(g_a.ops[5].has_backend);
  assert_raise(&g_ea.outcome[5], LCTX_ERROR_INDEX, "tuple index out of range");
  assert_string_equal(g_a.ops[6].arg, "\t\n\r\"\x01\x7f");
  assert_string(&g_ea.outcome[6], "caf\xc3\xa9");
  assert_true(g_a.ops[7].has_arg);
  assert_string_equal(g_a.ops[7].arg, "");
  assert_pinned_client(&g_ea.outcome[7], "rocm");
  assert_valid(&g_a);
}

static void test_example_prints_canonically(void **state) {
  (void)state;
  assert_prints_canonically(EXAMPLE, EXAMPLE_CANONICAL);
}

static const char LOWERING_EXAMPLE[] =
    "lctx-case 1\n"
    "rule \"P.cpu\"   get_backend optional=true ,lower_fun \"Q\" "
    "compute_type = \"device_host\",marker # a comment\n"
    "rule \"Q.def\"\n"
    "factory \"cpu\" priority=0 loud client\n"
    "rule \"R.x\" raise_if_multi \"only one\\tplatform\", "
    "read_client_platform, try_fallback_get_backend, guarded_get_backend "
    "optional=false\n"
    "nvidia_gpu visible\n"
    "op register_lowering primitive=\"P\" rule=\"P.cpu\" platform=\"cpu\"\n"
    "expect None\n"
    "op register_lowering primitive = \"Q\" rule=\"Q.def\" platform=None\n"
    "op lower_per_platform primitive=\"P\" platforms=[\"cpu\", \"tpu\"] "
    "backend=None narrow=[ \"cpu\" ] compute_type=\"device\" override=\"R.x\" "
    "x64=false\n"
    "op lower_per_platform primitive=\"Q\" platforms=[] backend=\"cpu\" "
    "x64=true # i64\n"
    "op lower_per_platform primitive=\"S\" platforms=[\"cpu\"] backend=None "
    "narrow=[]\n";

static const char LOWERING_EXAMPLE_CANONICAL[] =
    "lctx-case 1\n"
    "factory \"cpu\" priority=0 loud client\n"
    "nvidia_gpu visible\n"
    "rule \"P.cpu\" get_backend optional=true, lower_fun \"Q\" "
    "compute_type=\"device_host\", marker\n"
    "rule \"Q.def\"\n"
    "rule \"R.x\" raise_if_multi \"only one\\tplatform\", "
    "read_client_platform, try_fallback_get_backend, guarded_get_backend "
    "optional=false\n"
    "op register_lowering primitive=\"P\" rule=\"P.cpu\" platform=\"cpu\"\n"
    "expect None\n"
    "op register_lowering primitive=\"Q\" rule=\"Q.def\" platform=None\n"
    "op lower_per_platform primitive=\"P\" platforms=[\"cpu\", \"tpu\"] "
    "backend=None narrow=[\"cpu\"] compute_type=\"device\" override=\"R.x\"\n"
    "op lower_per_platform primitive=\"Q\" platforms=[] backend=\"cpu\" "
    "x64=true\n"
    "op lower_per_platform primitive=\"S\" platforms=[\"cpu\"] backend=None "
    "narrow=[]\n";

static void test_lowering_example_fields(void **state) {
  (void)state;
  assert_parses(LOWERING_EXAMPLE, &g_a);
  assert_valid(&g_a);
  assert_int_equal(g_a.rule_count, 3);
  const lctx_case_rule *r = &g_a.rules[0];
  assert_string_equal(r->name, "P.cpu");
  assert_int_equal(r->action_count, 3);
  assert_int_equal(r->actions[0].kind, LCTX_ACTION_GET_BACKEND);
  assert_true(r->actions[0].optional);
  assert_int_equal(r->actions[1].kind, LCTX_ACTION_LOWER_FUN);
  assert_string_equal(r->actions[1].text, "Q");
  assert_true(r->actions[1].has_compute_type);
  assert_string_equal(r->actions[1].compute_type, "device_host");
  assert_int_equal(r->actions[2].kind, LCTX_ACTION_EMIT_MARKER);
  assert_string_equal(g_a.rules[1].name, "Q.def");
  assert_int_equal(g_a.rules[1].action_count, 0);
  r = &g_a.rules[2];
  assert_int_equal(r->action_count, 4);
  assert_int_equal(r->actions[0].kind, LCTX_ACTION_RAISE_IF_MULTI);
  assert_string_equal(r->actions[0].text, "only one\tplatform");
  assert_int_equal(r->actions[1].kind, LCTX_ACTION_READ_CLIENT_PLATFORM);
  assert_int_equal(r->actions[2].kind, LCTX_ACTION_TRY_FALLBACK_GET_BACKEND);
  assert_int_equal(r->actions[3].kind, LCTX_ACTION_GUARDED_GET_BACKEND);
  assert_false(r->actions[3].optional);
  assert_int_equal(g_a.op_count, 5);
  const lctx_case_op *op = &g_a.ops[0];
  assert_int_equal(op->kind, LCTX_OP_REGISTER_LOWERING);
  assert_string_equal(op->primitive, "P");
  assert_string_equal(op->rule, "P.cpu");
  assert_true(op->has_arg);
  assert_string_equal(op->arg, "cpu");
  assert_true(g_ea.has[0]);
  assert_false(g_a.ops[1].has_arg);
  op = &g_a.ops[2];
  assert_int_equal(op->kind, LCTX_OP_LOWER_PER_PLATFORM);
  assert_string_equal(op->primitive, "P");
  assert_int_equal(op->platform_count, 2);
  assert_string_equal(lctx_case_op_platform(&g_a, op, 1), "tpu");
  assert_false(op->has_backend);
  assert_true(op->has_narrow);
  assert_int_equal(op->narrow_count, 1);
  assert_string_equal(lctx_case_op_narrow(&g_a, op, 0), "cpu");
  assert_true(op->has_compute_type);
  assert_string_equal(op->compute_type, "device");
  assert_true(op->has_override);
  assert_string_equal(op->override, "R.x");
  assert_false(op->x64);
  op = &g_a.ops[3];
  assert_true(op->has_backend);
  assert_string_equal(op->backend, "cpu");
  assert_false(op->has_narrow);
  assert_false(op->has_compute_type);
  assert_false(op->has_override);
  assert_true(op->x64);
  assert_true(g_a.ops[4].has_narrow);
  assert_int_equal(g_a.ops[4].narrow_count, 0);
}

static void test_lowering_example_prints_canonically(void **state) {
  (void)state;
  assert_prints_canonically(LOWERING_EXAMPLE, LOWERING_EXAMPLE_CANONICAL);
}

/// The generated cases of the round trip hold every lowering part.
static void test_generated_cases_cover_lowering(void **state) {
  (void)state;
  case_gen g;
  case_gen_seed(&g, 0x7e47);
  size_t rules = 0, kinds[LCTX_OP_KIND_COUNT] = {0}, actions[7] = {0};
  size_t narrow = 0, compute = 0, override = 0, x64 = 0, platform = 0;
  size_t action_compute = 0, optional = 0;
  for (int round = 0; round < ROUNDS; round++) {
    lctx_case_expect_init(&g_ea);
    case_gen_case(&g, &g_a, &g_ea, CASE_GEN_EXPECT);
    rules += g_a.rule_count;
    for (size_t i = 0; i < g_a.rule_count; i++) {
      for (size_t k = 0; k < g_a.rules[i].action_count; k++) {
        const lctx_case_action *a = &g_a.rules[i].actions[k];
        actions[a->kind]++;
        action_compute += a->has_compute_type;
        optional += a->optional;
      }
    }
    for (size_t i = 0; i < g_a.op_count; i++) {
      const lctx_case_op *op = &g_a.ops[i];
      kinds[op->kind]++;
      if (op->kind == LCTX_OP_REGISTER_LOWERING)
        platform += op->has_arg;
      narrow += op->has_narrow;
      compute += op->has_compute_type;
      override += op->has_override;
      x64 += op->x64;
    }
  }
  print_message("rules %zu, register %zu, lower %zu, narrow %zu, compute "
                "%zu, override %zu, x64 %zu\n",
                rules, kinds[LCTX_OP_REGISTER_LOWERING],
                kinds[LCTX_OP_LOWER_PER_PLATFORM], narrow, compute, override,
                x64);
  assert_true(rules > ROUNDS);
  for (int k = 0; k < LCTX_OP_KIND_COUNT; k++)
    assert_true(kinds[k] > ROUNDS / 4);
  for (int k = 0; k < 7; k++)
    assert_true(actions[k] > ROUNDS / 10);
  assert_true(narrow > ROUNDS / 20 && compute > ROUNDS / 20);
  assert_true(override > ROUNDS / 20 && x64 > ROUNDS / 20);
  assert_true(platform > ROUNDS / 20 && action_compute > ROUNDS / 20);
  assert_true(optional > ROUNDS / 20);
}

static void test_empty_case_prints_header_and_gpu(void **state) {
  (void)state;
  lctx_case_init(&g_a);
  lctx_case_expect_init(&g_ea);
  lctx_buf b;
  lctx_buf_init(&b, g_text, sizeof g_text);
  lctx_case_print(&g_a, &g_ea, &b);
  assert_buf(&b, "lctx-case 1\nnvidia_gpu hidden\n");
  assert_parses("lctx-case 1", &g_b);
  assert_true(cases_equal(&g_a, &g_b));
  assert_parses("lctx-case 1\n\n# nothing else\n", &g_b);
  assert_true(cases_equal(&g_a, &g_b));
}

static void test_print_string_escapes_every_byte(void **state) {
  (void)state;
  char all[255];
  for (int i = 0; i < 255; i++)
    all[i] = (char)(i + 1);
  lctx_buf b;
  lctx_buf_init(&b, g_text, sizeof g_text);
  lctx_case_print_string(&b, all, sizeof all);
  /* Spot checks, then a round trip of all 255 bytes through an expect. */
  const char *prefix = "\"\\x01\\x02\\x03\\x04\\x05\\x06\\x07\\x08\\t\\n"
                       "\\x0b\\x0c\\r\\x0e";
  assert_true(strncmp(g_text, prefix, strlen(prefix)) == 0);
  assert_non_null(strstr(g_text, "\\x1f !\\\"#$%&'()*+,-./0123456789"));
  assert_non_null(strstr(g_text, "XYZ[\\\\]^_`abc"));
  assert_non_null(strstr(g_text, "xyz{|}~\\x7f\\x80\\x81"));
  assert_true(strcmp(g_text + b.length - 5, "\\xff\"") == 0);

  lctx_case_init(&g_a);
  lctx_case_expect_init(&g_ea);
  g_a.op_count = 1;
  g_ea.has[0] = true;
  lctx_buf w = lctx_outcome_begin_raise(&g_ea.outcome[0], LCTX_ERROR_VALUE);
  lctx_buf_append(&w, all, sizeof all);
  lctx_outcome_end(&g_ea.outcome[0], &w);
  size_t n = print_case(&g_a, g_text);
  char error[256];
  assert_true(parse_exact(g_text, n, &g_b, error, sizeof error));
  assert_true(cases_equal(&g_a, &g_b));
}

/// A case with every field at its limit and every name byte escaped.
static void make_maximal_case(lctx_case *c, lctx_case_expect *e) {
  lctx_case_init(c);
  lctx_case_expect_init(e);
  c->factory_count = LCTX_MAX_FACTORIES;
  for (size_t i = 0; i < LCTX_MAX_FACTORIES; i++) {
    lctx_case_factory *f = &c->factories[i];
    memset(f->name, 0x01, LCTX_MAX_NAME);
    f->name[0] = (char)(0x02 + i);
    memset(f->message, 0x1f, LCTX_MAX_MESSAGE);
    f->priority = INT_MIN;
    f->fail_quietly = true;
    f->behaviour = LCTX_FACTORY_RAISES;
  }
  memset(c->jax_platforms, 0x7f, LCTX_MAX_PLATFORMS_CONFIG);
  memset(c->jax_platform_name, 0x7f, LCTX_MAX_NAME);
  memset(c->jax_xla_backend, 0x7f, LCTX_MAX_NAME);
  c->nvidia_gpu_visible = true;
  /* Rules: every action a lower_fun of one unbound primitive, with a
   * compute type. */
  c->rule_count = LCTX_CASE_MAX_RULES;
  for (size_t i = 0; i < LCTX_CASE_MAX_RULES; i++) {
    lctx_case_rule *r = &c->rules[i];
    memset(r->name, 0x01, LCTX_MAX_NAME);
    r->name[0] = (char)(0x02 + i);
    r->action_count = LCTX_CASE_MAX_ACTIONS;
    for (size_t k = 0; k < LCTX_CASE_MAX_ACTIONS; k++) {
      r->actions[k].kind = LCTX_ACTION_LOWER_FUN;
      memset(r->actions[k].text, 0x03, LCTX_MAX_NAME);
      r->actions[k].has_compute_type = true;
      memset(r->actions[k].compute_type, 0x04, LCTX_MAX_NAME);
    }
  }
  /* Operations: lower_per_platform with every key at its limit (one rule
   * level below the override keeps the event bound). */
  c->op_count = LCTX_CASE_MAX_OPS;
  for (size_t i = 0; i < LCTX_CASE_MAX_OPS; i++) {
    lctx_case_op *op = &c->ops[i];
    op->kind = LCTX_OP_LOWER_PER_PLATFORM;
    memset(op->primitive, 0x07, LCTX_MAX_NAME);
    op->platform_count = LCTX_MAX_MODULE_PLATFORMS;
    char name[LCTX_MAX_NAME + 1] = {0};
    memset(name, 0x05, LCTX_MAX_NAME);
    for (size_t k = 0; k < LCTX_MAX_MODULE_PLATFORMS; k++)
      assert_true(lctx_case_intern_cstr(c, name, &op->platform[k]));
    op->has_backend = true;
    memset(op->backend, 0x06, LCTX_MAX_NAME);
    op->has_narrow = true;
    op->narrow_count = LCTX_MAX_MODULE_PLATFORMS;
    memset(name, 0x08, LCTX_MAX_NAME);
    for (size_t k = 0; k < LCTX_MAX_MODULE_PLATFORMS; k++)
      assert_true(lctx_case_intern_cstr(c, name, &op->narrowed[k]));
    op->has_compute_type = true;
    memset(op->compute_type, 0x0b, LCTX_MAX_NAME);
    op->has_override = true;
    memcpy(op->override, c->rules[i].name, sizeof op->override);
    op->x64 = true;
    e->has[i] = true;
    lctx_buf w =
        lctx_outcome_begin_raise(&e->outcome[i], LCTX_ERROR_NOT_IMPLEMENTED);
    for (int k = 0; k < LCTX_OUTCOME_TEXT_MAX - 1; k++)
      lctx_buf_append_char(&w, (char)0xfe);
    lctx_outcome_end(&e->outcome[i], &w);
  }
}

static void test_maximal_case_fits_text_max(void **state) {
  (void)state;
  make_maximal_case(&g_a, &g_ea);
  assert_valid(&g_a);
  size_t n = print_case(&g_a, g_text);
  assert_true(n < LCTX_CASE_TEXT_MAX);
  char error[256];
  assert_true(parse_exact(g_text, n, &g_b, error, sizeof error));
  assert_true(cases_equal(&g_a, &g_b));
}

static void test_print_into_small_buffer_overflows_safely(void **state) {
  (void)state;
  assert_parses(EXAMPLE, &g_a);
  char small[40];
  lctx_buf b;
  lctx_buf_init(&b, small, sizeof small);
  lctx_case_print(&g_a, &g_ea, &b);
  assert_true(b.overflow);
  assert_int_equal(b.length, sizeof small - 1);
  assert_int_equal(small[sizeof small - 1], '\0');
}

static void test_null_filename_and_text(void **state) {
  (void)state;
  char storage[256];
  lctx_buf e;
  lctx_buf_init(&e, storage, sizeof storage);
  assert_false(lctx_case_parse(NULL, 0, NULL, &g_a, &g_ea, &e));
  assert_buf(&e, "<input>:1:1: missing header: expected `lctx-case 1` "
                 "before the end of the input");
}

static void test_length_bounds_the_text(void **state) {
  (void)state;
  /* Bytes past `length` are never read: a header cut at 11 bytes parses. */
  const char text[] = "lctx-case 1garbage";
  char error[256];
  assert_true(parse_exact(text, 11, &g_a, error, sizeof error));
  assert_false(parse_exact(text, sizeof text - 1, &g_a, error, sizeof error));
  assert_string_equal(error, "t.case:1:11: unsupported format version "
                             "`1garbage` (this reader knows version 1)");
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

#define H "lctx-case 1\n"
#define CPU "factory \"cpu\" priority=0 loud client\n"

static void test_error_missing_header(void **state) {
  (void)state;
  assert_parse_error("", "t.case:1:1: missing header: expected `lctx-case 1` "
                         "before the end of the input");
  assert_parse_error("# only a comment\n\n",
                     "t.case:3:1: missing header: expected `lctx-case 1` "
                     "before the end of the input");
  assert_parse_error("  # x", "t.case:1:6: missing header: expected "
                              "`lctx-case 1` before the end of the input");
  assert_parse_error(CPU, "t.case:1:1: missing header: the first directive "
                          "must be `lctx-case 1`, found `factory`");
  assert_parse_error("\n  op backends\n",
                     "t.case:2:3: missing header: the first directive must "
                     "be `lctx-case 1`, found `op`");
}

static void test_error_header(void **state) {
  (void)state;
  assert_parse_error("lctx-case 2\n", "t.case:1:11: unsupported format "
                                      "version `2` (this reader knows "
                                      "version 1)");
  assert_parse_error("lctx-case\n",
                     "t.case:1:10: expected a format version, found end of "
                     "line");
  assert_parse_error(H "lctx-case 1\n", "t.case:2:1: duplicate `lctx-case` "
                                        "header (first on line 1)");
  assert_parse_error("lctx-case 1 1\n",
                     "t.case:1:13: trailing garbage after the directive: "
                     "`1`");
}

static void test_error_unknown_directive(void **state) {
  (void)state;
  assert_parse_error(H "frobnicate 3\n",
                     "t.case:2:1: unknown directive `frobnicate`");
  assert_parse_error(H "  \"cpu\"\n",
                     "t.case:2:3: expected a directive, found a string");
  assert_parse_error(H "=\n", "t.case:2:1: expected a directive, found `=`");
  assert_parse_error(H "\x01\n",
                     "t.case:2:1: expected a directive, found byte 0x01");
  assert_parse_error_n(H "op\0\n", 16,
                       "t.case:2:3: missing whitespace before byte 0x00");
  assert_parse_error(H "op backends\rx\n",
                     "t.case:2:12: missing whitespace before byte 0x0d");
}

static void test_error_string_escapes(void **state) {
  (void)state;
  assert_parse_error(H "factory \"c\\qu\" priority=0 loud client\n",
                     "t.case:2:11: bad string escape `\\q` (known: \\\\ \\\" "
                     "\\n \\t \\r \\xNN)");
  assert_parse_error(H "factory \"c\\x4\" priority=0 loud client\n",
                     "t.case:2:11: bad string escape: `\\x` takes two hex "
                     "digits");
  assert_parse_error(H "factory \"c\\x\n",
                     "t.case:2:11: bad string escape: `\\x` takes two hex "
                     "digits");
  assert_parse_error(H "factory \"c\\x00\" priority=0 loud client\n",
                     "t.case:2:11: bad string escape `\\x00`: NUL bytes are "
                     "not allowed");
  assert_parse_error(H "factory \"c\\\x01\" priority=0 loud client\n",
                     "t.case:2:11: bad string escape: `\\` followed by byte "
                     "0x01");
  assert_parse_error(H "factory \"c\tu\" priority=0 loud client\n",
                     "t.case:2:11: raw control byte 0x09 in a string (write "
                     "it as an escape)");
}

static void test_error_unterminated_string(void **state) {
  (void)state;
  assert_parse_error(H "factory \"cpu priority=0 loud client\n",
                     "t.case:2:9: unterminated string");
  assert_parse_error(H "factory \"cpu\\\" priority=0 loud client\n",
                     "t.case:2:9: unterminated string");
  assert_parse_error(H "factory \"cpu\\", "t.case:2:9: unterminated string");
  assert_parse_error(H "jax_platforms \"a\r\n\"",
                     "t.case:2:15: unterminated string");
}

static void test_error_tokens_need_whitespace(void **state) {
  (void)state;
  assert_parse_error(H "factory \"cpu\"priority=0 loud client\n",
                     "t.case:2:14: missing whitespace before `priority`");
  assert_parse_error(H "op backends#comment\n",
                     "t.case:2:12: missing whitespace before `#` (a comment "
                     "starts after whitespace)");
  assert_parse_error(H "op get_backend \"cpu\"#x\n",
                     "t.case:2:21: missing whitespace before `#` (a comment "
                     "starts after whitespace)");
  assert_parse_error(H "op get_backend None\"cpu\"\n",
                     "t.case:2:20: missing whitespace before a string");
}

static void test_error_factory_fields(void **state) {
  (void)state;
  assert_parse_error(H "factory cpu priority=0 loud client\n",
                     "t.case:2:9: expected a factory name string, found "
                     "`cpu`");
  assert_parse_error(H "factory \"cpu\" prio=0 loud client\n",
                     "t.case:2:15: expected `priority=INT`, found `prio`");
  assert_parse_error(H "factory \"cpu\" priority 0 loud client\n",
                     "t.case:2:24: expected `priority=INT`, found `0`");
  assert_parse_error(H "factory \"cpu\" priority=abc loud client\n",
                     "t.case:2:24: bad integer `abc`");
  assert_parse_error(H "factory \"cpu\" priority=1e3 loud client\n",
                     "t.case:2:24: bad integer `1e3`");
  assert_parse_error(H "factory \"cpu\" priority=- loud client\n",
                     "t.case:2:24: bad integer `-`");
  assert_parse_error(H "factory \"cpu\" priority= loud client\n",
                     "t.case:2:25: bad integer `loud`");
  assert_parse_error(H "factory \"cpu\" priority=2147483648 loud client\n",
                     "t.case:2:24: priority `2147483648` is out of int range "
                     "(-2147483648 to 2147483647)");
  assert_parse_error(H "factory \"cpu\" priority=-2147483649 loud client\n",
                     "t.case:2:24: priority `-2147483649` is out of int "
                     "range (-2147483648 to 2147483647)");
  assert_parse_error(H "factory \"cpu\" priority=99999999999999999999999 loud "
                       "client\n",
                     "t.case:2:24: priority `99999999999999999999999` is out "
                     "of int range (-2147483648 to 2147483647)");
  assert_parse_error(H "factory \"cpu\" priority=0 noisy client\n",
                     "t.case:2:26: expected `loud` or `quiet`, found "
                     "`noisy`");
  assert_parse_error(H "factory \"cpu\" priority=0 loud explode\n",
                     "t.case:2:31: unknown behaviour `explode` (expected "
                     "client, raises, none or no_devices)");
  assert_parse_error(H "factory \"cpu\" priority=0 loud\n",
                     "t.case:2:30: expected a behaviour, found end of line");
  assert_parse_error(H "factory \"cpu\" priority=0 loud raises\n",
                     "t.case:2:37: expected the raise message string, found "
                     "end of line");
  assert_parse_error(H "factory \"cpu\" priority=0 loud client \"msg\"\n",
                     "t.case:2:38: trailing garbage after the directive: a "
                     "string");
}

static void test_error_factory_limits(void **state) {
  (void)state;
  char text[4096];
  snprintf(text, sizeof text, H "factory \"%064d\" priority=0 loud client\n",
           0);
  assert_parse_error(text, "t.case:2:9: factory name too long (64 bytes, at "
                           "most 63)");
  snprintf(text, sizeof text, H "factory \"%063d\" priority=0 loud client\n",
           0);
  assert_parses(text, &g_a);
  snprintf(text, sizeof text,
           H "factory \"x\" priority=0 loud raises \"%0128d\"\n", 0);
  assert_parse_error(text, "t.case:2:36: factory message too long (128 "
                           "bytes, at most 127)");
  assert_parse_error(H "factory \"\\x80\" priority=0 loud client\n",
                     "t.case:2:9: factory name holds byte 0x80 outside "
                     "0x01-0x7f");
  assert_parse_error(H "factory \"caf\xc3\xa9\" priority=0 loud client\n",
                     "t.case:2:9: factory name holds byte 0xc3 outside "
                     "0x01-0x7f");
  assert_parse_error(H "factory \"x\" priority=0 loud raises \"\\xff\"\n",
                     "t.case:2:36: factory message holds byte 0xff outside "
                     "0x01-0x7f");
  size_t n = (size_t)snprintf(text, sizeof text, "%s", H);
  for (int i = 0; i < 17; i++)
    n += (size_t)snprintf(text + n, sizeof text - n,
                          "factory \"f%d\" priority=0 loud client\n", i);
  assert_parse_error(text, "t.case:18:1: too many factories (at most 16)");
}

static void test_error_duplicate_factory(void **state) {
  (void)state;
  assert_parse_error(H CPU "factory \"tpu\" priority=1 loud client\n"
                           "factory \"cpu\" priority=5 quiet none\n",
                     "t.case:4:9: duplicate factory name \"cpu\" (first on "
                     "line 2; a case file declares each factory once)");
}

static void test_error_config(void **state) {
  (void)state;
  char text[4096];
  assert_parse_error(H "jax_platforms \"a\"\njax_platforms \"b\"\n",
                     "t.case:3:1: duplicate `jax_platforms` directive "
                     "(first on line 2)");
  assert_parse_error(H "nvidia_gpu hidden\nnvidia_gpu visible\n",
                     "t.case:3:1: duplicate `nvidia_gpu` directive (first "
                     "on line 2)");
  assert_parse_error(H "nvidia_gpu maybe\n",
                     "t.case:2:12: expected `visible` or `hidden`, found "
                     "`maybe`");
  assert_parse_error(H "jax_platform_name cpu\n",
                     "t.case:2:19: expected a string, found `cpu`");
  snprintf(text, sizeof text, H "jax_platforms \"%0256d\"\n", 0);
  assert_parse_error(text, "t.case:2:15: jax_platforms value too long (256 "
                           "bytes, at most 255)");
  snprintf(text, sizeof text, H "jax_platforms \"%0255d\"\n", 0);
  assert_parses(text, &g_a);
  snprintf(text, sizeof text, H "jax_xla_backend \"%064d\"\n", 0);
  assert_parse_error(text, "t.case:2:17: jax_xla_backend value too long (64 "
                           "bytes, at most 63)");
  assert_parse_error(H "jax_platform_name \"\\x80\"\n",
                     "t.case:2:19: jax_platform_name value holds byte 0x80 "
                     "outside 0x01-0x7f");
  assert_parse_error(H "op backends\n" CPU,
                     "t.case:3:1: `factory` after an `op` (configuration "
                     "comes before the operations; first `op` on line 2)");
  assert_parse_error(H "op backends\nexpect None\nnvidia_gpu visible\n",
                     "t.case:4:1: `nvidia_gpu` after an `op` (configuration "
                     "comes before the operations; first `op` on line 2)");
}

static void test_error_operations(void **state) {
  (void)state;
  char text[8192];
  assert_parse_error(H "op frob\n",
                     "t.case:2:4: unknown operation `frob` (expected "
                     "backends, canonicalize, get_backend, "
                     "module_get_backend, register_lowering or "
                     "lower_per_platform)");
  assert_parse_error(H "op\n",
                     "t.case:2:3: expected an operation, found end of line");
  assert_parse_error(H "op backends extra\n",
                     "t.case:2:13: trailing garbage after the directive: "
                     "`extra`");
  assert_parse_error(H "op canonicalize gpu\n",
                     "t.case:2:17: expected a platform name string, found "
                     "`gpu`");
  assert_parse_error(H "op get_backend cpu\n",
                     "t.case:2:16: expected `None` or a string, found "
                     "`cpu`");
  assert_parse_error(H "op get_backend\n",
                     "t.case:2:15: expected `None` or a string, found end of "
                     "line");
  snprintf(text, sizeof text, H "op canonicalize \"%064d\"\n", 0);
  assert_parse_error(text, "t.case:2:17: canonicalize argument too long (64 "
                           "bytes, at most 63)");
  snprintf(text, sizeof text, H "op get_backend \"%064d\"\n", 0);
  assert_parse_error(text, "t.case:2:16: get_backend argument too long (64 "
                           "bytes, at most 63)");
  size_t n = (size_t)snprintf(text, sizeof text, "%s", H);
  for (int i = 0; i < 9; i++)
    n += (size_t)snprintf(text + n, sizeof text - n, "op backends\n");
  assert_parse_error(text, "t.case:10:1: too many operations (at most 8)");
}

static void test_error_module_get_backend(void **state) {
  (void)state;
  char text[8192];
  assert_parse_error(H "op module_get_backend backend=None optional=true\n",
                     "t.case:2:23: expected `platforms=[...]`, found "
                     "`backend`");
  assert_parse_error(H "op module_get_backend platforms=\"cpu\" backend=None "
                       "optional=true\n",
                     "t.case:2:33: expected `[`, found a string");
  assert_parse_error(H "op module_get_backend platforms=[\"cpu\",] "
                       "backend=None optional=true\n",
                     "t.case:2:40: expected a platform string, found `]`");
  assert_parse_error(H "op module_get_backend platforms=[\"cpu\" \"tpu\"] "
                       "backend=None optional=true\n",
                     "t.case:2:40: expected `,` or `]`, found a string");
  assert_parse_error(H "op module_get_backend platforms=[\"cpu\"\n",
                     "t.case:2:39: expected `,` or `]`, found end of line");
  assert_parse_error(H "op module_get_backend platforms=[] optional=true\n",
                     "t.case:2:36: expected `backend=None` or "
                     "`backend=\"...\"`, found `optional`");
  assert_parse_error(H "op module_get_backend platforms=[] backend=cpu "
                       "optional=true\n",
                     "t.case:2:44: expected `None` or a string, found "
                     "`cpu`");
  assert_parse_error(H "op module_get_backend platforms=[] backend=None "
                       "optional=maybe\n",
                     "t.case:2:58: expected `true` or `false`, found "
                     "`maybe`");
  assert_parse_error(H "op module_get_backend platforms=[] backend=None\n",
                     "t.case:2:48: expected `optional=true` or "
                     "`optional=false`, found end of line");
  assert_parse_error(H "op module_get_backend platforms=[\"\\x80\"] "
                       "backend=None optional=true\n",
                     "t.case:2:34: module platform holds byte 0x80 outside "
                     "0x01-0x7f");
  assert_parse_error(H "op module_get_backend platforms=[] backend=\"\\xc3\" "
                       "optional=true\n",
                     "t.case:2:44: backend holds byte 0xc3 outside "
                     "0x01-0x7f");
  size_t n = (size_t)snprintf(text, sizeof text,
                              H "op module_get_backend platforms=[");
  for (int i = 0; i < 17; i++)
    n += (size_t)snprintf(text + n, sizeof text - n, "%s\"p%02d\"",
                          i ? ", " : "", i);
  snprintf(text + n, sizeof text - n, "] backend=None optional=false\n");
  /* 33 bytes of prefix, 5 for the first entry, 7 (`, "pNN"`) for each of
   * the next 15, then `, ` before the 17th. */
  assert_parse_error(text, "t.case:2:146: too many platforms (at most 16)");
}

/// A case holds at most LCTX_CASE_MAX_NAMES distinct platform names (module
/// and narrowed, all operations together); a name seen before is reused.
static void test_error_too_many_platform_names(void **state) {
  (void)state;
  char text[8192];
  size_t n = (size_t)snprintf(text, sizeof text, H);
  for (int op = 0; op < 4; op++) {
    n += (size_t)snprintf(text + n, sizeof text - n,
                          "op module_get_backend platforms=[");
    for (int i = 0; i < 12; i++)
      n += (size_t)snprintf(text + n, sizeof text - n, "%s\"a%02d\"",
                            i ? ", " : "", op * 12 + i);
    n += (size_t)snprintf(text + n, sizeof text - n,
                          "] backend=None optional=false\n");
  }
  _Static_assert(LCTX_CASE_MAX_NAMES == 48, "the text above holds 48 names");
  assert_parses(text, &g_a);
  assert_int_equal(g_a.name_count, 48);
  snprintf(text + n, sizeof text - n,
           "op module_get_backend platforms=[\"a00\", \"zz\"] "
           "backend=None optional=false\n");
  assert_parse_error(text, "t.case:6:41: too many distinct platform names in "
                           "the case (at most 48, module and narrowed "
                           "platforms of all operations together)");
}

static void test_error_rules(void **state) {
  (void)state;
  char text[4096];
  assert_parse_error(H "rule \"x\" frob\n",
                     "t.case:2:10: unknown action `frob` (expected marker, "
                     "get_backend, guarded_get_backend, "
                     "try_fallback_get_backend, read_client_platform, "
                     "raise_if_multi or lower_fun)");
  assert_parse_error(H "rule \"x\" get_backend\n",
                     "t.case:2:21: expected `optional=true` or "
                     "`optional=false`, found end of line");
  assert_parse_error(H "rule \"x\" get_backend optional=maybe\n",
                     "t.case:2:31: expected `true` or `false`, found "
                     "`maybe`");
  assert_parse_error(H "rule \"x\" marker marker\n",
                     "t.case:2:17: expected `,` or end of line, found "
                     "`marker`");
  assert_parse_error(H "rule \"x\" marker,\n",
                     "t.case:2:17: expected an action, found end of line");
  assert_parse_error(H "rule \"x\" marker, # x\n",
                     "t.case:2:21: expected an action, found end of line");
  assert_parse_error(H "rule \"x\" raise_if_multi\n",
                     "t.case:2:24: expected the message string, found end of "
                     "line");
  assert_parse_error(H "rule \"x\" lower_fun Q\n",
                     "t.case:2:20: expected a primitive name string, found "
                     "`Q`");
  assert_parse_error(H "rule \"x\" lower_fun \"Q\" compute_type\n",
                     "t.case:2:36: expected `compute_type=\"...\"`, found end "
                     "of line");
  assert_parse_error(H "rule \"x\" lower_fun \"Q\" compute_type=cpu\n",
                     "t.case:2:37: expected a compute type string, found "
                     "`cpu`");
  assert_parse_error(H "rule x\n",
                     "t.case:2:6: expected a rule name string, found `x`");
  assert_parse_error(H "rule \"\" marker\n",
                     "t.case:2:6: empty rule name (a rule needs a name)");
  snprintf(text, sizeof text, H "rule \"%064d\"\n", 0);
  assert_parse_error(text, "t.case:2:6: rule name too long (64 bytes, at most "
                           "63)");
  assert_parse_error(H "rule \"x\" raise_if_multi \"\\x80\"\n",
                     "t.case:2:25: raise_if_multi message holds byte 0x80 "
                     "outside 0x01-0x7f");
  snprintf(text, sizeof text, H "rule \"x\" lower_fun \"%064d\"\n", 0);
  assert_parse_error(text, "t.case:2:20: lower_fun primitive too long (64 "
                           "bytes, at most 63)");
  snprintf(text, sizeof text,
           H "rule \"x\" lower_fun \"Q\" compute_type=\"%064d\"\n", 0);
  assert_parse_error(text, "t.case:2:37: compute type too long (64 bytes, at "
                           "most 63)");
  assert_parse_error(H "rule \"a\"\nrule \"b\" marker\nrule \"a\" marker\n",
                     "t.case:4:6: duplicate rule name \"a\" (first on line "
                     "2)");
  assert_parse_error(H "rule \"x\" marker, marker, marker, marker, marker\n",
                     "t.case:2:42: too many actions in one rule (at most 4)");
  size_t n = (size_t)snprintf(text, sizeof text, "%s", H);
  for (int i = 0; i < 9; i++)
    n += (size_t)snprintf(text + n, sizeof text - n, "rule \"r%d\"\n", i);
  assert_parse_error(text, "t.case:10:1: too many rules (at most 8)");
  assert_parse_error(H "op backends\nrule \"x\"\n",
                     "t.case:3:1: `rule` after an `op` (configuration comes "
                     "before the operations; first `op` on line 2)");
  /* Nine primitive names: the rule that brings the ninth fails. */
  assert_parse_error(H "rule \"a\" lower_fun \"1\", lower_fun \"2\", "
                       "lower_fun \"3\", lower_fun \"4\"\n"
                       "rule \"b\" lower_fun \"5\", lower_fun \"6\", "
                       "lower_fun \"7\", lower_fun \"8\"\n"
                       "rule \"c\" lower_fun \"8\", lower_fun \"9\"\n",
                     "t.case:4:1: this `rule` makes the case invalid: "
                     "primitives: more than 8 distinct names");
}

#define R "rule \"r\" marker\n"
#define L                                                                      \
  "op lower_per_platform primitive=\"P\" platforms=[\"cpu\"] backend=None"

static void test_error_register_lowering(void **state) {
  (void)state;
  assert_parse_error(H R "op register_lowering \"P\"\n",
                     "t.case:3:22: expected `primitive=\"...\"`, found a "
                     "string");
  assert_parse_error(H R "op register_lowering primitive=P rule=\"r\" "
                         "platform=None\n",
                     "t.case:3:32: expected a primitive name string, found "
                     "`P`");
  assert_parse_error(H R "op register_lowering primitive=\"P\" platform=None "
                         "rule=\"r\"\n",
                     "t.case:3:36: expected `rule=\"...\"`, found "
                     "`platform`");
  assert_parse_error(H R "op register_lowering primitive=\"P\" rule=\"q\" "
                         "platform=None\n",
                     "t.case:3:41: rule \"q\" is not declared (a `rule` "
                     "directive before the operations declares it)");
  assert_parse_error(H "op register_lowering primitive=\"P\" rule=\"r\" "
                       "platform=None\n",
                     "t.case:2:41: rule \"r\" is not declared (a `rule` "
                     "directive before the operations declares it)");
  assert_parse_error(H R "op register_lowering primitive=\"P\" rule=\"r\"\n",
                     "t.case:3:44: expected `platform=None` or "
                     "`platform=\"...\"`, found end of line");
  assert_parse_error(H R "op register_lowering primitive=\"P\" rule=\"r\" "
                         "platform=cpu\n",
                     "t.case:3:54: expected `None` or a string, found `cpu`");
  assert_parse_error(H R "op register_lowering primitive=\"P\" rule=\"r\" "
                         "platform=\"\\x80\"\n",
                     "t.case:3:54: register_lowering platform holds byte "
                     "0x80 outside 0x01-0x7f");
  assert_parse_error(H R "op register_lowering primitive=\"\\xff\" rule=\"r\" "
                         "platform=None\n",
                     "t.case:3:32: primitive holds byte 0xff outside "
                     "0x01-0x7f");
  assert_parse_error(H R "op register_lowering primitive=\"P\" rule=\"r\" "
                         "platform=None x64=true\n",
                     "t.case:3:59: trailing garbage after the directive: "
                     "`x64`");
}

static void test_error_lower_per_platform(void **state) {
  (void)state;
  char text[8192];
  assert_parse_error(H "op lower_per_platform platforms=[] backend=None\n",
                     "t.case:2:23: expected `primitive=\"...\"`, found "
                     "`platforms`");
  assert_parse_error(H "op lower_per_platform primitive=\"P\" backend=None\n",
                     "t.case:2:37: expected `platforms=[...]`, found "
                     "`backend`");
  assert_parse_error(H "op lower_per_platform primitive=\"P\" platforms=[]\n",
                     "t.case:2:49: expected `backend=None` or "
                     "`backend=\"...\"`, found end of line");
  assert_parse_error(H L " x64=maybe\n",
                     "t.case:2:72: expected `true` or `false`, found "
                     "`maybe`");
  assert_parse_error(H L " x64\n", "t.case:2:71: expected `x64=true` or "
                                   "`x64=false`, found end of line");
  assert_parse_error(H L " x64=true narrow=[]\n",
                     "t.case:2:77: `narrow` out of order (the optional keys "
                     "come in the order narrow, compute_type, override, "
                     "x64)");
  assert_parse_error(H L " narrow=[] narrow=[]\n",
                     "t.case:2:78: duplicate key `narrow`");
  assert_parse_error(H L " narrow=\"cpu\"\n",
                     "t.case:2:75: expected `[`, found a string");
  assert_parse_error(H L " narrow=[\"\\x80\"]\n",
                     "t.case:2:76: narrow platform holds byte 0x80 outside "
                     "0x01-0x7f");
  assert_parse_error(H L " compute_type=device\n",
                     "t.case:2:81: expected a compute type string, found "
                     "`device`");
  assert_parse_error(H L " override=\"q\"\n",
                     "t.case:2:77: rule \"q\" is not declared (a `rule` "
                     "directive before the operations declares it)");
  assert_parse_error(H L " frob=1\n",
                     "t.case:2:68: trailing garbage after the directive: "
                     "`frob`");
  assert_parse_error(H L " optional=true\n",
                     "t.case:2:68: trailing garbage after the directive: "
                     "`optional`");
  size_t n = (size_t)snprintf(text, sizeof text, H L " narrow=[");
  for (int i = 0; i < 17; i++)
    n += (size_t)snprintf(text + n, sizeof text - n, "%s\"p%02d\"",
                          i ? ", " : "", i);
  snprintf(text + n, sizeof text - n, "]\n");
  /* 75 bytes before the first entry, 5 for it, 7 for each of the next 15,
   * then `, ` before the 17th. */
  assert_parse_error(text, "t.case:2:188: too many narrow platforms (at most "
                           "16)");
}

static void test_error_lowering_validation(void **state) {
  (void)state;
  char text[8192];
  /* A lower_fun cycle, through a registration or an override. */
  assert_parse_error(H "rule \"P.r\" lower_fun \"P\"\n"
                       "op register_lowering primitive=\"P\" rule=\"P.r\" "
                       "platform=None\n",
                     "t.case:3:1: this `op` makes the case invalid: rules: "
                     "primitive 'P' reaches itself through lower_fun (JAX "
                     "would not end)");
  assert_parse_error(H "rule \"P.r\" lower_fun \"Q\"\n"
                       "rule \"Q.r\" marker, lower_fun \"P\"\n"
                       "op register_lowering primitive=\"Q\" rule=\"Q.r\" "
                       "platform=\"cpu\"\n"
                       "op backends\n"
                       "op lower_per_platform primitive=\"P\" platforms=[] "
                       "backend=None override=\"P.r\"\n",
                     "t.case:6:1: this `op` makes the case invalid: rules: "
                     "primitive 'Q' reaches itself through lower_fun (JAX "
                     "would not end)");
  /* lower_fun nested five deep: A -> B -> C -> D -> E -> F. */
  const char *chain = H "rule \"a\" lower_fun \"B\"\n"
                        "rule \"b\" lower_fun \"C\"\n"
                        "rule \"c\" lower_fun \"D\"\n"
                        "rule \"d\" lower_fun \"E\"\n"
                        "rule \"e\" lower_fun \"F\"\n"
                        "op register_lowering primitive=\"A\" rule=\"a\" "
                        "platform=None\n"
                        "op register_lowering primitive=\"B\" rule=\"b\" "
                        "platform=None\n"
                        "op register_lowering primitive=\"C\" rule=\"c\" "
                        "platform=None\n"
                        "op register_lowering primitive=\"D\" rule=\"d\" "
                        "platform=None\n";
  assert_parses(chain, &g_a);
  snprintf(text, sizeof text,
           "%sop register_lowering primitive=\"E\" rule=\"e\" "
           "platform=None\n",
           chain);
  assert_parse_error(text, "t.case:11:1: this `op` makes the case invalid: "
                           "rules: lower_fun nested more than 4 deep");
  /* The event bound: 17 slots of a rule of four actions. */
  char platforms[512];
  size_t n = 0;
  for (int i = 0; i < 16; i++)
    n += (size_t)snprintf(platforms + n, sizeof platforms - n, "%s\"p%d\"",
                          i ? ", " : "", i);
  snprintf(text, sizeof text,
           H "rule \"big\" marker, marker, marker, marker\n"
             "op register_lowering primitive=\"P\" rule=\"big\" "
             "platform=None\n"
             "op lower_per_platform primitive=\"P\" platforms=[%s] "
             "backend=None\n",
           platforms);
  assert_parse_error(text, "t.case:4:1: this `op` makes the case invalid: "
                           "operations[1]: this lowering may record more "
                           "than 128 events (the model's limit); use fewer "
                           "platforms, rules or lower_fun actions");
  /* The same, the registration last: the error is on its line and names
   * the lowering it makes too large. */
  snprintf(text, sizeof text,
           H "rule \"big\" marker, marker, marker, marker\n"
             "op lower_per_platform primitive=\"P\" platforms=[%s] "
             "backend=None\n"
             "op register_lowering primitive=\"P\" rule=\"big\" "
             "platform=None\n",
           platforms);
  assert_parse_error(text, "t.case:4:1: this `op` makes the case invalid: "
                           "operations[0]: this lowering may record more "
                           "than 128 events (the model's limit); use fewer "
                           "platforms, rules or lower_fun actions");
}

static void test_error_expectations(void **state) {
  (void)state;
  static char text[LCTX_OUTCOME_TEXT_MAX + 64];
  assert_parse_error(H "expect None\n",
                     "t.case:2:1: `expect` without a preceding `op`");
  assert_parse_error(H CPU "expect None\n",
                     "t.case:3:1: `expect` without a preceding `op`");
  assert_parse_error(H "op backends\nexpect None\n# x\nexpect None\n",
                     "t.case:5:1: second `expect` for one `op` (the first "
                     "is on line 3)");
  assert_parse_error(H "op backends\nexpect maybe\n",
                     "t.case:3:8: unknown outcome `maybe` (expected None, "
                     "string, platforms, client or raise)");
  assert_parse_error(H "op backends\nexpect none\n",
                     "t.case:3:8: unknown outcome `none` (expected None, "
                     "string, platforms, client or raise)");
  assert_parse_error(H "op backends\nexpect string cuda\n",
                     "t.case:3:15: expected a string, found `cuda`");
  assert_parse_error(H "op backends\nexpect client local \"cpu\"\n",
                     "t.case:3:15: expected `registry` or `pinned`, found "
                     "`local`");
  assert_parse_error(H "op backends\nexpect client registry \"cpu\"\n",
                     "t.case:3:24: expected registration index, found a "
                     "string");
  assert_parse_error(H "op backends\nexpect client registry -1 \"cpu\"\n",
                     "t.case:3:24: registration index `-1` is out of range "
                     "(0 to 2147483647)");
  assert_parse_error(H "op backends\nexpect client registry 0x1 \"cpu\"\n",
                     "t.case:3:24: bad integer `0x1`");
  assert_parse_error(H "op backends\nexpect client pinned 0 \"cpu\"\n",
                     "t.case:3:22: expected the client's platform string, "
                     "found `0`");
  assert_parse_error(H "op backends\nexpect raise KeyError \"k\"\n",
                     "t.case:3:14: unknown error class `KeyError` (expected "
                     "RuntimeError, ValueError, NotImplementedError, "
                     "AssertionError or IndexError)");
  assert_parse_error(H "op backends\nexpect raise AssertionError\n",
                     "t.case:3:28: expected the message string, found end of "
                     "line");
  assert_parse_error(H "op backends\nexpect None None\n",
                     "t.case:3:13: trailing garbage after the directive: "
                     "`None`");
  size_t n =
      (size_t)snprintf(text, sizeof text, H "op backends\nexpect string \"");
  memset(text + n, 'a', LCTX_OUTCOME_TEXT_MAX);
  n += LCTX_OUTCOME_TEXT_MAX;
  memcpy(text + n, "\"\n", 3);
  assert_parse_error(text, "t.case:3:15: expected text too long (8192 bytes, "
                           "at most 8191)");
  /* One byte less fits. */
  text[n - 1] = '"';
  text[n] = '\0';
  assert_parses(text, &g_a);
  assert_int_equal(g_ea.outcome[0].length, LCTX_OUTCOME_TEXT_MAX - 1);
}

static void test_error_long_token_is_cut(void **state) {
  (void)state;
  char text[256];
  snprintf(text, sizeof text, H "op %060d\n", 7);
  assert_parse_error(text, "t.case:2:4: unknown operation "
                           "`0000000000000000000000000000000000000000...` "
                           "(expected backends, canonicalize, get_backend, "
                           "module_get_backend, register_lowering or "
                           "lower_per_platform)");
}

static void test_error_writer_overflow_is_safe(void **state) {
  (void)state;
  char small[8];
  lctx_buf e;
  lctx_buf_init(&e, small, sizeof small);
  assert_false(
      lctx_case_parse("op", 2, "a-long-file-name.case", &g_a, &g_ea, &e));
  assert_true(e.overflow);
  assert_string_equal(small, "a-long-");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_print_round_trip_generated),
      cmocka_unit_test(test_print_is_ascii_one_directive_per_line),
      cmocka_unit_test(test_mutated_text_is_total),
      cmocka_unit_test(test_random_bytes_are_total),
      cmocka_unit_test(test_conformance_cases_round_trip),
      cmocka_unit_test(test_example_fields),
      cmocka_unit_test(test_example_prints_canonically),
      cmocka_unit_test(test_lowering_example_fields),
      cmocka_unit_test(test_lowering_example_prints_canonically),
      cmocka_unit_test(test_generated_cases_cover_lowering),
      cmocka_unit_test(test_empty_case_prints_header_and_gpu),
      cmocka_unit_test(test_print_string_escapes_every_byte),
      cmocka_unit_test(test_maximal_case_fits_text_max),
      cmocka_unit_test(test_print_into_small_buffer_overflows_safely),
      cmocka_unit_test(test_null_filename_and_text),
      cmocka_unit_test(test_length_bounds_the_text),
      cmocka_unit_test(test_error_missing_header),
      cmocka_unit_test(test_error_header),
      cmocka_unit_test(test_error_unknown_directive),
      cmocka_unit_test(test_error_string_escapes),
      cmocka_unit_test(test_error_unterminated_string),
      cmocka_unit_test(test_error_tokens_need_whitespace),
      cmocka_unit_test(test_error_factory_fields),
      cmocka_unit_test(test_error_factory_limits),
      cmocka_unit_test(test_error_duplicate_factory),
      cmocka_unit_test(test_error_config),
      cmocka_unit_test(test_error_operations),
      cmocka_unit_test(test_error_module_get_backend),
      cmocka_unit_test(test_error_too_many_platform_names),
      cmocka_unit_test(test_error_rules),
      cmocka_unit_test(test_error_register_lowering),
      cmocka_unit_test(test_error_lower_per_platform),
      cmocka_unit_test(test_error_lowering_validation),
      cmocka_unit_test(test_error_expectations),
      cmocka_unit_test(test_error_long_token_is_cut),
      cmocka_unit_test(test_error_writer_overflow_is_safe),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
