/*
 * fuzz_model.c - the fuzz_model target, glue only: decode the bytes into a
 * case, run the reference model, judge every operation by the embedded spec
 * table and the oracle's invariants (lctx_fuzz_model in harness/).
 *
 * Owns the engine contract: on a failed check it writes the report, then the
 * line `LCTX-FINDING <key>` to stderr and aborts, so that libFuzzer, AFL++
 * and the replay driver all see a crash, and `lctx fuzz` finds the key.
 */
#include "fuzzcheck.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static lctx_fuzz_result result;
  if (lctx_fuzz_model(data, size, &result)) {
    size_t n = strlen(result.report);
    bool newline = n > 0 && result.report[n - 1] != '\n';
    fprintf(stderr, "%s%sLCTX-FINDING %s\n", result.report, newline ? "\n" : "",
            result.key);
    fflush(stderr);
    abort();
  }
  return 0;
}
