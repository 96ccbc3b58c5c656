/*
 * tests/lowering_helpers.h - what the CMocka tests of the lowering model
 * (test_lowering.c, test_lowering_rows.c) share: a fixture over the stock
 * configuration, primitives, marker rules and registrations, one lowering
 * or lower_per_platform call checked against its outcome, and assertions
 * on the rendered event tree and on a platform index's paths.
 */
#ifndef LCTX_TESTS_LOWERING_HELPERS_H
#define LCTX_TESTS_LOWERING_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_support.h"

#include "lowering_fx.h"

/// Everything one test needs (lowering_fx.h).
typedef ts_lowering_fx fx;

/// Opens the registries over `f->config` (already filled) and resets the
/// context.
static inline void fx_open(fx *f) {
  ts_open(&f->backends, &f->config);
  lctx_lowering_registry_init(&f->lowering, &f->config);
  lctx_lowering_context_init(&f->ctx);
}

/// Stock JAX: cpu and tpu factories returning clients.
static inline void fx_stock(fx *f) {
  ts_config_stock(&f->config);
  fx_open(f);
}

static inline void fx_module_set(fx *f, const char *const *platforms,
                                 size_t count) {
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

static inline void fx_narrow_set(fx *f, const char *const *platforms,
                                 size_t count) {
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
static inline int prim(fx *f, const char *name) {
  int p = lctx_lowering_primitive_add(&f->lowering, ts_s(name));
  assert_true(p >= 0);
  return p;
}

/// A rule with the given body.
#define RULE(f, name, ...)                                                     \
  rule_make((f), (name), (const lctx_lowering_action[]){__VA_ARGS__},          \
            sizeof((const lctx_lowering_action[]){__VA_ARGS__}) /              \
                sizeof(lctx_lowering_action))
static inline int rule_make(fx *f, const char *name,
                            const lctx_lowering_action *actions, size_t count) {
  int r = lctx_lowering_rule_add(&f->lowering, ts_s(name), actions, count);
  assert_true(r >= 0);
  return r;
}

/// A rule whose body only emits a marker.
static inline int marker_rule(fx *f, const char *name) {
  return RULE(f, name, lctx_action_emit_marker());
}

/// register_lowering(prim, rule, platform) that must succeed; NULL is None.
#define REG(f, p, r, platform)                                                 \
  reg_at((f), (p), (r), (platform), __FILE__, __LINE__)
static inline void reg_at(fx *f, int p, int r, const char *platform,
                          const char *file, int line) {
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
static inline int marker_reg_at(fx *f, int p, const char *name,
                                const char *platform, const char *file,
                                int line) {
  int r = marker_rule(f, name);
  reg_at(f, p, r, platform, file, line);
  return r;
}

/// register_lowering that must raise NotImplementedError `message`.
#define REG_RAISES(f, p, r, platform, message)                                 \
  reg_raises_at((f), (p), (r), (platform), (message), __FILE__, __LINE__)
static inline void reg_raises_at(fx *f, int p, int r, const char *platform,
                                 const char *message, const char *file,
                                 int line) {
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
static inline bool lower_at(fx *f, int p, const char *file, int line) {
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
static inline bool per_platform_at(fx *f, const char *desc,
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
static inline void assert_events_at(fx *f, const char *expected,
                                    const char *file, int line) {
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
static inline void assert_path_at(fx *f, size_t i, const char *actual,
                                  const char *intended, const char *file,
                                  int line) {
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

/// The rule called `name`, made (a marker rule) on first use; -1 for NULL.
static inline int rule_named(fx *f, const char *name) {
  if (!name)
    return -1;
  for (size_t r = 0; r < f->lowering.rule_count; r++)
    if (lctx_str_equal_cstr(lctx_lowering_rule_name(&f->lowering, (int)r),
                            name))
      return (int)r;
  return marker_rule(f, name);
}

#endif /* LCTX_TESTS_LOWERING_HELPERS_H */
