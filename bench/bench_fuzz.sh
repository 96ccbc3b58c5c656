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
#
# Usage: bench/bench_fuzz.sh [SECONDS]   (default 10; `make bench` runs it)
set -eu

top=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
secs=${1:-10}
case "$secs" in
'' | *[!0-9]*)
  echo "bench_fuzz.sh: error: SECONDS must be a positive integer, not '$secs'" >&2
  exit 2
  ;;
esac

cd "$top"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target fuzz_model fuzz_empty >/dev/null

work=$(mktemp -d "${TMPDIR:-/tmp}/lctx-bench-fuzz.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# run TARGET: prints "EXECS_PER_SEC UNITS"
run() {
  mkdir -p "$work/$1"
  for f in corpus/seeds/fuzz_model/*; do
    [ -f "$f" ] && cp -- "$f" "$work/$1/"
  done
  if ! build/fuzz/fuzzers/"$1" -seed=1 -max_total_time="$secs" \
    -print_final_stats=1 -dict=fuzzers/dict/fuzz_model.dict -max_len=4096 \
    -artifact_prefix="$work/" "$work/$1" >"$work/$1.log" 2>&1; then
    echo "bench_fuzz.sh: error: $1 failed; its log:" >&2
    tail -n 30 "$work/$1.log" >&2
    exit 1
  fi
  awk '/^stat::average_exec_per_sec:/ { eps = $2 }
       /^stat::number_of_executed_units:/ { units = $2 }
       END { if (eps == "") exit 1; print eps, units }' "$work/$1.log"
}

echo "==> bench_fuzz: fuzz_model against an empty target, ${secs} s each," \
  "one process, -seed=1 (build/fuzz: libFuzzer, ASan+UBSan)"
model=$(run fuzz_model)
empty=$(run fuzz_empty)
echo "$model $empty" | awk '{
  printf "fuzz_model: %10d exec/s (%d inputs)\n", $1, $2
  printf "fuzz_empty: %10d exec/s (%d inputs)\n", $3, $4
  if ($3 > 0)
    printf "ratio fuzz_model/fuzz_empty: %.3f\n", $1 / $3
}'
