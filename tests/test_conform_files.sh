#!/bin/sh
# test_conform_files.sh - pins what `lctx conform` leaves in its report
# folder when a run does not end well, and what it counts:
#   - a rerun into a folder that holds a finished run's reports, killed
#     (SIGKILL) in the middle, never leaves a report.json (or report.tap)
#     beside a results.jsonl of another run: their seeds and run ids agree,
#     or report.json is gone; a run after it leaves a matching set again;
#   - a report that cannot be written (report.tap.tmp a link to /dev/full,
#     never written through) is said on a line of its own naming the file,
#     the summary has no `reports:` line, and the exit is 2;
#   - modules_judged counts the modules the MLIR judge gave a verdict on, and
#     a run whose judge could not start says how many were not judged and
#     is not a pass (exit 1, result INCOMPLETE, modules_unjudged):
#     0 when the judge could not start (too few file descriptors for its
#     pipes, found by lowering `ulimit -n` until the run just completes).
# Usage: test_conform_files.sh LCTX EXAMPLE_PLUGIN
set -u
LCTX=$1
EXAMPLE=$2
. "$(dirname -- "$0")/lib.sh"

# consistent DIR: exit 0 when report.json and report.tap, if there, are of
# the run whose results.jsonl is there (the same seed, the same run id).
consistent() {
  "$PY" - "$1" <<'PYEOF'
import json, os, re, sys
d = sys.argv[1]
if not os.path.exists(d + "/results.jsonl"):
    sys.exit(0)
with open(d + "/results.jsonl") as f:
    head = json.loads(f.readline())
bad = []
if os.path.exists(d + "/report.json"):
    r = json.load(open(d + "/report.json"))
    if r.get("seed") != head.get("seed"):
        bad.append("report.json has seed %s, results.jsonl %s"
                   % (r.get("seed"), head.get("seed")))
    if r.get("run_id") is None or r.get("run_id") != head.get("run_id"):
        bad.append("report.json is of run %s, results.jsonl of run %s"
                   % (r.get("run_id"), head.get("run_id")))
if os.path.exists(d + "/report.tap"):
    m = re.search(r"seed (\d+)", open(d + "/report.tap").read())
    if not m or int(m.group(1)) != head.get("seed"):
        bad.append("report.tap has seed %s, results.jsonl %s"
                   % (m and m.group(1), head.get("seed")))
if bad:
    print("; ".join(bad))
    sys.exit(1)
PYEOF
}

# 1. A rerun killed in the middle.
d="$tmp/killed"
"$LCTX" conform --impl "$EXAMPLE" --no-domain --random 200 --seed 1 \
  --report-dir "$d" >"$tmp/first.out" 2>&1
rc=$?
[ "$rc" = 0 ] || fail "the first run: exit $rc: $(tail -3 "$tmp/first.out")"
why=$(consistent "$d") || fail "the first run's reports: $why"
"$LCTX" conform --impl "$EXAMPLE" --no-domain --random 100000000 --seed 2 \
  --batch 1 --report-dir "$d" >"$tmp/second.out" 2>&1 &
pid=$!
started=no
for _ in $(seq 300); do
  if head -n 1 "$d/results.jsonl" 2>/dev/null | grep -q '"seed":2'; then
    started=yes
    break
  fi
  sleep 0.1
done
[ "$started" = yes ] || fail "the second run wrote no results.jsonl of its own"
sleep 1 # in the middle of its cases
kill -KILL "$pid"
wait "$pid" 2>/dev/null
why=$(consistent "$d") || fail "after SIGKILL of the rerun: $why"
ls "$d" >"$tmp/killed.ls"
# Its worker may outlive it a moment, holding the folder's lock.
for _ in $(seq 50); do
  "$LCTX" conform --impl "$EXAMPLE" --no-domain --random 50 --seed 3 \
    --report-dir "$d" >"$tmp/third.out" 2>&1
  rc=$?
  grep -q "in use by another run" "$tmp/third.out" || break
  sleep 0.2
done
[ "$rc" = 0 ] || fail "the run after the killed one: exit $rc: $(tail -3 "$tmp/third.out")"
[ -e "$d/report.json" ] || fail "the run after the killed one left no report.json"
why=$(consistent "$d") || fail "the run after the killed one: $why"

# 2. A report that cannot be written: said on its own line, no `reports:`.
mkdir -p "$tmp/full"
ln -s /dev/full "$tmp/full/report.tap.tmp"
"$LCTX" conform --impl "$EXAMPLE" --no-domain --random 20 \
  --report-dir "$tmp/full" >"$tmp/full.out" 2>"$tmp/full.err"
rc=$?
[ "$rc" = 2 ] || fail "full disk: exit $rc, want 2"
grep -qx "lctx conform: .*/full/report.tap.tmp: cannot write: a symbolic link, not followed .*" \
  "$tmp/full.err" || fail "full disk: no line naming report.tap: $(cat "$tmp/full.err")"
grep -q "^reports:" "$tmp/full.out" &&
  fail "full disk: the summary says the reports were written: $(grep '^reports:' "$tmp/full.out")"
grep -q "^result: ERROR" "$tmp/full.out" || fail "full disk: no ERROR result"
# The same, stdout and stderr in one file: the message is a line of its
# own, not spliced into the table.
mkdir -p "$tmp/full2"
ln -s /dev/full "$tmp/full2/report.tap.tmp"
"$LCTX" conform --impl "$EXAMPLE" --no-domain --random 20 \
  --report-dir "$tmp/full2" >"$tmp/full.all" 2>&1
grep -qx "lctx conform: .*/full2/report.tap.tmp: cannot write: a symbolic link, not followed .*" \
  "$tmp/full.all" || fail "full disk: the message is not a line of its own: $(grep -n 'cannot write' "$tmp/full.all")"

# 3. modules_judged when the MLIR judge cannot start.
found=no
for n in $(seq 6 40); do
  rm -rf "$tmp/fd"
  (
    ulimit -n "$n" || exit 3
    exec "$LCTX" conform --impl "$EXAMPLE" --no-domain --random 300 --quiet \
      --report-dir "$tmp/fd"
  ) >"$tmp/fd.out" 2>&1
  fd_rc=$?
  [ -e "$tmp/fd/report.json" ] || continue
  found=yes
  break
done
if [ "$found" = no ]; then
  fail "no file limit let the run complete: $(tail -3 "$tmp/fd.out")"
else
  ir=$("$PY" -c 'import json,sys
r=json.load(open(sys.argv[1]+"/report.json"))
print(sum(v for x in r["rows"] if x["id"].startswith("IR-")
          for k, v in x.items() if k in ("pass","fail","xfail","xpass")))' "$tmp/fd")
  judged=$(report_field "$tmp/fd" - modules_judged)
  # (judge.log is opened by lctx before the judge starts: whether the
  # judge started is what the summary says.)
  if [ "$ir" = 0 ] && ! grep -q "the MLIR judge could not start" "$tmp/fd.out"; then
    fail "at ulimit -n $n the judge ran and judged nothing"
  elif [ "$ir" = 0 ]; then
    [ "$judged" = 0 ] ||
      fail "the judge could not start (ulimit -n $n), yet modules_judged is $judged"
    # Modules no judge judged: never a pass.
    [ "$fd_rc" = 1 ] || fail "the judge could not start, yet the exit is $fd_rc"
    grep -q "^result: PASS" "$tmp/fd.out" &&
      fail "the judge could not start, yet the result is PASS"
    grep -q "^modules: [1-9][0-9]* not judged: the MLIR judge could not start" \
      "$tmp/fd.out" || fail "no line says the modules were not judged: $(tail -3 "$tmp/fd.out")"
    [ "$(report_field "$tmp/fd" - modules_unjudged)" -gt 0 ] ||
      fail "report.json's modules_unjudged is not counted"
  else
    fail "at the lowest file limit that completes (ulimit -n $n) the judge still started; no limit stops it alone"
  fi
fi
"$LCTX" conform --impl "$EXAMPLE" --no-domain --random 300 --quiet \
  --report-dir "$tmp/fdok" >"$tmp/fdok.out" 2>&1
[ "$(report_field "$tmp/fdok" - modules_judged)" -gt 0 ] ||
  fail "modules_judged is 0 with the judge running"

finish_failures "test_conform_files: "
echo "test_conform_files: a killed rerun, a full disk and a judge that cannot start leave true reports"
