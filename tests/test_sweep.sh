#!/bin/sh
# test_sweep.sh - `lctx sweep` end to end against tests/sweep_fake.py, a
# real process speaking the export extension with answers fixed in advance
# (no JAX): the verdicts and findings it must give (completeness, dispatch
# and order, census; minimized to the smallest program and fewest
# platforms), hostile answers marked on their own cases only (garbage,
# hang, death, a wrong id, an item error, escape bytes never printed raw),
# resuming (a cut line dropped and redone; another plan refused), rerun
# lines that run when pasted (into OUT/rerun, never rerun/rerun), shards
# merged by `lctx report merge` into the unsharded counts, a clean stop on
# SIGINT, bad input (case files, the sweep table, the command line)
# named with exit 2, and the recorded cases' coverage of the rows (a row
# counts as covered only by a case expecting it to fail). The terminal
# lists every finding, new and known, with the rerun line of its first
# case; a one-case rerun says only what concerns its case.
# Usage: test_sweep.sh LCTX SOURCE_DIR
set -u
. "$(dirname -- "$0")/lib.sh"
LCTX=$1
SRC=$2
FAKE="$PY $SRC/tests/sweep_fake.py"
none=$tmp/no-known # no known defects: every finding is new
mkdir "$none"

count() { # count DIR ROW VERDICT: from results.jsonl
  python3 - "$1/results.jsonl" "$2" "$3" <<'EOF'
import json, sys
n = 0
for k, line in enumerate(open(sys.argv[1])):
    if k == 0:
        continue
    for v in json.loads(line)["verdicts"]:
        n += v["row"] == sys.argv[2] and v["verdict"] == sys.argv[3]
print(n)
EOF
}

# 1. The good and bad programs: findings, each kept once and minimized.
"$LCTX" sweep --cmd "$FAKE --only-kind bad" --known "$none" --out "$tmp/a" \
  --lists 3 --quiet >"$tmp/a.out" 2>"$tmp/a.err"
rc=$?
[ "$rc" -eq 1 ] || fail "findings: exit $rc (want 1)"
grep -q "result: 4 new findings" "$tmp/a.out" ||
  fail "want 4 new findings: $(tail -n 1 "$tmp/a.out")"
f=$(ls -d "$tmp"/a/findings/sw-001-typeerror* 2>/dev/null | head -n 1)
if [ -z "$f" ]; then
  fail "no SW-001 TypeError finding"
else
  python3 - "$f/minimized.json" <<'EOF' || fail "SW-001 not minimized to bad/complete with 2 platforms"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["program"] == "bad/complete", d["program"]
assert len(d["platforms"]) == 2, d["platforms"]
assert d["expect"][0]["key"] == "SW-001 TypeError at jax/_src/interpreters/mlir.py:2562"
EOF
  grep -q "^reproduce" "$f/report.txt" || fail "the finding's report.txt has no reproduce line"
fi
ls -d "$tmp"/a/findings/sw-006-get-backend-at-jax-src-fake-py-7-* >/dev/null 2>&1 ||
  fail "no SW-006 finding for the get_backend() call at jax/_src/fake.py:7"
[ "$(count "$tmp/a" SW-001 fail)" -ge 1 ] || fail "no SW-001 fail in results.jsonl"
[ -s "$tmp/a/report.tap" ] && [ -s "$tmp/a/report.json" ] &&
  [ -s "$tmp/a/report.junit.xml" ] || fail "reports missing"
grep -q "^reach: the judged programs lowered 1 of the 3" "$tmp/a.out" ||
  fail "the reach line is wrong: $(grep reach "$tmp/a.out")"

# 1b. The first failure's rerun line runs when pasted where PATH has no
# lctx (it names the lctx that ran, the table and the known defects), gives
# the same new finding, and its own rerun line writes into the same folder.
rerun_of() {
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["first_failure"]["rerun"])' "$1"
}
line=$(rerun_of "$tmp/a/report.json")
lctx_abs=$(cd "$(dirname -- "$LCTX")" && pwd)/$(basename -- "$LCTX")
case "$line" in
"$lctx_abs sweep "*" --known $none "*"--out $tmp/a/rerun") ;;
"cd "*" && $lctx_abs sweep "*" --known $none "*"--out $tmp/a/rerun") ;;
*) fail "sweep's rerun line: $line" ;;
esac
env PATH=/usr/bin:/bin sh -c "$line" >"$tmp/rerun.out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "the pasted rerun line: exit $rc, want 1: $(tail -n 3 "$tmp/rerun.out")"
grep -q "result: 1 new findings" "$tmp/rerun.out" ||
  fail "the rerun gave another result: $(tail -n 1 "$tmp/rerun.out")"
line2=$(rerun_of "$tmp/a/rerun/report.json")
case "$line2" in
*"--out $tmp/a/rerun") ;;
*) fail "the rerun's own rerun line writes elsewhere: $line2" ;;
esac

# 1c. The terminal lists every finding with the rerun line of its first
# case; the one-case rerun above says only what concerns its case (its
# program, its rows, the primitives it lowered: no list of those no case
# reached).
grep -q "^findings: 4 new, 0 known; each with the rerun line of its first case$" \
  "$tmp/a.out" || fail "the findings are not listed: $(grep -A2 '^findings' "$tmp/a.out")"
grep -q "^  new   SW-001 TypeError at jax/_src/interpreters/mlir.py:2562: [0-9]* case(s), the first case [0-9]*; kept in $tmp/a/findings/sw-001-typeerror" \
  "$tmp/a.out" || fail "the SW-001 finding is not listed with its folder"
[ "$(grep -c "^        rerun: .*lctx'* sweep .* --case [0-9]* --out $tmp/a/rerun$" "$tmp/a.out")" = 4 ] ||
  fail "not one rerun line per finding: $(grep -A9 '^findings' "$tmp/a.out")"
grep -q "^not reached" "$tmp/rerun.out" &&
  fail "a one-case rerun lists the primitives no case reached"
grep -q "^sweep: case [0-9]* of the plan (bad/[a-z]* on [a-z,]*), " "$tmp/rerun.out" &&
  grep -q "^reach: the case lowered 1 of the 3 primitives with lowering rules in JAX: add$" \
    "$tmp/rerun.out" && grep -q "^  new   SW-001 TypeError" "$tmp/rerun.out" ||
  fail "the one-case rerun does not say its case: $(cat "$tmp/rerun.out")"
[ "$(grep -c '^  SW-' "$tmp/rerun.out")" -lt "$(grep -c '^  SW-' "$tmp/a.out")" ] ||
  fail "the one-case rerun lists rows its case has no verdict of"

# 2. Known defects: the same run with the finding recorded is xfail.
mkdir -p "$tmp/known"
cp "$f/minimized.json" "$tmp/known/complete.json"
"$LCTX" sweep --cmd "$FAKE --only-kind bad" --known "$tmp/known" \
  --out "$tmp/k" --lists 3 --quiet --no-minimize >"$tmp/k.out" 2>&1
[ "$(count "$tmp/k" SW-001 xfail)" -ge 1 ] || fail "a known finding is not xfail"
[ "$(count "$tmp/k" SW-001 fail)" -eq 0 ] || fail "a known finding still fails"
# The terminal names the known finding, its defect and its first case's
# rerun line, which, pasted, shows it again (xfail: exit 0).
grep -q "^  known SW-001 TypeError at jax/_src/interpreters/mlir.py:2562: [0-9]* case(s), the first case [0-9]* (known defect complete)$" \
  "$tmp/k.out" || fail "the known finding is not listed: $(grep -A4 '^findings' "$tmp/k.out")"
kline=$(grep -A1 "^  known SW-001" "$tmp/k.out" | sed -n 's/^        rerun: //p')
env PATH=/usr/bin:/bin sh -c "$kline" >"$tmp/krerun.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q "^  known SW-001 TypeError .*(known defect complete)$" "$tmp/krerun.out" ||
  fail "the known finding's rerun line (exit $rc): $(cat "$tmp/krerun.out")"
# The same defect known by its key at another release counts as known too.
mkdir -p "$tmp/known2"
python3 - "$f/minimized.json" "$tmp/known2/moved.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
real = d["expect"][0]["key"]
d["expect"][0]["key"] = real.replace("2562", "1")
d["same_defect_elsewhere"] = [{"jax": "other", "key": real}]
json.dump(d, open(sys.argv[2], "w"))
EOF
"$LCTX" sweep --cmd "$FAKE --only-kind bad" --known "$tmp/known2" \
  --out "$tmp/k2" --lists 3 --quiet --no-minimize >/dev/null 2>&1
[ "$(count "$tmp/k2" SW-001 xfail)" -ge 1 ] ||
  fail "a defect known by its key elsewhere (same_defect_elsewhere) is not xfail"
"$LCTX" sweep --cmd "$FAKE" --replay "$tmp/known" >"$tmp/r.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "replay of a finding still shown: exit $rc"
python3 - "$f/minimized.json" "$tmp/gone.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["program"] = "good/add"
json.dump(d, open(sys.argv[2], "w"))
EOF
"$LCTX" sweep --cmd "$FAKE" --replay "$tmp/gone.json" >"$tmp/g.out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "replay of a finding gone: exit $rc (want 1)"
grep -q "not given" "$tmp/g.out" || fail "a finding gone is not named"

# 3. Hostile answers: marked on their own cases, nothing raw on the terminal.
"$LCTX" sweep --cmd "$FAKE" --known "$none" --out "$tmp/h" --timeout 1 \
  --no-minimize >"$tmp/h.out" 2>"$tmp/h.err"
rc=$?
[ "$rc" -eq 1 ] || fail "hostile: exit $rc (want 1)"
if LC_ALL=C grep -q "$(printf '\033')" "$tmp/h.out" "$tmp/h.err" "$tmp/h/report.tap"; then
  fail "an escape byte reached the terminal or the TAP report"
fi
python3 - "$tmp/h/results.jsonl" <<'EOF' || fail "hostile verdicts are not where they belong"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])][1:]
by = {}
for j in lines:
    by.setdefault(j["program"], set()).update(v["verdict"] for v in j["verdicts"])
bad = []
for p in ("hostile/garbage", "hostile/die", "hostile/wrong-id", "hostile/item-error"):
    if "crash" not in by.get(p, ()):
        bad.append(p + " not crash")
if "timeout" not in by.get("hostile/hang", ()):
    bad.append("hostile/hang not timeout")
for p in ("good/add", "good/mul"):
    if by.get(p) != {"pass"}:
        bad.append(p + " blamed: %s" % by.get(p))
assert not bad, bad
EOF

# 4. Resume: everything done and sealed is kept; a line after the seal (a
# write cut short by a stop) is dropped and its case redone; a sealed line
# cut is an alteration, refused until --restart.
# sweep_s WHAT WANT_RC TEXT [ARGS...]: the good programs' sweep into $tmp/s
# again (with ARGS), its output in $tmp/s.out; fails, naming WHAT, unless
# it exits WANT_RC and says TEXT.
sweep_s() {
  what=$1
  want_rc=$2
  text=$3
  shift 3
  "$LCTX" sweep --cmd "$FAKE --only-kind good" --out "$tmp/s" --lists 4 \
    --quiet "$@" >"$tmp/s.out" 2>&1
  rc=$?
  [ "$rc" -eq "$want_rc" ] || fail "$what: exit $rc (want $want_rc)"
  grep -qF -- "$text" "$tmp/s.out" ||
    fail "$what: $(head -n 1 "$tmp/s.out") (want: $text)"
}
sweep_s "the first run" 0 "8 cases (0 resumed)"
head -c -20 "$tmp/s/results.jsonl" >"$tmp/cut" && cp "$tmp/cut" "$tmp/s/results.jsonl"
sweep_s "a sealed line cut" 2 \
  "results.jsonl was altered by something other than lctx"
sweep_s "--restart" 0 "8 cases (0 resumed)" --restart
printf '{"case": 7, "program": "good/' >>"$tmp/s/results.jsonl"
sweep_s "resume" 0 "8 cases (8 resumed)"
grep -q "1 lines after its seal dropped" "$tmp/s.out" ||
  fail "resume: the line after the seal is not said dropped"
[ "$(wc -l <"$tmp/s/results.jsonl")" -eq 9 ] || fail "resume: results.jsonl is not 1 + 8 lines"
sweep_s "another plan into the same folder" 2 "another plan" --seed 9

# 5. Shards merged give the unsharded counts.
for i in 1 2; do
  "$LCTX" sweep --cmd "$FAKE --only-kind bad" --known "$none" --lists 3 \
    --shard $i/2 --out "$tmp/sh$i" --quiet --no-minimize >/dev/null 2>&1
done
"$LCTX" report merge --out "$tmp/merged" "$tmp/sh1" "$tmp/sh2" >"$tmp/m.out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "merge of failing shards: exit $rc (want 1)"
python3 - "$tmp/merged/report.json" "$tmp/a/report.json" <<'EOF' || fail "merged counts differ from the unsharded run"
import json, sys
m, a = (json.load(open(p)) for p in sys.argv[1:])
key = lambda r: {k: r[k] for k in ("id", "pass", "fail", "crash", "timeout")}
assert [key(r) for r in m["rows"]] == [key(r) for r in a["rows"]], (m["rows"], a["rows"])
EOF

# 6. SIGINT stops cleanly: reports written, exit 1, the case resumed later.
interrupt_after 3 "$tmp/i.out" "$LCTX" sweep --cmd "$FAKE --only-kind hostile" \
  --known "$none" --out "$tmp/i" --timeout 60 --quiet
[ -s "$tmp/i/report.json" ] || fail "an interrupted run wrote no report.json"

# 7. Bad input: exit 2, the file and place named.
printf '{"lctx-sweep-case": 1,\n "program": [' >"$tmp/bad.json"
"$LCTX" sweep --judge "$tmp/bad.json" >"$tmp/b.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "a case file that is not JSON: exit $rc (want 2)"
grep -q "bad.json:2:" "$tmp/b.out" || fail "no file:line in: $(cat "$tmp/b.out")"
printf '{"lctx-sweep-case": 1, "program": "x", "platforms": "cpu", "expect": []}\n' >"$tmp/bad2.json"
"$LCTX" sweep --judge "$tmp/bad2.json" >"$tmp/b2.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "a case file with a bad field: exit $rc (want 2)"
grep -q "platforms" "$tmp/b2.out" || fail "the bad field is not named: $(cat "$tmp/b2.out")"
sed 's/^check = sweep$/check = sweep\nop = backends/' "$SRC/conformance/spec/jax-sweep.lspec" >"$tmp/bad.lspec"
"$LCTX" sweep --judge --spec "$tmp/bad.lspec" "$SRC/conformance/sweep/cases" >"$tmp/b3.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "a sweep row with an op: exit $rc (want 2)"
grep -q "bad.lspec:[0-9]*:[0-9]*: .*takes no 'op'" "$tmp/b3.out" ||
  fail "the bad row is not named: $(cat "$tmp/b3.out")"
"$LCTX" sweep --subset most --cmd "$FAKE" >"$tmp/b4.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "--subset most: exit $rc (want 2)"
"$LCTX" sweep --cmd "python3 -c pass" --out "$tmp/nx" >"$tmp/b5.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "a program without the export extension: exit $rc (want 2)"

"$LCTX" sweep --cmd "$FAKE" --group nope --out "$tmp/ng" >"$tmp/b6.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "a group no program has: exit $rc (want 2)"
grep -q "no program of the catalogue" "$tmp/b6.out" || fail "an empty selection is not said"

# 8. A sweep row is covered by a case that expects it to fail, never by one
# that expects it to pass: without the one case where SW-007 fails, the
# recorded cases leave it uncovered (exit 1, the row named).
mkdir "$tmp/cover"
cp "$SRC"/conformance/sweep/cases/*.json "$tmp/cover/"
rm "$tmp/cover/SW-007-declared-platforms-differ.json"
grep -q '"row": "SW-007"' "$tmp/cover/SW-001-all-pass.json" ||
  fail "SW-001-all-pass.json no longer expects SW-007 to pass"
"$LCTX" sweep --judge --quiet "$tmp/cover" >"$tmp/cover.out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "a row only expected to pass counts as covered: exit $rc (want 1)"
grep -q "^row SW-007 has no sweep case that expects it to fail$" "$tmp/cover.out" ||
  fail "the uncovered row is not named: $(cat "$tmp/cover.out")"

finish_failures "test_sweep: "
echo PASS
