#!/bin/sh
# test_sweep_diagnose.sh - `lctx sweep` on a user's catalogue against
# tests/sweep_fake_user.py (fixed answers, no JAX): a program that declares
# its platform lists is judged on exactly those (whatever --lists), a hello
# declaring a bad list is refused naming the field (exit 2); each mistake
# gets its diagnosis line (class, user file:line, primitive, rule, call
# site, fix) after the summary, escape bytes never raw, a clean program
# none; report.json's "diagnoses", the JUnit and TAP tests of them, the
# same when the run is resumed, and when its shards (of unequal case
# counts) are merged by `lctx report merge` (a bad diagnosis in a shard's
# report.json refused, naming the file and the field); and
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
# The reach of a user's run: the user's own primitives, not JAX's.
has "reach: the user's programs lowered 2 of the 2 primitives of their own that lctx knows"
has "reached (2): lctx_user_get_backend lctx_user_partial"
grep -q "primitives with lowering rules in JAX" "$tmp/a.out" &&
  fail "a user's run reports the reach of JAX's primitives"
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

# 1c. Sharded (9 and 8 cases: unequal counts) and merged by `lctx report
# merge`: the merged report.json, TAP and JUnit hold the unsharded run's
# diagnoses, in its order; a shard's bad diagnosis refuses the merge,
# naming the file and the field.
for k in 1 2; do
  "$LCTX" sweep --cmd "$FAKE" --known "$known" --out "$tmp/s$k" --lists 3 \
    --quiet --jobs 2 --shard "$k/2" >"$tmp/s$k.out" 2>&1
  [ "$?" -eq 1 ] || fail "shard $k/2: $(tail -n 3 "$tmp/s$k.out")"
done
"$LCTX" report merge --out "$tmp/m" "$tmp/s2" "$tmp/s1" >"$tmp/m.out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "the merge of the shards: exit $rc, want 1: $(cat "$tmp/m.out")"
"$PY" - "$tmp/a/report.json" "$tmp/m/report.json" "$tmp/s1/report.json" \
  "$tmp/s2/report.json" <<'EOF' || fail "the merged diagnoses are not the unsharded run's"
import json, sys
a, m, s1, s2 = (json.load(open(p)) for p in sys.argv[1:])
one = lambda d: json.dumps(d["diagnoses"], sort_keys=True)
assert len(a["diagnoses"]) == 5 and one(a) == one(m), (one(a), one(m))
# Each shard keeps some diagnoses of other cases (of its own lists) than
# the unsharded run: the merge takes the earliest case's of both.
assert one(s1) != one(a) and one(s2) != one(a), "a shard is the whole run"
cases = [x["case"] for x in m["diagnoses"]]
assert {c % 2 for c in cases} == {0, 1}, cases
assert cases == sorted(cases), cases
assert (m["cases"], m["cases_run"]) == (17, 17), (m["cases"], m["cases_run"])
EOF
diag_tests() { # diag_tests DIR: the diagnoses' tests of DIR's TAP and JUnit
  sed -n '/ - diagnosis /,$p' "$1/report.tap"
  grep '\.diagnoses"' "$1/report.junit.xml"
}
diag_tests "$tmp/a" >"$tmp/a.tests"
diag_tests "$tmp/m" >"$tmp/m.tests"
[ "$(grep -c ' - diagnosis ' "$tmp/a.tests")" -eq 5 ] &&
  cmp -s "$tmp/a.tests" "$tmp/m.tests" ||
  fail "the merged TAP and JUnit diagnoses differ: $(diff "$tmp/a.tests" "$tmp/m.tests")"
grep -q "^u/m.py:36: missing-rule: user/fake/missing_rule \[cpu, tpu\]" "$tmp/m.out" ||
  fail "the merge does not print the diagnoses: $(cat "$tmp/m.out")"
bad_diag() { # bad_diag FIELD PYTHON TEXT: shard 2's diagnosis 0 (d) spoilt
  rm -rf "$tmp/bad" "$tmp/mb" && cp -r "$tmp/s2" "$tmp/bad"
  "$PY" - "$tmp/bad/report.json" "$2" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
d = r["diagnoses"][0]
exec(sys.argv[2])
json.dump(r, open(sys.argv[1], "w"))
EOF
  "$LCTX" report merge --out "$tmp/mb" "$tmp/s1" "$tmp/bad" >"$tmp/mb.out" 2>&1
  rc=$?
  [ "$rc" -eq 2 ] && [ ! -e "$tmp/mb/report.json" ] &&
    grep -qF "$tmp/bad/report.json: field 'diagnoses[0]$1' is missing or not $3" "$tmp/mb.out" ||
    fail "a bad diagnoses[0]$1: exit $rc: $(cat "$tmp/mb.out")"
}
bad_diag .class 'd["class"] = "typo"' "a class of diagnosis"
bad_diag .rule 'd["rule"] = {"file": 5, "line": 1}' 'null or {"file", "line", "function"}'
bad_diag .platforms 'd["platforms"] = ["cpu"]' "a list of 2 to 8 platform names"
bad_diag .case 'd.pop("case")' "a count"
bad_diag .fix 'd["fix"] = "x" * 5000' "a string"
bad_diag "" 'r["diagnoses"][0] = 7' "an object"

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
