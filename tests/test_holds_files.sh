#!/bin/sh
# test_holds_files.sh - lctx writes and reads its folders' files itself:
#   - a link lctx finds in its report folder in place of a file it writes
#     (results.jsonl, report.json.tmp, reach.json, findings/) is refused,
#     never written through: conform and sweep exit 2 naming the link, and
#     the file outside is untouched (results.jsonl.tmp, lctx's own
#     temporary file, is replaced, never written through);
#   - a FIFO given to `sweep --judge`, `sweep --replay` or `--known` is
#     refused at once (exit 2, the file named), never waited on;
#   - sweep and generate lock their folder as conform does: a second run
#     into a folder in use refuses, naming the holder;
#   - --known given a missing path, a FIFO, a file that is not a sweep case
#     file or one over the cap is an error naming it (exit 2); an empty
#     folder is valid;
#   - caps hit are recorded in report.json ("caps_hit") for conform and
#     sweep, and kept findings are capped (200 folders);
#   - a finding's report.txt holds no raw control byte, and its reproduce
#     line quotes the command as one shell word;
#   - a sweep whose reports cannot be written says ERROR and exits 2.
# Usage: test_holds_files.sh LCTX SOURCE_DIR MISBEHAVING_PLUGIN
set -u
. "$(dirname -- "$0")/lib.sh"
LCTX=$1
SRC=$2
BAD=$3
FAKE="$PY $SRC/tests/sweep_fake.py"
EXAMPLE_PY="$PY $SRC/conformance/examples/python/lctx_example.py"
mkdir "$tmp/nk"
echo outside >"$tmp/outside.txt"

# sweep DIR ARGS...: a sweep of the good programs into $tmp/DIR, its output
# in $tmp/DIR.out and .err, its status in $tmp/DIR.rc.
sweep() {
  d=$1
  shift
  timeout 120 "$LCTX" sweep --cmd "$FAKE --only-kind good" --known "$tmp/nk" \
    --out "$tmp/$d" --quiet --jobs 1 "$@" >"$tmp/$d.out" 2>"$tmp/$d.err"
  echo $? >"$tmp/$d.rc"
}
untouched() {
  [ "$(cat "$tmp/outside.txt")" = outside ] || fail "$1: the file outside the folder was written"
  echo outside >"$tmp/outside.txt"
}

# 1. conform: links in the report folder are refused.
for name in results.jsonl report.json.tmp; do
  d=c-$(echo "$name" | tr . -)
  mkdir "$tmp/$d"
  ln -s "$tmp/outside.txt" "$tmp/$d/$name"
  conform "$d" --cmd "$EXAMPLE_PY" --no-domain --random 3
  [ "$(rc "$d")" = 2 ] || fail "conform, $name a link: exit $(rc "$d") (want 2)"
  grep -q "$name: .*symbolic link" "$tmp/$d.out" ||
    fail "conform, $name a link: not said: $(tail -n 3 "$tmp/$d.out")"
  [ -L "$tmp/$d/report.json" ] && fail "conform, $name a link: report.json is a link"
  untouched "conform, $name a link"
done

# 2. sweep: links in its folder are refused.
for name in results.jsonl reach.json report.json.tmp; do
  d=s-$(echo "$name" | tr . -)
  mkdir "$tmp/$d"
  ln -s "$tmp/outside.txt" "$tmp/$d/$name"
  sweep "$d"
  [ "$(cat "$tmp/$d.rc")" = 2 ] || fail "sweep, $name a link: exit $(cat "$tmp/$d.rc") (want 2)"
  grep -q "$name: .*symbolic link" "$tmp/$d.err" ||
    fail "sweep, $name a link: not said: $(tail -n 3 "$tmp/$d.err")"
  untouched "sweep, $name a link"
done
mkdir "$tmp/s-tmp"
ln -s "$tmp/outside.txt" "$tmp/s-tmp/results.jsonl.tmp"
sweep s-tmp
untouched "sweep, results.jsonl.tmp a link"
mkdir -p "$tmp/s-findings" "$tmp/elsewhere"
ln -s "$tmp/elsewhere" "$tmp/s-findings/findings"
timeout 120 "$LCTX" sweep --cmd "$FAKE --only-kind bad" --known "$tmp/nk" \
  --out "$tmp/s-findings" --quiet --jobs 1 --no-minimize --group bad \
  >"$tmp/s-findings.out" 2>"$tmp/s-findings.err"
rc=$?
[ "$rc" = 2 ] || fail "sweep, findings a link: exit $rc (want 2)"
[ -z "$(ls "$tmp/elsewhere")" ] || fail "sweep, findings a link: findings written outside the folder"
grep -q "findings: .*symbolic link" "$tmp/s-findings.err" ||
  fail "sweep, findings a link: not said: $(tail -n 3 "$tmp/s-findings.err")"

# 3. FIFOs given as inputs are refused at once.
mkfifo "$tmp/fifo.json"
timeout 20 "$LCTX" sweep --judge "$tmp/fifo.json" >"$tmp/j.out" 2>"$tmp/j.err"
rc=$?
[ "$rc" = 2 ] || fail "sweep --judge FIFO: exit $rc (want 2; 124: it blocked)"
grep -q "fifo.json: not a regular file" "$tmp/j.err" || fail "sweep --judge FIFO: not said: $(cat "$tmp/j.err")"
timeout 20 "$LCTX" sweep --cmd "$FAKE --only-kind good" --replay "$tmp/fifo.json" \
  >"$tmp/r.out" 2>"$tmp/r.err"
rc=$?
[ "$rc" = 2 ] || fail "sweep --replay FIFO: exit $rc (want 2; 124: it blocked)"
grep -q "fifo.json: not a regular file" "$tmp/r.err" || fail "sweep --replay FIFO: not said: $(cat "$tmp/r.err")"

# 4. --known: a missing path, a FIFO, a file of another kind, a file over
# the cap are errors naming it; an empty folder is valid.
echo '{"not": "a case"}' >"$tmp/other.json"
head -c $((17 << 20)) /dev/zero | tr '\0' ' ' >"$tmp/huge.json"
k=0
for known in "$tmp/no-such-folder" "$tmp/fifo.json" "$tmp/other.json" "$tmp/huge.json"; do
  k=$((k + 1))
  timeout 60 "$LCTX" sweep --cmd "$FAKE --only-kind good" --known "$known" \
    --out "$tmp/k$k" --quiet --jobs 1 >"$tmp/k$k.out" 2>"$tmp/k$k.err"
  rc=$?
  [ "$rc" = 2 ] || fail "--known $known: exit $rc (want 2)"
  grep -q "$(basename "$known")" "$tmp/k$k.err" || fail "--known $known: not named: $(cat "$tmp/k$k.err")"
done
grep -q "larger than 16777216 bytes" "$tmp/k4.err" || fail "--known over the cap: the cap is not said: $(cat "$tmp/k4.err")"
timeout 60 "$LCTX" generate --cmd "$FAKE --generate" --programs 2 --known "$tmp/no-such-folder" \
  --out "$tmp/g-missing" --quiet --jobs 1 >"$tmp/g-missing.out" 2>"$tmp/g-missing.err"
rc=$?
[ "$rc" = 2 ] || fail "generate --known missing: exit $rc (want 2)"
sweep empty-known
[ "$(cat "$tmp/empty-known.rc")" = 0 ] || fail "--known an empty folder: exit $(cat "$tmp/empty-known.rc") (want 0): $(tail -n 3 "$tmp/empty-known.err")"

# 5. sweep and generate lock their folder.
hold_lock "$tmp/locked" "another run, pid 4242"
sweep locked
[ "$(cat "$tmp/locked.rc")" = 2 ] || fail "sweep into a folder in use: exit $(cat "$tmp/locked.rc") (want 2)"
grep -q "in use by another run (another run, pid 4242)" "$tmp/locked.err" ||
  fail "sweep into a folder in use: the holder is not named: $(cat "$tmp/locked.err")"
[ -e "$tmp/locked/results.jsonl" ] && fail "sweep into a folder in use: results.jsonl written"
timeout 60 "$LCTX" generate --cmd "$FAKE --generate" --programs 2 --known "$tmp/nk" \
  --out "$tmp/locked" --quiet --jobs 1 >"$tmp/glocked.out" 2>"$tmp/glocked.err"
rc=$?
[ "$rc" = 2 ] || fail "generate into a folder in use: exit $rc (want 2)"
release_lock

# 6. caps hit are in report.json, for conform and sweep.
conform keep --impl "$BAD" --cases "$SRC/tests/conform_cases/plugin" --no-domain \
  --random 0 --timeout 1 --keep-failures 1
"$PY" - "$tmp/keep/report.json" <<'PY' || fail "conform: caps_hit does not record the verdicts not kept"
import json, sys
caps = json.load(open(sys.argv[1]))["caps_hit"]
assert any(c["cap"] == 1 and c["dropped"] >= 1 and "kept" in c["what"] for c in caps), caps
PY
"$PY" - "$tmp/empty-known/report.json" <<'PY' || fail "sweep: report.json has no caps_hit list"
import json, sys
assert json.load(open(sys.argv[1]))["caps_hit"] == []
PY

# 7. A finding's report.txt: no raw control byte; the reproduce line
# quotes the command (one holding a quote) as one shell word.
# (the fake, its JAX version holding terminal escapes)
cat >"$tmp/wrap.py" <<WRAP
import sys
sys.path.insert(0, "$SRC/tests")
import sweep_fake
send = sweep_fake.send
def escaped(obj):
    if "jax" in obj:
        obj["jax"]["version"] = "fake\\x1b[2J\\x07"
    send(obj)
sweep_fake.send = escaped
sys.exit(sweep_fake.main())
WRAP
cmd="$PY $tmp/wrap.py --only-kind 'bad'"
timeout 120 "$LCTX" sweep --cmd "$cmd" --known "$tmp/nk" --out "$tmp/esc" --quiet \
  --jobs 1 --no-minimize --group bad >"$tmp/esc.out" 2>"$tmp/esc.err"
ls "$tmp"/esc/findings/*/report.txt >/dev/null 2>&1 || fail "report.txt: no finding kept: $(tail -n 3 "$tmp/esc.err")"
for f in "$tmp"/esc/findings/*/report.txt; do
  [ -f "$f" ] || continue
  if LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$f"; then
    fail "report.txt holds a raw control byte: $f"
  fi
  "$PY" - "$f" "$cmd" <<'PY' || fail "report.txt: the reproduce line does not quote the command: $(grep -A1 '^reproduce' "$f")"
import shlex, sys
lines = open(sys.argv[1], encoding="utf-8", errors="replace").read().split("\n")
line = lines[lines.index(next(l for l in lines if l.startswith("reproduce"))) + 1]
words = shlex.split(line)
# cd DIR && [NAME=VALUE...] /path/to/lctx sweep --cmd CMD ...
i = words.index("sweep")
assert words[:3] == ["cd", words[1], "&&"] and words[i - 1].startswith("/"), words
assert words[i - 1].endswith("/lctx") and words[i + 1] == "--cmd", words
assert words[i + 2] == sys.argv[2], words
PY
done

# 8. Reports that cannot be written: ERROR, exit 2 (not FAIL, exit 1).
mkdir -p "$tmp/unwritable/reach.json"
sweep unwritable
[ "$(cat "$tmp/unwritable.rc")" = 2 ] || fail "sweep, reach.json a folder: exit $(cat "$tmp/unwritable.rc") (want 2)"
grep -q "result: .*ERROR" "$tmp/unwritable.out" || fail "sweep, reach.json a folder: no ERROR: $(tail -n 2 "$tmp/unwritable.out")"
grep -q "reach.json: cannot write" "$tmp/unwritable.err" || fail "sweep, reach.json a folder: not said"

# 9. Kept findings are capped: an exporter whose every failure has a key
# of its own (the line of its TypeError counts up) fills at most 200
# folders; the rest are counted, said, and in report.json's caps_hit.
cat >"$tmp/unique.py" <<WRAP
import itertools, sys
sys.path.insert(0, "$SRC/tests")
import sweep_fake
answer, n = sweep_fake.answer, itertools.count()
def unique(program, platforms):
    out = answer(program, platforms)
    if out.get("class") == "TypeError":
        out["line"] = 1000 + next(n)
    return out
sweep_fake.answer = unique
sys.exit(sweep_fake.main())
WRAP
timeout 120 "$LCTX" sweep --cmd "$PY $tmp/unique.py --only-kind bad" --known "$tmp/nk" \
  --out "$tmp/many" --quiet --jobs 1 --no-minimize --lists 64 >"$tmp/many.out" 2>"$tmp/many.err"
kept=$(ls "$tmp/many/findings" | wc -l)
[ "$kept" -eq 200 ] || fail "findings kept: $kept folders (want the cap, 200)"
grep -q "holds 200 findings, the most kept" "$tmp/many.err" || fail "the findings cap is not said"
"$PY" - "$tmp/many/report.json" <<'PY' || fail "sweep: caps_hit does not record the findings not kept"
import json, sys
caps = json.load(open(sys.argv[1]))["caps_hit"]
assert any(c["what"] == "findings kept" and c["cap"] == 200 and c["dropped"] > 0 for c in caps), caps
PY

finish_failures "test_holds_files: "
