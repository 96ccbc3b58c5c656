#!/bin/sh
# test_jax_sweep.sh - `lctx sweep` against the real, pinned JAX through
# conformance/adapters/jax_export.py:
#   1. the CI subset (the first harness of each group, every effect,
#      custom, control, corpus and extra program, on 4 host devices so
#      that the collectives run; the corpus read through LCTX, `lctx
#      export rules`) judges every case with no new
#      finding: what it finds is exactly the known defects of
#      conformance/sweep/regressions (xfail), and says its reach;
#   2. every recorded regression, exported again, still shows its finding;
#   3. each judgement can fail on a JAX broken on purpose (the adapter's
#      --mutate): lower_per_platform running the first platform's rule
#      everywhere gives a dispatch finding (SW-005); a rule patched to call
#      get_backend() gives a census finding (SW-006) naming its line; an
#      export that refuses one order gives an order finding (SW-004); an
#      export that declares its platforms sorted, not as asked, gives a
#      declared-platforms finding (SW-007).
# The CI subset runs with --jobs (default: the cores); the small runs of 2
# and 3 go at once, one exporter each.
# LCTX_JAX=off skips (exit 77); a missing JAX fails.
# Usage: test_jax_sweep.sh LCTX PYTHON SOURCE_DIR
set -u
. "$(dirname -- "$0")/lib.sh"
jax_export_start "$@"
# The exporter reads lctx's rule corpus through this lctx (--lctx).
ADAPTER="$SRC/conformance/adapters/jax_export.py --lctx $LCTX"

count() { sweep_count "$@"; } # tests/lib.sh

# 1. The CI subset.
start=$(date +%s)
"$LCTX" sweep --cmd "$PY $ADAPTER --host-devices 4" --subset ci --out "$tmp/ci" --quiet \
  >"$tmp/ci.out" 2>"$tmp/ci.err"
rc=$?
cat "$tmp/ci.out"
[ "$rc" -eq 0 ] || {
  fail "the CI subset: exit $rc (want 0: only known defects)"
  tail -n 5 "$tmp/ci.err"
  ls "$tmp/ci/findings" 2>/dev/null
}
grep -q "result: 0 new findings" "$tmp/ci.out" || fail "the CI subset found something new"
# The rule corpus came from lctx (`lctx export rules`), every file of it.
want=$(ls "$SRC"/corpus/rules/*.rule | wc -l)
grep -q "rule corpus: $want files from .* export rules (--lctx)" "$tmp/ci/implementation.log" ||
  fail "the exporter did not read the $want rule files through lctx: $(grep -i corpus "$tmp/ci/implementation.log" | head -n 3)"
grep -q "^reach: the judged programs lowered [1-9][0-9]* of the [1-9]" "$tmp/ci.out" ||
  fail "no reach line"
[ "$(count "$tmp/ci" SW-001 xfail "TypeError at jax/_src/interpreters/mlir.py")" -ge 1 ] ||
  fail "the known effect-tuple defect (SW-001) was not seen"
echo "the CI subset took $(($(date +%s) - start)) s"

# 2. The regressions, exported again, and 3. each judgement failing on a
# JAX broken on purpose: at once.
{ "$LCTX" sweep --cmd "$PY $ADAPTER --host-devices 4" --replay \
    "$SRC/conformance/sweep/regressions" >"$tmp/rp.out" 2>&1
  echo $? >"$tmp/rp.rc"; } &
mkdir -p "$tmp/none" # a mutant's findings are all new, none known
"$LCTX" sweep --cmd "$PY $ADAPTER --mutate dispatch-first" --kind control \
  --known "$tmp/none" --out "$tmp/m1" --quiet --no-minimize --jobs 1 >"$tmp/m1.out" 2>&1 &
"$LCTX" sweep --cmd "$PY $ADAPTER --mutate get-backend=sin" --group sin \
  --known "$tmp/none" --limit 3 --out "$tmp/m2" --quiet --no-minimize --jobs 1 >"$tmp/m2.out" 2>&1 &
"$LCTX" sweep --cmd "$PY $ADAPTER --mutate order-first" --group sin \
  --known "$tmp/none" --limit 3 --lists 2 --out "$tmp/m3" --quiet --no-minimize --jobs 1 \
  >"$tmp/m3.out" 2>&1 &
"$LCTX" sweep --cmd "$PY $ADAPTER --mutate declared-sorted" --group sin \
  --known "$tmp/none" --limit 3 --lists 2 --out "$tmp/m4" --quiet --no-minimize --jobs 1 \
  >"$tmp/m4.out" 2>&1 &
wait
rc=$(cat "$tmp/rp.rc")
tail -n 1 "$tmp/rp.out"
[ "$rc" -eq 0 ] || { fail "replay of the regressions: exit $rc"; cat "$tmp/rp.out"; }
[ "$(count "$tmp/m1" SW-005 fail)" -ge 1 ] ||
  { fail "dispatch-first gave no SW-005 finding"; cat "$tmp/m1.out"; }
[ "$(count "$tmp/m2" SW-006 fail "get_backend() at ")" -ge 1 ] ||
  { fail "get-backend=sin gave no SW-006 finding"; cat "$tmp/m2.out"; }
[ "$(count "$tmp/m3" SW-004 fail)" -ge 1 ] ||
  { fail "order-first gave no SW-004 finding"; cat "$tmp/m3.out"; }
[ "$(count "$tmp/m4" SW-007 fail)" -ge 1 ] ||
  { fail "declared-sorted gave no SW-007 finding"; cat "$tmp/m4.out"; }
for m in m1 m2 m3 m4; do
  grep -q "result: .*FAIL" "$tmp/$m.out" || fail "$m: the mutant run did not fail"
done

finish_failures "test_jax_sweep: "
echo PASS
