/*
 * tests/test_lowering.c - pins register_lowering, rule selection,
 * lower_per_platform and lower_fun (semantics.md sections 6 and 7).
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
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_support.h"

#include "lowering_fx.h"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Everything one test needs (lowering_fx.h).
typedef ts_lowering_fx fx;

/// Opens the registries over `f->config` (already filled) and resets the
/// context.
static void fx_open(fx *f) {
  ts_open(&f->backends, &f->config);
  lctx_lowering_registry_init(&f->lowering, &f->config);
  lctx_lowering_context_init(&f->ctx);
}

/// Stock JAX: cpu and tpu factories returning clients.
static void fx_stock(fx *f) {
  ts_config_stock(&f->config);
  fx_open(f);
}

static void fx_module_set(fx *f, const char *const *platforms, size_t count) {
  lctx_module_context_init(&f->ctx.module);
  for (size_t i = 0; i < count; i++)
    assert_true(
        lctx_module_context_add_platform(&f->ctx.module, ts_s(platforms[i])));
  /* As JAX's lowering entry point: a platform index for several platforms. */
  f->ctx.dim_var_count = count > 1 ? 1 : 0;
}

/// Sets the module platforms (and one dimension variable, the platform
/// index, when there are several).
#define MODULE(f, ...)                                                         \
  fx_module_set((f), (const char *const[]){__VA_ARGS__},                       \
                sizeof((const char *const[]){__VA_ARGS__}) /                   \
                    sizeof(const char *))

static void fx_narrow_set(fx *f, const char *const *platforms, size_t count) {
  lctx_str list[LCTX_LOWERING_MAX_PLATFORMS];
  for (size_t i = 0; i < count; i++)
    list[i] = ts_s(platforms[i]);
  assert_true(lctx_lowering_context_narrow(&f->ctx, list, count));
}

/// Sets the narrowed platforms of the top context.
#define NARROW(f, ...)                                                         \
  fx_narrow_set((f), (const char *const[]){__VA_ARGS__},                       \
                sizeof((const char *const[]){__VA_ARGS__}) /                   \
                    sizeof(const char *))

/// Adds (or finds) a primitive; fails if the registry is full.
static int prim(fx *f, const char *name) {
  int p = lctx_lowering_primitive_add(&f->lowering, ts_s(name));
  assert_true(p >= 0);
  return p;
}

/// A rule with the given body.
#define RULE(f, name, ...)                                                     \
  rule_make((f), (name), (const lctx_lowering_action[]){__VA_ARGS__},          \
            sizeof((const lctx_lowering_action[]){__VA_ARGS__}) /              \
                sizeof(lctx_lowering_action))
static int rule_make(fx *f, const char *name,
                     const lctx_lowering_action *actions, size_t count) {
  int r = lctx_lowering_rule_add(&f->lowering, ts_s(name), actions, count);
  assert_true(r >= 0);
  return r;
}

/// A rule whose body only emits a marker.
static int marker_rule(fx *f, const char *name) {
  return RULE(f, name, lctx_action_emit_marker());
}

/// register_lowering(prim, rule, platform) that must succeed; NULL is None.
#define REG(f, p, r, platform)                                                 \
  reg_at((f), (p), (r), (platform), __FILE__, __LINE__)
static void reg_at(fx *f, int p, int r, const char *platform, const char *file,
                   int line) {
  lctx_str s = ts_s(platform);
  bool ok =
      lctx_lowering_register(&f->lowering, p, r, platform ? &s : NULL, &f->o);
  ts_check_return_at(ok, &f->o, file, line);
  ts_assert_outcome_at(&f->o,
                       (ts_expect){LCTX_OUTCOME_NONE, LCTX_ERROR_NONE,
                                   LCTX_CLIENT_REGISTRY, -1, ""},
                       file, line);
}

/// A marker rule `name` (marker_rule) registered for `p` on `platform`
/// (REG); its id.
#define MARKER_REG(f, p, name, platform)                                       \
  marker_reg_at((f), (p), (name), (platform), __FILE__, __LINE__)
static int marker_reg_at(fx *f, int p, const char *name, const char *platform,
                         const char *file, int line) {
  int r = marker_rule(f, name);
  reg_at(f, p, r, platform, file, line);
  return r;
}

/// register_lowering that must raise NotImplementedError `message`.
#define REG_RAISES(f, p, r, platform, message)                                 \
  reg_raises_at((f), (p), (r), (platform), (message), __FILE__, __LINE__)
static void reg_raises_at(fx *f, int p, int r, const char *platform,
                          const char *message, const char *file, int line) {
  lctx_str s = ts_s(platform);
  bool ok = lctx_lowering_register(&f->lowering, p, r, &s, &f->o);
  ts_check_return_at(ok, &f->o, file, line);
  ts_assert_outcome_at(&f->o,
                       (ts_expect){LCTX_OUTCOME_RAISE,
                                   LCTX_ERROR_NOT_IMPLEMENTED,
                                   LCTX_CLIENT_REGISTRY, -1, message},
                       file, line);
}

/// Lowers one equation of `p` in the top context; checks that the return
/// value agrees with the outcome and that no limit was hit.
#define LOWER(f, p) lower_at((f), (p), __FILE__, __LINE__)
static bool lower_at(fx *f, int p, const char *file, int line) {
  bool ok = lctx_lowering_lower_eqn(&f->lowering, &f->backends, &f->ctx, p,
                                    &f->result);
  if (f->result.limit != LCTX_LOWERING_LIMIT_NONE) {
    print_error("lowering hit limit %d\n", (int)f->result.limit);
    ts_fail(file, line);
  }
  ts_check_return_at(ok, &f->result.outcome, file, line);
  if (ok != f->result.evaluated) {
    print_error("evaluated=%d but ok=%d\n", f->result.evaluated, ok);
    ts_fail(file, line);
  }
  return ok;
}

/// lower_per_platform with a caller's map; checks like LOWER.
#define PER_PLATFORM(f, desc, map, def)                                        \
  per_platform_at((f), (desc), (map), (def), __FILE__, __LINE__)
static bool per_platform_at(fx *f, const char *desc,
                            const lctx_platform_rules *map, int def,
                            const char *file, int line) {
  bool ok = lctx_lowering_per_platform(&f->lowering, &f->backends, &f->ctx,
                                       ts_s(desc), map, def, &f->result);
  if (f->result.limit != LCTX_LOWERING_LIMIT_NONE) {
    print_error("lowering hit limit %d\n", (int)f->result.limit);
    ts_fail(file, line);
  }
  ts_check_return_at(ok, &f->result.outcome, file, line);
  return ok;
}

/// Fails unless the rendered event tree is exactly `expected`.
#define assert_events(f, expected)                                             \
  assert_events_at((f), (expected), __FILE__, __LINE__)
static void assert_events_at(fx *f, const char *expected, const char *file,
                             int line) {
  static char storage[32768];
  lctx_buf buf;
  lctx_buf_init(&buf, storage, sizeof storage);
  lctx_lowering_format_events(&f->lowering, &f->result, &buf);
  ts_assert_buf_at(&buf, expected, file, line);
}

/// Fails unless platform index `i` actually runs the rule calls `actual` and
/// should run `intended`, and the mismatch flag says whether they differ.
#define assert_path(f, i, actual, intended)                                    \
  assert_path_at((f), (i), (actual), (intended), __FILE__, __LINE__)
static void assert_path_at(fx *f, size_t i, const char *actual,
                           const char *intended, const char *file, int line) {
  char storage[1024];
  lctx_buf buf;
  if (!f->result.evaluated || i >= f->result.index_count) {
    print_error("index %zu not evaluated (%zu indices)\n", i,
                f->result.index_count);
    ts_fail(file, line);
  }
  lctx_buf_init(&buf, storage, sizeof storage);
  lctx_lowering_format_path(&f->lowering, &f->result, &f->result.actual[i],
                            &buf);
  ts_assert_buf_at(&buf, actual, file, line);
  lctx_buf_init(&buf, storage, sizeof storage);
  lctx_lowering_format_path(&f->lowering, &f->result, &f->result.intended[i],
                            &buf);
  ts_assert_buf_at(&buf, intended, file, line);
  bool differ = strcmp(actual, intended) != 0;
  if (f->result.mismatch[i] != differ) {
    print_error("mismatch[%zu] is %d\n", i, f->result.mismatch[i]);
    ts_fail(file, line);
  }
}

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

/// The rule called `name`, made (a marker rule) on first use; -1 for NULL.
static int rule_named(fx *f, const char *name) {
  if (!name)
    return -1;
  for (size_t r = 0; r < f->lowering.rule_count; r++)
    if (lctx_str_equal_cstr(lctx_lowering_rule_name(&f->lowering, (int)r),
                            name))
      return (int)r;
  return marker_rule(f, name);
}

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
      cmocka_unit_test(test_lowering_rows),
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
