#!/bin/sh
# bench_fuzz.sh - fuzz throughput in one run: fuzz_model against its
# decode-only floor from the same grown corpus, and `lctx fuzz` campaigns,
# each optionally against a baseline build of an earlier commit.
#
# Builds the fuzz preset (build/fuzz: libFuzzer, ASan+UBSan, NDEBUG) with
# fuzz_model and fuzz_floor_decode (fuzzers/fuzz_floor.c: each input
# decoded as fuzz_model does, nothing checked), the fuzz-fast preset's
# fuzz_model (no sanitizers) and the release lctx. Then:
#   1. grows one corpus: GROW seconds (default 20) of fuzz_model from
#      corpus/seeds/fuzz_model;
#   2. runs fuzz_floor_decode and fuzz_model (and the baseline's
#      fuzz_floor_decode) for SECONDS each, ROUNDS times (default 3)
#      alternating, inputs summed over the rounds, with the same flags (-seed=1, the
#      dictionary, -max_len=4096), each over its own copy of the grown
#      corpus in the same temporary folder, and prints their exec/s and
#      figure fuzz_model.vs_decode_floor (goal >= 0.7),
#      figure fuzz_floor_decode.exec_per_s and, with BENCH_FUZZ_BASELINE,
#      figure fuzz_floor_decode.vs_baseline (goal >= 1.5);
#   3. runs a default `lctx fuzz` campaign of fuzz_model for SECONDS (lctx's
#      own sanitizer options and working corpus), the same with --fast, and
#      with BENCH_FUZZ_BASELINE_LCTX the baseline lctx's default campaign of
#      the baseline's fuzz_model, each from the seeds in a folder of its own,
#      ROUNDS times alternating;
#      prints figure campaign.exec_per_s, figure campaign_fast.exec_per_s
#      and their vs_baseline (goals >= 1.5 and >= 3): exec/s as a campaign
#      reports it, its inputs run over its seconds (OUT/progress.jsonl).
#      With BENCH_FUZZ_BEFORE_LCTX (another lctx, e.g. an earlier commit's,
#      run with this tree's fuzz build) its default campaign too, and figure
#      campaign.vs_before; for each campaign, figure NAME.execs_per_cpu_s,
#      its inputs over the CPU seconds of lctx and what it waited for
#      (steadier than wall seconds on a loaded machine).
# The machine is shared and noisy: the ratios of one run are the figures;
# the load average is printed before and after.
#
# Environment: BENCH_FUZZ_BASELINE, a fuzz build folder (the fuzz preset's
# build/fuzz) of the baseline commit, holding fuzzers/fuzz_floor_decode and
# fuzzers/fuzz_model; BENCH_FUZZ_BASELINE_LCTX, that commit's lctx; GROW,
# the seconds that grow the corpus.
# Usage: bench/bench_fuzz.sh [SECONDS]   (default 10; `make bench` runs it)
set -eu

. "$(dirname -- "$0")/lib.sh"
secs=${1:-10}
grow=${GROW:-20}
bench_count "bench_fuzz.sh: error" SECONDS "$secs"
bench_count "bench_fuzz.sh: error" GROW "$grow"
base=${BENCH_FUZZ_BASELINE:-}
base_lctx=${BENCH_FUZZ_BASELINE_LCTX:-}
before_lctx=${BENCH_FUZZ_BEFORE_LCTX:-}
if [ -n "$before_lctx" ] && [ ! -x "$before_lctx" ]; then
  echo "bench_fuzz.sh: error: BENCH_FUZZ_BEFORE_LCTX: no lctx $before_lctx" >&2
  exit 2
fi
for f in ${base:+"$base/fuzzers/fuzz_floor_decode"} \
  ${base_lctx:+"$base/fuzzers/fuzz_model"}; do
  [ -x "$f" ] || {
    echo "bench_fuzz.sh: error: no baseline build $f (BENCH_FUZZ_BASELINE)" >&2
    exit 2
  }
done
if [ -n "$base_lctx" ] && { [ -z "$base" ] || [ ! -x "$base_lctx" ]; }; then
  echo "bench_fuzz.sh: error: BENCH_FUZZ_BASELINE_LCTX needs an lctx and BENCH_FUZZ_BASELINE" >&2
  exit 2
fi

cd "$top"
echo "==> bench_fuzz: building (fuzz: fuzz_model fuzz_floor_decode;" \
  "fuzz-fast: fuzz_model; release: lctx)"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target fuzz_model fuzz_floor_decode >/dev/null
cmake --preset fuzz-fast >/dev/null
cmake --build --preset fuzz-fast --target fuzz_model >/dev/null
cmake --preset release >/dev/null
cmake --build --preset release --target lctx >/dev/null
lctx=build/release/harness/lctx
dict=fuzzers/dict/fuzz_model.dict

work=$(mktemp -d "${TMPDIR:-/tmp}/lctx-bench-fuzz.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# 1. One grown corpus.
mkdir -p "$work/grown"
cp corpus/seeds/fuzz_model/*.bin "$work/grown/"
bench_libfuzzer build/fuzz/fuzzers/fuzz_model "$work/grown" "$dict" 4096 \
  "$grow" "$work/grow.log" >/dev/null
echo "==> grown corpus: $(ls "$work/grown" | wc -l) inputs after ${grow} s of" \
  "fuzz_model; each run below starts from a copy of it in $work"

# 2. fuzz_model and its decode floor, same flags, same corpus; ROUNDS
# rounds (default 3), alternating, each binary's inputs summed over its
# rounds (the machine's load moves between runs).
rounds=${ROUNDS:-3}
bench_count "bench_fuzz.sh: error" ROUNDS "$rounds"
run() { # NAME BINARY: one round; appends "UNITS SECONDS" to $work/NAME.sum
  rm -rf "$work/run-$1"
  cp -R "$work/grown" "$work/run-$1"
  r=$(bench_libfuzzer "$2" "$work/run-$1" "$dict" 4096 "$secs" "$work/$1.log")
  echo "$r" | awk '{ print $2, $2 / $1 }' >>"$work/$1.sum"
}
total() { # NAME: prints "EXECS_PER_SEC UNITS" over its rounds, and the line
  awk -v n="$1" '{ u += $1; t += $2 } END {
    printf "%s: %d exec/s (%d inputs in %.1f s)\n", n, u / t, u, t > "/dev/stderr"
    printf "%.0f %d\n", u / t, u }' "$work/$1.sum"
}
i=0
while [ "$i" -lt "$rounds" ]; do
  run fuzz_floor_decode build/fuzz/fuzzers/fuzz_floor_decode
  run fuzz_model build/fuzz/fuzzers/fuzz_model
  [ -z "$base" ] || run baseline_fuzz_floor_decode "$base/fuzzers/fuzz_floor_decode"
  i=$((i + 1))
done
floor=$(total fuzz_floor_decode)
model=$(total fuzz_model)
echo "$model $floor" | awk '{ printf "figure fuzz_model.vs_decode_floor: %.3f\n", $1 / $3 }'
echo "$floor" | awk '{ printf "figure fuzz_floor_decode.exec_per_s: %d\n", $1 }'
if [ -n "$base" ]; then
  old=$(total baseline_fuzz_floor_decode)
  echo "$floor $old" | awk '{ printf "figure fuzz_floor_decode.vs_baseline: %.3f\n", $1 / $3 }'
fi

# 3. Campaigns: default, --fast, and the baseline's default.
unset ASAN_OPTIONS LCTX_FUZZ_NO_TMPFS
campaign() { # NAME LCTX [OPTION...]: one round, appended to NAME.sum
  n=$1 l=$2
  shift 2
  rm -rf "$work/campaign-$n"
  r=$(bench_campaign "$l" "$work/campaign-$n" "$secs" "$work/campaign-$n.log" "$@")
  echo "$r" | awk '{ print $2, $3, $4 }' >>"$work/$n.sum"
}
per_cpu() { # NAME: prints "figure NAME.execs_per_cpu_s: N" over its rounds
  awk -v n="$1" '{ u += $1; c += $3 } END {
    if (c > 0) printf "figure %s.execs_per_cpu_s: %d\n", n, u / c }' "$work/$1.sum"
}
i=0
while [ "$i" -lt "$rounds" ]; do
  [ -z "$base_lctx" ] ||
    campaign baseline_campaign "$base_lctx" --binary "$base/fuzzers/fuzz_model"
  [ -z "$before_lctx" ] ||
    campaign before_campaign "$before_lctx" --binary "$top/build/fuzz/fuzzers/fuzz_model"
  campaign campaign "$lctx"
  campaign campaign_fast "$lctx" --fast
  i=$((i + 1))
done
[ -z "$base_lctx" ] || camp_old=$(total baseline_campaign)
camp=$(total campaign)
fast=$(total campaign_fast)
echo "$camp" | awk '{ printf "figure campaign.exec_per_s: %d\n", $1 }'
echo "$fast" | awk '{ printf "figure campaign_fast.exec_per_s: %d\n", $1 }'
if [ -n "$base_lctx" ]; then
  echo "$camp $camp_old" | awk '{ printf "figure campaign.vs_baseline: %.3f\n", $1 / $3 }'
  echo "$fast $camp_old" | awk '{ printf "figure campaign_fast.vs_baseline: %.3f\n", $1 / $3 }'
fi
if [ -n "$before_lctx" ]; then
  camp_before=$(total before_campaign)
  echo "$camp $camp_before" | awk '{ printf "figure campaign.vs_before: %.3f\n", $1 / $3 }'
fi
for n in campaign campaign_fast ${base_lctx:+baseline_campaign} \
  ${before_lctx:+before_campaign}; do
  per_cpu "$n"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
