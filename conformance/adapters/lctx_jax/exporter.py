"""The exporter's work: one export item exported for its platforms (a
catalogue program, or a generated program built from its text), called on
the CPU, described with its census (and, for a user's program, with where
the user's code is: user_facts.py), and JAX's caches kept in bounds."""

import ctypes
import ctypes.util
import gc
import hashlib
import math
import os
import re
import time

from . import program as lctx_program
from . import traced
from .export_common import (CLEAR_CACHES_EVERY, MAX_REPRO, MAX_VALUES,
                            TIDY_ABOVE_MB, cut, log, raised)

# The kinds of catalogue program that are a user's (user_catalogue.py,
# discover.py): their results carry `user`.
USER_KINDS = ("user", "package")


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


class Kept:
    """A catalogue program built and traced once in a request: its
    arguments, x64, the jax.stages.Traced and the platform lists lowered
    from it."""

    def __init__(self, args, x64, traced, platforms):
        self.args, self.x64, self.traced = args, x64, traced
        self.lowered = {tuple(platforms)}


class Exporter:
    def __init__(self, j, catalogue, census, reuse_traces=False):
        self.j, self.census = j, census
        self.programs = {p.name: p for p in catalogue}
        self.count = 0
        # Generated programs built for the current request:
        # (text, platforms) -> Built or an error result.
        self.builds = {}
        self.registered = []
        # JAX's own catalogue programs traced in the current request:
        # name -> Kept (see export).  Off with a mutant (mutants patch
        # jax.export.export) or where this JAX's export is not the one
        # traced.py mirrors.
        self.traces = {}
        self.reuse_traces = reuse_traces and traced.supported(j)

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
            built = lctx_program.build(text, platforms)
        except lctx_program.ProgramError as err:
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
            script = lctx_program.repro_source(text, platforms)
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
        self.traces = {}

    def tidy(self):
        """Clears JAX's caches and gives the freed memory back."""
        try:
            self.j.jax.clear_caches()
        except Exception as err:
            log("clear_caches: %s" % err)
        gc.collect()
        trim_heap()

    def export(self, program, platforms):
        user = program.kind in USER_KINDS and self.census.facts is not None
        # A user catalogue entry's `disabled_checks` (user_catalogue.py).
        checks = getattr(program, "disabled_checks", ())
        # A user's program is traced for each item: its tracing may look
        # up the host's devices, recorded in the census (census.py).
        if program.kind in USER_KINDS or checks or not self.reuse_traces:
            fn, args, x64 = program.build()
            return self.export_function(fn, args, args, x64, platforms, user,
                                        checks)
        kept = self.traces.get(program.name)
        if kept is not None and tuple(platforms) not in kept.lowered:
            return self.export_kept(kept, platforms)
        return self.export_first(program, platforms)

    def export_first(self, program, platforms):
        """A program of JAX's own catalogue exported as jax.export.export
        does it, its trace kept for the request's other platform lists when
        nothing was recorded while it was traced (traced.py: what the
        census sees is the lowering's, and the lowering runs anew for each
        list).  A list asked twice is exported afresh (a cached lowering
        would run no rule)."""
        j = self.j
        fn, args, x64 = program.build()

        def fresh(*a):
            return fn(*a)
        held = []

        def make():
            t = traced.trace(j, j.jax.jit(fresh), args)
            if self.census.quiet():
                held.append(t)
            return traced.lower(j, t, platforms)
        with j.config.enable_x64(x64):
            result = self.outcome(make, args, platforms)
        if held and program.name not in self.traces:
            self.traces[program.name] = Kept(args, x64, held[0], platforms)
        return result

    def export_kept(self, kept, platforms):
        """The request's trace of a program lowered and exported for
        `platforms` (a list not lowered from it yet)."""
        kept.lowered.add(tuple(platforms))
        with self.j.config.enable_x64(kept.x64):
            return self.outcome(
                lambda: traced.lower(self.j, kept.traced, platforms),
                kept.args, platforms)

    def export_function(self, fn, specs, args, x64, platforms, user=False,
                        disabled_checks=()):
        """Exports jit(fn) traced with `specs` for `platforms`, skipping
        the jax.export safety checks `disabled_checks`; calls it with `args`
        on the CPU when cpu is among them.  A user's program (`user`) is
        described with its `user` facts."""
        j = self.j

        def fresh(*a):
            # A new function each time: JAX caches traces and lowerings by
            # function, and a cached lowering runs no rule (empty census).
            return fn(*a)
        # Only a user's entry gives disabled_checks: JAX's own programs
        # are exported exactly as before.
        extra = ({"disabled_checks": list(disabled_checks)}
                 if disabled_checks else {})

        def make():
            return j.jax.export.export(
                j.jax.jit(fresh), platforms=tuple(platforms),
                **extra)(*specs)
        with j.config.enable_x64(x64):
            return self.outcome(make, args, platforms, user)

    def outcome(self, make, args, platforms, user=False):
        """The result of the export `make()` for `platforms` with its
        census, and of its call with `args` on the CPU when cpu is among
        them."""
        j = self.j
        self.census.start(platforms)
        try:
            exported = make()
        except Exception as err:
            census, reached = self.census.stop()
            result = {"outcome": "raise"}
            result.update(raised(j, err))
            result.update({"primitives": reached, "census": census})
            if user:
                result["user"] = self.census.facts.of_raise(err,
                                                            platforms)
            return result
        census, reached = self.census.stop()
        result = {"outcome": "ok",
                  "module_platforms": list(exported.platforms),
                  "primitives": reached, "census": census}
        if user:
            result["user"] = self.census.facts.nothing()
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


