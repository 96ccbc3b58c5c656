"""Step 3: the cited units of a release's tree against the modelled commit
(the index's hashes) and against another tree (the release before), with a
unified diff of each unit that changed; the rows whose cited units differ;
the module-level register_backend_factory calls."""

import difflib
import re

from .base import FACTORY_CALL, INDEX, StepFailed
from .index import index_rows
from .spec import read_spec, row_order
from .trees import tree_units


def unit_source(lines, unit, units):
    """[(line number, text)] of a unit; in a class, each method (a unit of
    its own) is one line saying so."""
    methods = {u["start"]: u for u in units if u["kind"] == "method"
               and u["name"].startswith(unit["name"] + ".")
               and unit["start"] <= u["start"] <= unit["end"]} \
        if unit["kind"] == "class" else {}
    out, n = [], unit["start"]
    while n <= unit["end"]:
        m = methods.get(n)
        if m:
            indent = re.match(r"\s*", lines[n - 1]).group(0)
            out.append((n, "%s<method %s: a unit of its own>" % (
                indent, m["name"].split(".", 1)[1])))
            n = m["end"] + 1
        else:
            out.append((n, lines[n - 1]))
            n += 1
    return out


def unified(a, b, a_label, b_label, n=3):
    """A unified diff of two [(line number, text)] whose hunks carry the
    files' own line numbers."""
    def span(seq, i1, i2):
        length = i2 - i1
        if i1 < len(seq):
            start = seq[i1][0]
        else:
            start = seq[-1][0] + 1 if seq else 1
        if length == 1:
            return "%d" % start
        return "%d,%d" % (start if length else start - 1, length)

    at, bt = [t for _, t in a], [t for _, t in b]
    out = ["--- " + a_label, "+++ " + b_label]
    sm = difflib.SequenceMatcher(None, at, bt, autojunk=False)
    for group in sm.get_grouped_opcodes(n):
        i1, i2 = group[0][1], group[-1][2]
        j1, j2 = group[0][3], group[-1][4]
        out.append("@@ -%s +%s @@" % (span(a, i1, i2), span(b, j1, j2)))
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                out += [" " + t for t in at[x1:x2]]
                continue
            out += ["-" + t for t in at[x1:x2]]
            out += ["+" + t for t in bt[y1:y2]]
    return out


def compare_source(index, tree, against=None):
    """The source comparison of `tree` (a release) with the modelled
    commit (index hashes) and with `against` (another tree, or None).
    Returns a dict (see the report)."""
    commit, _, cites = read_spec()
    if commit != index.get("jax_commit"):
        raise StepFailed("%s is of jax-ml/jax@%s, the spec cites %s: write "
                         "it again with --index-modelled" % (
                             INDEX, index.get("jax_commit"), commit))
    rows, stale = index_rows(index, cites)
    files = list(index["files"])
    mine, my_lines = tree_units(tree, files)
    theirs, their_lines = (tree_units(against, files) if against
                           else ({}, {}))
    units = []
    for f in files:
        got = {u["name"]: u for u in (mine.get(f) or {}).get("units", [])}
        prev = {u["name"]: u
                for u in (theirs.get(f) or {}).get("units", [])}
        for iu in index["files"][f]["units"]:
            name = iu["name"]
            u = got.get(name)
            r = {"file": f, "name": name, "kind": iu["kind"],
                 "modelled_lines": iu["lines"],
                 "rows": rows.get((f, name), {}),
                 "lines": [u["start"], u["end"]] if u else None,
                 "vs_modelled": ("missing" if mine.get(f) is None or not u
                                 else "unchanged"
                                 if u["sha256"] == iu["sha256"]
                                 else "changed")}
            if against is not None:
                p = prev.get(name)
                r["prev_lines"] = [p["start"], p["end"]] if p else None
                if not u or not p:
                    r["vs_prev"] = ("missing" if not u else
                                    "missing before")
                elif u["sha256"] == p["sha256"]:
                    r["vs_prev"] = "unchanged"
                else:
                    r["vs_prev"] = "changed"
                    r["diff"] = unified(
                        unit_source(their_lines[f], p, theirs[f]["units"]),
                        unit_source(my_lines[f], u, mine[f]["units"]),
                        "%s %s:%d-%d (%s)" % (against.label, f, p["start"],
                                              p["end"], name),
                        "%s %s:%d-%d (%s)" % (tree.label, f, u["start"],
                                              u["end"], name))
            units.append(r)
    factories = {}
    for f in files:
        ref = index["files"][f].get("backend_factories")
        if ref is None:
            continue
        now = (mine.get(f) or {}).get("factories", [])
        before = ((theirs.get(f) or {}).get("factories", [])
                  if against is not None else None)
        factories[f] = {"now": now, "modelled": ref, "prev": before}
    return {"units": units, "stale": stale, "factories": factories,
            "missing_files": [f for f in files if mine.get(f) is None]}


def rows_changed(units, key):
    """{row: [unit names]} of the rows whose directly cited units are not
    `unchanged` under `key`."""
    out = {}
    for u in units:
        if u.get(key) in ("changed", "missing", "missing before"):
            for row, how in u["rows"].items():
                if how == "direct":
                    out.setdefault(row, []).append(u["name"])
    return out
def factory_text(fa):
    return "%s (priority %s%s, line %s)" % (
        fa["name"], fa["priority"],
        ", fail_quietly" if fa.get("fail_quietly") is True else "",
        fa["line"])


def factories_report(out, factories, prev_label):
    """The module-level factory calls of each file, against the modelled
    commit and the release before."""
    for f, fa in factories.items():
        names = {x["name"]: x for x in fa["now"]}
        ref = {x["name"]: x for x in fa["modelled"]}
        out("")
        out("  module-level %s calls in %s: %s" % (
            FACTORY_CALL, f, ", ".join(factory_text(x) for x in fa["now"])
            or "none"))
        for label, other in (("the modelled commit", ref),
                             (prev_label, {x["name"]: x
                                           for x in fa["prev"] or []})):
            if not label or (label == prev_label and fa["prev"] is None):
                continue
            new = [x for n, x in names.items() if n not in other]
            gone = [n for n in other if n not in names]
            moved = [x for n, x in names.items() if n in other and (
                x["priority"], x.get("fail_quietly")) != (
                    other[n]["priority"], other[n].get("fail_quietly"))]
            bits = []
            if new:
                bits.append("new: " + ", ".join(factory_text(x)
                                                for x in new))
            if gone:
                bits.append("gone: " + ", ".join(map(str, gone)))
            if moved:
                bits.append("other priority: " + ", ".join(
                    factory_text(x) for x in moved))
            out("    against %s: %s" % (label, "; ".join(bits) if bits
                                        else "the same"))


def source_report(out, cmp, version_label, prev_label):
    """Writes step 3's report lines through out()."""
    units = cmp["units"]
    if cmp["missing_files"]:
        out("  not in %s: %s" % (version_label,
                                 ", ".join(cmp["missing_files"])))
    out("  columns: the unit; against the modelled commit; %sits lines in "
        "%s" % ("against %s; " % prev_label if prev_label else "",
                version_label))
    current = None
    for u in units:
        if u["file"] != current:
            current = u["file"]
            out("  %s" % current)
        name = u["name"] + (" (class body)" if u["kind"] == "class" else "")
        where = (("%d" % u["lines"][0]) if u["lines"] and u["lines"][0] ==
                 u["lines"][1] else ("%d-%d" % tuple(u["lines"]))
                 if u["lines"] else "-")
        prev = ("%-14s " % u.get("vs_prev", "")) if prev_label else ""
        out("    %-42s %-10s %s%s" % (name[:42], u["vs_modelled"], prev,
                                      where))
    for label, key in (("the modelled commit", "vs_modelled"),
                       (prev_label, "vs_prev")):
        if not label:
            continue
        ch = [u for u in units if u.get(key) in ("changed", "missing",
                                                  "missing before")]
        out("")
        if not ch:
            out("  every cited unit is as in %s" % label)
            continue
        out("  differ from %s: %s" % (label, ", ".join(
            "%s (%s%s)" % (u["name"], u[key],
                           ", class body: fields, decorators, bases"
                           if u["kind"] == "class" else "")
            for u in ch)))
        rc = rows_changed(units, key)
        out("  rows whose cited units differ from %s: %s" % (
            label, ", ".join("%s (%s)" % (r, ", ".join(rc[r]))
                             for r in row_order(rc)) if rc else "none"))
        via = sorted({r for u in ch if u["kind"] == "class"
                      for r, how in u["rows"].items() if how == "method"})
        if via:
            out("  (through a class whose body changed, also: %s)"
                % ", ".join(row_order(via)))
    factories_report(out, cmp["factories"], prev_label)
    if cmp["stale"]:
        out("")
        out("  the index does not follow the spec (write it again with "
            "--index-modelled):")
        for s in cmp["stale"]:
            out("    " + s)
    diffs = [u for u in units if u.get("diff")]
    if diffs:
        out("")
        out("  unified diffs of the units that changed since %s:"
            % prev_label)
        for u in diffs:
            out("")
            for line in u["diff"]:
                out("  " + line)
