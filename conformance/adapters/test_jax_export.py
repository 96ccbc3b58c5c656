#!/usr/bin/env python3
"""A quick self-test of jax_export.py, run by hand with the interpreter that
has JAX (a few seconds: its sessions start at once):

    LCTX=build/release/harness/lctx \
    build/jax/venv-0.10.2/bin/python conformance/adapters/test_jax_export.py

It starts jax_export.py as lctx would (one JSON object per line on its
stdin and stdout; the lctx of $LCTX reads the rule corpus for it,
tests/test_jax_export.sh sets it) and checks the handshake, a few exports,
the census, and that each mutant breaks what it should.  Standard library
only; skipped when this interpreter cannot import jax and absl, or $LCTX
names no lctx.
"""

import subprocess
import sys
import unittest

from lctx_jax.testkit import (EXPORTER as PROGRAM, LCTX, NO_LCTX, Session,
                              importable, lctx_options)

# The exporter needs JAX and absl, and lctx to read the rule corpus.
READY = importable("jax", "absl") and LCTX is not None
WHY_NOT = "jax or absl is not importable here, or %s" % NO_LCTX


# Every session the tests use, started together (each imports JAX, about a
# second of CPU: at once they share the machine's cores).
SESSIONS = {}


def setUpModule():
    if not READY:
        return
    SESSIONS["main"] = Session()
    SESSIONS["plain"] = Session(extended=False)
    SESSIONS["dispatch-first"] = Session("--mutate", "dispatch-first")
    SESSIONS["get-backend"] = Session("--mutate", "get-backend=sin")
    SESSIONS["order-first"] = Session("--mutate", "order-first", "--mutate",
                                      "dispatch-first")


def tearDownModule():
    for s in SESSIONS.values():
        s.close()


@unittest.skipUnless(READY, WHY_NOT)
class JaxExportTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.s = SESSIONS["main"]

    def test_handshake(self):
        h = self.s.handshake
        self.assertEqual(h["protocol"], 1)
        self.assertEqual(h["name"], "jax-export")
        self.assertEqual(h["operations"], ["export"])
        self.assertIsNone(h["jax"]["mutant"])
        self.assertEqual(h["platforms"][:4], ["cpu", "cuda", "rocm", "tpu"])
        self.assertNotIn("gpu", h["platforms"])
        prims = h["lowering_primitives"]
        self.assertEqual(prims, sorted(set(prims)))
        for name in ("sin", "cond", "debug_callback"):
            self.assertIn(name, prims)
        # JAX's own primitives only: the catalogue's lctx_ ones are left out.
        self.assertFalse([p for p in prims if p.startswith("lctx_")])
        names = [p["name"] for p in h["catalogue"]]
        self.assertEqual(names, sorted(set(names)))
        for name in names:
            self.assertRegex(name, r"^[\x20-\x7e]+$")
            self.assertLessEqual(len(name.encode()), 200)
        kinds = {}
        for p in h["catalogue"]:
            kinds[p["kind"]] = kinds.get(p["kind"], 0) + 1
            self.assertIsInstance(p["size"], int)
        self.assertGreater(kinds["harness"], 5000)
        self.assertEqual(kinds["effect"], 5)
        self.assertEqual(kinds["custom"], 7)
        self.assertEqual(kinds["control"], 16)
        self.assertGreaterEqual(kinds["corpus"], 14)

    def test_ok_with_run(self):
        cpu, multi, tpu = self.s.export("corpus/fix_guarded", ["cpu"],
                                        ["tpu", "cpu"], ["tpu"])
        self.assertEqual(cpu["outcome"], "ok")
        self.assertEqual(multi["module_platforms"], ["tpu", "cpu"])
        self.assertEqual(cpu["run"]["digest"], multi["run"]["digest"])
        self.assertRegex(cpu["run"]["digest"], r"^[0-9a-f]{64}$")
        self.assertEqual(cpu["run"]["dtypes"], ["float32"])
        self.assertEqual(cpu["run"]["shapes"], [[4]])
        self.assertEqual(cpu["run"]["values"], [[1.5, 2.0, 2.5, 3.0]])
        self.assertEqual(cpu["primitives"], ["lctx_fix_guarded:my_custom_op"])
        self.assertEqual(multi["census"], [])
        self.assertIsNone(tpu.get("run"))
        self.assertNotIn("run_error", tpu)

    def test_raise_and_census(self):
        r, = self.s.export("corpus/naive_custom", ["tpu", "cpu"])
        self.assertEqual(r["outcome"], "raise")
        self.assertEqual(r["class"], "NotImplementedError")
        self.assertIn("multi-lowering setting", r["message"])
        self.assertEqual(r["file"], "jax/_src/interpreters/mlir.py")
        self.assertGreater(r["line"], 0)
        self.assertEqual(r["census"], [{
            "what": "get_backend", "optional": False, "gave": "raise",
            "file": "lctx:corpus/rules/naive_custom.rule", "line": 8,
            "primitive": "lctx_naive_custom:my_custom_op", "platforms": 2}])

    def test_jax_census(self):
        r, = self.s.export("corpus/fix_try_fallback", ["cpu", "tpu"])
        self.assertEqual(r["outcome"], "ok")
        self.assertEqual([(c["optional"], c["gave"]) for c in r["census"]],
                         [(False, "raise"), (True, "none")])
        r, = self.s.export("effect/io_callback_ordered", ["cpu"])
        self.assertEqual(r["census"][0]["file"], "jax/_src/callback.py")
        self.assertEqual(r["census"][0]["primitive"], "io_callback")

    def test_harness(self):
        name = [p["name"] for p in self.s.handshake["catalogue"]
                if p["name"].startswith("harness/sin/shape_float32")][0]
        a, b = self.s.export(name, ["cpu"], ["cpu", "cuda", "rocm", "tpu"])
        self.assertEqual(a["outcome"], "ok")
        self.assertEqual(a["run"]["digest"], b["run"]["digest"])
        self.assertIn("sin", a["primitives"])
        again, = self.s.export(name, ["cpu"])
        self.assertEqual(again["run"]["digest"], a["run"]["digest"])

    def test_bad_items(self):
        r, = self.s.export("no/such/program", ["cpu"])
        self.assertIn("error", r)
        self.s.next_id += 1
        answer = self.s.ask({"id": self.s.next_id, "exports": [
            {"program": "corpus/fix_guarded", "platforms": "cpu"}]})
        self.assertIn("error", answer["results"][0])


@unittest.skipUnless(READY, WHY_NOT)
class ProtocolTest(unittest.TestCase):

    def test_without_extension(self):
        s = SESSIONS["plain"]
        self.assertEqual(s.handshake["operations"], [])
        answer = s.ask({"id": 1, "cases": [{}, {}]})
        self.assertEqual(len(answer["results"]), 2)
        self.assertIn("error", answer["results"][0])
        self.assertEqual(s.close(), 0)

    def test_unknown_option(self):
        p = subprocess.run([sys.executable, PROGRAM, "--frobnicate"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--frobnicate", p.stderr)
        self.assertEqual(p.stderr.count("\n"), 1)

    def test_list(self):
        p = subprocess.run([sys.executable, PROGRAM, "--list"]
                           + lctx_options(), capture_output=True, text=True)
        self.assertEqual(p.returncode, 0)
        self.assertIn("corpus/naive_custom\tcorpus\tcorpus\t4\n", p.stdout)


@unittest.skipUnless(READY, WHY_NOT)
class MutantTest(unittest.TestCase):

    def test_dispatch_first(self):
        s = SESSIONS["dispatch-first"]
        self.assertEqual(s.handshake["name"], "jax-export+dispatch-first")
        self.assertEqual(s.handshake["jax"]["mutant"], "dispatch-first")
        cpu, multi = s.export("control/cond_platform_dependent", ["cpu"],
                              ["tpu", "cpu"])
        self.assertNotEqual(cpu["run"]["digest"], multi["run"]["digest"])
        s.close()

    def test_get_backend(self):
        s = SESSIONS["get-backend"]
        name = [p["name"] for p in s.handshake["catalogue"]
                if p["name"].startswith("harness/sin/shape_float32")][0]
        cpu, multi = s.export(name, ["cpu"], ["tpu", "cpu"])
        self.assertEqual(cpu["outcome"], "ok")
        self.assertEqual(multi["outcome"], "raise")
        self.assertIn("multi-lowering setting", multi["message"])
        self.assertEqual([(c["primitive"], c["platforms"])
                          for c in multi["census"]], [("sin", 2)])
        s.close()

    def test_order_first(self):
        s = SESSIONS["order-first"]
        self.assertEqual(s.handshake["jax"]["mutant"],
                         "order-first,dispatch-first")
        a, b = s.export("corpus/fix_guarded", ["tpu", "cpu"], ["cpu", "tpu"])
        self.assertEqual(a["outcome"], "raise")
        self.assertEqual(a["message"], "lctx mutant: order")
        self.assertEqual(b["outcome"], "ok")
        s.close()


if __name__ == "__main__":
    unittest.main()
