/*
 * rulefile.h - the declarative rule-file format (`.rule`) that models the
 * lowering rules of one JAX primitive, and its parser.
 *
 * Owns the text format (corpus/rules/README.md), parsing it into an
 * lctx_rulefile with an exact `FILE:LINE:COL: message` for every malformed
 * input, and building an lctx_lowering_registry from a parsed file for one
 * backend registry configuration. Decides no lint verdict (lint.h does).
 *
 * The format, line by line (`#` starts a comment outside strings; strings are
 * double-quoted with the escapes \" \\ \n \t):
 *
 *   rule-file 1                       first line: the format version
 *   primitive "NAME"                  the primitive lint lowers (once)
 *   source "FILE:A-B @COMMIT"         the JAX source modelled (up to 4;
 *                                     optional)
 *   expect safe|unsafe                what lint must conclude (at most once;
 *                                     without it lint reports its verdict)
 *   rule "RULE" default platform "P"  a rule object and its registrations:
 *                                     `default` (platform=None) and/or one
 *                                     `platform "P"` per platform, in order
 *     ACTION ...                      the rule body, indented, in order
 *   subprimitive "Q"                  later rules belong to Q (lowered by a
 *                                     body through `lower_fun "Q"`)
 *
 * Actions: `get_backend [optional=true|false]` (default false),
 * `guarded_get_backend [optional=true|false]`, `try_fallback_get_backend`,
 * `raise_if_multi "MESSAGE"`, `read_client_platform`,
 * `lower_fun "Q" [compute_type="T"]`, `marker`. An indented line may hold
 * several actions separated by commas, as a `.case` rule line does, and the
 * `.case` spellings are read (`compute_type = "T"`, `optional = B`); the
 * older `compute_type "T"` is still read and recorded for a note.
 */
#ifndef LCTX_HARNESS_RULEFILE_H
#define LCTX_HARNESS_RULEFILE_H

#include "lctx/lctx.h"
#include "lctx/lowering.h"

/// The only format version.
#define LCTX_RULEFILE_VERSION 1
/// Most `source` lines.
#define LCTX_RULEFILE_MAX_SOURCES 4
/// Most registrations on one `rule` line.
#define LCTX_RULEFILE_MAX_REGISTRATIONS 8
/// Bytes of string storage one file may use (names, messages, sources).
#define LCTX_RULEFILE_POOL 8192
/// Largest rule file accepted, in bytes.
#define LCTX_RULEFILE_MAX_BYTES (64 * 1024)

/// One registration of a rule: `default` (platform None) or a platform.
typedef struct lctx_rulefile_registration {
  bool is_default;
  lctx_str platform;
} lctx_rulefile_registration;

/// One `rule` line and its body. The LOWER_FUN actions' `primitive` is an
/// index into lctx_rulefile.primitives.
typedef struct lctx_rulefile_rule {
  lctx_str name;
  /// The primitive it is registered for (index into the file's primitives).
  int primitive;
  int line;
  size_t registration_count;
  lctx_rulefile_registration registrations[LCTX_RULEFILE_MAX_REGISTRATIONS];
  size_t action_count;
  lctx_lowering_action actions[LCTX_LOWERING_MAX_ACTIONS];
  /// The line of each action (`lctx export rules` reports it).
  int action_lines[LCTX_LOWERING_MAX_ACTIONS];
} lctx_rulefile_rule;

/// A parsed rule file. Every view points into `pool`, so the struct must
/// outlive the registries built from it (and must not be copied while they
/// are in use).
typedef struct lctx_rulefile {
  /// Primitive 0 is the `primitive` line; the others are the `subprimitive`
  /// lines, in file order.
  size_t primitive_count;
  lctx_str primitives[LCTX_LOWERING_MAX_PRIMITIVES];
  size_t source_count;
  lctx_str sources[LCTX_RULEFILE_MAX_SOURCES];
  /// Whether the file has an `expect` line, and its value: true for `safe`.
  bool has_expect;
  bool expect_safe;
  /// The first `compute_type "T"` (the older spelling of
  /// `compute_type="T"`): line and column, 0 when none.
  int old_spelling_line, old_spelling_col;
  /// The rules, in file order (which is also the registration order).
  size_t rule_count;
  lctx_rulefile_rule rules[LCTX_LOWERING_MAX_RULES];
  size_t pool_used;
  char pool[LCTX_RULEFILE_POOL];
} lctx_rulefile;

/// Parses `text[0..length)`. On success fills `file` and returns true. On
/// failure appends `PATH:LINE:COL: message` (1-based line and byte column;
/// `path` as given) to `error` and returns false.
bool lctx_rulefile_parse(const char *text, size_t length, const char *path,
                         lctx_rulefile *file, lctx_buf *error);

/// Reads and parses the file at `path` (`-` is standard input). Like
/// lctx_rulefile_parse; a file that cannot be read whole, or holds more than
/// LCTX_RULEFILE_MAX_BYTES, gives the message of lctx_file_read (file.h),
/// naming the file.
bool lctx_rulefile_load(const char *path, lctx_rulefile *file, lctx_buf *error);

/// Builds `registry` for `config` (which must outlive it): the primitives in
/// file order (so primitive `i` of the file has id `i`), one rule object per
/// `rule` line, and every registration in file order through
/// register_lowering. Returns true, with `raised` None, when all registered;
/// returns false with `raised` the first raise (an unknown platform for this
/// configuration) otherwise.
bool lctx_rulefile_build(const lctx_rulefile *file,
                         const lctx_registry_config *config,
                         lctx_lowering_registry *registry,
                         lctx_outcome *raised);

#endif /* LCTX_HARNESS_RULEFILE_H */
