#!/bin/sh
# test_terminal_escape.sh - pins that text from outside lctx reaches the
# terminal escaped (harness/core/base/escape.h): case files, a spec table
# and rule files holding ESC sequences (clear screen, set title), BEL, DEL,
# a C1 control (U+0085, U+009B), and "\nresult: PASS" in names, messages,
# expectations, the spec's version and notes, and the file names
# themselves, fed to `lctx eval` (a file and a folder), `lctx explain`,
# `lctx lint` (a file and a folder), `lctx check-spec --spec` (at one
# release), plus bad command lines quoting such bytes. For every run,
# stdout and stderr
# together hold no byte below 0x20 but '\n', no 0x7f, no C1 control
# (0xc2 0x80-0x9f), and no line that starts with the forged
# "result: PASS"; the escaped forms (\x1b, \x0a) are there instead, and
# the exit codes are the usual ones. A backslash typed or in a file name
# shows doubled, so that the four characters `\x1b` never show as the
# escaped ESC byte does.
# Usage: test_terminal_escape.sh LCTX SOURCE_DIR
set -u
LCTX=$1
SRC=$2
. "$(dirname -- "$0")/lib.sh"

ESC=$(printf '\033')
C1=$(printf '\302\205')
CSI1=$(printf '\302\233')
NL='
'
# a file-name stem that clears the screen, forges a line and holds C1
evil="x${ESC}[2J${NL}result: PASS${C1}"
mkdir "$tmp/cases" "$tmp/rules"

# A case whose names, messages and expectations hold the same bytes in the
# case format's escapes; both expectations fail, so VIOLATION blocks print
# expected, actual and the case.
cat >"$tmp/cases/$evil.case" <<'CASE'
lctx-case 1
factory "cpu\x1b[2J" priority=0 loud raises "cpu\nresult: PASS\x1b]0;title\x07\x7f"
op canonicalize "cpu\x1b[2J\x07"
expect string "\x1b]0;title\x07\nresult: PASS"
op backends
expect string "x"
CASE
# A case that does not parse, named the same way (its message names it).
printf 'lctx-case 1\nop \033[2Jfoo\n' >"$tmp/bad$evil.case"

# A spec table whose version and a note hold raw ESC, BEL, DEL and C1.
sed -e "s/^spec-version = [0-9.]*/spec-version = 1.2${ESC}]0;pwned$(printf '\007')${CSI1}31m/" \
  -e "s/^note = a factory without fail_quietly raises/note = ${ESC}[2J${C1}$(printf '\177') a factory without fail_quietly raises/" \
  "$SRC/conformance/spec/backend-selection.lspec" >"$tmp/spec$evil.lspec"
# ... and one that does not parse on a row id that holds ESC.
sed "s/^\[RG-001\]/[RG-${ESC}[2J001]/" \
  "$SRC/conformance/spec/backend-selection.lspec" >"$tmp/badspec.lspec"

# A rule file whose raise message holds a newline and a C1 control, so
# that lint's smallest failing point quotes it; it expects safe and is not.
cat >"$tmp/rules/$evil.rule" <<RULE
rule-file 1
primitive "P"
source "s"
expect safe
rule "r" default
  raise_if_multi "x\\nresult: PASS ${C1}"
RULE

n=0
# run WANT_RC ARGS...: runs lctx, then checks its whole output.
run() {
  want=$1
  shift
  n=$((n + 1))
  "$LCTX" "$@" >"$tmp/out$n" 2>&1
  got=$?
  [ "$got" = "$want" ] || fail "run $n (lctx $1): exit $got, want $want"
  clean_terminal "$tmp/out$n" "$n" "$1"
}

run 1 eval "$tmp/cases/$evil.case"
shows $n 'x\x1b[2J\x0aresult: PASS\xc2\x85.case'
shows $n 'cpu\x0aresult: PASS\x1b]0;title\x07\x7f'
run 1 eval "$tmp/cases"
shows $n 'FAIL '
run 1 explain "$tmp/cases/$evil.case"
shows $n 'trace: init: registration 0'
run 2 eval "$tmp/bad$evil.case"
shows $n ":2:4: expected an operation"
run 2 eval "$tmp/missing$evil.case"
shows $n 'cannot open'
run 1 lint "$tmp/rules/$evil.rule"
# lint escapes the message into its counterexample (lctx_escape_append) and
# prints that with lctx_escape_built_lines: each escape shows once.
shows $n 'x\x0aresult: PASS \xc2\x85'
grep -qF 'x\\x0a' "$tmp/out$n" && fail "run $n: an escape shown escaped twice"
run 1 lint "$tmp/rules"
shows $n 'MISMATCH'
run 2 check-spec --spec "$tmp/badspec.lspec"
shows $n "bad row ID"
run 1 explain --spec "$tmp/spec$evil.lspec" "$tmp/cases/$evil.case"
shows $n 'note: \x1b[2J\xc2\x85\x7f a factory'
# One release: the version line is printed before any is judged, and the
# whole table at every release is ctest lctx_check_spec's (ten times this).
run 0 check-spec --quiet --jax 0.4.20 --spec "$tmp/spec$evil.lspec"
shows $n 'version 1.2\x1b]0;pwned\x07\xc2\x9b31m'
run 2 "x${ESC}[2J${NL}result: PASS"
shows $n "unknown command 'x\\x1b[2J\\x0aresult: PASS'"
run 2 enumerate --limit "1${NL}result: PASS${ESC}[2J"
shows $n "'1\\x0aresult: PASS\\x1b[2J' is not a count"
run 2 eval "--${ESC}]0;t"
shows $n "unknown option '--\\x1b]0;t'"
# The four characters \x1b and the byte ESC show differently.
run 2 eval "$tmp/missing\\x1b${ESC}.case"
shows $n 'missing\\x1b\x1b.case'
run 2 "x\\x0aresult: PASS"
shows $n "unknown command 'x\\\\x0aresult: PASS'"

finish_failures "test_terminal_escape.sh: "
echo "test_terminal_escape.sh: $n runs, every output escaped"
