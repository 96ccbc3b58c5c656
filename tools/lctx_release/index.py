"""The index of the modelled commit
(conformance/adapters/cited_functions.json): the units of JAX's source
that the spec rows cite, their line ranges at that commit, the rows citing
them and their hashes; written from the modelled commit's tree
(--index-modelled), read against the live spec."""

import json
import os
import sys

from .base import (INDEX, ROOT, SPECS, StepFailed, overlaps, ranges_text,
                   rel)
from .spec import read_spec
from .trees import DirTree, GitTree, git_dir, git_has, tree_units

ABOUT = ("The units of JAX's source that the spec rows cite "
         "(conformance/spec/*.lspec `source =`), at the modelled "
         "commit: per file, each top-level function, class (its "
         "body without its methods: fields, decorators, bases), "
         "method or module-level statement holding a cited line; "
         "its line range at that commit, the rows citing it (with "
         "the lines they cite) and the sha256 of its normalized "
         "source. No JAX code is stored. Written by "
         "`python3 tools/jax_release.py --index-modelled DIR`; read "
         "by tools/jax_release.py VERSION.")
NORMALIZATION = ("sha256 (UTF-8) of ast.unparse of the statement "
                 "with its docstrings (and those of what it "
                 "defines) removed and every f-string written as "
                 "a call (__fstring__, __format_value__), so that "
                 "comments, blank lines, layout and quoting do not "
                 "count, and Python 3.11 to 3.13 agree")


def cite_units(units, ranges):
    """The units a file's cited ranges touch: {name: "direct" | "method"}
    ("method": a class touched only through its methods' lines)."""
    hit = {}
    for a, b in ranges:
        for u in units:
            if not overlaps(a, b, u["start"], u["end"]):
                continue
            if u["kind"] == "class":
                direct = any(overlaps(a, b, s, e) for s, e in u["own"])
                if direct or hit.get(u["name"]) != "direct":
                    hit[u["name"]] = "direct" if direct else "method"
            else:
                hit[u["name"]] = "direct"
    return hit


def modelled_tree(source, commit):
    """(tree, how it is read) of the modelled commit at `source`: a folder
    holding jax/_src/, or a git repository holding the commit."""
    gd = git_dir(source) if not os.path.isdir(
        os.path.join(source, "jax", "_src")) else None
    if gd:
        if not git_has(gd, commit):
            raise StepFailed("%s does not hold the modelled commit %s"
                             % (source, commit))
        return (GitTree(gd, commit, "jax-ml/jax@%s" % commit),
                "a git repository of jax-ml/jax (git show %s:FILE)" % commit)
    if os.path.isdir(os.path.join(source, "jax", "_src")):
        return (DirTree(source, "the modelled commit"),
                "a folder holding the modelled commit's jax/_src")
    raise StepFailed("%s holds no jax/_src/ and is no git repository of "
                     "jax-ml/jax" % source)


def cited_files(cites):
    """The Python files the citations name, in order."""
    files = []
    for c in cites:
        if c.kind in ("lines", "names"):
            for f, _ in c.items:
                if f not in files:
                    files.append(f)
    return files


def ranges_hit(c, f, what, fu, not_indexed):
    """The units of file f that the ranges `what` of citation c touch, and
    the text of the citation; a range on no statement goes to
    not_indexed."""
    hit = cite_units(fu, what)
    covered = set()
    for u in fu:
        for a, b in what:
            covered.update(range(max(a, u["start"]), min(b, u["end"]) + 1))
    for a, b in what:
        if not any(a <= n <= b for n in covered):
            not_indexed.append({
                "row": c.ident,
                "source": "%s:%s" % (f, ranges_text([(a, b)])),
                "why": "no statement on these lines"})
    return hit, ranges_text(what)


def names_hit(c, f, what, fu, source):
    by_name = {u["name"] for u in fu}
    for name in what:
        if name not in by_name:
            raise StepFailed("%s cites %s (%s), which %s does not define"
                             % (c.where, name, f, source))
    return {name: "direct" for name in what}, "(%s)" % ", ".join(what)


def file_entry(f, got, cites, source, not_indexed):
    """The index's entry of file f (`got`: its units and factories)."""
    fu = got["units"]
    chosen = {}
    for c in cites:
        for cf, what in c.items:
            if cf != f:
                continue
            if c.kind == "names":
                hit, text = names_hit(c, f, what, fu, source)
            else:
                hit, text = ranges_hit(c, f, what, fu, not_indexed)
            for name, how in hit.items():
                entry = chosen.setdefault(name, {"rows": {},
                                                 "through_methods": []})
                if how == "direct":
                    entry["rows"][c.ident] = text
                elif c.ident not in entry["through_methods"]:
                    entry["through_methods"].append(c.ident)
    out_units = []
    for u in fu:
        if u["name"] not in chosen:
            continue
        e = chosen[u["name"]]
        item = {"name": u["name"], "kind": u["kind"],
                "lines": [u["start"], u["end"]], "rows": e["rows"]}
        if u["kind"] == "class":
            item["own"] = u["own"]
        if e["through_methods"]:
            item["through_methods"] = e["through_methods"]
        item["sha256"] = u["sha256"]
        out_units.append(item)
    entry = {"units": out_units}
    if got["factories"]:
        entry["backend_factories"] = got["factories"]
    return entry


def index_modelled(source, out_path):
    """Writes the index from the modelled commit's tree; returns 0."""
    commit, _, cites = read_spec()
    tree, where = modelled_tree(source, commit)
    files = cited_files(cites)
    missing = [f for f in files if tree.read(f) is None]
    if missing:
        raise StepFailed("%s lacks %s (cited by the spec)"
                         % (source, ", ".join(missing)))
    units, _ = tree_units(tree, files)
    index = {
        "about": ABOUT,
        "jax_repo": "jax-ml/jax",
        "jax_commit": commit,
        "specs": list(SPECS),
        "normalization": NORMALIZATION,
        "normalized_with": "CPython %d.%d (and %s where this one could not "
                           "parse)" % (sys.version_info[0],
                                       sys.version_info[1],
                                       "a newer CPython"),
        "files": {},
        "not_indexed": [],
    }
    for f in files:
        index["files"][f] = file_entry(f, units[f], cites, source,
                                       index["not_indexed"])
    for c in cites:
        if c.kind in ("release", "jaxlib"):
            index["not_indexed"].append({"row": c.ident, "source": c.raw,
                                         "why": c.why})
    text = index_text(index)
    tmp = out_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, out_path)
    n = sum(len(e["units"]) for e in index["files"].values())
    print("jax-release: wrote %s: %d units in %d files of %s, read from %s"
          % (rel(out_path), n, len(index["files"]), commit, where))
    return 0


def index_text(index):
    """The index as JSON, one unit (or factory, or note) per line."""
    def one(x):
        return json.dumps(x, ensure_ascii=False)

    head = {k: v for k, v in index.items()
            if k not in ("files", "not_indexed")}
    parts = ["{"]
    for k, v in head.items():
        parts.append(" %s: %s," % (one(k), one(v)))
    parts.append(' "files": {')
    files = list(index["files"].items())
    for i, (f, entry) in enumerate(files):
        parts.append("  %s: {" % one(f))
        keys = list(entry)
        for j, key in enumerate(keys):
            items = entry[key]
            parts.append("   %s: [" % one(key))
            parts += ["    %s%s" % (one(x), "," if n + 1 < len(items)
                                     else "") for n, x in enumerate(items)]
            parts.append("   ]%s" % ("," if j + 1 < len(keys) else ""))
        parts.append("  }%s" % ("," if i + 1 < len(files) else ""))
    parts.append(" },")
    notes = index["not_indexed"]
    parts.append(' "not_indexed": [')
    parts += ["  %s%s" % (one(x), "," if n + 1 < len(notes) else "")
              for n, x in enumerate(notes)]
    parts.append(" ]")
    parts.append("}")
    return "\n".join(parts) + "\n"


def load_index(path=None):
    path = path or os.path.join(ROOT, INDEX)
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise StepFailed("cannot read %s (%s); write it with python3 "
                         "tools/jax_release.py --index-modelled DIR"
                         % (rel(path), e))


def index_rows(index, cites):
    """The live spec's rows per indexed unit ({(file, name): {row: how}},
    how "direct" or "method": see cite_units), and where the spec cites
    what the index does not hold (it is then out of date)."""
    rows, stale = {}, []
    noted = {x["row"] for x in index.get("not_indexed", [])}
    for c in cites:
        if c.kind not in ("lines", "names"):
            continue
        for f, what in c.items:
            entry = index["files"].get(f)
            if entry is None:
                stale.append("%s cites %s, which the index does not hold"
                             % (c.ident, f))
                continue
            units = [{"name": u["name"], "kind": u["kind"],
                      "start": u["lines"][0], "end": u["lines"][1],
                      "own": u.get("own", [])} for u in entry["units"]]
            if c.kind == "names":
                hit = {}
                for name in what:
                    if any(u["name"] == name for u in units):
                        hit[name] = "direct"
                    else:
                        stale.append("%s cites %s in %s, not in the index"
                                     % (c.ident, name, f))
            else:
                hit = cite_units(units, what)
                for a, b in what:
                    if c.ident not in noted and not any(
                            overlaps(a, b, u["start"], u["end"])
                            for u in units):
                        stale.append("%s cites %s:%s, in no indexed unit"
                                     % (c.ident, f, ranges_text([(a, b)])))
            for name, how in hit.items():
                by_row = rows.setdefault((f, name), {})
                if by_row.get(c.ident) != "direct":
                    by_row[c.ident] = how
    return rows, stale


# ---------------------------------------------------------------------------
# Step 3: the cited units of a tree against the modelled commit and another
# tree


def spec_units_of(index, cites):
    """{spec ident: set of (file, unit name)} of the directly cited units."""
    rows, _ = index_rows(index, cites)
    out = {}
    for (f, name), by_row in rows.items():
        for ident, how in by_row.items():
            if how == "direct":
                out.setdefault(ident, set()).add((f, name))
    return out
