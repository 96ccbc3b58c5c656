#!/bin/sh
# bench_conform.sh - how fast implementations are judged by `lctx conform`,
# measured in one run: the example C plugin (forked worker, byte-form cases
# over a pipe), the example Python implementation over the process protocol
# with batching (256 cases per request), and the same program started afresh
# for every case. Prints cases per second of each and the ratios, which are
# the figures to compare across changes (absolute speeds on these machines
# are noisy). Then --jobs 1 against --jobs 2 in one run, alternating
# (jobs1, jobs2, jobs1, ...; the best of 3 each): the plugin over the full
# domain, and the Python example over CASES random cases, as `figure
# NAME: VALUE` lines (conform_plugin.cases_per_s.jobs1, .jobs2,
# conform_plugin.jobs2_vs_jobs1, and the same for conform_protocol), with
# the cores --jobs 1 already keeps busy (CPU seconds of lctx and its
# children over the wall seconds: lctx, the worker and the judge run at
# once) and the efficiency of --jobs 2: the CPU seconds of --jobs 1 over
# twice the wall seconds of --jobs 2 (1 is the most 2 cores can give).
# These figures time the whole command (start-up and handshakes included).
#
# Usage: bench/bench_conform.sh [CASES]   (default 20000; the per-case run
# uses CASES/100). Needs the release build (make build).
set -eu
. "$(dirname -- "$0")/lib.sh"
n=${1:-20000}
bench_count bench_conform.sh CASES "$n"
lctx="$top/build/release/harness/lctx"
plugin="$top/build/release/conformance/examples/c_plugin/liblctx_example_plugin.so"
[ -x "$lctx" ] && [ -f "$plugin" ] || {
  echo "bench_conform.sh: build first (make build)" >&2
  exit 2
}
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
example="$top/conformance/examples/python/lctx_example.py"
work=$(mktemp -d "${TMPDIR:-/tmp}/lctx-bench-conform.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/nocases"

# rate DIR -> cases per second from the run's report.json
rate() {
  "$py" -c 'import json,sys
r=json.load(open(sys.argv[1]+"/report.json"))
print("%.0f" % (r["cases_run"]/max(r["seconds"],1e-9)))' "$1"
}
# run DIR ARGS...: lctx conform into $work/DIR, through bench/cpu_meter.py:
# the wall seconds in $work/DIR.s, the CPU seconds of lctx and every process
# under it (user + system) in $work/DIR.cpu, how they were counted in
# $work/DIR.scope, the output in $work/DIR.out.
run() {
  dir=$1
  shift
  # shellcheck disable=SC2086 # $nodomain: one word or none
  "$py" "$top/bench/cpu_meter.py" "$work/$dir" \
    "$lctx" conform --cases "$work/nocases" $nodomain --quiet \
    --report-dir "$work/$dir" "$@" || {
    echo "bench_conform.sh: lctx conform failed:" >&2
    tail -5 "$work/$dir.out" >&2
    exit 1
  }
}
nodomain=--no-domain
per=$((n / 100))
[ "$per" -ge 10 ] || per=10
echo "==> bench_conform: $n random cases (seed 1) per run; $per for one process per case"
run plugin --impl "$plugin" --random "$n" --jobs 1
run batched --cmd "$py $example" --random "$n" --jobs 1
run single --cmd "$py $example" --random "$per" --process-per-case --jobs 1
p=$(rate "$work/plugin")
b=$(rate "$work/batched")
s=$(rate "$work/single")
echo "C plugin (forked worker):             $p cases/s"
echo "process protocol, batched (256/req):  $b cases/s"
echo "process protocol, a process per case: $s cases/s"
"$py" -c 'import sys
p,b,s=map(float,sys.argv[1:])
print("ratio batched/per-case: %.1f" % (b/s))
print("ratio plugin/batched:   %.1f" % (p/b))' "$p" "$b" "$s"

# best NAME ARGS...: --jobs 1 and --jobs 2 alternating, three of each; prints
# the figures of the best rate of each.
best() {
  name=$1
  shift
  for round in 1 2 3; do
    for j in 1 2; do
      run "$name-$j-$round" --jobs "$j" "$@"
    done
  done
  "$py" -c 'import json, sys
work, name = sys.argv[1], sys.argv[2]
best = {}
for j in (1, 2):
    for r in (1, 2, 3):
        d = "%s/%s-%d-%d" % (work, name, j, r)
        rep = json.load(open(d + "/report.json"))
        cpu = float(open(d + ".cpu").read())
        wall = float(open(d + ".s").read())
        wall = max(wall, 1e-9)
        if j not in best or wall < best[j][0]:
            best[j] = (wall, cpu, rep["cases_run"])
(w1, c1, n1), (w2, c2, n2) = best[1], best[2]
print("figure %s.cases_per_s.jobs1: %.0f" % (name, n1 / w1))
print("figure %s.cases_per_s.jobs2: %.0f" % (name, n2 / w2))
print("figure %s.jobs2_vs_jobs1: %.2f" % (name, (n2 / w2) / (n1 / w1)))
if open("%s/%s-1-1.scope" % (work, name)).read() != "cgroup":
    # only reaped children counted: lctx kills a worker or peer to stop
    # it, so their CPU would be left out and the figures read too low
    print("%s: no control group for the CPU count (not root?): "
          "jobs1_cores_busy and jobs2_efficiency left out" % name)
    sys.exit(0)
# --jobs 1 already keeps this many cores busy (lctx, its worker and judge
# run at once), which bounds what --jobs 2 can add on 2 cores:
print("figure %s.jobs1_cores_busy: %.2f" % (name, c1 / w1))
# the share of the ideal: the CPU work of --jobs 1 spread over 2 cores
print("figure %s.jobs2_efficiency: %.2f" % (name, (c1 / 2) / w2))
' "$work" "$name"
}
echo "==> bench_conform: --jobs 1 against --jobs 2, alternating, best of 3"
nodomain= # the full domain
best conform_plugin --impl "$plugin" --random 0
nodomain=--no-domain
best conform_protocol --cmd "$py $example" --random "$n"
