#!/bin/sh
# test_reports.sh - pins the reports of `lctx conform` as their consumers
# read them, and `lctx report merge`:
#   - TAP: Perl's `prove` (a TAP consumer) passes the report of a passing
#     run and of a run whose failures are all expected (`not ok # TODO
#     reason`), and fails the report of a failing run (a mutant of the
#     example plugin) and of a run whose expected failure passed (a plain
#     `not ok`, no directive);
#   - JUnit: the classname names the implementation and the shard, so two
#     runs differ; UTF-8 from an implementation stays UTF-8, a byte that is
#     not UTF-8 becomes U+FFFD, and the file parses as XML;
#   - report merge: the three shards of a run merged hold the counts per row
#     of the unsharded run; reports of two implementations, a shard given
#     twice or missing, a truncated or missing report.json are refused
#     (exit 2, named); merged failing shards exit 1 and keep each failing
#     row's rerun line (report.json, report.tap, the text).
# Usage: test_reports.sh LCTX EXAMPLE_PLUGIN MISBEHAVING_PLUGIN MUTANT SRC
set -u
. "$(dirname -- "$0")/lib.sh"
take_args LCTX EXAMPLE BAD MUTANT SRC -- "$@"
need_command prove "prove (perl; tools/install-deps.sh)"
# prove_ok DIR: prove accepts DIR/report.tap.
prove_ok() { prove --exec cat "$tmp/$1/report.tap" >"$tmp/$1.prove" 2>&1; }

# 1. TAP as prove reads it.
conform pass --no-domain --impl "$EXAMPLE" --random 300
[ "$(rc pass)" = 0 ] || fail "example plugin: exit $(rc pass)"
prove_ok pass || fail "prove fails a passing run: $(tail -5 "$tmp/pass.prove")"
conform mutant --no-domain --impl "$MUTANT" --random 300
[ "$(rc mutant)" = 1 ] || fail "mutant: exit $(rc mutant), want 1"
prove_ok mutant && fail "prove passes a failing run"
grep -q '^not ok [0-9]* - [A-Z]*-[0-9]*$' "$tmp/mutant/report.tap" ||
  fail "a failing row is not a plain 'not ok'"
# The misbehaving plugin rewords MG-001's messages in two cases: with MG-001
# expected to fail, a run of those cases and two good ones passes.
mkdir "$tmp/xcases"
for c in 01-ok 06a-nasty 06b-wording 07-ok; do
  cp "$SRC/tests/conform_cases/plugin/$c.case" "$tmp/xcases/"
done
echo "MG-001 expected by the test" >"$tmp/xfail.txt"
conform xfail --no-domain --impl "$BAD" --cases "$tmp/xcases" --random 0 --xfail "$tmp/xfail.txt"
[ "$(rc xfail)" = 0 ] || fail "expected failures: exit $(rc xfail), want 0: $(tail -5 "$tmp/xfail.out")"
[ "$(report_field "$tmp/xfail" MG-001 xfail)" = 2 ] || fail "expected failures not counted"
prove_ok xfail || fail "prove fails a run of expected failures: $(tail -5 "$tmp/xfail.prove")"
grep -q "^not ok [0-9]* - MG-001 # TODO expected by the test$" \
  "$tmp/xfail/report.tap" || fail "an expected failure is not 'not ok # TODO reason'"
prove -v --exec cat "$tmp/xfail/report.tap" 2>&1 | grep -q "MG-001 # TODO" ||
  fail "prove did not read the TODO"
echo "MG-001 expected by the test" >"$tmp/xpass.txt"
conform xpass --no-domain --impl "$EXAMPLE" --random 0 --xfail "$tmp/xpass.txt"
[ "$(rc xpass)" = 1 ] || fail "an xpass: exit $(rc xpass), want 1"
grep -q '^not ok [0-9]* - MG-001$' "$tmp/xpass/report.tap" ||
  fail "an xpass is not a plain 'not ok'"
prove_ok xpass && fail "prove passes a run with an xpass"

# 2. JUnit: classnames, UTF-8, well-formed.
cat >"$tmp/utf8_impl.py" <<PYEOF
import sys
sys.path.insert(0, "$SRC/tests/impls")
import example_wrap
example_wrap.serve("lctx utf8/py", "0.0.1", "caf\u00e9 \u2192 d\u00e9j\u00e0")
PYEOF
conform utf8 --no-domain --cmd "$PY $tmp/utf8_impl.py" --random 0
[ "$(rc utf8)" = 1 ] || fail "UTF-8 implementation: exit $(rc utf8), want 1"
conform shard2 --no-domain --impl "$EXAMPLE" --random 300 --shard 2/3
conform nasty --no-domain --impl "$BAD" --cases "$SRC/tests/conform_cases/plugin" \
  --random 0 --timeout 1
"$PY" - "$tmp" <<'PYEOF' || fail "JUnit reports"
import sys, xml.dom.minidom
t = sys.argv[1]
def classnames(d):
    doc = xml.dom.minidom.parse(d + "/report.junit.xml")
    return doc, {c.getAttribute("classname")
                 for c in doc.getElementsByTagName("testcase")}
def text(doc):
    return "".join(n.data for e in doc.getElementsByTagName("*")
                   for n in e.childNodes if n.nodeType == n.TEXT_NODE)
_, a = classnames(t + "/pass")
_, b = classnames(t + "/shard2")
doc, c = classnames(t + "/utf8")
assert a == {"lctx.lctx-example-c"}, a
assert b == {"lctx.lctx-example-c.shard-2-of-3"}, b
assert c == {"lctx.lctx_utf8_py"}, c
assert "caf\u00e9 \u2192 d\u00e9j\u00e0" in text(doc), "UTF-8 lost"
raw = open(t + "/utf8/report.junit.xml", "rb").read()
assert "caf\u00e9 \u2192".encode() in raw, "UTF-8 not written as UTF-8"
doc, _ = classnames(t + "/nasty")
assert "\ufffd end" in text(doc), "an invalid byte is not U+FFFD"
assert "\u00ff" not in text(doc), "an invalid byte read as Latin-1"
PYEOF

# 3. report merge.
conform whole --no-domain --impl "$EXAMPLE" --random 2000
for k in 1 2 3; do
  conform "s$k" --no-domain --impl "$EXAMPLE" --random 2000 --shard "$k/3"
done
merge() {
  name=$1
  shift
  "$LCTX" report merge --out "$tmp/$name" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  echo $? >"$tmp/$name.rc"
}
# merge_refused WHAT PATTERN NAME DIR...: merge NAME DIR... exits 2 and its
# stderr says PATTERN (grep); else a failure, said with WHAT.
merge_refused() {
  what=$1
  pattern=$2
  shift 2
  merge "$@"
  [ "$(rc "$1")" = 2 ] || fail "$what merged: exit $(rc "$1"), want 2"
  grep -q "$pattern" "$tmp/$1.err" ||
    fail "$what not named: $(cat "$tmp/$1.err")"
}
merge m "$tmp/s1" "$tmp/s2" "$tmp/s3"
[ "$(rc m)" = 0 ] || fail "merge: exit $(rc m): $(cat "$tmp/m.err")"
"$PY" - "$tmp/whole" "$tmp/m" <<'PYEOF' || fail "merged counts differ from the unsharded run"
import json, sys
a, b = (json.load(open(d + "/report.json")) for d in sys.argv[1:3])
keys = ["pass", "fail", "xfail", "xpass", "crash", "timeout",
        "unsupported", "flaky"]
ra = [(r["id"], [r[k] for k in keys]) for r in a["rows"]]
rb = [(r["id"], [r[k] for k in keys]) for r in b["rows"]]
assert ra == rb, [(x, y) for x, y in zip(ra, rb) if x != y][:3]
for k in ("cases_run", "cases_skipped", "cases_unsupported"):
    assert a[k] == b[k], (k, a[k], b[k])
assert b["shard"] == {"index": 1, "count": 1}, b["shard"]
assert sum(r["pass"] for r in b["rows"]) > 2000
PYEOF
prove_ok m || fail "prove fails the merged report"
[ "$(wc -l <"$tmp/m/results.jsonl")" -ge 1 ] || fail "no merged results.jsonl"
grep -q 'classname="lctx.lctx-example-c"' "$tmp/m/report.junit.xml" ||
  fail "merged JUnit classname"
merge_refused "two implementations" \
  "utf8/report.json is another run .*implementation differs" \
  mix "$tmp/s1" "$tmp/utf8"
conform s2j --no-domain --impl "$EXAMPLE" --random 2000 --shard 2/3 --jax 0.10.2
merge_refused "shards judged as two JAX releases" \
  "s2j/report.json is another run .*JAX release judged as differs" \
  rel "$tmp/s1" "$tmp/s2j" "$tmp/s3"
grep -q '"jax_release": "modelled"' "$tmp/m/report.json" ||
  fail "the merged report does not say which release it judged as"
merge_refused "a missing shard" "1 of 3 shards missing: 2/3" \
  miss "$tmp/s1" "$tmp/s3"
merge part --partial "$tmp/s1" "$tmp/s3"
[ "$(rc part)" = 0 ] || fail "--partial: exit $(rc part)"
grep -q "warning: 1 of 3 shards missing: 2/3" "$tmp/part.err" ||
  fail "--partial does not name the missing shard"
merge_refused "a shard twice" "shard 2/3 is given twice" \
  twice "$tmp/s1" "$tmp/s2" "$tmp/s2" "$tmp/s3"
cp -r "$tmp/s2" "$tmp/cut"
head -c 300 "$tmp/s2/report.json" >"$tmp/cut/report.json"
merge_refused "a truncated report" \
  "cut/report.json:[0-9]*:[0-9]*: not a whole JSON report" \
  trunc "$tmp/s1" "$tmp/cut" "$tmp/s3"
rm "$tmp/cut/report.json"
merge_refused "a missing report" "cut/report.json: cannot read" \
  gone "$tmp/s1" "$tmp/cut" "$tmp/s3"
# A FIFO in place of report.json is refused without blocking.
mkfifo "$tmp/cut/report.json"
timeout 20 "$LCTX" report merge --out "$tmp/fifo" "$tmp/s1" "$tmp/cut" \
  "$tmp/s3" >"$tmp/fifo.out" 2>"$tmp/fifo.err"
[ $? = 2 ] || fail "a FIFO report.json: not exit 2 (or it blocked)"
grep -q "cut/report.json: cannot read: not a regular file" "$tmp/fifo.err" ||
  fail "a FIFO report.json is not named: $(cat "$tmp/fifo.err")"
rm "$tmp/cut/report.json"
conform f1 --no-domain --impl "$MUTANT" --random 300 --shard 1/2
conform f2 --no-domain --impl "$MUTANT" --random 300 --shard 2/2
merge fm "$tmp/f1" "$tmp/f2"
[ "$(rc fm)" = 1 ] || fail "merged failing shards: exit $(rc fm), want 1"
prove_ok fm && fail "prove passes merged failing shards"
[ "$(report_field "$tmp/fm" '*' fail)" = "$(report_field "$tmp/mutant" '*' fail)" ] ||
  fail "merged failing shards: fail counts differ from the unsharded run"
# The merged reports keep the rerun lines: every failing row of report.json
# has the rerun line of the shard whose failure of it is the earliest in
# the plan (first_at), and so has its first failure; report.tap and the
# merge's text carry each of them.
"$PY" - "$tmp/fm" "$tmp/f1" "$tmp/f2" <<'PYEOF' >"$tmp/fm.reruns" ||
import json, sys
m, *shards = (json.load(open(d + "/report.json")) for d in sys.argv[1:])
bad = []
failing = [r for r in m["rows"] if r.get("first")]
for r in failing:
    rank = {"cases": 0, "domain": 1, "random": 2}
    at = lambda x: (rank[x["source"]], x["index"], x["operation"])
    want = min(((at(s_r["first_at"]), s_r["rerun"]) for s in shards
                for s_r in s["rows"]
                if s_r["id"] == r["id"] and s_r.get("rerun")),
               default=(None, None))[1]
    if not r.get("rerun") or r["rerun"] != want:
        bad.append("%s: rerun %r, the shards' %r" % (r["id"], r.get("rerun"), want))
ff = m.get("first_failure", {})
if not ff.get("rerun"):
    bad.append("first_failure has no rerun line")
if not failing:
    bad.append("no failing row")
for b in bad:
    print("FAIL: merged report.json: " + b, file=sys.stderr)
for r in failing:
    print(r["rerun"])
sys.exit(1 if bad else 0)
PYEOF
  fail "the merged report.json lost rerun lines"
while read -r line; do
  grep -qF "rerun: \"$line\"" "$tmp/fm/report.tap" ||
    fail "merged report.tap lacks the rerun line $line"
  grep -qxF "  rerun: $line" "$tmp/fm.out" ||
    fail "the merge's text lacks the rerun line $line"
done <"$tmp/fm.reruns"
[ -s "$tmp/fm.reruns" ] || fail "no merged rerun line to check"

# 4. The command line.
"$LCTX" report >/dev/null 2>"$tmp/e1"
[ $? = 2 ] && grep -q "missing subcommand" "$tmp/e1" || fail "lctx report: no usage error"
"$LCTX" report nope 2>"$tmp/e2" >/dev/null
[ $? = 2 ] && grep -q "unknown subcommand 'nope'" "$tmp/e2" || fail "lctx report nope"
"$LCTX" report merge "$tmp/s1" 2>"$tmp/e3" >/dev/null
[ $? = 2 ] && grep -q -- "--out DIR is required" "$tmp/e3" || fail "merge without --out"
"$LCTX" report merge --help >"$tmp/h" 2>&1 && grep -q "usage: lctx report merge" "$tmp/h" ||
  fail "lctx report merge --help"

finish_failures "test_reports: "
echo "test_reports: all checks passed"
