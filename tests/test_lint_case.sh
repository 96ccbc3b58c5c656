#!/bin/sh
# test_lint_case.sh - pins `lctx lint` of a first attempt: a rule file
# without `source` and `expect` lines, written in the .case spellings
# (actions separated by commas, compute_type="T", optional=B), is accepted
# and gets its verdict (UNSAFE, exit 1; SAFE, exit 0) instead of MISMATCH;
# with --write-case DIR its smallest failing point is written as
# DIR/STEM.case, which `lctx eval` passes and whose last operation's expect
# line is the raise lint reported; the older spelling compute_type "T" is
# read with a note naming line and column; --write-case of a missing
# folder exits 2.
#
# Usage: test_lint_case.sh LCTX
set -u
LCTX=$1
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 2
mkdir out
cat >first.rule <<'EOF2'
rule-file 1
primitive "cb"
rule "cb.default" default
  get_backend optional=false, lower_fun "inner" compute_type="device_host", marker
subprimitive "inner"
rule "inner.default" default
  marker
EOF2
"$LCTX" lint --write-case out first.rule >l.out 2>&1
[ $? -eq 1 ] || fail "an unsafe file without expect should exit 1: $(cat l.out)"
grep -q '^first.rule: UNSAFE (no expect line; ' l.out || fail "$(cat l.out)"
grep -q 'MISMATCH' l.out && fail "MISMATCH without an expect line"
grep -q '^  written as out/first.case$' l.out || fail "no case written: $(cat l.out)"
[ -f out/first.case ] || fail "out/first.case missing"
"$LCTX" eval out/first.case >e.out 2>&1 || fail "eval of the written case: $(cat e.out)"
grep -q '(0 without an expectation)' e.out || fail "$(cat e.out)"
raise=$(sed -n 's/^  multi-platform lowering raises \(NotImplementedError\): \(.*\)$/expect raise \1 "\2"/p' l.out)
[ -n "$raise" ] || fail "no raise in the report"
[ "$(tail -n 1 out/first.case)" = "$raise" ] ||
  fail "last expect: $(tail -n 1 out/first.case), want $raise"
grep -q '^op lower_per_platform primitive="cb" platforms=\["cpu", "cpu"\]' out/first.case ||
  fail "not the smallest point: $(cat out/first.case)"
grep -q 'older spelling' l.out && fail "a note without the older spelling"

# Safe without expect: exit 0; the older spelling noted.
cat >safe.rule <<'EOF2'
rule-file 1
primitive "s"
rule "s.default" default
  lower_fun "t" compute_type "x"
subprimitive "t"
rule "t.default" default
  marker
EOF2
"$LCTX" lint safe.rule >s.out 2>&1 || fail "a safe file exits $?: $(cat s.out)"
grep -q '^safe.rule: SAFE (no expect line; ' s.out || fail "$(cat s.out)"
grep -q '^safe.rule:4:17: note: compute_type "T" is the older spelling; write compute_type="T"' \
  s.out || fail "no note: $(cat s.out)"

"$LCTX" lint --write-case nowhere first.rule >n.out 2>&1
[ $? -eq 2 ] || fail "--write-case of a missing folder should exit 2"
grep -q 'nowhere is not a directory' n.out || fail "$(cat n.out)"

finish_failures "test_lint_case: "
