"""What the matrix asks lctx: the spec table as JSON (`lctx export spec`)
and the verdict of a version's conform runs (`lctx report merge --runs`).

The matrix never reads a .lspec file or sums report.json counts itself:
lctx reads the table with its own parser and merges and judges the runs
with its own reader of report.json (harness/report/report_read.c), so a
run lctx calls INCOMPLETE or NOTHING JUDGED is never shown as a pass.
"""

import json
import os
import re
import shutil
import subprocess

# The results `lctx report merge` and report.json's "result" name, and
# the matrix status of each (a version's status is lctx's verdict).
RESULTS = {"PASS": "pass", "FAIL": "fail", "INTERRUPTED": "interrupted",
           "INCOMPLETE": "incomplete", "NOTHING JUDGED": "nothing judged"}


class LctxError(Exception):
    """lctx refused, failed or said something the matrix cannot read."""


def _version_key(version):
    return tuple(int(p) for p in version.split("."))


def export_spec(lctx, spec=None):
    """{row id: {"ops": set of protocol operations, "check": kind, "was":
    [(boundary release as a tuple, commit, outcome text)]}} from `lctx
    export spec [SPEC]`. A spec lctx cannot read (or an lctx that cannot
    export it) raises LctxError: the matrix is not written from a guess."""
    cmd = [lctx, "export", "spec"] + ([spec] if spec else [])
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    except OSError as e:
        raise LctxError("%s: %s" % (" ".join(cmd), e))
    if proc.returncode != 0:
        why = [l for l in proc.stderr.splitlines() if l.startswith("lctx")]
        raise LctxError("%s exited with status %d: %s" % (
            " ".join(cmd), proc.returncode,
            why[0] if why else proc.stderr.strip() or "no reason"))
    try:
        table = json.loads(proc.stdout)
        rows = {}
        for row in table["rows"]:
            was = []
            for w in row.get("was", []):
                if not re.match(r"^\d+(\.\d+)+$", w["release"]):
                    continue  # "modelled" is no boundary in time
                was.append((_version_key(w["release"]), w["commit"],
                            w["outcome"]))
            rows[row["id"]] = {"ops": set(row["ops"]),
                               "check": row["check"], "was": was}
    except (ValueError, KeyError, TypeError) as e:
        raise LctxError("%s: not the spec table as lctx exports it: %r"
                        % (" ".join(cmd), e))
    return rows


def merge_runs(lctx, dirs, out_dir):
    """Merges the report folders `dirs` (whole conform runs of one version
    and side) with `lctx report merge --runs --out OUT_DIR`; returns
    (report, result, message): the merged report.json as lctx wrote it,
    lctx's result ("PASS", "FAIL", "INTERRUPTED", "INCOMPLETE", "NOTHING
    JUDGED"), and lctx's words when it refused (report None then)."""
    shutil.rmtree(out_dir, ignore_errors=True)
    cmd = [lctx, "report", "merge", "--runs", "--out", out_dir] + list(dirs)
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    except OSError as e:
        return None, None, "%s: %s" % (lctx, e)
    with open(os.path.join(out_dir + ".log"), "w", encoding="utf-8") as log:
        log.write(proc.stdout + proc.stderr)
    lines = re.findall(r"^result: ([A-Z ]+?)(?: \(.*\))?$", proc.stdout, re.M)
    if proc.returncode not in (0, 1) or not lines:
        why = [l for l in proc.stderr.splitlines()
               if l.startswith("lctx report merge:")]
        return None, None, (why[-1] if why else
                            "lctx report merge exited with status %d"
                            % proc.returncode)
    try:
        with open(os.path.join(out_dir, "report.json"),
                  encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        return None, None, "the merged report: %s" % e
    result = lines[-1]
    # What lctx printed and what it wrote are one verdict.
    if report.get("result", result) != result or result not in RESULTS or \
            (proc.returncode == 0) != (result == "PASS"):
        return None, None, ("lctx report merge said %r (exit %d), its "
                            "report.json %r" % (result, proc.returncode,
                                                report.get("result")))
    return report, result, ""
