#!/bin/sh
# test_lint_py.sh - `lctx lint FILE.py|DIR`: the static check of Python
# lowering code (conformance/adapters/lctx_jax/lint.py, docs/lint.md) run
# through the process layer. Its findings, messages and exit status pass
# through unchanged (the same lines as `python -m lctx_jax.lint`; 0 clean, 1
# findings, 2 a syntax error naming FILE:LINE:COL); the Python is --python,
# else $LCTX_PYTHON; a linter that writes control bytes is escaped; one that
# exits otherwise (status 7, a missing program, no findings file written)
# is exit 2 with a message saying so; a folder of .py files goes to the
# Python check, a folder of .rule files to the rule lint as before.
#
# Usage: test_lint_py.sh LCTX SOURCE_DIR
set -u
LCTX=$1
SRC=$2
. "$(dirname "$0")/lib.sh"
cd "$SRC" || exit 2
USER_RULES=tests/user/user_rules.py

# 1. Findings pass through: the same lines as the linter run directly.
"$LCTX" lint --python "$PY" "$USER_RULES" >"$tmp/out1" 2>"$tmp/err1"
rc=$?
[ $rc -eq 1 ] || fail "run 1: exit $rc for findings: $(cat "$tmp/out1" "$tmp/err1")"
PYTHONPATH=conformance/adapters "$PY" -m lctx_jax.lint "$USER_RULES" >"$tmp/direct" 2>&1
cmp -s "$tmp/out1" "$tmp/direct" ||
  fail "run 1: not the linter's lines: $(diff "$tmp/direct" "$tmp/out1")"
[ "$(wc -l <"$tmp/out1")" -eq 4 ] || fail "run 1: $(cat "$tmp/out1")"
shows 1 "$USER_RULES:31:15: get-backend: "
shows 1 "; fix: call ctx.module_context.get_backend(optional=True)"
[ -s "$tmp/err1" ] && fail "run 1: stderr: $(cat "$tmp/err1")"

# 1b. The fixture catalogue and its rules in one run: each program's
# mistake with its class, FILE:LINE:COL and the sweep's fix (diagnose.c);
# clean and adapted_rule get nothing.
MISTAKES=tests/user/mistakes.py
"$LCTX" lint --python "$PY" "$MISTAKES" "$USER_RULES" >"$tmp/out1b" 2>&1
[ $? -eq 1 ] || fail "run 1b: exit for findings: $(cat "$tmp/out1b")"
[ "$(wc -l <"$tmp/out1b")" -eq 7 ] || fail "run 1b: $(cat "$tmp/out1b")"
shows 1b "$USER_RULES:65:1: missing-rule: primitive \`partial_p\` ('lctx_user_partial')"
shows 1b "naming rocm or tpu raises NotImplementedError (MLIR translation rule for primitive 'lctx_user_partial' not found for platforms [...]); fix: register a rule for rocm, tpu (mlir.register_lowering(prim, rule, platform=...)) or a default rule, or export without them"
shows 1b "$MISTAKES:39:12: host-callback: \`jax.pure_callback()\` is a host callback"
shows 1b "(in traced function \`host_callback\`); fix: host callbacks refuse several platforms: export for one platform at a time (pin one platform)"
shows 1b "$MISTAKES:44:5: jax-defect: \`jax.debug.print()\` exported for several platforms raises TypeError (can only concatenate list (not \"tuple\") to list)"
shows 1b "fix: upstream-multiplatform-effect-tuple: no JAX release fixes it yet: pin one platform (see docs/upstream-multiplatform-effect-tuple.md)"
shows 1b "$MISTAKES:29:8: host-backend: "
grep -q "\`clean\`\|adapted_rule" "$tmp/out1b" && fail "run 1b: clean flagged: $(cat "$tmp/out1b")"

# 2. A clean file: exit 0, nothing printed; $LCTX_PYTHON is the Python.
cat >"$tmp/clean.py" <<'EOF'
def rule(ctx, x):
    backend = ctx.module_context.get_backend(optional=True)
    return [x] if backend is None else [x]
EOF
LCTX_PYTHON=$PY "$LCTX" lint "$tmp/clean.py" >"$tmp/out2" 2>&1
[ $? -eq 0 ] || fail "run 2: clean file: $(cat "$tmp/out2")"
[ -s "$tmp/out2" ] && fail "run 2: output for a clean file: $(cat "$tmp/out2")"

# 3. A syntax error: exit 2, FILE:LINE:COL on stderr.
printf 'import jax\n\ndef rule(ctx x):\n    pass\n' >"$tmp/broken.py"
"$LCTX" lint --python "$PY" "$tmp/broken.py" >"$tmp/out3" 2>"$tmp/err3"
[ $? -eq 2 ] || fail "run 3: syntax error should exit 2"
grep -qF "$tmp/broken.py:3:" "$tmp/err3" || fail "run 3: $(cat "$tmp/err3")"
grep -q Traceback "$tmp/err3" && fail "run 3: a traceback: $(cat "$tmp/err3")"

# 4. A folder of .py files goes to the Python check (recursively).
mkdir -p "$tmp/pkg/sub"
cp tests/user/lint_only.py "$tmp/pkg/sub/"
"$LCTX" lint --python "$PY" "$tmp/pkg" >"$tmp/out4" 2>&1
[ $? -eq 1 ] || fail "run 4: a folder: $(cat "$tmp/out4")"
shows 4 "unknown-platform: register_lowering for platform 'metal'"
grep -q 'lctx lint: .* file' "$tmp/out4" && fail "run 4: a rule summary: $(cat "$tmp/out4")"

# 5. A hostile linter: control bytes in its findings and its messages are
# escaped; its exit status 1 passes through.
cat >"$tmp/hostile" <<'EOF'
#!/bin/sh
while [ $# -gt 0 ]; do
  if [ "$1" = --output ]; then out=$2; fi
  shift
done
printf 'x.py:1:1: get-backend: \033]0;owned\007\033[2J\rresult: PASS\n' >"$out"
printf 'warn \033[31mred\033[0m\n' >&2
exit 1
EOF
chmod +x "$tmp/hostile"
"$LCTX" lint --python "$tmp/hostile" x.py >"$tmp/out5" 2>&1
[ $? -eq 1 ] || fail "run 5: the linter's exit 1 should pass through"
clean_terminal "$tmp/out5" 5 lint
shows 5 'x.py:1:1: get-backend: \x1b]0;owned\x07\x1b[2J\x0dresult: PASS'
shows 5 'warn \x1b[31mred\x1b[0m'

# 6. A linter that exits 7, or exits 1 without writing its findings (as a
# Python without lctx_jax does), or a program that does not exist: exit 2,
# saying so.
printf '#!/bin/sh\necho boom >&2\nexit 7\n' >"$tmp/seven"
printf '#!/bin/sh\necho "No module named lctx_jax" >&2\nexit 1\n' >"$tmp/nomod"
chmod +x "$tmp/seven" "$tmp/nomod"
"$LCTX" lint --python "$tmp/seven" x.py >"$tmp/out6" 2>&1
[ $? -eq 2 ] || fail "run 6: exit 7 should be exit 2"
shows 6 "exited with status 7"
shows 6 "boom"
"$LCTX" lint --python "$tmp/nomod" x.py >"$tmp/out7" 2>&1
[ $? -eq 2 ] || fail "run 7: no findings file should be exit 2"
shows 7 "without writing its findings"
"$LCTX" lint --python "$tmp/no-such-python" x.py >"$tmp/out8" 2>&1
[ $? -eq 2 ] || fail "run 8: a missing Python should be exit 2"
shows 8 "no-such-python"

# 7. Rule files are linted as before.
"$LCTX" lint corpus/rules >"$tmp/out9" 2>&1 || fail "run 9: $(tail -3 "$tmp/out9")"
shows 9 "every verdict as expected"

finish_failures "test_lint_py: "
echo "test_lint_py: ok"
