#!/usr/bin/env python3
"""Reproduce: even a GPU build of jax-finufft cannot be exported for
several platforms: its lowering rule refuses them (docs/user-packages.md,
jax-finufft finding F2; lctx class other).

jax_finufft/lowering.py:58 (jax-finufft 1.3.1), the one rule of nufft1,
nufft2 and nufft3, starts with

    if len(ctx.module_context.platforms) > 1:
        raise ValueError("Multi-platform lowering is not supported")

so once the cuda rule exists (a GPU build registers the same function for
"cuda", jax_finufft/ops.py:332), an export for ("cpu", "cuda") raises that
ValueError instead of lowering one case per platform (the fix: branch on
ctx.platforms inside the rule, or register one rule per platform with the
platform bound, as JAX's own rules do).  The PyPI wheel is CPU-only, so
this program performs ops.py:332's registration itself (the rule is the
package's own function, unchanged) and then exports.

Verdicts and exit status:
    0  DEFECT REPRODUCED: the ValueError above for ("cpu", "cuda")
    0  NO DEFECT: the export for ("cpu", "cuda") succeeds or fails
       otherwise at JAX's serialization check only
    1  anything else
    2  an unknown option
    3  jax or jax_finufft cannot be imported

    python3 repro_multi_platform_refusal.py [--json]

Runs with only JAX and jax-finufft installed, on the CPU.
"""

import json
import os
import sys
import traceback

os.environ.setdefault("JAX_PLATFORMS", "cpu")
PLATFORMS = ("cpu", "cuda")
USAGE = "usage: python3 repro_multi_platform_refusal.py [--json]"


def attempt(platforms):
    """Exports a type-1 NUFFT for `platforms`."""
    import jax
    import numpy as np
    from jax_finufft import nufft1

    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(0)
    x = rng.uniform(-np.pi, np.pi, 16)
    c = rng.normal(size=16) + 1j * rng.normal(size=16)
    try:
        jax.export.export(jax.jit(lambda c, x: nufft1(8, c, x, eps=1e-6)),
                          platforms=platforms)(c, x)
        return {"outcome": "ok"}
    except Exception as err:  # what the export raised is the observation
        frame = traceback.extract_tb(err.__traceback__)[-1]
        return {"outcome": "raise", "class": type(err).__name__,
                "message": str(err).splitlines()[0][:300],
                "where": "%s:%d" % (frame.filename.split("site-packages/")[-1],
                                    frame.lineno)}


def run():
    try:
        import jax
        from jax_finufft import lowering, ops
    except ImportError as err:
        return {"verdict": "error", "message": str(err)}, 3
    from jax._src.interpreters import mlir
    gpu_build = lowering.jax_finufft_gpu is not None
    if not gpu_build:  # what jax_finufft/ops.py:332 does on a GPU build
        mlir.register_lowering(ops.nufft1_p, lowering.lowering,
                               platform="cuda")
    result = {"jax_version": jax.__version__,
              "platforms": list(PLATFORMS),
              "gpu_build": gpu_build,
              "expected": "one case per platform (or JAX's serialization "
                          "check on the custom call)",
              "observed": attempt(PLATFORMS)}
    obs = result["observed"]
    if obs["outcome"] == "ok" or "Cannot serialize" in obs["message"]:
        result["verdict"] = "no defect"
        result["message"] = "the rule lowered for %s" % (PLATFORMS,)
        return result, 0
    if "Multi-platform lowering is not supported" in obs["message"]:
        result["verdict"] = "defect"
        result["message"] = "the rule refuses several platforms: %s: %s " \
            "at %s" % (obs["class"], obs["message"], obs["where"])
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
    for key in ("jax_version", "platforms", "gpu_build", "expected"):
        if key in result:
            print("  %-16s %s" % (key, result[key]))
    print(HEADLINE[result["verdict"]] + result["message"])
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
