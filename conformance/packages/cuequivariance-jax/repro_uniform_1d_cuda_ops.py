#!/usr/bin/env python3
"""Reproduce: cuequivariance-jax's method "uniform_1d" cannot be exported
for cuda from a host without the CUDA kernels' wheel, while every other
platform falls back (docs/user-packages.md, cuequivariance-jax finding
C1; lctx class other).

segmented_polynomial has a default rule and a cuda rule, both
`segmented_polynomial_impl` with the platform bound
(cuequivariance_jax/segmented_polynomials/segmented_polynomial.py:782-796,
cuequivariance-jax 0.13.0): the right pattern for several platforms.  For
platforms other than cuda it falls back to "naive" with a warning (line
519); the cuda rule imports cuequivariance_ops_jax while lowering and,
when that GPU-only wheel is absent on the exporting host, raises

    ValueError: cuequivariance_ops_jax is not installed: ...

(segmented_polynomial_uniform_1d.py:173), so an export for ("cpu",
"cuda") from a CPU machine fails, although ("cpu", "rocm") and ("cpu",
"tpu") export.  Fix: install cuequivariance-ops-jax on the exporting
host, export with method "naive", or let the cuda rule fall back too.

Verdicts and exit status:
    0  DEFECT REPRODUCED: that ValueError for ("cpu", "cuda")
    0  NO DEFECT: the export for ("cpu", "cuda") succeeds
    1  anything else
    2  an unknown option
    3  jax or cuequivariance_jax cannot be imported

    python3 repro_uniform_1d_cuda_ops.py [--json]

Runs with only JAX and cuequivariance-jax installed, on the CPU.
"""

import json
import os
import sys
import traceback
import warnings

os.environ.setdefault("JAX_PLATFORMS", "cpu")
PLATFORMS = ("cpu", "cuda")
USAGE = "usage: python3 repro_uniform_1d_cuda_ops.py [--json]"


def attempt(platforms):
    """Exports a small channel-wise tensor product, method uniform_1d."""
    import cuequivariance as cue
    import cuequivariance_jax as cuex
    import jax
    import jax.numpy as jnp
    import numpy as np

    poly = cue.descriptors.channelwise_tensor_product(
        cue.Irreps(cue.O3, "2x0e + 2x1o"), cue.Irreps(cue.O3, "0e + 1o"),
        cue.Irreps(cue.O3, "2x0e + 2x1o")).polynomial
    rng = np.random.default_rng(0)
    args = (rng.normal(size=(poly.inputs[0].size,)).astype(np.float32),
            rng.normal(size=(3, poly.inputs[1].size)).astype(np.float32),
            rng.normal(size=(3, poly.inputs[2].size)).astype(np.float32))
    out = jax.ShapeDtypeStruct((3, poly.outputs[0].size), jnp.float32)

    def f(w, a, b):
        return cuex.segmented_polynomial(poly, [w, a, b], [out],
                                         method="uniform_1d")[0]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            jax.export.export(jax.jit(f), platforms=platforms)(*args)
        return {"outcome": "ok"}
    except Exception as err:  # what the export raised is the observation
        frame = traceback.extract_tb(err.__traceback__)[-1]
        return {"outcome": "raise", "class": type(err).__name__,
                "message": str(err).splitlines()[0][:300],
                "where": "%s:%d" % (frame.filename.split("site-packages/")[-1],
                                    frame.lineno)}


def run():
    try:
        import cuequivariance_jax
        import jax
    except ImportError as err:
        return {"verdict": "error", "message": str(err)}, 3
    result = {"jax_version": jax.__version__,
              "cuequivariance_jax_version": cuequivariance_jax.__version__,
              "platforms": list(PLATFORMS),
              "expected": "an export (the naive fallback, or the CUDA "
                          "kernel)",
              "observed": attempt(PLATFORMS),
              "probes": {"cpu,rocm": attempt(("cpu", "rocm")),
                         "cpu,tpu": attempt(("cpu", "tpu"))}}
    obs = result["observed"]
    if obs["outcome"] == "ok":
        result["verdict"] = "no defect"
        result["message"] = "uniform_1d exported for %s" % (PLATFORMS,)
        return result, 0
    if "cuequivariance_ops_jax is not installed" in obs["message"]:
        result["verdict"] = "defect"
        result["message"] = "the cuda rule needs the CUDA kernels' wheel " \
            "on the exporting host: %s: %s at %s" % (
                obs["class"], obs["message"], obs["where"])
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
    for key in ("jax_version", "cuequivariance_jax_version", "platforms",
                "expected"):
        if key in result:
            print("  %-26s %s" % (key, result[key]))
    for name, probe in sorted(result.get("probes", {}).items()):
        print("  probe %-8s %s" % (name, probe))
    print(HEADLINE[result["verdict"]] + result["message"])
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
