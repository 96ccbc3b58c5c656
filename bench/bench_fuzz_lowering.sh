#!/bin/sh
# bench_fuzz_lowering.sh - fuzz_lowering's libFuzzer throughput as a ratio to
# fuzz_lowering_fixed, measured back to back in one run.
#
# Builds the fuzz preset (build/fuzz: clang-19, libFuzzer, ASan+UBSan) with
# fuzz_lowering (harness/fuzzlower.c: decode a scenario, lower, emit and
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

top=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
secs=${1:-10}
case "$secs" in
'' | *[!0-9]*)
  echo "bench_fuzz_lowering.sh: error: SECONDS must be a positive integer," \
    "not '$secs'" >&2
  exit 2
  ;;
esac

cd "$top"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target fuzz_lowering fuzz_lowering_fixed \
  >/dev/null

work=$(mktemp -d "${TMPDIR:-/tmp}/lctx-bench-fuzz-lowering.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# run TARGET: prints "EXECS_PER_SEC UNITS"
run() {
  mkdir -p "$work/$1"
  for f in corpus/seeds/fuzz_lowering/*.bin; do
    [ -f "$f" ] && cp -- "$f" "$work/$1/"
  done
  if ! build/fuzz/fuzzers/"$1" -seed=1 -max_total_time="$secs" \
    -print_final_stats=1 -dict=fuzzers/dict/fuzz_lowering.dict -max_len=256 \
    -artifact_prefix="$work/" "$work/$1" >"$work/$1.log" 2>&1; then
    echo "bench_fuzz_lowering.sh: error: $1 failed; its log:" >&2
    tail -n 30 "$work/$1.log" >&2
    exit 1
  fi
  awk '/^stat::average_exec_per_sec:/ { eps = $2 }
       /^stat::number_of_executed_units:/ { units = $2 }
       END { if (eps == "") exit 1; print eps, units }' "$work/$1.log"
}

echo "==> bench_fuzz_lowering: fuzz_lowering against fuzz_lowering_fixed," \
  "${secs} s each, one process, -seed=1 (build/fuzz: libFuzzer, ASan+UBSan)"
lowering=$(run fuzz_lowering)
fixed=$(run fuzz_lowering_fixed)
echo "$lowering $fixed" | awk '{
  printf "fuzz_lowering:       %10d exec/s (%d inputs)\n", $1, $2
  printf "fuzz_lowering_fixed: %10d exec/s (%d inputs)\n", $3, $4
  if ($3 > 0)
    printf "ratio fuzz_lowering/fuzz_lowering_fixed: %.3f (goal >= 0.5)\n", $1 / $3
}'
