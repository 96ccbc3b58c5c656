#!/bin/sh
# test_hostile_impl.sh - pins `lctx conform` end to end against the hostile
# implementations of tests/impls/ (hostile_plugin.c, hostile_impl.py), for
# modes fork, fork_sleep, daemon, huge_record, garbage and escape: lctx exits
# normally (0 or 1, never a signal), report.json and every results.jsonl
# line parse, only the three marked cases are marked crash, the
# implementation's output goes to implementation.log and not to lctx's, no
# process of the implementation is left after the run (a double-forked
# daemon in a session of its own included), and lctx's peak
# resident memory stays under 256 MB with a peer that claims a 1 GB record
# or writes a 100 MB line, or returns valid 1 MiB modules for every lowering
# (measured by a python3 wrapper through
# getrusage(RUSAGE_CHILDREN), with ASan's quarantine held to 16 MB).
# A program that writes half an answer line, or closes its stdin and runs
# on, costs only its cases the timeout (not the timeout times the batch,
# which ran past 60 s before each request had its own deadline). Under a
# terminal (script(1)'s pty), what a plugin or program writes to its
# descriptor 0 and to /dev/tty (ESC sequences, a forged "result: PASS"
# line) never reaches it.
# Usage: test_hostile_impl.sh LCTX HOSTILE_PLUGIN SOURCE_DIR
set -u
. "$(dirname -- "$0")/lib.sh"
take_args LCTX PLUGIN SRC -- "$@"

# Three marked cases and four plain ones; a unique copy of the plugin and a
# unique word in the program's argv find their processes afterwards.
hostile_cases "$tmp/cases"
word="hostile-$$-$(date +%s)"
cp "$PLUGIN" "$tmp/lib$word.so"

# run NAME MODE --impl|--cmd ...: lctx conform under the wrapper, with
# $random random cases and the cases of $cases (lctx refuses an option
# given twice); writes NAME.rc and NAME.rss (peak KB of lctx and what it
# waited for).
random=200
cases=$tmp/cases
run() {
  name=$1
  mode=$2
  shift 2
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16" \
    LCTX_HOSTILE=$mode "$PY" -c '
import resource, subprocess, sys
rc = subprocess.call(sys.argv[2:], stdout=open(sys.argv[1] + ".out", "w"),
                     stderr=subprocess.STDOUT)
open(sys.argv[1] + ".rc", "w").write("%d\n" % rc)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
open(sys.argv[1] + ".rss", "w").write("%d\n" % rss)' "$tmp/$name" \
    "$LCTX" conform --report-dir "$tmp/$name" --quiet --no-domain \
    --random "$random" --cases "$cases" --timeout 1 "$@"
}
crashes() {
  "$PY" -c 'import json,sys
r=json.load(open(sys.argv[1]+"/report.json"))
for line in open(sys.argv[1]+"/results.jsonl"): json.loads(line)
print(sum(x["crash"] for x in r["rows"]))' "$tmp/$1" 2>&1
}
# check NAME CRASHES: the run ended well, with CRASHES cases marked crash.
check() {
  rc=$(cat "$tmp/$1.rc")
  [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "$1: exit $rc: $(tail -3 "$tmp/$1.out")"
  got=$(crashes "$1")
  [ "$got" = "$2" ] || fail "$1: crash count $got, want $2"
  grep -q hostile-print "$tmp/$1.out" && fail "$1: the implementation's output reached lctx's"
  none_left "$1"
}

for mode in fork fork_sleep daemon escape; do
  run "plugin-$mode" $mode --impl "$tmp/lib$word.so"
  check "plugin-$mode" 0
  run "program-$mode" $mode --cmd "$PY $SRC/tests/impls/hostile_impl.py $word"
  [ $mode = fork ] || check "program-$mode" 0
done
# A forking program may answer twice: each answer is checked, but which
# innocent case meets a duplicate first is a race; only the end is pinned.
rc=$(cat "$tmp/program-fork.rc")
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "program-fork: exit $rc"
# A clean terminal: the escape mode's ESC, BEL, C1 bytes and forged
# "result: PASS" line reach lctx's output only as \xNN text.
for name in plugin-escape program-escape; do
  "$PY" -c 'import re,sys
b=open(sys.argv[1],"rb").read()
assert not re.search(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", b), "raw control byte"
assert not re.search(rb"(^|\n)result: PASS", b), "forged PASS line"
assert re.search(rb"\nresult: FAIL\n", b), "no FAIL line"
assert b"\\x1b" in b, "the escaped form is missing"' "$tmp/$name.out" ||
    fail "$name: the terminal output is not clean"
done
grep -q hostile-print "$tmp/plugin-escape/implementation.log" ||
  fail "the plugin's output is not in implementation.log"
grep -q hostile-print "$tmp/program-escape/implementation.log" ||
  fail "the program's stderr is not in implementation.log"

for mode in huge_record garbage; do
  run "plugin-$mode" $mode --impl "$tmp/lib$word.so"
  check "plugin-$mode" 3
done
run program-huge_record huge_record --cmd "$PY $SRC/tests/impls/hostile_impl.py $word"
check program-huge_record 3
# Half an answer line and then silence, and a closed stdin: each marked
# case is lost within the timeout (and once more alone), the rest of the
# batch goes on in a fresh program, and the whole run takes seconds, far
# under 1 s x the batch of 139 cases (before: killed at 60 s).
for mode in half_line close_stdin; do
  start=$(date +%s)
  LCTX_HOSTILE=$mode timeout -s KILL 60 "$LCTX" conform --quiet --no-domain \
    --report-dir "$tmp/program-$mode" --random 200 --cases "$tmp/cases" \
    --timeout 1 --cmd "$PY $SRC/tests/impls/hostile_impl.py $word" \
    >"$tmp/program-$mode.out" 2>&1
  rc=$?
  secs=$(($(date +%s) - start))
  [ "$rc" = 1 ] ||
    fail "program-$mode: exit $rc after $secs s: $(tail -3 "$tmp/program-$mode.out")"
  [ "$secs" -le 40 ] || fail "program-$mode: took $secs s, want <= 40"
  case $mode in
  half_line) want='"verdict":"timeout","detail":"no answer within 1.0 s (hang)"' ;;
  close_stdin) want='"verdict":"crash","detail":"the program closed its stdin and ran on' ;;
  esac
  n=$(grep -cF "$want" "$tmp/program-$mode/results.jsonl" 2>/dev/null)
  [ "$n" = 3 ] || fail "program-$mode: $n cases with '$want', want the 3 marked"
  none_left "program-$mode"
done

# A terminal: lctx under script(1), which gives it a pty as its stdin,
# stdout, stderr and controlling terminal. The tty mode writes ESC [2J,
# ESC ]0;title BEL and "result: PASS" to its descriptor 0 and to /dev/tty:
# the pty must show no ESC byte and only lctx's own result line (before
# peers had a session of their own and /dev/null as stdin, the plugin's
# text came through 6 times and the program's once).
command -v script >/dev/null 2>&1 || fail "script (util-linux) is missing"
for kind in plugin program; do
  case $kind in
  plugin) impl="--impl '$tmp/lib$word.so'" ;;
  program) impl="--cmd '$PY $SRC/tests/impls/hostile_impl.py $word'" ;;
  esac
  LCTX_HOSTILE=tty script -qec "'$LCTX' conform --quiet --no-domain \
    --report-dir '$tmp/tty-$kind' --random 20 --cases '$tmp/cases' \
    --timeout 1 $impl" /dev/null </dev/null >"$tmp/tty-$kind.out" 2>&1
  rc=$?
  [ "$rc" = 0 ] || fail "tty-$kind: exit $rc: $(tail -3 "$tmp/tty-$kind.out")"
  "$PY" -c 'import re,sys
b=open(sys.argv[1],"rb").read()
assert b"\x1b" not in b, "raw ESC on the terminal"
lines=re.findall(rb"(?:^|\n)result: [A-Z]+", b)
assert len(lines) == 1, "result lines on the terminal: %r" % lines' \
    "$tmp/tty-$kind.out" || fail "tty-$kind: the terminal was written to"
done

# Valid modules of 1 MiB for every lowering: lctx judges them in parts, so
# its memory stays bounded (LCTX_IMPL_MODULE_BUDGET), and they pass.
random=3000
run plugin-big_mlir big_mlir --impl "$tmp/lib$word.so"
random=200
check plugin-big_mlir 0
[ "$(cat "$tmp/plugin-big_mlir.rc")" = 0 ] ||
  fail "plugin-big_mlir: exit $(cat "$tmp/plugin-big_mlir.rc"): $(tail -3 "$tmp/plugin-big_mlir.out")"
"$PY" -c 'import json,sys
assert json.load(open(sys.argv[1]))["modules_judged"] >= 100' \
  "$tmp/plugin-big_mlir/report.json" || fail "plugin-big_mlir: too few modules judged (fewer than 100)"
for name in plugin-huge_record program-huge_record plugin-big_mlir; do
  [ "$(cat "$tmp/$name.rss")" -lt 262144 ] ||
    fail "$name: peak resident memory $(cat "$tmp/$name.rss") KB, want < 256 MB"
done
grep -q "over the limit of 8191" "$tmp/plugin-huge_record/results.jsonl" ||
  fail "plugin-huge_record: the claimed size is not named"
grep -q "longer than 4194304 bytes" "$tmp/program-huge_record/results.jsonl" ||
  fail "program-huge_record: the line limit is not named"

# Accumulated state: a worker that dies on its 40th session. The case in
# flight passes alone: flaky, naming the state, never a crash.
LCTX_HOSTILE_N=40 run plugin-die_after die_after --impl "$tmp/lib$word.so"
check plugin-die_after 0
flaky=$(report_field "$tmp/plugin-die_after" "*" flaky)
[ "$flaky" -ge 4 ] || fail "plugin-die_after: $flaky flaky, want >= 4"
grep -q '"verdict":"flaky","detail":"[^"]*after 39 cases in one worker' \
  "$tmp/plugin-die_after/results.jsonl" ||
  fail "plugin-die_after: the flaky detail does not name the state"
grep -q '^result: FAIL' "$tmp/plugin-die_after.out" ||
  fail "plugin-die_after: a flaky run is not a failure"

# A leaking plugin is recycled under --memory-limit, blaming no case.
run plugin-leak leak --impl "$tmp/lib$word.so" --memory-limit 96
check plugin-leak 0
[ "$(cat "$tmp/plugin-leak.rc")" = 0 ] || fail "plugin-leak: exit $(cat "$tmp/plugin-leak.rc")"
"$PY" -c 'import json,sys
assert json.load(open(sys.argv[1]))["recycles"] >= 1' \
  "$tmp/plugin-leak/report.json" || fail "plugin-leak: the worker was not recycled"

# Modules nested 30000 deep from a plugin fail IR-000; lctx stays up.
cases=$SRC/conformance/cases
run plugin-nested nested_mlir --impl "$tmp/lib$word.so"
cases=$tmp/cases
check plugin-nested 0
"$PY" -c 'import json,sys
r=json.load(open(sys.argv[1]))
ir0=[x for x in r["rows"] if x["id"]=="IR-000"][0]
assert ir0["fail"] >= 10 and r["judge_kills"] == 0, (ir0, r["judge_kills"])' \
  "$tmp/plugin-nested/report.json" || fail "plugin-nested: IR-000 fails missing"
grep -q 'nests brackets deeper than 256 levels' \
  "$tmp/plugin-nested/results.jsonl" || fail "plugin-nested: the depth is not named"

finish_failures "test_hostile_impl: "
echo "test_hostile_impl: all checks hold"
