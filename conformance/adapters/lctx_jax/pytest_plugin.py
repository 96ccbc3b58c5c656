"""A pytest plugin: a library's own tests assert that its programs export
for several platforms, judged by lctx's sweep (the same run as
`python -m lctx_jax.check`, check.py; no judge of its own).

Loaded with `pytest -p lctx_jax.pytest_plugin`, or by itself once lctx_jax
is installed (`pip install ./conformance/adapters`: the pytest11 entry
point).  It adds

    --lctx PATH        the lctx to run (else $LCTX, `lctx` on PATH, the
                       source tree's build/release/harness/lctx)
    --lctx-out DIR     keep each check's reports under DIR (else temporary
                       folders, removed when the session ends)

and the fixture `lctx_export` (one per session; a catalogue is exported
once however many tests ask):

    def test_exports(lctx_export):
        lctx_export.assert_exports("tests/programs.py")

    def test_mistake(lctx_export):
        result = lctx_export.check(my_programs)      # a file, name or module
        assert result.program("bad").classes == ["get-backend"]

    @pytest.mark.lctx_export("tests/programs.py",
                             expect={"bad": "get-backend"})
    def test_marked():
        ...

`check(SPEC, platforms=None, package=None)` returns check.Result
(`.diagnoses`, `.ok`, `.by_program`, `.program(NAME)`); `platforms` (a list
of names, a list of such lists, or "cpu,cuda;cuda,rocm") gives the programs
that declare no lists those (the exporter's --platforms); without it they
get lists drawn by the sweep.
`assert_exports(SPEC, expect=None)` fails the test with the diagnoses, one
compiler-style line each (FILE:LINE: CLASS: PROGRAM [P]: what; fix: ...),
unless every program exports with no diagnosis; EXPECT ({NAME: CLASS or
None}) instead asks each named program for exactly that class (None: none)
and every other program for none.  Bad input or an lctx that could not
judge fails the test with what lctx said.
"""

import os
import shutil
import tempfile

import pytest

from . import check as _check


def pytest_addoption(parser):
    group = parser.getgroup("lctx", "multi-platform export checks (lctx)")
    group.addoption("--lctx", metavar="PATH", default=None,
                    help="the lctx that judges (default: $LCTX, lctx on "
                    "PATH, the source tree's build/release/harness/lctx)")
    group.addoption("--lctx-out", metavar="DIR", default=None,
                    help="keep the reports of each check under DIR")


class LctxExport:
    """The fixture's object: runs lctx sweep on catalogues and remembers
    each result for the session."""

    def __init__(self, lctx=None, out=None):
        self.lctx = lctx
        self.out = out
        self._results = {}
        self._temporary = []

    def check(self, spec=None, platforms=None, package=None):
        """The Result of exporting the programs of SPEC (a catalogue file,
        a module name or a module object) and/or the primitives of PACKAGE
        (a name or a list of names).  Raises pytest's failure when lctx
        could not judge (its message is lctx's)."""
        specs = [] if spec is None else [spec]
        packages = ([] if package is None else
                    [package] if isinstance(package, str) else list(package))
        try:
            spec_args = [_check.spec_arg(s if isinstance(s, str)
                                         else _check.module_spec(s))
                         for s in specs]
            option = (None if platforms is None
                      else _check.platform_option(platforms))
        except _check.CheckError as e:
            pytest.fail(e.text(), pytrace=False)
        key = (tuple(spec_args), tuple(packages), option)
        if key not in self._results:
            self._results[key] = self._run(spec_args, packages, option)
        return self._results[key]

    def _run(self, specs, packages, platforms=None):
        out = self._folder()
        try:
            return _check.run(specs, packages, lctx=self.lctx, out=out,
                              platforms=platforms)
        except _check.CheckError as e:
            pytest.fail("%s\n(reports in %s)" % (e.text(),
                                                 _check.escape(out)),
                        pytrace=False)

    def _folder(self):
        if self.out:
            os.makedirs(self.out, exist_ok=True)
            return tempfile.mkdtemp(prefix="check-", dir=self.out)
        folder = tempfile.mkdtemp(prefix="lctx-pytest-")
        self._temporary.append(folder)
        return folder

    def assert_exports(self, spec=None, expect=None, package=None):
        """Fails the test unless the programs export as EXPECT says
        (None: every program with no diagnosis); the failure lists the
        diagnoses that differ, file:line: class: ...; fix: ..."""
        result = self.check(spec, package=package)
        problems = expectation_problems(result, expect or {})
        if problems:
            pytest.fail("\n".join(problems), pytrace=False)
        return result

    def close(self):
        for folder in self._temporary:
            shutil.rmtree(folder, ignore_errors=True)


def expectation_problems(result, expect):
    """The lines saying where RESULT differs from EXPECT ({NAME: CLASS,
    None or a set of classes}): a named program with other classes, an
    unnamed one with any diagnosis, a named one not judged."""
    problems, named = [], set()
    for name, want in sorted(expect.items()):
        try:
            program = result.program(name)
        except KeyError as e:
            problems.append(_check.escape(e.args[0]))
            continue
        named.add(program.name)
        wanted = (set() if want is None else {want} if isinstance(want, str)
                  else set(want))
        if set(program.classes) != wanted:
            problems.append("%s: expected %s, got %s" % (
                _check.escape(program.name),
                ", ".join(sorted(wanted)) or "no diagnosis",
                ", ".join(program.classes) or "no diagnosis"))
            problems += ["  " + d.text() for d in program.diagnoses]
    for program in result.by_program.values():
        if program.name not in named and program.diagnoses:
            problems += [d.text() for d in program.diagnoses]
    if not problems and not expect and not result.ok:
        problems.append("lctx sweep failed with no diagnosis: "
                        + result.summary())
    return problems


EXPORT = pytest.StashKey()


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "lctx_export(SPEC, expect=None, package=None): the test "
        "first asserts that SPEC's programs export as EXPECT says "
        "(lctx_export.assert_exports)")
    config.stash[EXPORT] = LctxExport(config.getoption("--lctx"),
                                      config.getoption("--lctx-out"))


def pytest_unconfigure(config):
    export = config.stash.get(EXPORT, None)
    if export is not None:
        export.close()


def pytest_runtest_call(item):
    for mark in item.iter_markers("lctx_export"):
        item.config.stash[EXPORT].assert_exports(*mark.args, **mark.kwargs)


@pytest.fixture(scope="session")
def lctx_export(request):
    """Checks that programs export for several platforms (LctxExport)."""
    return request.config.stash[EXPORT]
