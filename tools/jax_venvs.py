"""The JAX releases of this checkout, for the tools that use them.

A release is a number like 0.12.0.1 (ordered as numbers: 0.12.0 < 0.12.0.1 <
0.12.1). `sh tools/setup-jax.sh VERSION` installs it into the virtual
environment build/jax/venv-VERSION from the pinned requirements file
conformance/adapters/requirements/jax-VERSION.txt. This module finds those
environments and files, orders releases, and names paths relative to the
repository (the tools' reports name no machine paths of the checkout).
Used by tools/jax_release.py (tools/lctx_release/) and
tools/defect_status.py. Standard library only.
"""

import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REQ_DIR = os.path.join("conformance", "adapters", "requirements")
JAX_DIR = os.path.join(ROOT, "build", "jax")
RELEASE_RE = re.compile(r"^\d+(\.\d+)+$")


def release_key(text):
    """(0, 12, 0, 1) for "0.12.0.1"; None when text is not a release."""
    if not re.fullmatch(r"\d+(\.\d+)*", text):
        return None
    return tuple(int(p) for p in text.split("."))


def sort_releases(releases):
    return sorted(releases, key=release_key)


def repo_rel(path):
    """path relative to the repository root when inside it, else as given
    (a string either way)."""
    a = os.path.abspath(str(path))
    if a == ROOT:
        return "."
    return os.path.relpath(a, ROOT) if a.startswith(ROOT + os.sep) \
        else str(path)


def venv_dir(release, jax_dir=JAX_DIR):
    return os.path.join(str(jax_dir), "venv-" + release)


def venv_python(release, jax_dir=JAX_DIR):
    return os.path.join(venv_dir(release, jax_dir), "bin", "python")


def installed_venvs(jax_dir=JAX_DIR, ignored=None):
    """{release: its python} for every jax_dir/venv-RELEASE/bin/python (a
    link counts even when broken: running it says what is wrong). The
    folders whose name is no release are appended to `ignored` when given."""
    found = {}
    if not os.path.isdir(str(jax_dir)):
        return found
    for name in sorted(os.listdir(str(jax_dir))):
        if not name.startswith("venv-"):
            continue
        release = name[len("venv-"):]
        python = venv_python(release, jax_dir)
        if not (os.path.exists(python) or os.path.islink(python)):
            continue
        if release_key(release) is None:
            if ignored is not None:
                ignored.append(os.path.join(str(jax_dir), name))
            continue
        found[release] = python
    return found


def requirement_releases():
    """The releases with a requirements file (tools/setup-jax.sh can install
    them), in order."""
    folder = os.path.join(ROOT, REQ_DIR)
    out = []
    for f in os.listdir(folder) if os.path.isdir(folder) else []:
        if f.startswith("jax-") and f.endswith(".txt"):
            release = f[len("jax-"):-len(".txt")]
            if release_key(release) is not None:
                out.append(release)
    return sort_releases(out)
