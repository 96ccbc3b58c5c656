"""bench/wall.py - wall-clock time of the whole jobs, the current build
against a baseline build, measured in one run.

lctx conform of the example C plugin over the full bounded domain (no
conformance cases, no random cases), default --jobs: the two builds run
alternately, ROUNDS times each, the current build first in odd rounds and
the baseline first in even ones, and the fastest run of each counts (what
else the shared machine did only ever slows a run down). Figures:
wall.NAME.seconds, wall.NAME.per_s and, with a baseline, wall.NAME.speedup
(baseline seconds / current seconds; above 1 is faster now).

lctx check-spec (check_spec_measure), its jobs alternating the same way,
at least 5 rounds (each run takes a second or less), the fastest counting,
operations counted as judged (operations - absent: an operation a release
does not have is neither judged nor varied; their time stays in):
  check_spec.one_release.jobs1.*  the bounded domain at the modelled commit
      alone on one thread (--jax modelled --jobs 1), against the baseline
      doing the same (its own --jax/--jobs where it has them; an lctx
      without --jax judges the modelled commit alone, on one thread):
      .ops_per_s, baseline.….ops_per_s, .vs_baseline (operations/s now over
      the baseline's: the domains may differ in size, so per operation) and
      .cpu_vs_baseline (the same per CPU second of every thread, the fewest
      of the runs: less at the mercy of the shared machine than wall time)
  check_spec.one_release.*        the same at the default --jobs
  check_spec.ops_per_s_all_cores  the default job (every release the table
      names, default --jobs: every core), judged operations per second of
      wall time; no baseline (a baseline that judged fewer releases did a
      different job). Also check_spec.all_releases.seconds
  check_spec.release.R.*          per release of that run: ops, absent,
      seconds (lctx's own clock, 3 decimals), ops_per_s, judged_per_s
Each is printed with its job and what it is compared against.

Used by bench/run_bench.py --baseline; on its own:
python3 bench/wall.py CUR_BUILD CUR_SRC [BASE_BUILD BASE_SRC] [--rounds N]
"""

import argparse
import json
import os
import re
import resource
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


RELEASE_LINE = re.compile(
    r"^release (\S+)\s+(\d+) operations \((\d+) absent\), (\d+) "
    r"violations, ([0-9.]+) s$", re.M)
SAME_LINE = re.compile(r"^release (\S+)\s+the model and the table say what "
                       r"they say at (\S+)", re.M)
DOMAIN_LINE = re.compile(
    r"^domain: .*?(\d+) cases, (\d+) operations(?: \((\d+) absent\))?, "
    r"(\d+) invariant runs, ([0-9.]+) s$", re.M)


def parse_check_spec(text):
    """What lctx check-spec printed: {"releases": [{name, ops, absent,
    violations, seconds}] (those judged, in order), "same": [(name, as)]
    (those said to be a release judged above, not rerun), "domain": {cases,
    ops, absent (None: an lctx that does not say), invariants, seconds}};
    a RuntimeError when there is no domain line."""
    m = DOMAIN_LINE.search(text)
    if not m:
        raise RuntimeError("no domain line in check-spec's output: " +
                           text[-300:])
    releases = [{"name": r.group(1), "ops": int(r.group(2)),
                 "absent": int(r.group(3)), "violations": int(r.group(4)),
                 "seconds": float(r.group(5))}
                for r in RELEASE_LINE.finditer(text)]
    return {"releases": releases,
            "same": [(r.group(1), r.group(2))
                     for r in SAME_LINE.finditer(text)],
            "domain": {"cases": int(m.group(1)), "ops": int(m.group(2)),
                       "absent": None if m.group(3) is None
                       else int(m.group(3)),
                       "invariants": int(m.group(4)),
                       "seconds": float(m.group(5))}}


def check_spec_options(build):
    """Which of --jax and --jobs this build's lctx check-spec takes (a
    baseline's may take neither: then it judges the modelled commit, on one
    thread)."""
    lctx = os.path.join(build, "harness", "lctx")
    try:
        p = subprocess.run([lctx, "check-spec", "--help"],
                           capture_output=True, text=True, check=False)
    except OSError:
        return set()
    return {o for o in ("--jax", "--jobs") if o in p.stdout + p.stderr}


def one_release_args(options, jobs1):
    """The arguments that make check-spec judge the modelled commit alone,
    on one thread when JOBS1 (default --jobs otherwise)."""
    args = ["--jax", "modelled"] if "--jax" in options else []
    if jobs1 and "--jobs" in options:
        args += ["--jobs", "1"]
    return args


def _children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run_check_spec(build, src, work, args):
    """lctx check-spec --quiet ARGS on SRC's table: (wall seconds, CPU
    seconds of all its threads, parsed output)."""
    lctx = os.path.abspath(os.path.join(build, "harness", "lctx"))
    spec = os.path.abspath(os.path.join(src, "conformance", "spec",
                                        "backend-selection.lspec"))
    t, cpu = time.monotonic(), _children_cpu()
    try:
        p = subprocess.run([lctx, "check-spec", "--quiet", "--spec", spec] +
                           args, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, check=False,
                           cwd=work)
    except OSError as e:
        raise RuntimeError("cannot run %s: %s" % (lctx, e)) from e
    seconds, cpu = time.monotonic() - t, _children_cpu() - cpu
    if p.returncode != 0:
        raise RuntimeError("check-spec %s failed (exit %d): %s" %
                           (" ".join(args), p.returncode, p.stdout[-300:]))
    return seconds, cpu, parse_check_spec(p.stdout)


JOBS = [("conform_plugin_domain", _conform)]


# check-spec's jobs: (key, what it is, the arguments of a build given the
# options its check-spec takes, whether the baseline runs the same job).
CHECK_SPEC_JOBS = [
    ("one_release.jobs1", "the bounded domain at the modelled commit alone, "
     "one thread (--jax modelled --jobs 1)",
     lambda opts: one_release_args(opts, True), True),
    ("one_release", "the bounded domain at the modelled commit alone, "
     "default --jobs (--jax modelled)",
     lambda opts: one_release_args(opts, False), True),
    ("all_releases", "every release the table names, default --jobs (the "
     "default job)", lambda opts: [], False),
]


def _mega(n):
    return "%.2fM" % (n / 1e6)


def _release_key(name):
    return name.replace(".", "_")


def release_figures(parsed):
    """Per-release figures of one check-spec run's output: absent
    operations, lctx's own seconds, operations/s and judged (not absent)
    operations/s, the absent ones' time included (each release judges the
    whole domain: its operations are the domain's)."""
    figs = {}
    for r in parsed["releases"]:
        k = "check_spec.release.%s." % _release_key(r["name"])
        judged = r["ops"] - r["absent"]
        figs[k + "absent"] = r["absent"]
        figs[k + "seconds"] = r["seconds"]
        if r["seconds"] > 0:
            figs[k + "ops_per_s"] = r["ops"] / r["seconds"]
            figs[k + "judged_per_s"] = judged / r["seconds"]
    return figs


def same_job(parsed, options):
    """A RuntimeError unless a one-release run judged the modelled commit
    alone with no absent operation (an lctx without --jax judges nothing
    else)."""
    rel = parsed["releases"]
    if "--jax" in options and ([r["name"] for r in rel] != ["modelled"] or
                               rel[0]["absent"] != 0):
        raise RuntimeError("check-spec --jax modelled judged %r, not the "
                           "modelled commit alone" % rel)
    if "--jax" not in options and (rel or parsed["domain"]["absent"]):
        raise RuntimeError("a check-spec without --jax judged releases: %r" %
                           rel)


def _best_runs(cur, base, rounds, log):
    """Each check-spec job of CHECK_SPEC_JOBS, both builds alternately,
    ROUNDS times: {(key, side): (seconds, parsed, cpu)}, the wall seconds
    and output of the fastest run and the fewest CPU seconds of any."""
    sides = [("current", cur, check_spec_options(cur[0]))]
    if base:
        sides.append(("baseline", base, check_spec_options(base[0])))
    best = {}
    work = tempfile.mkdtemp(prefix="lctx-wall-check-spec.")
    try:
        for r in range(rounds):
            for key, _, args, both in CHECK_SPEC_JOBS:
                for label, where, opts in sides if r % 2 == 0 else sides[::-1]:
                    if label == "baseline" and not both:
                        continue
                    try:
                        s, cpu, parsed = _run_check_spec(where[0], where[1],
                                                         work, args(opts))
                        if key.startswith("one_release"):
                            same_job(parsed, opts)
                    except RuntimeError as e:
                        log("wall check_spec %s (%s): %s" % (key, label, e))
                        continue
                    old = best.get((key, label))
                    if old:
                        cpu = min(cpu, old[2])
                    if not old or s < old[0]:
                        best[(key, label)] = (s, parsed, cpu)
                    else:
                        best[(key, label)] = (old[0], old[1], cpu)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return best


def check_spec_figures(best, base_name, rounds, write):
    """The figures of the fastest runs, and a line for each saying its job
    and what it is compared against."""
    figs = {}
    cores = os.cpu_count() or 0
    for key, what, _, _ in CHECK_SPEC_JOBS:
        if (key, "current") not in best:
            continue
        s, parsed, cpu = best[(key, "current")]
        d = parsed["domain"]
        judged = d["ops"] - (d["absent"] or 0)
        figs["check_spec.%s.seconds" % key] = s
        figs["check_spec.%s.ops_per_s" % key] = judged / s
        line = ("check-spec %s: %s: %d operations judged (%d absent, not "
                "counted) in %.3f s wall, %s/s" %
                (key, what, judged, d["absent"] or 0, s, _mega(judged / s)))
        if (key, "baseline") in best:
            bs, bparsed, bcpu = best[(key, "baseline")]
            bops = bparsed["domain"]["ops"]
            figs["baseline.check_spec.%s.ops_per_s" % key] = bops / bs
            ratio = (judged / s) / (bops / bs)
            figs["check_spec.%s.vs_baseline" % key] = ratio
            line += ("; %s, the same job (its domain: %d cases, %d "
                     "operations, against %d cases now): %d operations in "
                     "%.3f s wall, %s/s: %.2fx operations/s" %
                     (base_name, bparsed["domain"]["cases"], bops,
                      d["cases"], bops, bs, _mega(bops / bs), ratio))
            if cpu > 0 and bcpu > 0:
                # CPU seconds, every thread's: less at the mercy of what
                # else the shared machine runs than wall time.
                ratio = (judged / cpu) / (bops / bcpu)
                figs["check_spec.%s.cpu_vs_baseline" % key] = ratio
                line += ("; per CPU second (every thread's, fewest of the "
                         "runs): %.3f s against %.3f s, %.2fx operations "
                         "per CPU second" % (cpu, bcpu, ratio))
        write(line + " (fastest of %d runs each)" % rounds)
    if ("all_releases", "current") in best:
        s, parsed, _ = best[("all_releases", "current")]
        d = parsed["domain"]
        figs["check_spec.ops_per_s_all_cores"] = \
            figs["check_spec.all_releases.ops_per_s"]
        write("check_spec.ops_per_s_all_cores: %.0f judged operations/s"
              " of lctx check-spec's default job (every release the table "
              "names, --jobs default: %d cores), %d judged + %d absent "
              "operations (absent not counted, their time included) in %.3f s "
              "wall; no baseline: %s judged one release" %
              (figs["check_spec.ops_per_s_all_cores"], cores,
               d["ops"] - (d["absent"] or 0), d["absent"] or 0, s,
               base_name))
        write("check-spec per release, that run (seconds by lctx's own "
              "clock; judged/s counts the absent operations' time):")
        for r in parsed["releases"]:
            judged = r["ops"] - r["absent"]
            write("  release %-9s %8d operations, %7d absent, %8d judged, "
                  "%.3f s, %s ops/s, %s judged/s" %
                  (r["name"], r["ops"], r["absent"], judged, r["seconds"],
                   _mega(r["ops"] / max(r["seconds"], 1e-9)),
                   _mega(judged / max(r["seconds"], 1e-9))))
        for name, same in parsed["same"]:
            write("  release %-9s as %s (the same behaviour: not rerun)" %
                  (name, same))
        figs.update(release_figures(parsed))
    return figs


def check_spec_measure(cur, base, rounds, log, write=print):
    """check-spec's figures: the same job on both builds, and the default
    job per release (see check_spec_figures)."""
    base_name = "baseline"
    if base:
        folder = os.path.basename(os.path.dirname(os.path.abspath(base[0])))
        base_name += " " + (folder[len("baseline-"):]
                            if folder.startswith("baseline-") else folder)
    best = _best_runs(cur, base, rounds, log)
    return check_spec_figures(best, base_name, rounds, write)


def measure(cur, base, rounds, log, write=print):
    """cur and base are (build, src) or None; returns the figures (WRITE
    prints check-spec's lines)."""
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
    # check-spec's jobs take a second or less: more rounds, the same run.
    figs.update(check_spec_measure(cur, base, max(rounds, 5), log, write))
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
        rounds, log, log), 2)


if __name__ == "__main__":
    sys.exit(main())
