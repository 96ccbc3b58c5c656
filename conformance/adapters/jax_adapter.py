#!/usr/bin/env python3
"""lctx adapter for JAX itself (lctx_jax/adapter.py says what it does):

    lctx conform --cmd "build/jax/venv-0.10.2/bin/python \\
                        conformance/adapters/jax_adapter.py"

This file only starts it: the package lctx_jax beside it is imported as
any package is (Python puts this file's folder first on its path); its log
lines are prefixed with this file's name, "jax_adapter: "."""

import sys

from lctx_jax.adapter import main

if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (BrokenPipeError, KeyboardInterrupt):
        sys.exit(1)
