/*
 * sweepjudge.h - the verdicts of the sweep rows (`check = sweep` in a spec
 * table, conformance/spec/jax-sweep.lspec) on what real JAX answered to the
 * export operation of the process protocol.
 *
 * Owns the data model of an export answer (outcome, the raise and its JAX
 * source location, the platforms the module declares, the result of the
 * call on the CPU, the census of backend look-ups) and the judgement of one
 * sweep case: a program exported for a platform list P, for a reordering of
 * P, for ("cpu",) and for each platform of P alone. Reads nothing, runs
 * nothing, allocates nothing: the caller (commands/sweep.c) fills the answers
 * from the protocol (process/export_json.c) or from a recorded case file.
 */
#ifndef LCTX_HARNESS_SWEEPJUDGE_H
#define LCTX_HARNESS_SWEEPJUDGE_H

#include "model_dispatch.h"
#include "program.h"
#include "spec.h"

#include <stdbool.h>
#include <stddef.h>

/// The most platforms in one export, and the longest name of one.
#define LCTX_EXPORT_MAX_PLATFORMS 8
#define LCTX_EXPORT_PLATFORM_MAX 32
_Static_assert(LCTX_DISPATCH_MAX_PLATFORMS == LCTX_EXPORT_MAX_PLATFORMS &&
                   LCTX_DISPATCH_NAME_MAX == LCTX_EXPORT_PLATFORM_MAX,
               "a dispatch lists platforms as an export does");
/// The longest JAX source file name kept (a path starting "jax/").
#define LCTX_EXPORT_FILE_MAX 160
/// The longest exception class name and message kept.
#define LCTX_EXPORT_CLASS_MAX 64
#define LCTX_EXPORT_MESSAGE_MAX 1024
/// The most outputs of a call described.
#define LCTX_EXPORT_MAX_OUTPUTS 16

/// What an export answer says.
typedef enum lctx_export_status {
  LCTX_EXPORT_OK,      ///< the export succeeded
  LCTX_EXPORT_RAISE,   ///< the export raised
  LCTX_EXPORT_CRASH,   ///< no answer: the program died, refused or broke
  LCTX_EXPORT_TIMEOUT, ///< no answer in time
} lctx_export_status;

/// A raised exception and where in JAX it was raised.
typedef struct lctx_export_raise {
  char cls[LCTX_EXPORT_CLASS_MAX];
  char message[LCTX_EXPORT_MESSAGE_MAX];
  /// The innermost frame inside the `jax` package ("" and 0: none).
  char file[LCTX_EXPORT_FILE_MAX];
  long line;
} lctx_export_raise;

/// The longest text of the user's code kept (a file, a function, a
/// primitive: conformance/sweep/USER.md; the exporter cuts them to 500
/// bytes, a longer one is refused), with its NUL.
#define LCTX_USER_TEXT_MAX 512

/// A place in the user's code (a user or package program's): its file
/// ("" and 0: none), line and function ("" when not said).
typedef struct lctx_user_frame {
  char file[LCTX_USER_TEXT_MAX];
  long line;
  char function[LCTX_USER_TEXT_MAX];
} lctx_user_frame;

/// What the exporter says of a user or package program's export
/// (PROTOCOL.md, "user"): the innermost user frame of the raise, the
/// primitive being lowered when it raised, that primitive's rule and the
/// user frame that bound it; each "" (none) when not known.
typedef struct lctx_user_facts {
  lctx_user_frame raise_at;
  char primitive[LCTX_USER_TEXT_MAX];
  lctx_user_frame rule;
  lctx_user_frame call_site; ///< its function is ""
} lctx_user_facts;

/// What a backend look-up during the lowering was.
typedef enum lctx_census_kind {
  LCTX_CENSUS_GET_BACKEND, ///< ModuleContext.get_backend(optional)
  LCTX_CENSUS_BACKEND,     ///< a read of ModuleContext.backend
  LCTX_CENSUS_TRUNCATED,   ///< more calls than the program reports
  /// A look-up of the host's devices or backend (jax.devices(),
  /// xla_bridge.get_backend(), ...) during a lowering: the host's platform,
  /// not the module's.
  LCTX_CENSUS_HOST,
} lctx_census_kind;

/// What the look-up gave.
typedef enum lctx_census_gave {
  LCTX_CENSUS_GAVE_RAISE,
  LCTX_CENSUS_GAVE_NONE,
  LCTX_CENSUS_GAVE_CLIENT,
} lctx_census_gave;

/// One backend look-up made during a lowering.
typedef struct lctx_census_call {
  lctx_census_kind kind;
  int optional; ///< get_backend's flag: 0 or 1; -1 for a .backend read
  lctx_census_gave gave;
  /// The calling rule's JAX source file, or the user's file (a look-up
  /// from user code, USER.md: not starting "jax/").
  char file[LCTX_USER_TEXT_MAX];
  long line;
  char primitive[64]; ///< the primitive being lowered, or ""
  unsigned platforms; ///< the module's platform count at the call
  /// A look-up from user code: the primitive's rule and the user frame
  /// that bound it ("" file: not said).
  lctx_user_frame rule, call_site;
} lctx_census_call;

/// One output of the call on the CPU.
typedef struct lctx_export_output {
  char dtype[24];
  size_t count;  ///< its values in `values` (complex: two per element)
  bool floating; ///< a floating-point or complex dtype
} lctx_export_output;

/// The answer to one export request item.
typedef struct lctx_export_answer {
  lctx_export_status status;
  char error[256];          ///< CRASH, TIMEOUT: why
  lctx_export_raise raised; ///< RAISE
  size_t platform_count;    ///< OK: the platforms the module declares
  char platforms[LCTX_EXPORT_MAX_PLATFORMS][LCTX_EXPORT_PLATFORM_MAX];
  /// OK with cpu among the platforms: the call on the CPU gave a result
  /// (`digest`, and the values when they are few) or raised (`run_error`).
  bool has_run, has_run_error;
  char digest[65];
  lctx_export_raise run_error;
  size_t output_count;
  lctx_export_output outputs[LCTX_EXPORT_MAX_OUTPUTS];
  /// The outputs' values in order, NULL when the program gave none (too
  /// many); owned by the caller.
  const double *values;
  size_t value_count;
  /// The census, owned by the caller.
  const lctx_census_call *census;
  size_t census_count;
  /// A generated program's dispatches (NULL: none reported), owned by the
  /// caller.
  const lctx_dispatch_event *dispatch;
  size_t dispatch_count;
  /// A user or package program's facts ("user"), or NULL; owned by the
  /// caller.
  const lctx_user_facts *user;
} lctx_export_answer;

/// One sweep case: program X for the platform list P, and the answers the
/// rows need (NULL where not asked, or not yet).
typedef struct lctx_sweep_case {
  const char *program;
  const char *group;
  size_t count; ///< P's length, 1 to LCTX_EXPORT_MAX_PLATFORMS
  const char *const *platforms;
  const lctx_export_answer *multi;     ///< X for P
  const char *const *reorder;          ///< P in another order (count names)
  const lctx_export_answer *reordered; ///< X for `reorder`
  const lctx_export_answer *cpu_only;  ///< X for ("cpu",)
  /// X for (P[i],) alone.
  const lctx_export_answer *alone[LCTX_EXPORT_MAX_PLATFORMS];
  /// A generated program's description (NULL for a catalogue program):
  /// SW-009 compares its primitives' dispatches with lctx's model.
  const lctx_program_desc *desc;
} lctx_sweep_case;

/// A verdict of one row on one case.
typedef enum lctx_sweep_verdict_kind {
  LCTX_SWEEP_PASS,
  LCTX_SWEEP_FAIL,    ///< a finding
  LCTX_SWEEP_CRASH,   ///< an answer the row needs is missing: a crash
  LCTX_SWEEP_TIMEOUT, ///< ... a timeout
} lctx_sweep_verdict_kind;

/// The length of a finding key and of a verdict's detail.
#define LCTX_SWEEP_KEY_MAX 320
#define LCTX_SWEEP_DETAIL_MAX 1024

typedef struct lctx_sweep_verdict {
  size_t row; ///< an index into the spec's rows
  lctx_sweep_verdict_kind kind;
  /// FAIL: what identifies the finding across cases ("SW-001
  /// RuntimeError at jax/_src/x.py:12"); "" otherwise.
  char key[LCTX_SWEEP_KEY_MAX];
  char detail[LCTX_SWEEP_DETAIL_MAX]; ///< what was compared, the difference
} lctx_sweep_verdict;

/// The sweep rows a table must hold, by what they judge. Every other
/// sweep row of the table has refusals: each is a refusal JAX documents
/// for several platforms, which completeness allows (SW-002, SW-003,
/// SW-008 in jax-sweep.lspec).
typedef enum lctx_sweep_rule {
  LCTX_SWEEP_COMPLETE, ///< SW-001
  LCTX_SWEEP_ORDER,    ///< SW-004
  LCTX_SWEEP_DISPATCH, ///< SW-005
  LCTX_SWEEP_CENSUS,   ///< SW-006
  LCTX_SWEEP_DECLARED, ///< SW-007
  LCTX_SWEEP_MODEL,    ///< SW-009
  LCTX_SWEEP_RULE_COUNT
} lctx_sweep_rule;

/// The row ID of each rule ("SW-001" ...).
const char *lctx_sweep_rule_id(lctx_sweep_rule rule);

/// The rows of the sweep rules in a table, and its refusal rows.
typedef struct lctx_sweep_rows {
  const lctx_spec *spec;
  size_t row[LCTX_SWEEP_RULE_COUNT];
  size_t refusal_count;
  size_t refusal[LCTX_SPEC_MAX_ROWS];
} lctx_sweep_rows;

/// Finds every sweep rule's row in `spec` (each must be `check = sweep`
/// without a refusal; the dispatch row may have a bound) and the refusal
/// rows (the other sweep rows, each with at least one refusal). False with
/// the first missing or misshapen row named in `why`.
bool lctx_sweep_rows_find(const lctx_spec *spec, lctx_sweep_rows *rows,
                          char *why, size_t cap);

/// The refusal row (an index into the spec's rows) whose template `raised`
/// matches (its class, and its message with each {name} standing for one
/// or more characters), or -1 when none does.
long lctx_sweep_refusal(const lctx_sweep_rows *rows,
                        const lctx_export_raise *raised);

/// Whether judging `c` needs each platform of P exported alone: P, or P
/// reordered, raised something no refusal row allows, and some (P[i],) was
/// not asked yet.
bool lctx_sweep_needs_alone(const lctx_sweep_rows *rows,
                            const lctx_sweep_case *c);

/// Whether census call `k` is one a rule must not make under several
/// platforms (SW-006): under more than one, a .backend read, a host
/// look-up, or get_backend() without optional; a generated program's own
/// rules ("lctx-program") read on purpose and are not.
bool lctx_census_unadapted(const lctx_census_call *k);

/// Writes the platform list `p` (`count` names) as Python writes a tuple
/// of strings ("('tpu', 'cpu')", "('cpu',)") into `dst` (`n` bytes, cut to
/// fit).
void lctx_sweep_list_text(char *dst, size_t n, const char *const *p,
                          size_t count);

/// Judges `c` by every sweep row that applies, writing at most `cap`
/// verdicts (a row may give several: one per distinct finding); returns
/// how many were written. A row that does not apply (no cpu in P for
/// dispatch; a platform of P that does not export alone, for
/// completeness) gives none.
size_t lctx_sweep_judge(const lctx_sweep_rows *rows, const lctx_sweep_case *c,
                        lctx_sweep_verdict *out, size_t cap);

#endif /* LCTX_HARNESS_SWEEPJUDGE_H */
