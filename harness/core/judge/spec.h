/*
 * spec.h - the conformance spec table: its data model, parser and renderer.
 *
 * Owns reading the `.lspec` files of conformance/spec/ (format in
 * conformance/spec/ README.md) into rows with predicates over features
 * (classify.h) and allowed outcomes with message templates, reporting every
 * malformed input as FILE:LINE:COL; matching a row's predicate against an
 * operation's features; and rendering a row's outcome templates. It does not
 * run the model.
 *
 * Also JAX's releases: the table names them (`releases`), its rows say what
 * their outcome was before a release (`was` lines, each citing the commit
 * that changed it), and its `[fact]` sections state the release facts the
 * feature extractor classifies by (classify.h's lctx_facts).
 * lctx_spec_select makes a parsed table judge as one release: its rows'
 * outcomes and its facts become that release's.
 *
 * The queries are spec.c's; the parser is spec_parse.c (lines and rows)
 * over spec_lex.c (tokens, strings, outcomes) and spec_was.c (releases,
 * `was` lines, facts), which share spec_private.h.
 */
#ifndef LCTX_HARNESS_SPEC_H
#define LCTX_HARNESS_SPEC_H

#include "classify.h"

#include <stdio.h>

#define LCTX_SPEC_MAX_ROWS 128
/// 64-bit words of a set of rows.
#define LCTX_SPEC_ROW_WORDS ((LCTX_SPEC_MAX_ROWS + 63) / 64)
#define LCTX_SPEC_MAX_CLAUSES 16
#define LCTX_SPEC_MAX_OUTCOMES 4
#define LCTX_SPEC_MAX_TEMPLATE 512
#define LCTX_SPEC_MAX_ID 16
/// Parts of a compiled template (spec_parse.c); a template with more is
/// rendered from its text.
#define LCTX_SPEC_MAX_PARTS 24
/// Releases a table names, the longest name (with its NUL), and a cited
/// commit's length (12 hex digits, with its NUL).
#define LCTX_SPEC_MAX_RELEASES 16
#define LCTX_SPEC_RELEASE_NAME 16
#define LCTX_SPEC_COMMIT 13
/// `was` lines in a whole table (rows' and facts'), and the outcomes they
/// and the current outcomes of the rows that have them hold.
#define LCTX_SPEC_MAX_WAS 96
#define LCTX_SPEC_MAX_WAS_OUTCOMES 160
/// The name lctx_spec_select takes for the modelled commit.
#define LCTX_SPEC_MODELLED "modelled"

/// One part of a compiled template: `length` bytes of the template text at
/// `offset`, or (`placeholder` >= 0) a placeholder's value.
typedef struct lctx_spec_part {
  uint16_t offset;
  uint16_t length;
  int8_t placeholder;
} lctx_spec_part;

/// One clause of a predicate: `feature=v1|v2` or `feature!=v1|v2`.
typedef struct lctx_spec_clause {
  lctx_feature feature;
  bool negate;
  unsigned values; ///< bit i set: value i is listed
} lctx_spec_clause;

/// One allowed outcome of a row, with templates.
typedef struct lctx_spec_outcome {
  lctx_outcome_kind kind;
  lctx_error_class error;    ///< RAISE
  lctx_client_origin origin; ///< CLIENT
  /// Filled by lctx_spec_parse: a bit per placeholder `text` or
  /// `registration` uses, and `text` split into parts (part_count 0 for an
  /// empty text; LCTX_SPEC_MAX_PARTS + 1 when it has more parts). Before
  /// the texts, next to the fields judging reads first.
  uint32_t uses;
  /// And when `registration` is one placeholder alone, that placeholder
  /// plus one (0: rendered from the template).
  uint8_t registration_part;
  uint8_t part_count;
  lctx_spec_part parts[LCTX_SPEC_MAX_PARTS];
  char text[LCTX_SPEC_MAX_TEMPLATE];         ///< message/string/platform
  char registration[LCTX_SPEC_MAX_TEMPLATE]; ///< CLIENT registry: template
} lctx_spec_outcome;

/// One state of a row or fact in time: the current one (at the modelled
/// commit, `boundary` -1), or a `was` line: what held in every named release
/// before release `boundary` (an index into the table's releases), the first
/// that holds `commit`, which changed it.
typedef struct lctx_spec_was {
  int boundary;
  char commit[LCTX_SPEC_COMMIT];
  int line; ///< of the `was` line (0 for the current state)
  /// A row's: `absent "why"` (the operation does not exist then), or
  /// `outcome_count` outcomes from `first_outcome` of the table's
  /// `was_outcomes`.
  bool absent;
  char why[160];
  uint8_t first_outcome;
  uint8_t outcome_count;
  /// A fact's: its names, as lctx_facts holds them.
  uint8_t name_count;
  char names[LCTX_FACT_MAX_NAMES][LCTX_FACT_NAME_MAX];
} lctx_spec_was;

/// One row of the table.
typedef struct lctx_spec_row {
  char id[LCTX_SPEC_MAX_ID];
  unsigned ops; ///< bit per lctx_op_kind
  bool exact;   ///< strict = exact (message compared) or class
  /// `check = ir`: a row of the IR checker (ir/ircheck.h), judged on
  /// the MLIR of a lowering; it has no op, predicate or outcome and is never
  /// matched by features.
  bool ir;
  /// `check = sweep`: a row of the sweep judge (sweepjudge.h), judged on
  /// what real JAX answers to the export operation; it has no op,
  /// predicate or strictness and is never matched by features. Its
  /// `refusal` lines are its allowed outcomes (RAISE, whose `{name}`
  /// placeholders stand for any text), its `bound` the tolerance of a
  /// floating-point comparison (0 when it has none).
  bool sweep;
  double bound;
  size_t clause_count;
  lctx_spec_clause clauses[LCTX_SPEC_MAX_CLAUSES];
  size_t outcome_count;
  lctx_spec_outcome outcomes[LCTX_SPEC_MAX_OUTCOMES];
  char source[256];
  char note[512];
  int line; ///< line of the row's header
  /// The row's states in time: `was_count` entries of the table's `was`
  /// from `first_was`, the current state first, then its `was` lines in
  /// descending release order (0: the row has no `was` line; `outcomes`
  /// are then the same at every release).
  uint8_t first_was;
  uint8_t was_count;
  /// At the selected release (lctx_spec_select): the operation does not
  /// exist (`outcomes` then empty; why: lctx_spec_row_at's `why`).
  bool absent;
} lctx_spec_row;

/// One `[fact NAME]` section.
typedef struct lctx_spec_fact {
  bool stated; ///< the table states it (else the extractor's own holds)
  int line;
  /// `unread = RELEASE... "WHY"`: a bit per release (timeline index) at
  /// which the fact was not read from JAX's source; its value there is not
  /// known, and what depends on it is not judged (lctx_spec_depends_unread).
  uint32_t unread;
  char unread_why[200];
  char source[256];
  char note[512];
  uint8_t first_was; ///< as a row's: the current value, then `was` lines
  uint8_t was_count;
} lctx_spec_fact;

/// A parsed table.
typedef struct lctx_spec {
  char version[32];
  char jax_commit[48];
  char filename[256];
  /// The releases in time, oldest first (`releases`): `release_count`
  /// named ones and the modelled commit among them, at index `modelled`
  /// ("modelled" in the list; after them all when the list does not say),
  /// so indices run from 0 to release_count.
  size_t release_count;
  size_t modelled;
  char releases[LCTX_SPEC_MAX_RELEASES + 1][LCTX_SPEC_RELEASE_NAME];
  /// The release the table judges as (lctx_spec_select; after parsing, the
  /// modelled commit), its name, and its facts.
  size_t selected;
  char selected_name[LCTX_SPEC_RELEASE_NAME];
  lctx_facts facts;
  lctx_spec_fact fact[LCTX_FACT_COUNT];
  /// The states in time of rows and facts, and their outcomes.
  size_t was_count;
  lctx_spec_was was[LCTX_SPEC_MAX_WAS];
  size_t was_outcome_count;
  lctx_spec_outcome was_outcomes[LCTX_SPEC_MAX_WAS_OUTCOMES];
  size_t row_count;
  lctx_spec_row rows[LCTX_SPEC_MAX_ROWS];
  /// Filled by lctx_spec_parse: per operation kind, the rows whose `op`
  /// lists it, in table order (what lctx_spec_match scans).
  uint8_t op_rows[LCTX_OP_KIND_COUNT][LCTX_SPEC_MAX_ROWS];
  size_t op_row_count[LCTX_OP_KIND_COUNT];
  /// And per operation kind, its key: the feature most of its rows test
  /// (-1: none), and per value of it the rows that admit the value, in
  /// table order (a row that does not test the feature admits every value).
  int op_key[LCTX_OP_KIND_COUNT];
  uint8_t key_rows[LCTX_OP_KIND_COUNT][LCTX_FEATURE_MAX_VALUES + 1]
                  [LCTX_SPEC_MAX_ROWS];
  uint8_t key_row_count[LCTX_OP_KIND_COUNT][LCTX_FEATURE_MAX_VALUES + 1];
  /// And the same as sets of rows, a bit per row: per operation kind the
  /// rows whose `op` lists it, and per feature and value the rows whose
  /// clauses admit the value. The rows that match features are the
  /// intersection of their operation's set and of each feature's value's
  /// set (what lctx_spec_match takes, without a branch per clause).
  uint64_t op_set[LCTX_OP_KIND_COUNT][LCTX_SPEC_ROW_WORDS];
  uint64_t admit_set[LCTX_FEATURE_COUNT][LCTX_FEATURE_MAX_VALUES + 1]
                    [LCTX_SPEC_ROW_WORDS];
} lctx_spec;

/// Parses a table from memory. On error writes `FILE:LINE:COL: message` to
/// `error` and returns false.
bool lctx_spec_parse(const char *text, size_t length, const char *filename,
                     lctx_spec *out, lctx_buf *error);

/// Largest table file lctx_spec_load reads.
#define LCTX_SPEC_MAX_BYTES (1u << 20)

/// Reads and parses a table file (`-` is standard input). A file that
/// cannot be read whole, or holds more than LCTX_SPEC_MAX_BYTES, gives the
/// message of lctx_file_read (file.h), naming the file.
bool lctx_spec_load(const char *path, lctx_spec *out, lctx_buf *error);

/// lctx_spec_load, with its message written to `err` as "WHO: MESSAGE\n"
/// when it fails (WHO: e.g. "lctx conform").
bool lctx_spec_load_or_report(const char *path, lctx_spec *out, const char *who,
                              FILE *err);

/// Returns true when the row's op and predicate hold for `features`.
bool lctx_spec_row_matches(const lctx_spec_row *row,
                           const lctx_features *features);

/// Collects the indices of the rows that match (at most `cap`); returns how
/// many rows match in all.
size_t lctx_spec_match(const lctx_spec *spec, const lctx_features *features,
                       size_t *indices, size_t cap);

/// Renders an allowed outcome with the features' placeholder values. Returns
/// false (with a message in `error`) if a placeholder does not apply.
bool lctx_spec_render(const lctx_spec_outcome *allowed,
                      const lctx_features *features, lctx_outcome *out,
                      lctx_buf *error);

/// The placeholders `features` has, a bit per placeholder (as `uses`).
uint32_t lctx_spec_features_mask(const lctx_features *features);

/// Whether `actual` is `allowed` rendered with `features` (`has` is
/// lctx_spec_features_mask(features)), compared as lctx_oracle_judge
/// compares: the whole outcome when `strict` or when `allowed` is not a
/// raise, else the raise's class alone. Returns 1 or 0, or -1 where
/// lctx_spec_render would fail. Renders nothing when it can compare the
/// template's parts in place.
int lctx_spec_allows(const lctx_spec_outcome *allowed,
                     const lctx_features *features, uint32_t has,
                     const lctx_outcome *actual, bool strict);

/// Finds a row by ID; NULL if absent.
const lctx_spec_row *lctx_spec_find(const lctx_spec *spec, const char *id);

/// The index of release `name` (LCTX_SPEC_MODELLED or NULL: the modelled
/// commit, `modelled`), or -1 when the table does not name it.
int lctx_spec_release_index(const lctx_spec *spec, const char *name);

/// The name of release `index` (`modelled`: LCTX_SPEC_MODELLED).
const char *lctx_spec_release_name(const lctx_spec *spec, size_t index);

/// Appends the releases the table knows, oldest first, "modelled" in its
/// place, separated by ", ".
void lctx_spec_format_releases(const lctx_spec *spec, lctx_buf *out);

/// Makes the table judge as release `name` (LCTX_SPEC_MODELLED or NULL: the
/// modelled commit): every row's outcomes (or its absence) and the facts
/// become that release's. False for a release the table does not name, with
/// "unknown JAX release 'NAME' (the table knows: ...)" in `error`.
bool lctx_spec_select(lctx_spec *spec, const char *name, lctx_buf *error);

/// The state of row `row` at release `release` (an index, as
/// lctx_spec_release_index returns): the `was` entry that holds then, or
/// NULL when the row has none (its outcomes hold at every release).
const lctx_spec_was *lctx_spec_row_at(const lctx_spec *spec, size_t row,
                                      size_t release);

/// The outcomes of row `row` at release `release` (`*count` of them; none
/// when the operation does not exist then, `*absent` set).
const lctx_spec_outcome *lctx_spec_outcomes_at(const lctx_spec *spec,
                                               size_t row, size_t release,
                                               size_t *count, bool *absent);

/// The facts at release `release` into `out`: each fact the table states
/// as it held then, the others as the extractor's own (modelled).
void lctx_spec_facts_at(const lctx_spec *spec, size_t release, lctx_facts *out);

/// The facts of the selected release (lctx_spec_select), for
/// lctx_classify_init_at.
const lctx_facts *lctx_spec_facts(const lctx_spec *spec);

/// The `was` entry of fact `f` that holds at release `release`, or NULL
/// when the current value holds (or the table does not state the fact).
const lctx_spec_was *lctx_spec_fact_at(const lctx_spec *spec, lctx_fact f,
                                       size_t release);

/// Whether the table says the same at releases `a` and `b`: the same
/// facts, and every row in the same state.
bool lctx_spec_same_at(const lctx_spec *spec, size_t a, size_t b);

/// Whether the selected release is the modelled commit.
bool lctx_spec_selected_modelled(const lctx_spec *spec);

/// The first fact that is unread at the selected release and on which the
/// classification of operations 0 .. `index` of `c` depends: classified
/// with every value the fact could take (each subset of the names it takes
/// at any release, in order; a flag's two values), some differs from
/// another. Returns the fact, or -1 when none. `scratch` is overwritten.
int lctx_spec_depends_unread(const lctx_spec *spec, const lctx_case *c,
                             size_t index, lctx_features *scratch);

/// lctx_spec_depends_unread at release `release` (an index).
int lctx_spec_depends_unread_at(const lctx_spec *spec, size_t release,
                                const lctx_case *c, size_t index,
                                lctx_features *scratch);

#endif /* LCTX_HARNESS_SPEC_H */
