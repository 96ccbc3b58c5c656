/*
 * tests/test_oracle.c - pins the oracle (harness/core/judge/oracle.h): verdicts
 * by the spec table.
 *
 * - lctx_oracle_init's defaults and the reference engine; the violation
 *   kinds' names.
 * - lctx_oracle_judge against the real table: an allowed outcome, a wrong
 *   value, a wrong message, the comparison by class only (`exact` false)
 *   that never relaxes a non-raise, client identity (registration, origin),
 *   the row found, the rendered expectation and the first allowed outcome,
 *   the list IndexError after lower_fun (MG-004) and LP-007's bare
 *   AssertionError.
 * - A tiny hand-written table: several rows (their IDs), no row, a template
 *   that cannot be rendered, a row with two outcomes, `strict = class`;
 *   through lctx_oracle_judge, lctx_oracle_check_case (violation kind, row,
 *   op index, expected and actual text, hit counts) and lctx_oracle_explain.
 * - Two oracles in one thread: one judging inside the other's violation
 *   report leaves that report intact, and an oracle made again gives the
 *   same verdicts.
 * The invariants, with fake engines, and lctx_oracle_restart are pinned in
 * test_oracle_engines.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_support.h"

#include "case_gen.h"
#include "domain.h"
#include "oracle.h"
#include "oracle_fx.h"

static lctx_spec g_tiny;
static lctx_features g_features;

/* Rows that overlap (AB-001, AB-002), one with two outcomes, one whose
 * template uses a placeholder that never applies to it, one compared by
 * class; nothing for get_backend. */
static const char TINY[] =
    "spec-version = 1.0.0\n"
    "[AB-001]\nop = canonicalize\nwhen = arg=name\n"
    "outcome = string \"{arg}\"\nstrict = exact\n"
    "source = x\n"
    "[AB-002]\nop = canonicalize\nwhen = arg=name|empty\n"
    "outcome = string \"{arg}\"\noutcome = none\n"
    "strict = exact\nsource = y\nnote = two outcomes\n"
    "[AB-003]\nop = canonicalize\nwhen = arg=alias\n"
    "outcome = string \"{p0}\"\nstrict = exact\n"
    "source = z\n"
    "[AB-004]\nop = backends\n"
    "outcome = raise RuntimeError \"never {present}\"\n"
    "strict = class\nsource = w\n";

static void load_tiny(void) {
  char error[512];
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  if (!lctx_spec_parse(TINY, strlen(TINY), "tiny.lspec", &g_tiny, &e))
    fail_msg("%s", error);
}

/// The features of operation `op` of g_case, earlier operations first.
static void compute_through(size_t op) {
  lctx_feature_state s;
  lctx_classify_init(&s, &g_case);
  for (size_t i = 0; i <= op; i++)
    lctx_classify_op(&s, i, &g_features);
}

static void format(const lctx_outcome *o, char *text, size_t cap) {
  lctx_buf b;
  lctx_buf_init(&b, text, cap);
  lctx_outcome_format(o, &b);
}

#define MG004_BODY                                                             \
  STOCK "rule \"P.def\" lower_fun \"Q\" compute_type=\"device_host\"\n"        \
        "rule \"Q.def\" get_backend optional=false\n"                          \
        "op register_lowering primitive=\"P\" rule=\"P.def\" platform=None\n"  \
        "op register_lowering primitive=\"Q\" rule=\"Q.def\" platform=None\n"  \
        "op lower_per_platform primitive=\"P\" platforms=[\"cpu\"] "           \
        "backend=\"cpu\" narrow=[]\n"
#define LP007_BODY                                                             \
  STOCK "rule \"P.def\" marker, lower_fun \"Q\"\nrule \"Q.def\" marker\n"      \
        "op register_lowering primitive=\"P\" rule=\"P.def\" platform=None\n"  \
        "op register_lowering primitive=\"Q\" rule=\"Q.def\" platform=None\n"  \
        "op lower_per_platform primitive=\"P\" platforms=[\"gpu\"] "           \
        "backend=None\n"

//===----------------------------------------------------------------------===//
// Set-up and names
//===----------------------------------------------------------------------===//

static void test_init_defaults(void **state) {
  (void)state;
  static lctx_oracle o;
  memset(&o, 0xa5, sizeof o);
  lctx_engine e = lctx_engine_reference();
  assert_string_equal(e.name, "reference");
  assert_null(e.context);
  assert_non_null(e.run);
  assert_non_null(e.run_all);
  lctx_oracle_init(&o, &g_spec, e);
  assert_ptr_equal(o.spec, &g_spec);
  assert_ptr_equal(o.engine.run, e.run);
  /* The reference engine runs on the oracle's own runner. */
  assert_ptr_equal(o.engine.context, &o.scratch.runner);
  assert_true(o.invariants);
  assert_true(o.messages_exact);
  assert_null(o.on_violation);
  assert_null(o.user);
  assert_int_equal(o.cases, 0);
  assert_int_equal(o.ops, 0);
  assert_int_equal(o.violations, 0);
  assert_int_equal(o.invariant_checks, 0);
  for (size_t i = 0; i < LCTX_SPEC_MAX_ROWS; i++)
    assert_int_equal(o.hits[i], 0);
}

static void test_violation_kind_names(void **state) {
  (void)state;
  static const char *const names[] = {
      "no spec row matches",
      "several spec rows match",
      "spec row cannot be rendered",
      "outcome not allowed by the spec row",
      "outcome differs from the case's expectation",
      "invariant violated",
  };
  for (int k = LCTX_V_NO_ROW; k <= LCTX_V_INVARIANT; k++)
    assert_string_equal(lctx_violation_kind_name((lctx_violation_kind)k),
                        names[k]);
  assert_string_equal(lctx_violation_kind_name((lctx_violation_kind)99), "?");
}

//===----------------------------------------------------------------------===//
// lctx_oracle_judge
//===----------------------------------------------------------------------===//

typedef struct judge_row {
  const char *what;
  bool tiny; ///< judged by the tiny table instead of the real one
  const char *body;
  size_t op;
  outcome_spec actual;
  bool exact;
  lctx_judgement judgement;
  const char *row;      ///< the row reported ("" for none)
  const char *expected; ///< what lands in `expected`
} judge_row;

static const judge_row JUDGE[] = {
    {"canonicalize gpu: cuda allowed", false, GPUS "op canonicalize \"gpu\"\n",
     0, O_STRING("cuda"), true, LCTX_JUDGE_ALLOWED, "CP-002", "'cuda'"},
    {"canonicalize gpu: rocm not allowed", false,
     GPUS "op canonicalize \"gpu\"\n", 0, O_STRING("rocm"), true,
     LCTX_JUDGE_NOT_ALLOWED, "CP-002", "'cuda'"},
    {"by class only, a string is still compared exactly", false,
     GPUS "op canonicalize \"gpu\"\n", 0, O_STRING("rocm"), false,
     LCTX_JUDGE_NOT_ALLOWED, "CP-002", "'cuda'"},
    {"B2a: the exact ValueError", false, STOCK B2A_OP, 0,
     O_RAISE(LCTX_ERROR_VALUE, B2A), true, LCTX_JUDGE_ALLOWED, "MG-006",
     "ValueError: " B2A},
    {"B2a: a wrong message", false, STOCK B2A_OP, 0,
     O_RAISE(LCTX_ERROR_VALUE, "platforms differ"), true,
     LCTX_JUDGE_NOT_ALLOWED, "MG-006", "ValueError: " B2A},
    {"B2a: a wrong message, compared by class", false, STOCK B2A_OP, 0,
     O_RAISE(LCTX_ERROR_VALUE, "platforms differ"), false, LCTX_JUDGE_ALLOWED,
     "MG-006", "ValueError: " B2A},
    {"B2a: a wrong class, compared by class", false, STOCK B2A_OP, 0,
     O_RAISE(LCTX_ERROR_RUNTIME, B2A), false, LCTX_JUDGE_NOT_ALLOWED, "MG-006",
     "ValueError: " B2A},
    {"B2a with optional=True: None", false,
     STOCK "op module_get_backend platforms=[\"tpu\"] backend=\"cpu\" "
           "optional=true\n",
     0, O_NONE, true, LCTX_JUDGE_ALLOWED, "MG-007", "None"},
    {"B2b: the pinned client", false,
     STOCK "op module_get_backend platforms=[\"cpu\"] backend=\"cpu\" "
           "optional=false\n",
     0, O_PINNED("cpu"), true, LCTX_JUDGE_ALLOWED, "MG-010",
     "<pinned client 'cpu'>"},
    {"B2b: a registry client is not the pinned one", false,
     STOCK "op module_get_backend platforms=[\"cpu\"] backend=\"cpu\" "
           "optional=false\n",
     0, O_CLIENT(0, "cpu"), true, LCTX_JUDGE_NOT_ALLOWED, "MG-010",
     "<pinned client 'cpu'>"},
    {"get_backend None: the default client", false,
     GPUS "op get_backend None\n", 0, O_CLIENT(2, "cuda"), true,
     LCTX_JUDGE_ALLOWED, "XG-001", "<client 'cuda' registration 2>"},
    {"get_backend None: another registration", false,
     GPUS "op get_backend None\n", 0, O_CLIENT(3, "cuda"), true,
     LCTX_JUDGE_NOT_ALLOWED, "XG-001", "<client 'cuda' registration 2>"},
    {"B1 in a lowering rule", false,
     STOCK "rule \"P.def\" get_backend optional=false\n"
           "op register_lowering primitive=\"P\" rule=\"P.def\" platform=None\n"
           "op lower_per_platform primitive=\"P\" platforms=[\"cpu\", \"tpu\"] "
           "backend=None\n",
     1, O_RAISE(LCTX_ERROR_NOT_IMPLEMENTED, M1), true, LCTX_JUDGE_ALLOWED,
     "MG-001", "NotImplementedError: " M1},
    {"after lower_fun's empty narrowing the IndexError names a list", false,
     MG004_BODY, 2, O_RAISE(LCTX_ERROR_INDEX, "list index out of range"), true,
     LCTX_JUDGE_ALLOWED, "MG-004", "IndexError: list index out of range"},
    {"... not a tuple", false, MG004_BODY, 2,
     O_RAISE(LCTX_ERROR_INDEX, "tuple index out of range"), true,
     LCTX_JUDGE_NOT_ALLOWED, "MG-004", "IndexError: list index out of range"},
    {"lower_fun in a gpu module: bare AssertionError", false, LP007_BODY, 2,
     O_RAISE(LCTX_ERROR_ASSERTION, ""), true, LCTX_JUDGE_ALLOWED, "LP-007",
     "AssertionError"},
    {"lower_fun in a gpu module: returning None is wrong", false, LP007_BODY, 2,
     O_NONE, true, LCTX_JUDGE_NOT_ALLOWED, "LP-007", "AssertionError"},
    {"tiny: two rows match", true, STOCK "op canonicalize \"cpu\"\n", 0,
     O_STRING("cpu"), true, LCTX_JUDGE_SEVERAL_ROWS, "AB-001",
     "AB-001, AB-002"},
    {"tiny: no row for get_backend", true, STOCK "op get_backend None\n", 0,
     O_CLIENT(0, "cpu"), true, LCTX_JUDGE_NO_ROW, "", ""},
    {"tiny: the second of two outcomes", true, STOCK "op canonicalize \"\"\n",
     0, O_NONE, true, LCTX_JUDGE_ALLOWED, "AB-002", "'' | None"},
    {"tiny: neither of two outcomes", true, STOCK "op canonicalize \"\"\n", 0,
     O_STRING("x"), true, LCTX_JUDGE_NOT_ALLOWED, "AB-002", "'' | None"},
    {"tiny: a template that cannot be rendered", true,
     STOCK "op canonicalize \"gpu\"\n", 0, O_STRING("cpu"), true,
     LCTX_JUDGE_RENDER, "AB-003",
     "placeholder {p0} does not apply to this operation"},
    {"tiny: strict = class ignores the message even when exact", true,
     STOCK "op backends\n", 0, O_RAISE(LCTX_ERROR_RUNTIME, "other"), true,
     LCTX_JUDGE_ALLOWED, "AB-004", "RuntimeError: never cpu"},
    {"tiny: strict = class still wants a raise",
     true,
     STOCK "op backends\n",
     0,
     {LCTX_OUTCOME_PLATFORMS, LCTX_ERROR_NONE, LCTX_CLIENT_REGISTRY, -1,
      "['cpu']"},
     true,
     LCTX_JUDGE_NOT_ALLOWED,
     "AB-004",
     "RuntimeError: never cpu"},
};

static void test_judge_table(void **state) {
  (void)state;
  load_tiny();
  static lctx_outcome actual, first;
  static char expected[4096], first_text[1024];
  for (size_t i = 0; i < sizeof JUDGE / sizeof JUDGE[0]; i++) {
    const judge_row *r = &JUDGE[i];
    const lctx_spec *spec = r->tiny ? &g_tiny : &g_spec;
    parse_body(r->what, r->body);
    compute_through(r->op);
    make_outcome(&r->actual, &actual);
    lctx_buf eb;
    lctx_buf_init(&eb, expected, sizeof expected);
    size_t row = 12345;
    lctx_outcome_set_none(&first);
    lctx_judgement j = lctx_oracle_judge(spec, &g_features, &actual, r->exact,
                                         &row, &eb, &first);
    if (j != r->judgement)
      fail_msg("%s: judgement %d, expected %d", r->what, (int)j,
               (int)r->judgement);
    const char *id = row < spec->row_count ? spec->rows[row].id : "";
    if (r->row[0] == '\0' && row != SIZE_MAX)
      fail_msg("%s: row index %zu, expected SIZE_MAX", r->what, row);
    if (strcmp(id, r->row) != 0)
      fail_msg("%s: row %s, expected %s", r->what, id, r->row);
    if (strcmp(expected, r->expected) != 0)
      fail_msg("%s: expected text\n  want \"%s\"\n  got  \"%s\"", r->what,
               r->expected, expected);
    /* The first allowed outcome is the first rendered one. */
    if (j == LCTX_JUDGE_ALLOWED || j == LCTX_JUDGE_NOT_ALLOWED) {
      format(&first, first_text, sizeof first_text);
      size_t n = strcspn(r->expected, "|");
      if (n > 0 && r->expected[n] == '|')
        n--; /* the space before " | " */
      if (strlen(first_text) != n || memcmp(first_text, r->expected, n) != 0)
        fail_msg("%s: first allowed \"%s\"", r->what, first_text);
    }
    /* The optional outputs may be NULL and change nothing. */
    size_t row2 = 0;
    assert_int_equal(lctx_oracle_judge(spec, &g_features, &actual, r->exact,
                                       &row2, NULL, NULL),
                     j);
    assert_int_equal(row2, row);
  }
}

//===----------------------------------------------------------------------===//
// The tiny table through check_case and explain
//===----------------------------------------------------------------------===//

#define TINY_CASE                                                              \
  STOCK "op canonicalize \"cpu\"\nop canonicalize \"\"\n"                      \
        "op canonicalize \"gpu\"\nop get_backend None\nop backends\n"

/* The violations of TINY_CASE under the tiny table. */
static const want TINY_WANTS[] = {
    {LCTX_V_SEVERAL_ROWS, 0, "", "",
     "op=canonicalize mode=default init=none arg=name", "AB-001, AB-002",
     "'cpu'"},
    {LCTX_V_RENDER, 2, "AB-003", "",
     "op=canonicalize mode=default init=ok arg=alias gpu=absent",
     "placeholder {p0} does not apply to this operation",
     "RuntimeError: " NO_GPU},
    {LCTX_V_NO_ROW, 3, "", "",
     "op=get_backend mode=default init=ready arg=none source=none "
     "target=none lookup=default",
     "", "<client 'cpu' registration 0>"},
    {LCTX_V_OUTCOME, 4, "AB-004", "", "op=backends mode=default init=ready",
     "RuntimeError: never cpu", "['cpu']"},
};

static void test_tiny_table_violations(void **state) {
  (void)state;
  load_tiny();
  parse_body("tiny", TINY_CASE);
  static lctx_oracle o;
  lctx_oracle_init(&o, &g_tiny, lctx_engine_reference());
  static vlog l;
  memset(&l, 0, sizeof l);
  o.on_violation = note;
  o.user = &l;
  assert_int_equal(lctx_oracle_check_case_expect(&o, &g_case, &g_expect), 4);
  for (size_t k = 0; k < 4; k++)
    check_seen("tiny", &l.items[k], &TINY_WANTS[k]);
  /* Hits: a row is hit when it alone matches, allowed or not. */
  static const size_t hits[] = {0, 1, 1, 1};
  for (size_t i = 0; i < 4; i++)
    assert_int_equal(o.hits[i], hits[i]);
  assert_int_equal(o.ops, 5);
  assert_int_equal(o.invariant_checks, 0);
}

/* A violation callback that judges another case with a second oracle in the
 * middle of the first one's report. */
typedef struct nested {
  vlog before, after;
  lctx_oracle *inner;
  const lctx_case *inner_case;
} nested;

static void note_nested(void *user, const lctx_violation *v) {
  nested *n = user;
  note(&n->before, v);
  lctx_oracle_check_case(n->inner, n->inner_case);
  note(&n->after, v);
}

/// Regression: the oracle once judged in per-thread storage (the reference
/// engine's runner, the outcomes, the violation texts), so a second oracle
/// at work in the same thread rewrote what the first was reporting. Each
/// oracle now judges in its own scratch space: an oracle made twice gives
/// the same verdicts, and another oracle judging in the middle of a report
/// changes nothing in it.
static void test_two_oracles_in_one_thread(void **state) {
  (void)state;
  load_tiny();
  static lctx_case inner_case;
  char error[512];
  assert_true(case_gen_parse_body(
      STOCK "op module_get_backend platforms=[\"cpu\", \"tpu\"] "
            "backend=\"cpu\" optional=false\n",
      &inner_case, NULL, error, sizeof error));
  parse_body("tiny", TINY_CASE);
  static lctx_oracle outer, inner;
  static nested n;
  for (int round = 0; round < 2; round++) {
    memset(&n, 0, sizeof n);
    lctx_oracle_init(&outer, &g_tiny, lctx_engine_reference());
    lctx_oracle_init(&inner, &g_spec, lctx_engine_reference());
    n.inner = &inner;
    n.inner_case = &inner_case;
    outer.on_violation = note_nested;
    outer.user = &n;
    assert_int_equal(lctx_oracle_check_case_expect(&outer, &g_case, &g_expect),
                     4);
    assert_int_equal(n.before.count, 4);
    assert_int_equal(n.after.count, 4);
    for (size_t k = 0; k < 4; k++) {
      check_seen("before the inner oracle", &n.before.items[k], &TINY_WANTS[k]);
      check_seen("after the inner oracle", &n.after.items[k], &TINY_WANTS[k]);
    }
    assert_int_equal(inner.cases, 4);
    assert_int_equal(inner.violations, 0);
  }
}

static void test_explain(void **state) {
  (void)state;
  load_tiny();
  parse_body("tiny", TINY_CASE);
  static lctx_oracle o;
  lctx_oracle_init(&o, &g_tiny, lctx_engine_reference());
  static const struct {
    size_t op;
    const char *text;
  } rows[] = {
      {0, "features: mode=default init=none arg=name\n"
          "row: AB-001 (x)\n  note: \n  allows: 'cpu'\n"
          "row: AB-002 (y)\n  note: two outcomes\n  allows: 'cpu'\n"
          "  allows: None\n"},
      {2, "features: mode=default init=ok arg=alias gpu=absent\n"
          "row: AB-003 (z)\n  note: \n"
          "  allows: placeholder {p0} does not apply to this operation\n"},
      {3, "features: mode=default init=ready arg=none source=none "
          "target=none lookup=default\nrow: none matches\n"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    static char text[4096];
    lctx_buf b;
    lctx_buf_init(&b, text, sizeof text);
    lctx_oracle_explain(&o, &g_case, rows[i].op, &b);
    assert_buf(&b, rows[i].text);
  }
  /* explain runs no engine and counts nothing */
  assert_int_equal(o.ops, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_init_defaults),
      cmocka_unit_test(test_violation_kind_names),
      cmocka_unit_test(test_judge_table),
      cmocka_unit_test(test_tiny_table_violations),
      cmocka_unit_test(test_two_oracles_in_one_thread),
      cmocka_unit_test(test_explain),
  };
  return cmocka_run_group_tests(tests, oracle_fx_setup, NULL);
}
