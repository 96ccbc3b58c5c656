#!/bin/sh
# test_jax_user.sh - the exporter's user programs on the pinned JAX
# (conformance/adapters/test_user_catalogue.py, conformance/sweep/USER.md):
# tests/user/mistakes.py exported for ["cpu", "cuda"] and its declared lists,
# each result's outcome and `user` facts (the raise in the user's code, the
# primitive, its rule's def, its call site) and the census entries located
# in the user's code; bad catalogues refused at start-up (exit 2, naming
# file, entry and field); the discovery of tests/user/fakepkg's primitives
# (--package, --discover). None of its tests may be skipped.
# LCTX_JAX=off skips (exit 77); a PYTHON that cannot import jax and absl
# fails.
# Usage: test_jax_user.sh PYTHON SOURCE_DIR
set -u
. "$(dirname -- "$0")/lib.sh"
take_args PY SRC -- "$@"
jax_export_start - "$PY" "$SRC"
python_unittests test_user_catalogue.py
finish_failures "test_jax_user: "
echo PASS
