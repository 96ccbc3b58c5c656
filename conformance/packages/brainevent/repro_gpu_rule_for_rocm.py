#!/usr/bin/env python3
"""Reproduce: brainevent lowers its event-driven primitives for ROCm (and
oneAPI) with its CUDA kernel, built at lowering time with the host's CUDA
toolchain (docs/user-packages.md, brainevent finding B2; lctx class
other).

brainevent's XLACustomKernel registers one rule per kernel platform with
mlir.register_lowering(prim, rule, platform="gpu")
(brainevent/_op/main.py:588, brainevent 0.2.1); JAX 0.10.2 files a "gpu"
rule under cuda, rocm and oneapi alike (jax/_src/interpreters/mlir.py
register_lowering, mlir.py:997), and the rule (`fallback_kernel_fn`) picks the default
backend of "gpu", `cuda_raw`, whatever platform is being lowered: it never
reads ctx.platforms.  So an export for ("cpu", "rocm") compiles the CUDA
kernel (or, on a host without CUDA headers, raises
KernelCompilationError naming backend 'cuda_raw' on platform 'gpu').  The
fix: branch on ctx.platforms / register per platform (cuda, rocm), and do
not need the host's toolchain to lower for another platform.

Verdicts and exit status:
    0  DEFECT REPRODUCED: the ("cpu", "rocm") export went to the cuda_raw
       kernel (it raised naming it, or exported while rocm's rule is
       cuda's)
    0  NO DEFECT: rocm has its own rule, or the export neither names
       cuda_raw nor shares cuda's rule
    1  anything else
    2  an unknown option
    3  jax or brainevent cannot be imported

    python3 repro_gpu_rule_for_rocm.py [--json]

Runs with only JAX and brainevent (with its cpu extra, numba) installed,
on the CPU.
"""

import json
import os
import sys
import traceback

os.environ.setdefault("JAX_PLATFORMS", "cpu")
PLATFORMS = ("cpu", "rocm")
USAGE = "usage: python3 repro_gpu_rule_for_rocm.py [--json]"


def attempt(platforms):
    """Exports a dense @ binary-events product for `platforms`."""
    import brainevent
    import jax
    import numpy as np

    w = np.arange(16, dtype=np.float32).reshape(4, 4) / 16
    spikes = np.array([True, False, True, True])
    try:
        jax.export.export(
            jax.jit(lambda w, s: w @ brainevent.BinaryArray(s)),
            platforms=platforms)(w, spikes)
        return {"outcome": "ok"}
    except Exception as err:  # what the export raised is the observation
        frame = traceback.extract_tb(err.__traceback__)[-1]
        return {"outcome": "raise", "class": type(err).__name__,
                "message": str(err).splitlines()[0][:300],
                "where": "%s:%d" % (frame.filename.split("site-packages/")[-1],
                                    frame.lineno)}


def rules_shared():
    """Whether rocm's and oneapi's rules for binary_densemv are cuda's."""
    import brainevent
    from jax._src.interpreters import mlir
    prim = brainevent.binary_densemv_p.primitive
    table = mlir._platform_specific_lowerings
    def rule(platform):
        entry = table.get(platform, {}).get(prim)
        return getattr(entry, "rule", entry)
    return {p: (rule("cuda") is not None and rule(p) is rule("cuda"))
            for p in ("rocm", "oneapi") if p in table}


def run():
    try:
        import brainevent
        import jax
    except ImportError as err:
        return {"verdict": "error", "message": str(err)}, 3
    result = {"jax_version": jax.__version__,
              "brainevent_version": brainevent.__version__,
              "platforms": list(PLATFORMS),
              "rule_is_cuda_rule": rules_shared(),
              "expected": "a ROCm lowering (or a refusal naming rocm)",
              "observed": attempt(PLATFORMS)}
    obs = result["observed"]
    shared = result["rule_is_cuda_rule"].get("rocm")
    if obs["outcome"] == "raise" and "cuda_raw" in obs["message"]:
        result["verdict"] = "defect"
        result["message"] = ("lowering for rocm ran the CUDA kernel's "
                             "builder: %s: %s at %s" % (
                                 obs["class"], obs["message"], obs["where"]))
        return result, 0
    if shared and (obs["outcome"] == "ok" or "Cannot serialize" in
                   obs.get("message", "")):
        result["verdict"] = "defect"
        result["message"] = "rocm's rule is cuda's: the export lowered " \
            "the CUDA kernel for rocm"
        return result, 0
    if not shared:
        result["verdict"] = "no defect"
        result["message"] = "rocm has a rule of its own"
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
                "rule_is_cuda_rule", "expected"):
        if key in result:
            print("  %-18s %s" % (key, result[key]))
    print(HEADLINE[result["verdict"]] + result["message"])
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
