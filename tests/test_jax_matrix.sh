#!/bin/sh
# test_jax_matrix.sh - the JAX drift matrix (tools/jax_matrix.py,
# tools/lctx_matrix/) reads what lctx says, never its own guess; no JAX
# needed (the example plugin stands in for the adapter):
#   - the spec rows come from `lctx export spec` (their operations, check
#     kind and `was` lines); a missing or unreadable spec table is an error
#     naming lctx's refusal, never an empty table;
#   - a version's runs laid out as the matrix lays them out (side_runs: the
#     cases and random cases, and a domain share) are merged by `lctx
#     report merge --runs`: the merged counts are the sums of the runs'
#     (cases, cases_run, cases_not_reached, every row's verdicts), its
#     result lctx's;
#   - a run lctx calls INCOMPLETE (modules no judge judged) shows as
#     "incomplete" in the matrix, never "pass", and the version summary
#     keeps modules_unjudged and the result;
#   - a truncated report.json is refused with lctx's words (its line and
#     column), and the version "could not run";
#   - no Python file of the matrix is over 800 lines, and none parses a
#     .lspec itself.
# Usage: test_jax_matrix.sh LCTX EXAMPLE_PLUGIN SOURCE_DIR
set -u
LCTX=$1
EXAMPLE=$2
SRC=$3
. "$(dirname -- "$0")/lib.sh"

for f in "$SRC"/tools/jax_matrix.py "$SRC"/tools/lctx_matrix/*.py; do
  n=$(wc -l <"$f")
  [ "$n" -le 800 ] || fail "$f: $n lines, over 800"
done
grep -n 'spec_rows\|\.lspec.*open\|open(.*lspec' "$SRC"/tools/jax_matrix.py \
  "$SRC"/tools/lctx_matrix/*.py && fail "the matrix reads a .lspec itself"

cd "$SRC/tools" || exit 2
"$PY" - "$LCTX" "$EXAMPLE" "$tmp" <<'PY' || fail "the matrix's checks failed"
import json
import os
import subprocess
import sys

import jax_matrix
from lctx_matrix import cli, lctx as bridge
from lctx_matrix.cells import build_matrix, version_summary

LCTX, EXAMPLE, TMP = sys.argv[1:4]
bad = []


def check(ok, what):
    if not ok:
        bad.append(what)
        print("FAIL: " + what)


# 1. The spec table as lctx exports it.
spec = bridge.export_spec(LCTX)
check(len(spec) > 20, "export_spec: %d rows" % len(spec))
check("get_backend" in spec.get("XG-001", {}).get("ops", set()),
      "XG-001 does not judge get_backend: %r" % spec.get("XG-001"))
check(spec.get("XG-008", {}).get("was") and all(
    len(w) == 3 and isinstance(w[0], tuple) for w in spec["XG-008"]["was"]),
      "XG-008 has no was lines: %r" % spec.get("XG-008"))
for missing in (os.path.join(TMP, "none.lspec"), TMP):
    try:
        bridge.export_spec(LCTX, missing)
        check(False, "a spec table %s was read without an error" % missing)
    except bridge.LctxError as e:
        check("status 2" in str(e) and "lctx" in str(e),
              "the refusal of %s does not give lctx's words: %s"
              % (missing, e))

# 2. A version's runs, laid out by the matrix, merged by lctx.
opts = {"conform": ["--random", "40"], "raw": [], "domain_shard": "3/4000",
        "time_limit": None}
main_dir = os.path.join(TMP, "0.0.1")
dirs = []
for label, rdir, args in jax_matrix.side_runs(opts, TMP, main_dir, []):
    os.makedirs(rdir, exist_ok=True)
    proc = subprocess.run([LCTX, "conform", "--impl", EXAMPLE,
                           "--report-dir", rdir, "--quiet"] + args,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    check(proc.returncode == 0, "%s: exit %d: %s" % (
        label, proc.returncode, proc.stdout[-400:]))
    dirs.append(rdir)
check(len(dirs) == 2, "side_runs gave %d runs, want 2" % len(dirs))
runs = [json.load(open(os.path.join(d, "report.json"))) for d in dirs]
report, result, why = jax_matrix.merge_runs(LCTX, dirs,
                                             os.path.join(main_dir, "merged"))
check(report is not None and result == "PASS",
      "merge_runs: %r %r" % (result, why))
if report is not None:
    for key in ("cases", "cases_run", "cases_skipped", "cases_not_reached",
                "cases_unsupported"):
        check(report[key] == sum(r[key] for r in runs),
              "merged %s %r, the runs' %r" % (key, report[key],
                                               [r[key] for r in runs]))
    check(report["cases"] > runs[0]["cases"] > 0, "the domain share added "
          "no cases: %r" % [r["cases"] for r in runs])
    for k, row in enumerate(report["rows"]):
        for v in jax_matrix.VERDICTS:
            want = sum(r["rows"][k][v] for r in runs)
            check(row[v] == want, "row %s %s: %d, the runs' sum %d"
                  % (row["id"], v, row[v], want))
    check(report.get("result") == "PASS", "report.json's result: %r"
          % report.get("result"))

# 3. A run lctx calls INCOMPLETE is never a pass.
path = os.path.join(dirs[1], "report.json")
forged = json.load(open(path))
forged["modules_unjudged"] = 1
json.dump(forged, open(path, "w"))
r = {"version": "0.0.1", "report_dir": main_dir}
refused = cli.judge(LCTX, r, {"release": dirs, "modelled": []}, False, opts)
check(refused is None, "judge refused: %r" % refused)
check(r.get("result") == "INCOMPLETE" and r.get("status") == "incomplete",
      "a run with modules no judge judged: result %r, status %r (want "
      "INCOMPLETE, incomplete)" % (r.get("result"), r.get("status")))
rows, matrix_rows = build_matrix([r], spec)
summary = version_summary(r, matrix_rows)
check(summary.get("status") != "pass" and summary.get("modules_unjudged") == 1
      and summary.get("result") == "INCOMPLETE",
      "the version summary hides lctx's verdict: %r" % {
          k: summary.get(k) for k in ("status", "result",
                                      "modules_unjudged")})

# 4. A truncated report.json: lctx's words, and the version did not run.
with open(path, "w") as f:
    f.write(json.dumps(forged)[:300])
r = {"version": "0.0.1", "report_dir": main_dir}
refused = cli.judge(LCTX, r, {"release": dirs, "modelled": []}, False, opts)
check(refused is not None and "report.json:" in refused and
      "not a whole JSON report" in refused and "report" not in r,
      "a truncated report.json: %r" % refused)
sys.exit(1 if bad else 0)
PY

finish_failures "test_jax_matrix: "
echo "test_jax_matrix: all checks passed"
