"""The checks of `python -m lctx_jax.lint` (lint.py) over one module's
syntax tree: which functions are lowering rules, which functions run while
a rule lowers or while a program is traced, and the four classes of
finding in them.  Standard library only (`ast`); JAX is never imported.

Roles (a function may have several; the first in this order names it):

  rule      a function passed to `register_lowering` (any receiver:
            `mlir.register_lowering`, a bare `register_lowering`), as its
            second positional argument or `rule=`; the values of a dict
            literal passed to `lower_per_platform` (third positional or
            `platform_rules=`) and its `default_rule` (fourth positional or
            keyword); a function one of whose parameters P (`ctx`, as
            JAX's rules name it, or any other) is read as `P.module_context`
            in its body: it gets a lowering rule's context.  A rule written as
            `partial(f, ...)` or `functools.partial(f, ...)` names f; a
            lambda is its own rule.
  lowered   the first argument (or `fun=`) of any `lower_fun(...)` call
            (`mlir.lower_fun`): JAX traces it while the rule lowers.
  callee    a function of the same module called by its bare name from a
            rule, a lowered function or another callee (transitively; a
            method called through an attribute is not followed).
  traced    a function whose body binds a primitive (`X.bind(...)` or
            `X.bind_with_trace(...)` where X is a name or attribute ending
            in `_p`, `_prim` or `_primitive`, or named `p`, `prim`,
            `primitive`), and a function given as `"fn"` in a dict literal
            of a user catalogue (`LCTX_PROGRAMS = [...]` or inside
            `def lctx_programs`), a def decorated with jax.jit (`@jax.jit`,
            `@partial(jax.jit, ...)`, `@jax.jit(...)`), the first argument
            of a `jax.jit(...)` call or of a `jax.export.export(...)` call
            whose `platforms=` is not a literal list of at most one: it
            runs at trace time.  Its callees are not
            followed (trace-time code calls too much to stay precise).

Functions are matched by their bare name over every `def` of the module
that is not a method (defs nested in functions included): two defs of one
name both get the role.

Checks, each on the body of a function with a role (a nested def or lambda
is checked only when it has a role of its own):

  get-backend       `E.get_backend(...)` where E is a module context (see
                    below) without `optional=True`, checked in every
                    function (a module context exists only while lowering);
                    any other `get_backend(...)` / `X.get_backend(...)`
                    that is not xla_bridge's, without `optional=True`, in a
                    rule, lowered function or callee.  `optional=` given as
                    anything but the literal False, or `**kwargs`, counts
                    as handled.
  backend-read      a read (not an assignment) of `E.backend` where E is a
                    module context, in every function.
  host-backend      a call of `jax.default_backend`, `jax.devices`,
                    `jax.local_devices` or xla_bridge's `get_backend`,
                    `devices`, `local_devices`, `default_backend` (names
                    resolved through the module's imports; `xb.` and
                    `xla_bridge.` count as xla_bridge when not imported),
                    in a function with any role.
  unknown-platform  `register_lowering(...)` whose platform (`platform=` or
                    the third positional argument) is a string literal JAX
                    does not know (cpu, cuda, rocm, tpu, gpu, oneapi: JAX
                    0.10.2 xla_bridge.py:307, 376, 391, 715-732, plus those
                    given with --known-platform), anywhere in the module,
                    unless the call lies in the body of a `try` one of whose
                    handlers catches NotImplementedError (named, in a tuple,
                    `Exception`, `BaseException` or a bare `except:`):
                    register_lowering raises NotImplementedError for such a
                    platform (jax/_src/interpreters/mlir.py:987-992).

  host-callback     a call of jax.pure_callback, jax.experimental.
                    io_callback (or jax._src.callback's), or anything of
                    jax.experimental.host_callback, in a function with any
                    role (jax/_src/callback.py:797-798 refuses several
                    platforms).
  jax-defect        a call of jax.debug.print or jax.debug.callback (or
                    jax._src.debugging's) in a function with any role: the
                    effect-tuple TypeError (EFFECT_DEFECT).
  missing-rule      over all the files of a run: lint_registry.py.

A module context is `X.module_context` (any X), a name `module_context`,
`mod_ctx` or `module_ctx`, or a name assigned one of these in the same
function.

A guard: a finding of get-backend, backend-read or host-backend whose call
or read lies inside an `if` (statement or expression) whose test reads
`.platforms` (e.g. `if len(ctx.module_context.platforms) > 1:`) in the
branch taken when the test is false, or after such an `if` whose body
leaves the function (return/raise), is the adapted pattern and is not
flagged: the rule already told one platform from several.
"""

import ast

KNOWN_PLATFORMS = ("cpu", "cuda", "gpu", "oneapi", "rocm", "tpu")

CLASSES = ("get-backend", "backend-read", "host-backend", "unknown-platform",
           "missing-rule", "host-callback", "jax-defect")

# The known defect jax.debug.print/callback hit under several platforms
# (conformance/sweep/regressions/upstream-multiplatform-effect-tuple.json).
EFFECT_DEFECT = "upstream-multiplatform-effect-tuple"

FIXES = {
    "get-backend":
        "call ctx.module_context.get_backend(optional=True) and handle None "
        "(several platforms), or branch on ctx.platforms / "
        "lax.platform_dependent",
    "backend-read":
        "do not read .backend: call ctx.module_context.get_backend("
        "optional=True) and handle None (several platforms), or branch on "
        "ctx.platforms / lax.platform_dependent",
    "host-backend":
        "do not pick the kernel by the host's devices: branch on "
        "ctx.platforms inside the rule (mlir.lower_per_platform / "
        "lax.platform_dependent)",
    # A host look-up in a traced function (trace time), as diagnose.c.
    "host-backend-trace":
        "do not pick the computation by the host's devices while tracing: "
        "lax.platform_dependent(..., cpu=..., cuda=...) gives each platform "
        "of the export its own branch",
    "unknown-platform":
        "guard the registration (try: ... except NotImplementedError: "
        "pass), as for a plugin that may be missing, or register it only "
        "where the platform's plugin is installed",
    "missing-rule":
        "register a rule for %s (mlir.register_lowering(prim, rule, "
        "platform=...)) or a default rule, or export without them",
    "host-callback":
        "host callbacks refuse several platforms: export for one platform "
        "at a time (pin one platform)",
    "jax-defect":
        EFFECT_DEFECT + ": no JAX release fixes it yet: pin one platform "
        "(see docs/" + EFFECT_DEFECT + ".md)",
}

# Host callbacks (resolved through the module's imports): each refuses an
# export for several platforms (jax/_src/callback.py:797-798 at 0.10.2).
HOST_CALLBACKS = ("jax.pure_callback", "jax.experimental.io_callback",
                  "jax._src.callback.pure_callback",
                  "jax._src.callback.io_callback")
HOST_CALLBACK_MODULES = ("jax.experimental.host_callback",)
# jax.debug's callbacks: the effect-tuple defect under several platforms.
DEBUG_CALLBACKS = ("jax.debug.print", "jax.debug.callback",
                   "jax._src.debugging.debug_print",
                   "jax._src.debugging.debug_callback")
JITS = ("jax.jit", "jax._src.api.jit", "jax._src.pjit.jit")
EXPORTS = ("jax.export.export", "jax._src.export._export.export",
           "jax.experimental.export.export")

HOST_JAX = ("default_backend", "devices", "local_devices")
HOST_XB = ("get_backend", "devices", "local_devices", "default_backend")
XLA_BRIDGE = ("jax._src.xla_bridge", "jax.lib.xla_bridge")
CONTEXT_NAMES = ("module_context", "mod_ctx", "module_ctx")
PRIM_NAMES = ("p", "prim", "primitive")
ROLE_ORDER = ("rule", "lowered", "callee", "traced")
ROLE_WORDS = {
    "rule": "lowering rule",
    "lowered": "function lowered by a rule (lower_fun)",
    "callee": "function a lowering rule calls",
    "traced": "traced function",
}
FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


class Finding:
    """One finding: where, its class, what and the fix."""

    def __init__(self, line, col, cls, message, fix=None):
        self.line = line
        self.col = col
        self.cls = cls
        self.message = message
        self.fix = FIXES[cls] if fix is None else fix

    def key(self):
        return (self.line, self.col, self.cls, self.message)


def tail_name(node):
    """The last identifier of a Name or Attribute (else None)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def dotted_parts(node):
    """[a, b, c] of `a.b.c` (a chain of attributes over a name), else
    None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def dotted(node):
    """`a.b.c` of a chain of attributes over a name, else None."""
    parts = dotted_parts(node)
    return None if parts is None else ".".join(parts)


def argument(call, index, keyword):
    """The argument of `call` at positional `index` or named `keyword`."""
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    if index is not None and index < len(call.args):
        arg = call.args[index]
        if not any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
            return arg
    return None


def catches_not_implemented(handler):
    """Whether an except handler catches NotImplementedError."""
    if handler.type is None:
        return True
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) \
        else [handler.type]
    return any(tail_name(n) in ("NotImplementedError", "Exception",
                                "BaseException") for n in names)


class Imports:
    """The module's import aliases: local name -> dotted origin."""

    def __init__(self, tree):
        self.alias = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.alias[a.asname] = a.name
                    else:
                        top = a.name.split(".")[0]
                        self.alias[top] = top
            elif isinstance(node, ast.ImportFrom) and node.module \
                    and node.level == 0:
                for a in node.names:
                    self.alias[a.asname or a.name] = node.module + "." + a.name

    def resolve(self, node):
        """The dotted origin of a called expression, aliases resolved."""
        name = dotted(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        origin = self.alias.get(head)
        if origin is None and head in ("xb", "xla_bridge"):
            origin = "jax._src.xla_bridge"
        if origin is None:
            return name
        return origin + ("." + rest if rest else "")

    def host_call(self, node):
        """The host look-up a call's function is, as written, or None."""
        origin = self.resolve(node)
        if origin is None:
            return None
        module, _, func = origin.rpartition(".")
        if (module == "jax" and func in HOST_JAX) or \
                (module in XLA_BRIDGE and func in HOST_XB):
            return dotted(node)
        return None

    def is_xla_bridge(self, node):
        """Whether a called expression is xla_bridge's (or jax's) own."""
        origin = self.resolve(node) or ""
        return origin.rpartition(".")[0] in XLA_BRIDGE + ("jax",)


class Roles:
    """The roles of the module's functions (see the module docstring)."""

    def __init__(self, tree, imports):
        self.tree = tree
        self.imports = imports
        self.by_name = {}
        self.roles = {}   # id(node) -> set of roles
        self.nodes = {}   # id(node) -> node
        self._index(tree, in_class=False)
        self._find_registered()
        self._find_ctx_rules()
        self._find_traced()
        self._follow_callees()

    def _index(self, node, in_class):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if not in_class:
                    self.by_name.setdefault(child.name, []).append(child)
                self._index(child, in_class=False)
            elif isinstance(child, ast.ClassDef):
                self._index(child, in_class=True)
            else:
                self._index(child, in_class=in_class)

    def add(self, node, role):
        self.nodes[id(node)] = node
        self.roles.setdefault(id(node), set()).add(role)

    def callables(self, expr):
        """The functions an argument names: defs, a lambda, a partial's."""
        if isinstance(expr, ast.Name):
            return list(self.by_name.get(expr.id, []))
        if isinstance(expr, ast.Lambda):
            return [expr]
        if isinstance(expr, ast.Call) and tail_name(expr.func) == "partial" \
                and expr.args:
            return self.callables(expr.args[0])
        return []

    def _mark(self, expr, role):
        for fn in self.callables(expr) if expr is not None else []:
            self.add(fn, role)

    def _find_registered(self):
        for node in ast.walk(self.tree):
            if not isinstance(node, ast.Call):
                continue
            name = tail_name(node.func)
            if name == "register_lowering":
                self._mark(argument(node, 1, "rule"), "rule")
            elif name == "lower_fun":
                self._mark(argument(node, 0, "fun"), "lowered")
            elif name == "lower_per_platform":
                rules = argument(node, 2, "platform_rules")
                if isinstance(rules, ast.Dict):
                    for value in rules.values:
                        self._mark(value, "rule")
                self._mark(argument(node, 3, "default_rule"), "rule")

    def _find_ctx_rules(self):
        for fns in self.by_name.values():
            for fn in fns:
                a = fn.args
                params = {p.arg for p in a.posonlyargs + a.args
                          + a.kwonlyargs}
                if any(isinstance(n, ast.Attribute)
                       and n.attr == "module_context"
                       and isinstance(n.value, ast.Name)
                       and n.value.id in params for n in walk_scope(fn)):
                    self.add(fn, "rule")

    def _find_traced(self):
        for fns in self.by_name.values():
            for fn in fns:
                if any(is_bind(n) for n in walk_scope(fn)):
                    self.add(fn, "traced")
        for node in self.tree.body:
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "LCTX_PROGRAMS"
                    for t in node.targets):
                self._mark_programs(node.value)
            elif isinstance(node, ast.FunctionDef) and \
                    node.name == "lctx_programs":
                self._mark_programs(node)
        self._find_jitted()

    def _is(self, func, origins):
        return (self.imports.resolve(func) or "") in origins

    def _jit_decorator(self, dec):
        """Whether a decorator is jax.jit, jax.jit(...) or
        partial(jax.jit, ...)."""
        if isinstance(dec, ast.Call):
            if tail_name(dec.func) == "partial" and dec.args:
                return self._is(dec.args[0], JITS)
            return self._is(dec.func, JITS)
        return self._is(dec, JITS)

    def _find_jitted(self):
        for fns in self.by_name.values():
            for fn in fns:
                if any(self._jit_decorator(d) for d in fn.decorator_list):
                    self.add(fn, "traced")
        for node in ast.walk(self.tree):
            if not isinstance(node, ast.Call):
                continue
            if self._is(node.func, JITS):
                self._mark(argument(node, 0, "fun"), "traced")
            elif self._is(node.func, EXPORTS) and \
                    not one_platform(argument(node, None, "platforms")):
                self._mark(argument(node, 0, "fun_jit"), "traced")

    def _mark_programs(self, node):
        for d in ast.walk(node):
            if isinstance(d, ast.Dict):
                for k, v in zip(d.keys, d.values):
                    if isinstance(k, ast.Constant) and k.value == "fn":
                        self._mark(v, "traced")

    def _follow_callees(self):
        todo = [self.nodes[k] for k, r in self.roles.items()
                if r & {"rule", "lowered"}]
        while todo:
            fn = todo.pop()
            for n in walk_scope(fn):
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
                    for callee in self.by_name.get(n.func.id, []):
                        if "callee" not in self.roles.get(id(callee), ()) \
                                and callee is not fn:
                            self.add(callee, "callee")
                            todo.append(callee)

    def scoped(self):
        """(function, its first role) for every function with a role."""
        out = []
        for key, roles in self.roles.items():
            first = next(r for r in ROLE_ORDER if r in roles)
            out.append((self.nodes[key], first))
        return out


def one_platform(expr):
    """Whether an export's `platforms=` is a literal list of at most one
    platform (a host callback is then fine)."""
    return isinstance(expr, (ast.List, ast.Tuple)) and len(expr.elts) <= 1


def is_bind(node):
    """Whether a node is a call binding a primitive."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("bind", "bind_with_trace")):
        return False
    name = tail_name(node.func.value) or ""
    return name in PRIM_NAMES or name.endswith(("_p", "_prim", "_primitive"))


def walk_scope(fn):
    """Every node of a function's own body (not nested defs, lambdas or
    classes, nor its decorators and defaults)."""
    body = [fn.body] if isinstance(fn, ast.Lambda) else fn.body
    todo = [n for n in body if not isinstance(n, FUNCS + (ast.ClassDef,))]
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, FUNCS + (ast.ClassDef,)):
                todo.append(child)


def function_name(fn):
    return "<lambda>" if isinstance(fn, ast.Lambda) else fn.name


def reads_platforms(test):
    """Whether an `if` test reads `.platforms`."""
    return any(isinstance(n, ast.Attribute) and n.attr == "platforms"
               for n in ast.walk(test))


def leaves(body):
    """Whether a block ends by leaving the function (return or raise)."""
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise))


def optional_handled(call):
    """Whether a get_backend call passes optional= other than False."""
    for kw in call.keywords:
        if kw.arg is None:
            return True
        if kw.arg == "optional":
            return not (isinstance(kw.value, ast.Constant)
                        and kw.value.value is False)
    return False


class ScopeCheck:
    """The get-backend, backend-read and host-backend checks of one
    function's own body, `role` being its role (None: none)."""

    def __init__(self, fn, role, imports, findings):
        self.fn = fn
        self.role = role
        self.imports = imports
        self.findings = findings
        self.names = set(CONTEXT_NAMES)
        self._context_names()
        self.where = "" if role is None else " (in %s `%s`)" % (
            ROLE_WORDS[role], function_name(fn))

    def _context_names(self):
        for _ in range(2):
            for n in walk_scope(self.fn):
                if isinstance(n, ast.Assign) and len(n.targets) == 1 and \
                        isinstance(n.targets[0], ast.Name) and \
                        self.is_context(n.value):
                    self.names.add(n.targets[0].id)

    def is_context(self, node):
        """Whether an expression is a module context."""
        if isinstance(node, ast.Attribute):
            return node.attr == "module_context"
        return isinstance(node, ast.Name) and node.id in self.names

    def run(self):
        body = [self.fn.body] if isinstance(self.fn, ast.Lambda) \
            else self.fn.body
        self._block(body, False)

    def _block(self, stmts, guarded):
        for stmt in stmts:
            self._visit(stmt, guarded)
            if isinstance(stmt, ast.If) and reads_platforms(stmt.test) and \
                    (leaves(stmt.body) or leaves(stmt.orelse)):
                guarded = True

    def _visit(self, node, guarded):
        if isinstance(node, FUNCS + (ast.ClassDef,)):
            return
        self._check(node, guarded)
        test = None
        if isinstance(node, (ast.If, ast.IfExp)) and \
                reads_platforms(node.test):
            test = node.test
            self._visit(test, guarded)
            guarded = True
        for _, value in ast.iter_fields(node):
            if value is test and test is not None:
                continue
            if isinstance(value, list) and value and \
                    isinstance(value[0], ast.stmt):
                self._block(value, guarded)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        self._visit(item, guarded)
            elif isinstance(value, ast.AST):
                self._visit(value, guarded)

    def _add(self, node, cls, message):
        fix = None
        if cls == "host-backend" and self.role == "traced":
            fix = FIXES["host-backend-trace"]
        self.findings.append(Finding(node.lineno, node.col_offset, cls,
                                     message + self.where, fix))

    def _check(self, node, guarded):
        if isinstance(node, ast.Call):
            self._check_call(node, guarded)
        if guarded:
            return
        if isinstance(node, ast.Attribute) and node.attr == "backend" and \
                isinstance(node.ctx, ast.Load) and self.is_context(node.value):
            self._add(node, "backend-read",
                      "reads `%s`: under several platforms it is not the "
                      "platform being lowered (None, or the host's backend)"
                      % dotted_or(node))

    def _check_call(self, node, guarded):
        func = node.func
        if self.role is not None and not guarded and \
                self._check_callback(node):
            return
        host = self.imports.host_call(func)
        if host is not None:
            if self.role is not None:
                self._add(node, "host-backend",
                          "`%s()` asks the host's backend, not the platform "
                          "being lowered: exported for several platforms, "
                          "each gets the host's choice" % host)
            return
        if guarded or tail_name(func) != "get_backend" or \
                optional_handled(node):
            return
        if isinstance(func, ast.Attribute) and self.is_context(func.value):
            self._add(node, "get-backend",
                      "`%s()` without optional=True raises "
                      "NotImplementedError (accessing .backend in "
                      "multi-lowering setting) when exported for several "
                      "platforms" % dotted_or(func))
        elif self.role in ("rule", "lowered", "callee"):
            self._add(node, "get-backend",
                      "`%s()` without optional=True: one backend, where an "
                      "export may lower for several platforms"
                      % dotted_or(func))


    def _check_callback(self, node):
        """The host-callback and jax-defect checks of one call (in a
        function with a role); whether it was one."""
        origin = self.imports.resolve(node.func) or ""
        if origin in HOST_CALLBACKS or \
                origin.rpartition(".")[0] in HOST_CALLBACK_MODULES:
            self._add(node, "host-callback",
                      "`%s()` is a host callback: exported for several "
                      "platforms it raises NotImplementedError "
                      "(multi-platform lowering for python_callback; "
                      "jax/_src/callback.py:797-798 at JAX 0.10.2)"
                      % dotted_or(node.func))
            return True
        if origin in DEBUG_CALLBACKS:
            self._add(node, "jax-defect",
                      "`%s()` exported for several platforms raises "
                      "TypeError (can only concatenate list (not \"tuple\") "
                      "to list) in JAX 0.8.3 through 0.12.1, the known defect "
                      "%s (before 0.8.3: NotImplementedError, multi-platform "
                      "lowering for python_callback)"
                      % (dotted_or(node.func), EFFECT_DEFECT))
            return True
        return False


def dotted_or(node):
    """A short text of an expression for a message."""
    name = dotted(node)
    if name is not None:
        return name
    if isinstance(node, ast.Attribute):
        return "..." + "." + node.attr
    return "..."


def unknown_platforms(tree, known, findings):
    """The unknown-platform check over the whole module."""

    def visit(node, guarded):
        if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            inner = guarded or any(catches_not_implemented(h)
                                   for h in node.handlers)
            for stmt in node.body:
                visit(stmt, inner)
            for part in node.handlers + node.orelse + node.finalbody:
                visit(part, guarded)
            return
        if isinstance(node, ast.Call) and not guarded and \
                tail_name(node.func) == "register_lowering":
            platform = argument(node, 2, "platform")
            if isinstance(platform, ast.Constant) and \
                    isinstance(platform.value, str) and \
                    platform.value not in known:
                findings.append(Finding(
                    platform.lineno, platform.col_offset, "unknown-platform",
                    "register_lowering for platform %r, which JAX does not "
                    "know (known: %s): it raises NotImplementedError when "
                    "the module is imported" % (platform.value,
                                                ", ".join(sorted(known)))))
        for child in ast.iter_child_nodes(node):
            visit(child, guarded)

    visit(tree, False)


def check_tree(tree, known=KNOWN_PLATFORMS):
    """Every finding of one module's tree (unsorted; columns 0-based in
    UTF-8 bytes, as ast gives them)."""
    findings = []
    imports = Imports(tree)
    roles = Roles(tree, imports)
    scoped = {id(fn): role for fn, role in roles.scoped()}
    for node in ast.walk(tree):
        if isinstance(node, FUNCS):
            ScopeCheck(node, scoped.get(id(node)), imports, findings).run()
    unknown_platforms(tree, set(known), findings)
    return findings
