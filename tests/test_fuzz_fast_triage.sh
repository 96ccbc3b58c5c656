#!/bin/sh
# test_fuzz_fast_triage.sh - pins `lctx fuzz --fast`, the working corpus on
# a tmpfs and the campaign's sanitizer options, with a planted heap
# overflow only AddressSanitizer sees (tests/fuzz_planted_byte.c: an input
# starting with byte 0xF7 reads one byte past a 4-byte heap buffer):
#   1. the fast build (no sanitizers) alone runs such an input and exits 0;
#      the ASan+UBSan build reports a heap-buffer-overflow on it;
#   2. a fast campaign (the fast build fuzzes, its new inputs replayed
#      through the ASan+UBSan build) reports that overflow as a finding,
#      keyed and reported by the sanitizer build, though the fast build
#      wrote no crash input; OUT/corpus keeps no input the triage flagged;
#      the header says fast mode, the ASAN_OPTIONS it runs with and where
#      the working corpus is;
#   3. on a tmpfs (/dev/shm) the working corpus is synced to OUT/corpus and
#      removed at the end, and so when lctx is killed (SIGKILL: its guard
#      does it); --no-tmpfs and LCTX_FUZZ_NO_TMPFS=1 keep it in
#      OUT, saying so;
#   4. the user's own detect_stack_use_after_return setting wins;
#   5. --fast without a fast build exits 2, naming `make build-fuzz`, even
#      when the triage build is missing too (as after `make test` alone);
#   6. a fast build without a triage build names --triage-binary.
# Usage: test_fuzz_fast_triage.sh LCTX FAST_BUILD SANITIZER_BUILD
set -u
LCTX=$1
FAST=$2
SAN=$3
. "$(dirname -- "$0")/lib.sh"
unset LCTX_FUZZ_NO_TMPFS
export ASAN_OPTIONS=detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# 1. The fast build alone misses the planted overflow; ASan does not.
printf '\367abcdefgh' >"$tmp/planted"
"$FAST" "$tmp/planted" >"$tmp/fast.txt" 2>&1 ||
  fail "the fast build failed on the planted input: $(tail -n 5 "$tmp/fast.txt")"
if "$SAN" "$tmp/planted" >"$tmp/san.txt" 2>&1; then
  fail "the ASan+UBSan build passed the planted input"
fi
grep -q "heap-buffer-overflow" "$tmp/san.txt" ||
  fail "no heap-buffer-overflow report: $(tail -n 5 "$tmp/san.txt")"

# 2. The fast campaign finds it through the triage.
"$LCTX" fuzz --engine libfuzzer --target fuzz_model --fast --time 8 \
  --binary "$FAST" --triage-binary "$SAN" --out "$tmp/c" >"$tmp/run.txt" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "the fast campaign exited $rc, not 1 (findings): $(tail -n 20 "$tmp/run.txt")"
head -n 1 "$tmp/run.txt" | grep -q "under libfuzzer (fast mode), .*ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=0 (lctx added detect_stack_use_after_return=0)" ||
  fail "header: $(head -n 1 "$tmp/run.txt")"
grep -q "fast mode: $FAST (no sanitizers) fuzzes; .* replayed through $SAN" "$tmp/run.txt" ||
  fail "no fast-mode line: $(head -n 4 "$tmp/run.txt")"
key=$(cat "$tmp"/c/findings/*/key.txt 2>/dev/null | grep heap-buffer-overflow)
case "$key" in
  fuzz_model/sanitizer/AddressSanitizer-heap-buffer-overflow/*planted_byte_read_past*) ;;
  *) fail "no heap-buffer-overflow finding keyed by the ASan build: $(cat "$tmp"/c/findings/*/key.txt 2>/dev/null) $(tail -n 20 "$tmp/run.txt")" ;;
esac
grep -l "heap-buffer-overflow" "$tmp"/c/findings/*/report.txt >/dev/null 2>&1 ||
  fail "report.txt lacks the sanitizer's report"
ls "$tmp/c/artifacts" | grep -v '^crash-triage-' | grep -q . &&
  fail "the fast build wrote crash inputs: $(ls "$tmp/c/artifacts")"
ls "$tmp/c/artifacts" | grep -q '^crash-triage-' ||
  fail "no input flagged by the triage in OUT/artifacts"
grep -q "triage (ASan+UBSan build): [1-9][0-9]* new input(s) replayed, [1-9][0-9]* flagged" \
  "$tmp/c/summary.txt" || fail "summary: $(cat "$tmp/c/summary.txt")"
for f in "$tmp"/c/corpus/*; do
  [ -f "$f" ] || continue
  [ "$(head -c 1 "$f" | od -An -tx1 | tr -d ' ')" = f7 ] &&
    fail "OUT/corpus keeps a flagged input: $f"
done

# 3. The working corpus on a tmpfs, synced and removed; or in OUT.
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
  line=$(grep "working corpus:" "$tmp/run.txt")
  case "$line" in
    *"working corpus: /dev/shm/lctx-fuzz-"*"/corpus (tmpfs), synced to $tmp/c/corpus"*) ;;
    *) fail "working corpus not on /dev/shm: $line" ;;
  esac
  dir=${line#*working corpus: }
  dir=${dir%%/corpus (tmpfs)*}
  [ -e "$dir" ] && fail "the tmpfs folder $dir is left"
  # A campaign without --fast: everything the engine added reaches OUT.
  "$LCTX" fuzz --engine libfuzzer --target fuzz_model --time 3 \
    --binary "$FAST" --out "$tmp/t" >"$tmp/t.txt" 2>&1
  grep -q "working corpus: /dev/shm/lctx-fuzz-" "$tmp/t.txt" ||
    fail "no tmpfs line: $(head -n 3 "$tmp/t.txt")"
  [ "$(ls "$tmp/t/corpus" | wc -l)" -gt 0 ] || fail "OUT/corpus empty after a tmpfs run"
  ls -d /dev/shm/lctx-fuzz-* 2>/dev/null | while read -r d; do
    grep -q "$d" "$tmp/t.txt" && echo "FAIL: $d left"
  done | grep -q FAIL && fail "a tmpfs folder is left"
  # lctx killed (SIGKILL): its guard copies the working corpus to OUT and
  # removes the tmpfs folder.
  "$LCTX" fuzz --engine libfuzzer --target fuzz_model --time 60 \
    --binary "$FAST" --out "$tmp/k" >"$tmp/k.txt" 2>&1 &
  pid=$!
  sleep 4
  kill -9 "$pid"
  wait "$pid" 2>/dev/null
  sleep 3
  line=$(grep "working corpus:" "$tmp/k.txt")
  dir=${line#*working corpus: }
  dir=${dir%%/corpus (tmpfs)*}
  case "$dir" in
    /dev/shm/lctx-fuzz-*) [ -e "$dir" ] && fail "lctx killed: $dir is left" ;;
    *) fail "lctx killed: no tmpfs line: $line" ;;
  esac
  [ "$(ls "$tmp/k/corpus" | wc -l)" -gt 0 ] ||
    fail "lctx killed: the working corpus did not reach OUT/corpus"
else
  echo "note: /dev/shm is not a tmpfs here: the tmpfs path is not checked"
fi
"$LCTX" fuzz --engine libfuzzer --target fuzz_model --fast --time 3 --no-tmpfs \
  --binary "$FAST" --triage-binary "$SAN" --out "$tmp/n" >"$tmp/n.txt" 2>&1
grep -q "working corpus: $tmp/n/tmp/work (not on a tmpfs: --no-tmpfs)" "$tmp/n.txt" ||
  fail "--no-tmpfs: $(head -n 3 "$tmp/n.txt")"
LCTX_FUZZ_NO_TMPFS=1 ASAN_OPTIONS=detect_stack_use_after_return=1 \
  "$LCTX" fuzz --engine libfuzzer --target fuzz_model --time 2 \
  --binary "$FAST" --out "$tmp/e" >"$tmp/e.txt" 2>&1
grep -q "working corpus: $tmp/e/corpus (not on a tmpfs: LCTX_FUZZ_NO_TMPFS=1)" "$tmp/e.txt" ||
  fail "LCTX_FUZZ_NO_TMPFS=1: $(head -n 3 "$tmp/e.txt")"

# 4. The user's own setting wins.
head -n 1 "$tmp/e.txt" | grep -q "ASAN_OPTIONS=detect_stack_use_after_return=1 (yours)" ||
  fail "the user's setting: $(head -n 1 "$tmp/e.txt")"
[ "$(ls "$tmp/e/corpus" | wc -l)" -gt 0 ] || fail "OUT/corpus empty after a --no-tmpfs run"

# 5. No fast build: the command that builds it, exit 2.
LCTX_FUZZ_FAST_BUILD="$tmp/no-fast-build" "$LCTX" fuzz --engine libfuzzer \
  --target fuzz_model --time 1 --fast --out "$tmp/x" >"$tmp/x.txt" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "--fast without a fast build: exit $rc, want 2"
grep -q "no fuzz-fast build of fuzz_model.*make build-fuzz" "$tmp/x.txt" ||
  fail "--fast without a fast build: $(cat "$tmp/x.txt")"

# 6. A fast build but no triage build: the triage build is named, exit 2.
LCTX_FUZZ_BUILD="$tmp/no-fuzz-build" "$LCTX" fuzz --engine libfuzzer \
  --target fuzz_model --time 1 --fast --binary "$FAST" --out "$tmp/y" \
  >"$tmp/y.txt" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "--fast without a triage build: exit $rc, want 2"
grep -q "no-fuzz-build.*--triage-binary" "$tmp/y.txt" ||
  fail "--fast without a triage build: $(cat "$tmp/y.txt")"

finish_failures "test_fuzz_fast_triage: "
echo "test_fuzz_fast_triage: PASS"
