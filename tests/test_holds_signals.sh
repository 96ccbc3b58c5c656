#!/bin/sh
# test_holds_signals.sh - what a child can do to lctx itself, for `lctx
# conform` (a program over the process protocol) and `lctx sweep` (a fake
# exporter), with tests/impls/attack_signal.py, which on its 3rd case sends
# a signal to the lctx that runs it (found as its parent or through /proc):
#   1. every signal that ends a process by default and can be caught
#      (SIGHUP, SIGUSR1, ..., a fault signal sent with kill, a real-time
#      one) is a clean stop: exit 1, "result: INTERRUPTED", the signal
#      named in the summary and in report.json ("stopped_by"), report.json
#      whole (before: lctx died of the signal, no summary, no report);
#      SIGPIPE is ignored: the run ends as it would have;
#   2. SIGSTOP, SIGTSTP, SIGTTIN and SIGTTOU (the turn-2 attack: a worker
#      stops its parent) do not hold the run: it completes, and the summary
#      and report.json ("lctx_stops_continued") say lctx was stopped and
#      continued (before: lctx stayed stopped until killed);
#   3. SIGKILL of lctx mid-run leaves none of the daemons its
#      implementation started (before: every one outlived lctx), nor a
#      private working directory of its peers;
#   4. processes left behind (hostile_plugin's daemon mode) are counted in
#      report.json ("processes_left_behind_killed" >= 1) and the summary
#      where they share lctx's PID namespace; a clean run counts 0 and says
#      nothing.
#   5. with LCTX_ISOLATION=none (as on a machine without namespaces) the
#      attacks reach lctx from inside: a SIGSTOP is undone by the guard, a
#      SIGUSR1 is a clean stop; sections 3 and 4 run that way too (the
#      daemons are then lctx's to kill, and the guard's after SIGKILL).
# Where the implementation cannot reach lctx (a PID namespace of its own:
# the attack finds no lctx and says "unreachable"), the test sends the same
# signal to lctx itself, from outside, at the same point of the run: what
# lctx does with it is judged either way.
# Usage: test_holds_signals.sh LCTX HOSTILE_PLUGIN SOURCE_DIR
set -u
LCTX=$1
PLUGIN=$2
SRC=$3
. "$(dirname -- "$0")/lib.sh"
ATTACK="$PY $SRC/tests/impls/attack_signal.py"
none=$tmp/no-known # no known defects
mkdir "$none"
# The attack finds lctx by its program's name (attack_signal.py compares
# the base names of argv[0]): given the name, not the path, so that the
# sweep's identity of the run does not hash the 13 MB sanitized lctx, a
# file its command would otherwise name, at each of its 27 runs.
LCTX_NAME=$(basename -- "$LCTX")

# attack MODE SIGNAL: lctx MODE (conform or sweep) against the attack; the
# output in $tmp/MODE-SIGNAL.out, the exit code in $rc, what the attack did
# in $sent ("sent PID", or "unreachable": then this test, outside the
# implementation's namespace, sent the same signal to lctx mid-run itself,
# so that lctx's handling is judged wherever the attack cannot reach it).
attack() {
  dir=$tmp/$1-$2
  rm -rf "$dir" "$dir.sent" "$dir.sent.go"
  case $1 in
  conform)
    "$LCTX" conform --no-domain --random 30 --quiet \
      --cmd "$ATTACK $2 $LCTX_NAME $dir $dir.sent" --report-dir "$dir" \
      >"$dir.out" 2>&1 &
    ;;
  sweep)
    "$LCTX" sweep --known "$none" --lists 3 --quiet \
      --cmd "$ATTACK $2 $LCTX_NAME $dir $dir.sent --sweep --only-kind good" \
      --out "$dir" >"$dir.out" 2>&1 &
    ;;
  esac
  pid=$!
  # A watchdog that holds none of the test's output (ctest waits for
  # every process that does) and is ended with its sleep.
  (
    exec >/dev/null 2>&1 </dev/null
    sleep 120
    kill -KILL $pid
  ) &
  dog=$!
  n=0
  while [ ! -s "$dir.sent" ] && kill -0 $pid 2>/dev/null && [ $n -lt 1200 ]; do
    sleep 0.05
    n=$((n + 1))
  done
  if [ "$(cat "$dir.sent" 2>/dev/null)" = unreachable ]; then
    "$PY" -c 'import os, signal, sys
os.kill(int(sys.argv[1]), getattr(signal, "SIG" + sys.argv[2]))' $pid "$2"
  fi
  : >"$dir.sent.go"
  wait $pid
  rc=$?
  kill $(cat /proc/$dog/task/$dog/children 2>/dev/null) $dog 2>/dev/null
  wait $dog 2>/dev/null
  sent=$(cat "$dir.sent" 2>/dev/null || echo "not attacked")
}

# report MODE-SIGNAL KEY: a top-level field of its report.json ("broken"
# when it does not parse).
report() {
  "$PY" -c 'import json,sys
print(json.load(open(sys.argv[1] + "/report.json")).get(sys.argv[2]))' \
    "$tmp/$1" "$2" 2>/dev/null || echo broken
}

# normal NAME: the run ended as without the attack: exit 0, PASS.
normal() {
  [ "$rc" = 0 ] || fail "$1: exit $rc, want 0: $(tail -3 "$tmp/$1.out")"
  grep -q 'PASS' "$tmp/$1.out" || fail "$1: no PASS: $(tail -1 "$tmp/$1.out")"
  [ "$(report "$1" interrupted)" = False ] ||
    fail "$1: report.json missing or interrupted"
}

# 1. Signals that ask lctx to stop.
for mode in conform sweep; do
  for sig in HUP INT QUIT USR1 USR2 ALRM TERM VTALRM PROF XCPU XFSZ PWR IO \
    SEGV BUS FPE ILL ABRT TRAP SYS RTMIN RTMAX PIPE; do
    attack $mode $sig
    name=$mode-$sig
    case $sent in
    sent* | unreachable) ;;
    *) fail "$name: the attack did not run (rc $rc): $(tail -3 "$tmp/$name.out")" ;;
    esac
    if [ $sig = PIPE ]; then
      normal "$name"
      continue
    fi
    [ "$rc" = 1 ] || fail "$name: exit $rc, want 1 (a clean stop)"
    grep -q 'INTERRUPTED' "$tmp/$name.out" ||
      fail "$name: the summary does not say the run was stopped"
    grep -q "^stopped by SIG$sig" "$tmp/$name.out" ||
      fail "$name: the summary does not name SIG$sig"
    [ "$(report "$name" interrupted)" = True ] ||
      fail "$name: report.json missing, broken or not interrupted"
    [ "$(report "$name" stopped_by)" = "SIG$sig" ] ||
      fail "$name: report.json's stopped_by is $(report "$name" stopped_by)"
  done
done

# 2. Stops: the run completes, the stop is said.
for mode in conform sweep; do
  for sig in STOP TSTP TTIN TTOU; do
    attack $mode $sig
    name=$mode-$sig
    normal "$name"
    # SIGTSTP, SIGTTIN and SIGTTOU are discarded by the kernel for a
    # process of an orphaned process group (as under make and ctest): only
    # SIGSTOP always stops lctx; the others, when they did, are said too.
    case $sent in
    sent* | unreachable)
      said=$(report "$name" lctx_stops_continued)
      if [ $sig = STOP ] || [ "$said" != 0 ]; then
        grep -q '^lctx was stopped 1 time by a signal from outside and continued' \
          "$tmp/$name.out" || fail "$name: the stop is not said"
        [ "$said" = 1 ] || fail "$name: lctx_stops_continued is $said"
      fi
      ;;
    *) fail "$name: the attack did not run" ;;
    esac
  done
done

mkdir "$tmp/cases"
for i in 1 2 3; do
  printf 'lctx-case 1\nfactory "cpu" priority=0 loud client\njax_platform_name "HOSTILE"\nnvidia_gpu hidden\nop get_backend "tpu"\n' \
    >"$tmp/cases/$i.case"
done

# 3. SIGKILL of lctx: the daemons its implementation started die too, and
# no private working directory of its peers is left in $TMPDIR. They
# are forks of lctx's worker: their command line is lctx's, which names
# $tmp/killed (zombies have none). Whether the daemons' pids (as the plugin
# sees them) are this machine's says whether the plugin ran in a PID
# namespace of its own.
left() { # left WORD: processes whose command line holds WORD
  for f in /proc/[0-9]*/cmdline; do
    { tr '\0' ' ' <"$f"; } 2>/dev/null | grep -q -- "$1" &&
      echo "${f%/cmdline}"
  done
}

# killed_and_counted SUFFIX: sections 3 and 4, with the isolation of the
# environment (SUFFIX names the folders).
killed_and_counted() {
  k=$tmp/killed$1
  mkdir "$tmp/peertmp$1"
  rm -f "$tmp/pids$1"
  TMPDIR=$tmp/peertmp$1 LCTX_HOSTILE_PIDS=$tmp/pids$1 LCTX_HOSTILE=daemon \
    "$LCTX" conform --impl "$PLUGIN" --random 100000000 --cases "$tmp/cases" \
    --quiet --report-dir "$k" >"$k.out" 2>&1 &
  pid=$!
  n=0
  while [ "$(cat "$tmp/pids$1" 2>/dev/null | wc -l)" -lt 3 ] && [ $n -lt 300 ]; do
    sleep 0.1
    n=$((n + 1))
  done
  [ "$(cat "$tmp/pids$1" 2>/dev/null | wc -l)" -ge 3 ] ||
    fail "killed$1: no daemon was started"
  visible=no
  for p in $(cat "$tmp/pids$1" 2>/dev/null); do
    { tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | grep -q -- "$k" &&
      visible=yes
  done
  sleep 0.5 # the guard notes them
  kill -KILL $pid
  wait $pid 2>/dev/null
  n=0
  while [ -n "$(left "$k")" ] && [ $n -lt 150 ]; do
    sleep 0.1
    n=$((n + 1))
  done
  [ -z "$(left "$k")" ] || fail "killed$1: processes outlived lctx: $(left "$k")"
  # ...and the guard removes the private working directories of its peers.
  n=0
  while [ -n "$(ls "$tmp/peertmp$1")" ] && [ $n -lt 100 ]; do
    sleep 0.1
    n=$((n + 1))
  done
  [ -z "$(ls "$tmp/peertmp$1")" ] ||
    fail "killed$1: private working directories left: $(ls "$tmp/peertmp$1")"

  # 4. Left-behind processes counted (where the daemons share lctx's PID
  # namespace: it is they that lctx kills).
  LCTX_HOSTILE=daemon "$LCTX" conform --impl "$PLUGIN" --no-domain \
    --random 20 --cases "$tmp/cases" --quiet --report-dir "$tmp/daemon$1" \
    >"$tmp/daemon$1.out" 2>&1
  rc=$?
  [ "$rc" = 0 ] || fail "daemon$1: exit $rc"
  n=$(report "daemon$1" processes_left_behind_killed)
  case $n in
  [0-9]*) ;;
  *) fail "daemon$1: processes_left_behind_killed is $n" ;;
  esac
  if [ $visible = yes ]; then
    [ "$n" -ge 1 ] 2>/dev/null ||
      fail "daemon$1: processes_left_behind_killed is $n, want >= 1"
    grep -q '^processes left behind by children: [1-9]' "$tmp/daemon$1.out" ||
      fail "daemon$1: the summary does not say the processes left behind"
  fi
}
killed_and_counted ""
# The same where no namespace is made (LCTX_ISOLATION=none, as on a
# machine that allows none): the daemons are lctx's to kill, and the
# guard's after SIGKILL.
visible_isolated=$visible
LCTX_ISOLATION=none killed_and_counted -none
[ "$visible" = yes ] || fail "LCTX_ISOLATION=none: the daemons are not in lctx's namespace"
visible=$visible_isolated
[ "$(report conform-PIPE processes_left_behind_killed)" = 0 ] ||
  fail "a clean run: processes_left_behind_killed is not 0"
grep -q 'processes left behind\|lctx was stopped' "$tmp/conform-PIPE.out" &&
  fail "a clean run speaks of processes left behind or stops"

# 5. Where no namespace is made, the attacks reach lctx from inside: a stop
# is undone by the guard, a signal is a clean stop.
LCTX_ISOLATION=none attack conform STOP
[ "${sent%% *}" = sent ] || fail "LCTX_ISOLATION=none: the STOP attack did not reach lctx: $sent"
normal conform-STOP
grep -q '^lctx was stopped 1 time by a signal from outside and continued' \
  "$tmp/conform-STOP.out" || fail "LCTX_ISOLATION=none, STOP: the stop is not said"
LCTX_ISOLATION=none attack sweep USR1
[ "${sent%% *}" = sent ] || fail "LCTX_ISOLATION=none: the USR1 attack did not reach lctx: $sent"
[ "$rc" = 1 ] && grep -q '^stopped by SIGUSR1' "$tmp/sweep-USR1.out" ||
  fail "LCTX_ISOLATION=none, USR1: exit $rc, $(tail -n 2 "$tmp/sweep-USR1.out")"

reached=$(cat "$tmp"/*.sent 2>/dev/null | grep -c '^sent')
unreachable=$(cat "$tmp"/*.sent 2>/dev/null | grep -c '^unreachable')
echo "test_holds_signals: $reached attacks reached lctx, $unreachable could not" \
  "(a PID namespace of the implementation's own); daemons visible: $visible"
finish_failures "test_holds_signals: "
echo "test_holds_signals: all checks hold"
