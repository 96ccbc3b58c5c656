#!/usr/bin/env python3
"""Reproduce: brainevent registers a TPU lowering rule that only raises,
so a primitive without a TPU kernel looks covered for tpu and fails
inside lowering (docs/user-packages.md, brainevent finding B3; lctx class
other where JAX's own check would say missing-rule).

XLACustomKernel.__init__ installs a stub rule for "cpu", "gpu" and "tpu"
(brainevent/_op/main.py:210, `_register_stub_lowering`, brainevent
0.2.1) whose function raises KernelFallbackExhaustedError("No kernels
registered for platform 'tpu' ...", main.py:464).  A primitive with no
TPU kernel, like the just-in-time connectivity product float_jitsmv,
keeps that stub, so mlir.py's table claims a tpu rule and an export for
("cpu", "tpu") fails inside the rule, after the other platforms were
lowered, instead of JAX's up-front "MLIR translation rule for primitive
... not found for platforms ['tpu']".  Tools that read the lowering table
to learn which platforms a primitive supports (lctx --package discovery,
JAX's own checks) are misled.

Verdicts and exit status:
    0  DEFECT REPRODUCED: tpu has a rule and the export raises
       KernelFallbackExhaustedError for ("cpu", "tpu")
    0  NO DEFECT: no tpu rule (JAX's missing-rule refusal) or an export
    1  anything else
    2  an unknown option
    3  jax or brainevent cannot be imported

    python3 repro_tpu_stub_rule.py [--json]

Runs with only JAX and brainevent (with its cpu extra, numba) installed,
on the CPU.
"""

import json
import os
import sys
import traceback

os.environ.setdefault("JAX_PLATFORMS", "cpu")
PLATFORMS = ("cpu", "tpu")
USAGE = "usage: python3 repro_tpu_stub_rule.py [--json]"


def program(v):
    import brainevent
    import jax.numpy as jnp
    m = brainevent.JITCScalarR((jnp.float32(1.5), 0.5, 7), shape=(4, 4))
    return m @ v


def attempt(platforms):
    import jax
    import numpy as np
    try:
        jax.export.export(jax.jit(program), platforms=platforms)(
            np.linspace(0.5, 2.0, 4, dtype=np.float32))
        return {"outcome": "ok"}
    except Exception as err:  # what the export raised is the observation
        frame = traceback.extract_tb(err.__traceback__)[-1]
        return {"outcome": "raise", "class": type(err).__name__,
                "message": str(err).splitlines()[0][:300],
                "where": "%s:%d" % (frame.filename.split("site-packages/")[-1],
                                    frame.lineno)}


def tpu_rule():
    """Whether JAX's table holds a tpu rule for float_jitsmv."""
    from jax._src.interpreters import mlir
    for prim in mlir._platform_specific_lowerings.get("tpu", {}):
        if prim.name == "float_jitsmv":
            return True
    return False


def run():
    try:
        import brainevent
        import jax
    except ImportError as err:
        return {"verdict": "error", "message": str(err)}, 3
    observed = attempt(PLATFORMS)
    result = {"jax_version": jax.__version__,
              "brainevent_version": brainevent.__version__,
              "platforms": list(PLATFORMS),
              "tpu_rule_in_table": tpu_rule(),
              "expected": "no tpu rule: JAX's missing-rule refusal naming "
                          "tpu (or a TPU lowering)",
              "observed": observed}
    if observed["outcome"] == "raise" and \
            observed["class"] == "KernelFallbackExhaustedError" and \
            result["tpu_rule_in_table"]:
        result["verdict"] = "defect"
        result["message"] = "a stub tpu rule raised: %s: %s at %s" % (
            observed["class"], observed["message"], observed["where"])
        return result, 0
    if observed["outcome"] == "ok" or (
            "not found for platforms" in observed["message"]):
        result["verdict"] = "no defect"
        result["message"] = "the export %s" % (
            "succeeded" if observed["outcome"] == "ok"
            else "got JAX's missing-rule refusal")
        return result, 0
    result["verdict"] = "unexpected"
    result["message"] = "%s: %s at %s" % (
        observed["class"], observed["message"], observed["where"])
    return result, 1


HEADLINE = {"defect": "DEFECT REPRODUCED: ", "no defect": "NO DEFECT: ",
            "unexpected": "UNEXPECTED: ", "error": "ERROR: "}


def main(argv):
    if argv not in ([], ["--json"]):
        sys.stderr.write(USAGE + "\n")
        return 2
    result, status = run()
    if argv:
        print(json.dumps(result, indent=2, sort_keys=True))
        return status
    for key in ("jax_version", "brainevent_version", "platforms",
                "tpu_rule_in_table", "expected"):
        if key in result:
            print("  %-18s %s" % (key, result[key]))
    print(HEADLINE[result["verdict"]] + result["message"])
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
