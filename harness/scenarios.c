/*
 * scenarios.c - the built-in default job (see scenarios.h).
 */
#include "scenarios.h"

#include "lctx/lctx.h"

#include <string.h>

typedef enum host_kind { HOST_CPU, HOST_CUDA, HOST_ROCM } host_kind;

typedef enum op_kind { OP_MODULE, OP_XLA, OP_CANONICALIZE } op_kind;

typedef struct scenario {
  const char *title;
  host_kind host;
  op_kind op;
  const char *platforms[3]; /* module platforms, NULL-terminated */
  const char *pinned;       /* real platform of the pinned client, or NULL */
  bool optional;
  const char *name; /* argument of xla get_backend / canonicalize */
} scenario;

static const scenario SCENARIOS[] = {
    {"single-platform lowering",
     HOST_CPU,
     OP_MODULE,
     {"cpu"},
     NULL,
     false,
     NULL},
    {"multi-platform export",
     HOST_CPU,
     OP_MODULE,
     {"cpu", "cuda"},
     NULL,
     false,
     NULL},
    {"multi-platform export, optional",
     HOST_CPU,
     OP_MODULE,
     {"cpu", "cuda"},
     NULL,
     true,
     NULL},
    {"cross-lowering for tpu",
     HOST_CPU,
     OP_MODULE,
     {"tpu"},
     "cpu",
     false,
     NULL},
    {"cross-lowering for tpu, optional",
     HOST_CPU,
     OP_MODULE,
     {"tpu"},
     "cpu",
     true,
     NULL},
    {"pinned host client", HOST_CPU, OP_MODULE, {"cpu"}, "cpu", false, NULL},
    {"lowering for tpu, no TPU",
     HOST_CPU,
     OP_MODULE,
     {"tpu"},
     NULL,
     true,
     NULL},
    {"lowering for cuda, no plugin",
     HOST_CPU,
     OP_MODULE,
     {"cuda"},
     NULL,
     false,
     NULL},
    {"lowering for cuda", HOST_CUDA, OP_MODULE, {"cuda"}, NULL, false, NULL},
    {"pinned cuda client", HOST_CUDA, OP_MODULE, {"cuda"}, "cuda", false, NULL},
    {"get_backend('gpu')", HOST_CUDA, OP_XLA, {NULL}, NULL, false, "gpu"},
    {"get_backend(None)", HOST_CUDA, OP_XLA, {NULL}, NULL, false, NULL},
    {"canonicalize_platform('gpu')",
     HOST_ROCM,
     OP_CANONICALIZE,
     {NULL},
     NULL,
     false,
     "gpu"},
    {"canonicalize_platform('gpu')",
     HOST_CPU,
     OP_CANONICALIZE,
     {NULL},
     NULL,
     false,
     "gpu"},
};

static const char *host_name(host_kind host) {
  switch (host) {
  case HOST_CPU:
    return "cpu host";
  case HOST_CUDA:
    return "cuda host";
  case HOST_ROCM:
    return "rocm host";
  }
  return "?";
}

/* Stock JAX registers cpu (priority 0, loud) then tpu (300, quiet); GPU
 * plugins register with priority 400 and fail loudly. */
static void make_host(lctx_registry_config *config, host_kind host) {
  lctx_registry_config_init(config);
  lctx_registry_config_add_factory(
      config, (lctx_factory){"cpu", 0, false, LCTX_FACTORY_CLIENT, NULL});
  lctx_registry_config_add_factory(
      config, (lctx_factory){"tpu", 300, true, LCTX_FACTORY_RAISES,
                             "TPU initialization failed: No TPU found"});
  if (host == HOST_CUDA) {
    lctx_registry_config_add_factory(
        config, (lctx_factory){"cuda", 400, false, LCTX_FACTORY_CLIENT, NULL});
    config->nvidia_gpu_visible = true;
  } else if (host == HOST_ROCM) {
    lctx_registry_config_add_factory(
        config, (lctx_factory){"rocm", 400, false, LCTX_FACTORY_CLIENT, NULL});
  }
}

static void describe(const scenario *s, lctx_buf *b) {
  if (s->op == OP_MODULE) {
    size_t n = 0;
    lctx_buf_append_cstr(b, "ModuleContext(platforms=(");
    for (; n < 3 && s->platforms[n]; n++) {
      if (n > 0)
        lctx_buf_append_cstr(b, ", ");
      lctx_pyrepr_str(b, lctx_str_from_cstr(s->platforms[n]));
    }
    if (n == 1)
      lctx_buf_append_char(b, ','); /* Python's one-element tuple */
    lctx_buf_append_cstr(b, "), backend=");
    if (s->pinned) {
      lctx_buf_append_cstr(b, "<");
      lctx_buf_append_cstr(b, s->pinned);
      lctx_buf_append_cstr(b, " client>");
    } else {
      lctx_buf_append_cstr(b, "None");
    }
    lctx_buf_append_cstr(b, ").get_backend(optional=");
    lctx_buf_append_cstr(b, s->optional ? "True)" : "False)");
  } else {
    lctx_buf_append_cstr(b, s->op == OP_XLA ? "xla_bridge.get_backend("
                                            : "canonicalize_platform(");
    if (s->name)
      lctx_pyrepr_str(b, lctx_str_from_cstr(s->name));
    else
      lctx_buf_append_cstr(b, "None");
    lctx_buf_append_char(b, ')');
  }
}

int lctx_scenarios_run(FILE *out) {
  int count = 0, raised = 0, nones = 0, returned = 0;
  fprintf(out, "Built-in scenarios (reference model of JAX %s)\n\n",
          LCTX_JAX_COMMIT);
  for (size_t i = 0; i < sizeof SCENARIOS / sizeof SCENARIOS[0]; i++) {
    const scenario *s = &SCENARIOS[i];
    lctx_registry_config config;
    lctx_registry registry;
    lctx_outcome outcome;
    make_host(&config, s->host);
    lctx_registry_init(&registry, &config);
    lctx_module_branch branch = LCTX_BRANCH_ERROR;
    if (s->op == OP_MODULE) {
      lctx_module_context context;
      lctx_module_context_init(&context);
      for (size_t k = 0; k < 3 && s->platforms[k]; k++)
        lctx_module_context_add_platform(&context,
                                         lctx_str_from_cstr(s->platforms[k]));
      if (s->pinned)
        lctx_module_context_pin(&context, lctx_str_from_cstr(s->pinned));
      lctx_module_get_backend(&registry, &context, s->optional, &outcome,
                              &branch);
    } else if (s->op == OP_XLA) {
      lctx_str name = lctx_str_from_cstr(s->name);
      lctx_xla_get_backend(&registry, s->name ? &name : NULL, &outcome);
    } else {
      lctx_canonicalize_platform(&registry, lctx_str_from_cstr(s->name),
                                 &outcome);
    }
    char call_text[256], result_text[LCTX_OUTCOME_TEXT_MAX + 64];
    lctx_buf call, result;
    lctx_buf_init(&call, call_text, sizeof call_text);
    lctx_buf_init(&result, result_text, sizeof result_text);
    describe(s, &call);
    lctx_outcome_format(&outcome, &result);
    fprintf(out, "%2zu. %s, %s%s%s\n    %s\n    -> %s\n\n", i + 1, s->title,
            host_name(s->host), s->op == OP_MODULE ? ", branch " : "",
            s->op == OP_MODULE ? lctx_module_branch_name(branch) : "",
            call_text, result_text);
    count++;
    raised += outcome.kind == LCTX_OUTCOME_RAISE;
    nones += outcome.kind == LCTX_OUTCOME_NONE;
    returned +=
        outcome.kind != LCTX_OUTCOME_RAISE && outcome.kind != LCTX_OUTCOME_NONE;
  }
  fprintf(out,
          "%d scenarios: %d returned a value, %d returned None, %d "
          "raised\n",
          count, returned, nones, raised);
  return count;
}
