/*
 * fuzz_planted_overflow.c - a libFuzzer target with a planted heap overflow:
 * every input of at least one byte reads one byte past its heap copy, so
 * that AddressSanitizer reports it. tests/test_crash_state.sh runs a
 * campaign on it to check how lctx keys a sanitizer's finding.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Not inlined, so that it is a frame of the report's stack. */
__attribute__((noinline)) static int planted_read_past_end(const uint8_t *copy,
                                                           size_t size) {
  return copy[size];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  uint8_t *copy = malloc(size);
  if (!copy)
    return 0;
  memcpy(copy, data, size);
  volatile int byte = planted_read_past_end(copy, size);
  (void)byte;
  free(copy);
  return 0;
}
