#!/bin/sh
# test_jax_repro.sh - runs conformance/adapters/repro_nested_index.py against
# the real JAX and pins what it observes (spec row IR-006, the nested
# platform-index defect of mlir.lower_per_platform):
#   - jax 0.10.2 (the pinned version): the verdict is "defect" and the
#     function exported for (tpu, cpu, cuda) returns 1000 on the CPU (the
#     inner primitive's cuda rule) where 1 (its cpu rule) is right; the
#     export for (cpu,) alone returns 1; the exported module holds the two
#     platform-index case ops [0, 1, 1] (outer) and [0, 1] (nested);
#   - any other jax version: "defect" (1000) or "fixed" (1), printed;
#     anything else fails;
#   - the human report agrees with the JSON (its verdict line), and the
#     program's exit status is 0.
# LCTX_JAX=off skips (exit 77). A PYTHON that is missing or cannot import
# jax fails: `make test` or `sh tools/setup-jax.sh 0.10.2` creates
# build/jax/venv-0.10.2.
# Usage: test_jax_repro.sh PYTHON SOURCE_DIR
set -u
. "$(dirname -- "$0")/lib.sh"
jax_repro_start test_jax_repro.sh repro_nested_index.py "$@"

# 1. The --json object (jax_repro_start wrote it), judged against the
# pinned version (jax_repro_judge).
jax_repro_judge <<'EOF'
observed = r.get("observed")
print("jax %s: verdict %s, observed %r (expected %r), message: %s"
      % (version, verdict, observed, r.get("expected"), r.get("message")))
want("platforms", r.get("platforms"), ["tpu", "cpu", "cuda"])
want("expected", r.get("expected"), 1)
want("contrast.observed", (r.get("contrast") or {}).get("observed"), 1)
if version == pinned:
    want("verdict", verdict, "defect")
    want("observed", observed, 1000)
    want("observed_rule", r.get("observed_rule"), "Q.cuda")
    want("platform_index", r.get("platform_index"), 1)
    want("narrowed", r.get("narrowed"), ["cpu", "cuda"])
    want("platform_index_cases", r.get("platform_index_cases"),
         [[0, 1, 1], [0, 1]])
elif verdict == "defect":
    want("observed", observed, 1000)
elif verdict == "fixed":
    want("observed", observed, 1)
else:
    bad.append("verdict %r is neither 'defect' nor 'fixed'" % verdict)
EOF

jax_repro_finish
