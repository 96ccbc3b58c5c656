"""The JAX drift matrix: every spec row against several JAX releases.

    python3 tools/jax_matrix.py [options] [VERSION ...] [CONFORM OPTIONS] [-- MORE]

For each JAX version (default: every conformance/adapters/requirements/
jax-VERSION.txt, oldest first) it

1. installs that JAX, pinned and hashed, with `sh tools/setup-jax.sh VERSION`
   (a no-op when it is there already); a version whose Python is missing
   here (setup-jax.sh exit status 3) is recorded as "not installable here";
2. runs `lctx conform --jax VERSION --cmd "build/jax/venv-VERSION/bin/python
   conformance/adapters/jax_adapter.py" --report-dir build/jax-matrix/VERSION`
   (judged as that release behaves), then the same without --jax into
   build/jax-matrix/VERSION/modelled (judged as the modelled commit
   behaves), with the conform options given here (--no-domain, --random N,
   --shard I/N, ...); exit status 1 (failures) is data, exit status 2 (a
   refusal or bad input) records the version as "could not run";
3. merges the runs of each side with `lctx report merge --runs` (into
   build/jax-matrix/VERSION/merged and VERSION/modelled/merged): lctx
   reads and checks every report.json and says the verdict (PASS, FAIL,
   INTERRUPTED, INCOMPLETE, NOTHING JUDGED), which is the version's
   status; then traces each cell against the spec table as `lctx export
   spec` gives it (below);
4. runs `lctx sweep --subset ci` (JAX as the subject: the CI subset of the
   catalogue of conformance/adapters/jax_export.py) into
   build/jax-matrix/VERSION/sweep/, unless --no-sweep, and tables its
   totals and findings per version (new findings against the known
   defects of conformance/sweep/regressions, which are the pinned
   release's).

It then writes build/jax-matrix/matrix.json and build/jax-matrix/matrix.md:
the spec rows (in the spec's order) against the versions, each cell the
release's own verdict (`pass`, `fail (...)` naming the first failing case,
`unsupported`, or `—`: no case reached the row) and whether it differs from
the modelled commit, with its trace; per-version totals and the version the
adapter reported, and the status per release of every upstream defect and
generated-program finding (their reports' status blocks).

Options of its own:
  --lctx PATH    the lctx command (default build/release/harness/lctx)
  --out DIR      where the matrix goes (default build/jax-matrix)
  --domain-shard I/N
                 run the conformance cases and the random cases in one
                 conform run without the domain, and the I-th of N shares of
                 the bounded domain in a second one (reports in
                 build/jax-matrix/VERSION/domain/); the cells and totals add
                 both up. (conform's own --shard shares every case source,
                 the conformance cases included.) `make jax-matrix` uses
                 --random 10000 --domain-shard 1/8 --time-limit 900.
  --no-sweep     leave out step 4
  --findings DIR the findings of an `lctx generate` run (OUT/findings):
                 their status per release joins the upstream reports'
                 (docs/upstream-*.md) in matrix.md, as the status blocks of
                 their report.md say (tools/defect_status.py --write)
  --time-limit SECONDS
                 stop a version's conform runs after SECONDS in all (SIGINT:
                 lctx conform then writes the reports of what ran, marked
                 interrupted); the version's cells then hold what was
                 reached. conform sees the signal between batches (of up to
                 256 cases, --batch), so a run can overshoot the limit,
                 especially when the adapter crashes and is restarted for
                 every crash; after 300 s more it is killed.
  -h, --help     this text
Conform options passed through: --no-domain, --process-per-case, --quiet,
--first-failure (flags), --random, --seed, --spec, --cases, --xfail,
--messages, --ops, --shard, --timeout, --batch (with a value); anything
after `--` is passed through as it is.

With LCTX_JAX=off in the environment (as for tools/setup-jax.sh) every
version is skipped.

Each version runs twice: judged as that release behaves (`lctx conform
--jax VERSION`, reports in build/jax-matrix/VERSION/) and as the modelled
commit behaves (build/jax-matrix/VERSION/modelled/). A cell that differs
from the modelled commit is explained when lctx conform traced every
operation that differs to the spec's `was` lines and facts (each citing
the commit that changed it) and the release's own run passes, or when the
row is absent in that release; matrix.md lists the traces.

Exit status: 0 the matrix was written, at least one version ran, lctx
judged every version that ran as PASS or FAIL and every cell is explained;
4 some cell is unexplained (a failure as the release itself behaves, or
drift without a trace) or lctx called a version's run INCOMPLETE,
INTERRUPTED or NOTHING JUDGED; 1 no version ran (the matrix is still
written, saying why), the spec table cannot be exported (`lctx export
spec`) or the matrix could not be written; 2 bad usage.

Standard library only; the parts are in tools/lctx_matrix/ (lctx: what
the matrix asks lctx; runs: installing and running; cells: the cells and
their traces; render: matrix.json and matrix.md; cli: this command).
"""

import datetime
import json
import os
import re
import sys

from lctx_matrix.lctx import RESULTS, LctxError, export_spec, merge_runs
from lctx_matrix.render import write_outputs
from lctx_matrix.runs import (CONFORM_FLAGS, CONFORM_OWNED, CONFORM_VALUED,
                              INTERRUPTED, REQ_DIR, ROOT, available_versions,
                              conform_runs, run_conform, run_sweep, say,
                              setup, venv_python_version)

DEFAULT_LCTX = os.path.join("build", "release", "harness", "lctx")
DEFAULT_OUT = os.path.join("build", "jax-matrix")
VERSION_RE = re.compile(r"^\d+(\.\d+)+$")


def usage_error(message):
    sys.stderr.write("jax-matrix: %s\n(see python3 tools/jax_matrix.py "
                     "--help)\n" % message)
    sys.exit(2)


def option_value(argv, i, missing):
    """The value of the option argv[i] (`--name=VALUE` or `--name VALUE`)
    and the index of its last word; a usage error `missing` when there is
    none."""
    _, eq, inline = argv[i].partition("=")
    if eq:
        return inline, i
    if i + 1 < len(argv):
        return argv[i + 1], i + 1
    usage_error(missing)


def parse_args(argv):
    opts = {"lctx": None, "out": DEFAULT_OUT, "versions": [], "conform": [],
            "domain_shard": None, "raw": [], "time_limit": None,
            "sweep": True, "findings": []}
    i = 0
    while i < len(argv):
        a = argv[i]
        name, eq, _ = a.partition("=")
        if a in ("-h", "--help"):
            sys.stdout.write(__doc__)
            sys.exit(0)
        elif a == "--":
            opts["raw"] = argv[i + 1:]
            break
        elif a == "--no-sweep":
            opts["sweep"] = False
        elif name == "--findings":
            value, i = option_value(argv, i, "--findings needs a folder")
            if not os.path.isdir(value):
                usage_error("--findings: %r is not a folder" % value)
            opts["findings"].append(os.path.abspath(value))
        elif name in ("--lctx", "--out", "--domain-shard", "--time-limit"):
            value, i = option_value(argv, i, "%s needs a value" % name)
            opts[name[2:].replace("-", "_")] = value
        elif name in CONFORM_OWNED:
            usage_error("%s is set by the matrix for each version" % name)
        elif a in CONFORM_FLAGS:
            opts["conform"].append(a)
        elif name in CONFORM_VALUED:
            if eq:
                opts["conform"].append(a)
            elif i + 1 < len(argv):
                opts["conform"].extend([a, argv[i + 1]])
                i += 1
            else:
                usage_error("%s needs a value" % a)
        elif a.startswith("-"):
            usage_error("unknown option %s (pass other lctx conform options "
                        "after --)" % a)
        elif VERSION_RE.match(a):
            opts["versions"].append(a)
        else:
            usage_error("not a JAX version: %r" % a)
        i += 1
    if opts["time_limit"] is not None:
        try:
            opts["time_limit"] = float(opts["time_limit"])
        except ValueError:
            opts["time_limit"] = -1
        if opts["time_limit"] <= 0:
            usage_error("--time-limit needs a positive number of seconds")
    if opts["domain_shard"] is not None:
        m = re.match(r"^(\d+)/(\d+)$", opts["domain_shard"])
        if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
            usage_error("--domain-shard: %r is not I/N with 1 <= I <= N"
                        % opts["domain_shard"])
        if any(a.split("=")[0] == "--shard" for a in opts["conform"]):
            usage_error("--domain-shard and --shard do not go together")
    return opts


def spec_option(opts):
    """The spec table the conform runs are given (--spec), or None."""
    args = opts["conform"] + opts["raw"]
    for i, a in enumerate(args):
        if a.startswith("--spec="):
            return a.split("=", 1)[1]
        if a == "--spec" and i + 1 < len(args):
            return args[i + 1]
    return None


def judge(lctx, r, dirs, stopped, opts):
    """lctx's verdict on a version's runs: each side's report folders
    merged by `lctx report merge --runs`, the release's result its status
    (a run lctx calls INCOMPLETE is "incomplete", never "pass"). Sets r's
    report, modelled_report, result and status; returns why lctx refused
    (None when it did not)."""
    version_dir = r["report_dir"]
    report, result, why = merge_runs(
        lctx, dirs["release"], os.path.join(version_dir, "merged"))
    if report is None:
        return "lctx report merge: %s" % why
    if dirs["modelled"]:
        modelled, _, why = merge_runs(
            lctx, dirs["modelled"],
            os.path.join(version_dir, "modelled", "merged"))
        if modelled is None:
            return "lctx report merge (as the modelled commit): %s" % why
        r["modelled_report"] = modelled
    r["report"], r["result"] = report, result
    r["merged_dir"] = os.path.join(version_dir, "merged")
    r["status"] = RESULTS[result]
    if stopped:
        r["status"] += " (partial)"
        r["message"] = (
            "interrupted: the cells hold what ran" if INTERRUPTED
            else "stopped at the time limit (%g s): the cells hold what ran"
            % opts["time_limit"])
    return None


def main(argv):
    cwd = os.getcwd()
    opts = parse_args(argv)
    os.chdir(ROOT)
    lctx = os.path.abspath(os.path.join(cwd, opts["lctx"])) if opts["lctx"] \
        else os.path.join(ROOT, DEFAULT_LCTX)
    out_dir = os.path.abspath(os.path.join(cwd, opts["out"])) if opts["out"] \
        != DEFAULT_OUT else os.path.join(ROOT, DEFAULT_OUT)
    # Paths under the repository are given relative to it (the commands run
    # there), so the reports and matrix.json do not depend on where it is.
    if out_dir.startswith(ROOT + os.sep):
        out_dir = os.path.relpath(out_dir, ROOT)
    if lctx.startswith(ROOT + os.sep):
        lctx = os.path.relpath(lctx, ROOT)
    if not os.access(lctx, os.X_OK):
        sys.stderr.write("jax-matrix: %s is not there; build it first (make "
                         "build), or pass --lctx PATH\n" % lctx)
        return 1
    try:
        spec = export_spec(lctx, spec_option(opts))
    except LctxError as e:
        sys.stderr.write("jax-matrix: the spec table: %s\n" % e)
        return 1
    versions = opts["versions"] or available_versions()
    if not versions:
        sys.stderr.write("jax-matrix: no requirements files in %s\n"
                         % REQ_DIR)
        return 1
    for v in versions:
        if not os.path.exists(os.path.join(REQ_DIR, "jax-%s.txt" % v)):
            usage_error("no requirements file for JAX %s (there are: %s)" % (
                v, ", ".join(available_versions())))
    started = datetime.datetime.now(datetime.timezone.utc).strftime(
        "%Y-%m-%d %H:%M UTC")
    say("JAX versions %s; conform options: %s%s" % (
        ", ".join(versions),
        " ".join(opts["conform"] + opts["raw"]) or "(lctx's defaults)",
        "; domain share %s in a second run" % opts["domain_shard"]
        if opts["domain_shard"] else ""))

    results = []
    for version in versions:
        if INTERRUPTED:
            results.append({"version": version, "status": "not run",
                            "message": "the matrix was interrupted"})
            continue
        r = {"version": version,
             "report_dir": os.path.relpath(os.path.join(out_dir, version),
                                           ROOT)}
        ok, status, message, seconds, note = setup(version)
        r["install_seconds"] = round(seconds, 1)
        r["install"] = note
        if not ok:
            r["status"], r["message"] = status, message
            say("%s: %s: %s" % (version, status, message))
            results.append(r)
            continue
        r["python"] = venv_python_version(version)
        dirs, runs, total, refused = {"release": [], "modelled": []}, \
            [], 0.0, None
        stopped = False
        for label, report_dir, args, side in conform_runs(opts, out_dir,
                                                          version):
            limit = None
            if opts["time_limit"] is not None:
                limit = opts["time_limit"] - total
                if limit <= 0 or INTERRUPTED:
                    stopped = True
                    why = ("interrupted" if INTERRUPTED
                           else "the time limit is reached")
                    runs.append({"run": label, "args": args, "exit": None,
                                 "skipped": why})
                    say("%s: %s skipped: %s" % (version, label, why))
                    continue
            code, ran, message, seconds, stop = run_conform(
                lctx, version, report_dir, args, limit)
            total += seconds
            stopped = stopped or stop
            runs.append({"run": label, "args": args, "exit": code,
                         "seconds": round(seconds, 1), "stopped": stop,
                         "report_dir": os.path.relpath(report_dir, ROOT)})
            if not ran:
                refused = message
                break
            dirs[side].append(report_dir)
        r["run_seconds"] = round(total, 1)
        r["conform_runs"] = runs
        r["conform_exit"] = max(x["exit"] for x in runs
                                if x["exit"] is not None)
        if refused is None:
            refused = judge(lctx, r, dirs, stopped, opts)
        if refused is not None:
            r["status"] = "could not run"
            r["message"] = refused
        if opts["sweep"] and not INTERRUPTED:
            r["sweep"] = run_sweep(lctx, version, out_dir)
            say("%s: sweep (CI subset): %s, %s new findings (%.1f s)" % (
                version, r["sweep"]["status"],
                r["sweep"].get("new_findings", "?"), r["sweep"]["seconds"]))
        say("%s: %s%s (install %.1f s, conform %.1f s)" % (
            version, r["status"], ": " + r["message"] if r.get("message")
            else "", r["install_seconds"], r["run_seconds"]))
        results.append(r)

    try:
        json_path, md_path, summaries = write_outputs(
            out_dir, opts, argv, lctx, results, started, spec)
    except OSError as e:
        sys.stderr.write("jax-matrix: cannot write the matrix: %s\n" % e)
        return 1
    say("matrix: %s and %s" % (os.path.relpath(md_path, cwd),
                                os.path.relpath(json_path, cwd)))
    for s in summaries:
        line = "  JAX %-8s %s" % (s["version"], s["status"])
        if s.get("message"):
            line += ": " + s["message"]
        if s.get("failing_rows"):
            line += " (failing rows: %s)" % ", ".join(s["failing_rows"])
        print(line)
    ran = [r for r in results if r.get("report") is not None]
    if not ran:
        sys.stderr.write("jax-matrix: no JAX version ran\n")
        return 1
    with open(json_path) as f:
        unexplained = json.load(f).get("unexplained_cells", 0)
    if unexplained:
        sys.stderr.write("jax-matrix: %d cells are unexplained (see %s)\n"
                         % (unexplained, os.path.relpath(md_path, cwd)))
        return 4
    unjudged = [r["version"] for r in ran
                if r.get("result") not in ("PASS", "FAIL")]
    if unjudged:
        sys.stderr.write("jax-matrix: lctx did not judge every case of JAX "
                         "%s (%s; see %s)\n" % (
                             ", ".join(unjudged), ", ".join(
                                 r["result"] for r in ran
                                 if r["version"] in unjudged),
                             os.path.relpath(md_path, cwd)))
        return 4
    return 0
