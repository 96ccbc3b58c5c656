#!/bin/sh
# bench_fuzz.sh - fuzz_model's libFuzzer throughput as a ratio to an empty
# target, measured back to back in one run.
#
# Builds the fuzz preset (build/fuzz: clang-19, libFuzzer, ASan+UBSan) with
# fuzz_model and fuzz_empty (fuzzers/fuzz_empty.c, `return 0;`, compiled and
# linked with exactly the same flags), then runs each, one after the other,
# for the same time in a single process with -seed=1, the same dictionary
# and max_len, starting from a copy of corpus/seeds/fuzz_model in a temporary
# folder. Reads exec/s from -print_final_stats=1 (stat::average_exec_per_sec)
# and prints both and the ratio fuzz_model / fuzz_empty, the figure to
# compare across changes (absolute exec/s on these machines are noisy).
# Then the two floors of fuzzers/fuzz_floor.c the same way: fuzz_floor_linked
# (fuzz_model's code linked, none of it run) and fuzz_floor_decode (each
# input decoded as fuzz_model does, nothing checked). fuzz_model's ratio
# cannot exceed fuzz_floor_decode's, whatever its checks cost.
#
# Usage: bench/bench_fuzz.sh [SECONDS]   (default 10; `make bench` runs it)
set -eu

. "$(dirname -- "$0")/lib.sh"
secs=${1:-10}
bench_count "bench_fuzz.sh: error" SECONDS "$secs"

echo "==> bench_fuzz: fuzz_model against an empty target, ${secs} s each," \
  "one process, -seed=1 (build/fuzz: libFuzzer, ASan+UBSan)"
bench_fuzz_ratio bench_fuzz.sh fuzz_model fuzz_empty \
  'corpus/seeds/fuzz_model/*' fuzzers/dict/fuzz_model.dict 4096 "$secs" '' \
  fuzz_floor_linked fuzz_floor_decode
