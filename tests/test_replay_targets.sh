#!/bin/sh
# test_replay_targets.sh - `lctx replay` runs every fuzz target as its
# campaign does, with nothing set in the environment:
#   - the targets are known without asking lctx: every fuzz target ships
#     its libFuzzer options, fuzzers/T.options beside its source
#     fuzzers/T.c, and its corpus/seeds/T and corpus/regressions/T; the
#     "targets:" line of `lctx replay --help` names exactly those;
#   - for each of them, `lctx replay --target T` on its seed corpus
#     and on its regression corpus, and `lctx replay` on the folder alone
#     (the target told from the path), exits 0 with inputs replayed and
#     no finding: fuzz_differential compares the example plugin, as its
#     fuzz build does when LCTX_DIFF_PLUGIN is unset;
#   - `lctx promote` of a fuzz_differential seed judges it the same way
#     (it passes today), and keeps it as a .bin (bytes, as its seeds);
#   - LCTX_DIFF_PLUGIN still overrides: a mutant of the example plugin
#     there is found out on the seeds (exit 1, fuzz_differential/impl/
#     keys), and a library that is not there is named (exit 2);
#   - replay's help says what fuzz_differential compares, and an unknown
#     --target is named with the targets.
# Usage: test_replay_targets.sh LCTX SOURCE_DIR MUTANT.so
set -u
LCTX=$1
SRC=$2
MUTANT=$3
. "$(dirname "$0")/lib.sh"
unset LCTX_DIFF_PLUGIN

# The expected targets, from the source tree alone: fuzzers/T.options.
targets=$(cd "$SRC/fuzzers" && ls -- fuzz_*.options | sed 's/\.options$//' | sort)
[ "$(echo "$targets" | wc -w)" -ge 6 ] ||
  fail "fewer than 6 fuzz targets with options in fuzzers/: $targets"
for t in $targets; do
  [ -f "$SRC/fuzzers/$t.c" ] || fail "$t: fuzzers/$t.options without fuzzers/$t.c"
done
"$LCTX" replay --help >"$tmp/help" 2>&1 || fail "lctx replay --help exits $?"
named=$(sed -n 's/^targets: //p' "$tmp/help" | tr -d ',' | tr ' ' '\n' |
  grep . | sort)
[ "$named" = "$targets" ] ||
  fail "lctx replay --help names the targets '$(echo $named)', the tree has '$(echo $targets)'"
grep -q "LCTX_DIFF_PLUGIN" "$tmp/help" ||
  fail "lctx replay --help does not say what fuzz_differential compares"

n=0
for t in $targets; do
  for corpus in seeds regressions; do
    dir=$SRC/corpus/$corpus/$t
    [ -d "$dir" ] || { fail "$t: no $corpus folder $dir"; continue; }
    "$LCTX" replay --target "$t" "$dir" >"$tmp/$t.$corpus" 2>&1
    rc=$?
    [ "$rc" = 0 ] || fail "lctx replay --target $t $corpus/$t: exit $rc: $(tail -3 "$tmp/$t.$corpus")"
    grep -q "^replay: [1-9][0-9]* inputs, 0 findings$" "$tmp/$t.$corpus" ||
      fail "lctx replay --target $t $corpus/$t: $(tail -1 "$tmp/$t.$corpus")"
    n=$((n + 1))
  done
  "$LCTX" replay "$SRC/corpus/seeds/$t" >"$tmp/$t.bypath" 2>&1 ||
    fail "lctx replay corpus/seeds/$t (target from the path): exit $?: $(tail -3 "$tmp/$t.bypath")"
done
[ "$n" = $((2 * $(echo "$targets" | wc -w))) ] ||
  fail "$n corpora replayed, not the seeds and regressions of each of: $(echo $targets)"

# promote judges a fuzz_differential input as replay does.
seed=$(ls "$SRC"/corpus/seeds/fuzz_differential/* | grep -v README.md | head -n 1)
"$LCTX" promote --target fuzz_differential --to "$tmp/reg" "$seed" \
  >"$tmp/promote" 2>&1 || fail "lctx promote of a fuzz_differential seed: exit $?"
grep -q "^it passes today$" "$tmp/promote" ||
  fail "lctx promote of a fuzz_differential seed: $(cat "$tmp/promote")"
# ... kept as bytes, as the target's seeds and regressions are.
ls "$tmp/reg/fuzz_differential/"*.bin >/dev/null 2>&1 ||
  fail "a promoted fuzz_differential input is not a .bin: $(ls "$tmp/reg/fuzz_differential")"

# LCTX_DIFF_PLUGIN overrides the example plugin.
seeds=$SRC/corpus/seeds/fuzz_differential
LCTX_DIFF_PLUGIN=$MUTANT "$LCTX" replay --target fuzz_differential "$seeds" \
  >"$tmp/mutant" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "LCTX_DIFF_PLUGIN=mutant: exit $rc, want 1: $(tail -3 "$tmp/mutant")"
grep -q "^  key: fuzz_differential/impl/" "$tmp/mutant" ||
  fail "LCTX_DIFF_PLUGIN=mutant: no fuzz_differential/impl finding"
LCTX_DIFF_PLUGIN=$tmp/none.so "$LCTX" replay --target fuzz_differential \
  "$seeds" >"$tmp/none" 2>&1
rc=$?
[ "$rc" = 2 ] || fail "LCTX_DIFF_PLUGIN=missing library: exit $rc, want 2"
grep -qF "LCTX_DIFF_PLUGIN=$tmp/none.so" "$tmp/none" ||
  fail "LCTX_DIFF_PLUGIN=missing library is not named: $(cat "$tmp/none")"

"$LCTX" replay --target nope "$seeds" >"$tmp/nope" 2>&1
rc=$?
[ "$rc" = 2 ] || fail "--target nope: exit $rc, want 2"
grep -q "unknown target 'nope' (targets: fuzz_model" "$tmp/nope" ||
  fail "--target nope: $(cat "$tmp/nope")"

finish_failures "test_replay_targets: "
echo "test_replay_targets: $n corpora of $(echo "$targets" | wc -w) targets replayed; LCTX_DIFF_PLUGIN overrides"
