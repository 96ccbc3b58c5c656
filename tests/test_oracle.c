/*
 * tests/test_oracle.c - pins the oracle (harness/core/judge/oracle.h): verdicts
 * by the spec table and the metamorphic invariants.
 *
 * - lctx_oracle_init's defaults and the reference engine; lctx_oracle_restart
 *   (defaults again, the memo of matched rows kept); the violation
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
 * - lctx_oracle_check_case with fake engines that return a wrong outcome for
 *   one operation or one invariant variant: the outcome and expectation
 *   violations, each invariant (permute-platforms, duplicates-count,
 *   optional-only-b1-b2a, gpu-agrees both ways) with its name, op index,
 *   labelled sides and the number of variant runs; invariants off; class-only
 *   comparison (expectations stay exact); the run_all path.
 * - Two oracles in one thread: one judging inside the other's violation
 *   report leaves that report intact, and an oracle made again gives the
 *   same verdicts.
 * - The reference engine passes the conformance cases used here.
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

#define SPEC_PATH LCTX_SOURCE_DIR "/conformance/spec/backend-selection.lspec"

static lctx_spec g_spec;
static lctx_spec g_tiny;
static lctx_case g_case;
static lctx_case_expect g_expect;
static lctx_features g_features;

static void load_spec(void) {
  char error[512];
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  if (!lctx_spec_load(SPEC_PATH, &g_spec, &e))
    fail_msg("%s", error);
}

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

/// Parses `body` after the header into g_case.
static void parse_body(const char *what, const char *body) {
  char error[512];
  if (!case_gen_parse_body(body, &g_case, &g_expect, error, sizeof error))
    fail_msg("%s: %s", what, error);
}

/// The features of operation `op` of g_case, earlier operations first.
static void compute_through(size_t op) {
  lctx_feature_state s;
  lctx_classify_init(&s, &g_case);
  for (size_t i = 0; i <= op; i++)
    lctx_classify_op(&s, i, &g_features);
}

/// An outcome written as a value.
typedef struct outcome_spec {
  lctx_outcome_kind kind;
  lctx_error_class error;
  lctx_client_origin origin;
  int registration;
  const char *text;
} outcome_spec;

#define O_NONE                                                                 \
  { LCTX_OUTCOME_NONE, LCTX_ERROR_NONE, LCTX_CLIENT_REGISTRY, -1, "" }
#define O_STRING(s)                                                            \
  { LCTX_OUTCOME_STRING, LCTX_ERROR_NONE, LCTX_CLIENT_REGISTRY, -1, (s) }
#define O_RAISE(e, s)                                                          \
  { LCTX_OUTCOME_RAISE, (e), LCTX_CLIENT_REGISTRY, -1, (s) }
#define O_CLIENT(r, s)                                                         \
  { LCTX_OUTCOME_CLIENT, LCTX_ERROR_NONE, LCTX_CLIENT_REGISTRY, (r), (s) }
#define O_PINNED(s)                                                            \
  { LCTX_OUTCOME_CLIENT, LCTX_ERROR_NONE, LCTX_CLIENT_PINNED, -1, (s) }

static void make_outcome(const outcome_spec *s, lctx_outcome *o) {
  switch (s->kind) {
  case LCTX_OUTCOME_NONE:
    lctx_outcome_set_none(o);
    return;
  case LCTX_OUTCOME_CLIENT:
    lctx_outcome_set_client(o, s->origin, s->registration, ts_s(s->text));
    return;
  case LCTX_OUTCOME_RAISE: {
    lctx_buf w = lctx_outcome_begin_raise(o, s->error);
    lctx_buf_append_cstr(&w, s->text);
    lctx_outcome_end(o, &w);
    return;
  }
  case LCTX_OUTCOME_STRING:
  case LCTX_OUTCOME_PLATFORMS: {
    lctx_buf w = lctx_outcome_begin(o, s->kind);
    lctx_buf_append_cstr(&w, s->text);
    lctx_outcome_end(o, &w);
    return;
  }
  }
}

static void format(const lctx_outcome *o, char *text, size_t cap) {
  lctx_buf b;
  lctx_buf_init(&b, text, cap);
  lctx_outcome_format(o, &b);
}

#define CPU "factory \"cpu\" priority=0 loud client\n"
#define STOCK                                                                  \
  CPU "factory \"tpu\" priority=300 quiet raises \"TPU not found\"\n"
#define GPUS                                                                   \
  STOCK "factory \"cuda\" priority=400 loud client\n"                          \
        "factory \"rocm\" priority=400 loud client\n"                          \
        "factory \"oneapi\" priority=400 loud client\nnvidia_gpu visible\n"
#define M1                                                                     \
  "accessing .backend in multi-lowering setting. This can occur when "         \
  "lowering a primitive that has not been adapted to multi-platform lowering"
#define NO_GPU                                                                 \
  "Unknown backend: 'gpu' requested, but no platforms that are instances of "  \
  "gpu are present. Platforms present are: cpu"
#define B2A                                                                    \
  "the platform for the specified backend cpu is different from the "          \
  "lowering platform tpu"
/// B2a's operation: module_get_backend of (tpu) with backend cpu, not
/// optional.
#define B2A_OP                                                                 \
  "op module_get_backend platforms=[\"tpu\"] backend=\"cpu\" optional=false\n"
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
// Recording violations
//===----------------------------------------------------------------------===//

typedef struct seen {
  lctx_violation_kind kind;
  size_t op_index;
  char row[16];
  char invariant[32];
  char features[256];
  char expected[1024];
  char actual[1024];
  bool has_expected_outcome;
  bool has_actual_outcome;
  const lctx_case *c;
} seen;

typedef struct vlog {
  size_t count;
  seen items[8];
} vlog;

static void note(void *user, const lctx_violation *v) {
  vlog *l = user;
  assert_true(l->count < 8);
  seen *s = &l->items[l->count++];
  s->kind = v->kind;
  s->op_index = v->op_index;
  snprintf(s->row, sizeof s->row, "%s", v->row);
  snprintf(s->invariant, sizeof s->invariant, "%s", v->invariant);
  snprintf(s->features, sizeof s->features, "%s", v->features);
  snprintf(s->expected, sizeof s->expected, "%s", v->expected);
  snprintf(s->actual, sizeof s->actual, "%s", v->actual);
  s->has_expected_outcome = v->expected_outcome != NULL;
  s->has_actual_outcome = v->actual_outcome != NULL;
  s->c = v->c;
}

/// One violation as the test expects it.
typedef struct want {
  lctx_violation_kind kind;
  size_t op_index;
  const char *row;
  const char *invariant;
  const char *features; ///< NULL: not checked
  const char *expected;
  const char *actual;
} want;

static void check_seen(const char *what, const seen *s, const want *w) {
  if (s->kind != w->kind || s->op_index != w->op_index ||
      strcmp(s->row, w->row) != 0 || strcmp(s->invariant, w->invariant) != 0 ||
      (w->features && strcmp(s->features, w->features) != 0) ||
      strcmp(s->expected, w->expected) != 0 ||
      strcmp(s->actual, w->actual) != 0)
    fail_msg("%s: violation\n  got  kind=%d op=%zu row=\"%s\" inv=\"%s\"\n"
             "       features=\"%s\"\n       expected=\"%s\"\n"
             "       actual=\"%s\"\n  want kind=%d op=%zu row=\"%s\" "
             "inv=\"%s\"\n       features=\"%s\"\n       expected=\"%s\"\n"
             "       actual=\"%s\"",
             what, (int)s->kind, s->op_index, s->row, s->invariant, s->features,
             s->expected, s->actual, (int)w->kind, w->op_index, w->row,
             w->invariant, w->features ? w->features : "(any)", w->expected,
             w->actual);
  assert_ptr_equal(s->c, &g_case);
  assert_true(s->has_actual_outcome);
  /* An expected outcome exists for a disallowed outcome, a failed
   * expectation and an invariant; not when no row could say one. */
  assert_int_equal(s->has_expected_outcome, w->kind == LCTX_V_OUTCOME ||
                                                w->kind == LCTX_V_EXPECT ||
                                                w->kind == LCTX_V_INVARIANT);
}

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

static int setup(void **state) {
  (void)state;
  load_spec();
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_init_defaults),
      cmocka_unit_test(test_violation_kind_names),
      cmocka_unit_test(test_judge_table),
      cmocka_unit_test(test_violations_table),
      cmocka_unit_test(test_invariants_off),
      cmocka_unit_test(test_restart_keeps_the_memo),
      cmocka_unit_test(test_run_all_path),
      cmocka_unit_test(test_reference_variants_match_replay),
      cmocka_unit_test(test_tiny_table_violations),
      cmocka_unit_test(test_two_oracles_in_one_thread),
      cmocka_unit_test(test_explain),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
