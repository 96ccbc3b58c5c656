"""The missing-rule check of `python -m lctx_jax.lint` (lint.py): the
primitives created in the linted files and the lowering rules registered
for them, gathered over every file of one run (a primitive defined in one
file may get its rules in another), and the primitives whose rules cover
some platforms and not others, with no default rule.  Standard library
only (`ast`); JAX is never imported.

A primitive: a name bound at module level (not inside a def or class) to
a call of `Primitive(...)` (any receiver: `core.Primitive`,
`jax.extend.core.Primitive`), of a class whose name ends in `Primitive`,
or of a factory: a def of any linted file whose own body calls one of
these and returns a value (`def _new(name): p = Primitive(name); ...;
return p`).  Its JAX name is the call's first argument when that is a
string literal.

A registration: a call `register_lowering(PRIM, rule, platform)` (any
receiver) anywhere in a linted file, PRIM resolved to a primitive by
  - a name bound to a primitive at module level of the same file;
  - a name or dotted name reached through the file's imports (`import
    user_rules as r` ... `r.partial_p`, `from .rules import partial_p`,
    relative imports included): the module is matched to a linted file by
    the trailing components of its path (`user_rules` matches
    `tests/user/user_rules.py`; `jax._src.lax.lax` matches
    `jax/_src/lax/lax.py`);
  - a loop variable of a `for` over a literal list or tuple: each element.
The platform: `platform=` or the third positional argument; absent or the
literal None is the default rule; a string literal names a platform (`gpu`
stores the rule under cuda, rocm and oneapi: register_lowering's alias
table, jax/_src/interpreters/mlir.py at 0.10.2); a loop variable over a
literal list of strings names each; anything else is unknown.

The finding: a primitive with a rule for at least one of cpu, cuda, rocm,
tpu and not for all four, no default rule, and no registration whose
platform is unknown (a primitive registered only for other platforms, a
plugin's, is left alone).  An export naming one of those raises
NotImplementedError "MLIR translation rule for primitive '...' not found
for platforms [...]" (lower_per_platform, mlir.py).  Reported once, at the
first registration (by file, line, column), naming the platforms without
a rule.
"""

import ast
import os

from .lint_rules import argument, dotted_parts, tail_name, walk_scope

CHECKED = ("cpu", "cuda", "rocm", "tpu")
ALIASES = {"gpu": ("cuda", "rocm", "oneapi")}
UNKNOWN = object()


def module_parts(path):
    """The components of a file's absolute path, `.py` and a trailing
    `__init__` left out: what an import of it is matched against."""
    parts = os.path.abspath(path)[:-3].split(os.sep) \
        if path.endswith(".py") else os.path.abspath(path).split(os.sep)
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return [p for p in parts if p]


def is_primitive_class(name):
    return bool(name) and name.endswith("Primitive")


def creates_primitive(fn):
    """Whether a def's own body calls a primitive class and returns a
    value: a factory of primitives."""
    calls = returns = False
    for node in walk_scope(fn):
        if isinstance(node, ast.Call) and \
                is_primitive_class(tail_name(node.func)):
            calls = True
        if isinstance(node, ast.Return) and node.value is not None:
            returns = True
    return calls and returns


class FileFacts:
    """One file's primitives, imports, registrations (unresolved)."""

    def __init__(self, path, tree):
        self.path = path
        self.tree = tree
        self.parts = module_parts(path)
        self.imports = {}     # local name -> absolute-ish module parts
        self.prims = {}       # name -> (line, JAX name or None)
        self.regs = []        # (call node, loop bindings, wrapper or None)
        self._imports()

    def _imports(self):
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.imports[a.asname] = a.name.split(".")
                    else:
                        top = a.name.split(".")[0]
                        self.imports[top] = [top]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = self.parts[:-node.level] if node.level <= len(
                        self.parts) else []
                else:
                    base = []
                base = base + (node.module.split(".") if node.module else [])
                for a in node.names:
                    if a.name != "*":
                        self.imports[a.asname or a.name] = base + [a.name]

    def find_primitives(self, factories):
        for node in walk_scope(self.tree):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name)
                    and isinstance(node.value, ast.Call)):
                continue
            called = tail_name(node.value.func)
            if is_primitive_class(called) or called in factories:
                first = node.value.args[0] if node.value.args else None
                name = first.value if isinstance(first, ast.Constant) and \
                    isinstance(first.value, str) else None
                self.prims.setdefault(node.targets[0].id,
                                      (node.lineno, name))

    def find_registrations(self, wrappers):
        """The calls of register_lowering and of the wrappers (by name)."""
        def visit(node, loops):
            if isinstance(node, (ast.For, ast.AsyncFor)) and \
                    isinstance(node.target, ast.Name) and \
                    isinstance(node.iter, (ast.List, ast.Tuple)):
                inner = dict(loops)
                inner[node.target.id] = node.iter.elts
                for stmt in node.body:
                    visit(stmt, inner)
                for stmt in node.orelse:
                    visit(stmt, loops)
                return
            if isinstance(node, ast.Call):
                name = tail_name(node.func)
                if name == "register_lowering":
                    self.regs.append((node, loops, None))
                elif name in wrappers:
                    self.regs.append((node, loops, wrappers[name]))
            for child in ast.iter_child_nodes(node):
                visit(child, loops)

        visit(self.tree, {})


def places(regs):
    """`a.py:3, 4, b.py:7` of registrations sorted by file and line."""
    out, last = [], None
    for path, line, _, _ in regs:
        base = os.path.basename(path)
        out.append("%d" % line if base == last else "%s:%d" % (base, line))
        last = base
    return ", ".join(out)


class Wrapper:
    """A def that registers a rule for one of its parameters
    (`def register_cpu_gpu_lowering(prim, rule, platforms=("cpu", ...)):
    for p in platforms: mlir.register_lowering(prim, ..., platform=p)`):
    a call of it is a registration of its argument."""

    def __init__(self, fn, call, loops):
        a = fn.args
        self.params = [p.arg for p in a.posonlyargs + a.args]
        self.defaults = dict(zip(self.params[len(self.params)
                                             - len(a.defaults):], a.defaults))
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            if d is not None:
                self.defaults[p.arg] = d
        self.kwonly = [p.arg for p in a.kwonlyargs]
        self.prim = argument(call, 0, "prim").id
        self.platform = argument(call, 2, "platform")
        self.loops = loops

    def argument(self, call, param):
        """The expression a call gives a parameter (else its default)."""
        index = self.params.index(param) if param in self.params else 10**6
        given = argument(call, index, param)
        return given if given is not None else self.defaults.get(param)

    def platforms(self, call, registry):
        """What the call registers for: as Registry.platforms."""
        expr = self.platform
        if expr is None or (isinstance(expr, ast.Constant)
                            and expr.value is None):
            return None
        if isinstance(expr, ast.Constant):
            return registry.platforms(expr, {})
        if not isinstance(expr, ast.Name):
            return UNKNOWN
        if expr.id in self.params + self.kwonly:
            return registry.platforms(self.argument(call, expr.id), {})
        over = self.loops.get(expr.id)
        if isinstance(over, ast.Name) and over.id in self.params + self.kwonly:
            given = self.argument(call, over.id)
            if isinstance(given, (ast.List, ast.Tuple)):
                return registry.platforms(expr, {expr.id: given.elts})
        return UNKNOWN


def find_wrappers(fn):
    """The Wrapper of a def whose own body calls register_lowering with
    one of its parameters as the primitive, else None."""
    a = fn.args
    params = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
    found = []

    def visit(node, loops):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                             ast.Lambda, ast.ClassDef)):
            return
        if isinstance(node, (ast.For, ast.AsyncFor)) and \
                isinstance(node.target, ast.Name):
            loops = dict(loops, **{node.target.id: node.iter})
        if isinstance(node, ast.Call) and \
                tail_name(node.func) == "register_lowering":
            first = argument(node, 0, "prim")
            if isinstance(first, ast.Name) and first.id in params:
                found.append(Wrapper(fn, node, loops))
        for child in ast.iter_child_nodes(node):
            visit(child, loops)

    for stmt in fn.body:
        visit(stmt, {})
    return found[0] if len(found) == 1 else None


class Registry:
    """The registrations of every file of one run, by primitive."""

    def __init__(self):
        self.files = []
        self.index = {}   # trailing path components -> [FileFacts]

    def add(self, path, tree):
        facts = FileFacts(path, tree)
        self.files.append(facts)
        for k in range(1, len(facts.parts) + 1):
            self.index.setdefault(tuple(facts.parts[-k:]), []).append(facts)

    def module(self, parts):
        """The linted file an import's module parts name, else None."""
        found = self.index.get(tuple(parts))
        return sorted(found, key=lambda f: f.path)[0] if found else None

    def resolve(self, facts, expr, loops):
        """The (file, name) keys of the primitives an expression names."""
        if isinstance(expr, ast.Name) and expr.id in loops:
            out = []
            for e in loops[expr.id]:
                out.extend(self.resolve(facts, e, {}))
            return out
        parts = dotted_parts(expr)
        if parts is None:
            return []
        if len(parts) == 1 and parts[0] in facts.prims:
            return [(facts, parts[0])]
        origin = facts.imports.get(parts[0])
        if origin is None:
            return []
        full = origin + parts[1:]
        owner = self.module(full[:-1]) if len(full) > 1 else None
        if owner is not None and full[-1] in owner.prims:
            return [(owner, full[-1])]
        return []

    def platforms(self, expr, loops):
        """The platforms a registration's platform argument names: None
        (the default rule), a list of names, or UNKNOWN."""
        if expr is None or (isinstance(expr, ast.Constant)
                            and expr.value is None):
            return None
        values = loops.get(expr.id) if isinstance(expr, ast.Name) else [expr]
        if values is None:
            return UNKNOWN
        names = []
        for v in values:
            if not (isinstance(v, ast.Constant) and isinstance(v.value, str)):
                return UNKNOWN
            names.extend(ALIASES.get(v.value, (v.value,)))
        return names

    def findings(self):
        """[(path, line, col, message, missing platforms)], one per
        primitive missing a rule (see the module docstring)."""
        factories, wrappers = set(), {}
        for facts in self.files:
            for node in ast.walk(facts.tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    if creates_primitive(node):
                        factories.add(node.name)
                    wrapper = find_wrappers(node)
                    if wrapper is not None:
                        wrappers[node.name] = wrapper
        for facts in self.files:
            facts.find_primitives(factories)
            facts.find_registrations(wrappers)
        by_prim = {}
        for facts in self.files:
            for call, loops, wrapper in facts.regs:
                if wrapper is None:
                    first = argument(call, 0, "prim")
                    plats = self.platforms(
                        argument(call, 2, "platform"), loops)
                else:
                    first = wrapper.argument(call, wrapper.prim)
                    plats = wrapper.platforms(call, self)
                for owner, name in self.resolve(facts, first, loops):
                    by_prim.setdefault((owner.path, name), []).append(
                        (facts.path, call.lineno, call.col_offset, plats))
        out = []
        for (path, name), regs in sorted(by_prim.items()):
            owner = next(f for f in self.files if f.path == path)
            found = self._missing(owner, name, sorted(
                regs, key=lambda r: (r[0], r[1], r[2])))
            if found:
                out.append(found)
        return out

    def _missing(self, owner, name, regs):
        if any(r[3] is None or r[3] is UNKNOWN for r in regs):
            return None
        covered = set()
        for r in regs:
            covered.update(r[3])
        missing = [p for p in CHECKED if p not in covered]
        if not missing or len(missing) == len(CHECKED):
            return None
        line, jax_name = owner.prims[name]
        where = places(regs)
        message = (
            "primitive `%s`%s (defined at %s:%d) has lowering rules only "
            "for %s (register_lowering at %s) and no default rule: an "
            "export for several platforms naming %s raises "
            "NotImplementedError (MLIR translation rule for primitive "
            "'%s' not found for platforms [...])"
            % (name, " (%r)" % jax_name if jax_name else "",
               os.path.basename(owner.path), line,
               ", ".join(sorted(covered)), where, " or ".join(missing),
               jax_name or name))
        first = regs[0]
        return (first[0], first[1], first[2], message, missing)
