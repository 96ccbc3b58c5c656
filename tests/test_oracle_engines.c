/*
 * tests/test_oracle_engines.c - pins lctx_oracle_check_case
 * (harness/core/judge/oracle.h) with fake engines that return a wrong
 * outcome for one operation or one invariant variant.
 *
 * - The outcome and expectation violations, each invariant
 *   (permute-platforms, duplicates-count, optional-only-b1-b2a, gpu-agrees
 *   both ways) with its name, op index, labelled sides and the number of
 *   variant runs; invariants off; class-only comparison (expectations stay
 *   exact); the run_all path.
 * - lctx_oracle_restart: defaults again, the memo of matched rows kept.
 * - The reference engine's variants, run from its kept registry states (and
 *   in this build checked against the variant operations themselves), give
 *   the verdicts, variant runs and hits of an engine that replays each run.
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

//===----------------------------------------------------------------------===//
// A fake engine: the reference, except for one kind of call
//===----------------------------------------------------------------------===//

typedef enum corrupt {
  C_NOTHING = 0,
  C_OP_1,            ///< operation 1 itself
  C_PERMUTED,        ///< the variant with platforms[1:] reversed
  C_DUPLICATED,      ///< the (p, p) variant
  C_OPTIONAL_FLIP,   ///< the variant with `optional` flipped
  C_CANONICALIZE,    ///< the canonicalize('gpu') variant
  C_RESOLVED_LOOKUP, ///< the get_backend(resolved name) variant
} corrupt;

typedef struct fake {
  corrupt what;
  outcome_spec wrong;
  size_t runs, variant_runs, run_alls;
} fake;

static bool is_corrupted(const fake *f, const lctx_case *c, size_t prefix,
                         const lctx_case_op *op) {
  bool variant = op != &c->ops[prefix];
  const lctx_case_op *given = &c->ops[prefix];
  switch (f->what) {
  case C_NOTHING:
    return false;
  case C_OP_1:
    return !variant && prefix == 1;
  case C_PERMUTED:
    return variant && op->kind == LCTX_OP_MODULE_GET_BACKEND &&
           op->platform_count >= 3 && op->optional == given->optional;
  case C_DUPLICATED:
    return variant && op->kind == LCTX_OP_MODULE_GET_BACKEND &&
           op->platform_count == 2 &&
           strcmp(lctx_case_op_platform(c, op, 0),
                  lctx_case_op_platform(c, op, 1)) == 0;
  case C_OPTIONAL_FLIP:
    return variant && op->kind == LCTX_OP_MODULE_GET_BACKEND &&
           op->optional != given->optional;
  case C_CANONICALIZE:
    return variant && op->kind == LCTX_OP_CANONICALIZE;
  case C_RESOLVED_LOOKUP:
    return variant && op->kind == LCTX_OP_XLA_GET_BACKEND;
  }
  return false;
}

static void fake_run(void *context, const lctx_case *c, size_t prefix,
                     const lctx_case_op *op, lctx_outcome *out) {
  fake *f = context;
  f->runs++;
  if (op != &c->ops[prefix])
    f->variant_runs++;
  lctx_engine_reference().run(NULL, c, prefix, op, out);
  if (is_corrupted(f, c, prefix, op))
    make_outcome(&f->wrong, out);
}

static void fake_run_all(void *context, const lctx_case *c,
                         lctx_outcome *outs) {
  fake *f = context;
  f->run_alls++;
  lctx_engine_reference().run_all(NULL, c, outs);
  if (f->what == C_OP_1 && c->op_count > 1)
    make_outcome(&f->wrong, &outs[1]);
}

typedef struct violation_row {
  const char *what;
  const char *body;
  corrupt corrupt;
  outcome_spec wrong;
  bool messages_exact;
  size_t invariant_checks; ///< variant runs expected
  size_t count;
  want violations[2];
} violation_row;

static const violation_row VIOLATIONS[] = {
    {"the reference passes",
     GPUS "op get_backend \"gpu\"\n"
          "op module_get_backend platforms=[\"cuda\"] backend=\"rocm\" "
          "optional=false\n"
          "op module_get_backend platforms=[\"cpu\", \"tpu\", \"cuda\"] "
          "backend=None optional=true\n",
     C_NOTHING,
     O_NONE,
     true,
     2 + 3 + 2,
     0,
     {{0}}},
    {"a wrong outcome, also against the case's expectation",
     STOCK "op backends\nexpect platforms \"['cpu']\"\n"
           "op canonicalize \"cpu\"\nexpect string \"cpu\"\n",
     C_OP_1,
     O_STRING("tpu"),
     true,
     0,
     2,
     {{LCTX_V_OUTCOME, 1, "CP-001", "",
       "op=canonicalize mode=default init=none arg=name", "'cpu'", "'tpu'"},
      {LCTX_V_EXPECT, 1, "", "",
       "op=canonicalize mode=default init=none arg=name", "'cpu'", "'tpu'"}}},
    {"a wrong message",
     STOCK "op backends\n" B2A_OP,
     C_OP_1,
     O_RAISE(LCTX_ERROR_VALUE, "platforms differ"),
     true,
     3,
     1,
     {{LCTX_V_OUTCOME, 1, "MG-006", "",
       "op=module_get_backend mode=default init=none count=one "
       "optional=false pinned=plain real=same match=no",
       "ValueError: " B2A, "ValueError: platforms differ"}}},
    {"a wrong message compared by class: accepted",
     STOCK "op backends\n" B2A_OP,
     C_OP_1,
     O_RAISE(LCTX_ERROR_VALUE, "platforms differ"),
     false,
     3,
     0,
     {{0}}},
    {"compared by class, the case's expectation stays exact",
     STOCK "op backends\n" B2A_OP "expect raise ValueError \"" B2A "\"\n",
     C_OP_1,
     O_RAISE(LCTX_ERROR_VALUE, "platforms differ"),
     false,
     3,
     1,
     {{LCTX_V_EXPECT, 1, "", "", NULL, "ValueError: " B2A,
       "ValueError: platforms differ"}}},
    {"permute-platforms",
     STOCK "op backends\n"
           "op module_get_backend platforms=[\"cpu\", \"tpu\", \"cuda\"] "
           "backend=None optional=false\n",
     C_PERMUTED,
     O_NONE,
     true,
     2,
     1,
     {{LCTX_V_INVARIANT, 1, "", "permute-platforms",
       "op=module_get_backend mode=default init=none count=multi "
       "optional=false",
       "as given: NotImplementedError: " M1, "platforms[1:] reversed: None"}}},
    {"duplicates-count",
     STOCK "op backends\n"
           "op module_get_backend platforms=[\"tpu\"] backend=None "
           "optional=false\n",
     C_DUPLICATED,
     O_NONE,
     true,
     3,
     1,
     {{LCTX_V_INVARIANT, 1, "", "duplicates-count", NULL,
       "(p, other platform): NotImplementedError: " M1, "(p, p): None"}}},
    {"optional-only-b1-b2a: optional=True changes a B3 client",
     STOCK "op backends\n"
           "op module_get_backend platforms=[\"cpu\"] backend=None "
           "optional=false\n",
     C_OPTIONAL_FLIP,
     O_NONE,
     true,
     3,
     1,
     {{LCTX_V_INVARIANT, 1, "", "optional-only-b1-b2a", NULL,
       "optional=False: <client 'cpu' registration 0>",
       "optional=True: None"}}},
    {"optional-only-b1-b2a: the labels follow `optional`, not the order",
     STOCK "op backends\n"
           "op module_get_backend platforms=[\"cpu\"] backend=None "
           "optional=true\n",
     C_OPTIONAL_FLIP,
     O_RAISE(LCTX_ERROR_VALUE, "x"),
     true,
     3,
     1,
     {{LCTX_V_INVARIANT, 1, "", "optional-only-b1-b2a", NULL,
       "optional=False: ValueError: x",
       "optional=True: <client 'cpu' registration 0>"}}},
    {"optional-only-b1-b2a: None for a ValueError is the B2a exception",
     STOCK "op backends\n" B2A_OP,
     C_OPTIONAL_FLIP,
     O_NONE,
     true,
     3,
     0,
     {{0}}},
    {"gpu-agrees: get_backend of the resolved name",
     GPUS "op backends\nop get_backend \"gpu\"\n",
     C_RESOLVED_LOOKUP,
     O_NONE,
     true,
     2,
     1,
     {{LCTX_V_INVARIANT, 1, "", "gpu-agrees",
       "op=get_backend mode=default init=ready arg=alias source=arg "
       "target=alias gpu=cuda lookup=found",
       "get_backend(resolved name): None",
       "get_backend('gpu'): <client 'cuda' registration 2>"}}},
    {"gpu-agrees: canonicalize raised, get_backend must raise the same",
     STOCK "op backends\nop get_backend \"gpu\"\n",
     C_CANONICALIZE,
     O_RAISE(LCTX_ERROR_RUNTIME, "boom"),
     true,
     1,
     1,
     {{LCTX_V_INVARIANT, 1, "", "gpu-agrees", NULL,
       "canonicalize_platform('gpu'): RuntimeError: boom",
       "get_backend('gpu'): RuntimeError: " NO_GPU}}},
};

static void test_violations_table(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof VIOLATIONS / sizeof VIOLATIONS[0]; i++) {
    const violation_row *r = &VIOLATIONS[i];
    parse_body(r->what, r->body);
    fake f = {r->corrupt, r->wrong, 0, 0, 0};
    lctx_engine e = {"fake", &f, fake_run, NULL};
    static lctx_oracle o;
    lctx_oracle_init(&o, &g_spec, e);
    o.messages_exact = r->messages_exact;
    static vlog l;
    memset(&l, 0, sizeof l);
    o.on_violation = note;
    o.user = &l;
    size_t n = lctx_oracle_check_case_expect(&o, &g_case, &g_expect);
    if (n != r->count || l.count != r->count || o.violations != r->count)
      fail_msg("%s: %zu violations (%zu reported, %zu counted), expected %zu",
               r->what, n, l.count, o.violations, r->count);
    for (size_t k = 0; k < r->count; k++)
      check_seen(r->what, &l.items[k], &r->violations[k]);
    assert_int_equal(o.cases, 1);
    assert_int_equal(o.ops, g_case.op_count);
    if (o.invariant_checks != r->invariant_checks)
      fail_msg("%s: %zu invariant checks, expected %zu", r->what,
               o.invariant_checks, r->invariant_checks);
    /* Each operation once, plus one run per variant. */
    assert_int_equal(f.variant_runs, r->invariant_checks);
    assert_int_equal(f.runs, g_case.op_count + r->invariant_checks);
    assert_int_equal(f.run_alls, 0);
  }
}

static size_t memo_entries(const lctx_oracle *o) {
  size_t n = 0;
  for (size_t i = 0; i < LCTX_ORACLE_MATCH_SLOTS; i++)
    n += o->scratch.matches[i].key != 0;
  return n;
}

/* lctx_oracle_restart: counters and settings as lctx_oracle_init leaves
 * them, the spec and engine kept, the memo of matched rows kept (init
 * clears it); the case judged again gives the same verdicts. */
static void test_restart_keeps_the_memo(void **state) {
  (void)state;
  parse_body("restart", STOCK "op module_get_backend platforms=[\"cpu\"] "
                              "backend=None optional=false\n");
  static lctx_oracle o;
  lctx_oracle_init(&o, &g_spec, lctx_engine_reference());
  size_t first = lctx_oracle_check_case_expect(&o, &g_case, &g_expect);
  size_t used = memo_entries(&o);
  assert_true(used > 0);
  assert_int_equal(o.cases, 1);
  o.invariants = false;
  o.messages_exact = false;
  o.user = &o;
  lctx_oracle_restart(&o);
  assert_ptr_equal(o.spec, &g_spec);
  assert_ptr_equal(o.engine.context, &o.scratch.runner);
  assert_true(o.invariants);
  assert_true(o.messages_exact);
  assert_null(o.user);
  assert_int_equal(o.cases, 0);
  assert_int_equal(o.ops, 0);
  assert_int_equal(memo_entries(&o), used);
  assert_int_equal(lctx_oracle_check_case_expect(&o, &g_case, &g_expect),
                   first);
  assert_int_equal(o.cases, 1);
  lctx_oracle_init(&o, &g_spec, lctx_engine_reference());
  assert_int_equal(memo_entries(&o), 0);
}

/* With invariants off, a corrupted variant goes unnoticed and no variant
 * runs. */
static void test_invariants_off(void **state) {
  (void)state;
  parse_body("off", STOCK "op module_get_backend platforms=[\"cpu\"] "
                          "backend=None optional=false\n");
  fake f = {C_OPTIONAL_FLIP, O_NONE, 0, 0, 0};
  static lctx_oracle o;
  lctx_oracle_init(&o, &g_spec, (lctx_engine){"fake", &f, fake_run, NULL});
  o.invariants = false;
  assert_int_equal(lctx_oracle_check_case_expect(&o, &g_case, &g_expect), 0);
  assert_int_equal(o.invariant_checks, 0);
  assert_int_equal(f.runs, 1);
  /* Counters accumulate over cases; the violation has no callback. */
  o.invariants = true;
  assert_int_equal(lctx_oracle_check_case_expect(&o, &g_case, &g_expect), 1);
  assert_int_equal(o.cases, 2);
  assert_int_equal(o.ops, 2);
  assert_int_equal(o.violations, 1);
  assert_int_equal(o.invariant_checks, 3);
  const lctx_spec_row *mg15 = lctx_spec_find(&g_spec, "MG-015");
  assert_non_null(mg15);
  assert_int_equal(o.hits[mg15 - g_spec.rows], 2);
}

/* An engine with run_all: one call per case gives every outcome; `run`
 * serves only the invariants' variants. */
static void test_run_all_path(void **state) {
  (void)state;
  parse_body("run_all",
             STOCK "op backends\nop canonicalize \"cpu\"\n"
                   "op module_get_backend platforms=[\"cpu\", \"tpu\"] "
                   "backend=None optional=false\n");
  fake f = {C_OP_1, O_STRING("tpu"), 0, 0, 0};
  static lctx_oracle o;
  lctx_oracle_init(&o, &g_spec,
                   (lctx_engine){"fake", &f, fake_run, fake_run_all});
  static vlog l;
  memset(&l, 0, sizeof l);
  o.on_violation = note;
  o.user = &l;
  assert_int_equal(lctx_oracle_check_case_expect(&o, &g_case, &g_expect), 1);
  assert_int_equal(f.run_alls, 1);
  assert_int_equal(f.runs, 1); /* the optional flip of operation 2 */
  assert_int_equal(f.variant_runs, 1);
  want w = {LCTX_V_OUTCOME, 1, "CP-001", "", NULL, "'cpu'", "'tpu'"};
  check_seen("run_all", &l.items[0], &w);
}

//===----------------------------------------------------------------------===//
// The reference engine's kept states against a replay
//===----------------------------------------------------------------------===//

/* The reference model without kept states: each run replays the case. */
static void replay_run(void *context, const lctx_case *c, size_t prefix,
                       const lctx_case_op *op, lctx_outcome *out) {
  lctx_runner *r = context;
  lctx_runner_init(r, c);
  for (size_t i = 0; i < prefix; i++)
    lctx_runner_op(r, &c->ops[i], out, NULL);
  lctx_runner_op(r, op, out, NULL);
}

/* An FNV-1a digest of every violation reported, in order. */
static void digest_text(uint64_t *h, const char *s) {
  for (; s && *s; s++)
    *h = (*h ^ (unsigned char)*s) * 0x100000001b3ULL;
  *h = (*h ^ 0xffu) * 0x100000001b3ULL;
}

static void digest(void *user, const lctx_violation *v) {
  uint64_t *h = user;
  *h = (*h ^ (uint64_t)v->kind ^ (uint64_t)v->op_index << 8) * 0x100000001b3ULL;
  digest_text(h, v->row);
  digest_text(h, v->invariant);
  digest_text(h, v->expected);
  digest_text(h, v->actual);
}

static void test_reference_variants_match_replay(void **state) {
  (void)state;
  static lctx_oracle kept, replay;
  static lctx_runner runner;
  static lctx_case c;
  uint64_t kept_digest = 14695981039346656037ULL, replay_digest = kept_digest;
  lctx_oracle_init(&kept, &g_spec, lctx_engine_reference());
  lctx_oracle_init(&replay, &g_spec,
                   (lctx_engine){"replay", &runner, replay_run, NULL});
  kept.on_violation = digest;
  kept.user = &kept_digest;
  replay.on_violation = digest;
  replay.user = &replay_digest;
  uint64_t seed = 41;
  lctx_case_init(&c);
  for (int k = 0; k < 6000; k++) {
    lctx_domain_random_case_reuse(&seed, &c);
    size_t a = lctx_oracle_check_case(&kept, &c);
    size_t b = lctx_oracle_check_case(&replay, &c);
    assert_int_equal(a, b);
    assert_int_equal(kept.invariant_checks, replay.invariant_checks);
  }
  assert_int_equal(kept.ops, replay.ops);
  assert_true(kept.invariant_checks > 4000); /* the variants ran */
  assert_int_equal(kept.violations, replay.violations);
  assert_true(kept_digest == replay_digest);
  assert_memory_equal(kept.hits, replay.hits, sizeof kept.hits);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_violations_table),
      cmocka_unit_test(test_invariants_off),
      cmocka_unit_test(test_restart_keeps_the_memo),
      cmocka_unit_test(test_run_all_path),
      cmocka_unit_test(test_reference_variants_match_replay),
  };
  return cmocka_run_group_tests(tests, oracle_fx_setup, NULL);
}
