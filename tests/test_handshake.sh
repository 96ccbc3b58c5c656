#!/bin/sh
# test_handshake.sh - pins what `lctx conform --cmd` says when a program's
# handshake goes wrong: an operation lctx does not know is refused naming
# it; a protocol that is not the number 1 is quoted as sent; a program that
# dies at start-up points at implementation.log and shows its last lines;
# a program that never answers is given up after the time the message
# names (the --timeout and 30 s for start-up; it once said "within 1.0 s"
# after 31). Each exits 2.
#
# Usage: test_handshake.sh LCTX
set -u
LCTX=$1
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 2
cat >prog.py <<'PYEOF'
import json, sys, time
mode = sys.argv[1]
sys.stdin.readline()
if mode == "silent":
    time.sleep(1000)
if mode == "die":
    sys.stderr.write("Traceback (most recent call last):\n"
                     "NameError: name 'foo' is not defined\n")
    sys.exit(1)
hello = {"protocol": 1, "name": "p", "version": "1", "operations": ["backends"]}
if mode == "proto":
    hello["protocol"] = "1"
if mode == "op":
    hello["operations"].append("canonicalise")
print(json.dumps(hello), flush=True)
sys.stdin.read()
PYEOF

run() { # MODE EXPECTED [OPTION...]
  mode=$1
  want=$2
  shift 2
  "$LCTX" conform --cmd "$PY prog.py $mode" --no-domain --random 1 \
    --report-dir "r-$mode" "$@" >"$mode.out" 2>&1
  rc=$?
  [ "$rc" -eq 2 ] || fail "$mode: exit $rc, not 2"
  grep -qF "$want" "$mode.out" || fail "$mode: no '$want' in: $(cat "$mode.out")"
}
run op 'handshake: unknown operation "canonicalise" (lctx knows backends, canonicalize,'
run proto 'handshake: the program sent "protocol": "1"; lctx speaks protocol 1'
run die 'its stderr is in r-die/implementation.log, which ends: Traceback (most recent call last): | NameError: name'

# The silent one: the message says how long lctx waited, and it waited so.
start=$(date +%s)
run silent 'handshake: no answer within 31.0 s (hang)' --timeout 1
secs=$(($(date +%s) - start))
[ "$secs" -ge 30 ] && [ "$secs" -le 45 ] ||
  fail "silent: gave up after $secs s, the message says 31.0 s"

finish_failures "test_handshake: "
echo "test_handshake: unknown operation, protocol, start-up death and silence named"
