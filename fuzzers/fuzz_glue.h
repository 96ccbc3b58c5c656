/*
 * fuzz_glue.h - the one piece every fuzz target shares:
 * LCTX_FUZZ_TARGET(state, check) defines LLVMFuzzerInitialize and
 * LLVMFuzzerTestOneInput over a check of harness/core/checks/fuzzcheck.h
 * (or harness/ir/fuzzlower.h) and the state type of its family.
 *
 * Owns the target's one state: LLVMFuzzerInitialize creates it with
 * <state>_new (libFuzzer calls it before the first input; replay_main.c and
 * afl_main.c call it first thing; the first input calls it for an engine
 * that does not) and registers <state>_free with atexit;
 * every input runs the check with it. Owns the engine contract too: on a
 * failed check it writes the report, then the line `LCTX-FINDING <key>` to
 * stderr and aborts, so that libFuzzer, AFL++ and the replay driver all see
 * a crash, and `lctx fuzz` finds the key.
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

/// Reports that the check's state cannot be created, and aborts.
static inline void lctx_fuzz_glue_no_state(void) {
  fprintf(stderr, "lctx fuzz target: cannot create the check's state: out "
                  "of memory\n");
  fflush(stderr);
  abort();
}

/// Defines the libFuzzer entry points over `check`, whose state type is
/// `state` (created by state##_new, destroyed by state##_free).
#define LCTX_FUZZ_TARGET(state, check)                                         \
  static state *lctx_fuzz_glue_state;                                          \
  static void lctx_fuzz_glue_free(void) {                                      \
    state##_free(lctx_fuzz_glue_state);                                        \
    lctx_fuzz_glue_state = NULL;                                               \
  }                                                                            \
  int LLVMFuzzerInitialize(int *argc, char ***argv);                           \
  int LLVMFuzzerInitialize(int *argc, char ***argv) {                          \
    (void)argc;                                                                \
    (void)argv;                                                                \
    lctx_fuzz_glue_state = state##_new();                                      \
    if (!lctx_fuzz_glue_state)                                                 \
      lctx_fuzz_glue_no_state();                                               \
    atexit(lctx_fuzz_glue_free);                                               \
    return 0;                                                                  \
  }                                                                            \
  int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);                \
  int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {               \
    static lctx_fuzz_result result;                                            \
    if (!lctx_fuzz_glue_state) /* an engine that skips the initializer */      \
      LLVMFuzzerInitialize(NULL, NULL);                                        \
    if (check(lctx_fuzz_glue_state, data, size, &result))                      \
      lctx_fuzz_glue_fail(&result);                                            \
    return 0;                                                                  \
  }

#endif /* LCTX_FUZZERS_FUZZ_GLUE_H */
