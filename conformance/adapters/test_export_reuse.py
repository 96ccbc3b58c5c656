#!/usr/bin/env python3
"""The exporter's shared traces change no answer: the same requests sent
to jax_export.py as it runs (a request's items of one of JAX's own
programs share one trace, lowered for each item's platforms: traced.py)
and with --trace-each (every item traced anew by jax.export.export) must
get the same answers, field by field: outcome, raise class, message, file
and line, declared platforms, census, primitives, the CPU run's digest and
values.  Left out: each item's `seconds`, and the part of a message from
the first location inside this folder on (JAX's MLIR locations name the
Python frames that traced an operation, the exporter's own among them).

Run by tests/test_jax_export.sh with the pinned JAX's interpreter:

    LCTX=build/release/harness/lctx \\
    build/jax/venv-0.10.2/bin/python conformance/adapters/test_export_reuse.py

Skipped when this interpreter cannot import jax and absl, or $LCTX names
no lctx (the test script refuses skips)."""

import os
import unittest

from lctx_jax.testkit import ADAPTERS, LCTX, NO_LCTX, Session, importable

READY = importable("jax", "absl") and LCTX is not None
WHY_NOT = "jax or absl is not importable here, or %s" % NO_LCTX

# (program, P): each is asked, in one request, for P, P reversed, ("cpu",)
# when cpu is in P, each other platform of P alone, and P again (a list
# asked twice is traced again: a cached lowering runs no rule).
CASES = [
    ("corpus/fix_guarded", ["tpu", "cpu"]),
    ("corpus/naive_custom", ["tpu", "cpu", "cuda"]),
    ("corpus/fix_try_fallback", ["cpu", "tpu"]),
    ("effect/debug_print", ["cuda", "cpu"]),
    ("effect/io_callback_ordered", ["cpu", "rocm"]),
    ("extra/composite", ["cuda", "cpu"]),
    # Traced with an export inside: its trace is not shared.
    ("extra/call_exported_poly", ["cpu", "tpu"]),
    ("custom/pallas_call", ["tpu", "cuda", "cpu"]),
    ("custom/uncacheable_per_platform", ["rocm", "cpu", "tpu"]),
    ("custom/custom_vjp_grad", ["cpu", "cuda"]),
    ("control/cond_platform_dependent", ["tpu", "cuda", "cpu", "rocm"]),
    ("control/while_loop_debug_callback", ["tpu", "cuda"]),
]

SESSIONS = {}


def setUpModule():
    if READY:
        SESSIONS["shared"] = Session()
        SESSIONS["each"] = Session("--trace-each")


def tearDownModule():
    for s in SESSIONS.values():
        s.close()


def items(program, platforms):
    lists = [platforms, platforms[::-1]]
    if "cpu" in platforms:
        lists.append(["cpu"])
    lists += [[p] for p in platforms if p != "cpu"]
    lists.append(platforms)
    return [{"program": program, "platforms": p} for p in lists]


def cut_at_adapters(text):
    """`text` up to the first MLIR location of a frame in a file of this
    folder (`callsite("FUNCTION"("FILE":LINE...`)."""
    at = text.find(ADAPTERS + os.sep)
    if at < 0:
        return text
    site = text.rfind("callsite(", 0, at)
    return text[:site if site >= 0 else at]


def judged(result):
    """What lctx judges of an answer: all of it but `seconds`, messages
    cut at the exporter's own frames."""
    out = {k: v for k, v in result.items() if k != "seconds"}
    if isinstance(out.get("message"), str):
        out["message"] = cut_at_adapters(out["message"])
    if isinstance(out.get("run_error"), dict):
        error = dict(out["run_error"])
        error["message"] = cut_at_adapters(error.get("message") or "")
        out["run_error"] = error
    return out


@unittest.skipUnless(READY, WHY_NOT)
class SharedTraceTest(unittest.TestCase):

    def test_same_answers(self):
        shared, each = SESSIONS["shared"], SESSIONS["each"]
        names = {p["name"] for p in shared.handshake["catalogue"]}
        harness = sorted(n for n in names
                         if n.startswith("harness/sin/shape_float32"))[0]
        outcomes = set()
        for program, platforms in CASES + [(harness, ["cuda", "cpu"])]:
            self.assertIn(program, names)
            ask = items(program, platforms)
            got, want = shared.items(ask), each.items(ask)
            for item, a, b in zip(ask, got, want):
                self.assertNotIn("error", b, item)
                self.assertEqual(judged(a), judged(b), item)
                outcomes.add(b["outcome"])
                if b.get("run"):
                    outcomes.add("run")
            # The lowering ran for every item: no census or reach lost.
            self.assertTrue(all(r["primitives"] for r in got), program)
        self.assertEqual(outcomes, {"ok", "raise", "run"})


if __name__ == "__main__":
    unittest.main()
