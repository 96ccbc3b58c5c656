#!/usr/bin/env python3
"""lctx program for JAX's own programs: export each for several platforms.

This program speaks version 1 of the lctx process protocol
(conformance/PROTOCOL.md) like jax_adapter.py, but offers one operation,
`export`, negotiated in the handshake (`"extensions": ["export"]` in the
hello).  It holds a catalogue of real JAX programs and, for each request
item, runs

    jax.export.export(jax.jit(f), platforms=P)(*args)

reporting whether the export succeeded (and what the exported module
computes when called on the CPU) or what it raised and from which line of
JAX, with the census of every backend look-up the lowering made
(ModuleContext.get_backend calls and ModuleContext.backend reads) and the
primitives whose lowering rules ran.

The catalogue (`--list` prints it):

    harness/GROUP/NAME  every harness of
                        jax/_src/internal_test_util/test_harnesses.py
    effect/...          host callbacks: debug callback and print,
                        io_callback (ordered, unordered), pure_callback
    custom/...          custom_jvp, custom_vjp (and their grads),
                        custom_partitioning with a sharding rule, a Pallas
                        kernel, a primitive with uncacheable per-platform
                        lowering rules
    control/C_W         cond, switch, while_loop, scan (C) around an
                        effectful or a platform-specific computation (W)
    corpus/STEM         lctx's rule corpus (corpus/rules/STEM.rule) as real
                        primitives named lctx_STEM:NAME

Generated programs (`lctx generate`) come with their text: an item with
`"source"` (the program description of conformance/sweep/PROGRAMS.md, named
gen/...) is built by jax_program.py and exported like a catalogue program;
its result also carries `dispatch`, the per-platform dispatches of its
primitives and which rule ran for which platforms, and, when the item asks
(`"repro": true`), a standalone reproduction script (PROTOCOL.md,
Generated programs).  `--host-devices N` makes the CPU N devices (XLA_FLAGS
--xla_force_host_platform_device_count=N, set before JAX is imported).

    sh tools/setup-jax.sh 0.10.2
    build/jax/venv-0.10.2/bin/python conformance/adapters/jax_export.py --list

Mutants (`--mutate NAME`, repeatable) break JAX on purpose so that each
judgement of the sweep can be seen to fail:

    dispatch-first   lower_per_platform runs the first platform's rule for
                     every platform
    get-backend=PRIM the lowering rules of PRIM first call
                     ctx.module_context.get_backend() (optional=False)
    host-read=PRIM   the lowering rules of PRIM first call jax.devices():
                     a host look-up inside a JAX rule (census "host")
    raise-multi=PRIM the lowering rules of PRIM raise RuntimeError("lctx
                     mutant: PRIM refuses several platforms") when the
                     module has more than one platform
    order-first      jax.export.export raises NotImplementedError when
                     platforms[0] is not the first platform in sorted order

Each applies to generated programs too (dispatch-first patches
lower_per_platform, which dispatches their primitives as well).

When JAX or absl cannot be imported it says so on stderr, answers the
handshake with {"protocol": 1, "error": "..."} and exits with status 3.

Standard library and JAX only.  Nothing here copies JAX's code; the JAX
internals it instruments are cited as file:line of jax 0.10.2.
"""

import ctypes
import ctypes.util
import functools
import gc
import hashlib
import json
import math
import os
import re
import sys
import time
import warnings
import zlib

# The protocol's line reader and the refusal of a JAX that cannot be
# imported are the adapter's (the sibling in this folder, which imports
# nothing of JAX at its top).
from jax_adapter import import_jax_with, read_message
import jax_program

PROTOCOL_VERSION = 1
PROGRAM_NAME = "jax-export"
EXTENSION = "export"
EXIT_CANNOT_RUN = 3
SUGGESTED_INSTALL = "sh tools/setup-jax.sh 0.10.2"

# The platforms an export may name; "oneapi" and "gpu" are added when this
# JAX exports a trivial function for (name, "cpu") (probed at start-up).
BASE_PLATFORMS = ["cpu", "cuda", "rocm", "tpu"]
PROBED_PLATFORMS = ["oneapi", "gpu"]

MAX_ITEMS = 64
MAX_MESSAGE = 2000
MAX_VALUES = 4096
MAX_CENSUS = 200
# The longest answer line this program writes (lctx's limit is 4 MiB).
LINE_BUDGET = 3 << 20
MAX_NAME = 200
# JAX's caches (jit, lowering, compiled calls) grow by about 5 MB per
# program exported and called; lctx restarts a program over 512 MB between
# batches.  Every CLEAR_CACHES_EVERY exports, or sooner when the resident
# memory passes TIDY_ABOVE_MB, the caches are cleared and the freed memory
# handed back to the system (about 280 MB steady over the harnesses).
CLEAR_CACHES_EVERY = 50
TIDY_ABOVE_MB = 400

MUTANTS = ("dispatch-first", "get-backend=PRIM", "host-read=PRIM",
           "raise-multi=PRIM", "order-first")
# Mutants naming a JAX primitive: "OPTION=PRIM".
RULE_MUTANTS = ("get-backend", "host-read", "raise-multi")

# Generated programs: the most dispatches reported per export, the longest
# reproduction (bytes), the highest --host-devices.
MAX_DISPATCH = 200
MAX_DISPATCH_RULES = 8
MAX_REPRO = 200000
MAX_HOST_DEVICES = 1024
# Census location of a generated rule: this file name and the rule's line
# in the program description.
PROGRAM_FILE = "lctx-program"

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "corpus",
                                           "rules"))


def log(message):
    sys.stderr.write("jax_export: %s\n" % message)
    sys.stderr.flush()


class Channel:
    """The protocol's output: the original stdout, kept apart so that
    anything a program prints (jax.debug.print, C libraries) goes to stderr
    instead of corrupting the protocol."""

    def __init__(self):
        sys.stdout.flush()
        fd = os.dup(1)
        os.dup2(2, 1)
        self.out = os.fdopen(fd, "w", encoding="utf-8", newline="\n")
        sys.stdout = sys.stderr

    def send(self, obj):
        self.out.write(json.dumps(obj, ensure_ascii=True,
                                  separators=(",", ":"),
                                  allow_nan=False) + "\n")
        self.out.flush()


def cut(text, limit=MAX_MESSAGE):
    return text if len(text) <= limit else text[:limit]


# ---------------------------------------------------------------------------
# Importing JAX
# ---------------------------------------------------------------------------

class Jax:
    """The JAX modules this program uses."""

    def __init__(self):
        import numpy
        import jax
        import jax.numpy as jnp
        from jax import lax
        from jax._src import config, core
        from jax._src import xla_bridge
        from jax._src.interpreters import mlir
        from jax._src.lib.mlir.dialects import hlo
        # Needs absl-py (not a dependency of jax).
        from jax._src.internal_test_util import test_harnesses
        self.np, self.jax, self.jnp, self.lax = numpy, jax, jnp, lax
        self.config, self.core, self.xb = config, core, xla_bridge
        self.mlir, self.hlo = mlir, hlo
        self.test_harnesses = test_harnesses
        self.version = getattr(jax, "__version__", "unknown")
        try:
            import jaxlib
            self.jaxlib_version = getattr(jaxlib, "__version__", "unknown")
        except Exception:
            self.jaxlib_version = "unknown"
        # The directory holding the `jax` package: file names are reported
        # relative to it ("jax/_src/...").
        self.root = os.path.dirname(os.path.dirname(
            os.path.abspath(jax.__file__)))
        self.package = os.path.join(self.root, "jax") + os.sep


def import_jax():
    """Returns (Jax, None) or (None, why)."""
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    return import_jax_with(
        Jax, "install the pinned JAX with absl-py: %s (pinned and hashed), "
        "then run this program with build/jax/venv-0.10.2/bin/python."
        % SUGGESTED_INSTALL)


def jax_path(j, filename):
    """'jax/...' for a file of the installed jax package, else None."""
    if not filename:
        return None
    path = os.path.abspath(filename)
    if not path.startswith(j.package):
        return None
    return os.path.relpath(path, j.root).replace(os.sep, "/")


def corpus_location(frame):
    """("lctx:corpus/rules/STEM.rule", line of the running action) for the
    frame of a corpus rule (see Corpus)."""
    rule = frame.f_locals.get("rule")
    action = frame.f_locals.get("action")
    line = getattr(action, "line", getattr(rule, "line", 0))
    return "lctx:corpus/rules/%s.rule" % rule.stem, line


# Code objects of lctx's corpus rules (see Corpus): a look-up or a raise in
# one is located at the rule's action in its .rule file, not in JAX.
CORPUS_CODES = set()

# Code objects of the lowering rules of the generated programs being
# exported -> the rule's line in the program description: a look-up or a
# raise in one is located there (file PROGRAM_FILE).
GENERATED_RULES = {}


def raised(j, err):
    """The protocol's description of an exception: class, message and the
    innermost traceback frame inside the jax package (or inside a corpus
    rule: "lctx:corpus/rules/STEM.rule" and the action's line)."""
    where, line = None, 0
    tb = err.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code in CORPUS_CODES:
            where, line = corpus_location(frame)
        elif frame.f_code in GENERATED_RULES:
            where, line = PROGRAM_FILE, GENERATED_RULES[frame.f_code]
        else:
            path = jax_path(j, frame.f_code.co_filename)
            if path is not None:
                where, line = path, tb.tb_lineno
        tb = tb.tb_next
    try:
        message = str(err)
    except Exception as inner:
        message = "<str() raised %s>" % type(inner).__name__
    return {"class": type(err).__name__, "message": cut(message),
            "file": where, "line": line}


# ---------------------------------------------------------------------------
# The census: backend look-ups during a lowering
# ---------------------------------------------------------------------------

class _InstanceSlot:
    """A stand-in for a slot descriptor over an instance's __dict__."""

    def __init__(self, key):
        self.key = key

    def __get__(self, obj, owner=None):
        return obj.__dict__.get(self.key)

    def __set__(self, obj, value):
        obj.__dict__[self.key] = value


class Census:
    """Instruments ModuleContext (jax/_src/interpreters/mlir.py:775-869 in
    0.10.2) without changing what it does:

    - ModuleContext.get_backend is wrapped: the call is recorded, then the
      original runs; what it gave (raise, None, a client) is recorded;
    - ModuleContext.backend (a slot of the dataclass) becomes a property
      over the original slot that records reads.  Reads made by get_backend
      itself and by the dataclass machinery (ModuleContext.replace copies
      every field through dataclasses.replace) are not look-ups by a rule
      and are not recorded;
    - mlir._uncached_lowering (mlir.py:2395, which every lowering rule runs
      under, cached or not) is wrapped to know the primitive being lowered;
    - the host look-ups jax.devices, jax.local_devices, jax.default_backend
      (jax/__init__.py re-exports them from xla_bridge) and
      xla_bridge.get_backend, devices, local_devices, default_backend
      (xla_bridge.py:969-1083) are wrapped: a call made while a lowering
      rule runs, not from get_backend nor from another of them, is recorded
      as `host`;
    - mlir.lower_per_platform (mlir.py:2462) is wrapped to record the
      dispatches of the generated programs' primitives (`dispatch`), and
      their rules (wrapped when a program is built, `wrap_generated`)
      record which ran for which platforms.

    Recording is on only while an export runs (`start`/`stop`)."""

    HOST_LOOKUPS = ("get_backend", "devices", "local_devices",
                    "default_backend")

    def __init__(self, j):
        self.j = j
        self.on = False
        self.entries = []
        self.dropped = 0
        self.reached = set()
        self.stack = []
        self.contexts = []
        self.in_get_backend = 0
        self.in_host = 0
        # Generated primitives being exported: JAX name -> name in the
        # description; their dispatches during the current export.
        self.generated = {}
        self.dispatches = []
        self.dispatch_stack = []
        self.dispatch_dropped = 0
        self._install()

    def _install(self):
        mc = self.j.mlir.ModuleContext
        census = self
        original_get_backend = mc.get_backend
        slot = mc.__dict__.get("backend")
        if not hasattr(slot, "__set__"):
            # Older releases (0.8, 0.9): `backend` is a plain instance
            # attribute of a dataclass without slots; the property below
            # keeps it in the instance's __dict__ under another name.
            slot = _InstanceSlot("_lctx_census_backend")

        def get_backend(self, optional=False):
            if not census.on:
                return original_get_backend(self, optional)
            entry = census.record("get_backend", bool(optional), self,
                                  sys._getframe(1))
            census.in_get_backend += 1
            try:
                client = original_get_backend(self, optional)
            except BaseException:
                census.gave(entry, "raise")
                raise
            finally:
                census.in_get_backend -= 1
            census.gave(entry, "none" if client is None else "client")
            return client

        def read_backend(self):
            client = slot.__get__(self, mc)
            if census.on and not census.in_get_backend:
                caller = sys._getframe(1)
                name = os.path.basename(caller.f_code.co_filename)
                if name != "dataclasses.py" and caller.f_code.co_filename \
                        != "<string>":
                    entry = census.record("backend", None, self, caller)
                    census.gave(entry,
                                "none" if client is None else "client")
            return client

        def write_backend(self, client):
            slot.__set__(self, client)

        get_backend.__wrapped__ = original_get_backend
        mc.get_backend = get_backend
        mc.backend = property(read_backend, write_backend)

        original_uncached = self.j.mlir._uncached_lowering

        def uncached_lowering(primitive, *args, **kwargs):
            name = getattr(primitive, "name", str(primitive))
            if census.on:
                census.reached.add(name)
            # The LoweringRuleContext (6th argument in 0.10.2).
            ctx = next((a for a in args[:6] if hasattr(a, "module_context")),
                       None)
            census.stack.append(name)
            census.contexts.append(getattr(ctx, "module_context", None))
            try:
                return original_uncached(primitive, *args, **kwargs)
            finally:
                census.stack.pop()
                census.contexts.pop()

        self.j.mlir._uncached_lowering = uncached_lowering
        self._install_host()
        self._install_nested_export()
        self._install_dispatch()

    def _install_nested_export(self):
        """An export made while a rule lowers (a generated program's
        `export` statement, or call_exported tracing) is a lowering of its
        own: its machinery's host look-ups (device assignment) are not the
        enclosing rule's.  A None on the stack marks it; the rules it lowers
        push their names above."""
        census = self
        module = self.j.jax.export
        original = module.export

        def export(*args, **kwargs):
            do_export = original(*args, **kwargs)

            @functools.wraps(do_export)
            def nested(*a, **k):
                if not census.on or not census.stack:
                    return do_export(*a, **k)
                census.stack.append(None)
                try:
                    return do_export(*a, **k)
                finally:
                    census.stack.pop()
            return nested

        export.__wrapped__ = original
        module.export = export

    def _install_host(self):
        census = self
        xb, jax = self.j.xb, self.j.jax
        wrapped = {}

        def wrap(original):
            @functools.wraps(original)
            def host_lookup(*args, **kwargs):
                if (not census.on or not census.stack
                        or census.stack[-1] is None
                        or census.in_get_backend or census.in_host):
                    return original(*args, **kwargs)
                entry = census.record("host", None, census.contexts[-1],
                                      sys._getframe(1))
                census.in_host += 1
                try:
                    result = original(*args, **kwargs)
                except BaseException:
                    census.gave(entry, "raise")
                    raise
                finally:
                    census.in_host -= 1
                census.gave(entry, "client")
                return result
            return host_lookup

        for name in self.HOST_LOOKUPS:
            original = getattr(xb, name, None)
            if original is None:
                continue
            wrapped[id(original)] = wrap(original)
            setattr(xb, name, wrapped[id(original)])
        for name in ("devices", "local_devices", "default_backend"):
            original = getattr(jax, name, None)
            if original is None:
                continue
            if id(original) not in wrapped:
                wrapped[id(original)] = wrap(original)
            setattr(jax, name, wrapped[id(original)])

    def _install_dispatch(self):
        census = self
        mlir = self.j.mlir
        original = getattr(mlir, "lower_per_platform", None)
        if original is None:
            return

        def lower_per_platform(ctx, description, *args, **kwargs):
            name = census.generated.get(description)
            if name is None or not census.on:
                return original(ctx, description, *args, **kwargs)
            event = {"primitive": name,
                     "platforms": census.dispatch_platforms(ctx),
                     "rules": []}
            census.add_dispatch(event)
            census.dispatch_stack.append(event)
            try:
                lowered = original(ctx, description, *args, **kwargs)
            finally:
                census.dispatch_stack.pop()
            # Only a dispatch that completed lowered every kept rule; one
            # that raised part-way (a rule's refusal) is not reported.
            event["complete"] = True
            return lowered

        lower_per_platform.__wrapped__ = original
        mlir.lower_per_platform = lower_per_platform

    def dispatch_platforms(self, ctx):
        """The platforms a dispatch covers (mlir._platforms_for_eqn)."""
        try:
            return list(self.j.mlir._platforms_for_eqn(ctx))
        except Exception:
            return self.rule_platforms(ctx)

    @staticmethod
    def rule_platforms(ctx):
        """The platforms a rule lowers for: ctx.platforms when the
        LoweringRuleContext narrows them, else the module's."""
        platforms = getattr(ctx, "platforms", None)
        if not platforms:
            platforms = ctx.module_context.platforms
        return list(platforms)

    def add_dispatch(self, event):
        if len(self.dispatches) >= MAX_DISPATCH:
            self.dispatch_dropped += 1
            return
        self.dispatches.append(event)

    def rule_ran(self, primitive, rule, ctx):
        """A generated rule (`rule`: its platform or "default") of
        `primitive` (the description's name) runs."""
        if not self.on:
            return
        try:
            platforms = self.rule_platforms(ctx)
        except Exception:
            platforms = []
        entry = {"rule": rule, "platforms": platforms}
        top = self.dispatch_stack[-1] if self.dispatch_stack else None
        if top is not None and top["primitive"] == primitive:
            if len(top["rules"]) < MAX_DISPATCH_RULES:
                top["rules"].append(entry)
        else:
            # A rule run outside lower_per_platform (another JAX release).
            self.add_dispatch({"primitive": primitive,
                               "platforms": list(platforms),
                               "rules": [entry], "complete": True})

    def wrap_generated(self, built):
        """Registers a built generated program: its primitives' names, its
        rules' code (census locations) and, in JAX's lowering tables, each
        of its rules wrapped to record when it runs.  Returns what
        `unwrap_generated` needs to forget it."""
        mlir = self.j.mlir
        prims = {}
        for name, prim in built.primitives.items():
            self.generated[prim.name] = name
            prims[prim] = name
        effect_types = [v for v in built.namespace.values()
                        if isinstance(v, type) and v.__name__.startswith(
                            "Effect_")]
        rules = {}
        for prim_name, platform, line, fn in built.rules:
            rules[fn] = (prim_name, platform)
            GENERATED_RULES[fn.__code__] = line
        tables = [mlir._lowerings] + list(
            mlir._platform_specific_lowerings.values())
        for table in tables:
            for prim in list(table):
                if prim not in prims:
                    continue
                entry = table[prim]
                rule = getattr(entry, "rule", entry)
                if rule not in rules:
                    continue
                recorded = self.recording(rule, *rules[rule])
                table[prim] = (type(entry)(recorded, entry.inline)
                               if hasattr(entry, "rule") else recorded)
        return prims, [fn.__code__ for fn in rules], effect_types

    def recording(self, rule, primitive, platform):
        census = self

        def lctx_recorded_rule(ctx, *args, **kwargs):
            census.rule_ran(primitive, platform, ctx)
            return rule(ctx, *args, **kwargs)
        return lctx_recorded_rule

    def unwrap_generated(self, registered):
        """Forgets a generated program: its rules leave JAX's lowering
        tables (its primitives are never bound again)."""
        prims, codes, effect_types = registered
        mlir = self.j.mlir
        for table in [mlir._lowerings] + list(
                mlir._platform_specific_lowerings.values()):
            for prim in prims:
                table.pop(prim, None)
        uncacheable = getattr(mlir, "_uncacheable_primitives", None)
        for prim, name in prims.items():
            if uncacheable is not None:
                uncacheable.discard(prim)
            self.generated.pop(prim.name, None)
        for code in codes:
            GENERATED_RULES.pop(code, None)
        # The program's effect types leave JAX's effect type sets
        # (jax/_src/effects.py:94-130, a set `_effect_types` in each).
        try:
            from jax._src import effects
        except Exception:
            return
        for value in vars(effects).values():
            kinds = getattr(value, "_effect_types", None)
            if isinstance(kinds, set):
                for t in effect_types:
                    kinds.discard(t)

    def start(self):
        self.entries, self.dropped = [], 0
        self.reached = set()
        self.dispatches, self.dispatch_stack = [], []
        self.dispatch_dropped = 0
        self.on = True

    def dispatch(self):
        """The dispatches of the generated primitives during the last
        export: those in which a rule ran (a dispatch that raised before
        any rule ran has none)."""
        return [{k: v for k, v in d.items() if k != "complete"}
                for d in self.dispatches if d["rules"] and d.get("complete")]

    def stop(self):
        self.on = False
        entries = list(self.entries)
        if self.dropped:
            entries.append({"what": "truncated", "optional": None,
                            "gave": None, "file": None, "line": 0,
                            "primitive": None, "platforms": 0,
                            "dropped": self.dropped})
        return entries, sorted(self.reached)

    def record(self, what, optional, module_context, frame):
        """A census entry for a look-up made from `frame` (None once the
        census is full)."""
        if len(self.entries) >= MAX_CENSUS:
            self.dropped += 1
            return None
        where, line = self.locate(frame)
        try:
            platforms = len(module_context.platforms)
        except Exception:
            platforms = 0
        entry = {"what": what, "optional": optional, "gave": None,
                 "file": where, "line": line,
                 "primitive": self.stack[-1] if self.stack else None,
                 "platforms": platforms}
        self.entries.append(entry)
        return entry

    @staticmethod
    def gave(entry, what):
        if entry is not None:
            entry["gave"] = what

    def locate(self, frame):
        """The caller: the innermost frame that is a corpus rule
        ("lctx:corpus/rules/STEM.rule" and the action's line there), a
        generated program's rule ("lctx-program" and the rule's line in the
        description) or lies in the jax package (not
        ModuleContext.get_backend itself)."""
        while frame is not None:
            code = frame.f_code
            if code in CORPUS_CODES:
                return corpus_location(frame)
            if code in GENERATED_RULES:
                return PROGRAM_FILE, GENERATED_RULES[code]
            path = jax_path(self.j, code.co_filename)
            if path is not None and not (
                    code.co_name == "get_backend"
                    and path.endswith("interpreters/mlir.py")):
                return path, frame.f_lineno
            frame = frame.f_back
        return None, 0


# ---------------------------------------------------------------------------
# lctx's rule corpus as real primitives
# ---------------------------------------------------------------------------

class RuleSyntaxError(Exception):
    pass


class Action:
    def __init__(self, kind, line, optional=False, message=None,
                 primitive=None, compute_type=None):
        self.kind, self.line = kind, line
        self.optional, self.message = optional, message
        self.primitive, self.compute_type = primitive, compute_type


class RuleSpec:
    def __init__(self, stem, name, line, index, primitive):
        self.stem, self.name, self.line = stem, name, line
        self.index, self.primitive = index, primitive
        self.registrations = []  # platform names, None for default
        self.actions = []


def tokenize(text, lineno):
    """The words and strings of one line (comments dropped): a list of
    (kind, value), kind 'word', 'string' or ','/'='."""
    tokens, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r":
            i += 1
        elif c == "#":
            break
        elif c in ",=":
            tokens.append((c, c))
            i += 1
        elif c == '"':
            i += 1
            out = []
            while True:
                if i >= n:
                    raise RuleSyntaxError("line %d: unterminated string"
                                          % lineno)
                c = text[i]
                if c == '"':
                    i += 1
                    break
                if c == "\\" and i + 1 < n:
                    out.append({"n": "\n", "t": "\t"}.get(text[i + 1],
                                                           text[i + 1]))
                    i += 2
                    continue
                out.append(c)
                i += 1
            tokens.append(("string", "".join(out)))
        else:
            j = i
            while j < n and text[j] not in " \t\r#,=\"":
                j += 1
            tokens.append(("word", text[i:j]))
            i = j
    return tokens


def parse_actions(tokens, lineno):
    """Actions of an indented line (several may be separated by commas)."""
    actions, groups, current = [], [], []
    for tok in tokens:
        if tok[0] == ",":
            groups.append(current)
            current = []
        else:
            current.append(tok)
    groups.append(current)
    for group in groups:
        if not group:
            continue
        kind = group[0][1]
        if group[0][0] != "word":
            raise RuleSyntaxError("line %d: an action name expected" % lineno)
        args = group[1:]
        keywords, positional, k = {}, [], 0
        while k < len(args):
            if k + 2 < len(args) and args[k + 1][0] == "=":
                keywords[args[k][1]] = args[k + 2]
                k += 3
            elif (args[k][0] == "word" and k + 1 < len(args)
                  and args[k + 1][0] == "string"):
                keywords[args[k][1]] = args[k + 1]  # compute_type "T"
                k += 2
            else:
                positional.append(args[k])
                k += 1
        action = Action(kind, lineno)
        if kind in ("get_backend", "guarded_get_backend"):
            value = keywords.get("optional", ("word", "false"))[1]
            if value not in ("true", "false"):
                raise RuleSyntaxError("line %d: optional=%s" % (lineno, value))
            action.optional = value == "true"
        elif kind == "raise_if_multi":
            if not positional or positional[0][0] != "string":
                raise RuleSyntaxError("line %d: raise_if_multi needs a "
                                      "message" % lineno)
            action.message = positional[0][1]
        elif kind == "lower_fun":
            if not positional or positional[0][0] != "string":
                raise RuleSyntaxError("line %d: lower_fun needs a primitive"
                                      % lineno)
            action.primitive = positional[0][1]
            if "compute_type" in keywords:
                action.compute_type = keywords["compute_type"][1]
        elif kind not in ("try_fallback_get_backend", "read_client_platform",
                          "marker"):
            raise RuleSyntaxError("line %d: unknown action %r"
                                  % (lineno, kind))
        actions.append(action)
    return actions


def parse_rule_file(path):
    """(primitive names in order, [RuleSpec]) of one .rule file."""
    stem = os.path.splitext(os.path.basename(path))[0]
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    primitives, rules, current_prim, current_rule = [], [], None, None
    for lineno, text in enumerate(lines, 1):
        tokens = tokenize(text, lineno)
        if not tokens:
            continue
        if text[:1] in (" ", "\t"):
            if current_rule is None:
                raise RuleSyntaxError("line %d: an action outside a rule"
                                      % lineno)
            current_rule.actions.extend(parse_actions(tokens, lineno))
            continue
        word = tokens[0][1]
        if word in ("rule-file", "source", "expect"):
            continue
        if word in ("primitive", "subprimitive"):
            if len(tokens) != 2 or tokens[1][0] != "string":
                raise RuleSyntaxError("line %d: %s \"NAME\"" % (lineno, word))
            current_prim = tokens[1][1]
            primitives.append(current_prim)
            current_rule = None
        elif word == "rule":
            if current_prim is None or len(tokens) < 2:
                raise RuleSyntaxError("line %d: a rule before any primitive"
                                      % lineno)
            current_rule = RuleSpec(stem, tokens[1][1], lineno, len(rules),
                                    current_prim)
            k = 2
            while k < len(tokens):
                if tokens[k][1] == "default":
                    current_rule.registrations.append(None)
                    k += 1
                elif (tokens[k][1] == "platform" and k + 1 < len(tokens)
                      and tokens[k + 1][0] == "string"):
                    current_rule.registrations.append(tokens[k + 1][1])
                    k += 2
                else:
                    raise RuleSyntaxError("line %d: bad registration %r"
                                          % (lineno, tokens[k][1]))
            rules.append(current_rule)
        else:
            raise RuleSyntaxError("line %d: unknown directive %r"
                                  % (lineno, word))
    if not primitives:
        raise RuleSyntaxError("no primitive")
    return primitives, rules


class Corpus:
    """corpus/rules/*.rule as real JAX primitives.

    Each `primitive`/`subprimitive` NAME of STEM.rule becomes a primitive
    `lctx_STEM:NAME` on one f32 array (identity shape and dtype, identity
    impl); each `rule` line becomes one Python lowering rule registered with
    mlir.register_lowering for each of its registrations ("default" is
    platform None).  The rule performs its actions in order, as the table of
    corpus/rules/README.md says; `marker` emits hlo.add of the operand and
    the constant (rule's position in the file + 1), so that which rule ran
    shows in the values; `lower_fun "Q"` lowers, through mlir.lower_fun, a
    function binding Q to the current value.  Census entries made by these
    rules name the .rule file and the action's line there."""

    def __init__(self, j, census):
        self.j, self.census = j, census
        self.programs = {}   # stem -> primitive to bind
        self.primitives = {}  # (stem, NAME) -> Primitive
        CORPUS_CODES.add(self._rule_code())

    def _rule_code(self):
        return self.make_rule(None).__code__

    def load(self, directory):
        if not os.path.isdir(directory):
            log("no rule corpus at %s: no corpus programs" % directory)
            return
        for filename in sorted(os.listdir(directory)):
            if not filename.endswith(".rule"):
                continue
            stem = filename[:-len(".rule")]
            try:
                self.load_file(os.path.join(directory, filename), stem)
            except Exception as err:
                log("corpus/rules/%s skipped: %s: %s"
                    % (filename, type(err).__name__, err))

    def load_file(self, path, stem):
        names, rules = parse_rule_file(path)
        prims = {}
        for name in names:
            prims[name] = self.make_primitive("lctx_%s:%s" % (stem, name))
        for rule in rules:
            for action in rule.actions:
                if (action.kind == "lower_fun"
                        and action.primitive not in prims):
                    raise RuleSyntaxError("line %d: lower_fun of undeclared "
                                          "%r" % (action.line,
                                                  action.primitive))
                if action.kind == "lower_fun" and action.compute_type:
                    raise RuleSyntaxError("line %d: compute_type is not "
                                          "expressed" % action.line)
        # Validate every registration before registering any.
        for rule in rules:
            for platform in rule.registrations:
                if platform is not None and not self.j.xb.is_known_platform(
                        platform):
                    raise RuleSyntaxError("line %d: unknown platform %r"
                                          % (rule.line, platform))
        for rule in rules:
            fn = self.make_rule(rule, prims)
            for platform in rule.registrations:
                self.j.mlir.register_lowering(prims[rule.primitive], fn,
                                              platform=platform)
        self.programs[stem] = prims[names[0]]
        for name, prim in prims.items():
            self.primitives[(stem, name)] = prim

    def make_primitive(self, name):
        j = self.j
        prim = j.core.Primitive(name)
        prim.def_impl(lambda x: x)
        prim.def_abstract_eval(
            lambda x: j.core.ShapedArray(x.shape, x.dtype))
        return prim

    def make_rule(self, rule, prims=None):
        """The lowering rule running `rule`'s actions (None: a template,
        for its code object)."""
        run = self.run_action

        def lctx_corpus_rule(ctx, x):
            value = x
            for action in rule.actions:
                value = run(ctx, value, rule, action, prims)
            return [value]

        lctx_corpus_rule.__name__ = "lctx_rule_%s" % (
            "template" if rule is None else re.sub(r"\W", "_", rule.name))
        return lctx_corpus_rule

    def run_action(self, ctx, value, rule, action, prims):
        j = self.j
        mc = ctx.module_context
        kind = action.kind
        if kind == "get_backend":
            mc.get_backend(action.optional)
        elif kind == "guarded_get_backend":
            if len(mc.platforms) <= 1:
                mc.get_backend(action.optional)
        elif kind == "try_fallback_get_backend":
            try:
                mc.get_backend()
            except NotImplementedError:
                mc.get_backend(optional=True)
        elif kind == "raise_if_multi":
            if len(mc.platforms) > 1:
                raise NotImplementedError(action.message)
        elif kind == "read_client_platform":
            client = mc.get_backend(optional=True)
            if client is not None:
                client.platform
        elif kind == "lower_fun":
            sub = prims[action.primitive]
            lowered = j.mlir.lower_fun(lambda y: sub.bind(y),
                                       multiple_results=False)
            value = lowered(ctx.replace(), value)
            if isinstance(value, (list, tuple)):
                value = value[0]
        elif kind == "marker":
            aval = ctx.avals_in[0]
            constant = j.mlir.ir_constant(
                j.np.full(aval.shape, float(rule.index + 1),
                          dtype=aval.dtype))
            value = j.hlo.add(value, constant)
        return value


# ---------------------------------------------------------------------------
# The catalogue
# ---------------------------------------------------------------------------

class Program:
    """One catalogue entry.  `build()` makes (function, args, x64) only when
    the program is exported: x64 is True when the program needs
    jax_enable_x64."""

    def __init__(self, name, group, kind, size, build):
        self.name, self.group, self.kind, self.size = name, group, kind, size
        self.build = build

    def describe(self):
        return {"name": self.name, "group": self.group, "kind": self.kind,
                "size": self.size}


SAFE_NAME = re.compile(r"[^\x20-\x7e]")


def clean_name(name):
    """ASCII printable, at most MAX_NAME bytes (a long name keeps a crc of
    the whole so that it stays unique)."""
    name = SAFE_NAME.sub("_", name)
    if len(name) > MAX_NAME:
        tail = "~%08x" % (zlib.crc32(name.encode()) & 0xffffffff)
        name = name[:MAX_NAME - len(tail)] + tail
    return name


WIDE_DTYPES = ("float64", "int64", "uint64", "complex128")


def needs_x64(j, harness):
    """Does the harness use a 64-bit dtype (its dtype, a RandArg's, a
    literal array's)?  Those run under jax_enable_x64."""
    np = j.np
    th = j.test_harnesses
    dtypes = [harness.dtype]
    for ad in harness.arg_descriptors:
        if isinstance(ad, th.RandArg):
            dtypes.append(ad.dtype)
        elif isinstance(ad, th.StaticArg):
            continue
        elif isinstance(ad, np.ndarray):
            dtypes.append(ad.dtype)
    for dt in dtypes:
        try:
            if dt is not None and np.dtype(dt).name in WIDE_DTYPES:
                return True
        except Exception:
            pass
    return False


def harness_size(j, harness):
    """Total elements of the harness's dynamic arguments (1 per custom
    argument: cheap, no argument is made)."""
    np = j.np
    th = j.test_harnesses
    total = 0
    for ad in harness.arg_descriptors:
        if isinstance(ad, th.StaticArg):
            continue
        if isinstance(ad, th.RandArg):
            total += int(np.prod(ad.shape, dtype=np.int64))
        elif isinstance(ad, np.ndarray):
            total += int(ad.size)
        else:
            total += 1
    return total


def harness_programs(j):
    programs = []
    for harness in j.test_harnesses.all_harnesses:
        def build(harness=harness):
            seed = zlib.crc32(harness.fullname.encode()) & 0x7fffffff
            rng = j.np.random.RandomState(seed)
            x64 = needs_x64(j, harness)
            with j.config.enable_x64(x64):
                args = harness.dyn_args_maker(rng)
            return harness.dyn_fun, list(args), x64
        group = clean_name(str(harness.group_name))
        name = "harness/%s/%s" % (group, harness.name)
        programs.append(Program(name, group, "harness",
                                harness_size(j, harness), build))
    return programs


def f32(j, n=4):
    return j.np.linspace(0.5, 2.0, n, dtype=j.np.float32)


def effect_programs(j):
    jax, jnp, np = j.jax, j.jnp, j.np
    from jax.experimental import io_callback

    def host(x):
        return np.asarray(x) * np.float32(2)

    def debug_callback(x):
        jax.debug.callback(lambda v: None, x)
        return x * 2

    def debug_print(x):
        jax.debug.print("lctx debug_print {}", x)
        return x * 2

    def io_ordered(x):
        return io_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                           ordered=True)

    def io_unordered(x):
        return io_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                           ordered=False)

    def pure(x):
        return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype),
                                 x) + jnp.float32(1)

    table = [("debug_callback", debug_callback), ("debug_print", debug_print),
             ("io_callback_ordered", io_ordered),
             ("io_callback_unordered", io_unordered),
             ("pure_callback", pure)]
    return [Program("effect/" + name, "effect", "effect", 4,
                    lambda fn=fn: (fn, [f32(j)], False))
            for name, fn in table]


def custom_programs(j):
    jax, jnp = j.jax, j.jnp

    @jax.custom_jvp
    def cj(x):
        return jnp.sin(x) * 2

    @cj.defjvp
    def cj_jvp(primals, tangents):
        x, = primals
        t, = tangents
        return cj(x), jnp.cos(x) * 3 * t

    @jax.custom_vjp
    def cv(x):
        return jnp.sin(x) * 2

    def cv_fwd(x):
        return cv(x), jnp.cos(x)

    def cv_bwd(res, g):
        return (res * 5 * g,)

    cv.defvjp(cv_fwd, cv_bwd)

    def grad_of(fn):
        return jax.grad(lambda x: jnp.sum(fn(x)))

    programs = [
        Program("custom/custom_jvp", "custom", "custom", 4,
                lambda: (cj, [f32(j)], False)),
        Program("custom/custom_jvp_grad", "custom", "custom", 4,
                lambda: (grad_of(cj), [f32(j)], False)),
        Program("custom/custom_vjp", "custom", "custom", 4,
                lambda: (cv, [f32(j)], False)),
        Program("custom/custom_vjp_grad", "custom", "custom", 4,
                lambda: (grad_of(cv), [f32(j)], False)),
        Program("custom/custom_partitioning", "custom", "custom", 8,
                lambda: build_custom_partitioning(j)),
        Program("custom/pallas_call", "custom", "custom", 1024,
                lambda: build_pallas_call(j)),
    ]
    prim = uncacheable_primitive(j)
    programs.append(Program(
        "custom/uncacheable_per_platform", "custom", "custom", 4,
        lambda: ((lambda x: prim.bind(x)), [f32(j)], False)))
    return programs


def uncacheable_primitive(j):
    """A user primitive lowered with mlir.register_lowering(...,
    cacheable=False) and its own rule for cpu (x + 1), for tpu (x + 2) and
    for the other platforms (x + 3): as debug_callback is
    (jax/_src/debugging.py:219-228 in 0.10.2), minus the host callback, so
    that each platform alone exports."""
    np, mlir, hlo = j.np, j.mlir, j.hlo
    prim = j.core.Primitive("lctx_uncacheable_per_platform")
    prim.def_impl(lambda x: x)
    prim.def_abstract_eval(lambda x: j.core.ShapedArray(x.shape, x.dtype))

    def adding(value):
        def rule(ctx, x):
            aval = ctx.avals_in[0]
            constant = mlir.ir_constant(np.full(aval.shape, value,
                                                dtype=aval.dtype))
            return [hlo.add(x, constant)]
        return rule

    mlir.register_lowering(prim, adding(1.0), platform="cpu",
                           cacheable=False)
    mlir.register_lowering(prim, adding(2.0), platform="tpu",
                           cacheable=False)
    mlir.register_lowering(prim, adding(3.0), cacheable=False)
    return prim


def build_custom_partitioning(j):
    """A custom_partitioning op (x * 2 + 1) with a partition rule and a
    Shardy sharding rule, under jit on the one default device.

    With one device the lowering rule lowers the op's body through
    mlir.lower_fun (jax/_src/custom_partitioning.py:597-599 in 0.10.2).
    With a mesh of several devices it would register a partitioner callback
    kept alive by the executable, and export refuses every such program
    ("serialization of host_callbacks is not yet implemented",
    jax/_src/export/_export.py:1101-1102), whatever the platforms: the
    partitioner's read of ModuleContext.backend
    (jax/_src/custom_partitioning.py:199) is not reachable through export."""
    jax = j.jax
    from jax.experimental.custom_partitioning import custom_partitioning

    @custom_partitioning
    def op(x):
        return x * 2 + 1

    def infer(mesh, arg_shapes, result_shape):
        return arg_shapes[0].sharding

    def partition(mesh, arg_shapes, result_shape):
        sharding = arg_shapes[0].sharding

        def lower(x):
            return x * 2 + 1
        return mesh, lower, sharding, (sharding,)

    op.def_partition(partition=partition,
                     infer_sharding_from_operands=infer,
                     sharding_rule="i j -> i j")
    x = j.np.arange(8, dtype=j.np.float32).reshape(4, 2)
    return op, [x], False


def build_pallas_call(j):
    """A Pallas kernel (x * 2 + 1) without interpret mode: per-platform
    lowering rules (jax/_src/pallas/pallas_call.py:840-992 in 0.10.2);
    Mosaic for tpu reads the module's backend (mlir.py:940 via
    is_forward_compat, and get_backend(optional=True)); the CPU refuses it
    ("Only interpret mode is supported on CPU backend")."""
    jax = j.jax
    from jax.experimental import pallas as pl

    def kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...] * 2 + 1

    def fn(x):
        return pl.pallas_call(
            kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
    return fn, [j.np.ones((8, 128), dtype=j.np.float32)], False


def control_programs(j):
    jax, jnp, lax, np = j.jax, j.jnp, j.lax, j.np
    from jax.experimental import io_callback

    def host(x):
        return np.asarray(x) + np.float32(1)

    def debug_callback(x):
        jax.debug.callback(lambda v: None, x)
        return x * 2

    def io(x):
        return io_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                           ordered=True)

    def platform_dependent(x):
        return lax.platform_dependent(
            x, cpu=lambda v: v + 1, tpu=lambda v: v + 2,
            cuda=lambda v: v + 3, default=lambda v: v + 4)

    def cholesky(x):
        # x is a vector of 4: a 2x2 SPD matrix from it, back to 4.
        a = x.reshape(2, 2)
        spd = a @ a.T + 4 * jnp.eye(2, dtype=x.dtype)
        return jnp.linalg.cholesky(spd).reshape(4)

    whats = [("debug_callback", debug_callback), ("io_callback", io),
             ("platform_dependent", platform_dependent),
             ("cholesky", cholesky)]

    def cond(body):
        return lambda x: lax.cond(x[0] > 0, body, lambda v: v - 1, x)

    def switch(body):
        return lambda x: lax.switch(
            jnp.int32(x[0] > 0), [lambda v: v - 1, body], x)

    def while_loop(body):
        def fn(x):
            def step(c):
                i, v = c
                return i + 1, body(v)
            return lax.while_loop(lambda c: c[0] < 2, step,
                                  (jnp.int32(0), x))[1]
        return fn

    def scan(body):
        def fn(x):
            def step(c, _):
                c = body(c)
                return c, c[0]
            return lax.scan(step, x, None, length=2)
        return fn

    constructs = [("cond", cond), ("switch", switch),
                  ("while_loop", while_loop), ("scan", scan)]
    programs = []
    for cname, construct in constructs:
        for wname, body in whats:
            programs.append(Program(
                "control/%s_%s" % (cname, wname), "control", "control", 4,
                lambda c=construct, b=body: (c(b), [f32(j)], False)))
    return programs


def corpus_programs(j, corpus):
    programs = []
    for stem, prim in sorted(corpus.programs.items()):
        programs.append(Program(
            "corpus/" + stem, "corpus", "corpus", 4,
            lambda p=prim: ((lambda x: p.bind(x)), [f32(j)], False)))
    return programs


def make_catalogue(j, corpus):
    """Every program, sorted by name, names unique."""
    programs = (harness_programs(j) + effect_programs(j)
                + custom_programs(j) + control_programs(j)
                + corpus_programs(j, corpus))
    from jax_catalogue_extra import extra_programs
    programs += extra_programs(j)
    seen, out = {}, []
    for p in programs:
        name = clean_name(p.name)
        if name in seen:
            seen[name] += 1
            name = clean_name("%s~%d" % (name, seen[name]))
        seen.setdefault(name, 1)
        p.name = name
        out.append(p)
    out.sort(key=lambda p: p.name)
    return out


# ---------------------------------------------------------------------------
# Mutants
# ---------------------------------------------------------------------------

def mutate(j, names):
    """Applies the mutants (after every rule is registered)."""
    for name in names:
        if name == "dispatch-first":
            mutate_dispatch_first(j)
        elif name == "order-first":
            mutate_order_first(j)
        elif name.startswith("get-backend="):
            mutate_get_backend(j, name[len("get-backend="):])
        elif name.startswith("host-read="):
            mutate_rules(j, "host-read", name[len("host-read="):],
                         lambda rule, prim: wrap_host_read(j, rule))
        elif name.startswith("raise-multi="):
            mutate_rules(j, "raise-multi", name[len("raise-multi="):],
                         wrap_raise_multi)


def mutate_dispatch_first(j):
    """lower_per_platform (mlir.py:2462) runs the first platform's rule for
    every platform."""
    mlir = j.mlir
    original = mlir.lower_per_platform

    def lower_per_platform(ctx, description, platform_rules, default_rule,
                           effects, *args, **kwargs):
        platforms = mlir._platforms_for_eqn(ctx)
        if platforms:
            first = platform_rules.get(platforms[0], default_rule)
            if first is not None:
                platform_rules, default_rule = {}, first
        return original(ctx, description, platform_rules, default_rule,
                        effects, *args, **kwargs)

    mlir.lower_per_platform = lower_per_platform


def mutate_order_first(j):
    """jax.export.export raises when platforms[0] is not the first in
    sorted order: an outcome that depends on the order."""
    export_module = j.jax.export
    original = export_module.export

    def export(fun_jit, *args, platforms=None, **kwargs):
        inner = original(fun_jit, *args, platforms=platforms, **kwargs)

        def do_export(*a, **k):
            if platforms and list(platforms)[0] != sorted(platforms)[0]:
                raise NotImplementedError("lctx mutant: order")
            return inner(*a, **k)
        return do_export

    export_module.export = export


def mutate_get_backend(j, prim_name):
    """The lowering rules of the primitive named prim_name (common and
    per-platform) first call ctx.module_context.get_backend(), as a rule
    not adapted to multi-platform lowering does."""
    mutate_rules(j, "get-backend", prim_name,
                 lambda rule, prim: wrap_get_backend(rule))


def mutate_rules(j, option, prim_name, wrap):
    """Replaces each lowering rule (common and per-platform) of the
    primitive named prim_name by wrap(rule, prim_name).  The wrappers live
    here, outside the jax package: the census locates what they do at the
    first jax frame outside them, the line of lower_per_platform that
    calls the rule (mlir.py:2536 in 0.10.2)."""
    mlir = j.mlir
    tables = [mlir._lowerings] + list(mlir._platform_specific_lowerings
                                      .values())
    count = 0
    for table in tables:
        for prim, entry in list(table.items()):
            if prim.name != prim_name:
                continue
            table[prim] = type(entry)(wrap(entry.rule, prim_name),
                                      entry.inline)
            count += 1
    if not count:
        log("--mutate %s=%s: no lowering rule for a primitive of that name"
            % (option, prim_name))


def wrap_get_backend(rule):
    def unadapted_rule(ctx, *args, **kwargs):
        ctx.module_context.get_backend()
        return rule(ctx, *args, **kwargs)
    return unadapted_rule


def wrap_host_read(j, rule):
    """The rule first asks the host for its devices (jax.devices(), looked
    up when it runs: the census's wrapper records it as `host`), whatever
    the platforms being lowered for."""
    def host_reading_rule(ctx, *args, **kwargs):
        j.jax.devices()
        return rule(ctx, *args, **kwargs)
    return host_reading_rule


def wrap_raise_multi(rule, prim_name):
    """The rule refuses a module of several platforms with an exception
    JAX does not document for that (RuntimeError)."""
    message = "lctx mutant: %s refuses several platforms" % prim_name

    def multi_refusing_rule(ctx, *args, **kwargs):
        if len(ctx.module_context.platforms) > 1:
            raise RuntimeError(message)
        return rule(ctx, *args, **kwargs)
    return multi_refusing_rule


# ---------------------------------------------------------------------------
# Exporting
# ---------------------------------------------------------------------------

def is_key(j, x):
    try:
        return j.jax.dtypes.issubdtype(x.dtype, j.jax.dtypes.prng_key)
    except Exception:
        return False


def output_arrays(j, outputs):
    """(dtype name, numpy array) of each output, flattened as a pytree."""
    np = j.np
    out = []
    for leaf in j.jax.tree_util.tree_leaves(outputs):
        if is_key(j, leaf):
            name = str(leaf.dtype)
            arr = np.asarray(j.jax.random.key_data(leaf))
        else:
            arr = np.asarray(leaf)
            name = arr.dtype.name
        out.append((name, np.ascontiguousarray(arr)))
    return out


def json_value(x, kind):
    if kind == "c":
        return [json_float(x.real), json_float(x.imag)]
    if kind == "b":
        return 1 if x else 0
    if kind in "iu":
        return int(x)
    return json_float(x)


def json_float(x):
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def describe_run(j, outputs):
    np = j.np
    arrays = output_arrays(j, outputs)
    digest = hashlib.sha256()
    for name, arr in arrays:
        digest.update(name.encode() + b"\0")
        digest.update(",".join(str(d) for d in arr.shape).encode() + b"\0")
        digest.update(arr.tobytes())
    total = sum(arr.size for _, arr in arrays)
    values = None
    if total <= MAX_VALUES:
        values = []
        for name, arr in arrays:
            kind = arr.dtype.kind
            flat = arr.reshape(-1)
            if kind == "V" and re.match(r"u?int\d+$", arr.dtype.name):
                # ml_dtypes' int2, int4, uint4...
                flat = flat.astype(np.int64)
                kind = "i"
            elif kind not in "biuc":
                # float, and ml_dtypes' floats (bfloat16, float8_*: kind V)
                flat = flat.astype(np.float64)
                kind = "f"
            values.append([json_value(v, kind) for v in flat.tolist()]
                          if kind != "c" else
                          [json_value(v, kind) for v in flat])
    return {"digest": digest.hexdigest(),
            "dtypes": [name for name, _ in arrays],
            "shapes": [list(arr.shape) for _, arr in arrays],
            "values": values}


def resident_mb():
    """This process's resident memory in MB (0 where /proc is missing)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2.0 ** 20
    except Exception:
        return 0


_LIBC = []


def trim_heap():
    """glibc's malloc_trim(0): hand free heap pages back to the system."""
    if not _LIBC:
        try:
            name = ctypes.util.find_library("c")
            libc = ctypes.CDLL(name) if name else None
            _LIBC.append(getattr(libc, "malloc_trim", None))
        except Exception:
            _LIBC.append(None)
    if _LIBC[0] is not None:
        try:
            _LIBC[0](0)
        except Exception:
            pass


class Exporter:
    def __init__(self, j, catalogue, census):
        self.j, self.census = j, census
        self.programs = {p.name: p for p in catalogue}
        self.count = 0
        # Generated programs built for the current request:
        # (text, platforms) -> Built or an error result.
        self.builds = {}
        self.registered = []

    def run_item(self, item):
        if not isinstance(item, dict):
            return {"error": "an export item is an object"}
        name = item.get("program")
        platforms = item.get("platforms")
        source = item.get("source")
        if source is not None:
            if not isinstance(source, str):
                return {"error": "source is the text of a program"}
            if not isinstance(name, str) or not name.startswith("gen/"):
                return {"error": "a program with a source is named gen/..., "
                        "not %r" % (name,)}
        elif not isinstance(name, str) or name not in self.programs:
            return {"error": "unknown program %r" % (name,)}
        if (not isinstance(platforms, list)
                or not all(isinstance(p, str) for p in platforms)):
            return {"error": "platforms is a list of names"}
        self.count += 1
        if (self.count % CLEAR_CACHES_EVERY == 0
                or resident_mb() > TIDY_ABOVE_MB):
            self.tidy()
        start = time.monotonic()
        try:
            if source is None:
                result = self.export(self.programs[name], platforms)
            else:
                result = self.export_generated(source, platforms,
                                               item.get("repro") is True)
        except Exception as err:
            self.census.on = False
            return {"error": "%s: %s: %s" % (name, type(err).__name__,
                                             cut(str(err), 500))}
        if "error" in result:
            return result
        result["seconds"] = round(time.monotonic() - start, 4)
        return result

    def build_generated(self, text, platforms):
        """The program `text` built for `platforms` (once per request), or
        an error result."""
        key = (text, tuple(platforms))
        if key in self.builds:
            return self.builds[key]
        try:
            built = jax_program.build(text, platforms)
        except jax_program.ProgramError as err:
            built = {"error": "program: %d: %s" % (err.line,
                                                   cut(err.why, 500))}
        except Exception as err:
            built = {"error": "program build: %s: %s"
                     % (type(err).__name__, cut(str(err), 500))}
        else:
            self.registered.append(self.census.wrap_generated(built))
        self.builds[key] = built
        return built

    def export_generated(self, text, platforms, repro):
        built = self.build_generated(text, platforms)
        if isinstance(built, dict):
            return dict(built)
        fn, args, x64 = built
        result = self.export_function(fn, [built.spec], args, x64,
                                      platforms)
        result["dispatch"] = self.census.dispatch()
        if self.census.dispatch_dropped:
            result["dispatch_dropped"] = self.census.dispatch_dropped
        if repro:
            script = jax_program.repro_source(text, platforms)
            if len(script.encode("utf-8")) <= MAX_REPRO:
                result["repro"] = script
            else:
                result["repro"] = None
                result["repro_error"] = (
                    "the reproduction is %d bytes (over %d)"
                    % (len(script.encode("utf-8")), MAX_REPRO))
        return result

    def end_request(self):
        """Forgets the generated programs built for the request."""
        for registered in self.registered:
            try:
                self.census.unwrap_generated(registered)
            except Exception as err:
                log("forgetting a generated program: %s" % err)
        self.registered, self.builds = [], {}

    def tidy(self):
        """Clears JAX's caches and gives the freed memory back."""
        try:
            self.j.jax.clear_caches()
        except Exception as err:
            log("clear_caches: %s" % err)
        gc.collect()
        trim_heap()

    def export(self, program, platforms):
        fn, args, x64 = program.build()
        return self.export_function(fn, args, args, x64, platforms)

    def export_function(self, fn, specs, args, x64, platforms):
        """Exports jit(fn) traced with `specs` for `platforms`; calls it
        with `args` on the CPU when cpu is among them."""
        j = self.j

        def fresh(*a):
            # A new function each time: JAX caches traces and lowerings by
            # function, and a cached lowering runs no rule (empty census).
            return fn(*a)
        with j.config.enable_x64(x64):
            self.census.start()
            try:
                exported = j.jax.export.export(
                    j.jax.jit(fresh), platforms=tuple(platforms))(*specs)
            except Exception as err:
                census, reached = self.census.stop()
                result = {"outcome": "raise"}
                result.update(raised(j, err))
                result.update({"primitives": reached, "census": census})
                return result
            census, reached = self.census.stop()
            result = {"outcome": "ok",
                      "module_platforms": list(exported.platforms),
                      "primitives": reached, "census": census}
            if "cpu" not in platforms:
                result["run"] = None
                return result
            try:
                outputs = exported.call(*args)
                result["run"] = describe_run(j, outputs)
            except Exception as err:
                result["run"] = None
                result["run_error"] = raised(j, err)
            return result


# ---------------------------------------------------------------------------
# Start-up and the protocol
# ---------------------------------------------------------------------------

def probe_platforms(j):
    """The platforms this JAX exports for.  jax 0.10.2 exports a trivial
    function for ("oneapi", "cpu") (any name is accepted by export; the
    trivial module reaches no rule), and refuses ("gpu", "cpu") with
    RuntimeError "Unknown backend: 'gpu' requested, but no platforms that
    are instances of gpu are present" (jax/_src/xla_bridge.py)."""
    platforms = list(BASE_PLATFORMS)
    for name in PROBED_PLATFORMS:
        try:
            j.jax.export.export(j.jax.jit(lambda x: x + 1),
                                platforms=(name, "cpu"))(j.np.float32(1))
            platforms.append(name)
        except Exception as err:
            log("platform %s not offered: %s: %s"
                % (name, type(err).__name__, cut(str(err), 200)))
    return platforms


def lowering_primitives(j):
    """JAX's own primitives with lowering rules: the catalogue's primitives
    (lctx's rule corpus and the custom programs, named lctx_...) are left
    out, so that the reach lctx reports is over JAX's rules alone."""
    mlir = j.mlir
    names = {getattr(p, "name", str(p)) for p in mlir._lowerings}
    for table in list(mlir._platform_specific_lowerings.values()):
        names.update(getattr(p, "name", str(p)) for p in table)
    return sorted(n for n in names if not n.startswith("lctx_"))


def valid_mutant(value):
    if value in ("dispatch-first", "order-first"):
        return True
    option, eq, prim = value.partition("=")
    return bool(eq) and option in RULE_MUTANTS and bool(prim)


def parse_args(argv):
    """(mutants, list_only, host_devices or None) or raises
    SystemExit(2)."""
    mutants, list_only, host_devices, i = [], False, None, 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--list":
            list_only = True
        elif arg == "--host-devices" or arg.startswith("--host-devices="):
            if arg == "--host-devices":
                i += 1
                value = argv[i] if i < len(argv) else ""
            else:
                value = arg[len("--host-devices="):]
            if (not re.match(r"[0-9]+\Z", value)
                    or not 1 <= int(value) <= MAX_HOST_DEVICES):
                log("--host-devices needs a number of devices, 1 to %d "
                    "(got %r)" % (MAX_HOST_DEVICES, value))
                raise SystemExit(2)
            host_devices = int(value)
        elif arg == "--mutate" or arg.startswith("--mutate="):
            if arg == "--mutate":
                i += 1
                if i >= len(argv):
                    log("--mutate needs a name (one of %s)"
                        % ", ".join(MUTANTS))
                    raise SystemExit(2)
                value = argv[i]
            else:
                value = arg[len("--mutate="):]
            if not valid_mutant(value):
                log("unknown mutant %r (one of %s)"
                    % (value, ", ".join(MUTANTS)))
                raise SystemExit(2)
            mutants.append(value)
        else:
            log("unknown option %r (usage: jax_export.py [--mutate NAME]... "
                "[--host-devices N] [--list])" % arg)
            raise SystemExit(2)
        i += 1
    return mutants, list_only, host_devices


def set_host_devices(n):
    """Makes the CPU n devices: XLA_FLAGS gets
    --xla_force_host_platform_device_count=n (replacing any such flag),
    before JAX is imported."""
    flags = [f for f in os.environ.get("XLA_FLAGS", "").split()
             if not f.startswith("--xla_force_host_platform_device_count")]
    flags.append("--xla_force_host_platform_device_count=%d" % n)
    os.environ["XLA_FLAGS"] = " ".join(flags)


def set_up(j, mutants):
    """Instrumentation, the corpus, the catalogue, the mutants."""
    warnings.simplefilter("ignore")
    # A raise's location is the innermost frame inside jax: JAX's traceback
    # filtering (jax_traceback_filtering, at jax.jit's boundary) would drop
    # those frames when a program's own code (a generated rule lowering a
    # jitted function) lies between, leaving that code as the innermost.
    try:
        j.config.update("jax_traceback_filtering", "off")
    except Exception as err:
        log("jax_traceback_filtering not turned off: %s" % err)
    census = Census(j)
    corpus = Corpus(j, census)
    corpus.load(CORPUS_DIR)
    catalogue = make_catalogue(j, corpus)
    mutate(j, mutants)
    return census, catalogue


def fit_line(results):
    """Keeps an answer line under LINE_BUDGET bytes (lctx refuses lines
    over 4 MiB): drops the `values` of the largest runs (null, as for a run
    with more than MAX_VALUES elements) until it fits."""
    def size(r):
        return len(json.dumps(r, separators=(",", ":")))
    total = sum(size(r) + 1 for r in results)
    if total <= LINE_BUDGET:
        return
    ranked = sorted((r for r in results
                     if isinstance(r.get("run"), dict)
                     and r["run"].get("values") is not None),
                    key=size, reverse=True)
    for r in ranked:
        before = size(r)
        r["run"]["values"] = None
        total -= before - size(r)
        if total <= LINE_BUDGET:
            return
    # Then the reproductions, largest first.
    for r in sorted((r for r in results if r.get("repro")),
                    key=lambda r: len(r["repro"]), reverse=True):
        before = size(r)
        r["repro"] = None
        r["repro_error"] = "left out: the answer line was too long"
        total -= before - size(r)
        if total <= LINE_BUDGET:
            return


def serve(channel, stream, exporter, extended):
    while True:
        try:
            request = read_message(stream)
        except ValueError as err:
            log("request is not JSON: %s" % err)
            return 2
        if request is None:
            return 0
        if isinstance(request, dict) and request.get("lctx") == "bye":
            return 0
        if not isinstance(request, dict) or "id" not in request:
            log("not a request: %r" % (request,))
            return 2
        if isinstance(request.get("cases"), list):
            channel.send({"id": request["id"], "results": [
                {"error": "jax-export serves only the export operation"}
                for _ in request["cases"]]})
            continue
        items = request.get("exports")
        if not extended or not isinstance(items, list):
            log("not a request: %r" % (request,))
            return 2
        if not 1 <= len(items) <= MAX_ITEMS:
            results = [{"error": "1 to %d export items per request"
                        % MAX_ITEMS}] * len(items)
        else:
            try:
                results = [exporter.run_item(item) for item in items]
            finally:
                exporter.end_request()
            fit_line(results)
        channel.send({"id": request["id"], "results": results})


def main(argv):
    mutants, list_only, host_devices = parse_args(argv)
    if host_devices is not None:
        set_host_devices(host_devices)
    j, why = import_jax()
    if j is None:
        if list_only:
            return EXIT_CANNOT_RUN
        channel = Channel()
        try:
            hello = read_message(sys.stdin)
        except ValueError:
            hello = None
        if hello is not None:
            channel.send({"protocol": PROTOCOL_VERSION,
                          "error": "jax is not importable: %s (install: %s)"
                          % (why, SUGGESTED_INSTALL)})
        return EXIT_CANNOT_RUN
    census, catalogue = set_up(j, mutants)
    if list_only:
        for p in catalogue:
            sys.stdout.write("%s\t%s\t%s\t%d\n"
                             % (p.name, p.group, p.kind, p.size))
        return 0
    channel = Channel()
    try:
        hello = read_message(sys.stdin)
    except ValueError as err:
        log("handshake is not JSON: %s" % err)
        return 2
    if hello is None:
        return 0
    if not isinstance(hello, dict) or hello.get("lctx") != "hello":
        channel.send({"protocol": PROTOCOL_VERSION,
                      "error": "expected the lctx hello, got %r" % (hello,)})
        return 2
    if hello.get("protocol") != PROTOCOL_VERSION:
        channel.send({"protocol": PROTOCOL_VERSION,
                      "error": "this program speaks protocol %d only, lctx "
                      "offered %r" % (PROTOCOL_VERSION,
                                      hello.get("protocol"))})
        return 2
    extensions = hello.get("extensions")
    extended = isinstance(extensions, list) and EXTENSION in extensions
    name = PROGRAM_NAME + "".join("+" + m for m in mutants)
    if not extended:
        channel.send({"protocol": PROTOCOL_VERSION, "name": name,
                      "version": j.version, "operations": []})
        return serve(channel, sys.stdin, None, False)
    platforms = probe_platforms(j)
    channel.send({
        "protocol": PROTOCOL_VERSION, "name": name, "version": j.version,
        "operations": [EXTENSION],
        "jax": {"version": j.version, "jaxlib": j.jaxlib_version,
                "python": "%d.%d.%d" % sys.version_info[:3],
                "mutant": ",".join(mutants) if mutants else None},
        "platforms": platforms,
        "generate": jax_program.FORMAT_VERSION,
        "lowering_primitives": lowering_primitives(j),
        "catalogue": [p.describe() for p in catalogue]})
    return serve(channel, sys.stdin, Exporter(j, catalogue, census), True)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (BrokenPipeError, KeyboardInterrupt):
        sys.exit(1)
