#!/usr/bin/env python3
"""Tests of `python -m lctx_jax.check` (lctx_jax/check.py) against fake
lctx binaries: what it runs (lctx sweep, the exporter, the catalogue made
absolute), where it finds lctx, how it prints the diagnoses of report.json
(compiler style, control bytes escaped, paths relative to the working
folder), its exit statuses (0 clean, 1 diagnoses, 2 bad input or nothing
judged), and that a hostile lctx (no report, garbage, malformed
diagnoses, exit 2) never passes.  Needs no JAX and no real lctx: the real
run is tests/test_user_entries.sh's.

    python3 conformance/adapters/test_check.py -v
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

from lctx_jax import check

ADAPTERS = os.path.dirname(os.path.abspath(__file__))

# A fake lctx: records its argument vector, then does what $FAKE_MODE says
# to the --out folder.
FAKE = r'''#!INTERPRETER
import json, os, sys
argv = sys.argv[1:]
with open(os.environ["FAKE_ARGV"], "w") as f:
    json.dump({"argv": argv, "pythonpath": os.environ.get("PYTHONPATH")}, f)
out = argv[argv.index("--out") + 1]
os.makedirs(out, exist_ok=True)
mode = os.environ.get("FAKE_MODE", "clean")
if mode == "exit2":
    sys.stderr.write("lctx sweep: handshake: the program died; it said: "
                     "mod.py: entry 2: field fn: not callable\x1b[2J\n")
    sys.exit(2)
if mode == "noreport":
    sys.exit(0)
if mode == "garbage":
    open(os.path.join(out, "report.json"), "w").write("{not json")
    sys.exit(1)
report = json.loads(os.environ["FAKE_REPORT"])
with open(os.path.join(out, "report.json"), "w") as f:
    json.dump(report, f)
with open(os.path.join(out, "results.jsonl"), "w") as f:
    f.write('{"implementation": "jax-export"}\n')
    for name, lists in json.loads(os.environ.get("FAKE_CASES", "{}")).items():
        for p in lists:
            f.write(json.dumps({"case": 0, "program": name, "platforms": p,
                                "outcome": "ok"}) + "\n")
    f.write("not json\n")
sys.exit(int(os.environ.get("FAKE_STATUS", "0")))
'''


def diagnosis(base=".", **fields):
    """A diagnosis of report.json; its rule and place under BASE."""
    d = {"program": "user/mod/get_backend", "platforms": ["cpu", "cuda"],
         "class": "get-backend", "primitive": "lctx_user_get_backend",
         "file": os.path.join(base, "pkg", "rules.py"), "line": 27,
         "rule": {"file": os.path.join(base, "pkg", "rules.py"),
                  "line": 25, "function": "get_backend_rule"},
         "call_site": {"file": "/elsewhere/mod.py", "line": 17},
         "message": "accessing .backend in multi-lowering setting",
         "fix": "call ctx.module_context.get_backend(optional=True)"}
    d.update(fields)
    return d


class Fake:
    """A fake lctx in a temporary folder, and a catalogue file beside it."""

    def __init__(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.lctx = os.path.join(self.dir, "lctx")
        with open(self.lctx, "w") as f:
            f.write(FAKE.replace("INTERPRETER", sys.executable))
        os.chmod(self.lctx, 0o755)
        self.spec = os.path.join(self.dir, "mod.py")
        with open(self.spec, "w") as f:
            f.write("LCTX_PROGRAMS = []\n")
        self.argv_file = os.path.join(self.dir, "argv.json")

    def run(self, *args, mode="report", report=None, status=0, cases=None,
            lctx=True, env=None, cwd=None):
        environ = dict(os.environ, FAKE_MODE=mode, FAKE_ARGV=self.argv_file,
                       FAKE_STATUS=str(status), PYTHONPATH=ADAPTERS,
                       FAKE_REPORT=json.dumps(report or {}),
                       FAKE_CASES=json.dumps(cases or {}))
        environ.pop("LCTX", None)
        environ.update(env or {})
        argv = [sys.executable, "-m", "lctx_jax.check"]
        argv += ["--lctx", self.lctx] if lctx else []
        proc = subprocess.run(argv + list(args), capture_output=True,
                              text=True, env=environ, cwd=cwd or self.dir,
                              timeout=60)
        return proc

    def argv(self):
        with open(self.argv_file) as f:
            return json.load(f)

    def close(self):
        self.tmp.cleanup()


def report(diagnoses=(), judged=8):
    return {"cases_run": judged, "diagnoses": list(diagnoses),
            "result": "PASS"}


class CheckTest(unittest.TestCase):
    def setUp(self):
        self.fake = Fake()
        self.addCleanup(self.fake.close)

    def test_runs_the_sweep_on_the_exporter(self):
        proc = self.fake.run("mod.py", "--jobs", "3", "--seed", "5",
                             "--lists", "2", report=report())
        self.assertEqual(proc.returncode, 0, proc.stderr)
        argv = self.fake.argv()["argv"]
        self.assertEqual(argv[0], "sweep")
        for opt, value in (("--jobs", "3"), ("--seed", "5"),
                           ("--lists", "2")):
            self.assertEqual(argv[argv.index(opt) + 1], value)
        self.assertIn("--restart", argv)
        cmd = argv[argv.index("--cmd") + 1].split()
        self.assertEqual(cmd[0], sys.executable)
        self.assertEqual(cmd[1], os.path.join(ADAPTERS, "jax_export.py"))
        self.assertEqual(cmd[cmd.index("--lctx") + 1], self.fake.lctx)
        # The catalogue is made absolute: the exporter runs elsewhere.
        self.assertEqual(cmd[cmd.index("--programs") + 1], self.fake.spec)

    def test_platform_lists_reach_the_exporter(self):
        proc = self.fake.run("mod.py", "--platforms", "cpu,cuda;tpu,cpu",
                             report=report())
        self.assertEqual(proc.returncode, 0, proc.stderr)
        argv = self.fake.argv()["argv"]
        cmd = argv[argv.index("--cmd") + 1].split()
        self.assertEqual(cmd[cmd.index("--platforms") + 1],
                         "'cpu,cuda;tpu,cpu'")
        for given, text in ((["cpu", "cuda"], "cpu,cuda"),
                            ([["cpu", "cuda"], ("tpu", "cpu")],
                             "cpu,cuda;tpu,cpu"),
                            ("cuda,cpu", "cuda,cpu")):
            self.assertEqual(check.platform_option(given), text)
        for bad in ([], [1, 2], [["cpu"], "cuda"], "", "cpu\ncuda", 7):
            with self.assertRaises(check.CheckError):
                check.platform_option(bad)

    def test_module_names_and_packages(self):
        proc = self.fake.run("my.catalogue", "--package", "mypkg",
                             report=report())
        self.assertEqual(proc.returncode, 0, proc.stderr)
        seen = self.fake.argv()
        cmd = seen["argv"][seen["argv"].index("--cmd") + 1].split()
        self.assertEqual(cmd[cmd.index("--programs") + 1], "my.catalogue")
        self.assertEqual(cmd[cmd.index("--package") + 1], "mypkg")
        # A module name is found from the working folder, as python -m
        # finds it.
        self.assertEqual(seen["pythonpath"].split(os.pathsep)[0],
                         os.path.realpath(self.fake.dir))

    def test_clean_passes_and_removes_its_reports(self):
        proc = self.fake.run("mod.py", report=report(),
                             cases={"user/mod/clean": [["cpu", "cuda"]]})
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("1 program, 8 cases judged: no diagnosis",
                      proc.stdout)
        argv = self.fake.argv()["argv"]
        self.assertFalse(os.path.exists(argv[argv.index("--out") + 1]))

    def test_diagnoses_exit_1_in_compiler_style(self):
        proc = self.fake.run(
            "mod.py", report=report([diagnosis(self.fake.dir), diagnosis(
                program="user/mod/cb", **{"class": "host-callback"},
                primitive=None, rule=None, call_site=None, file=None,
                line=None, message="host callbacks refuse")]),
            status=1)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        lines = proc.stdout.splitlines()
        self.assertEqual(lines[0], (
            "pkg/rules.py:27: get-backend: user/mod/get_backend [cpu, cuda]:"
            " accessing .backend in multi-lowering setting "
            "(lctx_user_get_backend, rule pkg/rules.py:25 (get_backend_rule)"
            ", called at /elsewhere/mod.py:17); fix: call "
            "ctx.module_context.get_backend(optional=True)"))
        self.assertEqual(lines[1], "host-callback: user/mod/cb [cpu, cuda]: "
                         "host callbacks refuse; fix: call "
                         "ctx.module_context.get_backend(optional=True)")
        self.assertIn("2 diagnoses (get-backend 1, host-callback 1)",
                      lines[2])
        self.assertIn("reports kept in", proc.stderr)

    def test_a_known_defect_still_fails_the_check(self):
        # The sweep passes (a known defect is xfail) but it is diagnosed.
        proc = self.fake.run("mod.py", report=report([diagnosis(
            **{"class": "jax-defect"})]), status=0)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn(": jax-defect: ", proc.stdout)

    def test_json_format(self):
        proc = self.fake.run("mod.py", "--format", "json",
                             report=report([diagnosis()]), status=1,
                             cases={"user/mod/get_backend": [["cpu", "tpu"]],
                                    "user/mod/clean": [["cpu", "cuda"]]})
        self.assertEqual(proc.returncode, 1, proc.stderr)
        out = json.loads(proc.stdout)
        self.assertFalse(out["ok"])
        self.assertEqual(out["diagnoses"][0]["class"], "get-backend")
        self.assertEqual(out["programs"]["user/mod/clean"],
                         {"lists": [["cpu", "cuda"]], "classes": []})

    def test_control_bytes_are_escaped(self):
        proc = self.fake.run("mod.py", report=report([diagnosis(
            message="bad\x1b]0;title\x07\nnext\u202e", file="a\\b.py")]),
            status=1)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        first = proc.stdout.splitlines()[0]
        self.assertIn("bad\\x1b]0;title\\x07\\x0anext\\xe2\\x80\\xae", first)
        self.assertTrue(first.startswith("a\\\\b.py:27: "), first)
        self.assertNotIn("\x1b", proc.stdout + proc.stderr)

    def test_lctx_exit_2_is_shown_escaped(self):
        proc = self.fake.run("mod.py", mode="exit2")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("could not judge (exit 2)", proc.stderr)
        self.assertIn("field fn: not callable\\x1b[2J", proc.stderr)
        self.assertNotIn("\x1b", proc.stderr)

    def test_hostile_lctx_never_passes(self):
        cases = (("noreport", {}, "lctx wrote no report"),
                 ("garbage", {}, "not a JSON report"),
                 ("report", {"cases_run": 3}, "diagnoses: expected a list"),
                 ("report", {"diagnoses": []}, "cases_run: expected a count"),
                 ("report", report(judged=0), "judged nothing"),
                 ("report", report(["x"]), "diagnoses[0]: expected an obj"),
                 ("report", report([diagnosis(line="27")]),
                  "diagnoses[0].line: expected an integer or null"),
                 ("report", report([diagnosis(rule={"line": 2})]),
                  "diagnoses[0].rule.file: expected a string"),
                 ("report", report([diagnosis(platforms=[1])]),
                  "diagnoses[0].platforms: expected a list of strings"),
                 ("report", report([diagnosis(program=None)]),
                  "diagnoses[0].program: expected a string, got null"))
        for mode, rep, said in cases:
            with self.subTest(mode=mode, said=said):
                proc = self.fake.run("mod.py", mode=mode, report=rep)
                self.assertEqual(proc.returncode, 2, proc.stdout)
                self.assertIn(said, proc.stderr)
                self.assertIn("report.json", proc.stderr)

    def test_the_sweep_failing_without_a_diagnosis_is_a_failure(self):
        proc = self.fake.run("mod.py", report=report(), status=1)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("failed with no diagnosis", proc.stdout)

    def test_bad_input_exits_2_naming_it(self):
        for args, said in ((["missing.py"], "missing.py: no such catalogue"),
                           (["not a name!"], "neither a file nor a dotted"),
                           ([], "nothing to check"),
                           (["mod.py", "--package", "a..b"], "--package"),
                           (["mod.py", "--jobs", "0"], "from 1 to 64"),
                           (["mod.py", "--format", "xml"], "invalid choice")):
            with self.subTest(args=args):
                proc = self.fake.run(*args, report=report())
                self.assertEqual(proc.returncode, 2, proc.stdout)
                self.assertIn(said, proc.stderr)
                self.assertNotIn("Traceback", proc.stderr)

    def test_out_folder_is_kept(self):
        out = os.path.join(self.fake.dir, "reports")
        proc = self.fake.run("mod.py", "--out", out, report=report())
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(os.path.isfile(os.path.join(out, "report.json")))


class FindLctxTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.bins = []
        for name in ("given", "env", "path"):
            folder = os.path.join(self.tmp.name, name)
            os.mkdir(folder)
            path = os.path.join(folder, "lctx")
            with open(path, "w") as f:
                f.write("#!/bin/sh\n")
            os.chmod(path, 0o755)
            self.bins.append(path)

    def test_order(self):
        given, env, on_path = self.bins
        path = os.path.dirname(on_path)
        self.assertEqual(check.find_lctx(given, {"LCTX": env, "PATH": path}),
                         given)
        self.assertEqual(check.find_lctx(None, {"LCTX": env, "PATH": path}),
                         env)
        self.assertEqual(check.find_lctx(None, {"PATH": path}), on_path)

    def test_source_tree_last(self):
        found = None
        try:
            found = check.find_lctx(None, {"PATH": self.tmp.name})
        except check.CheckError as e:
            self.assertIn("no lctx", str(e))
        if found is not None:
            self.assertEqual(found, check.TREE_LCTX)

    def test_a_named_lctx_must_run(self):
        missing = os.path.join(self.tmp.name, "nope")
        with self.assertRaisesRegex(check.CheckError, "--lctx .*nope"):
            check.find_lctx(missing, {})
        with self.assertRaisesRegex(check.CheckError, r"\$LCTX .*nope"):
            check.find_lctx(None, {"LCTX": missing})


class EscapeTest(unittest.TestCase):
    def test_escape(self):
        self.assertEqual(check.escape("a\x01b\\c\x9b\u2066é"),
                         "a\\x01b\\\\c\\xc2\\x9b\\xe2\\x81\\xa6é")
        self.assertEqual(check.escape("\udcff"), "\\xff")
        self.assertEqual(check.escape("x\\y\x7f", backslash=False),
                         "x\\y\\x7f")


if __name__ == "__main__":
    unittest.main()
