/*
 * conform.h - `lctx conform`: judging an implementation under test by the
 * spec table, with reports for people and machines.
 *
 * Owns the run: which cases (the conformance cases, the exhaustive domain of
 * check-spec, N seeded random cases), sharding, operation filters, expected
 * failures, the per-row verdicts (pass, fail, xfail, xpass, crash, timeout,
 * unsupported), the streamed results file, and the final reports: a table
 * per spec row, TAP, JUnit XML and JSON, each stamped with the spec version,
 * lctx's version, the implementation's name and version, and the seed.
 * Running the implementation is impl.h's; judging an outcome is the spec
 * table's (spec.h, classify.h), never equality with the reference.
 */
#ifndef LCTX_HARNESS_CONFORM_H
#define LCTX_HARNESS_CONFORM_H

#include <stdio.h>

int lctx_cmd_conform(int argc, char **argv, FILE *out, FILE *err);

#endif /* LCTX_HARNESS_CONFORM_H */
