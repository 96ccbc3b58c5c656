"""`python -m lctx_jax.lint`: the static check of Python lowering code for
the mistakes that break an export for several platforms at once (the
dynamic check of the same thing is the sweep's census; docs/lint.md).

    python -m lctx_jax.lint [--format text|json] [--known-platform NAME]...
                            [--output FILE] PATH...

PATH: a Python file (any name), or a folder whose *.py files are checked,
recursively (folders starting with '.' and __pycache__ skipped).  Each
finding is one line, sorted by file, line, column and class:

    FILE:LINE:COL: CLASS: message; fix: ...

LINE and COL count from 1 (COL in characters).  Classes (lint_rules.py
says exactly which code each flags, and which functions count as lowering
rules):

    get-backend       get_backend() without optional=True on a module
                      context, or any get_backend() in a lowering rule
    backend-read      a read of a module context's .backend
    host-backend      jax.default_backend(), jax.devices(),
                      jax.local_devices(), xla_bridge.get_backend/devices/
                      local_devices/default_backend in a lowering rule, a
                      function a rule lowers or calls, or a function that
                      binds a primitive (trace time)
    unknown-platform  register_lowering(..., platform="X") for a platform
                      JAX does not know, not guarded by a try that catches
                      NotImplementedError
    missing-rule      a primitive created in the linted files with rules
                      for some of cpu, cuda, rocm, tpu and no default rule,
                      over all the files of the run (lint_registry.py)
    host-callback     jax.pure_callback / io_callback / host_callback in a
                      traced function (a catalogue's fn, a jax.jit or
                      jax.export.export function, one binding a primitive)
                      or a function a rule lowers
    jax-defect        jax.debug.print / jax.debug.callback there (the
                      effect-tuple TypeError of JAX 0.8.3 through 0.12.1)

A finding is dropped when its line carries `# lctx: ignore[CLASS]` (several
classes separated by commas; `# lctx: ignore` alone drops every class).

--format json prints {"files": N, "findings": [{"file", "line", "column",
"class", "message", "fix"}]} instead.  --output FILE writes the findings
there instead of standard output.  Exit status: 0 no finding, 1 findings,
2 bad input (a path that does not exist or cannot be read, a file that is
not valid Python: named FILE:LINE:COL on standard error; the other files'
findings are still printed).  Standard library only: JAX is never
imported.
"""

import argparse
import ast
import json
import os
import re
import sys

from .lint_registry import Registry
from .lint_rules import CLASSES, FIXES, KNOWN_PLATFORMS, Finding, check_tree

IGNORE = re.compile(r"#\s*lctx:\s*ignore(?:\[([^\]]*)\])?")


class BadInput(Exception):
    """A path that cannot be linted; str() is the whole message."""


class ArgumentError(Exception):
    """A bad command line."""


class Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so that main() says it."""

    def error(self, message):
        raise ArgumentError(message)


def python_files(path):
    """The files a PATH names: itself, or a folder's *.py, sorted."""
    if os.path.isdir(path):
        found = []
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs
                             if not d.startswith(".") and d != "__pycache__")
            found.extend(os.path.join(root, f) for f in sorted(files)
                         if f.endswith(".py") and not f.startswith("."))
        if not found:
            raise BadInput("%s: no .py files in this folder" % path)
        return sorted(found)
    if not os.path.exists(path):
        raise BadInput("%s: no such file or folder" % path)
    if not os.path.isfile(path):
        raise BadInput("%s: not a regular file" % path)
    return [path]


def read_source(path):
    """The bytes of one file, or BadInput naming it."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise BadInput("%s: cannot read: %s" % (path, e.strerror or e))


def parse(path, source):
    """The tree of a file's source, or BadInput naming FILE:LINE:COL."""
    try:
        return ast.parse(source, filename=path)
    except SyntaxError as e:
        line = e.lineno or 1
        col = e.offset or 1
        raise BadInput("%s:%d:%d: syntax error: %s"
                       % (path, line, col, e.msg))
    except (ValueError, UnicodeDecodeError) as e:
        raise BadInput("%s:1:1: cannot parse: %s" % (path, e))
    except (RecursionError, MemoryError):
        raise BadInput("%s:1:1: cannot parse: nested too deeply for Python's "
                       "parser" % path) from None


def character_column(lines, line, byte_col):
    """1-based character column of a 0-based UTF-8 byte offset."""
    if 1 <= line <= len(lines):
        text = lines[line - 1]
        return len(text[:byte_col].decode("utf-8", "replace")) + 1
    return byte_col + 1


def suppressed(lines, finding):
    """Whether the finding's line says `# lctx: ignore[...]` for it."""
    if not 1 <= finding.line <= len(lines):
        return False
    text = lines[finding.line - 1].decode("utf-8", "replace")
    for match in IGNORE.finditer(text):
        if match.group(1) is None:
            return True
        named = {c.strip() for c in match.group(1).split(",")}
        if finding.cls in named:
            return True
    return False


def kept(path, lines, found):
    """The findings of one file not suppressed on their line, as
    (path, line, col, class, message, fix)."""
    return [(path, f.line, character_column(lines, f.line, f.col), f.cls,
             f.message, f.fix) for f in found if not suppressed(lines, f)]


def missing_rules(registry, lines_of):
    """The missing-rule findings of a run's registry (lint_registry.py),
    over all its files."""
    out = []
    for path, line, col, message, missing in registry.findings():
        f = Finding(line, col, "missing-rule", message,
                    FIXES["missing-rule"] % ", ".join(missing))
        out.extend(kept(path, lines_of[path], [f]))
    return out


def lint_paths(paths, known):
    """(findings sorted, files linted, bad-input messages).  Each file is
    checked alone (lint_rules.py), then the primitives' registrations of
    all of them together (missing-rule)."""
    findings, errors, lines_of = set(), [], {}
    registry = Registry()
    for path in paths:
        try:
            names = python_files(path)
        except BadInput as e:
            errors.append(str(e))
            continue
        for name in names:
            if name in lines_of:
                continue
            try:
                source = read_source(name)
                tree = parse(name, source)
            except BadInput as e:
                errors.append(str(e))
                continue
            try:
                found = check_tree(tree, known)
                registry.add(name, tree)
            except (RecursionError, MemoryError):
                errors.append("%s:1:1: not checked: nested too deeply for "
                              "the check (Python's recursion limit)" % name)
                continue
            lines_of[name] = source.splitlines()
            findings.update(kept(name, lines_of[name], found))
    findings.update(missing_rules(registry, lines_of))
    return sorted(findings), len(lines_of), errors


def format_text(findings):
    return "".join("%s:%d:%d: %s: %s; fix: %s\n" % f for f in findings)


def format_json(findings, files):
    rows = [{"file": f[0], "line": f[1], "column": f[2], "class": f[3],
             "message": f[4], "fix": f[5]} for f in findings]
    return json.dumps({"files": files, "findings": rows}, indent=1) + "\n"


def arguments(argv):
    parser = Parser(prog="python -m lctx_jax.lint",
                    description="The static check of Python lowering code "
                    "for multi-platform export mistakes (classes: %s)."
                    % ", ".join(CLASSES))
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--known-platform", action="append", default=[],
                        metavar="NAME",
                        help="a platform to take as known, beside %s"
                        % ", ".join(KNOWN_PLATFORMS))
    parser.add_argument("--output", metavar="FILE",
                        help="write the findings here (default: stdout)")
    parser.add_argument("paths", nargs="+", metavar="PATH")
    return parser.parse_args(argv)


def main(argv=None):
    try:
        args = arguments(sys.argv[1:] if argv is None else argv)
    except ArgumentError as e:
        sys.stderr.write("python -m lctx_jax.lint: %s (usage: python -m "
                         "lctx_jax.lint [--format text|json] PATH...)\n" % e)
        return 2
    known = set(KNOWN_PLATFORMS) | set(args.known_platform)
    findings, files, errors = lint_paths(args.paths, known)
    text = format_json(findings, files) if args.format == "json" \
        else format_text(findings)
    try:
        if args.output:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(text)
        else:
            sys.stdout.write(text)
            sys.stdout.flush()
    except OSError as e:
        errors.append("%s: cannot write: %s" % (args.output or "stdout",
                                                e.strerror or e))
    for message in errors:
        sys.stderr.write("python -m lctx_jax.lint: %s\n" % message)
    if errors:
        return 2
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
