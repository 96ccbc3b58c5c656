#!/usr/bin/env python3
"""Reproduce: tracing a Warp kernel called from JAX (warp.jax_kernel) asks
the host for its JAX device, whatever platforms are exported for
(docs/user-packages.md, warp-lang finding W1; lctx class host-backend).

FfiKernel.__call__ calls _preload_ffi_module (warp/_src/jax/ffi.py:432,
warp-lang 1.19.0), which with the default preload mode CURRENT_DEVICE
compiles the kernel's module for get_jax_device()
(warp/_src/jax/__init__.py:77: jax.local_devices()[0]), the host's first
device, while jax.export traces for ("cuda", "cpu").  lctx's census
records it as a host look-up from the package's code at trace time.  On
inspection it is benign for the exported module: the custom call emitted
is the same for every platform, and at run time the FFI callback loads
the module for the device it runs on (ffi.py:526-555); the look-up is
found by lctx because it is the pattern that picks a kernel by the host,
and judged benign by reading that code.

Verdicts and exit status:
    0  DEFECT REPRODUCED: jax.local_devices() is called from warp's code
       while exporting for ("cuda", "cpu")
    0  NO DEFECT: no such call
    1  anything else
    2  an unknown option
    3  jax or warp cannot be imported

    python3 repro_trace_host_lookup.py [--json]

Runs with only JAX and warp-lang installed, on the CPU.
"""

import json
import os
import sys
import traceback

os.environ.setdefault("JAX_PLATFORMS", "cpu")
PLATFORMS = ("cuda", "cpu")
USAGE = "usage: python3 repro_trace_host_lookup.py [--json]"


def make_program():
    """(program, its FFI target's name)."""
    import warp as wp
    wp.config.quiet = True

    @wp.kernel
    def scale_kernel(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = 2.0 * x[i]

    kernel = wp.jax_kernel(scale_kernel)
    return (lambda x: kernel(x)[0]), kernel.name


def export_text(program, target, spy):
    """The module text of `program` exported for PLATFORMS while
    jax.local_devices is `spy`."""
    import jax
    import numpy as np
    real = jax.local_devices
    jax.local_devices = spy
    try:
        checks = [jax.export.DisabledSafetyCheck.custom_call(target)]
        exp = jax.export.export(jax.jit(program), platforms=PLATFORMS,
                                disabled_checks=checks)(
            np.linspace(0.0, 1.0, 8, dtype=np.float32))
        return exp.mlir_module()
    finally:
        jax.local_devices = real


def run():
    try:
        import jax
        import warp
    except ImportError as err:
        return {"verdict": "error", "message": str(err)}, 3
    lookups = []
    real = jax.local_devices

    def spy(*args, **kwargs):
        frame = traceback.extract_stack()[-2]
        lookups.append("%s:%d" % (frame.filename.split("site-packages/")[-1],
                                  frame.lineno))
        return real(*args, **kwargs)
    result = {"jax_version": jax.__version__,
              "warp_version": warp.__version__,
              "platforms": list(PLATFORMS),
              "expected": "no look-up of the host's devices while tracing"}
    try:
        program, target = make_program()
        text = export_text(program, target, spy)
    except Exception as err:  # what the export raised is the observation
        result["verdict"] = "unexpected"
        result["message"] = "%s: %s" % (type(err).__name__, err)
        return result, 1
    result["probes"] = {"host_lookups": lookups,
                        "custom_calls": text.count("custom_call @" + target)}
    mine = [w for w in lookups if w.startswith("warp/")]
    if mine:
        result["verdict"] = "defect"
        result["message"] = ("jax.local_devices() called at %s while "
                             "exporting for %s" % (", ".join(mine),
                                                   PLATFORMS))
        return result, 0
    result["verdict"] = "no defect"
    result["message"] = "no host look-up from warp while exporting"
    return result, 0


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
        print("  probe %-12s %s" % (name, probe))
    print(HEADLINE[result["verdict"]] + result["message"])
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
