#!/bin/sh
# bench_jax.sh - the real JAX (the pinned release in build/jax/venv-0.10.2)
# judged and swept with one job and with two, measured in one run,
# alternating (1 then 2, then 2 then 1, ...), each side's wall time summed
# over the rounds, start-up included:
#   - lctx conform through conformance/adapters/jax_adapter.py over CASES
#     random cases (seed 1, no domain, no case files, as JAX 0.10.2
#     behaves) with --jobs 1 and --jobs 2: cases per second of each and
#     their ratio;
#   - lctx sweep through conformance/adapters/jax_export.py over a small
#     fixed share of the catalogue (--subset ci --limit 48) with --jobs 1 and --jobs 2:
#     the ratio of their speeds, and whether both wrote the same results.
# A lctx whose conform has no --jobs gets no conform figures (said); the
# sweep figure still comes. LCTX_JAX=off or no installed JAX: said, exit 0,
# no figures.
#
# Usage: bench/bench_jax.sh [CASES] [ROUNDS]   (default 2000 and 2). Needs the
# release build (make build).
set -eu
. "$(dirname -- "$0")/lib.sh"
n=${1:-2000}
rounds=${2:-2}
bench_count bench_jax.sh CASES "$n"
bench_count bench_jax.sh ROUNDS "$rounds"
lctx="$top/build/release/harness/lctx"
jaxpy="$top/build/jax/venv-0.10.2/bin/python"
# same A B: the two results.jsonl files are the same apart from the run id
# (each run's own, in the header line).
same() {
  [ "$(sed 's/"run_id":"[^"]*"//' "$1")" = "$(sed 's/"run_id":"[^"]*"//' "$2")" ]
}
if [ "${LCTX_JAX:-}" = off ]; then
  echo "bench_jax.sh: LCTX_JAX=off: the real-JAX figures are left out"
  exit 0
fi
if [ ! -x "$jaxpy" ] || ! "$jaxpy" -c 'import jax' >/dev/null 2>&1; then
  echo "bench_jax.sh: no pinned JAX in build/jax/venv-0.10.2 (make jax): the real-JAX figures are left out"
  exit 0
fi
[ -x "$lctx" ] || {
  echo "bench_jax.sh: build first (make build)" >&2
  exit 2
}
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
work=$(mktemp -d "${TMPDIR:-/tmp}/lctx-bench-jax.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/nocases"
adapter="$jaxpy $top/conformance/adapters/jax_adapter.py"
exporter="$jaxpy $top/conformance/adapters/jax_export.py --lctx $lctx"

# timed NAME COMMAND...: runs COMMAND through bench/cpu_meter.py, which adds
# its wall seconds to $work/NAME.s and the CPU seconds of it and every
# process under it to $work/NAME.cpu ($work/NAME.scope says how they were
# counted: "cgroup" counts the adapters too, "reaped" does not)
timed() {
  name=$1
  shift
  "$py" "$top/bench/cpu_meter.py" "$work/$name" "$@" || {
    rc=$?
    [ "$rc" -eq 1 ] && [ "${name#sweep}" != "$name" ] || {
      echo "bench_jax.sh: $name failed (exit $rc):" >&2
      tail -5 "$work/$name.out" >&2
      exit 1
    }
  }
}

conform() { # conform JOBS ROUND
  rm -rf "$work/c$1"
  timed "conform$1" "$lctx" conform --cmd "$adapter" --jax 0.10.2 \
    --cases "$work/nocases" --no-domain --random "$n" --seed 1 --quiet \
    --jobs "$1" --report-dir "$work/c$1"
}

sweep() { # sweep JOBS
  rm -rf "$work/s$1"
  timed "sweep$1" "$lctx" sweep --cmd "$exporter" --subset ci --limit 48 --quiet \
    --no-minimize --jobs "$1" --out "$work/s$1"
}

has_jobs=yes
"$lctx" conform --jobs 1 --help >/dev/null 2>&1 || has_jobs=no
echo "==> bench_jax: $rounds rounds, alternating; conform: $n random cases (seed 1, --jax 0.10.2, no domain); sweep: --subset ci --limit 48"
r=0
while [ "$r" -lt "$rounds" ]; do
  if [ $((r % 2)) -eq 0 ]; then order="1 2"; else order="2 1"; fi
  for j in $order; do
    [ "$has_jobs" = yes ] && conform "$j"
    sweep "$j"
  done
  r=$((r + 1))
done

if [ "$has_jobs" = yes ]; then
  "$py" - "$work" "$n" "$rounds" <<'EOF'
import sys
work, n, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rate = {}
for j in (1, 2):
    s = float(open("%s/conform%d.s" % (work, j)).read())
    rate[j] = n * rounds / s
print("figure jax_adapter.cases_per_s.jobs1: %.0f" % rate[1])
print("figure jax_adapter.cases_per_s.jobs2: %.0f" % rate[2])
print("figure jax_adapter.jobs2_vs_jobs1: %.2f" % (rate[2] / rate[1]))
wall = {j: float(open("%s/conform%d.s" % (work, j)).read()) for j in (1, 2)}
cpu1 = float(open("%s/conform1.cpu" % work).read())
# --jobs 1 already keeps this many cores busy (lctx and its adapter), and
# the share of the ideal --jobs 2 reached: the CPU work of --jobs 1 spread
# over 2 cores, against --jobs 2's wall time (start-up included: each
# adapter imports JAX, which no job count shortens)
if open("%s/conform1.scope" % work).read() == "cgroup":
    print("figure jax_adapter.jobs1_cores_busy: %.2f" % (cpu1 / wall[1]))
    print("figure jax_adapter.jobs2_efficiency: %.2f" % (cpu1 / 2 / wall[2]))
else:
    # lctx kills an adapter's process group to stop it, so its CPU never
    # reaches getrusage: a figure built on it would read near 0
    print("jax_adapter: no control group for the CPU count (not root?): "
          "jobs1_cores_busy and jobs2_efficiency left out")
EOF
  if same "$work/c1/results.jsonl" "$work/c2/results.jsonl"; then
    echo "conform: results.jsonl the same at --jobs 1 and --jobs 2 (run id aside)"
  else
    echo "bench_jax.sh: note: conform's results.jsonl differs between --jobs 1 and --jobs 2"
  fi
else
  echo "bench_jax.sh: lctx conform has no --jobs; figures left out"
fi
"$py" - "$work" <<'EOF'
import sys
work = sys.argv[1]
s1, s2 = (float(open("%s/sweep%d.s" % (work, j)).read()) for j in (1, 2))
print("sweep: --jobs 1 %.1f s, --jobs 2 %.1f s (all rounds)" % (s1, s2))
print("figure jax_sweep.jobs2_vs_jobs1: %.2f" % (s1 / s2))
EOF
if same "$work/s1/results.jsonl" "$work/s2/results.jsonl"; then
  echo "sweep: results.jsonl the same at --jobs 1 and --jobs 2"
else
  echo "bench_jax.sh: note: sweep's results.jsonl differs between --jobs 1 and --jobs 2"
fi
