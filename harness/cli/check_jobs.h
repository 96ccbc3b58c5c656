/*
 * check_jobs.h - check-spec's judging of the bounded domain on several
 * threads.
 *
 * Owns the split of the domain between threads (interleaved shares of
 * domain.h, each judged by an oracle of its own against the reference model
 * at one release, run by the pool of jobs.h), the sum of their counts and hits,
 * and which cases hold the first violations, in the domain's order, so that
 * check-spec can print them exactly as one thread would. Prints nothing.
 */
#ifndef LCTX_CLI_CHECK_JOBS_H
#define LCTX_CLI_CHECK_JOBS_H

#include "oracle.h"

#include <stdbool.h>
#include <stddef.h>

/// Most threads one check may use (`--jobs` above it is refused).
#define LCTX_CHECK_JOBS_MAX 256

/// Most violating cases a check remembers (the first ones of the domain).
#define LCTX_CHECK_JOBS_FIRST 64

/// Cases of the domain in each chunk the threads take in turn.
#define LCTX_CHECK_JOBS_CHUNK 2048

/// What judging the domain at one release added up to.
typedef struct lctx_check_jobs_result {
  size_t cases;
  size_t ops;
  size_t absent;
  size_t violations;
  size_t invariant_checks;
  size_t hits[LCTX_SPEC_MAX_ROWS];
  /// The first `first_count` cases (domain indexes, ascending) with a
  /// violation: at most the `first_limit` asked for.
  size_t first[LCTX_CHECK_JOBS_FIRST];
  size_t first_count;
  /// Threads that ran (1: the calling one, when none could be made).
  size_t threads;
} lctx_check_jobs_result;

/// Judges every case of the domain by `spec` (selected for `rel`, NULL: the
/// modelled commit) against the reference model at `rel`, split into `jobs`
/// interleaved shares (1 to LCTX_CHECK_JOBS_MAX), each run by a worker of
/// the pool (jobs.h), one thread each; shares no thread could take are
/// judged by the others or on the calling thread, so the result is always
/// whole. Remembers the first `first_limit` (at most
/// LCTX_CHECK_JOBS_FIRST) violating cases. False, with `*r` undefined, when
/// there is no memory for an oracle or a case.
bool lctx_check_jobs_run(const lctx_spec *spec, const lctx_release *rel,
                         size_t jobs, size_t first_limit,
                         lctx_check_jobs_result *r);

/// Judges case `index` of the domain alone with `oracle` (set up by the
/// caller, its on_violation included): what reports the violations of a
/// case lctx_check_jobs_run found. False when there is no memory for the
/// case.
bool lctx_check_jobs_replay(lctx_oracle *oracle, size_t index);

#endif /* LCTX_CLI_CHECK_JOBS_H */
