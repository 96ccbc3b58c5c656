/*
 * mutants.h - `lctx mutants`: how strong are the conformance suite and the
 * differential fuzzer? Each mutant is the example C plugin with one
 * plausible defect (conformance/mutants/); a mutant is killed when a check
 * fails against it.
 *
 * Owns the mutant list (conformance/mutants/MUTANTS: reading and checking
 * it), running `lctx conform --first-failure` against every mutant library
 * (each run in a child process; the kill time is the time from conform's
 * start to its first failing verdict), bounded fuzz_differential runs against
 * it (libFuzzer, one process, LCTX_DIFF_PLUGIN naming the mutant; from the seed
 * corpus and from an empty corpus), the control runs against the unmutated
 * plugin, and the kill matrix: printed, and written as mutants.json and
 * mutants.md. Building the mutants is conformance/mutants/CMakeLists.txt's;
 * judging is conform's and the fuzz target's.
 */
#ifndef LCTX_HARNESS_MUTANTS_H
#define LCTX_HARNESS_MUTANTS_H

#include <stdio.h>

int lctx_cmd_mutants(int argc, char **argv, FILE *out, FILE *err);

#endif /* LCTX_HARNESS_MUTANTS_H */
