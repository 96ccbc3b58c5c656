#!/bin/sh
# test_holds_process.sh - pins that no implementation can make lctx wait,
# stop or lose a sibling, with the attacks of tests/impls/attack_plugin.c
# and attack_impl.py (LCTX_ATTACK) on the three cases whose
# jax_platform_name is HOSTILE, among random ones:
#   - a plugin that SIGKILLs every other child of its parent (the MLIR
#     judge, the other workers) and SIGSTOPs its parent: at --jobs 1 and 4
#     the run ends normally, marks nothing, and never blames a case for a
#     lost judge (before: innocent cases marked "the module killed the MLIR
#     judge", and lctx stopped until killed);
#   - a plugin, and a program through ctypes, whose grandchild leaves the
#     session and ptrace-attaches the worker, which then crashes: the run
#     ends within seconds with its reports and only those cases marked
#     (crash, or timeout when the crash stops it for its tracer) (before:
#     lctx's waitpid blocked as long as the tracer lived, 600 s);
#   - lctx SIGKILLed during a run whose program leaves daemons in sessions
#     of their own: no process of the implementation is left (before:
#     every daemon survived).
# These hold where implementations get a PID namespace (as root, or where
# user namespaces are allowed).
# Usage: test_holds_process.sh LCTX ATTACK_PLUGIN SOURCE_DIR
set -u
LCTX=$1
PLUGIN=$2
SRC=$3
. "$(dirname -- "$0")/lib.sh"

hostile_cases "$tmp/cases"
word="attack-$$-$(date +%s)"
cp "$PLUGIN" "$tmp/lib$word.so"
program="$PY $SRC/tests/impls/attack_impl.py $word"

# crashes NAME [timeout]: how many operations were marked crash (and
# timeout).
crashes() {
  "$PY" -c 'import json,sys
r=json.load(open(sys.argv[1]+"/report.json"))
print(sum(x["crash"] + (x["timeout"] if sys.argv[2:] else 0)
          for x in r["rows"]))' "$tmp/$1" "${2:-}" 2>&1
}

# run NAME MODE SECONDS ARGS...: lctx conform, killed after SECONDS (and
# continued first, should it be stopped); writes NAME.rc and NAME.secs.
run() {
  name=$1
  mode=$2
  limit=$3
  shift 3
  start=$(date +%s)
  LCTX_ATTACK=$mode "$LCTX" conform --report-dir "$tmp/$name" --quiet \
    --no-domain --cases "$tmp/cases" --timeout 2 "$@" \
    >"$tmp/$name.out" 2>&1 &
  pid=$!
  n=0
  while kill -0 $pid 2>/dev/null && [ $n -lt $((limit * 10)) ]; do
    sleep 0.1
    n=$((n + 1))
  done
  kill -CONT $pid 2>/dev/null
  kill -9 $pid 2>/dev/null
  wait $pid
  echo $? >"$tmp/$name.rc"
  echo $(($(date +%s) - start)) >"$tmp/$name.secs"
  echo "$name: rc $(cat "$tmp/$name.rc") in $(cat "$tmp/$name.secs") s"
}

for jobs in 1 4; do
  name=kill-jobs$jobs
  run $name kill 60 --random 2000 --jobs $jobs --impl "$tmp/lib$word.so"
  rc=$(cat "$tmp/$name.rc")
  [ "$rc" = 0 ] || fail "$name: exit $rc: $(tail -3 "$tmp/$name.out")"
  got=$(crashes $name)
  [ "$got" = 0 ] || fail "$name: crash count $got, want 0"
  grep -q "killed the MLIR judge" "$tmp/$name/results.jsonl" 2>/dev/null &&
    fail "$name: a case blamed for a lost judge"
  none_left $name
done

for kind in plugin program; do
  name=trace-$kind
  case $kind in
  plugin) run $name trace 60 --random 50 --impl "$tmp/lib$word.so" ;;
  program) run $name trace 60 --random 50 --cmd "$program" ;;
  esac
  rc=$(cat "$tmp/$name.rc")
  [ "$rc" = 1 ] || fail "$name: exit $rc: $(tail -3 "$tmp/$name.out")"
  [ "$(cat "$tmp/$name.secs")" -le 30 ] ||
    fail "$name: took $(cat "$tmp/$name.secs") s, want <= 30"
  [ -f "$tmp/$name/report.json" ] || fail "$name: no report.json"
  # A traced process that crashes stops for its tracer instead: crash or
  # timeout, each marked case once.
  got=$(crashes $name timeout)
  [ "$got" = 3 ] || fail "$name: crash and timeout count $got, want 3"
  none_left $name
done

# SIGKILL of lctx while the program's daemons live.
LCTX_ATTACK=daemon "$LCTX" conform --report-dir "$tmp/sigkill" --quiet \
  --no-domain --cases "$tmp/cases" --random 200000 --timeout 2 \
  --cmd "$program" >"$tmp/sigkill.out" 2>&1 &
pid=$!
n=0
while [ "$(left | wc -l)" -lt 2 ] && [ $n -lt 300 ]; do
  sleep 0.1
  n=$((n + 1))
done
[ "$(left | wc -l)" -ge 2 ] || fail "sigkill: no daemon was started"
kill -9 $pid
wait $pid 2>/dev/null
none_left sigkill

finish_failures "test_holds_process: "
