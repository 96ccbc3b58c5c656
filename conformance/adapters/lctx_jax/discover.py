"""Discovery of the primitives a package registers (jax_export.py
--package PKG): JAX's lowering tables (mlir._lowerings and
mlir._platform_specific_lowerings, jax/_src/interpreters/mlir.py:959-961
in 0.10.2) are read before and after importing PKG and each of its
submodules (pkgutil.walk_packages; every import that fails is caught and
reported); each primitive that appeared gets a program binding it when its
abstract evaluation (jax.eval_shape of prim.bind) accepts one of the
candidate arguments (conformance/sweep/USER.md).  A primitive needing
parameters, or accepting no candidate, is listed with why and gets no
program.

Importing a package imports JAX modules too, and some of those register
JAX's own primitives then (checkify's `check`, Pallas' `core_map`): a new
primitive is the package's only when some code of it (a new rule, its
impl, its abstract evaluation) lies outside the jax and jaxlib packages."""

import importlib
import os
import pkgutil
import sys

from .user_catalogue import UserCatalogueError, UserProgram, values_for
from .user_facts import folder_of, function_code

# The candidate arguments, tried in this order: dtype, then operand count,
# then shape.
CANDIDATE_DTYPES = ("float32", "int32", "complex64")
CANDIDATE_COUNTS = (1, 2, 3)
CANDIDATE_SHAPES = ((4,), (), (4, 4), (2, 3, 4))
# The most submodules imported per package.
MAX_MODULES = 2000
MAX_WHY = 300


def registered(mlir):
    """{(table, primitive)} of JAX's lowering tables now: table None for
    the default rules, else the platform."""
    keys = {(None, p) for p in list(mlir._lowerings)}
    for platform, table in list(mlir._platform_specific_lowerings.items()):
        keys.update((platform, p) for p in list(table))
    return keys


def short_error(err):
    try:
        text = str(err)
    except Exception:
        text = "?"
    text = " ".join(text.split())
    return ("%s: %s" % (type(err).__name__, text))[:MAX_WHY]


def import_package(name):
    """(package module or None, [(module name, why)] of failed imports):
    PKG and each submodule pkgutil.walk_packages finds."""
    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    failures = []
    try:
        package = importlib.import_module(name)
    except BaseException as err:
        return None, [(name, short_error(err))]
    path = getattr(package, "__path__", None)
    if path is None:
        return package, failures

    def onerror(module_name):
        failures.append((module_name, short_error(sys.exc_info()[1])))
    count = 0
    for info in pkgutil.walk_packages(path, name + ".", onerror=onerror):
        count += 1
        if count > MAX_MODULES:
            failures.append((info.name, "more than %d modules: not imported"
                             % MAX_MODULES))
            break
        if info.name in sys.modules:
            continue
        try:
            importlib.import_module(info.name)
        except BaseException as err:
            failures.append((info.name, short_error(err)))
    return package, failures


def candidates(j):
    for dtype in CANDIDATE_DTYPES:
        for count in CANDIDATE_COUNTS:
            for shape in CANDIDATE_SHAPES:
                yield [j.jax.ShapeDtypeStruct(shape, getattr(j.np, dtype))
                       for _ in range(count)]


def describe_args(args):
    return ", ".join("%s%s" % (a.dtype, list(a.shape)) for a in args)


def drive(j, prim):
    """(args, None) with the first candidate arguments prim.bind accepts
    under jax.eval_shape, or (None, why)."""
    bind = getattr(prim, "bind", None)
    if not callable(bind):
        return None, "not a primitive with bind()"
    first, params = None, None
    for args in candidates(j):
        try:
            j.jax.eval_shape(lambda *a: bind(*a), *args)
            return args, None
        except Exception as err:
            if first is None:
                first = err
            if params is None and needs_params(err):
                params = err
    if params is not None:
        return None, "needs parameters: %s" % short_error(params)
    return None, "no candidate argument accepted (%s; first refusal: %s)" % (
        "float32, int32, complex64; 1 to 3 operands; shapes [4], [], "
        "[4, 4], [2, 3, 4]", short_error(first))


def needs_params(err):
    """Whether an abstract evaluation refused for want of a parameter: a
    keyword argument its rule requires (TypeError naming a keyword), or a
    parameter it looked up (KeyError)."""
    if isinstance(err, TypeError):
        return "keyword" in str(err)
    return isinstance(err, KeyError)


def codes_of(fn):
    """The code of `fn` and of the functions its closure holds (JAX's
    def_abstract_eval wraps the user's function in a closure,
    jax/_src/core.py:719-761)."""
    codes = []
    code = function_code(fn) if callable(fn) else None
    if code is not None:
        codes.append(code)
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            inner = cell.cell_contents
        except ValueError:
            continue
        if callable(inner):
            code = function_code(inner)
            if code is not None:
                codes.append(code)
    return codes


def jax_folders():
    import jax
    folders = [folder_of(os.path.dirname(jax.__file__))]
    try:
        import jaxlib
        folders.append(folder_of(os.path.dirname(jaxlib.__file__)))
    except Exception:
        pass
    return folders


def is_own(mlir, new, prim, folders):
    """Whether a new primitive is the package's: some code of it lies
    outside jax and jaxlib."""
    fns = [prim.__dict__.get("impl"), prim.__dict__.get("abstract_eval")]
    for table, p in new:
        if p is prim:
            entry = (mlir._lowerings if table is None
                     else mlir._platform_specific_lowerings[table])[p]
            fns.append(getattr(entry, "rule", entry))
    for fn in fns:
        for code in codes_of(fn):
            path = os.path.realpath(code.co_filename)
            if not code.co_filename.startswith("<") and not any(
                    path.startswith(f) for f in folders):
                return True
    return False


def prim_name(prim):
    return str(getattr(prim, "name", prim))


def tables_of(new, prim):
    return sorted(t or "default" for t, p in new if p is prim)


def discover(j, package_name):
    """(report, programs, root) for --package PACKAGE: report is a dict
    (`print_report` prints it)."""
    before = registered(j.mlir)
    package, failures = import_package(package_name)
    if package is None:
        raise UserCatalogueError("--package %s: importing it raised %s"
                                 % (package_name, failures[0][1]))
    new = registered(j.mlir) - before
    prims, jax_own, folders = [], [], jax_folders()
    for _, prim in sorted(new, key=lambda k: (prim_name(k[1]), k[0] or "")):
        if any(prim is q for q in prims + jax_own):
            continue
        if is_own(j.mlir, new, prim, folders):
            prims.append(prim)
        else:
            jax_own.append(prim)
    group = "package/" + package_name
    report = {"package": package_name, "imports_failed": failures,
              "primitives": [], "jax_own": [prim_name(p) for p in jax_own]}
    programs, names = [], set()
    for prim in prims:
        name = prim_name(prim)
        program_name = "%s/%s" % (group, name)
        k = 2
        while program_name in names:
            program_name = "%s/%s~%d" % (group, name, k)
            k += 1
        args, why = drive(j, prim)
        row = {"primitive": name, "rules": tables_of(new, prim),
               "program": None, "args": None, "why": why}
        if args is not None:
            names.add(program_name)
            row["program"], row["args"] = program_name, describe_args(args)
            programs.append(package_program(j, program_name, group, prim,
                                            args))
        report["primitives"].append(row)
    root = os.path.dirname(os.path.abspath(getattr(package, "__file__", "")
                                           or package_name))
    return report, programs, root


def package_program(j, name, group, prim, specs):
    def build():
        def program(*a):
            return prim.bind(*a)
        return program, [values_for(j, s) for s in specs], False
    size = sum(int(j.np.prod(s.shape, dtype=j.np.int64)) for s in specs)
    return UserProgram(name, group, "package", size, build)


def print_report(reports, out):
    """The --discover listing: per package, the failed imports, then each
    primitive, its rules, and its program or why it has none."""
    for report in reports:
        out.write("package %s: %d primitives registered\n"
                  % (report["package"], len(report["primitives"])))
        for module, why in report["imports_failed"]:
            out.write("  import failed: %s: %s\n" % (module, why))
        if report["jax_own"]:
            out.write("  left out, JAX's own (registered as %s imported "
                      "JAX's modules): %s\n" % (report["package"],
                                                 ", ".join(report["jax_own"])))
        for row in report["primitives"]:
            rules = ",".join(row["rules"])
            if row["program"] is not None:
                out.write("  %s [%s]: program %s (%s)\n"
                          % (row["primitive"], rules, row["program"],
                             row["args"]))
            else:
                out.write("  %s [%s]: no program: %s\n"
                          % (row["primitive"], rules, row["why"]))
