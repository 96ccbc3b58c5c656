#!/usr/bin/env python3
"""Adding a JAX release to lctx: one command.

    python3 tools/jax_release.py VERSION [--offline] [--random N | --full]
                                 [--no-matrix] [--out DIR] [--lctx PATH]
                                 [--jax-git DIR]
    python3 tools/jax_release.py --diff TREE [--against TREE2]
    python3 tools/jax_release.py --index-modelled DIR

For JAX VERSION it

1. writes conformance/adapters/requirements/jax-VERSION.txt with
   tools/jax_requirements.py when there is none (that needs PyPI and a
   CPython of the version the release needs; --offline, or an existing
   file, skips it);
2. installs it with `sh tools/setup-jax.sh VERSION` (pinned and hashed; a
   no-op when it is installed);
3. reads from the installed wheel the units of JAX's source that the spec
   rows cite (`source = FILE:LINES` of conformance/spec/backend-selection.lspec
   and jax-sweep.lspec, lines of the modelled commit): each top-level
   function, class, method or module-level statement holding a cited line,
   as conformance/adapters/cited_functions.json lists them. Each is
   reported unchanged, changed or missing against the modelled commit (by
   the sha256 of its normalized source: docstrings, comments, blank lines
   and formatting do not count), and against the nearest lower release
   installed in build/jax/ (a unified diff of every unit that changed,
   with that release's and VERSION's file:line); then the spec rows whose
   cited units changed, and the module-level register_backend_factory
   calls of xla_bridge.py that the modelled commit (or that release) does
   not have;
4. runs the release's drift-matrix cell, `python3 tools/jax_matrix.py
   VERSION --no-sweep --random N --no-domain` (N: --random, default 2000;
   --full: the arguments of `make jax-matrix`) into DIR/matrix, and
   summarizes it. A release the spec table, the reference model or the
   client table does not name yet cannot be judged as itself: it is then
   judged as the modelled commit behaves (its drift), the fake clients
   following its jaxlib_clients.py entry, else the modelled commit's;
5. prints the drafts a person completes: the spec's `releases =` line with
   VERSION, an entry of conformance/adapters/jaxlib_clients.py, a record of
   reference/src/release.c (each fact copied from a release whose cited
   units are the same, a TODO where a cited unit changed), and the rows to
   re-read; the same goes to DIR/draft.md, the whole report to
   DIR/report.txt and DIR/report.json (DIR: --out, default
   build/jax-release/VERSION).

--diff TREE [--against TREE2]: step 3 alone, on a JAX source tree (a folder
holding jax/_src/...), against the modelled commit and TREE2.

--index-modelled DIR: writes conformance/adapters/cited_functions.json from
the modelled commit's source: DIR is a folder holding jax/_src/... at that
commit, or a git repository of jax-ml/jax holding it (read with git show).
JAX's code is not stored, only names, line ranges, the citing rows and
hashes. Parsing the modelled commit's core.py needs Python 3.12 or later
(PEP 695 syntax); a CPython that can is looked for on PATH and in pyenv's
versions. The normalization is the same under 3.11 to 3.13 (f-strings are
rendered as calls before ast.unparse: 3.12 quotes them differently).

--jax-git DIR: a git repository of jax-ml/jax; when it holds the commit the
wheel was built from (jaxlib/version.py's _git_hash), the client entry's
`.platform` shim and member lines are read from its jaxlib/py_client.h and
py_client.cc. Without it (or without that commit) the entry says the shim
was not read and what was read instead.

Exit status: 0 done (differences are data, not failures); 1 a step failed
(named on stderr); 2 bad usage. Standard library only.
"""

import argparse
import ast
import copy
import datetime
import difflib
import glob
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from jax_requirements import find_cpython  # noqa: E402  (one Python finder)

REQ_DIR = os.path.join("conformance", "adapters", "requirements")
INDEX = os.path.join("conformance", "adapters", "cited_functions.json")
CLIENTS_PY = os.path.join("conformance", "adapters", "jaxlib_clients.py")
RELEASE_C = os.path.join("reference", "src", "release.c")
RELEASE_H = os.path.join("reference", "include", "lctx", "release.h")
SPECS = (os.path.join("conformance", "spec", "backend-selection.lspec"),
         os.path.join("conformance", "spec", "jax-sweep.lspec"))
MAIN_SPEC = SPECS[0]
DEFAULT_LCTX = os.path.join("build", "release", "harness", "lctx")
VERSION_RE = re.compile(r"^\d+(\.\d+)+$")
FACTORY_CALL = "register_backend_factory"
# The arguments `make jax-matrix` gives tools/jax_matrix.py (Makefile,
# JAX_MATRIX_ARGS).
FULL_MATRIX = ["--random", "10000", "--domain-shard", "1/8",
               "--time-limit", "900"]


class StepFailed(Exception):
    """A step of the release command failed; the message says why."""


def version_key(version):
    return tuple(int(p) for p in version.split("."))


def rel(path):
    """path relative to the repository when inside it (the report names no
    machine paths of the repository)."""
    a = os.path.abspath(path)
    return os.path.relpath(a, ROOT) if a.startswith(ROOT + os.sep) else path


# ---------------------------------------------------------------------------
# The spec's citations
# ---------------------------------------------------------------------------

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


def fmt_ranges(ranges):
    return ",".join("%d" % a if a == b else "%d-%d" % (a, b)
                    for a, b in ranges)


# ---------------------------------------------------------------------------
# Units of a Python file and their normalized hashes
# ---------------------------------------------------------------------------

class _FStrings(ast.NodeTransformer):
    """f-strings as calls: ast.unparse of Python 3.12 reuses the outer quote
    inside an f-string's fields, 3.11's does not; calls unparse alike."""

    def visit_JoinedStr(self, node):
        parts = []
        for v in node.values:
            if isinstance(v, ast.FormattedValue):
                args = [self.visit(v.value), ast.Constant(v.conversion)]
                if v.format_spec is not None:
                    args.append(self.visit(v.format_spec))
                parts.append(ast.Call(ast.Name("__format_value__",
                                               ast.Load()), args, []))
            else:
                parts.append(v)
        return ast.Call(ast.Name("__fstring__", ast.Load()), parts, [])


def _strip_docstrings(node):
    for n in ast.walk(node):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                          ast.ClassDef)):
            b = n.body
            if (b and isinstance(b[0], ast.Expr)
                    and isinstance(b[0].value, ast.Constant)
                    and isinstance(b[0].value.value, str)):
                n.body = b[1:] or [ast.Pass()]
    return node


def normalize(node):
    """The normalized source of a statement: no docstrings (comments, blank
    lines and layout are gone in ast.unparse), f-strings as calls."""
    return ast.unparse(_FStrings().visit(_strip_docstrings(
        copy.deepcopy(node))))


def _digest(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _start(node):
    return min([d.lineno for d in getattr(node, "decorator_list", [])] +
               [node.lineno])


def _literal(node):
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError,
            RecursionError):
        return ast.unparse(node)


def _statement_name(st):
    if isinstance(st, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = st.targets if isinstance(st, ast.Assign) else [st.target]
        return ", ".join(ast.unparse(t) for t in targets)
    if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
        call = st.value
        first = ast.unparse(call.args[0]) if call.args else ""
        return "%s(%s%s)" % (ast.unparse(call.func), first,
                             ", ..." if len(call.args) > 1 or call.keywords
                             else "")
    if isinstance(st, ast.For):
        target = st.target
        names = (", ".join(ast.unparse(e) for e in target.elts)
                 if isinstance(target, ast.Tuple) else ast.unparse(target))
        return "for %s in %s" % (names, ast.unparse(st.iter))
    if isinstance(st, ast.If):
        return "if %s" % ast.unparse(st.test)
    first = ast.unparse(st).splitlines()[0] if ast.unparse(st) else "?"
    return first[:80]


def file_units(source):
    """{"units": [...], "factories": [...]} of one Python file: a unit per
    top-level function, class (its body without its methods) and method,
    and per other module-level statement; each with name, kind, start,
    end, sha256 and, for a class, its non-method statements' lines
    (`own`); the module-level register_backend_factory calls. Raises
    SyntaxError."""
    tree = ast.parse(source)
    units, factories, seen = [], [], {}

    def add(name, kind, node, text, extra=None):
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            name = "%s#%d" % (name, seen[name])
        u = {"name": name, "kind": kind, "start": _start(node),
             "end": node.end_lineno, "sha256": _digest(text)}
        u.update(extra or {})
        units.append(u)

    for st in tree.body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            add(st.name, "function", st, normalize(st))
        elif isinstance(st, ast.ClassDef):
            methods = [m for m in st.body
                       if isinstance(m, (ast.FunctionDef,
                                         ast.AsyncFunctionDef))]
            skeleton = copy.copy(st)
            skeleton.body = [m for m in st.body if m not in methods] or [
                ast.Pass()]
            own = [[_start(st), st.body[0].lineno - 1 if st.body[0].lineno
                    > st.lineno else st.lineno]]
            own += [[_start(m), m.end_lineno] for m in st.body
                    if m not in methods]
            add(st.name, "class", st, normalize(skeleton), {"own": own})
            for m in methods:
                add("%s.%s" % (st.name, m.name), "method", m, normalize(m))
        else:
            kind = ("assignment" if isinstance(
                st, (ast.Assign, ast.AnnAssign, ast.AugAssign))
                else "statement")
            add(_statement_name(st), kind, st, normalize(st))
            if (isinstance(st, ast.Expr) and isinstance(st.value, ast.Call)
                    and ast.unparse(st.value.func).split(".")[-1]
                    == FACTORY_CALL):
                call = st.value
                kw = {k.arg: k.value for k in call.keywords if k.arg}
                factories.append({
                    "name": _literal(call.args[0]) if call.args else None,
                    "priority": _literal(kw["priority"])
                    if "priority" in kw else 0,
                    "fail_quietly": _literal(kw["fail_quietly"])
                    if "fail_quietly" in kw else False,
                    "line": st.lineno})
    return {"units": units, "factories": factories}


def _units_stdin():
    """--units-json: {relpath: source} on stdin, {relpath: units or
    {"error": ...}} on stdout (run under the Python a tree needs)."""
    sources = json.load(sys.stdin)
    out = {}
    for path, source in sources.items():
        try:
            out[path] = file_units(source)
        except SyntaxError as e:
            out[path] = {"error": "%s line %s: %s" % (path, e.lineno, e.msg)}
    json.dump(out, sys.stdout)
    return 0


def units_of(sources, pythons):
    """{relpath: units} of {relpath: source}: parsed here, else (a syntax
    this Python lacks) under the first of `pythons` (callables returning an
    interpreter or None) that parses them. Raises StepFailed."""
    out, todo = {}, {}
    for path, source in sources.items():
        try:
            out[path] = file_units(source)
        except SyntaxError:
            todo[path] = source
    if not todo:
        return out
    tried = []
    for get in pythons:
        exe = get()
        if not exe or exe in tried:
            continue
        tried.append(exe)
        proc = subprocess.run([exe, os.path.abspath(__file__), "--units-json"],
                              input=json.dumps(todo), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            continue
        got = json.loads(proc.stdout)
        for path in list(todo):
            if "error" not in got[path]:
                out[path] = got[path]
                del todo[path]
        if not todo:
            return out
    raise StepFailed(
        "cannot parse %s with %s%s; a CPython 3.12 or later is needed (none "
        "found on PATH or in pyenv's versions)" % (
            ", ".join(sorted(todo)), "Python %d.%d" % sys.version_info[:2],
            "".join(" or " + t for t in tried)))


def newer_python():
    return find_cpython(lambda v: v >= (3, 12),
                        ["python3.13", "python3.12", "python3"])


# ---------------------------------------------------------------------------
# Source trees
# ---------------------------------------------------------------------------

class DirTree(object):
    """A folder holding jax/_src/... (a source checkout or site-packages)."""

    def __init__(self, root, label, python=None):
        self.root, self.label, self.python = root, label, python

    def read(self, path):
        try:
            with open(os.path.join(self.root, path), encoding="utf-8") as f:
                return f.read()
        except OSError:
            return None


class GitTree(object):
    """A file of a git repository at a commit (git show)."""

    def __init__(self, gitdir, commit, label):
        self.gitdir, self.commit, self.label = gitdir, commit, label
        self.python = None

    def read(self, path):
        proc = subprocess.run(["git", "--git-dir", self.gitdir, "show",
                               "%s:%s" % (self.commit, path)],
                              stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
        return proc.stdout.decode("utf-8") if proc.returncode == 0 else None


def git_dir(path):
    """The git directory of `path` when it is a git repository, else None."""
    try:
        proc = subprocess.run(["git", "-C", path, "rev-parse",
                               "--absolute-git-dir"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    except OSError:
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def git_has(gitdir, commit):
    return subprocess.run(["git", "--git-dir", gitdir, "cat-file", "-e",
                           commit + "^{commit}"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def venv_dir(version):
    return os.path.join(ROOT, "build", "jax", "venv-" + version)


def site_packages(version):
    found = sorted(glob.glob(os.path.join(venv_dir(version), "lib",
                                          "python3.*", "site-packages")))
    for sp in found:
        if os.path.isdir(os.path.join(sp, "jax", "_src")):
            return sp
    return None


def release_tree(version):
    sp = site_packages(version)
    if sp is None:
        return None
    return DirTree(sp, "jax %s" % version,
                   os.path.join(venv_dir(version), "bin", "python"))


def installed_versions():
    out = []
    for d in glob.glob(os.path.join(ROOT, "build", "jax", "venv-*")):
        v = os.path.basename(d)[len("venv-"):]
        if VERSION_RE.match(v) and os.path.exists(
                os.path.join(d, "bin", "python")) and site_packages(v):
            out.append(v)
    return sorted(out, key=version_key)


def tree_units(tree, files):
    """({file: units or None (missing)}, {file: source lines})."""
    sources, lines = {}, {}
    for f in files:
        text = tree.read(f)
        if text is not None:
            sources[f] = text
            lines[f] = text.splitlines()
    got = units_of(sources, [lambda: tree.python, newer_python])
    return {f: got.get(f) for f in files}, lines


# ---------------------------------------------------------------------------
# The index of the modelled commit (cited_functions.json)
# ---------------------------------------------------------------------------

def _overlaps(a, b, start, end):
    return a <= end and b >= start


def cite_units(units, ranges):
    """The units a file's cited ranges touch: {name: "direct" | "method"}
    ("method": a class touched only through its methods' lines)."""
    hit = {}
    for a, b in ranges:
        for u in units:
            if not _overlaps(a, b, u["start"], u["end"]):
                continue
            if u["kind"] == "class":
                direct = any(_overlaps(a, b, s, e) for s, e in u["own"])
                if direct or hit.get(u["name"]) != "direct":
                    hit[u["name"]] = "direct" if direct else "method"
            else:
                hit[u["name"]] = "direct"
    return hit


def index_modelled(source, out_path):
    """Writes the index from the modelled commit's tree; returns 0."""
    commit, _, cites = read_spec()
    gd = git_dir(source) if not os.path.isdir(
        os.path.join(source, "jax", "_src")) else None
    if gd:
        if not git_has(gd, commit):
            raise StepFailed("%s does not hold the modelled commit %s"
                             % (source, commit))
        tree = GitTree(gd, commit, "jax-ml/jax@%s" % commit)
        where = "a git repository of jax-ml/jax (git show %s:FILE)" % commit
    elif os.path.isdir(os.path.join(source, "jax", "_src")):
        tree = DirTree(source, "the modelled commit")
        where = "a folder holding the modelled commit's jax/_src"
    else:
        raise StepFailed("%s holds no jax/_src/ and is no git repository of "
                         "jax-ml/jax" % source)
    files = []
    for c in cites:
        if c.kind in ("lines", "names"):
            for f, _ in c.items:
                if f not in files:
                    files.append(f)
    missing = [f for f in files if tree.read(f) is None]
    if missing:
        raise StepFailed("%s lacks %s (cited by the spec)"
                         % (source, ", ".join(missing)))
    units, _ = tree_units(tree, files)
    index = {
        "about": "The units of JAX's source that the spec rows cite "
                 "(conformance/spec/*.lspec `source =`), at the modelled "
                 "commit: per file, each top-level function, class (its "
                 "body without its methods: fields, decorators, bases), "
                 "method or module-level statement holding a cited line; "
                 "its line range at that commit, the rows citing it (with "
                 "the lines they cite) and the sha256 of its normalized "
                 "source. No JAX code is stored. Written by "
                 "`python3 tools/jax_release.py --index-modelled DIR`; read "
                 "by tools/jax_release.py VERSION.",
        "jax_repo": "jax-ml/jax",
        "jax_commit": commit,
        "specs": list(SPECS),
        "normalization": "sha256 (UTF-8) of ast.unparse of the statement "
                         "with its docstrings (and those of what it "
                         "defines) removed and every f-string written as "
                         "a call (__fstring__, __format_value__), so that "
                         "comments, blank lines, layout and quoting do not "
                         "count, and Python 3.11 to 3.13 agree",
        "normalized_with": "CPython %d.%d (and %s where this one could not "
                           "parse)" % (sys.version_info[0],
                                       sys.version_info[1],
                                       "a newer CPython"),
        "files": {},
        "not_indexed": [],
    }
    for f in files:
        fu = units[f]["units"]
        by_name = {u["name"]: u for u in fu}
        chosen = {}
        for c in cites:
            for cf, what in c.items:
                if cf != f:
                    continue
                if c.kind == "names":
                    hit = {}
                    for name in what:
                        if name not in by_name:
                            raise StepFailed("%s cites %s (%s), which %s does "
                                             "not define" % (c.where, name,
                                                             f, source))
                        hit[name] = "direct"
                    text = "(%s)" % ", ".join(what)
                else:
                    hit = cite_units(fu, what)
                    text = fmt_ranges(what)
                    covered = set()
                    for u in fu:
                        for a, b in what:
                            for n in range(max(a, u["start"]),
                                           min(b, u["end"]) + 1):
                                covered.add(n)
                    for a, b in what:
                        if not any(a <= n <= b for n in covered):
                            index["not_indexed"].append({
                                "row": c.ident, "source": "%s:%s" % (
                                    f, fmt_ranges([(a, b)])),
                                "why": "no statement on these lines"})
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
        if units[f]["factories"]:
            entry["backend_factories"] = units[f]["factories"]
        index["files"][f] = entry
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
                            _overlaps(a, b, u["start"], u["end"])
                            for u in units):
                        stale.append("%s cites %s:%s, in no indexed unit"
                                     % (c.ident, f, fmt_ranges([(a, b)])))
            for name, how in hit.items():
                by_row = rows.setdefault((f, name), {})
                if by_row.get(c.ident) != "direct":
                    by_row[c.ident] = how
    return rows, stale


# ---------------------------------------------------------------------------
# Step 3: the cited units of a tree against the modelled commit and another
# tree
# ---------------------------------------------------------------------------

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


def row_order(ids):
    _, _, cites = read_spec()
    order = []
    for c in cites:
        if c.ident not in order:
            order.append(c.ident)
    return sorted(ids, key=lambda i: order.index(i) if i in order
                  else len(order))


def factory_text(fa):
    return "%s (priority %s%s, line %s)" % (
        fa["name"], fa["priority"],
        ", fail_quietly" if fa.get("fail_quietly") is True else "",
        fa["line"])


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
    for f, fa in cmp["factories"].items():
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


# ---------------------------------------------------------------------------
# Steps 1, 2 and 4
# ---------------------------------------------------------------------------

class Reporter(object):
    def __init__(self):
        self.lines = []

    def __call__(self, text=""):
        print(text, flush=True)
        self.lines.append(text)


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


def client_entries():
    """The module jaxlib_clients, the names of its CLIENTS (None when it
    cannot be read), and whether an entry may leave gpu_platforms unread
    (None: some entry does)."""
    sys.path.insert(0, os.path.join(ROOT, "conformance", "adapters"))
    try:
        import jaxlib_clients
        return jaxlib_clients, list(jaxlib_clients.CLIENTS), any(
            e.gpu_platforms is None
            for e in jaxlib_clients.CLIENTS.values())
    except Exception:  # a file under edit: the draft says so
        return None, None, False
    finally:
        sys.path.pop(0)


def summarize_report(out, report, label):
    import jax_matrix
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
    import jax_matrix
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
    why = s.get("message", "") or "no report"
    out("  as itself: could not run: %s" % why)
    unnamed = re.search(r"unknown JAX release|does not know JAX release|"
                        r"no client entry|has no entry in", why)
    if not unnamed:
        raise StepFailed("the matrix cell of %s could not run: %s"
                         % (version, why))
    # Not named by the table, the model or the client table yet: the drift
    # from the modelled commit, judged without --jax.
    mod, entries, _ = client_entries()
    clients = version if entries and version in entries else "modelled"
    summary["as_itself"] = "not possible: " + why
    summary["clients"] = clients
    python = os.path.join("build", "jax", "venv-" + version, "bin", "python")
    adapter = os.path.join("conformance", "adapters", "jax_adapter.py")
    report_dir = os.path.join(mdir, version, "modelled")
    opts = {"conform": (["--random", "10000"] if full
                        else ["--random", str(random_n), "--no-domain"]),
            "raw": [], "domain_shard": "1/8" if full else None}
    reports = []
    for label, rdir, cargs in jax_matrix.side_runs(opts, mdir, report_dir,
                                                   []):
        os.makedirs(rdir, exist_ok=True)
        cmd = [lctx, "conform", "--cmd", "%s %s%s" % (
            python, adapter, "" if clients == version
            else " --clients " + clients), "--report-dir", rdir] + cargs
        out("  as the modelled commit behaves (%s; fake clients: %s "
            "entry): $ %s" % (label, clients, " ".join(
                shlex.quote(rel(c)) for c in cmd)))
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
        with open(os.path.join(ROOT, rdir, "report.json"),
                  encoding="utf-8") as f:
            reports.append(json.load(f))
    merged = jax_matrix.merge_reports(reports)
    out("")
    ops, failing = summarize_report(
        out, merged, "as the modelled commit behaves (%s)" % rel(report_dir))
    summary.update(status="judged as the modelled commit only",
                   operations=ops, failing_rows=failing,
                   report_dir=rel(report_dir))
    return summary


# ---------------------------------------------------------------------------
# Step 5: the drafts
# ---------------------------------------------------------------------------

def releases_line(releases, version):
    if version in releases:
        return "releases = %s   (already names %s)" % (" ".join(releases),
                                                      version)
    # Oldest first; `modelled` (when the table names it) keeps its place.
    new = list(releases)
    later = [i for i, r in enumerate(new) if VERSION_RE.match(r)
             and version_key(r) > version_key(version)]
    new.insert(later[0] if later else len(new), version)
    return "releases = %s" % " ".join(new)


CLIENT_PROBE = r"""
import json, os, sys
os.environ["JAX_PLATFORMS"] = "cpu"
sys.path.insert(0, sys.argv[1])
import jaxlib_clients
out = {}
try:
    import jaxlib, jaxlib.version
    out["jaxlib"] = jaxlib.__version__
    out["git_hash"] = getattr(jaxlib.version, "_git_hash", None)
    from jax._src import xla_bridge
    c = xla_bridge.backends()["cpu"]
    t = type(c)
    out["client_class"] = "%s.%s" % (t.__module__, t.__name__)
    out["platform"] = c.platform
    out["platform_version"] = c.platform_version
    out["runtime_type"] = c.runtime_type
    out["members"] = [m for m in jaxlib_clients.KNOWN_MEMBERS
                      if hasattr(t, m)]
    out["known"] = list(jaxlib_clients.KNOWN_MEMBERS)
except Exception as e:
    out["error"] = "%s: %s" % (type(e).__name__, e)
print(json.dumps(out))
"""


def probe_client(version):
    python = os.path.join(venv_dir(version), "bin", "python")
    try:
        proc = subprocess.run(
            [python, "-c", CLIENT_PROBE, os.path.join(ROOT, "conformance",
                                                      "adapters")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            timeout=300)
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError) as e:
        return {"error": "%s: %s" % (type(e).__name__, e)}


def read_jaxlib_source(gitdir, commit):
    """What jaxlib/py_client.h and py_client.cc say at `commit`: the shim's
    platforms and lines, the members' binding lines, the XLA commit; None
    when they are not there."""
    tree = GitTree(gitdir, commit, commit)
    h, cc = tree.read("jaxlib/py_client.h"), tree.read("jaxlib/py_client.cc")
    if h is None or cc is None:
        return None
    hl = h.splitlines()
    start = next((i for i, l in enumerate(hl)
                  if re.search(r"\bplatform_name\(\) const \{", l)), None)
    if start is None:
        return None
    depth, end = 0, None
    for i in range(start, len(hl)):
        depth += hl[i].count("{") - hl[i].count("}")
        if depth == 0:
            end = i
            break
    body = "\n".join(hl[start:end + 1])
    gpu = re.findall(r'platform_name\(\) == "(\w+)"', body)
    cl = cc.splitlines()
    cls = next((i for i, l in enumerate(cl) if '"Client"' in l), 0)
    binding = []
    for m in ("platform", "platform_version", "runtime_type",
              "device_count", "local_device_count", "devices",
              "local_devices", "_get_all_devices", "process_index"):
        at = next((i + 1 for i in range(cls, len(cl))
                   if re.search(r'\.def(_prop_ro)?\(\s*"%s"' % m, cl[i])),
                  None)
        binding.append(at)
    # XLA_COMMIT: in workspace.bzl, or (later) in the revision.bzl it loads.
    ws = "".join(tree.read("third_party/xla/%s.bzl" % name) or ""
                 for name in ("workspace", "revision"))
    xm = re.search(r'XLA_COMMIT = "([0-9a-f]{40})"', ws)
    return {"gpu": gpu, "shim": (start + 1, end + 1), "binding": binding,
            "xla": xm.group(1) if xm else None}


def draft_clients(version, probe, jaxlib_src, entries, allows_unread,
                  base_entry):
    """The draft entry of jaxlib_clients.py (lines)."""
    known = probe.get("known") or []
    members = probe.get("members")
    if members is None:
        mem = "MEMBERS  # TODO: not read (%s)" % probe.get("error", "?")
    elif members == known:
        mem = "MEMBERS"
    else:
        mem = "(%s)" % ", ".join(repr(m) for m in members)
    commit = probe.get("git_hash")
    lines = []
    if entries and version in entries:
        lines.append("# jaxlib_clients.CLIENTS already has an entry for %s; "
                     "this draft is read afresh, to compare." % version)
    if jaxlib_src:
        gpu = tuple(jaxlib_src["gpu"])
        gname = {("cuda", "rocm"): "CUDA_ROCM",
                 ("cuda", "rocm", "oneapi"): "CUDA_ROCM_ONEAPI"}.get(
                     gpu, repr(gpu))
        lines += [
            "# jaxlib %s: read at the wheel's commit %s (jaxlib/version.py "
            "_git_hash): the shim %s in jaxlib/py_client.h:%d-%d, the members' "
            "binding in jaxlib/py_client.cc; XLA %s (third_party/xla/"
            "workspace.bzl or revision.bzl). The real CPU client: platform %r, "
            "platform_version %r, runtime_type %r." % (
                version, (commit or "?")[:12], "/".join(gpu) + " -> 'gpu'",
                jaxlib_src["shim"][0], jaxlib_src["shim"][1],
                (jaxlib_src["xla"] or "not read")[:12],
                probe.get("platform"), probe.get("platform_version"),
                probe.get("runtime_type")),
            "CLIENTS[%r] = _jaxlib_entry(" % version,
            "    %r, %r," % (version, commit),
            "    %r, %s, %r," % (jaxlib_src["xla"], gname,
                                 tuple(jaxlib_src["shim"])),
            "    _binding(%s))" % ", ".join(
                "None" if b is None else str(b)
                for b in jaxlib_src["binding"]),
        ]
        if probe.get("platform_version") != "cpu" or probe.get(
                "runtime_type") != "pjrt_ifrt" or mem != "MEMBERS":
            lines.append("# TODO: _jaxlib_entry assumes platform_version "
                         "'cpu', runtime_type 'pjrt_ifrt' and every member; "
                         "the wheel says %r, %r, %s" % (
                             probe.get("platform_version"),
                             probe.get("runtime_type"), mem))
        return lines
    read_instead = (
        "the wheel's real CPU client (.platform %r, platform_version %r, "
        "runtime_type %r) and the members of its Client class %s by dir()"
        % (probe.get("platform"), probe.get("platform_version"),
           probe.get("runtime_type"), probe.get("client_class", "?")))
    if "error" in probe:
        read_instead = "nothing: the CPU client could not be read (%s)" % (
            probe["error"])
    if allows_unread:
        gpu = "None"
        gpu_note = ("`.platform` of a cuda, rocm or oneapi client is not "
                    "read and not guessed")
    else:
        gpu = repr(base_entry.gpu_platforms) if base_entry else "None"
        gpu_note = ("gpu_platforms is copied from the %s entry: TODO, not "
                    "read" % (base_entry.release if base_entry else "?"))
    lines += [
        "# jaxlib %s: its C++ source (py_client.h, py_client.cc) was not read"
        % version,
        "# (the wheel holds only the compiled extension, and no jax-ml/jax "
        "tree here",
        "# holds the wheel's commit %s): the `.platform` shim was NOT read."
        % ((commit or "?")[:12]),
        "# Read instead: %s." % read_instead,
        "CLIENTS[%r] = ClientEntry(" % version,
        "    release=%r, jax_commit=%r, xla_commit=None," % (version, commit),
        "    gpu_platforms=%s, cpu_platform_version=%r," % (
            gpu, probe.get("platform_version")),
        "    cpu_runtime_type=%r, members=%s," % (probe.get("runtime_type"),
                                                  mem),
        "    platform_source=None,",
        "    members_source=Source(\"PyPI\", \"jaxlib-%s wheel: %s Client "
        "(dir())\", None, None)," % (version, (probe.get("client_class")
                                               or "jaxlib").rsplit(".", 1)[0]
                                     .replace(".", "/")),
        "    note=\"py_client.h not read for this release (no source tree "
        "here holds its commit; the wheel holds the compiled extension "
        "only): %s; read instead: the wheel's real CPU client "
        "(platform_version, runtime_type) and its Client class's members "
        "(dir()).\")" % gpu_note,
    ]
    return lines


RECORD_RE = re.compile(r"\{\s*\.name = \"([^\"]+)\",(.*?)\n    \},", re.S)
FIELD_RE = re.compile(r"^\s*\.(\w+) = (.*?),\s*$")
COMMENT_RE = re.compile(r"^\s*/\* (.*?) \*/\s*$")
# The facts of release.c by the spec section whose cited units hold them;
# a field not named here is looked up as `fact NAME` (underscores as
# hyphens) and otherwise copied unchecked.
FIELD_SPEC = {
    "gpu_alias": "fact gpu-alias",
    "known_builtin": "fact known-platforms",
    "cuda_skip": "fact cuda-skip",
    "unknown_backend_lists_available": "XG-008",
    "client_gpu": "fact client-gpu",
    "module_optional": "fact module-optional",
    "module_pinned_check": "fact module-get-backend",
    "module_lookup_first_platform": "fact module-get-backend",
    "lowering_checks_platform": "fact register-checks",
    "has_lower_per_platform": "fact lower-per-platform",
    "compute_type_platforms": "fact compute-type",
    "compute_nesting_check": "fact compute-nesting",
    "dispatch_module_platforms": "fact lower-per-platform",
}
SHORT = {"xla_bridge.py": "jax/_src/xla_bridge.py",
         "mlir.py": "jax/_src/interpreters/mlir.py",
         "core.py": "jax/_src/core.py"}


def release_records():
    """[(name, [(comment or None, field, value)])] of release.c, in order."""
    with open(os.path.join(ROOT, RELEASE_C), encoding="utf-8") as f:
        text = f.read()
    records = []
    for m in RECORD_RE.finditer(text):
        items, comment = [], None
        for line in m.group(2).splitlines():
            cm = COMMENT_RE.match(line)
            fm = FIELD_RE.match(line)
            if cm:
                comment = cm.group(1)
            elif fm:
                items.append((comment, fm.group(1), fm.group(2)))
                comment = None
        records.append((m.group(1), items))
    return records


def field_units(field, spec_units):
    ident = FIELD_SPEC.get(field) or "fact " + field.replace("_", "-")
    return ident, spec_units.get(ident)


def shifted_cite(comment, base_units, new_units, base_lines, new_lines):
    """The comment's file:lines citations moved from the base release to
    VERSION, where every unit a range touches has the same text in both and
    moved by the same number of lines; None when some cannot be moved."""
    def move(short, ranges):
        path = SHORT.get(short)
        if not path or path not in base_units or path not in new_units:
            return None
        moved = []
        for a, b in ranges:
            touched = [x for x in base_units[path] if x["kind"] != "class"
                       and _overlaps(a, b, x["start"], x["end"])]
            shifts = set()
            for u in touched:
                v = next((x for x in new_units[path]
                          if x["name"] == u["name"]), None)
                if v is None or base_lines[path][u["start"] - 1:u["end"]] \
                        != new_lines[path][v["start"] - 1:v["end"]]:
                    return None
                shifts.add(v["start"] - u["start"])
            if len(shifts) != 1:
                return None
            d = shifts.pop()
            moved.append((a + d, b + d))
        return "%s:%s" % (short, ", ".join(
            "%d" % a if a == b else "%d-%d" % (a, b) for a, b in moved))

    ok = [True]

    def sub(m):
        ranges = []
        for r in re.split(r",\s*", m.group(2)):
            a, _, b = r.partition("-")
            ranges.append((int(a), int(b or a)))
        got = move(m.group(1), ranges)
        if got is None:
            ok[0] = False
            return m.group(0)
        return got

    text = re.sub(r"\b(\w+\.py):(\d+(?:-\d+)?(?:,\s*\d+(?:-\d+)?)*)", sub,
                  comment)
    return text if ok[0] else None


def where_text(units, lines_of):
    """"xla_bridge.py:727-731, 733 (a, b)" for a set of (file, unit)."""
    by_file = {}
    for f, n in units:
        by_file.setdefault(f, []).append((tuple(lines_of.get((f, n))
                                                or (0, 0)), n))
    parts = []
    for f in sorted(by_file):
        items = sorted(by_file[f])
        parts.append("%s:%s (%s)" % (os.path.basename(f), ", ".join(
            "%d" % a if a == b else "%d-%d" % (a, b) for (a, b), _ in items),
            ", ".join(n for _, n in items)))
    return "; ".join(parts)


def draft_record(version, records, spec_units, states, trees, probe,
                 jaxlib_src, has_unread_field):
    """The draft record of release.c (lines) and its TODO count.

    states: {"base": name, "base_cmp": {(file, unit): state} or None,
    "modelled_cmp": {(file, unit): state}}; trees: units and lines of the
    base release and VERSION for moving line citations."""
    names = [n for n, _ in records]
    base_name = states["base"]
    base = dict(records).get(base_name)
    modelled = dict(records).get("modelled")
    lines = []
    if version in names:
        lines.append("/* release.c already has a record for %s; this draft "
                     "is derived afresh, to compare. */" % version)
    lines += ["    {", "        .name = \"%s\"," % version,
              "        .jax_ref = \"jax-v%s%s\"," % (
                  version, "" if jaxlib_src else " (wheel)")]
    todos = 0
    base_cmp, mod_cmp = states["base_cmp"], states["modelled_cmp"]
    for comment, field, value in base or []:
        if field in ("name", "jax_ref", "client_gpu_unread"):
            continue
        fnum = re.match(r"(F\d+)", comment or "")
        fnum = fnum.group(1) if fnum else "F?"
        commit = re.match(r"F\d+ ([0-9a-f]{7,40})", comment or "")
        commit = commit.group(1) if commit else ""
        tag = fnum + (" " + commit if commit else "")
        if field == "client_gpu":
            if jaxlib_src:
                gpu = tuple(jaxlib_src["gpu"])
                val = {("cuda", "rocm"): "CUDA_ROCM",
                       ("cuda", "rocm", "oneapi"): "CUDA_ROCM_ONEAPI"}.get(
                           gpu, "TODO %r" % (gpu,))
                lines += ["        /* F2 %s: jaxlib/py_client.h:%d-%d */" % (
                    commit or "00b8c5dbf0", jaxlib_src["shim"][0],
                    jaxlib_src["shim"][1]), "        .client_gpu = %s," % val]
            elif has_unread_field:
                mval = next((v for c, f, v in modelled or []
                             if f == "client_gpu"), value)
                lines += ["        /* F2 not read (F13): the modelled "
                          "commit's list (jaxlib's C++ is not in the wheel) "
                          "*/", "        .client_gpu = %s," % mval,
                          "        .client_gpu_unread = true,"]
            else:
                todos += 1
                lines += ["        /* TODO F2: jaxlib/py_client.h not read "
                          "(not in the wheel); copied from %s */" % base_name,
                          "        .client_gpu = %s," % value]
            continue
        ident, units = field_units(field, spec_units)
        if not units:
            lines += ["        /* %s (copied from %s: no cited unit known "
                      "to tools/jax_release.py for .%s) */" % (
                          comment or fnum, base_name, field),
                      "        .%s = %s," % (field, value)]
            continue
        where = where_text(units, trees["new_lines_of"])
        if base_cmp is not None and all(base_cmp.get(u) == "unchanged"
                                        for u in units):
            moved = shifted_cite(comment or "", trees["base_units"],
                                 trees["new_units"], trees["base_lines"],
                                 trees["new_lines"])
            text = ("%s (as in %s)" % (moved, base_name) if moved else
                    "%s: %s, as in %s" % (tag, where, base_name))
            lines += ["        /* %s */" % text,
                      "        .%s = %s," % (field, value)]
        elif all(mod_cmp.get(u) == "unchanged" for u in units) and modelled:
            mval, mcomment = next(((v, c) for c, f, v in modelled
                                   if f == field), (None, None))
            mcommit = re.match(r"F\d+ ([0-9a-f]{7,40})", mcomment or "")
            if mcommit:
                tag = fnum + " " + mcommit.group(1)
            if mval is None:
                todos += 1
                lines += ["        /* TODO %s: %s; the modelled record has "
                          "no %s */" % (tag, where, field),
                          "        .%s = %s," % (field, value)]
            else:
                lines += ["        /* %s: %s, as at the modelled commit "
                          "*/" % (tag, where),
                          "        .%s = %s," % (field, mval)]
        else:
            todos += 1
            ref = base_cmp if base_cmp is not None else mod_cmp
            changed = sorted(n for f, n in units
                             if ref.get((f, n)) != "unchanged")
            lines += ["        /* TODO %s: %s changed since %s: re-read "
                      "%s; value copied from %s */" % (
                          tag, ", ".join(changed),
                          base_name if base_cmp is not None
                          else "the modelled commit", where, base_name),
                      "        .%s = %s," % (field, value)]
    lines.append("    },")
    return lines, todos


def spec_units_of(index, cites):
    """{spec ident: set of (file, unit name)} of the directly cited units."""
    rows, _ = index_rows(index, cites)
    out = {}
    for (f, name), by_row in rows.items():
        for ident, how in by_row.items():
            if how == "direct":
                out.setdefault(ident, set()).add((f, name))
    return out


# ---------------------------------------------------------------------------
# The release command
# ---------------------------------------------------------------------------

def release(opts):
    version = opts.version
    out_dir = os.path.abspath(opts.out or os.path.join(
        ROOT, "build", "jax-release", version))
    os.makedirs(out_dir, exist_ok=True)
    for name in ("report.txt", "report.json", "source.diff", "draft.md"):
        if os.path.exists(os.path.join(out_dir, name)):
            os.remove(os.path.join(out_dir, name))
    out = Reporter()
    failed = []
    started = time.monotonic()
    data = {"version": version, "generated": datetime.datetime.now(
        datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
    lctx = os.path.abspath(opts.lctx) if opts.lctx else os.path.join(
        ROOT, DEFAULT_LCTX)

    seconds = []

    def step(n, title, fn, *args):
        out("")
        out("jax-release %s: step %d (%s)" % (version, n, title))
        start = time.monotonic()
        try:
            return fn(*args)
        except StepFailed as e:
            out("  FAILED: %s" % e)
            failed.append("step %d (%s): %s" % (n, title, e))
            return None
        finally:
            took = time.monotonic() - start
            seconds.append((n, title, took))
            out("  (step %d took %.1f s)" % (n, took))

    # The spec first: a malformed source line stops everything.
    try:
        commit, releases, cites = read_spec()
    except (OSError, ValueError) as e:
        sys.stderr.write("jax-release: %s\n" % e)
        return 1
    out("jax-release %s: the modelled commit is jax-ml/jax@%s; the spec "
        "names %s" % (version, commit, ", ".join(releases)))

    def left_out(n, title, why):
        out("")
        out("jax-release %s: step %d (%s): left out (%s)" % (version, n,
                                                            title, why))

    step(1, "requirements", step_requirements, out, version, opts.offline)
    if failed:
        left_out(2, "install", "step 1 failed")
    else:
        step(2, "install", step_install, out, version)
    installed = not failed
    not_installed = "JAX %s is not installed" % version

    prev = None
    lower = [v for v in installed_versions()
             if version_key(v) < version_key(version)]
    if lower:
        prev = lower[-1]
    cmp = None

    def source_step():
        index = load_index()
        tree = release_tree(version)
        against = release_tree(prev) if prev else None
        out("  jax %s (%s) against the modelled commit %s (%s) and %s" % (
            version, rel(tree.root), index["jax_commit"], INDEX,
            "jax %s, the nearest lower release installed" % prev
            if prev else "no earlier release (none installed here)"))
        c = compare_source(index, tree, against)
        out("")
        source_report(out, c, "jax " + version, ("jax " + prev)
                      if prev else None)
        return c

    if installed:
        cmp = step(3, "source", source_step)
    else:
        left_out(3, "source", not_installed)
    data["source"] = {"prev": prev, "units": [
        {k: v for k, v in u.items() if k != "diff"} for u in cmp["units"]]
        if cmp else None, "factories": cmp["factories"] if cmp else None,
        "stale": cmp["stale"] if cmp else None}
    if cmp:
        with open(os.path.join(out_dir, "source.diff"), "w",
                  encoding="utf-8") as f:
            for u in cmp["units"]:
                if u.get("diff"):
                    f.write("\n".join(u["diff"]) + "\n")

    matrix = None
    if opts.no_matrix:
        left_out(4, "matrix", "--no-matrix")
    elif not installed:
        left_out(4, "matrix", not_installed)
    else:
        if not os.access(lctx, os.X_OK):
            matrix = None
            failed.append("step 4 (matrix): %s is not there (build it, or "
                          "pass --lctx PATH)" % rel(lctx))
            out("")
            out("jax-release %s: step 4 (matrix): FAILED: %s is not there"
                % (version, rel(lctx)))
        else:
            matrix = step(4, "matrix", step_matrix, out, version, out_dir,
                          lctx, opts.full, opts.random)
    data["matrix"] = matrix

    def draft_step():
        return drafts(out, version, releases, cites, cmp, prev, installed,
                      opts, out_dir, matrix)
    if installed:
        data["drafts"] = step(5, "drafts", draft_step)
    else:
        left_out(5, "drafts", not_installed)

    data["failed"] = failed
    data["seconds"] = {"step %d (%s)" % (n, t): round(x, 1)
                       for n, t, x in seconds}
    with open(os.path.join(out_dir, "report.txt"), "w",
              encoding="utf-8") as f:
        f.write("\n".join(out.lines) + "\n")
    with open(os.path.join(out_dir, "report.json"), "w",
              encoding="utf-8") as f:
        f.write(json.dumps(data, indent=1, ensure_ascii=False, default=str)
                + "\n")
    out("")
    out("jax-release %s: time per step: %s; %.1f s in all" % (
        version, ", ".join("%d (%s) %.1f s" % x for x in seconds),
        time.monotonic() - started))
    written = [n for n in ("report.txt", "report.json", "source.diff",
                           "draft.md", "matrix")
               if os.path.exists(os.path.join(out_dir, n))]
    out("")
    out("jax-release %s: %s in %s" % (
        version, "FAILED: " + "; ".join(f.split(":")[0] for f in failed)
        if failed else "done", rel(out_dir) + " (" + ", ".join(written)
        + ")"))
    with open(os.path.join(out_dir, "report.txt"), "w",
              encoding="utf-8") as f:
        f.write("\n".join(out.lines) + "\n")
    for f in failed:
        sys.stderr.write("jax-release: %s failed: %s\n" % (
            f.split(":")[0], f.split(":", 1)[1].strip()))
    return 1 if failed else 0


def drafts(out, version, releases, cites, cmp, prev, installed, opts,
           out_dir, matrix):
    md = ["# Adding JAX %s: drafts" % version, "",
          "Written by `python3 tools/jax_release.py %s`. Complete and copy "
          "each part by hand; a TODO marks what changed and must be read "
          "again." % version, ""]

    def both(text=""):
        out(text)
        md.append(text)

    both("1. conformance/spec/backend-selection.lspec (and every fact or "
         "row's `was` line the re-read finds):")
    both("")
    both("    " + releases_line(releases, version))
    both("")
    probe = probe_client(version) if installed else {
        "error": "not installed"}
    jaxlib_src = None
    gd = git_dir(opts.jax_git) if opts.jax_git else None
    if gd and probe.get("git_hash") and git_has(gd, probe["git_hash"]):
        jaxlib_src = read_jaxlib_source(gd, probe["git_hash"])
    mod, entries, allows_unread = client_entries()
    base_entry = None
    if mod is not None:
        lower = [e for e in entries if e != "modelled" and VERSION_RE.match(e)
                 and version_key(e) < version_key(version)]
        if lower:
            base_entry = mod.CLIENTS[max(lower, key=version_key)]
    both("2. conformance/adapters/jaxlib_clients.py, an entry of CLIENTS:")
    both("")
    for line in draft_clients(version, probe, jaxlib_src, entries,
                              allows_unread, base_entry):
        both("    " + line)
    both("")

    if cmp is None:
        both("3. reference/src/release.c and 4. the rows to re-read: not "
             "drafted, step 3 (source) failed.")
        path = os.path.join(out_dir, "draft.md")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(md) + "\n")
        raise StepFailed("the release.c record and the rows to re-read "
                         "need step 3 (the other drafts are in %s)"
                         % rel(path))
    # release.c
    records = release_records()
    lower = [n for n, _ in records if VERSION_RE.match(n)
             and version_key(n) < version_key(version)]
    base_name = max(lower, key=version_key) if lower else None
    with open(os.path.join(ROOT, RELEASE_H), encoding="utf-8") as f:
        has_unread = "client_gpu_unread" in f.read()
    index = load_index()
    spec_units = spec_units_of(index, cites)
    trees = {"base_units": {}, "new_units": {}, "base_lines": {},
             "new_lines": {}, "new_lines_of": {}}
    base_cmp = None
    mod_cmp = {}
    if cmp:
        for u in cmp["units"]:
            mod_cmp[(u["file"], u["name"])] = u["vs_modelled"]
            if u["lines"]:
                trees["new_lines_of"][(u["file"], u["name"])] = u["lines"]
    base_tree = release_tree(base_name) if base_name else None
    new_tree = release_tree(version) if installed else None
    if base_tree and new_tree:
        files = list(index["files"])
        bu, bl = tree_units(base_tree, files)
        nu, nl = tree_units(new_tree, files)
        trees.update(base_units={f: v["units"] for f, v in bu.items() if v},
                     new_units={f: v["units"] for f, v in nu.items() if v},
                     base_lines=bl, new_lines=nl)
        base_cmp = {}
        for f in files:
            b = {u["name"]: u["sha256"] for u in trees["base_units"].get(f,
                                                                         [])}
            n = {u["name"]: u["sha256"] for u in trees["new_units"].get(f,
                                                                        [])}
            for name in set(b) | set(n):
                base_cmp[(f, name)] = ("unchanged" if b.get(name) ==
                                       n.get(name) and name in b
                                       else "changed")
    basis = ("each fact is copied from %s's record where the units it cites "
             "are the same as in jax %s (installed), else from the modelled "
             "record where they are the same as at the modelled commit; "
             "TODO where they changed" % (base_name, base_name)
             if base_cmp is not None else
             "jax %s is not installed here, so each fact whose cited units "
             "are the same as at the modelled commit is the modelled "
             "record's; TODO where they changed (values copied from %s)"
             % (base_name, base_name))
    both("3. reference/src/release.c, a record of RELEASES (after %s): %s."
         % (base_name, basis))
    both("")
    rec, todos = draft_record(
        version, records, spec_units, {"base": base_name,
                                       "base_cmp": base_cmp,
                                       "modelled_cmp": mod_cmp},
        trees, probe, jaxlib_src, has_unread)
    for line in rec:
        both(line)
    both("")
    # Rows to re-read.
    both("4. Rows to re-read:")
    reread = {}
    if cmp:
        since = rows_changed(cmp["units"], "vs_prev") if prev else {}
        against = rows_changed(cmp["units"], "vs_modelled")
        for row in set(since) | set(against):
            names = []
            for n in since.get(row, []) + against.get(row, []):
                if n not in names:
                    names.append(n)
            reread[row] = ["%s (%s)" % (n, "; ".join(
                w for w, d in (("changed since %s" % prev, since),
                               ("differs from the modelled commit", against))
                if n in d.get(row, []))) for n in names]
    if matrix:
        for rid in matrix.get("drift", []) + matrix.get("failing_rows", []):
            reread.setdefault(rid, []).append(
                "its matrix cell differs from the modelled commit")
    if not reread:
        both("   none: every cited unit is as at the modelled commit%s"
             % (" and in %s" % prev if prev else ""))
    first = [r for r in row_order(reread)
             if any("changed since" in x or "matrix" in x
                    for x in reread[r])]
    rest = [r for r in row_order(reread) if r not in first]
    if first:
        both("   first those whose cited units changed since %s (or whose "
             "matrix cell differs):" % (prev or "the last release"))
        for row in first:
            both("   - %s: %s" % (row, "; ".join(reread[row])))
    if rest:
        both("   then those whose cited units differ from the modelled "
             "commit only (the spec's text is that commit's):")
        for row in rest:
            both("   - %s: %s" % (row, "; ".join(reread[row])))
    both("")
    both("Then: `lctx check-spec`, the `jax_release` and `jaxlib_clients` "
         "tests, and `make jax-matrix` (README, \"Adding a JAX release\").")
    path = os.path.join(out_dir, "draft.md")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(md) + "\n")
    out("")
    out("  the drafts are in %s (%d TODO in the release.c record)"
        % (rel(path), todos))
    return {"draft": rel(path), "todos": todos, "reread": reread,
            "jaxlib_source_read": bool(jaxlib_src)}


def diff_mode(opts):
    out = Reporter()
    tree = DirTree(opts.diff, opts.diff)
    if not os.path.isdir(os.path.join(opts.diff, "jax", "_src")):
        sys.stderr.write("jax-release: %s holds no jax/_src/\n" % opts.diff)
        return 2
    against = None
    if opts.against:
        if not os.path.isdir(os.path.join(opts.against, "jax", "_src")):
            sys.stderr.write("jax-release: %s holds no jax/_src/\n"
                             % opts.against)
            return 2
        against = DirTree(opts.against, opts.against)
    try:
        _, _, _ = read_spec()
        c = compare_source(load_index(), tree, against)
    except (StepFailed, OSError, ValueError) as e:
        sys.stderr.write("jax-release: %s\n" % e)
        return 1
    source_report(out, c, opts.diff, opts.against)
    return 0


def main(argv):
    if argv[:1] == ["--units-json"]:
        return _units_stdin()
    p = argparse.ArgumentParser(
        prog="tools/jax_release.py", add_help=True,
        description="Adding a JAX release: requirements, install, the "
                    "cited source against the modelled commit, the "
                    "matrix cell, the drafts.",
        epilog="See the module docstring (head tools/jax_release.py) and "
               "README.md, \"Adding a JAX release\".")
    p.add_argument("version", nargs="?", help="the JAX release, e.g. 0.12.1")
    p.add_argument("--offline", action="store_true",
                   help="never use the network (step 1 needs the "
                        "requirements file to exist)")
    p.add_argument("--random", type=int, default=2000, metavar="N",
                   help="random cases of the matrix cell (default 2000)")
    p.add_argument("--full", action="store_true",
                   help="the matrix cell with make jax-matrix's arguments "
                        "(%s)" % " ".join(FULL_MATRIX))
    p.add_argument("--no-matrix", action="store_true",
                   help="leave out step 4")
    p.add_argument("--out", metavar="DIR",
                   help="the report folder (default "
                        "build/jax-release/VERSION)")
    p.add_argument("--lctx", metavar="PATH",
                   help="the lctx command (default %s)" % DEFAULT_LCTX)
    p.add_argument("--jax-git", metavar="DIR",
                   help="a git repository of jax-ml/jax, to read jaxlib's "
                        "C++ at the wheel's commit when it holds it")
    p.add_argument("--index-modelled", metavar="DIR",
                   help="write %s from the modelled commit's source" % INDEX)
    p.add_argument("--index-out", metavar="FILE", help=argparse.SUPPRESS)
    p.add_argument("--diff", metavar="TREE",
                   help="step 3 alone on a folder holding jax/_src/")
    p.add_argument("--against", metavar="TREE2",
                   help="with --diff: the tree to diff against")
    opts = p.parse_args(argv)
    modes = [bool(opts.version), bool(opts.index_modelled), bool(opts.diff)]
    if sum(modes) != 1:
        p.error("give one of VERSION, --index-modelled DIR, --diff TREE")
    if opts.against and not opts.diff:
        p.error("--against goes with --diff")
    if opts.random < 0:
        p.error("--random needs a count of 0 or more")
    if opts.index_modelled:
        try:
            return index_modelled(opts.index_modelled, os.path.abspath(
                opts.index_out or os.path.join(ROOT, INDEX)))
        except (StepFailed, OSError, ValueError) as e:
            sys.stderr.write("jax-release: --index-modelled: %s\n" % e)
            return 1
    if opts.diff:
        return diff_mode(opts)
    if not VERSION_RE.match(opts.version):
        p.error("not a JAX version: %r (e.g. 0.12.1)" % opts.version)
    return release(opts)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.stderr.write("jax-release: interrupted\n")
        sys.exit(130)
