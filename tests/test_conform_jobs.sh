#!/bin/sh
# test_conform_jobs.sh - pins `lctx conform --jobs N`: the reports of a run
# with several jobs are those of one job, byte for byte, apart from times,
# the run id and the restart count (how many workers or programs were
# started depends on how the cases fell on them; every verdict does not):
# report.json, report.tap, report.junit.xml, results.jsonl and the text
# printed, compared with --jobs 1 for
#   - the example C plugin on a share of the domain and on random cases;
#   - the example Python program (batched, and a process per case);
#   - a mutant of the example (fail verdicts, first verdicts, rerun lines,
#     --keep-failures cutting results.jsonl) in small batches;
#   - the misbehaving plugin and program (crash, timeout, the reruns alone);
#   - the hostile plugin (garbage, huge records): only its three marked
#     cases are marked crash under --jobs 2, never another job's case;
# and --jobs 0, x, 65 or given twice is a usage error (exit 2, named).
# Usage: test_conform_jobs.sh LCTX EXAMPLE_PLUGIN MUTANT_PLUGIN
#        MISBEHAVING_PLUGIN HOSTILE_PLUGIN SOURCE_DIR
set -u
. "$(dirname -- "$0")/lib.sh"
take_args LCTX EXAMPLE MUTANT BAD HOSTILE SRC -- "$@"
mkdir "$tmp/nocases"

# run NAME JOBS ARGS...: lctx conform --jobs JOBS in $tmp/NAME-JOBS (the
# report folder "rep" there, so that rerun lines name the same folder);
# the exit code in NAME-JOBS/rc, the text in NAME-JOBS/out.
run() {
  name=$1
  jobs=$2
  shift 2
  mkdir -p "$tmp/$name-$jobs"
  (cd "$tmp/$name-$jobs" && "$LCTX" conform --jobs "$jobs" --report-dir rep \
    "$@" >out 2>&1
  echo $? >rc)
}

# same NAME JOBS...: every run NAME-JOBS has the exit code, files and text
# of NAME-1, apart from times, the run id, the restart count and the
# folder it was started in (its rerun lines cd there).
same() {
  name=$1
  shift
  for jobs in "$@"; do
    "$PY" - "$tmp/$name-1" "$tmp/$name-$jobs" <<'PYEOF' ||
import os, re, sys
def norm(run, name):
    t = open(run + "/" + name, "rb").read().decode("utf-8", "surrogateescape")
    t = t.replace(run, "RUN")  # the folder the run was started in (rerun lines)
    t = re.sub(r'"run_id": ?"[^"]*"', '"run_id":_', t)
    t = re.sub(r'"(seconds|first_failure_seconds|peak_memory_mb|restarts)": '
               r'?[0-9.e+-]+', r'"\1":_', t)
    t = re.sub(r'time="[0-9.]+"', 'time=_', t)
    t = re.sub(r'(restarts|seconds)=[0-9.]+', r'\1=_', t)
    t = re.sub(r'in [0-9.]+ s, [0-9]+ restarts', 'in _ s, _ restarts', t)
    t = re.sub(r'after [0-9.]+ s', 'after _ s', t)
    return t
a, b = sys.argv[1], sys.argv[2]
files = ["rc", "out"] + ["rep/" + f for f in sorted(os.listdir(a + "/rep"))
                         if f.endswith((".json", ".jsonl", ".tap", ".xml"))]
bad = [f for f in files
       if not os.path.exists(b + "/" + f) or norm(a, f) != norm(b, f)]
for f in bad:
    print("differs: %s" % f)
    x, y = norm(a, f).splitlines(), norm(b, f).splitlines() \
        if os.path.exists(b + "/" + f) else []
    for i, (l, m) in enumerate(zip(x, y)):
        if l != m:
            print("  line %d:\n  < %s\n  > %s" % (i + 1, l[:300], m[:300]))
            break
sys.exit(1 if bad or len(files) < 6 else 0)
PYEOF
      fail "$name: --jobs $jobs differs from --jobs 1"
  done
}

# 1. The example plugin: a share of the domain with the conformance cases
# (batches of 64, so that every job has many), and random cases.
for j in 1 2 3; do
  run dom $j --impl "$EXAMPLE" --shard 3/40 --random 0 --batch 64
  run rnd $j --impl "$EXAMPLE" --cases "$tmp/nocases" --no-domain \
    --random 4000 --seed 7 --batch 50
done
[ "$(cat "$tmp/dom-1/rc")" = 0 ] || fail "dom: exit $(cat "$tmp/dom-1/rc")"
[ "$(report_field "$tmp/dom-1/rep" - cases_run)" -gt 20000 ] ||
  fail "dom: too few cases"
same dom 2 3
same rnd 2 3

# 2. The example Python program: batched, and a program per case.
example="$PY $SRC/conformance/examples/python/lctx_example.py"
for j in 1 2; do
  run py $j --cmd "$example" --no-domain --random 600 --seed 3 --batch 40
  run ppc $j --cmd "$example" --cases "$tmp/nocases" --no-domain \
    --random 12 --process-per-case
done
[ "$(report_field "$tmp/py-1/rep" '*' pass)" -gt 600 ] || fail "py: too few passes"
same py 2
same ppc 2

# 3. A mutant: fail verdicts, their first lines and rerun lines, and
# results.jsonl cut at 3 per row, from batches of 7 on three jobs.
for j in 1 2 3; do
  run mut $j --impl "$MUTANT" --shard 1/30 --random 2000 --batch 7 \
    --keep-failures 3
done
[ "$(cat "$tmp/mut-1/rc")" = 1 ] || fail "mut: exit $(cat "$tmp/mut-1/rc"), want 1"
[ "$(report_field "$tmp/mut-1/rep" '*' fail)" -gt 3 ] || fail "mut: no failures"
grep -q '"verdict":"fail"' "$tmp/mut-1/rep/results.jsonl" || fail "mut: no fail line"
same mut 2 3

# 4. The misbehaving plugin and program: crashes, hangs, garbage, reruns.
cases="$SRC/tests/conform_cases"
for j in 1 3; do
  run badp $j --impl "$BAD" --cases "$cases/plugin" --no-domain --random 40 \
    --timeout 1 --batch 2
  run badc $j --cmd "$PY $SRC/tests/impls/misbehaving_impl.py" \
    --cases "$cases/process" --no-domain --random 40 --timeout 1 --batch 2
done
[ "$(report_field "$tmp/badp-1/rep" '*' crash)" = 3 ] || fail "badp: crash != 3"
[ "$(report_field "$tmp/badc-1/rep" '*' crash)" = 4 ] || fail "badc: crash != 4"
same badp 3
same badc 3

# 5. A hostile plugin under two jobs blames only its three marked cases.
hostile_cases "$tmp/hcases"
for mode in garbage huge_record; do
  for j in 1 2; do
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16" \
      LCTX_HOSTILE=$mode run "h$mode" $j --impl "$HOSTILE" --cases "$tmp/hcases" \
      --no-domain --random 60 --timeout 1 --batch 2
  done
  got=$(report_field "$tmp/h$mode-2/rep" '*' crash)
  [ "$got" = 3 ] || fail "hostile $mode, --jobs 2: crash count $got, want 3"
  same "h$mode" 2
done

# 6. Bad --jobs values: exit 2, the option named.
for bad in 0 x 65 -1; do
  "$LCTX" conform --impl "$EXAMPLE" --jobs "$bad" --report-dir "$tmp/b" \
    >"$tmp/bad.out" 2>&1
  rc=$?
  [ $rc = 2 ] || fail "--jobs $bad: exit $rc, want 2"
  grep -q -- "--jobs" "$tmp/bad.out" || fail "--jobs $bad: the option is not named"
done
"$LCTX" conform --impl "$EXAMPLE" --jobs 2 --jobs 2 --report-dir "$tmp/b" \
  >"$tmp/bad.out" 2>&1
rc=$?
[ $rc = 2 ] || fail "--jobs twice: exit $rc, want 2"
grep -q -- "--jobs" "$tmp/bad.out" || fail "--jobs twice: the option is not named"
"$LCTX" help conform 2>&1 | grep -q -- "--jobs N" || fail "help conform lacks --jobs"

finish_failures "test_conform_jobs.sh: "
echo "test_conform_jobs.sh: ok"
