/*
 * fuzz_floor.c - two floors of fuzz_model under libFuzzer with the flags of
 * every target (ASan, UBSan, -fsanitize=fuzzer).
 *
 * Built twice. fuzz_floor_linked (LCTX_FLOOR_DECODE 0) links all of
 * fuzz_model's code, whose coverage counters libFuzzer scans after every
 * input, and runs none of it. fuzz_floor_decode (LCTX_FLOOR_DECODE 1)
 * decodes each input into a reused case as fuzz_model does first, and
 * checks nothing. Any fuzz_model, whatever its checks, does at least what
 * fuzz_floor_decode does: bench/bench_fuzz.sh runs both from the same grown
 * corpus and prints fuzz_model's exec/s over this floor's
 * (figure fuzz_model.vs_decode_floor).
 */
#include "case_bytes.h"
#include "fuzzcheck.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#ifndef LCTX_FLOOR_DECODE
#error "build with -DLCTX_FLOOR_DECODE=0 (linked) or 1 (decode)"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Kept reachable, so that the linker keeps fuzz_model's code and its
 * counters in the binary; never called on an input. */
bool (*volatile lctx_floor_check)(lctx_fuzz_state *, const uint8_t *, size_t,
                                  lctx_fuzz_result *) = lctx_fuzz_model;

static lctx_case *decoded;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  decoded = calloc(1, sizeof *decoded);
  if (!decoded)
    abort();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (LCTX_FLOOR_DECODE)
    lctx_case_decode_reuse(data, size, decoded);
  else if (!lctx_floor_check)
    abort();
  return 0;
}
