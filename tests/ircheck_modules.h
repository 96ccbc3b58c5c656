/*
 * tests/ircheck_modules.h - what the CMocka tests of the IR checker
 * (test_ircheck.c, the table of modules; test_ircheck_cache.c, recycling
 * and the verdict cache) share: hand-written modules, the expectations they
 * are checked against, and assertions on a report.
 */
#ifndef LCTX_TESTS_IRCHECK_MODULES_H
#define LCTX_TESTS_IRCHECK_MODULES_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "ircheck.h"

/// An expectation for the given platforms (NULL-terminated).
static inline void ex_init(lctx_ir_expectation *e, int x64, ...) {
  memset(e, 0, sizeof *e);
  e->x64 = x64 != 0;
  va_list ap;
  va_start(ap, x64);
  for (const char *p; (p = va_arg(ap, const char *)) != NULL;)
    e->platforms[e->platform_count++] = p;
  va_end(ap);
}

static inline void ex_dispatch(lctx_ir_expectation *e, size_t entries,
                               size_t kept) {
  e->dispatches[e->dispatch_count].entry_count = entries;
  e->dispatches[e->dispatch_count].kept_count = kept;
  e->dispatch_count++;
}

/// Sets a rule list (NULL-terminated names).
static inline void ex_rules(lctx_ir_rules *r, ...) {
  memset(r, 0, sizeof *r);
  va_list ap;
  va_start(ap, r);
  for (const char *n; (n = va_arg(ap, const char *)) != NULL;)
    r->names[r->count++] = n;
  va_end(ap);
}

static inline void print_report(const lctx_ir_report *r) {
  char storage[8192];
  lctx_buf b;
  lctx_buf_init(&b, storage, sizeof storage);
  lctx_ir_report_format(r, &b);
  fprintf(stderr, "report (parse_ok=%d verified=%d):\n%s", r->parse_ok,
          r->verified, storage);
}

/// Fails unless the report is clean.
#define assert_clean(r) assert_clean_at((r), __FILE__, __LINE__)
static inline void assert_clean_at(const lctx_ir_report *r, const char *file,
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
static inline void assert_violation_at(const lctx_ir_report *r, const char *row,
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
static inline void assert_no_row_at(const lctx_ir_report *r, const char *row,
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
static inline void ex_cpu(lctx_ir_expectation *e) {
  ex_init(e, 0, "cpu", NULL);
}

static inline void ex_single(lctx_ir_expectation *e) {
  ex_init(e, 0, "cpu", NULL);
  ex_dispatch(e, 1, 1);
  ex_rules(&e->intended[0], "P.cpu", NULL);
}

static inline void ex_two_platforms(lctx_ir_expectation *e) {
  ex_init(e, 0, "cpu", "tpu", NULL);
  ex_dispatch(e, 2, 2);
  ex_rules(&e->intended[0], "P.cpu", NULL);
  ex_rules(&e->intended[1], "P.tpu", NULL);
}

/// Without per-dispatch expectations the top one is still checked.
static inline void ex_two_platforms_undispatched(lctx_ir_expectation *e) {
  ex_two_platforms(e);
  e->dispatch_count = 0;
}

static inline void ex_two_platforms_x64(lctx_ir_expectation *e) {
  ex_two_platforms(e);
  e->x64 = true;
}

/// (cpu, tpu, cuda) with P's rules for cpu and tpu and a default: three
/// entries, three kept rules.
static inline void ex_three_rules(lctx_ir_expectation *e) {
  ex_init(e, 0, "cpu", "tpu", "cuda", NULL);
  ex_dispatch(e, 3, 3);
  ex_rules(&e->intended[0], "P.cpu", NULL);
  ex_rules(&e->intended[1], "P.tpu", NULL);
  ex_rules(&e->intended[2], "P.default", NULL);
}

/// (cpu, tpu) with only a default rule: one kept rule.
static inline void ex_one_rule(lctx_ir_expectation *e) {
  ex_init(e, 0, "cpu", "tpu", NULL);
  ex_dispatch(e, 2, 1);
  ex_rules(&e->intended[0], "P.default", NULL);
  ex_rules(&e->intended[1], "P.default", NULL);
}

static inline void ex_one_rule_undispatched(lctx_ir_expectation *e) {
  ex_one_rule(e);
  e->dispatch_count = 0;
}

static inline void ex_nested(lctx_ir_expectation *e, bool mark_jax_actual) {
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
static inline void ex_nested_marked(lctx_ir_expectation *e) {
  ex_nested(e, true);
}

static inline void ex_nested_unmarked(lctx_ir_expectation *e) {
  ex_nested(e, false);
}

/// nested_remapped's emitter indexes the nested switch by module platform.
static inline void ex_nested_remapped(lctx_ir_expectation *e) {
  ex_nested(e, true);
  e->dispatches[1].entry_count = 3;
}

static inline void ex_nested_x64(lctx_ir_expectation *e) {
  ex_nested(e, true);
  e->x64 = true;
}

static const char defect_message[] =
    "known upstream defect: nested dispatch indexed by the module-wide "
    "platform index: platform tpu runs ['P.default', 'Q.cuda'] instead of "
    "['P.default', 'Q.tpu']";

#endif /* LCTX_TESTS_IRCHECK_MODULES_H */
