#!/usr/bin/env python3
"""A program offering the export operation of the lctx process protocol
(conformance/PROTOCOL.md, "The export operation") over a user's catalogue
(conformance/sweep/USER.md) whose answers are fixed by the program's name,
for tests/test_sweep_diagnose.sh.  It is not JAX: it answers as the
exporter does for a user's programs, with the "user" facts and census
entries in user code, so that the diagnoses can be checked without JAX:

  user/fake/get_backend   raises the M1 refusal from its rule, whose
                          get_backend() call is in the census
  user/fake/host_trace    exports; the census has a host look-up at trace
  user/fake/missing_rule  declares the lists [cpu, tpu] and [cuda, cpu,
                          tpu]; a list with tpu raises the missing rule
  user/fake/defect        raises the TypeError of a known defect
  user/fake/escape        raises from a user file whose name holds terminal
                          escape bytes
  user/fake/clean         exports

Options: --bad-lists makes the hello declare a list of one platform for
missing_rule (refused).  Any other argument is ignored (the command lctx
sweep --programs builds passes --lctx and --programs).
"""

import json
import sys

RULES = "u/rules.py"
MAIN = "u/m.py"
LISTS = [["cpu", "tpu"], ["cuda", "cpu", "tpu"]]
NAMES = ["get_backend", "host_trace", "missing_rule", "defect", "escape",
         "clean"]


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def frame(file, line, function=None):
    out = {"file": file, "line": line}
    if function is not None:
        out["function"] = function
    return out


def user(raise_at=None, primitive=None, rule=None, call_site=None):
    return {"raise_at": raise_at, "primitive": primitive, "rule": rule,
            "call_site": call_site}


def ok(platforms, census=(), facts=None):
    run = None
    if "cpu" in platforms:
        run = {"digest": "1" * 64, "dtypes": ["float32"], "values": [[1.0]]}
    out = {"outcome": "ok", "module_platforms": list(platforms),
           "primitives": ["add"], "census": list(census), "run": run}
    if facts is not None:
        out["user"] = facts
    return out


def raised(cls, message, file, line, facts, census=()):
    return {"outcome": "raise", "class": cls, "message": message,
            "file": file, "line": line, "primitives": [],
            "census": list(census), "user": facts}


def get_backend(platforms):
    if len(platforms) < 2:
        return ok(platforms, facts=user())
    rule = frame(RULES, 28, "get_backend_rule")
    call = frame(MAIN, 16)
    census = {"what": "get_backend", "optional": False, "gave": "raise",
              "file": RULES, "line": 29, "primitive": "lctx_user_get_backend",
              "platforms": len(platforms), "rule": rule, "call_site": call}
    return raised("NotImplementedError",
                  "accessing .backend in multi-lowering setting. This can "
                  "occur when lowering a primitive that has not been adapted "
                  "to multi-platform lowering",
                  "jax/_src/interpreters/mlir.py", 940,
                  user(frame(RULES, 29, "get_backend_rule"),
                       "lctx_user_get_backend", rule, call), [census])


def answer(program, platforms):
    multi = len(platforms) > 1
    name = program.rsplit("/", 1)[-1]
    if name == "get_backend":
        return get_backend(platforms)
    if name == "host_trace" and multi:
        census = {"what": "host", "optional": None, "gave": "client",
                  "file": MAIN, "line": 30, "primitive": None,
                  "platforms": len(platforms)}
        return ok(platforms, [census], user())
    if name == "missing_rule" and multi and "tpu" in platforms:
        return raised("NotImplementedError",
                      "MLIR translation rule for primitive "
                      "'lctx_user_partial' not found for platforms ['tpu']",
                      "jax/_src/interpreters/mlir.py", 2467,
                      user(None, "lctx_user_partial", None, frame(MAIN, 36)))
    if name == "defect" and multi:
        return raised("TypeError",
                      "can only concatenate list (not \"tuple\") to list",
                      "jax/_src/interpreters/mlir.py", 2562,
                      user(None, "debug_callback", None, frame(MAIN, 44)))
    if name == "escape" and multi:
        return raised("ValueError", "bad \x1b[31mred\x1b[0m",
                      "jax/_src/x.py", 3,
                      user(frame("u/\x1b[2Jevil.py", 5, "f\x07"), None, None,
                           None))
    return ok(platforms, facts=user())


def catalogue(bad_lists):
    out = []
    for name in NAMES:
        entry = {"name": "user/fake/" + name, "group": "user/fake",
                 "kind": "user", "size": 4}
        if name == "missing_rule":
            entry["platforms"] = [["cpu"]] if bad_lists else LISTS
        out.append(entry)
    return out


def main():
    hello = json.loads(sys.stdin.readline())
    if "export" not in (hello.get("extensions") or []):
        send({"protocol": 1, "name": "sweep-fake-user", "version": "1",
              "operations": []})
        return 0
    send({"protocol": 1, "name": "sweep-fake-user", "version": "1",
          "operations": ["export"],
          "jax": {"version": "fake", "jaxlib": "fake", "mutant": None},
          "platforms": ["cpu", "cuda", "tpu"],
          "lowering_primitives": ["add"],
          "catalogue": catalogue("--bad-lists" in sys.argv[1:])})
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("lctx") == "bye":
            return 0
        send({"id": req["id"],
              "results": [answer(i["program"], i["platforms"])
                          for i in req.get("exports", [])]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
