"""The spec's citations: each `source =` line of conformance/spec/*.lspec
read as the lines, names, release or jaxlib source it cites."""

import os
import re

from .base import CLIENTS_PY, MAIN_SPEC, ROOT, SPECS


class Citation(object):
    """One `source =` line of a spec: `ident` ("RG-001", "fact gpu-alias"),
    `where` (spec file:line), `kind`: "lines" (`items`: [(file, [(a, b)])]),
    "names" (`items`: [(file, [name])]), "release" (cites another release's
    tag), "jaxlib" (jaxlib's C++, not in the wheel)."""

    def __init__(self, ident, where, raw, kind, items, why=""):
        self.ident, self.where, self.raw = ident, where, raw
        self.kind, self.items, self.why = kind, items, why


SECTION_RE = re.compile(r"^\[(fact [A-Za-z0-9_-]+|[A-Z]+-\d+)\]\s*$")
FILE_RANGE_RE = re.compile(r"^([A-Za-z0-9_./-]+\.[A-Za-z]+):(\d+(?:-\d+)?)$")
RANGE_RE = re.compile(r"^(\d+)(?:-(\d+))?$")
NAMES_RE = re.compile(r"^([A-Za-z0-9_./-]+\.py) \(([A-Za-z0-9_., ]+)\)$")
AT_RELEASE_RE = re.compile(r"^(.*\S) at (jax-v\d+(?:\.\d+)+)$")


def parse_source(value, where):
    """The citation of one `source =` value; raises ValueError naming what
    cannot be read."""
    m = AT_RELEASE_RE.match(value)
    if m:
        return "release", [], "cites %s, not the modelled commit" % m.group(2)
    m = NAMES_RE.match(value)
    if m:
        names = [n.strip() for n in m.group(2).split(",") if n.strip()]
        return "names", [(m.group(1), names)], ""
    items, current = [], None
    for piece in value.split(","):
        piece = piece.strip()
        fm = FILE_RANGE_RE.match(piece)
        rm = RANGE_RE.match(piece)
        if fm:
            current = (fm.group(1), [])
            items.append(current)
            rm = RANGE_RE.match(fm.group(2))
        elif not rm or current is None:
            raise ValueError("%s: cannot read `source = %s` (expected FILE:A-B"
                             "[,C-D][,FILE:E], FILE (NAME, ...) or ... at "
                             "jax-vX.Y.Z): %r" % (where, value, piece))
        a = int(rm.group(1))
        b = int(rm.group(2) or a)
        if b < a:
            raise ValueError("%s: range %s runs backwards" % (where, piece))
        current[1].append((a, b))
    files = [f for f, _ in items]
    if all(not f.endswith(".py") for f in files):
        return "jaxlib", items, ("%s: jaxlib's C++, not in the wheel (see %s)"
                                 % (", ".join(files), CLIENTS_PY))
    bad = [f for f in files if not f.endswith(".py")]
    if bad:
        raise ValueError("%s: `source = %s` mixes Python and other files"
                         % (where, value))
    return "lines", items, ""


def read_spec(paths=SPECS):
    """(jax-commit, releases list, [Citation]) of the spec files; raises
    ValueError on a source line it cannot read."""
    commit, releases, cites = None, [], []
    for path in paths:
        ident = None
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                text = line.strip()
                m = SECTION_RE.match(text)
                if m:
                    ident = m.group(1)
                    continue
                if text.startswith("["):
                    ident = None
                    continue
                key, eq, value = text.partition("=")
                key, value = key.strip(), value.strip()
                if not eq:
                    continue
                if key == "jax-commit":
                    if commit and commit != value:
                        raise ValueError("%s:%d: jax-commit %s, another spec "
                                         "says %s" % (path, n, value, commit))
                    commit = value
                elif key == "releases" and path == MAIN_SPEC:
                    releases = value.split()
                elif key == "source" and ident:
                    where = "%s:%d" % (path, n)
                    kind, items, why = parse_source(value, where)
                    cites.append(Citation(ident, where, value, kind, items,
                                          why))
    return commit, releases, cites



def row_order(ids):
    """ids in the order the specs cite them (the others last)."""
    _, _, cites = read_spec()
    order = []
    for c in cites:
        if c.ident not in order:
            order.append(c.ident)
    return sorted(ids, key=lambda i: order.index(i) if i in order
                  else len(order))
