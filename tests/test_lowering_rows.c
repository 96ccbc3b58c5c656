/*
 * tests/test_lowering_rows.c - the lowering rows: rule selection and
 * lower_per_platform on marker rules (semantics.md section 7), one row a
 * configuration, its registrations and platforms, the lowering's outcome
 * and event tree, and the actual and intended paths of each platform index.
 * The single-purpose tests of the lowering model are test_lowering.c's.
 */
#include "lowering_helpers.h"

/// A step of a lowering row (the stock configuration, marker rules made on
/// first use): make a rule with actions, register `rule` for `prim` on
/// `platform` (NULL is None), set the module or narrowed platforms, the
/// pinned client (`platform`), the compute type (`platform`), the override
/// (`rule` for `prim`) or the number of dimension variables, lower one
/// equation of `prim` (the outcome, and the event tree unless NULL), check a
/// platform index's actual and intended paths, or the number of recorded
/// events.
typedef struct low_step {
  enum {
    L_REG = 1,
    L_RULE,
    L_MODULE,
    L_NARROW,
    L_PIN,
    L_COMPUTE,
    L_OVERRIDE,
    L_DIMS,
    L_LOWER,
    L_PATH,
    L_EVENTS
  } op;
  const char *prim;
  const char *rule;
  const char *platform;
  /// L_RULE: the rule's actions; `prim` names LOWER_FUN's primitive and
  /// `text` its compute type (or RAISE_IF_MULTI's message).
  struct low_action {
    lctx_lowering_action_kind kind;
    bool optional;
    const char *prim;
    const char *text;
  } actions[2];
  const char *list[6];
  size_t n;
  ts_expect want;
  const char *tree;
  const char *intended;
} low_step;

#define L_REG_(p, r, pl)                                                       \
  { .op = L_REG, .prim = (p), .rule = (r), .platform = (pl) }
#define L_MODULE_(...)                                                         \
  {                                                                            \
    .op = L_MODULE, .list = { __VA_ARGS__ }                                    \
  }
#define L_NARROW_(...)                                                         \
  {                                                                            \
    .op = L_NARROW, .list = { __VA_ARGS__ }                                    \
  }
#define L_DIMS_(k)                                                             \
  { .op = L_DIMS, .n = (k) }
#define L_RULE_(r, k, ...)                                                     \
  {                                                                            \
    .op = L_RULE, .rule = (r), .n = (k), .actions = { __VA_ARGS__ }            \
  }
#define L_PIN_(pl)                                                             \
  { .op = L_PIN, .platform = (pl) }
#define L_COMPUTE_(pl)                                                         \
  { .op = L_COMPUTE, .platform = (pl) }
#define L_OVERRIDE_(p, r)                                                      \
  { .op = L_OVERRIDE, .prim = (p), .rule = (r) }
/// Actions of L_RULE_.
#define A_GET_BACKEND(opt)                                                     \
  { LCTX_ACTION_GET_BACKEND, (opt), NULL, NULL }
#define A_GUARDED(opt)                                                         \
  { LCTX_ACTION_GUARDED_GET_BACKEND, (opt), NULL, NULL }
#define A_TRY_FALLBACK                                                         \
  { LCTX_ACTION_TRY_FALLBACK_GET_BACKEND, false, NULL, NULL }
#define A_RAISE_IF_MULTI(m)                                                    \
  { LCTX_ACTION_RAISE_IF_MULTI, false, NULL, (m) }
#define A_MARKER                                                               \
  { LCTX_ACTION_EMIT_MARKER, false, NULL, NULL }
#define A_LOWER_FUN(p, compute)                                                \
  { LCTX_ACTION_LOWER_FUN, false, (p), (compute) }
#define FAILS_WITH(p, error, message, events)                                  \
  {                                                                            \
    .op = L_LOWER, .prim = (p), .want = TS_WANT_RAISE(error, message),         \
    .tree = (events)                                                           \
  }
#define LOWERS(p, events)                                                      \
  { .op = L_LOWER, .prim = (p), .want = TS_WANT_NONE, .tree = (events) }
#define FAILS(p, error, message)                                               \
  { .op = L_LOWER, .prim = (p), .want = TS_WANT_RAISE(error, message) }
#define L_PATH_(i, actual, intended_)                                          \
  { .op = L_PATH, .n = (i), .tree = (actual), .intended = (intended_) }
#define L_EVENTS_(k)                                                           \
  { .op = L_EVENTS, .n = (k) }

typedef struct low_row {
  ts_row at;
  low_step steps[16];
} low_row;

static size_t list_length(const char *const *list) {
  size_t n = 0;
  while (n < 6 && list[n])
    n++;
  return n;
}

static lctx_lowering_action low_action_make(fx *f, const struct low_action *a) {
  switch (a->kind) {
  case LCTX_ACTION_GET_BACKEND:
    return lctx_action_get_backend(a->optional);
  case LCTX_ACTION_GUARDED_GET_BACKEND:
    return lctx_action_guarded_get_backend(a->optional);
  case LCTX_ACTION_TRY_FALLBACK_GET_BACKEND:
    return lctx_action_try_fallback_get_backend();
  case LCTX_ACTION_RAISE_IF_MULTI:
    return lctx_action_raise_if_multi(ts_s(a->text));
  case LCTX_ACTION_READ_CLIENT_PLATFORM:
    return lctx_action_read_client_platform();
  case LCTX_ACTION_LOWER_FUN:
    return a->text
               ? lctx_action_lower_fun_compute(prim(f, a->prim), ts_s(a->text))
               : lctx_action_lower_fun(prim(f, a->prim));
  case LCTX_ACTION_EMIT_MARKER:
    break;
  }
  return lctx_action_emit_marker();
}

static void run_lowering_rows(const low_row *rows, size_t count) {
  static fx f;
  for (size_t i = 0; i < count; i++) {
    const char *file = rows[i].at.file;
    const int line = rows[i].at.line;
    ts_row_enter(&rows[i].at);
    fx_stock(&f);
    for (size_t k = 0; k < 16 && rows[i].steps[k].op; k++) {
      const low_step *st = &rows[i].steps[k];
      switch (st->op) {
      case L_REG:
        reg_at(&f, prim(&f, st->prim), rule_named(&f, st->rule), st->platform,
               file, line);
        break;
      case L_RULE: {
        lctx_lowering_action a[2];
        for (size_t j = 0; j < st->n; j++)
          a[j] = low_action_make(&f, &st->actions[j]);
        rule_make(&f, st->rule, a, st->n);
        break;
      }
      case L_MODULE:
        fx_module_set(&f, st->list, list_length(st->list));
        break;
      case L_PIN:
        lctx_module_context_pin(&f.ctx.module, ts_s(st->platform));
        break;
      case L_COMPUTE:
        f.ctx.has_compute_type = true;
        f.ctx.compute_type = ts_s(st->platform);
        break;
      case L_OVERRIDE:
        f.ctx.overrides.count = 1;
        f.ctx.overrides.primitives[0] = prim(&f, st->prim);
        f.ctx.overrides.rules[0] = rule_named(&f, st->rule);
        break;
      case L_NARROW:
        fx_narrow_set(&f, st->list, list_length(st->list));
        break;
      case L_DIMS:
        f.ctx.dim_var_count = st->n;
        break;
      case L_LOWER:
        lower_at(&f, prim(&f, st->prim), file, line);
        ts_assert_outcome_at(&f.result.outcome, st->want, file, line);
        if (st->tree)
          assert_events_at(&f, st->tree, file, line);
        break;
      case L_PATH:
        assert_path_at(&f, st->n, st->tree, st->intended, file, line);
        break;
      case L_EVENTS:
        ts_check_int(f.result.event_count, st->n, "event_count", file, line);
        break;
      }
    }
  }
}

/// Rule selection and lower_per_platform on marker rules.
static const low_row lowering_rows[] = {
    /* cuda is not a module platform: its rule is not selected; the default
     * runs for the narrowed cuda, directly. Without a default: the
     * singular message for the narrowed platform. */
    {TS_ROW("test_rule_lookup_uses_module_not_narrowed_platforms"),
     {L_REG_("P", "P.cuda", "cuda"), L_REG_("P", "P.default", NULL),
      L_MODULE_("cpu", "tpu"), L_NARROW_("cuda"),
      LOWERS("P", "eqn P module=['cpu', 'tpu'] platforms=['cuda'] rules={} "
                  "default=P.default\n"
                  "  call P.default platforms=['cuda'] module=['cpu', "
                  "'tpu'] direct\n"
                  "    marker P.default platforms=['cuda'] module=['cpu', "
                  "'tpu']\n"),
      L_REG_("Q", "P.cuda", "cuda"),
      FAILS("Q", LCTX_ERROR_NOT_IMPLEMENTED,
            "MLIR translation rule for primitive 'Q' not found for "
            "platform cuda")}},
    /* platform_rules comes from the module order (cpu, cuda); the first case
     * from the narrowed order (cuda, cpu). */
    {TS_ROW("test_kept_rules_follow_lookup_order_with_narrowing"),
     {L_REG_("P", "P.cuda", "cuda"), L_REG_("P", "P.cpu", "cpu"),
      L_MODULE_("cpu", "tpu", "cuda"), L_NARROW_("cuda", "cpu"),
      LOWERS(
          "P",
          "eqn P module=['cpu', 'tpu', 'cuda'] platforms=['cuda', 'cpu'] "
          "rules={cpu: P.cpu, cuda: P.cuda} default=None\n"
          "  case entries=['cuda', 'cpu'] slots=[1, 0] kept=[P.cpu, P.cuda]\n"
          "    branch 0 P.cpu platforms=['cpu']\n"
          "      call P.cpu platforms=['cpu'] module=['cpu', 'tpu', 'cuda']\n"
          "        marker P.cpu platforms=['cpu'] module=['cpu', 'tpu', "
          "'cuda']\n"
          "    branch 1 P.cuda platforms=['cuda']\n"
          "      call P.cuda platforms=['cuda'] module=['cpu', 'tpu', "
          "'cuda']\n"
          "        marker P.cuda platforms=['cuda'] module=['cpu', 'tpu', "
          "'cuda']\n")}},
    /* Step 1 counts entries: (cpu, cpu) is two. */
    {TS_ROW("test_step1_counts_entries_cpu_cpu_is_two"),
     {L_MODULE_("cpu", "cpu"),
      FAILS("P", LCTX_ERROR_NOT_IMPLEMENTED,
            "MLIR translation rule for primitive 'P' not found for "
            "platforms ['cpu', 'cpu']")}},
    /* Step 3: the plural message lists the uncovered entries, duplicates
     * kept, as a Python list repr. */
    {TS_ROW("test_step3_plural_lists_uncovered_with_duplicates"),
     {L_REG_("P", "P.tpu", "tpu"), L_MODULE_("cpu", "tpu", "cpu", "cuda"),
      FAILS("P", LCTX_ERROR_NOT_IMPLEMENTED,
            "MLIR translation rule for primitive 'P' not found for "
            "platforms ['cpu', 'cpu', 'cuda']"),
      L_MODULE_("tpu", "it's", "a\"b'"),
      FAILS("P", LCTX_ERROR_NOT_IMPLEMENTED,
            "MLIR translation rule for primitive 'P' not found for "
            "platforms [\"it's\", 'a\"b\\'']")}},
    /* Step 5: (cpu, cpu) with a cpu rule is a direct call, which needs no
     * conditional, so no index. */
    {TS_ROW("test_step5_cpu_cpu_with_cpu_rule_is_direct"),
     {L_REG_("P", "P.cpu", "cpu"), L_MODULE_("cpu", "cpu"), L_DIMS_(0),
      LOWERS("P", "eqn P module=['cpu', 'cpu'] platforms=['cpu', 'cpu'] "
                  "rules={cpu: P.cpu} default=None\n"
                  "  call P.cpu platforms=None module=['cpu', 'cpu'] "
                  "direct\n"
                  "    marker P.cpu platforms=['cpu', 'cpu'] "
                  "module=['cpu', 'cpu']\n"),
      L_PATH_(0, "P.cpu", "P.cpu"), L_PATH_(1, "P.cpu", "P.cpu")}},
    /* Step 5: one platform, its specific rule over the default. */
    {TS_ROW("test_step5_single_platform_specific_over_default"),
     {L_REG_("P", "P.cpu", "cpu"), L_REG_("P", "P.tpu", "tpu"),
      L_REG_("P", "P.default", NULL), L_MODULE_("tpu"),
      LOWERS("P", "eqn P module=['tpu'] platforms=['tpu'] rules={tpu: "
                  "P.tpu} default=P.default\n"
                  "  call P.tpu platforms=None module=['tpu'] direct\n"
                  "    marker P.tpu platforms=['tpu'] module=['tpu']\n"),
      L_MODULE_("cuda"),
      LOWERS("P", "eqn P module=['cuda'] platforms=['cuda'] rules={} "
                  "default=P.default\n"
                  "  call P.default platforms=None module=['cuda'] direct\n"
                  "    marker P.default platforms=['cuda'] "
                  "module=['cuda']\n")}},
    /* Step 6: steps 1-3 first (the plural error, not the assertion); then
     * two kept rules and no index: nothing emitted; any dimension variable
     * satisfies the check. */
    {TS_ROW("test_step6_platform_index_assertion"),
     {L_REG_("P", "P.cpu", "cpu"), L_MODULE_("cpu", "tpu"), L_DIMS_(0),
      FAILS("P", LCTX_ERROR_NOT_IMPLEMENTED,
            "MLIR translation rule for primitive 'P' not found for "
            "platforms ['tpu']"),
      L_REG_("P", "P.default", NULL),
      FAILS("P", LCTX_ERROR_ASSERTION, "Must have a platform_index variable"),
      L_EVENTS_(1), L_DIMS_(2), LOWERS("P", NULL)}},
    /* Step 7: the dispatch, the default slot last. */
    {TS_ROW("test_step7_dispatch_default_slot_last"),
     {L_REG_("P", "P.default", NULL), L_REG_("P", "P.cuda", "cuda"),
      L_REG_("P", "P.cpu", "cpu"),
      L_MODULE_("tpu", "cpu", "tpu", "cuda", "rocm"),
      LOWERS(
          "P",
          "eqn P module=['tpu', 'cpu', 'tpu', 'cuda', 'rocm'] "
          "platforms=['tpu', "
          "'cpu', 'tpu', 'cuda', 'rocm'] rules={cpu: P.cpu, cuda: P.cuda} "
          "default=P.default\n"
          "  case entries=['tpu', 'cpu', 'tpu', 'cuda', 'rocm'] slots=[2, 0, "
          "2, "
          "1, 2] kept=[P.cpu, P.cuda, P.default]\n"
          "    branch 0 P.cpu platforms=['cpu']\n"
          "      call P.cpu platforms=['cpu'] module=['tpu', 'cpu', 'tpu', "
          "'cuda', 'rocm']\n"
          "        marker P.cpu platforms=['cpu'] module=['tpu', 'cpu', 'tpu', "
          "'cuda', 'rocm']\n"
          "    branch 1 P.cuda platforms=['cuda']\n"
          "      call P.cuda platforms=['cuda'] module=['tpu', 'cpu', 'tpu', "
          "'cuda', 'rocm']\n"
          "        marker P.cuda platforms=['cuda'] module=['tpu', 'cpu', "
          "'tpu', "
          "'cuda', 'rocm']\n"
          "    branch 2 P.default platforms=['tpu', 'rocm']\n"
          "      call P.default platforms=['tpu', 'rocm'] module=['tpu', "
          "'cpu', "
          "'tpu', 'cuda', 'rocm']\n"
          "        marker P.default platforms=['tpu', 'rocm'] module=['tpu', "
          "'cpu', 'tpu', 'cuda', 'rocm']\n"),
      L_PATH_(0, "P.default", "P.default"), L_PATH_(1, "P.cpu", "P.cpu"),
      L_PATH_(2, "P.default", "P.default"), L_PATH_(3, "P.cuda", "P.cuda"),
      L_PATH_(4, "P.default", "P.default")}},
    /* Step 7: identical rules are not merged; two kept rules need the
     * index. */
    {TS_ROW("test_step7_identical_rules_not_merged"),
     {L_REG_("P", "P.gpu", "gpu"), L_MODULE_("cuda", "rocm"),
      LOWERS("P", "eqn P module=['cuda', 'rocm'] platforms=['cuda', "
                  "'rocm'] rules={cuda: P.gpu, rocm: P.gpu} default=None\n"
                  "  case entries=['cuda', 'rocm'] slots=[0, 1] "
                  "kept=[P.gpu, P.gpu]\n"
                  "    branch 0 P.gpu platforms=['cuda']\n"
                  "      call P.gpu platforms=['cuda'] module=['cuda', "
                  "'rocm']\n"
                  "        marker P.gpu platforms=['cuda'] module=['cuda', "
                  "'rocm']\n"
                  "    branch 1 P.gpu platforms=['rocm']\n"
                  "      call P.gpu platforms=['rocm'] module=['cuda', "
                  "'rocm']\n"
                  "        marker P.gpu platforms=['rocm'] module=['cuda', "
                  "'rocm']\n"),
      L_DIMS_(0),
      FAILS("P", LCTX_ERROR_ASSERTION, "Must have a platform_index variable")}},
    /* The nested defect with rocm: indices 1 and 2 run Q's next rule. */
    {TS_ROW("test_nested_defect_cpu_tpu_cuda_rocm"),
     {L_RULE_("P.default", 1, A_LOWER_FUN("Q", NULL)),
      L_REG_("P", "P.cpu", "cpu"), L_REG_("P", "P.default", NULL),
      L_REG_("Q", "Q.tpu", "tpu"), L_REG_("Q", "Q.cuda", "cuda"),
      L_REG_("Q", "Q.rocm", "rocm"), L_MODULE_("cpu", "tpu", "cuda", "rocm"),
      LOWERS("P", NULL), L_PATH_(0, "P.cpu", "P.cpu"),
      L_PATH_(1, "P.default > Q.cuda", "P.default > Q.tpu"),
      L_PATH_(2, "P.default > Q.rocm", "P.default > Q.cuda"),
      L_PATH_(3, "P.default > Q.rocm", "P.default > Q.rocm")}},
    /* Module (tpu, cuda, cpu): the default group [tpu, cuda] sits at indices
     * 0 and 1, which the inner case maps right. */
    {TS_ROW("test_nested_no_defect_when_default_group_first"),
     {L_RULE_("P.default", 1, A_LOWER_FUN("Q", NULL)),
      L_REG_("P", "P.cpu", "cpu"), L_REG_("P", "P.default", NULL),
      L_REG_("Q", "Q.tpu", "tpu"), L_REG_("Q", "Q.cuda", "cuda"),
      L_MODULE_("tpu", "cuda", "cpu"), LOWERS("P", NULL),
      L_PATH_(0, "P.default > Q.tpu", "P.default > Q.tpu"),
      L_PATH_(1, "P.default > Q.cuda", "P.default > Q.cuda"),
      L_PATH_(2, "P.cpu", "P.cpu")}},
    /* A nested raise names only the narrowed platforms (and nothing is
     * evaluated, as LOWER checks)... */
    {TS_ROW("test_nested_error_names_only_narrowed_platforms"),
     {L_RULE_("P.default", 1, A_LOWER_FUN("Q", NULL)),
      L_REG_("P", "P.cpu", "cpu"), L_REG_("P", "P.default", NULL),
      L_REG_("Q", "Q.tpu", "tpu"), L_MODULE_("cpu", "tpu", "cuda"),
      FAILS("P", LCTX_ERROR_NOT_IMPLEMENTED,
            "MLIR translation rule for primitive 'Q' not found for "
            "platforms ['cuda']")}},
    /* ... and aborts the later branches. */
    {TS_ROW("test_nested_error_aborts_later_branches"),
     {L_RULE_("P.cpu", 1, A_LOWER_FUN("Q", NULL)), L_REG_("P", "P.cpu", "cpu"),
      L_REG_("P", "P.default", NULL), L_MODULE_("cpu", "tpu"),
      FAILS_WITH("P", LCTX_ERROR_NOT_IMPLEMENTED,
                 "MLIR translation rule for primitive 'Q' not found for "
                 "platform cpu",
                 "eqn P module=['cpu', 'tpu'] platforms=['cpu', 'tpu'] "
                 "rules={cpu: P.cpu} default=P.default\n"
                 "  case entries=['cpu', 'tpu'] slots=[0, 1] "
                 "kept=[P.cpu, P.default]\n"
                 "    branch 0 P.cpu platforms=['cpu']\n"
                 "      call P.cpu platforms=['cpu'] module=['cpu', "
                 "'tpu']\n"
                 "        eqn Q module=['cpu'] platforms=['cpu'] rules={} "
                 "default=None\n")}},
    /* B1 in a branch (optional), B3 for a sub-primitive through lower_fun;
     * optional=False in the branch: B1 raises M1 and aborts the module. */
    {TS_ROW("test_b1_in_branch_b3_through_lower_fun"),
     {L_RULE_("P.default", 2, A_GET_BACKEND(true), A_LOWER_FUN("Q", NULL)),
      L_REG_("P", "P.tpu", "tpu"), L_REG_("P", "P.default", NULL),
      L_RULE_("Q.default", 1, A_GET_BACKEND(false)),
      L_REG_("Q", "Q.default", NULL), L_MODULE_("cpu", "tpu"),
      LOWERS("P",
             "eqn P module=['cpu', 'tpu'] platforms=['cpu', 'tpu'] rules={tpu: "
             "P.tpu} default=P.default\n"
             "  case entries=['cpu', 'tpu'] slots=[1, 0] kept=[P.tpu, "
             "P.default]\n"
             "    branch 0 P.tpu platforms=['tpu']\n"
             "      call P.tpu platforms=['tpu'] module=['cpu', 'tpu']\n"
             "        marker P.tpu platforms=['tpu'] module=['cpu', 'tpu']\n"
             "    branch 1 P.default platforms=['cpu']\n"
             "      call P.default platforms=['cpu'] module=['cpu', 'tpu']\n"
             "        get_backend optional=True module=['cpu', 'tpu'] -> B1 "
             "None\n"
             "        eqn Q module=['cpu'] platforms=['cpu'] rules={} "
             "default=Q.default\n"
             "          call Q.default platforms=None module=['cpu'] direct\n"
             "            get_backend optional=False module=['cpu'] -> B3 "
             "client 'cpu' registration 0\n"),
      L_PATH_(0, "P.default > Q.default", "P.default > Q.default"),
      L_PATH_(1, "P.tpu", "P.tpu"), L_REG_("P2", "P2.tpu", "tpu"),
      L_RULE_("P2.default", 1, A_GET_BACKEND(false)),
      L_REG_("P2", "P2.default", NULL),
      FAILS("P2", LCTX_ERROR_NOT_IMPLEMENTED, TS_MSG_M1)}},
    /* A pinned backend: branch cpu B2b, the pinned client; branch tpu B2a
     * ValueError. */
    {TS_ROW("test_lower_fun_pinned_backend_b2"),
     {L_RULE_("P.cpu", 1, A_LOWER_FUN("Q", NULL)),
      L_RULE_("P.tpu", 1, A_LOWER_FUN("Q", NULL)),
      L_RULE_("Q.default", 1, A_GET_BACKEND(false)),
      L_REG_("P", "P.cpu", "cpu"), L_REG_("P", "P.tpu", "tpu"),
      L_REG_("Q", "Q.default", NULL), L_MODULE_("cpu", "tpu"), L_PIN_("cpu"),
      FAILS_WITH("P", LCTX_ERROR_VALUE,
                 "the platform for the specified backend cpu is different "
                 "from the lowering platform tpu",
                 "eqn P module=['cpu', 'tpu'] platforms=['cpu', 'tpu'] "
                 "rules={cpu: P.cpu, tpu: P.tpu} default=None\n"
                 "  case entries=['cpu', 'tpu'] slots=[0, 1] "
                 "kept=[P.cpu, P.tpu]\n"
                 "    branch 0 P.cpu platforms=['cpu']\n"
                 "      call P.cpu platforms=['cpu'] module=['cpu', "
                 "'tpu']\n"
                 "        eqn Q module=['cpu'] platforms=['cpu'] rules={} "
                 "default=Q.default\n"
                 "          call Q.default platforms=None module=['cpu'] "
                 "direct\n"
                 "            get_backend optional=False module=['cpu'] -> "
                 "B2b pinned client 'cpu'\n"
                 "    branch 1 P.tpu platforms=['tpu']\n"
                 "      call P.tpu platforms=['tpu'] module=['cpu', "
                 "'tpu']\n"
                 "        eqn Q module=['tpu'] platforms=['tpu'] rules={} "
                 "default=Q.default\n"
                 "          call Q.default platforms=None module=['tpu'] "
                 "direct\n"
                 "            get_backend optional=False module=['tpu'] -> "
                 "B2a ValueError\n")}},
    /* A direct call (no narrowing) lowers Q with the full module
     * platforms. */
    {TS_ROW("test_lower_fun_without_narrowing_keeps_module"),
     {L_RULE_("P.default", 1, A_LOWER_FUN("Q", NULL)),
      L_REG_("P", "P.default", NULL), L_REG_("Q", "Q.default", NULL),
      L_MODULE_("cpu", "tpu"),
      LOWERS("P", "eqn P module=['cpu', 'tpu'] platforms=['cpu', 'tpu'] "
                  "rules={} default=P.default\n"
                  "  call P.default platforms=None module=['cpu', 'tpu'] "
                  "direct\n"
                  "    eqn Q module=['cpu', 'tpu'] platforms=['cpu', 'tpu'] "
                  "rules={} default=Q.default\n"
                  "      call Q.default platforms=None module=['cpu', "
                  "'tpu'] direct\n"
                  "        marker Q.default platforms=['cpu', 'tpu'] "
                  "module=['cpu', 'tpu']\n")}},
    /* `ctx.platforms is not None`: an empty narrowed list (set by a caller)
     * reads as unset for the equation, but lower_fun still replaces the
     * module platforms with it, so the sub-equation has no platforms. */
    {TS_ROW("test_lower_fun_empty_narrowed_list_replaces_module"),
     {L_RULE_("P.default", 1, A_LOWER_FUN("Q", NULL)),
      L_REG_("P", "P.default", NULL), L_REG_("Q", "Q.default", NULL),
      L_MODULE_("cpu"), L_NARROW_(NULL),
      FAILS_WITH("P", LCTX_ERROR_ASSERTION, "",
                 "eqn P module=['cpu'] platforms=['cpu'] rules={} "
                 "default=P.default\n"
                 "  call P.default platforms=[] module=['cpu'] direct\n"
                 "    eqn Q module=[] platforms=[] rules={} "
                 "default=Q.default\n")}},
    /* jaxpr_subcomp begins with `assert "gpu" not in ctx.platforms`: a
     * lower_fun whose module context names gpu aborts with a bare
     * AssertionError before the sub-equation is looked at; a rule without
     * lower_fun lowers in a gpu module as usual. */
    {TS_ROW("test_lower_fun_asserts_gpu_not_in_module_platforms"),
     {L_REG_("P", "P.cpu", "cpu"),
      L_RULE_("P.default", 1, A_LOWER_FUN("Q", NULL)),
      L_REG_("P", "P.default", NULL), L_REG_("Q", "Q.default", NULL),
      L_REG_("R", "R.default", NULL), L_MODULE_("gpu"),
      FAILS_WITH("P", LCTX_ERROR_ASSERTION, "",
                 "eqn P module=['gpu'] platforms=['gpu'] rules={} "
                 "default=P.default\n"
                 "  call P.default platforms=None module=['gpu'] direct\n"
                 "    raise AssertionError\n"),
      L_MODULE_("cpu", "gpu"), FAILS("P", LCTX_ERROR_ASSERTION, ""),
      L_MODULE_("cpu", "gpu"), LOWERS("R", NULL)}},
    /* An override is called once, directly, and reaches equations lowered
     * through lower_fun. */
    {TS_ROW("test_override_called_once_directly"),
     {L_REG_("P", "P.cpu", "cpu"), L_REG_("P", "P.tpu", "tpu"),
      L_MODULE_("cpu", "tpu"), L_DIMS_(0), L_OVERRIDE_("P", "O"),
      LOWERS("P", "eqn P module=['cpu', 'tpu'] platforms=['cpu', 'tpu'] "
                  "rules={} default=O override\n"
                  "  call O platforms=None module=['cpu', 'tpu'] direct\n"
                  "    marker O platforms=['cpu', 'tpu'] module=['cpu', "
                  "'tpu']\n"),
      L_RULE_("R.default", 1, A_LOWER_FUN("Q", NULL)),
      L_REG_("R", "R.default", NULL), L_OVERRIDE_("Q", "O"),
      LOWERS("R", "eqn R module=['cpu', 'tpu'] platforms=['cpu', 'tpu'] "
                  "rules={} default=R.default\n"
                  "  call R.default platforms=None module=['cpu', 'tpu'] "
                  "direct\n"
                  "    eqn Q module=['cpu', 'tpu'] platforms=['cpu', 'tpu'] "
                  "rules={} default=O override\n"
                  "      call O platforms=None module=['cpu', 'tpu'] "
                  "direct\n"
                  "        marker O platforms=['cpu', 'tpu'] module=['cpu', "
                  "'tpu']\n")}},
    /* device_host applies even though the module does not lower for cpu;
     * without a cpu rule, the singular message for cpu; tpu_sparsecore
     * wins over a narrowed list too. */
    {TS_ROW("test_compute_type_device_host"),
     {L_REG_("P", "P.cpu", "cpu"), L_REG_("P", "P.tpu", "tpu"),
      L_MODULE_("tpu", "cuda"), L_COMPUTE_("device_host"),
      LOWERS("P", "eqn P module=['tpu', 'cuda'] platforms=['cpu'] "
                  "rules={cpu: P.cpu} default=None\n"
                  "  call P.cpu platforms=None module=['tpu', 'cuda'] "
                  "direct\n"
                  "    marker P.cpu platforms=['cpu'] module=['tpu', "
                  "'cuda']\n"),
      L_PATH_(0, "P.cpu", "P.cpu"), L_PATH_(1, "P.cpu", "P.cpu"),
      L_REG_("Q", "Q.tpu", "tpu"),
      FAILS("Q", LCTX_ERROR_NOT_IMPLEMENTED,
            "MLIR translation rule for primitive 'Q' not found for "
            "platform cpu"),
      L_COMPUTE_("tpu_sparsecore"), L_NARROW_("cuda"),
      LOWERS("Q", "eqn Q module=['tpu', 'cuda'] platforms=['tpu'] "
                  "rules={tpu: Q.tpu} default=None\n"
                  "  call Q.tpu platforms=['cuda'] module=['tpu', 'cuda'] "
                  "direct\n"
                  "    marker Q.tpu platforms=['tpu'] module=['tpu', "
                  "'cuda']\n")}},
    /* A compute type through lower_fun. */
    {TS_ROW("test_compute_type_through_lower_fun"),
     {L_RULE_("P.default", 1, A_LOWER_FUN("Q", "device_host")),
      L_REG_("P", "P.default", NULL), L_REG_("Q", "Q.cpu", "cpu"),
      L_REG_("Q", "Q.default", NULL), L_MODULE_("tpu", "cuda"),
      LOWERS("P", "eqn P module=['tpu', 'cuda'] platforms=['tpu', 'cuda'] "
                  "rules={} default=P.default\n"
                  "  call P.default platforms=None module=['tpu', 'cuda'] "
                  "direct\n"
                  "    eqn Q module=['tpu', 'cuda'] platforms=['cpu'] "
                  "rules={cpu: Q.cpu} default=Q.default\n"
                  "      call Q.cpu platforms=None module=['tpu', 'cuda'] "
                  "direct\n"
                  "        marker Q.cpu platforms=['cpu'] module=['tpu', "
                  "'cuda']\n")}},
    /* Rule-body actions: a guarded get_backend (a B3 error is not
     * guarded)... */
    {TS_ROW("test_action_guarded_get_backend"),
     {L_RULE_("P.default", 1, A_GUARDED(false)), L_REG_("P", "P.default", NULL),
      L_MODULE_("cpu", "tpu"),
      LOWERS("P", "eqn P module=['cpu', 'tpu'] platforms=['cpu', 'tpu'] "
                  "rules={} default=P.default\n"
                  "  call P.default platforms=None module=['cpu', 'tpu'] "
                  "direct\n"),
      L_MODULE_("tpu"),
      LOWERS("P", "eqn P module=['tpu'] platforms=['tpu'] rules={} "
                  "default=P.default\n"
                  "  call P.default platforms=None module=['tpu'] direct\n"
                  "    get_backend optional=False module=['tpu'] -> B3 "
                  "client 'tpu' registration 1\n"),
      L_MODULE_("cuda"),
      FAILS("P", LCTX_ERROR_RUNTIME,
            "Unknown backend cuda. Available backends are ['cpu', 'tpu']")}},
    /* ... try and fall back (ValueError M2 is not caught)... */
    {TS_ROW("test_action_try_fallback"),
     {L_RULE_("P.default", 1, A_TRY_FALLBACK), L_REG_("P", "P.default", NULL),
      L_MODULE_("cpu", "tpu"),
      LOWERS("P", "eqn P module=['cpu', 'tpu'] platforms=['cpu', 'tpu'] "
                  "rules={} default=P.default\n"
                  "  call P.default platforms=None module=['cpu', 'tpu'] "
                  "direct\n"
                  "    get_backend optional=False module=['cpu', 'tpu'] -> "
                  "B1 NotImplementedError\n"
                  "    get_backend retry optional=True module=['cpu', "
                  "'tpu'] -> B1 None\n"),
      L_MODULE_("tpu"), L_PIN_("cpu"),
      FAILS("P", LCTX_ERROR_VALUE,
            "the platform for the specified backend cpu is different "
            "from the lowering platform tpu")}},
    /* ... raise if multi (duplicates count: (cpu, cpu) is multi). */
    {TS_ROW("test_action_raise_if_multi"),
     {L_RULE_("P.default", 2,
              A_RAISE_IF_MULTI("multi-platform lowering for python_callback"),
              A_MARKER),
      L_REG_("P", "P.default", NULL), L_MODULE_("cpu", "tpu"),
      FAILS_WITH("P", LCTX_ERROR_NOT_IMPLEMENTED,
                 "multi-platform lowering for python_callback",
                 "eqn P module=['cpu', 'tpu'] platforms=['cpu', 'tpu'] "
                 "rules={} default=P.default\n"
                 "  call P.default platforms=None module=['cpu', 'tpu'] "
                 "direct\n"
                 "    raise NotImplementedError\n"),
      L_MODULE_("cpu"), LOWERS("P", NULL), L_MODULE_("cpu", "cpu"),
      FAILS("P", LCTX_ERROR_NOT_IMPLEMENTED,
            "multi-platform lowering for python_callback")}},
};

static void test_lowering_rows(void **state) {
  (void)state;
  run_lowering_rows(lowering_rows,
                    sizeof lowering_rows / sizeof lowering_rows[0]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lowering_rows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
