#!/bin/sh
# test_crash_state.sh - pins what ClusterFuzz (OSS-Fuzz, ClusterFuzzLite)
# and lctx make of a finding's output:
#   1. two semantic findings of different keys (fuzz_model seeds that the
#      mutant model fails) share their top frames, and their outputs reduce
#      to two different crash states under ClusterFuzz's rules, because each
#      carries its key on an `ASSERTION FAILED:` line; each state's first
#      line is its key;
#   2. a sanitizer finding of a campaign is keyed by the sanitizer's kind and
#      its DEDUP_TOKEN (functions), with no path in the key.
# The reduction is written here from ClusterFuzz's documented rules
# (google/clusterfuzz, src/clusterfuzz/stacktraces/constants.py:
# ASSERT_REGEX, and the crash state of at most 3 lines, the assertion's
# text then the top stack frames, sanitizer and libFuzzer frames ignored).
# Usage: test_crash_state.sh LCTX FUZZ_MODEL_MUTANT PLANTED_OVERFLOW SEEDS
set -u
LCTX=$1
MUTANT=$2
PLANTED=$3
SEEDS=$4
. "$(dirname -- "$0")/lib.sh"

cat >"$tmp/state.py" <<'PYEOF'
import re, sys
EXT = ['c', 'cc', 'cpp', 'cxx', 'h', 'hh', 'hpp', 'hxx']
ASSERT = re.compile(r'(?:\[.*?\]|.*\.(?:%s):.*)?' % '|'.join(EXT) +
                    r'\s*(?:ASSERT(?:ION)? FAIL(?:URE|ED)|panic): (.*)',
                    re.IGNORECASE)
FRAME = re.compile(r'^\s*#\d+\s+0x[0-9a-fA-F]+\s+in\s+(\S+)')
IGNORE = re.compile(r'^(__sanitizer|__asan|__ubsan|__interceptor|__GI_|'
                    r'fuzzer::|abort$|raise$|libc\.so|__libc|_start$|main$|'
                    r'__pthread|pthread_kill)')
def state(text, with_assert=True):
    lines, frames = [], []
    for line in text.splitlines():
        m = ASSERT.match(line)
        if with_assert and m and not lines:
            lines.append(m.group(1).strip())
            continue
        f = FRAME.match(line)
        if f and not IGNORE.match(f.group(1)):
            frames.append(f.group(1))
    return '\n'.join((lines + frames)[:3])
mode, a, b = sys.argv[1], sys.argv[2], sys.argv[3]
ta, tb = open(a, errors='replace').read(), open(b, errors='replace').read()
if mode == 'frames':   # the top frames alone: print both states
    print(state(ta, False) == state(tb, False))
else:
    sa, sb = state(ta), state(tb)
    print(sa.replace('\n', ' | '))
    print(sb.replace('\n', ' | '))
    print(sa != sb)
PYEOF

# 1. Two semantic findings of different keys.
n=0
first_key=
for seed in "$SEEDS"/*.bin; do
  out=$tmp/out$n.txt
  "$MUTANT" "$seed" >"$out" 2>&1 && continue
  key=$(sed -n 's/^LCTX-FINDING //p' "$out" | head -n 1)
  [ -n "$key" ] || continue
  [ "$key" = "$first_key" ] && continue
  grep -qxF "ASSERTION FAILED: $key" "$out" ||
    fail "$seed: no 'ASSERTION FAILED: $key' line"
  [ -z "$first_key" ] && first_key=$key
  n=$((n + 1))
  [ "$n" -eq 2 ] && second_key=$key && break
done
if [ "$n" -lt 2 ]; then
  fail "the mutant fails fewer than two seeds with different keys ($n)"
else
  same=$(python3 "$tmp/state.py" frames "$tmp/out0.txt" "$tmp/out1.txt")
  [ "$same" = True ] ||
    fail "the two findings' top frames already differ; the test shows nothing"
  python3 "$tmp/state.py" assert "$tmp/out0.txt" "$tmp/out1.txt" \
    >"$tmp/states.txt"
  [ "$(sed -n 3p "$tmp/states.txt")" = True ] ||
    fail "one crash state for two findings: $(cat "$tmp/states.txt")"
  sed -n 1p "$tmp/states.txt" | grep -qF "$first_key |" ||
    fail "first state does not start with $first_key: $(cat "$tmp/states.txt")"
  sed -n 2p "$tmp/states.txt" | grep -qF "$second_key |" ||
    fail "second state does not start with $second_key"
fi

# 2. A sanitizer finding's key: kind and dedup token, no path.
mkdir -p "$tmp/bin"
cp "$PLANTED" "$tmp/bin/fuzz_spec"
"$LCTX" fuzz --engine libfuzzer --target fuzz_spec --time 3 --out "$tmp/s" \
  --binary "$tmp/bin/fuzz_spec" >"$tmp/san.txt" 2>&1
keyfile=$(ls "$tmp"/s/findings/*/key.txt 2>/dev/null | head -n 1)
if [ -z "$keyfile" ]; then
  fail "no finding from the planted overflow: $(tail -n 20 "$tmp/san.txt")"
else
  key=$(cat "$keyfile")
  case $key in
  fuzz_spec/sanitizer/AddressSanitizer-heap-buffer-overflow/*planted_read_past_end*) ;;
  *) fail "sanitizer key is not kind/dedup token: $key" ;;
  esac
  case $key in
  *"$tmp"* | *.c:* | */tests/* | */build/*) fail "sanitizer key has a path: $key" ;;
  esac
fi
[ -n "${LCTX_TEST_VERBOSE:-}" ] && cat "$tmp/states.txt" "$keyfile"
finish_failures "test_crash_state: "
echo "test_crash_state: ok"
