#!/usr/bin/env python3
"""Reproduce: a Warp kernel called from JAX (warp.jax_kernel) exports only
into a module bound to the process that traced it (docs/user-packages.md,
warp-lang finding W2; lctx class other).

jax_kernel binds JAX's ffi_call to an XLA FFI target Warp registers in
this process for cpu and CUDA (warp/_src/jax/ffi.py:77-92, warp-lang
1.19.0), with an attribute `launch_id` that indexes launch data kept in
the Python object (ffi.py:432-440).  jax.export refuses such a custom
call (JAX 0.10.2, jax/_src/export/_export.py:1316: "Cannot serialize code
with custom calls whose targets have no compatibility guarantees");
with DisabledSafetyCheck.custom_call(TARGET), as a user exporting it
would pass, the export succeeds for ("cuda", "cpu"), and for ("tpu",
"cpu") too, although Warp has no TPU target.  The exported module is
then called on the CPU in a fresh Python process: there
no handler is registered for the target (and the launch data of
`launch_id` is gone), so the call fails; in the exporting process the
same module runs (probe same_process_call).

Verdicts and exit status:
    0  DEFECT REPRODUCED: the module exported for ("cuda", "cpu") fails
       when called in another process
    0  NO DEFECT: it runs there and gives 2 x
    1  anything else (the export itself failing included)
    2  an unknown option
    3  jax or warp cannot be imported

    python3 repro_jax_kernel_export.py [--json]

Runs with only JAX and warp-lang installed, on the CPU (Warp compiles the
kernel for the CPU on first use, a few seconds, then caches it).
"""

import json
import os
import subprocess
import sys
import traceback

os.environ.setdefault("JAX_PLATFORMS", "cpu")
PLATFORMS = ("cuda", "cpu")
USAGE = "usage: python3 repro_jax_kernel_export.py [--json]"
# Run in a fresh process: the module's bytes (Exported.mlir_module_
# serialized) on stdin put into an Exported of the same signature made
# there (what jax.export.deserialize rebuilds; Exported.serialize() itself
# needs the flatbuffers package, not a JAX requirement), then called on
# the CPU; prints the result or what the call raised.
CALLER = """
import dataclasses, sys, jax, numpy as np
x = np.linspace(0.0, 1.0, 8, dtype=np.float32)
same = jax.export.export(jax.jit(lambda x: 2 * x), platforms=%r)(x)
exp = dataclasses.replace(same, mlir_module_serialized=sys.stdin.buffer.read())
try:
    print('ok', np.asarray(exp.call(x)).tolist())
except Exception as err:
    print('raise', type(err).__name__, str(err).splitlines()[0][:300])
"""


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


def export(program, target, platforms):
    """The Exported of `program` for `platforms`, its target's check
    disabled; raises what jax.export raises."""
    import jax
    import numpy as np
    checks = [jax.export.DisabledSafetyCheck.custom_call(target)]
    return jax.export.export(jax.jit(program), platforms=platforms,
                             disabled_checks=checks)(
        np.linspace(0.0, 1.0, 8, dtype=np.float32))


def describe(err):
    frame = traceback.extract_tb(err.__traceback__)[-1]
    return "%s: %s at %s:%d" % (type(err).__name__,
                                str(err).splitlines()[0][:300],
                                frame.filename.split("site-packages/")[-1],
                                frame.lineno)


def run():
    try:
        import jax
        import warp
    except ImportError as err:
        return {"verdict": "error", "message": str(err)}, 3
    program, target = make_program()
    result = {"jax_version": jax.__version__,
              "warp_version": warp.__version__,
              "platforms": list(PLATFORMS), "target": target,
              "expected": "a module that runs where it is deserialized",
              "probes": {}}
    try:
        exported = export(program, target, PLATFORMS)
        export(program, target, ("tpu", "cpu"))
        result["probes"]["tpu_cpu_export"] = "ok (Warp has no TPU target)"
    except Exception as err:  # what the export raised is the observation
        result["verdict"] = "unexpected"
        result["message"] = "the export raised " + describe(err)
        return result, 1
    try:
        import numpy as np
        out = exported.call(np.linspace(0.0, 1.0, 8, dtype=np.float32))
        result["probes"]["same_process_call"] = "ok %s" % (
            np.asarray(out).tolist(),)
    except Exception as err:  # recorded: the control of the probe
        result["probes"]["same_process_call"] = "raise " + describe(err)
    proc = subprocess.run([sys.executable, "-c", CALLER % (PLATFORMS,)],
                          input=exported.mlir_module_serialized,
                          capture_output=True,
                          env=dict(os.environ, JAX_PLATFORMS="cpu"))
    observed = proc.stdout.decode(errors="replace").strip()
    result["observed"] = observed or proc.stderr.decode(
        errors="replace").strip()[-300:]
    if observed.startswith("ok "):
        result["verdict"] = "no defect"
        result["message"] = "the module ran in another process: " + observed
        return result, 0
    if observed.startswith("raise "):
        result["verdict"] = "defect"
        result["message"] = ("exported for %s with custom_call:%s allowed, "
                             "but in another process the call fails: %s"
                             % (PLATFORMS, target, observed[6:]))
        return result, 0
    result["verdict"] = "unexpected"
    result["message"] = "the caller process exited %d: %s" % (
        proc.returncode, result["observed"])
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
    for key in ("jax_version", "warp_version", "platforms", "target",
                "expected"):
        if key in result:
            print("  %-14s %s" % (key, result[key]))
    for name, probe in sorted(result.get("probes", {}).items()):
        print("  probe %-8s %s" % (name, probe))
    print(HEADLINE[result["verdict"]] + result["message"])
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
