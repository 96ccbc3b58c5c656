#!/bin/sh
# test_dict.sh - pins the fuzzing dictionaries: every line of every
# fuzzers/dict/*.dict is blank, a comment, or an entry `"..."` or
# `name="..."` in libFuzzer's and AFL++'s format (escapes \\, \" and \xHH),
# and every entry is at most 64 bytes once unescaped, the longest entry
# libFuzzer keeps (longer ones are dropped when the dictionary is read) and
# the longest AFL++ takes. Also checks itself on a planted bad dictionary.
# Usage: test_dict.sh DICT_DIR
set -u
DICTS=$1
. "$(dirname -- "$0")/lib.sh"

cat >"$tmp/check.py" <<'PYEOF'
import re, sys
ENTRY = re.compile(r'^(?:[A-Za-z0-9_]+\s*=\s*)?"((?:[^"\\]|\\.)*)"\s*$')
bad = 0
for path in sys.argv[1:]:
    for number, line in enumerate(open(path, encoding='latin-1'), 1):
        text = line.strip()
        if not text or text.startswith('#'):
            continue
        m = ENTRY.match(text)
        if not m:
            print(f'{path}:{number}: not a dictionary entry: {text}')
            bad += 1
            continue
        raw, out, i = m.group(1), bytearray(), 0
        while i < len(raw):
            if raw[i] == '\\':
                if raw[i + 1] == 'x':
                    out.append(int(raw[i + 2:i + 4], 16))
                    i += 4
                    continue
                out.append(ord(raw[i + 1]))
                i += 2
                continue
            out.append(ord(raw[i]))
            i += 1
        if len(out) > 64:
            print(f'{path}:{number}: entry of {len(out)} bytes (at most 64)')
            bad += 1
print(f'{bad} bad entries')
sys.exit(1 if bad else 0)
PYEOF

ls "$DICTS"/*.dict >/dev/null 2>&1 || fail "no dictionary in $DICTS"
python3 "$tmp/check.py" "$DICTS"/*.dict >"$tmp/out.txt" ||
  fail "dictionaries: $(cat "$tmp/out.txt")"

# The check fails on what it must reject: a 65-byte entry (escapes count
# once) and a line that is no entry.
long=$(printf 'a%.0s' $(seq 1 61))
printf '"%s\\x41\\"\\\\x"\n' "$long" >"$tmp/long.dict"
python3 "$tmp/check.py" "$tmp/long.dict" >"$tmp/long.txt" &&
  fail "a 65-byte entry passed"
grep -q "entry of 65 bytes" "$tmp/long.txt" ||
  fail "65-byte entry: $(cat "$tmp/long.txt")"
printf 'kw="%s\\x41\\""\n' "$long" >"$tmp/ok.dict"
python3 "$tmp/check.py" "$tmp/ok.dict" >"$tmp/ok.txt" ||
  fail "a 63-byte entry failed: $(cat "$tmp/ok.txt")"
printf 'not an entry\n' >"$tmp/junk.dict"
python3 "$tmp/check.py" "$tmp/junk.dict" >/dev/null && fail "a junk line passed"
finish_failures "test_dict: "
echo "test_dict: ok"
