#!/bin/sh
# test_jax_generate.sh - `lctx generate` against the real, pinned JAX
# through conformance/adapters/jax_export.py (the CI subset of the long
# campaign, `make generate`):
#   1. from seed 3 with no known defects, 300 generated programs find the
#      effect-tuple TypeError (SW-001) and the nested platform-index wrong
#      value (SW-005), each minimized to at most 8 nodes, each with a
#      standalone reproduction that, run by a Python with only JAX (-I, in
#      an empty folder), says DEFECT REPRODUCED; and nothing else than the
#      known defects of conformance/sweep/regressions;
#   2. the nested platform-index finding's status per release is written
#      into its report by tools/defect_status.py --write: present in 0.10.2
#      (and fixed in 0.12.1 when that JAX is installed);
#   3. each oracle fails on a JAX broken on purpose (the adapter's
#      --mutate): lower_per_platform running the first platform's rule
#      everywhere gives model (SW-009) and dispatch (SW-005) findings; a
#      rule that raises under several platforms gives an error-contract
#      finding (SW-001); a rule that reads the host's devices gives a census
#      finding (SW-006).
# LCTX_JAX=off skips (exit 77); a missing JAX fails.
# Usage: test_jax_generate.sh LCTX PYTHON SOURCE_DIR
set -u
. "$(dirname -- "$0")/lib.sh"
jax_export_start "$@"
case $PY in /*) ;; */*) PY=$(pwd)/$PY ;; esac
ADAPTER=$SRC/conformance/adapters/jax_export.py
export JAX_PLATFORMS=cpu
mkdir -p "$tmp/none"

count() { sweep_count "$@"; } # tests/lib.sh

# The mutants run beside the CI subset, one exporter each, on the plan's
# first 20 programs (program i and its lists do not depend on --programs):
# at seed 3 dispatch-first's first SW-009 is case 3 and its first SW-005
# case 14, raise-multi=sin's and host-read=sin's findings cases 5, 9 and
# 14 (they ran 120 programs, 4 times the CPU, for the same assertions).
mut() { # mut NAME MUTANT
  "$LCTX" generate --cmd "$PY $ADAPTER --mutate $2" --seed 3 --programs 20 \
    --known "$tmp/none" --out "$tmp/$1" --quiet --no-minimize --jobs 1 \
    >"$tmp/$1.out" 2>&1
}
mut m1 dispatch-first &
mut m2 raise-multi=sin &
mut m3 host-read=sin &

# 1. The CI subset.
start=$(date +%s)
out=$tmp/ci
"$LCTX" generate --cmd "$PY $ADAPTER --host-devices 4" --seed 3 \
  --programs 300 --known "$tmp/none" --out "$out" --quiet \
  >"$tmp/ci.out" 2>"$tmp/ci.err"
rc=$?
grep -v '^not reached' "$tmp/ci.out"
[ "$rc" -eq 1 ] || { fail "the CI subset: exit $rc (want 1: findings)"; tail -n 5 "$tmp/ci.err"; }
echo "the CI subset took $(($(date +%s) - start)) s"
python3 - "$out" "$SRC/conformance/sweep/regressions" <<'EOF' || fail "the findings are not the known defects, minimized"
import glob, json, os, sys
out, known_dir = sys.argv[1:]
known = set()
for f in glob.glob(os.path.join(known_dir, "*.json")):
    c = json.load(open(f))
    known |= {e["key"] for e in c["expect"] if e["verdict"] == "fail"}
found = {}
for d in glob.glob(os.path.join(out, "findings", "*")):
    m = json.load(open(os.path.join(d, "minimized.json")))
    found[m["expect"][0]["key"]] = (d, m)
want = ["SW-001 TypeError at jax/_src/interpreters/mlir.py:2562",
        "SW-005 the CPU result differs from the cpu-only export"]
ok = True
for key in want:
    if key not in found:
        print("FAIL: not found: %s" % key); ok = False; continue
    d, m = found[key]
    if m["size"] > 8:
        print("FAIL: %s minimized to %d nodes, not at most 8" % (key, m["size"]))
        ok = False
    if not os.path.exists(os.path.join(d, "repro.py")):
        print("FAIL: %s has no repro.py" % key); ok = False
    print("%s: %d nodes (found with %s), %s" % (key, m["size"],
          json.load(open(os.path.join(d, "case.json")))["size"],
          os.path.basename(d)))
new = sorted(set(found) - known)
if new:
    print("FAIL: new findings, not among the known defects: %s" % new)
    ok = False
open(os.path.join(out, "want-dirs"), "w").write(
    "\n".join(found[k][0] for k in want if k in found) + "\n")
sys.exit(0 if ok else 1)
EOF
# Each reproduction, with only JAX: an isolated Python in an empty folder.
mkdir -p "$tmp/alone"
while read -r d; do
  [ -n "$d" ] || continue
  cp "$d/repro.py" "$tmp/alone/repro.py"
  (cd "$tmp/alone" && "$PY" -I repro.py >"$tmp/repro.out" 2>"$tmp/repro.err")
  grep -q "^DEFECT REPRODUCED (JAX 0.10.2): " "$tmp/repro.out" ||
    { fail "$(basename "$d")/repro.py does not reproduce"; cat "$tmp/repro.out"; tail -n 3 "$tmp/repro.err"; }
done <"$out/want-dirs"

# 2. Status per release of the nested platform-index finding.
nested=$(ls -d "$out"/findings/sw-005-the-cpu-result-differs* 2>/dev/null | head -n 1)
releases=0.10.2
[ -x "$SRC/build/jax/venv-0.12.1/bin/python" ] && releases=0.10.2,0.12.1
if [ -n "$nested" ]; then
  python3 "$SRC/tools/defect_status.py" --write --releases "$releases" \
    --jax-dir "$SRC/build/jax" "$nested/report.md" >"$tmp/status.out" 2>&1 ||
    { fail "defect_status --write on the finding's report"; cat "$tmp/status.out"; }
  grep -q "^| 0.10.2 | 0.10.2 | [0-9.]* | present |" "$nested/report.md" ||
    fail "the report does not say present in 0.10.2"
  if [ "$releases" = 0.10.2,0.12.1 ]; then
    grep -q "^In short: present in 0.10.2..0.10.2, fixed in 0.12.1.$" "$nested/report.md" ||
      { fail "the report does not say fixed in 0.12.1"; grep -A3 "^| 0.12.1" "$nested/report.md"; }
  fi
fi

# 3. The mutants.
wait
[ "$(count "$tmp/m1" SW-009 fail)" -ge 1 ] ||
  { fail "dispatch-first gave no model finding (SW-009)"; tail -n 12 "$tmp/m1.out"; }
[ "$(count "$tmp/m1" SW-005 fail)" -ge 1 ] ||
  { fail "dispatch-first gave no dispatch finding (SW-005)"; tail -n 12 "$tmp/m1.out"; }
[ "$(count "$tmp/m2" SW-001 fail "SW-001 RuntimeError at ")" -ge 1 ] ||
  { fail "raise-multi=sin gave no error-contract finding (SW-001)"; tail -n 12 "$tmp/m2.out"; }
[ "$(count "$tmp/m3" SW-006 fail "a read of the host's devices at ")" -ge 1 ] ||
  { fail "host-read=sin gave no census finding (SW-006)"; tail -n 12 "$tmp/m3.out"; }
# Without the mutants the same plan gives none of these.
[ "$(count "$out" SW-009 fail)" -eq 0 ] || fail "SW-009 fails on the real JAX"
[ "$(count "$out" SW-006 fail)" -eq 0 ] || fail "SW-006 fails on the real JAX"

finish_failures "test_jax_generate: "
echo PASS
