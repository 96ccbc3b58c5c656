/*
 * case_json.h - the JSON form of cases and outcomes (jansson values), as a
 * process protocol carries them.
 *
 * Owns converting lctx_case and lctx_outcome to json_t, and (through
 * case_json_read.h, included here) from json_t, with
 * errors that name the JSON path of the offending value, e.g.
 * `operations[1].platforms[0]: expected a string`. Never prints or exits.
 *
 * A case:
 *   {"factories": [{"name": "cpu", "priority": 0, "fail_quietly": false,
 *                   "behaviour": "client|raises|none|no_devices",
 *                   "message": ""}],
 *    "jax_platforms": "", "jax_platform_name": "", "jax_xla_backend": "",
 *    "nvidia_gpu_visible": false,
 *    "rules": [{"name": "P.def",
 *               "actions": [{"action": "get_backend", "optional": true},
 *                           {"action": "guarded_get_backend",
 *                            "optional": false},
 *                           {"action": "try_fallback_get_backend"},
 *                           {"action": "read_client_platform"},
 *                           {"action": "raise_if_multi", "message": "..."},
 *                           {"action": "lower_fun", "primitive": "Q",
 *                            "compute_type": null},
 *                           {"action": "marker"}]}],
 *    "operations": [{"op": "backends"},
 *                   {"op": "canonicalize", "name": "gpu"},
 *                   {"op": "get_backend", "platform": null},
 *                   {"op": "module_get_backend", "platforms": ["cpu"],
 *                    "backend": null, "optional": false,
 *                    "expect": OUTCOME},
 *                   {"op": "register_lowering", "primitive": "P",
 *                    "rule": "P.def", "platform": null},
 *                   {"op": "lower_per_platform", "primitive": "P",
 *                    "platforms": ["cpu", "tpu"], "backend": null,
 *                    "narrow": null, "compute_type": null,
 *                    "override": null, "x64": false}]}
 * The printer writes every key above (in that order; "message" is "" unless
 * the factory raises; "rules" only when the case declares a rule, so that
 * the JSON of a case without lowering is what it was before rules existed;
 * "expect" only when the operation has one; "compute_type" of lower_fun,
 * "platform", "backend", "narrow", "compute_type" and "override" are null
 * when unset). The reader rejects unknown keys and wrongly typed values; at
 * the top level every key is optional (defaults: no factories, "" values, no
 * GPU, no rules -- a missing "rules" and `[]` alike -- no operations); in a
 * factory "message" is optional and must be empty unless the behaviour is
 * raises; every other key of a factory, rule, action or operation is
 * required. Names are ASCII: a byte outside 0x01-0x7f, NUL included, is an
 * error, as is a name past its length limit, a repeated factory or rule
 * name, an empty rule name, or a "rule" / "override" naming no rule of
 * "rules". A rule or operation that makes lctx_case_validate fail (too many
 * primitive names, a lower_fun cycle, nesting, the event bound) is an error
 * at its path: `operations[3]: makes the case invalid: ...`.
 *
 * An outcome:
 *   {"kind": "none"}
 *   {"kind": "string", "value": "cuda"}
 *   {"kind": "platforms", "value": "['cpu', 'tpu']"}
 *   {"kind": "client", "origin": "registry", "registration": 0,
 *    "platform": "cpu"}
 *   {"kind": "client", "origin": "pinned", "platform": "rocm"}
 *   {"kind": "raise", "class": "RuntimeError", "message": "..."}
 * plus `"truncated": true` only for an outcome whose text was cut (never for
 * a validated configuration). An outcome's text is bytes; JSON strings are
 * UTF-8, so the JSON form carries texts that are valid UTF-8 without NUL
 * bytes (every text the model produces is ASCII). lctx_outcome_to_json
 * returns NULL for any other text.
 *
 * Round trips: from_json(to_json(x)) == x for every valid case (with
 * expectations) and every outcome whose text is NUL-free UTF-8, and
 * to_json(from_json(j)) equals j (json_equal) for every accepted j written
 * with every key (and without "rules" when it has none).
 */
#ifndef LCTX_HARNESS_CASE_JSON_H
#define LCTX_HARNESS_CASE_JSON_H

#include <jansson.h>

#include "case.h"
#include "case_json_read.h"

/// Returns a new JSON object for `c` (the caller owns the reference), or
/// NULL when allocation fails or a text cannot be a JSON string (a name
/// outside ASCII, an expectation text that is not UTF-8). Each operation
/// carries its expectation in `expect`, if any (`expect` may be NULL: none).
json_t *lctx_case_to_json(const lctx_case *c, const lctx_case_expect *expect);

/// Returns a new JSON object for `o`, or NULL (see above).
json_t *lctx_outcome_to_json(const lctx_outcome *o);

#endif /* LCTX_HARNESS_CASE_JSON_H */
