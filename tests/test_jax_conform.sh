#!/bin/sh
# Real JAX judged by the spec table: `lctx conform` drives the JAX adapter
# (conformance/adapters/jax_adapter.py) on the pinned JAX installed by
# tools/setup-jax.sh. Two runs:
#   1. every conformance case and 10,000 random cases (every row must be
#      judged: backend selection, register_lowering, lower_per_platform and
#      the IR rows on the modules JAX emits);
#   2. one share of the exhaustive check-spec domain (--shard, below).
# Both must pass with 0 fail and 0 unsupported operations. `make
# conform-jax` runs the whole domain.
#
#   test_jax_conform.sh LCTX PYTHON SOURCE_DIR [SHARD]
#
# Exit 77 (skipped) only when LCTX_JAX=off; a missing JAX is a failure.
set -u
LCTX=$1
PY=$2
SRC=$3
SHARD=${4:-1/10}

. "$(dirname -- "$0")/lib.sh"
jax_skip_if_off
if ! "$PY" -c 'import jax' >/dev/null 2>&1; then
  echo "FAIL: $PY cannot import jax; run 'make test' (or" \
       "'sh tools/setup-jax.sh 0.10.2') to install the pinned JAX" >&2
  exit 1
fi

OUT=$tmp
ADAPTER="$PY $SRC/conformance/adapters/jax_adapter.py"
status=0

# Checks one run's report.json: 0 fail/xpass/crash/timeout/unsupported and,
# with --every-row, every spec row judged at least once.
check() {
  python3 - "$@" <<'PYEOF'
import json, sys
path = sys.argv[1]
every = "--every-row" in sys.argv[2:]
report = json.load(open(path))
bad, unjudged = [], []
for row in report["rows"]:
    for k in ("fail", "xpass", "crash", "timeout", "unsupported", "flaky"):
        if row.get(k):
            bad.append("%s: %d %s" % (row["id"], row[k], k))
    if sum(row.get(k, 0) for k in ("pass", "fail", "xfail", "xpass",
                                   "crash", "timeout", "flaky")) == 0:
        unjudged.append(row["id"])
if not report.get("cases_run"):
    bad.append("no case was judged")
if report.get("cases_unsupported"):
    bad.append("%d unsupported cases" % report["cases_unsupported"])
if bad:
    print("FAIL: " + "; ".join(bad))
    sys.exit(1)
if every and unjudged:
    print("FAIL: rows never judged: " + ", ".join(unjudged))
    sys.exit(1)
print("ok: %s, %d cases, %s" % (report["implementation_version"],
                                report["cases_run"],
                                "every row judged" if every else
                                "%d rows judged" % (len(report["rows"]) -
                                                    len(unjudged))))
PYEOF
}

run() {
  name=$1
  shift
  echo "== $name: lctx conform $*"
  if ! "$LCTX" conform --cmd "$ADAPTER" --quiet --report-dir "$OUT/$name" \
      "$@" >"$OUT/$name.log" 2>&1; then
    cat "$OUT/$name.log"
    echo "FAIL: lctx conform ($name) did not pass"
    status=1
    return
  fi
  tail -4 "$OUT/$name.log"
}

run cases-random --no-domain --random 10000
[ -f "$OUT/cases-random/report.json" ] &&
  { check "$OUT/cases-random/report.json" --every-row || status=1; }
run domain-share --random 0 --shard "$SHARD"
[ -f "$OUT/domain-share/report.json" ] &&
  { check "$OUT/domain-share/report.json" || status=1; }

[ $status -eq 0 ] && echo "PASS: real JAX agrees with the spec table"
exit $status
