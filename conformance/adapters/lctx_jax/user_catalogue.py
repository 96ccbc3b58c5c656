"""A user's catalogue (jax_export.py --programs SPEC): a Python module
listing the user's own programs, checked entry by entry and turned into
catalogue programs named user/MODSTEM/NAME (conformance/sweep/USER.md).

SPEC is a file (`dir/mod.py`: imported from its own folder, which goes
first on the module path so that it imports its siblings as it would when
run there) or a dotted module name (imported as `python -m` would, the
working directory on the path).  The module defines LCTX_PROGRAMS (a list)
or lctx_programs() (returning one); each entry is a dict:

    name       str: [A-Za-z0-9_.+-], 1 to 100 characters, unique
    fn         a callable: the program, traced by jax.jit
    args       a tuple or list of arrays, Python or numpy scalars and
               jax.ShapeDtypeStruct (given deterministic values)
    platforms  optional: a list of 1 to 16 platform lists, each 2 to 4
               distinct names of the platforms JAX exports for
    x64        optional bool: export under jax_enable_x64
    disabled_checks
               optional: a list of jax.export safety checks to skip:
               "custom_call:TARGET" (DisabledSafetyCheck.custom_call), or
               "platform" (DisabledSafetyCheck.platform())

Anything else is refused with an error naming the module's file, the
entry's index and the field (UserCatalogueError)."""

import importlib
import importlib.util
import os
import re
import sys

from .export_common import Program

NAME = re.compile(r"[A-Za-z0-9_.+-]{1,100}\Z")
MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z")
FIELDS = ("name", "fn", "args", "platforms", "x64", "disabled_checks")
MAX_LISTS = 16
# The most safety checks an entry may disable.
MAX_CHECKS = 64
# A custom call target named by "custom_call:TARGET".
TARGET = re.compile(r"[A-Za-z0-9_.:$+-]{1,200}\Z")
MAX_ARGS = 64
# The most elements a ShapeDtypeStruct may ask for (values are made for it).
MAX_ELEMENTS = 1 << 24
# The names a declared platform list may use (export_main.py offers these,
# "gpu" and "oneapi" when this JAX exports for them).
KNOWN_PLATFORMS = ("cpu", "cuda", "rocm", "tpu", "gpu", "oneapi")


class UserCatalogueError(Exception):
    """A user catalogue that cannot be used: str() says what and where."""


def is_file_spec(spec):
    return spec.endswith(".py") or "/" in spec or os.sep in spec


def import_spec(spec):
    """(module, module file, stem) of SPEC, or raises UserCatalogueError
    naming it (a module that raises on import included)."""
    if is_file_spec(spec):
        path = os.path.abspath(spec)
        if not os.path.isfile(path):
            raise UserCatalogueError("%s: no such file" % spec)
        stem = os.path.splitext(os.path.basename(path))[0]
        folder = os.path.dirname(path)
        if folder not in sys.path:
            sys.path.insert(0, folder)
        name = stem if stem not in sys.modules else "lctx_user_" + stem
        try:
            module_spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[name] = module
            module_spec.loader.exec_module(module)
        except BaseException as err:
            sys.modules.pop(name, None)
            raise UserCatalogueError("%s: importing it raised %s" % (
                spec, describe_error(err))) from None
        return module, spec, stem
    if not MODULE_NAME.match(spec):
        raise UserCatalogueError(
            "%r: neither a file (dir/mod.py) nor a dotted module name"
            % spec)
    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    try:
        module = importlib.import_module(spec)
    except BaseException as err:
        raise UserCatalogueError("%s: importing it raised %s" % (
            spec, describe_error(err))) from None
    where = getattr(module, "__file__", None) or spec
    return module, where, spec


def describe_error(err):
    """'Class: message (file:line)' of an exception in the user's code:
    the innermost frame of its traceback."""
    try:
        message = str(err)
    except Exception:
        message = "?"
    where = ""
    tb = err.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is not None:
        where = " at %s:%d" % (tb.tb_frame.f_code.co_filename, tb.tb_lineno)
    return "%s: %s%s" % (type(err).__name__, message[:300], where)


def entries_of(module, where):
    """The module's list of entries."""
    if hasattr(module, "LCTX_PROGRAMS"):
        entries, field = module.LCTX_PROGRAMS, "LCTX_PROGRAMS"
    elif callable(getattr(module, "lctx_programs", None)):
        field = "lctx_programs()"
        try:
            entries = module.lctx_programs()
        except BaseException as err:
            raise UserCatalogueError("%s: lctx_programs() raised %s" % (
                where, describe_error(err))) from None
    else:
        raise UserCatalogueError(
            "%s: defines neither LCTX_PROGRAMS (a list) nor lctx_programs()"
            % where)
    if not isinstance(entries, (list, tuple)):
        raise UserCatalogueError("%s: %s: not a list (a %s)" % (
            where, field, type(entries).__name__))
    if not entries:
        raise UserCatalogueError("%s: %s: no program" % (where, field))
    return entries, field


class Checker:
    """Checks the entries of one module; errors name module, index and
    field."""

    def __init__(self, j, where, field):
        self.j, self.where, self.field = j, where, field

    def fail(self, index, key, why):
        raise UserCatalogueError("%s: %s[%d].%s: %s" % (
            self.where, self.field, index, key, why))

    def entry(self, index, entry):
        """(name, fn, args, platforms or None, x64, disabled checks) of a
        checked entry."""
        if not isinstance(entry, dict):
            raise UserCatalogueError("%s: %s[%d]: not a dict (a %s)" % (
                self.where, self.field, index, type(entry).__name__))
        for key in entry:
            if key not in FIELDS:
                self.fail(index, str(key), "unknown field (the fields: %s)"
                          % ", ".join(FIELDS))
        for key in ("name", "fn", "args"):
            if key not in entry:
                self.fail(index, key, "missing")
        name = entry["name"]
        if not isinstance(name, str) or not NAME.match(name):
            self.fail(index, "name", "%r is not 1 to 100 of A-Z a-z 0-9 "
                      "_ . + -" % (name,))
        if not callable(entry["fn"]):
            self.fail(index, "fn", "not callable (a %s)"
                      % type(entry["fn"]).__name__)
        args = self.args(index, entry["args"])
        platforms = self.platforms(index, entry.get("platforms"))
        x64 = entry.get("x64", False)
        if not isinstance(x64, bool):
            self.fail(index, "x64", "not a bool (a %s)" % type(x64).__name__)
        checks = self.disabled_checks(index, entry.get("disabled_checks"))
        return name, entry["fn"], args, platforms, x64, checks

    def args(self, index, args):
        if not isinstance(args, (tuple, list)):
            self.fail(index, "args", "not a tuple or list (a %s)"
                      % type(args).__name__)
        if len(args) > MAX_ARGS:
            self.fail(index, "args", "%d arguments (at most %d)"
                      % (len(args), MAX_ARGS))
        for k, arg in enumerate(args):
            why = self.arg_problem(arg)
            if why:
                self.fail(index, "args[%d]" % k, why)
        return list(args)

    def arg_problem(self, arg):
        """Why `arg` cannot be an argument, or None."""
        j = self.j
        if isinstance(arg, (bool, int, float, complex, j.np.generic)):
            return None
        if isinstance(arg, j.jax.ShapeDtypeStruct):
            try:
                n = int(j.np.prod(arg.shape, dtype=j.np.int64))
            except Exception:
                return "a ShapeDtypeStruct with a symbolic shape %s" % (
                    arg.shape,)
            if n > MAX_ELEMENTS:
                return "%d elements (at most %d)" % (n, MAX_ELEMENTS)
            return None
        if isinstance(arg, (j.np.ndarray, j.jax.Array)):
            return None
        return ("not an array, a scalar or a jax.ShapeDtypeStruct (a %s)"
                % type(arg).__name__)

    def disabled_checks(self, index, names):
        """The jax.export.DisabledSafetyCheck of each name of an entry's
        `disabled_checks` ([] when it has none)."""
        if names is None:
            return []
        if not isinstance(names, (list, tuple)):
            self.fail(index, "disabled_checks", "not a list of strings (a %s)"
                      % type(names).__name__)
        if len(names) > MAX_CHECKS:
            self.fail(index, "disabled_checks", "%d checks (at most %d)"
                      % (len(names), MAX_CHECKS))
        checks = self.j.jax.export.DisabledSafetyCheck
        out = []
        for k, name in enumerate(names):
            key = "disabled_checks[%d]" % k
            if not isinstance(name, str):
                self.fail(index, key, "not a string (a %s)"
                          % type(name).__name__)
            if name == "platform":
                out.append(checks.platform())
                continue
            kind, _, target = name.partition(":")
            if kind != "custom_call" or not TARGET.match(target):
                self.fail(index, key, "%r is neither \"platform\" nor "
                          "\"custom_call:TARGET\" (TARGET: 1 to 200 of "
                          "A-Z a-z 0-9 _ . : $ + -)" % (cut_text(name),))
            out.append(checks.custom_call(target))
        return out

    def platforms(self, index, lists):
        if lists is None:
            return None
        if not isinstance(lists, (list, tuple)) or not lists:
            self.fail(index, "platforms", "not a non-empty list of platform "
                      "lists")
        if len(lists) > MAX_LISTS:
            self.fail(index, "platforms", "%d lists (at most %d)"
                      % (len(lists), MAX_LISTS))
        out = []
        for k, names in enumerate(lists):
            key = "platforms[%d]" % k
            if not isinstance(names, (list, tuple)):
                self.fail(index, key, "not a list of platform names")
            if not 2 <= len(names) <= 4:
                self.fail(index, key, "%d names (2 to 4)" % len(names))
            for name in names:
                if not isinstance(name, str) or name not in KNOWN_PLATFORMS:
                    self.fail(index, key, "%r is not a platform (%s)"
                              % (name, ", ".join(KNOWN_PLATFORMS)))
            if len(set(names)) != len(names):
                self.fail(index, key, "a platform named twice: %s"
                          % list(names))
            out.append(list(names))
        return out


def cut_text(text, most=100):
    """`text` cut to `most` characters (a user's text quoted in an
    error)."""
    return text if len(text) <= most else text[:most] + "..."


def values_for(j, spec):
    """Deterministic values of a ShapeDtypeStruct's shape and dtype (the
    same on every run): floats from 0.5 to 2.0, integers 1 to 7, booleans
    alternating, complex numbers with both parts so."""
    np = j.np
    shape = tuple(int(d) for d in spec.shape)
    n = int(np.prod(shape, dtype=np.int64))
    dtype = np.dtype(spec.dtype)
    if dtype.kind == "b":
        flat = np.arange(n) % 2 == 0
    elif dtype.kind in "iu":
        flat = np.arange(n) % 7 + 1
    elif dtype.kind == "c":
        ramp = np.linspace(0.5, 2.0, n)
        flat = ramp + 1j * ramp[::-1]
    else:
        flat = np.linspace(0.5, 2.0, n)
    return np.asarray(flat).astype(dtype).reshape(shape)


def concrete_args(j, args):
    return [values_for(j, a) if isinstance(a, j.jax.ShapeDtypeStruct)
            else a for a in args]


def arg_size(j, arg):
    shape = getattr(arg, "shape", ())
    try:
        return int(j.np.prod(tuple(shape), dtype=j.np.int64))
    except Exception:
        return 1


class OptionChecker(Checker):
    """Checks the platform lists of the exporter's --platforms option."""

    def __init__(self):
        super().__init__(None, "--platforms", "")

    def fail(self, index, key, why):
        raise UserCatalogueError(
            "--platforms: %s: %s (a list is names joined by commas, lists "
            "by semicolons: cpu,cuda;cuda,rocm,cpu)" % (key, why))


def platform_lists(text):
    """The lists of `--platforms "cpu,cuda;cuda,rocm,cpu"` (1 to 16 lists
    of 2 to 4 distinct platform names, as a catalogue entry's `platforms`);
    raises UserCatalogueError naming the list."""
    lists = [[n.strip() for n in part.split(",")] for part in text.split(";")]
    return OptionChecker().platforms(0, lists)


def default_lists(programs, lists):
    """Gives the programs that declare no platform lists `lists`."""
    for p in programs:
        if getattr(p, "platforms", None) is None:
            p.platforms = [list(names) for names in lists]


class UserProgram(Program):
    """A catalogue program from a user's module: it may declare its
    platform lists (the hello's catalogue entry carries them)."""

    def __init__(self, name, group, kind, size, build, platforms=None,
                 disabled_checks=()):
        super().__init__(name, group, kind, size, build)
        self.platforms = platforms
        # jax.export.DisabledSafetyCheck objects the export passes on.
        self.disabled_checks = list(disabled_checks)

    def describe(self):
        out = super().describe()
        if self.platforms:
            out["platforms"] = self.platforms
        return out


def module_programs(j, spec):
    """(programs, root) of one --programs SPEC."""
    module, where, stem = import_spec(spec)
    entries, field = entries_of(module, where)
    check = Checker(j, where, field)
    programs, seen = [], {}
    group = "user/" + stem
    for index, entry in enumerate(entries):
        name, fn, args, platforms, x64, checks = check.entry(index, entry)
        if name in seen:
            check.fail(index, "name", "%r is already the name of entry %d"
                       % (name, seen[name]))
        seen[name] = index
        for k, arg in enumerate(args):
            if isinstance(arg, j.jax.ShapeDtypeStruct):
                try:
                    values_for(j, arg)
                except Exception as err:
                    check.fail(index, "args[%d]" % k, "no values for it: %s"
                               % err)

        def build(fn=fn, args=args, x64=x64):
            return fn, concrete_args(j, args), x64
        size = sum(arg_size(j, a) for a in args)
        programs.append(UserProgram("%s/%s" % (group, name), group, "user",
                                    size, build, platforms, checks))
    root = os.path.dirname(os.path.abspath(getattr(module, "__file__", "")
                                           or where))
    return programs, root


def load(j, specs):
    """(programs, roots) of every --programs SPEC, in the order given; a
    program name used twice is refused."""
    programs, roots, names = [], [], {}
    for spec in specs:
        found, root = module_programs(j, spec)
        for p in found:
            if p.name in names:
                raise UserCatalogueError(
                    "%s: program %s is also in %s (two modules with the "
                    "same stem)" % (spec, p.name, names[p.name]))
            names[p.name] = spec
        programs.extend(found)
        roots.append(root)
    return programs, roots
