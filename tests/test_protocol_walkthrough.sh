#!/bin/sh
# test_protocol_walkthrough.sh - the walk-through of conformance/PROTOCOL.md
# is a complete implementation: its fenced blocks marked `python
# walkthrough`, taken from the page alone and put one after the other, make
# a program that passes `lctx conform` over a tenth of what its default run
# judges (--shard 1/10 of the conformance cases, the exhaustive domain and
# the random cases; the whole run takes minutes through Python): exit 0,
# "result: PASS" (not NOTHING JUDGED), cases of each source run, over
# 50,000 operations passed and none failed, crashed or timed out.
# What it leaves out is bounded, as the page says it: its handshake names
# exactly the four backend-selection operations; the cases it finds
# unsupported are exactly those --ops with the four skips (so every case
# of the four is judged: that run judges the same cases, none
# unsupported); at least 85% of the cases run are judged.
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


# What it claims: the four backend-selection operations, no other.
FOUR=backends,canonicalize,get_backend,module_get_backend
claimed=$(echo '{"lctx": "hello", "protocol": 1}' | "$PY" "$tmp/walkthrough.py" |
  "$PY" -c 'import json,sys; print(",".join(sorted(json.loads(sys.stdin.readline())["operations"])))')
[ "$claimed" = "$FOUR" ] ||
  fail "the walk-through's handshake claims '$claimed', the page says $FOUR"
# Everything it claims is judged: with --ops the four, the same cases
# judged and none unsupported; the cases it left unsupported are those
# --ops skips beyond the shard.
"$LCTX" conform --cmd "$PY $tmp/walkthrough.py" --report-dir "$tmp/four" \
  --shard 1/10 --ops "$FOUR" --quiet >"$tmp/four.out" 2>&1 ||
  fail "lctx conform --ops $FOUR: exit $?: $(tail -5 "$tmp/four.out")"
judged=$(report_field "$tmp/r" - cases_run)
unsupported=$(report_field "$tmp/r" - cases_unsupported)
skipped=$(report_field "$tmp/r" - cases_skipped)
[ "$(report_field "$tmp/four" - cases_run)" = "$judged" ] ||
  fail "--ops $FOUR judges $(report_field "$tmp/four" - cases_run) cases, the run $judged"
[ "$(report_field "$tmp/four" - cases_unsupported)" = 0 ] ||
  fail "--ops $FOUR: $(report_field "$tmp/four" - cases_unsupported) cases of the four operations unsupported"
[ $(($(report_field "$tmp/four" - cases_skipped) - skipped)) = "$unsupported" ] ||
  fail "$unsupported cases unsupported, but --ops $FOUR skips $(($(report_field "$tmp/four" - cases_skipped) - skipped)) more than the shard"
# A real fraction judged: at least 85% of the cases run.
[ "$judged" -gt 0 ] && [ $((100 * judged)) -ge $((85 * (judged + unsupported))) ] ||
  fail "$judged cases judged, $unsupported unsupported: under 85% judged: $line"

finish_failures "test_protocol_walkthrough: "
echo "test_protocol_walkthrough: the $blocks walk-through blocks pass lctx conform ($pass operations passed; $judged cases judged, $unsupported unsupported: those of register_lowering and lower_per_platform)"
