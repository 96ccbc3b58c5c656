#!/bin/sh
# test_generate.sh - `lctx generate` without JAX: program texts printed
# from a seed (the same seed and index, the same bytes), checked (a
# malformed file named with its line and column, exit 2), and a campaign
# against tests/sweep_fake.py --generate, a real process that builds
# generated programs the way a broken JAX would: its findings (a print
# that raises under several platforms: SW-001; a rule `fun F` dispatched
# as the first platform's rule: SW-009) are kept once per key, minimized
# to the fewest nodes that keep the key, each with a draft report and the
# reproduction the program wrote (escape bytes kept in the file, never
# printed raw); a malformed dispatch marks its own case crash; a run into
# the same folder resumes; --from draws one program per file of a folder;
# an exporter without "generate" in its hello is refused with exit 2.
# Usage: test_generate.sh LCTX SOURCE_DIR
set -u
. "$(dirname -- "$0")/lib.sh"
LCTX=$1
SRC=$2
FAKE="$PY $SRC/tests/sweep_fake.py"
mkdir -p "$tmp/none"

# 1. Printing and checking programs.
"$LCTX" generate --print 3 --seed 9 >"$tmp/a.txt" || fail "--print: exit $?"
"$LCTX" generate --print 3 --seed 9 >"$tmp/b.txt"
"$LCTX" generate --print 4 --seed 9 >"$tmp/c.txt"
cmp -s "$tmp/a.txt" "$tmp/b.txt" || fail "the same seed and index print differently"
cmp -s "$tmp/a.txt" "$tmp/c.txt" && fail "two indices print the same program"
sed -n 2p "$tmp/a.txt" | grep -q "^# program 3 of seed 9 ([0-9]* nodes)$" ||
  fail "--print: no heading line"
"$LCTX" generate --check "$tmp/a.txt" "$tmp/c.txt" >"$tmp/check.out" ||
  fail "--check of printed programs: exit $?"
grep -q "a.txt: a program of [0-9]* nodes" "$tmp/check.out" || fail "--check: no size"
printf 'lctx-program 1\narg float32 4\nfun main\nv0 = jax sin y\nret v0\n' >"$tmp/bad.txt"
"$LCTX" generate --check "$tmp/bad.txt" >/dev/null 2>"$tmp/bad.err"
[ $? -eq 2 ] || fail "--check of a malformed file: want exit 2"
grep -q "bad.txt:4:14: 'y' is not x or a value defined before" "$tmp/bad.err" ||
  { fail "--check does not name line and column"; cat "$tmp/bad.err"; }
"$LCTX" generate >/dev/null 2>&1
[ $? -eq 2 ] || fail "no --cmd: want exit 2"
"$LCTX" generate --cmd "$FAKE --generate" --programs 0 >/dev/null 2>&1
[ $? -eq 2 ] || fail "--programs 0: want exit 2"

# 2. An exporter that does not build generated programs.
"$LCTX" generate --cmd "$FAKE" --programs 3 --out "$tmp/no" --quiet \
  >/dev/null 2>"$tmp/no.err"
[ $? -eq 2 ] || fail "an exporter without generate: want exit 2"
grep -q 'does not build generated programs' "$tmp/no.err" ||
  fail "an exporter without generate: not said why"

# 3. A campaign: findings, minimized, reported.
out=$tmp/run
"$LCTX" generate --cmd "$FAKE --generate" --programs 60 --seed 3 --jobs 2 \
  --known "$tmp/none" --out "$out" >"$tmp/run.out" 2>"$tmp/run.err"
rc=$?
[ "$rc" -eq 1 ] || fail "the campaign: exit $rc, want 1 (findings)"
grep -q "^generate: 60 programs judged (60 cases, 0 resumed)" "$tmp/run.out" ||
  { fail "no programs line"; cat "$tmp/run.out"; }
grep -q "^features covered: [0-9]* of 32" "$tmp/run.out" || fail "no features line"
grep -q "JAX operations drawn: [0-9]* of 48" "$tmp/run.out" || fail "no operations count"
if LC_ALL=C grep -q "$(printf '\033')" "$tmp/run.out" "$tmp/run.err"; then
  fail "raw escape bytes printed"
fi
tuple=$(ls -d "$out"/findings/sw-001-typeerror* 2>/dev/null | head -n 1)
model=$(ls -d "$out"/findings/sw-009-* 2>/dev/null | head -n 1)
[ -n "$tuple" ] || fail "the print TypeError (SW-001) was not found"
[ -n "$model" ] || fail "the dispatch that differs from the model (SW-009) was not found"
size() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["size"])' "$1"; }
if [ -n "$tuple" ]; then
  [ "$(size "$tuple/minimized.json")" -eq 1 ] ||
    { fail "SW-001 not minimized to its one print"; cat "$tuple/report.txt"; }
  grep -q "^v0 = print x$" "$tuple/report.txt" || fail "SW-001: the program is not in report.txt"
  grep -q "<!-- lctx-defect: repro=repro.py -->" "$tuple/report.md" ||
    fail "SW-001: the draft report names no reproduction"
  LC_ALL=C grep -q "$(printf '\033')\[2J" "$tuple/repro.py" ||
    fail "SW-001: repro.py is not the text the program sent"
  # The minimized case replays through the same program.
  "$LCTX" sweep --cmd "$FAKE --generate" --replay "$tuple/minimized.json" \
    >"$tmp/replay.out" 2>&1 || { fail "replay of the minimized case"; cat "$tmp/replay.out"; }
fi
if [ -n "$model" ]; then
  [ "$(size "$model/minimized.json")" -le 3 ] ||
    { fail "SW-009 not minimized to at most 3 nodes"; cat "$model/report.txt"; }
  grep -q "^rule p[0-9]* [a-z]* fun f[0-9]*$" "$model/report.txt" ||
    fail "SW-009: the minimized program lost its fun rule"
fi
python3 - "$out/results.jsonl" <<'EOF' || fail "a malformed dispatch was not marked crash on its own case"
import json, sys
crash = ok = 0
for k, line in enumerate(open(sys.argv[1])):
    if k == 0:
        continue
    c = json.loads(line)
    for v in c["verdicts"]:
        if v["verdict"] == "crash":
            assert "dispatch[].rules" in v["detail"], v["detail"]
            crash += 1
        elif v["verdict"] == "pass":
            ok += 1
assert crash >= 1 and ok >= 100, (crash, ok)
EOF

# The campaign's figures (tools/generate_figures.py): from its folder, and
# README's block written from them, then checked; an edit is caught.
cp "$tmp/run.out" "$out/summary.txt"
python3 "$SRC/tools/generate_figures.py" "$out" --record "$tmp/fig.json" >"$tmp/fig.out" ||
  fail "generate_figures: exit $?"
grep -q "^\`make generate\` (seed 3, no known defects, the pinned JAX): 60 programs judged" \
  "$tmp/fig.out" || { fail "generate_figures: no programs line"; cat "$tmp/fig.out"; }
grep -q "^| \`SW-001 TypeError at jax/_src/interpreters/mlir.py:2562\` | [0-9]* | [0-9]* / 1 | repro.py |" \
  "$tmp/fig.out" || { fail "generate_figures: no row for the SW-001 finding"; cat "$tmp/fig.out"; }
printf '# R\n\n<!-- lctx-generate-figures:begin -->\n<!-- lctx-generate-figures:end -->\n' >"$tmp/R.md"
python3 "$SRC/tools/generate_figures.py" --write "$tmp/R.md" "$tmp/fig.json" >/dev/null &&
  python3 "$SRC/tools/generate_figures.py" --check "$tmp/R.md" "$tmp/fig.json" >/dev/null ||
  fail "generate_figures: --check disagrees with its own --write"
sed 's/60 programs judged/61 programs judged/' "$tmp/R.md" >"$tmp/R2.md"
python3 "$SRC/tools/generate_figures.py" --check "$tmp/R2.md" "$tmp/fig.json" >/dev/null
[ $? -eq 1 ] || fail "generate_figures --check did not catch an edited figure"

# 4. Resuming: nothing is exported again.
"$LCTX" generate --cmd "$FAKE --generate" --programs 60 --seed 3 --jobs 2 \
  --known "$tmp/none" --out "$out" >"$tmp/again.out" 2>&1
grep -q "^generate: 60 programs judged (60 cases, 60 resumed), 0 exports" \
  "$tmp/again.out" || { fail "a second run into the same folder did not resume"; cat "$tmp/again.out"; }

# 5. --from: one program per file, from its bytes.
"$LCTX" generate --cmd "$FAKE --generate" --from "$SRC/corpus/seeds/fuzz_program" \
  --known "$tmp/none" --out "$tmp/from" --no-minimize --quiet >"$tmp/from.out" 2>&1
n=$(ls "$SRC/corpus/seeds/fuzz_program" | wc -l)
grep -q "^generate: $n programs judged" "$tmp/from.out" ||
  { fail "--from did not judge one program per file"; cat "$tmp/from.out"; }
grep -q '"program":"gen/bytes/seed-00.bin"' "$tmp/from/results.jsonl" ||
  fail "--from: programs are not named by their file"

# A file of --from that cannot be read is a crash of its own case.
mkdir -p "$tmp/fromdir/sub"
cp "$SRC/corpus/seeds/fuzz_program/seed-00.bin" "$tmp/fromdir/"
"$LCTX" generate --cmd "$FAKE --generate" --from "$tmp/fromdir" \
  --known "$tmp/none" --out "$tmp/from2" --quiet >"$tmp/from2.out" 2>&1
[ $? -eq 1 ] || fail "an unreadable --from file: want exit 1"
grep -q '"program":"gen/bytes/sub".*"verdict":"crash".*not a regular file' \
  "$tmp/from2/results.jsonl" || fail "an unreadable --from file is not its case's crash"
grep -q '"program":"gen/bytes/seed-00.bin".*"verdict":"pass"' \
  "$tmp/from2/results.jsonl" || fail "the readable --from file was not judged"

finish_failures "test_generate: "
echo PASS
