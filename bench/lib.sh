# bench/lib.sh - shared by the bench scripts, which source it: the project's
# top folder, the check of their one numeric argument, and the libFuzzer
# throughput of a fuzz target against a baseline target.

top=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)

# bench_count PREFIX NAME VALUE: exits 2 with "PREFIX: NAME must be a
# positive integer, not 'VALUE'" unless VALUE is all digits.
bench_count() {
  case "$3" in
  '' | *[!0-9]*)
    echo "$1: $2 must be a positive integer, not '$3'" >&2
    exit 2
    ;;
  esac
}

# bench_fuzz_ratio SCRIPT TARGET BASE SEEDS DICT MAX_LEN SECS RATIO_NOTE
#   [OTHER...]
# Builds the fuzz preset's TARGET and BASE, runs each for SECS seconds with
# -seed=1, the dictionary DICT and MAX_LEN, each from a copy of the seed files
# SEEDS (a glob) in a temporary folder, and prints their exec/s and the ratio
# TARGET / BASE followed by RATIO_NOTE; then the same for each OTHER target
# against BASE (no note). Errors are prefixed with SCRIPT.
bench_fuzz_ratio() {
  script=$1 target=$2 base=$3 seeds=$4 dict=$5 max_len=$6 secs=$7 note=$8
  shift 8
  cd "$top"
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz --target "$target" "$base" "$@" >/dev/null

  work=$(mktemp -d "${TMPDIR:-/tmp}/lctx-$(echo "${script%.sh}" | tr _ -).XXXXXX")
  trap 'rm -rf -- "$work"' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM

  a=$(bench_fuzz_run "$target")
  b=$(bench_fuzz_run "$base")
  width=$((${#base} > ${#target} ? ${#base} + 1 : ${#target} + 1))
  echo "$a $b" | awk -v t="$target" -v b="$base" -v w="$width" -v n="$note" '{
  printf "%-" w "s %10d exec/s (%d inputs)\n", t ":", $1, $2
  printf "%-" w "s %10d exec/s (%d inputs)\n", b ":", $3, $4
  if ($3 > 0)
    printf "ratio %s/%s: %.3f%s\n", t, b, $1 / $3, n
}'
  for other in "$@"; do
    c=$(bench_fuzz_run "$other")
    echo "$c $b" | awk -v t="$other" -v b="$base" '{
  printf "%-" (length(t) + 1) "s %10d exec/s (%d inputs)\n", t ":", $1, $2
  if ($3 > 0)
    printf "ratio %s/%s: %.3f\n", t, b, $1 / $3
}'
  done
}

# bench_fuzz_run TARGET: runs it as bench_fuzz_ratio says; prints
# "EXECS_PER_SEC UNITS".
bench_fuzz_run() {
  mkdir -p "$work/$1"
  for f in $seeds; do
    [ -f "$f" ] && cp -- "$f" "$work/$1/"
  done
  bench_libfuzzer build/fuzz/fuzzers/"$1" "$work/$1" "$dict" "$max_len" \
    "$secs" "$work/$1.log"
}

# bench_libfuzzer BINARY CORPUS DICT MAX_LEN SECS LOG: runs the libFuzzer
# build BINARY for SECS seconds with -seed=1 over the folder CORPUS (the
# only one: new inputs go there too), the dictionary DICT and MAX_LEN, its
# output to LOG; prints "EXECS_PER_SEC UNITS" (-print_final_stats=1), or
# exits 1 with the end of LOG.
bench_libfuzzer() {
  if ! "$1" -seed=1 -max_total_time="$5" -print_final_stats=1 -dict="$3" \
    -max_len="$4" -artifact_prefix="$(dirname -- "$6")/" "$2" >"$6" 2>&1; then
    echo "bench: error: $1 failed; its log:" >&2
    tail -n 30 "$6" >&2
    exit 1
  fi
  awk '/^stat::average_exec_per_sec:/ { eps = $2 }
       /^stat::number_of_executed_units:/ { units = $2 }
       END { if (eps == "") exit 1; print eps, units }' "$6"
}

# bench_campaign LCTX OUT SECS LOG [OPTION...]: a default `lctx fuzz`
# campaign of fuzz_model for SECS seconds into OUT (output to LOG), with
# the OPTIONs; prints its exec/s as the campaign reports it: the inputs run
# over the seconds, from the last point of OUT/progress.jsonl (written when
# the engine ended), the inputs, the seconds, and the CPU seconds (user +
# system) of lctx and every process it waited for (the engines, the
# triage and the minimizing at the end included). Exits 1 when it ran
# nothing.
bench_campaign() {
  l=$1 o=$2 s=$3 log=$4
  shift 4
  /usr/bin/time -f "%U %S" -o "$log.cpu" \
    "$l" fuzz --engine libfuzzer --target fuzz_model --time "$s" --out "$o" \
    "$@" >"$log" 2>&1 || true
  cpu=$(tail -n 1 "$log.cpu" | awk '{ printf "%.2f", $1 + $2 }')
  tail -n 1 "$o/progress.jsonl" 2>/dev/null | tr -d '{}",' | awk -v cpu="$cpu" '
    { for (i = 1; i < NF; i++) {
        if ($i == "seconds:") t = $(i + 1)
        if ($i == "execs:") n = $(i + 1) } }
    END { if (n == "" || t == "" || t == 0 || n == 0) exit 1
          printf "%.0f %d %.1f %s\n", n / t, n, t, cpu }' || {
    echo "bench: error: the campaign of $l ran nothing; its output:" >&2
    tail -n 20 "$log" >&2
    exit 1
  }
}
