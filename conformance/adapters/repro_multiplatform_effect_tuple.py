#!/usr/bin/env python3
"""Reproduce JAX's list + tuple TypeError in multi-platform lowering (lctx
spec row SW-001, sweep key "SW-001 TypeError at
jax/_src/interpreters/mlir.py:2562").

`mlir.lower_per_platform` builds the result types of its per-platform case
op by concatenating a list of token avals with `ctx.avals_out`.  Equations
of a primitive registered with `cacheable=False` are lowered inline, and
there `ctx.avals_out` is a tuple, so the concatenation raises

    TypeError: can only concatenate list (not "tuple") to list

whenever such a primitive keeps two or more lowering rules for the
platforms being lowered (a multi-platform export, or
`jax.jit(f).trace(x).lower(lowering_platforms=...)`).  Effects play no
part: the list of token avals is empty for a primitive without ordered
effects, and `[] + ()` raises all the same.  Among JAX's own primitives,
`debug_callback` and `debug_print` qualify (a rule per platform, registered
uncacheable because of their TPU rule), so the smallest public-API
reproduction is

    def f(x):
        jax.debug.print("x={x}", x=x)
        return x
    jax.export.export(jax.jit(f), platforms=("tpu", "cpu"))(np.float32(1))

which raises that TypeError instead of the documented refusal of host
callbacks under several platforms, NotImplementedError("multi-platform
lowering for python_callback") from jax/_src/callback.py.

The program also runs probes that pin down the condition: a custom
primitive without effects with a cpu and a tpu rule, registered
`cacheable=False` (the TypeError) and `cacheable=True` (exports, and runs
the cpu rule on the CPU); the same function lowered with
`jit(...).trace(x).lower(lowering_platforms=...)` (the TypeError, so not
only export); `jax.debug.callback` inside `lax.cond` (the TypeError); and
`jax.debug.print` exported for each platform alone (each fails differently,
as the sweep saw).

Verdicts and exit status:
    0  DEFECT REPRODUCED: ...         the TypeError from lower_per_platform
    0  FIXED IN THIS JAX VERSION: ... the export refuses as documented
                                      (NotImplementedError) or succeeds
    1  anything else (another exception)
    2  an unknown option (usage on stderr)
    3  jax cannot be imported

    python3 repro_multiplatform_effect_tuple.py [--json]

--json prints one JSON object instead of the report: jax_version,
platforms, expected, observed, verdict, message and the probes.  JAX runs
on the CPU (JAX_PLATFORMS defaults to cpu).
See docs/upstream-multiplatform-effect-tuple.md.
"""

import json
import os
import sys
import traceback

EXIT_OK = 0
EXIT_UNEXPECTED = 1
EXIT_USAGE = 2
EXIT_CANNOT_RUN = 3

PLATFORMS = ("tpu", "cpu")
TYPE_ERROR_TEXT = 'can only concatenate list (not "tuple") to list'
REFUSAL_TEXT = "multi-platform lowering for python_callback"

# The probe primitive's rules add these to their input (0 on the CPU).
RULE_CPU = 1
RULE_TPU = 1000

USAGE = "usage: repro_multiplatform_effect_tuple.py [--json]"


def import_jax():
    """Returns (jax, np, Primitive, mlir, export) or exits with 3."""
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    try:
        import numpy as np
        import jax
        from jax.interpreters import mlir
        from jax import export
    except Exception as e:  # ImportError, or a broken install
        sys.stderr.write(
            "repro_multiplatform_effect_tuple: cannot import jax (%s: %s).\n"
            "Install it, e.g. `sh tools/setup-jax.sh 0.10.2` (which creates "
            "build/jax/venv-0.10.2), and run this program with that "
            "environment's python.\n" % (type(e).__name__, e))
        sys.exit(EXIT_CANNOT_RUN)
    try:
        from jax.extend.core import Primitive
    except ImportError:
        from jax.core import Primitive
    return jax, np, Primitive, mlir, export


def jax_relative(filename):
    """jax/_src/... for a file inside the jax package, else the base name."""
    norm = filename.replace(os.sep, "/")
    k = norm.rfind("/jax/")
    return norm[k + 1:] if k >= 0 else os.path.basename(norm)


def outcome(thunk):
    """Runs thunk(); returns {"outcome": "ok", "value": ...} or the raise:
    class, message (first line) and the innermost frame inside jax."""
    try:
        value = thunk()
    except Exception as e:  # the outcome under test
        frames = traceback.extract_tb(e.__traceback__)
        inner = None
        for fr in frames:
            if "/jax/" in fr.filename.replace(os.sep, "/"):
                inner = fr
        if inner is None and frames:
            inner = frames[-1]
        return {
            "outcome": "raise",
            "class": type(e).__name__,
            "message": str(e).splitlines()[0] if str(e) else "",
            "file": jax_relative(inner.filename) if inner else None,
            "line": inner.lineno if inner else None,
            "function": inner.name if inner else None,
        }
    if not isinstance(value, (int, float, str)):
        value = None  # an Exported or Lowered object: only success counts
    return {"outcome": "ok", "value": value}


def short(o):
    if o is None:
        return "(not run)"
    if o["outcome"] == "ok":
        v = o.get("value")
        return "exports" + ("" if v is None else ", returns %r" % (v,))
    return "%s: %s  [%s:%s %s]" % (o["class"], o["message"], o["file"],
                                   o["line"], o["function"])


def is_type_error(o):
    return (o is not None and o["outcome"] == "raise"
            and o["class"] == "TypeError"
            and TYPE_ERROR_TEXT in o["message"])


def debug_print_fun(jax):
    def f(x):
        jax.debug.print("x={x}", x=x)
        return x
    return f


def debug_callback_in_cond_fun(jax):
    def branch(y):
        jax.debug.callback(lambda v: None, y)
        return y

    def f(x):
        return jax.lax.cond(x > 0, branch, lambda y: y, x)
    return f


def probe_primitive(jax, np, Primitive, mlir, name, cacheable):
    """A primitive without effects: cpu rule x + 1, tpu rule x + 1000,
    registered with the given `cacheable` (None when unsupported)."""
    p = Primitive(name)
    p.def_abstract_eval(lambda x: jax.core.ShapedArray(x.shape, x.dtype))
    p.def_impl(lambda x: x + np.float32(RULE_CPU))

    def adds(n):
        return mlir.lower_fun(lambda x: x + np.float32(n),
                              multiple_results=False)

    try:
        mlir.register_lowering(p, adds(RULE_CPU), platform="cpu",
                               cacheable=cacheable)
        mlir.register_lowering(p, adds(RULE_TPU), platform="tpu",
                               cacheable=cacheable)
    except TypeError:  # no `cacheable` parameter in this JAX
        return None
    return p


def run():
    jax, np, Primitive, mlir, export = import_jax()
    x = np.float32(1)
    zero = np.float32(0)
    f = debug_print_fun(jax)
    result = {
        "jax_version": jax.__version__,
        "platforms": list(PLATFORMS),
        "program": "jax.export.export(jax.jit(f), platforms=%r)(x), f calls "
                   "jax.debug.print" % (PLATFORMS,),
        "expected": {"outcome": "raise", "class": "NotImplementedError",
                     "message": REFUSAL_TEXT,
                     "note": "the documented refusal of host callbacks under "
                             "several platforms (lctx SW-002), or a "
                             "successful export"},
        "observed": None,
        "probes": {},
        "verdict": "error",
        "message": "",
    }
    probes = result["probes"]
    try:
        observed = outcome(lambda: export.export(
            jax.jit(f), platforms=PLATFORMS)(x))
        result["observed"] = observed
        probes["debug_print_lower"] = outcome(
            lambda: jax.jit(f).trace(x).lower(lowering_platforms=PLATFORMS))
        g = debug_callback_in_cond_fun(jax)
        probes["debug_callback_in_cond"] = outcome(lambda: export.export(
            jax.jit(g), platforms=PLATFORMS)(x))
        for p in PLATFORMS:
            probes["debug_print_alone_" + p] = outcome(lambda: export.export(
                jax.jit(f), platforms=(p,))(x))

        uncached = probe_primitive(jax, np, Primitive, mlir,
                                   "lctx_repro_uncacheable_two_rules", False)
        cached = probe_primitive(jax, np, Primitive, mlir,
                                 "lctx_repro_cacheable_two_rules", True)
        if uncached is not None:
            probes["no_effects_uncacheable_export"] = outcome(
                lambda: export.export(jax.jit(uncached.bind),
                                      platforms=PLATFORMS)(zero))
            probes["no_effects_uncacheable_lower"] = outcome(
                lambda: jax.jit(uncached.bind).trace(zero).lower(
                    lowering_platforms=PLATFORMS))

        def export_and_call():
            exp = export.export(jax.jit(cached.bind),
                                platforms=PLATFORMS)(zero)
            return float(np.asarray(exp.call(zero)))
        if cached is not None:
            probes["no_effects_cacheable_export_call_cpu"] = outcome(
                export_and_call)
    except Exception as e:  # the harness itself failed
        result["message"] = "exception: %s: %s" % (type(e).__name__, e)
        return result, EXIT_UNEXPECTED

    if is_type_error(observed):
        result["verdict"] = "defect"
        result["message"] = (
            "exporting jax.debug.print for %s raised TypeError (%s) from "
            "%s:%s (%s) instead of the documented NotImplementedError"
            % (list(PLATFORMS), observed["message"], observed["file"],
               observed["line"], observed["function"]))
        return result, EXIT_OK
    if observed["outcome"] == "ok" or (
            observed["class"] == "NotImplementedError"
            and "multi-platform" in observed["message"]):
        result["verdict"] = "fixed"
        result["message"] = (
            "exporting jax.debug.print for %s: %s"
            % (list(PLATFORMS), short(observed)))
        return result, EXIT_OK
    result["verdict"] = "unexpected"
    result["message"] = (
        "exporting jax.debug.print for %s: %s; expected the TypeError (the "
        "known defect) or NotImplementedError(%r)"
        % (list(PLATFORMS), short(observed), REFUSAL_TEXT))
    return result, EXIT_UNEXPECTED


HEADLINE = {
    "defect": "DEFECT REPRODUCED: ",
    "fixed": "FIXED IN THIS JAX VERSION: ",
    "unexpected": "UNEXPECTED: ",
    "error": "ERROR: ",
}

PROBE_LABEL = [
    ("debug_print_lower",
     "jit(f).trace(x).lower(lowering_platforms=(tpu, cpu))"),
    ("debug_callback_in_cond",
     "jax.debug.callback inside lax.cond, export for (tpu, cpu)"),
    ("debug_print_alone_tpu", "export for (tpu,) alone"),
    ("debug_print_alone_cpu", "export for (cpu,) alone"),
    ("no_effects_uncacheable_export",
     "no effects, cpu+tpu rules, cacheable=False, export"),
    ("no_effects_uncacheable_lower",
     "no effects, cpu+tpu rules, cacheable=False, lower"),
    ("no_effects_cacheable_export_call_cpu",
     "no effects, cpu+tpu rules, cacheable=True, export, call on cpu"),
]


def report(result):
    r = result
    lines = [
        "JAX multi-platform list + tuple TypeError (lctx SW-001)",
        "  jax version      %s" % r["jax_version"],
        "  program          %s" % r["program"],
        "  expected         NotImplementedError: %s (or an export)"
        % REFUSAL_TEXT,
        "  observed         %s" % short(r["observed"]),
    ]
    for key, label in PROBE_LABEL:
        if key in r["probes"]:
            lines.append("  probe            %s:\n                     %s"
                         % (label, short(r["probes"][key])))
    lines.append(HEADLINE[r["verdict"]] + r["message"])
    return "\n".join(lines)


def main(argv):
    as_json = False
    for arg in argv:
        if arg == "--json":
            as_json = True
        elif arg in ("-h", "--help"):
            print(USAGE)
            return EXIT_OK
        else:
            sys.stderr.write("%s\nunknown argument %r\n" % (USAGE, arg))
            return EXIT_USAGE
    result, status = run()
    if as_json:
        print(json.dumps(result, indent=2, sort_keys=True))
    else:
        print(report(result))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
