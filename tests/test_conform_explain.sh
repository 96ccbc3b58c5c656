#!/bin/sh
# test_conform_explain.sh - pins the way from a failing row of `lctx
# conform` to its cause (conformance/PROTOCOL.md, "When a row fails"). The
# Python example with 'gpu' resolving to oneapi first fails XG-004 on a
# registry case: the row shows the expected and the actual text one above
# the other, a caret under the first differing byte with its offset, and an
# `explain:` line naming the lctx that ran (absolute) and the case file;
# pasted into `env -i sh -c` from another folder it prints the reference's
# trace, which shows the cause ('gpu' -> 'cuda', the first initialized). A
# failing random case's explain line exports the case (its seed and index)
# into `lctx explain -`, and runs as pasted too. An implementation whose
# messages hold ESC and a newline: the texts are shown escaped (no raw
# control byte in the output) and the caret still stands under the
# difference; lctx eval's VIOLATION block marks it too. The examples of
# "When a row fails" in PROTOCOL.md and README.md (```console checked
# blocks) are run as written and are this lctx's output
# (tests/protocol_doc.py console).
# Usage: test_conform_explain.sh LCTX SOURCE_DIR
set -u
LCTX=$1
SRC=$2
. "$(dirname -- "$0")/lib.sh"
cd "$tmp" || exit 2
mkdir empty elsewhere
LCTX_REAL=$(readlink -f "$LCTX")

sed 's/^GPU_PLATFORMS = ("cuda", "rocm", "oneapi")$/GPU_PLATFORMS = ("oneapi", "rocm", "cuda")/' \
  "$SRC/conformance/examples/python/lctx_example.py" >oneapi_first.py
grep -q '"oneapi", "rocm", "cuda"' oneapi_first.py ||
  fail "the example's GPU_PLATFORMS line changed: the test's sed no longer applies"

# The registry case: the pair, the caret, the explain line.
"$LCTX" conform --cmd "$PY $tmp/oneapi_first.py" --quiet \
  --case "$SRC/conformance/cases/RG-009-cuda-then-gpu-repeated.case" \
  --report-dir reg >reg.out 2>&1
[ $? -eq 1 ] || fail "the registry case: conform does not exit 1: $(tail -3 reg.out)"
grep -m1 -A3 '^XG-004: ' reg.out >pair.txt
cat >pair.want <<'EOF'
XG-004: case RG-009-cuda-then-gpu-repeated.case, operation 2:
  expected: <client 'cuda' registration 1>
  actual:   <client 'oneapi' registration 1>
                     ^ first difference at byte 9 (from 0)
EOF
cmp -s pair.txt pair.want ||
  fail "XG-004's expected and actual are not shown with the difference marked: $(cat pair.txt)"
line=$(sed -n 's/^  explain: //p' reg.out | head -1)
case "$line" in
*"$LCTX_REAL explain $SRC/conformance/cases/RG-009-cuda-then-gpu-repeated.case") ;;
*) fail "no explain line naming $LCTX_REAL and the case file: $line" ;;
esac
(cd elsewhere && env -i sh -c "$line") >explain.out 2>&1 ||
  fail "the explain line pasted into env -i does not run: $(tail -3 explain.out)"
grep -qF "trace: canonicalize: 'gpu' -> 'cuda' (first initialized of cuda, rocm, oneapi)" explain.out ||
  fail "the explain line does not show the cause: $(cat explain.out)"

# A random case: exported by its seed and index into lctx explain.
"$LCTX" conform --cmd "$PY $tmp/oneapi_first.py" --quiet --first-failure \
  --cases empty --no-domain --random 2000 --seed 3 --report-dir rnd >rnd.out 2>&1
[ $? -eq 1 ] || fail "the random run: conform does not exit 1: $(tail -3 rnd.out)"
first=$(grep -m1 '^[A-Z][A-Z]*-[0-9]*: random case ' rnd.out)
index=$(echo "$first" | sed -n 's/^[^ ]* random case \([0-9]*\),.*/\1/p')
line=$(sed -n 's/^  explain: //p' rnd.out | head -1)
case "$line" in
*"$LCTX_REAL case export --seed=3 random:$index | "*"$LCTX_REAL explain -") ;;
*) fail "random case $index: no explain line through case export: $line" ;;
esac
(cd elsewhere && env -i sh -c "$line") >rexplain.out 2>&1 ||
  fail "the random case's explain line does not run: $(tail -3 rexplain.out)"
grep -q '^operation 0: ' rexplain.out && grep -q '^verdict: ' rexplain.out ||
  fail "the random case's explain line explains nothing: $(cat rexplain.out)"

# Outside bytes: every raised message holds ESC, a newline and a forged
# result line; shown escaped, the caret under the first differing byte.
cat >escaper.py <<'PYEOF'
import example_wrap
example_wrap.run(lambda: example_wrap.serve(
    "escaper", "1", "Unable\x1b[2J\nresult: PASS"))
PYEOF
"$LCTX" conform --cmd "env PYTHONPATH=$SRC/tests/impls $PY $tmp/escaper.py" \
  --quiet --case "$SRC/conformance/cases/RG-001-loud-plugin-raises.case" \
  --report-dir esc >esc.out 2>&1
[ $? -eq 1 ] || fail "the escaping run: conform does not exit 1: $(tail -3 esc.out)"
LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" esc.out &&
  fail "a raw control byte reached conform's output"
grep -q '^result: PASS' esc.out && fail "a forged result line reached the output"
actual=$(grep -m1 '^  actual:   ' esc.out)
case "$actual" in
*'Unable\x1b[2J\x0aresult: PASS'*) ;;
*) fail "the actual text is not shown escaped: $actual" ;;
esac
caret=$(grep -m1 -A1 '^  actual:   ' esc.out | tail -1)
expected=$(grep -m1 '^  expected: ' esc.out)
"$PY" - "$expected" "$actual" "$caret" <<'PYEOF' || fail "the caret is not under the first difference: $expected / $actual / $caret"
import sys
e, a, c = (x[len("  expected: "):] for x in sys.argv[1:4])
at = c.find("^")
n = 0
while n < min(len(e), len(a)) and e[n] == a[n]:
    n += 1
sys.exit(0 if at == n and " first difference at byte " in c else 1)
PYEOF

# lctx eval's VIOLATION block marks the difference the same way.
cat >wrong.case <<'EOF'
lctx-case 1
factory "cpu" priority=0 loud client
op canonicalize "gpu"
expect string "gpx"
EOF
"$LCTX" eval wrong.case >eval.out 2>&1
[ $? -eq 1 ] || fail "eval of a wrong expectation does not exit 1: $(cat eval.out)"
grep -A2 '^  expected: ' eval.out >eval.pair
cat >eval.want <<'EOF'
  expected: 'gpx'
  actual:   RuntimeError: Unknown backend: 'gpu' requested, but no platforms that are instances of gpu are prese...
            ^ first difference at byte 0 (from 0); cut (...) to bytes 0..99 of 130 (actual)
EOF
cmp -s eval.pair eval.want ||
  fail "eval's VIOLATION does not mark the difference: $(cat eval.out)"

# The examples of "When a row fails" in PROTOCOL.md and README.md are this
# lctx's output, their command lines run as written from a tree laid out as
# the repository.
mkdir -p doc/build/release/harness
ln -s "$SRC/conformance" doc/conformance
ln -s "$LCTX_REAL" doc/build/release/harness/lctx
for page in conformance/PROTOCOL.md README.md; do
  (cd doc && "$PY" "$SRC/tests/protocol_doc.py" console "$SRC/$page" \
    "$LCTX" "$SRC") >doc.out 2>&1 ||
    fail "$page's examples are not lctx's output: $(cat doc.out)"
done

finish_failures "test_conform_explain: "
