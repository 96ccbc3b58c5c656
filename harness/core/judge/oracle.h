/*
 * oracle.h - judging outcomes by the spec table, plus metamorphic
 * invariants.
 *
 * Owns the verdict on one case: for each operation, compute its features
 * (classify.h), find exactly one spec row, render the row's allowed
 * outcomes, and check the implementation's outcome against them (exactly, or
 * by class where the row says so); check the case's own expectations; and
 * check the metamorphic invariants of the design (permuting platforms[1:],
 * duplicates counting as platforms, optional=True differing only in B1/B2a,
 * `gpu` agreeing with its resolved name). The implementation is reached
 * through lctx_engine, so the reference, a plugin or a process can be
 * judged alike.
 */
#ifndef LCTX_HARNESS_ORACLE_H
#define LCTX_HARNESS_ORACLE_H

#include "runner.h"
#include "oracle_drift.h"
#include "spec.h"

/// An implementation under judgement: runs `op` against a fresh registry of
/// case `c` after running the first `prefix` operations of `c` (whose
/// outcomes it discards).
typedef struct lctx_engine {
  const char *name;
  void *context;
  void (*run)(void *context, const lctx_case *c, size_t prefix,
              const lctx_case_op *op, lctx_outcome *out);
  /// Optional: runs every operation of `c` in order against one fresh
  /// registry, writing outcome i to `outs[i]`. Equivalent to calling `run`
  /// with prefix i for each i, but in one pass.
  void (*run_all)(void *context, const lctx_case *c, lctx_outcome *outs);
} lctx_engine;

/// The reference model as an engine. Its context is the lctx_runner it
/// runs on; NULL (as returned here) makes each call allocate one of its own,
/// except inside an oracle, which lends it the runner it owns
/// (lctx_oracle_init).
lctx_engine lctx_engine_reference(void);

/// What went wrong.
typedef enum lctx_violation_kind {
  LCTX_V_NO_ROW = 0,   ///< no spec row matches the operation
  LCTX_V_SEVERAL_ROWS, ///< more than one row matches
  LCTX_V_RENDER,       ///< the row's template uses a value that does not apply
  LCTX_V_OUTCOME,      ///< the outcome is not among the row's allowed ones
  LCTX_V_EXPECT,       ///< the outcome differs from the case's expectation
  LCTX_V_INVARIANT,    ///< a metamorphic invariant failed
} lctx_violation_kind;

/// One violation. Strings are valid during the callback only.
typedef struct lctx_violation {
  lctx_violation_kind kind;
  const lctx_case *c;
  /// The expectations beside `c`, or NULL when none.
  const lctx_case_expect *expect;
  size_t op_index;
  const char *row;       ///< row ID, or "" when none
  const char *invariant; ///< invariant name (LCTX_V_INVARIANT), else ""
  const char *features;  ///< the operation's features
  const char *expected;  ///< rendered expectation(s)
  const char *actual;    ///< the outcome found
  /// The outcomes behind `expected` and `actual` (the first allowed one, or
  /// the two sides of an invariant); NULL where there is none.
  const lctx_outcome *expected_outcome;
  const lctx_outcome *actual_outcome;
} lctx_violation;

/// Returns a short name for a violation kind.
const char *lctx_violation_kind_name(lctx_violation_kind kind);

/// Slots of the oracle's memo of matched rows (a power of two).
#define LCTX_ORACLE_MATCH_SLOTS 512

/// The operation kind and the feature values of lctx_features, as its first
/// bytes hold them: what a memo slot keeps and compares whole.
#define LCTX_ORACLE_MATCH_WORDS                                                \
  ((sizeof(int) * (1 + LCTX_FEATURE_COUNT) + 7) / 8)

/// One remembered lctx_spec_match: the rows matching one operation kind and
/// one set of feature values (`what`, byte for byte; `key` their hash, its
/// top bit set, 0 marking an empty slot).
typedef struct lctx_oracle_match {
  uint64_t key;
  uint64_t what[LCTX_ORACLE_MATCH_WORDS];
  uint8_t count; ///< rows matched (255 standing for 255 or more)
  uint8_t rows[4];
} lctx_oracle_match;

/// What the oracle works in, so that no state lives outside it: the runner
/// lent to the reference engine, the outcomes of the operation under
/// judgement and of its variants, the texts of a violation, and what
/// lctx_oracle_explain renders. Written before it is read, except the memo
/// of matched rows, which lctx_oracle_init clears (lctx_oracle_restart
/// keeps it).
typedef struct lctx_oracle_scratch {
  lctx_runner runner;
  /// The runner's initialized registries kept across cases
  /// (lctx_runner_init_cached): cleared by lctx_oracle_init and
  /// lctx_oracle_set_release.
  lctx_runner_fresh fresh;
  /// The registry generation of the case being judged
  /// (lctx_oracle_check_case_registry), else 0.
  uint64_t registry;
  lctx_outcome actual;
  lctx_outcome variant;
  lctx_outcome other;
  lctx_outcome first_allowed;
  lctx_outcome rendered;
  lctx_outcome all[LCTX_CASE_MAX_OPS];
  char expected_text[LCTX_SPEC_MAX_OUTCOMES * (LCTX_OUTCOME_TEXT_MAX + 32)];
  char actual_text[LCTX_OUTCOME_TEXT_MAX + 64];
  lctx_case_op op;
  lctx_features features;
  /// The feature extractor's state over the case being checked (here, not
  /// in a frame: large).
  lctx_feature_state classify;
  /// The rows matched by the spec for the features met so far, by features:
  /// cleared by lctx_oracle_init (the one part that needs clearing).
  lctx_oracle_match matches[LCTX_ORACLE_MATCH_SLOTS];
} lctx_oracle_scratch;

/// The oracle's configuration and counters, and the scratch space it judges
/// in. Large; it must not move after lctx_oracle_init (a reference engine's
/// context may point into it).
typedef struct lctx_oracle {
  const lctx_spec *spec;
  lctx_engine engine;
  bool invariants;     ///< check the metamorphic invariants (default true)
  bool messages_exact; ///< false: compare error classes only
  void (*on_violation)(void *user, const lctx_violation *v);
  void *user;
  size_t cases;
  size_t ops;
  /// Operations the spec's release does not have (an absent row): neither
  /// judged nor varied.
  size_t absent;
  size_t violations;
  size_t invariant_checks;
  size_t hits[LCTX_SPEC_MAX_ROWS];
  lctx_oracle_scratch scratch;
} lctx_oracle;

/// Sets up an oracle over `spec` judging `engine`, counters at zero. A
/// reference engine without a runner (lctx_engine_reference()) gets the
/// oracle's own.
void lctx_oracle_init(lctx_oracle *oracle, const lctx_spec *spec,
                      lctx_engine engine);

/// Makes a reference engine on the oracle's own runner run the model at
/// JAX release `rel` (lctx/release.h; NULL, as lctx_oracle_init leaves it:
/// the modelled commit), the release the oracle's spec is selected for
/// (lctx_spec_select). Operations are classified by the spec's facts; an
/// operation whose one matching row is absent at the spec's release is
/// skipped, and the reference model must not have it either (nor lack one
/// a row gives an outcome for): a disagreement is an LCTX_V_OUTCOME
/// violation under the row.
void lctx_oracle_set_release(lctx_oracle *oracle, const lctx_release *rel);

/// Sets up an oracle set up before by lctx_oracle_init again, over the
/// same spec and engine, counters at zero, keeping its memo of matched rows
/// (which only depends on the spec): what a loop judging one case per
/// iteration calls, instead of clearing the memo every time.
void lctx_oracle_restart(lctx_oracle *oracle);

/// Judges every operation of `c`. Returns the number of violations found in
/// this case (each also reported through `on_violation`).
size_t lctx_oracle_check_case(lctx_oracle *oracle, const lctx_case *c);

/// lctx_oracle_check_case, told the generation `registry` of `c`'s registry
/// configuration (lctx_domain_visit; 0: not known), as the domain's walk
/// gives it: the reference engine on the oracle's own runner then reuses
/// what it built and found for the last case of that generation (its
/// registry configuration, and which initialized registry it kept is this
/// one's) instead of building and comparing them again. The same judgement
/// as lctx_oracle_check_case.
size_t lctx_oracle_check_case_registry(lctx_oracle *oracle, const lctx_case *c,
                                       uint64_t registry);

/// lctx_oracle_check_case, also checking each operation against its
/// expectation in `expect`, if any (an LCTX_V_EXPECT violation when they
/// differ; `expect` may be NULL: none).
size_t lctx_oracle_check_case_expect(lctx_oracle *oracle, const lctx_case *c,
                                     const lctx_case_expect *expect);

/// The verdict of the spec table on one outcome.
typedef enum lctx_judgement {
  LCTX_JUDGE_ALLOWED = 0,  ///< the matching row allows the outcome
  LCTX_JUDGE_NOT_ALLOWED,  ///< the matching row does not allow it
  LCTX_JUDGE_NO_ROW,       ///< no row matches the features
  LCTX_JUDGE_SEVERAL_ROWS, ///< more than one row matches
  LCTX_JUDGE_RENDER,       ///< the row's template cannot be rendered
} lctx_judgement;

/// Judges `actual` by the one spec row matching `features`. `*row` receives
/// the row's index (or the first of several; SIZE_MAX for none).
/// `expected` (may be NULL) receives the rendered allowed outcomes joined by
/// " | " (or the matching row IDs, or why rendering failed);
/// `first_allowed` (may be NULL) the first allowed outcome. With `exact`
/// false, or a row whose strictness is `class`, a raise is compared by class.
lctx_judgement lctx_oracle_judge(const lctx_spec *spec,
                                 const lctx_features *features,
                                 const lctx_outcome *actual, bool exact,
                                 size_t *row, lctx_buf *expected,
                                 lctx_outcome *first_allowed);

/// lctx_oracle_judge given the rows matching `features`: `n` of them (what
/// lctx_spec_match returns), the first (up to 4) in `matches`.
lctx_judgement lctx_oracle_judge_rows(const lctx_spec *spec,
                                      const lctx_features *features,
                                      const size_t *matches, size_t n,
                                      const lctx_outcome *actual, bool exact,
                                      size_t *row, lctx_buf *expected,
                                      lctx_outcome *first_allowed);

/// lctx_spec_match(spec, f, matches, 4) through `memo`
/// (LCTX_ORACLE_MATCH_SLOTS entries, zeroed before the first call, used with
/// one spec only, unchanged meanwhile): the rows matched depend on nothing
/// but the operation kind and the feature values, so each set of them is
/// matched once.
size_t lctx_oracle_match_rows(const lctx_spec *spec, lctx_oracle_match *memo,
                              const lctx_features *f, size_t matches[4]);

/// Explains operation `index` of `c` for a person: features, the rows
/// matched, and the rendered expectation, one item per line. Works in the
/// oracle's scratch space; changes no counter.
void lctx_oracle_explain(lctx_oracle *oracle, const lctx_case *c, size_t index,
                         lctx_buf *out);

#endif /* LCTX_HARNESS_ORACLE_H */
