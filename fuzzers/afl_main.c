/*
 * afl_main.c - the AFL++ persistent-mode driver: a main that feeds AFL++'s
 * shared-memory test cases to a fuzz target's LLVMFuzzerTestOneInput,
 * 10000 inputs per forked process. Linked with one target as
 * `<target>_afl`; compiled only with afl-clang-fast (the __AFL_* macros
 * come from that compiler). A failing input aborts inside the target after
 * its `LCTX-FINDING <key>` line, which afl-fuzz records as a crash.
 *
 * Run: afl-fuzz -i corpus/seeds/<target> -o OUT -x fuzzers/dict/<target>.dict
 *        -- build/afl/fuzzers/<target>_afl
 * Outside afl-fuzz it runs the input given on stdin once.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Under ASan (AFL_USE_ASAN=1 at build time) each input is copied into a heap
   block of exactly its size, so that a read past its end is reported; AFL++'s
   shared buffer is larger than the input. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LCTX_AFL_COPY_INPUT 1
#endif
#endif
#if !defined(LCTX_AFL_COPY_INPUT) && defined(__SANITIZE_ADDRESS__)
#define LCTX_AFL_COPY_INPUT 1
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

__AFL_FUZZ_INIT();

int main(int argc, char **argv) {
  /* The check's state (fuzz_glue.h), then one empty input, both before the
     fork server starts, so that all set-up (the state; what a check does on
     its first input, as fuzz_model parsing the embedded spec table) happens
     in the parent: otherwise the first input of every forked child takes
     extra edges, and AFL++ reports the target as unstable. */
  LLVMFuzzerInitialize(&argc, &argv);
  static const uint8_t empty[1];
  LLVMFuzzerTestOneInput(empty, 0);
  __AFL_INIT();
  /* Must be read after __AFL_INIT and before __AFL_LOOP. */
  const unsigned char *buffer = __AFL_FUZZ_TESTCASE_BUF;
  while (__AFL_LOOP(10000)) {
    size_t size = (size_t)__AFL_FUZZ_TESTCASE_LEN;
#ifdef LCTX_AFL_COPY_INPUT
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
      abort();
    memcpy(copy, buffer, size);
    LLVMFuzzerTestOneInput(copy, size);
    free(copy);
#else
    LLVMFuzzerTestOneInput(buffer, size);
#endif
  }
  return 0;
}
