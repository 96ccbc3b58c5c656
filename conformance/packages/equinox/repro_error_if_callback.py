#!/usr/bin/env python3
"""Reproduce: equinox's runtime checks (eqx.error_if, and what builds on
it) cannot be exported for several platforms (docs/user-packages.md,
equinox finding E1; lctx class host-callback).

eqx.error_if lowers its check through jax.pure_callback
(equinox/_errors.py:111 in equinox 0.13.8), and JAX refuses host
callbacks under several platforms:

    NotImplementedError: multi-platform lowering for python_callback

(jax/_src/callback.py:798 at JAX 0.10.2).  For one platform the export
fails as well ("serialization of host_callbacks is not yet implemented"):
a program with an eqx.error_if cannot be serialized at all.  The probe
`EQX_ON_ERROR=nan` (equinox's documented switch: a failed check gives NaN
instead of calling back) exports for several platforms.

Verdicts and exit status:
    0  DEFECT REPRODUCED: the refusal above for ("cpu", "cuda")
    0  NO DEFECT: the export for ("cpu", "cuda") succeeds
    1  anything else
    2  an unknown option
    3  jax or equinox cannot be imported

    python3 repro_error_if_callback.py [--json]

Runs with only JAX and equinox installed, on the CPU.
"""

import json
import os
import subprocess
import sys
import traceback

os.environ.setdefault("JAX_PLATFORMS", "cpu")
PLATFORMS = ("cpu", "cuda")
USAGE = "usage: python3 repro_error_if_callback.py [--json]"


def attempt(platforms):
    """Exports the program for `platforms`: {"outcome", "class",
    "message", "where"}."""
    import equinox as eqx
    import jax
    import numpy as np

    def f(x):
        return eqx.error_if(x, x > 10.0, "x too large")

    try:
        jax.export.export(jax.jit(f), platforms=platforms)(
            np.linspace(-1, 1, 8, dtype=np.float32))
        return {"outcome": "ok"}
    except Exception as err:  # what the export raised is the observation
        frame = traceback.extract_tb(err.__traceback__)[-1]
        return {"outcome": "raise", "class": type(err).__name__,
                "message": str(err).splitlines()[0][:300],
                "where": "%s:%d" % (frame.filename.split("site-packages/")[-1],
                                    frame.lineno)}


def probe_on_error_nan():
    """The same export with EQX_ON_ERROR=nan, in a fresh interpreter
    (equinox reads the variable at import)."""
    env = dict(os.environ, EQX_ON_ERROR="nan")
    code = ("import json, sys; sys.argv = ['x']; "
            "import repro_error_if_callback as r; "
            "print(json.dumps(r.attempt(%r)))" % (PLATFORMS,))
    proc = subprocess.run([sys.executable, "-c", code], env=env,
                          cwd=os.path.dirname(os.path.abspath(__file__)),
                          capture_output=True, text=True)
    try:
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"outcome": "error", "message": proc.stderr[-300:]}


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
              "probes": {"cpu_alone": attempt(("cpu",)),
                         "EQX_ON_ERROR=nan": probe_on_error_nan()}}
    obs = result["observed"]
    if obs["outcome"] == "ok":
        result["verdict"] = "no defect"
        result["message"] = "eqx.error_if exported for %s" % (PLATFORMS,)
        return result, 0
    if "multi-platform lowering for python_callback" in obs["message"]:
        result["verdict"] = "defect"
        result["message"] = ("eqx.error_if lowers through a host callback: "
                             "%s: %s at %s" % (obs["class"], obs["message"],
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
