#!/usr/bin/env python3
"""Reproduce: a CSR matrix-vector product of brainevent cannot be exported
for cuda or rocm from a host without JAX's GPU plugin: the lowering
crashes with an AttributeError (docs/user-packages.md, brainevent finding
B1; lctx class other; the cause is JAX's).

brainevent's csrmv kernel for "gpu" (brainevent/_csr/float.py:548,
`jax_raw`, brainevent 0.2.1) calls jax.experimental.sparse's csr_matvec,
whose cuda and rocm rules JAX registers unconditionally
(jax/experimental/sparse/csr.py:522-529 at JAX 0.10.2).  Those rules ask
the GPU plugin's sparse module for a descriptor
(jax/experimental/sparse/_lowerings.py:205), and on a CPU-only jaxlib that
module is None:

    AttributeError: 'NoneType' object has no attribute
    'build_csr_matvec_descriptor'

instead of a refusal naming the missing plugin.  The probe `jax_only`
shows the same with JAX alone (jax.experimental.sparse.CSR @ v exported
for ("cpu", "cuda")).

Verdicts and exit status:
    0  DEFECT REPRODUCED: that AttributeError for ("cpu", "cuda")
    0  NO DEFECT: the export succeeds or refuses with another message
       naming the platform or plugin
    1  anything else
    2  an unknown option
    3  jax or brainevent cannot be imported

    python3 repro_csr_gpu_rule_no_plugin.py [--json]

Runs with only JAX and brainevent (with its cpu extra, numba) installed,
on the CPU.
"""

import json
import os
import sys
import traceback

os.environ.setdefault("JAX_PLATFORMS", "cpu")
PLATFORMS = ("cpu", "cuda")
USAGE = "usage: python3 repro_csr_gpu_rule_no_plugin.py [--json]"
CRASH = "has no attribute 'build_csr_matvec_descriptor'"


def export(fn, args, platforms):
    import jax
    try:
        jax.export.export(jax.jit(fn), platforms=platforms)(*args)
        return {"outcome": "ok"}
    except Exception as err:  # what the export raised is the observation
        frame = traceback.extract_tb(err.__traceback__)[-1]
        return {"outcome": "raise", "class": type(err).__name__,
                "message": str(err).splitlines()[0][:300],
                "where": "%s:%d" % (frame.filename.split("site-packages/")[-1],
                                    frame.lineno)}


def operands():
    import numpy as np
    data = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=np.float32)
    indices = np.array([0, 2, 1, 3, 0, 3], dtype=np.int32)
    indptr = np.array([0, 2, 3, 5, 6], dtype=np.int32)
    return data, indices, indptr, np.linspace(0.5, 2.0, 4, dtype=np.float32)


def brainevent_program(data, v):
    import brainevent
    _, indices, indptr, _ = operands()
    return brainevent.CSR((data, indices, indptr), shape=(4, 4)) @ v


def jax_program(data, v):
    from jax.experimental import sparse
    _, indices, indptr, _ = operands()
    return sparse.CSR((data, indices, indptr), shape=(4, 4)) @ v


def run():
    try:
        import brainevent
        import jax
    except ImportError as err:
        return {"verdict": "error", "message": str(err)}, 3
    data, _, _, v = operands()
    result = {"jax_version": jax.__version__,
              "brainevent_version": brainevent.__version__,
              "platforms": list(PLATFORMS),
              "expected": "an export, or a refusal naming the missing GPU "
                          "plugin",
              "observed": export(brainevent_program, (data, v), PLATFORMS),
              "probes": {"jax_only": export(jax_program, (data, v),
                                            PLATFORMS)}}
    obs = result["observed"]
    if obs["outcome"] == "raise" and CRASH in obs["message"]:
        result["verdict"] = "defect"
        result["message"] = "%s: %s at %s" % (obs["class"], obs["message"],
                                              obs["where"])
        return result, 0
    if obs["outcome"] == "ok" or obs["class"] != "AttributeError":
        result["verdict"] = "no defect"
        result["message"] = "the export %s" % (
            "succeeded" if obs["outcome"] == "ok" else
            "refused: %s: %s" % (obs["class"], obs["message"]))
        return result, 0
    result["verdict"] = "unexpected"
    result["message"] = "%s: %s at %s" % (obs["class"], obs["message"],
                                          obs["where"])
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
                "expected"):
        if key in result:
            print("  %-18s %s" % (key, result[key]))
    for name, probe in sorted(result.get("probes", {}).items()):
        print("  probe %-12s %s" % (name, probe))
    print(HEADLINE[result["verdict"]] + result["message"])
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
