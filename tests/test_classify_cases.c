/*
 * tests/test_classify_cases.c - pins what the feature extractor
 * (harness/core/judge/classify.h) makes of small cases.
 *
 * - One table of small cases (parsed from the `.case` text form), each
 *   operation's features exactly as lctx_classify_format writes them and
 *   the exact set of placeholders that apply with their text:
 *   - registry initialization: ok, ready on a second operation, loud
 *     (raised, None, no devices under the defaults, an unknown name under
 *     jax_platforms), assert; a partial registry seen by later operations;
 *   - canonicalize: a plain name, '' and `GPU` leave the registry alone;
 *     `gpu` resolves to the first initialized of cuda, rocm, oneapi, or is
 *     absent;
 *   - get_backend: None, the config fallbacks, found, failed, unknown, no
 *     default;
 *   - module_get_backend: B1 (registry never read), B2a, B2b, B2 with a
 *     gpu-family client (the ROCm quirk, no GPU initialized), B3, zero
 *     platforms (seq=tuple);
 *   - register_lowering: None, a known name, `gpu`, an unknown name (the
 *     known platforms sorted);
 *   - lower_per_platform stopping at none, not_found_one, not_found_many
 *     (duplicates kept), no_platforms, no_index, raise_if_multi, backend
 *     (B1 and B3 in a rule body), gpu_assert (LP-007), and the zero-platform
 *     IndexError after lower_fun's empty narrowing (seq=list, MG-004/005).
 * - The state carried from one operation to the next (registrations),
 *   reset by lctx_classify_init; each classification keeps its own
 *   placeholders.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_support.h"

#include "case_gen.h"
#include "classify.h"

//===----------------------------------------------------------------------===//
// The classification table
//===----------------------------------------------------------------------===//

/// One placeholder that applies, with its exact text.
typedef struct ph {
  lctx_placeholder p;
  const char *text; ///< NULL ends the list
} ph;

typedef struct classify_row {
  const char *what;
  const char *body; ///< case text after the `lctx-case 1` header
  size_t op;        ///< the operation checked (earlier ones run first)
  const char *features;
  ph placeholders[9]; ///< exactly the placeholders that apply
} classify_row;

/* Registry configurations written in the text form. */
#define CPU "factory \"cpu\" priority=0 loud client\n"
#define TPU_FAILS                                                              \
  "factory \"tpu\" priority=300 quiet raises \"TPU not found\"\n"
#define STOCK CPU TPU_FAILS
#define GPUS                                                                   \
  STOCK "factory \"cuda\" priority=400 loud client\n"                          \
        "factory \"rocm\" priority=400 loud client\n"                          \
        "factory \"oneapi\" priority=400 loud client\n"
#define VISIBLE "nvidia_gpu visible\n"
#define PARTIAL                                                                \
  STOCK "factory \"METAL\" priority=400 loud raises \"METAL broke\"\n"         \
        "factory \"rocm\" priority=500 loud client\n"
/// The partial registry: backends(), then get_backend of tpu and of rocm.
#define PARTIAL_OPS                                                            \
  PARTIAL "op backends\nop get_backend \"tpu\"\nop get_backend \"rocm\"\n"
#define ALL_GPUS_AVAILABLE                                                     \
  {LCTX_P_AVAILABLE, "['cpu', 'cuda', 'rocm', 'oneapi']"}, {                   \
    LCTX_P_PRESENT, "cpu,cuda,rocm,oneapi"                                     \
  }
#define CPU_AVAILABLE                                                          \
  {LCTX_P_AVAILABLE, "['cpu']"}, {                                             \
    LCTX_P_PRESENT, "cpu"                                                      \
  }

static const classify_row ROWS[] = {
    /* Registry initialization. */
    {"backends, stock registry",
     STOCK "op backends\n",
     0,
     "mode=default init=ok",
     {CPU_AVAILABLE}},
    {"backends, a second time: ready",
     STOCK "op backends\nop backends\n",
     1,
     "mode=default init=ready",
     {CPU_AVAILABLE}},
    {"backends, loud raise before any client",
     "factory \"cuda\" priority=400 loud raises \"no CUDA\"\n" CPU VISIBLE
     "op backends\n",
     0,
     "mode=default init=loud cause=raised",
     {{LCTX_P_FAILED, "cuda"},
      {LCTX_P_ERR, "no CUDA"},
      {LCTX_P_FACTORIES, "['cuda', 'cpu']"}}},
    {"backends, loud None after a client (err is the empty message)",
     CPU "factory \"rocm\" priority=400 loud none\nop backends\n",
     0,
     "mode=default init=loud cause=none",
     {{LCTX_P_FAILED, "rocm"},
      {LCTX_P_ERR, ""},
      {LCTX_P_FACTORIES, "['cpu', 'rocm']"}}},
    {"backends, loud no devices",
     CPU "factory \"tpu\" priority=300 loud no_devices\nop backends\n",
     0,
     "mode=default init=loud cause=no_devices",
     {{LCTX_P_FAILED, "tpu"},
      {LCTX_P_ERR, ""},
      {LCTX_P_FACTORIES, "['cpu', 'tpu']"}}},
    {"jax_platforms names an unknown platform: no err",
     STOCK "jax_platforms \"cpu,METAL\"\nop backends\n",
     0,
     "mode=platforms init=loud cause=unknown",
     {{LCTX_P_FAILED, "METAL"}, {LCTX_P_FACTORIES, "['cpu', 'tpu']"}}},
    {"jax_platforms: a quiet factory fails loudly",
     STOCK "jax_platforms \"tpu\"\nop backends\n",
     0,
     "mode=platforms init=loud cause=raised",
     {{LCTX_P_FAILED, "tpu"},
      {LCTX_P_ERR, "TPU not found"},
      {LCTX_P_FACTORIES, "['cpu', 'tpu']"}}},
    {"no priority above -1000: assert, no placeholder",
     "factory \"cpu\" priority=-1000 loud client\nop backends\n",
     0,
     "mode=default init=assert",
     {{0, NULL}}},
    {"partial registry: the first operation fails loudly",
     PARTIAL_OPS,
     0,
     "mode=default init=loud cause=raised",
     {{LCTX_P_FAILED, "METAL"},
      {LCTX_P_ERR, "METAL broke"},
      {LCTX_P_FACTORIES, "['cpu', 'tpu', 'METAL', 'rocm']"}}},
    {"partial registry: an earlier quiet failure stays failed",
     PARTIAL_OPS,
     1,
     "mode=default init=ready cause=raised arg=name source=arg target=name "
     "lookup=failed",
     {CPU_AVAILABLE, {LCTX_P_P, "tpu"}, {LCTX_P_ERR, "TPU not found"}}},
    {"partial registry: a later registration reads as unknown",
     PARTIAL_OPS,
     2,
     "mode=default init=ready arg=name source=arg target=name lookup=unknown",
     {CPU_AVAILABLE, {LCTX_P_P, "rocm"}}},
    /* canonicalize */
    {"canonicalize a plain name: registry untouched",
     STOCK "op canonicalize \"cpu\"\n",
     0,
     "mode=default init=none arg=name",
     {{LCTX_P_ARG, "cpu"}}},
    {"canonicalize GPU: case-sensitive, a plain name",
     STOCK "op canonicalize \"GPU\"\n",
     0,
     "mode=default init=none arg=name",
     {{LCTX_P_ARG, "GPU"}}},
    {"canonicalize ''",
     STOCK "op canonicalize \"\"\n",
     0,
     "mode=default init=none arg=empty",
     {{LCTX_P_ARG, ""}}},
    {"canonicalize gpu with cuda, rocm, oneapi initialized",
     GPUS VISIBLE "op canonicalize \"gpu\"\n",
     0,
     "mode=default init=ok arg=alias gpu=cuda",
     {{LCTX_P_ARG, "gpu"}, ALL_GPUS_AVAILABLE, {LCTX_P_GPU, "cuda"}}},
    {"canonicalize gpu, cuda skipped without an NVIDIA GPU",
     GPUS "op canonicalize \"gpu\"\n",
     0,
     "mode=default init=ok arg=alias gpu=rocm",
     {{LCTX_P_ARG, "gpu"},
      {LCTX_P_AVAILABLE, "['cpu', 'rocm', 'oneapi']"},
      {LCTX_P_PRESENT, "cpu,rocm,oneapi"},
      {LCTX_P_GPU, "rocm"}}},
    {"canonicalize gpu, only oneapi",
     CPU "factory \"oneapi\" priority=400 loud client\n"
         "op canonicalize \"gpu\"\n",
     0,
     "mode=default init=ok arg=alias gpu=oneapi",
     {{LCTX_P_ARG, "gpu"},
      {LCTX_P_AVAILABLE, "['cpu', 'oneapi']"},
      {LCTX_P_PRESENT, "cpu,oneapi"},
      {LCTX_P_GPU, "oneapi"}}},
    {"canonicalize gpu, none present",
     STOCK "op canonicalize \"gpu\"\n",
     0,
     "mode=default init=ok arg=alias gpu=absent",
     {{LCTX_P_ARG, "gpu"}, CPU_AVAILABLE}},
    {"canonicalize gpu after backends: ready",
     GPUS VISIBLE "op backends\nop canonicalize \"gpu\"\n",
     1,
     "mode=default init=ready arg=alias gpu=cuda",
     {{LCTX_P_ARG, "gpu"}, ALL_GPUS_AVAILABLE, {LCTX_P_GPU, "cuda"}}},
    {"canonicalize gpu under jax_platforms",
     STOCK "jax_platforms \"cpu\"\nop canonicalize \"gpu\"\n",
     0,
     "mode=platforms init=ok arg=alias gpu=absent",
     {{LCTX_P_ARG, "gpu"}, CPU_AVAILABLE}},
    /* xla_bridge.get_backend */
    {"get_backend None: the default client",
     GPUS VISIBLE "op get_backend None\n",
     0,
     "mode=default init=ok arg=none source=none target=none lookup=default",
     {ALL_GPUS_AVAILABLE, {LCTX_P_CLIENT, "cuda"}, {LCTX_P_CLIENT_REG, "2"}}},
    {"get_backend '' falls back to jax_xla_backend=gpu",
     GPUS VISIBLE "jax_platform_name \"cpu\"\njax_xla_backend \"gpu\"\n"
                  "op get_backend \"\"\n",
     0,
     "mode=default init=ok arg=empty source=xla_backend target=alias gpu=cuda "
     "lookup=found",
     {ALL_GPUS_AVAILABLE,
      {LCTX_P_GPU, "cuda"},
      {LCTX_P_P, "cuda"},
      {LCTX_P_CLIENT, "cuda"},
      {LCTX_P_CLIENT_REG, "2"}}},
    {"get_backend None falls back to jax_platform_name",
     STOCK "jax_platform_name \"tpu\"\nop get_backend None\n",
     0,
     "mode=default init=ok cause=raised arg=none source=platform_name "
     "target=name lookup=failed",
     {CPU_AVAILABLE, {LCTX_P_P, "tpu"}, {LCTX_P_ERR, "TPU not found"}}},
    {"get_backend a name no factory has",
     STOCK "op get_backend \"METAL\"\n",
     0,
     "mode=default init=ok arg=name source=arg target=name lookup=unknown",
     {CPU_AVAILABLE, {LCTX_P_P, "METAL"}}},
    {"get_backend gpu, none present",
     STOCK "op get_backend \"gpu\"\n",
     0,
     "mode=default init=ok arg=alias source=arg target=alias gpu=absent",
     {CPU_AVAILABLE}},
    {"get_backend None on a partial registry without a default",
     "factory \"cpu\" priority=-1000 loud client\n"
     "factory \"tpu\" priority=0 loud raises \"x\"\n"
     "op backends\nop get_backend None\n",
     1,
     "mode=default init=ready arg=none source=none target=none "
     "lookup=no_default",
     {CPU_AVAILABLE}},
    /* ModuleContext.get_backend */
    {"B1: the registry is never read",
     STOCK "op module_get_backend platforms=[\"cpu\", \"tpu\"] "
           "backend=\"cpu\" optional=false\n",
     0,
     "mode=default init=none count=multi optional=false",
     {{0, NULL}}},
    {"B1 with optional=True, duplicates count",
     STOCK "op module_get_backend platforms=[\"cpu\", \"cpu\"] backend=None "
           "optional=true\n",
     0,
     "mode=default init=none count=multi optional=true",
     {{0, NULL}}},
    {"B2a: pinned cpu lowering for tpu",
     STOCK "op module_get_backend platforms=[\"tpu\"] backend=\"cpu\" "
           "optional=false\n",
     0,
     "mode=default init=none count=one optional=false pinned=plain real=same "
     "match=no",
     {{LCTX_P_P0, "tpu"}, {LCTX_P_PINNED, "cpu"}, {LCTX_P_CANONICAL, "cpu"}}},
    {"B2b: pinned cpu lowering for cpu",
     STOCK "op module_get_backend platforms=[\"cpu\"] backend=\"cpu\" "
           "optional=true\n",
     0,
     "mode=default init=none count=one optional=true pinned=plain real=same "
     "match=yes",
     {{LCTX_P_P0, "cpu"}, {LCTX_P_PINNED, "cpu"}, {LCTX_P_CANONICAL, "cpu"}}},
    {"B2 ROCm quirk: pinned rocm reads cuda",
     GPUS VISIBLE "op module_get_backend platforms=[\"cuda\"] "
                  "backend=\"rocm\" optional=false\n",
     0,
     "mode=default init=ok gpu=cuda count=one optional=false pinned=gpu "
     "real=other match=yes",
     {ALL_GPUS_AVAILABLE,
      {LCTX_P_GPU, "cuda"},
      {LCTX_P_P0, "cuda"},
      {LCTX_P_PINNED, "rocm"},
      {LCTX_P_CANONICAL, "cuda"}}},
    {"B2 pinned cuda client, no GPU initialized",
     STOCK "op module_get_backend platforms=[\"cpu\"] backend=\"cuda\" "
           "optional=true\n",
     0,
     "mode=default init=ok gpu=absent count=one optional=true pinned=gpu",
     {CPU_AVAILABLE, {LCTX_P_P0, "cpu"}, {LCTX_P_PINNED, "cuda"}}},
    {"B3: the registry client of platforms[0]",
     STOCK "op module_get_backend platforms=[\"cpu\"] backend=None "
           "optional=false\n",
     0,
     "mode=default init=ok source=arg target=name lookup=found count=one "
     "optional=false pinned=none",
     {CPU_AVAILABLE,
      {LCTX_P_P, "cpu"},
      {LCTX_P_P0, "cpu"},
      {LCTX_P_CLIENT, "cpu"},
      {LCTX_P_CLIENT_REG, "0"}}},
    {"B3: gpu resolved",
     GPUS VISIBLE "op module_get_backend platforms=[\"gpu\"] backend=None "
                  "optional=true\n",
     0,
     "mode=default init=ok source=arg target=alias gpu=cuda lookup=found "
     "count=one optional=true pinned=none",
     {ALL_GPUS_AVAILABLE,
      {LCTX_P_GPU, "cuda"},
      {LCTX_P_P, "cuda"},
      {LCTX_P_P0, "gpu"},
      {LCTX_P_CLIENT, "cuda"},
      {LCTX_P_CLIENT_REG, "2"}}},
    {"B3: '' falls back to the default client",
     STOCK "op module_get_backend platforms=[\"\"] backend=None "
           "optional=false\n",
     0,
     "mode=default init=ok source=none target=none lookup=default count=one "
     "optional=false pinned=none",
     {CPU_AVAILABLE,
      {LCTX_P_P0, ""},
      {LCTX_P_CLIENT, "cpu"},
      {LCTX_P_CLIENT_REG, "0"}}},
    {"zero platforms, no pin: IndexError on a tuple before the registry",
     STOCK "op module_get_backend platforms=[] backend=None optional=false\n",
     0,
     "mode=default init=none count=zero optional=false pinned=none",
     {{LCTX_P_SEQ, "tuple"}}},
    {"zero platforms, pinned tpu: canonicalized first",
     STOCK "op module_get_backend platforms=[] backend=\"tpu\" optional=true\n",
     0,
     "mode=default init=none count=zero optional=true pinned=plain real=same",
     {{LCTX_P_SEQ, "tuple"},
      {LCTX_P_PINNED, "tpu"},
      {LCTX_P_CANONICAL, "tpu"}}},
    /* register_lowering */
    {"register_lowering platform=None",
     STOCK "rule \"P.def\" marker\n"
           "op register_lowering primitive=\"P\" rule=\"P.def\" "
           "platform=None\n",
     0,
     "mode=default init=none reg=default",
     {{LCTX_P_PRIM, "P"}}},
    {"register_lowering a factory's platform",
     STOCK "rule \"P.tpu\" marker\n"
           "op register_lowering primitive=\"P\" rule=\"P.tpu\" "
           "platform=\"tpu\"\n",
     0,
     "mode=default init=none reg=known",
     {{LCTX_P_PRIM, "P"}, {LCTX_P_PLATFORM, "tpu"}}},
    {"register_lowering gpu",
     STOCK "rule \"P.gpu\" marker\n"
           "op register_lowering primitive=\"P\" rule=\"P.gpu\" "
           "platform=\"gpu\"\n",
     0,
     "mode=default init=none reg=alias",
     {{LCTX_P_PRIM, "P"}, {LCTX_P_PLATFORM, "gpu"}}},
    {"register_lowering an unknown platform: known sorted",
     STOCK "rule \"P.x\" marker\n"
           "op register_lowering primitive=\"P\" rule=\"P.x\" "
           "platform=\"METAL\"\n",
     0,
     "mode=default init=none reg=unknown",
     {{LCTX_P_PRIM, "P"},
      {LCTX_P_PLATFORM, "METAL"},
      {LCTX_P_KNOWN, "cpu, cuda, gpu, oneapi, rocm, tpu"}}},
    /* lower_per_platform */
    {"lower_per_platform: one default rule, called directly",
     STOCK "rule \"P.def\" marker\n"
           "op register_lowering primitive=\"P\" rule=\"P.def\" platform=None\n"
           "op lower_per_platform primitive=\"P\" platforms=[\"cpu\", \"tpu\"] "
           "backend=None\n",
     1,
     "mode=default init=none stop=none",
     {{0, NULL}}},
    {"lower_per_platform: a get_backend with optional=True returns None",
     STOCK "rule \"P.def\" get_backend optional=true, marker\n"
           "op register_lowering primitive=\"P\" rule=\"P.def\" platform=None\n"
           "op lower_per_platform primitive=\"P\" platforms=[\"cpu\", \"tpu\"] "
           "backend=None\n",
     1,
     "mode=default init=none stop=none",
     {{0, NULL}}},
    {"lower_per_platform: no rule for one platform",
     STOCK "op lower_per_platform primitive=\"P\" platforms=[\"cpu\"] "
           "backend=None\n",
     0,
     "mode=default init=none stop=not_found_one",
     {{LCTX_P_PRIM, "P"}, {LCTX_P_PLATFORM, "cpu"}}},
    {"lower_per_platform: no rule for several, duplicates kept",
     STOCK "rule \"P.cpu\" marker\n"
           "op register_lowering primitive=\"P\" rule=\"P.cpu\" "
           "platform=\"cpu\"\n"
           "op lower_per_platform primitive=\"P\" platforms=[\"cpu\", \"tpu\", "
           "\"tpu\"] backend=None\n",
     1,
     "mode=default init=none stop=not_found_many",
     {{LCTX_P_PRIM, "P"}, {LCTX_P_MISSING, "['tpu', 'tpu']"}}},
    {"lower_per_platform: no platforms",
     STOCK "rule \"P.def\" marker\n"
           "op register_lowering primitive=\"P\" rule=\"P.def\" platform=None\n"
           "op lower_per_platform primitive=\"P\" platforms=[] backend=None\n",
     1,
     "mode=default init=none stop=no_platforms",
     {{0, NULL}}},
    {"lower_per_platform: no platform index (LP-005)",
     CPU
     "factory \"tpu\" priority=300 quiet client\n"
     "rule \"P.cpu\" marker\nrule \"P.def\" marker\n"
     "op register_lowering primitive=\"P\" rule=\"P.cpu\" platform=\"cpu\"\n"
     "op register_lowering primitive=\"P\" rule=\"P.def\" platform=None\n"
     "op lower_per_platform primitive=\"P\" platforms=[\"cpu\"] "
     "backend=None narrow=[\"cpu\", \"tpu\"]\n",
     2,
     "mode=default init=none stop=no_index",
     {{0, NULL}}},
    {"lower_per_platform: a rule refuses several platforms",
     STOCK "rule \"P.def\" raise_if_multi \"P refuses\", marker\n"
           "op register_lowering primitive=\"P\" rule=\"P.def\" platform=None\n"
           "op lower_per_platform primitive=\"P\" platforms=[\"cpu\", \"tpu\"] "
           "backend=None\n",
     1,
     "mode=default init=none stop=raise_if_multi",
     {{LCTX_P_MESSAGE, "P refuses"}}},
    {"lower_per_platform: a rule body's get_backend takes B1",
     STOCK "rule \"P.def\" get_backend optional=false\n"
           "op register_lowering primitive=\"P\" rule=\"P.def\" platform=None\n"
           "op lower_per_platform primitive=\"P\" platforms=[\"cpu\", \"tpu\"] "
           "backend=\"cpu\"\n",
     1,
     "mode=default init=none count=multi optional=false stop=backend",
     {{0, NULL}}},
    {"lower_per_platform: a rule body's get_backend fails in B3",
     STOCK "rule \"P.def\" get_backend optional=true\n"
           "op register_lowering primitive=\"P\" rule=\"P.def\" platform=None\n"
           "op lower_per_platform primitive=\"P\" platforms=[\"METAL\"] "
           "backend=None\n",
     1,
     "mode=default init=ok source=arg target=name lookup=unknown count=one "
     "optional=true pinned=none stop=backend",
     {CPU_AVAILABLE, {LCTX_P_P, "METAL"}, {LCTX_P_P0, "METAL"}}},
    {"lower_fun in a module naming gpu (LP-007)",
     STOCK "rule \"P.def\" marker, lower_fun \"Q\"\nrule \"Q.def\" marker\n"
           "op register_lowering primitive=\"P\" rule=\"P.def\" platform=None\n"
           "op register_lowering primitive=\"Q\" rule=\"Q.def\" platform=None\n"
           "op lower_per_platform primitive=\"P\" platforms=[\"gpu\"] "
           "backend=None\n",
     2,
     "mode=default init=none stop=gpu_assert",
     {{0, NULL}}},
    {"lower_fun: a branch narrowed to gpu (LP-007)",
     STOCK "rule \"P.cpu\" marker\nrule \"P.def\" marker, lower_fun \"Q\"\n"
           "rule \"Q.def\" marker\n"
           "op register_lowering primitive=\"P\" rule=\"P.cpu\" "
           "platform=\"cpu\"\n"
           "op register_lowering primitive=\"P\" rule=\"P.def\" platform=None\n"
           "op register_lowering primitive=\"Q\" rule=\"Q.def\" platform=None\n"
           "op lower_per_platform primitive=\"P\" platforms=[\"cpu\", \"gpu\"] "
           "backend=None\n",
     3,
     "mode=default init=none stop=gpu_assert",
     {{0, NULL}}},
    {"lower_fun narrowed to [], pinned cpu: IndexError on a list (MG-004)",
     STOCK "rule \"P.def\" lower_fun \"Q\" compute_type=\"device_host\"\n"
           "rule \"Q.def\" get_backend optional=false\n"
           "op register_lowering primitive=\"P\" rule=\"P.def\" platform=None\n"
           "op register_lowering primitive=\"Q\" rule=\"Q.def\" platform=None\n"
           "op lower_per_platform primitive=\"P\" platforms=[\"cpu\"] "
           "backend=\"cpu\" narrow=[]\n",
     2,
     "mode=default init=none count=zero optional=false pinned=plain real=same "
     "stop=backend",
     {{LCTX_P_SEQ, "list"}, {LCTX_P_PINNED, "cpu"}, {LCTX_P_CANONICAL, "cpu"}}},
    {"lower_fun narrowed to [], no pin: IndexError on a list (MG-005)",
     STOCK "rule \"P.def\" lower_fun \"Q\" compute_type=\"device_host\"\n"
           "rule \"Q.def\" get_backend optional=false\n"
           "op register_lowering primitive=\"P\" rule=\"P.def\" platform=None\n"
           "op register_lowering primitive=\"Q\" rule=\"Q.def\" platform=None\n"
           "op lower_per_platform primitive=\"P\" platforms=[\"cpu\"] "
           "backend=None narrow=[]\n",
     2,
     "mode=default init=none count=zero optional=false pinned=none "
     "stop=backend",
     {{LCTX_P_SEQ, "list"}}},
    {"lower_fun without narrowing keeps the module's platforms",
     STOCK "rule \"P.def\" lower_fun \"Q\" compute_type=\"device_host\"\n"
           "rule \"Q.def\" get_backend optional=false\n"
           "op register_lowering primitive=\"P\" rule=\"P.def\" platform=None\n"
           "op register_lowering primitive=\"Q\" rule=\"Q.def\" platform=None\n"
           "op lower_per_platform primitive=\"P\" platforms=[\"cpu\"] "
           "backend=None\n",
     2,
     "mode=default init=none stop=none",
     {{0, NULL}}},
};

static lctx_case g_case;
static lctx_features g_features;

/// Parses `body` after the header into g_case; fails with the parser's
/// message, or when the case is not valid.
static void parse_body(const char *what, const char *body) {
  char error[512];
  if (!case_gen_parse_body(body, &g_case, NULL, error, sizeof error))
    fail_msg("%s: %s", what, error);
  if (!case_gen_is_valid(&g_case, error, sizeof error))
    fail_msg("%s: invalid: %s", what, error);
}

/// Computes the features of operations 0..op of g_case; the last are left in
/// g_features.
static void compute_through(size_t op) {
  lctx_feature_state s;
  lctx_classify_init(&s, &g_case);
  assert_true(op < g_case.op_count);
  for (size_t i = 0; i <= op; i++)
    lctx_classify_op(&s, i, &g_features);
}

/// Checks that exactly the placeholders of `list` (ended by a NULL text)
/// apply to `f`, each with its text.
static void check_placeholders(const char *what, const lctx_features *f,
                               const ph *list) {
  bool listed[LCTX_PLACEHOLDER_COUNT] = {false};
  for (const ph *p = list; p->text; p++) {
    listed[p->p] = true;
    if (!f->has[p->p])
      fail_msg("%s: {%s} does not apply", what,
               lctx_classify_placeholder_name(p->p));
    lctx_str v = lctx_classify_text(f, p->p);
    if (v.length != strlen(p->text) ||
        (v.length && memcmp(v.data, p->text, v.length) != 0))
      fail_msg("%s: {%s}\n  expected \"%s\"\n  actual   \"%.*s\"", what,
               lctx_classify_placeholder_name(p->p), p->text, (int)v.length,
               v.data);
  }
  for (int p = 0; p < LCTX_PLACEHOLDER_COUNT; p++) {
    if (!listed[p] && f->has[p])
      fail_msg("%s: {%s} applies (\"%.*s\")", what,
               lctx_classify_placeholder_name((lctx_placeholder)p),
               (int)lctx_classify_text(f, (lctx_placeholder)p).length,
               lctx_classify_text(f, (lctx_placeholder)p).data);
  }
}

static void check_row(const classify_row *r) {
  parse_body(r->what, r->body);
  compute_through(r->op);
  assert_int_equal(g_features.op, g_case.ops[r->op].kind);
  char text[512];
  lctx_buf b;
  lctx_buf_init(&b, text, sizeof text);
  lctx_classify_format(&g_features, &b);
  if (strcmp(text, r->features) != 0)
    fail_msg("%s: features\n  expected \"%s\"\n  actual   \"%s\"", r->what,
             r->features, text);
  check_placeholders(r->what, &g_features, r->placeholders);
}

static void test_classification_table(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof ROWS / sizeof ROWS[0]; i++)
    check_row(&ROWS[i]);
}

/* The feature state carries registrations from one operation to the next:
 * a later registration replaces an earlier one, `gpu` stores for its three
 * members, and what was stored decides where a lowering stops. */
static void test_lowering_state_carried_across_operations(void **state) {
  (void)state;
  static const struct {
    const char *platforms;
    const char *stop;
  } lowerings[] = {
      {"[\"cuda\"]", "stop=none"},
      {"[\"rocm\", \"oneapi\"]", "stop=none"},
      {"[\"cpu\"]", "stop=not_found_one"},
      {"[\"cpu\", \"cuda\"]", "stop=not_found_many"},
  };
  for (size_t i = 0; i < sizeof lowerings / sizeof lowerings[0]; i++) {
    char body[1024];
    snprintf(body, sizeof body,
             STOCK "rule \"P.gpu\" marker\n"
                   "op register_lowering primitive=\"P\" rule=\"P.gpu\" "
                   "platform=\"gpu\"\n"
                   "op lower_per_platform primitive=\"P\" platforms=%s "
                   "backend=None\n",
             lowerings[i].platforms);
    parse_body(lowerings[i].platforms, body);
    compute_through(1);
    char text[256], want[256];
    lctx_buf b;
    lctx_buf_init(&b, text, sizeof text);
    lctx_classify_format(&g_features, &b);
    snprintf(want, sizeof want, "mode=default init=none %s", lowerings[i].stop);
    assert_string_equal(text, want);
  }
}

/* Features are reset per operation: classifying the same operation after
 * others gives the same values, and a fresh state starts uninitialized. */
static void test_state_init_starts_uninitialized(void **state) {
  (void)state;
  parse_body("twice", STOCK "op backends\nop backends\n");
  lctx_feature_state s;
  lctx_classify_init(&s, &g_case);
  lctx_classify_op(&s, 0, &g_features);
  assert_int_equal(g_features.value[LCTX_F_INIT], 3); /* ok */
  lctx_classify_op(&s, 1, &g_features);
  assert_int_equal(g_features.value[LCTX_F_INIT], 2); /* ready */
  lctx_classify_init(&s, &g_case);
  lctx_classify_op(&s, 1, &g_features);
  assert_int_equal(g_features.value[LCTX_F_INIT], 3); /* ok again */
}

/// Regression: a lowering that stops at a rule body's get_backend once built
/// that call in storage shared by every classification, so classifying a
/// second such lowering rewrote the first one's placeholders ({p}, {p0}).
/// The features now hold the call they describe: each set keeps its own.
static void test_two_classifications_keep_their_placeholders(void **state) {
  (void)state;
  parse_body("two lowerings stopping at get_backend",
             STOCK "rule \"P.def\" get_backend optional=true\n"
                   "op register_lowering primitive=\"P\" rule=\"P.def\" "
                   "platform=None\n"
                   "op lower_per_platform primitive=\"P\" "
                   "platforms=[\"METAL\"] backend=None\n"
                   "op lower_per_platform primitive=\"P\" "
                   "platforms=[\"bogus\"] backend=None\n");
  static lctx_features first, second;
  lctx_feature_state s;
  lctx_classify_init(&s, &g_case);
  lctx_classify_op(&s, 0, &first);
  lctx_classify_op(&s, 1, &first);
  lctx_classify_op(&s, 2, &second);
  check_placeholders(
      "second", &second,
      (const ph[]){
          CPU_AVAILABLE, {LCTX_P_P, "bogus"}, {LCTX_P_P0, "bogus"}, {0, NULL}});
  check_placeholders(
      "first", &first,
      (const ph[]){
          CPU_AVAILABLE, {LCTX_P_P, "METAL"}, {LCTX_P_P0, "METAL"}, {0, NULL}});
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_classification_table),
      cmocka_unit_test(test_lowering_state_carried_across_operations),
      cmocka_unit_test(test_state_init_starts_uninitialized),
      cmocka_unit_test(test_two_classifications_keep_their_placeholders),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
