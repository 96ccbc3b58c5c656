"""Steps 1, 2 and 4 of the release command: the requirements file
(tools/jax_requirements.py), the install (tools/setup-jax.sh) and the
release's drift-matrix cell (tools/jax_matrix.py; a release no table names
yet is judged as the modelled commit behaves, with lctx conform)."""

import json
import os
import re
import shlex
import subprocess
import sys

import jax_matrix
from jax_venvs import venv_python

from .base import (ADAPTER, FULL_MATRIX, REQ_DIR, ROOT, StepFailed,
                   rel)
from .clients import client_entries
from .trees import release_tree


def run_streamed(out, cmd, prefix="  "):
    """Runs cmd from the repository root, its output shown indented; returns
    (exit status, output lines)."""
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    lines = []
    for line in proc.stdout:
        line = line.rstrip("\n")
        lines.append(line)
        out(prefix + line)
    return proc.wait(), lines


def step_requirements(out, version, offline):
    path = os.path.join(REQ_DIR, "jax-%s.txt" % version)
    if os.path.exists(os.path.join(ROOT, path)):
        out("  %s exists (not rewritten)" % path)
        return path
    if offline:
        raise StepFailed("%s does not exist and --offline forbids writing it "
                         "(it needs PyPI)" % path)
    code, lines = run_streamed(out, [sys.executable, os.path.join(
        "tools", "jax_requirements.py"), version])
    if code != 0:
        why = next((l for l in reversed(lines) if l.strip()),
                   "exit status %d" % code)
        raise StepFailed("tools/jax_requirements.py %s: %s" % (
            version, re.sub(r"^jax_requirements: ", "", why)))
    return path


def step_install(out, version):
    code, lines = run_streamed(out, ["sh", os.path.join("tools",
                                                        "setup-jax.sh"),
                                     version])
    if code != 0:
        why = next((l for l in reversed(lines) if l.startswith("lctx:")),
                   "exit status %d" % code)
        raise StepFailed("sh tools/setup-jax.sh %s: %s" % (
            version, re.sub(r"^lctx: (error: )?", "", why)))
    if release_tree(version) is None:
        raise StepFailed("build/jax/venv-%s holds no jax after sh "
                         "tools/setup-jax.sh %s%s" % (
                             version, version,
                             " (LCTX_JAX=off)" if os.environ.get("LCTX_JAX")
                             == "off" else ""))


def summarize_report(out, report, label):
    ops = {v: sum(int(x.get(v, 0)) for x in report["rows"])
           for v in jax_matrix.VERDICTS}
    out("  %s: %s cases, operations %s" % (
        label, report.get("cases_run"), ", ".join(
            "%d %s" % (ops[v], v) for v in jax_matrix.VERDICTS if ops[v])))
    failing = []
    for row in report["rows"]:
        bad = sum(int(row.get(v, 0)) for v in jax_matrix.BAD)
        if bad:
            failing.append((row["id"], bad, row.get("drift", ""),
                            int(row.get("drift_explained", 0))))
    for rid, bad, drift, traced in failing:
        out("    %s: %d fail%s" % (rid, bad, "; %s (%d traced)" % (
            drift, traced) if drift else ""))
    return ops, [f[0] for f in failing]


def step_matrix(out, version, out_dir, lctx, full, random_n):
    """Runs the matrix cell; returns a summary dict."""
    mdir = os.path.join(out_dir, "matrix")
    args = FULL_MATRIX if full else ["--random", str(random_n),
                                     "--no-domain"]
    cmd = [sys.executable, os.path.join("tools", "jax_matrix.py"), version,
           "--no-sweep", "--out", mdir, "--lctx", lctx] + args
    out("  $ python3 tools/jax_matrix.py %s --no-sweep %s --out %s"
        % (version, " ".join(args), rel(mdir)))
    code, _ = run_streamed(out, cmd, "    ")
    summary = {"command": cmd[1:], "exit": code, "dir": rel(mdir)}
    if code == 2:
        raise StepFailed("tools/jax_matrix.py refused (exit status 2)")
    try:
        with open(os.path.join(mdir, "matrix.json"), encoding="utf-8") as f:
            matrix = json.load(f)
    except (OSError, ValueError) as e:
        raise StepFailed("tools/jax_matrix.py wrote no matrix.json (%s)" % e)
    s = next((x for x in matrix["versions"] if x["version"] == version), {})
    summary["status"] = s.get("status")
    summary["message"] = s.get("message", "")
    out("")
    if s.get("operations"):
        return cell_summary(out, version, s, matrix, summary)
    why = s.get("message", "") or "no report"
    out("  as itself: could not run: %s" % why)
    unnamed = re.search(r"unknown JAX release|does not know JAX release|"
                        r"no client entry|has no entry in", why)
    if not unnamed:
        raise StepFailed("the matrix cell of %s could not run: %s"
                         % (version, why))
    summary["as_itself"] = "not possible: " + why
    return as_modelled(out, version, mdir, lctx, full, random_n, summary)


def cell_summary(out, version, s, matrix, summary):
    """The release's matrix cell as itself (`s`: its matrix.json entry)."""
    ops = s["operations"]
    out("  as itself (--jax %s): %s; %s cases; operations %d pass, %d "
        "fail, %d unsupported; rows pass / fail / unsupported / not "
        "reached: %s" % (
            version, s["status"], s.get("cases_run"), ops["pass"],
            sum(ops[v] for v in jax_matrix.BAD), ops["unsupported"],
            " / ".join(str(s["rows"].get(k, 0)) for k in (
                "pass", "fail", "unsupported", "not_reached"))))
    drift = []
    for row in matrix["rows"]:
        c = row["cells"].get(version) or {}
        if c.get("drift") or not c.get("explained", True):
            drift.append((row["id"], c.get("explained"), c.get("why")))
    out("  cells differing from the modelled commit: %d (%d "
        "unexplained)" % (matrix.get("differing_cells", 0),
                          matrix.get("unexplained_cells", 0)))
    for rid, explained, why in drift:
        out("    %s: %s%s" % (rid, "" if explained else "UNEXPLAINED: ",
                              why))
    summary.update(operations=ops, differing=matrix.get(
        "differing_cells", 0), unexplained=matrix.get(
            "unexplained_cells", 0), drift=[d[0] for d in drift])
    return summary


def as_modelled(out, version, mdir, lctx, full, random_n, summary):
    """A release the spec table, the model or the client table does not
    name yet: the drift from the modelled commit, judged without --jax, the
    fake clients following its jaxlib_clients.py entry, else the modelled
    commit's."""
    _, entries, _ = client_entries()
    clients = version if entries and version in entries else "modelled"
    summary["clients"] = clients
    python = os.path.relpath(venv_python(version), ROOT)
    report_dir = os.path.join(mdir, version, "modelled")
    opts = {"conform": (["--random", "10000"] if full
                        else ["--random", str(random_n), "--no-domain"]),
            "raw": [], "domain_shard": "1/8" if full else None}
    dirs = []
    for label, rdir, cargs in jax_matrix.side_runs(opts, mdir, report_dir,
                                                   []):
        os.makedirs(rdir, exist_ok=True)
        cmd = [lctx, "conform", "--cmd", "%s %s%s" % (
            python, ADAPTER, "" if clients == version
            else " --clients " + clients), "--report-dir", rdir] + cargs
        out("  as the modelled commit behaves (%s; fake clients: %s "
            "entry): $ %s" % (label, clients, " ".join(
                shlex.quote(rel(c)) for c in cmd)))
        conform_side(out, cmd, rdir)
        dirs.append(rdir)
    # lctx merges the runs and gives their verdict (tools/jax_matrix.py's
    # way too).
    merged_dir = os.path.join(report_dir, "merged")
    merged, result, why = jax_matrix.merge_runs(lctx, dirs, merged_dir)
    if merged is None:
        raise StepFailed("lctx report merge (as the modelled commit): %s"
                         % why)
    out("")
    ops, failing = summarize_report(
        out, merged, "as the modelled commit behaves (%s): %s"
        % (rel(merged_dir), result))
    summary.update(status="judged as the modelled commit only",
                   result=result, operations=ops, failing_rows=failing,
                   report_dir=rel(merged_dir))
    return summary


def conform_side(out, cmd, rdir):
    """Runs one lctx conform of as_modelled; its summary lines shown, its
    log kept in rdir."""
    proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    code, lines = proc.returncode, proc.stdout.splitlines()
    with open(os.path.join(ROOT, rdir, "conform.log"), "w",
              encoding="utf-8") as log:
        log.write(proc.stdout)
    for line in lines:
        if re.match(r"^(conform:|operations:|result:|first failure:|"
                    r"[A-Z]+-\d+: |lctx conform:)", line):
            out("    " + line)
    if code not in (0, 1):
        raise StepFailed("lctx conform (as the modelled commit) exited "
                         "with status %d: %s" % (code, next(
                             (l for l in reversed(lines) if l.strip()),
                             "")))
