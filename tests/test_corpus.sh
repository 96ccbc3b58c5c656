#!/bin/sh
# test_corpus.sh - pins `lctx corpus minimize` and `lctx corpus rows` with a
# libFuzzer build of fuzz_model:
#   1. a grown corpus (the seeds, byte-identical copies, copies with bytes
#      appended and truncated copies) shrinks with libFuzzer's -merge=1
#      (passes repeated until one shrinks it no more, their number said),
#      and the spec rows it hits (lctx corpus rows) are the same before and
#      after; the folder is the same path, with no folder left beside it;
#      minimized again, it keeps its count in one pass;
#   2. --out writes the minimized corpus elsewhere and keeps DIR;
#   3. a pass that fails (a build that is not libFuzzer) exits 1 and leaves
#      the corpus as it was; bad usage exits 2 naming what is wrong;
#   4. an input larger than 1 MiB counts: it hits the rows of its head, all
#      that the decoder reads, as the fuzz target decodes it (corpus_rows.h;
#      the campaign and the minimization skipped it, the kill matrix did
#      not).
# Usage: test_corpus.sh LCTX FUZZ_MODEL_LIBFUZZER SEEDS
set -u
. "$(dirname -- "$0")/lib.sh"
take_args LCTX FUZZER SEEDS -- "$@"

# 1. A grown corpus.
mkdir -p "$tmp/c"
i=0
for seed in "$SEEDS"/*.bin; do
  i=$((i + 1))
  cp "$seed" "$tmp/c/seed$i"
  cp "$seed" "$tmp/c/copy$i"
  { cat "$seed"; printf 'zz'; } >"$tmp/c/longer$i"
  size=$(wc -c <"$seed")
  head -c $((size / 2)) "$seed" >"$tmp/c/half$i"
done
before=$(ls "$tmp/c" | wc -l)
"$LCTX" corpus rows --target fuzz_model "$tmp/c" >"$tmp/rows-before.txt" ||
  fail "lctx corpus rows failed"
[ -s "$tmp/rows-before.txt" ] || fail "the grown corpus hits no row"
"$LCTX" corpus minimize --target fuzz_model --binary "$FUZZER" "$tmp/c" \
  >"$tmp/min.txt" 2>&1 || fail "lctx corpus minimize failed: $(cat "$tmp/min.txt")"
after=$(ls "$tmp/c" | wc -l)
[ "$after" -gt 0 ] && [ "$after" -lt "$before" ] ||
  fail "the corpus did not shrink: $before -> $after"
grep -Eq "^corpus $tmp/c: $before -> $after inputs \(libFuzzer -merge=1, [0-9]+ pass(es)?\)$" \
  "$tmp/min.txt" || fail "no before/after line: $(cat "$tmp/min.txt")"
# A fixed point: minimized again, one pass keeps every input.
"$LCTX" corpus minimize --target fuzz_model --binary "$FUZZER" "$tmp/c" \
  >"$tmp/again.txt" 2>&1 || fail "minimizing again failed: $(cat "$tmp/again.txt")"
grep -q "^corpus $tmp/c: $after -> $after inputs (libFuzzer -merge=1, 1 pass)$" \
  "$tmp/again.txt" || fail "minimized again: $(cat "$tmp/again.txt")"
"$LCTX" corpus rows --target fuzz_model "$tmp/c" >"$tmp/rows-after.txt"
cmp -s "$tmp/rows-before.txt" "$tmp/rows-after.txt" ||
  fail "rows hit changed: $(diff "$tmp/rows-before.txt" "$tmp/rows-after.txt")"
left=$(ls -d "$tmp"/c.* 2>/dev/null)
[ -z "$left" ] || fail "left beside the corpus: $left"

# 2. --out: DIR kept, the minimized corpus elsewhere.
cp -r "$tmp/c" "$tmp/d"
cp "$tmp/d/$(ls "$tmp/d" | head -n 1)" "$tmp/d/dup"
n=$(ls "$tmp/d" | wc -l)
"$LCTX" corpus minimize --target fuzz_model --binary "$FUZZER" \
  --out "$tmp/o" "$tmp/d" >/dev/null 2>&1 || fail "--out failed"
[ "$(ls "$tmp/d" | wc -l)" -eq "$n" ] || fail "--out changed DIR"
[ "$(ls "$tmp/o" | wc -l)" -lt "$n" ] || fail "--out did not shrink"

# 3. A failing pass leaves the corpus as it was; bad usage.
ls "$tmp/d" >"$tmp/d-before.txt"
"$LCTX" corpus minimize --target fuzz_model --binary /bin/false "$tmp/d" \
  >"$tmp/false.txt" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "a failing pass exited $rc, want 1"
grep -q "left as it was" "$tmp/false.txt" || fail "no message: $(cat "$tmp/false.txt")"
ls "$tmp/d" | cmp -s - "$tmp/d-before.txt" || fail "a failing pass changed DIR"
"$LCTX" corpus minimize --target nope --binary "$FUZZER" "$tmp/d" \
  >/dev/null 2>"$tmp/bad.txt"
[ $? -eq 2 ] && grep -q "unknown target 'nope'" "$tmp/bad.txt" ||
  fail "unknown target: $(cat "$tmp/bad.txt")"
"$LCTX" corpus minimize --target fuzz_model --binary "$FUZZER" "$tmp/none" \
  >/dev/null 2>"$tmp/bad.txt"
[ $? -eq 2 ] && grep -q "$tmp/none: not a directory" "$tmp/bad.txt" ||
  fail "missing folder: $(cat "$tmp/bad.txt")"
"$LCTX" corpus rows --target fuzz_spec "$tmp/d" >/dev/null 2>"$tmp/bad.txt"
[ $? -eq 2 ] && grep -q "not cases" "$tmp/bad.txt" ||
  fail "rows of fuzz_spec: $(cat "$tmp/bad.txt")"

# 4. An input over 1 MiB hits the rows of its head.
mkdir -p "$tmp/big" "$tmp/head"
first=$(ls "$SEEDS"/*.bin | head -n 1)
{ cat "$first"; head -c 1100000 /dev/zero; } >"$tmp/big/big.bin"
head -c 65536 "$tmp/big/big.bin" >"$tmp/head/head.bin"
"$LCTX" corpus rows --target fuzz_model "$tmp/big" >"$tmp/rows-big.txt"
"$LCTX" corpus rows --target fuzz_model "$tmp/head" >"$tmp/rows-head.txt"
[ -s "$tmp/rows-head.txt" ] || fail "the head of $first hits no row"
cmp -s "$tmp/rows-big.txt" "$tmp/rows-head.txt" ||
  fail "an input over 1 MiB hits [$(tr '\n' ' ' <"$tmp/rows-big.txt")], its head [$(tr '\n' ' ' <"$tmp/rows-head.txt")]"
finish_failures "test_corpus: "
echo "test_corpus: ok ($before -> $after inputs, $(wc -l <"$tmp/rows-after.txt") rows)"
