#!/bin/sh
# test_rerun.sh - pins the rerun line of `lctx conform`: a mutant of the
# example plugin fails an operation of a conformance case, of a random case
# and of a domain case; for each, the rerun line conform printed, pasted
# into `sh -c` with a PATH that holds no lctx (from the same working
# folder), judges exactly one case and prints the same failure; the line
# starts with `cd` to the folder conform ran in, then names the lctx that
# ran by its path, not a bare `lctx` (quoted as one shell word when it
# needs it). The rerun
# line of that rerun, pasted again, reruns into the same rerun folder (no
# rerun/rerun). The first failure names the case file, and results.jsonl
# names every case as --case reads it. Also: --cases takes one file; a bad
# --case value exits 2; --quiet with no failing row prints no table header.
#
# Usage: test_rerun.sh LCTX MUTANT_PLUGIN
set -u
. "$(dirname "$0")/lib.sh"
take_args LCTX MUTANT -- "$@"
cd "$tmp" || exit 2
mkdir empty

# A PATH without lctx: the rerun line must name its program.
NOLCTX=/usr/bin:/bin
PATH=$NOLCTX command -v lctx >/dev/null && fail "lctx is on $NOLCTX"
LCTX_REAL=$(readlink -f "$LCTX")

# paste LINE OUT: LINE run by `sh -c` with PATH=$NOLCTX; its exit status.
paste_line() {
  env PATH=$NOLCTX sh -c "$1" >"$2" 2>&1
}

# check NAME SOURCE ARGS...: runs conform, takes the first failing row's
# line (which must name SOURCE's case) and its rerun line, pastes that;
# then pastes the rerun line of the rerun.
check() {
  name=$1
  want=$2
  shift 2
  "$LCTX" conform --impl "$MUTANT" --quiet --first-failure \
    --report-dir "$name" "$@" >"$name.out" 2>&1
  rc=$?
  [ "$rc" -eq 1 ] || fail "$name: conform exits $rc, not 1"
  first=$(grep -m1 '^[A-Z][A-Z]*-[0-9]*: ' "$name.out")
  rerun=$(grep -A6 -m1 '^[A-Z][A-Z]*-[0-9]*: ' "$name.out" |
    sed -n 's/^  rerun: //p' | head -1)
  case "$first" in
  *": $want"*) ;;
  *) fail "$name: the first failure does not name the case ($want): $first" ;;
  esac
  case "$rerun" in
  "cd "*" && $LCTX_REAL conform "*) ;;
  *) fail "$name: no rerun line starting with $LCTX_REAL: $rerun"; return ;;
  esac
  paste_line "$rerun" "$name.rerun"
  rc=$?
  [ "$rc" -eq 1 ] || fail "$name: the pasted rerun line exits $rc, not 1: $(tail -3 "$name.rerun")"
  grep -qxF "$first" "$name.rerun" ||
    fail "$name: the rerun does not show '$first': $(cat "$name.rerun")"
  grep -q '^conform: 1 cases ' "$name.rerun" ||
    fail "$name: the rerun ran not exactly 1 case: $(grep '^conform:' "$name.rerun")"
  [ -s "$name/rerun/report.json" ] || fail "$name: the rerun wrote no $name/rerun/report.json"
  # The rerun of the rerun: into the same folder, never rerun/rerun.
  again=$(sed -n 's/^  rerun: //p' "$name.rerun" | head -1)
  case "$again" in
  *" --report-dir $name/rerun") ;;
  *) fail "$name: the rerun's rerun line does not write into $name/rerun: $again" ;;
  esac
  rm -f "$name/rerun/report.json"
  paste_line "$again" "$name.again"
  rc=$?
  [ "$rc" -eq 1 ] || fail "$name: the rerun of the rerun exits $rc, not 1"
  [ -e "$name/rerun/rerun" ] && fail "$name: a rerun of a rerun made $name/rerun/rerun"
  [ -s "$name/rerun/report.json" ] || fail "$name: the rerun of the rerun wrote no report.json"
}

check cases "case " --no-domain --random 0
check random "random case " --cases empty --no-domain --random 5000 --seed 3
check domain "domain case " --cases empty --random 0

# An lctx whose path needs quoting (a space and a quote in its folder):
# the line quotes it as one shell word, and runs when pasted.
odd="$tmp/it's here"
mkdir "$odd"
ln "$LCTX_REAL" "$odd/lctx" 2>/dev/null || cp "$LCTX_REAL" "$odd/lctx"
# Outside the build tree it reads the data of the build's source tree.
LCTX_DATA_DIR=$(sed -n 's/^source=//p' "$(dirname "$LCTX_REAL")/lctx-build-tree.txt")
export LCTX_DATA_DIR
"$odd/lctx" conform --impl "$MUTANT" --quiet --first-failure --no-domain \
  --random 0 --report-dir odd >odd.out 2>&1
line=$(sed -n 's/^  rerun: //p' odd.out | head -1)
case "$line" in
"cd "*" && LCTX_DATA_DIR="*" '$tmp/it'\"'\"'s here/lctx' conform "*) ;;
*) fail "the path of an lctx in '$odd' is not one quoted word: $line" ;;
esac
paste_line "$line" odd.rerun
[ $? -eq 1 ] && grep -q '^conform: 1 cases ' odd.rerun ||
  fail "the rerun line of the lctx in '$odd' does not rerun: $(tail -3 odd.rerun)"
unset LCTX_DATA_DIR

# results.jsonl names each case as --case reads it.
grep -q '"name":"random:[0-9]*"' random/results.jsonl ||
  fail "results.jsonl of the random run names no random:INDEX"
grep -q '"name":"[^"]*\.case"' cases/results.jsonl ||
  fail "results.jsonl of the cases run names no case file"
# report.json and report.tap carry the rerun line the text printed.
line=$(sed -n 's/^  rerun: //p' cases.out | head -1)
"$PY" - cases/report.json "$line" <<'PYEOF' || fail "report.json has not the printed rerun line"
import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(0 if sys.argv[2] in [x.get("rerun") for x in r["rows"]] else 1)
PYEOF
grep -qF "rerun: \"$line\"" cases/report.tap ||
  fail "report.tap has not the printed rerun line"
# A run into a rerun folder (with or without a trailing slash) reruns into
# that folder; any other folder into its rerun/.
rerun_of() { "$LCTX" conform --impl "$MUTANT" --quiet --first-failure \
  --no-domain --random 0 --report-dir "$1" 2>&1 | sed -n 's/^  rerun: //p' | head -1; }
for d in plain/rerun:plain/rerun slash/rerun/:slash/rerun \
  a/reruns:a/reruns/rerun; do
  case "$(rerun_of "${d%%:*}")" in
  *" --report-dir ${d#*:}") ;;
  *) fail "--report-dir ${d%%:*}: not into ${d#*:}: $(rerun_of "${d%%:*}")" ;;
  esac
done

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
