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
 * Recycling and the verdict cache are test_ircheck_cache.c's; the modules
 * and expectations are ircheck_modules.h's.
 *
 * All but those are rows of one table: module text (optionally with
 * bytes changed), expectation, and the verdict, counts and rows the report
 * must show; each row runs as its own test, under its name.
 */
#include "check_fx.h"
#include "ircheck_modules.h"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

CHECK_FX_GROUP_OBJECT(lctx_ircheck, checker, lctx_ircheck_create,
                      lctx_ircheck_destroy)

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
int main(void) {
  struct CMUnitTest tests[CASE_COUNT];
  CHECK_FX_TABLE_TESTS(tests, cases, CASE_COUNT, run_case);
  return cmocka_run_group_tests(tests, setup, teardown);
}
