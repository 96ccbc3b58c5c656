"""Source trees of JAX: a folder holding jax/_src/ (a checkout, or an
installed release's site-packages), a git commit of jax-ml/jax, and the
units of the cited files of a tree."""

import glob
import os
import subprocess

from jax_venvs import installed_venvs, venv_dir, venv_python

from .base import VERSION_RE, version_key
from .units import newer_python, units_of


class DirTree(object):
    """A folder holding jax/_src/... (a source checkout or site-packages)."""

    def __init__(self, root, label, python=None):
        self.root, self.label, self.python = root, label, python

    def read(self, path):
        try:
            with open(os.path.join(self.root, path), encoding="utf-8") as f:
                return f.read()
        except OSError:
            return None


class GitTree(object):
    """A file of a git repository at a commit (git show)."""

    def __init__(self, gitdir, commit, label):
        self.gitdir, self.commit, self.label = gitdir, commit, label
        self.python = None

    def read(self, path):
        proc = subprocess.run(["git", "--git-dir", self.gitdir, "show",
                               "%s:%s" % (self.commit, path)],
                              stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
        return proc.stdout.decode("utf-8") if proc.returncode == 0 else None


def git_dir(path):
    """The git directory of `path` when it is a git repository, else None."""
    try:
        proc = subprocess.run(["git", "-C", path, "rev-parse",
                               "--absolute-git-dir"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    except OSError:
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def git_has(gitdir, commit):
    return subprocess.run(["git", "--git-dir", gitdir, "cat-file", "-e",
                           commit + "^{commit}"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0



def site_packages(version):
    found = sorted(glob.glob(os.path.join(venv_dir(version), "lib",
                                          "python3.*", "site-packages")))
    for sp in found:
        if os.path.isdir(os.path.join(sp, "jax", "_src")):
            return sp
    return None


def release_tree(version):
    sp = site_packages(version)
    if sp is None:
        return None
    return DirTree(sp, "jax %s" % version, venv_python(version))


def installed_versions():
    """The releases installed in build/jax/ with their jax/_src, in
    order."""
    return sorted((v for v in installed_venvs()
                   if VERSION_RE.match(v) and site_packages(v)),
                  key=version_key)


def tree_units(tree, files):
    """({file: units or None (missing)}, {file: source lines})."""
    sources, lines = {}, {}
    for f in files:
        text = tree.read(f)
        if text is not None:
            sources[f] = text
            lines[f] = text.splitlines()
    got = units_of(sources, [lambda: tree.python, newer_python])
    return {f: got.get(f) for f in files}, lines

