#!/bin/sh
# test_jax_repro_forward_compat.sh - runs
# conformance/adapters/repro_forward_compat_backend_read.py against the real
# JAX and pins what it observes (spec row SW-006, sweep keys "SW-006 a
# .backend read at jax/_src/interpreters/mlir.py:940" and ":942":
# LoweringRuleContext.is_forward_compat reads ModuleContext.backend
# directly, bypassing get_backend(), while the module has several
# platforms). The read is seen through the program's one, recording-only,
# instrumentation of ModuleContext.backend:
#   - jax 0.10.2 (the pinned version): the verdict is "defect": exporting a
#     pallas_call for (tpu, cuda) on the CPU succeeds, and is_forward_compat
#     reads .backend at jax/_src/interpreters/mlir.py:940 and :942, called
#     from jax/_src/pallas/mosaic/lowering.py:1104,
#     jax/_src/tpu_custom_call.py:70 and
#     jax/experimental/mosaic/gpu/core.py:247, with module platforms
#     [tpu, cuda], and gets the cpu client; the forcing runtimes are [];
#     and, through public APIs only, the kernels' forward-compatibility
#     choice is the same as for the single-platform exports (the Mosaic GPU
#     payload equals the (cuda,) one, and differs with
#     jax_export_ignore_forward_compatibility, so it does encode the
#     choice; the TPU payload equals the (tpu,) one);
#   - any other jax version: "defect" (a read at mlir.py under several
#     platforms) or "fixed" (no such read, the export ran), printed;
#     anything else fails;
#   - the human report agrees with the JSON (its verdict line), the
#     program's exit status is 0, and an unknown option gives usage, exit 2.
# LCTX_JAX=off skips (exit 77). A PYTHON that is missing or cannot import
# jax fails: `make test` or `sh tools/setup-jax.sh 0.10.2` creates
# build/jax/venv-0.10.2.
# Usage: test_jax_repro_forward_compat.sh PYTHON SOURCE_DIR
set -u
. "$(dirname -- "$0")/lib.sh"
jax_repro_start test_jax_repro_forward_compat.sh repro_forward_compat_backend_read.py "$@"

# 1. The --json object (jax_repro_start wrote it), judged against the
# pinned version (jax_repro_judge).
jax_repro_judge <<'EOF'
reads = r.get("observed") or []
cons = r.get("consequence") or {}
print("jax %s: verdict %s, %d read(s), message: %s"
      % (version, verdict, len(reads), r.get("message")))
want("platforms", r.get("platforms"), ["tpu", "cuda"])
want("expected", r.get("expected"), [])
for read in reads:
    want("a read's reader", read.get("reader"), "is_forward_compat")
    want("a read's file", read.get("file"), "jax/_src/interpreters/mlir.py")
    if len(read.get("module_platforms") or []) < 2:
        bad.append("a read with fewer than two module platforms: %r" % read)
if version == pinned:
    want("verdict", verdict, "defect")
    want("export", r.get("export"), {"outcome": "ok"})
    mlir = "jax/_src/interpreters/mlir.py"
    callers = ["jax/_src/pallas/mosaic/lowering.py:1104",
               "jax/_src/tpu_custom_call.py:70",
               "jax/experimental/mosaic/gpu/core.py:247"]
    want("the reads", sorted((x.get("line"), x.get("caller")) for x in reads),
         sorted((line, c) for line in (940, 942) for c in callers))
    for read in reads:
        want("a read's module_platforms", read.get("module_platforms"),
             ["tpu", "cuda"])
        want("a read's client platform", (read.get("gave") or {}).get(
            "platform"), "cpu")
    contrast = r.get("contrast") or {}
    for name, lines in (("tpu", callers[:2]), ("cuda", callers[2:])):
        c = contrast.get(name) or {}
        want("contrast %s export" % name, c.get("export"), {"outcome": "ok"})
        want("contrast %s reads" % name,
             sorted((x.get("line"), x.get("caller"), x.get("gave", {}) and
                     x["gave"].get("platform")) for x in c.get("reads") or []),
             sorted((line, cl, "cpu") for line in (940, 942) for cl in lines))
    want("consequence.force_forward_compat_runtimes",
         cons.get("force_forward_compat_runtimes"), [])
    want("consequence.payload_encodes_fwd_compat",
         cons.get("payload_encodes_fwd_compat"), True)
    want("consequence.multi_same_as_alone", cons.get("multi_same_as_alone"),
         True)
    want("consequence.tpu_payload_multi_same_as_alone",
         cons.get("tpu_payload_multi_same_as_alone"), True)
elif verdict == "defect":
    if not reads:
        bad.append("verdict defect without reads")
elif verdict == "fixed":
    want("observed", reads, [])
    want("export", r.get("export"), {"outcome": "ok"})
else:
    bad.append("verdict %r is neither 'defect' nor 'fixed'" % verdict)
EOF

jax_repro_finish
