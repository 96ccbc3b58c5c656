#!/bin/sh
# test_promote.sh - pins `lctx promote` of a fuzz_model finding directory
# (findings/KEY with key.txt and input): with --to DIR it writes
# DIR/fuzz_model/NAME.bin with NAME the recorded key as a file name (not a
# hash), says it passes today, prints the `lctx replay` line that replays
# it (which passes) and that make test does not replay DIR; the readable
# twin DIR/fuzz_model/text/NAME.case keeps the recorded key (`# key: KEY`,
# not "(passes now)") and has one expect line per operation, the
# reference's outcomes, so that `lctx eval` passes it with none missing.
#
# Usage: test_promote.sh LCTX SOURCE_DIR
set -u
. "$(dirname "$0")/lib.sh"
take_args LCTX SRC -- "$@"
cd "$tmp" || exit 2
key='fuzz_model/outcome/row=XG-001/inv=-/expected=None/actual=tpu'
name='fuzz_model__outcome__row=XG-001__inv=-__expected=None__actual=tpu'
finding="findings/$name"
mkdir -p "$finding"
"$LCTX" encode "$SRC/conformance/cases/XG-001-default-highest-priority.case" \
  >"$finding/input" || fail "encode exits $?"
printf '%s\n' "$key" >"$finding/key.txt"

"$LCTX" promote --to reg "$finding" >p.out 2>&1 || fail "promote exits $?: $(cat p.out)"
[ -f "reg/fuzz_model/$name.bin" ] || fail "not named by its key: $(ls reg/fuzz_model)"
cmp -s "reg/fuzz_model/$name.bin" "$finding/input" || fail "the input was not copied"
twin="reg/fuzz_model/text/$name.case"
[ -f "$twin" ] || fail "no twin named by the key"
grep -q "^readable twin: $twin$" p.out || fail "twin not named: $(cat p.out)"
grep -q '^it passes today$' p.out || fail "not said it passes: $(cat p.out)"
grep -q "^replay it with: lctx replay --target fuzz_model reg/fuzz_model/$name.bin$" \
  p.out || fail "no replay line: $(cat p.out)"
grep -q '^make test does not replay reg (it replays the source tree' p.out ||
  fail "claims make test keeps it: $(cat p.out)"
grep -q 'make test keeps it so' p.out && fail "the old claim is printed"
"$LCTX" replay --target fuzz_model "reg/fuzz_model/$name.bin" >r.out 2>&1 ||
  fail "the replay line fails: $(cat r.out)"

grep -qx "# key: $key" "$twin" || fail "the twin lost the key: $(head -3 "$twin")"
grep -q 'passes now' "$twin" && fail "the twin says (passes now)"
[ "$(grep -c '^op ' "$twin")" -eq 2 ] || fail "twin ops: $(cat "$twin")"
[ "$(grep -c '^expect ' "$twin")" -eq 2 ] || fail "twin expect lines: $(cat "$twin")"
grep -qx 'expect client registry 1 "tpu"' "$twin" || fail "not the reference's outcome"
"$LCTX" eval "$twin" >e.out 2>&1 || fail "eval of the twin exits $?: $(cat e.out)"
grep -q '(0 without an expectation)' e.out || fail "$(cat e.out)"

# A plain input file without a key keeps the old hash name.
cp "$finding/input" plain.bin
"$LCTX" promote --to reg --target fuzz_model plain.bin >q.out 2>&1 ||
  fail "promote of a file exits $?"
grep -q '# key: (none recorded)' reg/fuzz_model/text/input-*.case ||
  fail "a file without a key: $(cat q.out)"

finish_failures "test_promote: "
