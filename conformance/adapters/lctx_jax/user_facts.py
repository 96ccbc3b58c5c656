"""Where a user's code is, for the programs of a user catalogue
(user_catalogue.py) and of a discovered package (discover.py): the user
roots, the innermost user frame of a raise or of a look-up, the primitive
being lowered when it raised, the lowering rule registered for it and the
user frame that bound it (conformance/sweep/USER.md, the `user` answer).

A frame is user code when its file lies under a user root (the folder of a
--programs module, the folder of a --package package) and not inside the
jax or jaxlib packages nor this adapter.  The JAX internals read are cited
as file:line of jax 0.10.2."""

import functools
import inspect
import linecache
import os
import re

# Every text of the `user` answer is cut to this many bytes.
MAX_TEXT = 500
# How many lines below a code object's first line its `def` is looked for
# (decorators come first).
DEF_SEARCH = 40
DEF_LINE = re.compile(r"\s*(async\s+)?def\s")
# The functions of jax/_src/interpreters/mlir.py whose local `eqn` is the
# equation being lowered: jaxpr_subcomp (mlir.py:2075, its loop at 2138)
# and _cached_lowering_miss (mlir.py:2220).
EQN_FUNCTIONS = ("jaxpr_subcomp", "_cached_lowering_miss")
# The most exceptions followed through __cause__ / __context__.
MAX_CHAIN = 8


def cut_text(text):
    """`text` cut to MAX_TEXT bytes of UTF-8 (never inside a character)."""
    data = text.encode("utf-8", "replace")
    if len(data) <= MAX_TEXT:
        return text
    return data[:MAX_TEXT].decode("utf-8", "ignore")


def folder_of(path):
    """The real, absolute folder `path` names, with a trailing separator."""
    return os.path.join(os.path.realpath(path), "")


class UserFacts:
    """The user roots and what is said of the user's code under them."""

    def __init__(self, j, roots):
        self.j = j
        self.roots = sorted({folder_of(r) for r in roots})
        adapters = os.path.dirname(os.path.dirname(os.path.abspath(
            __file__)))
        self.excluded = [folder_of(adapters), folder_of(j.package)]
        try:
            import jaxlib
            self.excluded.append(folder_of(os.path.dirname(jaxlib.__file__)))
        except Exception:
            pass
        self.cwd = folder_of(os.getcwd())

    # -- files ------------------------------------------------------------

    @functools.lru_cache(maxsize=4096)
    def is_user_file(self, filename):
        """Whether `filename` lies under a user root (and not in JAX,
        jaxlib or this adapter)."""
        if not filename or filename.startswith("<"):
            return False
        path = os.path.realpath(filename)
        if any(path.startswith(e) for e in self.excluded):
            return False
        return any(path.startswith(r) for r in self.roots)

    def path(self, filename):
        """A file as the census names it: 'jax/...' inside the jax package,
        else relative to the working directory when under it, else
        absolute; cut to MAX_TEXT bytes."""
        from .export_common import jax_path
        inside = jax_path(self.j, filename)
        if inside is not None:
            return cut_text(inside)
        path = os.path.realpath(filename)
        if path.startswith(self.cwd):
            path = os.path.relpath(path, self.cwd)
        return cut_text(path.replace(os.sep, "/"))

    def frame_place(self, code, line):
        """{"file", "line", "function"} of a frame of `code` at `line`."""
        return {"file": self.path(code.co_filename), "line": int(line),
                "function": cut_text(getattr(code, "co_qualname",
                                             code.co_name))}

    # -- frames -----------------------------------------------------------

    def user_frame(self, frame, stop_at_rule=True):
        """The innermost user frame from `frame` outwards, as (frame, line),
        or None.  With stop_at_rule, the walk ends at the dispatch into a
        lowering rule (mlir.py's jaxpr_subcomp or _uncached_lowering):
        a look-up is the user's only when user code between it and the
        rule asked for it."""
        while frame is not None:
            code = frame.f_code
            if self.is_user_file(code.co_filename):
                return frame, frame.f_lineno
            if stop_at_rule and self.is_dispatch(code):
                return None
            frame = frame.f_back
        return None

    def is_dispatch(self, code):
        from .export_common import jax_path
        if code.co_name not in EQN_FUNCTIONS + ("_uncached_lowering",
                                                "uncached_lowering"):
            return False
        path = jax_path(self.j, code.co_filename) or ""
        return (path.endswith("interpreters/mlir.py")
                or code.co_name == "uncached_lowering")

    @staticmethod
    def eqn_of(frames):
        """The equation being lowered: the local `eqn` of the innermost of
        `frames` (innermost last) that is mlir.py's jaxpr_subcomp or
        _cached_lowering_miss; None outside a lowering."""
        found = None
        for frame in frames:
            if frame.f_code.co_name in EQN_FUNCTIONS and \
                    frame.f_code.co_filename.endswith("mlir.py"):
                eqn = frame.f_locals.get("eqn")
                if eqn is not None and hasattr(eqn, "primitive"):
                    found = eqn
        return found

    # -- rules and call sites ---------------------------------------------

    def rules_of(self, primitive, platforms):
        """The lowering rules registered for `primitive`: its rule for
        each of `platforms` in order (mlir._platform_specific_lowerings),
        then its default rule (mlir._lowerings); mlir.py:959-990."""
        mlir = self.j.mlir
        tables = [mlir._platform_specific_lowerings.get(p, {})
                  for p in platforms or ()] + [mlir._lowerings]
        rules = []
        for table in tables:
            entry = table.get(primitive)
            if entry is None:
                continue
            rule = getattr(entry, "rule", entry)
            if rule not in rules:
                rules.append(rule)
        return rules

    def rule_place(self, primitive, platforms, codes=()):
        """{"file", "line", "function"} of the def of the rule of
        `primitive` that ran (its code among `codes`, the frames of the
        raise or look-up), else of its first rule; None without one."""
        found = []
        for rule in self.rules_of(primitive, platforms):
            code = function_code(rule)
            if code is not None:
                found.append(code)
        if not found:
            return None
        code = next((c for c in found if c in codes), found[0])
        return {"file": self.path(code.co_filename),
                "line": def_line(code),
                "function": cut_text(getattr(code, "co_qualname",
                                             code.co_name))}

    def call_site(self, eqn):
        """{"file", "line"} of the innermost user frame of the equation's
        traceback (eqn.source_info.traceback: innermost frame first, read
        as source_info_util.user_frames does, source_info_util.py:173),
        or None."""
        try:
            from jax._src import source_info_util
            traceback = eqn.source_info.traceback
            if traceback is None:
                return None
            codes, lastis = traceback.raw_frames()
            for code, lasti in zip(codes, lastis):
                if self.is_user_file(code.co_filename):
                    frame = source_info_util.raw_frame_to_frame(code, lasti)
                    if frame.start_line and frame.start_line > 0:
                        return {"file": self.path(code.co_filename),
                                "line": int(frame.start_line)}
        except Exception:
            return None
        return None

    # -- answers ----------------------------------------------------------

    @staticmethod
    def nothing():
        """The `user` of an export that did not raise."""
        return {"raise_at": None, "primitive": None, "rule": None,
                "call_site": None}

    def of_raise(self, err, platforms):
        """The `user` of an export that raised `err`: its innermost user
        frame, the primitive being lowered, its rule and call site (the
        exception's chain, __cause__ and __context__, is read too when the
        raise itself holds none).  What cannot be read is null."""
        facts = self.nothing()
        try:
            self.read_raise(facts, err, platforms)
        except Exception:
            pass
        return facts

    def read_raise(self, facts, err, platforms):
        for exc in exception_chain(err):
            frames = traceback_frames(exc)
            if facts["raise_at"] is None:
                facts["raise_at"] = self.innermost_user(frames)
            eqn = self.eqn_of([f for f, _ in frames])
            if eqn is not None and facts["primitive"] is None:
                self.add_primitive(facts, eqn, platforms,
                                   {f.f_code for f, _ in frames})

    def innermost_user(self, frames):
        place = None
        for frame, line in frames:
            if self.is_user_file(frame.f_code.co_filename):
                place = self.frame_place(frame.f_code, line)
        return place

    def add_primitive(self, facts, eqn, platforms, codes):
        primitive = eqn.primitive
        facts["primitive"] = cut_text(str(getattr(primitive, "name",
                                                  primitive)))
        facts["rule"] = self.rule_place(primitive, platforms, codes)
        facts["call_site"] = self.call_site(eqn)

    def census_place(self, frame, platforms):
        """For a look-up made from `frame`: (file, line, extras) when user
        code made it (extras: the census entry's "rule" and "call_site",
        those known), else None (also when it cannot be read: the census
        never changes what JAX does)."""
        try:
            return self.read_census_place(frame, platforms)
        except Exception:
            return None

    def read_census_place(self, frame, platforms):
        found = self.user_frame(frame)
        if found is None:
            return None
        user, line = found
        chain = []
        while frame is not None:
            chain.append(frame)
            frame = frame.f_back
        chain.reverse()
        extras = {}
        eqn = self.eqn_of(chain)
        if eqn is not None:
            rule = self.rule_place(eqn.primitive, platforms,
                                   {f.f_code for f in chain})
            site = self.call_site(eqn)
            if rule is not None:
                extras["rule"] = rule
            if site is not None:
                extras["call_site"] = site
        return self.path(user.f_code.co_filename), line, extras

    def trace_caller(self, frame):
        """(file, line) when `frame`, the caller of a host look-up at trace
        time, is user code itself; else None (JAX's own look-ups while it
        traces a user's function are not the user's)."""
        if frame is not None and self.is_user_file(frame.f_code.co_filename):
            return self.path(frame.f_code.co_filename), frame.f_lineno
        return None


def exception_chain(err):
    chain, seen = [], set()
    while err is not None and id(err) not in seen and len(chain) < MAX_CHAIN:
        seen.add(id(err))
        chain.append(err)
        err = err.__cause__ or err.__context__
    return chain


def traceback_frames(err):
    """(frame, line) of each traceback entry of `err`, innermost last."""
    frames = []
    tb = getattr(err, "__traceback__", None)
    while tb is not None:
        frames.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    return frames


def function_code(rule):
    """The code object of a registered rule: through functools.partial,
    __wrapped__ and a callable object's __call__; None when it has none."""
    for _ in range(8):
        if isinstance(rule, functools.partial):
            rule = rule.func
            continue
        try:
            rule = inspect.unwrap(rule)
        except Exception:
            pass
        code = getattr(rule, "__code__", None)
        if code is not None:
            return code
        call = getattr(type(rule), "__call__", None)
        if call is None or call is rule:
            return None
        rule = getattr(rule, "__func__", call)
    return None


def def_line(code):
    """The line of the `def` of `code` (its first line is its first
    decorator's when it has some)."""
    first = code.co_firstlineno
    for line in range(first, first + DEF_SEARCH):
        text = linecache.getline(code.co_filename, line)
        if not text:
            break
        if DEF_LINE.match(text):
            return line
    return first
