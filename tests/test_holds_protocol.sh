#!/bin/sh
# test_holds_protocol.sh - the protocol is enforced, not trusted: an
# exporter whose hello offers platforms that cannot make lists of 2 to 4
# distinct platforms jax.export lowers for (none, one, a name twice, an
# unknown name) is refused with exit 2 and a message naming the field,
# and nothing is judged PASS on lists that were never a multi-platform
# export. A pool of 2 known names still runs.
# Usage: test_holds_protocol.sh LCTX SOURCE_DIR
set -u
. "$(dirname -- "$0")/lib.sh"
LCTX=$1
SRC=$2
FAKE="$PY $SRC/tests/sweep_fake.py --only-kind good"
mkdir "$tmp/no-known"

k=0
for pool in '[]' '["cpu"]' '["cpu", "cpu"]' '["cpu", "cuda", "cuda"]' \
  '["cpu", "bogus"]' '["cpu", "CUDA"]'; do
  k=$((k + 1))
  SWEEP_FAKE_PLATFORMS=$pool "$LCTX" sweep --cmd "$FAKE" \
    --known "$tmp/no-known" --out "$tmp/p$k" --quiet \
    >"$tmp/p$k.out" 2>"$tmp/p$k.err"
  rc=$?
  [ "$rc" -eq 2 ] || fail "platforms $pool: exit $rc (want 2)"
  grep -q "handshake.platforms" "$tmp/p$k.err" ||
    fail "platforms $pool: the message does not name the field: $(head -c 300 "$tmp/p$k.err")"
  if grep -q "result: PASS" "$tmp/p$k.out"; then
    fail "platforms $pool: judged PASS"
  fi
done

SWEEP_FAKE_PLATFORMS='["tpu", "cpu"]' "$LCTX" sweep --cmd "$FAKE" \
  --known "$tmp/no-known" --out "$tmp/ok" --quiet >"$tmp/ok.out" 2>"$tmp/ok.err"
rc=$?
[ "$rc" -eq 0 ] || fail "2 known platforms: exit $rc (want 0): $(tail -n 3 "$tmp/ok.err")"
"$PY" - "$tmp/ok/results.jsonl" <<'PY' || fail "a drawn list is not 2 to 4 distinct platforms"
import json, sys
for k, line in enumerate(open(sys.argv[1])):
    d = json.loads(line)
    if "platforms" not in d:
        continue
    p = d["platforms"]
    assert 2 <= len(p) <= 4 and len(set(p)) == len(p), p
PY

finish_failures "test_holds_protocol: "
