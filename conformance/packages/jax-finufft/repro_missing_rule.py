#!/usr/bin/env python3
"""Reproduce: jax-finufft's transforms cannot be exported for any list of
several platforms from the PyPI wheel (docs/user-packages.md, jax-finufft
finding F1; lctx class missing-rule).

jax_finufft/ops.py registers the one lowering rule of nufft1, nufft2 and
nufft3 (jax_finufft/lowering.py `lowering`) for "cpu", and for "cuda" only
when the extension was built with GPU support (ops.py:330-354 in
jax-finufft 1.3.1); the PyPI wheel is CPU-only.  An export for ("cpu",
"cuda") therefore raises JAX's

    NotImplementedError: MLIR translation rule for primitive 'nufft1' not
    found for platforms ['cuda']

(jax/_src/interpreters/mlir.py:2525 at JAX 0.10.2).  Probes: the same for
("cpu", "tpu"), and ("cpu",) alone (fails differently: the FFI target is
not one of jax.export's stable custom calls).

Verdicts and exit status:
    0  DEFECT REPRODUCED: the missing-rule raise for ("cpu", "cuda")
    0  NO DEFECT: the export for ("cpu", "cuda") succeeds
    1  anything else
    2  an unknown option
    3  jax or jax_finufft cannot be imported

    python3 repro_missing_rule.py [--json]

Runs with only JAX and jax-finufft installed, on the CPU.
"""

import json
import os
import sys
import traceback

os.environ.setdefault("JAX_PLATFORMS", "cpu")
PLATFORMS = ("cpu", "cuda")
USAGE = "usage: python3 repro_missing_rule.py [--json]"


def attempt(platforms):
    """Exports a type-1 NUFFT of 16 points to 8 modes for `platforms`."""
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
        import jax_finufft  # noqa: F401
    except ImportError as err:
        return {"verdict": "error", "message": str(err)}, 3
    from jax._src.interpreters import mlir
    from jax_finufft import ops
    result = {"jax_version": jax.__version__,
              "platforms": list(PLATFORMS),
              "rules_for_nufft1": sorted(
                  p for p, t in mlir._platform_specific_lowerings.items()
                  if ops.nufft1_p in t),
              "expected": "an export for several platforms",
              "observed": attempt(PLATFORMS),
              "probes": {"cpu,tpu": attempt(("cpu", "tpu")),
                         "cpu_alone": attempt(("cpu",))}}
    obs = result["observed"]
    if obs["outcome"] == "ok":
        result["verdict"] = "no defect"
        result["message"] = "nufft1 exported for %s" % (PLATFORMS,)
        return result, 0
    if "MLIR translation rule for primitive 'nufft1' not found" in \
            obs["message"]:
        result["verdict"] = "defect"
        result["message"] = "%s: %s at %s (rules: %s)" % (
            obs["class"], obs["message"], obs["where"],
            ", ".join(result["rules_for_nufft1"]))
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
    for key in ("jax_version", "platforms", "rules_for_nufft1", "expected"):
        if key in result:
            print("  %-16s %s" % (key, result[key]))
    for name, probe in sorted(result.get("probes", {}).items()):
        print("  probe %-10s %s" % (name, probe))
    print(HEADLINE[result["verdict"]] + result["message"])
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
