#!/bin/sh
# test_sweep_diagnose.sh - `lctx sweep` on a user's catalogue against
# tests/sweep_fake_user.py (fixed answers, no JAX): a program that declares
# its platform lists is judged on exactly those (whatever --lists), a hello
# declaring a bad list is refused naming the field (exit 2); each mistake
# gets its diagnosis line (class, user file:line, primitive, rule, call
# site, fix) after the summary, escape bytes never raw, a clean program
# none; report.json's "diagnoses", the JUnit and TAP tests of them, the
# same when the run is resumed; and
# `--programs SPEC` builds the exporter's command from --python (or
# $LCTX_PYTHON) with --lctx this lctx, refusing a missing Python (exit 2).
# Usage: test_sweep_diagnose.sh LCTX SOURCE_DIR
set -u
. "$(dirname -- "$0")/lib.sh"
LCTX=$1
SRC=$2
FAKE="$PY $SRC/tests/sweep_fake_user.py"
known=$tmp/known # the effect-tuple defect alone, with a release fixing it
mkdir "$known"
"$PY" - "$SRC/conformance/sweep/regressions/upstream-multiplatform-effect-tuple.json" \
  "$known/upstream-multiplatform-effect-tuple.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["fixed_in"] = "9.9.9"
json.dump(d, open(sys.argv[2], "w"))
EOF

# 1. The sweep of the fake catalogue: 3 drawn lists, 2 declared.
"$LCTX" sweep --cmd "$FAKE" --known "$known" --out "$tmp/a" --lists 3 \
  --quiet --jobs 1 >"$tmp/a.out" 2>"$tmp/a.err"
rc=$?
[ "$rc" -eq 1 ] || fail "a new finding (SW-006): exit $rc, want 1: $(cat "$tmp/a.err")"
"$PY" - "$tmp/a/results.jsonl" <<'EOF' || fail "the plan does not judge the declared lists exactly"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])][1:]
declared = [l["platforms"] for l in lines if l["program"] == "user/fake/missing_rule"]
assert declared == [["cpu", "tpu"], ["cuda", "cpu", "tpu"]], declared
drawn = [l for l in lines if l["program"] == "user/fake/clean"]
assert len(drawn) == 3, len(drawn)
assert len(lines) == 5 * 3 + 2, len(lines)
EOF
has() { # has TEXT: a line of the sweep's output holds TEXT
  grep -qF -- "$1" "$tmp/a.out" || fail "no line holds: $1"
}
has "diagnoses: 5 in the user's and packages' programs"
has "u/rules.py:29: get-backend: user/fake/get_backend ["
has "(lctx_user_get_backend, rule u/rules.py:28 (get_backend_rule), called at u/m.py:16); fix: call ctx.module_context.get_backend(optional=True) and handle None"
has "u/m.py:30: host-backend: user/fake/host_trace ["
has "fix: do not pick the computation by the host's devices while tracing: lax.platform_dependent"
has "u/m.py:36: missing-rule: user/fake/missing_rule [cpu, tpu]: NotImplementedError: MLIR translation rule"
has "fix: register a rule for tpu (mlir.register_lowering(prim, rule, platform=...))"
has "u/m.py:44: jax-defect: user/fake/defect ["
has "fix: upstream-multiplatform-effect-tuple: upgrade JAX to 9.9.9"
has 'u/\x1b[2Jevil.py:5: other: user/fake/escape'
grep -q "user/fake/clean" "$tmp/a.out" && fail "the clean program is diagnosed"
[ "$(grep -c ': get-backend: ' "$tmp/a.out")" -eq 1 ] ||
  fail "the get_backend raise and its census entry are not one diagnosis"
grep -q "$(printf '\033')" "$tmp/a.out" && fail "an escape byte printed raw"
# The diagnoses come after the summary, before the result line.
tail -n 1 "$tmp/a.out" | grep -q '^result: ' || fail "the result line is not last"
"$PY" - "$tmp/a/report.json" <<'EOF' || fail "report.json's diagnoses"
import json, sys
d = json.load(open(sys.argv[1]))["diagnoses"]
assert [x["class"] for x in d] == ["get-backend", "host-backend",
    "missing-rule", "jax-defect", "other"], d
g = d[0]
assert g["program"] == "user/fake/get_backend" and len(g["platforms"]) >= 2
assert (g["file"], g["line"], g["primitive"]) == ("u/rules.py", 29,
    "lctx_user_get_backend"), g
assert g["rule"] == {"file": "u/rules.py", "line": 28,
                     "function": "get_backend_rule"}, g["rule"]
assert g["call_site"] == {"file": "u/m.py", "line": 16}, g["call_site"]
assert "optional=True" in g["message"] and "optional=True" in g["fix"]
assert d[1]["rule"] is None and d[1]["primitive"] is None
assert d[2]["platforms"] == ["cpu", "tpu"] and "tpu" in d[2]["fix"]
assert d[4]["file"] == "u/\x1b[2Jevil.py", d[4]["file"]
EOF
grep -q 'classname="lctx.sweep-fake-user.diagnoses" name="user/fake/host_trace host-backend"><failure message="host-backend: do not pick' \
  "$tmp/a/report.junit.xml" || fail "report.junit.xml has no failure for the host-backend diagnosis"
grep -q 'name="user/fake/defect jax-defect"><skipped message="known JAX defect: ' \
  "$tmp/a/report.junit.xml" || fail "report.junit.xml: the known defect's diagnosis is not skipped"
grep -q '^1\.\.14$' "$tmp/a/report.tap" || fail "report.tap's plan is not the 9 rows and 5 diagnoses"
grep -q '^not ok 13 - diagnosis jax-defect user/fake/defect # TODO known JAX defect$' \
  "$tmp/a/report.tap" || fail "report.tap: the known defect's diagnosis is not a TODO"
grep -q '^  diagnosis: "u/m.py:36: missing-rule: ' "$tmp/a/report.tap" ||
  fail "report.tap has no missing-rule diagnosis line"

# 1b. Resumed whole, the run gives the same diagnoses (results.jsonl keeps
# each case's).
"$LCTX" sweep --cmd "$FAKE" --known "$known" --out "$tmp/a" --lists 3 \
  --quiet --jobs 1 >"$tmp/a2.out" 2>"$tmp/a2.err"
grep -q "(17 resumed)" "$tmp/a2.out" || fail "not resumed: $(head -n 1 "$tmp/a2.out")"
grep -E '^(diagnoses|u/)' "$tmp/a.out" >"$tmp/a.diag"
grep -E '^(diagnoses|u/)' "$tmp/a2.out" >"$tmp/a2.diag"
[ -s "$tmp/a.diag" ] && cmp -s "$tmp/a.diag" "$tmp/a2.diag" ||
  fail "a resumed run's diagnoses differ: $(diff "$tmp/a.diag" "$tmp/a2.diag")"
"$PY" - "$tmp/a/report.json" <<'EOF' || fail "a resumed run's report.json has not the 5 diagnoses"
import json, sys
d = json.load(open(sys.argv[1]))["diagnoses"]
assert len(d) == 5 and d[0]["rule"]["function"] == "get_backend_rule", d
EOF

# 2. A declared list that is not 2 to 4 of the hello's platforms: refused.
"$LCTX" sweep --cmd "$FAKE --bad-lists" --known "$known" --out "$tmp/b" \
  --quiet >"$tmp/b.out" 2>"$tmp/b.err"
rc=$?
[ "$rc" -eq 2 ] || fail "a bad declared list: exit $rc, want 2"
grep -q "protocol error: handshake.catalogue\[2\].platforms\[0\]: not a list of 2 to 4 platform names" \
  "$tmp/b.err" || fail "the bad list is not named: $(cat "$tmp/b.err")"

# 3. --programs: the exporter's command from --python, with --lctx this lctx
# and each catalogue; the rerun line runs that command.
cat >"$tmp/python" <<EOF
#!/bin/sh
printf '%s\n' "\$@" >"$tmp/args"
exec $FAKE
EOF
chmod +x "$tmp/python"
"$LCTX" sweep --programs "$SRC/tests/user/mistakes.py,other.mod" --package pkg \
  --python "$tmp/python" --known "$known" --out "$tmp/c" --quiet \
  >"$tmp/c.out" 2>"$tmp/c.err"
rc=$?
[ "$rc" -eq 1 ] || fail "--programs: exit $rc, want 1: $(cat "$tmp/c.err")"
lctx_abs=$(cd "$(dirname -- "$LCTX")" && pwd)/$(basename -- "$LCTX")
"$PY" - "$tmp/args" "$lctx_abs" "$SRC/tests/user/mistakes.py" <<'EOF' || fail "--programs: the exporter's arguments: $(cat "$tmp/args")"
import sys
args = open(sys.argv[1]).read().split("\n")[:-1]
assert args[0].endswith("conformance/adapters/jax_export.py"), args
assert args[1:] == ["--lctx", sys.argv[2], "--programs", sys.argv[3],
                    "--programs", "other.mod", "--package", "pkg"], args
EOF
grep -q "^u/m.py:30: host-backend: " "$tmp/c.out" || fail "--programs: no diagnosis"
line=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["first_failure"]["rerun"])' "$tmp/c/report.json")
case "$line" in
*" --cmd '$tmp/python "*"/conformance/adapters/jax_export.py --lctx "*) ;;
*) fail "--programs: the rerun line does not name the exporter's command: $line" ;;
esac
sh -c "$line" >"$tmp/rerun.out" 2>&1
[ "$?" -eq 1 ] && grep -q ": get-backend: user/fake/get_backend" "$tmp/rerun.out" ||
  fail "--programs: the rerun line does not give the finding again: $(cat "$tmp/rerun.out")"
LCTX_PYTHON=$tmp/python "$LCTX" sweep --programs x.py --known "$known" \
  --out "$tmp/d" --quiet >/dev/null 2>&1
[ "$?" -eq 1 ] || fail "--programs with \$LCTX_PYTHON did not run the sweep"
"$LCTX" sweep --programs x.py --python "$tmp/no-python" --out "$tmp/e" \
  >"$tmp/e.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "a missing --python: exit $rc, want 2"
grep -q "no Python with JAX at $tmp/no-python (--python): give --python PATH or set LCTX_PYTHON" \
  "$tmp/e.out" || fail "a missing --python is not said: $(cat "$tmp/e.out")"
"$LCTX" sweep --programs x.py --cmd "$FAKE" --out "$tmp/f" >"$tmp/f.out" 2>&1
[ "$?" -eq 2 ] && grep -q "give --cmd, or --programs and --package, not both" "$tmp/f.out" ||
  fail "--programs with --cmd is not refused: $(cat "$tmp/f.out")"

finish_failures "test_sweep_diagnose: "
echo PASS
