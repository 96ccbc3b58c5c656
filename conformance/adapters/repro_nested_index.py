#!/usr/bin/env python3
"""Reproduce JAX's nested platform-index defect (lctx spec row IR-006).

When a primitive's lowering rule is shared by several platforms of a
multi-platform export, `mlir.lower_per_platform` lowers that rule once, in a
branch whose platform list is narrowed to the platforms sharing it.  If the
rule lowers a sub-primitive through `mlir.lower_fun`, the sub-primitive's own
`lower_per_platform` emits a case op with one branch per *narrowed* platform,
but indexes it with the *module-wide* platform index, never remapped.  For
the narrowed list N and module platform index i the inner case runs the rule
of N[min(i, len(N) - 1)] (a case op runs its last branch for an index out of
range).

This program builds the smallest instance with public extension APIs:

    outer primitive P:  tpu rule      -> x + 1000000
                        default rule  -> lower_fun(Q.bind)
    inner primitive Q:  cpu rule      -> x + 1
                        cuda rule     -> x + 1000

exports `jax.jit(P.bind)` for platforms ("tpu", "cpu", "cuda") and calls it
on the CPU with x = 0.  cpu has module platform index 1; P's default branch
is narrowed to N = [cpu, cuda]; the inner case therefore takes branch
min(1, 1) = 1, Q's *cuda* rule: 1000 instead of 1.  For contrast the same
function exported for ("cpu",) alone gives 1.

Verdicts and exit status:
    0  DEFECT REPRODUCED: ...        the cuda rule's number came out on the CPU
    0  FIXED IN THIS JAX VERSION: ... the cpu rule's number came out
    1  anything else (another number, an exception)
    3  jax cannot be imported

    python3 repro_nested_index.py [--json]

--json prints one JSON object instead of the report: jax_version,
platforms, expected, observed, verdict, message, the contrast run, the
platform-index case ops found in the exported module and its @main text.
See docs/upstream-nested-platform-index.md.
"""

import json
import re
import sys

EXIT_OK = 0
EXIT_UNEXPECTED = 1
EXIT_CANNOT_RUN = 3

PLATFORMS = ("tpu", "cpu", "cuda")
CONTRAST_PLATFORMS = ("cpu",)
RUN_ON = "cpu"

# What each rule adds to its input; the input is 0, so the output names the
# rule that ran.  Distinct orders of magnitude keep any mix-up unambiguous.
P_TPU = 1000000
Q_CPU = 1
Q_CUDA = 1000
RULE_OF_NUMBER = {P_TPU: "P.tpu", Q_CPU: "Q.cpu", Q_CUDA: "Q.cuda"}

USAGE = "usage: repro_nested_index.py [--json]"


def import_jax():
    """Returns (jax, jnp, np, Primitive, mlir, export) or exits with 3."""
    try:
        import numpy as np
        import jax
        import jax.numpy as jnp
        from jax.interpreters import mlir
        from jax import export
    except Exception as e:  # ImportError, or a broken install
        sys.stderr.write(
            "repro_nested_index: cannot import jax (%s: %s).\n"
            "Install it, e.g. `sh tools/setup-jax.sh 0.10.2` (which creates "
            "build/jax/venv-0.10.2), and run this program with that "
            "environment's python.\n" % (type(e).__name__, e))
        sys.exit(EXIT_CANNOT_RUN)
    try:
        from jax.extend.core import Primitive
    except ImportError:
        from jax.core import Primitive
    return jax, jnp, np, Primitive, mlir, export


def define_primitives(jax, np, Primitive, mlir):
    """The two primitives and their lowering rules; returns P."""
    p_outer = Primitive("lctx_repro_outer_p")
    q_inner = Primitive("lctx_repro_inner_q")

    try:
        shaped_array = jax.core.ShapedArray
    except AttributeError:
        shaped_array = None

    def abstract_eval(x):
        if shaped_array is None:
            return x
        return shaped_array(x.shape, x.dtype)

    for prim in (p_outer, q_inner):
        prim.def_abstract_eval(abstract_eval)

    # Eager use is not part of the reproduction; an impl keeps the primitives
    # well-formed: P behaves as on the CPU, Q as its cpu rule.
    p_outer.def_impl(lambda x: x + np.int32(Q_CPU))
    q_inner.def_impl(lambda x: x + np.int32(Q_CPU))

    def adds(n):
        return mlir.lower_fun(lambda x: x + np.int32(n), multiple_results=False)

    mlir.register_lowering(p_outer, adds(P_TPU), platform="tpu")
    mlir.register_lowering(
        p_outer, mlir.lower_fun(q_inner.bind, multiple_results=False))
    mlir.register_lowering(q_inner, adds(Q_CPU), platform="cpu")
    mlir.register_lowering(q_inner, adds(Q_CUDA), platform="cuda")
    return p_outer


def export_and_call(jax, np, export, p_outer, platforms):
    """Exports jit(P.bind) for `platforms`, calls it here with x = 0.

    Returns (observed int, exported module text)."""
    x = np.int32(0)
    exp = export.export(jax.jit(p_outer.bind), platforms=platforms)(x)
    text = exp.mlir_module()
    out = exp.call(x)
    return int(np.asarray(out)), text


_LOC = re.compile(r"\s+loc\([^()]*(\([^()]*\))*[^()]*\)")


def main_function_text(module_text):
    """@main of the exported module without location annotations."""
    lines = []
    inside = False
    for line in module_text.splitlines():
        if "func.func public @main" in line:
            inside = True
        if inside:
            lines.append(_LOC.sub("", line).rstrip())
            if line.startswith("  }"):
                break
    return "\n".join(lines)


def platform_index_cases(main_text):
    """The case ops indexed directly by the platform-index argument.

    Each is one `lower_per_platform` rule-index case: the list of constants
    its branches return, branch k for platform index k.  Best effort; an
    empty list when the text does not look as expected."""
    m = re.search(r'(%arg\d+): tensor<i32> \{jax\.global_constant = '
                  r'"_platform_index"\}', main_text)
    if not m:
        return []
    index_arg = m.group(1)
    consts = dict(re.findall(
        r"(%[\w]+) = stablehlo\.constant dense<(-?\d+)> : tensor<i32>",
        main_text))
    cases = []
    lines = main_text.splitlines()
    opener = '"stablehlo.case"(%s)' % index_arg
    for n, line in enumerate(lines):
        if opener not in line:
            continue
        indent = len(line) - len(line.lstrip())
        returns = []
        for inner in lines[n + 1:]:
            stripped = inner.strip()
            if (len(inner) - len(inner.lstrip()) == indent
                    and stripped.startswith("})")):
                break
            r = re.match(r"stablehlo\.return (%[\w]+) :", stripped)
            if r:
                returns.append(int(consts.get(r.group(1), -1)))
        cases.append(returns)
    return cases


def run():
    jax, jnp, np, Primitive, mlir, export = import_jax()
    i = PLATFORMS.index(RUN_ON)
    narrowed = [p for p in PLATFORMS if p != "tpu"]  # share P's default rule
    predicted = narrowed[min(i, len(narrowed) - 1)]
    result = {
        "jax_version": jax.__version__,
        "platforms": list(PLATFORMS),
        "run_on": RUN_ON,
        "platform_index": i,
        "narrowed": narrowed,
        "rules": {"P.tpu": P_TPU, "Q.cpu": Q_CPU, "Q.cuda": Q_CUDA},
        "expected": Q_CPU,
        "expected_rule": "Q.cpu",
        "defect_predicts": Q_CUDA,
        "defect_predicts_rule": "Q." + predicted,
        "observed": None,
        "observed_rule": None,
        "contrast": {"platforms": list(CONTRAST_PLATFORMS),
                     "expected": Q_CPU, "observed": None},
        "platform_index_cases": [],
        "stablehlo_main": None,
        "verdict": "error",
        "message": "",
    }
    try:
        p_outer = define_primitives(jax, np, Primitive, mlir)
        observed, text = export_and_call(jax, np, export, p_outer, PLATFORMS)
        result["observed"] = observed
        result["observed_rule"] = RULE_OF_NUMBER.get(observed)
        main_text = main_function_text(text)
        result["stablehlo_main"] = main_text
        result["platform_index_cases"] = platform_index_cases(main_text)
        contrast, _ = export_and_call(jax, np, export, p_outer,
                                      CONTRAST_PLATFORMS)
        result["contrast"]["observed"] = contrast
    except Exception as e:
        result["message"] = "exception: %s: %s" % (type(e).__name__, e)
        return result, EXIT_UNEXPECTED

    if result["contrast"]["observed"] != Q_CPU:
        result["verdict"] = "unexpected"
        result["message"] = (
            "the single-platform export for ('cpu',) gave %d, not %d: the "
            "primitives do not lower as this program assumes"
            % (result["contrast"]["observed"], Q_CPU))
        return result, EXIT_UNEXPECTED
    if observed == Q_CUDA:
        result["verdict"] = "defect"
        result["message"] = (
            "exported for %s and run on cpu (platform index %d), P's default "
            "branch (narrowed to %s) ran Q's cuda rule: %d instead of %d"
            % (list(PLATFORMS), i, narrowed, observed, Q_CPU))
        return result, EXIT_OK
    if observed == Q_CPU:
        result["verdict"] = "fixed"
        result["message"] = (
            "exported for %s and run on cpu, Q's cpu rule ran: %d"
            % (list(PLATFORMS), observed))
        return result, EXIT_OK
    result["verdict"] = "unexpected"
    result["message"] = (
        "exported for %s and run on cpu, got %d (rule %s); expected %d "
        "(correct) or %d (the known defect)"
        % (list(PLATFORMS), observed, RULE_OF_NUMBER.get(observed, "unknown"),
           Q_CPU, Q_CUDA))
    return result, EXIT_UNEXPECTED


HEADLINE = {
    "defect": "DEFECT REPRODUCED: ",
    "fixed": "FIXED IN THIS JAX VERSION: ",
    "unexpected": "UNEXPECTED: ",
    "error": "ERROR: ",
}


def report(result):
    r = result
    lines = [
        "JAX nested platform-index defect (lctx IR-006)",
        "  jax version      %s" % r["jax_version"],
        "  platforms        %s, run on %s (platform index %d)"
        % (", ".join(r["platforms"]), r["run_on"], r["platform_index"]),
        "  rules            P: tpu -> x+%d, default -> lower_fun(Q); "
        "Q: cpu -> x+%d, cuda -> x+%d" % (P_TPU, Q_CPU, Q_CUDA),
        "  P default branch narrowed to [%s]; the defect predicts %s"
        % (", ".join(r["narrowed"]), r["defect_predicts_rule"]),
        "  input            x = 0",
        "  expected         %d (Q's cpu rule)" % r["expected"],
    ]
    if r["observed"] is not None:
        lines.append("  observed         %d (%s)" % (
            r["observed"], r["observed_rule"] or "no rule's number"))
    if r["contrast"]["observed"] is not None:
        lines.append("  contrast         exported for (cpu,) only: %d"
                     % r["contrast"]["observed"])
    if r["platform_index_cases"]:
        lines.append("  index cases      %s (rule index returned per "
                     "module platform index, outer then nested)"
                     % r["platform_index_cases"])
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
            return 2
    result, status = run()
    if as_json:
        print(json.dumps(result, indent=2, sort_keys=True))
    else:
        print(report(result))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
