#!/bin/sh
# fuzzers/coverage.sh - make coverage: clang source-based coverage of
# reference/ and harness/ by the fuzz corpora. Replays through every replay
# driver of the coverage preset (build/coverage) the target's seeds, its
# regressions and, when there is one, a campaign's corpus
# (lctx-fuzz/<target>-libfuzzer/corpus, or COVERAGE_CORPUS=DIR/<target>),
# and runs the coverage build of lctx (check-spec, conform of the example
# plugin),
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
# lctx itself, for harness/process, report, commands and cli: check-spec over the
# whole domain, and conform of the example plugin (the conformance cases
# and 300 random cases).
lctx_bin="$OUT/harness/lctx"
plugin="$OUT/conformance/examples/c_plugin/liblctx_example_plugin.so"
if [ -x "$lctx_bin" ]; then
  echo "coverage: lctx check-spec, lctx conform of the example plugin"
  LLVM_PROFILE_FILE="$OUT/profiles/lctx-%p.profraw" "$lctx_bin" check-spec \
    --quiet >"$OUT/profiles/lctx-check-spec.log" 2>&1 ||
    echo "coverage: lctx check-spec failed (see $OUT/profiles/lctx-check-spec.log)"
  if [ -f "$plugin" ]; then
    rm -rf "$OUT/conform"
    LLVM_PROFILE_FILE="$OUT/profiles/lctx-%p.profraw" "$lctx_bin" conform \
      --impl "$plugin" --no-domain --random 300 --quiet \
      --report-dir "$OUT/conform" >"$OUT/profiles/lctx-conform.log" 2>&1 ||
      echo "coverage: lctx conform failed (see $OUT/profiles/lctx-conform.log)"
  fi
  objects="$objects -object $lctx_bin"
fi
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
  echo "coverage of the fuzz corpora (seeds, regressions, campaign corpora)," \
    "lctx check-spec and lctx conform of the example plugin:"
  printf '  reference/: %s\n' "$(total "$@" "$ROOT_ABS/reference")"
  printf '  harness/:   %s\n' "$(total "$@" "$ROOT_ABS/harness")"
  echo "  HTML: $OUT/html/index.html"
} >"$OUT/summary.txt"
cat "$OUT/summary.txt"
