"""What the matrix writes: matrix.json and matrix.md (the versions, the
rows against the versions with their traces, the first failing cases, the
sweeps, and the defects and findings across releases).
"""

import glob
import json
import os
import shlex

import defect_status

from lctx_matrix.cells import (BAD, NO_CASE, build_matrix, cell_md,
                               md_escape, version_summary)
from lctx_matrix.runs import ADAPTER, ROOT, SWEEP_ADAPTER, say, version_key


def sweep_markdown(results):
    """The sweep table of matrix.md."""
    md = ["", "## JAX as the subject: `lctx sweep --subset ci`", "",
          "The CI subset of the catalogue of `%s` exported for seeded "
          "platform lists and judged by `conformance/spec/jax-sweep.lspec`; "
          "known defects are those recorded for the pinned release in "
          "`conformance/sweep/regressions/` (xfail). A new finding on "
          "another version is drift, or a defect that release has and the "
          "pinned one has not." % SWEEP_ADAPTER, "",
          "| JAX | status | programs | exports | new findings | known | "
          "primitives reached | s |", "|---|---|---|---|---|---|---|---|"]
    for r in results:
        s = r.get("sweep")
        if not s:
            continue
        md.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["version"], s["status"], s.get("programs", "—"),
            s.get("exports", "—"), s.get("new_findings", "—"),
            s.get("known", "—"),
            "%s of %s" % (s["reached"], s["primitives"])
            if "reached" in s else "—", s["seconds"]))
    for r in results:
        for key in (r.get("sweep") or {}).get("finding_keys", []):
            md.append("- JAX %s: %s" % (r["version"], md_escape(key)))
    return md


def defect_status_rows(opts):
    """[(name, where, {release: status}, summary)] for every upstream report
    (docs/upstream-*.md) and every finding report (--findings DIR: each
    DIR/*/report.md of `lctx generate`) whose status block
    tools/defect_status.py --write filled."""
    paths = sorted(glob.glob(os.path.join(ROOT, "docs", "upstream-*.md")))
    for d in opts["findings"]:
        paths += sorted(glob.glob(os.path.join(d, "*", "report.md")))
    out = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            span = defect_status.block_span(text, path)
            if not span:
                continue
            block = defect_status.parse_block(text[span[0]:span[1]], path)
        except (OSError, ValueError) as e:
            say("matrix: %s: no status block read: %s" % (path, e))
            continue
        title = text.split("\n", 1)[0].lstrip("# ").strip()
        summary = [line for line in text[span[0]:span[1]].splitlines()
                   if line.startswith("In short: ")]
        out.append((title, os.path.relpath(path, ROOT),
                    {r.release: r.status for r in block.rows},
                    summary[0][len("In short: "):] if summary else NO_CASE))
    return out


def defects_markdown(defects, results):
    """The status of each known defect and finding per release."""
    if not defects:
        return []
    releases = [r["version"] for r in results]
    for _, _, statuses, _ in defects:
        releases += [v for v in statuses if v not in releases]
    releases.sort(key=version_key)
    md = ["## Defects and findings across releases", "",
          "Each upstream report (`docs/upstream-*.md`) and each finding of "
          "`lctx generate` given with `--findings DIR`, as its status block "
          "says (`python3 tools/defect_status.py --write REPORT` runs its "
          "reproduction under every installed release): `present`, `fixed`, "
          "`cannot run`.", "",
          "| defect | " + " | ".join(releases) + " | in short |",
          "|---|" + "---|" * (len(releases) + 1)]
    for title, where, statuses, summary in defects:
        md.append("| [%s](%s) | %s | %s |" % (
            md_escape(title), where,
            " | ".join(statuses.get(v, NO_CASE) for v in releases),
            md_escape(summary)))
    md.append("")
    return md


def write_outputs(out_dir, opts, argv, lctx, results, started, spec):
    """matrix.json and matrix.md of `results` (one per version), the cells
    traced against `spec` (lctx.export_spec); returns their paths and the
    versions' summaries."""
    rows, matrix_rows = build_matrix(results, spec)
    summaries = [version_summary(r, matrix_rows) for r in results]
    data = {
        "generated": started,
        "lctx": lctx,
        "conform_args": opts["conform"] + (["--"] + opts["raw"]
                                           if opts["raw"] else []),
        "domain_shard": opts["domain_shard"],
        "adapter": ADAPTER,
        "versions": summaries,
        "sweeps": {r["version"]: r["sweep"] for r in results
                   if r.get("sweep")},
        "rows": [{"id": mr["id"],
                  "cells": {v: (c if c is not None else {"status": NO_CASE})
                            for v, c in mr["cells"].items()}}
                 for mr in matrix_rows],
    }
    os.makedirs(out_dir, exist_ok=True)
    json_path = os.path.join(out_dir, "matrix.json")
    md_path = os.path.join(out_dir, "matrix.md")

    md = []
    md.append("# JAX drift matrix")
    md.append("")
    md.append("Every spec row against each JAX version, judged by `lctx "
              "conform` through `%s`." % ADAPTER)
    md.append("")
    md.append("Generated %s with `python3 tools/jax_matrix.py%s`." % (
        started, "".join(" " + shlex.quote(a) for a in argv)))
    spec_versions = sorted({s.get("spec_version") for s in summaries
                            if s.get("spec_version")})
    if spec_versions:
        md.append("Spec table version %s." % ", ".join(spec_versions))
    md.append("")
    md.append("A cell: `pass` (every case reaching the row passed), `fail "
              "(N of M; first: CASE)` (N of the M operations that reached "
              "the row did not pass; CASE is the first failing one, "
              "detailed below), `unsupported` (only cases the adapter "
              "declined), `%s` (no case reached the row, or the version did "
              "not run)." % NO_CASE)
    md.append("")
    md.append("## Versions")
    md.append("")
    md.append("| JAX | status | adapter reports | Python | install | "
              "install s | conform s | cases | ops pass | ops fail | ops "
              "unsupported | rows pass / fail / unsupported / %s |" % NO_CASE)
    md.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for s in summaries:
        status = s["status"]
        if s.get("message"):
            status += ": " + s["message"]
        ops = s.get("operations")
        rows_c = s.get("rows")
        md.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | "
                  "%s |" % (
                      s["version"], md_escape(status),
                      md_escape(s.get("adapter", NO_CASE)),
                      s.get("python") or NO_CASE,
                      s.get("install", NO_CASE),
                      "%.1f" % s["install_seconds"]
                      if "install_seconds" in s else NO_CASE,
                      "%.1f" % s["run_seconds"]
                      if "run_seconds" in s else NO_CASE,
                      s.get("cases_run", NO_CASE),
                      ops["pass"] if ops else NO_CASE,
                      sum(ops[v] for v in BAD) if ops else NO_CASE,
                      ops["unsupported"] if ops else NO_CASE,
                      "%d / %d / %d / %d" % (
                          rows_c["pass"], rows_c["fail"],
                          rows_c["unsupported"], rows_c["not_reached"])
                      if rows_c else NO_CASE))
    md.append("")
    md.append("## Rows")
    md.append("")
    md.append("Each release is judged twice: as it behaves itself (`lctx "
              "conform --jax VERSION`: its cell must pass) and as the "
              "modelled commit behaves (the drift). A cell is its own "
              "verdict, then `= modelled` when the release does what the "
              "modelled commit does on every operation that reached the "
              "row, or `differs [Tn]` with the trace below, or `UNEXPLAINED` "
              "(a failure as the release behaves, or drift not traced to a "
              "commit).")
    md.append("")
    traces = []
    md.append("| row | " + " | ".join(r["version"] for r in results) + " |")
    md.append("|---|" + "---|" * len(results))
    for mr in matrix_rows:
        cells = []
        for r in results:
            c = mr["cells"].get(r["version"])
            if c is None:
                cells.append(NO_CASE)
                continue
            text = cell_md(c)
            if not c["explained"]:
                text = "UNEXPLAINED: %s (%s)" % (text, c["why"])
            elif c["drift"]:
                if c["why"] not in traces:
                    traces.append(c["why"])
                text += ", differs [T%d]" % (traces.index(c["why"]) + 1)
            elif c["status"] != NO_CASE:
                text += ", = modelled"
            cells.append(md_escape(text))
        md.append("| %s | %s |" % (mr["id"], " | ".join(cells)))
    unexplained = sum(1 for mr in matrix_rows for c in mr["cells"].values()
                      if c is not None and not c["explained"])
    differing = sum(1 for mr in matrix_rows for c in mr["cells"].values()
                    if c is not None and c["drift"])
    md.append("")
    md.append("%d cells differ from the modelled commit; %d unexplained." % (
        differing, unexplained))
    if traces:
        md.append("")
        md.append("## Traces")
        md.append("")
        md.append("What lctx conform found for each differing cell: the "
                  "releases under whose expectations its operations pass, "
                  "and the spec's `was` lines and facts, with the JAX or "
                  "jaxlib commit of each, that differ.")
        md.append("")
        for i, why in enumerate(traces):
            md.append("- T%d: %s" % (i + 1, md_escape(why)))
    data["unexplained_cells"] = unexplained
    data["differing_cells"] = differing
    data["traces"] = traces
    if not matrix_rows:
        md.append("")
        md.append("No version produced a report, so there are no rows.")
    failures = [(mr["id"], r["version"], mr["cells"][r["version"]])
                for r in results for mr in matrix_rows
                if mr["cells"].get(r["version"]) and
                mr["cells"][r["version"]]["status"] in ("fail", "xfail")]
    if failures:
        md.append("")
        md.append("## First failing case per row")
        md.append("")
        md.append("The reports, with every failing case in `results.jsonl`, "
                  "are in `%s/VERSION/`." % os.path.relpath(out_dir, ROOT))
        md.append("")
        for rid, version, c in failures:
            md.append("- JAX %s, %s: %s" % (version, rid,
                                             md_escape(c.get("first", ""))))
    md.append("")

    md.extend(sweep_markdown(results))
    md.append("")
    defects = defect_status_rows(opts)
    data["defects"] = [{"title": t, "report": w, "status": st,
                        "in_short": sm} for t, w, st, sm in defects]
    md.extend(defects_markdown(defects, results))
    for path, text in ((json_path, json.dumps(data, indent=2,
                                              ensure_ascii=False) + "\n"),
                       (md_path, "\n".join(md))):
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    return json_path, md_path, summaries
