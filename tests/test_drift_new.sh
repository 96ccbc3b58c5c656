#!/bin/sh
# test_drift_new.sh - a failure that no release lctx knows shows is reported
# as new at the judged release, with the JAX lines its row cites, and never
# attributed to an older release; a module that does pass at a known
# release is attributed to that one only.
#
# 1. lw-ir-slots-reversed (a mutant of the example plugin whose modules swap
#    the dispatch slots: no JAX release emits such a module) judged as the
#    modelled commit and as 0.10.2: its IR failures say "new at", and no
#    IR row's drift names a release ("passes as JAX ..." / "differs as").
#    Before IR modules were re-judged per release, such failures were
#    "explained" by every release whose expected module merely differed.
# 2. fmt-unknown-quoted (a message no release writes): new, too.
# 3. report.json carries drift_new and drift_new_text, and no
#    drift_explained for those rows.
#
# Usage: test_drift_new.sh LCTX IR_MUTANT FMT_MUTANT
set -u
LCTX=$1
IR_MUTANT=$2
FMT_MUTANT=$3
. "$(dirname "$0")/lib.sh"

for jax in modelled 0.10.2; do
  out=$tmp/ir-$jax
  "$LCTX" conform --impl "$IR_MUTANT" --jax "$jax" --no-domain --random 300 \
    --report-dir "$out" >"$out.txt" 2>&1
  rc=$?
  [ "$rc" -eq 1 ] || fail "$jax: lw-ir-slots-reversed: exit $rc, expected 1 (failures)"
  grep -q '^IR-00[0-9]: [0-9]* fail; .*new at ' "$out.txt" ||
    fail "$jax: no IR failure reported as new: $(grep '^IR-' "$out.txt" | head -3)"
  if grep '^IR-00[0-9]: ' "$out.txt" | grep -q 'passes as JAX\|differs as JAX'; then
    fail "$jax: an IR failure attributed to a release: $(grep '^IR-00[0-9]: ' "$out.txt" | grep 'as JAX' | head -2)"
  fi
  grep -q 'mlir.py:2512-2652 at cec06d116c05' "$out.txt" ||
    fail "$jax: the new failure does not cite the row's JAX lines"
  n=$(report_field "$out" '*' drift_new)
  [ "${n:-0}" -gt 0 ] || fail "$jax: report.json has no drift_new"
  grep -q '"drift_new_text"' "$out/report.json" ||
    fail "$jax: report.json has no drift_new_text"
done
grep -q 'new at the modelled commit cec06d116c05' "$tmp/ir-modelled.txt" ||
  fail "modelled: the new failure does not name the modelled commit"
grep -q 'new at JAX 0.10.2' "$tmp/ir-0.10.2.txt" ||
  fail "0.10.2: the new failure does not name JAX 0.10.2"

out=$tmp/fmt
"$LCTX" conform --impl "$FMT_MUTANT" --no-domain --random 300 \
  --report-dir "$out" >"$out.txt" 2>&1
[ $? -eq 1 ] || fail "fmt-unknown-quoted: expected exit 1"
grep -q 'fail; .*new at the modelled commit' "$out.txt" ||
  fail "fmt-unknown-quoted: no failure reported as new: $(grep 'fail;' "$out.txt" | head -2)"
if grep 'fail;' "$out.txt" | grep -q 'passes as JAX'; then
  fail "fmt-unknown-quoted: a message no release writes attributed to a release"
fi

finish_failures "test_drift_new: "
echo "ok: failures no known release shows are reported as new, never attributed"
