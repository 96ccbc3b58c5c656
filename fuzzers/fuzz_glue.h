/*
 * fuzz_glue.h - the one piece every fuzz target shares: LCTX_FUZZ_TARGET(f)
 * defines LLVMFuzzerTestOneInput over a check of harness/fuzzcheck.h.
 *
 * Owns the engine contract: on a failed check it writes the report, then the
 * line `LCTX-FINDING <key>` to stderr and aborts, so that libFuzzer, AFL++
 * and the replay driver all see a crash, and `lctx fuzz` finds the key.
 */
#ifndef LCTX_FUZZERS_FUZZ_GLUE_H
#define LCTX_FUZZERS_FUZZ_GLUE_H

#include "fuzzcheck.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Reports a failed check on stderr, ending with the LCTX-FINDING line,
/// and aborts.
static inline void lctx_fuzz_glue_fail(const lctx_fuzz_result *result) {
  size_t n = strlen(result->report);
  bool newline = n > 0 && result->report[n - 1] != '\n';
  fprintf(stderr, "%s%sLCTX-FINDING %s\n", result->report, newline ? "\n" : "",
          result->key);
  fflush(stderr);
  abort();
}

/// Defines the libFuzzer entry point over `check`.
#define LCTX_FUZZ_TARGET(check)                                                \
  int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);                \
  int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {               \
    static lctx_fuzz_result result;                                            \
    if (check(data, size, &result))                                            \
      lctx_fuzz_glue_fail(&result);                                            \
    return 0;                                                                  \
  }

#endif /* LCTX_FUZZERS_FUZZ_GLUE_H */
