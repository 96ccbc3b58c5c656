#!/usr/bin/env python3
"""The figures of a campaign of generated programs (`lctx generate`).

    generate_figures.py OUT                  print them (a Markdown block)
    generate_figures.py OUT --record FILE    also keep them in FILE (JSON)
    generate_figures.py --write README FILE  put FILE's block into README
    generate_figures.py --check README FILE  README's block is FILE's

OUT is the campaign's folder (`make generate`: build/generate): its
summary.txt (what lctx generate printed), results.jsonl (one line per
judged case, in plan order) and findings/*/ (minimized.json, repro.py,
report.md with its status per JAX release once tools/defect_status.py
--write ran on it).

The figures: the seed, the programs and exports judged and the seconds
they took, the features and JAX operations covered, and per finding its
key, the program (plan index) where it was first found, the node count of
the program as found and as minimized, whether a standalone reproduction
was written, and its status across releases ("In short: ..." of the
report's status block).

The block README holds (between <!-- lctx-generate-figures:begin --> and
<!-- lctx-generate-figures:end -->) has counts only: a README keeps no
measured time (tests/test_doc_figures.sh); the seconds are in FILE. --check fails when README's block is not what
--write makes of FILE (an edit by hand, or FILE changed without --write).

Exit status: 0 done (or --check agrees), 1 --check disagrees, 2 bad usage
or unreadable input.  Standard library only.
"""

import glob
import json
import os
import re
import sys

from doc_block import BadInput, read, write_or_check, write_record

BEGIN = "<!-- lctx-generate-figures:begin -->"
END = "<!-- lctx-generate-figures:end -->"
SUMMARY = re.compile(
    r"^generate: (\d+) programs judged \((\d+) cases, (\d+) resumed\), (\d+) "
    r"exports in ([\d.]+) s")
FEATURES = re.compile(r"^features covered: (\d+) of (\d+)")
OPS = re.compile(r"JAX operations drawn: (\d+) of (\d+)")
RESULT = re.compile(r"^result: (\d+) new findings, (\d+) known")
REACH = re.compile(r"^reach: the judged programs lowered (\d+) of the (\d+)")


def collect(out):
    """The figures of campaign folder `out`, as a dict."""
    summary = read(os.path.join(out, "summary.txt"))
    fig = {"programs": None}
    for line in summary.splitlines():
        m = SUMMARY.match(line)
        if m:
            fig.update(programs=int(m.group(1)), cases=int(m.group(2)),
                       resumed=int(m.group(3)), exports=int(m.group(4)),
                       seconds=float(m.group(5)))
        m = FEATURES.match(line)
        if m:
            fig["features"] = [int(m.group(1)), int(m.group(2))]
        m = OPS.search(line)
        if m:
            fig["operations"] = [int(m.group(1)), int(m.group(2))]
        m = RESULT.match(line)
        if m:
            fig["new_findings"], fig["known"] = int(m.group(1)), int(m.group(2))
        m = REACH.match(line)
        if m:
            fig["reach"] = [int(m.group(1)), int(m.group(2))]
    if fig["programs"] is None:
        raise BadInput("%s/summary.txt: no line 'generate: N programs "
                       "judged ...' (did the campaign run?)" % out)
    first, seed = {}, None
    results = read(os.path.join(out, "results.jsonl")).splitlines()
    for k, line in enumerate(results):
        try:
            obj = json.loads(line)
        except ValueError:
            continue  # a line cut by a stop; lctx redoes that case
        if k == 0:
            seed = obj.get("sweep", {}).get("seed")
            continue
        for v in obj.get("verdicts", []):
            if v.get("verdict") == "fail" and v["key"] not in first:
                first[v["key"]] = obj.get("case")
    fig["seed"] = seed
    findings = []
    for d in sorted(glob.glob(os.path.join(out, "findings", "*"))):
        try:
            found = json.loads(read(os.path.join(d, "case.json")))
            kept = json.loads(read(os.path.join(d, "minimized.json")))
        except ValueError as e:
            raise BadInput("%s: not JSON: %s" % (d, e))
        key = kept["expect"][0]["key"]
        status = None
        report = os.path.join(d, "report.md")
        if os.path.exists(report):
            for line in read(report).splitlines():
                if line.startswith("In short: "):
                    status = line[len("In short: "):].rstrip(".")
        findings.append({
            "key": key, "row": kept["expect"][0]["row"],
            "first_program": first.get(key),
            "nodes_found": found.get("size"),
            "nodes_minimized": kept.get("size"),
            "platforms": kept.get("platforms"),
            "repro": os.path.exists(os.path.join(d, "repro.py")),
            "status": status})
    findings.sort(key=lambda f: (f["first_program"] is None,
                                 f["first_program"] or 0, f["key"]))
    fig["findings"] = findings
    return fig


def block(fig):
    """README's block: counts only."""
    lines = [BEGIN,
             "<!-- Written by tools/generate_figures.py --write from "
             "docs/generate-campaign.json (make generate; checked by ctest "
             "lctx_generate_figures): do not edit by hand. -->", ""]
    lines.append(
        "`make generate` (seed %s, no known defects, the pinned JAX): %d "
        "programs judged, %d exports; features covered %d of %d, JAX "
        "operations drawn %d of %d, lowering primitives reached %d of %d; "
        "%d findings. The seconds they took are in docs/generate-campaign.json."
        % (fig["seed"], fig["programs"], fig["exports"],
           fig["features"][0], fig["features"][1], fig["operations"][0],
           fig["operations"][1], fig["reach"][0], fig["reach"][1],
           len(fig["findings"])))
    lines += ["", "| finding | first found at program | nodes found "
              "/ minimized | standalone reproduction | across releases |",
              "|---|---|---|---|---|"]
    for f in fig["findings"]:
        lines.append("| `%s` | %s | %s / %s | %s | %s |" % (
            f["key"].replace("|", "\\|"),
            "—" if f["first_program"] is None else f["first_program"],
            f["nodes_found"], f["nodes_minimized"],
            "repro.py" if f["repro"] else "none",
            f["status"] or "not run (tools/defect_status.py --write)"))
    lines.append(END)
    return "\n".join(lines)


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        sys.stdout.write(__doc__)
        return 0
    try:
        if len(argv) == 3 and argv[0] in ("--write", "--check"):
            return write_or_check("generate_figures", argv[0], argv[1],
                                  argv[2], block, BEGIN, END)
        if len(argv) in (1, 3) and not argv[0].startswith("-") and (
                len(argv) == 1 or argv[1] == "--record"):
            fig = collect(argv[0])
            if len(argv) == 3:
                write_record(fig, argv[2])
            print(block(fig))
            print("seconds: %.1f (%.2f programs/s)" % (
                fig["seconds"], fig["programs"] / max(fig["seconds"], 1e-9)))
            return 0
    except BadInput as e:
        print("generate_figures: %s" % e, file=sys.stderr)
        return 2
    print("usage: generate_figures.py OUT [--record FILE] | --write README "
          "FILE | --check README FILE", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
