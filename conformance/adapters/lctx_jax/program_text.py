"""Generated programs: the text of a program description, parsed.

`lctx generate` draws programs and describes each in the text format of
conformance/sweep/PROGRAMS.md (version 1).  program.py reads that text and
turns it into a self-contained Python source that defines the program in
JAX: its primitives and their lowering rules (registered per platform with
mlir.register_lowering), its functions, `main` and the argument.  The
exporter (exporter.py) runs exactly that source; a reproduction is that
source plus a footer that exports `main` and says whether JAX misbehaved.

    parse(text)                    -> Program (ProgramError: line and why)
    to_source(program, platforms)  -> Python source (imports only JAX, numpy)
    build(text, platforms)         -> (main, [argument], x64) from that source
    repro_source(text, platforms)  -> a standalone reproduction script

The parts: program_text.py (this file: the format and its parser),
program_ops.py (the JAX operations), program_source.py (the source and
`build`), program_repro.py (reproductions and the command line), and
program.py, which names them together.  From the command line (no JAX
needed):

    python jax_program.py --check FILE
    python jax_program.py --source FILE [--platforms tpu,cpu,cuda]
    python jax_program.py --repro FILE --platforms tpu,cpu,cuda

`--check` prints `FILE: ok (N nodes)` or `FILE:LINE: message` and exits 2;
FILE may be `-` (stdin).  The JAX operations of `jax OP` are the table
`OPS` below: for each its arity, whether it is float32-only, and how it
keeps the argument's shape and dtype.

Standard library only at import time; `build` imports JAX.
"""

import hashlib
import re

from .program_ops import OPS

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


