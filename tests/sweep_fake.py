#!/usr/bin/env python3
"""A program offering the export operation of the lctx process protocol
(conformance/PROTOCOL.md, "The export operation") over a small catalogue
whose answers are fixed by the program's name, for tests/test_sweep.sh.

It is not JAX: it stands for an implementation under test, so that lctx
sweep's judging and its defences can be checked without JAX, with answers
known in advance:

  good/add, good/mul   export for every list; the same result everywhere
  bad/complete         raises a TypeError for two or more platforms, while
                       each platform alone exports (SW-001)
  bad/complete-big     the same, a larger program of the group (minimizing
                       picks bad/complete)
  bad/dispatch         on the CPU, a list whose first platform is not cpu
                       computes 2.0 instead of 1.0 (SW-005, and SW-004)
  bad/census           calls get_backend() without optional under several
                       platforms (SW-006)
  hostile/garbage      answers with a line that is not JSON
  hostile/hang         never answers
  hostile/die          exits
  hostile/escape       raises with terminal escape sequences in its text
  hostile/wrong-id     answers another request id
  hostile/item-error   answers {"error": ...} for the item

Options: --only-kind KIND keeps the programs whose name starts with KIND/.

--generate makes it build generated programs (`"generate": 1` in its hello;
conformance/sweep/PROGRAMS.md) the way a broken JAX would, by their text:

  a statement `print`          raises the TypeError above for two or more
                               platforms (SW-001)
  a rule `fun F`               its primitive's dispatch reports the first
                               platform's rule for every platform (SW-009)
  a statement `callback`       answers a dispatch whose rules are not a list
                               (the item is marked crash)
  `repro: true`                answers a reproduction holding terminal
                               escape bytes (kept in repro.py as sent)
"""

import json
import os
import sys
import time

PROGRAMS = [
    ("good/add", "good", 1), ("good/mul", "good", 1),
    ("bad/complete", "bad", 1), ("bad/complete-big", "bad", 9),
    ("bad/dispatch", "bad", 1), ("bad/census", "bad", 1),
    ("hostile/garbage", "hostile", 1), ("hostile/hang", "hostile", 1),
    ("hostile/die", "hostile", 1), ("hostile/escape", "hostile", 1),
    ("hostile/wrong-id", "hostile", 1), ("hostile/item-error", "hostile", 1),
]
DIGEST = {1.0: "1" * 64, 2.0: "2" * 64}


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def ok(platforms, value, census=()):
    run = None
    if "cpu" in platforms:
        run = {"digest": DIGEST[value], "dtypes": ["float32"],
               "values": [[value]]}
    return {"outcome": "ok", "module_platforms": list(platforms),
            "primitives": ["add"], "census": list(census), "run": run}


def generated(source, platforms, want_repro):
    """The answer to a generated program, by its text."""
    multi = len(platforms) > 1
    lines = source.split("\n")
    if any(" = print " in l for l in lines) and multi:
        out = {"outcome": "raise", "class": "TypeError",
               "message": "can only concatenate list (not \"tuple\") to list",
               "file": "jax/_src/interpreters/mlir.py", "line": 2562,
               "primitives": ["debug_callback"], "census": []}
    else:
        out = ok(platforms, 1.0)
    dispatch = []
    rules = {}
    for l in lines:
        w = l.split(" ")
        if w[0] == "rule":
            rules.setdefault(w[1], []).append((w[2], w[3]))
    for prim, rs in rules.items():
        if not any(" = prim %s " % prim in l for l in lines):
            continue
        names = [r for r, _ in rs]
        kept = []
        for p in platforms:
            rule = p if p in names else "default" if "default" in names \
                else None
            if rule is None:
                break
            kept.append((rule, p))
        else:
            if any(kind == "fun" for _, kind in rs):  # the broken one
                kept = [(kept[0][0], p) for _, p in kept]
            grouped = {}
            for rule, p in kept:
                grouped.setdefault(rule, []).append(p)
            dispatch.append({"primitive": prim, "platforms": list(platforms),
                             "rules": [{"rule": r, "platforms": ps}
                                       for r, ps in grouped.items()]})
    if any(" = callback " in l for l in lines):
        dispatch = [{"primitive": "p0", "platforms": ["cpu"], "rules": 7}]
    out["dispatch"] = dispatch
    if want_repro:
        out["repro"] = "print('\x1b[2Jrepro of a fake')\n"
    return out


def answer(program, platforms):
    multi = len(platforms) > 1
    if program in ("bad/complete", "bad/complete-big") and multi:
        return {"outcome": "raise", "class": "TypeError",
                "message": "can only concatenate list (not \"tuple\") to list",
                "file": "jax/_src/interpreters/mlir.py", "line": 2562,
                "primitives": ["add"], "census": []}
    if program == "bad/dispatch":
        return ok(platforms, 2.0 if platforms[0] != "cpu" else 1.0)
    if program == "bad/census" and multi:
        call = {"what": "get_backend", "optional": False, "gave": "raise",
                "file": "jax/_src/fake.py", "line": 7,
                "primitive": "fake_prim", "platforms": len(platforms)}
        return ok(platforms, 1.0, [call])
    if program == "hostile/escape":
        return {"outcome": "raise", "class": "ValueError",
                "message": "\x1b[31mred\x1b[0m\x07 result: PASS",
                "file": "jax/_src/\x1b[2Jx.py", "line": 1,
                "primitives": [], "census": []}
    if program == "hostile/item-error":
        return {"error": "cannot run \x1b[1mthis\x1b[0m"}
    return ok(platforms, 1.0)


def main():
    only = None
    gen = "--generate" in sys.argv[1:]
    if len(sys.argv) == 3 and sys.argv[1] == "--only-kind":
        only = sys.argv[2]
    hello = json.loads(sys.stdin.readline())
    catalogue = [{"name": n, "group": g, "kind": n.split("/")[0], "size": s}
                 for n, g, s in PROGRAMS
                 if only is None or n.startswith(only + "/")]
    if "export" not in (hello.get("extensions") or []):
        send({"protocol": 1, "name": "sweep-fake", "version": "1",
              "operations": []})
    else:
        send({"protocol": 1, "name": "sweep-fake", "version": "1",
              "operations": ["export"],
              "jax": {"version": "fake", "jaxlib": "fake", "mutant": None},
              "platforms": json.loads(os.environ.get(
                  "SWEEP_FAKE_PLATFORMS", '["cpu", "cuda", "tpu"]')),
              "lowering_primitives": ["add", "mul", "never_reached"],
              "catalogue": catalogue, **({"generate": 1} if gen else {})})
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("lctx") == "bye":
            return 0
        results = []
        for item in req.get("exports", []):
            program = item["program"]
            if program == "hostile/garbage":
                sys.stdout.write("this is not JSON\n")
                sys.stdout.flush()
                break
            if program == "hostile/hang":
                time.sleep(3600)
            if program == "hostile/die":
                os._exit(9)
            if gen and "source" in item:
                results.append(generated(item["source"], item["platforms"],
                                         item.get("repro") is True))
                continue
            results.append(answer(program, item["platforms"]))
        else:
            rid = req["id"] + (1 if any(i["program"] == "hostile/wrong-id"
                                        for i in req["exports"]) else 0)
            send({"id": rid, "results": results})
    return 0


if __name__ == "__main__":
    sys.exit(main())
