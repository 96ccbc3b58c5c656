#!/bin/sh
# test_protocol_doc.sh - conformance/PROTOCOL.md against lctx itself
# (tests/protocol_doc.py does the reading):
#   - the operations lctx knows, as lctx names them when it refuses a
#     handshake (its own table, not a copy), and its extensions each have a
#     section of PROTOCOL.md, with an example exchange that uses the
#     operation; the doc quotes that refusal as lctx prints it; the outcome
#     kinds the doc gives each operation are those the spec table allows;
#   - every example exchange is real: lctx is run on the cases of the
#     examples' requests against a program that answers with the examples'
#     answers, and that program finds each request lctx sends (and lctx's
#     hello) in the doc byte for byte, apart from the id; each example
#     answer is accepted and judged pass (or crash, for the one marked so).
#
# Usage: test_protocol_doc.sh LCTX SOURCE_DIR
set -u
LCTX=$1
SRC=$2
. "$(dirname "$0")/lib.sh"
doc="$SRC/conformance/PROTOCOL.md"
tool="$SRC/tests/protocol_doc.py"

# 1. The sections, against the operations lctx knows.
"$LCTX" conform --cmd "$PY $tool unknown-op" --no-domain --random 1 \
  --report-dir "$tmp/refused" >"$tmp/refusal" 2>&1
[ $? -eq 2 ] || fail "a handshake with an unknown operation: not exit 2"
grep -q "lctx knows" "$tmp/refusal" ||
  fail "lctx's refusal names no operations: $(cat "$tmp/refusal")"
"$PY" "$tool" sections "$doc" "$SRC/conformance/spec/backend-selection.lspec" \
  "$tmp/refusal" || fail "PROTOCOL.md's sections (above)"

# 2. The example exchanges, replayed through lctx.
mkdir "$tmp/cases"
"$PY" "$tool" cases "$doc" "$tmp/cases" || fail "the examples' cases"
read -r want_pass want_crash want_mlir <"$tmp/cases/expected"
if [ "$want_pass" -eq 0 ]; then
  fail "PROTOCOL.md has no example exchange"
  finish_failures "test_protocol_doc: "
fi
: >"$tmp/replay.log"
"$LCTX" conform --cmd "$PY $tool replay $doc $tmp/replay.log" \
  --cases "$tmp/cases" --no-domain --random 0 --jobs 1 \
  --report-dir "$tmp/replay" >"$tmp/replay.out" 2>&1
code=$?
want_code=0
[ "$want_crash" -gt 0 ] && want_code=1
[ "$code" -eq "$want_code" ] ||
  fail "the replay: exit $code, not $want_code: $(tail -5 "$tmp/replay.out")"
[ -s "$tmp/replay.log" ] &&
  fail "lctx sent what PROTOCOL.md does not show: $(cat "$tmp/replay.log")"
# Per operation (the IR rows judge the modules besides): pass, crash,
# and nothing else.
got=$("$PY" -c 'import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
ops = [r for r in rows if not r["id"].startswith("IR-")]
print(*(sum(r[k] for r in ops) for k in ("pass", "crash")),
      sum(r[k] for r in rows for k in ("fail", "xfail", "xpass", "timeout",
                                       "unsupported", "flaky")))' \
  "$tmp/replay/report.json")
[ "$got" = "$want_pass $want_crash 0" ] ||
  fail "the replay: pass, crash, other $got, not $want_pass $want_crash 0: $(tail -5 "$tmp/replay.out")"
[ "$(report_field "$tmp/replay" - modules_judged)" = "$want_mlir" ] ||
  fail "the replay: not the $want_mlir module(s) of the examples judged"
if [ "$want_crash" -gt 0 ]; then
  grep -q '"detail":"the implementation failed: ' "$tmp/replay/results.jsonl" ||
    fail "the error example is not reported as the implementation's failure"
fi

finish_failures "test_protocol_doc: "
echo "test_protocol_doc: every operation has its section; $want_pass + $want_crash example operations replayed as lctx judges them"
