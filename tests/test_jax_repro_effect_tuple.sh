#!/bin/sh
# test_jax_repro_effect_tuple.sh - runs
# conformance/adapters/repro_multiplatform_effect_tuple.py against the real
# JAX and pins what it observes (spec row SW-001, sweep key "SW-001
# TypeError at jax/_src/interpreters/mlir.py:2562": lower_per_platform
# concatenates a list with the tuple ctx.avals_out of an uncacheable
# primitive that keeps several rules):
#   - jax 0.10.2 (the pinned version): the verdict is "defect": exporting
#     jax.debug.print for (tpu, cpu) raises TypeError "can only concatenate
#     list (not "tuple") to list" from jax/_src/interpreters/mlir.py:2562
#     (lower_per_platform); so does jit(...).lower(lowering_platforms=...),
#     jax.debug.callback inside lax.cond, and a primitive without effects
#     with a cpu and a tpu rule registered cacheable=False, while the same
#     rules registered cacheable=True export and give 1.0 (the cpu rule) on
#     the CPU; each platform alone fails differently (tpu: ValueError from
#     mlir.py:865, cpu: NotImplementedError from export/_export.py:1102);
#   - any other jax version: "defect" (the TypeError) or "fixed" (the
#     documented NotImplementedError, or an export), printed; anything else
#     fails;
#   - the human report agrees with the JSON (its verdict line), the
#     program's exit status is 0, and an unknown option gives usage, exit 2.
# LCTX_JAX=off skips (exit 77). A PYTHON that is missing or cannot import
# jax fails: `make test` or `sh tools/setup-jax.sh 0.10.2` creates
# build/jax/venv-0.10.2.
# Usage: test_jax_repro_effect_tuple.sh PYTHON SOURCE_DIR
set -u
. "$(dirname -- "$0")/lib.sh"
jax_repro_start test_jax_repro_effect_tuple.sh repro_multiplatform_effect_tuple.py "$@"

# 1. The --json object (jax_repro_start wrote it), judged against the
# pinned version (jax_repro_judge).
jax_repro_judge <<'EOF'
TYPE_ERROR = {
    "outcome": "raise", "class": "TypeError",
    "message": 'can only concatenate list (not "tuple") to list',
    "file": "jax/_src/interpreters/mlir.py", "line": 2562,
    "function": "lower_per_platform",
}
observed = r.get("observed") or {}
probes = r.get("probes") or {}
def want_probe(key, expected):
    want("probes." + key, probes.get(key), expected)
print("jax %s: verdict %s, observed %s: %s, message: %s"
      % (version, verdict, observed.get("class"), observed.get("message"),
         r.get("message")))
want("platforms", r.get("platforms"), ["tpu", "cpu"])
want("expected.class", (r.get("expected") or {}).get("class"),
     "NotImplementedError")
want("expected.message", (r.get("expected") or {}).get("message"),
     "multi-platform lowering for python_callback")
if version == pinned:
    want("verdict", verdict, "defect")
    want("observed", observed, TYPE_ERROR)
    for key in ("debug_print_lower", "debug_callback_in_cond",
                "no_effects_uncacheable_export",
                "no_effects_uncacheable_lower"):
        want_probe(key, TYPE_ERROR)
    want_probe("no_effects_cacheable_export_call_cpu",
               {"outcome": "ok", "value": 1.0})
    want_probe("debug_print_alone_tpu",
               {"outcome": "raise", "class": "ValueError",
                "message": "the platform for the specified backend cpu is "
                           "different from the lowering platform tpu",
                "file": "jax/_src/interpreters/mlir.py", "line": 865,
                "function": "get_backend"})
    want_probe("debug_print_alone_cpu",
               {"outcome": "raise", "class": "NotImplementedError",
                "message": "serialization of host_callbacks is not yet "
                           "implemented",
                "file": "jax/_src/export/_export.py", "line": 1102,
                "function": "_check_lowering"})
elif verdict == "defect":
    want("observed.class", observed.get("class"), "TypeError")
    want("observed.message", observed.get("message"),
         'can only concatenate list (not "tuple") to list')
elif verdict == "fixed":
    if observed.get("outcome") != "ok":
        want("observed.class", observed.get("class"), "NotImplementedError")
else:
    bad.append("verdict %r is neither 'defect' nor 'fixed'" % verdict)
EOF

jax_repro_finish
