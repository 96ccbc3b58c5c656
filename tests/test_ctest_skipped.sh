#!/bin/sh
# test_ctest_skipped.sh - a skipped test says why: tools/ctest_skipped.py
# reads a real ctest run's JUnit file (a project of three tests: one passes,
# one skips printing "SKIPPED: REASON", one skips printing nothing) and
# prints the reason of each skipped test, escaped, and nothing for the one
# that ran; `make test` runs it after ctest, keeping ctest's exit status.
# Usage: test_ctest_skipped.sh SOURCE_DIR CMAKE CTEST
set -u
. "$(dirname -- "$0")/lib.sh"
take_args SRC CMAKE CTEST -- "$@"

mkdir -p "$tmp/p"
cat >"$tmp/p/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.25)
project(skips NONE)
enable_testing()
add_test(NAME runs COMMAND sh -c "echo SKIPPED: not me")
add_test(NAME says_why
         COMMAND sh -c "echo some output; printf 'SKIPPED: no \\177afl\\n'; exit 77")
add_test(NAME says_nothing COMMAND sh -c "exit 77")
set_tests_properties(says_why says_nothing PROPERTIES SKIP_RETURN_CODE 77)
EOF
"$CMAKE" -S "$tmp/p" -B "$tmp/b" >"$tmp/cmake.txt" 2>&1 ||
  fail "cmake: $(tail -n 5 "$tmp/cmake.txt")"
(cd "$tmp/b" && "$CTEST" --output-junit "$tmp/j.xml" >"$tmp/ctest.txt" 2>&1) ||
  fail "ctest: $(tail -n 5 "$tmp/ctest.txt")"
$PY "$SRC/tools/ctest_skipped.py" "$tmp/j.xml" >"$tmp/out.txt" 2>&1 ||
  fail "ctest_skipped.py exited $?: $(cat "$tmp/out.txt")"
grep -qx 'skipped: says_why: no \\x7fafl' "$tmp/out.txt" ||
  fail "no escaped reason for says_why: $(cat "$tmp/out.txt")"
grep -qx 'skipped: says_nothing: no reason printed (SKIP_RETURN_CODE=77)' "$tmp/out.txt" ||
  fail "no line for says_nothing: $(cat "$tmp/out.txt")"
! grep -q "runs" "$tmp/out.txt" || fail "a test that ran is listed: $(cat "$tmp/out.txt")"
[ "$(wc -l <"$tmp/out.txt")" -eq 2 ] || fail "not two lines: $(cat "$tmp/out.txt")"

# A file that cannot be read: exit 2, named.
$PY "$SRC/tools/ctest_skipped.py" "$tmp/none.xml" >"$tmp/none.txt" 2>&1
[ $? -eq 2 ] || fail "a missing file: not exit 2"
grep -q "none.xml" "$tmp/none.txt" || fail "a missing file not named"

# make test prints the reasons and keeps ctest's exit status.
sed -n '/^test:/,/^$/p' "$SRC/Makefile" >"$tmp/make_test.txt"
tr -d '\\\n' <"$tmp/make_test.txt" |
  grep -q 'ctest --preset test[^;]*; rc=\$\$?; .*tools/ctest_skipped.py build/test/junit/ctest.xml.*exit \$\$rc' ||
  fail "make test does not print the skipped tests' reasons: $(cat "$tmp/make_test.txt")"

finish_failures "test_ctest_skipped: "
echo "test_ctest_skipped: PASS"
