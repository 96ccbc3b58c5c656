#!/usr/bin/env python3
"""Reproduce: equinox.internal.noinline cannot be exported for several
platforms, nor serialized at all (docs/user-packages.md, equinox finding
E2; lctx class host-callback).

The lowering rule of equinox's primitive `noinline`
(equinox/internal/_noinline.py:292 `_noinline_mlir`, equinox 0.13.8)
emits a Python callback into the module (mlir.emit_python_callback, line
320), and JAX refuses those under several platforms:

    NotImplementedError: multi-platform lowering for python_callback

(jax/_src/callback.py:798 at JAX 0.10.2); for one platform the export
fails with "serialization of host_callbacks is not yet implemented".

Verdicts and exit status:
    0  DEFECT REPRODUCED: the refusal above for ("cpu", "cuda")
    0  NO DEFECT: the export for ("cpu", "cuda") succeeds
    1  anything else
    2  an unknown option
    3  jax or equinox cannot be imported

    python3 repro_noinline_callback.py [--json]

Runs with only JAX and equinox installed, on the CPU.
"""

import json
import os
import sys
import traceback

os.environ.setdefault("JAX_PLATFORMS", "cpu")
PLATFORMS = ("cpu", "cuda")
USAGE = "usage: python3 repro_noinline_callback.py [--json]"


def attempt(platforms):
    """Exports eqxi.noinline(jnp.sin) for `platforms`."""
    import equinox.internal as eqxi
    import jax
    import jax.numpy as jnp
    import numpy as np

    def f(x):
        return eqxi.noinline(jnp.sin)(x)

    try:
        jax.export.export(jax.jit(f), platforms=platforms)(
            np.linspace(-1, 1, 8, dtype=np.float32))
        return {"outcome": "ok"}
    except Exception as err:  # what the export raised is the observation
        frame = traceback.extract_tb(err.__traceback__)[-1]
        rule = [fr for fr in traceback.extract_tb(err.__traceback__)
                if fr.name == "_noinline_mlir"]
        return {"outcome": "raise", "class": type(err).__name__,
                "message": str(err).splitlines()[0][:300],
                "where": "%s:%d" % (frame.filename.split("site-packages/")[-1],
                                    frame.lineno),
                "rule_frame": ("%s:%d" % (
                    rule[-1].filename.split("site-packages/")[-1],
                    rule[-1].lineno)) if rule else None}


def run():
    try:
        import equinox
        import jax
    except ImportError as err:
        return {"verdict": "error", "message": str(err)}, 3
    result = {"jax_version": jax.__version__,
              "equinox_version": equinox.__version__,
              "platforms": list(PLATFORMS),
              "expected": "an export for several platforms",
              "observed": attempt(PLATFORMS),
              "probes": {"cpu_alone": attempt(("cpu",))}}
    obs = result["observed"]
    if obs["outcome"] == "ok":
        result["verdict"] = "no defect"
        result["message"] = "noinline exported for %s" % (PLATFORMS,)
        return result, 0
    if "multi-platform lowering for python_callback" in obs["message"]:
        result["verdict"] = "defect"
        result["message"] = ("noinline's rule emits a host callback (%s): "
                             "%s: %s at %s" % (obs["rule_frame"],
                                               obs["class"], obs["message"],
                                               obs["where"]))
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
    for key in ("jax_version", "equinox_version", "platforms", "expected"):
        if key in result:
            print("  %-16s %s" % (key, result[key]))
    for name, probe in sorted(result.get("probes", {}).items()):
        print("  probe %-10s %s" % (name, probe))
    print(HEADLINE[result["verdict"]] + result["message"])
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
