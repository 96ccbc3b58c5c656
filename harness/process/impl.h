/*
 * impl.h - implementations under test, isolated: a C plugin (conformance/
 * ABI.md) run in a forked worker process, or a program speaking the process
 * protocol (conformance/PROTOCOL.md).
 *
 * Owns starting, feeding and restarting them, and turning whatever they do
 * (answer, crash, hang, write garbage or too much, fork, leak) into a result
 * per case. A crash or hang marks only the case that caused it: the worker or
 * program is restarted and the batch goes on, and a case that failed in a
 * worker or program that had served other cases is run again alone before it
 * is blamed. Each worker or program runs in a process group of its own, which
 * is killed whole when it stops; every record it sends carries the identity
 * of its case and is bounded before it is buffered, and its resident memory
 * is watched. Never runs a plugin's code in the calling process, and never
 * starts a program through a shell.
 */
#ifndef LCTX_HARNESS_IMPL_H
#define LCTX_HARNESS_IMPL_H

#include "case.h"

struct json_t; /* jansson's */

/// What became of one case.
typedef enum lctx_result_status {
  LCTX_RESULT_OK = 0,  ///< every operation has an outcome
  LCTX_RESULT_CRASH,   ///< the implementation died, failed or broke protocol
  LCTX_RESULT_TIMEOUT, ///< it did not answer within the timeout
  /// It crashed, hung or broke protocol after serving other cases in one
  /// worker or program, and answered when run again alone: the outcomes are
  /// those of that run, `detail` names the first failure.
  LCTX_RESULT_FLAKY,
} lctx_result_status;

/// The longest answer line a program may write (the process protocol).
#define LCTX_IMPL_MAX_LINE (4u << 20)

/// The longest handshake line a program may write.
#define LCTX_IMPL_MAX_HANDSHAKE (64u << 10)

/// The result of one case.
typedef struct lctx_case_result {
  lctx_result_status status;
  char detail[256]; ///< why, for CRASH, TIMEOUT and FLAKY
  /// How many cases the worker or program had served before this one (for
  /// FLAKY: the one that failed it; 0 for a case blamed after a run alone).
  size_t cases_before;
  /// The outcomes, one per operation: their heads here, their texts (each
  /// up to LCTX_OUTCOME_TEXT_MAX - 1 bytes, the protocol's limit) in
  /// `text` (heap, `text_length` bytes of `text_capacity` in use; NULL
  /// when none). lctx_case_result_outcome copies one out.
  size_t outcome_count;
  lctx_outcome_head outcomes[LCTX_CASE_MAX_OPS];
  char *text;
  size_t text_length, text_capacity;
  /// The MLIR text a LOWER_PER_PLATFORM operation returned (heap, NUL
  /// terminated), or NULL when it returned none.
  char *mlir[LCTX_CASE_MAX_OPS];
} lctx_case_result;

_Static_assert(sizeof(lctx_case_result) <= 16384,
               "an lctx_case_result is at most 16 KB (a batch holds "
               "hundreds; the outcomes' texts are on the heap)");

/// Copies outcome `i` (below `outcome_count`) of `r` into `out` and
/// returns `out`.
static inline const lctx_outcome *
lctx_case_result_outcome(const lctx_case_result *r, size_t i,
                         lctx_outcome *out) {
  return lctx_outcome_head_get(&r->outcomes[i], r->text, out);
}

/// Frees the outcomes' texts and MLIR texts of a result (also done by the
/// next lctx_impl_run on the same result); it then holds no outcome. A
/// zeroed result needs none.
void lctx_case_result_release(lctx_case_result *result);

/// What the implementation says of itself.
typedef struct lctx_impl_info {
  char name[128];
  char version[64];
  unsigned operations; ///< bit per lctx_op_kind
  char kind[16];       ///< "plugin" or "process"
} lctx_impl_info;

typedef struct lctx_impl lctx_impl;

/// How an implementation is run.
typedef struct lctx_impl_options {
  double timeout;       ///< seconds per case
  const char *log_path; ///< the implementation's stdout (plugin) and stderr
                        ///< go here (appended); NULL: /dev/null
  /// The worker's or program's resident memory limit in MB; 0: none. Over
  /// it during a case, the case is marked; over half of it between cases,
  /// the worker or program is recycled.
  size_t memory_limit_mb;
  /// Process only: offer the export extension (PROTOCOL.md, "The export
  /// operation"): the hello offers it, the handshake line may be as long
  /// as an answer line (it lists a catalogue), and it is kept
  /// (lctx_impl_handshake).
  bool export_extension;
  /// Stop waiting for the program when SIGINT or SIGTERM arrives
  /// (sys.h's lctx_sys_interrupted): the wait ends as a timeout.
  bool stop_on_interrupt;
} lctx_impl_options;

/// Sets the defaults: 5 s per case, no log, 1024 MB.
void lctx_impl_options_init(lctx_impl_options *o);

/// Loads a C plugin (in a worker, to read its table). On failure writes why
/// to `error` and returns NULL.
lctx_impl *lctx_impl_open_plugin(const char *path, const lctx_impl_options *o,
                                 lctx_buf *error);

/// Starts a program from a command line split into words (quotes and
/// backslashes group; no shell), performs the handshake. On failure writes
/// why to `error` and returns NULL.
lctx_impl *lctx_impl_open_process(const char *command_line,
                                  const lctx_impl_options *o, lctx_buf *error);

/// Splits a command line into at most `max - 1` words (NULL-terminated),
/// stored in `storage`. Returns the word count, or -1 with a message in
/// `error` (unterminated quote, too many words).
int lctx_split_command(const char *line, char *storage, size_t storage_size,
                       char **argv, int max, lctx_buf *error);

/// The implementation's name, version and operations.
const lctx_impl_info *lctx_impl_get_info(const lctx_impl *impl);

/// The modules one lctx_impl_run hands back, in bytes, before it stops
/// early (so that lctx's memory stays bounded whatever the implementation
/// returns).
#define LCTX_IMPL_MODULE_BUDGET (32u << 20)

/// The most bytes lctx_impl_pack writes for one case.
#define LCTX_IMPL_PACKED_MAX (28u << 10)

/// Writes what a plugin's worker is given of `c` to `out` (at most
/// LCTX_IMPL_PACKED_MAX bytes): its used factories, configuration, rules
/// and operations (without the platform names past their counts). Returns
/// the size. A caller that packs each case while it is fresh in the cache
/// hands the bytes to lctx_impl_start, which then copies them instead of
/// packing.
size_t lctx_impl_pack(const lctx_case *c, uint8_t *out);

/// Cases packed by lctx_impl_pack, one after the other: case i is the
/// `offset[i + 1] - offset[i]` bytes at `bytes + offset[i]`.
typedef struct lctx_impl_packed {
  const uint8_t *bytes;
  const size_t *offset;
} lctx_impl_packed;

/// Plugin: hands `n` cases to the running worker at once, so that it serves
/// them while the caller does other work; the next lctx_impl_run with the
/// same `cases` and `n` then only collects their results (any other call
/// stops that worker first and runs its own cases as ever). Nothing
/// happens for a process, or when no worker runs yet. The cases must stay
/// as they are until that lctx_impl_run. `packed` (may be NULL) holds
/// lctx_impl_pack of each of the `n` cases, as they are.
void lctx_impl_start(lctx_impl *impl, const lctx_case *const *cases, size_t n,
                     const lctx_impl_packed *packed);

/// Runs the first of `n` cases, and the next ones while the modules their
/// results hold stay under LCTX_IMPL_MODULE_BUDGET; fills `results[i]` for
/// each case run (releasing what they held) and returns how many that is
/// (1 to `n`; 0 when `n` is 0). The caller judges them, releases them, and
/// runs the rest. Restarts the worker or program as needed. `results` must
/// be zeroed before its first use.
size_t lctx_impl_run(lctx_impl *impl, const lctx_case *const *cases, size_t n,
                     lctx_case_result *results);

/// The handshake line the program sent last (NUL terminated), kept when
/// the export extension was offered; NULL otherwise.
const char *lctx_impl_handshake(const lctx_impl *impl);

/// Process implementations with the export extension: sends one request
/// line (`line`, without its newline, whose "id" is `id`) and reads the
/// answer whose "id" is `id`, within `timeout` seconds. Returns
/// LCTX_RESULT_OK with `*answer` (the answer parsed, a JSON object the
/// caller releases with json_decref), or LCTX_RESULT_CRASH or
/// LCTX_RESULT_TIMEOUT with why in `why`: the program died, could not be
/// (re)started, hung, grew past its memory limit, wrote a line that is not
/// JSON, not the answer to `id`, longer than LCTX_IMPL_MAX_LINE or
/// followed by another; it is then stopped with its process group, and the
/// next call starts a fresh one.
lctx_result_status lctx_impl_exchange(lctx_impl *impl, const char *line,
                                      unsigned long long id, double timeout,
                                      struct json_t **answer, char *why,
                                      size_t cap);

/// Process implementations only: start a fresh program for every case (to
/// measure what batching saves). Off by default.
void lctx_impl_set_process_per_case(lctx_impl *impl, bool on);

/// Number of restarts so far (crashes, hangs, protocol errors).
size_t lctx_impl_restarts(const lctx_impl *impl);

/// Number of quiet restarts between cases because the worker or program
/// held more than half its memory limit.
size_t lctx_impl_recycles(const lctx_impl *impl);

/// Stops the worker or program (its whole process group, so that nothing
/// it started survives) and frees everything.
void lctx_impl_close(lctx_impl *impl);

#endif /* LCTX_HARNESS_IMPL_H */
