/*
 * export_data.h - the JSON forms of the spec table (core/judge/spec.h) and
 * of a rule file (core/case/rulefile.h) that `lctx export` prints, so that
 * the Python side reads what lctx's own parsers read.
 *
 * Owns the shapes below and building them from parsed files; reads no
 * file and prints nothing. A text that is not UTF-8 cannot be JSON: the
 * builders then fail naming the file and line.
 *
 * The shapes (keys always present unless said):
 *
 *   spec:  {"spec": PATH, "version": V, "jax_commit": C,
 *           "releases": [NAME...]  (oldest first, "modelled" in its place),
 *           "facts": [{"name", "line", "source", "note"}]  (stated ones),
 *           "rows": [ROW...]}
 *   ROW:   {"id", "line", "check": "op"|"ir"|"sweep",
 *           "ops": [OPERATION...]  (the protocol operations whose answers
 *                                   the row judges: an `op` row's list, an
 *                                   IR row's ["lower_per_platform"], a
 *                                   sweep row's ["export"]),
 *           "strict": "exact"|"class"|null  (null: IR and sweep rows),
 *           "bound": NUMBER  (sweep rows only),
 *           "outcomes": [OUTCOME...], "source", "note",
 *           "was": [{"release", "commit", "line", "absent": BOOL,
 *                    "why"  (absent only), "outcomes": [OUTCOME...],
 *                    "outcome": TEXT}]}  (descending release order)
 *   OUTCOME: {"kind": "none"|"string"|"platforms"|"raise"|"client",
 *           "error"  (raise), "origin": "pinned"|"registry"  (client),
 *           "registration"  (client registry), "text"  (but none),
 *           "spelled": the outcome as the table writes it}
 *   TEXT:  `absent "WHY"`, else the outcomes' "spelled", joined by "; "
 *
 *   rules: {"rules": [FILE...]}
 *   FILE:  {"path", "stem", "primitives": [NAME...]  (the `primitive`
 *           first, then each `subprimitive`), "sources": [TEXT...],
 *           "expect": "safe"|"unsafe"|null,
 *           "rules": [{"name", "primitive", "line",
 *                      "registrations": [null (default) | PLATFORM...],
 *                      "actions": [{"kind", "line", "optional"
 *                                   (get_backend, guarded_get_backend),
 *                                   "message" (raise_if_multi),
 *                                   "primitive", "compute_type"|null
 *                                   (lower_fun)}]}]}
 *   action kinds are spelled as in a .rule file: get_backend,
 *   guarded_get_backend, try_fallback_get_backend, raise_if_multi,
 *   read_client_platform, lower_fun, marker.
 */
#ifndef LCTX_CLI_EXPORT_DATA_H
#define LCTX_CLI_EXPORT_DATA_H

#include "rulefile.h"
#include "spec.h"

#include <jansson.h>

/// The table `spec`, read from `path`, as JSON (the shape "spec" above);
/// NULL with `PATH:LINE: ...` in `error` when a row holds text that is not
/// UTF-8, or memory runs out.
json_t *lctx_export_spec_json(const lctx_spec *spec, const char *path,
                              lctx_buf *error);

/// The rule file `file`, read from `path`, as JSON (the shape "FILE"
/// above); NULL with `PATH:LINE: ...` in `error` when a rule holds a
/// string that is not UTF-8, or memory runs out.
json_t *lctx_export_rulefile_json(const lctx_rulefile *file, const char *path,
                                  lctx_buf *error);

#endif /* LCTX_CLI_EXPORT_DATA_H */
