#!/bin/sh
# test_user_packages.sh - the one real third-party package of
# docs/user-packages.md that make test sweeps: equinox (pure Python, the
# smallest).  It installs build/packages/equinox/venv from the pinned and
# hashed conformance/packages/equinox/requirements.txt (PyPI; a second run
# reuses it), sweeps conformance/packages/equinox/programs.py with lctx
# (tools/user_packages.py --check equinox) and asserts that every outcome
# of the docs table for equinox still holds; then that the check fails on
# a copy of the table with one outcome changed (ok -> missing-rule) and
# with one line gone (those two compare the same sweep again, --no-sweep:
# each of the three sweeps took about 10 s of CPU).
# LCTX_JAX=off skips (exit 77); a failed install fails.
# Usage: test_user_packages.sh LCTX SOURCE_DIR
set -u
. "$(dirname -- "$0")/lib.sh"
jax_skip_if_off
take_args LCTX SRC -- "$@"
cd "$SRC" || exit 1
if ! "$PY" tools/package_venvs.py setup equinox >"$tmp/setup.out" 2>&1; then
  tail -n 5 "$tmp/setup.out"
  echo "FAIL: tools/package_venvs.py setup equinox failed"
  exit 1
fi
DOC=docs/user-packages.md
grep -q '^<!-- outcomes equinox -->' "$DOC" || fail "$DOC has no outcomes of equinox"
n=$(sed -n '/^<!-- outcomes equinox -->/,/^<!-- \/outcomes equinox -->/p' "$DOC" |
  grep -c '^| `')
[ "$n" -ge 7 ] || fail "$DOC holds $n outcome lines for equinox, want >= 7"

"$PY" tools/user_packages.py --check equinox --no-setup --lctx "$LCTX" \
  >"$tmp/check.out" 2>"$tmp/check.err"
rc=$?
[ "$rc" -eq 0 ] || fail "check exit $rc: $(tail -n 8 "$tmp/check.out" "$tmp/check.err")"
grep -q "^equinox: $n cases, the table's outcomes hold" "$tmp/check.out" ||
  fail "no 'outcomes hold' line for $n cases: $(tail -n 3 "$tmp/check.out")"

# The check can fail: one outcome changed, one line gone.
awk 'BEGIN { done = 0 }
  !done && /^\| `user\/programs\/mlp` / { sub(/\| ok \|/, "| missing-rule |"); done = 1 }
  { print }' "$DOC" >"$tmp/changed.md"
cmp -s "$DOC" "$tmp/changed.md" && fail "the changed copy equals the table"
"$PY" tools/user_packages.py --check equinox --no-setup --lctx "$LCTX" \
  --no-sweep --out "$tmp/changed.md" >"$tmp/changed.out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "changed table: exit $rc, want 1"
grep -q '^table: | `user/programs/mlp` .* missing-rule' "$tmp/changed.out" ||
  fail "changed table: the changed line is not named: $(head -n 3 "$tmp/changed.out")"
grep -v '^| `user/programs/noinline`' "$DOC" >"$tmp/gone.md"
"$PY" tools/user_packages.py --check equinox --no-setup --lctx "$LCTX" \
  --no-sweep --out "$tmp/gone.md" >"$tmp/gone.out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "table without noinline: exit $rc, want 1"
grep -q '^now:   | `user/programs/noinline`' "$tmp/gone.out" ||
  fail "table without noinline: the new line is not named"
finish_failures "test_user_packages: "
echo "test_user_packages: the docs table's $n equinox outcomes hold"
