#!/bin/sh
# test_rerun.sh - pins the rerun line of `lctx conform`: a mutant of the
# example plugin fails an operation of a conformance case, of a random case
# and of a domain case; for each, the rerun line conform printed, run as
# printed, judges exactly one case and prints the same failure; the first
# failure names the case file, and results.jsonl names every case as
# --case reads it. Also: --cases takes one file; a bad --case value exits 2;
# --quiet with no failing row prints no table header.
#
# Usage: test_rerun.sh LCTX MUTANT_PLUGIN
set -u
LCTX=$1
MUTANT=$2
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 2
mkdir empty

# check NAME SOURCE ARGS...: runs conform, takes the first failing row's
# line (which must name SOURCE's case) and its rerun line, runs that.
check() {
  name=$1
  want=$2
  shift 2
  "$LCTX" conform --impl "$MUTANT" --quiet --first-failure \
    --report-dir "$name" "$@" >"$name.out" 2>&1
  rc=$?
  [ "$rc" -eq 1 ] || fail "$name: conform exits $rc, not 1"
  first=$(grep -m1 '^[A-Z][A-Z]*-[0-9]*: ' "$name.out")
  rerun=$(grep -A1 -m1 '^[A-Z][A-Z]*-[0-9]*: ' "$name.out" |
    sed -n 's/^  rerun: //p')
  case "$first" in
  *": $want"*) ;;
  *) fail "$name: the first failure does not name the case ($want): $first" ;;
  esac
  case "$rerun" in
  "lctx conform "*) ;;
  *) fail "$name: no rerun line: $(cat "$name.out")"; return ;;
  esac
  eval "\"\$LCTX\" ${rerun#lctx }" >"$name.rerun" 2>&1
  rc=$?
  [ "$rc" -eq 1 ] || fail "$name: the rerun line exits $rc, not 1"
  grep -qxF "$first" "$name.rerun" ||
    fail "$name: the rerun does not show '$first': $(cat "$name.rerun")"
  grep -q '^conform: 1 cases ' "$name.rerun" ||
    fail "$name: the rerun ran not exactly 1 case: $(grep '^conform:' "$name.rerun")"
}

check cases "case " --no-domain --random 0
check random "random case " --cases empty --no-domain --random 5000 --seed 3
check domain "domain case " --cases empty --random 0

# results.jsonl names each case as --case reads it.
grep -q '"name":"random:[0-9]*"' random/results.jsonl ||
  fail "results.jsonl of the random run names no random:INDEX"
grep -q '"name":"[^"]*\.case"' cases/results.jsonl ||
  fail "results.jsonl of the cases run names no case file"
# report.json carries the rerun line.
grep -q '"rerun": "lctx conform ' cases/report.json ||
  fail "report.json has no rerun line"

# --cases takes one file.
file=$(sed -n 's/.*--case \([^ ]*\.case\).*/\1/p' cases.out | head -1)
"$LCTX" conform --impl "$MUTANT" --cases "$file" --no-domain --random 0 \
  --report-dir one >one.out 2>&1
grep -q '^conform: 1 cases (1 conformance' one.out ||
  fail "--cases FILE: $(grep '^conform:' one.out)"

# --quiet with no failing row prints no empty table header.
"$LCTX" conform --impl "$MUTANT" --quiet --cases empty --no-domain \
  --random 0 --report-dir none >none.out 2>&1
grep -q '^row  ' none.out && fail "--quiet printed an empty table header"
grep -q '^conform: 0 cases' none.out || fail "the empty run: $(cat none.out)"

for bad in random:x domain: nope random:-1; do
  "$LCTX" conform --impl "$MUTANT" --case "$bad" >bad.out 2>&1
  rc=$?
  [ "$rc" -eq 2 ] || fail "--case $bad exits $rc, not 2"
  grep -q -- "--case: '$bad'" bad.out || fail "--case $bad: $(cat bad.out)"
done

finish_failures "test_rerun: "
echo "test_rerun: conformance, random and domain failures rerun alone"
