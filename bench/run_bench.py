#!/usr/bin/env python3
"""bench/run_bench.py - what `make bench` runs: the ratio benchmarks, the
instruction counts (bench/instructions.py), the whole jobs' wall time and
the jax tests' time against a baseline build, and the goals of the speed
work judged on those figures (bench/goals.py), written as JSON.

--baseline COMMIT (make bench: BENCH_BASELINE, by default the main the goals
were set against) extracts that commit (git archive) into
build/baseline-COMMIT/src and builds there its release build (release/),
its libFuzzer targets (fuzz/) and, for the jax tests, its lctx under the
test preset (test/). Then, in this order, each in one run:
  1. the ratio benchmarks (bench_check_spec, bench_fuzz.sh,
     bench_fuzz_lowering.sh, bench_conform.sh, bench_jax.sh,
     bench_sweep.py); their output
     lines `figure NAME: N`, `ratio X: N`, `NAME: N exec/s|cases/s` are the
     figures; bench_fuzz.sh gets the baseline's fuzz build and lctx in
     BENCH_FUZZ_BASELINE and BENCH_FUZZ_BASELINE_LCTX;
  2. instruction counts under callgrind of both builds (the baseline's as
     baseline.NAME, current / baseline as vs_baseline.NAME);
  3. the whole jobs, both builds alternately (bench/wall.py);
  4. `ctest -L jax` of both builds alternately (bench/jax_tests.py);
  5. each goal with its measured value and met / NOT met, and the load of
     the machine at the start and the end.
All figures go with the commit id and date to build/bench/bench.json, the
previous file kept as build/bench/bench.prev.json, and bench/compare prints
the two. What cannot be measured is said and left out, never guessed.

--check FILE measures nothing: it judges the goals on the figures of FILE,
a bench.json written before, and prints them.

Exit status: 0 every goal met, 1 a goal not met (or NOT MEASURED), 2 bad
usage or (--check) a FILE that cannot be read as a bench.json.

Usage: bench/run_bench.py [--baseline COMMIT] [--cases N] [--no-ratios]
                          [--no-jax-tests] [--rounds N] [--out DIR]
       bench/run_bench.py --check FILE
"""
import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import goals  # noqa: E402
import instructions  # noqa: E402
import jax_tests  # noqa: E402
import wall  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RATIO_RUNS = [
    ["build/release/bench/bench_check_spec"],
    ["sh", "bench/bench_fuzz.sh"],
    ["sh", "bench/bench_fuzz_lowering.sh"],
    ["sh", "bench/bench_conform.sh"],
    ["sh", "bench/bench_jax.sh"],
    ["python3", "bench/bench_sweep.py"],
]


def slug(text):
    return re.sub(r"[^a-z0-9/]+", "_", text.strip().lower()).strip("_")


def parse_figures(text):
    """The figures of a ratio benchmark's output."""
    figs = {}
    for line in text.splitlines():
        m = re.match(r"^figure ([a-z0-9_./]+):\s+([0-9.]+)\s*$", line)
        if m:
            figs[m.group(1)] = float(m.group(2))
            continue
        m = re.match(r"^\s*ratio ([^:]+):\s+([0-9.]+)", line)
        if m:
            figs["ratio." + slug(m.group(1))] = float(m.group(2))
            continue
        m = re.match(r"^\s*([^:]+):\s+([0-9.]+) (exec/s|cases/s)", line)
        if m:
            unit = "exec_per_s" if m.group(3) == "exec/s" else "cases_per_s"
            figs["%s.%s" % (slug(m.group(1)), unit)] = float(m.group(2))
    return figs


def run_ratios(log, env):
    figs = {}
    for argv in RATIO_RUNS:
        if not os.path.exists(os.path.join(TOP, argv[-1])):
            log("%s does not exist: its figures are left out" % argv[-1])
            continue
        p = subprocess.Popen(argv, cwd=TOP, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, env=env)
        out = []
        for line in p.stdout:
            sys.stdout.write(line)
            out.append(line)
        if p.wait() != 0:
            log("%s failed (exit %d): its figures are left out" %
                (" ".join(argv), p.returncode))
            continue
        figs.update(parse_figures("".join(out)))
    return figs


def build_baseline(commit, log):
    """Builds COMMIT's release build; returns (build, src) or None."""
    full = subprocess.run(["git", "rev-parse", "--verify", commit + "^{commit}"],
                          cwd=TOP, capture_output=True, text=True, check=False)
    if full.returncode != 0:
        log("baseline %s: not a commit of this repository" % commit)
        return None
    short = full.stdout.strip()[:7]
    root = os.path.join(TOP, "build", "baseline-" + short)
    src, build = os.path.join(root, "src"), os.path.join(root, "release")
    if not os.path.isdir(src):
        os.makedirs(src + ".tmp", exist_ok=True)
        arch = subprocess.Popen(["git", "archive", short], cwd=TOP,
                                stdout=subprocess.PIPE)
        subprocess.run(["tar", "-x", "-C", src + ".tmp"], stdin=arch.stdout,
                       check=True)
        if arch.wait() != 0:
            log("baseline %s: git archive failed" % short)
            return None
        os.rename(src + ".tmp", src)
    add_check_spec_part(src, log)
    print("==> bench: building baseline %s in %s" % (short, build), flush=True)
    cfg = subprocess.run(["cmake", "-S", src, "-B", build, "-G", "Ninja",
                          "-DCMAKE_C_COMPILER=clang-19",
                          "-DCMAKE_BUILD_TYPE=Release",
                          "-DLCTX_BUILD_TESTS=OFF"],
                         capture_output=True, text=True, check=False)
    if cfg.returncode != 0:
        log("baseline %s: cmake failed: %s" % (short, cfg.stderr[-500:]))
        return None
    for target in ["lctx", "fuzz_model_replay", "lctx_example_plugin",
                   "bench_check_spec_part"]:
        b = subprocess.run(["ninja", "-C", build, target],
                           capture_output=True, text=True, check=False)
        if b.returncode != 0:
            log("baseline %s: target %s does not build; what needs it is "
                "skipped" % (short, target))
    return build, src, short


def build_baseline_fuzz(root, src, short, log):
    """The baseline's libFuzzer targets under ASan+UBSan, as its fuzz
    preset built them (-O2 -g, assertions on), in ROOT/fuzz; the folder, or
    None."""
    fuzz = os.path.join(root, "fuzz")
    print("==> bench: building baseline %s's libFuzzer targets in %s" %
          (short, fuzz), flush=True)
    cfg = subprocess.run(["cmake", "-S", src, "-B", fuzz, "-G", "Ninja",
                          "-DCMAKE_C_COMPILER=clang-19",
                          "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                          "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g",
                          "-DLCTX_SANITIZE=ON", "-DLCTX_FUZZ_ENGINE=libfuzzer",
                          "-DLCTX_BUILD_TESTS=OFF", "-DLCTX_BUILD_BENCH=OFF"],
                         capture_output=True, text=True, check=False)
    b = cfg if cfg.returncode != 0 else subprocess.run(
        ["ninja", "-C", fuzz], capture_output=True, text=True, check=False)
    if b.returncode != 0:
        log("baseline %s: its fuzz build failed; the fuzz figures against "
            "it are left out: %s" % (short, (b.stdout + b.stderr)[-400:]))
        return None
    return fuzz


def add_check_spec_part(src, log):
    """A baseline older than bench_check_spec_part gets this tree's copy,
    linked with the library its bench_check_spec links (the oracle and
    domain calls are the same); without one it is skipped."""
    if os.path.exists(os.path.join(src, "bench", "bench_check_spec_part.c")):
        return
    lists = os.path.join(src, "bench", "CMakeLists.txt")
    try:
        with open(lists, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        text = ""
    m = re.search(r"target_link_libraries\(bench_check_spec PRIVATE (\w+)\)",
                  text)
    if not m:
        log("baseline: no bench_check_spec to copy the link of; "
            "check_spec is skipped for it")
        return
    shutil.copy(os.path.join(TOP, "bench", "bench_check_spec_part.c"),
                os.path.join(src, "bench"))
    with open(lists, "a", encoding="utf-8") as f:
        f.write("add_executable(bench_check_spec_part bench_check_spec_part.c)"
                "\ntarget_link_libraries(bench_check_spec_part PRIVATE %s)\n"
                % m.group(1))
    log("baseline: bench_check_spec_part.c of the current tree added to its "
        "build (linked with %s)" % m.group(1))


def git(*args):
    p = subprocess.run(["git"] + list(args), cwd=TOP, capture_output=True,
                       text=True, check=False)
    return p.stdout.strip() if p.returncode == 0 else "unknown"


def load():
    """The load averages and the cores, as a line."""
    one, five, fifteen = os.getloadavg()
    return "load average %.2f %.2f %.2f on %d cores" % (
        one, five, fifteen, os.cpu_count() or 0)


def goals_verdict(figs):
    """Prints the goals judged on `figs` and, when some are not met, which;
    returns the exit status (0 all met, 1 not)."""
    met, total = goals.report(figs, print)
    missed = goals.missed(figs)
    if missed:
        print("bench: FAIL: %d of %d goals not met: %s" %
              (len(missed), total, ", ".join(missed)), flush=True)
        return 1
    print("bench: PASS: all %d goals met" % total, flush=True)
    return 0


def check(path):
    """--check FILE: the goals judged on a bench.json's figures."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        figs = doc["figures"]
        if not isinstance(figs, dict) or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool)
                for v in figs.values()):
            raise ValueError("'figures' is not an object of numbers")
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("bench: --check %s: not a bench.json: %s" % (path, e),
              file=sys.stderr)
        return 2
    print("==> bench: the goals on the figures of %s (commit %s, %s)" %
          (path, doc.get("commit", "?"), doc.get("date", "?")))
    return goals_verdict(figs)


def main():
    ap = argparse.ArgumentParser(description="lctx benchmarks")
    ap.add_argument("--check", metavar="FILE",
                    help="judge the goals on FILE (a bench.json) only")
    ap.add_argument("--baseline", default="")
    ap.add_argument("--cases", type=int, default=500)
    ap.add_argument("--no-ratios", action="store_true")
    ap.add_argument("--no-jax-tests", action="store_true",
                    help="leave out the timing of ctest -L jax")
    ap.add_argument("--rounds", type=int, default=2,
                    help="wall-time runs of each build (fastest counts)")
    ap.add_argument("--out", default=os.path.join(TOP, "build", "bench"))
    a = ap.parse_args()
    if a.check:
        return check(a.check)
    notes = []

    def log(s):
        print("bench: " + s, flush=True)
        notes.append(s)

    loads = [load()]
    print("==> bench: start, " + loads[0], flush=True)
    doc = {"commit": git("rev-parse", "--short", "HEAD"),
           "dirty": git("status", "--porcelain", "--untracked-files=no") != "",
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
               timespec="seconds"),
           "conform_cases": a.cases}
    base, env = None, dict(os.environ)
    if a.baseline:
        base = build_baseline(a.baseline, log)
        if base:
            build, src, short = base
            doc["baseline"] = short
            env["BENCH_FUZZ_BASELINE_LCTX"] = os.path.join(build, "harness",
                                                           "lctx")
            fuzz = build_baseline_fuzz(os.path.dirname(build), src, short, log)
            if fuzz:
                env["BENCH_FUZZ_BASELINE"] = fuzz
    figs = {} if a.no_ratios else run_ratios(log, env)
    empty = os.path.join(TOP, "build", "release", "bench",
                         "bench_empty_replay")
    print("==> bench: instruction counts (valgrind --tool=callgrind), "
          "current tree", flush=True)
    cur = instructions.measure(os.path.join(TOP, "build", "release"), TOP,
                               empty, a.cases, log)
    figs.update(cur)
    if base:
        build, src, short = base
        print("==> bench: instruction counts, baseline " + short, flush=True)
        counted = instructions.measure(
            build, src, empty, a.cases, log,
            seeds=os.path.join(TOP, "corpus", "seeds", "fuzz_model"))
        for name, value in counted.items():
            figs["baseline." + name] = value
            if name in cur and value:
                figs["vs_baseline." + name] = cur[name] / value
        print("==> bench: wall time of the whole jobs, current and "
              "baseline %s alternately (bench/wall.py)" % short, flush=True)
        figs.update(wall.measure((os.path.join(TOP, "build", "release"), TOP),
                                 (build, src), a.rounds, log))
        if not a.no_jax_tests:
            print("==> bench: make test's jax tests (ctest -L jax), current "
                  "and baseline %s alternately (bench/jax_tests.py)" % short,
                  flush=True)
            python = os.path.join(TOP, "build", "jax", "venv-0.10.2", "bin",
                                  "python")
            figs.update(jax_tests.measure(
                (TOP, os.path.join(TOP, "build", "test")),
                (src, os.path.join(os.path.dirname(build), "test")), python,
                1, log))
    loads.append(load())
    doc["figures"] = figs
    doc["notes"] = notes
    doc["load"] = loads
    print_figures(figs)
    met, total = len(goals.GOALS) - len(goals.missed(figs)), len(goals.GOALS)
    doc["goals_met"] = [met, total]
    print("==> bench: machine at the start: %s; at the end: %s" %
          (loads[0], loads[1]))
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "bench.json")
    prev = os.path.join(a.out, "bench.prev.json")
    if os.path.exists(path):
        shutil.copyfile(path, prev)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2, sort_keys=True)
        f.write("\n")
    print("==> bench: figures written to " + path, flush=True)
    if os.path.exists(prev):
        print("==> bench: against the previous run (bench/compare)")
        subprocess.run([os.path.join(TOP, "bench", "compare"), prev, path],
                       check=False)
    return goals_verdict(figs)


def num(v):
    return "%.1f" % v if abs(v) >= 100 else "%.4f" % v


def print_figures(figs):
    print("==> bench: instruction counts (fuzz_model.replay_instr_vs_empty: "
          "fuzz_model's replay instructions per input as a multiple of the "
          "empty target's)")
    names = [n for n in sorted(figs) if not n.startswith(("baseline.",
                                                          "vs_baseline."))]
    for n in names:
        if "instr" in n or "per_case" in n or n.endswith("replay_instr_vs_empty"):
            line = "  %-36s %14s" % (n, num(figs[n]))
            if "baseline." + n in figs:
                line += "   baseline %14s   current/baseline %.3f" % (
                    num(figs["baseline." + n]), figs.get("vs_baseline." + n, 0))
            print(line)
    shown = set()
    for n in names:
        if "instr" in n or "per_case" in n or n.startswith("wall."):
            continue
        print("  %-36s %14s" % (n, num(figs[n])))
        shown.add(n)
    for n in sorted(figs):
        if n.startswith("wall.") and n.endswith(".seconds"):
            job = n[len("wall."):-len(".seconds")]
            line = "  wall %-31s %10.2f s %12.0f /s" % (
                job, figs[n], figs.get("wall.%s.per_s" % job, 0))
            if "baseline." + n in figs:
                line += "   baseline %8.2f s   speedup %.2fx" % (
                    figs["baseline." + n],
                    figs.get("wall.%s.speedup" % job, 0))
            print(line)


if __name__ == "__main__":
    sys.exit(main())
