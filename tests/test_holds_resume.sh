#!/bin/sh
# test_holds_resume.sh - a verdict rests on what lctx wrote, for the run it
# was asked to do:
#   a. a sweep into a folder of another implementation's results (another
#      --cmd, or the same command whose script changed) is refused, exit 2,
#      naming what differs, was and now; --restart starts anew there and
#      judges the new program (before: the earlier lines were taken as the
#      new program's, PASS with no export);
#   b. lines appended to results.jsonl between runs (as a child could) are
#      dropped, said, and their cases run (before: taken, PASS on cases
#      never judged); a sealed line changed is refused as an alteration;
#   c. an exporter that appends forged "pass" lines to OUT/results.jsonl
#      during the run: refused (OUT is read-only to an isolated exporter),
#      or, where it lands, the run is an ERROR, exit 2, no report.json
#      (before: PASS); c2: another process that appends during the run
#      makes it an ERROR naming the alteration, and a later resume drops
#      the forged lines;
#   d. the same for conform's results.jsonl and a process implementation
#      (before: PASS, and results.jsonl disagreed with report.json);
#   e. a folder whose key is not in the key store cannot be verified:
#      refused, exit 2, saying how to start again (before: resumed);
#   f. an isolated exporter does not see the key store.
# report.json records the run id of results.jsonl and what was checked.
# Usage: test_holds_resume.sh LCTX SOURCE_DIR
set -u
LCTX=$1
SRC=$2
. "$(dirname -- "$0")/lib.sh"
none=$tmp/no-known # no known defects
mkdir -p "$none"
ATTACK="$PY $SRC/tests/impls/attack_results.py"

# sweep DIR CMD [OPTIONS...]: the output in $tmp/DIR.out, the exit in $rc.
sweep() {
  d=$1
  c=$2
  shift 2
  "$LCTX" sweep --cmd "$c" --known "$none" --out "$tmp/$d" --quiet --jobs 1 \
    "$@" >"$tmp/$d.out" 2>&1
  rc=$?
}
field() { # field DIR KEY: report.json's top-level KEY
  $PY -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2]))' \
    "$tmp/$1/report.json" "$2" 2>/dev/null
}

# a. Another exporter, or the same command with another script.
cp "$SRC/tests/sweep_fake.py" "$tmp/fake_a.py"
cp "$SRC/tests/sweep_fake.py" "$tmp/fake_b.py"
echo "# another exporter" >>"$tmp/fake_b.py"
A="$PY $tmp/fake_a.py --only-kind bad"
B="$PY $tmp/fake_b.py --only-kind bad"
sweep a "$A"
[ "$rc" -eq 1 ] || fail "a: exporter A: exit $rc (want 1: findings)"
[ "$(field a results_sealed)" = True ] || fail "a: report.json lacks results_sealed"
[ "$(field a run_id)" = "$(head -n 1 "$tmp/a/results.jsonl" |
  $PY -c 'import json, sys; print(json.load(sys.stdin)["run_id"])')" ] ||
  fail "a: report.json's run_id is not results.jsonl's"
sweep a "$B"
[ "$rc" -eq 2 ] || fail "a: exporter B into A's folder: exit $rc (want 2)"
grep -q "another implementation or setting: the command (--cmd): was \"$A\", now \"$B\"" \
  "$tmp/a.out" || fail "a: the other command is not named: $(head -n 2 "$tmp/a.out")"
grep -q -- "--restart to start again" "$tmp/a.out" || fail "a: --restart is not offered"
echo "# changed" >>"$tmp/fake_a.py"
sweep a "$A"
[ "$rc" -eq 2 ] || fail "a: a changed script: exit $rc (want 2)"
grep -q "the program files it names (content SHA-256): was {.*\"$tmp/fake_a.py\":\"[0-9a-f]*\"}, now" \
  "$tmp/a.out" || fail "a: the changed script is not named: $(head -n 2 "$tmp/a.out")"
sweep a "$B" --restart
[ "$rc" -eq 1 ] || fail "a: --restart: exit $rc (want 1: B's findings)"
grep -q "earlier results of $tmp/a removed" "$tmp/a.out" || fail "a: --restart does not say it"
grep -q "4 cases (0 resumed)" "$tmp/a.out" ||
  fail "a: --restart did not judge B anew: $(grep cases "$tmp/a.out")"
grep -q "fake_b.py" "$tmp/a/results.jsonl" || fail "a: results.jsonl is not B's"

# b. Lines forged between runs: after the seal, dropped and run; inside
# it, refused.
sweep b "$A" --time-limit 0.000001
[ "$(wc -l <"$tmp/b/results.jsonl")" -eq 1 ] || fail "b: the stopped run judged cases"
$PY - "$tmp/b/results.jsonl" <<'PYEOF'
import json, sys
with open(sys.argv[1], "a") as f:
    for k in range(4):
        f.write(json.dumps({"case": k, "program": "bad/complete",
                            "platforms": ["cpu", "cuda"],
                            "verdicts": [{"row": "SW-001", "verdict": "pass",
                                          "key": "", "detail": ""}],
                            "primitives": [], "outcome": "ok"}) + "\n")
PYEOF
sweep b "$A"
[ "$rc" -eq 1 ] || fail "b: forged pass lines: exit $rc (want 1: the real findings)"
grep -q "4 lines after its seal dropped" "$tmp/b.out" ||
  fail "b: the forged lines are not said dropped: $(head -n 2 "$tmp/b.out")"
grep -q "4 cases (0 resumed)" "$tmp/b.out" || fail "b: forged lines were resumed"
[ "$(field b resume_verified)" = True ] || fail "b: report.json lacks resume_verified"
sed 's/"verdict":"fail"/"verdict":"pass"/g' "$tmp/b/results.jsonl" >"$tmp/b.forged"
cp "$tmp/b.forged" "$tmp/b/results.jsonl"
sweep b "$A"
[ "$rc" -eq 2 ] || fail "b: sealed lines changed: exit $rc (want 2)"
grep -q "results.jsonl was altered by something other than lctx" "$tmp/b.out" ||
  fail "b: the alteration is not named: $(head -n 2 "$tmp/b.out")"

# c. An exporter forges lines while the sweep runs. Where it runs isolated
# (report.json's "isolation" is not "none") OUT is read-only to it: the
# forgery is refused, and the run is lctx's alone. Where it is not, the
# forgery lands, and the end check makes the run ERROR. Either way no
# forged line is judged.
rm -f "$tmp/c/results.jsonl"
ATTACK_RESULTS_NOTE=$tmp/c.note ATTACK_RESULTS_TARGET=$tmp/c/results.jsonl \
  sweep c "$ATTACK 500 --sweep --only-kind good" --lists 4
case $(cat "$tmp/c.note" 2>/dev/null) in
"refused EROFS")
  [ "$rc" -eq 0 ] || fail "c: forgery refused, yet exit $rc (want 0)"
  grep -q '"program":"bad/complete"' "$tmp/c/results.jsonl" &&
    fail "c: a forged line is in results.jsonl"
  [ "$(field c isolation)" != none ] || fail "c: refused, yet isolation none"
  ;;
forged)
  [ "$rc" -eq 2 ] || fail "c: forged during the run: exit $rc (want 2)"
  grep -q "result: .*ERROR" "$tmp/c.out" || fail "c: $(tail -n 1 "$tmp/c.out") (want ERROR)"
  [ -e "$tmp/c/report.json" ] && fail "c: a report.json beside altered results"
  ;;
*) fail "c: the attack did not run: $(cat "$tmp/c.note" 2>/dev/null)" ;;
esac
# c2. Another process (here the test, outside any namespace) appends to
# results.jsonl while the sweep runs (more than lctx writes after it, which
# its own writes at its own offset would otherwise cover): the end check
# makes the run ERROR, and a resume drops the lines after the seal.
rm -rf "$tmp/c2"
( while [ ! -s "$tmp/c2.note" ]; do sleep 0.05; done
  for k in $(seq 500); do # more than lctx writes after it
    printf '{"case":0,"program":"forged","platforms":["cpu","tpu"],"verdicts":[],"primitives":[],"outcome":"ok"}\n'
  done >>"$tmp/c2/results.jsonl" ) &
ATTACK_RESULTS_WAIT=2 ATTACK_RESULTS_NOTE=$tmp/c2.note \
  ATTACK_RESULTS_TARGET=$tmp/nowhere/results.jsonl \
  sweep c2 "$ATTACK 1 --sweep --only-kind good" --lists 4
wait
[ "$rc" -eq 2 ] || fail "c2: altered during the run: exit $rc (want 2)"
grep -q "results.jsonl was altered during the run by another process ([0-9]* bytes not written by lctx)" \
  "$tmp/c2.out" || fail "c2: the alteration is not named: $(grep -i alter "$tmp/c2.out")"
grep -q "result: .*ERROR" "$tmp/c2.out" || fail "c2: $(tail -n 1 "$tmp/c2.out") (want ERROR)"
[ -e "$tmp/c2/report.json" ] && fail "c2: a report.json beside altered results"
sweep c2 "$ATTACK 1 --sweep --only-kind good" --lists 4
[ "$rc" -eq 0 ] || fail "c2: resumed: exit $rc (want 0: lctx's own lines)"
grep -q "lines after its seal dropped" "$tmp/c2.out" || fail "c2: forged lines kept on resume"

# d. conform: a program appends a line to results.jsonl during the run:
# refused where it is isolated (the folder is read-only to it); where it
# lands, the run is ERROR.
ATTACK_RESULTS_NOTE=$tmp/d.note ATTACK_RESULTS_TARGET=$tmp/d/results.jsonl \
  "$LCTX" conform --cmd "$ATTACK 3" --no-domain --random 200 \
  --report-dir "$tmp/d" >"$tmp/d.out" 2>&1
rc=$?
case $(cat "$tmp/d.note" 2>/dev/null) in
"refused EROFS")
  [ "$rc" -eq 0 ] || fail "d: forgery refused, yet exit $rc (want 0)"
  grep -q '"name":"forged"' "$tmp/d/results.jsonl" && fail "d: a forged line in results.jsonl"
  ;;
forged)
  [ "$rc" -eq 2 ] || fail "d: conform, forged during the run: exit $rc (want 2)"
  grep -q "results.jsonl was altered during the run by another process" "$tmp/d.out" ||
    fail "d: the alteration is not named: $(tail -n 3 "$tmp/d.out")"
  grep -q "^result: ERROR" "$tmp/d.out" || fail "d: $(tail -n 1 "$tmp/d.out") (want ERROR)"
  [ -e "$tmp/d/report.json" ] && fail "d: a report.json beside altered results"
  ;;
*) fail "d: the attack did not run: $(cat "$tmp/d.note" 2>/dev/null)" ;;
esac
# d2. Another process alters conform's results.jsonl during the run: ERROR.
( while [ ! -s "$tmp/d2a.note" ]; do sleep 0.05; done
  for k in $(seq 500); do printf '{"forged":true}\n'; done >>"$tmp/d2a/results.jsonl" ) &
ATTACK_RESULTS_WAIT=2 ATTACK_RESULTS_NOTE=$tmp/d2a.note \
  ATTACK_RESULTS_TARGET=$tmp/nowhere/results.jsonl \
  "$LCTX" conform --cmd "$ATTACK 1" --no-domain --random 20 \
  --report-dir "$tmp/d2a" >"$tmp/d2a.out" 2>&1
rc=$?
wait
[ "$rc" -eq 2 ] || fail "d2: conform, altered during the run: exit $rc (want 2)"
grep -q "results.jsonl was altered during the run by another process" "$tmp/d2a.out" ||
  fail "d2: the alteration is not named: $(tail -n 3 "$tmp/d2a.out")"
"$LCTX" conform --cmd "$PY $SRC/conformance/examples/python/lctx_example.py" \
  --no-domain --random 100 --report-dir "$tmp/d2" >"$tmp/d2.out" 2>&1 ||
  fail "d: a clean conform run: exit $?"
[ "$(field d2 results_checked)" = True ] || fail "d: report.json lacks results_checked"

# e. The key store lost: the folder cannot be verified.
G="$PY $SRC/tests/sweep_fake.py --only-kind good"
sweep e "$G"
[ "$rc" -eq 0 ] || fail "e: first run: exit $rc"
LCTX_STATE_DIR=$tmp/other-state sweep e "$G"
[ "$rc" -eq 2 ] || fail "e: key missing: exit $rc (want 2)"
grep -q "the results of $tmp/e cannot be verified: its key .* is not in the key store" \
  "$tmp/e.out" || fail "e: the missing key is not said: $(head -n 2 "$tmp/e.out")"
grep -q -- "--restart to start again" "$tmp/e.out" || fail "e: --restart is not offered"
LCTX_STATE_DIR=$tmp/other-state sweep e "$G" --restart
[ "$rc" -eq 0 ] || fail "e: --restart: exit $rc"
[ -z "$(ls "$tmp/other-state")" ] && fail "e: no key kept in the key store"
[ "$(stat -c %a "$tmp/other-state")" = 700 ] || fail "e: the key store is not private"

# f. Where exporters run isolated, the key store is not there for them:
# one that opens a key of the store (its path as lctx's would be) finds
# nothing.
key=$(ls "$tmp/other-state"/*.key | head -n 1)
ATTACK_RESULTS_NOTE=$tmp/f.note ATTACK_RESULTS_TARGET=$key \
  LCTX_STATE_DIR=$tmp/other-state sweep f "$ATTACK 1 --sweep --only-kind good"
if [ "$(field f isolation)" != none ]; then
  [ "$(cat "$tmp/f.note" 2>/dev/null)" = "refused ENOENT" ] ||
    fail "f: an isolated exporter reached the key store: $(cat "$tmp/f.note" 2>/dev/null)"
fi

finish_failures "test_holds_resume: "
echo PASS
