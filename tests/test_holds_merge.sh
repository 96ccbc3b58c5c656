#!/bin/sh
# test_holds_merge.sh - `lctx report merge` checks what the shards say
# against each other and against what a report may hold:
#   - a sweep case line given twice (in one shard, or in two) is refused;
#   - a case number past the sweep's plan (9223372036854775807) is refused;
#   - a sweep stamp line whose shard is not its report.json's (shard_count
#     0) is refused;
#   - a conform verdict line given twice is refused;
#   - two conform shards whose counts are each within 2^40 but whose sum is
#     not are refused, rather than merged into a report that `report html`
#     and a further merge refuse;
# each with exit 2, the file and line (or row) named, and no merged
# results.jsonl or report.json left; the untouched shards still merge.
# Usage: test_holds_merge.sh LCTX EXAMPLE_PLUGIN SOURCE_DIR
set -u
LCTX=$1
EXAMPLE=$2
SRC=$3
. "$(dirname -- "$0")/lib.sh"
FAKE="$PY $SRC/tests/sweep_fake.py --only-kind good"
mkdir "$tmp/none"

for k in 1 2; do
  "$LCTX" sweep --cmd "$FAKE" --known "$tmp/none" --out "$tmp/w$k" \
    --lists 3 --shard "$k/2" --quiet >"$tmp/w$k.out" 2>&1 ||
    fail "sweep shard $k/2: $(tail -3 "$tmp/w$k.out")"
  "$LCTX" conform --report-dir "$tmp/c$k" --quiet --no-domain \
    --impl "$EXAMPLE" --random 200 --shard "$k/2" --keep-failures 100 \
    >"$tmp/c$k.out" 2>&1 ||
    fail "conform shard $k/2: $(tail -3 "$tmp/c$k.out")"
done

n=0
refused() { # refused WHAT TEXT: merge $n exited 2 saying TEXT, wrote nothing
  [ "$(cat "$tmp/m$n.rc")" = 2 ] || fail "$1: exit $(cat "$tmp/m$n.rc") (want 2)"
  grep -qF -- "$2" "$tmp/m$n.err" ||
    fail "$1: no '$2' in: $(head -c 500 "$tmp/m$n.err")"
  [ ! -e "$tmp/m$n/results.jsonl" ] && [ ! -e "$tmp/m$n/report.json" ] ||
    fail "$1: a merged report was written"
}
# copy NAME FROM: a copy of shard folder FROM as $tmp/NAME
copy() { rm -rf "$tmp/$1"; cp -r "$tmp/$2" "$tmp/$1"; }

merge "$tmp/w1" "$tmp/w2"
rc=$(cat "$tmp/m$n.rc")
[ "$rc" -le 1 ] || fail "the untouched sweep shards: exit $rc: $(head -c 300 "$tmp/m$n.err")"
merge "$tmp/c1" "$tmp/c2"
rc=$(cat "$tmp/m$n.rc")
[ "$rc" -le 1 ] || fail "the untouched conform shards: exit $rc: $(head -c 300 "$tmp/m$n.err")"

# A case line given twice: within a shard, then across two.
copy d1 w1
sed -n 2p "$tmp/w1/results.jsonl" >>"$tmp/d1/results.jsonl"
merge "$tmp/d1" "$tmp/w2"
refused "a case twice in a shard" "given twice"
copy d2 w2
sed -n 2p "$tmp/w1/results.jsonl" >>"$tmp/d2/results.jsonl"
merge "$tmp/w1" "$tmp/d2"
refused "a case in two shards" "given twice"

# A case number no plan reaches.
copy big w1
sed -n 2p "$tmp/w1/results.jsonl" |
  sed 's/"case":[0-9]*/"case":9223372036854775807/' >>"$tmp/big/results.jsonl"
merge "$tmp/big" "$tmp/w2"
refused "case 2^63-1" "results.jsonl:"

# A stamp line whose shard is not its report.json's.
copy s0 w1
"$PY" - "$tmp/s0/results.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
head = json.loads(lines[0])
head["sweep"]["shard_count"] = 0
lines[0] = json.dumps(head)
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
merge "$tmp/s0" "$tmp/w2"
refused "shard_count 0" "shard_index and shard_count"

# A conform verdict line given twice (a line as conform writes one).
copy v1 c1
"$PY" - "$tmp/v1" <<'PY'
import json, sys
row = json.load(open(sys.argv[1] + "/report.json"))["rows"][0]["id"]
line = json.dumps({"source": "random", "name": "random case 3", "index": 3,
                   "operation": 0, "row": row, "verdict": "fail",
                   "detail": "forged"})
open(sys.argv[1] + "/results.jsonl", "a").write(line + "\n" + line + "\n")
PY
merge "$tmp/v1" "$tmp/c2"
refused "a conform verdict twice" "given twice"

# Two shards near the cap: each count within 2^40, the sum past it.
for k in 1 2; do
  copy n$k c$k
  "$PY" - "$tmp/n$k/report.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["rows"][0]["pass"] = (1 << 40) - 5
json.dump(d, open(sys.argv[1], "w"))
PY
done
merge "$tmp/n1" "$tmp/n2"
refused "near-cap shards" "2^40"

finish_failures "test_holds_merge: "
