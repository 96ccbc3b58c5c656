/*
 * classify.h - the features of an operation that spec rows are written over,
 * and the values their message templates are rendered from.
 *
 * Owns an independent account of JAX's decisions, written from semantics.md
 * rather than from reference/: it simulates the registry of a case step by
 * step and classifies each operation (which initialization result it met,
 * which branch, which look-up) without producing any outcome or message. The
 * oracle matches these features against the spec table's predicates; the
 * reference model is then judged by the row found. Must not call reference/
 * functions that decide outcomes.
 *
 * Lowering operations (semantics.md sections 6 and 7) are walked the same
 * way: register_lowering is classified by its platform (`reg`), and a
 * lower_per_platform op is followed through rule selection, dispatch, rule
 * bodies and nested lower_fun until it finishes or stops (`stop`). When it
 * stops at a rule body's get_backend that raises, the features are those of
 * that ModuleContext.get_backend call (count, optional, pinned, init, ...),
 * so the module_get_backend and registry rows judge the raise.
 *
 * The registry, the get_backend family and the dispatch are classify.c's,
 * the lowering walk classify_lower.c's, the names and values tables
 * classify_values.c's; they share classify_private.h.
 */
#ifndef LCTX_HARNESS_CLASSIFY_H
#define LCTX_HARNESS_CLASSIFY_H

#include "case.h"

/// The features. Every feature has the value `na` when it does not apply.
typedef enum lctx_feature {
  LCTX_F_MODE = 0, ///< default | platforms (jax_platforms set)
  LCTX_F_INIT,     ///< none | ready | ok | loud | assert
  LCTX_F_CAUSE,    ///< raised | none | no_devices | unknown
  LCTX_F_ARG,      ///< none | empty | alias | name
  LCTX_F_SOURCE,   ///< arg | xla_backend | platform_name | none
  LCTX_F_TARGET,   ///< none | alias | name
  LCTX_F_GPU,      ///< cuda | rocm | oneapi | absent
  LCTX_F_LOOKUP,   ///< default | no_default | found | failed | unknown
  LCTX_F_COUNT,    ///< zero | one | multi
  LCTX_F_OPTIONAL, ///< true | false
  LCTX_F_PINNED,   ///< none | plain | gpu
  LCTX_F_REAL,     ///< same | other (canonical pinned platform vs real)
  LCTX_F_MATCH,    ///< yes | no (canonical pinned platform vs platforms[0])
  LCTX_F_REG,      ///< default | known | alias | unknown (register_lowering)
  /// none | not_found_one | not_found_many | no_platforms | no_index |
  /// raise_if_multi | backend | gpu_assert: where a lower_per_platform
  /// stopped (gpu_assert: a lower_fun whose module platforms name `gpu`)
  LCTX_F_STOP,
  /// property: ModuleContext's backend is read through the `.backend`
  /// property of releases before 0.5.0 (no platform check, a look-up of
  /// the configured platform), not get_backend() (release fact
  /// `module-get-backend`)
  LCTX_F_ACCESS,
  /// no_optional | no_lower_per_platform: the operation calls what the
  /// release does not have (get_backend(optional=True), directly or in a
  /// rule of the case; lower_per_platform), so it does not exist there;
  /// every other feature is then `na`
  LCTX_F_API,
  LCTX_FEATURE_COUNT
} lctx_feature;

/// Most values one feature has, `na` included.
#define LCTX_FEATURE_MAX_VALUES 10

/// Returns the name of a feature as written in spec predicates.
const char *lctx_classify_feature_name(lctx_feature f);

/// Looks a feature up by name; returns false if unknown.
bool lctx_classify_feature_from_name(lctx_str name, lctx_feature *f);

/// Looks a value of feature `f` up by name; returns false if unknown.
bool lctx_classify_value_from_name(lctx_feature f, lctx_str name, int *value);

/// The template placeholders.
typedef enum lctx_placeholder {
  LCTX_P_FAILED = 0, ///< the platform that failed loudly
  LCTX_P_ERR,        ///< the message the failing factory raised
  LCTX_P_FACTORIES,  ///< list repr of the registered factory names
  LCTX_P_AVAILABLE,  ///< list repr of the initialized platforms
  LCTX_P_PRESENT,    ///< initialized platforms joined by ","
  LCTX_P_ARG,        ///< the raw argument of canonicalize
  LCTX_P_GPU,        ///< what `gpu` resolved to
  LCTX_P_P,          ///< the canonical platform looked up
  LCTX_P_P0,         ///< platforms[0]
  LCTX_P_CANONICAL,  ///< the canonical platform of the pinned client
  LCTX_P_PINNED,     ///< the real platform of the pinned client
  LCTX_P_CLIENT,     ///< platform of the registry client returned
  LCTX_P_CLIENT_REG, ///< its registration index
  LCTX_P_PRIM,       ///< the primitive's name (`str(prim)`), raw
  LCTX_P_PLATFORM,   ///< register_lowering's platform / the one platform
  LCTX_P_KNOWN,      ///< the known platforms, sorted, joined by ", "
  LCTX_P_MISSING,    ///< list repr of the platforms without a rule
  LCTX_P_MESSAGE,    ///< the message a rule body raised
  /// `tuple` or `list`: how the module context holds its platforms (a list
  /// once lower_fun replaced them by narrowed platforms)
  LCTX_P_SEQ,
  /// the compute type in force when a nested one was refused
  LCTX_P_COMPUTE,
  LCTX_PLACEHOLDER_COUNT
} lctx_placeholder;

/// Returns a placeholder's name as written between braces.
const char *lctx_classify_placeholder_name(lctx_placeholder p);

/// Looks a placeholder up; returns false if unknown.
bool lctx_classify_placeholder_from_name(lctx_str name, lctx_placeholder *p);

/// The features of one operation, and the values of the placeholders that
/// apply (`has[p]`). Read a placeholder's text with lctx_classify_text: a
/// text built from several names (a list repr, a joined or sorted list, a
/// number) is rendered only when it is first read (`pending`), since most
/// rows use none of them. The texts view into the case, `storage` and
/// `call`: valid while the case lives and these features are neither moved
/// nor classified into again.
typedef struct lctx_features {
  lctx_op_kind op;
  int value[LCTX_FEATURE_COUNT];
  bool has[LCTX_PLACEHOLDER_COUNT];
  /// The text of each placeholder that applies and is not pending.
  lctx_str text[LCTX_PLACEHOLDER_COUNT];
  /// A bit per placeholder that applies but is not rendered yet: its text
  /// is rendered into `storage` on its first read, from what follows (what
  /// it needs, copied or pointing at what outlives the feature state).
  uint32_t pending;
  /// {client_reg}: the registration index.
  int client_reg;
  /// {factories}: the case's factories; {known}: them and the release's
  /// known platforms.
  const lctx_case *c;
  const struct lctx_facts *facts;
  /// The state's memo (lctx_classify_use_memo), or NULL.
  struct lctx_classify_memo *memo;
  /// {missing}: the platforms without a rule.
  size_t missing_count;
  lctx_str missing[LCTX_MAX_MODULE_PLATFORMS];
  /// {available} and {present}: the registry's names, in order.
  size_t registry_count;
  lctx_str registry[LCTX_MAX_REGISTRATIONS];
  /// Storage for placeholder text that is not a view into the case.
  char storage[16384];
  size_t storage_used;
  /// The ModuleContext.get_backend call a rule body made (a lowering that
  /// stops at it is classified as that call): its placeholders, such as
  /// {p0}, {pinned}, {canonical} and {p}, view into it. Owned here so that
  /// classifying another operation, into other features, leaves them intact.
  lctx_case_op call;
  /// The first platform of `call` (its placeholders view into it).
  char call_p0[LCTX_MAX_NAME + 1];
} lctx_features;

/// The release facts: what differs between JAX releases in which situation
/// applies (as against what a situation gives, which the spec rows say).
/// A spec table states them per release (`[fact NAME]`,
/// conformance/spec/README.md); the extractor reads them. Each is a list of
/// names, or (a flag) `yes` or `no`.
typedef enum lctx_fact {
  /// `gpu-alias`: the members of the `gpu` alias, in order (the expansion
  /// of `gpu` in jax_platforms and register_lowering, and the order
  /// canonicalize_platform tries them in).
  LCTX_FACT_GPU_ALIAS = 0,
  /// `client-gpu`: the real platforms whose clients report `.platform`
  /// "gpu" (so canonicalizing a pinned one resolves the alias).
  LCTX_FACT_CLIENT_GPU,
  /// `known-platforms`: the names known_platforms() holds besides the
  /// registered factories' (what register_lowering accepts).
  LCTX_FACT_KNOWN_PLATFORMS,
  /// `register-checks`: a flag, whether register_lowering checks its
  /// platform at all (if not, any name stores the rule).
  LCTX_FACT_REGISTER_CHECKS,
  /// `cuda-skip`: a flag, whether backends() skips a `cuda` registration
  /// when no NVIDIA GPU is visible.
  LCTX_FACT_CUDA_SKIP,
  /// `module-get-backend`: a flag, whether ModuleContext has get_backend()
  /// (else the `.backend` property: `access=property`).
  LCTX_FACT_MODULE_GET_BACKEND,
  /// `module-optional`: a flag, whether ModuleContext.get_backend takes
  /// `optional` (else a call with optional=True does not exist).
  LCTX_FACT_MODULE_OPTIONAL,
  /// `lower-per-platform`: a flag, whether equations are lowered through
  /// lower_per_platform (else that operation does not exist).
  LCTX_FACT_LOWER_PER_PLATFORM,
  /// `compute-type`: a flag, whether an equation's compute type
  /// (device_host, tpu_sparsecore) chooses its platforms.
  LCTX_FACT_COMPUTE_TYPE,
  /// `compute-nesting`: a flag, whether entering an equation's context
  /// manager refuses a compute type other than the one in force (a rule's
  /// lower_fun tracing a function with another compute type then raises).
  LCTX_FACT_COMPUTE_NESTING,
  LCTX_FACT_COUNT
} lctx_fact;

/// Most names one fact lists, and the longest name (with its NUL).
#define LCTX_FACT_MAX_NAMES 8
#define LCTX_FACT_NAME_MAX 16

/// The facts of one release: for each fact, its names in order.
typedef struct lctx_facts {
  uint8_t count[LCTX_FACT_COUNT];
  char names[LCTX_FACT_COUNT][LCTX_FACT_MAX_NAMES][LCTX_FACT_NAME_MAX];
} lctx_facts;

/// The facts at the modelled commit, as the extractor knows them itself
/// (what lctx_classify_init uses).
const lctx_facts *lctx_classify_modelled_facts(void);

/// Returns a fact's name as a spec table writes it (`[fact NAME]`).
const char *lctx_classify_fact_name(lctx_fact f);

/// Looks a fact up by name; returns false if unknown.
bool lctx_classify_fact_from_name(lctx_str name, lctx_fact *f);

/// Whether fact `f` is a flag (its one name `yes` or `no`), not a list.
bool lctx_classify_fact_is_flag(lctx_fact f);

/// Whether two fact sets state fact `f` alike.
bool lctx_classify_fact_equal(const lctx_facts *a, const lctx_facts *b,
                              lctx_fact f);

/// Appends fact `f` of `facts` as a table writes its value: its names
/// separated by spaces.
void lctx_classify_fact_format(const lctx_facts *facts, lctx_fact f,
                               lctx_buf *out);

/// What a caller may keep across cases for the feature extractor to reuse:
/// the last {known} rendered and what it was rendered from (the release's
/// known platforms and the case's factory names), which neighbouring cases
/// mostly share; sorting the names costs more than comparing them. Zeroed
/// before its first use; one per thread.
typedef struct lctx_classify_memo {
  bool valid;
  uint8_t fact_count;
  char facts[LCTX_FACT_MAX_NAMES][LCTX_FACT_NAME_MAX];
  size_t factory_count;
  char factories[LCTX_MAX_FACTORIES][LCTX_MAX_NAME + 1];
  size_t length;
  char text[2048];
} lctx_classify_memo;

/// The registry as the feature extractor sees it, carried across the
/// operations of one case. Private fields.
typedef struct lctx_feature_state {
  const lctx_case *c;
  /// The release facts classified by (never NULL).
  const lctx_facts *facts;
  /// What the classifications may reuse (NULL: nothing).
  lctx_classify_memo *memo;
  size_t entry_count;
  lctx_str entry_name[LCTX_MAX_REGISTRATIONS];
  int entry_reg[LCTX_MAX_REGISTRATIONS];
  size_t failure_count;
  lctx_str failure_name[LCTX_MAX_FACTORIES];
  int failure_factory[LCTX_MAX_FACTORIES];
  int failure_cause[LCTX_MAX_FACTORIES];
  bool has_default;
  lctx_str default_name;
  int default_reg;
  /* The last initialization's loud failure, for the placeholders. */
  lctx_str loud_name;
  int loud_factory;
  int loud_cause;
  /* The lowering tables: stored registrations (primitive, platform or the
   * common rule, rule index into the case's rules), replaced in place. */
  size_t lowering_count;
  lctx_str lowering_prim[3 * LCTX_CASE_MAX_OPS];
  bool lowering_common[3 * LCTX_CASE_MAX_OPS];
  lctx_str lowering_platform[3 * LCTX_CASE_MAX_OPS];
  int lowering_rule[3 * LCTX_CASE_MAX_OPS];
} lctx_feature_state;

/// Starts the feature state of case `c` (an uninitialized registry), with
/// the modelled commit's facts.
void lctx_classify_init(lctx_feature_state *state, const lctx_case *c);

/// lctx_classify_init with the facts of a release (`facts`, which must
/// outlive the state; NULL: the modelled commit's), as a spec table
/// selected for that release states them (lctx_spec_facts).
void lctx_classify_init_at(lctx_feature_state *state, const lctx_case *c,
                           const lctx_facts *facts);

/// Lets the state's classifications reuse `memo` (NULL: none, as
/// lctx_classify_init_at leaves it), which must outlive the state and the
/// features classified with it (their texts are rendered when read).
void lctx_classify_use_memo(lctx_feature_state *state,
                            lctx_classify_memo *memo);

/// Classifies operation `index` of the case, advancing the state the way the
/// operation advances JAX's registry.
void lctx_classify_op(lctx_feature_state *state, size_t index,
                      lctx_features *out);

/// The classification of each operation of the table (case_ops.h's
/// `classify`): features of `op`, an operation of the state's case,
/// advancing the state. The backend-selection ones are classify.c's, the
/// lowering ones classify_lower.c's.
void lctx_classify_backends(lctx_feature_state *state, const lctx_case_op *op,
                            lctx_features *out);
void lctx_classify_canonicalize(lctx_feature_state *state,
                                const lctx_case_op *op, lctx_features *out);
void lctx_classify_get_backend(lctx_feature_state *state,
                               const lctx_case_op *op, lctx_features *out);
void lctx_classify_module_get_backend(lctx_feature_state *state,
                                      const lctx_case_op *op,
                                      lctx_features *out);
void lctx_classify_register_lowering(lctx_feature_state *state,
                                     const lctx_case_op *op,
                                     lctx_features *out);
void lctx_classify_lower_per_platform(lctx_feature_state *state,
                                      const lctx_case_op *op,
                                      lctx_features *out);

/// What operations 0 .. `index` of `c` are classified as under `facts`: a
/// hash of each one's features and placeholder values, into `sig[k]`
/// (`f` is the features classified into). Two fact sets that classify a
/// case alike give equal signatures.
void lctx_classify_signature(const lctx_case *c, size_t index,
                             const lctx_facts *facts, lctx_features *f,
                             uint64_t *sig);

/// The text of placeholder `p`, which applies (`has[p]`); a pending one is
/// rendered into the features' storage on this first read (the only change
/// to `f`, which must not be an object defined const).
lctx_str lctx_classify_text_pending(const lctx_features *f, lctx_placeholder p);
static inline lctx_str lctx_classify_text(const lctx_features *f,
                                          lctx_placeholder p) {
  return (f->pending >> p) & 1u ? lctx_classify_text_pending(f, p) : f->text[p];
}

/// Appends `name=value` for every feature that applies, space-separated.
void lctx_classify_format(const lctx_features *f, lctx_buf *out);

#endif /* LCTX_HARNESS_CLASSIFY_H */
