"""What the attack programs of tests/impls/ (attack_results.py,
attack_signal.py) share: serving lctx as an honest implementation would,
with `hit()` called once, on the Nth case or export.

serve_conform(hit, n, name): the process protocol, answered by the example
implementation (conformance/examples/python/lctx_example.py).
serve_sweep(hit, n, options): the export extension, answered by the fake
exporter of tests/sweep_fake.py (its command-line options in `options`).
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def serve_conform(hit, n, name):
    sys.path.insert(0, os.path.join(HERE, "..", "..", "conformance",
                                    "examples", "python"))
    import lctx_example  # noqa: E402
    from example_wrap import OPERATIONS  # noqa: E402
    cases = 0
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("lctx") == "hello":
            print(json.dumps({"protocol": 1, "name": name, "version": "1",
                              "operations": OPERATIONS}), flush=True)
            continue
        if request.get("lctx") == "bye":
            return 0
        results = []
        for case in request["cases"]:
            cases += 1
            if cases == n:
                hit()
            results.append(lctx_example.run_case(case))
        print(json.dumps({"id": request["id"], "results": results}),
              flush=True)
    return 0


def serve_sweep(hit, n, options):
    sys.path.insert(0, os.path.join(HERE, ".."))
    import sweep_fake  # noqa: E402
    answer = sweep_fake.answer
    calls = [0]

    def attacking_answer(program, platforms):
        calls[0] += 1
        if calls[0] == n:
            hit()
        return answer(program, platforms)

    sweep_fake.answer = attacking_answer
    sys.argv = [sys.argv[0]] + options
    return sweep_fake.main()
