#!/bin/sh
# test_handshake.sh - pins what `lctx conform --cmd` says when a program's
# handshake goes wrong: an operation lctx does not know is refused naming
# it; a protocol that is not the number 1 is quoted as sent; a program that
# dies at start-up points at implementation.log and shows its last lines.
# Each exits 2.
#
# Usage: test_handshake.sh LCTX
set -u
LCTX=$1
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 2
cat >prog.py <<'PYEOF'
import json, sys
mode = sys.argv[1]
sys.stdin.readline()
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

run() {
  "$LCTX" conform --cmd "python3 prog.py $1" --no-domain --random 1 \
    --report-dir "r-$1" >"$1.out" 2>&1
  rc=$?
  [ "$rc" -eq 2 ] || fail "$1: exit $rc, not 2"
  grep -qF "$2" "$1.out" || fail "$1: no '$2' in: $(cat "$1.out")"
}
run op 'handshake: unknown operation "canonicalise" (lctx knows backends, canonicalize,'
run proto 'handshake: the program sent "protocol": "1"; lctx speaks protocol 1'
run die 'its stderr is in r-die/implementation.log, which ends: Traceback (most recent call last): | NameError: name'

finish_failures "test_handshake: "
echo "test_handshake: unknown operation, protocol and start-up death named"
