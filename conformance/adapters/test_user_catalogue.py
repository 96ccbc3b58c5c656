#!/usr/bin/env python3
"""The exporter's user programs (conformance/sweep/USER.md), run with the
interpreter that has JAX (tests/test_jax_user.sh runs it under the pinned
JAX; a few seconds):

    build/jax/venv-0.10.2/bin/python conformance/adapters/test_user_catalogue.py

It starts jax_export.py with --programs tests/user/mistakes.py (one program
per mistake that breaks a multi-platform export) and checks each result's
outcome, its `user` facts (the raise in the user's code, the primitive, its
rule, its call site) and the census entries located in the user's code;
that bad catalogues are refused at start-up naming file, entry and field
(exit 2, the error in the hello's answer); and the discovery of the
primitives a package registers (--package tests/user/fakepkg, --discover).
The expected lines are found in the fixture's text, not written here.
Standard library only; skipped when this interpreter cannot import jax and
absl."""

import json
import os
import runpy
import subprocess
import sys
import tempfile
import textwrap
import threading
import traceback
import unittest

from lctx_jax.testkit import ADAPTERS, EXPORTER, Session, importable

READY = importable("jax", "absl")
WHY_NOT = "jax or absl is not importable here"
ROOT = os.path.dirname(os.path.dirname(ADAPTERS))
USER = os.path.join(ROOT, "tests", "user")
RULES = "tests/user/user_rules.py"
MISTAKES = "tests/user/mistakes.py"
PAIR = ["cpu", "cuda"]
SESSIONS = {}


def line_of(path, text, nth=1):
    """The number of the nth line of `path` (from ROOT) holding `text`."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        hits = [i for i, line in enumerate(f, 1) if text in line]
    assert len(hits) >= nth, (path, text)
    return hits[nth - 1]


def setUpModule():
    if not READY:
        return
    SESSIONS["user"] = Session("--programs", MISTAKES, cwd=ROOT)
    SESSIONS["package"] = Session("--package", "fakepkg", cwd=USER)


def tearDownModule():
    for s in SESSIONS.values():
        s.close()


def start_exporter(args, cwd, hello=True):
    """jax_export.py `args` started and given a hello (when `hello`) and
    nothing else; `finish` reads it."""
    proc = subprocess.Popen(
        [sys.executable, EXPORTER] + list(args), stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd)
    if hello:
        proc.stdin.write(json.dumps({"lctx": "hello", "protocol": 1,
                                     "extensions": ["export"]}) + "\n")
        proc.stdin.flush()
    return proc


def finish(proc):
    """(status, stdout lines, stderr) of a started exporter."""
    out, err = proc.communicate(timeout=300)
    return proc.returncode, out.splitlines(), err


def run_exporter(args, cwd, hello=True):
    return finish(start_exporter(args, cwd, hello))


def exit_status(code):
    """The exit status of a process ending with SystemExit(code)."""
    if code is None or isinstance(code, int):
        return code or 0
    print(code, file=sys.stderr)
    return 1


def run_forked(args, cwd):
    """jax_export.py `args` given a hello, run as a fresh process runs it
    but in a fork of this one, which imported JAX once (a fresh exporter
    spends about 1.5 s of CPU importing JAX): (status, stdout lines,
    stderr).  The child's stdin, stdout and stderr are pipes, it runs
    jax_export.py as __main__ in `cwd`, and an uncaught exception prints
    its traceback and exits 1, as the interpreter would."""
    import jax  # noqa: F401  (imported once, before the forks)
    pipes = [os.pipe() for _ in range(3)]  # stdin, stdout, stderr
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        status = 1
        try:
            for fd, (r, w) in enumerate(pipes):
                os.dup2(r if fd == 0 else w, fd)
                os.close(r)
                os.close(w)
            os.chdir(cwd)
            sys.argv = [EXPORTER] + list(args)
            try:
                runpy.run_path(EXPORTER, run_name="__main__")
                status = 0
            except SystemExit as done:
                status = exit_status(done.code)
            except BaseException:
                traceback.print_exc()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(status)
    for fd, (r, w) in enumerate(pipes):
        os.close(w if fd else r)
    os.write(pipes[0][1], (json.dumps({"lctx": "hello", "protocol": 1,
                                       "extensions": ["export"]})
                           + "\n").encode())
    os.close(pipes[0][1])
    with os.fdopen(pipes[2][0], encoding="utf-8") as err_pipe:
        err = []
        reader = threading.Thread(target=lambda: err.append(err_pipe.read()))
        reader.start()
        with os.fdopen(pipes[1][0], encoding="utf-8") as out_pipe:
            out = out_pipe.read()
        reader.join()
    _, wait_status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(wait_status), out.splitlines(), err[0]


def place(file, line, function=None):
    out = {"file": file, "line": line}
    if function is not None:
        out["function"] = function
    return out


def user_entries(result):
    """The census entries located in the user's code (not JAX's)."""
    return [e for e in result["census"]
            if e["file"] and not e["file"].startswith("jax/")]


@unittest.skipUnless(READY, WHY_NOT)
class MistakesTest(unittest.TestCase):
    """tests/user/mistakes.py exported for ["cpu", "cuda"]."""

    @classmethod
    def setUpClass(cls):
        cls.s = SESSIONS["user"]

    def export(self, name, platforms=PAIR):
        [result] = self.s.export("user/mistakes/" + name, platforms)
        self.assertIn("user", result, result)
        self.assertEqual(sorted(result["user"]),
                         ["call_site", "primitive", "raise_at", "rule"])
        return result

    def test_handshake(self):
        h = self.s.handshake
        names = [p["name"] for p in h["catalogue"]]
        self.assertEqual(names, ["user/mistakes/" + n for n in (
            "get_backend", "backend_read", "host_rule", "host_trace",
            "missing_rule", "host_callback", "jax_defect", "clean")])
        for p in h["catalogue"]:
            self.assertEqual((p["group"], p["kind"], p["size"]),
                             ("user/mistakes", "user", 4))
            if p["name"].endswith("missing_rule"):
                self.assertEqual(p["platforms"], [["cpu", "tpu"],
                                                  ["cuda", "cpu", "rocm"]])
            else:
                self.assertNotIn("platforms", p)
        # The user's primitives are among those with rules.
        self.assertIn("lctx_user_get_backend", h["lowering_primitives"])

    def test_get_backend(self):
        r = self.export("get_backend")
        self.assertEqual((r["outcome"], r["class"]),
                         ("raise", "NotImplementedError"))
        self.assertIn("accessing .backend in multi-lowering", r["message"])
        rule = place(RULES, line_of(RULES, "def get_backend_rule"),
                     "get_backend_rule")
        site = place(MISTAKES, line_of(MISTAKES, "get_backend_p.bind"))
        self.assertEqual(r["user"], {
            "raise_at": place(RULES, line_of(
                RULES, "get_backend()"), "get_backend_rule"),
            "primitive": "lctx_user_get_backend", "rule": rule,
            "call_site": site})
        [entry] = user_entries(r)
        self.assertEqual((entry["what"], entry["optional"], entry["gave"]),
                         ("get_backend", False, "raise"))
        self.assertEqual((entry["rule"], entry["call_site"]), (rule, site))

    def census_in_rule(self, name, what, text, rule_name, bind):
        r = self.export(name)
        self.assertEqual(r["outcome"], "ok", r)
        self.assertIsNone(r["user"]["raise_at"])
        [entry] = user_entries(r)
        self.assertEqual(entry, {
            "what": what, "optional": None, "gave": "client",
            "file": RULES, "line": line_of(RULES, text),
            "primitive": "lctx_user_" + name, "platforms": 2,
            "rule": place(RULES, line_of(RULES, "def %s(" % rule_name),
                          rule_name),
            "call_site": place(MISTAKES, line_of(MISTAKES, bind))})

    def test_backend_read(self):
        self.census_in_rule("backend_read", "backend",
                            "module_context.backend is None",
                            "backend_read_rule", "backend_read_p.bind")

    def test_host_rule(self):
        self.census_in_rule("host_rule", "host", "jax.devices()[0]",
                            "host_rule", "host_rule_p.bind")

    def test_host_trace(self):
        """A host look-up the user's function makes as it is traced."""
        r = self.export("host_trace")
        self.assertEqual(r["outcome"], "ok", r)
        self.assertEqual(r["census"], [{
            "what": "host", "optional": None, "gave": "client",
            "file": MISTAKES,
            "line": line_of(MISTAKES, "jax.default_backend()"),
            "primitive": None, "platforms": 2}])
        self.assertEqual(r["user"], {"raise_at": None, "primitive": None,
                                     "rule": None, "call_site": None})
        # Its ShapeDtypeStruct argument got 0.5 to 2.0 (x + x on the CPU).
        self.assertEqual(r["run"]["values"], [[1.0, 2.0, 3.0, 4.0]])
        [alone] = self.s.export("user/mistakes/host_trace", ["cpu"])
        self.assertEqual(alone["census"][0]["platforms"], 1)

    def test_missing_rule(self):
        """Each of its declared lists misses a rule."""
        for platforms, missing in ((["cpu", "tpu"], "tpu"),
                                   (["cuda", "cpu", "rocm"], "rocm")):
            r = self.export("missing_rule", platforms)
            self.assertEqual(r["outcome"], "raise")
            self.assertIn("'lctx_user_partial' not found for platforms "
                          "['%s']" % missing, r["message"])
            self.assertEqual(r["user"]["primitive"], "lctx_user_partial")
            self.assertEqual(r["user"]["rule"], place(
                RULES, line_of(RULES, "def _double"), "_double"))
            site = place(MISTAKES, line_of(MISTAKES, "partial_p.bind"))
            self.assertEqual(r["user"]["call_site"], site)
            # Raised inside JAX: the user's frame is where it was bound.
            self.assertEqual(r["user"]["raise_at"],
                             dict(site, function="missing_rule"))

    def test_host_callback(self):
        r = self.export("host_callback")
        self.assertEqual(r["outcome"], "raise")
        self.assertIn("multi-platform lowering for python_callback",
                      r["message"])
        self.assertEqual(r["user"]["primitive"], "pure_callback")
        self.assertTrue(r["user"]["rule"]["file"].startswith("jax/"))
        self.assertEqual(r["user"]["call_site"]["line"],
                         line_of(MISTAKES, "jax.pure_callback("))

    def test_jax_defect(self):
        r = self.export("jax_defect")
        self.assertEqual((r["outcome"], r["class"]), ("raise", "TypeError"))
        self.assertIn("can only concatenate list", r["message"])
        self.assertEqual(r["user"]["call_site"], place(
            MISTAKES, line_of(MISTAKES, "jax.debug.print")))

    def test_clean(self):
        """Only an adapted look-up (optional=True, gave none) in its
        rule: nothing in the user's code that SW-006 flags."""
        r = self.export("clean")
        self.assertEqual(r["outcome"], "ok", r)
        self.assertEqual(r["run"]["values"][0][0] > 0, True)
        for e in user_entries(r):
            self.assertEqual((e["what"], e["optional"], e["gave"]),
                             ("get_backend", True, "none"), e)


BAD = {
    "missing_fn": ('LCTX_PROGRAMS = [{"name": "a", "args": ()}]',
                   "LCTX_PROGRAMS[0].fn: missing"),
    "duplicate": ('LCTX_PROGRAMS = [{"name": "a", "fn": abs, "args": (1.0,)},'
                  ' {"name": "a", "fn": abs, "args": (1.0,)}]',
                  "LCTX_PROGRAMS[1].name: 'a' is already the name of entry 0"),
    "one_platform": ('LCTX_PROGRAMS = [{"name": "a", "fn": abs, '
                     '"args": (1.0,), "platforms": [["cpu"]]}]',
                     "LCTX_PROGRAMS[0].platforms[0]: 1 names (2 to 4)"),
    "twice": ('LCTX_PROGRAMS = [{"name": "a", "fn": abs, "args": (1.0,)},'
              ' {"name": "b", "fn": abs, "args": (1.0,), '
              '"platforms": [["cpu", "tpu"], ["cpu", "cpu"]]}]',
              "LCTX_PROGRAMS[1].platforms[1]: a platform named twice"),
    "unknown_platform": ('LCTX_PROGRAMS = [{"name": "a", "fn": abs, '
                         '"args": (1.0,), "platforms": [["cpu", "metal"]]}]',
                         "LCTX_PROGRAMS[0].platforms[0]: 'metal' is not a "
                         "platform"),
    "raises": ('raise RuntimeError("no GPU here")',
               "importing it raised RuntimeError: no GPU here"),
    "not_list": ('LCTX_PROGRAMS = {"name": "a"}',
                 "LCTX_PROGRAMS: not a list (a dict)"),
    "bad_arg": ('LCTX_PROGRAMS = [{"name": "a", "fn": abs, '
                '"args": ("x",)}]',
                "LCTX_PROGRAMS[0].args[0]: not an array, a scalar"),
    "nothing": ('X = 1', "defines neither LCTX_PROGRAMS"),
    "bad_check": ('LCTX_PROGRAMS = [{"name": "a", "fn": abs, '
                  '"args": (1.0,), "disabled_checks": ["custom_call:ok", '
                  '"custom_call"]}]',
                  "LCTX_PROGRAMS[0].disabled_checks[1]: 'custom_call' is "
                  "neither \"platform\" nor \"custom_call:TARGET\""),
    "checks_not_list": ('LCTX_PROGRAMS = [{"name": "a", "fn": abs, '
                        '"args": (1.0,), "disabled_checks": "platform"}]',
                        "LCTX_PROGRAMS[0].disabled_checks: not a list of "
                        "strings (a str)"),
}


@unittest.skipUnless(READY, WHY_NOT)
class BadCatalogueTest(unittest.TestCase):
    """Each bad catalogue is refused at start-up: the hello is answered
    with the error (naming file, entry and field), stderr says it, exit 2,
    no traceback."""

    def test_bad_catalogues(self):
        """Each run in a fork of this process (run_forked); one of them
        also as a fresh process, which must answer the same."""
        with tempfile.TemporaryDirectory() as tmp:
            for stem, (text, why) in BAD.items():
                path = os.path.join(tmp, stem + ".py")
                with open(path, "w") as f:
                    f.write(text + "\n")
            fresh = start_exporter(["--programs", "raises.py"], tmp)
            for stem, (text, why) in BAD.items():
                status, out, err = run_forked(["--programs", stem + ".py"],
                                              tmp)
                if stem == "raises":
                    self.assertEqual(finish(fresh), (status, out, err))
                with self.subTest(stem):
                    self.assertEqual(status, 2, err)
                    self.assertEqual(len(out), 1, out)
                    answer = json.loads(out[0])
                    self.assertEqual(sorted(answer), ["error", "protocol"])
                    self.assertIn(stem + ".py: ", answer["error"])
                    self.assertIn(why, answer["error"])
                    self.assertIn(why, err)
                    self.assertNotIn("Traceback", err)
            status, out, err = run_exporter(
                ["--programs", "missing_fn.py", "--list"], tmp, hello=False)
            self.assertEqual((status, out), (2, []))
            self.assertIn("LCTX_PROGRAMS[0].fn: missing", err)

    def test_function_form_and_module_name(self):
        """lctx_programs(), a dotted module name, x64 and ShapeDtypeStruct
        values of each kind."""
        with tempfile.TemporaryDirectory() as tmp:
            os.mkdir(os.path.join(tmp, "mylib"))
            open(os.path.join(tmp, "mylib", "__init__.py"), "w").close()
            with open(os.path.join(tmp, "mylib", "cat.py"), "w") as f:
                f.write(textwrap.dedent("""\
                    import jax, jax.numpy as jnp
                    def lctx_programs():
                        return [{"name": "wide", "x64": True,
                                 "fn": lambda a, b, c: (a * 2, b + 1, c),
                                 "args": (jax.ShapeDtypeStruct((3,), jnp.float64),
                                          jax.ShapeDtypeStruct((2, 2), jnp.int32),
                                          jax.ShapeDtypeStruct((2,), jnp.bool_))}]
                    """))
            session = Session("--programs", "mylib.cat", cwd=tmp)
            try:
                entry = session.handshake["catalogue"]
                self.assertEqual(entry, [{"name": "user/mylib.cat/wide",
                                          "group": "user/mylib.cat",
                                          "kind": "user", "size": 9}])
                [r] = session.export("user/mylib.cat/wide", ["cpu", "tpu"])
            finally:
                session.close()
            self.assertEqual(r["outcome"], "ok", r)
            self.assertEqual(r["run"]["dtypes"], ["float64", "int32", "bool"])
            self.assertEqual(r["run"]["values"], [
                [1.0, 2.5, 4.0], [2, 3, 4, 5], [1, 0]])


# One program calling a custom call target nobody registered, exported
# without and with the entry field disabled_checks.
MADE_UP = '''\
import jax, numpy as np
def made_up(x):
    return jax.ffi.ffi_call("lctx_made_up_target",
                            jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
X = np.ones(4, np.float32)
LCTX_PROGRAMS = [
    {"name": "plain", "fn": made_up, "args": (X,)},
    {"name": "allowed", "fn": made_up, "args": (X,),
     "disabled_checks": ["custom_call:lctx_made_up_target", "platform"]},
]
'''


@unittest.skipUnless(READY, WHY_NOT)
class DisabledChecksTest(unittest.TestCase):
    """An entry's disabled_checks reach jax.export.export: a custom call
    without compatibility guarantees is refused without them
    (jax/_src/export/_export.py:1316 at 0.10.2) and exported with them."""

    def test_custom_call(self):
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "made_up.py"), "w") as f:
                f.write(MADE_UP)
            session = Session("--programs", "made_up.py", cwd=tmp)
            try:
                [plain] = session.export("user/made_up/plain", PAIR)
                [allowed] = session.export("user/made_up/allowed", PAIR)
            finally:
                session.close()
        self.assertEqual((plain["outcome"], plain["class"], plain["file"]),
                         ("raise", "ValueError",
                          "jax/_src/export/_export.py"), plain)
        self.assertIn("Cannot serialize code with custom calls whose "
                      "targets have no compatibility guarantees",
                      plain["message"])
        self.assertIn("lctx_made_up_target", plain["message"])
        self.assertEqual(allowed["outcome"], "ok", allowed)
        self.assertEqual(allowed["module_platforms"], PAIR)
        # Exported, but no CPU handler is registered for the target.
        self.assertIsNone(allowed["run"])
        self.assertIn("lctx_made_up_target",
                      allowed["run_error"]["message"])


@unittest.skipUnless(READY, WHY_NOT)
class PackageTest(unittest.TestCase):
    """--package fakepkg: its two primitives found, one driven."""

    def test_discover(self):
        status, out, err = run_exporter(["--package", "fakepkg",
                                         "--discover"], USER, hello=False)
        self.assertEqual(status, 0, err)
        text = "\n".join(out)
        self.assertIn("package fakepkg: 2 primitives registered", text)
        self.assertIn("import failed: fakepkg.cuda_only: ImportError: "
                      "fakepkg.cuda_only needs the CUDA plugin", text)
        self.assertIn("fakepkg_double [default]: program "
                      "package/fakepkg/fakepkg_double (float32[4])", text)
        self.assertIn("fakepkg_scale [cpu]: no program: needs parameters",
                      text)
        self.assertIn("'factor'", text)

    def test_catalogue_and_export(self):
        s = SESSIONS["package"]
        self.assertEqual(s.handshake["catalogue"], [{
            "name": "package/fakepkg/fakepkg_double",
            "group": "package/fakepkg", "kind": "package", "size": 4}])
        init = os.path.join("tests", "user", "fakepkg", "__init__.py")
        rule_line = line_of(init, "def _double_rule")
        call_line = line_of(init, "get_backend()")
        [r] = s.export("package/fakepkg/fakepkg_double", PAIR)
        self.assertEqual(r["outcome"], "raise")
        rule = place("fakepkg/__init__.py", rule_line, "_double_rule")
        self.assertEqual(r["user"], {
            "raise_at": place("fakepkg/__init__.py", call_line,
                              "_double_rule"),
            "primitive": "fakepkg_double", "rule": rule,
            "call_site": None})
        [entry] = user_entries(r)
        self.assertEqual((entry["file"], entry["line"], entry["rule"]),
                         ("fakepkg/__init__.py", call_line, rule))
        self.assertNotIn("call_site", entry)

    def test_bad_package(self):
        status, out, err = run_exporter(["--package", "no_such_pkg_lctx"],
                                        USER)
        self.assertEqual(status, 2)
        self.assertIn("--package no_such_pkg_lctx: importing it raised "
                      "ModuleNotFoundError", json.loads(out[0])["error"])
        status, _, err = run_exporter(["--discover"], USER, hello=False)
        self.assertEqual(status, 2)
        self.assertIn("--discover needs --package", err)


if __name__ == "__main__":
    unittest.main()
