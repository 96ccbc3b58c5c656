#!/bin/sh
# test_jax_sweep_user.sh - `lctx sweep --programs tests/user/mistakes.py`
# on the real, pinned JAX (--python: the venv's Python; jax_export.py and
# --lctx built by lctx): each program of the user's catalogue gets its
# class of mistake, the user's file:line and the fix, in the output and in
# report.json's "diagnoses":
#   get_backend   get-backend at user_rules.py, the get_backend() call
#   backend_read  get-backend at user_rules.py, the .backend read
#   host_rule     host-backend at user_rules.py, the jax.devices() call
#   host_trace    host-backend at mistakes.py, the jax.default_backend()
#   missing_rule  missing-rule on its declared lists, naming tpu and rocm
#   host_callback host-callback
#   jax_defect    jax-defect, upstream-multiplatform-effect-tuple
#   clean         none
# LCTX_JAX=off skips (exit 77); a missing JAX fails.
# Usage: test_jax_sweep_user.sh LCTX PYTHON SOURCE_DIR
set -u
. "$(dirname -- "$0")/lib.sh"
jax_export_start "$@"
USER_DIR=$SRC/tests/user
# Run from tests/: the lines name the user's files relative to the working
# folder (report.json keeps them absolute).
(cd "$SRC/tests" && "$LCTX" sweep --programs "$USER_DIR/mistakes.py" \
  --python "$PY" --out "$tmp/a" --lists 2 --quiet) >"$tmp/a.out" 2>"$tmp/a.err"
rc=$?
# SW-006 flags the look-ups in user code as new findings.
[ "$rc" -eq 1 ] || fail "exit $rc, want 1: $(tail -n 5 "$tmp/a.err")"
line_of() { # line_of FILE TEXT: the first line of FILE holding TEXT
  grep -nF -- "$2" "$USER_DIR/$1" | head -n 1 | cut -d: -f1
}
has() { # has TEXT: a line of the sweep's output holds TEXT
  grep -qF -- "$1" "$tmp/a.out" || fail "no line holds: $1"
}
rules=user/user_rules.py
has "$rules:$(line_of user_rules.py 'get_backend()'): get-backend: user/mistakes/get_backend ["
has "$rules:$(line_of user_rules.py '.backend is None'): get-backend: user/mistakes/backend_read ["
has "$rules:$(line_of user_rules.py 'jax.devices()'): host-backend: user/mistakes/host_rule ["
has "user/mistakes.py:$(line_of mistakes.py 'jax.default_backend()'): host-backend: user/mistakes/host_trace ["
has "missing-rule: user/mistakes/missing_rule [cpu, tpu]: "
has "fix: register a rule for tpu (mlir.register_lowering"
has "missing-rule: user/mistakes/missing_rule [cuda, cpu, rocm]: "
has "fix: register a rule for rocm (mlir.register_lowering"
has "user/mistakes.py:$(line_of mistakes.py 'jax.pure_callback'): host-callback: user/mistakes/host_callback ["
has "user/mistakes.py:$(line_of mistakes.py 'jax.debug.print'): jax-defect: user/mistakes/jax_defect ["
has "fix: upstream-multiplatform-effect-tuple: no JAX release fixes it yet: pin one platform (see docs/upstream-multiplatform-effect-tuple.md)"
has "fix: call ctx.module_context.get_backend(optional=True) and handle None"
has "fix: host callbacks refuse several platforms: export for one platform at a time (pin one platform)"
grep -q "user/mistakes/clean" "$tmp/a.out" && fail "the clean program is diagnosed"
"$PY" - "$tmp/a/report.json" "$tmp/a/results.jsonl" <<'EOF' || fail "report.json's diagnoses or the declared lists"
import json, sys
d = json.load(open(sys.argv[1]))["diagnoses"]
by = {}
for g in d:
    by.setdefault(g["program"].rsplit("/", 1)[1], set()).add(g["class"])
want = {"get_backend": {"get-backend"}, "backend_read": {"get-backend"},
        "host_rule": {"host-backend"}, "host_trace": {"host-backend"},
        "missing_rule": {"missing-rule"}, "host_callback": {"host-callback"},
        "jax_defect": {"jax-defect"}}
assert by == want, by
gb = [g for g in d if g["program"].endswith("/get_backend")][0]
assert gb["rule"]["function"] == "get_backend_rule", gb
assert gb["call_site"]["file"].endswith("/tests/user/mistakes.py"), gb
assert gb["call_site"]["file"].startswith("/"), gb
assert gb["primitive"] == "lctx_user_get_backend", gb
lines = [json.loads(l) for l in open(sys.argv[2])][1:]
lists = [l["platforms"] for l in lines if l["program"].endswith("/missing_rule")]
assert lists == [["cpu", "tpu"], ["cuda", "cpu", "rocm"]], lists
EOF
finish_failures "test_jax_sweep_user: "
echo PASS
