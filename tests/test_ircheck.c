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
 * - The verdict cache (irmemo.h): hits only for an equal expectation and
 *   module text, every verdict equal to the direct judgement.
 *
 * All but the recycling are rows of one table: module text (optionally with
 * bytes changed), expectation, and the verdict, counts and rows the report
 * must show; each row runs as its own test, under its name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "check_fx.h"
#include "ircheck.h"
#include "irmemo.h"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

CHECK_FX_GROUP_OBJECT(lctx_ircheck, checker, lctx_ircheck_create,
                      lctx_ircheck_destroy)

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

/// The module and @main around `body`, @main taking `args`.
#define MAIN(args, body)                                                       \
  "module {\n"                                                                 \
  "  func.func @main(" args ") {\n"                                            \
  body                                                                         \
  "    return\n"                                                               \
  "  }\n"                                                                      \
  "}\n"

/// The first switch of a dispatch on the `type` platform index (its slot
/// cases follow); the second switch on its slot (its rule cases follow).
#define FIRST_SWITCH(type)                                                     \
  "    %0 = arith.index_cast %arg0 : " type " to index\n"                      \
  "    %1 = scf.index_switch %0 -> i32\n"
#define SECOND_SWITCH                                                          \
  "    %2 = arith.index_cast %1 : i32 to index\n"                              \
  "    scf.index_switch %2\n"

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

/// `case k { marker }` and `default { marker }` of a second switch.
#define RULE_CASE(k, marker)                                                   \
  "    case " #k " {\n"                                                        \
  "      " marker                                                              \
  "      scf.yield\n"                                                          \
  "    }\n"
#define RULE_DEFAULT(marker)                                                   \
  "    default {\n"                                                            \
  "      " marker                                                              \
  "      scf.yield\n"                                                          \
  "    }\n"

#define P_CPU MARKER("P", "P.cpu", "\"cpu\"")
#define P_TPU MARKER("P", "P.tpu", "\"tpu\"")

/// (cpu, tpu), P with a cpu and a tpu rule, on a `type` platform index.
#define TWO_PLATFORMS(arg, type)                                               \
  MAIN(arg, FIRST_SWITCH(type) SLOT_CASE(0, 0) SLOT_DEFAULT(1) SECOND_SWITCH   \
       RULE_CASE(0, P_CPU) RULE_DEFAULT(P_TPU))

/// (cpu, tpu, cuda): P with a cpu rule and a default lowering Q through
/// lower_fun; Q with a tpu and a cuda rule. The nested first switch has
/// `inner_slots` and is indexed by the module-wide %arg0.
#define NESTED(inner_slots)                                                    \
  MAIN(ARG_I32,                                                                \
    FIRST_SWITCH("i32")                                                        \
    SLOT_CASE(0, 0)                                                            \
    SLOT_CASE(1, 1)                                                            \
    SLOT_DEFAULT(1)                                                            \
    SECOND_SWITCH                                                              \
    RULE_CASE(0, P_CPU)                                                        \
    "    default {\n"                                                          \
    "      " MARKER("P", "P.default", "\"tpu\", \"cuda\"")                     \
    "      %3 = arith.index_cast %arg0 : i32 to index\n"                       \
    "      %4 = scf.index_switch %3 -> i32\n"                                  \
    inner_slots                                                                \
    "      %5 = arith.index_cast %4 : i32 to index\n"                          \
    "      scf.index_switch %5\n"                                              \
    "      case 0 {\n"                                                         \
    "        " MARKER("Q", "Q.tpu", "\"tpu\"")                                 \
    "        scf.yield\n"                                                      \
    "      }\n"                                                                \
    "      default {\n"                                                        \
    "        " MARKER("Q", "Q.cuda", "\"cuda\"")                               \
    "        scf.yield\n"                                                      \
    "      }\n"                                                                \
    "      scf.yield\n"                                                        \
    "    }\n")

static const char single_platform[] = MAIN("", "    " P_CPU);

static const char two_platforms[] = TWO_PLATFORMS(ARG_I32, "i32");

/// The same under x64: an i64 platform index.
static const char two_platforms_x64[] = TWO_PLATFORMS(ARG_I64, "i64");

/// One branch per narrowed platform [tpu, cuda], as JAX emits it.
static const char nested_defect[] =
    NESTED(SLOT_CASE(0, 0) SLOT_DEFAULT(1));

/// The same with the nested index remapped to the narrowed list (cpu is
/// never sent there, tpu takes slot 0, cuda the last): what was intended.
static const char nested_remapped[] =
    NESTED(SLOT_CASE(0, 0) SLOT_CASE(1, 0) SLOT_DEFAULT(1));

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
    MAIN("",
    "    %0 = arith.constant 0 : index\n"
    "    %1 = scf.index_switch %0 -> i32\n"
    SLOT_CASE(0, 0) SLOT_DEFAULT(1) SECOND_SWITCH
    RULE_CASE(0, P_CPU) RULE_DEFAULT(P_TPU));

/// A single platform with a platform index; read for two kept rules, the
/// same module calls one of them without a switch.
static const char index_for_single[] = MAIN(ARG_I32, "    " P_CPU);

/// (cpu, tpu, cuda) with P's rules for cpu and tpu and a default: three
/// kept rules, but the first switch has only two branches, so cuda falls
/// on the last one (tpu's slot).
static const char first_too_short[] =
    MAIN(ARG_I32, FIRST_SWITCH("i32") SLOT_CASE(0, 0) SLOT_DEFAULT(1)
    SECOND_SWITCH RULE_CASE(0, P_CPU) RULE_CASE(1, P_TPU)
    RULE_DEFAULT(MARKER("P", "P.default", "\"cuda\"")));

/// The first switch's default yields the platform index, not a slot.
static const char slot_not_constant[] =
    MAIN(ARG_I32, FIRST_SWITCH("i32") SLOT_CASE(0, 0)
    "    default {\n"
    "      scf.yield %arg0 : i32\n"
    "    }\n"
    SECOND_SWITCH RULE_CASE(0, P_CPU) RULE_DEFAULT(P_TPU));

/// Three kept rules but only two branches: the default rule never runs.
static const char second_too_short[] =
    MAIN(ARG_I32, FIRST_SWITCH("i32") SLOT_CASE(0, 0) SLOT_CASE(1, 1)
    SLOT_DEFAULT(2) SECOND_SWITCH RULE_CASE(0, P_CPU) RULE_DEFAULT(P_TPU));

/// (cpu, tpu) with only a default rule: one kept rule, which must be called
/// directly, yet a pair of switches is emitted.
static const char switch_for_one_rule[] =
    MAIN(ARG_I32, FIRST_SWITCH("i32") SLOT_CASE(0, 0) SLOT_DEFAULT(0)
    SECOND_SWITCH RULE_DEFAULT(MARKER("P", "P.default", "\"cpu\", \"tpu\"")));

static const char does_not_parse[] =
    MAIN("", "    %0 = arith.constant : i32\n");

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

//===----------------------------------------------------------------------===//
// Expectations
//===----------------------------------------------------------------------===//

/// (cpu) alone, no dispatch: what the modules that fail early are read as.
static void ex_cpu(lctx_ir_expectation *e) {
  ex_init(e, 0, "cpu", NULL);
}

static void ex_single(lctx_ir_expectation *e) {
  ex_init(e, 0, "cpu", NULL);
  ex_dispatch(e, 1, 1);
  ex_rules(&e->intended[0], "P.cpu", NULL);
}

static void ex_two_platforms(lctx_ir_expectation *e) {
  ex_init(e, 0, "cpu", "tpu", NULL);
  ex_dispatch(e, 2, 2);
  ex_rules(&e->intended[0], "P.cpu", NULL);
  ex_rules(&e->intended[1], "P.tpu", NULL);
}

/// Without per-dispatch expectations the top one is still checked.
static void ex_two_platforms_undispatched(lctx_ir_expectation *e) {
  ex_two_platforms(e);
  e->dispatch_count = 0;
}

static void ex_two_platforms_x64(lctx_ir_expectation *e) {
  ex_two_platforms(e);
  e->x64 = true;
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

/// (cpu, tpu) with only a default rule: one kept rule.
static void ex_one_rule(lctx_ir_expectation *e) {
  ex_init(e, 0, "cpu", "tpu", NULL);
  ex_dispatch(e, 2, 1);
  ex_rules(&e->intended[0], "P.default", NULL);
  ex_rules(&e->intended[1], "P.default", NULL);
}

static void ex_one_rule_undispatched(lctx_ir_expectation *e) {
  ex_one_rule(e);
  e->dispatch_count = 0;
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

/// The nested module with what JAX really runs marked.
static void ex_nested_marked(lctx_ir_expectation *e) {
  ex_nested(e, true);
}

static void ex_nested_unmarked(lctx_ir_expectation *e) {
  ex_nested(e, false);
}

/// nested_remapped's emitter indexes the nested switch by module platform.
static void ex_nested_remapped(lctx_ir_expectation *e) {
  ex_nested(e, true);
  e->dispatches[1].entry_count = 3;
}

static void ex_nested_x64(lctx_ir_expectation *e) {
  ex_nested(e, true);
  e->x64 = true;
}

static const char defect_message[] =
    "known upstream defect: nested dispatch indexed by the module-wide "
    "platform index: platform tpu runs ['P.default', 'Q.cuda'] instead of "
    "['P.default', 'Q.tpu']";

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

/// A check that a report flag does (YES) or does not (NO) hold, or none.
typedef enum { ANY, YES, NO } tri;

/// A byte change of the module text: the byte `at` after the first `find`
/// becomes `to` (every `find` is located before any byte changes).
typedef struct {
  const char *find;
  size_t at;
  char to;
} text_edit;

typedef struct {
  const char *row;
  const char *message;
} row_message;

typedef struct {
  const char *name;
  const char *text;
  text_edit edits[2];
  void (*expect)(lctx_ir_expectation *);
  bool passes;               // what lctx_ircheck_run returns
  bool clean;                // no violation, parsed and verified
  tri parse_ok, verified;    // the report's flags
  size_t count;              // how many violations; 0: not checked
  row_message violations[2]; // each must be in the report exactly
  const char *no_row;        // a row that must not be in the report
  const char *has_row;       // a row that must be in the report
} ir_case;

#define SLOT9 "%9 = \"stablehlo.constant\"() <{value = dense<"
#define SLOT_MESSAGE(platform, runs, instead)                                  \
  "platform " platform " runs " runs " instead of " instead

static const ir_case cases[] = {
    // Correct modules.
    {.name = "test_single_platform",
     .text = single_platform,
     .expect = ex_single,
     .passes = true,
     .clean = true},
    {.name = "test_two_platforms",
     .text = two_platforms,
     .expect = ex_two_platforms,
     .passes = true,
     .clean = true},
    {.name = "test_two_platforms_undispatched",
     .text = two_platforms,
     .expect = ex_two_platforms_undispatched,
     .passes = true,
     .clean = true},
    {.name = "test_x64",
     .text = two_platforms_x64,
     .expect = ex_two_platforms_x64,
     .passes = true,
     .clean = true},
    {.name = "test_x64_i32_for_i64",
     .text = two_platforms,
     .expect = ex_two_platforms_x64,
     .violations = {{"IR-001",
                     "the platform index has type i32, expected i64 (x64)"}}},
    // The nested-index defect.
    {.name = "test_nested_defect_is_ir006",
     .text = nested_defect,
     .expect = ex_nested_marked,
     .parse_ok = YES,
     .verified = YES,
     .count = 1,
     .violations = {{"IR-006", defect_message}},
     .no_row = "IR-005"},
    {.name = "test_nested_defect_unmarked_is_ir005",
     .text = nested_defect,
     .expect = ex_nested_unmarked,
     .count = 1,
     .violations = {{"IR-005", SLOT_MESSAGE("tpu", "['P.default', 'Q.cuda']",
                                            "['P.default', 'Q.tpu']")}},
     .no_row = "IR-006"},
    {.name = "test_nested_defect_stablehlo_case",
     .text = nested_defect_hlo,
     .expect = ex_nested_marked,
     .verified = YES,
     .count = 1,
     .violations = {{"IR-006", defect_message}},
     .no_row = "IR-005"},
    // JAX's own module (real stablehlo.case with results, stablehlo.convert
    // of an i64 index): the defect under IR-006 and nothing else; read as
    // x64 off, the index type is wrong; a slot changed in the first case
    // sends tpu to the cpu rule (IR-005).
    {.name = "test_jax_module_nested_x64",
     .text = jax_nested_x64,
     .expect = ex_nested_x64,
     .parse_ok = YES,
     .verified = YES,
     .count = 1,
     .violations = {{"IR-006", defect_message}}},
    {.name = "test_jax_module_nested_x64_read_x64_off",
     .text = jax_nested_x64,
     .expect = ex_nested_marked,
     .violations = {{"IR-001", "the platform index has type tensor<i64>, "
                               "expected i32 (x64 off)"}}},
    {.name = "test_jax_module_nested_x64_slot_changed",
     .text = jax_nested_x64,
     .edits = {{SLOT9 "1", sizeof SLOT9 - 1, '0'}},
     .expect = ex_nested_x64,
     .has_row = "IR-005"},
    // A module that remaps the nested index is what the intended rules say:
    // no violation at all, even with JAX's actual rules marked.
    {.name = "test_nested_remapped_is_clean",
     .text = nested_remapped,
     .expect = ex_nested_remapped,
     .passes = true,
     .clean = true},
    // Wrong modules.
    {.name = "test_missing_platform_index",
     .text = missing_index,
     .expect = ex_two_platforms,
     .violations = {{"IR-001",
                     "@main has no platform index argument (expected i32 "
                     "{jax.global_constant = \"_platform_index\"} for 2 "
                     "platforms)"},
                    // Every index takes case 0 here.
                    {"IR-005", SLOT_MESSAGE("tpu", "['P.cpu']", "['P.tpu']")}}},
    {.name = "test_unmarked_platform_index",
     .text = two_platforms,
     .edits = {{" {jax.global_constant", 20, 'X'}},
     .expect = ex_two_platforms,
     .count = 1,
     .violations = {{"IR-001",
                     "argument 0 of @main is not marked jax.global_constant "
                     "= \"_platform_index\" (expected i32 "
                     "{jax.global_constant = \"_platform_index\"} for 2 "
                     "platforms)"}}},
    {.name = "test_platform_index_for_single_platform",
     .text = index_for_single,
     .expect = ex_single,
     .count = 1,
     .violations = {{"IR-001", "@main has a platform index argument but the "
                               "module lowers for 1 platform"}}},
    {.name = "test_i64_when_i32_expected",
     .text = two_platforms_x64,
     .expect = ex_two_platforms,
     .count = 1,
     .violations = {{"IR-001",
                     "the platform index has type i64, expected i32 (x64 "
                     "off)"}}},
    {.name = "test_first_switch_too_short",
     .text = first_too_short,
     .expect = ex_three_rules,
     .violations = {{"IR-002", "dispatch 0: first switch at 4:10 has 2 "
                               "branches, expected 3 (one per platform-list "
                               "entry)"},
                    {"IR-005",
                     SLOT_MESSAGE("cuda", "['P.tpu']", "['P.default']")}},
     .no_row = "IR-003"},
    {.name = "test_first_switch_slot_not_constant",
     .text = slot_not_constant,
     .expect = ex_two_platforms,
     .count = 1,
     .violations = {{"IR-002", "dispatch 0: branch 1 of the first switch at "
                               "4:10 does not yield a constant rule slot"}}},
    {.name = "test_second_switch_too_short",
     .text = second_too_short,
     .expect = ex_three_rules,
     .violations = {{"IR-003", "dispatch 0: second switch at 18:5 has 2 "
                               "branches, expected 3 (one per kept rule)"},
                    {"IR-005",
                     SLOT_MESSAGE("cuda", "['P.tpu']", "['P.default']")}},
     .no_row = "IR-002"},
    {.name = "test_switch_for_single_rule",
     .text = switch_for_one_rule,
     .expect = ex_one_rule,
     .count = 1,
     .violations = {{"IR-004", "dispatch 0: a switch at 14:5 dispatches a "
                               "single kept rule, which must be called "
                               "directly"}}},
    // Without dispatch expectations, a one-branch switch says the same.
    {.name = "test_switch_for_single_rule_undispatched",
     .text = switch_for_one_rule,
     .expect = ex_one_rule_undispatched,
     .count = 1,
     .violations = {{"IR-004", "dispatch 0: a switch at 14:5 dispatches a "
                               "single kept rule, which must be called "
                               "directly"}}},
    // The converse: two kept rules called without a switch.
    {.name = "test_direct_call_for_two_rules",
     .text = index_for_single,
     .expect = ex_two_platforms,
     .violations = {{"IR-003", "dispatch 0: rule P.cpu is called directly "
                               "at 3:5, expected a switch over 2 kept rules"},
                    {"IR-005", SLOT_MESSAGE("tpu", "['P.cpu']", "['P.tpu']")}}},
    // The slots of the first switch swapped: cpu -> 1, tpu -> 0.
    {.name = "test_wrong_rule",
     .text = two_platforms,
     .edits = {{"arith.constant 0 : i32", 15, '1'},
               {"arith.constant 1 : i32", 15, '0'}},
     .expect = ex_two_platforms,
     .count = 2,
     .violations = {{"IR-005", SLOT_MESSAGE("cpu", "['P.tpu']", "['P.cpu']")},
                    {"IR-005", SLOT_MESSAGE("tpu", "['P.cpu']", "['P.tpu']")}}},
    {.name = "test_does_not_parse",
     .text = does_not_parse,
     .expect = ex_cpu,
     .parse_ok = NO,
     .verified = NO,
     .count = 1,
     .violations = {{"IR-000", "the text does not parse: 3:24: expected "
                               "attribute value"}}},
    {.name = "test_does_not_verify",
     .text = does_not_verify,
     .expect = ex_cpu,
     .parse_ok = YES,
     .verified = NO,
     .count = 1,
     .violations = {{"IR-000",
                     "the module does not verify: 3:5: 'func.return' op has "
                     "0 operands, but enclosing function (@main) returns 1"}}},
    {.name = "test_no_main",
     .text = no_main,
     .expect = ex_cpu,
     .count = 1,
     .violations = {{"IR-001", "the module has no func.func @main"}}},
};

#define CASE_COUNT (sizeof cases / sizeof cases[0])

static void assert_tri(tri want, bool got) {
  if (want != ANY)
    assert_int_equal(got, want == YES);
}

/// Runs one row: edits a copy of the text, checks it and asserts every
/// part of the report the row names.
static void run_case(void **state) {
  const ir_case *c = *state;
  char text[8192];
  assert_true(strlen(c->text) < sizeof text);
  strcpy(text, c->text);
  char *at[2] = {NULL, NULL};
  for (size_t i = 0; i < 2 && c->edits[i].find; ++i) {
    at[i] = strstr(text, c->edits[i].find);
    assert_non_null(at[i]);
  }
  for (size_t i = 0; i < 2 && at[i]; ++i)
    at[i][c->edits[i].at] = c->edits[i].to;

  lctx_ir_expectation e;
  c->expect(&e);
  lctx_ir_report r;
  assert_int_equal(lctx_ircheck_run(checker, lctx_str_from_cstr(text), &e, &r),
                   c->passes);
  if (c->clean)
    assert_clean(&r);
  assert_tri(c->parse_ok, r.parse_ok);
  assert_tri(c->verified, r.verified);
  if (c->count)
    assert_int_equal(r.count, c->count);
  for (size_t i = 0; i < 2 && c->violations[i].row; ++i)
    assert_violation(&r, c->violations[i].row, c->violations[i].message);
  if (c->no_row)
    assert_no_row(&r, c->no_row);
  if (c->has_row)
    assert_true(lctx_ir_report_find(&r, c->has_row) != NULL);
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

//===----------------------------------------------------------------------===//
// The verdict cache (irmemo.h)
//===----------------------------------------------------------------------===//

/* Judges `text` under `store` through the cache and directly; the two
 * verdicts must be equal. Returns the cached one's ok. */
static bool memo_judge(lctx_ir_memo *m, lctx_ircheck *ck, const char *text,
                       const lctx_ir_expect_store *store) {
  static lctx_ir_report r;
  lctx_ir_verdict v, direct;
  bool ok = lctx_ir_memo_judge(m, ck, lctx_str_from_cstr(text), store, &r, &v);
  lctx_ir_judge(ck, lctx_str_from_cstr(text), store, &r, &direct);
  assert_int_equal(ok, v.ok);
  assert_int_equal(v.ok, direct.ok);
  assert_int_equal(v.applicable, direct.applicable);
  assert_string_equal(v.row, direct.row);
  assert_string_equal(v.reason, direct.reason);
  return ok;
}

/* A module judged again under an equal expectation (even one whose names
 * live elsewhere) comes from the cache; the same module under another
 * expectation, or another module, is judged anew, and every verdict equals
 * the direct judgement. */
static void test_memo(void **state) {
  (void)state;
  lctx_ircheck *ck = lctx_ircheck_create();
  lctx_ir_memo *m = lctx_ir_memo_new();
  assert_non_null(ck);
  assert_non_null(m);
  static lctx_ir_expect_store good, moved, other;
  ex_single(&good.expect);
  ex_single(&moved.expect);
  char cpu[] = "cpu", rule[] = "P.cpu";
  moved.expect.platforms[0] = cpu;
  moved.expect.intended[0].names[0] = rule;
  ex_init(&other.expect, 0, "cpu", NULL);
  ex_dispatch(&other.expect, 1, 1);
  ex_rules(&other.expect.intended[0], "P.gpu", NULL);

  assert_true(memo_judge(m, ck, single_platform, &good));
  assert_int_equal(lctx_ir_memo_hits(m), 0);
  assert_true(memo_judge(m, ck, single_platform, &good));
  assert_int_equal(lctx_ir_memo_hits(m), 1);
  assert_true(memo_judge(m, ck, single_platform, &moved));
  assert_int_equal(lctx_ir_memo_hits(m), 2);
  /* The same text under another expectation fails, and is not a hit. */
  assert_false(memo_judge(m, ck, single_platform, &other));
  assert_int_equal(lctx_ir_memo_hits(m), 2);
  assert_false(memo_judge(m, ck, single_platform, &other));
  assert_int_equal(lctx_ir_memo_hits(m), 3);
  /* Another module under the first expectation: judged anew, fails. */
  assert_false(memo_judge(m, ck, two_platforms, &good));
  assert_int_equal(lctx_ir_memo_hits(m), 3);
  assert_true(memo_judge(m, ck, single_platform, &good));
  assert_int_equal(lctx_ir_memo_hits(m), 4);
  lctx_ir_memo_free(m);
  lctx_ircheck_destroy(ck);
}

int main(void) {
  struct CMUnitTest tests[CASE_COUNT + 2];
  CHECK_FX_TABLE_TESTS(tests, cases, CASE_COUNT, run_case);
  tests[CASE_COUNT] = (struct CMUnitTest)cmocka_unit_test(test_recycle);
  tests[CASE_COUNT + 1] = (struct CMUnitTest)cmocka_unit_test(test_memo);
  return cmocka_run_group_tests(tests, setup, teardown);
}
