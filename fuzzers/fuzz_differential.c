/*
 * fuzz_differential.c - the fuzz_differential target, glue only: decode the
 * bytes into a case, run it on the reference model and on an implementation
 * under test, and judge both by the embedded spec table
 * (lctx_fuzz_differential in harness/core/checks/fuzzcheck.c).
 *
 * The implementation is the library named by LCTX_DIFF_PLUGIN, else the
 * example plugin, linked into this target (the extra source of its row in
 * lctx_fuzz_targets[]: the OBJECT library lctx_example_plugin_objects here,
 * the folder's objects in fuzzers/oss-fuzz-build.sh), so that the target also
 * builds where no shared library can be loaded, as on OSS-Fuzz.
 * The engine contract (LCTX-FINDING, abort) is fuzz_glue.h's.
 */
#include "fuzz_glue.h"

LCTX_FUZZ_TARGET(lctx_fuzz_state, lctx_fuzz_differential)
