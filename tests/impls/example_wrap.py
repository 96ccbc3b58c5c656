"""The example implementation (conformance/examples/python/lctx_example.py)
under another name over the process protocol, for the test implementations
written in Python: `hello(name, version)` answers lctx's hello, `reword(result,
message)` replaces the message of every raised outcome of a case's result,
and `serve(name, version, message)` answers every request with the example's
results so reworded (the implementations the shell tests write:
test_reports.sh, test_report_html.sh; misbehaving_impl.py uses hello and
reword). `answer(request, results)` writes the answer line to a request and
`run(main)` runs a program's main loop, ending it with status 1 when lctx
closes the pipe or interrupts it (attack_impl.py, hostile_impl.py).
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "conformance", "examples", "python"))
import lctx_example  # noqa: E402

OPERATIONS = ["backends", "canonicalize", "get_backend", "module_get_backend"]


def hello(name, version, operations=OPERATIONS):
    print(json.dumps({"protocol": 1, "name": name, "version": version,
                      "operations": operations}), flush=True)


def answer(request, results):
    """Writes the answer to `request`, its id and `results`, as one line."""
    print(json.dumps({"id": request["id"], "results": results}), flush=True)


def run(main):
    """Runs main(); a closed pipe or an interrupt ends the program with 1."""
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        sys.exit(1)


def reword(result, message):
    for outcome in result.get("outcomes", []):
        if outcome.get("kind") == "raise":
            outcome["message"] = message
    return result


def serve(name, version, message):
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("lctx") == "hello":
            hello(name, version)
            continue
        if request.get("lctx") == "bye":
            return
        answer(request, [reword(lctx_example.run_case(case), message)
                         for case in request["cases"]])
