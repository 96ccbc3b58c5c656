#!/bin/sh
# test_campaign_honesty.sh - pins what a campaign and a conform run say
# about themselves, with a stand-in libFuzzer build (a script: in a campaign
# it writes one crash input and prints -fork's status line, whose rate is
# `exec/s 77` without a colon, then sleeps 3 s past --time 1):
#   the live line shows exec/s 77, not 0; summary.txt and the terminal say
#   how long fuzzing and minimizing took and that the rest beyond --time is
#   the engine's own start-up and stop; "spec rows hit N of the R
#   fuzz_model can reach" names the missed rows (in summary.txt and after
#   the last live line), and the rows it cannot reach apart, with why;
#   a conform run that stops on bad input (exit 2) writes no report.json,
#   report.tap or report.junit.xml and says so; conform's "first failure
#   after X s" is not larger than its "in Y s";
#   `lctx fuzz --help` names the targets of the one table,
#   lctx_fuzz_targets[] in harness/core/checks/fuzzcheck.c, in its order.
#
# Usage: test_campaign_honesty.sh LCTX PLUGIN MUTANT SOURCE_DIR
set -u
LCTX=$1
PLUGIN=$2
MUTANT=$3
SRC=$4
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 2
fake_libfuzzer fakefz \
  'echo "#400: cov: 10 ft: 10 corp: 3 exec/s 77 oom/timeout/crash: 0/0/1 time: 1s job: 1 dft_time: 0"' \
  'sleep 3' \
  'echo "stat::number_of_executed_units: 400"'
"$LCTX" fuzz --engine libfuzzer --target fuzz_model --time 1 --out camp \
  --binary "$tmp/fakefz" >run.txt 2>&1
[ $? -eq 1 ] || fail "the campaign should exit 1: $(cat run.txt)"
grep -q 'exec/s        77 ' run.txt || fail "the rate is not shown: $(grep exec/s run.txt)"
grep -q 'exec/s         0 ' run.txt && fail "exec/s 0 shown"
for f in run.txt camp/summary.txt; do
  grep -Eq "^  time: [3-9] s fuzzing \(--time 1; the rest is the engine's own start-up and stop\), [0-9]+ s minimizing \(findings and corpus\)$" "$f" ||
    fail "$f: no time line: $(grep time: "$f")"
  grep -Eq '^  spec rows hit by the corpus: [0-9]+ of the [0-9]+ fuzz_model can reach \([0-9]+ in the table\); missed: ([A-Z]+-[0-9]+ ?)+$' "$f" ||
    fail "$f: missed rows not named: $(grep 'rows hit' "$f")"
  grep -Eq '^  spec rows fuzz_model cannot reach: .*IR-006 \(check = ir' "$f" ||
    fail "$f: rows out of reach not named: $(grep 'cannot reach' "$f")"
done
grep -Eq '^  spec rows missed \(fuzz_model can reach them\): .*LP-005' run.txt ||
  fail "no missed rows after the live line"

# conform: bad input writes no report.
printf 'lctx-case 1\nop bogus\n' >bad.case
"$LCTX" conform --impl "$PLUGIN" --cases bad.case --report-dir r1 >c1.out 2>&1
[ $? -eq 2 ] || fail "bad input should exit 2"
for f in report.json report.tap report.junit.xml; do
  [ -e "r1/$f" ] && fail "$f written for a run that stopped on bad input"
done
grep -q '^reports: none (the run stopped on bad input)$' c1.out ||
  fail "$(tail -n 3 c1.out)"

# conform: the first failure is timed within the run's own time.
"$LCTX" conform --impl "$MUTANT" --no-domain --random 300 \
  --cases "$SRC/conformance/cases/XG-001-default-highest-priority.case" \
  --report-dir r2 >c2.out 2>&1
[ $? -eq 1 ] || fail "the mutant should fail: $(tail -n 3 c2.out)"
first=$(sed -n 's/^first failure: .* after \([0-9.]*\) s.*$/\1/p' c2.out)
total=$(sed -n 's/^conform: .* in \([0-9.]*\) s, .*$/\1/p' c2.out)
[ -n "$first" ] && [ -n "$total" ] || fail "no times: $(tail -n 8 c2.out)"
awk -v f="$first" -v t="$total" 'BEGIN { exit !(f <= t + 0.05) }' ||
  fail "first failure after $first s, run in $total s"

# The targets `lctx fuzz` names are the table's rows (one a line there).
table=$(sed -n '/^const lctx_fuzz_target lctx_fuzz_targets\[\] = {/,/^};/p' \
  "$SRC/harness/core/checks/fuzzcheck.c" |
  sed -n 's/^ *{"\([a-z_]*\)",.*/\1/p' | paste -sd, - | sed 's/,/, /g')
[ -n "$table" ] || fail "no rows read from fuzzcheck.c's table"
"$LCTX" fuzz --help >help.out 2>&1
grep -qx "targets: $table" help.out ||
  fail "lctx fuzz --help: $(grep '^targets' help.out), the table: $table"

finish_failures "test_campaign_honesty: "
