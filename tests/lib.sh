# tests/lib.sh - sourced by the shell tests: a temporary folder $tmp that is
# removed on exit, fail MESSAGE (prints "FAIL: MESSAGE" and counts it in
# $failures), finish_failures PREFIX (prints "PREFIXN failure(s)" and exits
# 1 when any check failed) and jax_skip_if_off (exit 77 when LCTX_JAX=off).

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

finish_failures() {
  if [ "$failures" -ne 0 ]; then
    echo "$1$failures failure(s)"
    exit 1
  fi
}

jax_skip_if_off() {
  if [ "${LCTX_JAX:-}" = off ]; then
    echo "SKIPPED: LCTX_JAX=off, the real-JAX tests do not run"
    exit 77
  fi
}
