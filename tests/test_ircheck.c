/*
 * tests/test_ircheck.c - pins the IR checker (harness/ir/ircheck.h) on
 * hand-written modules.
 *
 * - Correct modules pass: one platform (no argument, no switch), two
 *   platforms (two scf.index_switch ops), x64 (an i64 index).
 * - JAX's nested-index defect (semantics.md section 7): module
 *   (cpu, tpu, cuda), P with a cpu rule and a default whose sub-primitive Q
 *   has tpu and cuda rules; tpu runs Q's cuda rule. Reported under IR-006,
 *   not IR-005, when the caller marks what JAX really runs; under IR-005
 *   when it does not. Both as scf.index_switch and as generic
 *   "stablehlo.case" ops.
 * - A module jax 0.10.2 emitted (generic form, x64): the defect under
 *   IR-006 only; the wrong index type; a changed slot under IR-005.
 * - Wrong modules, each row by ID and exact message: IR-001 (missing index,
 *   index for a single platform, i64 for i32), IR-002 (first switch too
 *   short, non-constant slot), IR-003 (second switch too short), IR-004 (a
 *   switch for one kept rule), IR-005 (a platform sent to the wrong rule),
 *   IR-000 (text that does not parse, a module that does not verify, with
 *   line:col).
 * - Recycling: 1000 checks, a new context every 100, nothing leaked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "ircheck.h"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static lctx_ircheck *checker;

static int setup(void **state) {
  (void)state;
  checker = lctx_ircheck_create();
  return checker ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  lctx_ircheck_destroy(checker);
  checker = NULL;
  return 0;
}

/// An expectation for the given platforms (NULL-terminated).
static void ex_init(lctx_ir_expectation *e, int x64, ...) {
  memset(e, 0, sizeof *e);
  e->x64 = x64 != 0;
  va_list ap;
  va_start(ap, x64);
  for (const char *p; (p = va_arg(ap, const char *)) != NULL;)
    e->platforms[e->platform_count++] = p;
  va_end(ap);
}

static void ex_dispatch(lctx_ir_expectation *e, size_t entries, size_t kept) {
  e->dispatches[e->dispatch_count].entry_count = entries;
  e->dispatches[e->dispatch_count].kept_count = kept;
  e->dispatch_count++;
}

/// Sets a rule list (NULL-terminated names).
static void ex_rules(lctx_ir_rules *r, ...) {
  memset(r, 0, sizeof *r);
  va_list ap;
  va_start(ap, r);
  for (const char *n; (n = va_arg(ap, const char *)) != NULL;)
    r->names[r->count++] = n;
  va_end(ap);
}

static void print_report(const lctx_ir_report *r) {
  char storage[8192];
  lctx_buf b;
  lctx_buf_init(&b, storage, sizeof storage);
  lctx_ir_report_format(r, &b);
  fprintf(stderr, "report (parse_ok=%d verified=%d):\n%s", r->parse_ok,
          r->verified, storage);
}

static bool check(const char *text, const lctx_ir_expectation *e,
                  lctx_ir_report *r) {
  return lctx_ircheck_run(checker, lctx_str_from_cstr(text), e, r);
}

/// Fails unless the report is clean.
#define assert_clean(r) assert_clean_at((r), __FILE__, __LINE__)
static void assert_clean_at(const lctx_ir_report *r, const char *file,
                            int line) {
  if (r->count == 0 && r->dropped == 0 && r->parse_ok && r->verified)
    return;
  print_report(r);
  _fail(file, line);
}

/// Fails unless the report holds a violation of `row` with exactly
/// `message`.
#define assert_violation(r, row, message)                                      \
  assert_violation_at((r), (row), (message), __FILE__, __LINE__)
static void assert_violation_at(const lctx_ir_report *r, const char *row,
                                const char *message, const char *file,
                                int line) {
  for (size_t i = 0; i < r->count; ++i)
    if (strcmp(r->violations[i].row, row) == 0 &&
        strcmp(r->violations[i].message, message) == 0)
      return;
  fprintf(stderr, "expected %s: %s\n", row, message);
  print_report(r);
  _fail(file, line);
}

/// Fails when the report holds any violation of `row`.
#define assert_no_row(r, row) assert_no_row_at((r), (row), __FILE__, __LINE__)
static void assert_no_row_at(const lctx_ir_report *r, const char *row,
                             const char *file, int line) {
  if (!lctx_ir_report_find(r, row))
    return;
  fprintf(stderr, "unexpected %s\n", row);
  print_report(r);
  _fail(file, line);
}

//===----------------------------------------------------------------------===//
// Modules
//===----------------------------------------------------------------------===//

// clang-format off
#define MARKER(prim, rule, plats)                                              \
  "\"lctx.marker\"() {primitive = \"" prim "\", rule = \"" rule                \
  "\", platforms = [" plats "]} : () -> ()\n"

#define ARG_I32 "%arg0: i32 {jax.global_constant = \"_platform_index\"}"
#define ARG_I64 "%arg0: i64 {jax.global_constant = \"_platform_index\"}"

/// `case k { yield slot }` of a first switch.
#define SLOT_CASE(k, slot)                                                     \
  "    case " #k " {\n"                                                        \
  "      %c = arith.constant " #slot " : i32\n"                                \
  "      scf.yield %c : i32\n"                                                 \
  "    }\n"
#define SLOT_DEFAULT(slot)                                                     \
  "    default {\n"                                                            \
  "      %c = arith.constant " #slot " : i32\n"                                \
  "      scf.yield %c : i32\n"                                                 \
  "    }\n"

static const char single_platform[] =
    "module {\n"
    "  func.func @main() {\n"
    "    " MARKER("P", "P.cpu", "\"cpu\"")
    "    return\n"
    "  }\n"
    "}\n";

/// (cpu, tpu), P with a cpu and a tpu rule.
static const char two_platforms[] =
    "module {\n"
    "  func.func @main(" ARG_I32 ") {\n"
    "    %0 = arith.index_cast %arg0 : i32 to index\n"
    "    %1 = scf.index_switch %0 -> i32\n"
    SLOT_CASE(0, 0)
    SLOT_DEFAULT(1)
    "    %2 = arith.index_cast %1 : i32 to index\n"
    "    scf.index_switch %2\n"
    "    case 0 {\n"
    "      " MARKER("P", "P.cpu", "\"cpu\"")
    "      scf.yield\n"
    "    }\n"
    "    default {\n"
    "      " MARKER("P", "P.tpu", "\"tpu\"")
    "      scf.yield\n"
    "    }\n"
    "    return\n"
    "  }\n"
    "}\n";

/// The same under x64: an i64 platform index.
static const char two_platforms_x64[] =
    "module {\n"
    "  func.func @main(" ARG_I64 ") {\n"
    "    %0 = arith.index_cast %arg0 : i64 to index\n"
    "    %1 = scf.index_switch %0 -> i32\n"
    SLOT_CASE(0, 0)
    SLOT_DEFAULT(1)
    "    %2 = arith.index_cast %1 : i32 to index\n"
    "    scf.index_switch %2\n"
    "    case 0 {\n"
    "      " MARKER("P", "P.cpu", "\"cpu\"")
    "      scf.yield\n"
    "    }\n"
    "    default {\n"
    "      " MARKER("P", "P.tpu", "\"tpu\"")
    "      scf.yield\n"
    "    }\n"
    "    return\n"
    "  }\n"
    "}\n";

/// (cpu, tpu, cuda): P with a cpu rule and a default lowering Q through
/// lower_fun; Q with a tpu and a cuda rule. The nested first switch has one
/// branch per narrowed platform [tpu, cuda] and is indexed by the
/// module-wide %arg0, as JAX emits it.
static const char nested_defect[] =
    "module {\n"
    "  func.func @main(" ARG_I32 ") {\n"
    "    %0 = arith.index_cast %arg0 : i32 to index\n"
    "    %1 = scf.index_switch %0 -> i32\n"
    SLOT_CASE(0, 0)
    SLOT_CASE(1, 1)
    SLOT_DEFAULT(1)
    "    %2 = arith.index_cast %1 : i32 to index\n"
    "    scf.index_switch %2\n"
    "    case 0 {\n"
    "      " MARKER("P", "P.cpu", "\"cpu\"")
    "      scf.yield\n"
    "    }\n"
    "    default {\n"
    "      " MARKER("P", "P.default", "\"tpu\", \"cuda\"")
    "      %3 = arith.index_cast %arg0 : i32 to index\n"
    "      %4 = scf.index_switch %3 -> i32\n"
    SLOT_CASE(0, 0)
    SLOT_DEFAULT(1)
    "      %5 = arith.index_cast %4 : i32 to index\n"
    "      scf.index_switch %5\n"
    "      case 0 {\n"
    "        " MARKER("Q", "Q.tpu", "\"tpu\"")
    "        scf.yield\n"
    "      }\n"
    "      default {\n"
    "        " MARKER("Q", "Q.cuda", "\"cuda\"")
    "        scf.yield\n"
    "      }\n"
    "      scf.yield\n"
    "    }\n"
    "    return\n"
    "  }\n"
    "}\n";

/// The same with the nested index remapped to the narrowed list (cpu is
/// never sent there, tpu takes slot 0, cuda the last): what was intended.
static const char nested_remapped[] =
    "module {\n"
    "  func.func @main(" ARG_I32 ") {\n"
    "    %0 = arith.index_cast %arg0 : i32 to index\n"
    "    %1 = scf.index_switch %0 -> i32\n"
    SLOT_CASE(0, 0)
    SLOT_CASE(1, 1)
    SLOT_DEFAULT(1)
    "    %2 = arith.index_cast %1 : i32 to index\n"
    "    scf.index_switch %2\n"
    "    case 0 {\n"
    "      " MARKER("P", "P.cpu", "\"cpu\"")
    "      scf.yield\n"
    "    }\n"
    "    default {\n"
    "      " MARKER("P", "P.default", "\"tpu\", \"cuda\"")
    "      %3 = arith.index_cast %arg0 : i32 to index\n"
    "      %4 = scf.index_switch %3 -> i32\n"
    SLOT_CASE(0, 0)
    SLOT_CASE(1, 0)
    SLOT_DEFAULT(1)
    "      %5 = arith.index_cast %4 : i32 to index\n"
    "      scf.index_switch %5\n"
    "      case 0 {\n"
    "        " MARKER("Q", "Q.tpu", "\"tpu\"")
    "        scf.yield\n"
    "      }\n"
    "      default {\n"
    "        " MARKER("Q", "Q.cuda", "\"cuda\"")
    "        scf.yield\n"
    "      }\n"
    "      scf.yield\n"
    "    }\n"
    "    return\n"
    "  }\n"
    "}\n";

#define HLO_SLOT(v)                                                            \
  "{\n"                                                                        \
  "      %c = \"stablehlo.constant\"() {value = dense<" #v                     \
  "> : tensor<i32>} : () -> tensor<i32>\n"                                     \
  "      \"stablehlo.return\"(%c) : (tensor<i32>) -> ()\n"                     \
  "    }"

/// nested_defect with generic stablehlo.case ops, as JAX spells it.
static const char nested_defect_hlo[] =
    "module {\n"
    "  func.func @main(%arg0: tensor<i32> "
    "{jax.global_constant = \"_platform_index\"}) {\n"
    "    %0 = \"stablehlo.case\"(%arg0) ("
    HLO_SLOT(0) ", " HLO_SLOT(1) ", " HLO_SLOT(1)
    ") : (tensor<i32>) -> tensor<i32>\n"
    "    \"stablehlo.case\"(%0) ({\n"
    "      " MARKER("P", "P.cpu", "\"cpu\"")
    "      \"stablehlo.return\"() : () -> ()\n"
    "    }, {\n"
    "      " MARKER("P", "P.default", "\"tpu\", \"cuda\"")
    "      %1 = \"stablehlo.case\"(%arg0) (" HLO_SLOT(0) ", " HLO_SLOT(1)
    ") : (tensor<i32>) -> tensor<i32>\n"
    "      \"stablehlo.case\"(%1) ({\n"
    "        " MARKER("Q", "Q.tpu", "\"tpu\"")
    "        \"stablehlo.return\"() : () -> ()\n"
    "      }, {\n"
    "        " MARKER("Q", "Q.cuda", "\"cuda\"")
    "        \"stablehlo.return\"() : () -> ()\n"
    "      }) : (tensor<i32>) -> ()\n"
    "      \"stablehlo.return\"() : () -> ()\n"
    "    }) : (tensor<i32>) -> ()\n"
    "    return\n"
    "  }\n"
    "}\n";

/// What jax 0.10.2 emits for the nested-index module under x64 (the
/// adapter's lowering of IR-006's case, rule P.def renamed P.default), in
/// MLIR's generic form: stablehlo.case ops whose second case yields the
/// rules' results, i64 platform index converted to i32 by stablehlo.convert.
static const char jax_nested_x64[] =
    "\"builtin.module\"() ({\n"
    "  \"func.func\"() <{arg_attrs = [{jax.global_constant = \"_platform_index\"}, {}], function_type = (tensor<i64>, tensor<f32>) -> tensor<f32>, sym_name = \"main\"}> ({\n"
    "  ^bb0(%arg0: tensor<i64>, %arg1: tensor<f32>):\n"
    "    %0 = \"stablehlo.convert\"(%arg0) : (tensor<i64>) -> tensor<i32>\n"
    "    %1 = \"stablehlo.case\"(%0) ({\n"
    "      %10 = \"stablehlo.constant\"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>\n"
    "      \"stablehlo.return\"(%10) : (tensor<i32>) -> ()\n"
    "    }, {\n"
    "      %9 = \"stablehlo.constant\"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>\n"
    "      \"stablehlo.return\"(%9) : (tensor<i32>) -> ()\n"
    "    }, {\n"
    "      %8 = \"stablehlo.constant\"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>\n"
    "      \"stablehlo.return\"(%8) : (tensor<i32>) -> ()\n"
    "    }) : (tensor<i32>) -> tensor<i32>\n"
    "    %2 = \"stablehlo.case\"(%1) ({\n"
    "      \"lctx.marker\"() {platforms = [\"cpu\"], primitive = \"P\", rule = \"P.cpu\"} : () -> ()\n"
    "      \"stablehlo.return\"(%arg1) : (tensor<f32>) -> ()\n"
    "    }, {\n"
    "      \"lctx.marker\"() {platforms = [\"tpu\", \"cuda\"], primitive = \"P\", rule = \"P.default\"} : () -> ()\n"
    "      %3 = \"stablehlo.convert\"(%arg0) : (tensor<i64>) -> tensor<i32>\n"
    "      %4 = \"stablehlo.case\"(%3) ({\n"
    "        %7 = \"stablehlo.constant\"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>\n"
    "        \"stablehlo.return\"(%7) : (tensor<i32>) -> ()\n"
    "      }, {\n"
    "        %6 = \"stablehlo.constant\"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>\n"
    "        \"stablehlo.return\"(%6) : (tensor<i32>) -> ()\n"
    "      }) : (tensor<i32>) -> tensor<i32>\n"
    "      %5 = \"stablehlo.case\"(%4) ({\n"
    "        \"lctx.marker\"() {platforms = [\"tpu\"], primitive = \"Q\", rule = \"Q.tpu\"} : () -> ()\n"
    "        \"stablehlo.return\"(%arg1) : (tensor<f32>) -> ()\n"
    "      }, {\n"
    "        \"lctx.marker\"() {platforms = [\"cuda\"], primitive = \"Q\", rule = \"Q.cuda\"} : () -> ()\n"
    "        \"stablehlo.return\"(%arg1) : (tensor<f32>) -> ()\n"
    "      }) : (tensor<i32>) -> tensor<f32>\n"
    "      \"stablehlo.return\"(%arg1) : (tensor<f32>) -> ()\n"
    "    }) : (tensor<i32>) -> tensor<f32>\n"
    "    \"func.return\"(%2) : (tensor<f32>) -> ()\n"
    "  }) : () -> ()\n"
    "}) : () -> ()\n";

/// two_platforms without the platform index: the switch takes a constant.
static const char missing_index[] =
    "module {\n"
    "  func.func @main() {\n"
    "    %0 = arith.constant 0 : index\n"
    "    %1 = scf.index_switch %0 -> i32\n"
    SLOT_CASE(0, 0)
    SLOT_DEFAULT(1)
    "    %2 = arith.index_cast %1 : i32 to index\n"
    "    scf.index_switch %2\n"
    "    case 0 {\n"
    "      " MARKER("P", "P.cpu", "\"cpu\"")
    "      scf.yield\n"
    "    }\n"
    "    default {\n"
    "      " MARKER("P", "P.tpu", "\"tpu\"")
    "      scf.yield\n"
    "    }\n"
    "    return\n"
    "  }\n"
    "}\n";

/// A single platform with a platform index.
static const char index_for_single[] =
    "module {\n"
    "  func.func @main(" ARG_I32 ") {\n"
    "    " MARKER("P", "P.cpu", "\"cpu\"")
    "    return\n"
    "  }\n"
    "}\n";

/// (cpu, tpu, cuda) with P's rules for cpu and tpu and a default: three
/// kept rules, but the first switch has only two branches, so cuda falls
/// on the last one (tpu's slot).
static const char first_too_short[] =
    "module {\n"
    "  func.func @main(" ARG_I32 ") {\n"
    "    %0 = arith.index_cast %arg0 : i32 to index\n"
    "    %1 = scf.index_switch %0 -> i32\n"
    SLOT_CASE(0, 0)
    SLOT_DEFAULT(1)
    "    %2 = arith.index_cast %1 : i32 to index\n"
    "    scf.index_switch %2\n"
    "    case 0 {\n"
    "      " MARKER("P", "P.cpu", "\"cpu\"")
    "      scf.yield\n"
    "    }\n"
    "    case 1 {\n"
    "      " MARKER("P", "P.tpu", "\"tpu\"")
    "      scf.yield\n"
    "    }\n"
    "    default {\n"
    "      " MARKER("P", "P.default", "\"cuda\"")
    "      scf.yield\n"
    "    }\n"
    "    return\n"
    "  }\n"
    "}\n";

/// The first switch's default yields the platform index, not a slot.
static const char slot_not_constant[] =
    "module {\n"
    "  func.func @main(" ARG_I32 ") {\n"
    "    %0 = arith.index_cast %arg0 : i32 to index\n"
    "    %1 = scf.index_switch %0 -> i32\n"
    SLOT_CASE(0, 0)
    "    default {\n"
    "      scf.yield %arg0 : i32\n"
    "    }\n"
    "    %2 = arith.index_cast %1 : i32 to index\n"
    "    scf.index_switch %2\n"
    "    case 0 {\n"
    "      " MARKER("P", "P.cpu", "\"cpu\"")
    "      scf.yield\n"
    "    }\n"
    "    default {\n"
    "      " MARKER("P", "P.tpu", "\"tpu\"")
    "      scf.yield\n"
    "    }\n"
    "    return\n"
    "  }\n"
    "}\n";

/// Three kept rules but only two branches: the default rule never runs.
static const char second_too_short[] =
    "module {\n"
    "  func.func @main(" ARG_I32 ") {\n"
    "    %0 = arith.index_cast %arg0 : i32 to index\n"
    "    %1 = scf.index_switch %0 -> i32\n"
    SLOT_CASE(0, 0)
    SLOT_CASE(1, 1)
    SLOT_DEFAULT(2)
    "    %2 = arith.index_cast %1 : i32 to index\n"
    "    scf.index_switch %2\n"
    "    case 0 {\n"
    "      " MARKER("P", "P.cpu", "\"cpu\"")
    "      scf.yield\n"
    "    }\n"
    "    default {\n"
    "      " MARKER("P", "P.tpu", "\"tpu\"")
    "      scf.yield\n"
    "    }\n"
    "    return\n"
    "  }\n"
    "}\n";

/// (cpu, tpu) with only a default rule: one kept rule, which must be called
/// directly, yet a pair of switches is emitted.
static const char switch_for_one_rule[] =
    "module {\n"
    "  func.func @main(" ARG_I32 ") {\n"
    "    %0 = arith.index_cast %arg0 : i32 to index\n"
    "    %1 = scf.index_switch %0 -> i32\n"
    SLOT_CASE(0, 0)
    SLOT_DEFAULT(0)
    "    %2 = arith.index_cast %1 : i32 to index\n"
    "    scf.index_switch %2\n"
    "    default {\n"
    "      " MARKER("P", "P.default", "\"cpu\", \"tpu\"")
    "      scf.yield\n"
    "    }\n"
    "    return\n"
    "  }\n"
    "}\n";

/// Two kept rules called without a switch.
static const char direct_call_for_two[] =
    "module {\n"
    "  func.func @main(" ARG_I32 ") {\n"
    "    " MARKER("P", "P.cpu", "\"cpu\"")
    "    return\n"
    "  }\n"
    "}\n";

static const char does_not_parse[] =
    "module {\n"
    "  func.func @main() {\n"
    "    %0 = arith.constant : i32\n"
    "    return\n"
    "  }\n"
    "}\n";

static const char does_not_verify[] =
    "module {\n"
    "  func.func @main() -> i32 {\n"
    "    return\n"
    "  }\n"
    "}\n";

static const char no_main[] =
    "module {\n"
    "  func.func @other() {\n"
    "    return\n"
    "  }\n"
    "}\n";
// clang-format on

static void ex_two_platforms(lctx_ir_expectation *e) {
  ex_init(e, 0, "cpu", "tpu", NULL);
  ex_dispatch(e, 2, 2);
  ex_rules(&e->intended[0], "P.cpu", NULL);
  ex_rules(&e->intended[1], "P.tpu", NULL);
}

/// (cpu, tpu, cuda) with P's rules for cpu and tpu and a default: three
/// entries, three kept rules.
static void ex_three_rules(lctx_ir_expectation *e) {
  ex_init(e, 0, "cpu", "tpu", "cuda", NULL);
  ex_dispatch(e, 3, 3);
  ex_rules(&e->intended[0], "P.cpu", NULL);
  ex_rules(&e->intended[1], "P.tpu", NULL);
  ex_rules(&e->intended[2], "P.default", NULL);
}

static void ex_nested(lctx_ir_expectation *e, bool mark_jax_actual) {
  ex_init(e, 0, "cpu", "tpu", "cuda", NULL);
  ex_dispatch(e, 3, 2); // P: slots cpu -> 0, tpu and cuda -> 1 (default)
  ex_dispatch(e, 2, 2); // Q in P's default branch, narrowed to [tpu, cuda]
  ex_rules(&e->intended[0], "P.cpu", NULL);
  ex_rules(&e->intended[1], "P.default", "Q.tpu", NULL);
  ex_rules(&e->intended[2], "P.default", "Q.cuda", NULL);
  if (mark_jax_actual) {
    for (size_t i = 0; i < 3; ++i)
      e->has_jax_actual[i] = true;
    ex_rules(&e->jax_actual[0], "P.cpu", NULL);
    ex_rules(&e->jax_actual[1], "P.default", "Q.cuda", NULL);
    ex_rules(&e->jax_actual[2], "P.default", "Q.cuda", NULL);
  }
}

static const char defect_message[] =
    "known upstream defect: nested dispatch indexed by the module-wide "
    "platform index: platform tpu runs ['P.default', 'Q.cuda'] instead of "
    "['P.default', 'Q.tpu']";

//===----------------------------------------------------------------------===//
// Correct modules
//===----------------------------------------------------------------------===//

static void test_single_platform(void **state) {
  (void)state;
  lctx_ir_expectation e;
  ex_init(&e, 0, "cpu", NULL);
  ex_dispatch(&e, 1, 1);
  ex_rules(&e.intended[0], "P.cpu", NULL);
  lctx_ir_report r;
  assert_true(check(single_platform, &e, &r));
  assert_clean(&r);
}

static void test_two_platforms(void **state) {
  (void)state;
  lctx_ir_expectation e;
  ex_two_platforms(&e);
  lctx_ir_report r;
  assert_true(check(two_platforms, &e, &r));
  assert_clean(&r);
  // Without per-dispatch expectations the top one is still checked.
  e.dispatch_count = 0;
  assert_true(check(two_platforms, &e, &r));
  assert_clean(&r);
}

static void test_x64(void **state) {
  (void)state;
  lctx_ir_expectation e;
  ex_two_platforms(&e);
  e.x64 = true;
  lctx_ir_report r;
  assert_true(check(two_platforms_x64, &e, &r));
  assert_clean(&r);
  // i32 where i64 is expected.
  assert_false(check(two_platforms, &e, &r));
  assert_violation(&r, "IR-001",
                   "the platform index has type i32, expected i64 (x64)");
}

//===----------------------------------------------------------------------===//
// The nested-index defect
//===----------------------------------------------------------------------===//

static void test_nested_defect_is_ir006(void **state) {
  (void)state;
  lctx_ir_expectation e;
  ex_nested(&e, true);
  lctx_ir_report r;
  assert_false(check(nested_defect, &e, &r));
  assert_true(r.parse_ok);
  assert_true(r.verified);
  assert_int_equal(r.count, 1);
  assert_violation(&r, "IR-006", defect_message);
  assert_no_row(&r, "IR-005");
}

static void test_nested_defect_unmarked_is_ir005(void **state) {
  (void)state;
  lctx_ir_expectation e;
  ex_nested(&e, false);
  lctx_ir_report r;
  assert_false(check(nested_defect, &e, &r));
  assert_int_equal(r.count, 1);
  assert_violation(&r, "IR-005",
                   "platform tpu runs ['P.default', 'Q.cuda'] instead of "
                   "['P.default', 'Q.tpu']");
  assert_no_row(&r, "IR-006");
}

static void test_nested_defect_stablehlo_case(void **state) {
  (void)state;
  lctx_ir_expectation e;
  ex_nested(&e, true);
  lctx_ir_report r;
  assert_false(check(nested_defect_hlo, &e, &r));
  assert_true(r.verified);
  assert_int_equal(r.count, 1);
  assert_violation(&r, "IR-006", defect_message);
  assert_no_row(&r, "IR-005");
}

/// A module that remaps the nested index is what the intended rules say:
/// no violation at all, even with JAX's actual rules marked.
static void test_nested_remapped_is_clean(void **state) {
  (void)state;
  lctx_ir_expectation e;
  ex_nested(&e, true);
  e.dispatches[1].entry_count = 3; // this emitter indexes by module platform
  lctx_ir_report r;
  assert_true(check(nested_remapped, &e, &r));
  assert_clean(&r);
}

/// JAX's own module (real stablehlo.case with results, stablehlo.convert of
/// an i64 index): the defect is seen under IR-006 and nothing else; read as
/// x64 off, the index type is wrong; a slot changed in the first case sends
/// tpu to the cpu rule (IR-005).
static void test_jax_module_nested_x64(void **state) {
  (void)state;
  lctx_ir_expectation e;
  ex_nested(&e, true);
  e.x64 = true;
  lctx_ir_report r;
  assert_false(check(jax_nested_x64, &e, &r));
  assert_true(r.parse_ok);
  assert_true(r.verified);
  assert_int_equal(r.count, 1);
  assert_violation(&r, "IR-006", defect_message);

  e.x64 = false;
  assert_false(check(jax_nested_x64, &e, &r));
  assert_violation(&r, "IR-001",
                   "the platform index has type tensor<i64>, "
                   "expected i32 (x64 off)");

  char changed[sizeof jax_nested_x64];
  memcpy(changed, jax_nested_x64, sizeof changed);
  char *slot =
      strstr(changed, "%9 = \"stablehlo.constant\"() <{value = dense<1>");
  assert_non_null(slot);
  slot[strlen("%9 = \"stablehlo.constant\"() <{value = dense<")] = '0';
  e.x64 = true;
  assert_false(check(changed, &e, &r));
  assert_true(lctx_ir_report_find(&r, "IR-005") != NULL);
}

//===----------------------------------------------------------------------===//
// Wrong modules
//===----------------------------------------------------------------------===//

static void test_missing_platform_index(void **state) {
  (void)state;
  lctx_ir_expectation e;
  ex_two_platforms(&e);
  lctx_ir_report r;
  assert_false(check(missing_index, &e, &r));
  assert_violation(&r, "IR-001",
                   "@main has no platform index argument (expected i32 "
                   "{jax.global_constant = \"_platform_index\"} for 2 "
                   "platforms)");
  // Every index takes case 0 here.
  assert_violation(&r, "IR-005",
                   "platform tpu runs ['P.cpu'] instead of "
                   "['P.tpu']");
}

static void test_unmarked_platform_index(void **state) {
  (void)state;
  char text[sizeof two_platforms];
  memcpy(text, two_platforms, sizeof text);
  char *mark = strstr(text, " {jax.global_constant");
  assert_non_null(mark);
  memcpy(mark, " {jax.global_constanX", 21);
  lctx_ir_expectation e;
  ex_two_platforms(&e);
  lctx_ir_report r;
  assert_false(check(text, &e, &r));
  assert_int_equal(r.count, 1);
  assert_violation(&r, "IR-001",
                   "argument 0 of @main is not marked jax.global_constant = "
                   "\"_platform_index\" (expected i32 {jax.global_constant = "
                   "\"_platform_index\"} for 2 platforms)");
}

static void test_platform_index_for_single_platform(void **state) {
  (void)state;
  lctx_ir_expectation e;
  ex_init(&e, 0, "cpu", NULL);
  ex_dispatch(&e, 1, 1);
  ex_rules(&e.intended[0], "P.cpu", NULL);
  lctx_ir_report r;
  assert_false(check(index_for_single, &e, &r));
  assert_int_equal(r.count, 1);
  assert_violation(&r, "IR-001",
                   "@main has a platform index argument but the module "
                   "lowers for 1 platform");
}

static void test_i64_when_i32_expected(void **state) {
  (void)state;
  lctx_ir_expectation e;
  ex_two_platforms(&e);
  lctx_ir_report r;
  assert_false(check(two_platforms_x64, &e, &r));
  assert_int_equal(r.count, 1);
  assert_violation(&r, "IR-001",
                   "the platform index has type i64, expected i32 (x64 off)");
}

/// (cpu, tpu, cuda) with P's rules for cpu and tpu and a default: three
/// kept rules, but the first switch has only two branches, so cuda falls
/// on the last one (tpu's slot).
static void test_first_switch_too_short(void **state) {
  (void)state;
  lctx_ir_expectation e;
  ex_three_rules(&e);
  lctx_ir_report r;
  assert_false(check(first_too_short, &e, &r));
  assert_violation(&r, "IR-002",
                   "dispatch 0: first switch at 4:10 has 2 branches, "
                   "expected 3 (one per platform-list entry)");
  assert_violation(&r, "IR-005",
                   "platform cuda runs ['P.tpu'] instead of ['P.default']");
  assert_no_row(&r, "IR-003");
}

static void test_first_switch_slot_not_constant(void **state) {
  (void)state;
  lctx_ir_expectation e;
  ex_two_platforms(&e);
  lctx_ir_report r;
  assert_false(check(slot_not_constant, &e, &r));
  assert_int_equal(r.count, 1);
  assert_violation(&r, "IR-002",
                   "dispatch 0: branch 1 of the first switch at 4:10 does "
                   "not yield a constant rule slot");
}

/// Three kept rules but only two branches: the default rule never runs.
static void test_second_switch_too_short(void **state) {
  (void)state;
  lctx_ir_expectation e;
  ex_three_rules(&e);
  lctx_ir_report r;
  assert_false(check(second_too_short, &e, &r));
  assert_violation(&r, "IR-003",
                   "dispatch 0: second switch at 18:5 has 2 branches, "
                   "expected 3 (one per kept rule)");
  assert_violation(&r, "IR-005",
                   "platform cuda runs ['P.tpu'] instead of ['P.default']");
  assert_no_row(&r, "IR-002");
}

/// (cpu, tpu) with only a default rule: one kept rule, which must be called
/// directly, yet a pair of switches is emitted.
static void test_switch_for_single_rule(void **state) {
  (void)state;
  lctx_ir_expectation e;
  ex_init(&e, 0, "cpu", "tpu", NULL);
  ex_dispatch(&e, 2, 1);
  ex_rules(&e.intended[0], "P.default", NULL);
  ex_rules(&e.intended[1], "P.default", NULL);
  lctx_ir_report r;
  assert_false(check(switch_for_one_rule, &e, &r));
  assert_int_equal(r.count, 1);
  assert_violation(&r, "IR-004",
                   "dispatch 0: a switch at 14:5 dispatches a single kept "
                   "rule, which must be called directly");
  // Without dispatch expectations, a one-branch switch says the same.
  e.dispatch_count = 0;
  assert_false(check(switch_for_one_rule, &e, &r));
  assert_int_equal(r.count, 1);
  assert_violation(&r, "IR-004",
                   "dispatch 0: a switch at 14:5 dispatches a single kept "
                   "rule, which must be called directly");
}

/// The converse: two kept rules called without a switch.
static void test_direct_call_for_two_rules(void **state) {
  (void)state;
  lctx_ir_expectation e;
  ex_two_platforms(&e);
  lctx_ir_report r;
  assert_false(check(direct_call_for_two, &e, &r));
  assert_violation(&r, "IR-003",
                   "dispatch 0: rule P.cpu is called directly at 3:5, "
                   "expected a switch over 2 kept rules");
  assert_violation(&r, "IR-005",
                   "platform tpu runs ['P.cpu'] instead of ['P.tpu']");
}

static void test_wrong_rule(void **state) {
  (void)state;
  char text[sizeof two_platforms];
  memcpy(text, two_platforms, sizeof text);
  // Swap the slots of the first switch: cpu -> 1, tpu -> 0.
  char *c0 = strstr(text, "arith.constant 0 : i32");
  char *c1 = strstr(text, "arith.constant 1 : i32");
  assert_non_null(c0);
  assert_non_null(c1);
  c0[strlen("arith.constant ")] = '1';
  c1[strlen("arith.constant ")] = '0';
  lctx_ir_expectation e;
  ex_two_platforms(&e);
  lctx_ir_report r;
  assert_false(check(text, &e, &r));
  assert_int_equal(r.count, 2);
  assert_violation(&r, "IR-005",
                   "platform cpu runs ['P.tpu'] instead of ['P.cpu']");
  assert_violation(&r, "IR-005",
                   "platform tpu runs ['P.cpu'] instead of ['P.tpu']");
}

static void test_does_not_parse(void **state) {
  (void)state;
  lctx_ir_expectation e;
  ex_init(&e, 0, "cpu", NULL);
  lctx_ir_report r;
  assert_false(check(does_not_parse, &e, &r));
  assert_false(r.parse_ok);
  assert_false(r.verified);
  assert_int_equal(r.count, 1);
  assert_violation(&r, "IR-000",
                   "the text does not parse: 3:24: expected attribute value");
}

static void test_does_not_verify(void **state) {
  (void)state;
  lctx_ir_expectation e;
  ex_init(&e, 0, "cpu", NULL);
  lctx_ir_report r;
  assert_false(check(does_not_verify, &e, &r));
  assert_true(r.parse_ok);
  assert_false(r.verified);
  assert_int_equal(r.count, 1);
  assert_violation(&r, "IR-000",
                   "the module does not verify: 3:5: 'func.return' op has 0 "
                   "operands, but enclosing function (@main) returns 1");
}

static void test_no_main(void **state) {
  (void)state;
  lctx_ir_expectation e;
  ex_init(&e, 0, "cpu", NULL);
  lctx_ir_report r;
  assert_false(check(no_main, &e, &r));
  assert_int_equal(r.count, 1);
  assert_violation(&r, "IR-001", "the module has no func.func @main");
}

//===----------------------------------------------------------------------===//
// Recycling
//===----------------------------------------------------------------------===//

static void test_recycle(void **state) {
  (void)state;
  lctx_ircheck *ck = lctx_ircheck_create();
  assert_non_null(ck);
  lctx_ircheck_recycle(ck, 100);
  lctx_ir_expectation e;
  ex_nested(&e, true);
  lctx_ir_report r;
  for (int i = 0; i < 1000; ++i) {
    const char *text = i % 2 ? nested_defect : nested_defect_hlo;
    assert_false(lctx_ircheck_run(ck, lctx_str_from_cstr(text), &e, &r));
    assert_int_equal(r.count, 1);
    assert_string_equal(r.violations[0].row, "IR-006");
  }
  assert_int_equal(lctx_ircheck_contexts_created(ck), 10);
  lctx_ircheck_destroy(ck);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_single_platform),
      cmocka_unit_test(test_two_platforms),
      cmocka_unit_test(test_x64),
      cmocka_unit_test(test_nested_defect_is_ir006),
      cmocka_unit_test(test_nested_defect_unmarked_is_ir005),
      cmocka_unit_test(test_nested_defect_stablehlo_case),
      cmocka_unit_test(test_jax_module_nested_x64),
      cmocka_unit_test(test_nested_remapped_is_clean),
      cmocka_unit_test(test_missing_platform_index),
      cmocka_unit_test(test_unmarked_platform_index),
      cmocka_unit_test(test_platform_index_for_single_platform),
      cmocka_unit_test(test_i64_when_i32_expected),
      cmocka_unit_test(test_first_switch_too_short),
      cmocka_unit_test(test_first_switch_slot_not_constant),
      cmocka_unit_test(test_second_switch_too_short),
      cmocka_unit_test(test_switch_for_single_rule),
      cmocka_unit_test(test_direct_call_for_two_rules),
      cmocka_unit_test(test_wrong_rule),
      cmocka_unit_test(test_does_not_parse),
      cmocka_unit_test(test_does_not_verify),
      cmocka_unit_test(test_no_main),
      cmocka_unit_test(test_recycle),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
