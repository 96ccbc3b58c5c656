/*
 * fuzzlower.c - the fuzz_lowering check (see fuzzlower.h): a total,
 * deterministic decoder from bytes to a lowering scenario, the reference
 * lowering, lctx_mlir_emit and the IR checker, with the verdict as a
 * semantic key and a report.
 *
 * Byte layout (a read past the end yields 0, so every input decodes):
 *   [0] flags: bits 0-1 primitives 2 + v % 3 (P, Q, R, S); bit 2 x64;
 *       bit 3 narrow the top context; bit 4 a cuda factory; bit 5 a rocm
 *       factory (cpu and tpu factories always).
 *   [1] bits 0-1 module platform count 1 + v; bits 2-3 narrowed count 1 + v.
 *   [2] module platforms, 2 bits each from bit 0: cpu, tpu, cuda, rocm.
 *   [3] narrowed platforms, 2 bits each: an index into the module list
 *       (modulo its length); read even when bit 3 of [0] is clear.
 *   then per primitive, in order: one byte, bit 0 a common rule, bits 1-5
 *   rules for cpu, tpu, cuda, rocm, gpu (registered in that order, so gpu
 *   replaces cuda and rocm); then per rule (common first) a body byte:
 *   bits 0-1 action count 1 + v % 3, bits 2-3, 4-5, 6-7 the actions:
 *   0 marker, 1 lower_fun, 2 get_backend(optional=True), 3 raise_if_multi.
 *   Each lower_fun reads one more byte b: the primitive i + 1 + b % (n-i-1)
 *   for primitive i (the last primitive's lower_fun becomes a marker), so
 *   there are no cycles.
 *
 * State (struct lctx_fuzz_lowering_state, one per caller): the decoded
 * scenario, the result and text buffers, what the last input did, one MLIR
 * context and one IR checker, both recreated every N inputs.
 */
#include "fuzzlower.h"

#include "ircheck.h"
#include "lctx/lctx.h"
#include "irexpect.h"
#include "lctx/mlir_emit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PRIMS 4
#define RULES_PER_PRIM 6 /* common, cpu, tpu, cuda, rocm, gpu */
#define NAME_MAX_LEN 48

static const char *const k_prim_names[MAX_PRIMS] = {"P", "Q", "R", "S"};
static const char *const k_rule_suffix[RULES_PER_PRIM] = {
    "default", "cpu", "tpu", "cuda", "rocm", "gpu"};
static const char *const k_platforms[4] = {"cpu", "tpu", "cuda", "rocm"};
static const char k_raise_message[] =
    "multi-platform lowering for fuzz_callback";

typedef struct scenario {
  size_t prim_count;
  bool x64;
  bool narrow;
  bool cuda_factory, rocm_factory;
  size_t module_count, narrow_count;
  int module[4];
  int narrowed[4]; /* platform ids (indices into k_platforms) */
} scenario;

struct lctx_fuzz_lowering_state {
  /* The scenario of the running input, and its lowering. */
  scenario sc;
  char rule_names[MAX_PRIMS][RULES_PER_PRIM][NAME_MAX_LEN];
  lctx_registry_config config;
  lctx_registry backends;
  lctx_lowering_registry lowering;
  lctx_lowering_context ctx;
  lctx_lowering_result result;
  /* Its module: expectations, the checker's report, text and errors. */
  lctx_ir_expect_store store;
  lctx_ir_report report;
  char text[1 << 20];
  char error[8192];
  lctx_fuzz_lowering_info info; /* what the last input did */
  /* The reused contexts: the emitter's and the IR checker. */
  MlirContext mlir;
  lctx_ircheck *ck;
  size_t recycle; /* inputs between two recreations; 0: never */
  size_t inputs;  /* inputs checked so far */
  size_t created; /* MLIR contexts created for the emitter */
};

//===----------------------------------------------------------------------===//
// Contexts
//===----------------------------------------------------------------------===//

/* Creates the contexts when missing; recreates the emitter's every N. */
static bool contexts_ready(lctx_fuzz_lowering_state *st) {
  if (st->mlir.ptr && st->recycle > 0 && st->inputs > 0 &&
      st->inputs % st->recycle == 0) {
    mlirContextDestroy(st->mlir);
    st->mlir.ptr = NULL;
  }
  if (!st->mlir.ptr) {
    st->mlir = lctx_mlir_context_create();
    st->created++;
  }
  if (!st->ck) {
    st->ck = lctx_ircheck_create();
    if (!st->ck)
      return false;
    lctx_ircheck_recycle(st->ck, st->recycle);
  }
  return st->mlir.ptr != NULL;
}

lctx_fuzz_lowering_state *lctx_fuzz_lowering_state_new(void) {
  lctx_fuzz_lowering_state *st = calloc(1, sizeof *st);
  if (!st)
    return NULL;
  const char *env = getenv("LCTX_FUZZ_LOWERING_RECYCLE");
  st->recycle = env && *env ? (size_t)strtoull(env, NULL, 10)
                            : LCTX_FUZZ_LOWERING_RECYCLE;
  contexts_ready(st); /* a failure is reported by the first check */
  return st;
}

void lctx_fuzz_lowering_state_free(lctx_fuzz_lowering_state *st) {
  if (!st)
    return;
  if (st->mlir.ptr)
    mlirContextDestroy(st->mlir);
  lctx_ircheck_destroy(st->ck);
  free(st);
}

void lctx_fuzz_lowering_set_recycle(lctx_fuzz_lowering_state *st,
                                    size_t every_n) {
  st->recycle = every_n;
  if (st->ck)
    lctx_ircheck_recycle(st->ck, every_n);
}

size_t lctx_fuzz_lowering_contexts_created(const lctx_fuzz_lowering_state *st) {
  return st->created;
}

//===----------------------------------------------------------------------===//
// Decoding
//===----------------------------------------------------------------------===//

typedef struct reader {
  const uint8_t *data;
  size_t size, pos;
} reader;

static unsigned next(reader *r) {
  return r->pos < r->size ? r->data[r->pos++] : 0u;
}

static lctx_str s(const char *c) {
  return lctx_str_from_cstr(c);
}

/* Builds the registries and the top context. False only when the model's
   tables refuse something (never, within the limits used here). */
static bool decode(lctx_fuzz_lowering_state *st, const uint8_t *data,
                   size_t size) {
  reader r = {data, size, 0};
  scenario *sc = &st->sc;
  memset(sc, 0, sizeof *sc);
  unsigned flags = next(&r);
  sc->prim_count = 2 + (flags & 3u) % 3u;
  sc->x64 = (flags >> 2) & 1u;
  sc->narrow = (flags >> 3) & 1u;
  sc->cuda_factory = (flags >> 4) & 1u;
  sc->rocm_factory = (flags >> 5) & 1u;
  unsigned counts = next(&r);
  sc->module_count = 1 + (counts & 3u);
  sc->narrow_count = 1 + ((counts >> 2) & 3u);
  unsigned mod = next(&r), nar = next(&r);
  for (size_t k = 0; k < sc->module_count; k++)
    sc->module[k] = (int)((mod >> (2 * k)) & 3u);
  for (size_t k = 0; k < sc->narrow_count; k++)
    sc->narrowed[k] =
        sc->module[((nar >> (2 * k)) & 3u) % (unsigned)sc->module_count];

  lctx_registry_config_init(&st->config);
  lctx_registry_config_add_factory(
      &st->config, (lctx_factory){"cpu", 0, false, LCTX_FACTORY_CLIENT, NULL});
  lctx_registry_config_add_factory(
      &st->config, (lctx_factory){"tpu", 300, true, LCTX_FACTORY_CLIENT, NULL});
  if (sc->cuda_factory)
    lctx_registry_config_add_factory(
        &st->config,
        (lctx_factory){"cuda", 200, true, LCTX_FACTORY_CLIENT, NULL});
  if (sc->rocm_factory)
    lctx_registry_config_add_factory(
        &st->config,
        (lctx_factory){"rocm", 200, true, LCTX_FACTORY_CLIENT, NULL});
  lctx_registry_init(&st->backends, &st->config);
  lctx_lowering_registry_init(&st->lowering, &st->config);

  for (size_t i = 0; i < sc->prim_count; i++)
    if (lctx_lowering_primitive_add(&st->lowering, s(k_prim_names[i])) !=
        (int)i)
      return false;
  for (size_t i = 0; i < sc->prim_count; i++) {
    unsigned which = next(&r);
    for (int k = 0; k < RULES_PER_PRIM; k++) {
      if (!((which >> k) & 1u))
        continue;
      unsigned body = next(&r);
      size_t n = 1 + (body & 3u) % 3u;
      lctx_lowering_action actions[3];
      for (size_t a = 0; a < n; a++) {
        switch ((body >> (2 + 2 * a)) & 3u) {
        case 0:
          actions[a] = lctx_action_emit_marker();
          break;
        case 1:
          if (i + 1 < sc->prim_count) {
            unsigned b = next(&r);
            actions[a] = lctx_action_lower_fun(
                (int)(i + 1 + b % (unsigned)(sc->prim_count - i - 1)));
          } else {
            actions[a] = lctx_action_emit_marker();
          }
          break;
        case 2:
          actions[a] = lctx_action_get_backend(true);
          break;
        default:
          actions[a] = lctx_action_raise_if_multi(s(k_raise_message));
          break;
        }
      }
      char *name = st->rule_names[i][k];
      snprintf(name, NAME_MAX_LEN, "%s.%s", k_prim_names[i], k_rule_suffix[k]);
      int rule = lctx_lowering_rule_add(&st->lowering, s(name), actions, n);
      if (rule < 0)
        return false;
      lctx_str platform = s(k == 0 ? "" : k_rule_suffix[k]);
      lctx_outcome o;
      if (!lctx_lowering_register(&st->lowering, (int)i, rule,
                                  k == 0 ? NULL : &platform, &o))
        return false;
    }
  }

  lctx_lowering_context_init(&st->ctx);
  lctx_module_context_init(&st->ctx.module);
  for (size_t k = 0; k < sc->module_count; k++)
    if (!lctx_module_context_add_platform(&st->ctx.module,
                                          s(k_platforms[sc->module[k]])))
      return false;
  st->ctx.dim_var_count = sc->module_count > 1 ? 1 : 0;
  if (sc->narrow) {
    lctx_str list[4];
    for (size_t k = 0; k < sc->narrow_count; k++)
      list[k] = s(k_platforms[sc->narrowed[k]]);
    if (!lctx_lowering_context_narrow(&st->ctx, list, sc->narrow_count))
      return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Reporting
//===----------------------------------------------------------------------===//

/* Appends platform ids as a Python list of names: ['cpu', 'tpu']. */
static void append_platform_list(lctx_buf *out, const int *ids, size_t n) {
  lctx_buf_append_char(out, '[');
  for (size_t k = 0; k < n; k++) {
    lctx_buf_append_cstr(out, k ? ", '" : "'");
    lctx_buf_append_cstr(out, k_platforms[ids[k]]);
    lctx_buf_append_char(out, '\'');
  }
  lctx_buf_append_char(out, ']');
}

static void describe(const lctx_fuzz_lowering_state *st, lctx_buf *out) {
  const scenario *sc = &st->sc;
  lctx_buf_append_cstr(out, "scenario: module=");
  append_platform_list(out, sc->module, sc->module_count);
  lctx_buf_append_cstr(out, " narrowed=");
  if (sc->narrow)
    append_platform_list(out, sc->narrowed, sc->narrow_count);
  else
    lctx_buf_append_cstr(out, "None");
  lctx_buf_append_cstr(out, sc->x64 ? " x64" : "");
  lctx_buf_append_cstr(out, " factories=cpu,tpu");
  lctx_buf_append_cstr(out, sc->cuda_factory ? ",cuda" : "");
  lctx_buf_append_cstr(out, sc->rocm_factory ? ",rocm" : "");
  lctx_buf_append_cstr(out, "\nrules:\n");
  for (size_t i = 0; i < st->lowering.rule_count; i++) {
    const lctx_lowering_rule *rule = &st->lowering.rules[i];
    lctx_buf_append_cstr(out, "  ");
    lctx_buf_append_str(out, rule->name);
    lctx_buf_append_cstr(out, ":");
    for (size_t a = 0; a < rule->action_count; a++) {
      const lctx_lowering_action *act = &rule->actions[a];
      switch (act->kind) {
      case LCTX_ACTION_EMIT_MARKER:
        lctx_buf_append_cstr(out, " marker");
        break;
      case LCTX_ACTION_LOWER_FUN:
        lctx_buf_append_cstr(out, " lower_fun(");
        lctx_buf_append_cstr(out, k_prim_names[act->primitive]);
        lctx_buf_append_char(out, ')');
        break;
      case LCTX_ACTION_GET_BACKEND:
        lctx_buf_append_cstr(out, " get_backend(optional=True)");
        break;
      case LCTX_ACTION_RAISE_IF_MULTI:
        lctx_buf_append_cstr(out, " raise_if_multi");
        break;
      default:
        lctx_buf_append_cstr(out, " ?");
        break;
      }
    }
    lctx_buf_append_char(out, '\n');
  }
  lctx_buf_append_cstr(out, "outcome: ");
  lctx_outcome_format(&st->result.outcome, out);
  lctx_buf_append_cstr(out, "\nevents:\n");
  lctx_lowering_format_events(&st->lowering, &st->result, out);
}

static bool finding(const lctx_fuzz_lowering_state *st,
                    lctx_fuzz_result *result, const char *key, const char *what,
                    const char *detail) {
  result->failed = true;
  snprintf(result->key, sizeof result->key, "fuzz_lowering/%s", key);
  lctx_buf out;
  lctx_buf_init(&out, result->report, sizeof result->report);
  lctx_buf_append_cstr(&out, "fuzz_lowering: ");
  lctx_buf_append_cstr(&out, what);
  lctx_buf_append_char(&out, '\n');
  describe(st, &out);
  if (detail && *detail) {
    lctx_buf_append_cstr(&out, detail);
    lctx_buf_append_char(&out, '\n');
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Raises
//===----------------------------------------------------------------------===//

static bool starts_with(const char *text, const char *prefix) {
  return strncmp(text, prefix, strlen(prefix)) == 0;
}

/* A raise section 7 allows for these scenarios. */
static bool allowed_raise(const lctx_fuzz_lowering_state *st,
                          const lctx_outcome *o) {
  const char *t = o->text;
  if (o->error == LCTX_ERROR_NOT_IMPLEMENTED) {
    static const char prefix[] = "MLIR translation rule for primitive '";
    if (starts_with(t, prefix)) {
      const char *p = t + sizeof prefix - 1;
      for (size_t i = 0; i < st->sc.prim_count; i++) {
        if (p[0] == k_prim_names[i][0] &&
            (starts_with(p + 1, "' not found for platform ") ||
             starts_with(p + 1, "' not found for platforms [")))
          return true;
      }
    }
    if (strcmp(t, k_raise_message) == 0 && st->result.event_count > 0 &&
        st->result.events[st->result.event_count - 1].kind == LCTX_EVENT_RAISE)
      return true;
  }
  if (o->error == LCTX_ERROR_ASSERTION &&
      (t[0] == '\0' || strcmp(t, "Must have a platform_index variable") == 0))
    return true;
  /* get_backend's own errors: the last thing that ran raised them. */
  if (st->result.event_count > 0) {
    const lctx_lowering_event *ev =
        &st->result.events[st->result.event_count - 1];
    if (ev->kind == LCTX_EVENT_BACKEND &&
        ev->result_kind == LCTX_OUTCOME_RAISE && ev->error == o->error)
      return true;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// The check
//===----------------------------------------------------------------------===//

const lctx_fuzz_lowering_info *
lctx_fuzz_lowering_last(const lctx_fuzz_lowering_state *st) {
  return &st->info;
}

static const char *emit_slug(const char *error) {
  if (strstr(error, "does not parse"))
    return "emit/parse";
  if (strstr(error, "does not verify"))
    return "emit/verify";
  return "emit/unsupported";
}

bool lctx_fuzz_lowering(lctx_fuzz_lowering_state *st, const uint8_t *data,
                        size_t size, lctx_fuzz_result *result) {
  result->failed = false;
  result->key[0] = '\0';
  result->report[0] = '\0';
  memset(&st->info, 0, sizeof st->info);
  st->info.raise_class = st->info.raise_text = "";
  if (!contexts_ready(st))
    return finding(st, result, "setup", "cannot create an MLIR context", NULL);
  st->inputs++;
  if (!decode(st, data, size))
    return false; /* outside the model's tables: not a JAX scenario */
  st->info.decoded = true;
  st->info.platform_count = st->sc.module_count;

  bool ok = lctx_lowering_lower_eqn(&st->lowering, &st->backends, &st->ctx, 0,
                                    &st->result);
  if (st->result.limit != LCTX_LOWERING_LIMIT_NONE)
    return false; /* the model stopped at its own limits */
  if (!ok) {
    st->info.raised = true;
    st->info.raise_class = lctx_error_class_name(st->result.outcome.error);
    st->info.raise_text = st->result.outcome.text;
    if (st->result.outcome.kind != LCTX_OUTCOME_RAISE)
      return finding(st, result, "raise/none",
                     "the lowering failed without a raise", NULL);
    if (!allowed_raise(st, &st->result.outcome)) {
      char key[64];
      const char *cls = lctx_error_class_name(st->result.outcome.error);
      snprintf(key, sizeof key, "raise/%s", *cls ? cls : "unknown");
      return finding(st, result, key, "a raise outside semantics.md section 7",
                     NULL);
    }
    return false;
  }

  lctx_buf err;
  lctx_buf_init(&err, st->error, sizeof st->error);
  MlirModule module = {NULL};
  if (!lctx_mlir_emit(st->mlir, &st->lowering, &st->result, st->sc.x64, &module,
                      &err)) {
    if (strstr(st->error, "does not fit"))
      return false; /* bigger than the emitter's buffer: not judged */
    return finding(st, result, emit_slug(st->error),
                   "lctx_mlir_emit failed on a successful lowering", st->error);
  }
  st->info.emitted = true;
  lctx_buf text;
  lctx_buf_init(&text, st->text, sizeof st->text);
  lctx_mlir_print(module, &text);
  mlirModuleDestroy(module);
  if (text.overflow || !lctx_ir_expect_from_lowering(&st->lowering, &st->result,
                                                     st->sc.x64, &st->store))
    return false;

  lctx_ir_verdict verdict;
  bool judged = lctx_ir_judge(st->ck, lctx_buf_view(&text), &st->store,
                              &st->report, &verdict);
  st->info.checked = true;
  st->info.dispatch_count = st->store.expect.dispatch_count;
  for (size_t i = 0; i < st->result.index_count; i++)
    st->info.defect_indices += st->store.defect[i];
  st->info.saw_ir006 = lctx_ir_report_find(&st->report, "IR-006") != NULL;
  if (judged)
    return false;
  bool defect_row = strcmp(verdict.row, "IR-006") == 0;
  char key[32], detail[sizeof verdict.reason + 16];
  snprintf(key, sizeof key, "ir/%s", verdict.row);
  snprintf(detail, sizeof detail, "%s: %s", verdict.row, verdict.reason);
  finding(st, result, defect_row ? "defect-row-mismatch" : key,
          defect_row ? verdict.reason
                     : "the IR checker rejects the emitted module",
          defect_row ? NULL : detail);
  lctx_buf out;
  size_t used = strlen(result->report);
  lctx_buf_init(&out, result->report + used, sizeof result->report - used);
  lctx_buf_append_cstr(&out, "violations:\n");
  lctx_ir_report_format(&st->report, &out);
  lctx_buf_append_cstr(&out, "module:\n");
  lctx_buf_append_cstr(&out, st->text);
  return true;
}
