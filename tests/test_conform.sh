#!/bin/sh
# test_conform.sh - pins `lctx conform` end to end with real plugins and real
# processes:
#   - the example C plugin and the example Python implementation pass fully;
#   - a plugin that segfaults, hangs, fails or overflows on some cases, and a
#     program that exits, hangs, writes garbage, floods or reports errors on
#     some cases: only those cases are marked (crash / timeout), the others
#     are judged, and the run goes on after restarts;
#   - --messages class accepts reworded messages that exact rejects;
#   - --xfail: an expected failure that passes is reported (xpass, exit 1),
#     an unknown row is bad input (exit 2, FILE:LINE:COL);
#   - --shard I/N splits the cases, --ops filters them;
#   - batches of 7 give the results of one batch, line for line;
#   - bad command lines exit 2 with a message (`--opt=value` alike), a file
#     that is no library is named, --help prints the usage and options, a
#     --jax release the reference model does not know is refused;
#   - TAP, JUnit XML and JSON reports carry the stamp, and stay well-formed
#     when messages hold < & ]]> quotes, control characters or bytes that
#     are not UTF-8.
# Usage: test_conform.sh LCTX EXAMPLE_PLUGIN MISBEHAVING_PLUGIN SOURCE_DIR
set -u
LCTX=$1
EXAMPLE=$2
BAD=$3
SRC=$4
. "$(dirname -- "$0")/lib.sh"

# 1. The examples pass fully: exit 0.
conform plugin --impl "$EXAMPLE"
[ "$(rc plugin)" = 0 ] || fail "example plugin: exit $(rc plugin): $(tail -5 "$tmp/plugin.out")"
[ "$(report_field "$tmp/plugin" '*' fail)" = 0 ] || fail "example plugin has failures"
[ "$(report_field "$tmp/plugin" - cases_run)" -gt 1000000 ] ||
  fail "example plugin: the domain did not run"
grep -q "^TAP version 13" "$tmp/plugin/report.tap" || fail "no TAP report"
grep -q "implementation lctx-example-c 1.0.0" "$tmp/plugin/report.tap" ||
  fail "TAP report lacks the stamp"
spec_file="$SRC/conformance/spec/backend-selection.lspec"
rows=$(grep -c '^\[[A-Z]' "$spec_file") # rows, not [fact] sections
spec_version=$(sed -n 's/^spec-version = //p' "$spec_file")
grep -q "testsuite name=\"lctx conform\" tests=\"$rows\" failures=\"0\" errors=\"0\"" \
  "$tmp/plugin/report.junit.xml" || fail "JUnit report wrong"
grep -q "\"spec_version\": \"$spec_version\"" "$tmp/plugin/report.json" ||
  fail "JSON report lacks the spec version"
conform python --cmd "$PY $SRC/conformance/examples/python/lctx_example.py" \
  --no-domain --random 3000
[ "$(rc python)" = 0 ] || fail "example Python: exit $(rc python): $(tail -5 "$tmp/python.out")"
[ "$(report_field "$tmp/python" '*' pass)" -gt 3000 ] || fail "example Python: too few passes"

# 2. A misbehaving plugin: only the bad cases are marked.
cases="$SRC/tests/conform_cases"
conform badplugin --impl "$BAD" --cases "$cases/plugin" --no-domain \
  --random 0 --timeout 1
[ "$(rc badplugin)" = 1 ] || fail "misbehaving plugin: exit $(rc badplugin), want 1"
# Crashes: SEGV, FAIL, OVERFLOW; the reworded MG-001 cases fail.
counts "$tmp/badplugin" plugin '*:pass=2' '*:crash=3' '*:timeout=1' \
  'MG-001:fail=2'
[ "$(report_field "$tmp/badplugin" - restarts)" -ge 2 ] || fail "plugin: fewer than 2 restarts"
# (a SEGV: signal 11; under ASan its report, then an exit or an abort)
grep -q '"verdict":"crash","detail":"the plugin worker \(killed by signal\|exited with status\)' \
  "$tmp/badplugin/results.jsonl" || fail "plugin: the SEGV is not named in results.jsonl"
conform badclass --impl "$BAD" --cases "$cases/plugin" --no-domain \
  --random 0 --timeout 1 --messages class
[ "$(report_field "$tmp/badclass" MG-001 pass)" = 2 ] || fail "--messages class did not accept the rewording"

# 2b. Batches in flight: the results of a run in batches of 7 (the worker
# serving one while lctx judges the one before and the MLIR judge the one
# before that) are those of one batch, line for line and in case order:
# reworded cases (MG-001 fail) every third of 120, the last batches too.
mkdir "$tmp/order"
for i in $(seq 100 219); do
  if [ $((i % 3)) = 0 ]; then
    cp "$cases/plugin/06b-wording.case" "$tmp/order/$i.case"
  else
    cp "$cases/plugin/01-ok.case" "$tmp/order/$i.case"
  fi
done
for b in 7 256; do
  conform "order$b" --impl "$BAD" --cases "$tmp/order" --no-domain \
    --random 0 --batch $b
  [ "$(rc "order$b")" = 1 ] || fail "batches of $b: exit $(rc "order$b"), want 1"
  [ "$(report_field "$tmp/order$b" MG-001 fail)" = 40 ] ||
    fail "batches of $b: MG-001 fail != 40"
done
# (each run has its own run id, in the first line)
for b in 7 256; do
  sed 's/"run_id":"[^"]*",//' "$tmp/order$b/results.jsonl" >"$tmp/order$b.jsonl"
done
cmp -s "$tmp/order7.jsonl" "$tmp/order256.jsonl" ||
  fail "results.jsonl differs between batches of 7 and of 256"

# 3. A misbehaving program.
conform badproc --cmd "$PY $SRC/tests/impls/misbehaving_impl.py" \
  --cases "$cases/process" --no-domain --random 0 --timeout 2
[ "$(rc badproc)" = 1 ] || fail "misbehaving program: exit $(rc badproc), want 1"
# Crashes: EXIT, GARBAGE, FLOOD, ERROR; failures: WORDING, NASTY.
counts "$tmp/badproc" program '*:pass=2' '*:crash=4' '*:timeout=1' '*:fail=2'
grep -q 'protocol error: not JSON' "$tmp/badproc/results.jsonl" ||
  fail "program: garbage is not named"
grep -q 'longer than 4194304 bytes' "$tmp/badproc/results.jsonl" ||
  fail "program: the flood is not named"
grep -q 'deliberate failure' "$tmp/badproc/results.jsonl" ||
  fail "program: its own error is not carried"

# Reports stay well-formed whatever the messages hold (NASTY cases).
wellformed() {
  "$PY" - "$1" <<'PYEOF' || fail "reports of $1 are not well-formed"
import json, re, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
ET.parse(d + "/report.junit.xml")
json.load(open(d + "/report.json", encoding="utf-8"))
for line in open(d + "/results.jsonl", encoding="utf-8"):
    json.loads(line)
lines = open(d + "/report.tap", encoding="utf-8").read().split("\n")
assert lines[0] == "TAP version 13" and re.fullmatch(r"1\.\.\d+", lines[1])
inside = False
for l in lines[2:]:
    if not l:
        continue
    if inside:
        inside = l != "  ..."
        assert l.startswith("  "), l
        if l.startswith("  first: "):
            assert re.fullmatch(r'  first: "([^"\\\x00-\x1f]|\\.)*"', l), l
    elif l == "  ---":
        inside = True
    else:
        assert re.fullmatch(r"(not )?ok \d+ - [A-Z]+-\d{3}( # .*)?|# .*", l), l
PYEOF
}
wellformed "$tmp/badplugin"
wellformed "$tmp/badproc"
grep -q '&lt;b&gt;&amp;amp; ]]&gt;' "$tmp/badplugin/report.junit.xml" ||
  fail "JUnit report lacks the escaped message"

# 4. Expected failures.
printf '# rows we expect to fail\nMG-001 reworded on purpose\n' >"$tmp/xfail.txt"
conform xpass --impl "$EXAMPLE" --no-domain --random 0 --xfail "$tmp/xfail.txt"
[ "$(rc xpass)" = 1 ] || fail "an xfail that passes: exit $(rc xpass), want 1"
[ "$(report_field "$tmp/xpass" MG-001 xpass)" -gt 0 ] || fail "xpass not counted"
grep -q "^not ok [0-9]* - MG-001$" "$tmp/xpass/report.tap" || fail "TAP: an xpass is not a plain not ok"
conform xfail --impl "$BAD" --cases "$cases/plugin" --no-domain --random 0 \
  --timeout 1 --xfail "$tmp/xfail.txt"
[ "$(report_field "$tmp/xfail" MG-001 xfail)" = 2 ] || fail "xfail not counted"
printf 'MG-001 fine\n  XX-999 no such row\n' >"$tmp/badx.txt"
"$LCTX" conform --impl "$EXAMPLE" --xfail "$tmp/badx.txt" 2>"$tmp/badx.err"
[ $? = 2 ] || fail "unknown xfail row: exit not 2"
grep -q "badx.txt:2:3: unknown spec row 'XX-999'" "$tmp/badx.err" ||
  fail "unknown xfail row not named: $(cat "$tmp/badx.err")"

# 5. Shards and operation filters.
conform s1 --impl "$EXAMPLE" --no-domain --random 500 --shard 1/2
conform s2 --impl "$EXAMPLE" --no-domain --random 500 --shard 2/2
a=$(report_field "$tmp/s1" - cases_run)
b=$(report_field "$tmp/s2" - cases_run)
want=$(($(ls "$SRC"/conformance/cases/*.case | wc -l) + 500))
[ $((a + b)) = "$want" ] || fail "shards ran $a + $b cases, want $want"
[ "$a" -gt 0 ] && [ "$b" -gt 0 ] || fail "a shard is empty"
conform ops --impl "$EXAMPLE" --no-domain --random 500 --ops canonicalize
[ "$(report_field "$tmp/ops" - cases_skipped)" -gt 0 ] || fail "--ops skipped nothing"
"$PY" -c 'import json,sys
r=json.load(open(sys.argv[1]+"/report.json"))
bad=[x["id"] for x in r["rows"] if x["pass"] and x["id"][:3] not in ("CP-","RG-")]
sys.exit(1 if bad else 0)' "$tmp/ops" || fail "--ops canonicalize ran other operations"

# 6. Bad command lines.
"$LCTX" conform --cmd "no-such-program-xyz --flag" 2>"$tmp/e1"
[ $? = 2 ] && grep -q "cannot run 'no-such-program-xyz'" "$tmp/e1" ||
  fail "missing program not reported: $(cat "$tmp/e1")"
"$LCTX" conform --cmd "$PY \"unterminated" 2>"$tmp/e2"
[ $? = 2 ] && grep -q 'unterminated "' "$tmp/e2" || fail "bad quoting not reported"
# A release the table names but the reference model does not know: its
# modules cannot be judged as it behaves, so the run is refused (it is not
# judged as the modelled commit instead).
sed 's/^releases = \(.*\)$/releases = \1 99.0.0/' \
  "$SRC/conformance/spec/backend-selection.lspec" >"$tmp/future.lspec"
"$LCTX" conform --impl "$EXAMPLE" --spec "$tmp/future.lspec" --jax 99.0.0 \
  --random 10 --report-dir "$tmp/future" 2>"$tmp/e99"
[ $? = 2 ] && grep -q "the reference model does not know JAX release '99.0.0'" "$tmp/e99" ||
  fail "a release the model does not know was not refused: $(cat "$tmp/e99")"
"$LCTX" conform --impl "$tmp/none.so" 2>"$tmp/e3"
[ $? = 2 ] && grep -q "none.so" "$tmp/e3" || fail "missing plugin not reported"
"$LCTX" conform --impl "$EXAMPLE" --shard 3/2 2>"$tmp/e4"
[ $? = 2 ] && grep -q "is not I/N" "$tmp/e4" || fail "bad shard not reported"
"$LCTX" conform 2>"$tmp/e5"
[ $? = 2 ] && grep -q "exactly one of --impl" "$tmp/e5" || fail "no implementation not reported"
"$LCTX" conform --impl "$EXAMPLE" --shard=0/2 2>"$tmp/e6"
[ $? = 2 ] && grep -q "lctx conform: --shard: '0/2' is not I/N" "$tmp/e6" ||
  fail "bad --shard=VALUE not reported: $(cat "$tmp/e6")"
"$LCTX" conform --impl "$SRC/README.md" 2>"$tmp/e7"
[ $? = 2 ] && grep -q "README.md: dlopen: " "$tmp/e7" ||
  fail "a file that is no library not reported: $(cat "$tmp/e7")"
"$LCTX" conform --help >"$tmp/help" 2>&1
[ $? = 0 ] && grep -q '^usage: lctx conform (--impl LIB.so | --cmd "PROGRAM ARGS")' "$tmp/help" &&
  grep -q -- '--first-failure' "$tmp/help" || fail "--help: $(head -3 "$tmp/help")"

finish_failures "test_conform: "
echo "test_conform: ok"
