#!/bin/sh
# test_campaign_rows.sh - pins what a campaign says about the spec rows,
# with a stand-in libFuzzer build (a script that adds nothing to the corpus,
# or the one input named by $STANDIN_ADD, and whose -merge=1 keeps every
# input), so that the corpus is the seeds and what the test adds:
#   1. fuzz_model cannot reach the IR rows (judged on the MLIR module a
#      lowering emits; it emits none) nor the rows absent at the modelled
#      commit: the summary, summary.txt and state.json name them as out of
#      reach, with why, and never as missed;
#   2. rows fuzz_model can reach that the seeds do not hit (LP-005, the
#      missing platform index) are still reported as missed, after the live
#      line, in the summary and in state.json's rows_missed;
#   3. the same campaign given an input that hits LP-005 (the encoded
#      conformance case) no longer misses it: the row is really reachable;
#      (an input synced only by the last sync, after the engine ended,
#      counts);
#   4. a target whose check judges no row (fuzz_spec) says nothing of rows
#      beyond the live line's "n/a".
# Usage: test_campaign_rows.sh LCTX SOURCE_DIR
set -u
LCTX=$1
SRC=$2
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 2
cat >standin <<'SH'
#!/bin/sh
case "$1" in
-max_total_time=*)
  for a in "$@"; do
    case "$a" in -*) ;; *) first=${first:-$a} ;; esac
  done
  [ -n "${STANDIN_ADD:-}" ] && cp "$STANDIN_ADD" "$first/"
  echo "#100: cov: 10 ft: 10 corp: 3 exec/s 50 rss: 30Mb"
  echo "stat::number_of_executed_units: 100"
  exit 0 ;;
-merge=1)
  out=$2
  shift 2
  for d in "$@"; do cp "$d"/* "$out/" 2>/dev/null; done
  exit 0 ;;
esac
exit 0
SH
chmod +x standin

campaign() { # OUT TARGET
  "$LCTX" fuzz --engine libfuzzer --target "$2" --time 1 --out "$1" \
    --binary "$tmp/standin" >"$1.txt" 2>&1
}

# 1, 2: the seeds alone.
campaign c1 fuzz_model
[ $? -eq 0 ] || fail "the campaign should pass: $(cat c1.txt)"
for f in c1.txt c1/summary.txt; do
  line=$(grep '^  spec rows hit by the corpus: ' "$f")
  echo "$line" | grep -Eq '^  spec rows hit by the corpus: [0-9]+ of the [0-9]+ fuzz_model can reach \([0-9]+ in the table\); missed: ([A-Z]+-[0-9]+ ?)+$' ||
    fail "$f: no rows line: $line"
  echo "$line" | grep -q 'IR-' && fail "$f: IR rows called missed: $line"
  echo "$line" | grep -q 'MG-020' && fail "$f: an absent row called missed: $line"
  echo "$line" | grep -q ' LP-005' || fail "$f: LP-005 not missed: $line"
  out=$(grep '^  spec rows fuzz_model cannot reach: ' "$f")
  for id in IR-000 IR-001 IR-002 IR-003 IR-004 IR-005 IR-006 MG-020 MG-021 \
    LP-008 LP-009; do
    echo "$out" | grep -q " $id" || fail "$f: $id not named out of reach: $out"
  done
  echo "$out" | grep -q 'IR-006 (check = ir: judged on the MLIR module a lowering emits; the target emits no module' ||
    fail "$f: no why for the IR rows: $out"
  echo "$out" | grep -q 'LP-009 (absent at the table.s modelled commit' ||
    fail "$f: no why for the absent rows: $out"
  echo "$out" | grep -q 'LP-005' && fail "$f: LP-005 called out of reach"
done
grep -Eq '^  spec rows missed \(fuzz_model can reach them\):( [A-Z]+-[0-9]+)+$' c1.txt ||
  fail "no missed rows after the live line: $(grep 'spec rows' c1.txt)"
grep '^  spec rows missed' c1.txt | grep -q 'IR-' &&
  fail "IR rows missed after the live line"
grep -q 'spec rows not hit' c1.txt && fail "the old line is still there"
$PY - c1/state.json <<'PY' || fail "state.json: $(cat c1/state.json)"
import json, sys
s = json.load(open(sys.argv[1]))
out = {r["id"]: r["why"] for r in s["rows_not_reachable"]}
assert "LP-005" in s["rows_missed"], s["rows_missed"]
assert not [i for i in s["rows_missed"] if i.startswith("IR-")], s["rows_missed"]
assert all("IR-00%d" % k in out for k in range(7)), out
assert "MG-020" in out and "check = ir" in out["IR-000"], out
assert s["rows_hit"] + len(s["rows_missed"]) == s["rows_reachable"], s
assert s["rows_reachable"] + len(out) == s["rows_in_table"], s
PY

# 3. An input hitting LP-005: reachable indeed.
"$LCTX" encode "$SRC/conformance/cases/LP-005-no-platform-index.case" \
  >lp005.bin || fail "encode failed"
STANDIN_ADD=$tmp/lp005.bin campaign c2 fuzz_model
line=$(grep '^  spec rows hit by the corpus: ' c2/summary.txt)
echo "$line" | grep -q 'LP-005' && fail "LP-005 missed with an input that hits it: $line"
h1=$(echo "$(grep '^  spec rows hit by the corpus: ' c1/summary.txt)" | sed 's/^[^:]*: \([0-9]*\) .*/\1/')
h2=$(echo "$line" | sed 's/^[^:]*: \([0-9]*\) .*/\1/')
[ "$h2" -gt "$h1" ] || fail "hits did not grow: $h1 -> $h2"

# 4. fuzz_spec judges no row.
campaign c3 fuzz_spec
grep -Eq 'spec rows (hit by|missed|fuzz_spec)' c3.txt c3/summary.txt &&
  fail "fuzz_spec speaks of rows: $(grep 'spec rows' c3.txt)"
grep -q '"rows_' c3/state.json && fail "fuzz_spec's state.json has rows"

finish_failures "test_campaign_rows: "
echo "test_campaign_rows: ok"
