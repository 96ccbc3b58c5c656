"""What every part of the release command shares: the repository's files it
reads and writes, its failure (StepFailed) and its report lines
(Reporter)."""

import os

# ROOT and REQ_DIR: the other parts take them from here.
from jax_venvs import (ROOT, REQ_DIR, RELEASE_RE,  # noqa: F401
                       release_key, repo_rel)

INDEX = os.path.join("conformance", "adapters", "cited_functions.json")
CLIENTS_PY = os.path.join("conformance", "adapters", "lctx_jax",
                          "jaxlib_clients.py")
ADAPTER = os.path.join("conformance", "adapters", "jax_adapter.py")
RELEASE_C = os.path.join("reference", "src", "release.c")
RELEASE_H = os.path.join("reference", "include", "lctx", "release.h")
SPECS = (os.path.join("conformance", "spec", "backend-selection.lspec"),
         os.path.join("conformance", "spec", "jax-sweep.lspec"))
MAIN_SPEC = SPECS[0]
DEFAULT_LCTX = os.path.join("build", "release", "harness", "lctx")
VERSION_RE = RELEASE_RE
FACTORY_CALL = "register_backend_factory"
# The arguments `make jax-matrix` gives tools/jax_matrix.py (Makefile,
# JAX_MATRIX_ARGS).
FULL_MATRIX = ["--random", "10000", "--domain-shard", "1/8",
               "--time-limit", "900"]


class StepFailed(Exception):
    """A step of the release command failed; the message says why."""


class Reporter(object):
    """The report's lines: each printed as it comes and kept."""

    def __init__(self):
        self.lines = []

    def __call__(self, text=""):
        print(text, flush=True)
        self.lines.append(text)


version_key = release_key

# Paths in the report are relative to the repository when inside it (the
# report names no machine paths of the repository).
rel = repo_rel


def overlaps(a, b, start, end):
    """Whether the lines a-b and start-end share a line."""
    return a <= end and b >= start


def ranges_text(ranges):
    """"3,5-7" of [(3, 3), (5, 7)]."""
    return ",".join("%d" % a if a == b else "%d-%d" % (a, b)
                    for a, b in ranges)
