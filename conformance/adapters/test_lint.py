"""Tests of the static check of Python lowering code (lctx_jax/lint.py,
docs/lint.md) on the user fixture tests/user/ (user_rules.py and
mistakes.py: one rule or program per mistake; lint_only.py: what only the
static check sees).  Standard library only; JAX is not imported.

    python3 conformance/adapters/test_lint.py
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

from lctx_jax import lint
from lctx_jax.lint_rules import FIXES

HERE = os.path.dirname(os.path.abspath(__file__))
USER = os.path.join(HERE, "..", "..", "tests", "user")
RULES = os.path.join(USER, "user_rules.py")
MISTAKES = os.path.join(USER, "mistakes.py")
LINT_ONLY = os.path.join(USER, "lint_only.py")


def line_of(path, text, after=None):
    """The 1-based number of the first line holding `text` (after the
    first line holding `after`, when given)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    start = 0
    if after is not None:
        start = next(i for i, l in enumerate(lines) if after in l) + 1
    return next(i + 1 for i, l in enumerate(lines[start:], start)
                if text in l)


def found(path):
    """{(line, class)} of one file's findings, and the findings."""
    findings, files, errors = lint.lint_paths([path], set(
        lint.KNOWN_PLATFORMS))
    assert files == 1 and not errors, errors
    return {(f[1], f[3]) for f in findings}, findings


def fix_of(finding):
    """The fix a finding should carry: its class's (missing-rule's names
    the platforms without a rule, from the message)."""
    if finding[3] != "missing-rule":
        return FIXES[finding[3]]
    missing = finding[4].split("naming ")[1].split(" raises")[0]
    return FIXES["missing-rule"] % missing.replace(" or ", ", ")


def write(folder, files):
    """Write {relative path: text} under folder; the paths, sorted."""
    for rel, text in files.items():
        path = os.path.join(folder, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return sorted(os.path.join(folder, rel) for rel in files)


def run(*args):
    """`python -m lctx_jax.lint ARGS` from this folder."""
    return subprocess.run([sys.executable, "-m", "lctx_jax.lint", *args],
                          cwd=HERE, capture_output=True, text=True,
                          timeout=120)


class UserRules(unittest.TestCase):
    """One rule per mistake: each flagged with its class, nothing else."""

    def test_each_mistake_its_class(self):
        got, findings = found(RULES)
        want = {
            (line_of(RULES, "ctx.module_context.get_backend()",
                     "def get_backend_rule"), "get-backend"),
            (line_of(RULES, "ctx.module_context.backend",
                     "def backend_read_rule"), "backend-read"),
            (line_of(RULES, "jax.devices()", "def host_rule"),
             "host-backend"),
            # mistakes.missing_rule's primitive: at its first registration.
            (line_of(RULES, "register_lowering(partial_p"), "missing-rule"),
        }
        # adapted_rule (optional=True, a default rule) and the metal
        # registration inside try/except NotImplementedError: nothing.
        self.assertEqual(got, want)
        for f in findings:
            self.assertEqual(f[5], fix_of(f))
            self.assertIn("`", f[4])

    def test_missing_rule_names_the_platforms(self):
        _, findings = found(RULES)
        f = next(f for f in findings if f[3] == "missing-rule")
        self.assertEqual(f[2], 1)
        self.assertIn("`partial_p` ('lctx_user_partial')", f[4])
        self.assertIn("only for cpu, cuda", f[4])
        self.assertIn("naming rocm or tpu raises NotImplementedError", f[4])
        # The fix is diagnose.c's, with the platforms without a rule.
        self.assertEqual(f[5], "register a rule for rocm, tpu (mlir."
                         "register_lowering(prim, rule, platform=...)) or a "
                         "default rule, or export without them")

    def test_columns_point_at_the_call(self):
        _, findings = found(RULES)
        line = line_of(RULES, "jax.devices()", "def host_rule")
        col = next(f[2] for f in findings if f[1] == line)
        with open(RULES, encoding="utf-8") as fh:
            text = fh.read().splitlines()[line - 1]
        self.assertEqual(text[col - 1:].split("(")[0], "jax.devices")

    def test_the_traced_programs(self):
        got, findings = found(MISTAKES)
        self.assertEqual(got, {
            (line_of(MISTAKES, "jax.default_backend()", "def host_trace"),
             "host-backend"),
            (line_of(MISTAKES, "jax.pure_callback(", "def host_callback"),
             "host-callback"),
            (line_of(MISTAKES, "jax.debug.print(", "def jax_defect"),
             "jax-defect"),
        })
        by_class = {f[3]: f for f in findings}
        self.assertIn("host_trace", by_class["host-backend"][4])
        cb = by_class["host-callback"]
        self.assertEqual(cb[2], 12)   # the column of jax.pure_callback
        self.assertIn("multi-platform lowering for python_callback", cb[4])
        self.assertEqual(cb[5], "host callbacks refuse several platforms: "
                         "export for one platform at a time (pin one "
                         "platform)")
        defect = by_class["jax-defect"]
        self.assertIn('can only concatenate list (not "tuple") to list',
                      defect[4])
        self.assertEqual(defect[5], "upstream-multiplatform-effect-tuple: no "
                         "JAX release fixes it yet: pin one platform (see "
                         "docs/upstream-multiplatform-effect-tuple.md)")

    def test_fixture_together(self):
        # The catalogue and its rules linted in one run: one finding per
        # mistake, none for clean or adapted_rule.
        findings, files, errors = lint.lint_paths([MISTAKES, RULES], set(
            lint.KNOWN_PLATFORMS))
        self.assertEqual((files, errors), (2, []))
        self.assertEqual(sorted(f[3] for f in findings), [
            "backend-read", "get-backend", "host-backend", "host-backend",
            "host-callback", "jax-defect", "missing-rule"])
        clean = line_of(MISTAKES, "def clean")
        adapted = line_of(RULES, "def adapted_rule")
        for f in findings:
            self.assertFalse(f[0] == MISTAKES and f[1] > clean, f)
            self.assertFalse(f[0] == RULES and adapted <= f[1] < adapted + 8,
                             f)


class LintOnly(unittest.TestCase):
    """An unguarded unknown platform, suppressions, the guard, lower_fun."""

    def test_findings(self):
        got, _ = found(LINT_ONLY)
        self.assertEqual(got, {
            (line_of(LINT_ONLY, 'platform="metal"'), "unknown-platform"),
            (line_of(LINT_ONLY, "return ctx.module_context.backend"),
             "backend-read"),
            (line_of(LINT_ONLY, "jax.default_backend()", "def _impl"),
             "host-backend"),
        })

    def test_known_platform_option(self):
        proc = run("--known-platform", "metal", LINT_ONLY)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertNotIn("unknown-platform", proc.stdout)
        self.assertEqual(len(proc.stdout.splitlines()), 2)


class MissingRule(unittest.TestCase):
    """missing-rule over all the files of one run (lint_registry.py)."""

    PRIM = ("from jax.extend.core import Primitive\n"
            "from jax.interpreters import mlir\n"
            "a_p = Primitive('a')\n")

    def lint(self, files):
        with tempfile.TemporaryDirectory() as tmp:
            paths = write(tmp, files)
            findings, _, errors = lint.lint_paths(paths, set(
                lint.KNOWN_PLATFORMS))
            self.assertEqual(errors, [])
            return [(os.path.relpath(f[0], tmp), f[1], f[3], f[4], f[5])
                    for f in findings if f[3] == "missing-rule"]

    def test_defined_in_one_file_registered_in_another(self):
        got = self.lint({
            "pkg/prims.py": self.PRIM,
            "pkg/rules.py": "from jax.interpreters import mlir\n"
                            "from pkg import prims as p\n"
                            "mlir.register_lowering(p.a_p, r, platform='gpu')\n"
                            "mlir.register_lowering(p.a_p, r, platform='cpu')\n",
        })
        self.assertEqual([g[:3] for g in got],
                         [("pkg/rules.py", 3, "missing-rule")])
        self.assertIn("only for cpu, cuda, oneapi, rocm", got[0][3])
        self.assertIn("register a rule for tpu ", got[0][4])

    def test_a_default_rule_elsewhere_clears_it(self):
        self.assertEqual(self.lint({
            "prims.py": self.PRIM
            + "mlir.register_lowering(a_p, r, platform='cpu')\n",
            "other.py": "from prims import a_p\n"
                        "mlir.register_lowering(a_p, r)\n",
        }), [])

    def test_every_platform_or_unknown_or_plugin_only_is_clean(self):
        self.assertEqual(self.lint({"m.py": self.PRIM + (
            "for plat in ['cpu', 'gpu', 'tpu']:\n"
            "    mlir.register_lowering(a_p, r, platform=plat)\n"
            "b_p = Primitive('b')\n"
            "mlir.register_lowering(b_p, r, platform=name)\n"
            "mlir.register_lowering(b_p, r, platform='cpu')\n"
            "c_p = Primitive('c')\n"
            "mlir.register_lowering(c_p, r, platform='METAL')\n")}), [])

    def test_wrapper_and_factory(self):
        got = self.lint({"m.py": (
            "from jax.extend.core import Primitive\n"
            "from jax.interpreters import mlir\n"
            "def new(name):\n    p = Primitive(name)\n    return p\n"
            "def both(prim, rule, platforms=('cpu', 'cuda')):\n"
            "    for q in platforms:\n"
            "        mlir.register_lowering(prim, rule, platform=q)\n"
            "a_p = new('a')\n"
            "both(a_p, r)\n"
            "b_p = new('b')\n"
            "both(b_p, r, ('cpu', 'cuda', 'rocm', 'tpu'))\n")})
        self.assertEqual([g[1:3] for g in got], [(10, "missing-rule")])
        self.assertIn("register a rule for rocm, tpu ", got[0][4])

    def test_suppressed_on_its_line(self):
        self.assertEqual(self.lint({"m.py": self.PRIM + (
            "mlir.register_lowering(a_p, r, platform='cpu')"
            "  # lctx: ignore[missing-rule]\n")}), [])


class Traced(unittest.TestCase):
    """host-callback and jax-defect in the functions JAX traces."""

    def test_jit_export_and_one_platform(self):
        with tempfile.TemporaryDirectory() as tmp:
            [path] = write(tmp, {"m.py": (
                "import jax\nfrom functools import partial\n"
                "from jax.experimental import io_callback\n"
                "@jax.jit\ndef f(x):\n    return jax.pure_callback(g, x, x)\n"
                "@partial(jax.jit, static_argnums=0)\n"
                "def h(x):\n    jax.debug.callback(g, x)\n"
                "def k(x):\n    return io_callback(g, x, x)\n"
                "def one(x):\n    return io_callback(g, x, x)\n"
                "def host(x):\n    return jax.pure_callback(g, x, x)\n"
                "jax.export.export(jax.jit(k))\n"
                "jax.export.export(one, platforms=['cpu'])\n")})
            got, _ = found(path)
        self.assertEqual(got, {(6, "host-callback"), (9, "jax-defect"),
                               (11, "host-callback")})


class CommandLine(unittest.TestCase):
    """Output format, order and exit statuses."""

    def test_folder_sorted_compiler_style(self):
        with tempfile.TemporaryDirectory() as tmp:
            # The three fixture files, one in a subfolder (recursion), and
            # a cache folder skipped.
            os.makedirs(os.path.join(tmp, "sub", "__pycache__"))
            for src, dst in ((RULES, "user_rules.py"),
                             (MISTAKES, "mistakes.py"),
                             (LINT_ONLY, "sub/lint_only.py"),
                             (RULES, "sub/__pycache__/user_rules.py")):
                with open(src, encoding="utf-8") as f, \
                        open(os.path.join(tmp, dst), "w",
                             encoding="utf-8") as g:
                    g.write(f.read())
            proc = run(tmp)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        lines = proc.stdout.splitlines()
        self.assertEqual(len(lines), 10)
        keys = []
        for line in lines:
            path, num, col, rest = line.split(":", 3)
            cls = rest.split(":")[0].strip()
            self.assertIn(cls, FIXES)
            if "(in traced function " in line and cls == "host-backend":
                self.assertIn("; fix: " + FIXES["host-backend-trace"], line)
            elif cls != "missing-rule":
                self.assertIn("; fix: " + FIXES[cls], line)
            keys.append((path, int(num), int(col)))
        self.assertEqual(keys, sorted(keys))

    def test_json(self):
        proc = run("--format", "json", RULES)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        doc = json.loads(proc.stdout)
        self.assertEqual(doc["files"], 1)
        self.assertEqual(sorted(f["class"] for f in doc["findings"]),
                         ["backend-read", "get-backend", "host-backend",
                          "missing-rule"])

    def test_clean_file_exits_0(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "clean.py")
            with open(path, "w", encoding="utf-8") as f:
                f.write("def rule(ctx, x):\n"
                        "    b = ctx.module_context.get_backend("
                        "optional=True)\n    return [x]\n")
            proc = run(path)
        self.assertEqual((proc.returncode, proc.stdout, proc.stderr),
                         (0, "", ""))

    def test_syntax_error_exits_2_naming_where(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "broken.py")
            with open(path, "w", encoding="utf-8") as f:
                f.write("import jax\n\ndef rule(ctx x):\n    pass\n")
            proc = run(path, RULES)
        self.assertEqual(proc.returncode, 2)
        self.assertIn(path + ":3:", proc.stderr)
        self.assertIn("syntax error", proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
        # The good file's findings are still printed.
        self.assertEqual(len(proc.stdout.splitlines()), 4)

    def test_hostile_files_exit_2_naming_them(self):
        with tempfile.TemporaryDirectory() as tmp:
            cases = (("deep.py", ("x = " + "+".join(["a"] * 200000) + "\n")
                      .encode(), ":1:1: cannot parse: nested too deeply"),
                     ("nul.py", b"x = 1\x00\n", ":1:1: syntax error"))
            for name, data, says in cases:
                path = os.path.join(tmp, name)
                with open(path, "wb") as f:
                    f.write(data)
                proc = run(path)
                self.assertEqual(proc.returncode, 2, name)
                self.assertIn(path + says, proc.stderr)
                self.assertNotIn("Traceback", proc.stderr)
            fifo = os.path.join(tmp, "fifo.py")
            os.mkfifo(fifo)
            proc = run(fifo)
            self.assertEqual(proc.returncode, 2)
            self.assertIn("not a regular file", proc.stderr)

    def test_bad_paths_exit_2(self):
        with tempfile.TemporaryDirectory() as tmp:
            for args, says in ((os.path.join(tmp, "missing.py"),
                                "no such file"),
                               (tmp, "no .py files")):
                proc = run(args)
                self.assertEqual(proc.returncode, 2, args)
                self.assertIn(says, proc.stderr)
                self.assertNotIn("Traceback", proc.stderr)
        proc = run("--format", "xml", RULES)
        self.assertEqual(proc.returncode, 2)
        self.assertNotIn("Traceback", proc.stderr)

    def test_output_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "findings.txt")
            proc = run("--output", out, RULES)
            with open(out, encoding="utf-8") as f:
                written = f.read()
        self.assertEqual((proc.returncode, proc.stdout), (1, ""))
        self.assertEqual(len(written.splitlines()), 4)


if __name__ == "__main__":
    unittest.main()
