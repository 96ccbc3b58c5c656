"""The cells of the matrix: a row's verdict at a version (from the report
lctx merged), whether it differs from the modelled commit, and the trace
that explains it (the spec's `was` lines as lctx exports them, lctx
conform's drift, the adapter's refusals with the JAX commits behind
them); and a version's summary.
"""

import os
import re

from lctx_matrix.runs import version_key

VERDICTS = ["pass", "fail", "xfail", "xpass", "crash", "timeout",
            "unsupported", "flaky"]
BAD = ["fail", "xpass", "crash", "timeout", "flaky"]
NO_CASE = "\u2014"


def cell(row):
    if row is None:
        return {"status": NO_CASE}
    counts = {v: int(row.get(v, 0)) for v in VERDICTS}
    bad = sum(counts[v] for v in BAD)
    total = sum(counts.values())
    c = {"counts": counts}
    if bad:
        kinds = [v for v in BAD if counts[v]]
        c["status"] = "fail"
        c["verdicts"] = kinds
        c["failing"] = bad
        c["reached"] = total
        c["first"] = row.get("first", "")
    elif counts["pass"]:
        c["status"] = "pass"
    elif counts["xfail"]:
        c["status"] = "xfail"
        c["first"] = row.get("first", "")
    elif counts["unsupported"]:
        c["status"] = "unsupported"
    else:
        c["status"] = NO_CASE
    return c


def first_case(first):
    """'random case 154, operation 5: expected ...' -> 'random case 154,
    operation 5'."""
    return first.split(": ", 1)[0] if first else "?"


def md_escape(text):
    return text.replace("|", "\\|").replace("\n", " ")


def cell_md(c):
    s = c["status"]
    if s == "fail":
        kinds = c.get("verdicts", ["fail"])
        what = "" if kinds == ["fail"] else ", ".join(kinds) + "; "
        return "fail (%s%d of %d; first: %s)" % (
            what, c["failing"], c["reached"], first_case(c.get("first", "")))
    if s == "xfail":
        return "xfail"
    return s


# What the adapter names when it declines a protocol operation on an older
# release (conformance/adapters/jax_adapter.py, Capabilities), and the JAX
# commit that brought it (jax-ml/jax; first release holding it): a cell the
# adapter cannot reach is explained by these, and by nothing else.
API_COMMITS = [
    ("ModuleContext.get_backend(optional=...)", "e86b6ae2924d", "0.7.2",
     "ModuleContext.get_backend takes optional"),
    ("returns the rule", "0fd2074ca052", "0.7.0",
     "register_lowering returns None (it returned the rule)"),
    ("rule-lookup entry point", "618460e82012", "0.7.0",
     "the rule look-up as one call (_uncached_lowering)"),
    ("mlir.lower_per_platform", "2d9da6c8fb0a", "0.4.21",
     "lower_per_platform"),
    ("mlir._platforms_for_eqn", "f2121a72fc97", "0.6.1",
     "_platforms_for_eqn"),
    ("config.compute_on_context_manager", "a144eb234b7b", "0.4.32",
     "compute_on_context_manager"),
]
# A trace cites a jax-ml/jax commit, or, for a change after the history
# readable here, the release whose wheel it was read from ("changed in
# jax-v0.12.1 (read from its wheel, FILE:LINES ...)").
COMMIT_RE = re.compile(r"\b[0-9a-f]{12}\b|changed in jax-v[0-9.]+ \(read "
                       r"from its wheel, ")
REFUSAL_RE = re.compile(r"^jax_adapter: (\w+) unsupported: (.*)$")


def history_trace(history, version, absent_only=False):
    """What the row's `was` lines say of `version` (those whose boundary
    lies after it), or None when none applies."""
    later = [(b, c, what) for b, c, what in history
             if b > version_key(version)
             and (not absent_only or what.startswith("absent"))]
    if not later:
        return None
    return "the row's expectation at this release comes from its was " \
        "line%s: %s" % ("s" if len(later) > 1 else "", "; ".join(
            "before %s, %s (%s)" % (".".join(map(str, b)), what, c)
            for b, c, what in later))


def adapter_refusals(report_dir):
    """{operation: reason} the adapter logged declining (its log in the
    report folder)."""
    found = {}
    try:
        with open(os.path.join(report_dir, "implementation.log"),
                  encoding="utf-8", errors="replace") as f:
            for line in f:
                m = REFUSAL_RE.match(line.rstrip("\n"))
                if m:
                    found[m.group(1)] = m.group(2)
    except OSError:
        pass
    return found


def refusal_trace(ops, refusals):
    """The commits behind the adapter declining every operation of a row,
    or None when some operation is not declined or a reason names no API
    of API_COMMITS."""
    if not ops or "*" in ops or not all(op in refusals for op in ops):
        return None
    parts = []
    for op in sorted(ops):
        cited = [(c, r, what) for pattern, c, r, what in API_COMMITS
                 if pattern in refusals[op]]
        if not cited:
            return None
        parts.append("%s needs %s" % (op, ", ".join(
            "%s (%s, first in %s)" % (what, c, r) for c, r, what in cited)))
    return "not reachable through the protocol on this release: " + \
        "; ".join(parts)


def trace(at_release, modelled, row_release, row_modelled, reach=None,
          history=None):
    """Whether a cell differs from the modelled commit, and how that is
    explained. Returns (drift, explained, why):

    - the release's own expectations (`--jax VERSION`) fail: unexplained;
    - judged as the modelled commit, operations fail: drift, explained when
      lctx conform traced every failing operation to the `was` lines and
      facts (with their commits) under which it passes, and the release's
      own run passes;
    - operations the release does not have (absent rows: the adapter
      declines them, lctx conform expects that): drift, explained by the
      row's `was ... absent` line;
    - unsupported without an absent row: unexplained (the adapter could not
      drive what the release has)."""
    if at_release is None:
        return False, True, ""
    if at_release["status"] == NO_CASE and reach:
        # No case of the row was sent: the adapter declines its operations.
        return True, True, reach
    if at_release["status"] == "fail":
        return True, False, "fails as the release itself behaves"
    if modelled is None:
        return False, False, ("not judged as the modelled commit (that run "
                              "did not happen: time limit or refusal)")
    m = modelled["status"]
    if m == "fail":
        failing = modelled.get("failing", 0)
        traced = int((row_modelled or {}).get("drift_explained", 0))
        why = (row_modelled or {}).get("drift", "")
        if traced >= failing and COMMIT_RE.search(why):
            return True, True, why
        return True, False, ("%d of %d failing operations traced%s" % (
            traced, failing, ("; first: " + why) if why else ""))
    if "unsupported" in (at_release["status"], m):
        if (row_release or {}).get("absent") and history:
            return True, True, history
        if reach:
            return True, True, reach
        return True, False, "unsupported, and the row is not absent here"
    if m == NO_CASE and at_release["status"] == "pass" and history:
        # The row's situation arises at this release and not at the
        # modelled commit.
        return True, True, history
    return False, True, ""


def build_matrix(results, spec):
    """The matrix's rows: each spec row a report of `results` names (in
    their order), its cell per version; `spec` as lctx.export_spec gives
    it."""
    rows = []
    seen = set()
    for r in results:
        for row in (r.get("report") or {}).get("rows", []):
            if row["id"] not in seen:
                seen.add(row["id"])
                rows.append(row["id"])
    refusals = {r["version"]: adapter_refusals(r["report_dir"])
                for r in results if r.get("report_dir")}
    matrix_rows = []
    for rid in rows:
        cells = {}
        for r in results:
            report = r.get("report")
            if report is None:
                cells[r["version"]] = None
                continue
            found = next((x for x in report["rows"] if x["id"] == rid), None)
            c = cell(found)
            mrep = r.get("modelled_report")
            mrow = None if mrep is None else next(
                (x for x in mrep["rows"] if x["id"] == rid), None)
            m = None if mrep is None else cell(mrow)
            c["modelled"] = m
            reach = refusal_trace(spec.get(rid, {}).get("ops", set()),
                                  refusals.get(r["version"], {}))
            hist = history_trace(spec.get(rid, {}).get("was", []),
                                 r["version"])
            c["drift"], c["explained"], c["why"] = trace(c, m, found, mrow,
                                                         reach, hist)
            cells[r["version"]] = c
        matrix_rows.append({"id": rid, "cells": cells})
    return rows, matrix_rows


def version_summary(r, matrix_rows):
    report = r.get("report")
    s = {k: r[k] for k in ("version", "status", "message", "python",
                           "install", "install_seconds", "run_seconds",
                           "conform_exit", "conform_runs", "report_dir",
                           "merged_dir", "result")
         if k in r}
    if report is not None:
        ops = {v: sum(int(x.get(v, 0)) for x in report["rows"])
               for v in VERDICTS}
        s["adapter"] = "%s %s" % (report.get("implementation", "?"),
                                  report.get("implementation_version", "?"))
        s["spec_version"] = report.get("spec_version")
        # The counts as lctx merged them: every case is one of run,
        # skipped, unsupported, not judged or not reached.
        for key in ("cases", "cases_run", "cases_skipped",
                    "cases_unsupported", "cases_not_judged",
                    "cases_not_reached", "restarts", "modules_judged",
                    "modules_unjudged", "interrupted", "result"):
            s[key] = report.get(key)
        s["conform_seconds"] = report.get("seconds")
        s["operations"] = ops
        rows = {"pass": 0, "fail": 0, "xfail": 0, "unsupported": 0,
                NO_CASE: 0}
        failing = []
        for mr in matrix_rows:
            c = mr["cells"].get(r["version"])
            if c is None:
                continue
            rows[c["status"]] = rows.get(c["status"], 0) + 1
            if c["status"] == "fail":
                failing.append(mr["id"])
        s["rows"] = {("not_reached" if k == NO_CASE else k): v
                     for k, v in rows.items()}
        s["failing_rows"] = failing
        if "first_failure" in report:
            s["first_failure"] = report["first_failure"]
    return s
