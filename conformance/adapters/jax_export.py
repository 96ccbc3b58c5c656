#!/usr/bin/env python3
"""lctx program for JAX's own programs, exported for several platforms
(lctx_jax/export_main.py says what it does):

    lctx sweep --cmd "build/jax/venv-0.10.2/bin/python \\
                      conformance/adapters/jax_export.py --host-devices 4"
    build/jax/venv-0.10.2/bin/python conformance/adapters/jax_export.py \\
        --list [--lctx PATH]
    build/jax/venv-0.10.2/bin/python conformance/adapters/jax_export.py \\
        --programs dir/mod.py --list     (a user's own, sweep/USER.md)

This file only starts it: the package lctx_jax beside it is imported as
any package is (Python puts this file's folder first on its path)."""

import sys

from lctx_jax.export_main import main

if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (BrokenPipeError, KeyboardInterrupt):
        sys.exit(1)
