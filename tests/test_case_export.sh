#!/bin/sh
# test_case_export.sh - pins `lctx case export`: a failing random case of a
# mutant's conform run, exported from results.jsonl by the name conform
# gave it, is a .case file that `lctx eval` passes (its expectations are
# the reference's outcomes) and that, run with `conform --case FILE`, fails
# the mutant with the same row and outcomes; exporting by random:INDEX and
# --seed gives the same file; a domain case exports; a name the results do
# not hold exits 2 naming it. A write that fails (a file size limit,
# /dev/full, a full stdout) exits 2 with the reason, leaves no file (no
# temporary one either) and an existing file as it was.
#
# Usage: test_case_export.sh LCTX MUTANT_PLUGIN
set -u
. "$(dirname "$0")/lib.sh"
take_args LCTX MUTANT -- "$@"
cd "$tmp" || exit 2
mkdir empty

"$LCTX" conform --impl "$MUTANT" --cases empty --no-domain --random 3000 \
  --seed 5 --first-failure --quiet --report-dir run >run.out 2>&1
name=$(grep -m1 -o '"name":"random:[0-9]*"' run/results.jsonl | cut -d'"' -f4)
[ -n "$name" ] || fail "no failing random case in results.jsonl"
"$LCTX" case export --results run/results.jsonl --out one.case "$name" ||
  fail "export from results.jsonl exits $?"
"$LCTX" eval one.case >eval.out 2>&1 || fail "eval of the export: $(cat eval.out)"
grep -q '(0 without an expectation)' eval.out || fail "$(cat eval.out)"
"$LCTX" case export --seed 5 --out two.case "$name" || fail "export by index"
cmp -s one.case two.case || fail "results.jsonl and --seed give different files"

first=$(grep -m1 '^[A-Z][A-Z]*-[0-9]*: random case' run.out)
"$LCTX" conform --impl "$MUTANT" --case one.case --quiet --report-dir again \
  >again.out 2>&1
[ $? -eq 1 ] || fail "the exported case does not fail the mutant"
row=${first%%:*}
got=${first#*operation }
grep -qF "$row: case one.case, operation $got" again.out ||
  fail "not the same failure ($first): $(grep '^[A-Z]*-[0-9]*:' again.out)"

"$LCTX" case export domain:3 >domain.case || fail "domain export exits $?"
grep -q '^# domain:3' domain.case || fail "the export does not name domain:3"
"$LCTX" eval domain.case >/dev/null 2>&1 || fail "eval of domain:3 fails"

"$LCTX" case export --results run/results.jsonl random:999999 >no.out 2>&1
[ $? -eq 2 ] || fail "a missing name does not exit 2"
grep -q "no case named 'random:999999'" no.out || fail "$(cat no.out)"

# cut_write NAME: export domain:3 to NAME under a file size limit of 0;
# its messages and then "exit CODE" in NAME.out (through a pipe, which the
# limit does not stop).
cut_write() {
  (
    ulimit -f 0
    trap '' XFSZ
    "$LCTX" case export --out "$1" domain:3 2>&1
    echo "exit $?"
  ) | cat >"$1.out"
}
cut_write limited.case
grep -q '^exit 2$' limited.case.out ||
  fail "a write past the file size limit does not exit 2: $(cat limited.case.out)"
grep -q "limited.case: cannot write: File too large" limited.case.out ||
  fail "no reason for the failed write: $(cat limited.case.out)"
[ -e limited.case ] && fail "a failed write left limited.case ($(wc -c <limited.case) bytes)"
ls | grep -q 'tmp' && fail "a failed write left a temporary file: $(ls)"
echo "kept" >kept.case
cut_write kept.case
[ "$(cat kept.case)" = kept ] || fail "a failed write changed an existing file"
if [ -w /dev/full ]; then
  "$LCTX" case export --out /dev/full domain:3 >full.out 2>&1
  [ $? -eq 2 ] || fail "--out /dev/full does not exit 2"
  grep -q "/dev/full: cannot write: No space left on device" full.out ||
    fail "--out /dev/full: $(cat full.out)"
  "$LCTX" case export domain:3 >/dev/full 2>stdout.err
  [ $? -eq 2 ] || fail "a full stdout does not exit 2"
  grep -q "<stdout>: cannot write: No space left on device" stdout.err ||
    fail "a full stdout: $(cat stdout.err)"
fi

finish_failures "test_case_export: "
echo "test_case_export: exported $name; it passes eval and fails the mutant"
