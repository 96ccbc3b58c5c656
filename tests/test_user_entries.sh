#!/bin/sh
# test_user_entries.sh - the entries a JAX user runs on their own code, on
# the pinned JAX: `python -m lctx_jax.check` on tests/user/mistakes.py (each
# mistake's class and file:line, exit 1), on a catalogue of one clean
# program (exit 0), on a bad catalogue (exit 2 naming the file) and with a
# hostile lctx (no report.json, garbage: exit 2, never 0); its unit tests
# against fake lctx binaries (conformance/adapters/test_check.py); the
# pytest plugin (tests/user/test_mistakes_pytest.py with
# `-p lctx_jax.pytest_plugin`, and a failing test whose report shows the
# diagnoses); and lctx_jax installed by pip (offline) loading the plugin
# through its pytest11 entry point. Both entries drive LCTX's sweep.
# LCTX_JAX=off skips (exit 77); a missing JAX or pytest fails.
# Usage: test_user_entries.sh LCTX PYTHON SOURCE_DIR
set -u
. "$(dirname -- "$0")/lib.sh"
jax_export_start "$@"
LCTX=$(cd "$(dirname -- "$LCTX")" && pwd)/$(basename -- "$LCTX")
if ! "$PY" -c 'import pytest' >/dev/null 2>&1; then
  echo "FAIL: $PY cannot import pytest; run \`sh tools/setup-jax.sh 0.10.2\` (it installs conformance/adapters/requirements/pytest.txt), or set LCTX_JAX=off"
  exit 1
fi
PYTHONPATH=$SRC/conformance/adapters
# The report folders a failing check keeps go to $tmp.
TMPDIR=$tmp
export PYTHONPATH TMPDIR
cd "$SRC" || exit 1

# check ARGS...: python -m lctx_jax.check ARGS, output in $tmp/out, exit
# status in $rc.
check() {
  "$PY" -m lctx_jax.check --lctx "$LCTX" "$@" >"$tmp/out" 2>&1
  rc=$?
}
has() {
  grep -qF -- "$1" "$tmp/out" || fail "$2: no '$1' in: $(cat "$tmp/out")"
}
line_of() { grep -nF -- "$2" "$1" | cut -d: -f1; }

# 1. The unit tests of check.py (fake lctx binaries, no JAX).
python_unittests test_check.py

# 2. Every mistake of the fixture, with its class and place; exit 1.
check tests/user/mistakes.py --jobs 2
[ "$rc" -eq 1 ] || fail "mistakes.py: exit $rc, not 1: $(cat "$tmp/out")"
gb=$(line_of tests/user/user_rules.py "backend = ctx.module_context.get_backend()")
has "tests/user/user_rules.py:$gb: get-backend: user/mistakes/get_backend [" mistakes
for p in "get-backend: user/mistakes/backend_read" \
  "host-backend: user/mistakes/host_rule" \
  "host-backend: user/mistakes/host_trace" \
  "missing-rule: user/mistakes/missing_rule" \
  "host-callback: user/mistakes/host_callback" \
  "jax-defect: user/mistakes/jax_defect"; do
  has ": $p [" mistakes
done
# Each diagnosis line starts with FILE:LINE and carries its fix.
grep -F ": user/mistakes/" "$tmp/out" | grep -v "^[^: ]*\.py:[0-9][0-9]*: " |
  grep -q . && fail "a diagnosis without FILE:LINE: $(cat "$tmp/out")"
grep -F ": user/mistakes/" "$tmp/out" | grep -vF "; fix: " | grep -q . &&
  fail "a diagnosis without its fix: $(cat "$tmp/out")"
grep -qF "user/mistakes/clean" "$tmp/out" &&
  fail "clean was diagnosed: $(cat "$tmp/out")"
has "lctx_jax.check: 8 programs" "the summary"
cp "$tmp/out" "$tmp/mistakes.out"

# 2b. --platforms: the programs that declare no lists are exported for
# exactly those (missing_rule keeps its own two); a list JAX cannot take
# is bad input.
check tests/user/mistakes.py --platforms "cuda,cpu"
[ "$rc" -eq 1 ] || fail "--platforms cuda,cpu: exit $rc, not 1: $(cat "$tmp/out")"
has "user/mistakes/get_backend [cuda, cpu]: " "--platforms cuda,cpu"
has "user/mistakes/host_trace [cuda, cpu]: " "--platforms cuda,cpu"
has "user/mistakes/missing_rule [cpu, tpu]: " "missing_rule's own lists"
grep -q "user/mistakes/get_backend \[" "$tmp/out" &&
  ! grep -q "user/mistakes/get_backend \[cuda, cpu\]" "$tmp/out" &&
  fail "--platforms cuda,cpu: another list was drawn: $(cat "$tmp/out")"
check tests/user/mistakes.py --platforms "cpu"
[ "$rc" -eq 2 ] || fail "--platforms cpu: exit $rc, not 2: $(cat "$tmp/out")"
has "--platforms: platforms[0]: 1 names (2 to 4)" "--platforms cpu"

# 3. A catalogue with only the clean program passes (exit 0).
mkdir "$tmp/clean"
cp tests/user/user_rules.py "$tmp/clean/"
cat >"$tmp/clean/only_clean.py" <<'EOF'
import jax.numpy as jnp
import numpy as np
import user_rules as r

LCTX_PROGRAMS = [{"name": "clean", "args": (np.ones(4, np.float32),),
                  "fn": lambda x: jnp.sin(r.adapted_p.bind(x))}]
EOF
check "$tmp/clean/only_clean.py"
[ "$rc" -eq 0 ] || fail "only_clean.py: exit $rc, not 0: $(cat "$tmp/out")"
has "no diagnosis" "only_clean.py"

# 4. A bad catalogue: exit 2, naming the file (and no traceback).
mkdir "$tmp/bad"
printf 'LCTX_PROGRAMS = [{"name": "x", "fn": 3, "args": ()}]\n' \
  >"$tmp/bad/bad_catalogue.py"
check "$tmp/bad/bad_catalogue.py"
[ "$rc" -eq 2 ] || fail "bad_catalogue.py: exit $rc, not 2: $(cat "$tmp/out")"
has "bad_catalogue.py" "bad_catalogue.py"
check "$tmp/bad/not_there.py"
[ "$rc" -eq 2 ] || fail "not_there.py: exit $rc, not 2"
has "not_there.py: no such catalogue file" "not_there.py"

# 5. A hostile lctx never passes: no report.json, garbage, exit 0 both.
for mode in none garbage; do
  cat >"$tmp/fake-$mode" <<EOF
#!/bin/sh
while [ "\$1" != --out ]; do shift; done
mkdir -p "\$2"
[ $mode = garbage ] && printf '\033]0;pwned\007{"cases_run": ' >"\$2/report.json"
exit 0
EOF
  chmod +x "$tmp/fake-$mode"
  "$PY" -m lctx_jax.check --lctx "$tmp/fake-$mode" tests/user/mistakes.py \
    >"$tmp/out" 2>&1
  rc=$?
  [ "$rc" -eq 2 ] || fail "fake lctx ($mode): exit $rc, not 2: $(cat "$tmp/out")"
  has "report.json" "fake lctx ($mode)"
  grep -q "$(printf '\033')" "$tmp/out" && fail "fake lctx ($mode): a raw escape"
done

# 6. The pytest plugin: the library's test file passes, and a test
# asserting that the mistakes export fails shows them. One pytest run holds
# both: the fixture's one sweep of mistakes.py serves every test.
cat >"$tmp/test_fails.py" <<EOF
def test_exports(lctx_export):
    lctx_export.assert_exports("$SRC/tests/user/mistakes.py")
EOF
"$PY" -m pytest -p lctx_jax.pytest_plugin -p no:cacheprovider -q -rf \
  tests/user/test_mistakes_pytest.py "$tmp/test_fails.py" --lctx "$LCTX" \
  >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "pytest, one test failing: exit $rc, not 1: $(cat "$tmp/out")"
grep -q "^FAILED .*test_fails.py::test_exports" "$tmp/out" ||
  fail "pytest: test_fails.py::test_exports did not fail: $(cat "$tmp/out")"
grep -q "1 failed, 12 passed" "$tmp/out" ||
  fail "pytest: not 12 passed and 1 failed: $(tail -n 3 "$tmp/out")"
has "tests/user/user_rules.py:$gb: get-backend: user/mistakes/get_backend" "pytest's failure"
has "; fix: call ctx.module_context.get_backend(optional=True)" "pytest's failure"

# 7. pip installs lctx_jax offline (from a copy: no build files in the
# tree) and pytest loads the plugin by its entry point, with -p too.
mkdir "$tmp/pkg"
cp -R conformance/adapters/pyproject.toml conformance/adapters/README.md \
  conformance/adapters/lctx_jax "$tmp/pkg/"
"$PY" -m pip install --quiet --disable-pip-version-check --no-index \
  --no-build-isolation --no-deps --target "$tmp/site" "$tmp/pkg" \
  >"$tmp/pip" 2>&1 || { cat "$tmp/pip"; fail "pip install of lctx_jax failed"; }
cat >"$tmp/test_entry.py" <<'EOF'
def test_fixture(lctx_export, pytestconfig):
    assert pytestconfig.getoption("--lctx")
    assert type(lctx_export).__name__ == "LctxExport"
EOF
for p in "" "-p lctx_jax.pytest_plugin"; do
  # shellcheck disable=SC2086
  PYTHONPATH=$tmp/site "$PY" -m pytest $p -p no:cacheprovider -q \
    "$tmp/test_entry.py" --lctx "$LCTX" >"$tmp/out" 2>&1 ||
    fail "the installed plugin ($p): $(cat "$tmp/out")"
done

finish_failures "test_user_entries: "
cat "$tmp/mistakes.out"
echo PASS
