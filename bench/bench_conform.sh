#!/bin/sh
# bench_conform.sh - how fast implementations are judged by `lctx conform`,
# measured in one run: the example C plugin (forked worker, byte-form cases
# over a pipe), the example Python implementation over the process protocol
# with batching (256 cases per request), and the same program started afresh
# for every case. Prints cases per second of each and the ratios, which are
# the figures to compare across changes (absolute speeds on these machines
# are noisy).
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
run() {
  dir=$1
  shift
  "$lctx" conform --cases "$work/nocases" --no-domain --quiet \
    --report-dir "$work/$dir" "$@" >"$work/$dir.out" 2>&1 || {
    echo "bench_conform.sh: lctx conform failed:" >&2
    tail -5 "$work/$dir.out" >&2
    exit 1
  }
}
per=$((n / 100))
[ "$per" -ge 10 ] || per=10
echo "==> bench_conform: $n random cases (seed 1) per run; $per for one process per case"
run plugin --impl "$plugin" --random "$n"
run batched --cmd "$py $example" --random "$n"
run single --cmd "$py $example" --random "$per" --process-per-case
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
