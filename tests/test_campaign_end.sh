#!/bin/sh
# test_campaign_end.sh - pins how a fuzz campaign ends when it does not run
# its course, with a real libFuzzer build of a mutant model (copied to a
# folder of its own, so that every process of the campaign names that
# folder on its command line):
#   1. SIGKILL of lctx fuzz mid-run leaves no engine process, no temporary
#      folder outside the campaign folder (TMPDIR, the current directory)
#      and none inside (OUT/tmp); state.json still says "running";
#   2. SIGINT mid-run: exit 1, "result: INTERRUPTED", state.json
#      "interrupted", no engine process and no temporary folder left, the
#      findings it took recorded as unminimized;
#   3. resuming that campaign minimizes those findings before it fuzzes;
#   4. an engine that runs no input: exit 1, "result: NOTHING RUN" and a
#      message, state.json "nothing-run".
#   5. a campaign folder another campaign holds is refused, naming it.
# Usage: test_campaign_end.sh LCTX FUZZ_MODEL_MUTANT (exit 77 without it)
set -u
LCTX=$1
MUTANT=$2
if [ ! -x "$MUTANT" ]; then
  echo "SKIPPED: no $MUTANT (libFuzzer does not link here)"
  exit 77
fi
. "$(dirname -- "$0")/lib.sh"

mkdir -p "$tmp/bin" "$tmp/sys" "$tmp/cwd"
BIN=$tmp/bin/fuzz_model_mutant
cp "$MUTANT" "$BIN"

# The processes whose command line names $tmp (lctx, the engines, their
# jobs, key runs), one per line; zombies have an empty command line. The
# pattern's last character in brackets keeps grep from finding itself.
pattern=$(printf '%s' "$tmp" | sed 's/\(.\)$/[\1]/')
running() {
  for f in $(grep -l -e "$pattern" /proc/[0-9]*/cmdline 2>/dev/null); do
    line=$({ tr '\0' ' ' <"$f"; } 2>/dev/null) && [ -n "$line" ] &&
      echo "${f%/cmdline}: $line"
  done
}

# Waits up to 5 s for `running` to come back empty; fails with what is left.
expect_none_running() {
  until=$(($(date +%s) + 5))
  while [ -n "$(running)" ] && [ "$(date +%s)" -lt "$until" ]; do
    sleep 0.1
  done
  left=$(running)
  [ -z "$left" ] || fail "$1: processes left running: $left"
}

# Nothing may be left in TMPDIR, the current directory, or OUT/tmp.
expect_no_temp() {
  [ -z "$(ls -A "$tmp/sys")" ] ||
    fail "$1: left in TMPDIR: $(ls -A "$tmp/sys")"
  [ -z "$(ls -A "$tmp/cwd")" ] ||
    fail "$1: left in the current directory: $(ls -A "$tmp/cwd")"
  [ ! -e "$2/tmp" ] || fail "$1: $2/tmp was not removed"
}

# Starts a campaign of 60 s in the background (its pid in $pid).
start_campaign() {
  (cd "$tmp/cwd" && TMPDIR="$tmp/sys" exec "$LCTX" fuzz --engine libfuzzer \
    --target fuzz_model --time 60 --jobs 2 --out "$1" --binary "$BIN") \
    >"$2" 2>&1 &
  pid=$!
}

# Waits up to 30 s for `test -e PATTERN` to match (a glob).
wait_for() {
  i=0
  while [ $i -lt 300 ]; do
    for p in $1; do [ -e "$p" ] && return 0; done
    sleep 0.1
    i=$((i + 1))
  done
  return 1
}

# 1. SIGKILL once both libFuzzer jobs run (each says INITED in its log);
# after the kill, no process and no folder is left.
start_campaign "$tmp/k" "$tmp/k.txt"
i=0
until grep -qs INITED "$tmp/k/logs/libfuzzer.log" &&
  grep -qs INITED "$tmp/k/logs/libfuzzer-1.log"; do
  [ $i -lt 300 ] || fail "SIGKILL: the two libFuzzer jobs never started"
  [ $i -lt 300 ] || break
  sleep 0.1
  i=$((i + 1))
done
[ -n "$(running | grep -v ' fuzz --engine ')" ] ||
  fail "SIGKILL: no engine process was running before the kill"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
expect_none_running "SIGKILL"
expect_no_temp "SIGKILL" "$tmp/k"
grep -q '"status": "running"' "$tmp/k/state.json" ||
  fail "SIGKILL: state.json does not say the run never ended"

# 2. SIGINT once a finding is taken (minimizing waits for the end).
start_campaign "$tmp/i" "$tmp/i.txt"
wait_for "$tmp/i/findings/*/unminimized" ||
  fail "SIGINT: no finding recorded as unminimized within 30 s"
interrupt "$pid" "$tmp/i.txt" SIGINT
grep -q "^result: INTERRUPTED" "$tmp/i/summary.txt" ||
  fail "SIGINT: summary.txt does not say INTERRUPTED"
grep -q '"status": "interrupted"' "$tmp/i/state.json" ||
  fail "SIGINT: state.json does not say interrupted"
expect_none_running "SIGINT"
expect_no_temp "SIGINT" "$tmp/i"
pending=$(ls -d "$tmp"/i/findings/*/unminimized 2>/dev/null | wc -l)
[ "$pending" -ge 1 ] || fail "SIGINT: no finding left unminimized"

# 3. The resume minimizes them before it fuzzes (before the first live
# line), and records each one it minimized.
(cd "$tmp/cwd" && TMPDIR="$tmp/sys" "$LCTX" fuzz --engine libfuzzer \
  --target fuzz_model --time 1 --out "$tmp/i" --binary "$BIN") \
  >"$tmp/r.txt" 2>&1
grep -q "$pending finding(s) an earlier run left unminimized: minimizing" \
  "$tmp/r.txt" || fail "resume: does not announce the $pending unminimized"
sed -n '/^\[/q;/^minimizing /p' "$tmp/r.txt" >"$tmp/before.txt"
[ -s "$tmp/before.txt" ] || fail "resume: minimized nothing before fuzzing"
while read -r _ key _ n _ m _; do
  dir=$tmp/i/findings/$(printf '%s' "$key" | sed 's|/|__|g; s|[^A-Za-z0-9=._-]|_|g')
  [ -d "$dir" ] || fail "resume: no finding directory for $key"
  [ ! -e "$dir/unminimized" ] || fail "resume: $key still unminimized"
  [ "$(wc -c <"$dir/minimized")" -eq "$m" ] && [ "$m" -le "$n" ] ||
    fail "resume: $key: minimized is not the $m bytes announced"
  grep -q "^minimized: $n -> $m bytes" "$dir/report.txt" ||
    fail "resume: $key: report.txt does not say $n -> $m bytes"
done <"$tmp/before.txt"
expect_none_running "resume"
expect_no_temp "resume" "$tmp/i"

# 4. An engine that runs no input: nothing was judged, exit 1.
printf '#!/bin/sh\necho "no engine here" >&2\nexit 1\n' >"$tmp/bin/broken"
chmod +x "$tmp/bin/broken"
(cd "$tmp/cwd" && TMPDIR="$tmp/sys" "$LCTX" fuzz --engine libfuzzer \
  --target fuzz_model --time 1 --out "$tmp/n" --binary "$tmp/bin/broken") \
  >"$tmp/n.txt" 2>"$tmp/n.err"
rc=$?
[ "$rc" -eq 1 ] || fail "no input run: exited $rc, want 1"
grep -q "^result: NOTHING RUN" "$tmp/n.txt" ||
  fail "no input run: no 'result: NOTHING RUN' line"
grep -q "lctx fuzz: the engine ran no input, nothing was judged" \
  "$tmp/n.err" || fail "no input run: no message: $(cat "$tmp/n.err")"
grep -q '"status": "nothing-run"' "$tmp/n/state.json" ||
  fail "no input run: state.json does not say nothing-run"

# 5. A campaign folder another campaign holds is refused, naming it.
hold_lock "$tmp/held" "the other campaign"
(cd "$tmp/cwd" && "$LCTX" fuzz --engine libfuzzer --target fuzz_model \
  --time 1 --out "$tmp/held" --binary "$BIN") >"$tmp/held.txt" 2>&1
rc=$?
release_lock
[ "$rc" -eq 2 ] || fail "held campaign folder: exited $rc, want 2"
grep -q "is in use by another run (the other campaign)" "$tmp/held.txt" ||
  fail "held campaign folder: the holder is not named: $(cat "$tmp/held.txt")"

if [ "$failures" -ne 0 ]; then
  for f in k i r n; do
    echo "--- $f.txt:"
    cat "$tmp/$f.txt"
  done
  echo "test_campaign_end: $failures failure(s)"
  exit 1
fi
echo "test_campaign_end: ok ($(wc -l <"$tmp/before.txt") of $pending unminimized finding(s) minimized on resume)"
