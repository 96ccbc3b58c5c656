#!/usr/bin/env python3
"""bench/bench_sweep.py - `lctx sweep` against its floor, in one run, on the
same programs and the same platform lists:

  1. `lctx sweep --cmd "PY conformance/adapters/jax_export.py
     --host-devices 4 --lctx LCTX" --jobs 1` over a slice of the catalogue
     (by default --subset ci: one harness per group and every other
     program, 246 programs, about 670 exports: 60-120 s here), its
     exporter tracing what it does ($LCTX_JAX_EXPORT_TRACE,
     lctx_jax/export_main.py, Trace): each request's items and the time
     it took, and when its hello was answered;
  2. the floor (bench/sweep_floor.py, the pinned JAX's Python): exactly
     the items of run 1, in its order, in a bare loop with JAX alone: per
     item jax.export.export(jax.jit(f), platforms=P)(*args) and, with cpu
     in P, exported.call(*args) until ready; no lctx, protocol, census,
     digest or cache clearing (the programs are built by the adapter's
     catalogue, so they are the same; see sweep_floor.py);
  3. the same sweep with --jobs 2.

The items a case sends come from the sweep itself (harness/commands/
sweep_case.c, lctx_sweep_run_case): P, P reversed and, with cpu in P,
("cpu",) in one request; then, when P or P reversed raised what no refusal
row allows, each platform of P alone (cpu's is the ("cpu",) export) in a
second. Run 1's trace gives them exactly, so the floor does the same job;
the exports lctx counts (its summary line) must be the trace's, and run 3
must make the same items and write the same results.jsonl (run id aside),
or the bench fails.

Start-up is left out of the sweep's rates: it lasts from lctx's launch to
the moment its N-th exporter answered the hello (the trace's hello times;
N = --jobs), and the exports finished before that moment are left out
with it (with --jobs 2, the first exporter works while the second starts).
The floor's start-up (JAX imported, catalogue made) is left out of its
rate too. Both are printed, and the rates with start-up included.

Figures (`figure NAME: N`, read by bench/run_bench.py):
  sweep.floor.exports_per_s, sweep.jobs1.exports_per_s,
  sweep.jobs2.exports_per_s, sweep.vs_floor (jobs1 / floor, goal >= 0.8),
  sweep.jobs2_vs_jobs1 (goal >= 1.8), sweep.startup.jobs1_s,
  sweep.startup.jobs2_s, sweep.floor.startup_s,
  sweep.jobs1.lctx_ms_per_export (the time of run 1 outside the
  exporter's requests, per export: lctx, the protocol, judging, writing),
  sweep.jobs1.exporter_vs_floor (the floor's loop seconds over the
  exporter's request seconds: the exporter's own bookkeeping),
  sweep.jobs1.cpu_ms_per_export, sweep.floor.cpu_ms_per_export and
  sweep.vs_floor_cpu (the floor's CPU seconds per export over the
  sweep's: lctx's, from the bench's RUSAGE_CHILDREN, and its exporter's
  after the hello, from the trace; CPU time depends less than the wall
  clock on what else the shared machine runs).

Exit status: 0 measured; 1 a part could not be measured (said why); 2 bad
usage. Needs the release build (make build) and the pinned JAX (make jax).

Usage: python3 bench/bench_sweep.py [--lctx PATH] [--python PATH]
           [--exporter PATH] [--subset ci|all] [--limit N] [--group G]
           [--keep DIR]
"""

import argparse
import collections
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRACE_VARIABLE = "LCTX_JAX_EXPORT_TRACE"
HOST_DEVICES = 4
SUMMARY = re.compile(r"^sweep: .* (\d+) exports in ([0-9.]+) s")


class Unmeasured(Exception):
    """A part of the bench could not be measured: why."""


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="bench_sweep.py",
        description="lctx sweep against a bare JAX loop doing the same "
        "exports, and --jobs 2 against --jobs 1")
    ap.add_argument("--lctx", default=os.path.join(
        TOP, "build", "release", "harness", "lctx"))
    ap.add_argument("--python", default=os.path.join(
        TOP, "build", "jax", "venv-0.10.2", "bin", "python"))
    ap.add_argument("--exporter", default=os.path.join(
        TOP, "conformance", "adapters", "jax_export.py"),
        help="the jax_export.py the sweep runs (another tree's, to "
        "compare; it must have the trace of $%s)" % TRACE_VARIABLE)
    ap.add_argument("--subset", default="ci", choices=("ci", "all"))
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--group", default=None)
    ap.add_argument("--keep", default=None,
                    help="keep the runs' folders and traces in this folder")
    return ap.parse_args(argv)


def slice_args(a):
    """The sweep options that pick the slice."""
    out = ["--subset", a.subset]
    if a.limit:
        out += ["--limit", str(a.limit)]
    if a.group:
        out += ["--group", a.group]
    return out


def read_trace(path):
    """(hellos: proc -> (time, cpu), requests: [(proc, t0, t1, items,
    cpu)])."""
    hellos, requests = {}, []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                event = json.loads(line)
                if "hello" in event:
                    hellos[event["proc"]] = (event["hello"], event["cpu"])
                elif "items" in event:
                    requests.append((event["proc"], event["t0"], event["t1"],
                                     [(i[0], tuple(i[1]))
                                      for i in event["items"]],
                                     event["cpu"]))
    except (OSError, ValueError, KeyError, TypeError, IndexError) as err:
        raise Unmeasured("the exporters' trace %s cannot be read: %s"
                         % (path, err))
    return hellos, requests


def run_sweep(a, jobs, work):
    """Runs the sweep with `jobs` exporters; returns what it measured."""
    out = os.path.join(work, "jobs%d" % jobs)
    trace = os.path.join(work, "trace%d.jsonl" % jobs)
    command = "%s %s --host-devices %d --lctx %s" % (
        a.python, a.exporter, HOST_DEVICES, a.lctx)
    argv = [a.lctx, "sweep", "--cmd", command] + slice_args(a) + [
        "--jobs", str(jobs), "--out", out, "--quiet", "--restart"]
    env = dict(os.environ)
    env[TRACE_VARIABLE] = trace
    launch = time.time()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       env=env, cwd=TOP)
    end = time.time()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    lctx_cpu = (after.ru_utime + after.ru_stime - before.ru_utime
                - before.ru_stime)
    text = p.stdout.decode("utf-8", "replace")
    # 1: new findings (the run itself went through).
    if p.returncode not in (0, 1):
        raise Unmeasured("lctx sweep --jobs %d failed (exit %d): %s"
                         % (jobs, p.returncode, text.strip()[-600:]))
    said = [SUMMARY.match(line) for line in text.splitlines()]
    said = [m for m in said if m]
    if not said:
        raise Unmeasured("lctx sweep --jobs %d printed no summary line: %s"
                         % (jobs, text.strip()[-600:]))
    exports = int(said[0].group(1))
    hellos, requests = read_trace(trace)
    traced = sum(len(r[3]) for r in requests)
    if traced != exports:
        raise Unmeasured("lctx sweep --jobs %d counted %d exports, its "
                         "exporters traced %d" % (jobs, exports, traced))
    if len(hellos) < jobs:
        raise Unmeasured("lctx sweep --jobs %d: %d exporters said hello"
                         % (jobs, len(hellos)))
    ready = sorted(h[0] for h in hellos.values())[jobs - 1]
    early = sum(len(r[3]) for r in requests if r[2] <= ready)
    busy = sum(r[2] - r[1] for r in requests)
    # Each exporter's CPU seconds from its hello to its last request.
    last = {}
    for r in requests:
        last[r[0]] = max(last.get(r[0], 0.0), r[4])
    exporter_cpu = sum(c - hellos[proc][1] for proc, c in last.items()
                       if proc in hellos)
    return {"lctx_cpu": lctx_cpu, "exporter_cpu": exporter_cpu,
            "jobs": jobs, "out": out, "trace": trace, "exports": exports,
            "wall": end - launch, "startup": ready - launch,
            "steady_exports": exports - early, "steady": end - ready,
            "busy": busy, "items": collections.Counter(
                i for r in requests for i in r[3])}


def run_floor(a, trace):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(TOP, "conformance", "adapters")
    env.pop(TRACE_VARIABLE, None)
    argv = [a.python, os.path.join(TOP, "bench", "sweep_floor.py"), trace,
            a.lctx, str(HOST_DEVICES)]
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env, cwd=TOP)
    if p.returncode != 0:
        raise Unmeasured("the floor failed (exit %d): %s" % (
            p.returncode, p.stderr.decode("utf-8", "replace")[-600:]))
    try:
        floor = json.loads(p.stdout.decode("utf-8").strip().splitlines()[-1])
    except (ValueError, IndexError) as err:
        raise Unmeasured("the floor's answer is not JSON: %s" % err)
    if floor["unknown"]:
        raise Unmeasured("the floor does not know %d traced programs"
                         % floor["unknown"])
    return floor


def same_results(one, two):
    """Whether two results.jsonl files are the same, run ids aside."""
    def text(folder):
        with open(os.path.join(folder, "results.jsonl"),
                  encoding="utf-8") as f:
            return re.sub(r'"run_id":"[^"]*"', "", f.read())
    return text(one) == text(two)


def figure(name, value, what):
    print("%s: %s" % (name, what))
    print("figure %s: %.4f" % (name, value))


def report(a, j1, j2, floor):
    where = " ".join(slice_args(a))
    floor_rate = floor["exports"] / floor["seconds"]
    rate1 = j1["steady_exports"] / j1["steady"]
    rate2 = j2["steady_exports"] / j2["steady"]
    print("bench_sweep.py: the slice %s (%d exports per run), JAX in %s, "
          "lctx %s" % (where, j1["exports"], a.python, a.lctx))
    figure("sweep.floor.exports_per_s", floor_rate,
           "the floor: the same %d exports and CPU runs in a bare JAX loop, "
           "%.2f exports/s over %.1f s (start-up of %.1f s left out; "
           "export %.1f s, CPU calls %.1f s)"
           % (floor["exports"], floor_rate, floor["seconds"],
              floor["startup_seconds"], floor["export_seconds"],
              floor["call_seconds"]))
    for j, rate in ((j1, rate1), (j2, rate2)):
        figure("sweep.jobs%d.exports_per_s" % j["jobs"], rate,
               "lctx sweep --jobs %d: %.2f exports/s, %d exports over %.1f s "
               "once its %d exporter(s) answered the hello (%.1f s wall, "
               "%.2f exports/s with start-up)"
               % (j["jobs"], rate, j["steady_exports"], j["steady"],
                  j["jobs"], j["wall"], j["exports"] / j["wall"]))
        figure("sweep.startup.jobs%d_s" % j["jobs"], j["startup"],
               "lctx sweep --jobs %d start-up: %.2f s from lctx's launch to "
               "its %d exporter(s) answering the hello"
               % (j["jobs"], j["startup"], j["jobs"]))
    figure("sweep.floor.startup_s", floor["startup_seconds"],
           "the floor's start-up: %.2f s (JAX imported, catalogue made)"
           % floor["startup_seconds"])
    figure("sweep.vs_floor", rate1 / floor_rate,
           "lctx sweep --jobs 1 exports/s over the floor's, same exports, "
           "start-up left out of both (goal >= 0.8); with start-up: %.3f"
           % ((j1["exports"] / j1["wall"]) / (floor["exports"] / (
               floor["seconds"] + floor["startup_seconds"]))))
    figure("sweep.jobs2_vs_jobs1", rate2 / rate1,
           "lctx sweep --jobs 2 exports/s over --jobs 1's, same slice, "
           "start-up left out (goal >= 1.8); with start-up: %.3f"
           % ((j2["exports"] / j2["wall"]) / (j1["exports"] / j1["wall"])))
    outside = j1["steady"] - j1["busy"]
    figure("sweep.jobs1.lctx_ms_per_export", 1000 * outside / j1["exports"],
           "lctx sweep --jobs 1: %.1f s of its %.1f s were outside the "
           "exporter's requests (lctx, the protocol, judging, writing), "
           "per export against the exporter's %.1f ms"
           % (outside, j1["steady"], 1000 * j1["busy"] / j1["exports"]))
    figure("sweep.jobs1.exporter_vs_floor", floor["seconds"] / j1["busy"],
           "the floor's %.1f s over the --jobs 1 exporter's %.1f s in its "
           "requests, same exports (its census, digests, cache clearing)"
           % (floor["seconds"], j1["busy"]))


def report_cpu(j1, floor):
    """The CPU seconds per export of the sweep (lctx and its exporter after
    the hello) and of the floor's loop: less at the mercy of what else the
    shared machine runs than the wall clock."""
    sweep = (j1["lctx_cpu"] + j1["exporter_cpu"]) / j1["exports"]
    floor_cpu = floor["cpu_seconds"] / floor["exports"]
    figure("sweep.jobs1.cpu_ms_per_export", 1000 * sweep,
           "lctx sweep --jobs 1: %.1f ms of CPU per export (lctx %.1f s "
           "in all, its exporter %.1f s after the hello)"
           % (1000 * sweep, j1["lctx_cpu"], j1["exporter_cpu"]))
    figure("sweep.floor.cpu_ms_per_export", 1000 * floor_cpu,
           "the floor: %.1f ms of CPU per export (%.1f s, its loop)"
           % (1000 * floor_cpu, floor["cpu_seconds"]))
    figure("sweep.vs_floor_cpu", floor_cpu / sweep,
           "the floor's CPU per export over lctx sweep --jobs 1's (lctx and "
           "its exporter), same exports: the vs_floor figure on CPU time")


def main(argv):
    a = parse_args(argv)
    for path, what in ((a.lctx, "lctx (make build)"),
                       (a.python, "the pinned JAX (make jax)")):
        if not os.access(path, os.X_OK):
            print("bench_sweep.py: no %s at %s: nothing measured"
                  % (what, path), file=sys.stderr)
            return 1
    work = a.keep or tempfile.mkdtemp(prefix="lctx-bench-sweep.")
    os.makedirs(work, exist_ok=True)
    for name in ("trace1.jsonl", "trace2.jsonl"):
        if os.path.exists(os.path.join(work, name)):
            os.remove(os.path.join(work, name))
    try:
        j1 = run_sweep(a, 1, work)
        floor = run_floor(a, j1["trace"])
        if floor["exports"] != j1["exports"]:
            raise Unmeasured("the floor made %d exports, the sweep %d"
                             % (floor["exports"], j1["exports"]))
        j2 = run_sweep(a, 2, work)
        if j2["items"] != j1["items"]:
            raise Unmeasured("--jobs 2 exported other items than --jobs 1")
        if not same_results(j1["out"], j2["out"]):
            raise Unmeasured("--jobs 2 wrote other results than --jobs 1")
        report(a, j1, j2, floor)
        report_cpu(j1, floor)
    except Unmeasured as err:
        print("bench_sweep.py: not measured: %s" % err, file=sys.stderr)
        return 1
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
