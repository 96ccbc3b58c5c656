"""bench/wall.py - wall-clock time of the whole jobs, the current build
against a baseline build, measured in one run: lctx conform of the example
C plugin over the full bounded domain (no conformance cases, no random
cases), and lctx check-spec over the full domain, each with its default
--jobs (the machine's cores, where the build has --jobs).

The two builds run alternately, ROUNDS times each, the current build first
in odd rounds and the baseline first in even ones, and the fastest run of
each counts (what else the shared machine did only ever slows a run down).
Figures: wall.NAME.seconds, wall.NAME.per_s (cases or operations per
second) and, with a baseline, wall.NAME.speedup (baseline seconds / current
seconds; above 1 is faster now).

Used by bench/run_bench.py --baseline; on its own:
python3 bench/wall.py CUR_BUILD CUR_SRC [BASE_BUILD BASE_SRC] [--rounds N]
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


def _conform(build, src, work):
    lctx = os.path.join(build, "harness", "lctx")
    plugin = os.path.join(build, "conformance", "examples", "c_plugin",
                          "liblctx_example_plugin.so")
    nocases = os.path.join(work, "nocases")
    os.makedirs(nocases, exist_ok=True)
    report = tempfile.mkdtemp(prefix="wall-report.", dir=work)
    spec = os.path.join(src, "conformance", "spec", "backend-selection.lspec")
    argv = [lctx, "conform", "--impl", plugin, "--spec", spec, "--cases",
            nocases, "--random", "0", "--quiet", "--report-dir", report]
    t = time.monotonic()
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, check=False)
    seconds = time.monotonic() - t
    try:
        with open(os.path.join(report, "report.json"), encoding="utf-8") as f:
            n = json.load(f)["cases_run"]
    except (OSError, ValueError, KeyError):
        n = 0
    shutil.rmtree(report, ignore_errors=True)
    if p.returncode != 0 or n == 0:
        raise RuntimeError("conform failed (exit %d): %s" %
                           (p.returncode, p.stdout[-300:]))
    return seconds, n


def _check_spec(build, src, work):
    lctx = os.path.join(build, "harness", "lctx")
    spec = os.path.join(src, "conformance", "spec", "backend-selection.lspec")
    t = time.monotonic()
    p = subprocess.run([lctx, "check-spec", "--spec", spec],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, check=False, cwd=work)
    seconds = time.monotonic() - t
    m = re.search(r"(\d+) operations", p.stdout)
    n = int(m.group(1)) if m else 0
    if p.returncode != 0 or n == 0:
        raise RuntimeError("check-spec failed (exit %d): %s" %
                           (p.returncode, p.stdout[-300:]))
    return seconds, n


JOBS = [("conform_plugin_domain", _conform), ("check_spec", _check_spec)]


def measure(cur, base, rounds, log):
    """cur and base are (build, src) or None; returns the figures."""
    figs = {}
    work = tempfile.mkdtemp(prefix="lctx-wall.")
    try:
        for name, job in JOBS:
            best = {}
            for r in range(rounds):
                # The order alternates between rounds, so that neither build
                # always runs first (onto a cold cache or a quieter machine).
                sides = [("current", cur), ("baseline", base)]
                for label, where in sides if r % 2 == 0 else sides[::-1]:
                    if not where:
                        continue
                    try:
                        s, n = job(where[0], where[1], work)
                    except RuntimeError as e:
                        log("wall %s (%s): %s" % (name, label, e))
                        continue
                    if label not in best or s < best[label][0]:
                        best[label] = (s, n)
            if "current" in best:
                s, n = best["current"]
                figs["wall.%s.seconds" % name] = s
                figs["wall.%s.per_s" % name] = n / s
            if "baseline" in best:
                s, n = best["baseline"]
                figs["baseline.wall.%s.seconds" % name] = s
                figs["baseline.wall.%s.per_s" % name] = n / s
                if "current" in best:
                    figs["wall.%s.speedup" % name] = s / best["current"][0]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return figs


def run_alone(measure_where, rounds):
    """A measurer of bench/ run on its own: WHERE... [--rounds N] (default
    `rounds`); measure_where(WHERE list, rounds, log) gives the figures,
    printed as JSON; the log goes to stderr."""
    ap = argparse.ArgumentParser()
    ap.add_argument("where", nargs="+")
    ap.add_argument("--rounds", type=int, default=rounds)
    a = ap.parse_args()
    figs = measure_where(a.where, a.rounds,
                         lambda s: print(s, file=sys.stderr))
    json.dump(figs, sys.stdout, indent=2, sort_keys=True)
    print()
    return 0


def main():
    return run_alone(lambda where, rounds, log: measure(
        tuple(where[0:2]), tuple(where[2:4]) if len(where) >= 4 else None,
        rounds, log), 2)


if __name__ == "__main__":
    sys.exit(main())
