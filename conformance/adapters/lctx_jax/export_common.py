"""What the parts of the exporter (export_main.py) share: its limits, its
log and protocol channel, the JAX modules it uses, and the description of
a raise (class, message and where: the innermost frame inside JAX, a
corpus rule's action or a generated rule's line)."""

import json
import os
import sys

from .protocol import SUGGESTED_INSTALL, import_jax_with

MAX_MESSAGE = 2000
MAX_VALUES = 4096
MAX_CENSUS = 200
MAX_NAME = 200
# JAX's caches (jit, lowering, compiled calls) grow by about 1.6 MB per
# export (over the CI subset: 1.4 GB after its 666 exports, never
# cleared); lctx restarts a sweep's exporter over 2 GB (half its 4 GB
# limit) between batches.  Every CLEAR_CACHES_EVERY exports, or sooner
# when the resident memory passes TIDY_ABOVE_MB, the caches are cleared
# and the freed memory handed back to the system (about 300 MB steady
# after).  A tidy costs about 0.1 s of CPU (the collection, with start-up's
# objects frozen, export_main.py) and JAX's caches warming again.
CLEAR_CACHES_EVERY = 100
TIDY_ABOVE_MB = 600
# Generated programs: the most dispatches reported per export, the longest
# reproduction (bytes).
MAX_DISPATCH = 200
MAX_DISPATCH_RULES = 8
MAX_REPRO = 200000
# Census location of a generated rule: this file name and the rule's line
# in the program description.
PROGRAM_FILE = "lctx-program"


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
# A catalogue entry (catalogue.py, catalogue_extra.py)
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


def f32(j, n=4):
    return j.np.linspace(0.5, 2.0, n, dtype=j.np.float32)
