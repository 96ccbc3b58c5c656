#!/usr/bin/env python3
"""The JAX drift matrix: every spec row against several JAX releases.

    python3 tools/jax_matrix.py [options] [VERSION ...] [CONFORM OPTIONS] [-- MORE]

`--help` says it all (tools/lctx_matrix/cli.py); the parts are in
tools/lctx_matrix/, by job. What other tools use is here by name: the
verdict names (VERDICTS, BAD), a side's conform runs (side_runs), and
lctx's merge and verdict of a version's runs (merge_runs).
"""

import sys

from lctx_matrix.cells import BAD, VERDICTS
from lctx_matrix.cli import main
from lctx_matrix.lctx import merge_runs
from lctx_matrix.runs import side_runs

__all__ = ["BAD", "VERDICTS", "main", "merge_runs", "side_runs"]

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
