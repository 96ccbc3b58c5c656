#!/bin/sh
# test_campaign_counts.sh - pins that the counts a real libFuzzer campaign
# (fuzz_model with coverage on the reference, 6 s, --jobs 2) reports agree:
#   1. the corpus count of the last live line is the count the corpus
#      minimization at the end starts from (the terminal's "N -> M" and
#      state.json's corpus_before): both count the campaign's corpus
#      (OUT/corpus and what the working corpus has not synced yet), not
#      libFuzzer's own count of one job's corpus in memory;
#   2. the minimization at the end reaches a fixed point: `lctx corpus
#      minimize` of its output keeps the count; the summary says how many
#      passes it ran and that the last shrank nothing (state.json:
#      corpus_passes, corpus_fixed_point);
#   3. the summary has its one line of spec rows hit by the corpus, with
#      rows hit, and calls no IR row missed (fuzz_model cannot reach them:
#      they are on its line of rows out of reach); state.json agrees.
# Usage: test_campaign_counts.sh LCTX FUZZ_MODEL_LIBFUZZER
set -u
LCTX=$1
FUZZER=$2
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 2
"$LCTX" fuzz --engine libfuzzer --target fuzz_model --time 6 --jobs 2 \
  --out camp --binary "$FUZZER" >run.txt 2>&1
[ $? -eq 0 ] || fail "the campaign should pass: $(tail -n 5 run.txt)"

# 1. The last live line's corpus and the minimization's start.
live=$(sed -n 's/^\[.*corpus *\([0-9][0-9]*\) .*/\1/p' run.txt | tail -n 1)
start=$(sed -n 's/^  minimizing the corpus .* \([0-9][0-9]*\) -> [0-9][0-9]* inputs.*/\1/p' run.txt)
end=$(sed -n 's/^  minimizing the corpus .* [0-9][0-9]* -> \([0-9][0-9]*\) inputs.*/\1/p' run.txt)
[ -n "$live" ] && [ -n "$start" ] && [ -n "$end" ] ||
  fail "no counts: $(grep -E 'corpus' run.txt)"
[ "$live" = "$start" ] ||
  fail "the last live line counted $live corpus inputs, the minimization started from $start"
before=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["corpus_before"])' camp/state.json)
[ "$before" = "$start" ] || fail "state.json's corpus_before $before, the terminal $start"

# 2. A fixed point: minimized again, the count stays.
grep -Eq "^  corpus minimized \(libFuzzer -merge=1\): $start -> $end inputs \([0-9]+ pass(es)?, the last one shrank nothing\)$" camp/summary.txt ||
  fail "summary.txt: $(grep 'corpus minimized' camp/summary.txt)"
$PY - camp/state.json <<'PY' || fail "state.json: $(cat camp/state.json)"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["corpus_fixed_point"] is True and s["corpus_passes"] >= 1, s
PY
n=$(ls camp/corpus | wc -l)
[ "$n" = "$end" ] || fail "OUT/corpus holds $n inputs, the summary says $end"
"$LCTX" corpus minimize --target fuzz_model --binary "$FUZZER" camp/corpus \
  >again.txt 2>&1 || fail "minimizing again failed: $(cat again.txt)"
again=$(ls camp/corpus | wc -l)
[ "$again" = "$end" ] ||
  fail "the campaign's minimized corpus shrank again: $end -> $again ($(cat again.txt))"

# 3. The rows line is there, once, with rows hit, and calls no IR row
#    missed: the IR rows are on the line of rows fuzz_model cannot reach;
#    state.json says the same.
rows=$(grep '^  spec rows hit by the corpus' run.txt)
[ "$(printf '%s\n' "$rows" | grep -c .)" = 1 ] ||
  fail "not one 'spec rows hit by the corpus' line in: $(cat run.txt)"
hit=$(printf '%s\n' "$rows" | sed -n 's/^  spec rows hit by the corpus: \([0-9]*\) of the \([0-9]*\) fuzz_model can reach ([0-9]* in the table); missed:.*/\1 \2/p')
[ -n "$hit" ] && [ "${hit% *}" -gt 0 ] ||
  fail "the rows line does not count rows hit: '$rows'"
printf '%s\n' "$rows" | grep -q 'IR-' && fail "IR rows called missed: $rows"
grep '^  spec rows fuzz_model cannot reach:' run.txt | grep -q ' IR-' ||
  fail "no IR row among those fuzz_model cannot reach: $(grep 'spec rows' run.txt)"
[ -z "$hit" ] || $PY - camp/state.json "$hit" <<'PY' || fail "state.json's rows: $(cat camp/state.json)"
import json, sys
s = json.load(open(sys.argv[1]))
hit, reach = (int(x) for x in sys.argv[2].split())
assert s["rows_hit"] == hit and s["rows_reachable"] == reach, (s, hit, reach)
assert not any(r.startswith("IR-") for r in s["rows_missed"]), s
assert any(r["id"].startswith("IR-") for r in s["rows_not_reachable"]), s
PY

finish_failures "test_campaign_counts: "
echo "test_campaign_counts: ok (live $live, minimized $start -> $end, again $again; rows hit ${hit% *} of ${hit#* })"
