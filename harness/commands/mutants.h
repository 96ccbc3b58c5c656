/*
 * mutants.h - how strong are the conformance suite and the differential
 * fuzzer? Each mutant is the example C plugin with one plausible defect
 * (conformance/mutants/); a mutant is killed when a check fails against it.
 * The library call behind `lctx mutants`.
 *
 * Owns the mutant list (conformance/mutants/MUTANTS: reading and checking
 * it), judging every mutant library with conform (conform.h's
 * lctx_conform_run with first_failure, in this process: the plugin itself
 * runs in conform's worker process; the kill time is the time from
 * conform's start to its first failing verdict), bounded fuzz_differential
 * runs against it (libFuzzer, one process, LCTX_DIFF_PLUGIN naming the
 * mutant; from the seed corpus and from an empty corpus), the control runs
 * against the unmutated plugin, and the kill matrix: printed, and written as
 * mutants.json and mutants.md. Building the mutants is
 * conformance/mutants/CMakeLists.txt's; judging is conform's and the fuzz
 * target's; reading a command line is the cli layer's.
 */
#ifndef LCTX_HARNESS_MUTANTS_H
#define LCTX_HARNESS_MUTANTS_H

#include <stdbool.h>
#include <stdio.h>

/// What to run (`lctx mutants`'s options).
typedef struct lctx_mutants_options {
  const char *list_path; ///< the mutant list (MUTANTS)
  const char *dir;       ///< the mutant libraries NAME.so
  const char *out_dir;   ///< reports: mutants.json, mutants.md, conform/, fuzz/
  const char *only;      ///< only these mutants (comma-separated), or NULL
  const char *fuzzer;    ///< the libFuzzer fuzz_differential binary
  const char *plugin;    ///< the unmutated plugin, for the control runs
  const char *seeds;     ///< the seed corpora (SEEDS/fuzz_differential)
  double limit;          ///< conform must kill each mutant within this (s)
  double fuzz_seconds;   ///< per fuzz run; 0: conform only
  double fuzz_min;       ///< the share (percent) the fuzzer must kill
  unsigned long long fuzz_seed; ///< libFuzzer's -seed
  bool fuzz_from_seeds;         ///< fuzz from the seed corpus
  bool fuzz_from_empty;         ///< fuzz from an empty corpus
  bool control;                 ///< run the controls
} lctx_mutants_options;

/// Sets `lctx mutants`'s defaults: the list and the seeds of the current
/// data paths (data_paths.h), no fuzzer (`lctx mutants` sets the data
/// paths' fuzz build), the mutant libraries in conformance/mutants and the
/// example plugin liblctx_example_plugin.so (`lctx mutants` sets the build
/// tree's), reports in build/mutants, a 1 s
/// kill limit, no fuzzing (90% required, seed 1, from both corpora when
/// asked for), the controls.
void lctx_mutants_options_init(lctx_mutants_options *options);

/// Runs conform (and with fuzz_seconds > 0 the fuzzer) against every
/// mutant, prints the results as they come and the kill matrix to `out`,
/// writes mutants.json and mutants.md. Returns LCTX_EXIT_OK when every
/// mutant was killed as required, LCTX_EXIT_VIOLATIONS when one lived (or
/// conform took longer than the limit, or the fuzzer killed too few, or a
/// control run failed), LCTX_EXIT_USAGE for bad input (a message on
/// `err`).
int lctx_mutants_run(const lctx_mutants_options *options, FILE *out, FILE *err);

#endif /* LCTX_HARNESS_MUTANTS_H */
