/*
 * fuzz_empty.c - an empty libFuzzer target: the baseline of
 * bench/bench_fuzz.sh. Built with exactly the flags of the real targets, it
 * measures what the engine and the instrumentation cost by themselves, so
 * that fuzz_model's exec/s can be reported as a ratio to it.
 */
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  (void)data;
  (void)size;
  return 0;
}
