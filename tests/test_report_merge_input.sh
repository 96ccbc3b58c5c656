#!/bin/sh
# test_report_merge_input.sh - `lctx report merge` given hostile shards:
#   - a results.jsonl line that is not one conform writes ([], "x", an
#     object without a verdict, a verdict line longer than
#     LCTX_REPORT_MERGE_MAX_LINE, a 64 MiB line, a stamp line that is not
#     one) is refused: exit 2, the file and line named, and no merged
#     results.jsonl holds it;
#   - a report.json that is no JSON object ([1,2,3]) is refused with the
#     file and what was expected named;
#   - a shard folder name or report.json fields (lctx_version,
#     implementation_version, spec_version, a row id) holding ESC [ 2 J and
#     a forged "result: PASS" line reach the terminal escaped: no control
#     byte but '\n' and one "result:" line at most; so does a failing row's
#     forged rerun line, which the merged report.json keeps.
# Usage: test_report_merge_input.sh LCTX EXAMPLE_PLUGIN
set -u
LCTX=$1
EXAMPLE=$2
. "$(dirname -- "$0")/lib.sh"

ESC=$(printf '\033')
NL='
'
for k in 1 2; do
  "$LCTX" conform --report-dir "$tmp/s$k" --quiet --no-domain \
    --impl "$EXAMPLE" --random 200 --shard "$k/2" >"$tmp/s$k.out" 2>&1 ||
    fail "conform shard $k/2: $(tail -3 "$tmp/s$k.out")"
done
n=0
rc() { cat "$tmp/m$n.rc"; }
said() { grep -qF -- "$1" "$tmp/m$n.err" || fail "merge $n: no '$1' in: $(head -c 600 "$tmp/m$n.err")"; }
# clean: the output of merge $n holds no control byte but '\n' and at
# most one line starting "result:".
clean() {
  "$PY" - "$tmp/m$n.out" "$tmp/m$n.err" "$n" <<'PY' || failures=$((failures + 1))
import re, sys
data = open(sys.argv[1], "rb").read() + open(sys.argv[2], "rb").read()
bad = sorted({b for b in data if (b < 0x20 and b != 0x0a) or b == 0x7f})
results = len(re.findall(rb"(?:^|\n)result:", data))
if bad or results > 1:
    print("FAIL: merge %s: control bytes %r, %d result lines in:\n%s"
          % (sys.argv[3], bad, results, data.decode("utf-8", "replace")))
    sys.exit(1)
PY
}

merge "$tmp/s1" "$tmp/s2"
[ "$(rc)" = 0 ] || fail "merge of two good shards: exit $(rc): $(cat "$tmp/m$n.err")"
lines=$(($(wc -l <"$tmp/s1/results.jsonl") + $(wc -l <"$tmp/s2/results.jsonl") - 1))
[ "$(wc -l <"$tmp/m$n/results.jsonl")" = "$lines" ] ||
  fail "merged results.jsonl: not the $lines lines of the shards"

# K6: bad lines of results.jsonl.
# bad_line NAME: shard 2 with the text of $tmp/NAME.line appended (or, with
# a second argument "stamp", in place of its stamp line), merged.
bad_line() {
  rm -rf "$tmp/$1"
  cp -r "$tmp/s2" "$tmp/$1"
  if [ "${2:-}" = stamp ]; then
    { cat "$tmp/$1.line"; tail -n +2 "$tmp/s2/results.jsonl"; } >"$tmp/$1/results.jsonl"
    at=1
  else
    cat "$tmp/$1.line" >>"$tmp/$1/results.jsonl"
    at=$(wc -l <"$tmp/$1/results.jsonl")
  fi
  merge "$tmp/s1" "$tmp/$1"
  [ "$(rc)" = 2 ] || fail "$1: exit $(rc), want 2"
  said "$1/results.jsonl:$at: not a results.jsonl line"
  [ -e "$tmp/m$n/results.jsonl" ] && fail "$1: a merged results.jsonl was written"
  clean
}
echo '[]' >"$tmp/array.line"
bad_line array
echo '"x"' >"$tmp/string.line"
bad_line string
echo '{"source":"random","index":1,"name":"random:1","operation":0,"row":"RG-001"}' \
  >"$tmp/noverdict.line"
bad_line noverdict
said "field 'verdict' is missing"
echo '{"source":"random","index":1,"name":"random:1","operation":0,"row":"NOPE-1","verdict":"pass"}' \
  >"$tmp/norow.line"
bad_line norow
"$PY" - "$tmp/long.line" <<'PY'
import json, sys
line = {"source": "random", "index": 1, "name": "random:1", "operation": 0,
        "row": "RG-001", "verdict": "pass", "detail": "d" * (3 << 20)}
open(sys.argv[1], "w").write(json.dumps(line) + "\n")
PY
bad_line long
said "longer than 1 MiB, the limit of a line"
{ head -c 67108864 /dev/zero | tr '\0' a; echo; } >"$tmp/huge.line"
bad_line huge
rm -f "$tmp/huge.line" "$tmp/huge/results.jsonl"
echo '{"spec_version":"1"}' >"$tmp/nostamp.line"
bad_line nostamp stamp

# 4: a report.json that is no object.
rm -rf "$tmp/arr"
cp -r "$tmp/s2" "$tmp/arr"
echo '[1,2,3]' >"$tmp/arr/report.json"
merge "$tmp/s1" "$tmp/arr"
[ "$(rc)" = 2 ] || fail "report.json [1,2,3]: exit $(rc), want 2"
said "arr/report.json: not a conform report: a JSON object"
said "not an array"

# K5: hostile text from the shards reaches the terminal escaped.
evil="x${ESC}[2J${NL}result: PASS"
# forge DIR KEY: a copy of shard 2 as DIR with report.json's KEY (row0:
# the first row's id) set to a text holding ESC [ 2 J and a forged line.
forge() {
  rm -rf "$1"
  cp -r "$tmp/s2" "$1"
  "$PY" - "$1/report.json" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
text = "1\x1b[2J\nresult: PASS"
if sys.argv[2] == "row0":
    r["rows"][0]["id"] = "\x1b[2J\nresult: PA"  # 15 bytes, the longest id
elif sys.argv[2] == "rerun0":  # a failing row whose rerun line is hostile
    r["rows"][0].update({"fail": 1, "first": "random case 1: " + text,
                         "rerun": "lctx conform " + text})
else:
    r[sys.argv[2]] = text
json.dump(r, open(sys.argv[1], "w"))
PY
}
cp -r "$tmp/s2" "$tmp/$evil"
merge "$tmp/s1" "$tmp/s2" "$tmp/$evil"
[ "$(rc)" = 2 ] || fail "a shard twice under a hostile name: exit $(rc)"
said 'is given twice'
said 'x\x1b[2J\x0aresult: PASS'
clean
for key in implementation_version spec_version row0; do
  forge "$tmp/f-$key" "$key"
  merge "$tmp/f-$key" "$tmp/s1"
  [ "$(rc)" = 2 ] || fail "forged $key: exit $(rc), want 2"
  clean
done
# A forged failing row's first failure and rerun line: merged (exit 1),
# kept in the merged report.json, shown escaped.
forge "$tmp/f-rerun" rerun0
merge "$tmp/s1" "$tmp/f-rerun"
[ "$(rc)" = 1 ] || fail "a forged failing row: exit $(rc), want 1: $(cat "$tmp/m$n.err")"
grep -qF '  rerun: lctx conform 1\x1b[2J\x0aresult: PASS' "$tmp/m$n.out" ||
  fail "the forged rerun line is not shown escaped: $(cat "$tmp/m$n.out")"
grep -qiF '"rerun": "lctx conform 1\u001b[2J\nresult: PASS"' "$tmp/m$n/report.json" ||
  fail "the merged report.json does not keep the forged rerun line"
clean
# The same forged lctx_version in both shards merges; the stamp shows it
# escaped.
forge "$tmp/v2" lctx_version
rm -rf "$tmp/v1"
cp -r "$tmp/s1" "$tmp/v1"
"$PY" - "$tmp/v1/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["lctx_version"] = "1\x1b[2J\nresult: PASS"
json.dump(r, open(sys.argv[1], "w"))
PY
merge "$tmp/v1" "$tmp/v2"
[ "$(rc)" = 0 ] || fail "a forged lctx_version in both shards: exit $(rc): $(cat "$tmp/m$n.err")"
grep -qF 'lctx 1\x1b[2J\x0aresult: PASS' "$tmp/m$n.out" ||
  fail "the stamp does not show the lctx version escaped: $(cat "$tmp/m$n.out")"
clean

finish_failures "test_report_merge_input: "
echo "test_report_merge_input: all checks passed"
