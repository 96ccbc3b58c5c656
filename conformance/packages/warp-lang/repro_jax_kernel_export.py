#!/usr/bin/env python3
"""Reproduce: a Warp kernel called from JAX (warp.jax_kernel) cannot be
exported, for one platform or several (docs/user-packages.md, warp-lang
finding W1; lctx class other), and its tracing asks the host for its JAX
device whatever platforms are exported for.

jax_kernel binds JAX's ffi_call to an XLA FFI target Warp registers in
this process for cpu and CUDA (warp/_src/jax/ffi.py:77-92, warp-lang
1.19.0), with an attribute `launch_id` that indexes launch data kept in
the Python object (ffi.py:432-440): the lowered module is only meaningful
inside the process that traced it.  jax.export therefore refuses it
(JAX 0.10.2, jax/_src/export/_export.py:1316):

    ValueError: Cannot serialize code with custom calls whose targets
    have no compatibility guarantees

(and DisabledSafetyCheck.custom_call would only produce a module that
cannot run elsewhere).  The probe `host_lookups` records the calls of
jax.local_devices() made while exporting for ("cuda", "cpu"):
`_preload_ffi_module` (ffi.py:432) compiles the kernel's module for
get_jax_device() (warp/_src/jax/__init__.py:77), the host's first
device.  This host look-up is benign for the result (the run-time
callback picks the device by the platform XLA passes, ffi.py:526-545);
lctx's census flags it as host-backend when warp's folder is a user
root.

Verdicts and exit status:
    0  DEFECT REPRODUCED: the serialization refusal above for ("cuda",
       "cpu")
    0  NO DEFECT: the export succeeds
    1  anything else
    2  an unknown option
    3  jax or warp cannot be imported

    python3 repro_jax_kernel_export.py [--json]

Runs with only JAX and warp-lang installed, on the CPU (Warp compiles the
kernel for the CPU on first use, a few seconds, then caches it).
"""

import json
import os
import sys
import traceback

os.environ.setdefault("JAX_PLATFORMS", "cpu")
PLATFORMS = ("cuda", "cpu")
USAGE = "usage: python3 repro_jax_kernel_export.py [--json]"


def make_program():
    import warp as wp
    wp.config.quiet = True

    @wp.kernel
    def scale_kernel(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = 2.0 * x[i]

    kernel = wp.jax_kernel(scale_kernel)
    return lambda x: kernel(x)[0]


def attempt(program, platforms, lookups):
    """Exports `program` for `platforms`, appending to `lookups` each
    jax.local_devices() call made meanwhile (its caller's file:line)."""
    import jax
    import numpy as np
    real = jax.local_devices

    def spy(*args, **kwargs):
        frame = traceback.extract_stack()[-2]
        lookups.append("%s:%d" % (frame.filename.split("site-packages/")[-1],
                                  frame.lineno))
        return real(*args, **kwargs)
    jax.local_devices = spy
    try:
        jax.export.export(jax.jit(program), platforms=platforms)(
            np.linspace(0.0, 1.0, 8, dtype=np.float32))
        return {"outcome": "ok"}
    except Exception as err:  # what the export raised is the observation
        frame = traceback.extract_tb(err.__traceback__)[-1]
        return {"outcome": "raise", "class": type(err).__name__,
                "message": str(err).splitlines()[0][:300],
                "where": "%s:%d" % (frame.filename.split("site-packages/")[-1],
                                    frame.lineno)}
    finally:
        jax.local_devices = real


def run():
    try:
        import jax
        import warp
    except ImportError as err:
        return {"verdict": "error", "message": str(err)}, 3
    lookups = []
    observed = attempt(make_program(), PLATFORMS, lookups)
    result = {"jax_version": jax.__version__,
              "warp_version": warp.__version__,
              "platforms": list(PLATFORMS),
              "expected": "an export",
              "observed": observed,
              "probes": {"host_lookups": lookups}}
    if observed["outcome"] == "ok":
        result["verdict"] = "no defect"
        result["message"] = "jax_kernel exported for %s" % (PLATFORMS,)
        return result, 0
    if "Cannot serialize code with custom calls" in observed["message"]:
        result["verdict"] = "defect"
        result["message"] = "%s: %s at %s" % (
            observed["class"], observed["message"], observed["where"])
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
    for key in ("jax_version", "warp_version", "platforms", "expected"):
        if key in result:
            print("  %-14s %s" % (key, result[key]))
    for name, probe in sorted(result.get("probes", {}).items()):
        print("  probe %-8s %s" % (name, probe))
    print(HEADLINE[result["verdict"]] + result["message"])
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
