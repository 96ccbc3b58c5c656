/*
 * runner.c - the case runner (see runner.h).
 */
#include "runner.h"
#include "case_ops.h"

#include <string.h>

void lctx_runner_init(lctx_runner *r, const lctx_case *c) {
  lctx_runner_init_at(r, c, NULL);
}

/* lctx_runner_init_at with `r->config` already built for `c` at `rel`. */
static void start(lctx_runner *r, const lctx_case *c) {
  r->c = c;
  lctx_registry_init(&r->registry, &r->config);
  r->lowering_ready = false;
  r->has_result = false;
  r->result = &r->result_storage;
  r->state_count = 0;
  r->ready_for = (size_t)-1;
  r->fresh = NULL;
  r->variant_index = (size_t)-1;
}

void lctx_runner_init_at(lctx_runner *r, const lctx_case *c,
                         const lctx_release *rel) {
  lctx_case_config(c, &r->config);
  /* lctx_case_config writes the case's fields; the release is the runner's. */
  r->config.release = rel;
  r->registry_id = 0;
  start(r, c);
}

void lctx_runner_init_cached(lctx_runner *r, const lctx_case *c,
                             const lctx_release *rel,
                             lctx_runner_fresh *fresh) {
  lctx_runner_init_at(r, c, rel);
  r->fresh = fresh;
}

void lctx_runner_init_registry(lctx_runner *r, const lctx_case *c,
                               const lctx_release *rel,
                               lctx_runner_fresh *fresh, uint64_t registry) {
  /* The same generation: the same case object, its registry fields as
   * they were, so lctx_case_config would write what `r->config` holds. */
  if (registry != 0 && r->registry_id == registry && r->c == c &&
      r->config.release == rel)
    start(r, c);
  else
    lctx_runner_init_at(r, c, rel);
  r->registry_id = registry;
  r->fresh = fresh;
}

static lctx_lowering_action case_action(lctx_lowering_registry *lowering,
                                        const lctx_case_action *a) {
  lctx_lowering_action out;
  memset(&out, 0, sizeof out);
  out.kind = a->kind;
  out.optional = a->optional;
  if (a->kind == LCTX_ACTION_RAISE_IF_MULTI)
    out.message = lctx_str_from_cstr(a->text);
  if (a->kind == LCTX_ACTION_LOWER_FUN) {
    out.primitive =
        lctx_lowering_primitive_add(lowering, lctx_str_from_cstr(a->text));
    out.has_compute_type = a->has_compute_type;
    out.compute_type = lctx_str_from_cstr(a->compute_type);
  }
  return out;
}

void lctx_runner_lowering_ready(lctx_runner *r) {
  if (r->lowering_ready)
    return;
  r->lowering_ready = true;
  lctx_lowering_registry_init(&r->lowering, &r->config);
  for (size_t i = 0; i < r->c->rule_count; i++) {
    const lctx_case_rule *rule = &r->c->rules[i];
    lctx_lowering_action actions[LCTX_CASE_MAX_ACTIONS];
    for (size_t k = 0; k < rule->action_count; k++)
      actions[k] = case_action(&r->lowering, &rule->actions[k]);
    r->rule_ids[i] =
        lctx_lowering_rule_add(&r->lowering, lctx_case_field_view(rule->name),
                               actions, rule->action_count);
  }
}

const lctx_release *lctx_runner_release(const lctx_runner *r) {
  return lctx_release_resolve(r->config.release);
}

bool lctx_runner_op_exists(const lctx_runner *r, const lctx_case_op *op) {
  const lctx_op_def *def = lctx_op_get(op->kind);
  return def && def->exists(r, op);
}

int lctx_runner_rule_id(const lctx_runner *r,
                        const char name[LCTX_MAX_NAME + 1]) {
  int i = lctx_case_rule_find_field(r->c, name);
  return i < 0 ? -1 : r->rule_ids[i];
}

bool lctx_runner_op(lctx_runner *r, const lctx_case_op *op, lctx_outcome *out,
                    lctx_module_branch *branch) {
  const lctx_op_def *def = lctx_op_get(op->kind);
  if (!def) {
    if (branch)
      *branch = LCTX_BRANCH_ERROR;
    lctx_outcome_set_none(out);
    return true;
  }
  return def->run(r, &r->registry, op, out, branch);
}

void lctx_runner_run_all(lctx_runner *r, lctx_outcome *outs) {
  size_t n =
      r->c->op_count < LCTX_CASE_MAX_OPS ? r->c->op_count : LCTX_CASE_MAX_OPS;
  r->state_count = 0;
  r->ready_for = (size_t)-1;
  r->variant_index = (size_t)-1;
  for (size_t i = 0; i < n; i++) {
    /* A new state only where initialization ran since the last one. */
    if (r->state_count == 0 ||
        lctx_registry_init_runs(&r->states[r->state_count - 1]) !=
            lctx_registry_init_runs(&r->registry))
      lctx_registry_copy(&r->states[r->state_count++], &r->registry);
    r->before[i] = r->state_count - 1;
    const lctx_case_op *op = &r->c->ops[i];
    if (op->kind == LCTX_OP_MODULE_GET_BACKEND) {
      /* What lctx_runner_op does, its module context kept. */
      lctx_case_module_context(r->c, op, &r->contexts[i]);
      lctx_module_get_backend(&r->registry, &r->contexts[i], op->optional,
                              &outs[i], NULL);
    } else {
      lctx_runner_op(r, op, &outs[i], NULL);
    }
  }
}

const lctx_module_context *lctx_runner_module_context(const lctx_runner *r,
                                                      size_t index) {
  if (!lctx_runner_keeps(r, index) ||
      r->c->ops[index].kind != LCTX_OP_MODULE_GET_BACKEND)
    return NULL;
  return &r->contexts[index];
}

bool lctx_runner_keeps(const lctx_runner *r, size_t index) {
  return r->state_count > 0 && index < r->c->op_count &&
         index < LCTX_CASE_MAX_OPS;
}

/* Whether the strings `a` and `b` are equal: most are empty, or differ in
 * their first byte. */
static bool same_text(const char *a, const char *b) {
  return a[0] == b[0] && (a[0] == '\0' || strcmp(a, b) == 0);
}

void lctx_runner_fresh_clear(lctx_runner_fresh *fresh) {
  fresh->key.c = NULL;
  fresh->key.registry = fresh->key.not_registry = 0;
  fresh->failed.c = NULL;
  fresh->failed.registry = fresh->failed.not_registry = 0;
}

/* Whether `key` is the configuration of the runner's case (its case,
 * release, and registry fields): known without comparing the fields when
 * they were found there under the case's registry generation. A match
 * found by comparing them is remembered under it. */
static bool key_matches(const lctx_runner *r, lctx_runner_fresh_key *k) {
  const lctx_case *c = r->c;
  if (r->registry_id != 0 && k->registry == r->registry_id)
    return k->c == c && k->release == r->config.release;
  if (r->registry_id != 0 && k->not_registry == r->registry_id)
    return false;
  k->not_registry = r->registry_id;
  if (k->c != c || k->release != r->config.release ||
      k->factory_count != c->factory_count ||
      k->nvidia_gpu_visible != c->nvidia_gpu_visible ||
      !same_text(k->jax_platforms, c->jax_platforms) ||
      !same_text(k->jax_platform_name, c->jax_platform_name) ||
      !same_text(k->jax_xla_backend, c->jax_xla_backend))
    return false;
  /* The factories byte for byte, in one pass: bytes past a name's end
   * that differ make a miss (the registry is initialized again), never a
   * wrong match. */
  if (c->factory_count > LCTX_MAX_FACTORIES ||
      memcmp(k->factories, c->factories,
             c->factory_count * sizeof c->factories[0]) != 0)
    return false;
  k->registry = r->registry_id;
  k->not_registry = 0;
  return true;
}

/* Sets `k` to the configuration of the runner's case; false, leaving `k`
 * unset, when it does not fit. */
static bool set_key(const lctx_runner *r, lctx_runner_fresh_key *k) {
  const lctx_case *c = r->c;
  k->c = NULL;
  k->registry = 0;
  k->not_registry = 0;
  if (c->factory_count > LCTX_MAX_FACTORIES)
    return false;
  k->release = r->config.release;
  k->factory_count = c->factory_count;
  memcpy(k->factories, c->factories, c->factory_count * sizeof c->factories[0]);
  memcpy(k->jax_platforms, c->jax_platforms, sizeof k->jax_platforms);
  memcpy(k->jax_platform_name, c->jax_platform_name,
         sizeof k->jax_platform_name);
  memcpy(k->jax_xla_backend, c->jax_xla_backend, sizeof k->jax_xla_backend);
  k->nvidia_gpu_visible = c->nvidia_gpu_visible;
  k->c = c;
  k->registry = r->registry_id;
  return true;
}

/* Sets up `r->ready` for kept state `k` (one that holds no client): that
 * state initialized, or, for a fresh state (no initialization ran on it)
 * of the configuration `r->fresh` keeps, the registry kept there. A fresh
 * state of the configuration whose initialization last failed is not
 * initialized again: initialization depends on the configuration alone
 * (the state is fresh), so it would fail again, and a failed `ready` is
 * never read (its variants run on copies). */
static void set_ready(lctx_runner *r, size_t k) {
  const lctx_registry *kept = &r->states[k];
  bool fresh = r->fresh && lctx_registry_init_runs(kept) == 0;
  r->ready_for = k;
  if (fresh && key_matches(r, &r->fresh->key)) {
    r->ready_ok = true;
    r->ready_at = &r->fresh->registry;
    return;
  }
  if (fresh && key_matches(r, &r->fresh->failed)) {
    r->ready_ok = false;
    return;
  }
  lctx_registry_copy(&r->ready, kept);
  r->ready_ok = lctx_registry_ensure(&r->ready, &r->ready_error);
  r->ready_at = &r->ready;
  if (!fresh)
    return;
  if (!r->ready_ok)
    (void)set_key(r, &r->fresh->failed);
  else if (set_key(r, &r->fresh->key))
    lctx_registry_copy(&r->fresh->registry, &r->ready);
}

/* The registry a variant of operation `index` runs on, from the state kept
 * before it in the last lctx_runner_run_all, or NULL when none is kept. */
static lctx_registry *variant_registry(lctx_runner *r, size_t index) {
  /* The same operation's variants, one after the other: the registry the
   * first one found (only read; the kept states unchanged since: a new
   * lctx_runner_run_all forgets it, and state_count 0 keeps none). */
  if (index == r->variant_index && r->state_count > 0)
    return r->variant_at;
  if (!lctx_runner_keeps(r, index))
    return NULL;
  size_t k = r->before[index];
  lctx_registry *kept = &r->states[k];
  /* The backend operations change a registry only by initializing one that
   * holds no client (lctx_registry_ensure returns any other as is): a kept
   * state that holds clients is run on in place. */
  if (lctx_registry_entry_count(kept) > 0) {
    r->variant_index = index;
    r->variant_at = kept;
    return kept;
  }
  /* One that holds none is initialized by the operations that need it, and
   * left alone by the others: where its initialization succeeds, every
   * operation has the outcome it has on the state initialized, which is
   * kept (initialized once, not once per variant). Where it fails, or a
   * trace would show the initialization, the operation runs on a copy. */
  if (kept->trace == NULL) {
    if (r->ready_for != k)
      set_ready(r, k);
    if (r->ready_ok) {
      r->variant_index = index;
      r->variant_at = r->ready_at;
      return r->ready_at;
    }
  }
  lctx_registry_copy(&r->variant, kept);
  return &r->variant;
}

bool lctx_runner_variant(lctx_runner *r, size_t index, const lctx_case_op *op,
                         lctx_outcome *out) {
  const lctx_op_def *def = lctx_op_get(op->kind);
  if (!def || def->lowering)
    return false;
  lctx_registry *registry = variant_registry(r, index);
  if (!registry)
    return false;
  def->run(r, registry, op, out, NULL);
  return true;
}

bool lctx_runner_variant_module(lctx_runner *r, size_t index,
                                const lctx_module_context *context,
                                bool optional, lctx_outcome *out) {
  lctx_registry *registry = variant_registry(r, index);
  if (!registry)
    return false;
  lctx_module_get_backend(registry, context, optional, out, NULL);
  return true;
}
