/*
 * sweep_record.h - recorded sweep cases: a program, its platform lists and
 * the answers the program gave, with the verdicts expected of them
 * (conformance/sweep/README.md has the format). Findings are kept as such
 * files, the sweep rows' conformance cases are such files, and known
 * defects (regressions) are such files.
 *
 * Owns writing them (findings, with their report), reading them back
 * (every field checked, named in the message), the known findings' keys,
 * judging them offline (`lctx sweep --judge`) and exporting them again
 * (`lctx sweep --replay`).
 */
#ifndef LCTX_DRIVE_SWEEP_RECORD_H
#define LCTX_DRIVE_SWEEP_RECORD_H

#include "sweep_state.h"

struct json_t; /* jansson's */

/// The most bytes of one --known case file (a larger one is refused).
#define LCTX_SWEEP_KNOWN_FILE_MAX ((size_t)16 << 20)
/// The most bytes of the --known case files in all (more is refused).
#define LCTX_SWEEP_KNOWN_TOTAL_MAX ((size_t)64 << 20)
/// The most known keys kept (those beyond are left out, said, and
/// recorded in report.json's "caps_hit").
#define LCTX_SWEEP_KNOWN_KEYS_MAX 100000

/// The keys of the failures the --known case file `dir`, or every `*.json`
/// case file of the folder `dir`, expects, and per key what its file says
/// of the defect (`*defects`, the name, "fixed_in" and the upstream report
/// its "note" names). A missing `dir` is an error
/// unless it is `missing_ok` (the default folder: no known defects), and
/// so is anything but a folder or a regular file, a case file that cannot
/// be read (over LCTX_SWEEP_KNOWN_FILE_MAX bytes, not a case file), or
/// case files of more than LCTX_SWEEP_KNOWN_TOTAL_MAX bytes in all: false
/// with the file named on `err`. Keys beyond LCTX_SWEEP_KNOWN_KEYS_MAX are
/// left out, said on `err` and recorded in `rep`.
bool lctx_sweep_record_keys(const char *dir, const char *missing_ok,
                            char (**keys)[LCTX_SWEEP_KEY_MAX],
                            lctx_sweep_known_defect **defects, size_t *n,
                            lctx_report *rep, FILE *err);

/// Points `c` at the answers of `e` (its lists through `names` and
/// `rnames`); cpu alone is the ("cpu",) answer when there is one and no
/// answer of its own. The program and group are the caller's.
void lctx_sweep_record_view(const lctx_sweep_exports *e, const char **names,
                            const char **rnames, lctx_sweep_case *c);

/// OUT/findings/SLUG for finding `key`, created; false (said) when not.
bool lctx_sweep_record_finding_dir(lctx_sweep *s, const char *key, char *dir,
                                   size_t cap);

/// Says on the sweep's error stream that `path` cannot be written (for the
/// reason `error`, an errno value) and marks the results failed.
void lctx_sweep_record_unwritten(lctx_sweep *s, const char *path, int error);

/// Writes `j` (borrowed; NULL when it could not be built) as `path` in the
/// JSON form `flags` (json_dumps); a failure is said as above.
void lctx_sweep_record_json(lctx_sweep *s, const char *path,
                            const struct json_t *j, size_t flags);

/// Writes case `e` with the expected verdict `v` as DIR/NAME.
void lctx_sweep_record_save(lctx_sweep *s, const lctx_sweep_exports *e,
                            const lctx_sweep_verdict *v, const char *dir,
                            const char *name);

/// Writes DIR/report.txt: the finding, where it was found, its minimized
/// form and the commands that reproduce and promote it.
void lctx_sweep_record_report(lctx_sweep *s, const lctx_sweep_exports *e,
                              const lctx_sweep_exports *best,
                              const lctx_sweep_verdict *v, const char *dir);

/// The paths of the case files PATH (a file) or PATH/ *.json (sorted);
/// NULL said on `err`. Free each and the array.
char **lctx_sweep_record_files(const char *path, size_t *n, FILE *err);

/// A case file parsed (it must say "lctx-sweep-case": 1); NULL said on
/// `err` with the file, line and column.
struct json_t *lctx_sweep_record_load(const char *path, FILE *err);

/// For a generated program: DIR/report.md, a draft upstream report (what
/// happens, the minimized program, and, when the exporter wrote DIR/repro.py,
/// the line tools/defect_status.py fills with its status per release).
void lctx_sweep_record_draft(lctx_sweep *s, const lctx_sweep_exports *e,
                             const lctx_sweep_exports *best,
                             const lctx_sweep_verdict *v, const char *dir,
                             bool has_repro);

#endif /* LCTX_DRIVE_SWEEP_RECORD_H */
