/*
 * tests/test_release.c - pins the JAX releases of the model
 * (reference/include/lctx/release.h) and the outcomes that differ between
 * them, each run as a case through lctx_runner_init_at.
 *
 * - The table: ten releases, oldest first, "modelled" last and the default;
 *   lctx_release_find knows exactly their names (not "9.9.9").
 * - F1 gpu_alias: canonicalize('gpu') with only a oneapi client (0.9.2
 *   raises, 0.10.2 resolves); jax_platforms=gpu; register_lowering('gpu')
 *   storing oneapi or not.
 * - F2 client_gpu: a pinned oneapi client reads "oneapi" before 0.11.0, so
 *   its ModuleContext never initializes the registry (alone, and inside a
 *   multi-platform lowering through lower_fun) where 0.11.0 and modelled
 *   raise the failing initialization.
 * - F3/F4 known platforms: METAL known in 0.5.3-0.8.3, not in 0.9.2 or
 *   modelled; 0.4.x stores a rule for any platform and lowers with it.
 * - F5 cuda skip, F6 the "Unknown backend" message of 0.4.20.
 * - F7/F8 ModuleContext: the `.backend` property of 0.4.x (pinned client
 *   unchecked, the default client, no IndexError); no optional before 0.7.2.
 * - F9/F10: no lower_per_platform in 0.4.20; no compute-type platforms in
 *   0.4.30.
 * - Operations a release lacks: lctx_runner_op_exists, and the model's
 *   refusals (LCTX_LOWERING_LIMIT_RELEASE, a None without a branch).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "case_text.h"
#include "runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

typedef struct world {
  lctx_case c;
  lctx_case_expect expect;
  lctx_runner r;
  lctx_outcome out[LCTX_CASE_MAX_OPS];
  lctx_outcome want; /* an expectation, copied out */
  bool ran[LCTX_CASE_MAX_OPS];
  bool ok[LCTX_CASE_MAX_OPS];
} world;

static const lctx_release *release(const char *name) {
  const lctx_release *r = lctx_release_find(name);
  if (!r)
    fail_msg("no release %s", name);
  return r;
}

/* Parses `text` and runs every operation the release has at `name`;
 * checks each one that carries an `expect`. Returns the world (to free). */
static world *run_at(const char *name, const char *text) {
  world *w = calloc(1, sizeof *w);
  assert_non_null(w);
  char error[512];
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  if (!lctx_case_parse(text, strlen(text), "release.case", &w->c, &w->expect,
                       &e))
    fail_msg("%s", error);
  lctx_runner_init_at(&w->r, &w->c, release(name));
  assert_ptr_equal(lctx_runner_release(&w->r), release(name));
  for (size_t i = 0; i < w->c.op_count; i++) {
    w->ran[i] = lctx_runner_op_exists(&w->r, &w->c.ops[i]);
    if (!w->ran[i])
      continue;
    w->ok[i] = lctx_runner_op(&w->r, &w->c.ops[i], &w->out[i], NULL);
    if (!lctx_case_expect_get(&w->expect, i, &w->want) ||
        lctx_outcome_equal(&w->out[i], &w->want))
      continue;
    char got[LCTX_OUTCOME_TEXT_MAX + 64], want[LCTX_OUTCOME_TEXT_MAX + 64];
    lctx_buf g, x;
    lctx_buf_init(&g, got, sizeof got);
    lctx_buf_init(&x, want, sizeof want);
    lctx_outcome_format(&w->out[i], &g);
    lctx_outcome_format(&w->want, &x);
    fail_msg("release %s, op %zu:\n  got  %s\n  want %s", name, i, got, want);
  }
  return w;
}

/* run_at, where every operation must exist. */
static void check_at(const char *name, const char *text) {
  world *w = run_at(name, text);
  for (size_t i = 0; i < w->c.op_count; i++) {
    if (!w->ran[i])
      fail_msg("release %s lacks op %zu", name, i);
  }
  free(w);
}

/* The last lowering's events, rendered. */
static void lowering_events(world *w, char *text, size_t cap) {
  lctx_buf b;
  lctx_buf_init(&b, text, cap);
  lctx_lowering_format_events(&w->r.lowering, w->r.result, &b);
}

#define HEAD "lctx-case 1\n"
#define CPU "factory \"cpu\" priority=0 loud client\n"
#define NO_GPU_SUFFIX                                                          \
  " (you may need to uninstall the failing plugin package, or set "            \
  "JAX_PLATFORMS=cpu to skip this backend.)"

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

static void test_release_table(void **state) {
  (void)state;
  /* In time: the modelled commit falls between 0.11.0 and 0.11.1. */
  static const char *const names[] = {"0.4.20", "0.4.30",   "0.5.3",  "0.6.2",
                                      "0.7.2",  "0.8.3",    "0.9.2",  "0.10.2",
                                      "0.11.0", "modelled", "0.11.1", "0.11.2",
                                      "0.12.0", "0.12.0.1", "0.12.1"};
  size_t n = sizeof names / sizeof names[0];
  assert_int_equal(lctx_release_count(), n);
  for (size_t i = 0; i < n; i++) {
    const lctx_release *r = lctx_release_at(i);
    assert_non_null(r);
    assert_string_equal(lctx_release_name(r), names[i]);
    assert_ptr_equal(lctx_release_find(names[i]), r);
    assert_non_null(r->jax_ref);
  }
  assert_null(lctx_release_at(n));
  assert_ptr_equal(lctx_release_at(9), lctx_release_modelled());
  assert_ptr_equal(lctx_release_resolve(NULL), lctx_release_modelled());
  assert_string_equal(lctx_release_name(NULL), "modelled");
  assert_string_equal(lctx_release_modelled()->jax_ref, "cec06d116c05");
  assert_null(lctx_release_find("9.9.9"));
  assert_null(lctx_release_find("0.4"));
  assert_null(lctx_release_find("jax-v0.10.2"));
  assert_null(lctx_release_find(""));
  assert_null(lctx_release_find(NULL));
}

/* F12: from 0.12.1 the first case of a nested dispatch spans the module's
 * platforms (slot 0 for those outside the narrowed list), so the nested
 * platform-index defect is gone; 0.12.0.1 and the modelled commit have it.
 * F13: the releases after the modelled commit did not have their jaxlib
 * shim read. */
static void test_dispatch_module_platforms(void **state) {
  (void)state;
  static const char CASE[] =
      "lctx-case 1\n"
      "factory \"cpu\" priority=0 loud client\n"
      "factory \"tpu\" priority=300 quiet client\n"
      "rule \"P.cpu\" marker\n"
      "rule \"P.def\" marker, lower_fun \"Q\"\n"
      "rule \"Q.tpu\" marker\n"
      "rule \"Q.cuda\" marker\n"
      "op register_lowering primitive=\"P\" rule=\"P.cpu\" platform=\"cpu\"\n"
      "op register_lowering primitive=\"P\" rule=\"P.def\" platform=None\n"
      "op register_lowering primitive=\"Q\" rule=\"Q.tpu\" platform=\"tpu\"\n"
      "op register_lowering primitive=\"Q\" rule=\"Q.cuda\" "
      "platform=\"cuda\"\n"
      "op lower_per_platform primitive=\"P\" platforms=[\"cpu\", \"tpu\", "
      "\"cuda\"] backend=None\n";
  static const char *const at[] = {"modelled", "0.12.0.1", "0.12.1"};
  for (size_t k = 0; k < 3; k++) {
    world *w = run_at(at[k], CASE);
    const lctx_lowering_result *res = w->r.result;
    if (!res->evaluated) {
      char got[LCTX_OUTCOME_TEXT_MAX + 64];
      lctx_buf g;
      lctx_buf_init(&g, got, sizeof got);
      lctx_outcome_format(&w->out[w->c.op_count - 1], &g);
      fail_msg("%s: the lowering did not finish: %s (limit %d)", at[k], got,
               (int)res->limit);
    }
    bool fixed = strcmp(at[k], "0.12.1") == 0;
    assert_int_equal(release(at[k])->dispatch_module_platforms, fixed);
    /* The inner dispatch (Q's, the second): its first case's entries. */
    const lctx_lowering_event *inner = NULL;
    size_t seen = 0;
    for (size_t i = 0; i < res->event_count; i++)
      if (res->events[i].kind == LCTX_EVENT_DISPATCH && seen++ == 1)
        inner = &res->events[i];
    assert_non_null(inner);
    assert_int_equal(inner->platform_count, fixed ? 3 : 2);
    if (fixed) /* cpu, outside [tpu, cuda], yields slot 0 */
      assert_int_equal(inner->slots[0], 0);
    /* tpu (index 1) runs Q.cuda under the defect, Q.tpu once fixed. */
    assert_int_equal(res->mismatch[1], !fixed);
    free(w);
  }
  /* What check-spec folds: releases the model cannot tell apart. */
  assert_true(
      lctx_release_same_behaviour(release("modelled"), release("0.12.0.1")));
  assert_true(lctx_release_same_behaviour(release("0.5.3"), release("0.6.2")));
  assert_false(
      lctx_release_same_behaviour(release("0.12.0.1"), release("0.12.1")));
  assert_false(
      lctx_release_same_behaviour(release("0.10.2"), release("0.11.0")));
  assert_false(release("modelled")->client_gpu_unread);
  assert_false(release("0.11.0")->client_gpu_unread);
  assert_true(release("0.11.1")->client_gpu_unread);
  assert_true(release("0.12.1")->client_gpu_unread);
}

/* The modelled record is what the model hard-coded before releases. */
static void test_modelled_record(void **state) {
  (void)state;
  const lctx_release *m = lctx_release_modelled();
  char text[128];
  lctx_buf b;
  lctx_buf_init(&b, text, sizeof text);
  lctx_release_list_format(&m->gpu_alias, &b);
  assert_string_equal(text, "cuda, rocm, oneapi");
  lctx_buf_reset(&b);
  lctx_release_list_format(&m->client_gpu, &b);
  assert_string_equal(text, "cuda, rocm, oneapi");
  lctx_buf_reset(&b);
  lctx_release_list_format(&m->known_builtin, &b);
  assert_string_equal(text, "cuda, rocm, gpu, oneapi");
  assert_true(m->cuda_skip && m->unknown_backend_lists_available &&
              m->module_optional && m->module_pinned_check &&
              m->module_lookup_first_platform && m->lowering_checks_platform &&
              m->has_lower_per_platform && m->compute_type_platforms);
  for (int op = LCTX_RELEASE_OP_BACKENDS;
       op <= LCTX_RELEASE_OP_LOWER_PER_PLATFORM; op++)
    assert_true(lctx_release_has_op(NULL, (lctx_release_op)op));
}

static void test_has_op(void **state) {
  (void)state;
  const lctx_release_op optional = LCTX_RELEASE_OP_MODULE_GET_BACKEND_OPTIONAL;
  assert_false(lctx_release_has_op(release("0.6.2"), optional));
  assert_true(lctx_release_has_op(release("0.7.2"), optional));
  assert_true(lctx_release_has_op(release("0.4.20"),
                                  LCTX_RELEASE_OP_MODULE_GET_BACKEND));
  assert_false(lctx_release_has_op(release("0.4.20"),
                                   LCTX_RELEASE_OP_LOWER_PER_PLATFORM));
  assert_true(lctx_release_has_op(release("0.4.30"),
                                  LCTX_RELEASE_OP_LOWER_PER_PLATFORM));
  assert_true(lctx_release_has_op(release("0.4.20"),
                                  LCTX_RELEASE_OP_REGISTER_LOWERING));
}

//===----------------------------------------------------------------------===//
// F1 gpu_alias
//===----------------------------------------------------------------------===//

#define ONEAPI_ONLY                                                            \
  HEAD CPU "factory \"oneapi\" priority=400 loud client\n"                     \
           "op canonicalize \"gpu\"\n"

static void test_canonicalize_gpu_oneapi_only(void **state) {
  (void)state;
  static const char *const before[] = {"0.4.20", "0.4.30", "0.5.3", "0.6.2",
                                       "0.7.2",  "0.8.3",  "0.9.2"};
  for (size_t i = 0; i < sizeof before / sizeof before[0]; i++)
    check_at(before[i],
             ONEAPI_ONLY "expect raise RuntimeError \"Unknown backend: 'gpu' "
                         "requested, but no platforms that are instances of "
                         "gpu are present. Platforms present are: "
                         "cpu,oneapi\"\n");
  check_at("0.10.2", ONEAPI_ONLY "expect string \"oneapi\"\n");
  check_at("0.11.0", ONEAPI_ONLY "expect string \"oneapi\"\n");
  check_at("modelled", ONEAPI_ONLY "expect string \"oneapi\"\n");
}

#define JAX_PLATFORMS_GPU                                                      \
  HEAD CPU "factory \"rocm\" priority=400 loud client\n"                       \
           "factory \"oneapi\" priority=400 loud client\n"                     \
           "jax_platforms \"gpu\"\n"                                           \
           "op backends\n"

static void test_jax_platforms_gpu_expansion(void **state) {
  (void)state;
  /* cuda is skipped (no NVIDIA GPU), then rocm, then oneapi or not. */
  check_at("0.9.2", JAX_PLATFORMS_GPU "expect platforms \"['rocm']\"\n");
  check_at("0.10.2",
           JAX_PLATFORMS_GPU "expect platforms \"['rocm', 'oneapi']\"\n");
  check_at("modelled",
           JAX_PLATFORMS_GPU "expect platforms \"['rocm', 'oneapi']\"\n");
  /* 0.4.30 skips nothing: cuda has no factory, and jax_platforms is loud. */
  check_at("0.4.30", JAX_PLATFORMS_GPU
           "expect raise RuntimeError \"Unable to initialize backend 'cuda': "
           "Backend 'cuda' is not in the list of known backends: ['cpu', "
           "'rocm', 'oneapi']. (set JAX_PLATFORMS='' to automatically choose "
           "an available backend)\"\n");
}

#define GPU_RULE                                                               \
  HEAD CPU                                                                     \
      "rule \"R\" marker\n"                                                    \
      "op register_lowering primitive=\"P\" rule=\"R\" platform=\"gpu\"\n"     \
      "expect None\n"                                                          \
      "op lower_per_platform primitive=\"P\" platforms=[\"oneapi\"] "          \
      "backend=None\n"

static void test_register_lowering_gpu_storage(void **state) {
  (void)state;
  check_at("0.9.2", GPU_RULE "expect raise NotImplementedError \"MLIR "
                             "translation rule for primitive 'P' not found "
                             "for platform oneapi\"\n");
  check_at("0.10.2", GPU_RULE "expect None\n");
  check_at("modelled", GPU_RULE "expect None\n");
}

//===----------------------------------------------------------------------===//
// F2 client_gpu
//===----------------------------------------------------------------------===//

static void test_client_platform_attr(void **state) {
  (void)state;
  lctx_str oneapi = lctx_str_from_cstr("oneapi");
  lctx_str rocm = lctx_str_from_cstr("rocm");
  assert_true(lctx_str_equal_cstr(
      lctx_client_platform_attr_at(release("0.10.2"), oneapi), "oneapi"));
  assert_true(lctx_str_equal_cstr(
      lctx_client_platform_attr_at(release("0.11.0"), oneapi), "gpu"));
  assert_true(
      lctx_str_equal_cstr(lctx_client_platform_attr_at(NULL, oneapi), "gpu"));
  assert_true(lctx_str_equal_cstr(lctx_client_platform_attr(oneapi), "gpu"));
  assert_true(lctx_str_equal_cstr(
      lctx_client_platform_attr_at(release("0.4.20"), rocm), "gpu"));
}

/* A pinned oneapi client, and a registry whose initialization fails. */
#define PINNED_ONEAPI                                                          \
  HEAD CPU "factory \"tpu\" priority=300 loud raises \"boom\"\n"               \
           "factory \"oneapi\" priority=400 loud client\n"
#define BOOM                                                                   \
  "expect raise RuntimeError \"Unable to initialize backend 'tpu': "           \
  "boom" NO_GPU_SUFFIX "\"\n"

static void test_pinned_oneapi_module_get_backend(void **state) {
  (void)state;
  const char *op = "op module_get_backend platforms=[\"oneapi\"] "
                   "backend=\"oneapi\" optional=false\n";
  char text[1024];
  /* Before 0.11.0 `.platform` is "oneapi": no alias, no initialization. */
  snprintf(text, sizeof text, "%s%sexpect client pinned \"oneapi\"\n",
           PINNED_ONEAPI, op);
  check_at("0.10.2", text);
  check_at("0.9.2", text);
  world *w = run_at("0.10.2", text);
  assert_int_equal(lctx_registry_init_runs(&w->r.registry), 0);
  free(w);
  /* From 0.11.0 it is "gpu", which initializes the registry, and raises. */
  snprintf(text, sizeof text, "%s%s%s", PINNED_ONEAPI, op, BOOM);
  check_at("0.11.0", text);
  check_at("modelled", text);
}

/* The same inside a lowering for two platforms: the oneapi branch lowers Q
 * through lower_fun, whose module context is the narrowed ['oneapi']. */
#define MULTI_ONEAPI                                                           \
  PINNED_ONEAPI                                                                \
  "rule \"P.oneapi\" lower_fun \"Q\"\n"                                        \
  "rule \"P.default\" marker\n"                                                \
  "rule \"Q.default\" get_backend optional=false\n"                            \
  "op register_lowering primitive=\"P\" rule=\"P.oneapi\" "                    \
  "platform=\"oneapi\"\n"                                                      \
  "expect None\n"                                                              \
  "op register_lowering primitive=\"P\" rule=\"P.default\" platform=None\n"    \
  "op register_lowering primitive=\"Q\" rule=\"Q.default\" platform=None\n"    \
  "op lower_per_platform primitive=\"P\" platforms=[\"oneapi\", \"cpu\"] "     \
  "backend=\"oneapi\"\n"

static void test_pinned_oneapi_multi_platform_lowering(void **state) {
  (void)state;
  world *w = run_at("0.10.2", MULTI_ONEAPI "expect None\n");
  assert_true(w->ran[3] && w->ok[3]);
  char events[4096];
  lowering_events(w, events, sizeof events);
  assert_non_null(strstr(events, "get_backend optional=False "
                                 "module=['oneapi'] -> B2b pinned client "
                                 "'oneapi'"));
  assert_int_equal(lctx_registry_init_runs(&w->r.registry), 0);
  free(w);
  check_at("modelled", MULTI_ONEAPI BOOM);
  check_at("0.11.0", MULTI_ONEAPI BOOM);
}

//===----------------------------------------------------------------------===//
// F3/F4 known platforms and register_lowering's check
//===----------------------------------------------------------------------===//

#define METAL                                                                  \
  HEAD CPU "rule \"R\" marker\n"                                               \
           "op register_lowering primitive=\"P\" rule=\"R\" "                  \
           "platform=\"METAL\"\n"
#define UNKNOWN(p, known)                                                      \
  "expect raise NotImplementedError \"Registering an MLIR lowering rule for "  \
  "primitive P for an unknown platform " p ". Known platforms are: " known     \
  ".\"\n"

static void test_register_lowering_metal(void **state) {
  (void)state;
  const char *known[] = {"0.5.3", "0.6.2", "0.7.2", "0.8.3"};
  for (size_t i = 0; i < 4; i++)
    check_at(known[i], METAL "expect None\n"
                             "op register_lowering primitive=\"P\" rule=\"R\" "
                             "platform=\"mystery\"\n" UNKNOWN(
                                 "mystery", "METAL, cpu, cuda, gpu, rocm"));
  check_at("0.9.2", METAL UNKNOWN("METAL", "cpu, cuda, gpu, rocm"));
  check_at("0.10.2", METAL UNKNOWN("METAL", "cpu, cuda, gpu, oneapi, rocm"));
  check_at("modelled", METAL UNKNOWN("METAL", "cpu, cuda, gpu, oneapi, rocm"));
}

#define MYSTERY                                                                \
  HEAD CPU "rule \"R\" marker\n"                                               \
           "op register_lowering primitive=\"P\" rule=\"R\" "                  \
           "platform=\"mystery\"\n"
#define MYSTERY_LOWER                                                          \
  "op lower_per_platform primitive=\"P\" platforms=[\"mystery\"] "             \
  "backend=None\n"

static void test_unknown_platform_accepted_before_checks(void **state) {
  (void)state;
  /* 0.4.30 stores the rule under any name, and lowers with it. */
  world *w =
      run_at("0.4.30", MYSTERY "expect None\n" MYSTERY_LOWER "expect None\n");
  assert_true(w->ran[1] && w->ok[1]);
  char events[2048];
  lowering_events(w, events, sizeof events);
  assert_non_null(strstr(events, "call R platforms=None module=['mystery'] "
                                 "direct"));
  free(w);
  /* 0.4.20 stores it too, but has no lower_per_platform. */
  w = run_at("0.4.20", MYSTERY "expect None\n" MYSTERY_LOWER);
  assert_true(w->ran[0]);
  assert_false(w->ran[1]);
  free(w);
  check_at("modelled",
           MYSTERY UNKNOWN("mystery", "cpu, cuda, gpu, oneapi, rocm")
               MYSTERY_LOWER "expect raise NotImplementedError \"MLIR "
                             "translation rule for primitive 'P' not found "
                             "for platform mystery\"\n");
}

//===----------------------------------------------------------------------===//
// F5 cuda skip, F6 the Unknown backend message
//===----------------------------------------------------------------------===//

#define CUDA_HIDDEN                                                            \
  HEAD CPU "factory \"cuda\" priority=400 loud client\n"                       \
           "jax_platforms \"cuda,cpu\"\n"                                      \
           "op backends\n"

static void test_cuda_skip(void **state) {
  (void)state;
  check_at("0.4.30", CUDA_HIDDEN "expect platforms \"['cuda', 'cpu']\"\n"
                                 "op canonicalize \"gpu\"\n"
                                 "expect string \"cuda\"\n");
  const char *skip = CUDA_HIDDEN
      "expect platforms \"['cpu']\"\n"
      "op canonicalize \"gpu\"\n"
      "expect raise RuntimeError \"Unknown backend: 'gpu' requested, but no "
      "platforms that are instances of gpu are present. Platforms present "
      "are: cpu\"\n";
  check_at("0.5.3", skip);
  check_at("modelled", skip);
}

static void test_unknown_backend_message(void **state) {
  (void)state;
  check_at("0.4.20", HEAD CPU "op get_backend \"nope\"\n"
                              "expect raise RuntimeError \"Unknown backend "
                              "nope\"\n");
  check_at("0.4.30", HEAD CPU "op get_backend \"nope\"\n"
                              "expect raise RuntimeError \"Unknown backend "
                              "nope. Available backends are ['cpu']\"\n");
}

//===----------------------------------------------------------------------===//
// F7/F8 ModuleContext
//===----------------------------------------------------------------------===//

#define STOCK HEAD CPU "factory \"tpu\" priority=300 quiet client\n"
#define OP_CROSS                                                               \
  "op module_get_backend platforms=[\"tpu\"] backend=\"cpu\" optional=false\n"
#define OP_CPU                                                                 \
  "op module_get_backend platforms=[\"cpu\"] backend=None optional=false\n"
#define OP_EMPTY                                                               \
  "op module_get_backend platforms=[] backend=None optional=false\n"
#define OP_OPTIONAL                                                            \
  "op module_get_backend platforms=[\"cpu\"] backend=None optional=true\n"

static void test_module_backend_property(void **state) {
  (void)state;
  /* 0.4.x `.backend`: the pinned client unchecked; else the default client
   * (tpu, priority 300), whatever the platforms; no optional. */
  static const char *const old[] = {"0.4.20", "0.4.30"};
  for (size_t i = 0; i < 2; i++) {
    world *w = run_at(old[i], STOCK OP_CROSS
                      "expect client pinned \"cpu\"\n" OP_CPU
                      "expect client registry 1 \"tpu\"\n" OP_EMPTY
                      "expect client registry 1 \"tpu\"\n" OP_OPTIONAL);
    assert_true(w->ran[0] && w->ran[1] && w->ran[2]);
    assert_false(w->ran[3]);
    free(w);
  }
  const char *now = STOCK OP_CROSS
      "expect raise ValueError \"the platform for the specified "
      "backend cpu is different from the lowering platform "
      "tpu\"\n" OP_CPU "expect client registry 0 \"cpu\"\n" OP_EMPTY
      "expect raise IndexError \"tuple index out of range\"\n";
  /* 0.5.x and 0.6.x: get_backend() without optional. */
  world *w = run_at("0.6.2", now);
  assert_true(w->ran[2]);
  free(w);
  char text[2048];
  snprintf(text, sizeof text, "%s%s", now, OP_OPTIONAL);
  w = run_at("0.5.3", text);
  assert_false(w->ran[3]);
  free(w);
  snprintf(text, sizeof text, "%s%sexpect client registry 0 \"cpu\"\n", now,
           OP_OPTIONAL);
  check_at("0.7.2", text);
  check_at("modelled", text);
}

/* The model itself refuses a call a release lacks. */
static void test_module_optional_refused(void **state) {
  (void)state;
  lctx_registry_config config;
  lctx_registry_config_init(&config);
  assert_null(config.release);
  lctx_factory cpu = {"cpu", 0, false, LCTX_FACTORY_CLIENT, NULL};
  assert_true(lctx_registry_config_add_factory(&config, cpu));
  config.release = release("0.6.2");
  lctx_registry registry;
  lctx_registry_init(&registry, &config);
  lctx_module_context context;
  lctx_module_context_init(&context);
  assert_true(
      lctx_module_context_add_platform(&context, lctx_str_from_cstr("cpu")));
  lctx_outcome out;
  lctx_module_branch branch = LCTX_BRANCH_B1;
  assert_false(
      lctx_module_get_backend(&registry, &context, true, &out, &branch));
  assert_int_equal(out.kind, LCTX_OUTCOME_NONE);
  assert_int_equal(branch, LCTX_BRANCH_ERROR);
  assert_int_equal(lctx_registry_init_runs(&registry), 0);
  assert_true(
      lctx_module_get_backend(&registry, &context, false, &out, &branch));
  assert_int_equal(branch, LCTX_BRANCH_B3);
  assert_int_equal(out.kind, LCTX_OUTCOME_CLIENT);
}

//===----------------------------------------------------------------------===//
// F9/F10 lowering
//===----------------------------------------------------------------------===//

#define COMPUTE_TYPE                                                           \
  STOCK "rule \"P.cpu\" marker\n"                                              \
        "rule \"P.tpu\" marker\n"                                              \
        "op register_lowering primitive=\"P\" rule=\"P.cpu\" "                 \
        "platform=\"cpu\"\n"                                                   \
        "op register_lowering primitive=\"P\" rule=\"P.tpu\" "                 \
        "platform=\"tpu\"\n"                                                   \
        "op lower_per_platform primitive=\"P\" platforms=[\"tpu\"] "           \
        "backend=None compute_type=\"device_host\"\n"                          \
        "expect None\n"

static void test_compute_type_platforms(void **state) {
  (void)state;
  char events[2048];
  world *w = run_at("modelled", COMPUTE_TYPE);
  lowering_events(w, events, sizeof events);
  assert_non_null(strstr(events, "marker P.cpu platforms=['cpu']"));
  free(w);
  w = run_at("0.4.30", COMPUTE_TYPE);
  assert_true(w->ran[2]);
  lowering_events(w, events, sizeof events);
  assert_non_null(strstr(events, "marker P.tpu platforms=['tpu']"));
  assert_null(strstr(events, "P.cpu"));
  /* The same through the public function. */
  const lctx_str *list;
  assert_int_equal(
      lctx_lowering_eqn_platforms_at(release("0.4.30"), &w->r.context, &list),
      1);
  assert_true(lctx_str_equal_cstr(list[0], "tpu"));
  assert_int_equal(lctx_lowering_eqn_platforms_at(NULL, &w->r.context, &list),
                   1);
  assert_true(lctx_str_equal_cstr(list[0], "cpu"));
  free(w);
}

#define OPTIONAL_RULE                                                          \
  HEAD CPU "rule \"R\" read_client_platform\n"                                 \
           "op register_lowering primitive=\"P\" rule=\"R\" platform=None\n"   \
           "op lower_per_platform primitive=\"P\" platforms=[\"cpu\"] "        \
           "backend=None\n"

static void test_lowering_ops_a_release_lacks(void **state) {
  (void)state;
  /* 0.6.2 has lower_per_platform, but R calls get_backend(optional=True). */
  world *w = run_at("0.6.2", OPTIONAL_RULE);
  assert_true(w->ran[0]);
  assert_false(w->ran[1]);
  /* Run anyway, the model stops at the release limit. */
  lctx_outcome out;
  assert_false(lctx_runner_op(&w->r, &w->c.ops[1], &out, NULL));
  assert_int_equal(w->r.result->limit, LCTX_LOWERING_LIMIT_RELEASE);
  assert_int_equal(out.kind, LCTX_OUTCOME_NONE);
  free(w);
  check_at("0.7.2", OPTIONAL_RULE "expect None\n");
  /* 0.4.20 has no lower_per_platform at all. */
  w = run_at("0.4.20", HEAD CPU "rule \"R\" marker\n"
                                "op lower_per_platform primitive=\"P\" "
                                "platforms=[\"cpu\"] backend=None\n");
  assert_false(w->ran[0]);
  assert_false(lctx_runner_op(&w->r, &w->c.ops[0], &out, NULL));
  assert_int_equal(w->r.result->limit, LCTX_LOWERING_LIMIT_RELEASE);
  assert_int_equal(w->r.result->event_count, 0);
  free(w);
}

/* lctx_runner_init is the modelled release. */
static void test_runner_init_is_modelled(void **state) {
  (void)state;
  world *w = calloc(1, sizeof *w);
  assert_non_null(w);
  lctx_runner_init(&w->r, &w->c);
  assert_ptr_equal(lctx_runner_release(&w->r), lctx_release_modelled());
  assert_null(w->r.config.release);
  lctx_runner_init_at(&w->r, &w->c, NULL);
  assert_ptr_equal(lctx_runner_release(&w->r), lctx_release_modelled());
  free(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_release_table),
      cmocka_unit_test(test_dispatch_module_platforms),
      cmocka_unit_test(test_modelled_record),
      cmocka_unit_test(test_has_op),
      cmocka_unit_test(test_canonicalize_gpu_oneapi_only),
      cmocka_unit_test(test_jax_platforms_gpu_expansion),
      cmocka_unit_test(test_register_lowering_gpu_storage),
      cmocka_unit_test(test_client_platform_attr),
      cmocka_unit_test(test_pinned_oneapi_module_get_backend),
      cmocka_unit_test(test_pinned_oneapi_multi_platform_lowering),
      cmocka_unit_test(test_register_lowering_metal),
      cmocka_unit_test(test_unknown_platform_accepted_before_checks),
      cmocka_unit_test(test_cuda_skip),
      cmocka_unit_test(test_unknown_backend_message),
      cmocka_unit_test(test_module_backend_property),
      cmocka_unit_test(test_module_optional_refused),
      cmocka_unit_test(test_compute_type_platforms),
      cmocka_unit_test(test_lowering_ops_a_release_lacks),
      cmocka_unit_test(test_runner_init_is_modelled),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
