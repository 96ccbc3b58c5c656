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
        }
        # adapted_rule (optional=True) and the metal registration inside
        # try/except NotImplementedError: nothing.
        self.assertEqual(got, want)
        for f in findings:
            self.assertEqual(f[5], FIXES[f[3]])
            self.assertIn("`", f[4])

    def test_columns_point_at_the_call(self):
        _, findings = found(RULES)
        line = line_of(RULES, "jax.devices()", "def host_rule")
        col = next(f[2] for f in findings if f[1] == line)
        with open(RULES, encoding="utf-8") as fh:
            text = fh.read().splitlines()[line - 1]
        self.assertEqual(text[col - 1:].split("(")[0], "jax.devices")

    def test_the_host_trace_program(self):
        got, findings = found(MISTAKES)
        self.assertEqual(got, {(line_of(MISTAKES, "jax.default_backend()",
                                        "def host_trace"), "host-backend")})
        self.assertIn("host_trace", findings[0][4])


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
        self.assertEqual(len(lines), 7)
        keys = []
        for line in lines:
            path, num, col, rest = line.split(":", 3)
            cls = rest.split(":")[0].strip()
            self.assertIn(cls, FIXES)
            self.assertIn("; fix: " + FIXES[cls], line)
            keys.append((path, int(num), int(col)))
        self.assertEqual(keys, sorted(keys))

    def test_json(self):
        proc = run("--format", "json", RULES)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        doc = json.loads(proc.stdout)
        self.assertEqual(doc["files"], 1)
        self.assertEqual(sorted(f["class"] for f in doc["findings"]),
                         ["backend-read", "get-backend", "host-backend"])

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
        self.assertEqual(len(proc.stdout.splitlines()), 3)

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
        self.assertEqual(len(written.splitlines()), 3)


if __name__ == "__main__":
    unittest.main()
