#!/bin/sh
# test_check_spec_jobs.sh - `lctx check-spec --jobs N` prints what --jobs 1
# prints, byte for byte once the seconds are masked:
# - the real spec table (PASS, exit 0) at JAX 0.4.20 (where operations are
#   absent) and at the modelled commit, with --jobs 1 and 3;
# - a copy of it with row XG-001's outcome changed, so that 146-162
#   violations are found, in cases of several registry configurations (so
#   in chunks of the domain that different threads judge), and the 20
#   printed, their order and the "(N more violations not shown)" line must
#   come out as one thread has them (exit 1), at both releases, with
#   --jobs 1 and 3;
# - --jobs 0, --jobs x, --jobs 257 and --jobs given twice exit 2 with a
#   message naming --jobs, and the help shows --jobs.
#
# --jobs 3 is the case of several threads: shares of the domain dealt out
# in turn to more threads than one, an uneven count of them (the code has
# no path for two threads alone); each run judges the whole domain, so
# --jobs 2 is left out (the test's time is 8 runs, not 12).
#
# Usage: test_check_spec_jobs.sh LCTX SOURCE_DIR
set -u
LCTX=$1
SRC=$2
. "$(dirname "$0")/lib.sh"

spec="$SRC/conformance/spec/backend-selection.lspec"
awk '/^\[/ { row = $0 }
     row == "[XG-001]" && /^outcome = / {
       $0 = "outcome = raise RuntimeError \"not the default client\""
     }
     { print }' "$spec" >"$tmp/broken.lspec"
cmp -s "$spec" "$tmp/broken.lspec" && fail "the broken spec is not changed"

# Runs check-spec with SPEC at RELEASE on JOBS threads, expecting exit CODE;
# keeps the output with the seconds masked in $tmp/out.JOBS.
run_jobs() {
  "$LCTX" check-spec --spec "$1" --jax "$2" --jobs "$3" >"$tmp/raw.$3" 2>&1
  code=$?
  [ "$code" -eq "$4" ] || fail "check-spec $1 --jax $2 --jobs $3 exits $code, not $4"
  sed -E 's/[0-9]+\.[0-9]+ s\b/S s/g' "$tmp/raw.$3" >"$tmp/out.$3"
}

for release in 0.4.20 modelled; do
  for jobs in 1 3; do
    run_jobs "$spec" "$release" "$jobs" 0
  done
  grep -q 'result: 0 violations, .*PASS' "$tmp/out.1" ||
    fail "real spec at $release: no PASS"
  # Milliseconds, which bench/wall.py's per-release figures rest on.
  grep -Eq "^release $release +[0-9]+ operations \([0-9]+ absent\), 0 violations, [0-9]+\.[0-9]{3} s\$" "$tmp/raw.1" ||
    fail "real spec at $release: no release line with seconds to 3 decimals"
  cmp -s "$tmp/out.1" "$tmp/out.3" || fail "real spec at $release: --jobs 3 differs"

  for jobs in 1 3; do
    run_jobs "$tmp/broken.lspec" "$release" "$jobs" 1
  done
  n=$(grep -c '^VIOLATION ' "$tmp/out.1")
  [ "$n" -eq 20 ] || fail "broken spec at $release: $n violations printed, not 20"
  grep -q '^VIOLATION XG-001: outcome not allowed' "$tmp/out.1" ||
    fail "broken spec at $release: no XG-001 violation printed"
  [ "$(grep '^VIOLATION ' "$tmp/out.1" | grep -vc '^VIOLATION XG-001: ')" -eq 0 ] ||
    fail "broken spec at $release: violations of other rows"
  grep -q 'more violations not shown)$' "$tmp/out.1" ||
    fail "broken spec at $release: no '(N more violations not shown)'"
  cmp -s "$tmp/out.1" "$tmp/out.3" || {
    fail "broken spec at $release: --jobs 3 differs"
    diff "$tmp/out.1" "$tmp/out.3" | head -20
  }
done

# Bad values: usage errors naming the option.
bad() {
  "$LCTX" check-spec "$@" >"$tmp/bad.out" 2>"$tmp/bad.err"
  code=$?
  [ "$code" -eq 2 ] || fail "check-spec $*: exit $code, not 2"
  grep -q -- '--jobs' "$tmp/bad.err" || fail "check-spec $*: no message naming --jobs"
  [ -s "$tmp/bad.out" ] && fail "check-spec $*: wrote to stdout"
}
bad --jobs 0
bad --jobs x
bad --jobs 257
bad --jobs -1
bad --jobs 1 --jobs 2
grep -q 'is given more than once' "$tmp/bad.err" ||
  fail "--jobs twice: not 'is given more than once'"

"$LCTX" check-spec --help >"$tmp/help" 2>&1 || fail "check-spec --help exits $?"
grep -q -- '--jobs N' "$tmp/help" || fail "check-spec --help does not show --jobs N"

finish_failures "test_check_spec_jobs: "
echo "test_check_spec_jobs: ok"
