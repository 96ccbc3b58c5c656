#!/usr/bin/env python3
"""Generated programs (conformance/sweep/PROGRAMS.md) in JAX, from the
command line (no JAX needed; lctx_jax/program_text.py says more):

    python conformance/adapters/jax_program.py --check FILE
    python conformance/adapters/jax_program.py --source FILE \
        [--platforms P,...]
    python conformance/adapters/jax_program.py --repro FILE --platforms P,...

This file only starts it: the package lctx_jax beside it is imported as
any package is (Python puts this file's folder first on its path)."""

import sys

from lctx_jax.program import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
