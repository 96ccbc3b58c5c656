#!/bin/sh
# test_jax_export.sh - the adapter's own tests (conformance/adapters/
# test_jax_export.py: the handshake and catalogue, exports with their raise
# locations, runs and census, the plain handshake without the extension,
# and what each --mutate breaks) and those of the builder of generated
# programs (test_jax_program.py: conformance/sweep/PROGRAMS.md in JAX,
# reproductions, dispatch traces, the generated programs' mutants) on the
# pinned JAX; none may be skipped.
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
for t in test_jax_export test_jax_program; do
  "$PY" "$SRC/conformance/adapters/$t.py" -v >"$tmp/out" 2>&1
  rc=$?
  tail -n 4 "$tmp/out"
  [ "$rc" -eq 0 ] || { cat "$tmp/out"; fail "$t.py failed (exit $rc)"; }
  if grep -q "skipped" "$tmp/out"; then
    fail "some tests of $t.py were skipped"
  fi
done
finish_failures "test_jax_export: "
echo PASS
