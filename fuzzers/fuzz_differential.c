/*
 * fuzz_differential.c - the fuzz_differential target, glue only: decode the
 * bytes into a case, run it on the reference model and on an implementation
 * under test, and judge both by the embedded spec table
 * (lctx_fuzz_differential in harness/).
 *
 * The implementation is the library named by LCTX_DIFF_PLUGIN, else the
 * example plugin, compiled into this target below (so that the target also
 * builds where no shared library can be loaded, as on OSS-Fuzz).
 *
 * Owns the engine contract: on a failed check it writes the report, then the
 * line `LCTX-FINDING <key>` to stderr and aborts.
 */
#include "../conformance/examples/c_plugin/lctx_example_plugin.c"

#include "fuzzcheck.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static lctx_fuzz_result result;
  if (lctx_fuzz_differential(data, size, &result)) {
    size_t n = strlen(result.report);
    bool newline = n > 0 && result.report[n - 1] != '\n';
    fprintf(stderr, "%s%sLCTX-FINDING %s\n", result.report, newline ? "\n" : "",
            result.key);
    fflush(stderr);
    abort();
  }
  return 0;
}
