#!/bin/sh
# test_jax_export.sh - the adapter's own tests (conformance/adapters/
# test_jax_export.py: the handshake and catalogue, exports with their raise
# locations, runs and census, the plain handshake without the extension,
# and what each --mutate breaks) on the pinned JAX; none may be skipped.
# LCTX_JAX=off skips (exit 77); a missing JAX fails.
# Usage: test_jax_export.sh PYTHON SOURCE_DIR
set -u
. "$(dirname -- "$0")/lib.sh"
jax_skip_if_off
PY=$1
SRC=$2
if ! "$PY" -c 'import jax, absl' >/dev/null 2>&1; then
  echo "FAIL: $PY cannot import jax and absl; run \`make test\` or \`sh tools/setup-jax.sh 0.10.2\`, or set LCTX_JAX=off"
  exit 1
fi
"$PY" "$SRC/conformance/adapters/test_jax_export.py" -v >"$tmp/out" 2>&1
rc=$?
tail -n 4 "$tmp/out"
[ "$rc" -eq 0 ] || { cat "$tmp/out"; fail "the adapter's tests failed (exit $rc)"; }
if grep -q "skipped" "$tmp/out"; then
  fail "some adapter tests were skipped"
fi
finish_failures "test_jax_export: "
echo PASS
