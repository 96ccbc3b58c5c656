#!/usr/bin/env python3
"""bench/test_bench.py - keeps the bench scripts from rotting (ctest
bench_scripts, label bench): bench/compare on two small JSON files, the
figure parser of bench/run_bench.py on the ratio benchmarks' output lines,
the callgrind totals reader of bench/instructions.py on a small file,
bench_sweep.py's trace reader and figures on made-up runs,
check-spec's figures (bench/wall.py: its output read per release, absent
operations apart, the same job on both builds, the fastest runs kept;
bench/instructions.py: bench_check_spec_part's counts), and `run_bench.py
--check` (exit 1 on a goal not met) on small bench.json files, whichever
goals bench/goals.py holds, and bench/cpu_meter.py (a process that the
command killed without reaping it is counted, in a control group). No
valgrind and no build needed; about a second.

With --part BINARY --spec FILE (ctest bench_check_spec_part): only the
built bench_check_spec_part, on the first 50,000 cases (test_part)."""
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_sweep  # noqa: E402
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

    saved, saved_cs = wall.JOBS, wall.check_spec_measure
    wall.JOBS = [("job", job)]
    wall.check_spec_measure = lambda cur, base, rounds, log, write: {
        "check_spec.rounds": rounds}
    logged = []
    try:
        figs = wall.measure(("cur", "s"), ("base", "s"), 2, logged.append)
        check(order == ["cur", "base", "base", "cur"],
              "builds alternate, neither always first: %r" % order)
        check(figs["wall.job.seconds"] == 2.0, "fastest current run")
        check(figs["baseline.wall.job.seconds"] == 8.0, "fastest baseline run")
        check(figs["wall.job.speedup"] == 4.0, "speedup is base/current")
        check(figs["wall.job.per_s"] == 50.0, "rate of the fastest run")
        check(figs["check_spec.rounds"] == 5, "check-spec: at least 5 rounds")
        times["cur"] = [1.0]
        figs = wall.measure(("cur", "s"), ("broken", "s"), 1, logged.append)
        check("wall.job.speedup" not in figs and logged, "a failing run")
    finally:
        wall.JOBS, wall.check_spec_measure = saved, saved_cs


CURRENT_OUT = """check-spec: spec t.lspec (version 1.4.0, 61 rows) against \
the reference, at 4 JAX releases
release 0.4.20     1000 operations (400 absent), 0 violations, 0.100 s
release 0.6.2    the model and the table say what they say at 0.4.20 \
(checked above)
release modelled   1000 operations (0 absent), 0 violations, 0.250 s
release 0.12.1     1000 operations (0 absent), 0 violations, 0.000 s
domain: 41 registry configurations, 10 names, 800 cases, 3000 operations \
(400 absent), 5000 invariant runs, 0.350 s
result: 0 violations, 0 rows not reached: PASS
"""
BASELINE_OUT = """check-spec: spec t.lspec (version 1.2.0, 57 rows) against \
the reference
domain: 41 registry configurations, 10 names, 700 cases, 900 operations, \
1900 invariant runs, 0.57 s
result: 0 violations, 0 rows not reached: PASS
"""


MODELLED_OUT = "".join(line + "\n" for line in CURRENT_OUT.splitlines()
                       if not line.startswith(("release 0.4.20",
                                               "release 0.12.1")))


def test_check_spec_output():
    """wall.parse_check_spec reads the releases judged, those not rerun and
    the domain line of the current check-spec and of one without releases;
    release_figures keeps absent operations apart; same_job refuses a run
    that is not the modelled commit alone; the one-release arguments follow
    the options a build has."""
    cur = wall.parse_check_spec(CURRENT_OUT)
    check([r["name"] for r in cur["releases"]] == ["0.4.20", "modelled",
                                                  "0.12.1"], repr(cur))
    check(cur["releases"][0] == {"name": "0.4.20", "ops": 1000, "absent": 400,
                                 "violations": 0, "seconds": 0.1}, repr(cur))
    check(cur["same"] == [("0.6.2", "0.4.20")], repr(cur["same"]))
    check(cur["domain"] == {"cases": 800, "ops": 3000, "absent": 400,
                            "invariants": 5000, "seconds": 0.35},
          repr(cur["domain"]))
    base = wall.parse_check_spec(BASELINE_OUT)
    check(base["releases"] == [] and base["domain"]["absent"] is None and
          base["domain"]["ops"] == 900, repr(base))
    try:
        wall.parse_check_spec("check-spec: nothing\n")
        check(False, "no domain line is an error")
    except RuntimeError as e:
        check("no domain line" in str(e), str(e))
    figs = wall.release_figures(cur)
    check(figs["check_spec.release.0_4_20.judged_per_s"] == 6000.0 and
          figs["check_spec.release.0_4_20.ops_per_s"] == 10000.0 and
          figs["check_spec.release.0_4_20.absent"] == 400 and
          figs["check_spec.release.modelled.judged_per_s"] == 4000.0,
          "per release, absent apart: %r" % figs)
    check("check_spec.release.0_12_1.ops_per_s" not in figs and
          figs["check_spec.release.0_12_1.seconds"] == 0.0,
          "no rate from zero seconds: %r" % figs)
    check(not any("0_6_2" in n for n in figs), "a release not rerun: none")
    check(wall.one_release_args({"--jax", "--jobs"}, True) ==
          ["--jax", "modelled", "--jobs", "1"], "current, one thread")
    check(wall.one_release_args({"--jax", "--jobs"}, False) ==
          ["--jax", "modelled"], "current, default jobs")
    check(wall.one_release_args(set(), True) == [], "an lctx without either")
    wall.same_job(base, set())
    one = wall.parse_check_spec(MODELLED_OUT)
    check([r["name"] for r in one["releases"]] == ["modelled"], repr(one))
    wall.same_job(one, {"--jax"})
    for parsed, opts in ((cur, {"--jax"}), (cur, set())):
        try:
            wall.same_job(parsed, opts)
            check(False, "same_job took several releases (%r)" % opts)
        except RuntimeError:
            pass


def test_check_spec_figures():
    """check_spec_figures: operations/s count judged operations only (the
    absent ones' time kept), the same-job ratio is operations/s now over
    the baseline's, and the all-cores figure is the default job's."""
    one = wall.parse_check_spec(BASELINE_OUT)  # 900 operations, none absent
    allrel = wall.parse_check_spec(CURRENT_OUT)  # 2600 judged, 400 absent
    best = {("one_release.jobs1", "current"): (0.5, {
                "releases": [], "same": [],
                "domain": dict(one["domain"], ops=1000, absent=0)}, 0.4),
            ("one_release.jobs1", "baseline"): (0.9, one, 1.2),
            ("all_releases", "current"): (2.0, allrel, 3.0)}
    lines = []
    figs = wall.check_spec_figures(best, "baseline 3142b3f", 5, lines.append)
    text = "\n".join(lines)
    check(figs["check_spec.one_release.jobs1.ops_per_s"] == 2000.0, text)
    check(figs["baseline.check_spec.one_release.jobs1.ops_per_s"] == 1000.0,
          text)
    check(figs["check_spec.one_release.jobs1.vs_baseline"] == 2.0,
          "operations/s against operations/s: %r" % figs)
    check(abs(figs["check_spec.one_release.jobs1.cpu_vs_baseline"] - 10 / 3)
          < 1e-9, "operations per CPU second, both: %r" % figs)
    check(figs["check_spec.ops_per_s_all_cores"] == 1300.0,
          "judged operations of the default job per second: %r" % figs)
    check("check_spec.one_release.vs_baseline" not in figs and
          "check_spec.all_releases.vs_baseline" not in figs,
          "no ratio without the same job on both sides: %r" % figs)
    check("baseline 3142b3f, the same job" in text and
          "2.00x operations/s" in text and "400 absent" in text and
          "release 0.6.2     as 0.4.20" in text, text)


def test_best_runs():
    """wall._best_runs alternates the builds, runs the default job on the
    current build alone, keeps the fastest run's seconds and output and
    the fewest CPU seconds of any run, and drops (logging it) a one-release
    run that judged more than the modelled commit."""
    one = wall.parse_check_spec(BASELINE_OUT)
    modelled = wall.parse_check_spec(MODELLED_OUT)
    many = wall.parse_check_spec(CURRENT_OUT)
    runs = []
    times = {"cur": [(1.0, 0.9), (0.8, 1.1)] * 3, "base": [(2.0, 1.5)] * 4}

    def run(build, src, work, args):
        runs.append((build, tuple(args)))
        s, cpu = times[build].pop(0)
        if build == "cur" and args == ["--jax", "modelled", "--jobs", "1"] \
                and len(runs) == 1:
            return s, cpu, many  # not the modelled commit alone: dropped
        if build == "base":
            return s, cpu, one
        return s, cpu, (modelled if args else many)

    saved = wall._run_check_spec, wall.check_spec_options
    wall._run_check_spec = run
    wall.check_spec_options = lambda build: (
        {"--jax", "--jobs"} if build == "cur" else set())
    logged = []
    try:
        best = wall._best_runs(("cur", "s"), ("base", "s"), 2, logged.append)
    finally:
        wall._run_check_spec, wall.check_spec_options = saved
    check([b for b, _ in runs] == ["cur", "base", "cur", "base", "cur",
                                   "base", "cur", "base", "cur", "cur"],
          "alternating, the default job on the current build only: %r" % runs)
    check(runs[0][1] == ("--jax", "modelled", "--jobs", "1") and
          runs[1][1] == () and runs[2][1] == ("--jax", "modelled") and
          runs[4][1] == (), "each build's own arguments: %r" % runs)
    check(len(logged) == 1 and "not the modelled commit alone" in logged[0],
          "the wrong job dropped: %r" % logged)
    s, _, cpu = best[("one_release.jobs1", "current")]
    check((s, cpu) == (0.8, 1.1), "the one run kept: %r" % ((s, cpu),))
    s, _, cpu = best[("one_release", "current")]
    check((s, cpu) == (0.8, 0.9), "fastest wall, fewest CPU: %r" % ((s, cpu),))
    s, parsed, cpu = best[("all_releases", "current")]
    check((s, cpu) == (0.8, 0.9) and parsed is many,
          "the fastest run, an earlier run's fewer CPU seconds: %r" %
          ((s, cpu),))
    check(("all_releases", "baseline") not in best, repr(best.keys()))


def test_parse_part():
    """instructions.parse_part: the counts of bench_check_spec_part, old
    and new, refused when a case violates or the whole domain was not
    judged; the select line's counts."""
    big = instructions.WHOLE_DOMAIN
    n = instructions.parse_part("1115262 cases judged, 1387340 operations, 0 "
                                "violations\n", big)
    check(n == {"cases": 1115262, "ops": 1387340, "absent": None}, repr(n))
    n = instructions.parse_part(
        "9 cases judged, 12 operations (3 absent), 0 violations, release "
        "0.4.20\nselect absent: 3 cases, 3 operations; 2 mixed cases (5 "
        "operations) left out\n", big)
    check(n == {"cases": 9, "ops": 12, "absent": 3, "selected_cases": 3,
                "mixed_cases": 2, "mixed_ops": 5}, repr(n))
    for out, limit, why in (
            ("5 cases judged, 9 operations, 1 violations\n", big, "violation"),
            ("%d cases judged, 9 operations, 0 violations\n" % big, big,
             "whole domain"),
            ("0 cases judged, 0 operations, 0 violations\n", big,
             "whole domain"),
            ("Segmentation fault\n", big, "no counts")):
        try:
            instructions.parse_part(out, limit)
            check(False, "parse_part took %r" % out)
        except RuntimeError as e:
            check(why in str(e), "%r: %s" % (out, e))
    n = instructions.parse_part("0 cases judged, 0 operations (0 absent), 0 "
                                "violations, release modelled\n", 0)
    check(n["cases"] == 0, "the start-up run: %r" % n)


def _goal_names():
    """Goals of bench/goals.py picked by their comparison, so that these
    tests hold whichever rows the goals have: three at-least goals and one
    at-most goal."""
    at_least = [g for g in goals.GOALS if g[1] == ">="]
    at_most = [g for g in goals.GOALS if g[1] == "<="]
    check(len(at_least) >= 3 and at_most, "goals.py has too few goals to test")
    return at_least, at_most


def test_goals():
    """Each goal is met, NOT met or NOT MEASURED by its own figure, an
    at-most goal the other way round, and the count says so."""
    at_least, at_most = _goal_names()
    figs = {at_most[0][0]: at_most[0][2] * 0.999,
            at_least[0][0]: at_least[0][2],
            at_least[1][0]: at_least[1][2] * 0.999}
    if len(at_most) > 1:
        figs[at_most[1][0]] = at_most[1][2] * 1.02
    lines = []
    met, total = goals.report(figs, lines.append)
    text = "\n".join(lines)
    verdict = {}
    for line in lines:
        for name in (g[0] for g in goals.GOALS):
            if " %s " % name in line:
                verdict[name] = line.split(name)[0].strip()
    check(verdict[at_most[0][0]] == "met", "below an at-most goal\n" + text)
    check(verdict[at_least[0][0]] == "met", "x >= x\n" + text)
    check(verdict[at_least[1][0]] == "NOT met", text)
    if len(at_most) > 1:
        check(verdict[at_most[1][0]] == "NOT met", text)
    check(verdict[at_least[2][0]] == "NOT MEASURED", text)
    check(met == 2 and total == len(goals.GOALS), "%d of %d" % (met, total))
    check(lines[-1] == "goals met: 2 of %d" % total, lines[-1])
    # Beside each goal: the job its figure measures and what it is compared
    # against (its floor or baseline), on the two lines after it.
    for i, line in enumerate(lines):
        for g in goals.GOALS:
            if " %s " % g[0] in line:
                check(lines[i + 1].strip() == "job:     " + g[3] and
                      lines[i + 2].strip() == "against: " + g[4],
                      "job and baseline beside %s\n%s" % (g[0], text))
    check(all(g[3] and g[4] for g in goals.GOALS), "a goal without its job")


def test_check(work):
    """run_bench.py --check FILE: exit 0 when every goal of FILE's figures
    is met, 1 naming the goals missed (one below its threshold, one not
    measured), 2 for a file that is no bench.json; goals.missed agrees."""
    at_least, at_most = _goal_names()
    met = {name: (threshold * 2 if op == ">=" else threshold / 2)
           for name, op, threshold in (g[:3] for g in goals.GOALS)}
    check(goals.missed(met) == [], "all met: %r" % goals.missed(met))
    low = dict(met)
    low[at_least[0][0]] = at_least[0][2] * 0.999
    del low[at_least[1][0]]
    check(goals.missed(low) == [at_least[0][0], at_least[1][0]],
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
    check(p.returncode == 1 and "bench: FAIL: 2 of %d goals not met: %s, %s"
          % (len(goals.GOALS), at_least[0][0], at_least[1][0]) in p.stdout,
          "--check, a goal missed: exit %d\n%s%s" % (p.returncode, p.stdout,
                                                     p.stderr))
    # A whole run (what `make bench` runs), measuring nothing but a stand-in
    # instruction count: its goals are NOT MEASURED, its exit 1, and its
    # bench.json holds the figure and the count of goals met.
    saved, argv = run_bench.instructions.measure, sys.argv
    run_bench.instructions.measure = lambda *a, **k: {
        at_most[0][0]: at_most[0][2] / 2}
    sys.argv = ["run_bench.py", "--no-ratios", "--out",
                os.path.join(work, "run")]
    try:
        rc = run_bench.main()
    finally:
        run_bench.instructions.measure, sys.argv = saved, argv
    with open(os.path.join(work, "run", "bench.json"), encoding="utf-8") as f:
        doc = json.load(f)
    check(rc == 1 and doc["goals_met"] == [1, len(goals.GOALS)] and
          doc["figures"] == {at_most[0][0]: at_most[0][2] / 2},
          "run_bench.main with goals not measured: exit %r, %r" % (rc, doc))
    for bad in ("{", json.dumps({"figures": {"x": "fast"}}), "[]"):
        p = run(bad, "bad.json")
        check(p.returncode == 2 and "not a bench.json" in p.stderr,
              "--check %r: exit %d %s" % (bad, p.returncode, p.stderr))


def _part(part, spec, *args):
    p = subprocess.run([part, spec] + [str(a) for a in args],
                       capture_output=True, text=True, check=False)
    return p.returncode, p.stdout, p.stderr


def test_part(part, spec):
    """bench_check_spec_part (built: ctest bench_check_spec_part) on the
    first 50,000 cases at 0.4.20: its counts read by parse_part; SELECT
    absent and judged count all-absent and all-judged cases apart, the same
    mixed cases left out by both, and together they are every operation
    the whole run judges; bad arguments exit 2 with the usage."""
    n = 50000
    code, out, err = _part(part, spec, n, "0.4.20")
    check(code == 0, "part exit %d: %s" % (code, err))
    whole = instructions.parse_part(out, n)
    check(whole["cases"] == n and whole["absent"] > 0, repr(whole))
    sel = {}
    for kind in ("absent", "judged"):
        code, out, err = _part(part, spec, n, "0.4.20", kind)
        check(code == 0, "part %s exit %d: %s" % (kind, code, err))
        sel[kind] = instructions.parse_part(out, n)
    a, j = sel["absent"], sel["judged"]
    check(a["ops"] == a["absent"] > 0 and j["absent"] == 0 and j["ops"] > 0,
          "absent cases all absent, judged ones none: %r" % sel)
    check(a["mixed_cases"] == j["mixed_cases"] > 0 and
          a["mixed_ops"] == j["mixed_ops"], "the same mixed cases: %r" % sel)
    check(a["ops"] + j["ops"] + a["mixed_ops"] == whole["ops"] and
          a["selected_cases"] + j["selected_cases"] + a["mixed_cases"] == n,
          "absent + judged + mixed is the whole: %r %r" % (sel, whole))
    check(whole["absent"] - a["ops"] <= a["mixed_ops"],
          "the other absent operations are in mixed cases: %r" % sel)
    code, out, _ = _part(part, spec, 0)
    check(code == 0 and instructions.parse_part(out, 0)["cases"] == 0 and
          "release modelled" in out, "the start-up run: " + out)
    for bad in (["-1"], ["x"], ["1", "9.9.9"], ["1", "0.4.20", "some"],
                ["1", "0.4.20", "absent", "x"], []):
        code, out, err = _part(part, spec, *bad)
        check(code == 2 and not out and err.strip(),
              "part %r: exit %d %r %r" % (bad, code, out, err))


def test_cpu_meter(work):
    """cpu_meter.py: the command's exit status and wall seconds; in a control
    group (as root) the CPU of a grandchild killed and never reaped by the
    command (how lctx stops a peer) is counted."""
    base = os.path.join(work, "meter")
    spin = "import time\nwhile True: pass"
    cmd = ("%s -c %s & sleep 0.6; kill -9 $!; exit 3"
           % (sys.executable, "'" + spin + "'"))
    code = subprocess.call([sys.executable,
                            os.path.join(HERE, "cpu_meter.py"), base,
                            "sh", "-c", cmd])
    check(code == 3, "cpu_meter.py: exit %d, not the command's 3" % code)
    wall_s = float(open(base + ".s").read())
    cpu = float(open(base + ".cpu").read())
    scope = open(base + ".scope").read()
    check(wall_s >= 0.6, "cpu_meter.py: wall %.3f s under the 0.6 s slept"
          % wall_s)
    check(scope in ("cgroup", "reaped"), "cpu_meter.py: scope %r" % scope)
    if scope == "cgroup":
        check(cpu >= 0.05, "cpu_meter.py: the killed grandchild's CPU is "
              "not counted (%.3f s)" % cpu)
    else:
        print("cpu_meter.py: no control group here; the grandchild's CPU "
              "is not checked")


def test_sweep_trace(work):
    """bench_sweep.py: the exporters' trace read (hellos and requests), a
    torn trace refused as not measured, and the figures of made-up runs:
    start-up left out of the rates, the ratios of the same slice."""
    path = os.path.join(work, "trace.jsonl")
    with open(path, "w") as f:
        f.write('{"proc": 7, "hello": 10.0, "cpu": 1.0}\n'
                '{"proc": 7, "t0": 10.5, "t1": 11.0, "cpu": 1.4, '
                '"items": [["p1", ["cpu", "cuda"]], ["p1", ["cpu"]]]}\n')
    hellos, requests = bench_sweep.read_trace(path)
    check(hellos == {7: (10.0, 1.0)}, "read_trace hellos: %r" % hellos)
    check(requests == [(7, 10.5, 11.0, [("p1", ("cpu", "cuda")),
                                        ("p1", ("cpu",))], 1.4)],
          "read_trace requests: %r" % requests)
    with open(path, "a") as f:
        f.write('{"proc": 7, "t0": 1')
    try:
        bench_sweep.read_trace(path)
        check(False, "read_trace took a torn line")
    except bench_sweep.Unmeasured as err:
        check(path in str(err), "read_trace's refusal: %s" % err)
    run = {"jobs": 1, "exports": 100, "steady_exports": 90, "steady": 9.0,
           "wall": 11.0, "startup": 2.0, "busy": 8.0, "lctx_cpu": 0.5,
           "exporter_cpu": 4.5}
    run2 = dict(run, jobs=2, steady_exports=80, steady=4.0, wall=6.0)
    floor = {"exports": 100, "seconds": 12.5, "startup_seconds": 1.5,
             "export_seconds": 6.0, "call_seconds": 6.5, "cpu_seconds": 4.0}
    args = bench_sweep.parse_args(["--limit", "5"])
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        bench_sweep.report(args, run, run2, floor)
        bench_sweep.report_cpu(run, floor)
    figs = run_bench.parse_figures(text.getvalue())
    want = {"sweep.floor.exports_per_s": 8.0, "sweep.jobs1.exports_per_s":
            10.0, "sweep.jobs2.exports_per_s": 20.0, "sweep.vs_floor": 1.25,
            "sweep.jobs2_vs_jobs1": 2.0, "sweep.vs_floor_cpu": 0.8}
    for name, value in want.items():
        check(abs(figs.get(name, -1) - value) < 1e-3,
              "bench_sweep %s: %r, not %r" % (name, figs.get(name), value))


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--part" and \
            sys.argv[3] == "--spec":
        test_part(sys.argv[2], sys.argv[4])
        print("bench_check_spec_part: OK")
        return
    with tempfile.TemporaryDirectory(prefix="lctx-test-bench.") as work:
        test_compare(work)
        test_parse()
        test_totals(work)
        test_wall()
        test_check_spec_output()
        test_check_spec_figures()
        test_best_runs()
        test_parse_part()
        test_goals()
        test_check(work)
        test_cpu_meter(work)
        test_sweep_trace(work)
    print("bench scripts: OK")


if __name__ == "__main__":
    main()
