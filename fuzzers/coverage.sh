#!/bin/sh
# fuzzers/coverage.sh - make coverage: clang source-based coverage of
# reference/ and harness/ by the fuzz corpora. Replays through every replay
# driver of the coverage preset (build/coverage) the target's seeds, its
# regressions and, when there is one, a campaign's corpus
# (lctx-fuzz/<target>-libfuzzer/corpus, or COVERAGE_CORPUS=DIR/<target>),
# merges the profiles with llvm-profdata, and writes
#   build/coverage/html/index.html   llvm-cov's HTML report
#   build/coverage/summary.txt       line and branch coverage of reference/
#                                    and harness/ (also printed)
# Usage: fuzzers/coverage.sh [SOURCE_DIR]
set -eu
ROOT=${1:-.}
cd "$ROOT"
ROOT_ABS=$(pwd)
OUT=build/coverage
PROFDATA=${LLVM_PROFDATA:-llvm-profdata-19}
COV=${LLVM_COV:-llvm-cov-19}
CAMPAIGNS=${COVERAGE_CORPUS:-lctx-fuzz}

rm -rf "$OUT/profiles" "$OUT/html"
mkdir -p "$OUT/profiles"
objects=""
for driver in "$OUT"/fuzzers/*_replay; do
  [ -x "$driver" ] || continue
  target=$(basename "$driver" _replay)
  dirs=""
  for d in "corpus/seeds/$target" "corpus/regressions/$target" \
    "$CAMPAIGNS/$target-libfuzzer/corpus" "$CAMPAIGNS/$target"; do
    [ -d "$d" ] && dirs="$dirs $d"
  done
  [ -n "$dirs" ] || continue
  echo "coverage: $target:$dirs"
  # A failing input stops a driver; its profile up to there still counts.
  # shellcheck disable=SC2086
  LLVM_PROFILE_FILE="$OUT/profiles/$target-%p.profraw" "$driver" $dirs \
    >"$OUT/profiles/$target.log" 2>&1 ||
    echo "coverage: $target: an input failed (see $OUT/profiles/$target.log)"
  objects="$objects -object $driver"
done
[ -n "$objects" ] || {
  echo "coverage: no replay driver in $OUT/fuzzers (cmake --preset coverage && cmake --build --preset coverage)" >&2
  exit 2
}
"$PROFDATA" merge -sparse "$OUT"/profiles/*.profraw -o "$OUT/coverage.profdata"
# shellcheck disable=SC2086
set -- $objects
shift # the first -object
"$COV" show -format=html -output-dir="$OUT/html" \
  -instr-profile="$OUT/coverage.profdata" -show-branches=count "$@" \
  reference harness >/dev/null

# The TOTAL line of llvm-cov report: regions, functions, lines, branches
# (each: count, missed, percent).
total() {
  "$COV" report -instr-profile="$OUT/coverage.profdata" "$@" |
    awk '/^TOTAL/ { printf "lines %s of %s (%s), branches %s of %s (%s)\n",
                    $8 - $9, $8, $10, $11 - $12, $11, $13 }'
}
{
  echo "coverage of the fuzz corpora (seeds, regressions, campaign corpora):"
  printf '  reference/: %s\n' "$(total "$@" "$ROOT_ABS/reference")"
  printf '  harness/:   %s\n' "$(total "$@" "$ROOT_ABS/harness")"
  echo "  HTML: $OUT/html/index.html"
} >"$OUT/summary.txt"
cat "$OUT/summary.txt"
