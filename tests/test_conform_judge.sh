#!/bin/sh
# test_conform_judge.sh - pins that nothing an implementation returns, and
# no state of the report folder, breaks `lctx conform`'s judgement:
#   - modules nested 30,000 deep (brackets or regions) are refused before
#     parsing, and one that crashes the MLIR parser without deep brackets
#     kills only the judge process: each fails IR-000, the other operations
#     are judged, the reports are complete and valid, nothing is left
#     running;
#   - a report folder held by another run is refused, naming the holder;
#   - a report or results.jsonl that cannot be written is an error naming
#     the file (exit 2), never PASS;
#   - a run that judged nothing exits 1 (NOTHING JUDGED);
#   - --keep-failures N keeps N verdicts per row in results.jsonl and counts
#     the rest;
#   - --shard is parsed strictly; an xfail line of any length is read at its
#     own line; an xfail folder or FIFO and an over-long --report-dir are
#     refused, a FIFO among the cases is skipped, never waited on.
# Usage: test_conform_judge.sh LCTX EXAMPLE_PLUGIN SOURCE_DIR
set -u
LCTX=$1
EXAMPLE=$2
SRC=$3
. "$(dirname -- "$0")/lib.sh"
IMPL="$PY $SRC/tests/impls/module_impl.py $SRC/conformance/examples/python"
CASES="$SRC/tests/conform_cases/modules"
# valid DIR: every report parses (JSON, each results.jsonl line, JUnit XML)
valid() {
  "$PY" -c 'import json,sys,xml.dom.minidom as m
d=sys.argv[1]
json.load(open(d+"/report.json"))
[json.loads(l) for l in open(d+"/results.jsonl")]
m.parse(d+"/report.junit.xml")
t=open(d+"/report.tap").read()
assert t.startswith("TAP version 13") and "\n1.." in t' "$1"
}
modules() {
  name=$1
  shift
  "$LCTX" conform --cmd "$IMPL" --cases "$CASES" --no-domain --random 0 \
    --report-dir "$tmp/$name" "$@" >"$tmp/$name.out" 2>&1
}

# 1. Modules that attack the parser fail IR-000; the rest is judged.
modules mod --quiet
rc=$?
[ "$rc" = 1 ] || fail "modules: exit $rc, want 1: $(tail -3 "$tmp/mod.out")"
valid "$tmp/mod" || fail "modules: a report is not valid"
# IR-000 fails the deep attribute, the deep regions and the parser crash;
# no case is blamed as a crash; the registrations are judged.
counts "$tmp/mod" modules 'IR-000:fail=3' '*:crash=0' 'RL-002:pass=10'
grep -q 'nests brackets deeper than 256 levels at 2:268' "$tmp/mod/results.jsonl" ||
  fail "modules: the deep attribute is not refused at its line:column"
grep -q 'the module killed the MLIR judge' "$tmp/mod/results.jsonl" ||
  fail "modules: the parser crash is not named"
grep -q '^result: FAIL' "$tmp/mod.out" || fail "modules: no FAIL line"
sleep 0.2
for p in /proc/[0-9]*; do
  if tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -q "module_impl.py"; then
    fail "modules: a process is left: $(tr '\0' ' ' <"$p/cmdline")"
  fi
done

# 2. --keep-failures 1: one IR-000 verdict in full, two counted.
modules keep --quiet --keep-failures 1
[ "$(grep -c '"row":"IR-000"' "$tmp/keep/results.jsonl")" = 1 ] ||
  fail "--keep-failures 1: not one IR-000 line in results.jsonl"
[ "$(report_field "$tmp/keep" IR-000 results_not_kept)" = 2 ] ||
  fail "--keep-failures 1: IR-000 results_not_kept != 2"
grep -q '3 more verdicts counted, not kept' "$tmp/keep.out" ||
  fail "--keep-failures 1: the summary does not say what was not kept"

# 3. A report folder held by another run is refused, naming it.
hold_lock "$tmp/held" "the other run"
"$LCTX" conform --impl "$EXAMPLE" --no-domain --random 5 \
  --report-dir "$tmp/held" >"$tmp/held.out" 2>&1
rc=$?
release_lock
[ "$rc" = 2 ] || fail "held folder: exit $rc, want 2"
grep -q "is in use by another run (the other run)" "$tmp/held.out" ||
  fail "held folder: the holder is not named: $(cat "$tmp/held.out")"
[ -e "$tmp/held/results.jsonl" ] && fail "held folder: results.jsonl was written"

# 4. Writes that fail are errors, never PASS (a link in the report folder,
# here to /dev/full, is refused, never written through).
mkdir -p "$tmp/full"
ln -s /dev/full "$tmp/full/results.jsonl"
"$LCTX" conform --impl "$EXAMPLE" --no-domain --random 50 \
  --report-dir "$tmp/full" >"$tmp/full.out" 2>&1
rc=$?
[ "$rc" = 2 ] || fail "full disk: exit $rc, want 2"
grep -q "results.jsonl: cannot write: a symbolic link, not followed" "$tmp/full.out" ||
  fail "full disk: results.jsonl not named: $(tail -3 "$tmp/full.out")"
grep -q "^result: PASS" "$tmp/full.out" && fail "full disk: PASS"
mkdir -p "$tmp/nojson/report.json.tmp"
"$LCTX" conform --impl "$EXAMPLE" --no-domain --random 5 \
  --report-dir "$tmp/nojson" >"$tmp/nojson.out" 2>&1
rc=$?
[ "$rc" = 2 ] || fail "unwritable report.json: exit $rc, want 2"
grep -q "report.json.tmp: cannot write: not a regular file (a folder)" "$tmp/nojson.out" ||
  fail "unwritable report.json: not named"
[ -s "$tmp/nojson/report.tap" ] || fail "unwritable report.json: the TAP report is missing"
long=$(printf '%04100d' 0)
"$LCTX" conform --impl "$EXAMPLE" --no-domain --random 5 \
  --report-dir "$tmp/$long" >"$tmp/long.out" 2>&1
rc=$?
[ "$rc" = 2 ] || fail "over-long --report-dir: exit $rc, want 2"

# 5. Nothing judged: exit 1.
mkdir -p "$tmp/empty"
"$LCTX" conform --impl "$EXAMPLE" --cases "$tmp/empty" --no-domain \
  --random 0 --report-dir "$tmp/none" >"$tmp/none.out" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "nothing judged: exit $rc, want 1"
grep -q "^result: NOTHING JUDGED" "$tmp/none.out" || fail "nothing judged: not said"

# 6. Strict numbers and input files.
for shard in 1/-1 " 1/2" 1/2x 0/3 4/3 1/4294967297 ""; do
  "$LCTX" conform --impl "$EXAMPLE" --shard "$shard" --report-dir "$tmp/s" \
    >"$tmp/shard.out" 2>&1
  rc=$?
  [ "$rc" = 2 ] || fail "--shard '$shard': exit $rc, want 2"
done
{
  printf '# %0600d\n' 0
  printf 'CP-001 %0700d\n' 0
  printf 'ZZ-9 not a row\n'
} >"$tmp/xfail"
"$LCTX" conform --impl "$EXAMPLE" --no-domain --random 1 --xfail "$tmp/xfail" \
  --report-dir "$tmp/x" >"$tmp/x.out" 2>&1
rc=$?
[ "$rc" = 2 ] || fail "xfail: exit $rc, want 2"
grep -q "xfail:3:1: unknown spec row 'ZZ-9'" "$tmp/x.out" ||
  fail "xfail: the bad row is not at 3:1: $(cat "$tmp/x.out")"
"$LCTX" conform --impl "$EXAMPLE" --no-domain --random 1 --xfail "$tmp" \
  --report-dir "$tmp/x" >"$tmp/xd.out" 2>&1
rc=$?
[ "$rc" = 2 ] || fail "xfail folder: exit $rc, want 2"

# A FIFO as the xfail file, or among the cases, never hangs the run.
mkfifo "$tmp/xfifo"
mkdir -p "$tmp/fifocases"
mkfifo "$tmp/fifocases/a.case"
timeout 20 "$LCTX" conform --impl "$EXAMPLE" --no-domain --random 1 \
  --xfail "$tmp/xfifo" --report-dir "$tmp/xf" >"$tmp/xf.out" 2>&1
rc=$?
[ "$rc" = 2 ] || fail "xfail FIFO: exit $rc, want 2"
grep -q "not a regular file" "$tmp/xf.out" || fail "xfail FIFO: not named"
timeout 20 "$LCTX" conform --impl "$EXAMPLE" --no-domain --random 1 \
  --cases "$tmp/fifocases" --report-dir "$tmp/cf" >"$tmp/cf.out" 2>&1
rc=$?
[ "$rc" = 0 ] || fail "a FIFO among the cases: exit $rc, want 0 (skipped)"

finish_failures "test_conform_judge: "
echo "test_conform_judge: ok"
