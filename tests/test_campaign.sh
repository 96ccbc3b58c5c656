#!/bin/sh
# test_campaign.sh - pins the campaign runner end to end with a real
# libFuzzer build of a mutant model (one condition flipped):
#   lctx fuzz finds it and stores a finding keyed by its spec row, with the
#   input, a minimized input, a report and the commands that reproduce it;
#   the reproduce command really reproduces; a second run resumes the
#   corpus and minimizes it when it ends (libFuzzer -merge=1, counts on the
#   terminal and in summary.txt); lctx replay runs inputs; lctx promote writes a readable
#   regression; bad command lines exit 2 with a message; --help, -h,
#   --opt=value and -- work as in every command.
# Usage: test_campaign.sh LCTX FUZZ_MODEL_MUTANT
set -u
LCTX=$1
MUTANT=$2
. "$(dirname -- "$0")/lib.sh"

# 1. A campaign against the mutant: findings, exit 1.
"$LCTX" fuzz --engine libfuzzer --target fuzz_model --time 8 --out "$tmp/c" \
  --binary "$MUTANT" >"$tmp/run1.txt" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "lctx fuzz against the mutant exited $rc, want 1"
grep -q "new finding" "$tmp/run1.txt" || fail "no 'new finding' line"
finding=$(ls -d "$tmp"/c/findings/*row=MG-00* 2>/dev/null | head -n 1)
[ -n "$finding" ] || fail "no finding keyed by a MG row in $tmp/c/findings"
if [ -n "$finding" ]; then
  for f in input minimized report.txt reproduce.txt key.txt; do
    [ -s "$finding/$f" ] || [ "$f" = minimized ] ||
      fail "finding lacks $f"
  done
  grep -q "^key: fuzz_model/" "$finding/report.txt" || fail "report has no key"
  grep -q "LCTX-FINDING fuzz_model/" "$finding/report.txt" ||
    fail "report lacks the target's own LCTX-FINDING line"
  # The first command of reproduce.txt reproduces the finding.
  cmd=$(grep -v '^#' "$finding/reproduce.txt" | head -n 1)
  sh -c "$cmd" >"$tmp/repro.txt" 2>&1 && fail "reproduce command did not fail"
  grep -q "LCTX-FINDING $(cat "$finding/key.txt")" "$tmp/repro.txt" ||
    fail "reproduce command does not give the same key"
  # Minimizing never grows the input.
  in=$(wc -c <"$finding/input")
  min=$(wc -c <"$finding/minimized")
  [ "$min" -le "$in" ] || fail "minimized ($min) larger than input ($in)"
  # 2. promote: a regression with a readable twin, in a scratch root.
  "$LCTX" promote --to "$tmp/reg" "$finding" >"$tmp/promote.txt" 2>&1 ||
    fail "lctx promote failed: $(cat "$tmp/promote.txt")"
  ls "$tmp"/reg/fuzz_model/*.bin >/dev/null 2>&1 || fail "no promoted .bin"
  ls "$tmp"/reg/fuzz_model/text/*.case >/dev/null 2>&1 ||
    fail "no readable twin"
  # 3. replay: the real model (in lctx) passes the mutant's finding.
  "$LCTX" replay --target fuzz_model "$finding/minimized" >"$tmp/replay.txt" ||
    fail "replay of the finding under the real model failed"
  grep -q "replay: 1 inputs, 0 findings" "$tmp/replay.txt" ||
    fail "replay summary: $(cat "$tmp/replay.txt")"
fi

# 4. Resume: a second run keeps the corpus and says so.
before=$(ls "$tmp/c/corpus" | wc -l)
"$LCTX" fuzz --engine libfuzzer --target fuzz_model --time 2 --out "$tmp/c" \
  --binary "$MUTANT" >"$tmp/run2.txt" 2>&1
grep -q "resuming the existing corpus" "$tmp/run2.txt" ||
  fail "second run did not resume"
after=$(ls "$tmp/c/corpus" | wc -l)
[ "$after" -gt 0 ] || fail "the corpus is empty after the second run"
# Each run minimizes its corpus when it ends, on the terminal and in its
# summary, with the counts before and after.
grep -q "minimizing the corpus (libFuzzer -merge=1) \.\.\. [0-9]* -> $after inputs" \
  "$tmp/run2.txt" || fail "no corpus minimization line: $(tail -n 12 "$tmp/run2.txt")"
grep -q "corpus minimized (libFuzzer -merge=1): [0-9]* -> $after inputs" \
  "$tmp/c/summary.txt" || fail "summary.txt lacks the corpus minimization"
grep -q "finding(s) in all" "$tmp/run2.txt" || fail "no summary on resume"

# 5. Bad command lines: exit 2 and a message naming the problem.
"$LCTX" fuzz --engine nope --target fuzz_model --time 1 2>"$tmp/e1"
[ $? -eq 2 ] && grep -q "'nope' is not libfuzzer or afl" "$tmp/e1" ||
  fail "bad --engine not reported"
"$LCTX" fuzz --engine libfuzzer --target fuzz_nope --time 1 2>"$tmp/e2"
[ $? -eq 2 ] && grep -q "unknown target 'fuzz_nope'" "$tmp/e2" ||
  fail "bad --target not reported"
"$LCTX" fuzz --engine libfuzzer --target fuzz_model --time soon 2>"$tmp/e3"
[ $? -eq 2 ] && grep -q "'soon' is not a number" "$tmp/e3" ||
  fail "bad --time not reported"
"$LCTX" replay --target fuzz_model "$tmp/none" 2>"$tmp/e4"
[ $? -eq 2 ] && grep -q "no such file" "$tmp/e4" ||
  fail "missing replay input not reported"

# 6. The shared option parser: help, --opt=value, --, missing values.
"$LCTX" fuzz --help >"$tmp/h1" 2>&1
[ $? -eq 0 ] && grep -q "^usage: lctx fuzz --engine" "$tmp/h1" &&
  grep -q -- "--jobs N" "$tmp/h1" || fail "lctx fuzz --help"
"$LCTX" replay -h >"$tmp/h2" 2>&1
[ $? -eq 0 ] && grep -q "^usage: lctx replay" "$tmp/h2" || fail "lctx replay -h"
"$LCTX" promote --help >"$tmp/h3" 2>&1
[ $? -eq 0 ] && grep -q "^usage: lctx promote" "$tmp/h3" ||
  fail "lctx promote --help"
"$LCTX" fuzz --engine=libfuzzer --target=fuzz_model --time=soon 2>"$tmp/e5"
[ $? -eq 2 ] && grep -q "lctx fuzz: --time: 'soon' is not a number" "$tmp/e5" ||
  fail "--time=soon not reported"
"$LCTX" fuzz --engine libfuzzer --target fuzz_model --time 5 --jobs 17 \
  2>"$tmp/e6"
[ $? -eq 2 ] && grep -q "'17' is not a whole number from 1 to 16" "$tmp/e6" ||
  fail "bad --jobs not reported"
"$LCTX" fuzz --engine libfuzzer --target fuzz_model 2>"$tmp/e7"
[ $? -eq 2 ] && grep -q "are required" "$tmp/e7" || fail "missing --time"
"$LCTX" fuzz --engine 2>"$tmp/e8"
[ $? -eq 2 ] && grep -q "lctx fuzz: --engine needs a value" "$tmp/e8" ||
  fail "missing --engine value not reported"
"$LCTX" replay 2>"$tmp/e9"
[ $? -eq 2 ] && grep -q "lctx replay: no inputs" "$tmp/e9" ||
  fail "replay without inputs not reported"
"$LCTX" replay --target=fuzz_nope x 2>"$tmp/e10"
[ $? -eq 2 ] && grep -q "unknown target 'fuzz_nope'" "$tmp/e10" ||
  fail "replay --target=fuzz_nope not reported"
printf '' >"$tmp/empty-input"
"$LCTX" replay --target=fuzz_spec -- "$tmp/empty-input" >"$tmp/r2" 2>&1 &&
  grep -q "replay: 1 inputs, 0 findings" "$tmp/r2" ||
  fail "replay --target=fuzz_spec -- FILE: $(cat "$tmp/r2")"
"$LCTX" promote 2>"$tmp/e11"
[ $? -eq 2 ] && grep -q "lctx promote: expected one finding" "$tmp/e11" ||
  fail "promote without a finding not reported"
"$LCTX" promote --target=fuzz_spec --to="$tmp/reg2" --name=empty \
  "$tmp/empty-input" >"$tmp/p2" 2>&1 && [ -f "$tmp/reg2/fuzz_spec/empty.lspec" ] ||
  fail "promote --opt=value: $(cat "$tmp/p2")"

if [ "$failures" -ne 0 ]; then
  echo "test_campaign: $failures failure(s)"
  echo "--- first run output:"
  cat "$tmp/run1.txt"
  exit 1
fi
echo "test_campaign: ok (finding: ${finding##*/})"
