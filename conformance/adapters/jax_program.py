#!/usr/bin/env python3
"""Generated programs: build a program description in JAX.

`lctx generate` draws programs and describes each in the text format of
conformance/sweep/PROGRAMS.md (version 1).  This module reads that text and
turns it into a self-contained Python source that defines the program in
JAX: its primitives and their lowering rules (registered per platform with
mlir.register_lowering), its functions, `main` and the argument.  The
exporter (jax_export.py) runs exactly that source; a reproduction is that
source plus a footer that exports `main` and says whether JAX misbehaved.

    parse(text)                    -> Program (ProgramError: line and why)
    to_source(program, platforms)  -> Python source (imports only JAX, numpy)
    build(text, platforms)         -> (main, [argument], x64) from that source
    repro_source(text, platforms)  -> a standalone reproduction script

From the command line (no JAX needed):

    python jax_program.py --check FILE
    python jax_program.py --source FILE [--platforms tpu,cpu,cuda]
    python jax_program.py --repro FILE --platforms tpu,cpu,cuda

`--check` prints `FILE: ok (N nodes)` or `FILE:LINE: message` and exits 2;
FILE may be `-` (stdin).  The JAX operations of `jax OP` are the table
`OPS` below: for each its arity, whether it is float32-only, and how it
keeps the argument's shape and dtype.

Standard library only at import time; `build` imports JAX.
"""

import builtins
import hashlib
import keyword
import re
import sys

FORMAT_VERSION = 1
HEADER = "lctx-program 1"

# The file name the built source is compiled under: frames of a generated
# lowering rule carry it (the exporter locates them in the description).
SOURCE_FILENAME = "<lctx-program>"

DTYPES = ("float32", "int32")
RULE_PLATFORMS = ("cpu", "cuda", "rocm", "tpu", "oneapi", "default")
BRANCH_PLATFORMS = ("cpu", "cuda", "rocm", "tpu", "oneapi")
EFFECTS = ("none", "ordered", "unordered")
READS = ("none", "get", "optional", "attr", "host")
CALLBACKS = ("io_ordered", "io_unordered", "pure", "debug")
COLLECTIVES = ("psum", "pmax", "pmin", "pmean", "all_gather", "ppermute",
               "axis_index", "psum_scatter", "all_to_all")

MAX_NAME = 31
MAX_DIMS = 3
MIN_DIM, MAX_DIM = 1, 16
MAX_CONSTANT = 1000000
MIN_PLATFORM_BRANCHES, MAX_PLATFORM_BRANCHES = 1, 5
MAX_TEXT = 1 << 20

NAME = re.compile(r"[a-z][a-z0-9_]*\Z")
VALUE = re.compile(r"v(0|[1-9][0-9]*)\Z")
INTEGER = re.compile(r"-?[0-9]+\Z")
SYMBOLIC = re.compile(r"b([0-9]+)\Z")


class ProgramError(ValueError):
    """A malformed description: `line` (1-based, 0 for the whole text) and
    `why`; str() is "LINE: why"."""

    def __init__(self, line, why):
        ValueError.__init__(self, "%d: %s" % (line, why))
        self.line, self.why = line, why


# ---------------------------------------------------------------------------
# The program
# ---------------------------------------------------------------------------

class Prim:
    def __init__(self, name, line, effect, cache):
        self.name, self.line = name, line
        self.effect, self.cache = effect, cache
        self.rules = []


class Rule:
    def __init__(self, prim, platform, kind, value, read, line):
        self.prim, self.platform = prim, platform
        self.kind, self.value = kind, value   # "add", int | "fun", name
        self.read, self.line = read, line

    @property
    def function_name(self):
        return "rule_%s_%s" % (self.prim, self.platform)


class Statement:
    """`vN = KIND ...`: `values` are the operands (x or vK), `functions`
    the functions it names, and per kind: `prim`, `op`, `branches`
    ([(platform or "default", function)]), `callback`, `collective`."""

    def __init__(self, index, kind, line):
        self.index, self.kind, self.line = index, kind, line
        self.values, self.functions = [], []
        self.prim = self.op = self.callback = self.collective = None
        self.branches = []


class Function:
    def __init__(self, name, line, jit):
        self.name, self.line, self.jit = name, line, jit
        self.statements = []
        self.ret = None
        self.ret_line = 0


class Program:
    """A parsed description.  `items` keeps the definitions in the order of
    the text: ("arg", None), ("prim", Prim), ("rule", Rule),
    ("fun", Function)."""

    def __init__(self, text):
        self.text = text
        self.dtype = None
        self.dims = []        # [(size, symbolic)]
        self.arg_line = 0
        self.prims = {}
        self.functions = {}
        self.rules = []
        self.items = []
        self.id = hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]

    @property
    def size(self):
        """Statements and rules (PROGRAMS.md, Size)."""
        return (len(self.rules)
                + sum(len(f.statements) for f in self.functions.values()))

    @property
    def symbolic(self):
        return any(sym for _, sym in self.dims)

    def uses(self, kind):
        return any(s.kind == kind for f in self.functions.values()
                   for s in f.statements)

    def ops_used(self):
        seen = []
        for item, obj in self.items:
            if item != "fun":
                continue
            for s in obj.statements:
                if s.kind == "jax" and s.op not in seen:
                    seen.append(s.op)
        return seen


# ---------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------

class _Parser:
    def __init__(self, text):
        self.p = Program(text)
        self.defined = {}          # name -> (kind, line)
        self.current = None        # the Function being defined
        self.edges = {}            # name -> set of names it needs (cycles)

    def fail(self, line, why):
        raise ProgramError(line, why)

    def new_name(self, name, kind, line):
        if not NAME.match(name):
            self.fail(line, "%r is not a name ([a-z][a-z0-9_]*)" % name)
        if len(name.encode()) > MAX_NAME:
            self.fail(line, "name %r is longer than %d bytes"
                      % (name, MAX_NAME))
        if name == "x" or VALUE.match(name):
            self.fail(line, "%r names a value, not a %s" % (name, kind))
        if name in self.defined:
            self.fail(line, "%r is already defined (line %d)"
                      % (name, self.defined[name][1]))
        self.defined[name] = (kind, line)

    def need(self, name, kind, line):
        if name not in self.defined:
            self.fail(line, "%s %r is not defined before this line"
                      % (kind, name))
        got = self.defined[name][0]
        if got != kind:
            self.fail(line, "%r is a %s, not a %s" % (name, got, kind))

    def need_function(self, name, line):
        if self.current is not None and name == self.current.name:
            self.fail(line, "function %r uses itself (nothing is recursive)"
                      % name)
        self.need(name, "function", line)
        if self.p.functions[name].ret is None:
            self.fail(line, "function %r is not ended by ret" % name)

    def need_value(self, word, line):
        if word == "x":
            return word
        m = VALUE.match(word)
        if not m:
            self.fail(line, "%r is not a value (x or vN)" % word)
        if int(m.group(1)) >= len(self.current.statements):
            n = len(self.current.statements)
            self.fail(line, "%s is not defined yet in %s (%s)"
                      % (word, self.current.name,
                         "x only" if not n else "x, v0..v%d" % (n - 1)))
        return word

    def reaches(self, start, goal):
        seen, todo = set(), [start]
        while todo:
            n = todo.pop()
            if n == goal:
                return True
            if n in seen:
                continue
            seen.add(n)
            todo.extend(self.edges.get(n, ()))
        return False

    # -- lines -------------------------------------------------------------

    def parse(self):
        text = self.p.text
        if len(text.encode("utf-8")) > MAX_TEXT:
            self.fail(0, "the description is over %d bytes" % MAX_TEXT)
        lines = text.split("\n")
        if lines[0] != HEADER:
            m = re.match(r"lctx-program (\S+)\Z", lines[0])
            if m:
                self.fail(1, "version %s is not supported (this builder "
                          "reads version %d)" % (m.group(1), FORMAT_VERSION))
            self.fail(1, "the first line must be %r" % HEADER)
        for number, line in enumerate(lines[1:], 2):
            if not line.strip(" ") or line.startswith("#"):
                continue
            words = line.split(" ")
            if "" in words or any(c in line for c in "\t\r\v\f"):
                self.fail(number, "words are separated by single spaces")
            if self.current is not None:
                self.body_line(words, number)
            else:
                self.top_line(words, number)
        last = len(lines)
        if self.current is not None:
            self.fail(last, "function %r is not ended by ret"
                      % self.current.name)
        if self.p.dtype is None:
            self.fail(last, "no arg line")
        functions = [obj for kind, obj in self.p.items if kind == "fun"]
        if not functions:
            self.fail(last, "no function (the last one is main)")
        if functions[-1].name != "main":
            self.fail(functions[-1].line, "the last function is %r, not "
                      "main" % functions[-1].name)
        return self.p

    def top_line(self, words, line):
        head = words[0]
        if head == "arg":
            self.arg_line(words, line)
        elif head == "prim":
            self.prim_line(words, line)
        elif head == "rule":
            self.rule_line(words, line)
        elif head == "fun":
            self.fun_line(words, line)
        elif head == "ret" or VALUE.match(head):
            self.fail(line, "%r outside a function" % head)
        else:
            self.fail(line, "unknown line %r (arg, prim, rule, fun, or a "
                      "comment)" % head)

    def arg_line(self, words, line):
        if self.p.dtype is not None:
            self.fail(line, "a second arg line (the first is line %d)"
                      % self.p.arg_line)
        if any(kind == "fun" for kind, _ in self.p.items):
            self.fail(line, "the arg line comes before the functions")
        if len(words) < 2 or words[1] not in DTYPES:
            self.fail(line, "arg DTYPE D...: DTYPE is float32 or int32")
        dims = words[2:]
        if len(dims) > MAX_DIMS:
            self.fail(line, "%d dimensions (0 to %d)" % (len(dims), MAX_DIMS))
        out = []
        for d in dims:
            m = SYMBOLIC.match(d)
            text = m.group(1) if m else d
            if not re.match(r"[0-9]+\Z", text):
                self.fail(line, "dimension %r is not N or bN" % d)
            size = int(text)
            if not MIN_DIM <= size <= MAX_DIM:
                self.fail(line, "dimension %r is not %d to %d"
                          % (d, MIN_DIM, MAX_DIM))
            out.append((size, bool(m)))
        if sum(1 for _, s in out if s) > 1:
            self.fail(line, "more than one symbolic dimension")
        self.p.dtype, self.p.dims, self.p.arg_line = words[1], out, line
        self.p.items.append(("arg", None))

    def options(self, words, allowed, line):
        """key=value words -> dict, each key at most once."""
        out = {}
        for w in words:
            key, eq, value = w.partition("=")
            if not eq or key not in allowed:
                self.fail(line, "unknown option %r (%s)"
                          % (w, ", ".join("%s=%s" % (k, "|".join(v))
                                          for k, v in allowed.items())))
            if key in out:
                self.fail(line, "%s= given twice" % key)
            if value not in allowed[key]:
                self.fail(line, "%s=%s: not one of %s"
                          % (key, value, ", ".join(allowed[key])))
            out[key] = value
        return out

    def prim_line(self, words, line):
        if len(words) < 2:
            self.fail(line, "prim P [effect=...] [cache=...]")
        name = words[1]
        self.new_name(name, "primitive", line)
        opts = self.options(words[2:], {"effect": EFFECTS,
                                        "cache": ("yes", "no")}, line)
        prim = Prim(name, line, opts.get("effect", "none"),
                    opts.get("cache", "yes") == "yes")
        self.p.prims[name] = prim
        self.p.items.append(("prim", prim))

    def rule_line(self, words, line):
        if len(words) < 5 or words[3] not in ("add", "fun"):
            self.fail(line, "rule P PLATFORM add C [read=R] or rule P "
                      "PLATFORM fun F [read=R]")
        name, platform, kind, value = words[1:5]
        self.need(name, "primitive", line)
        if platform not in RULE_PLATFORMS:
            self.fail(line, "platform %r is not one of %s"
                      % (platform, ", ".join(RULE_PLATFORMS)))
        prim = self.p.prims[name]
        for r in prim.rules:
            if r.platform == platform:
                self.fail(line, "a second %s rule for %s (line %d)"
                          % (platform, name, r.line))
        if kind == "add":
            if not INTEGER.match(value):
                self.fail(line, "add C: %r is not an integer" % value)
            value = int(value)
            if abs(value) > MAX_CONSTANT:
                self.fail(line, "add C: %d is not -%d to %d"
                          % (value, MAX_CONSTANT, MAX_CONSTANT))
        else:
            self.need_function(value, line)
            if self.reaches(value, name):
                self.fail(line, "rule %s %s fun %s: %s uses %s "
                          "(nothing is recursive)"
                          % (name, platform, value, value, name))
            self.edges.setdefault(name, set()).add(value)
        opts = self.options(words[5:], {"read": READS}, line)
        rule = Rule(name, platform, kind, value, opts.get("read", "none"),
                    line)
        prim.rules.append(rule)
        self.p.rules.append(rule)
        self.p.items.append(("rule", rule))

    def fun_line(self, words, line):
        if len(words) not in (2, 3) or (len(words) == 3
                                        and words[2] != "jit"):
            self.fail(line, "fun F [jit]")
        if self.p.dtype is None:
            self.fail(line, "a function before the arg line")
        self.new_name(words[1], "function", line)
        fn = Function(words[1], line, len(words) == 3)
        self.p.functions[fn.name] = fn
        self.p.items.append(("fun", fn))
        self.current = fn

    def body_line(self, words, line):
        fn = self.current
        head = words[0]
        if head == "ret":
            if len(words) != 2:
                self.fail(line, "ret V")
            fn.ret = self.need_value(words[1], line)
            fn.ret_line = line
            self.current = None
            return
        if head in ("arg", "prim", "rule", "fun"):
            self.fail(line, "%s line inside function %r (end it with ret "
                      "first)" % (head, fn.name))
        m = VALUE.match(head)
        if not m:
            self.fail(line, "unknown line %r in function %r (vN = ... or "
                      "ret V)" % (head, fn.name))
        if len(words) < 3 or words[1] != "=":
            self.fail(line, "vN = STATEMENT ...")
        index = int(m.group(1))
        if index != len(fn.statements):
            self.fail(line, "expected v%d, got %s (values are numbered from "
                      "0 in each function)" % (len(fn.statements), head))
        s = self.statement(words[2], words[3:], index, line)
        for f in s.functions:
            self.edges.setdefault(fn.name, set()).add(f)
        if s.prim is not None:
            self.edges.setdefault(fn.name, set()).add(s.prim)
        fn.statements.append(s)

    def statement(self, kind, args, index, line):
        s = Statement(index, kind, line)
        usage = {
            "prim": "prim P A", "call": "call F A",
            "jax": "jax OP A or jax OP A B", "cond": "cond A F G",
            "switch": "switch A F G [H]", "while": "while A F",
            "scan": "scan A F",
            "platform": "platform A PLATFORM=F ... [default=G]",
            "print": "print A", "callback": "callback A KIND",
            "export": "export A F", "shard": "shard A COLL"}
        if kind not in usage:
            self.fail(line, "unknown statement %r (one of %s)"
                      % (kind, ", ".join(sorted(usage))))

        def arity(*ns):
            if len(args) not in ns:
                self.fail(line, usage[kind])
        if kind == "prim":
            arity(2)
            self.need(args[0], "primitive", line)
            s.prim = args[0]
            s.values = [self.need_value(args[1], line)]
        elif kind == "call":
            arity(2)
            self.need_function(args[0], line)
            s.functions = [args[0]]
            s.values = [self.need_value(args[1], line)]
        elif kind in ("while", "scan", "export"):
            arity(2)
            s.values = [self.need_value(args[0], line)]
            self.need_function(args[1], line)
            s.functions = [args[1]]
        elif kind == "jax":
            arity(2, 3)
            op = OPS.get(args[0])
            if op is None:
                self.fail(line, "unknown JAX operation %r" % args[0])
            if len(args) - 1 != op.arity:
                self.fail(line, "jax %s takes %d value%s"
                          % (args[0], op.arity, "s" if op.arity > 1 else ""))
            s.op = args[0]
            s.values = [self.need_value(a, line) for a in args[1:]]
        elif kind == "cond":
            arity(3)
            s.values = [self.need_value(args[0], line)]
            for f in args[1:]:
                self.need_function(f, line)
            s.functions = args[1:]
        elif kind == "switch":
            arity(3, 4)
            s.values = [self.need_value(args[0], line)]
            for f in args[1:]:
                self.need_function(f, line)
            s.functions = args[1:]
        elif kind == "platform":
            if len(args) < 2:
                self.fail(line, usage[kind])
            s.values = [self.need_value(args[0], line)]
            seen = set()
            for k, w in enumerate(args[1:]):
                plat, eq, f = w.partition("=")
                if not eq:
                    self.fail(line, "%r is not PLATFORM=F" % w)
                if plat == "default":
                    if k != len(args) - 2:
                        self.fail(line, "default=G comes last")
                elif plat not in BRANCH_PLATFORMS:
                    self.fail(line, "platform %r is not one of %s"
                              % (plat, ", ".join(BRANCH_PLATFORMS)))
                if plat in seen:
                    self.fail(line, "%s= given twice" % plat)
                seen.add(plat)
                self.need_function(f, line)
                s.branches.append((plat, f))
                s.functions.append(f)
            n = sum(1 for p, _ in s.branches if p != "default")
            if not MIN_PLATFORM_BRANCHES <= n <= MAX_PLATFORM_BRANCHES:
                self.fail(line, "%d platforms (%d to %d)"
                          % (n, MIN_PLATFORM_BRANCHES, MAX_PLATFORM_BRANCHES))
        elif kind == "print":
            arity(1)
            s.values = [self.need_value(args[0], line)]
        elif kind == "callback":
            arity(2)
            s.values = [self.need_value(args[0], line)]
            if args[1] not in CALLBACKS:
                self.fail(line, "callback kind %r is not one of %s"
                          % (args[1], ", ".join(CALLBACKS)))
            s.callback = args[1]
        elif kind == "shard":
            arity(2)
            s.values = [self.need_value(args[0], line)]
            if args[1] not in COLLECTIVES:
                self.fail(line, "collective %r is not one of %s"
                          % (args[1], ", ".join(COLLECTIVES)))
            s.collective = args[1]
        return s


def parse(text):
    """The Program of a description (ProgramError when it is malformed)."""
    if not isinstance(text, str):
        raise ProgramError(0, "the description is not text")
    return _Parser(text).parse()


# ---------------------------------------------------------------------------
# The JAX operations of `jax OP`
# ---------------------------------------------------------------------------

class Shape:
    """What an operation's code may rely on: the value's rank, its static
    dimensions (None for the symbolic one) and dtype.  An operation that
    needs an axis sees a 0-d value as a vector of 1."""

    def __init__(self, dims, dtype):
        self.dims = list(dims)       # int, or None when symbolic
        self.dtype = dtype
        self.rank = len(self.dims)

    def axis(self):
        """The last axis of static size, else the last axis."""
        for i in reversed(range(self.rank)):
            if self.dims[i] is not None:
                return i
        return self.rank - 1

    def size(self, axis, value="a"):
        d = self.dims[axis]
        return str(d) if d is not None else "%s.shape[%d]" % (value, axis)

    def square(self):
        """k of the trailing k x k block (of the value, as a column when
        1-d): min of the two trailing sizes, 1 when one is symbolic."""
        if self.rank == 1:
            return 1
        m, n = self.dims[-2], self.dims[-1]
        if m is None or n is None:
            return 1
        return min(m, n)


class Op:
    """`arity` values in, one out of the same shape and dtype.  `float_only`
    (f in PROGRAMS.md): an int32 value is converted to float32 and the
    result back.  `lift`: the code needs an axis (a 0-d value becomes a
    vector of 1 and the result a 0-d value again).  `build(shape)` gives
    the body: lines on `a` (and `b`), the last one `return ...`."""

    def __init__(self, arity, float_only, build, lift=False):
        self.arity, self.float_only = arity, float_only
        self.build, self.lift = build, lift


def _last(s):
    return s.rank - 1


def _cumulative(fn):
    return lambda s: ["return lax.%s(a, axis=%d)" % (fn, _last(s))]


def _transpose(s):
    perm = tuple(reversed(range(s.rank)))
    if s.rank < 2:
        return ["return lax.transpose(a, %r)" % (perm,)]
    return ["# the reversed axes, reshaped back to the argument's shape",
            "return jnp.reshape(lax.transpose(a, %r), a.shape)" % (perm,)]


def _round(s):
    if s.dtype == "int32":
        return ["# lax.round takes floats: an int32 goes through float32",
                "return lax.round(a.astype(jnp.float32)).astype(a.dtype)"]
    return ["return lax.round(a)"]


def _fft(s):
    ax = s.axis()
    if s.dims[ax] is None:
        # JAX refuses a symbolic FFT length: the value as a column, its
        # rows transformed (length 1)
        return ["c = jnp.reshape(a, a.shape + (1,))",
                "return jnp.reshape(jnp.real(jnp.fft.fft(c, axis=-1)), "
                "a.shape).astype(a.dtype)"]
    return ["return jnp.real(jnp.fft.fft(a, axis=%d)).astype(a.dtype)" % ax]


def _linalg(compute):
    """An operation on the trailing k x k block (the value as a column when
    1-d), written back into it."""
    def build(s):
        k = s.square()
        lines = []
        if s.rank == 1:
            lines.append("v = jnp.reshape(a, (%s, 1))  # the value as a "
                         "column" % s.size(0))
        else:
            lines.append("v = a")
        lines.append("m = v[..., :%d, :%d]  # the trailing %dx%d block"
                     % (k, k, k, k))
        lines.extend(compute(k))
        lines.append("v = lax.dynamic_update_slice(v, r, (0,) * v.ndim)")
        lines.append("return jnp.reshape(v, a.shape)")
        return lines
    return build


def _spd(k):
    return ["m = m @ jnp.swapaxes(m, -1, -2) + %d * jnp.eye(%d, dtype=m.dtype)"
            "  # positive definite" % (k, k)]


LINALG = {
    "cholesky": _linalg(lambda k: _spd(k) + ["r = jnp.linalg.cholesky(m)"]),
    "qr": _linalg(lambda k: ["q, r = jnp.linalg.qr(m)", "r = q + r"]),
    "svd": _linalg(lambda k: ["s = jnp.linalg.svd(m, compute_uv=False)",
                              "r = m + s[..., None, :]"]),
    "eigh": _linalg(lambda k: ["w, _ = jnp.linalg.eigh(m + jnp.swapaxes(m, "
                               "-1, -2))",
                               "r = m + w[..., None, :]"]),
    "triangular_solve": _linalg(
        lambda k: ["d = jnp.abs(jnp.diagonal(m, axis1=-2, axis2=-1)) + 1",
                   "t = jnp.tril(m, -1) + jnp.eye(%d, dtype=m.dtype) * "
                   "d[..., None, :]" % k,
                   "r = lax.linalg.triangular_solve(t, m, left_side=True, "
                   "lower=True)"]),
    "lu": _linalg(lambda k: ["r, _, _ = lax.linalg.lu(m)"]),
}


def _dot(s):
    r = s.rank
    batch = tuple(range(r - 1))
    return ["# contracts the last axis (batching the others), added back",
            "d = lax.dot_general(a, b, (((%d,), (%d,)), (%r, %r)))"
            % (r - 1, r - 1, batch, batch),
            "return a + d[..., None]"]


def _concat(s):
    ax = s.axis()
    return ["c = jnp.concatenate([a, b], axis=%d)" % ax,
            "return lax.slice_in_dim(c, 1, 1 + %s, axis=%d)  # sliced back"
            % (s.size(ax), ax)]


def _pad(s):
    ax = s.axis()
    config = [(0, 0, 0)] * s.rank
    config[ax] = (1, 1, 1)
    return ["c = lax.pad(a, b[%r], %r)" % ((0,) * s.rank, config),
            "return lax.slice_in_dim(c, 2, 2 + %s, axis=%d)  # sliced back"
            % (s.size(ax), ax)]


def _flat_index(src):
    return ["n = a.size",
            "i = jnp.remainder(jnp.ravel(%s).astype(jnp.int32) + "
            "jnp.arange(n, dtype=jnp.int32), n)" % src]


def _gather(s):
    return (["# a permutation-like index from b, over the flattened value"]
            + _flat_index("b")
            + ["return jnp.reshape(jnp.ravel(a)[i], a.shape)"])


def _scatter_add(s):
    return (_flat_index("b")
            + ["return jnp.reshape(jnp.ravel(a).at[i].add(jnp.ravel(b)), "
               "a.shape)"])


def _dynamic_slice(s):
    ax = s.axis()
    n = s.size(ax)
    return ["start = jnp.remainder(jnp.ravel(b)[0].astype(jnp.int32), %s)" % n,
            "c = jnp.concatenate([a, a], axis=%d)" % ax,
            "return lax.dynamic_slice_in_dim(c, start, %s, axis=%d)  # a "
            "rotation" % (n, ax)]


def _dynamic_update_slice(s):
    ax = s.axis()
    return ["start = jnp.remainder(jnp.ravel(a)[0].astype(jnp.int32), %s)"
            % s.size(ax),
            "u = lax.slice_in_dim(b, 0, 1, axis=%d)" % ax,
            "return lax.dynamic_update_slice_in_dim(a, u, start, axis=%d)"
            % ax]


def _simple(expr):
    return lambda s: ["return " + expr]


OPS = {
    # arity 1
    "neg": Op(1, False, _simple("-a")),
    "abs": Op(1, False, _simple("jnp.abs(a)")),
    "sign": Op(1, False, _simple("jnp.sign(a)")),
    "square": Op(1, False, _simple("jnp.square(a)")),
    "cumsum": Op(1, False, _cumulative("cumsum"), lift=True),
    "cumprod": Op(1, False, _cumulative("cumprod"), lift=True),
    "cummax": Op(1, False, _cumulative("cummax"), lift=True),
    "sort": Op(1, False, lambda s: ["return lax.sort(a, dimension=%d)"
                                    % _last(s)], lift=True),
    "rev": Op(1, False, lambda s: ["return lax.rev(a, (%d,))" % _last(s)],
              lift=True),
    "transpose": Op(1, False, _transpose),
    "reduce_sum": Op(1, False, _simple("jnp.broadcast_to(jnp.sum(a), "
                                       "a.shape)  # kept as a broadcast")),
    "argmax": Op(1, False, lambda s: [
        "i = jnp.argmax(a, axis=%d, keepdims=True)" % _last(s),
        "return a + i.astype(a.dtype)  # added back"], lift=True),
    "round": Op(1, False, _round),
    "floor": Op(1, True, _simple("jnp.floor(a)")),
    "ceil": Op(1, True, _simple("jnp.ceil(a)")),
    "sin": Op(1, True, _simple("jnp.sin(a)")),
    "cos": Op(1, True, _simple("jnp.cos(a)")),
    "tanh": Op(1, True, _simple("jnp.tanh(a)")),
    "exp": Op(1, True, _simple("jnp.exp(jnp.clip(a, -20, 20))")),
    "log1p": Op(1, True, _simple("jnp.log1p(jnp.abs(a))")),
    "logistic": Op(1, True, _simple("lax.logistic(a)")),
    "erf": Op(1, True, _simple("lax.erf(a)")),
    "sqrt": Op(1, True, _simple("jnp.sqrt(jnp.abs(a) + 1)")),
    "rsqrt": Op(1, True, _simple("lax.rsqrt(jnp.abs(a) + 1)")),
    "fft": Op(1, True, _fft, lift=True),
    "cholesky": Op(1, True, LINALG["cholesky"], lift=True),
    "qr": Op(1, True, LINALG["qr"], lift=True),
    "svd": Op(1, True, LINALG["svd"], lift=True),
    "eigh": Op(1, True, LINALG["eigh"], lift=True),
    "triangular_solve": Op(1, True, LINALG["triangular_solve"], lift=True),
    "lu": Op(1, True, LINALG["lu"], lift=True),
    # arity 2
    "add": Op(2, False, _simple("a + b")),
    "sub": Op(2, False, _simple("a - b")),
    "mul": Op(2, False, _simple("a * b")),
    "max": Op(2, False, _simple("jnp.maximum(a, b)")),
    "min": Op(2, False, _simple("jnp.minimum(a, b)")),
    "pow": Op(2, True, _simple("jnp.power(jnp.abs(a) + 1, "
                               "jnp.clip(b, -4, 4))")),
    "atan2": Op(2, True, _simple("jnp.arctan2(a, b)")),
    "rem": Op(2, False, _simple("lax.rem(a, jnp.where(b == 0, "
                                "jnp.ones_like(b), b))  # never by 0")),
    "dot": Op(2, False, _dot, lift=True),
    "select": Op(2, False, _simple("jnp.where(a > 0, a, b)")),
    "concat": Op(2, False, _concat, lift=True),
    "pad": Op(2, False, _pad, lift=True),
    "gather": Op(2, False, _gather),
    "scatter_add": Op(2, False, _scatter_add),
    "dynamic_slice": Op(2, False, _dynamic_slice, lift=True),
    "dynamic_update_slice": Op(2, False, _dynamic_update_slice, lift=True),
    "clamp": Op(2, False, _simple("lax.clamp(b - 1, a, b + 1)")),
}


def op_source(name, program):
    """The helper function `jax_NAME` of one operation for the program's
    argument type."""
    op = OPS[name]
    dims = [None if sym else size for size, sym in program.dims]
    params = "a" if op.arity == 1 else "a, b"
    lines = []
    lifted = op.lift and not dims
    if lifted:
        dims = [1]
        for v in params.split(", "):
            lines.append("%s = jnp.reshape(%s, (1,))  # a 0-d value as a "
                         "vector of 1" % (v, v))
    through_float = op.float_only and program.dtype == "int32"
    if through_float:
        for v in params.split(", "):
            lines.append("%s = %s.astype(jnp.float32)  # float32 only: "
                         "int32 goes through float32" % (v, v))
    body = op.build(Shape(dims, "float32" if through_float
                          else program.dtype))
    last = body[-1]
    assert last.startswith("return "), (name, last)
    expr, _, comment = last[len("return "):].partition("  # ")
    if through_float:
        expr = "to_int32(%s)" % expr
    if lifted:
        expr = "jnp.reshape(%s, ())" % expr
    body = body[:-1] + ["return " + expr
                        + ("  # " + comment if comment else "")]
    lines.extend(body)
    return ["def jax_%s(%s):" % (name, params)] + ["    " + l for l in lines]


# ---------------------------------------------------------------------------
# The source
# ---------------------------------------------------------------------------

# Python names the source (and a reproduction's footer) uses besides the
# description's: a primitive or function of the description named so, or
# with one of these prefixes or suffix, gets another Python name
# (IDENT_SUFFIX, never part of a description's name).
RESERVED = (set(keyword.kwlist) | set(dir(builtins)) | {
    "np", "jax", "jnp", "lax", "core", "effects", "mlir", "hlo",
    "io_callback", "add_constant", "to_int32", "branch_index", "shard",
    "c", "contextlib", "json", "math", "raise_of", "flat_values",
    "export_and_run", "documented", "same_raise", "close", "same_values",
    "check", "report", "defect", "why"})
RESERVED_PREFIXES = ("jax_", "rule_", "coll_", "on_host", "lctx_")
RESERVED_SUFFIX = "_effect"
IDENT_SUFFIX = {"prim": "_P", "fun": "_F"}


def ident(name, kind):
    """The Python name of the description's primitive (kind "prim") or
    function ("fun") `name`."""
    if (name in RESERVED or name.startswith(RESERVED_PREFIXES)
            or name.endswith(RESERVED_SUFFIX)):
        return name + IDENT_SUFFIX[kind]
    return name


def _fun(name):
    return ident(name, "fun")


def _prim(name):
    return ident(name, "prim")

def _describe_arg(program):
    return " ".join([program.dtype] + [("b%d" if sym else "%d") % size
                                       for size, sym in program.dims])


def to_source(program, platforms):
    """Self-contained Python source defining the program: `main`, `ARG`
    (the argument), `ARG_SPEC` (what export traces, with the symbolic
    dimension), the primitives (`PRIMITIVES`) and rules (`RULES`).  Only
    JAX and numpy are imported.  Identical descriptions and platforms give
    identical sources."""
    if isinstance(program, str):
        program = parse(program)
    platforms = tuple(platforms)
    out = []
    emit = out.append
    emit("# A program generated by lctx (`lctx generate`), built in JAX by")
    emit("# conformance/adapters/jax_program.py from its description, which")
    emit("# follows (format: lctx-program 1, conformance/sweep/PROGRAMS.md):")
    emit("#")
    for line in program.text.rstrip("\n").split("\n"):
        # (escaped: a comment of the description may hold any character)
        line = line.encode("unicode_escape").decode("ascii")
        emit("#   " + line if line else "#")
    emit("")
    emit("import numpy as np")
    emit("import jax")
    emit("import jax.export  # (not imported with jax before jax 0.8)")
    emit("import jax.numpy as jnp")
    emit("from jax import lax")
    emit("from jax._src import core")
    if any(p.effect != "none" for p in program.prims.values()):
        emit("from jax._src import effects")
    emit("from jax._src.interpreters import mlir")
    if any(r.kind == "add" for r in program.rules):
        emit("from jax._src.lib.mlir.dialects import hlo")
    if program.uses("callback") and any(
            s.callback in ("io_ordered", "io_unordered")
            for f in program.functions.values() for s in f.statements):
        emit("from jax.experimental import io_callback")
    emit("")
    emit("# Primitive names end with this hash of the description, so that")
    emit("# programs built in one process never share a primitive.")
    emit("PROGRAM_ID = %r" % program.id)
    emit("# The platforms of the enclosing export (`export` statements "
         "export for")
    emit("# them too).")
    emit("EXPORT_PLATFORMS = %r" % (platforms,))
    emit("")
    # The argument.
    concrete = tuple(size for size, _ in program.dims)
    n = 1
    for d in concrete:
        n *= d
    emit("# line %d: arg %s" % (program.arg_line, _describe_arg(program)))
    if program.dtype == "float32":
        emit("ARG = (((np.arange(%d) %% 7) - 3) * 0.5).reshape(%r).astype("
             "np.float32)" % (n, concrete))
    else:
        emit("ARG = ((np.arange(%d) %% 7) - 3).reshape(%r).astype(np.int32)"
             % (n, concrete))
    if program.symbolic:
        spec = ", ".join("b" if sym else str(size)
                         for size, sym in program.dims)
        emit("# exported with a symbolic dimension b (called with %d)"
             % [size for size, sym in program.dims if sym][0])
        emit("ARG_SPEC = jax.ShapeDtypeStruct(jax.export.symbolic_shape(%r), "
             "np.%s)" % (spec, program.dtype))
    else:
        emit("ARG_SPEC = jax.ShapeDtypeStruct(ARG.shape, ARG.dtype)")
    emit("")
    emit("")
    _emit_helpers(program, emit)
    for kind, obj in program.items:
        if kind == "prim":
            _emit_prim(obj, emit)
        elif kind == "rule":
            _emit_rule(program, obj, emit)
        elif kind == "fun":
            _emit_function(program, obj, emit)
    emit("# The description's primitives and rules (name, platform, line, "
         "rule):")
    emit("# lctx's exporter reads them to report which rule ran.")
    emit("PRIMITIVES = {%s}" % ", ".join("%r: %s" % (p, _prim(p))
                                         for p in program.prims))
    emit("RULES = [%s]" % ",\n         ".join(
        "(%r, %r, %d, %s)" % (r.prim, r.platform, r.line, r.function_name)
        for r in program.rules))
    return "\n".join(out) + "\n"


def _emit_helpers(program, emit):
    has_add = any(r.kind == "add" for r in program.rules)
    if has_add:
        emit("def add_constant(ctx, x, c):")
        emit("    \"\"\"x + c in StableHLO (c broadcast to x's shape).\"\"\"")
        emit("    aval = ctx.avals_in[0]")
        emit("    constant = mlir.ir_constant(np.array(c, dtype=aval.dtype))")
        emit("    if aval.ndim:")
        emit("        constant = mlir.broadcast_in_dim(ctx, constant, aval,")
        emit("                                         "
             "broadcast_dimensions=())")
        emit("    return hlo.add(x, constant)")
        emit("")
        emit("")
    ops = program.ops_used()
    if program.dtype == "int32" and any(OPS[o].float_only for o in ops):
        emit("def to_int32(y):")
        emit("    \"\"\"A float32 result back to int32 (NaN as 0, clipped).\"\"\"")
        emit("    return jnp.clip(jnp.nan_to_num(y), -1e9, 1e9)"
             ".astype(jnp.int32)")
        emit("")
        emit("")
    for name in ops:
        for line in op_source(name, program):
            emit(line)
        emit("")
        emit("")
    if program.uses("switch"):
        emit("def branch_index(v, n):")
        emit("    \"\"\"clamp(int(sum(v)), 0, n - 1).\"\"\"")
        emit("    return jnp.clip(jnp.sum(v), 0, n - 1).astype(jnp.int32)")
        emit("")
        emit("")
    if program.uses("callback"):
        emit("def on_host(v):")
        emit("    \"\"\"The host callback: gives its argument back.\"\"\"")
        emit("    return np.asarray(v)")
        emit("")
        emit("")
        emit("def on_host_debug(v):")
        emit("    \"\"\"The debug callback: ignores its argument.\"\"\"")
        emit("")
        emit("")
    if program.uses("shard"):
        _emit_shard_helpers(program, emit)


def _emit_shard_helpers(program, emit):
    colls = []
    for f in program.functions.values():
        for s in f.statements:
            if s.kind == "shard" and s.collective not in colls:
                colls.append(s.collective)
    emit("try:")
    emit("    from jax import shard_map as _shard_map  # jax >= 0.6")
    emit("    UNCHECKED = {\"check_vma\": False}")
    emit("except ImportError:")
    emit("    from jax.experimental.shard_map import shard_map as _shard_map")
    emit("    UNCHECKED = {\"check_rep\": False}")
    emit("from jax.sharding import Mesh, PartitionSpec")
    emit("")
    emit("# Every host device, on one axis \"i\".")
    emit("MESH = Mesh(np.array(jax.devices()), (\"i\",))")
    emit("N_DEVICES = MESH.devices.size")
    emit("")
    emit("")
    emit("# The argument, replicated over MESH (an export for several devices")
    emit("# is called with its argument on them).")
    emit("ARG = jax.device_put(ARG, jax.sharding.NamedSharding(MESH, "
         "PartitionSpec()))")
    emit("")
    emit("")
    emit("def shard(collective):")
    emit("    \"\"\"shard_map of `collective` over MESH, replicated in and "
         "out.\"\"\"")
    emit("    return _shard_map(collective, mesh=MESH, "
         "in_specs=PartitionSpec(),")
    emit("                      out_specs=PartitionSpec(), **UNCHECKED)")
    emit("")
    emit("")
    bodies = {
        "psum": ["return lax.psum(v, \"i\")"],
        "pmax": ["return lax.pmax(v, \"i\")"],
        "pmin": ["return lax.pmin(v, \"i\")"],
        "pmean": ["return lax.pmean(v, \"i\").astype(v.dtype)"],
        "all_gather": ["return jnp.sum(lax.all_gather(v, \"i\"), axis=0)"
                       "  # summed back"],
        "ppermute": ["perm = [(j, (j + 1) % N_DEVICES) for j in "
                     "range(N_DEVICES)]",
                     "return lax.ppermute(v, \"i\", perm)  # a cyclic shift"],
        "axis_index": ["return v + lax.axis_index(\"i\").astype(v.dtype)"],
        "psum_scatter": [
            "t = jnp.broadcast_to(v, (N_DEVICES,) + v.shape)",
            "s = lax.psum_scatter(t, \"i\", scatter_dimension=0, "
            "tiled=False)",
            "return lax.all_gather(s, \"i\")[0]  # gathered back"],
        "all_to_all": [
            "t = jnp.broadcast_to(v, (N_DEVICES,) + v.shape)",
            "t = lax.all_to_all(t, \"i\", 0, 0)",
            "t = lax.all_to_all(t, \"i\", 0, 0)  # and back",
            "return t[0]"],
    }
    for c in colls:
        emit("def coll_%s(v):" % c)
        for line in bodies[c]:
            emit("    " + line)
        emit("")
        emit("")


def _emit_prim(prim, emit):
    emit("# line %d: prim %s%s%s" % (
        prim.line, prim.name,
        " effect=%s" % prim.effect if prim.effect != "none" else "",
        " cache=no" if not prim.cache else ""))
    p = _prim(prim.name)
    emit("%s = core.Primitive(%r + PROGRAM_ID)" % (p, prim.name + "_"))
    emit("%s.def_impl(lambda x: x)" % p)
    if prim.effect == "none":
        emit("%s.def_abstract_eval(lambda x: core.ShapedArray(x.shape, "
             "x.dtype))" % p)
    else:
        cls = "Effect_%s" % prim.name
        emit("")
        emit("")
        emit("class %s(effects.Effect):" % cls)
        emit("    \"\"\"%s's %s effect.\"\"\"" % (p, prim.effect))
        emit("")
        emit("    def __repr__(self):  # no address in JAX's messages")
        emit("        return %r" % cls)
        emit("")
        emit("")
        emit("%s_effect = %s()" % (p, cls))
        emit("effects.lowerable_effects.add_type(%s)" % cls)
        emit("effects.control_flow_allowed_effects.add_type(%s)" % cls)
        if prim.effect == "ordered":
            emit("effects.ordered_effects.add_type(%s)" % cls)
        emit("%s.def_effectful_abstract_eval(" % p)
        emit("    lambda x: (core.ShapedArray(x.shape, x.dtype), {%s_effect}))"
             % p)
    emit("")
    emit("")


READ_CODE = {
    "get": "ctx.module_context.get_backend()",
    "optional": "ctx.module_context.get_backend(optional=True)",
    "attr": "ctx.module_context.backend",
    "host": "jax.devices()[0].platform",
}


def _emit_rule(program, rule, emit):
    prim = program.prims[rule.prim]
    what = ("add %d" % rule.value if rule.kind == "add"
            else "fun %s" % rule.value)
    emit("# line %d: rule %s %s %s%s" % (
        rule.line, rule.prim, rule.platform, what,
        " read=%s" % rule.read if rule.read != "none" else ""))
    emit("def %s(ctx, x):" % rule.function_name)
    if rule.read != "none":
        emit("    %s  # read=%s: looked up, not used"
             % (READ_CODE[rule.read], rule.read))
    if rule.kind == "add":
        if prim.effect == "ordered":
            emit("    ctx.set_tokens_out(ctx.tokens_in)  # the ordered "
                 "effect's token, passed on")
        emit("    return [add_constant(ctx, x, %d)]" % rule.value)
    else:
        emit("    return mlir.lower_fun(%s, multiple_results=False)(ctx, x)"
             % _fun(rule.value))
    emit("")
    emit("")
    args = [_prim(rule.prim), rule.function_name]
    if rule.platform != "default":
        args.append("platform=%r" % rule.platform)
    if not prim.cache:
        args.append("cacheable=False")
    emit("mlir.register_lowering(%s)" % ", ".join(args))
    emit("")
    emit("")


def _emit_function(program, fn, emit):
    emit("# line %d: fun %s%s" % (fn.line, fn.name, " jit" if fn.jit else ""))
    if fn.jit:
        emit("@jax.jit")
    emit("def %s(x):" % _fun(fn.name))
    for s in fn.statements:
        for line in _statement_lines(s, program.symbolic):
            emit("    " + line)
    emit("    return %s" % fn.ret)
    emit("")
    emit("")


def _statement_lines(s, symbolic=False):
    v = "v%d" % s.index
    a = s.values[0]
    k = s.kind
    where = "  # line %d" % s.line
    if k == "prim":
        return ["%s = %s.bind(%s)%s" % (v, _prim(s.prim), a, where)]
    fs = [_fun(f) for f in s.functions]
    if k == "call":
        return ["%s = %s(%s)%s" % (v, fs[0], a, where)]
    if k == "jax":
        return ["%s = jax_%s(%s)%s" % (v, s.op, ", ".join(s.values), where)]
    if k == "cond":
        return ["%s = lax.cond(jnp.sum(%s) > 0, %s, %s, %s)%s"
                % (v, a, fs[0], fs[1], a, where)]
    if k == "switch":
        return ["%s = lax.switch(branch_index(%s, %d), [%s], %s)%s"
                % (v, a, len(fs), ", ".join(fs), a, where)]
    if k == "while":
        f = fs[0]
        return ["%s = lax.while_loop(lambda c: c[0] < 2,%s" % (v, where),
                "                   lambda c: (c[0] + 1, %s(c[1])),"
                % f,
                "                   (np.int32(0), %s))[1]" % a]
    if k == "scan":
        return ["%s = lax.scan(lambda c, _: (%s(c), None), %s, None, "
                "length=2)[0]%s" % (v, fs[0], a, where)]
    if k == "platform":
        kw = ", ".join("%s=%s" % (p, _fun(f)) for p, f in s.branches)
        return ["%s = lax.platform_dependent(%s, %s)%s" % (v, a, kw, where)]
    if k == "print":
        return ["jax.debug.print(\"{}\", %s)%s" % (a, where),
                "%s = %s" % (v, a)]
    if k == "callback":
        sds = "jax.ShapeDtypeStruct(%s.shape, %s.dtype)" % (a, a)
        if s.callback == "debug":
            return ["jax.debug.callback(on_host_debug, %s)%s" % (a, where),
                    "%s = %s" % (v, a)]
        if s.callback == "pure":
            return ["%s = jax.pure_callback(on_host, %s, %s)%s"
                    % (v, sds, a, where)]
        return ["%s = io_callback(on_host, %s, %s, ordered=%s)%s"
                % (v, sds, a, s.callback == "io_ordered", where)]
    if k == "export":
        return ["%s = jax.export.export(jax.jit(%s), "
                "platforms=EXPORT_PLATFORMS)(%s" % (v, fs[0], where),
                "    jax.ShapeDtypeStruct(%s.shape, %s.dtype)).call(%s)"
                % (a, a, a)]
    if k == "shard":
        if symbolic:
            # A value of symbolic shape through shard_map crashes or is
            # refused by some JAX releases (shape refinement): the
            # collective works on a static weight, the value times it.
            return ["%s = %s * shard(coll_%s)(jnp.ones((1,), %s.dtype))[0]%s"
                    " (symbolic: the collective runs on a weight)"
                    % (v, a, s.collective, a, where)]
        return ["%s = shard(coll_%s)(%s)%s" % (v, s.collective, a, where)]
    raise AssertionError(k)


# ---------------------------------------------------------------------------
# Building
# ---------------------------------------------------------------------------

class Built(tuple):
    """(main, [ARG], x64) with the rest: `spec` (what export traces),
    `program`, `source`, `namespace`, `primitives` (name in the
    description -> Primitive) and `rules` ([(prim, platform, line, fn)])."""

    def __new__(cls, fn, args, x64, **extra):
        self = tuple.__new__(cls, (fn, args, x64))
        self.__dict__.update(extra)
        return self


def build(text, platforms):
    """Builds the description for an export to `platforms`: execs
    to_source(...) in a fresh namespace.  Returns Built: (main, [ARG],
    x64=False), with `spec` the argument to export with."""
    program = parse(text)
    source = to_source(program, platforms)
    namespace = {"__name__": "lctx_program_" + program.id,
                 "__builtins__": __builtins__}
    exec(compile(source, SOURCE_FILENAME, "exec"), namespace)
    return Built(namespace["main"], [namespace["ARG"]], False,
                 spec=namespace["ARG_SPEC"], program=program, source=source,
                 namespace=namespace, primitives=namespace["PRIMITIVES"],
                 rules=namespace["RULES"])


# ---------------------------------------------------------------------------
# Reproductions
# ---------------------------------------------------------------------------

REPRO_FOOTER = r'''

# ---------------------------------------------------------------------------
# The check.  Exports `main` for PLATFORMS, then (for the comparison) for
# ("cpu",) and, when the multi-platform export raises, for each platform
# alone; calls what exported on the CPU.  JAX misbehaves (DEFECT
# REPRODUCED) when the multi-platform export raises something other than
# JAX's documented refusals of multi-platform lowering while no platform
# alone raises the same, or when it computes on the CPU something else than
# the export for ("cpu",) alone (floats: relative 1e-6).
#
#     JAX_PLATFORMS=cpu python THIS_FILE.py
#
# prints DEFECT REPRODUCED or NO DEFECT and why (with --json: one JSON
# object whose verdict is "defect" or "fixed") and exits 0.

import contextlib
import json
import math
import re
import sys

PLATFORMS = %(platforms)r

# Messages of JAX's documented NotImplementedError refusals of
# multi-platform lowering: not defects.
# (conformance/spec/jax-sweep.lspec, SW-002, SW-003 and SW-008: the
# plural "for platforms" only; one platform named alone is not a refusal
# of several platforms.)
DOCUMENTED_REFUSALS = (r"^multi-platform lowering for ",
                       r"^accessing \.backend in multi-lowering setting",
                       r"^MLIR translation rule for primitive '.+' not found "
                       r"for platforms ")


def raise_of(err):
    return {"class": type(err).__name__, "message": str(err)[:2000]}


def flat_values(outputs):
    values = []
    for leaf in jax.tree_util.tree_leaves(outputs):
        for v in np.asarray(leaf).ravel().tolist():
            if isinstance(v, float) and not math.isfinite(v):
                v = str(v)  # "nan", "inf", "-inf"
            values.append(v)
    return values


def export_and_run(platforms):
    """Exports main for `platforms`; calls it on the CPU if it can."""
    global EXPORT_PLATFORMS
    EXPORT_PLATFORMS = platforms  # what `export` statements export for
    jax.clear_caches()  # traces made for other platforms are not reused
    out = {"platforms": list(platforms)}
    try:
        exported = jax.export.export(jax.jit(main),
                                     platforms=platforms)(ARG_SPEC)
    except Exception as err:
        out["outcome"] = "raise"
        out.update(raise_of(err))
        return out
    out["outcome"] = "ok"
    out["module_platforms"] = list(exported.platforms)
    if "cpu" in platforms:
        try:
            out["values"] = flat_values(exported.call(ARG))
        except Exception as err:
            out["run_error"] = raise_of(err)
    return out


def documented(r):
    message = r.get("message", "")
    return (r.get("class") == "NotImplementedError"
            and any(re.search(m, message) for m in DOCUMENTED_REFUSALS))


def same_raise(a, b):
    return (a.get("outcome") == "raise" and b.get("outcome") == "raise"
            and a["class"] == b["class"] and a["message"] == b["message"])


def close(u, v):
    if u == v:
        return True
    if not (isinstance(u, float) and isinstance(v, float)):
        return False
    return abs(u - v) <= 1e-6 * max(abs(u), abs(v))


def same_values(a, b):
    return len(a) == len(b) and all(close(u, v) for u, v in zip(a, b))


def check_order(platforms, cpu, report):
    """(defect, why) for the export for `platforms` against ("cpu",)."""
    multi = export_and_run(platforms)
    report["orders"].append(multi)
    if multi["outcome"] == "raise":
        if documented(multi):
            return False, (
                "JAX refuses the export for %%s with a documented "
                "NotImplementedError: %%s" %% (list(platforms),
                                              multi["message"][:200]))
        for p in platforms:
            if p not in report["alone"]:
                report["alone"][p] = (cpu if p == "cpu" and cpu is not None
                                      else export_and_run((p,)))
        same = [p for p in platforms
                if same_raise(multi, report["alone"][p])]
        if same:
            return False, (
                "the export for %%s raises %%s, as the export for %%s alone "
                "does" %% (list(platforms), multi["class"], same[0]))
        return True, (
            "the export for %%s raises %%s: %%s; no platform alone raises it"
            %% (list(platforms), multi["class"], multi["message"][:300]))
    if cpu is None:
        return False, ("the export for %%s succeeds (no cpu among them: "
                       "nothing to compare)" %% list(platforms))
    if cpu["outcome"] == "raise":
        return False, ("the export for %%s succeeds, but the export for "
                       "('cpu',) raises %%s: nothing to compare"
                       %% (list(platforms), cpu["class"]))
    if "run_error" in multi or "run_error" in cpu:
        if "run_error" in multi and "run_error" not in cpu:
            return True, (
                "the export for %%s raises when called on the CPU (%%s: %%s); "
                "the export for ('cpu',) runs" %% (
                    list(platforms), multi["run_error"]["class"],
                    multi["run_error"]["message"][:300]))
        return False, "the call on the CPU raises (%%s)" %% (
            (cpu.get("run_error") or multi["run_error"])["class"])
    if not same_values(multi["values"], cpu["values"]):
        return True, (
            "exported for %%s and called on the CPU, main gives %%s; exported "
            "for ('cpu',) alone it gives %%s" %% (
                list(platforms), multi["values"][:8], cpu["values"][:8]))
    return False, ("exported for %%s and for ('cpu',), main gives the same "
                   "on the CPU" %% list(platforms))


def check():
    """The export for PLATFORMS, and for them reversed (the order can
    matter), each against the export for ("cpu",)."""
    report = {"jax": jax.__version__, "platforms": list(PLATFORMS),
              "orders": [], "cpu_only": None, "alone": {}}
    orders = [tuple(PLATFORMS)]
    if len(PLATFORMS) > 1:
        orders.append(tuple(reversed(PLATFORMS)))
    with contextlib.redirect_stdout(sys.stderr):  # what the program prints
        if "cpu" in PLATFORMS:
            report["cpu_only"] = export_and_run(("cpu",))
        said = [check_order(p, report["cpu_only"], report) for p in orders]
    report["multi"] = report["orders"][0]
    for defect, why in said:
        if defect:
            return report, True, why
    # The order of the platforms must not decide whether the export works:
    # one order raising where the other exports means one of them lowered
    # the wrong code for some platform.
    outcomes = [r["outcome"] for r in report["orders"]]
    if len(set(outcomes)) > 1:
        raising = report["orders"][outcomes.index("raise")]
        return report, True, (
            "the export for %%s raises %%s (%%s) but the export for %%s "
            "succeeds: the order of the platforms decides" %% (
                raising["platforms"], raising["class"],
                raising["message"][:200],
                report["orders"][outcomes.index("ok")]["platforms"]))
    return report, False, "; ".join(why for _, why in said)


if __name__ == "__main__":
    # --json: one JSON object, the convention of tools/defect_status.py
    # (verdict "defect" or "fixed", jax_version, message); otherwise one
    # line, DEFECT REPRODUCED or NO DEFECT and why.
    report, defect, why = check()
    report["verdict"] = "defect" if defect else "fixed"
    report["jax_version"] = jax.__version__
    report["message"] = why
    if sys.argv[1:] == ["--json"]:
        print(json.dumps(report))
    else:
        print("%%s (JAX %%s): %%s" %% ("DEFECT REPRODUCED" if defect
                                      else "NO DEFECT", jax.__version__, why))
    sys.exit(0)
'''


def repro_source(text, platforms):
    """A standalone script (JAX only) reproducing what the program does
    when exported for `platforms`: to_source plus the check above."""
    platforms = tuple(platforms)
    source = to_source(parse(text), platforms)
    return (source.rstrip("\n") + "\n"
            + REPRO_FOOTER % {"platforms": platforms})


# ---------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------

USAGE = ("usage: jax_program.py --check FILE | --source FILE [--platforms "
         "P,...] | --repro FILE --platforms P,...")


def _read(path):
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as f:
        return f.read()


def main(argv):
    mode = path = None
    platforms = None
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("--check", "--source", "--repro", "--platforms"):
            if i + 1 >= len(argv):
                sys.stderr.write("%s needs a value\n%s\n" % (arg, USAGE))
                return 2
            value = argv[i + 1]
            if arg == "--platforms":
                platforms = tuple(p for p in value.split(",") if p)
            else:
                if mode is not None:
                    sys.stderr.write("one of --check, --source, --repro\n")
                    return 2
                mode, path = arg[2:], value
            i += 2
        elif arg in ("-h", "--help"):
            print(USAGE)
            return 0
        else:
            sys.stderr.write("unknown argument %r\n%s\n" % (arg, USAGE))
            return 2
    if mode is None:
        sys.stderr.write(USAGE + "\n")
        return 2
    if mode == "repro" and not platforms:
        sys.stderr.write("--repro needs --platforms\n")
        return 2
    try:
        text = _read(path)
    except OSError as err:
        sys.stderr.write("%s: %s\n" % (path, err.strerror or err))
        return 2
    try:
        program = parse(text)
    except ProgramError as err:
        sys.stderr.write("%s:%d: %s\n" % (path, err.line, err.why))
        return 2
    if mode == "check":
        print("%s: ok (%d nodes)" % (path, program.size))
    elif mode == "source":
        sys.stdout.write(to_source(program, platforms or ("cpu",)))
    else:
        sys.stdout.write(repro_source(text, platforms))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
