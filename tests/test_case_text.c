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
 * Every parse error message is pinned in test_case_text_errors.c.
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
#include "case_text_fx.h"
#include "test_support.h"

#define ROUNDS 20000

static char g_text2[LCTX_CASE_TEXT_MAX];

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
      expects += lctx_case_expect_has(&g_ea, i);
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
  assert_false(lctx_case_expect_has(&g_ea, 1));
  assert_false(lctx_case_expect_has(&g_ea, 2));
  assert_registry_client(case_fx_expect(&g_ea, 3), 0, "cpu");
  assert_int_equal(g_a.ops[4].platform_count, 2);
  assert_string_equal(lctx_case_op_platform(&g_a, &g_a.ops[4], 1), "tpu");
  assert_true(g_a.ops[4].has_backend);
  assert_string_equal(g_a.ops[4].backend, "rocm");
  assert_true(g_a.ops[4].optional);
  assert_none(case_fx_expect(&g_ea, 4));
  assert_int_equal(g_a.ops[5].platform_count, 0);
  assert_false(g_a.ops[5].has_backend);
  assert_raise(case_fx_expect(&g_ea, 5), LCTX_ERROR_INDEX,
               "tuple index out of range");
  assert_string_equal(g_a.ops[6].arg, "\t\n\r\"\x01\x7f");
  assert_string(case_fx_expect(&g_ea, 6), "caf\xc3\xa9");
  assert_true(g_a.ops[7].has_arg);
  assert_string_equal(g_a.ops[7].arg, "");
  assert_pinned_client(case_fx_expect(&g_ea, 7), "rocm");
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
  assert_true(lctx_case_expect_has(&g_ea, 0));
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
  static lctx_outcome o;
  lctx_buf w = lctx_outcome_begin_raise(&o, LCTX_ERROR_VALUE);
  lctx_buf_append(&w, all, sizeof all);
  lctx_outcome_end(&o, &w);
  assert_true(lctx_case_expect_set(&g_ea, 0, &o));
  size_t n = print_case(&g_a, g_text);
  char error[256];
  assert_true(parse_exact(g_text, n, &g_b, error, sizeof error));
  assert_true(cases_equal(&g_a, &g_b));
}

/// A case with every field at its limit and every name byte escaped; its
/// expectations are raises whose texts fill the case's pool, the first one
/// as long as an outcome's text may be.
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
    static lctx_outcome o;
    size_t room = LCTX_CASE_EXPECT_TEXT_MAX - e->used;
    size_t n =
        i == 0 ? LCTX_OUTCOME_TEXT_MAX - 1 : room / (LCTX_CASE_MAX_OPS - i);
    lctx_buf w = lctx_outcome_begin_raise(&o, LCTX_ERROR_NOT_IMPLEMENTED);
    for (size_t k = 0; k < n; k++)
      lctx_buf_append_char(&w, (char)0xfe);
    lctx_outcome_end(&o, &w);
    assert_true(lctx_case_expect_set(e, i, &o));
  }
  assert_int_equal(e->used, LCTX_CASE_EXPECT_TEXT_MAX);
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

//===----------------------------------------------------------------------===//
// The expectations' one pool of text (case.h's lctx_case_expect)
//===----------------------------------------------------------------------===//

/// A raise whose message is `n` bytes `byte`.
static const lctx_outcome *raise_of(size_t n, char byte) {
  static lctx_outcome o;
  lctx_buf w = lctx_outcome_begin_raise(&o, LCTX_ERROR_VALUE);
  for (size_t k = 0; k < n; k++)
    lctx_buf_append_char(&w, byte);
  lctx_outcome_end(&o, &w);
  return &o;
}

/// Fails unless operation `i` of `e` expects raise_of(n, byte).
static void assert_expects(const lctx_case_expect *e, size_t i, size_t n,
                           char byte) {
  const lctx_outcome *o = case_fx_expect(e, i);
  assert_int_equal(o->kind, LCTX_OUTCOME_RAISE);
  assert_int_equal(o->error, LCTX_ERROR_VALUE);
  assert_int_equal(o->length, n);
  for (size_t k = 0; k < n; k++)
    assert_int_equal(o->text[k], byte);
  assert_int_equal(o->text[n], '\0');
}

static void test_expect_texts_share_one_pool(void **state) {
  (void)state;
  lctx_case_expect_init(&g_ea);
  assert_true(lctx_case_expect_set(&g_ea, 0, raise_of(100, 'a')));
  assert_true(lctx_case_expect_set(&g_ea, 1, raise_of(200, 'b')));
  assert_true(lctx_case_expect_set(&g_ea, 2, raise_of(300, 'c')));
  /* Replacing one closes its gap; the others keep their texts. */
  assert_true(lctx_case_expect_set(&g_ea, 0, raise_of(5, 'd')));
  assert_int_equal(g_ea.used, 505);
  assert_expects(&g_ea, 0, 5, 'd');
  assert_expects(&g_ea, 1, 200, 'b');
  assert_expects(&g_ea, 2, 300, 'c');
  assert_false(lctx_case_expect_has(&g_ea, 3));
  for (size_t k = g_ea.used; k < LCTX_CASE_EXPECT_TEXT_MAX; k++)
    assert_int_equal(g_ea.text[k], 0);
  /* Equal whatever the order they were set in; a byte apart, not. */
  lctx_case_expect_init(&g_eb);
  assert_true(lctx_case_expect_set(&g_eb, 2, raise_of(300, 'c')));
  assert_true(lctx_case_expect_set(&g_eb, 1, raise_of(200, 'b')));
  assert_true(lctx_case_expect_set(&g_eb, 0, raise_of(5, 'd')));
  assert_true(lctx_case_expect_equal(&g_ea, &g_eb, 3));
  assert_true(lctx_case_expect_set(&g_eb, 1, raise_of(200, 'B')));
  assert_false(lctx_case_expect_equal(&g_ea, &g_eb, 3));
  /* The pool filled to the byte; one more is refused, changing nothing. */
  size_t room = LCTX_CASE_EXPECT_TEXT_MAX - g_ea.used;
  assert_true(
      lctx_case_expect_set(&g_ea, 3, raise_of(LCTX_OUTCOME_TEXT_MAX - 1, 'e')));
  room -= LCTX_OUTCOME_TEXT_MAX - 1;
  assert_false(lctx_case_expect_set(&g_ea, 4, raise_of(room + 1, 'f')));
  assert_false(lctx_case_expect_has(&g_ea, 4));
  assert_true(lctx_case_expect_set(&g_ea, 4, raise_of(room, 'f')));
  assert_int_equal(g_ea.used, LCTX_CASE_EXPECT_TEXT_MAX);
  assert_false(lctx_case_expect_set(&g_ea, 5, raise_of(1, 'g')));
  assert_false(lctx_case_expect_set(&g_ea, 2, raise_of(301, 'g')));
  assert_expects(&g_ea, 2, 300, 'c');
  /* A shorter text in place of a longer one makes room. */
  assert_true(lctx_case_expect_set(&g_ea, 2, raise_of(299, 'h')));
  assert_true(lctx_case_expect_set(&g_ea, 5, raise_of(1, 'g')));
  assert_expects(&g_ea, 3, LCTX_OUTCOME_TEXT_MAX - 1, 'e');
  assert_expects(&g_ea, 4, room, 'f');
  /* No outcome text is longer than the protocol's 8191 bytes. */
  lctx_case_expect_init(&g_eb);
  static lctx_outcome o;
  lctx_outcome_copy(&o, raise_of(10, 'x'));
  o.length = LCTX_OUTCOME_TEXT_MAX;
  assert_false(lctx_case_expect_set(&g_eb, 0, &o));
  assert_false(
      lctx_case_expect_set(&g_eb, LCTX_CASE_MAX_OPS, raise_of(1, 'x')));
  /* Reset equals init byte for byte. */
  lctx_case_expect_reset(&g_ea);
  lctx_case_expect_init(&g_eb);
  assert_memory_equal(&g_ea, &g_eb, sizeof g_ea);
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
      cmocka_unit_test(test_expect_texts_share_one_pool),
      cmocka_unit_test(test_print_into_small_buffer_overflows_safely),
      cmocka_unit_test(test_null_filename_and_text),
      cmocka_unit_test(test_length_bounds_the_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
