#!/usr/bin/env python3
"""bench/test_bench.py - keeps the bench scripts from rotting (ctest
bench_scripts, label bench): bench/compare on two small JSON files, the
figure parser of bench/run_bench.py on the ratio benchmarks' output lines,
the callgrind totals reader of bench/instructions.py on a small file, and
`run_bench.py --check` (exit 1 on a goal not met) on small bench.json files.
No valgrind and no build needed; a second or less."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import goals  # noqa: E402
import instructions  # noqa: E402
import run_bench  # noqa: E402
import wall  # noqa: E402


def check(cond, what):
    if not cond:
        print("FAIL: " + what)
        sys.exit(1)


def test_compare(work):
    old = {"commit": "aaaaaaa", "date": "d1",
           "figures": {"check_spec.instr_per_op": 1000.0,
                       "fuzz_model.replay_instr_vs_empty": 0.5,
                       "gone": 3.0}}
    new = {"commit": "bbbbbbb", "date": "d2",
           "figures": {"check_spec.instr_per_op": 500.0,
                       "fuzz_model.replay_instr_vs_empty": 0.55,
                       "added": 7.0}}
    paths = []
    for name, doc in (("old.json", old), ("new.json", new)):
        paths.append(os.path.join(work, name))
        with open(paths[-1], "w", encoding="utf-8") as f:
            json.dump(doc, f)
    p = subprocess.run([sys.executable, os.path.join(HERE, "compare")] + paths,
                       capture_output=True, text=True, check=False)
    check(p.returncode == 0, "compare exit %d: %s" % (p.returncode, p.stderr))
    rows = {line.split()[0]: line.split() for line in p.stdout.splitlines()}
    check(rows["old:"][1] == "aaaaaaa" and rows["new:"][1] == "bbbbbbb",
          "compare names both commits:\n" + p.stdout)
    check(rows["check_spec.instr_per_op"][1:] == ["1000", "500", "-50.0%"],
          "instructions halved is -50.0%:\n" + p.stdout)
    check(rows["fuzz_model.replay_instr_vs_empty"][1:] == ["0.5", "0.55", "+10.0%"],
          "a ratio up by a tenth is +10.0%:\n" + p.stdout)
    check(rows["gone"][1:] == ["3", "-", "-"], "old only:\n" + p.stdout)
    check(rows["added"][1:] == ["-", "7", "-"], "new only:\n" + p.stdout)
    bad = subprocess.run([sys.executable, os.path.join(HERE, "compare"),
                          os.path.join(work, "missing.json"), paths[1]],
                         capture_output=True, text=True, check=False)
    check(bad.returncode == 2 and "error" in bad.stderr,
          "a missing file is exit 2")


def test_parse():
    text = ("fuzz_model:  44355 exec/s (1000 inputs)\n"
            "fuzz_empty:  1533831 exec/s (9 inputs)\n"
            "ratio fuzz_model/fuzz_empty: 0.029\n"
            "  decode + check-spec:       123456 cases/s\n"
            "  ratio check/decode:          0.125 (throughput ...)\n"
            "C plugin (forked worker):             146000 cases/s\n"
            "ratio plugin/batched:   7.5\n"
            "figure check_spec.jobs2_vs_jobs1: 1.93\n"
            "figure campaign.exec_per_s: 61234\n"
            "figure bad: x\n")
    figs = run_bench.parse_figures(text)
    want = {"fuzz_model.exec_per_s": 44355.0,
            "fuzz_empty.exec_per_s": 1533831.0,
            "ratio.fuzz_model/fuzz_empty": 0.029,
            "decode_check_spec.cases_per_s": 123456.0,
            "ratio.check/decode": 0.125,
            "c_plugin_forked_worker.cases_per_s": 146000.0,
            "ratio.plugin/batched": 7.5,
            "check_spec.jobs2_vs_jobs1": 1.93,
            "campaign.exec_per_s": 61234.0}
    check(figs == want, "parse_figures: %r" % figs)


def test_totals(work):
    path = os.path.join(work, "cg.1")
    with open(path, "w", encoding="utf-8") as f:
        f.write("version: 1\ncmd: x\nevents: Ir\nfn=main\n1 5\n"
                "summary: 12345\ntotals: 12345\n")
    check(instructions._totals(path) == 12345, "callgrind summary read")
    with open(path, "w", encoding="utf-8") as f:
        f.write("version: 1\n")
    check(instructions._totals(path) is None, "no summary is None")


def test_wall():
    """wall.measure alternates the builds, keeps each one's fastest run,
    and gives baseline seconds / current seconds; a failing run is logged
    and left out."""
    times = {"cur": [3.0, 2.0], "base": [9.0, 8.0]}
    order = []

    def job(build, src, work):
        order.append(build)
        if build == "broken":
            raise RuntimeError("no")
        return times[build].pop(0), 100

    saved = wall.JOBS
    wall.JOBS = [("job", job)]
    logged = []
    try:
        figs = wall.measure(("cur", "s"), ("base", "s"), 2, logged.append)
        check(order == ["cur", "base", "base", "cur"],
              "builds alternate, neither always first: %r" % order)
        check(figs["wall.job.seconds"] == 2.0, "fastest current run")
        check(figs["baseline.wall.job.seconds"] == 8.0, "fastest baseline run")
        check(figs["wall.job.speedup"] == 4.0, "speedup is base/current")
        check(figs["wall.job.per_s"] == 50.0, "rate of the fastest run")
        times["cur"] = [1.0]
        figs = wall.measure(("cur", "s"), ("broken", "s"), 1, logged.append)
        check("wall.job.speedup" not in figs and logged, "a failing run")
    finally:
        wall.JOBS = saved


def test_goals():
    """Each goal is met, NOT met or NOT MEASURED by its own figure, an
    at-most goal the other way round, and the count says so."""
    figs = {"check_spec.instr_per_op": 1399.0,
            "check_spec.jobs2_vs_jobs1": 1.79,
            "wall.check_spec.speedup": 2.5,
            "jax_tests.time_vs_baseline": 0.51}
    lines = []
    met, total = goals.report(figs, lines.append)
    text = "\n".join(lines)
    verdict = {}
    for line in lines:
        for name, _, _, _ in goals.GOALS:
            if " %s " % name in line:
                verdict[name] = line.split(name)[0].strip()
    check(verdict["check_spec.instr_per_op"] == "met", text)
    check(verdict["wall.check_spec.speedup"] == "met", "2.5 >= 2.5\n" + text)
    check(verdict["check_spec.jobs2_vs_jobs1"] == "NOT met", text)
    check(verdict["jax_tests.time_vs_baseline"] == "NOT met", text)
    check(verdict["fuzz_model.vs_decode_floor"] == "NOT MEASURED", text)
    check(met == 2 and total == len(goals.GOALS), "%d of %d" % (met, total))
    check(lines[-1] == "goals met: 2 of %d" % total, lines[-1])


def test_check(work):
    """run_bench.py --check FILE: exit 0 when every goal of FILE's figures
    is met, 1 naming the goals missed (one below its threshold, one not
    measured), 2 for a file that is no bench.json; goals.missed agrees."""
    met = {name: (threshold * 2 if op == ">=" else threshold / 2)
           for name, op, threshold, _ in goals.GOALS}
    check(goals.missed(met) == [], "all met: %r" % goals.missed(met))
    low = dict(met)
    low["check_spec.jobs2_vs_jobs1"] = 1.79
    del low["campaign.vs_baseline"]
    check(goals.missed(low) == ["check_spec.jobs2_vs_jobs1",
                                "campaign.vs_baseline"],
          "missed: %r" % goals.missed(low))

    def run(doc, name):
        path = os.path.join(work, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(doc if isinstance(doc, str) else json.dumps(doc))
        return subprocess.run(
            [sys.executable, os.path.join(HERE, "run_bench.py"), "--check",
             path], capture_output=True, text=True, check=False)
    p = run({"commit": "aaaaaaa", "figures": met}, "met.json")
    check(p.returncode == 0 and "bench: PASS: all %d goals met"
          % len(goals.GOALS) in p.stdout,
          "--check, every goal met: exit %d\n%s%s" % (p.returncode, p.stdout,
                                                      p.stderr))
    p = run({"commit": "aaaaaaa", "figures": low}, "low.json")
    check(p.returncode == 1 and "bench: FAIL: 2 of %d goals not met: "
          "check_spec.jobs2_vs_jobs1, campaign.vs_baseline"
          % len(goals.GOALS) in p.stdout,
          "--check, a goal missed: exit %d\n%s%s" % (p.returncode, p.stdout,
                                                     p.stderr))
    # A whole run (what `make bench` runs), measuring nothing but a stand-in
    # instruction count: its goals are NOT MEASURED, its exit 1, and its
    # bench.json holds the figure and the count of goals met.
    saved, argv = run_bench.instructions.measure, sys.argv
    run_bench.instructions.measure = lambda *a, **k: {
        "check_spec.instr_per_op": 700.0}
    sys.argv = ["run_bench.py", "--no-ratios", "--out",
                os.path.join(work, "run")]
    try:
        rc = run_bench.main()
    finally:
        run_bench.instructions.measure, sys.argv = saved, argv
    with open(os.path.join(work, "run", "bench.json"), encoding="utf-8") as f:
        doc = json.load(f)
    check(rc == 1 and doc["goals_met"] == [1, len(goals.GOALS)] and
          doc["figures"] == {"check_spec.instr_per_op": 700.0},
          "run_bench.main with goals not measured: exit %r, %r" % (rc, doc))
    for bad in ("{", json.dumps({"figures": {"x": "fast"}}), "[]"):
        p = run(bad, "bad.json")
        check(p.returncode == 2 and "not a bench.json" in p.stderr,
              "--check %r: exit %d %s" % (bad, p.returncode, p.stderr))


def main():
    with tempfile.TemporaryDirectory(prefix="lctx-test-bench.") as work:
        test_compare(work)
        test_parse()
        test_totals(work)
        test_wall()
        test_goals()
        test_check(work)
    print("bench scripts: OK")


if __name__ == "__main__":
    main()
