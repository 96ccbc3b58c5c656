"""The units of a Python file and their normalized hashes: each top-level
function, class (its body without its methods), method and module-level
statement, hashed so that docstrings, comments, blank lines and layout do
not count; and the module-level register_backend_factory calls."""

import ast
import copy
import hashlib
import json
import os
import subprocess
import sys

from jax_requirements import find_cpython  # (one Python finder)

from .base import FACTORY_CALL, ROOT, StepFailed

# The command that parses under another Python (--units-json).
ENTRY = os.path.join(ROOT, "tools", "jax_release.py")


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


def units_stdin():
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
        proc = subprocess.run([exe, ENTRY, "--units-json"],
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
