/*
 * tests/test_lowering.c - pins register_lowering, rule selection,
 * lower_per_platform and lower_fun (semantics.md sections 6 and 7); the
 * table of lowering rows is test_lowering_rows.c's.
 *
 * - register_lowering: None stores the common rule, "" is a platform name,
 *   the unknown-platform message byte for byte (known names sorted by code
 *   point, each once; `METAL` before `cpu`; a factory named '' as an empty
 *   first item; `{prim}` and `{platform}` raw), case-sensitivity, nothing
 *   stored on a raise, `gpu` expanded to cuda/rocm/oneapi and replacement in
 *   both directions.
 * - _get_lowering_rules: overrides (identity, first match, empty = none),
 *   platform-specific rules looked up over the compute-type platforms or the
 *   module platforms (never the narrowed ones), in first-occurrence order,
 *   the common rule as default.
 * - lower_per_platform, steps 1-7: the singular and plural messages, kept
 *   rules in platform_rules order (not merged), the default slot last, the
 *   bare AssertionError, the direct call (narrowing kept), the platform-index
 *   AssertionError only after steps 1-5, the two-level dispatch with its
 *   narrowed branches.
 * - lower_fun: narrowing reaches ModuleContext only through it (B1 for a
 *   rule called in a branch, B3 for a sub-primitive); a nested raise aborts
 *   the module and names only the narrowed platforms.
 * - The nested platform-index upstream defect: N[min(i, len(N)-1)].
 * - Rule-body actions, compute types, limits.
 */
#include "lowering_helpers.h"

//===----------------------------------------------------------------------===//
// register_lowering (section 6)
//===----------------------------------------------------------------------===//

/// A step of a register_lowering row: register `rule` (a marker rule, made
/// on first use) for `prim` (added on first use) on `platform` (NULL is
/// None), which succeeds or raises NotImplementedError `text`; or check the
/// rule stored for a platform or the common rule (`rule` NULL: none), the
/// number of platform-specific entries, or the known platforms' text.
typedef struct reg_step {
  enum { REGISTER = 1, SPECIFIC, COMMON, SPECIFIC_COUNT, KNOWN } op;
  const char *prim;
  const char *rule;
  const char *platform;
  const char *text;
  size_t count;
} reg_step;

#define REGISTER(p, r, pl)                                                     \
  { .op = REGISTER, .prim = (p), .rule = (r), .platform = (pl) }
#define REGISTER_FAILS(p, r, pl, known)                                        \
  {                                                                            \
    .op = REGISTER, .prim = (p), .rule = (r), .platform = (pl),                \
    .text = "Registering an MLIR lowering rule for primitive " p               \
            " for an unknown platform " pl ". Known platforms are: " known "." \
  }
#define SPECIFIC_IS(p, pl, r)                                                  \
  { .op = SPECIFIC, .prim = (p), .rule = (r), .platform = (pl) }
#define COMMON_IS(p, r)                                                        \
  { .op = COMMON, .prim = (p), .rule = (r) }
#define SPECIFIC_COUNT_IS(n)                                                   \
  { .op = SPECIFIC_COUNT, .count = (n) }
#define KNOWN_IS(known)                                                        \
  { .op = KNOWN, .text = (known) }
/// The known platforms of the stock configuration.
#define STOCK_KNOWN "cpu, cuda, gpu, oneapi, rocm, tpu"

typedef struct reg_row {
  ts_row at;
  ts_setup setup;
  reg_step steps[12];
} reg_row;

static void run_register_rows(const reg_row *rows, size_t count) {
  static fx f;
  for (size_t i = 0; i < count; i++) {
    const char *file = rows[i].at.file;
    const int line = rows[i].at.line;
    ts_row_enter(&rows[i].at);
    ts_setup_build_at(&rows[i].setup, &f.config, file, line);
    fx_open(&f);
    for (const reg_step *st = rows[i].steps; st->op; st++) {
      int p = st->prim ? prim(&f, st->prim) : -1;
      int r = rule_named(&f, st->rule);
      char storage[256];
      lctx_buf buf;
      switch (st->op) {
      case REGISTER:
        if (st->text)
          reg_raises_at(&f, p, r, st->platform, st->text, file, line);
        else
          reg_at(&f, p, r, st->platform, file, line);
        break;
      case SPECIFIC:
        ts_check_int((uintmax_t)lctx_lowering_specific_rule(&f.lowering, p,
                                                            ts_s(st->platform)),
                     (uintmax_t)r, "specific rule", file, line);
        break;
      case COMMON:
        ts_check_int((uintmax_t)lctx_lowering_common_rule(&f.lowering, p),
                     (uintmax_t)r, "common rule", file, line);
        break;
      case SPECIFIC_COUNT:
        ts_check_int(f.lowering.specific_count, st->count, "specific_count",
                     file, line);
        break;
      case KNOWN:
        lctx_buf_init(&buf, storage, sizeof storage);
        lctx_lowering_format_known_platforms(&f.lowering, &buf);
        ts_assert_buf_at(&buf, st->text, file, line);
        break;
      }
    }
  }
}

static const reg_row register_rows[] = {
    /* None stores the common rule; a later None registration replaces it. */
    {TS_ROW("test_register_none_stores_common_rule"),
     {.base = TS_STOCK},
     {COMMON_IS("P", NULL), REGISTER("P", "A", NULL), COMMON_IS("P", "A"),
      SPECIFIC_COUNT_IS(0), SPECIFIC_IS("P", "", NULL),
      REGISTER("P", "B", NULL), COMMON_IS("P", "B")}},
    /* The unknown-platform message, and the known platforms. */
    {TS_ROW("test_register_known_platforms_message"),
     {.base = TS_STOCK},
     {REGISTER_FAILS("P", "A", "metal", STOCK_KNOWN), KNOWN_IS(STOCK_KNOWN)}},
    /* "" is not None: it is checked, and unknown here. */
    {TS_ROW("test_register_empty_string_is_a_platform_name"),
     {.base = TS_STOCK},
     {REGISTER_FAILS("P", "A", "", STOCK_KNOWN), COMMON_IS("P", NULL),
      SPECIFIC_COUNT_IS(0)}},
    /* A factory named '' is an empty first item; then "" is known: stored
     * under "", not as the common rule. */
    {TS_ROW("test_register_factory_named_empty_is_empty_first_item"),
     {.base = TS_STOCK, .add = {TS_CLIENT("", 5, true)}},
     {REGISTER_FAILS("P", "A", "xpu", ", " STOCK_KNOWN), REGISTER("P", "A", ""),
      SPECIFIC_IS("P", "", "A"), COMMON_IS("P", NULL)}},
    /* Sorted by code point: METAL before cpu. */
    {TS_ROW("test_register_sorted_by_code_point"),
     {.base = TS_STOCK,
      .add = {TS_CLIENT("METAL", 400, false), TS_CLIENT("Zeta", 1, true),
              TS_CLIENT("_x", 1, true)}},
     {REGISTER_FAILS("P", "A", "metal", "METAL, Zeta, _x, " STOCK_KNOWN),
      REGISTER("P", "A", "METAL"), SPECIFIC_IS("P", "METAL", "A")}},
    /* Each known name once (cpu, tpu, cuda, rocm, oneapi and gpu). */
    {TS_ROW("test_register_known_names_listed_once"),
     {.base = TS_GPUS, .nvidia = true, .add = {TS_CLIENT("gpu", 1, true)}},
     {REGISTER_FAILS("P", "A", "Cuda", STOCK_KNOWN)}},
    /* Case-sensitive. */
    {TS_ROW("test_register_case_sensitive"),
     {.base = TS_STOCK},
     {REGISTER_FAILS("P", "A", "CPU", STOCK_KNOWN),
      REGISTER_FAILS("P", "A", "GPU", STOCK_KNOWN),
      REGISTER_FAILS("P", "A", "cpu ", STOCK_KNOWN), SPECIFIC_COUNT_IS(0)}},
    /* {prim} and {platform} are inserted raw. */
    {TS_ROW("test_register_names_inserted_raw"),
     {.base = TS_STOCK},
     {REGISTER_FAILS("my'prim", "A", "it's\n", STOCK_KNOWN)}},
    /* A raise stores nothing. */
    {TS_ROW("test_register_raise_stores_nothing"),
     {.base = TS_STOCK},
     {REGISTER("P", "A", "cpu"), REGISTER_FAILS("P", "B", "cpux", STOCK_KNOWN),
      SPECIFIC_COUNT_IS(1), SPECIFIC_IS("P", "cpu", "A"),
      SPECIFIC_IS("P", "cpux", NULL), COMMON_IS("P", NULL)}},
    /* gpu expands to cuda, rocm and oneapi... */
    {TS_ROW("test_register_gpu_expands"),
     {.base = TS_STOCK},
     {REGISTER("P", "G", "gpu"), SPECIFIC_IS("P", "cuda", "G"),
      SPECIFIC_IS("P", "rocm", "G"), SPECIFIC_IS("P", "oneapi", "G"),
      SPECIFIC_IS("P", "gpu", NULL), SPECIFIC_COUNT_IS(3)}},
    /* ... even with a factory literally named gpu. */
    {TS_ROW("test_register_gpu_expands_factory_named_gpu"),
     {.base = TS_STOCK, .add = {TS_CLIENT("gpu", 1, true)}},
     {REGISTER("P", "G", "gpu"), SPECIFIC_IS("P", "gpu", NULL),
      SPECIFIC_IS("P", "rocm", "G")}},
    /* cuda then gpu: gpu replaces cuda's rule; gpu then cuda: cuda replaces
     * only cuda's; other primitives are untouched. */
    {TS_ROW("test_register_replacement_both_ways"),
     {.base = TS_STOCK},
     {REGISTER("P", "C", "cuda"), REGISTER("P", "G", "gpu"),
      SPECIFIC_IS("P", "cuda", "G"), REGISTER("P", "C", "cuda"),
      SPECIFIC_IS("P", "cuda", "C"), SPECIFIC_IS("P", "rocm", "G"),
      SPECIFIC_IS("P", "oneapi", "G"), SPECIFIC_COUNT_IS(3),
      SPECIFIC_IS("Q", "cuda", NULL)}},
    /* tpu is a factory, cuda/rocm/oneapi are known without one. */
    {TS_ROW("test_register_factory_platform_and_builtin_names"),
     {.base = TS_STOCK},
     {REGISTER("P", "A", "tpu"), REGISTER("P", "A", "rocm"),
      REGISTER("P", "A", "oneapi"), SPECIFIC_IS("P", "tpu", "A"),
      SPECIFIC_IS("P", "rocm", "A"), SPECIFIC_IS("P", "cpu", NULL)}},
};

static void test_register_lowering(void **state) {
  (void)state;
  run_register_rows(register_rows,
                    sizeof register_rows / sizeof register_rows[0]);
}

static void test_registry_ids(void **state) {
  (void)state;
  fx f;
  fx_stock(&f);
  assert_int_equal(prim(&f, "P"), 0);
  assert_int_equal(prim(&f, "Q"), 1);
  assert_int_equal(prim(&f, "P"), 0);
  assert_str_view(lctx_lowering_primitive_name(&f.lowering, 1), "Q");
  int r = marker_rule(&f, "R");
  assert_str_view(lctx_lowering_rule_name(&f.lowering, r), "R");
  lctx_lowering_action many[LCTX_LOWERING_MAX_ACTIONS + 1];
  for (size_t i = 0; i < LCTX_LOWERING_MAX_ACTIONS + 1; i++)
    many[i] = lctx_action_emit_marker();
  assert_int_equal(lctx_lowering_rule_add(&f.lowering, ts_s("X"), many,
                                          LCTX_LOWERING_MAX_ACTIONS + 1),
                   -1);
  assert_true(lctx_lowering_rule_add(&f.lowering, ts_s("Y"), many,
                                     LCTX_LOWERING_MAX_ACTIONS) >= 0);
  /* Bad ids store nothing. */
  lctx_str cpu = ts_s("cpu");
  assert_false(lctx_lowering_register(&f.lowering, 7, r, &cpu, &f.o));
  assert_false(lctx_lowering_register(&f.lowering, 0, 99, &cpu, &f.o));
  assert_int_equal(f.lowering.specific_count, 0);
}

//===----------------------------------------------------------------------===//
// Rule selection (section 7)
//===----------------------------------------------------------------------===//

static void test_platform_rules_map_is_a_dict(void **state) {
  (void)state;
  lctx_platform_rules m;
  lctx_platform_rules_init(&m);
  assert_true(lctx_platform_rules_set(&m, ts_s("tpu"), 1));
  assert_true(lctx_platform_rules_set(&m, ts_s("cpu"), 2));
  assert_true(lctx_platform_rules_set(&m, ts_s("tpu"), 3));
  assert_int_equal(m.count, 2);
  assert_str_view(m.platforms[0], "tpu");
  assert_int_equal(m.rules[0], 3);
  assert_int_equal(lctx_platform_rules_get(&m, ts_s("cpu")), 2);
  assert_int_equal(lctx_platform_rules_get(&m, ts_s("cuda")), -1);
  /* Full: a new key is refused, an existing one still replaced. */
  static const char *const names[] = {"a", "b", "c", "d", "e", "f", "g",
                                      "h", "i", "j", "k", "l", "m", "n"};
  for (size_t i = 0; i < LCTX_LOWERING_MAX_PLATFORM_RULES - 2; i++)
    assert_true(lctx_platform_rules_set(&m, ts_s(names[i]), (int)i));
  assert_int_equal(m.count, LCTX_LOWERING_MAX_PLATFORM_RULES);
  assert_false(lctx_platform_rules_set(&m, ts_s("z"), 9));
  assert_true(lctx_platform_rules_set(&m, ts_s("cpu"), 9));
  assert_int_equal(lctx_platform_rules_get(&m, ts_s("cpu")), 9);
  assert_int_equal(m.count, LCTX_LOWERING_MAX_PLATFORM_RULES);
}

static void test_get_rules_module_order_and_default(void **state) {
  (void)state;
  fx f;
  fx_stock(&f);
  int p = prim(&f, "P");
  int c = marker_rule(&f, "P.cpu");
  int t = marker_rule(&f, "P.tpu");
  int d = marker_rule(&f, "P.default");
  REG(&f, p, t, "tpu");
  REG(&f, p, c, "cpu");
  REG(&f, p, d, NULL);
  MODULE(&f, "cuda", "tpu", "cpu", "tpu");
  lctx_lowering_rules rules;
  lctx_lowering_get_rules(&f.lowering, &f.ctx.overrides, f.ctx.module.platforms,
                          f.ctx.module.platform_count, p, NULL, &rules);
  assert_false(rules.overridden);
  assert_int_equal(rules.default_rule, d);
  assert_int_equal(rules.platform_rules.count, 2);
  assert_str_view(rules.platform_rules.platforms[0], "tpu");
  assert_int_equal(rules.platform_rules.rules[0], t);
  assert_str_view(rules.platform_rules.platforms[1], "cpu");
  assert_int_equal(rules.platform_rules.rules[1], c);
}

static void test_get_rules_overrides(void **state) {
  (void)state;
  fx f;
  fx_stock(&f);
  int p = prim(&f, "P");
  int q = prim(&f, "Q");
  MARKER_REG(&f, p, "P.cpu", "cpu");
  int d = MARKER_REG(&f, p, "P.default", NULL);
  int o1 = marker_rule(&f, "O1");
  int o2 = marker_rule(&f, "O2");
  MODULE(&f, "cpu", "tpu");
  lctx_lowering_rules rules;
  /* An empty override list is None. */
  f.ctx.overrides.count = 0;
  lctx_lowering_get_rules(&f.lowering, &f.ctx.overrides, f.ctx.module.platforms,
                          2, p, NULL, &rules);
  assert_false(rules.overridden);
  assert_int_equal(rules.platform_rules.count, 1);
  /* Identity, first match wins; no platform rule consulted. */
  f.ctx.overrides.count = 3;
  f.ctx.overrides.primitives[0] = q;
  f.ctx.overrides.rules[0] = o2;
  f.ctx.overrides.primitives[1] = p;
  f.ctx.overrides.rules[1] = o1;
  f.ctx.overrides.primitives[2] = p;
  f.ctx.overrides.rules[2] = o2;
  lctx_lowering_get_rules(&f.lowering, &f.ctx.overrides, f.ctx.module.platforms,
                          2, p, NULL, &rules);
  assert_true(rules.overridden);
  assert_int_equal(rules.default_rule, o1);
  assert_int_equal(rules.platform_rules.count, 0);
  /* NULL overrides are None. */
  lctx_lowering_get_rules(&f.lowering, NULL, f.ctx.module.platforms, 2, p, NULL,
                          &rules);
  assert_false(rules.overridden);
  assert_int_equal(rules.default_rule, d);
}

static void test_get_rules_compute_types(void **state) {
  (void)state;
  fx f;
  fx_stock(&f);
  int p = prim(&f, "P");
  MARKER_REG(&f, p, "P.cpu", "cpu");
  MARKER_REG(&f, p, "P.tpu", "tpu");
  MARKER_REG(&f, p, "P.cuda", "cuda");
  MODULE(&f, "cuda");
  lctx_lowering_rules rules;
  lctx_str ct = ts_s("device_host");
  /* device_host -> ('cpu',) even though the module is (cuda,). */
  lctx_lowering_get_rules(&f.lowering, NULL, f.ctx.module.platforms, 1, p, &ct,
                          &rules);
  assert_int_equal(rules.platform_rules.count, 1);
  assert_str_view(rules.platform_rules.platforms[0], "cpu");
  ct = ts_s("tpu_sparsecore");
  lctx_lowering_get_rules(&f.lowering, NULL, f.ctx.module.platforms, 1, p, &ct,
                          &rules);
  assert_int_equal(rules.platform_rules.count, 1);
  assert_str_view(rules.platform_rules.platforms[0], "tpu");
  /* Anything else, exactly compared, is no override. */
  const char *others[] = {"DEVICE_HOST", "device_host ", "", "tpu"};
  for (size_t i = 0; i < 4; i++) {
    ct = ts_s(others[i]);
    lctx_lowering_get_rules(&f.lowering, NULL, f.ctx.module.platforms, 1, p,
                            &ct, &rules);
    assert_int_equal(rules.platform_rules.count, 1);
    assert_str_view(rules.platform_rules.platforms[0], "cuda");
  }
}

static void test_eqn_platforms(void **state) {
  (void)state;
  fx f;
  fx_stock(&f);
  MODULE(&f, "cpu", "tpu", "cuda");
  const lctx_str *list;
  assert_int_equal(lctx_lowering_eqn_platforms(&f.ctx, &list), 3);
  assert_str_view(list[2], "cuda");
  /* An empty narrowed list reads like none. */
  assert_true(lctx_lowering_context_narrow(&f.ctx, NULL, 0));
  assert_int_equal(lctx_lowering_eqn_platforms(&f.ctx, &list), 3);
  NARROW(&f, "cuda", "tpu");
  assert_int_equal(lctx_lowering_eqn_platforms(&f.ctx, &list), 2);
  assert_str_view(list[0], "cuda");
  /* The compute type wins over the narrowed list. */
  f.ctx.has_compute_type = true;
  f.ctx.compute_type = ts_s("tpu_sparsecore");
  assert_int_equal(lctx_lowering_eqn_platforms(&f.ctx, &list), 1);
  assert_str_view(list[0], "tpu");
  f.ctx.compute_type = ts_s("device_host");
  assert_int_equal(lctx_lowering_eqn_platforms(&f.ctx, &list), 1);
  assert_str_view(list[0], "cpu");
}

//===----------------------------------------------------------------------===//
// lower_per_platform, steps 1-6
//===----------------------------------------------------------------------===//

static void test_step1_singular_not_found(void **state) {
  (void)state;
  fx f;
  fx_stock(&f);
  int p = prim(&f, "P");
  MARKER_REG(&f, p, "P.tpu", "tpu");
  MODULE(&f, "cuda");
  assert_false(LOWER(&f, p));
  assert_raise(&f.result.outcome, LCTX_ERROR_NOT_IMPLEMENTED,
               "MLIR translation rule for primitive 'P' not found for "
               "platform cuda");
  /* {p} raw, {description} raw inside the quotes. */
  MODULE(&f, "it's");
  lctx_platform_rules m;
  lctx_platform_rules_init(&m);
  assert_false(PER_PLATFORM(&f, "a'b", &m, -1));
  assert_raise(&f.result.outcome, LCTX_ERROR_NOT_IMPLEMENTED,
               "MLIR translation rule for primitive 'a'b' not found for "
               "platform it's");
  assert_false(f.result.evaluated);
}

static void test_step4_no_platforms_assertion(void **state) {
  (void)state;
  fx f;
  fx_stock(&f);
  int p = prim(&f, "P");
  int d = MARKER_REG(&f, p, "P.default", NULL);
  MARKER_REG(&f, p, "P.cpu", "cpu");
  lctx_module_context_init(&f.ctx.module);
  f.ctx.dim_var_count = 1;
  assert_false(LOWER(&f, p));
  assert_raise(&f.result.outcome, LCTX_ERROR_ASSERTION, "");
  /* Not even with an override. */
  f.ctx.overrides.count = 1;
  f.ctx.overrides.primitives[0] = p;
  f.ctx.overrides.rules[0] = d;
  assert_false(LOWER(&f, p));
  assert_raise(&f.result.outcome, LCTX_ERROR_ASSERTION, "");
}

static void test_step5_direct_call_keeps_narrowing(void **state) {
  (void)state;
  fx f;
  fx_stock(&f);
  int d = marker_rule(&f, "D");
  MODULE(&f, "cpu", "tpu", "cuda");
  NARROW(&f, "tpu", "cuda");
  lctx_platform_rules m;
  lctx_platform_rules_init(&m);
  assert_true(PER_PLATFORM(&f, "R", &m, d));
  assert_events(&f, "eqn R module=['cpu', 'tpu', 'cuda'] platforms=['tpu', "
                    "'cuda'] rules={} default=D\n"
                    "  call D platforms=['tpu', 'cuda'] module=['cpu', "
                    "'tpu', 'cuda'] direct\n"
                    "    marker D platforms=['tpu', 'cuda'] module=['cpu', "
                    "'tpu', 'cuda']\n");
}

//===----------------------------------------------------------------------===//
// Step 7: the dispatch
//===----------------------------------------------------------------------===//

static void test_step7_kept_in_platform_rules_order(void **state) {
  (void)state;
  fx f;
  fx_stock(&f);
  int a = marker_rule(&f, "A");
  int b = marker_rule(&f, "B");
  int d = marker_rule(&f, "D");
  MODULE(&f, "cpu", "tpu", "cuda");
  lctx_platform_rules m;
  lctx_platform_rules_init(&m);
  assert_true(lctx_platform_rules_set(&m, ts_s("rocm"), a)); /* not kept */
  assert_true(lctx_platform_rules_set(&m, ts_s("cuda"), b));
  assert_true(lctx_platform_rules_set(&m, ts_s("cpu"), a));
  assert_true(PER_PLATFORM(&f, "R", &m, d));
  assert_events(
      &f, "eqn R module=['cpu', 'tpu', 'cuda'] platforms=['cpu', 'tpu', "
          "'cuda'] rules={rocm: A, cuda: B, cpu: A} default=D\n"
          "  case entries=['cpu', 'tpu', 'cuda'] slots=[1, 2, 0] kept=[B, A, "
          "D]\n"
          "    branch 0 B platforms=['cuda']\n"
          "      call B platforms=['cuda'] module=['cpu', 'tpu', 'cuda']\n"
          "        marker B platforms=['cuda'] module=['cpu', 'tpu', 'cuda']\n"
          "    branch 1 A platforms=['cpu']\n"
          "      call A platforms=['cpu'] module=['cpu', 'tpu', 'cuda']\n"
          "        marker A platforms=['cpu'] module=['cpu', 'tpu', 'cuda']\n"
          "    branch 2 D platforms=['tpu']\n"
          "      call D platforms=['tpu'] module=['cpu', 'tpu', 'cuda']\n"
          "        marker D platforms=['tpu'] module=['cpu', 'tpu', 'cuda']\n");
  assert_path(&f, 0, "A", "A");
  assert_path(&f, 1, "D", "D");
  assert_path(&f, 2, "B", "B");
}

static void test_step7_dispatch_tree_values(void **state) {
  (void)state;
  fx f;
  fx_stock(&f);
  int p = prim(&f, "P");
  int c = MARKER_REG(&f, p, "P.cpu", "cpu");
  int d = MARKER_REG(&f, p, "P.default", NULL);
  MODULE(&f, "tpu", "cpu", "cuda", "tpu");
  assert_true(LOWER(&f, p));
  const lctx_lowering_event *e = &f.result.events[1];
  assert_int_equal(e->kind, LCTX_EVENT_DISPATCH);
  assert_int_equal(e->parent, 0);
  assert_int_equal(e->platform_count, 4);
  assert_int_equal(e->slots[0], 1);
  assert_int_equal(e->slots[1], 0);
  assert_int_equal(e->slots[2], 1);
  assert_int_equal(e->slots[3], 1);
  assert_int_equal(e->kept_count, 2);
  assert_int_equal(e->kept[0], c);
  assert_int_equal(e->kept[1], d);
  /* The default branch lists tpu once, in first-occurrence order. */
  const lctx_lowering_event *b = &f.result.events[5];
  assert_int_equal(b->kind, LCTX_EVENT_BRANCH);
  assert_int_equal(b->branch, 1);
  assert_int_equal(b->platform_count, 2);
  assert_str_view(b->platforms[0], "tpu");
  assert_str_view(b->platforms[1], "cuda");
  assert_int_equal(f.result.index_count, 4);
  for (size_t i = 0; i < 4; i++)
    assert_false(f.result.mismatch[i]);
}

//===----------------------------------------------------------------------===//
// lower_fun, narrowing and the nested defect
//===----------------------------------------------------------------------===//

/// The section 7 example: P has a cpu rule and a default that lowers Q
/// through lower_fun; Q has tpu and cuda rules (and rocm with `rocm`).
static int nested_setup(fx *f, bool rocm) {
  int p = prim(f, "P");
  int q = prim(f, "Q");
  int pc = marker_rule(f, "P.cpu");
  int pd = RULE(f, "P.default", lctx_action_lower_fun(q));
  REG(f, p, pc, "cpu");
  REG(f, p, pd, NULL);
  MARKER_REG(f, q, "Q.tpu", "tpu");
  MARKER_REG(f, q, "Q.cuda", "cuda");
  if (rocm)
    MARKER_REG(f, q, "Q.rocm", "rocm");
  return p;
}

static void test_nested_defect_cpu_tpu_cuda(void **state) {
  (void)state;
  fx f;
  fx_stock(&f);
  int p = nested_setup(&f, false);
  MODULE(&f, "cpu", "tpu", "cuda");
  assert_true(LOWER(&f, p));
  assert_events(
      &f,
      "eqn P module=['cpu', 'tpu', 'cuda'] platforms=['cpu', 'tpu', 'cuda'] "
      "rules={cpu: P.cpu} default=P.default\n"
      "  case entries=['cpu', 'tpu', 'cuda'] slots=[0, 1, 1] kept=[P.cpu, "
      "P.default]\n"
      "    branch 0 P.cpu platforms=['cpu']\n"
      "      call P.cpu platforms=['cpu'] module=['cpu', 'tpu', 'cuda']\n"
      "        marker P.cpu platforms=['cpu'] module=['cpu', 'tpu', 'cuda']\n"
      "    branch 1 P.default platforms=['tpu', 'cuda']\n"
      "      call P.default platforms=['tpu', 'cuda'] module=['cpu', 'tpu', "
      "'cuda']\n"
      "        eqn Q module=['tpu', 'cuda'] platforms=['tpu', 'cuda'] "
      "rules={tpu: Q.tpu, cuda: Q.cuda} default=None\n"
      "          case entries=['tpu', 'cuda'] slots=[0, 1] kept=[Q.tpu, "
      "Q.cuda]\n"
      "            branch 0 Q.tpu platforms=['tpu']\n"
      "              call Q.tpu platforms=['tpu'] module=['tpu', 'cuda']\n"
      "                marker Q.tpu platforms=['tpu'] module=['tpu', "
      "'cuda']\n"
      "            branch 1 Q.cuda platforms=['cuda']\n"
      "              call Q.cuda platforms=['cuda'] module=['tpu', 'cuda']\n"
      "                marker Q.cuda platforms=['cuda'] module=['tpu', "
      "'cuda']\n");
  /* Index 0 (cpu) is right; index 1 (tpu) runs Q's cuda rule; index 2
   * (cuda) is out of range in the inner case and right by accident. */
  assert_path(&f, 0, "P.cpu", "P.cpu");
  assert_path(&f, 1, "P.default > Q.cuda", "P.default > Q.tpu");
  assert_path(&f, 2, "P.default > Q.cuda", "P.default > Q.cuda");
  assert_int_equal(f.result.events[7].kind, LCTX_EVENT_EQN); /* eqn Q */
  assert_int_equal(f.result.events[7].level, 1);
  assert_int_equal(f.result.events[7].parent, 6);
}

static void test_lower_fun_narrowed_multi_still_b1(void **state) {
  (void)state;
  /* A narrowed group of two reaches Q's module context as two platforms. */
  fx f;
  fx_stock(&f);
  int p = prim(&f, "P");
  int q = prim(&f, "Q");
  MARKER_REG(&f, p, "P.cpu", "cpu");
  REG(&f, p, RULE(&f, "P.default", lctx_action_lower_fun(q)), NULL);
  REG(&f, q, RULE(&f, "Q.default", lctx_action_get_backend(false)), NULL);
  MODULE(&f, "cpu", "tpu", "cuda");
  assert_false(LOWER(&f, p));
  assert_raise(&f.result.outcome, LCTX_ERROR_NOT_IMPLEMENTED, TS_MSG_M1);
  const lctx_lowering_event *e = &f.result.events[f.result.event_count - 1];
  assert_int_equal(e->kind, LCTX_EVENT_BACKEND);
  assert_int_equal(e->backend_branch, LCTX_BRANCH_B1);
  assert_int_equal(e->module_platform_count, 2);
}

static void test_lower_fun_empty_narrowing_index_error_names_a_list(void **s) {
  (void)s;
  /* Narrowed platforms are lists in JAX (lower_per_platform's
   * platforms_for_rule), and lower_fun puts them in the module context
   * unchanged: reached with an empty narrowing, a sub-rule's get_backend
   * reads platforms[0] of an empty list (found by running jax 0.10.2).
   * Without lower_fun the module's own tuple is read. */
  fx f;
  fx_stock(&f);
  int p = prim(&f, "P");
  int q = prim(&f, "Q");
  REG(&f, p,
      RULE(&f, "P.default",
           lctx_action_lower_fun_compute(q, ts_s("device_host"))),
      NULL);
  REG(&f, q, RULE(&f, "Q.default", lctx_action_get_backend(true)), NULL);
  MODULE(&f, "cpu");
  lctx_module_context_pin(&f.ctx.module, ts_s("cpu"));
  assert_true(lctx_lowering_context_narrow(&f.ctx, NULL, 0));
  assert_false(LOWER(&f, p));
  assert_raise(&f.result.outcome, LCTX_ERROR_INDEX, "list index out of range");

  lctx_module_context direct;
  lctx_module_context_init(&direct);
  lctx_module_context_pin(&direct, ts_s("cpu"));
  lctx_outcome o;
  assert_false(lctx_module_get_backend(&f.backends, &direct, true, &o, NULL));
  assert_raise(&o, LCTX_ERROR_INDEX, "tuple index out of range");
}

//===----------------------------------------------------------------------===//
// Overrides and compute types through a lowering
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Rule-body actions
//===----------------------------------------------------------------------===//

static void test_action_read_client_platform(void **state) {
  (void)state;
  fx f;
  ts_config_gpus(&f.config, true);
  fx_open(&f);
  int p = prim(&f, "P");
  REG(&f, p, RULE(&f, "P.default", lctx_action_read_client_platform()), NULL);
  MODULE(&f, "cuda");
  assert_true(LOWER(&f, p));
  assert_events(&f, "eqn P module=['cuda'] platforms=['cuda'] rules={} "
                    "default=P.default\n"
                    "  call P.default platforms=None module=['cuda'] direct\n"
                    "    get_backend optional=True module=['cuda'] -> B3 "
                    "client 'cuda' registration 2 .platform 'gpu'\n");
  const lctx_lowering_event *e = &f.result.events[2];
  assert_str_view(e->client_platform, "cuda");
  assert_str_view(e->client_attr, "gpu");
  MODULE(&f, "cpu");
  assert_true(LOWER(&f, p));
  assert_str_view(f.result.events[2].client_attr, "cpu");
  MODULE(&f, "cpu", "cuda");
  assert_true(LOWER(&f, p));
  assert_int_equal(f.result.events[2].result_kind, LCTX_OUTCOME_NONE);
}

//===----------------------------------------------------------------------===//
// Limits
//===----------------------------------------------------------------------===//

static void test_limit_depth(void **state) {
  (void)state;
  fx f;
  fx_stock(&f);
  int p = prim(&f, "P");
  REG(&f, p, RULE(&f, "P.default", lctx_action_lower_fun(p)), NULL);
  MODULE(&f, "cpu");
  assert_false(
      lctx_lowering_lower_eqn(&f.lowering, &f.backends, &f.ctx, p, &f.result));
  assert_int_equal(f.result.limit, LCTX_LOWERING_LIMIT_DEPTH);
  assert_none(&f.result.outcome);
  assert_false(f.result.evaluated);
  /* Depth 4 itself is allowed. */
  int q[5];
  q[4] = prim(&f, "Q4");
  MARKER_REG(&f, q[4], "Q4.default", NULL);
  for (int i = 3; i >= 0; i--) {
    q[i] = prim(&f, i == 3 ? "Q3" : i == 2 ? "Q2" : i == 1 ? "Q1" : "Q0");
    REG(&f, q[i], RULE(&f, "lf", lctx_action_lower_fun(q[i + 1])), NULL);
  }
  assert_true(LOWER(&f, q[0]));
  assert_int_equal(f.result.events[f.result.event_count - 1].level, 4);
}

static void test_limit_bad_id(void **state) {
  (void)state;
  fx f;
  fx_stock(&f);
  MODULE(&f, "cpu");
  assert_false(
      lctx_lowering_lower_eqn(&f.lowering, &f.backends, &f.ctx, 3, &f.result));
  assert_int_equal(f.result.limit, LCTX_LOWERING_LIMIT_BAD_ID);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lower_fun_empty_narrowing_index_error_names_a_list),
      cmocka_unit_test(test_register_lowering),
      cmocka_unit_test(test_registry_ids),
      cmocka_unit_test(test_platform_rules_map_is_a_dict),
      cmocka_unit_test(test_get_rules_module_order_and_default),
      cmocka_unit_test(test_get_rules_overrides),
      cmocka_unit_test(test_get_rules_compute_types),
      cmocka_unit_test(test_eqn_platforms),
      cmocka_unit_test(test_step1_singular_not_found),
      cmocka_unit_test(test_step4_no_platforms_assertion),
      cmocka_unit_test(test_step5_direct_call_keeps_narrowing),
      cmocka_unit_test(test_step7_kept_in_platform_rules_order),
      cmocka_unit_test(test_step7_dispatch_tree_values),
      cmocka_unit_test(test_nested_defect_cpu_tpu_cuda),
      cmocka_unit_test(test_lower_fun_narrowed_multi_still_b1),
      cmocka_unit_test(test_action_read_client_platform),
      cmocka_unit_test(test_limit_depth),
      cmocka_unit_test(test_limit_bad_id),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
