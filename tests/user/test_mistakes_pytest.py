"""What a library's own test suite writes with lctx's pytest plugin
(conformance/adapters/lctx_jax/pytest_plugin.py): its programs, listed in
a catalogue (mistakes.py here), must export for several platforms.  Here
every program but `clean` holds a mistake, so each test asserts the class
and the file:line lctx's sweep diagnoses for it.  Run by
tests/test_user_entries.sh:

    python -m pytest -p lctx_jax.pytest_plugin tests/user/test_mistakes_pytest.py \\
        --lctx build/release/harness/lctx

(lctx_jax importable: PYTHONPATH=conformance/adapters, or installed with
pip install ./conformance/adapters).  One sweep serves every test: the
fixture keeps each catalogue's result for the session."""

import os

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
CATALOGUE = os.path.join(HERE, "mistakes.py")
RULES = os.path.join(HERE, "user_rules.py")


def line_of(path, text):
    """The line number of the one line of PATH holding TEXT."""
    with open(path) as f:
        hits = [n for n, line in enumerate(f, 1) if text in line]
    assert len(hits) == 1, (path, text, hits)
    return hits[0]


# program: (class, file, the text on the line the diagnosis points at)
EXPECTED = {
    "get_backend": ("get-backend", RULES,
                    "backend = ctx.module_context.get_backend()"),
    "backend_read": ("get-backend", RULES,
                     "if ctx.module_context.backend is None"),
    "host_rule": ("host-backend", RULES, "jax.devices()[0].platform"),
    "host_trace": ("host-backend", CATALOGUE, "jax.default_backend()"),
    "missing_rule": ("missing-rule", None, None),
    "host_callback": ("host-callback", None, None),
    "jax_defect": ("jax-defect", None, None),
}


def test_clean_exports(lctx_export):
    """The adapted primitive exports for several platforms."""
    result = lctx_export.check(CATALOGUE)
    clean = result.program("clean")
    assert clean.ok, "\n".join(d.text() for d in clean.diagnoses)
    assert clean.lists and all(len(p) >= 2 for p in clean.lists)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_mistake_is_diagnosed(lctx_export, name):
    cls, path, text = EXPECTED[name]
    program = lctx_export.check(CATALOGUE).program(name)
    assert program.classes == [cls], [d.text() for d in program.diagnoses]
    for d in program.diagnoses:
        assert d.file and d.line, d.text()
        assert d.fix, d.text()
        assert d.location() in d.text()
    if path is not None:
        where = {(os.path.realpath(d.file), d.line)
                 for d in program.diagnoses}
        assert (os.path.realpath(path), line_of(path, text)) in where, \
            [d.text() for d in program.diagnoses]


def test_missing_rule_names_the_platform(lctx_export):
    program = lctx_export.check(CATALOGUE).program("missing_rule")
    d = program.diagnoses[0]
    assert d.primitive == "lctx_user_partial"
    assert "tpu" in d.message or "rocm" in d.message, d.text()


def test_assert_exports_with_expectations(lctx_export):
    expect = {name: cls for name, (cls, _, _) in EXPECTED.items()}
    expect["clean"] = None
    lctx_export.assert_exports(CATALOGUE, expect=expect)


def test_assert_exports_fails_with_the_diagnoses(lctx_export):
    """Without expectations the mistakes fail the test, and the failure
    says each one compiler-style (file:line: class: ...; fix: ...)."""
    with pytest.raises(pytest.fail.Exception) as failed:
        lctx_export.assert_exports(CATALOGUE)
    text = str(failed.value)
    rules = os.path.relpath(RULES)
    assert "%s:%d: get-backend: user/mistakes/get_backend [" % (
        rules, line_of(RULES, "ctx.module_context.get_backend()")) in text
    for cls in ("host-backend", "missing-rule", "host-callback",
                "jax-defect"):
        assert ": %s: " % cls in text
    assert "; fix: " in text
    assert "user/mistakes/clean" not in text


@pytest.mark.lctx_export(CATALOGUE, expect={
    "get_backend": "get-backend", "backend_read": "get-backend",
    "host_rule": "host-backend", "host_trace": "host-backend",
    "missing_rule": "missing-rule", "host_callback": "host-callback",
    "jax_defect": "jax-defect", "clean": None})
def test_marker():
    """The marker asserts the expectations before the test runs."""
