#!/bin/sh
# test_reproduce.sh - pins reproduce.txt of a campaign run with --binary,
# against a stand-in libFuzzer build (a script: in a campaign it writes one
# crash input to the artifact folder and reports 100 inputs run; given a
# file, it fails with an LCTX-FINDING key when the file holds BAD): the
# finding's reproduce.txt has an `lctx replay --binary BIN` line that, run
# as written, reports the finding with the key of key.txt (exit 1) and
# leaves no scratch folder; `lctx replay --binary` of an input that passes
# exits 0, a binary that is not executable or an unknown --engine exits 2.
#
# Usage: test_reproduce.sh LCTX
set -u
LCTX=$1
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 2
mkdir sys
fake_libfuzzer fakefz \
  'echo "stat::number_of_executed_units: 100"'
TMPDIR="$tmp/sys" "$LCTX" fuzz --engine libfuzzer --target fuzz_model --time 1 \
  --out camp --binary "$tmp/fakefz" >run.txt 2>&1
[ $? -eq 1 ] || fail "the campaign should exit 1: $(cat run.txt)"
finding=camp/findings/fuzz_model__outcome__stand-in-bug
[ -f "$finding/reproduce.txt" ] || fail "no reproduce.txt: $(ls camp/findings)"
line=$(grep '^lctx replay .*--binary' "$finding/reproduce.txt")
[ "$line" = "lctx replay --target fuzz_model --binary $tmp/fakefz $finding/minimized" ] ||
  fail "replay line: $line"
# Run as written, lctx being $LCTX.
TMPDIR="$tmp/sys" sh -c "\"$LCTX\" ${line#lctx }" >r.out 2>&1
[ $? -eq 1 ] || fail "the replay line does not fail: $(cat r.out)"
grep -qx "  key: $(cat "$finding/key.txt")" r.out ||
  fail "not the finding's key: $(cat r.out)"
grep -q '^replay: 1 inputs, 1 findings$' r.out || fail "$(cat r.out)"
[ -z "$(ls sys)" ] || fail "scratch left: $(ls sys)"
# lctx's own check is labelled as such.
grep -q "^# lctx's own check of this source tree" "$finding/reproduce.txt" ||
  fail "the in-process line is not explained"

printf 'good' >good.bin
"$LCTX" replay --target fuzz_model --binary "$tmp/fakefz" good.bin >g.out 2>&1 ||
  fail "a passing input: exit $?: $(cat g.out)"
"$LCTX" replay --target fuzz_model --binary "$tmp/none" good.bin >n.out 2>&1
[ $? -eq 2 ] || fail "a missing binary should exit 2"
grep -q 'is not an executable file' n.out || fail "$(cat n.out)"
"$LCTX" replay --target fuzz_model --binary "$tmp/fakefz" --engine x \
  good.bin >x.out 2>&1
[ $? -eq 2 ] || fail "--engine x should exit 2"

finish_failures "test_reproduce: "
