#!/usr/bin/env python3
"""module_impl.py - a test implementation (process protocol) whose
lower_per_platform modules attack the judge: the example implementation,
plus register_lowering and lower_per_platform answered `None`, the latter
with a module chosen by the case's jax_platform_name:
  DEEP_ATTR     an attribute nested 30,000 brackets deep
  DEEP_REGIONS  30,000 nested regions
  MINUS_CHAIN   an affine expression of 200,000 unary minus signs (no
                brackets: it passes the depth bound and crashes the parser)
  HUGE          a module of 900 KB of ops
  (other)       a module with no dispatch at all (fails an IR row, politely)
Used by tests/test_conform_judge.sh. Usage: module_impl.py EXAMPLE_DIR
"""
import json
import sys

sys.path.insert(0, sys.argv[1])
import lctx_example as ex  # noqa: E402

MODULES = {
    "DEEP_ATTR": 'module {\n"x.y"() {a = ' + "[" * 30000 + "]" * 30000
                 + "} : () -> ()\n}\n",
    "DEEP_REGIONS": "module {\n" + '"x.y"() ({\n' * 30000
                    + "}) : () -> ()\n" * 30000 + "}\n",
    "MINUS_CHAIN": 'module {\n"x.y"() {a = affine_map<(d0) -> ('
                   + "-" * 200000 + "d0)>} : () -> ()\n}\n",
    "HUGE": "module {\n" + '"x.y"() : () -> ()\n' * 50000 + "}\n",
}
PLAIN = "module {\n  func.func @main() {\n    return\n  }\n}\n"


def run_case(case):
    mode = case.get("jax_platform_name") or ""
    outcomes = []
    registry = ex.registry_from_case(case)
    for i, op in enumerate(case["operations"]):
        if op.get("op") == "register_lowering":
            outcomes.append({"kind": "none"})
        elif op.get("op") == "lower_per_platform":
            outcomes.append({"kind": "none",
                             "mlir": MODULES.get(mode, PLAIN)})
        else:
            outcomes.append(ex.run_operation(registry, op, i))
    return {"outcomes": outcomes}


def main():
    json.loads(sys.stdin.readline())
    ex.send({"protocol": 1, "name": "module-attacker", "version": "1",
             "operations": ["backends", "canonicalize", "get_backend",
                            "module_get_backend", "register_lowering",
                            "lower_per_platform"]})
    return ex.serve(sys.stdin, run_case)


if __name__ == "__main__":
    sys.exit(main())
