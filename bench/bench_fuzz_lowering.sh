#!/bin/sh
# bench_fuzz_lowering.sh - fuzz_lowering's libFuzzer throughput as a ratio to
# fuzz_lowering_fixed, measured back to back in one run.
#
# Builds the fuzz preset (build/fuzz: clang-19, libFuzzer, ASan+UBSan) with
# fuzz_lowering (harness/ir/fuzzlower.c: decode a scenario, lower, emit and
# verify its module, run the IR checker) and fuzz_lowering_fixed
# (fuzzers/fuzz_lowering_fixed.c: emit and verify ONE fixed two-platform
# module per input, same flags, same reused-context recycling), then runs
# each for the same time with -seed=1, the same dictionary and max_len,
# starting from a copy of corpus/seeds/fuzz_lowering in a temporary folder.
# Reads exec/s from -print_final_stats=1 and prints both and the ratio
# fuzz_lowering / fuzz_lowering_fixed (goal: at least 0.5). Absolute exec/s on
# these machines are noisy; compare ratios.
#
# Usage: bench/bench_fuzz_lowering.sh [SECONDS]   (default 10; `make bench`)
set -eu

. "$(dirname -- "$0")/lib.sh"
secs=${1:-10}
bench_count "bench_fuzz_lowering.sh: error" SECONDS "$secs"

echo "==> bench_fuzz_lowering: fuzz_lowering against fuzz_lowering_fixed," \
  "${secs} s each, one process, -seed=1 (build/fuzz: libFuzzer, ASan+UBSan)"
bench_fuzz_ratio bench_fuzz_lowering.sh fuzz_lowering fuzz_lowering_fixed \
  'corpus/seeds/fuzz_lowering/*.bin' fuzzers/dict/fuzz_lowering.dict 256 \
  "$secs" ' (goal >= 0.5)'
