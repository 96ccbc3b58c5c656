/*
 * case_json_read.h - reading the JSON form of cases and outcomes (the form
 * is described in case_json.h, which includes this header).
 *
 * Owns the readers: every error names the JSON path of the offending
 * value, e.g. `operations[1].platforms[0]: expected a string`. Never prints
 * or exits.
 */
#ifndef LCTX_HARNESS_CASE_JSON_READ_H
#define LCTX_HARNESS_CASE_JSON_READ_H

#include <jansson.h>

#include "case.h"

/// Reads a case from `j`, and its expectations into `expect` (may be NULL:
/// they are checked, then dropped; their texts may hold at most
/// LCTX_CASE_EXPECT_TEXT_MAX bytes together, as in the text form: the
/// "expect" that passes it is the error). On failure appends `PATH: message` to
/// `error` and returns false, leaving `out` unspecified but valid.
bool lctx_case_from_json(const json_t *j, lctx_case *out,
                         lctx_case_expect *expect, lctx_buf *error);

/// Reads an outcome from `j`. On failure appends `PATH: message` to `error`
/// (the top-level path reads `(top level)`) and returns false.
bool lctx_outcome_from_json(const json_t *j, lctx_outcome *out,
                            lctx_buf *error);

/// The `kind` of an outcome in the JSON form ("none", "client", "string",
/// "platforms", "raise"), or NULL for a kind outside them.
const char *lctx_outcome_kind_json(lctx_outcome_kind kind);

#endif /* LCTX_HARNESS_CASE_JSON_READ_H */
