/*
 * runner.h - running a case's operations with the reference model.
 *
 * Owns the case runner: one backend registry and one lowering registry
 * (built on first use from the case's rules) carried from one operation of a
 * case to the next, and the last lowering's result and context, which the
 * runner holds itself and hands back to the caller; the JAX release the
 * model reproduces (lctx/release.h), and which operations of a case that
 * release has. The case model itself (case.h) decides nothing; this is where
 * the reference model runs it.
 */
#ifndef LCTX_CORE_RUNNER_H
#define LCTX_CORE_RUNNER_H

#include "case.h"

/// A configuration a fresh registry of case `c` is initialized from: `c`'s
/// registry fields and the release. `c` NULL: none.
typedef struct lctx_runner_fresh_key {
  const lctx_case *c;
  /// The generation of a case's registry configuration these fields were
  /// found in (`registry`), or found to differ from (`not_registry`)
  /// (lctx_runner_init_registry), or 0.
  uint64_t registry, not_registry;
  const lctx_release *release;
  size_t factory_count;
  lctx_case_factory factories[LCTX_MAX_FACTORIES];
  char jax_platforms[LCTX_MAX_PLATFORMS_CONFIG + 1];
  char jax_platform_name[LCTX_MAX_NAME + 1];
  char jax_xla_backend[LCTX_MAX_NAME + 1];
  bool nvidia_gpu_visible;
} lctx_runner_fresh_key;

/// What lctx_runner_init_cached keeps from one case to the next: the
/// registry a fresh registry of configuration `key` became once
/// initialized (successfully): where a variant of a later case of the same
/// configuration runs (read only) instead of initializing a registry again;
/// and the last configuration whose initialization failed (`failed`), whose
/// variants then run on copies without a first initialization that fails
/// again. The registry's clients point into `key.c`'s factory names, so it
/// is used only for the same case object holding the same fields.
/// lctx_runner_fresh_clear empties it.
typedef struct lctx_runner_fresh {
  lctx_runner_fresh_key key;
  lctx_registry registry;
  lctx_runner_fresh_key failed;
} lctx_runner_fresh;

/// Forgets what `fresh` keeps (before its first use, or when what its keys
/// name may have changed).
void lctx_runner_fresh_clear(lctx_runner_fresh *fresh);

/// Runs the operations of one case with the reference model: the backend
/// registry and the lowering registry (built on first use from the case's
/// rules) carried from one operation to the next. Large (the lowering
/// registry and the last lowering's result); it must not move after
/// lctx_runner_init, since `result` points into it.
typedef struct lctx_runner {
  const lctx_case *c;
  lctx_registry_config config;
  lctx_registry registry;
  bool lowering_ready;
  lctx_lowering_registry lowering;
  /// The id of each case rule in `lowering`.
  int rule_ids[LCTX_CASE_MAX_RULES];
  /// The last LOWER_PER_PLATFORM operation's result and its context (valid
  /// until the next one); `result` points to `result_storage`.
  bool has_result;
  lctx_lowering_context context;
  lctx_lowering_result *result;
  lctx_lowering_result result_storage;
  /// Set by lctx_runner_run_all: the backend registry as it was before each
  /// operation, stored once per state (it changes only when initialization
  /// runs); `before[i]` indexes `states`. Cleared by lctx_runner_init.
  size_t state_count;
  size_t before[LCTX_CASE_MAX_OPS];
  lctx_registry states[LCTX_CASE_MAX_OPS];
  /// Set by lctx_runner_run_all: the module context of each
  /// MODULE_GET_BACKEND operation (lctx_runner_module_context).
  lctx_module_context contexts[LCTX_CASE_MAX_OPS];
  /// Where lctx_runner_variant runs from a kept state that holds no client
  /// (one that holds clients it runs on in place: only read).
  lctx_registry variant;
  /// Kept state `ready_for` (one that holds no client) after its
  /// initialization, which succeeded when `ready_ok` (its error, if not, in
  /// `ready_error`): where lctx_runner_variant runs from that state.
  /// `ready_for` is SIZE_MAX when none is set up.
  size_t ready_for;
  bool ready_ok;
  lctx_registry ready;
  lctx_outcome ready_error;
  /// Where `ready` is when `ready_ok`: `&ready`, or `&fresh->registry`.
  lctx_registry *ready_at;
  /// The initialized registries kept across cases (lctx_runner_init_cached),
  /// or NULL.
  lctx_runner_fresh *fresh;
  /// The generation of the case's registry configuration
  /// (lctx_runner_init_registry), or 0: not known.
  uint64_t registry_id;
  /// The registry the last variant of operation `variant_index` ran on,
  /// when only read there (a kept state that holds clients, or `ready_at`):
  /// where the next variant of that operation runs. SIZE_MAX: none.
  size_t variant_index;
  lctx_registry *variant_at;
} lctx_runner;

/// Starts a runner for case `c` (which must outlive it): a fresh,
/// uninitialized backend registry and an empty lowering registry, at the
/// modelled commit.
void lctx_runner_init(lctx_runner *r, const lctx_case *c);

/// lctx_runner_init at JAX release `rel` (lctx/release.h; NULL: the modelled
/// commit): every operation runs as that release has it. Skip an operation
/// the release lacks (lctx_runner_op_exists).
void lctx_runner_init_at(lctx_runner *r, const lctx_case *c,
                         const lctx_release *rel);

/// The module context lctx_case_module_context gives MODULE_GET_BACKEND
/// operation `index` of the runner's case, as the last
/// lctx_runner_run_all built it to run it; NULL when it kept none
/// (lctx_runner_keeps false, or another kind of operation).
const lctx_module_context *lctx_runner_module_context(const lctx_runner *r,
                                                      size_t index);

/// lctx_runner_init_at, keeping the initialized registry of a fresh one in
/// `fresh` (which the caller keeps, its `c` NULL before its first use) for
/// the variants of later cases of the same configuration
/// (lctx_runner_variant): what a loop over many cases of few registry
/// configurations, like the oracle's over the domain, calls.
void lctx_runner_init_cached(lctx_runner *r, const lctx_case *c,
                             const lctx_release *rel, lctx_runner_fresh *fresh);

/// lctx_runner_init_cached, told the generation `registry` of `c`'s
/// registry configuration: nonzero, it names one case object holding the
/// same registry fields (factories, platform settings, GPU visibility) in
/// every call that passes it, and no other (the domain's walk gives such
/// numbers: lctx_domain_visit); 0, nothing is known. Where `registry` is
/// the runner's last, the configuration built from those fields is kept,
/// not built again, and `fresh`'s keys found for it are not compared again.
void lctx_runner_init_registry(lctx_runner *r, const lctx_case *c,
                               const lctx_release *rel,
                               lctx_runner_fresh *fresh, uint64_t registry);

/// The runner's release (never NULL: the modelled commit by default).
const lctx_release *lctx_runner_release(const lctx_runner *r);

/// Whether the runner's release has operation `op` (of its case, or a
/// variant): false for module_get_backend optional=true before jax-v0.7.2,
/// for lower_per_platform in jax-v0.4.20, and for lower_per_platform when a
/// rule of the case calls get_backend(optional=True) (get_backend with
/// optional=true, guarded_get_backend with optional=true,
/// try_fallback_get_backend's retry, read_client_platform) at a release
/// without it. Such an operation is not modelled at that release: callers
/// skip it (lctx_runner_op runs it as far as the model can and gives None or
/// false).
bool lctx_runner_op_exists(const lctx_runner *r, const lctx_case_op *op);

/// Runs `op` (an operation of the runner's case, or a variant of one)
/// and writes its outcome to `out`; `branch` (may be NULL) receives the
/// branch of a MODULE_GET_BACKEND operation. Returns false, with `out` None,
/// when a lowering went beyond the model's limits (which a validated case never
/// does).
bool lctx_runner_op(lctx_runner *r, const lctx_case_op *op, lctx_outcome *out,
                    lctx_module_branch *branch);

/// Builds the runner's lowering registry from its case's rules (one rule
/// object per case rule, in order), once: what a lowering operation's run
/// (case_ops.h) calls first.
void lctx_runner_lowering_ready(lctx_runner *r);

/// The id in the runner's lowering registry of the case rule `name` (held in
/// a name field, LCTX_MAX_NAME + 1 bytes, as an operation's `rule` and
/// `override`: lctx_case_rule_find_field), or -1.
int lctx_runner_rule_id(const lctx_runner *r,
                        const char name[LCTX_MAX_NAME + 1]);

/// Runs every operation of the runner's case in order, writing outcome i to
/// `outs[i]`, and keeps the backend registry's state before each one for
/// lctx_runner_variant.
void lctx_runner_run_all(lctx_runner *r, lctx_outcome *outs);

/// Runs `op` (a variant of operation `index`) against the backend registry
/// as it was before operation `index` in the last lctx_runner_run_all:
/// restored from its kept state, not replayed. Returns false, running
/// nothing, when no state is kept for `index` or `op` is a lowering
/// operation (which needs the lowering registry too): the caller replays.
bool lctx_runner_variant(lctx_runner *r, size_t index, const lctx_case_op *op,
                         lctx_outcome *out);

/// Whether lctx_runner_variant and lctx_runner_variant_module run a
/// variant of operation `index` from a kept state (true after
/// lctx_runner_run_all for every operation of the case).
bool lctx_runner_keeps(const lctx_runner *r, size_t index);

/// lctx_runner_variant for the MODULE_GET_BACKEND operation whose module
/// context is `context` and whose `optional` argument is `optional` (a
/// variant of operation `index`, given as what run_backend_op would build
/// from it: no operation to copy or measure). Same outcome as
/// lctx_runner_variant of that operation; returns false, running nothing,
/// when no state is kept for `index`.
bool lctx_runner_variant_module(lctx_runner *r, size_t index,
                                const lctx_module_context *context,
                                bool optional, lctx_outcome *out);

#endif /* LCTX_CORE_RUNNER_H */
