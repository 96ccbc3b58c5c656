#!/bin/sh
# test_lint_jax_src.sh - docs/lint-jax-src.md lists exactly what the static
# check of Python lowering code (python -m lctx_jax.lint) prints today over
# the pinned JAX's jax/_src, and judges each flag (confirmed or explained):
# tools/lint_jax_src.py --check. Skips (77) only with LCTX_JAX=off; a
# missing JAX fails it (run sh tools/setup-jax.sh 0.10.2).
#
# Usage: test_lint_jax_src.sh PYTHON SOURCE_DIR
set -u
PYTHON=$1
SRC=$2
. "$(dirname "$0")/lib.sh"
jax_skip_if_off
[ -x "$PYTHON" ] || {
  echo "FAIL: $PYTHON does not exist; run sh tools/setup-jax.sh 0.10.2, or set LCTX_JAX=off"
  exit 1
}
"$PY" "$SRC/tools/lint_jax_src.py" --check --python "$PYTHON" ||
  fail "docs/lint-jax-src.md differs from the linter's run (make lint-jax)"
finish_failures "test_lint_jax_src: "
echo "test_lint_jax_src: ok"
