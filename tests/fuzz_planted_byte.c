/*
 * fuzz_planted_byte.c - a libFuzzer target, for tests only, with a planted
 * heap overflow that only a sanitizer sees: an input whose first byte is
 * 0xF7 reads one byte past a 4-byte heap buffer. Without AddressSanitizer
 * that read stays inside the allocator's chunk and nothing happens, so
 * the build without sanitizers (fuzz_planted_byte_fast) runs the input and
 * exits 0; the ASan+UBSan build (fuzz_planted_byte) reports a
 * heap-buffer-overflow. tests/test_fuzz_fast_triage.sh runs a fast
 * campaign on it: the triage must turn that input into a finding.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Not inlined, so that it is a frame of the report's stack. */
__attribute__((noinline)) static int planted_byte_read_past(const uint8_t *copy,
                                                            size_t size) {
  return copy[size];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0 || data[0] != 0xF7)
    return 0;
  uint8_t *copy = malloc(4);
  if (!copy)
    return 0;
  memcpy(copy, data, size < 4 ? size : 4);
  volatile int byte = planted_byte_read_past(copy, 4);
  (void)byte;
  free(copy);
  return 0;
}
