#!/bin/sh
# test_jax_installed_registry.sh - the installed JAX's own backend factories
# judged by the spec rows (conformance/cases/installed/README.md): for each
# JAX given (the pinned one and the newest installed), the case group whose
# folder's release range holds it, run with jax_adapter.py
# --installed-registry, must pass with 0 fail, crash and unsupported and
# every case judged; and a group run on a release outside its range is
# refused case by case (the adapter names the registry it found), so lctx
# conform fails.
#
# Usage: test_jax_installed_registry.sh LCTX SOURCE_DIR PYTHON...
# Exit 77 (skipped) when LCTX_JAX=off or no PYTHON can import jax.
set -u
LCTX=$1
SRC=$2
shift 2
. "$(dirname "$0")/lib.sh"
jax_skip_if_off

# group VERSION: the folder of conformance/cases/installed whose range
# (FIRST-LAST, inclusive, numerically) holds VERSION; "" when none.
group() {
  "$PY" - "$SRC/conformance/cases/installed" "$1" <<'PYEOF'
import os, sys
key = lambda v: tuple(int(x) for x in v.split("."))
v = key(sys.argv[2])
for d in sorted(os.listdir(sys.argv[1])):
    if "-" in d and os.path.isdir(os.path.join(sys.argv[1], d)):
        lo, hi = d.split("-", 1)
        if key(lo) <= v <= key(hi):
            print(d)
PYEOF
}

# Every group's expect lines are the reference model's.
for d in "$SRC"/conformance/cases/installed/*/; do
  "$LCTX" eval "$d" >"$tmp/eval.txt" 2>&1 ||
    { cat "$tmp/eval.txt"; fail "lctx eval $d"; }
done

judged=0
for py in "$@"; do
  [ -x "$py" ] || { echo "note: $py not installed; not judged"; continue; }
  v=$("$py" -c 'import jax; print(jax.__version__)' 2>/dev/null) ||
    { fail "$py cannot import jax"; continue; }
  g=$(group "$v")
  [ -n "$g" ] || { fail "JAX $v: no group of conformance/cases/installed holds it"; continue; }
  out=$tmp/$v
  "$LCTX" conform --jax "$v" --cases "$SRC/conformance/cases/installed/$g" \
    --no-domain --random 0 --report-dir "$out" \
    --cmd "$py $SRC/conformance/adapters/jax_adapter.py --installed-registry" \
    >"$out.txt" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then
    cat "$out.txt"
    fail "JAX $v, group $g: lctx conform exit $rc"
    continue
  fi
  for k in fail crash unsupported; do
    n=$(report_field "$out" '*' $k)
    [ "$n" = 0 ] || fail "JAX $v: $n $k"
  done
  run=$(report_field "$out" - cases_run)
  files=$(ls "$SRC/conformance/cases/installed/$g"/*.case | wc -l)
  [ "$run" -eq "$files" ] || fail "JAX $v: $run cases judged of $files"
  echo "ok: JAX $v, its own registry (group $g): $(grep '^operations' "$out.txt")"
  judged=$((judged + 1))

  # A group written for another registry is refused, not judged.
  for other in $(ls "$SRC/conformance/cases/installed"); do
    [ -d "$SRC/conformance/cases/installed/$other" ] && [ "$other" != "$g" ] || continue
    "$LCTX" conform --jax "$v" --cases "$SRC/conformance/cases/installed/$other" \
      --no-domain --random 0 --report-dir "$out-other" \
      --cmd "$py $SRC/conformance/adapters/jax_adapter.py --installed-registry" \
      >"$out-other.txt" 2>&1
    rc=$?
    [ $rc -eq 1 ] || fail "JAX $v, group $other: exit $rc, expected 1"
    grep -q 'installed registry: the case declares the factories' "$out-other.txt" ||
      fail "JAX $v, group $other: the mismatch is not named"
    break
  done
done
[ $judged -gt 0 ] || { echo "SKIPPED: no installed JAX to judge ($*)"; exit 77; }
finish_failures "test_jax_installed_registry: "
echo "PASS: $judged installed registries judged"
