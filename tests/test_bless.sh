#!/bin/sh
# test_bless.sh - pins `lctx eval --bless`: a case without expectations
# becomes one that `lctx eval` passes, with its comments, blank lines and
# layout kept and the expect lines those of the hand-written case; --bless
# writes only missing lines, --bless=all rewrites a wrong one in its place;
# a violation of an expect line names the spec row; an outcome the spec
# table does not allow is refused (exit 1, naming the
# operation and the row) and the file is left as it was.
#
# Usage: test_bless.sh LCTX SOURCE_DIR
set -u
. "$(dirname "$0")/lib.sh"
take_args LCTX SRC -- "$@"
cd "$tmp" || exit 2
orig="$SRC/conformance/cases/XG-001-default-highest-priority.case"

# 1. The case without its expect lines, a comment and a blank line added.
{ grep -v '^expect' "$orig"; printf '\n# a last comment\n'; } >bare.case
cp bare.case input.case
"$LCTX" eval bare.case >e0.out 2>&1
grep -q '(2 without an expectation)' e0.out || fail "bare: $(cat e0.out)"
"$LCTX" eval --bless bare.case >b.out 2>&1 || fail "--bless exits $?: $(cat b.out)"
grep -q '^blessed bare.case: 2 expect lines written' b.out || fail "$(cat b.out)"
"$LCTX" eval bare.case >e1.out 2>&1 || fail "eval after --bless exits $?"
grep -q '(0 without an expectation)' e1.out || fail "blessed: $(cat e1.out)"
grep -v '^expect' bare.case | cmp -s - input.case ||
  fail "--bless changed other lines than expect lines"
{ printf '\n# a last comment\n'; } | cat "$orig" - | cmp -s - bare.case ||
  fail "the blessed case differs from the hand-written one: $(cat bare.case)"

# 2. --bless leaves an existing (wrong) expect line; --bless=all rewrites it.
sed 's/^expect client registry 1 "tpu"$/expect None/' "$orig" >wrong.case
grep -q '^expect None' wrong.case || fail "wrong.case not made"
"$LCTX" eval --bless wrong.case >/dev/null 2>&1
"$LCTX" eval wrong.case >w.out 2>&1 && fail "--bless rewrote an existing expect line"
# The violation line names the row of the operation that differs.
grep -q '^VIOLATION wrong.case XG-001: outcome differs' w.out ||
  fail "the violation names no row: $(head -1 w.out)"
"$LCTX" eval --bless=all wrong.case >/dev/null 2>&1 || fail "--bless=all exits $?"
cmp -s "$orig" wrong.case || fail "--bless=all: $(cat wrong.case)"

# 3. A table that allows only None for XG-001 refuses the blessing.
sed 's/^outcome = client registry {client_reg} "{client}"$/outcome = none/' \
  "$SRC/conformance/spec/backend-selection.lspec" >none.lspec
cp input.case refused.case
"$LCTX" eval --spec none.lspec --bless refused.case >r.out 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "a forbidden outcome: --bless exits $rc, not 1"
grep -q '^REFUSED refused.case: operation 0: .* not allowed by row XG-001' r.out ||
  fail "the refusal names no operation and row: $(cat r.out)"
cmp -s input.case refused.case || fail "a refused case was written"

"$LCTX" eval --bless=some bare.case >/dev/null 2>&1
[ $? -eq 2 ] || fail "--bless=some is not refused with exit 2"

finish_failures "test_bless: "
echo "test_bless: blessed, kept, rewritten and refused as it should"
