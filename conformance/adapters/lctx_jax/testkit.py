"""What the tests beside the entry scripts share (test_jax_export.py,
test_jax_program.py, test_jaxlib_clients.py): whether JAX is here, and the
exporter (jax_export.py) as a child process spoken to as lctx speaks.

The exporter reads lctx's rule corpus through lctx (corpus.py): the tests
give it the lctx named by $LCTX (tests/test_jax_export.sh sets it to the
build's); without it the corpus programs are missing and the tests that
need them are skipped, saying so."""

import json
import os
import subprocess
import sys

ADAPTERS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXPORTER = os.path.join(ADAPTERS, "jax_export.py")
LCTX = os.environ.get("LCTX") or None
NO_LCTX = "no lctx named by $LCTX: the rule corpus is not read"


def importable(*names):
    """Whether every module of `names` imports here."""
    try:
        for name in names:
            __import__(name)
        return True
    except Exception:
        return False


def lctx_options():
    """The exporter's --lctx option, when $LCTX names one."""
    return ["--lctx", LCTX] if LCTX else []


class Session:
    """jax_export.py as a child process. It is started and greeted at
    once; its handshake is read when first needed, so that sessions started
    together import JAX at the same time."""

    def __init__(self, *options, extended=True, cwd=None):
        self.proc = subprocess.Popen(
            [sys.executable, EXPORTER] + lctx_options() + list(options),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, encoding="utf-8",
            cwd=cwd)
        hello = {"lctx": "hello", "protocol": 1}
        if extended:
            hello["extensions"] = ["export"]
        self.proc.stdin.write(json.dumps(hello) + "\n")
        self.proc.stdin.flush()
        self._handshake = None
        self.next_id = 0

    def _line(self):
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError("jax_export.py closed its output")
        return json.loads(line)

    @property
    def handshake(self):
        if self._handshake is None:
            self._handshake = self._line()
        return self._handshake

    def ask(self, obj):
        self.handshake  # noqa: B018 (read first: it comes first)
        self.proc.stdin.write(json.dumps(obj) + "\n")
        self.proc.stdin.flush()
        return self._line()

    def items(self, items):
        """The results of one request of export `items`."""
        self.next_id += 1
        answer = self.ask({"id": self.next_id, "exports": items})
        assert answer["id"] == self.next_id, answer
        return answer["results"]

    def export(self, program, *platform_lists):
        """A catalogue program exported for each platform list."""
        return self.items([{"program": program, "platforms": list(p)}
                           for p in platform_lists])

    def export_source(self, text, *platform_lists, repro=False,
                      name="gen/test"):
        """A generated program (its text) exported for each list."""
        items = []
        for p in platform_lists:
            item = {"program": name, "source": text, "platforms": list(p)}
            if repro:
                item["repro"] = True
            items.append(item)
        return self.items(items)

    def close(self):
        if self.proc.stdin.closed:
            return self.proc.wait(timeout=60)
        self.proc.stdin.close()
        status = self.proc.wait(timeout=60)
        self.proc.stdout.close()
        return status
