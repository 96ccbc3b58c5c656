"""Does my code export for several platforms?  One module checked in one
line, by the sweep's judge:

    python -m lctx_jax.check SPEC... [--package PKG] [--lctx PATH]
        [--jobs N] [--out DIR] [--lists N] [--seed S] [--format text|json]

SPEC is a user catalogue (conformance/sweep/USER.md: a file dir/mod.py or
a dotted module name defining LCTX_PROGRAMS or lctx_programs()); --package
PKG (repeatable) adds a program per primitive PKG registers.  This module
judges nothing itself: it runs

    lctx sweep --cmd "PYTHON jax_export.py --lctx LCTX --programs SPEC ..."

as a child process, with this Python (the one that has JAX and the user's
code) as the exporter's, reads the `diagnoses` of the sweep's report.json
(the C judge's: harness/core/judge/diagnose.h) and prints them as a
compiler does,

    FILE:LINE: CLASS: PROGRAM [P, Q]: what (PRIMITIVE, rule FILE:LINE
        (FUNCTION), called at FILE:LINE); fix: ...

then a summary line.  lctx is the one of --lctx, else $LCTX, else `lctx`
on PATH, else build/release/harness/lctx of the source tree this file lies
in.  Without --out the reports go to a temporary folder, removed when the
check passes and kept (and named) otherwise.

Exit status: 0 every program exported for its platform lists with no
diagnosis; 1 diagnoses (or findings the sweep made that it did not
diagnose); 2 bad input, or lctx could not judge (no lctx, lctx's exit 2,
no or a malformed report.json, nothing judged).  Everything printed that
came from outside (the report's texts, lctx's messages, file names) has
its control bytes escaped.

The pytest plugin (pytest_plugin.py) drives the same run through run().
Standard library only: JAX is imported by the exporter, not here.
"""

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
ADAPTERS = os.path.dirname(PACKAGE_DIR)
EXPORTER = os.path.join(ADAPTERS, "jax_export.py")
SOURCE_TREE = os.path.dirname(os.path.dirname(ADAPTERS))
TREE_LCTX = os.path.join(SOURCE_TREE, "build", "release", "harness", "lctx")
PROG = "lctx_jax.check"
CLASSES = ("get-backend", "host-backend", "missing-rule", "host-callback",
           "jax-defect", "other")
DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z")
_BIDI = set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A))


class CheckError(Exception):
    """Bad input, or lctx could not judge: the message says what and
    where (one line), `said` the end of what lctx printed (its lines); the
    check's exit status is 2."""

    def __init__(self, message, said=()):
        super().__init__(message)
        self.said = list(said)

    def text(self):
        """The message and lctx's lines, each escaped for a terminal."""
        return "\n".join([escape(self.args[0])] +
                         ["  lctx: " + escape(line, False) for line in self.said])


def escape(text, backslash=True):
    """TEXT as lctx shows outside text on a terminal (harness/core/
    escape.h): control bytes, the C1 and bidi controls and what is not
    UTF-8 become \\xNN per byte, a backslash becomes two (unless not
    BACKSLASH: for lctx's own lines, escaped by lctx already)."""
    out = []
    for ch in str(text):
        code = ord(ch)
        if ch == "\\" and backslash:
            out.append("\\\\")
        elif (code < 0x20 or 0x7F <= code <= 0x9F or code in _BIDI
              or 0xD800 <= code <= 0xDFFF):
            data = (bytes([code - 0xDC00]) if 0xDC80 <= code <= 0xDCFF
                    else ch.encode("utf-8", "surrogatepass"))
            out.append("".join("\\x%02x" % b for b in data))
        else:
            out.append(ch)
    return "".join(out)


def shown_path(path, cwd=None):
    """PATH relative to the working folder when under it, else as given."""
    if not path or not os.path.isabs(path):
        return path
    cwd = cwd or os.getcwd()
    try:
        rel = os.path.relpath(path, cwd)
    except ValueError:
        return path
    return path if rel.startswith(os.pardir) else rel


# -- finding lctx and the programs ------------------------------------------

def _runnable(path):
    return bool(path) and os.path.isfile(path) and os.access(path, os.X_OK)


def find_lctx(given=None, environ=None):
    """The lctx to run: GIVEN, else $LCTX, else `lctx` on PATH, else the
    source tree's build/release/harness/lctx.  A named one that cannot
    run is an error (naming it and who named it); so is finding none."""
    environ = os.environ if environ is None else environ
    for path, who in ((given, "--lctx"), (environ.get("LCTX"), "$LCTX")):
        if path:
            if not _runnable(path):
                raise CheckError("%s %s: no such executable" % (who, path))
            return os.path.abspath(path)
    on_path = shutil.which("lctx", path=environ.get("PATH", os.defpath))
    if on_path:
        return os.path.abspath(on_path)
    if _runnable(TREE_LCTX):
        return TREE_LCTX
    raise CheckError("no lctx: give --lctx PATH or $LCTX, put lctx on PATH, "
                     "or build it (make build: %s)" % TREE_LCTX)


def spec_arg(spec):
    """SPEC as the exporter is told it: a file made absolute (the exporter
    runs in a working folder of its own), a dotted module name as it is.
    A file that is not there, or a name that is neither, is an error."""
    if not isinstance(spec, str) or not spec:
        raise CheckError("a catalogue is a file dir/mod.py or a dotted "
                         "module name, not %r" % (spec,))
    if spec.endswith(".py") or os.sep in spec or os.path.exists(spec):
        if not os.path.isfile(spec):
            raise CheckError("%s: no such catalogue file" % spec)
        return os.path.abspath(spec)
    if not DOTTED.match(spec):
        raise CheckError("%s: neither a file nor a dotted module name" % spec)
    return spec


def module_spec(obj):
    """A catalogue given as a module object: its file."""
    path = getattr(obj, "__file__", None)
    if not path:
        raise CheckError("module %s has no file to export from"
                         % getattr(obj, "__name__", obj))
    return path


def exporter_command(lctx, specs, packages=(), python=None,
                     platforms=None):
    """The --cmd of the sweep: this Python running jax_export.py on the
    catalogues SPECS and the packages PACKAGES (PLATFORMS: the platform
    lists of the programs that declare none), quoted for lctx's
    command-line splitting (shell words)."""
    words = [python or sys.executable, EXPORTER, "--lctx", lctx]
    for spec in specs:
        words += ["--programs", spec]
    for package in packages:
        words += ["--package", package]
    if platforms is not None:
        words += ["--platforms", platform_option(platforms)]
    return " ".join(shlex.quote(w) for w in words)


def sweep_argv(lctx, command, out, jobs=None, lists=None, seed=None):
    """lctx sweep's argument vector: quiet (no live line), fresh results
    (--restart: a check judges the code as it is now)."""
    argv = [lctx, "sweep", "--cmd", command, "--out", out, "--quiet",
            "--restart"]
    for name, value in (("--jobs", jobs), ("--lists", lists),
                        ("--seed", seed)):
        if value is not None:
            argv += [name, str(value)]
    return argv


def child_environ(specs, packages):
    """The environment of lctx and so of the exporter: as ours, with the
    working folder first on PYTHONPATH when a catalogue or package is a
    module name (found as `python -m` finds modules: the exporter runs
    in a folder of its own)."""
    env = dict(os.environ)
    if packages or any(not os.path.isabs(s) for s in specs):
        parts = [os.getcwd()] + [p for p in env.get("PYTHONPATH", "")
                                 .split(os.pathsep) if p]
        env["PYTHONPATH"] = os.pathsep.join(parts)
    return env


# -- what the sweep wrote ----------------------------------------------------

class Diagnosis:
    """One diagnosis of report.json (the C judge's), checked field by
    field: program, platforms, class, primitive, file, line, rule,
    call_site, message, fix."""

    def __init__(self, obj, where):
        self.program = _field(obj, "program", str, where)
        self.platforms = tuple(_strings(obj, "platforms", where))
        self.cls = _field(obj, "class", str, where)
        self.primitive = _field(obj, "primitive", str, where, null=True)
        self.file = _field(obj, "file", str, where, null=True)
        self.line = _field(obj, "line", int, where, null=True)
        self.rule = _frame(obj, "rule", where, True)
        self.call_site = _frame(obj, "call_site", where, False)
        self.message = _field(obj, "message", str, where)
        self.fix = _field(obj, "fix", str, where)

    def location(self, cwd=None):
        """FILE:LINE of the diagnosis ("" when it has none)."""
        return _place(self.file, self.line, cwd)

    def text(self, cwd=None):
        """The diagnosis in a compiler's style, escaped for a terminal."""
        parts = []
        if self.primitive:
            parts.append(self.primitive)
        if self.rule:
            rule = "rule " + _place(self.rule["file"], self.rule["line"], cwd)
            if self.rule.get("function"):
                rule += " (%s)" % self.rule["function"]
            parts.append(rule)
        if self.call_site:
            parts.append("called at " + _place(self.call_site["file"],
                                               self.call_site["line"], cwd))
        what = self.message + (" (%s)" % ", ".join(parts) if parts else "")
        where = self.location(cwd)
        line = "%s%s: %s [%s]: %s; fix: %s" % (
            where + ": " if where else "", self.cls, self.program,
            ", ".join(self.platforms), what, self.fix)
        return escape(line)

    def as_json(self):
        return {"program": self.program, "platforms": list(self.platforms),
                "class": self.cls, "primitive": self.primitive,
                "file": self.file, "line": self.line, "rule": self.rule,
                "call_site": self.call_site, "message": self.message,
                "fix": self.fix}


def _place(path, line, cwd):
    if not path:
        return ""
    return shown_path(path, cwd) + (":%d" % line if line else "")


def _field(obj, key, kind, where, null=False):
    value = obj.get(key)
    if value is None and null:
        return None
    if not isinstance(value, kind) or isinstance(value, bool):
        raise CheckError("%s.%s: expected %s%s, got %s" % (
            where, key, "an integer" if kind is int else "a string",
            " or null" if null else "", _kind_of(value)))
    return value


def _strings(obj, key, where):
    value = obj.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str)
                                              for v in value):
        raise CheckError("%s.%s: expected a list of strings, got %s"
                         % (where, key, _kind_of(value)))
    return value


def _frame(obj, key, where, with_function):
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise CheckError("%s.%s: expected an object or null, got %s"
                         % (where, key, _kind_of(value)))
    at = "%s.%s" % (where, key)
    frame = {"file": _field(value, "file", str, at),
             "line": _field(value, "line", int, at, null=True)}
    if with_function:
        frame["function"] = _field(value, "function", str, at, null=True)
    return frame


def _kind_of(value):
    if value is None:
        return "null"
    return {bool: "a boolean", int: "an integer", float: "a number",
            str: "a string", list: "a list", dict: "an object"}.get(
                type(value), type(value).__name__)


def read_report(out):
    """The diagnoses and the count of judged cases of OUT/report.json; a
    missing, unreadable or malformed one is an error naming the file and
    the field."""
    path = os.path.join(out, "report.json")
    try:
        with open(path, "rb") as f:
            data = f.read(64 << 20)
        report = json.loads(data.decode("utf-8"))
    except FileNotFoundError:
        raise CheckError("%s: lctx wrote no report" % path) from None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise CheckError("%s: not a JSON report: %s" % (path, e)) from None
    if not isinstance(report, dict):
        raise CheckError("%s: not a JSON object" % path)
    judged = report.get("cases_run")
    if not isinstance(judged, int) or isinstance(judged, bool) or judged < 0:
        raise CheckError("%s: cases_run: expected a count, got %s"
                         % (path, _kind_of(judged)))
    diagnoses = report.get("diagnoses")
    if not isinstance(diagnoses, list):
        raise CheckError("%s: diagnoses: expected a list, got %s (an lctx "
                         "that does not diagnose?)" % (path, _kind_of(
                             diagnoses)))
    found = []
    for i, obj in enumerate(diagnoses):
        where = "%s: diagnoses[%d]" % (path, i)
        if not isinstance(obj, dict):
            raise CheckError("%s: expected an object, got %s"
                             % (where, _kind_of(obj)))
        found.append(Diagnosis(obj, where))
    return found, judged, report.get("result")


def read_results(out):
    """The platform lists and outcomes judged per program, from
    OUT/results.jsonl (lctx's lines naming a program; others skipped)."""
    lists = {}
    try:
        with open(os.path.join(out, "results.jsonl"), "rb") as f:
            lines = f.read(256 << 20).splitlines()
    except OSError:
        return lists
    for raw in lines:
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            continue
        if (isinstance(obj, dict) and isinstance(obj.get("program"), str)
                and isinstance(obj.get("platforms"), list)):
            outcome = obj.get("outcome")
            lists.setdefault(obj["program"], []).append(
                (tuple(str(p) for p in obj["platforms"]),
                 outcome if isinstance(outcome, str) else ""))
    return lists


# -- the result --------------------------------------------------------------

class Program:
    """One program of the check: its name, the platform lists it was
    judged on (with each case's outcome) and its diagnoses."""

    def __init__(self, name):
        self.name = name
        self.cases = []
        self.diagnoses = []

    @property
    def lists(self):
        return [platforms for platforms, _ in self.cases]

    @property
    def classes(self):
        return sorted({d.cls for d in self.diagnoses})

    @property
    def ok(self):
        return not self.diagnoses

    def __repr__(self):
        return "<Program %s: %s>" % (self.name, ", ".join(self.classes)
                                     or "exports")


class Result:
    """What one check found: `diagnoses` (Diagnosis), `by_program` (full
    program name -> Program), `ok`, the report folder `out` and lctx's
    exit status `status`."""

    def __init__(self, diagnoses, judged, cases, out, status, result=None):
        self.diagnoses = diagnoses
        self.judged = judged
        self.out = out
        self.status = status
        self.result = result
        self.by_program = {}
        for name, judged_cases in sorted(cases.items()):
            self._program(name).cases = judged_cases
        for d in diagnoses:
            self._program(d.program).diagnoses.append(d)

    def _program(self, name):
        if name not in self.by_program:
            self.by_program[name] = Program(name)
        return self.by_program[name]

    @property
    def ok(self):
        """Every program exported with no diagnosis and the sweep passed."""
        return not self.diagnoses and self.status == 0 and self.judged > 0

    def program(self, name):
        """The Program called NAME: its full name (user/MOD/NAME) or, when
        one program's ends so, its catalogue name."""
        if name in self.by_program:
            return self.by_program[name]
        hits = [p for n, p in self.by_program.items()
                if n.endswith("/" + name)]
        if len(hits) != 1:
            known = ", ".join(sorted(self.by_program)) or "none"
            raise KeyError("%s: %s program of that name (programs: %s)" % (
                name, "no" if not hits else "more than one", known))
        return hits[0]

    def text(self, cwd=None):
        """The diagnoses, one line each, escaped."""
        return "\n".join(d.text(cwd) for d in self.diagnoses)

    def summary(self):
        """One line: programs, judged lists, diagnoses by class."""
        counts = {}
        for d in self.diagnoses:
            counts[d.cls] = counts.get(d.cls, 0) + 1
        order = list(CLASSES) + sorted(set(counts) - set(CLASSES))
        by_class = ", ".join("%s %d" % (c, counts[c]) for c in order
                             if c in counts)
        clean = sum(1 for p in self.by_program.values() if p.ok)
        text = "%s, %s judged: " % (_count_of(len(self.by_program),
                                              "program"),
                                    _count_of(self.judged, "case"))
        if self.diagnoses:
            text += "%s (%s), %s clean" % (
                _count_of(len(self.diagnoses), "diagnosis", "diagnoses"),
                by_class, _count_of(clean, "program"))
        else:
            text += "no diagnosis"
        if self.status == 1 and not self.diagnoses:
            text += "; the sweep failed with no diagnosis (see %s)" % \
                os.path.join(self.out, "report.tap")
        return escape(text)

    def as_json(self):
        return {"ok": self.ok, "judged": self.judged, "out": self.out,
                "lctx_status": self.status,
                "diagnoses": [d.as_json() for d in self.diagnoses],
                "programs": {n: {"lists": [list(x) for x in p.lists],
                                 "classes": p.classes}
                             for n, p in self.by_program.items()}}


def _count_of(n, one, many=None):
    return "%d %s" % (n, one if n == 1 else many or one + "s")


# -- running -----------------------------------------------------------------

def platform_option(platforms):
    """The exporter's --platforms text of PLATFORMS: a text as the option
    takes it ("cpu,cuda;cuda,rocm"), one list of names or a list of lists;
    CheckError when it is none of these (the exporter checks the names)."""
    if isinstance(platforms, str):
        text = platforms
    elif (isinstance(platforms, (list, tuple)) and platforms
          and all(isinstance(p, str) for p in platforms)):
        text = ",".join(platforms)
    elif (isinstance(platforms, (list, tuple)) and platforms
          and all(isinstance(names, (list, tuple))
                  and all(isinstance(p, str) for p in names)
                  for names in platforms)):
        text = ";".join(",".join(names) for names in platforms)
    else:
        raise CheckError("platforms: not a list of platform names, a list "
                         "of such lists, or a text cpu,cuda;cuda,rocm "
                         "(got %r)" % (platforms,))
    if not text.strip() or any(c in text for c in "\n\r\0"):
        raise CheckError("platforms: %r names no platform list" % (text,))
    return text


def run(specs, packages=(), lctx=None, jobs=None, out=None, lists=None,
        seed=None, python=None, platforms=None):
    """Runs lctx sweep on the catalogues SPECS (files, dotted names or
    module objects) and the packages PACKAGES into OUT and returns its
    Result.  CheckError when the input is bad or lctx could not judge;
    its message then carries what lctx said."""
    specs = [spec_arg(module_spec(s) if not isinstance(s, str) else s)
             for s in specs]
    packages = [_package(p) for p in packages]
    if not specs and not packages:
        raise CheckError("nothing to check: name a catalogue or --package")
    if not os.path.isfile(EXPORTER):
        raise CheckError("%s: missing: lctx_jax runs from lctx's source tree "
                         "(install it editable: pip install -e "
                         "conformance/adapters)" % EXPORTER)
    lctx = find_lctx(lctx)
    command = exporter_command(lctx, specs, packages, python, platforms)
    argv = sweep_argv(lctx, command, out, jobs, lists, seed)
    try:
        proc = subprocess.run(argv, stdin=subprocess.DEVNULL,
                              capture_output=True,
                              env=child_environ(specs, packages))
    except OSError as e:
        raise CheckError("%s: cannot run: %s" % (lctx, e)) from None
    said = _said(proc)
    if proc.returncode not in (0, 1):
        raise CheckError("lctx sweep could not judge (exit %d)"
                         % proc.returncode, said)
    try:
        diagnoses, judged, result = read_report(out)
    except CheckError as e:
        raise CheckError(e.args[0], said) from None
    if judged == 0:
        raise CheckError("lctx sweep judged nothing (%s)"
                         % os.path.join(out, "report.json"), said)
    return Result(diagnoses, judged, read_results(out), out,
                  proc.returncode, result)


def _package(name):
    if not isinstance(name, str) or not DOTTED.match(name):
        raise CheckError("--package %r: not a dotted module name" % (name,))
    return name


def _said(proc, lines=12, width=300):
    """The last lines lctx printed on stderr (else stdout), to show, each
    cut to WIDTH characters."""
    text = (proc.stderr or proc.stdout or b"").decode("utf-8",
                                                      "surrogateescape")
    said = [line for line in text.split("\n") if line.strip()][-lines:]
    return [line if len(line) <= width else line[:width] + "..."
            for line in said]


def _arguments(argv):
    parser = argparse.ArgumentParser(
        prog="python -m " + PROG,
        description="Export the programs of user catalogues for several "
        "platforms with lctx sweep and print its diagnoses.")
    parser.add_argument("specs", nargs="*", metavar="SPEC",
                        help="a catalogue: dir/mod.py or a module name")
    parser.add_argument("--package", action="append", default=[],
                        metavar="PKG", help="a package whose primitives "
                        "get a program each (repeatable)")
    parser.add_argument("--lctx", metavar="PATH", help="the lctx to run")
    parser.add_argument("--jobs", type=_count(1, 64), metavar="N")
    parser.add_argument("--out", metavar="DIR", help="the report folder "
                        "(default: a temporary one, kept on failure)")
    parser.add_argument("--lists", type=_count(1, 64), metavar="N",
                        help="platform lists drawn per program without "
                        "declared ones")
    parser.add_argument("--seed", type=_count(0, 2 ** 63 - 1), metavar="S")
    parser.add_argument("--platforms", metavar="L1;L2",
                        help="the platform lists of the programs that "
                        "declare none, e.g. cpu,cuda;cuda,rocm,cpu (instead "
                        "of --lists drawn ones)")
    parser.add_argument("--format", choices=("text", "json"),
                        default="text")
    return parser.parse_args(argv)


def _count(low, high):
    def parse(text):
        try:
            value = int(text, 10)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(
                "%r is not a whole number from %d to %d" % (text, low, high))
        return value
    return parse


def main(argv=None):
    args = _arguments(sys.argv[1:] if argv is None else argv)
    out, temporary = args.out, args.out is None
    if temporary:
        out = tempfile.mkdtemp(prefix="lctx-check-")
    try:
        result = run(args.specs, args.package, args.lctx, args.jobs, out,
                     args.lists, args.seed, platforms=args.platforms)
    except CheckError as e:
        print("%s: %s" % (PROG, e.text()), file=sys.stderr)
        _finish(out, temporary, False)
        return 2
    if args.format == "json":
        print(json.dumps(result.as_json(), indent=2, sort_keys=True))
    else:
        if result.diagnoses:
            print(result.text())
        print("%s: %s" % (PROG, result.summary()))
    _finish(out, temporary, result.ok)
    return 0 if result.ok else 1


def _finish(out, temporary, passed):
    """Removes a temporary report folder after a pass; names a kept one."""
    if temporary and passed:
        shutil.rmtree(out, ignore_errors=True)
    elif temporary and os.path.isdir(out):
        print("%s: reports kept in %s" % (PROG, escape(out)),
              file=sys.stderr)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("%s: interrupted" % PROG, file=sys.stderr)
        sys.exit(2)
    except BrokenPipeError:
        sys.exit(1)
