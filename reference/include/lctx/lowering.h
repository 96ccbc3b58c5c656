/*
 * lctx/lowering.h - lowering rules, rule selection and multi-platform
 * dispatch, without MLIR.
 *
 * Owns JAX's lowering-rule registry and its use (jax/_src/interpreters/mlir.py
 * at jax-ml/jax@cec06d116c05):
 * - `register_lowering` (lines 1000-1035) with `xb.known_platforms` and
 *   `is_known_platform` (jax/_src/xla_bridge.py lines 713-726): the unknown
 *   platform error, the `gpu` expansion, replacement per stored platform;
 * - `_get_lowering_rules` (lines 2335-2361) and `_get_override_lowering_rule`
 *   (lines 2435-2443): override rules, platform-specific and common rules;
 * - `_platforms_for_eqn_ctx` / `_platforms_for_eqn` (lines 2484-2498);
 * - `lower_per_platform` (lines 2512-2652): the singular and plural "not
 *   found" errors, kept rules, the direct call, the AssertionErrors, and the
 *   two-level `stablehlo.case` dispatch, recorded as a value;
 * - `lower_fun` (lines 2660-2693): the module platforms replaced by the
 *   narrowed platforms of the calling rule context;
 * - the nested platform-index upstream defect (semantics.md section 7): every
 *   dispatch is indexed by the module-wide platform index, and an index out
 *   of range runs the last branch.
 *
 * Rules are modelled as small programs (a body of actions) instead of Python
 * callables; a rule runs its actions in order when it is called. Running a
 * lowering produces an outcome (success or the exact raise), a trace of what
 * ran (equations, dispatches, branches, rule calls, get_backend calls,
 * markers) in pre-order with parent links, and, on success, the evaluation of
 * the recorded dispatches for every module platform index.
 *
 * What differs between JAX releases (lctx/release.h) is read from the
 * release of the lowering registry's configuration: the known platforms and
 * whether register_lowering checks them (from jax-v0.4.35), the members of
 * `gpu`, whether a compute type chooses the platforms (from jax-v0.4.31),
 * and whether lower_per_platform exists at all (from jax-v0.4.21; a lowering
 * at a release without it stops at LCTX_LOWERING_LIMIT_RELEASE). The
 * get_backend calls of rule bodies run at the release of the backend
 * registry's configuration (the same one, in every caller of lctx); a call
 * with optional=True where that release has none (before jax-v0.7.2) stops
 * the lowering at LCTX_LOWERING_LIMIT_RELEASE.
 *
 * Nothing here allocates and there is no global state. The caller owns every
 * struct. Names (primitives, rules, platforms, messages) are views that must
 * outlive the registry and the results that refer to them.
 */
#ifndef LCTX_LOWERING_H
#define LCTX_LOWERING_H

#include "lctx/module_context.h"
#include "lctx/outcome.h"
#include "lctx/registry.h"
#include "lctx/str.h"

#ifdef __cplusplus
extern "C" {
#endif

//===----------------------------------------------------------------------===//
// Limits
//===----------------------------------------------------------------------===//

/// Most primitives a lowering registry may hold.
#define LCTX_LOWERING_MAX_PRIMITIVES 8
/// Most rule objects a lowering registry may hold (8 per primitive, shared
/// freely between primitives).
#define LCTX_LOWERING_MAX_RULES (8 * LCTX_LOWERING_MAX_PRIMITIVES)
/// Most actions in one rule body.
#define LCTX_LOWERING_MAX_ACTIONS 8
/// Most platforms in any platform list (module, narrowed, dispatch entries);
/// equal to LCTX_MAX_MODULE_PLATFORMS.
#define LCTX_LOWERING_MAX_PLATFORMS LCTX_MAX_MODULE_PLATFORMS
/// Most entries of a platform-rules map (one per distinct platform).
#define LCTX_LOWERING_MAX_PLATFORM_RULES LCTX_LOWERING_MAX_PLATFORMS
/// Most kept rules of one dispatch: one per platform-rules entry plus the
/// default slot.
#define LCTX_LOWERING_MAX_KEPT (LCTX_LOWERING_MAX_PLATFORM_RULES + 1)
/// Most stored platform-specific rules: every primitive under every factory
/// name and `cuda`, `rocm`, `oneapi` (or `METAL`). A release that stores any
/// name (before jax-v0.4.35) may need more: see lctx_lowering_register.
#define LCTX_LOWERING_MAX_SPECIFIC                                             \
  (LCTX_LOWERING_MAX_PRIMITIVES * (LCTX_MAX_FACTORIES + 3))
/// Most override rules in the lowering parameters.
#define LCTX_LOWERING_MAX_OVERRIDES 8
/// Deepest nesting of `lower_fun`: a top-level equation is at depth 0, an
/// equation lowered through `lower_fun` by one of its rules at depth 1, and
/// so on up to this value.
#define LCTX_LOWERING_MAX_DEPTH 4
/// Most events one lowering records.
#define LCTX_LOWERING_MAX_EVENTS 128
/// Most events (rule calls and markers) one evaluated path records.
#define LCTX_LOWERING_MAX_PATH 32

//===----------------------------------------------------------------------===//
// Rules and their bodies
//===----------------------------------------------------------------------===//

/// What one step of a rule body does. "The module context" is the rule
/// context's ModuleContext: the module platforms (the narrowed platforms of
/// the caller when the rule was reached through LOWER_FUN) and the module's
/// pinned backend.
typedef enum lctx_lowering_action_kind {
  /// `ctx.module_context.get_backend(optional)`: lctx_module_get_backend on
  /// the module context. A raise aborts the whole lowering.
  LCTX_ACTION_GET_BACKEND = 0,
  /// `if len(ctx.module_context.platforms) <= 1: get_backend(optional)`;
  /// nothing is called (and nothing recorded) otherwise.
  LCTX_ACTION_GUARDED_GET_BACKEND,
  /// `get_backend()`; on NotImplementedError, `get_backend(optional=True)`.
  /// Other errors abort the lowering.
  LCTX_ACTION_TRY_FALLBACK_GET_BACKEND,
  /// `if len(ctx.module_context.platforms) > 1: raise
  /// NotImplementedError(message)`.
  LCTX_ACTION_RAISE_IF_MULTI,
  /// `get_backend(optional=True)` and, if it returned a client, reads its
  /// `.platform` (`gpu` for cuda, rocm and oneapi clients).
  LCTX_ACTION_READ_CLIENT_PLATFORM,
  /// Lowers an equation of `primitive` through `lower_fun`: the module
  /// platforms are replaced by the rule context's narrowed platforms when
  /// those are set, the new rule context has no narrowed platforms, the
  /// equation's compute type is `compute_type`, and the dimension variables
  /// (so the platform index) are passed on unchanged. A raise aborts the
  /// whole lowering.
  LCTX_ACTION_LOWER_FUN,
  /// Records that this rule ran, with the rule context's platforms
  /// (`_platforms_for_eqn`).
  LCTX_ACTION_EMIT_MARKER,
} lctx_lowering_action_kind;

/// One step of a rule body.
typedef struct lctx_lowering_action {
  lctx_lowering_action_kind kind;
  /// For GET_BACKEND and GUARDED_GET_BACKEND: the `optional` argument.
  bool optional;
  /// For RAISE_IF_MULTI: the message, inserted raw.
  lctx_str message;
  /// For LOWER_FUN: the sub-primitive's id.
  int primitive;
  /// For LOWER_FUN: whether the sub-equation has a compute type, and which.
  bool has_compute_type;
  lctx_str compute_type;
} lctx_lowering_action;

/// A GET_BACKEND action.
LCTX_API lctx_lowering_action lctx_action_get_backend(bool optional);

/// A GUARDED_GET_BACKEND action.
LCTX_API lctx_lowering_action lctx_action_guarded_get_backend(bool optional);

/// A TRY_FALLBACK_GET_BACKEND action.
LCTX_API lctx_lowering_action lctx_action_try_fallback_get_backend(void);

/// A RAISE_IF_MULTI action with `message`.
LCTX_API lctx_lowering_action lctx_action_raise_if_multi(lctx_str message);

/// A READ_CLIENT_PLATFORM action.
LCTX_API lctx_lowering_action lctx_action_read_client_platform(void);

/// A LOWER_FUN action for `primitive` whose equation has no compute type.
LCTX_API lctx_lowering_action lctx_action_lower_fun(int primitive);

/// A LOWER_FUN action for `primitive` whose equation has the compute type
/// `compute_type`.
LCTX_API lctx_lowering_action
lctx_action_lower_fun_compute(int primitive, lctx_str compute_type);

/// An EMIT_MARKER action.
LCTX_API lctx_lowering_action lctx_action_emit_marker(void);

/// A lowering rule: a name (for traces) and a body. A rule's identity is its
/// id: registering one rule for two platforms stores the same rule object
/// twice, which lower_per_platform does not merge.
typedef struct lctx_lowering_rule {
  lctx_str name;
  size_t action_count;
  lctx_lowering_action actions[LCTX_LOWERING_MAX_ACTIONS];
} lctx_lowering_rule;

//===----------------------------------------------------------------------===//
// The lowering registry
//===----------------------------------------------------------------------===//

/// A stored platform-specific rule (`_platform_specific_lowerings[p][prim]`).
typedef struct lctx_lowering_specific {
  lctx_str platform;
  int primitive;
  int rule;
} lctx_lowering_specific;

/// JAX's lowering tables: primitives, rule objects, the common rules
/// (`_lowerings`) and the platform-specific rules. Treat the fields as
/// private; use the functions below.
typedef struct lctx_lowering_registry {
  /// The factories whose names are known platforms; must outlive the
  /// registry.
  const lctx_registry_config *config;
  size_t primitive_count;
  lctx_str primitives[LCTX_LOWERING_MAX_PRIMITIVES];
  /// The common rule per primitive, -1 for none.
  int common[LCTX_LOWERING_MAX_PRIMITIVES];
  size_t rule_count;
  lctx_lowering_rule rules[LCTX_LOWERING_MAX_RULES];
  size_t specific_count;
  lctx_lowering_specific specific[LCTX_LOWERING_MAX_SPECIFIC];
} lctx_lowering_registry;

/// Creates an empty lowering registry whose known platforms include the
/// factory names of `config` (which must outlive it).
LCTX_API void lctx_lowering_registry_init(lctx_lowering_registry *registry,
                                          const lctx_registry_config *config);

/// Returns the id of the primitive named `name`, adding it if new. Primitives
/// are identified by name. Returns -1 when the registry is full.
LCTX_API int lctx_lowering_primitive_add(lctx_lowering_registry *registry,
                                         lctx_str name);

/// Returns the name of a primitive (`str(prim)`).
LCTX_API lctx_str lctx_lowering_primitive_name(
    const lctx_lowering_registry *registry, int primitive);

/// Creates a new rule object named `name` with `count` actions and returns
/// its id. Returns -1 when the registry is full or `count` exceeds
/// LCTX_LOWERING_MAX_ACTIONS.
LCTX_API int lctx_lowering_rule_add(lctx_lowering_registry *registry,
                                    lctx_str name,
                                    const lctx_lowering_action *actions,
                                    size_t count);

/// Returns the name of a rule.
LCTX_API lctx_str
lctx_lowering_rule_name(const lctx_lowering_registry *registry, int rule);

/// Appends the known platforms (`sorted(xb.known_platforms())`): the
/// release's builtin names (at the modelled commit `cuda`, `rocm`, `gpu`,
/// `oneapi`; `METAL` in jax-v0.4.35 to 0.9.0) and every factory name, each
/// once, sorted by code point, joined with `, `.
LCTX_API void
lctx_lowering_format_known_platforms(const lctx_lowering_registry *registry,
                                     lctx_buf *out);

/// Returns true when `platform` is a known platform (case-sensitive).
LCTX_API bool
lctx_lowering_is_known_platform(const lctx_lowering_registry *registry,
                                lctx_str platform);

/// `register_lowering(prim, rule, platform)`. `platform` NULL means None and
/// stores the common rule; the empty string is a platform name. An unknown
/// name raises NotImplementedError
/// `Registering an MLIR lowering rule for primitive {prim} for an unknown
/// platform {platform}. Known platforms are: {known}.` and stores nothing
/// (at a release that checks; before jax-v0.4.35 every name is stored). A
/// stored name is expanded through the alias table (`gpu` to the release's
/// members: cuda, rocm, oneapi) and the rule replaces any earlier one per
/// stored platform. `out` becomes None or the raise. Returns true unless it
/// raised; also returns false, with `out` None, for an id this registry did
/// not hand out, or when the stored rules are full (not JAX behaviours).
LCTX_API bool lctx_lowering_register(lctx_lowering_registry *registry,
                                     int primitive, int rule,
                                     const lctx_str *platform,
                                     lctx_outcome *out);

/// Returns the common rule of a primitive, or -1.
LCTX_API int lctx_lowering_common_rule(const lctx_lowering_registry *registry,
                                       int primitive);

/// Returns the rule stored for `primitive` under the exact platform name
/// `platform`, or -1.
LCTX_API int lctx_lowering_specific_rule(const lctx_lowering_registry *registry,
                                         int primitive, lctx_str platform);

//===----------------------------------------------------------------------===//
// Platform-rules maps and rule selection
//===----------------------------------------------------------------------===//

/// A Python dict from platform name to rule id, in insertion order.
typedef struct lctx_platform_rules {
  size_t count;
  lctx_str platforms[LCTX_LOWERING_MAX_PLATFORM_RULES];
  int rules[LCTX_LOWERING_MAX_PLATFORM_RULES];
} lctx_platform_rules;

/// Empties a map.
LCTX_API void lctx_platform_rules_init(lctx_platform_rules *map);

/// `map[platform] = rule`: a new key is appended; an existing key keeps its
/// position and takes the new rule. Returns false, changing nothing, when a
/// new key does not fit.
LCTX_API bool lctx_platform_rules_set(lctx_platform_rules *map,
                                      lctx_str platform, int rule);

/// `map.get(platform)`: the rule, or -1.
LCTX_API int lctx_platform_rules_get(const lctx_platform_rules *map,
                                     lctx_str platform);

/// The module's `override_lowering_rules` lowering parameter: a sequence of
/// (primitive, rule) pairs, or None. An empty sequence behaves as None.
typedef struct lctx_lowering_overrides {
  size_t count;
  int primitives[LCTX_LOWERING_MAX_OVERRIDES];
  int rules[LCTX_LOWERING_MAX_OVERRIDES];
} lctx_lowering_overrides;

/// What `_get_lowering_rules` returns.
typedef struct lctx_lowering_rules {
  lctx_platform_rules platform_rules;
  /// The default rule (the override, or the common rule), or -1.
  int default_rule;
  /// True when an override rule matched.
  bool overridden;
} lctx_lowering_rules;

/// `_get_lowering_rules(ctx, primitive, eqn_ctx)`. The first override whose
/// primitive is `primitive` becomes the default rule and nothing else is
/// looked up. Otherwise, for each platform of `_platforms_for_eqn_ctx` (the
/// compute type: exactly `device_host` gives ('cpu',), `tpu_sparsecore`
/// gives ('tpu',)), else of `module_platforms`, its platform-specific rule
/// if any (so the map follows first-occurrence order), and the common rule
/// as the default. `compute_type` NULL means none.
LCTX_API void lctx_lowering_get_rules(const lctx_lowering_registry *registry,
                                      const lctx_lowering_overrides *overrides,
                                      const lctx_str *module_platforms,
                                      size_t module_platform_count,
                                      int primitive,
                                      const lctx_str *compute_type,
                                      lctx_lowering_rules *out);

//===----------------------------------------------------------------------===//
// Lowering contexts
//===----------------------------------------------------------------------===//

/// The parts of a LoweringRuleContext (and of its ModuleContext) that rule
/// selection and lower_per_platform read.
typedef struct lctx_lowering_context {
  /// The module context: module platforms and pinned backend.
  lctx_module_context module;
  /// The narrowed platforms (`ctx.platforms`): set only inside a branch of a
  /// multi-platform dispatch (or by a caller). An empty narrowed list reads
  /// like an unset one.
  bool has_platforms;
  size_t platform_count;
  lctx_str platforms[LCTX_LOWERING_MAX_PLATFORMS];
  /// The equation's compute type (`jaxpr_eqn_ctx.compute_type`).
  bool has_compute_type;
  lctx_str compute_type;
  /// Number of dimension variables. When the module is lowered for several
  /// platforms, variable 0 is the platform index; lower_per_platform only
  /// checks that there is at least one.
  size_t dim_var_count;
  /// The module's override lowering rules.
  lctx_lowering_overrides overrides;
} lctx_lowering_context;

/// Resets a context: no module platforms, no pinned backend, no narrowed
/// platforms, no compute type, no dimension variables, no overrides.
LCTX_API void lctx_lowering_context_init(lctx_lowering_context *context);

/// Sets the narrowed platforms. Returns false, changing nothing, when
/// `count` exceeds LCTX_LOWERING_MAX_PLATFORMS.
LCTX_API bool lctx_lowering_context_narrow(lctx_lowering_context *context,
                                           const lctx_str *platforms,
                                           size_t count);

/// `_platforms_for_eqn(ctx)`: ('cpu',) for compute type `device_host`,
/// ('tpu',) for `tpu_sparsecore`, else the narrowed platforms if non-empty,
/// else the module platforms. Stores a pointer to the list in `*platforms`
/// (static storage or the context's own arrays) and returns its length.
LCTX_API size_t lctx_lowering_eqn_platforms(
    const lctx_lowering_context *context, const lctx_str **platforms);

/// lctx_lowering_eqn_platforms at `release` (NULL: modelled): before
/// jax-v0.4.31 the compute type chooses nothing (`ctx.platforms or
/// ctx.module_context.platforms`).
LCTX_API size_t lctx_lowering_eqn_platforms_at(
    const lctx_release *release, const lctx_lowering_context *context,
    const lctx_str **platforms);

//===----------------------------------------------------------------------===//
// Results
//===----------------------------------------------------------------------===//

/// What an event records. Events form a tree (pre-order, `parent` links).
typedef enum lctx_lowering_event_kind {
  /// One equation lowered (at the top or through LOWER_FUN): `primitive`,
  /// `module_platforms` (its ModuleContext's), `platforms` (the equation's,
  /// `_platforms_for_eqn`), `rule` the default rule, `overridden`, and the
  /// selected platform rules in `entry_rules` keyed by `entries`.
  LCTX_EVENT_EQN = 0,
  /// A two-level dispatch: the first case has one branch per entry of
  /// `platforms` (duplicates included) yielding `slots[i]`; the second has
  /// one branch per kept rule `kept[0..kept_count)`. Indexed by the module
  /// platform index (dimension variable 0). Children: BRANCH events.
  LCTX_EVENT_DISPATCH,
  /// Branch `branch` of the second case: `rule`, with the context narrowed
  /// to `platforms`. Child: the CALL of the rule.
  LCTX_EVENT_BRANCH,
  /// A rule called: `rule`, `platforms` the rule context's narrowed
  /// platforms (`has_platforms`), `module_platforms` its ModuleContext's.
  /// `direct` when called without a conditional (the one kept rule, or an
  /// override). Children: what its body did.
  LCTX_EVENT_CALL,
  /// A get_backend call by a body action `action` of `rule`: `optional`,
  /// `branch` taken, and the result (`result_kind`, `error`, `origin`,
  /// `registration`, `client_platform` the client's real platform,
  /// `client_attr` its `.platform` for READ_CLIENT_PLATFORM).
  /// `module_platforms` are the ones get_backend read.
  LCTX_EVENT_BACKEND,
  /// RAISE_IF_MULTI raised (the message is in the outcome).
  LCTX_EVENT_RAISE,
  /// EMIT_MARKER: `rule` ran for `platforms` (`_platforms_for_eqn` of its
  /// context); `module_platforms` its ModuleContext's.
  LCTX_EVENT_MARKER,
} lctx_lowering_event_kind;

/// One recorded event. Views point into the registry, the contexts given by
/// the caller, the backend registry's configuration, or static storage.
typedef struct lctx_lowering_event {
  lctx_lowering_event_kind kind;
  /// Index of the enclosing event, -1 for the top equation.
  int parent;
  /// Nesting in the event tree (0 for the top equation).
  int depth;
  /// Equation nesting: 0 for the top equation, +1 per LOWER_FUN.
  int level;
  int primitive;
  /// For EQN: the description used in messages (`str(primitive)`, or the
  /// caller's for lctx_lowering_per_platform).
  lctx_str description;
  int rule;
  /// For BACKEND and RAISE: the index of the action in the rule body.
  int action;
  bool has_platforms;
  size_t platform_count;
  lctx_str platforms[LCTX_LOWERING_MAX_PLATFORMS];
  size_t module_platform_count;
  lctx_str module_platforms[LCTX_LOWERING_MAX_PLATFORMS];
  /// For EQN: the selected platform rules (`entries` platforms, in map
  /// order) and whether an override matched.
  bool overridden;
  size_t entry_count;
  lctx_str entries[LCTX_LOWERING_MAX_PLATFORM_RULES];
  int entry_rules[LCTX_LOWERING_MAX_PLATFORM_RULES];
  /// For DISPATCH: the slot of each entry of `platforms`, and the kept rules.
  int slots[LCTX_LOWERING_MAX_PLATFORMS];
  size_t kept_count;
  int kept[LCTX_LOWERING_MAX_KEPT];
  /// For BRANCH: the slot.
  int branch;
  /// For CALL: called without a conditional.
  bool direct;
  /// For BACKEND.
  lctx_lowering_action_kind action_kind;
  bool optional;
  lctx_module_branch backend_branch;
  lctx_outcome_kind result_kind;
  lctx_error_class error;
  lctx_client_origin origin;
  int registration;
  lctx_str client_platform;
  lctx_str client_attr;
  /// For TRY_FALLBACK_GET_BACKEND: the first call raised NotImplementedError
  /// and this event records the retry with optional=True.
  bool retried;
} lctx_lowering_event;

/// Rule calls and markers run for one module platform index, in order.
typedef struct lctx_lowering_path {
  /// False when the path could not be determined (an intended path through a
  /// dispatch that does not list the module platform).
  bool determined;
  /// Set if more than LCTX_LOWERING_MAX_PATH events were on the path.
  bool truncated;
  size_t count;
  /// Indices of CALL and MARKER events.
  int events[LCTX_LOWERING_MAX_PATH];
} lctx_lowering_path;

/// Why a lowering stopped outside JAX's behaviour.
typedef enum lctx_lowering_limit {
  LCTX_LOWERING_LIMIT_NONE = 0,
  LCTX_LOWERING_LIMIT_EVENTS, ///< more than LCTX_LOWERING_MAX_EVENTS events
  LCTX_LOWERING_LIMIT_DEPTH,  ///< LOWER_FUN nested beyond the limit
  LCTX_LOWERING_LIMIT_BAD_ID, ///< an unknown primitive or rule id
  /// The release has no such operation (no lower_per_platform, or a rule
  /// body's get_backend(optional=True) before it existed): not modelled.
  LCTX_LOWERING_LIMIT_RELEASE,
} lctx_lowering_limit;

/// The result of a lowering.
typedef struct lctx_lowering_result {
  /// None on success, or the exact raise.
  lctx_outcome outcome;
  /// Set when the model stopped at one of its limits; the outcome is then
  /// None and the result is not a model of JAX.
  lctx_lowering_limit limit;
  size_t event_count;
  lctx_lowering_event events[LCTX_LOWERING_MAX_EVENTS];
  /// Set on success: the module platforms of the top context, one path per
  /// index.
  bool evaluated;
  size_t index_count;
  lctx_str index_platforms[LCTX_LOWERING_MAX_PLATFORMS];
  /// What each platform index actually runs: every dispatch picks entry
  /// `min(i, len(entries) - 1)` of its first case (JAX's behaviour, with the
  /// nested platform-index defect).
  lctx_lowering_path actual[LCTX_LOWERING_MAX_PLATFORMS];
  /// What each platform index should run: every dispatch picks the first
  /// entry equal to the module platform `index_platforms[i]`.
  lctx_lowering_path intended[LCTX_LOWERING_MAX_PLATFORMS];
  /// Per index: the actual path differs from the intended one.
  bool mismatch[LCTX_LOWERING_MAX_PLATFORMS];
} lctx_lowering_result;

//===----------------------------------------------------------------------===//
// Lowering
//===----------------------------------------------------------------------===//

/// Lowers one equation of `primitive` in `context` the way `jaxpr_subcomp`
/// does: `_get_lowering_rules` on the module context (module platforms, the
/// context's compute type, its overrides), then
/// `lower_per_platform(ctx, str(primitive), ...)`. Rule bodies run against
/// `backends` for their get_backend calls. Fills `result` (outcome, events,
/// and on success the evaluation). Returns true unless it raised or hit a
/// limit.
LCTX_API bool lctx_lowering_lower_eqn(const lctx_lowering_registry *registry,
                                      lctx_registry *backends,
                                      const lctx_lowering_context *context,
                                      int primitive,
                                      lctx_lowering_result *result);

/// `lower_per_platform(ctx, description, platform_rules, default_rule)` with
/// the caller's map (`default_rule` -1 for None), as a rule would call it
/// directly. Records the same events as lctx_lowering_lower_eqn below a top
/// EQN event whose primitive is -1. `description` is inserted raw.
LCTX_API bool lctx_lowering_per_platform(
    const lctx_lowering_registry *registry, lctx_registry *backends,
    const lctx_lowering_context *context, lctx_str description,
    const lctx_platform_rules *platform_rules, int default_rule,
    lctx_lowering_result *result);

//===----------------------------------------------------------------------===//
// Rendering
//===----------------------------------------------------------------------===//

/// Appends the event tree, one line per event, two spaces of indentation per
/// depth, each line ending in `\n`:
///   `eqn P module=['cpu', 'tpu'] platforms=['cpu', 'tpu']
///    rules={cpu: P.cpu} default=P.def` (on one line; ` override` after the
///    default when an override matched; a direct lower_per_platform shows
///    its description in place of the primitive),
///   `case entries=['cpu', 'tpu'] slots=[0, 1] kept=[P.cpu, P.def]`,
///   `branch 1 P.def platforms=['tpu']`,
///   `call P.def platforms=['tpu'] module=['cpu', 'tpu']` (`platforms=None`
///    when not narrowed; ` direct` appended for a direct call),
///   `get_backend optional=False module=['cpu', 'tpu'] -> B1
///    NotImplementedError` (or `-> B3 client 'cpu' registration 0`,
///    `-> B2b pinned client 'cpu'`, `-> B1 None`; READ_CLIENT_PLATFORM
///    appends ` .platform 'gpu'`; TRY_FALLBACK's retry is written
///    `get_backend retry optional=True ...`),
///   `raise NotImplementedError`,
///   `marker P.def platforms=['tpu'] module=['cpu', 'tpu']`.
LCTX_API void
lctx_lowering_format_events(const lctx_lowering_registry *registry,
                            const lctx_lowering_result *result, lctx_buf *out);

/// Appends a path: the names of its rule calls joined by ` > ` (markers
/// left out), or `?` when it is not determined.
LCTX_API void lctx_lowering_format_path(const lctx_lowering_registry *registry,
                                        const lctx_lowering_result *result,
                                        const lctx_lowering_path *path,
                                        lctx_buf *out);

#ifdef __cplusplus
}
#endif

#endif /* LCTX_LOWERING_H */
