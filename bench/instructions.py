"""bench/instructions.py - instruction counts of lctx's hot paths under
valgrind --tool=callgrind, per input, per operation or per case.

Instruction counts repeat for the same binary and input whatever else the
machine does, unlike wall-clock figures on a shared machine. Each figure
subtracts a run of the same kind with zero inputs (the start-up cost):

  fuzz_model.instr_per_input    fuzz_model_replay over corpus/seeds/fuzz_model
                                minus an empty folder, per input replayed
  fuzz_empty.instr_per_input    the same driver linked with fuzzers/fuzz_empty.c
  fuzz_model.checks_instr_per_input  the same replay, counting only the
                                instructions inside lctx_oracle_check_case
                                (the model run and its judging: what the
                                decode floor does not do), per input
  fuzz_model.replay_instr_vs_empty  fuzz_model / fuzz_empty: how many
                                times the empty target's replay instructions
                                per input fuzz_model's cost (an instruction
                                ratio of the replay drivers, not a fuzzing
                                throughput: libFuzzer's own loop is not in it)
  check_spec.instr_per_op_one_release  check-spec's whole job at one
                                release, the modelled commit (lctx check-spec
                                --jax modelled --jobs 1: every case of the
                                bounded domain enumerated and judged,
                                bench_check_spec_part SPEC LIMIT with LIMIT
                                above the domain's size) minus LIMIT 0, per
                                operation (and .._per_case_.. per case);
                                no operation is absent at the modelled
                                commit, and the figure is refused if one is.
                                A baseline's own bench_check_spec_part (SPEC
                                LIMIT, no RELEASE) judges its one release,
                                the modelled commit: the same job
  check_spec.absent.instr_per_op  the operations release ABSENT_RELEASE
                                does not have, apart: the judging alone
                                (enumeration not collected) of the cases all
                                of whose operations are absent there, per
                                operation (bench_check_spec_part ... absent;
                                cases mixing absent and judged operations
                                are left out and their count logged)
  conform_plugin.*_per_case     lctx conform --impl (the example C plugin),
                                --random N minus --random 0: lctx itself,
                                its children (worker, judge), and both; one
                                job (--jobs 1, where lctx has --jobs). A
                                child ended by a signal writes no totals:
                                then the children's figures are dropped,
                                never reported short
  conform_protocol.lctx_per_case  lctx conform --cmd (the Python example),
                                lctx's own instructions only
                                (per case handed to it: the example does not
                                support the lowering cases, which count too)

Used by bench/run_bench.py; on its own: python3 bench/instructions.py
[--build DIR] [--src DIR] [--cases N] prints the figures as JSON.
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile


def _totals(path):
    """The instruction total of one callgrind out file, or None."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"^(?:summary|totals):\s+(\d+)", line)
            if m:
                return int(m.group(1))
    return None


def callgrind(argv, work, children=False, cwd=None, only=None):
    """Runs argv under callgrind; returns (main_instr, children_instr,
    stdout+stderr). Forked children write their own files; the main
    process is the one whose pid valgrind reports first. With `only` (a
    function name), only the instructions run inside that function (and
    what it calls) are counted."""
    out = tempfile.mkdtemp(prefix="cg.", dir=work)
    collect = (["--collect-atstart=no", "--toggle-collect=" + only] if only
               else ["--collect-atstart=yes"])
    cmd = ["valgrind", "--tool=callgrind"] + collect + [
           "--trace-children=" + ("yes" if children else "no"),
           "--callgrind-out-file=" + os.path.join(out, "cg.%p")] + argv
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, check=False)
    m = re.search(r"^==(\d+)== Command:", p.stdout, re.M)
    if p.returncode not in (0, 1) or not m:
        raise RuntimeError("failed (exit %d): %s\n%s" % (
            p.returncode, " ".join(argv), p.stdout[-2000:]))
    main_pid = m.group(1)
    main, rest, lost = None, 0, []
    for path in glob.glob(os.path.join(out, "cg.*")):
        n = _totals(path)
        if path.endswith("." + main_pid):
            main = n
        elif n is not None:
            rest += n
        else:
            lost.append(os.path.basename(path))
    if main is None:
        raise RuntimeError("no callgrind totals for " + " ".join(argv))
    if lost and children:
        # A child killed at the end (SIGKILL) writes no totals: the
        # children's sum would be short, so there is none.
        print("instructions: %d child process(es) of %s wrote no totals "
              "(ended by a signal); the children's figure is dropped" %
              (len(lost), argv[1]), file=sys.stderr)
        rest = None
    return main, rest, p.stdout


def fuzz_figures(build, seeds, empty_replay, work, log):
    """fuzz_model and the empty target per input over the folder SEEDS, and
    their ratio."""
    figs = {}
    nothing = tempfile.mkdtemp(prefix="empty.", dir=work)
    targets = [("fuzz_model",
                os.path.join(build, "fuzzers", "fuzz_model_replay")),
               ("fuzz_empty", empty_replay)]
    for name, binary in targets:
        if not binary or not os.access(binary, os.X_OK):
            log("skipped %s: no replay driver %s" % (name, binary))
            continue
        zero, _, _ = callgrind([binary, nothing], work)
        total, _, out = callgrind([binary, seeds], work)
        m = re.search(r"replayed (\d+) inputs", out)
        if not m or int(m.group(1)) == 0:
            log("skipped %s: the replay reported no inputs" % name)
            continue
        figs[name + ".instr_per_input"] = (total - zero) / int(m.group(1))
    model = figs.get("fuzz_model.instr_per_input")
    empty = figs.get("fuzz_empty.instr_per_input")
    if model and empty:
        figs["fuzz_model.replay_instr_vs_empty"] = model / empty
    if model:
        checks = checks_per_input(
            os.path.join(build, "fuzzers", "fuzz_model_replay"), seeds, work,
            log)
        if checks is not None:
            figs["fuzz_model.checks_instr_per_input"] = checks
    return figs


# fuzz_model's checks: the oracle judging a decoded case (the reference
# model run, every spec row and invariant; harness/core/checks/fuzzcheck.c
# lctx_fuzz_model). What the decode floor does not do.
CHECKS_FUNCTION = "lctx_oracle_check_case"


def checks_per_input(binary, seeds, work, log):
    """The instructions per input run inside CHECKS_FUNCTION when BINARY
    replays SEEDS, or None (said why)."""
    total, _, out = callgrind([binary, seeds], work, only=CHECKS_FUNCTION)
    m = re.search(r"replayed (\d+) inputs", out)
    if not m or int(m.group(1)) == 0 or not total:
        log("skipped fuzz_model.checks_instr_per_input: no input replayed "
            "or nothing counted in %s" % CHECKS_FUNCTION)
        return None
    return total / int(m.group(1))


# Above the bounded domain's size: bench_check_spec_part judges it all.
WHOLE_DOMAIN = 1000000000
# The release whose absent operations are measured apart: the oldest the
# table names, where the most operations do not exist yet.
ABSENT_RELEASE = "0.4.20"
PART_LINE = re.compile(r"^(\d+) cases judged, (\d+) operations"
                       r"(?: \((\d+) absent\))?, (\d+) violations", re.M)
SELECT_LINE = re.compile(r"^select (\w+): (\d+) cases, (\d+) operations; "
                         r"(\d+) mixed cases \((\d+) operations\)", re.M)


def parse_part(out, limit):
    """bench_check_spec_part's counts: {cases, ops, absent} (absent None
    when the binary does not say; with a select line also selected_cases,
    mixed_cases, mixed_ops), or a RuntimeError naming what is wrong: no
    counts, a violation, or, with LIMIT WHOLE_DOMAIN, no operation or the
    limit reached (then the domain did not end: not all of it judged)."""
    m = PART_LINE.search(out)
    if not m:
        raise RuntimeError("bench_check_spec_part printed no counts: " +
                           out[-300:])
    cases, ops = int(m.group(1)), int(m.group(2))
    if int(m.group(4)) != 0:
        raise RuntimeError("bench_check_spec_part found %s violations" %
                           m.group(4))
    if limit == WHOLE_DOMAIN and (cases >= limit or ops == 0):
        raise RuntimeError("bench_check_spec_part did not judge the whole "
                           "domain (%d cases, %d operations)" % (cases, ops))
    counts = {"cases": cases, "ops": ops,
              "absent": int(m.group(3)) if m.group(3) is not None else None}
    sel = SELECT_LINE.search(out)
    if sel:
        counts.update(selected_cases=int(sel.group(2)),
                      mixed_cases=int(sel.group(4)),
                      mixed_ops=int(sel.group(5)))
    return counts


def _part_takes_release(part):
    """Whether this bench_check_spec_part takes RELEASE [SELECT] (a
    baseline's may be older: SPEC LIMIT, the modelled commit only)."""
    p = subprocess.run([part], capture_output=True, text=True, check=False)
    return "RELEASE" in p.stderr


def one_release_figures(part, spec, work, takes_release):
    """The whole domain judged at the modelled commit, per operation."""
    rel = ["modelled"] if takes_release else []
    zero, _, _ = callgrind([part, spec, "0"] + rel, work)
    total, _, out = callgrind([part, spec, str(WHOLE_DOMAIN)] + rel, work)
    n = parse_part(out, WHOLE_DOMAIN)
    if n["absent"]:
        raise RuntimeError("%d operations absent at the modelled commit: "
                           "the per-operation figure would mix them in" %
                           n["absent"])
    return {"check_spec.instr_per_op_one_release": (total - zero) / n["ops"],
            "check_spec.instr_per_case_one_release":
                (total - zero) / n["cases"],
            "check_spec.ops_one_release": n["ops"]}


def absent_figures(part, spec, work, log):
    """The judging of the cases all absent at ABSENT_RELEASE, per
    operation (the enumeration not collected)."""
    args = [ABSENT_RELEASE, "absent"]
    zero, _, _ = callgrind([part, spec, "0"] + args, work)
    total, _, out = callgrind([part, spec, str(WHOLE_DOMAIN)] + args, work)
    n = parse_part(out, WHOLE_DOMAIN)
    if not n["ops"] or n["absent"] != n["ops"]:
        raise RuntimeError("the absent cases at %s were not all absent "
                           "(%d operations, %s absent)" %
                           (ABSENT_RELEASE, n["ops"], n["absent"]))
    per_op = (total - zero) / n["ops"]
    log("check_spec.absent.instr_per_op %.0f: instructions per operation "
        "absent at %s (not judged), the judging alone (enumeration not "
        "counted) of the %d cases all of whose operations are absent there "
        "(%d operations); %d cases mixing absent and judged operations (%d "
        "operations) left out" % (per_op, ABSENT_RELEASE,
                                  n.get("selected_cases", 0), n["ops"],
                                  n.get("mixed_cases", 0),
                                  n.get("mixed_ops", 0)))
    return {"check_spec.absent.instr_per_op": per_op,
            "check_spec.absent.ops": n["ops"]}


def check_spec_figures(build, src, work, log):
    """check-spec's whole job at one release per operation, and (where the
    build's bench_check_spec_part can select them) the absent operations'
    cost apart."""
    part = os.path.join(build, "bench", "bench_check_spec_part")
    if not os.access(part, os.X_OK):
        log("skipped check_spec: no " + part)
        return {}
    spec = os.path.join(src, "conformance", "spec", "backend-selection.lspec")
    takes_release = _part_takes_release(part)
    figs = one_release_figures(part, spec, work, takes_release)
    log("check_spec.instr_per_op_one_release %.0f (%s): instructions per "
        "operation of check-spec's whole job at the modelled commit alone, "
        "%d operations (none absent), enumeration and judging, start-up "
        "subtracted" % (figs["check_spec.instr_per_op_one_release"], build,
                        figs["check_spec.ops_one_release"]))
    if takes_release:
        try:
            figs.update(absent_figures(part, spec, work, log))
        except RuntimeError as e:
            log("skipped check_spec.absent: %s" % str(e).strip()[:400])
    return figs


def _one_job(lctx):
    """["--jobs", "1"] when this lctx conform has --jobs, else []."""
    p = subprocess.run([lctx, "conform", "--help"], capture_output=True,
                       text=True, check=False)
    return ["--jobs", "1"] if "--jobs" in p.stdout + p.stderr else []


def _conform(lctx, src, impl, n, work, children):
    nocases = tempfile.mkdtemp(prefix="nocases.", dir=work)
    report = tempfile.mkdtemp(prefix="report.", dir=work)
    spec = os.path.join(src, "conformance", "spec", "backend-selection.lspec")
    argv = [lctx, "conform"] + _one_job(lctx) + impl + [
        "--spec", spec, "--cases", nocases, "--no-domain", "--random", str(n),
        "--quiet", "--report-dir", report]
    main, rest, _ = callgrind(argv, work, children=children)
    with open(os.path.join(report, "report.json"), encoding="utf-8") as f:
        rep = json.load(f)
    run = rep["cases_run"] + rep.get("cases_unsupported", 0)
    if run != n:
        raise RuntimeError("conform ran %d cases, not %d" % (run, n))
    return main, rest


def conform_figures(build, src, n, work, log):
    """Per conform case through the C plugin and the process protocol."""
    figs = {}
    lctx = os.path.join(build, "harness", "lctx")
    plugin = os.path.join(build, "conformance", "examples", "c_plugin",
                          "liblctx_example_plugin.so")
    py = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) \
        else sys.executable
    example = os.path.join(src, "conformance", "examples", "python",
                           "lctx_example.py")
    if os.path.exists(plugin):
        m0, c0 = _conform(lctx, src, ["--impl", plugin], 0, work, True)
        m1, c1 = _conform(lctx, src, ["--impl", plugin], n, work, True)
        figs["conform_plugin.lctx_per_case"] = (m1 - m0) / n
        if c0 is None or c1 is None:
            log("conform_plugin: a child's instructions were lost; "
                "children_per_case and total_per_case are left out")
        else:
            figs["conform_plugin.children_per_case"] = (c1 - c0) / n
            figs["conform_plugin.total_per_case"] = (m1 + c1 - m0 - c0) / n
    else:
        log("skipped conform_plugin: no " + plugin)
    if os.path.exists(example):
        cmd = ["--cmd", "%s %s" % (py, example)]
        m0, _ = _conform(lctx, src, cmd, 0, work, False)
        m1, _ = _conform(lctx, src, cmd, n, work, False)
        figs["conform_protocol.lctx_per_case"] = (m1 - m0) / n
    else:
        log("skipped conform_protocol: no " + example)
    return figs


def measure(build, src, empty_replay, cases, log, seeds=None):
    """All figures of one build; a part that fails is skipped and logged.
    SEEDS (default: SRC's corpus/seeds/fuzz_model) are the inputs replayed;
    a baseline is given the current tree's, so both replay the same bytes."""
    figs = {}
    seeds = seeds or os.path.join(src, "corpus", "seeds", "fuzz_model")
    with tempfile.TemporaryDirectory(prefix="lctx-bench-instr.") as work:
        parts = [("fuzz", lambda: fuzz_figures(build, seeds, empty_replay,
                                               work, log)),
                 ("check_spec", lambda: check_spec_figures(build, src, work,
                                                           log)),
                 ("conform", lambda: conform_figures(build, src, cases,
                                                     work, log))]
        for name, part in parts:
            try:
                figs.update(part())
            except (RuntimeError, OSError, ValueError, KeyError) as e:
                log("skipped %s: %s" % (name, str(e).strip()[:600]))
    return figs


def main():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(top, "build", "release"))
    ap.add_argument("--src", default=top)
    ap.add_argument("--empty-replay", default=None)
    ap.add_argument("--cases", type=int, default=500)
    a = ap.parse_args()
    empty = a.empty_replay or os.path.join(a.build, "bench",
                                           "bench_empty_replay")
    figs = measure(a.build, a.src, empty, a.cases,
                   lambda s: print("instructions: " + s, file=sys.stderr))
    json.dump(figs, sys.stdout, indent=2, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
