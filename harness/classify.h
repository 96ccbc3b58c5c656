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
  LCTX_FEATURE_COUNT
} lctx_feature;

/// Most values one feature has, `na` included.
#define LCTX_FEATURE_MAX_VALUES 6

/// Returns the name of a feature as written in spec predicates.
const char *lctx_feature_name(lctx_feature f);

/// Looks a feature up by name; returns false if unknown.
bool lctx_feature_from_name(lctx_str name, lctx_feature *f);

/// Returns the value names of a feature, NULL-terminated; index 0 is "na".
const char *const *lctx_feature_values(lctx_feature f);

/// Looks a value of feature `f` up by name; returns false if unknown.
bool lctx_feature_value_from_name(lctx_feature f, lctx_str name, int *value);

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
  LCTX_PLACEHOLDER_COUNT
} lctx_placeholder;

/// Returns a placeholder's name as written between braces.
const char *lctx_placeholder_name(lctx_placeholder p);

/// Looks a placeholder up; returns false if unknown.
bool lctx_placeholder_from_name(lctx_str name, lctx_placeholder *p);

/// The features of one operation, and the values of the placeholders that
/// apply (`has[p]`).
typedef struct lctx_features {
  lctx_op_kind op;
  int value[LCTX_FEATURE_COUNT];
  bool has[LCTX_PLACEHOLDER_COUNT];
  lctx_str text[LCTX_PLACEHOLDER_COUNT];
  /// Storage for placeholder text that is not a view into the case.
  char storage[16384];
  size_t storage_used;
} lctx_features;

/// The registry as the feature extractor sees it, carried across the
/// operations of one case. Private fields.
typedef struct lctx_feature_state {
  const lctx_case *c;
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
} lctx_feature_state;

/// Starts the feature state of case `c` (an uninitialized registry).
void lctx_feature_state_init(lctx_feature_state *state, const lctx_case *c);

/// Classifies operation `index` of the case, advancing the state the way the
/// operation advances JAX's registry.
void lctx_features_compute(lctx_feature_state *state, size_t index,
                           lctx_features *out);

/// Appends `name=value` for every feature that applies, space-separated.
void lctx_features_format(const lctx_features *f, lctx_buf *out);

#endif /* LCTX_HARNESS_CLASSIFY_H */
