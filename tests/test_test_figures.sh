#!/bin/sh
# test_test_figures.sh - README's figures of `make test` are what
# tools/test_figures.py makes of its record (docs/test-figures.json):
#   1. --check README.md docs/test-figures.json agrees (exit 0);
#   2. a copy of README.md with one figure of the block changed by hand, and
#      a record with one figure changed, fail --check (exit 1), naming the
#      command that writes the block; --write puts the record's block back;
#   3. --time PART FILE -- COMMAND exits with COMMAND's status and appends
#      the part, its seconds and that status to FILE;
#   4. bad input (a record that is no JSON, a README without the block)
#      exits 2 with a message, no traceback;
#   5. make test ends with where its reports are (--reports BUILD: the
#      JUnit files under build/test/junit, the tests' output).
# Usage: test_test_figures.sh SOURCE_DIR
set -u
SRC=$1
. "$(dirname -- "$0")/lib.sh"
TOOL=$SRC/tools/test_figures.py
REC=$SRC/docs/test-figures.json

# 1. The README agrees with its record.
$PY "$TOOL" --check "$SRC/README.md" "$REC" >"$tmp/check.out" 2>&1 ||
  fail "--check README.md: $(cat "$tmp/check.out")"

# 2. A figure changed in the README, or in the record, is found.
sed '/lctx-test-figures:begin/,/lctx-test-figures:end/s/sum to \([0-9]\)/sum to 9\1/' \
  "$SRC/README.md" >"$tmp/README.md"
cmp -s "$SRC/README.md" "$tmp/README.md" && fail "the README's figure was not changed"
$PY "$TOOL" --check "$tmp/README.md" "$REC" >"$tmp/hand.out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "--check of an edited block exited $rc (want 1)"
grep -q "run: python3 tools/test_figures.py --write" "$tmp/hand.out" ||
  fail "--check of an edited block did not say how to write it: $(cat "$tmp/hand.out")"
$PY -c 'import json, sys
r = json.load(open(sys.argv[1]))
r["serial_seconds"] += 100
json.dump(r, open(sys.argv[2], "w"))' "$REC" "$tmp/rec.json"
$PY "$TOOL" --check "$SRC/README.md" "$tmp/rec.json" >"$tmp/rec.out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "--check against a changed record exited $rc (want 1)"
$PY "$TOOL" --write "$tmp/README.md" "$REC" >/dev/null 2>&1 ||
  fail "--write exited $?"
cmp -s "$SRC/README.md" "$tmp/README.md" || fail "--write did not put the block back"

# 3. --time: the command's status, the part recorded.
$PY "$TOOL" --time ctest "$tmp/parts.jsonl" -- sh -c 'exit 3'
rc=$?
[ "$rc" -eq 3 ] || fail "--time exited $rc, not the command's 3"
$PY -c 'import json, sys
p = json.loads(open(sys.argv[1]).read())
assert p["part"] == "ctest" and p["rc"] == 3 and p["seconds"] >= 0, p
assert p["command"] == "sh -c exit 3", p' "$tmp/parts.jsonl" ||
  fail "--time recorded $(cat "$tmp/parts.jsonl")"

# 4. Bad input.
echo '{' >"$tmp/bad.json"
echo 'no block here' >"$tmp/plain.md"
for args in "--check $SRC/README.md $tmp/bad.json" "--check $tmp/plain.md $REC" \
  "--check $SRC/README.md $tmp/missing.json"; do
  $PY "$TOOL" $args >"$tmp/bad.out" 2>&1
  rc=$?
  [ "$rc" -eq 2 ] || fail "$args: exit $rc (want 2)"
  grep -q "^test_figures: " "$tmp/bad.out" || fail "$args: no message: $(cat "$tmp/bad.out")"
  grep -q Traceback "$tmp/bad.out" && fail "$args: a traceback"
done

# 5. make test ends with where its reports are: --reports BUILD names
#    ctest's JUnit file, the CMocka ones and the tests' output (exit 1
#    without ctest's), and the Makefile's test recipe runs it last.
b=$tmp/build/test
mkdir -p "$b/junit/cmocka" "$b/Testing/Temporary"
$PY "$TOOL" --reports "$b" >"$tmp/none.out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "--reports without ctest's JUnit file: exit $rc (want 1)"
: >"$b/junit/ctest.xml"
: >"$b/junit/cmocka/test_x.xml"
: >"$b/Testing/Temporary/LastTest.log"
$PY "$TOOL" --reports "$b" >"$tmp/reports.out" 2>&1 ||
  fail "--reports: exit $?: $(cat "$tmp/reports.out")"
for want in "$b/junit/ctest.xml .*JUnit" "$b/junit/cmocka/ .*JUnit files (1)" \
  "$b/Testing/Temporary/LastTest.log .*output"; do
  grep -q "$want" "$tmp/reports.out" ||
    fail "--reports does not name '$want': $(cat "$tmp/reports.out")"
done
last=$(awk '/^test:/ { on = 1; next } on && !/^\t/ { exit } on { l = $0 } END { print l }' \
  "$SRC/Makefile")
case "$last" in
*"tools/test_figures.py --reports build/test; exit"*) ;;
*) fail "make test's last command does not say where the reports are: $last" ;;
esac

finish_failures "test_test_figures: "
echo "test_test_figures: PASS"
