#!/bin/sh
# test_protocol_walkthrough.sh - the walk-through of conformance/PROTOCOL.md
# is a complete implementation: its fenced blocks marked `python
# walkthrough`, taken from the page alone and put one after the other, make
# a program that passes `lctx conform` over a tenth of what its default run
# judges (--shard 1/10 of the conformance cases, the exhaustive domain and
# the random cases; the whole run takes minutes through Python): exit 0,
# "result: PASS" (not NOTHING JUDGED), cases of each source run, over
# 50,000 operations passed and none failed, crashed or timed out.
#
# Usage: test_protocol_walkthrough.sh LCTX SOURCE_DIR
set -u
LCTX=$1
SRC=$2
. "$(dirname "$0")/lib.sh"
doc="$SRC/conformance/PROTOCOL.md"

awk '/^```python walkthrough$/ { on = 1; blocks++; next }
     on && /^```$/ { on = 0; next }
     on { print }
     END { if (on) exit 1; print "# " blocks " blocks" > "/dev/stderr" }' \
  "$doc" >"$tmp/walkthrough.py" 2>"$tmp/blocks" ||
  fail "an unterminated walk-through block"
blocks=$(sed -n 's/^# \([0-9]*\) blocks$/\1/p' "$tmp/blocks")
[ "${blocks:-0}" -ge 2 ] ||
  fail "PROTOCOL.md holds ${blocks:-0} walk-through block(s) (\`\`\`python walkthrough)"
finish_failures "test_protocol_walkthrough: "

# The default run's sources (no --no-domain, --random or --cases), a tenth.
"$LCTX" conform --cmd "$PY $tmp/walkthrough.py" --report-dir "$tmp/r" \
  --shard 1/10 --quiet >"$tmp/out" 2>&1
code=$?
[ "$code" -eq 0 ] || fail "lctx conform: exit $code, not 0: $(tail -5 "$tmp/out")"
grep -qx "result: PASS" "$tmp/out" ||
  fail "no 'result: PASS': $(grep '^result:' "$tmp/out")"
grep -q "NOTHING JUDGED" "$tmp/out" && fail "nothing was judged"
grep -q "implementation walkthrough " "$tmp/out" ||
  fail "not the walk-through's program judged: $(head -2 "$tmp/out")"
# Every source ran and was judged: cases of the three, passes, no failure.
line=$(grep '^conform: ' "$tmp/out")
for source in conformance domain random; do
  n=$(echo "$line" | sed -n "s/.*[( ]\([0-9]*\) $source[,;].*/\1/p")
  [ "${n:-0}" -gt 0 ] || fail "no $source cases ran: $line"
done
pass=$(report_field "$tmp/r" '*' pass)
[ "$pass" -gt 50000 ] || fail "only $pass operations passed"
for verdict in fail crash timeout flaky xpass; do
  [ "$(report_field "$tmp/r" '*' "$verdict")" = 0 ] || fail "$verdict verdicts"
done

finish_failures "test_protocol_walkthrough: "
echo "test_protocol_walkthrough: the $blocks walk-through blocks pass lctx conform ($pass operations passed)"
