/*
 * fuzz_glue.h - the one piece every fuzz target shares:
 * LCTX_FUZZ_TARGET(state, check) defines LLVMFuzzerInitialize and
 * LLVMFuzzerTestOneInput over a check of harness/core/checks/fuzzcheck.h
 * (or harness/ir/fuzzlower.h) and the state type of its family.
 *
 * Owns the target's one state and its one-time set-up: LLVMFuzzerInitialize
 * creates it with <state>_new, registers <state>_free with atexit, then runs
 * the check once on the empty input, so that everything a check sets up on
 * its first input (the embedded spec table parsed, fuzz_differential's
 * implementation loaded) is done there, before any input is timed or
 * forked (libFuzzer and AFL++'s libAFLDriver call it before the first
 * input; replay_main.c calls it first thing; the first input calls it for
 * an engine that does not). A set-up that fails (the table does not parse,
 * no implementation) is reported there as a finding. Every input runs the
 * check with the state. Owns the engine contract too: on a
 * failed check it writes the report, then the line
 * `ASSERTION FAILED: <key>`, then `LCTX-FINDING <key>` (the marker and key
 * grammar of harness/core/checks/finding_key.h) to stderr and aborts,
 * so that libFuzzer, AFL++ and the replay driver all see a crash, and
 * `lctx fuzz` finds the key.
 *
 * The ASSERTION FAILED line is for ClusterFuzz (OSS-Fuzz, ClusterFuzzLite):
 * every finding aborts from the same frames, so without it all of them
 * would share one crash state and be filed as one bug. ClusterFuzz's stack
 * analyzer takes a line matching ASSERT_REGEX of
 * src/clusterfuzz/stacktraces/constants.py in google/clusterfuzz
 * (`ASSERT(ION)? FAIL(URE|ED): (.*)`, case-insensitive) as an ASSERT crash
 * whose state starts with the captured text, here the semantic key;
 * tests/test_crash_state.sh reduces the output by those rules.
 */
#ifndef LCTX_FUZZERS_FUZZ_GLUE_H
#define LCTX_FUZZERS_FUZZ_GLUE_H

#include "finding_key.h"
#include "fuzzcheck.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Reports a failed check on stderr, ending with the LCTX-FINDING line
/// (finding_key.h: the marker at the start of a line), and aborts.
static inline void lctx_fuzz_glue_fail(const lctx_fuzz_result *result) {
  size_t n = strlen(result->report);
  bool newline = n > 0 && result->report[n - 1] != '\n';
  fprintf(stderr, "%s%sASSERTION FAILED: %s\n" LCTX_FINDING_MARKER "%s\n",
          result->report, newline ? "\n" : "", result->key, result->key);
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
    static lctx_fuzz_result setup;                                             \
    static const uint8_t empty[1];                                             \
    if (check(lctx_fuzz_glue_state, empty, 0, &setup))                         \
      lctx_fuzz_glue_fail(&setup);                                             \
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
