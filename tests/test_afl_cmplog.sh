#!/bin/sh
# test_afl_cmplog.sh - pins an AFL++ campaign with the afl preset's builds
# (skipped, exit 77, when build/afl has not built them):
#   1. `lctx fuzz --engine afl --jobs 2` runs the main instance without -c
#      and secondary1 with `-c` and the target's CMPLOG build, whose
#      forkserver starts, and says so;
#   2. the campaign minimizes AFL++'s main queue with afl-cmin into
#      OUT/corpus when it ends, with the counts in summary.txt;
#   3. the AFL++ build (libAFLDriver) runs a file argument once;
#   4. `--corpus EMPTY_DIR` starts AFL++ from the seeds (AFL++ itself
#      refuses an empty input folder) and runs inputs.
# `make test` builds them first and sets LCTX_REQUIRE_AFL=1: then a missing
# build or afl-fuzz is a failure, not a skip.
# Usage: test_afl_cmplog.sh LCTX AFL_FUZZERS_DIR
set -u
LCTX=$1
AFL=$2
if [ ! -x "$AFL/fuzz_spec_afl" ] || [ ! -x "$AFL/fuzz_spec_cmplog" ] ||
  ! command -v afl-fuzz >/dev/null 2>&1; then
  what="no $AFL/fuzz_spec_afl and fuzz_spec_cmplog, or no afl-fuzz (cmake --preset afl && cmake --build --preset afl)"
  if [ "${LCTX_REQUIRE_AFL:-}" = 1 ]; then
    echo "FAIL: LCTX_REQUIRE_AFL=1 and $what"
    exit 1
  fi
  echo "SKIPPED: $what"
  exit 77
fi
. "$(dirname -- "$0")/lib.sh"

# Sanitizer options of the user's own, without the ones afl-fuzz insists on
# (it aborts on ASAN_OPTIONS without symbolize=0): the campaign adds them.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1
"$LCTX" fuzz --engine afl --jobs 2 --time 6 --target fuzz_spec \
  --binary "$AFL/fuzz_spec_afl" --out "$tmp/c" >"$tmp/run.txt" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "lctx fuzz exited $rc: $(tail -n 20 "$tmp/run.txt")"
grep -q "secondary1 runs with CMPLOG: -c $AFL/fuzz_spec_cmplog" "$tmp/run.txt" ||
  fail "no CMPLOG line: $(head -n 5 "$tmp/run.txt")"
grep -q "^command_line.* -S secondary1 .*-c $AFL/fuzz_spec_cmplog " \
  "$tmp/c/afl/secondary1/fuzzer_stats" || fail "secondary1 ran without -c"
grep -q "^command_line.* -c " "$tmp/c/afl/main/fuzzer_stats" &&
  fail "the main instance ran with -c"
grep -q "Cmplog forkserver successfully started" "$tmp/c/logs/afl-secondary1.log" ||
  fail "the CMPLOG forkserver did not start"

# 2. The main queue minimized into OUT/corpus.
n=$(ls "$tmp/c/corpus" | wc -l)
queue=$(ls "$tmp/c/afl/main/queue" | grep -c '^id:')
[ "$n" -gt 0 ] && [ "$n" -le "$queue" ] ||
  fail "OUT/corpus has $n inputs for a queue of $queue"
grep -q "corpus minimized (afl-cmin): $queue -> $n inputs" "$tmp/c/summary.txt" ||
  fail "summary: $(cat "$tmp/c/summary.txt")"

# 3. libAFLDriver runs a file argument once (the key run of a finding).
printf 'x' >"$tmp/one"
"$AFL/fuzz_spec_afl" "$tmp/one" >"$tmp/one.txt" 2>&1 ||
  fail "the AFL++ build failed on a file argument: $(cat "$tmp/one.txt")"
# 4. An empty --corpus: AFL++ starts from the seeds.
mkdir "$tmp/empty"
"$LCTX" fuzz --engine afl --time 2 --target fuzz_spec --corpus "$tmp/empty" \
  --binary "$AFL/fuzz_spec_afl" --out "$tmp/e" >"$tmp/empty.txt" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "empty --corpus: lctx fuzz exited $rc: $(tail -n 20 "$tmp/empty.txt")"
grep -q "is empty: AFL++ starts from the seeds" "$tmp/empty.txt" ||
  fail "empty --corpus: not said: $(head -n 5 "$tmp/empty.txt")"
grep -q "no usable test cases" "$tmp/e/logs/afl-main.log" &&
  fail "empty --corpus: AFL++ found no usable test cases"
finish_failures "test_afl_cmplog: "
echo "test_afl_cmplog: ok"
