#!/bin/sh
# test_sweep_figures.sh - the full catalogue's time that README.md and
# `lctx sweep --help` give is what tools/sweep_figures.py makes of its
# record (docs/sweep-figures.json, measured by make sweep-record; the full
# sweep itself is never run here):
#   1. --check README.md harness/cli/cmd_sweep.c docs/sweep-figures.json
#      agrees, and `lctx sweep --help` prints the record's figures;
#   2. a record with one figure changed, or a README edited by hand, fail
#      --check (exit 1), naming the command that writes the blocks;
#   3. --run RECORD OUT -- COMMAND times COMMAND and keeps the cases of
#      OUT/report.json, --jobs, the wall seconds and the load;
#   4. bad input (a record that is no JSON, no report.json after --run)
#      exits 2 with a message, no traceback.
# Usage: test_sweep_figures.sh LCTX SOURCE_DIR
set -u
. "$(dirname -- "$0")/lib.sh"
take_args LCTX SRC -- "$@"
TOOL=$SRC/tools/sweep_figures.py
REC=$SRC/docs/sweep-figures.json
DOCS="$SRC/README.md $SRC/harness/cli/cmd_sweep.c"

# 1. The blocks agree with the record; the help says its figures.
# shellcheck disable=SC2086 # two paths
$PY "$TOOL" --check $DOCS "$REC" >"$tmp/check.out" 2>&1 ||
  fail "--check: $(cat "$tmp/check.out")"
"$LCTX" sweep --help >"$tmp/help.out" 2>&1
want=$($PY -c 'import json, sys
r = json.load(open(sys.argv[1]))
print("the full catalogue (%d cases, JAX %s) took %.0f minutes"
      % (r["cases"], r["jax"], r["wall_seconds"] / 60.0))' "$REC")
tr '\n' ' ' <"$tmp/help.out" | grep -qF "time: $want" ||
  fail "lctx sweep --help does not say '$want': $(grep -A3 '^time:' "$tmp/help.out")"
grep -qF "Time: $want" "$SRC/README.md" || fail "README.md does not say '$want'"

# 2. A changed record, an edited README: found.
$PY -c 'import json, sys
r = json.load(open(sys.argv[1]))
r["wall_seconds"] += 600
json.dump(r, open(sys.argv[2], "w"))' "$REC" "$tmp/rec.json"
# shellcheck disable=SC2086
$PY "$TOOL" --check $DOCS "$tmp/rec.json" >"$tmp/rec.out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "--check against a changed record exited $rc (want 1)"
grep -q "run: python3 tools/sweep_figures.py --write" "$tmp/rec.out" ||
  fail "--check did not say how to write the blocks: $(cat "$tmp/rec.out")"
sed '/lctx-sweep-figures:begin/,/lctx-sweep-figures:end/s/ took / took 1/' \
  "$SRC/README.md" >"$tmp/README.md"
$PY "$TOOL" --check "$tmp/README.md" "$SRC/harness/cli/cmd_sweep.c" "$REC" \
  >"$tmp/hand.out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "--check of an edited README exited $rc (want 1)"

# 3. --run: a stand-in for the sweep writes its report.json.
$PY "$TOOL" --run "$tmp/run.json" "$tmp/out" -- sh -c 'mkdir -p "$1" &&
  printf "{\"cases\": 3, \"cases_run\": 3, \"implementation_version\": \"9.9\"}" \
  >"$1/report.json"; exit 1' sh "$tmp/out" --jobs 2 >"$tmp/run.out" 2>&1 ||
  fail "--run exited $?: $(cat "$tmp/run.out")"
$PY -c 'import json, sys
r = json.load(open(sys.argv[1]))
assert r["cases"] == 3 and r["jax"] == "9.9" and r["jobs"] == 2, r
assert r["exit"] == 1 and r["wall_seconds"] >= 0, r
assert len(r["load_start"]) == 3 and r["cores"] >= 1, r' "$tmp/run.json" ||
  fail "--run kept $(cat "$tmp/run.json")"

# 4. Bad input.
echo '{' >"$tmp/bad.json"
# shellcheck disable=SC2086
$PY "$TOOL" --check $DOCS "$tmp/bad.json" >"$tmp/bad.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "a record that is no JSON: exit $rc (want 2)"
$PY "$TOOL" --run "$tmp/r2.json" "$tmp/nothing" -- true >"$tmp/bad2.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "--run without a report.json: exit $rc (want 2)"
for f in "$tmp/bad.out" "$tmp/bad2.out"; do
  grep -q "^sweep_figures: " "$f" || fail "no message: $(cat "$f")"
  grep -q Traceback "$f" && fail "a traceback: $(cat "$f")"
done

finish_failures "test_sweep_figures: "
echo "test_sweep_figures: PASS"
