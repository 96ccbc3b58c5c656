"""The example implementation (conformance/examples/python/lctx_example.py)
under another name over the process protocol, for the test implementations
written in Python: `hello(name, version)` answers lctx's hello, `reword(result,
message)` replaces the message of every raised outcome of a case's result,
and `serve(name, version, message)` answers every request with the example's
results so reworded (the implementations the shell tests write:
test_reports.sh, test_report_html.sh; misbehaving_impl.py uses hello and
reword).
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "conformance", "examples", "python"))
import lctx_example  # noqa: E402

OPERATIONS = ["backends", "canonicalize", "get_backend", "module_get_backend"]


def hello(name, version):
    print(json.dumps({"protocol": 1, "name": name, "version": version,
                      "operations": OPERATIONS}), flush=True)


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
        results = [reword(lctx_example.run_case(case), message)
                   for case in request["cases"]]
        print(json.dumps({"id": request["id"], "results": results}),
              flush=True)
