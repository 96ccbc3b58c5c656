"""A user catalogue (conformance/sweep/USER.md) of jax-finufft's public API
on small CPU inputs: the type 1, 2 and 3 non-uniform FFTs in one
dimension, each binding its primitive (nufft1, nufft2, nufft3: one rule,
jax_finufft/lowering.py `lowering`, registered for cpu, and for cuda only
when the wheel was built with GPU support: jax_finufft/ops.py).
tools/user_packages.py sweeps it in build/packages/jax-finufft/venv
(docs/user-packages.md).

The rule emits a custom call of an FFI target the extension registers
(jax_finufft/lowering.py:24: nufft1d1, nufft1d2, nufft1d3 in double
precision); jax.export refuses custom calls without compatibility
guarantees, so each entry names its target in `disabled_checks`."""

import numpy as np
from jax_finufft import nufft1, nufft2, nufft3

RNG = np.random.default_rng(0)
X = RNG.uniform(-np.pi, np.pi, 16)
C = (RNG.normal(size=16) + 1j * RNG.normal(size=16)).astype(np.complex128)
F = (RNG.normal(size=8) + 1j * RNG.normal(size=8)).astype(np.complex128)
S = np.linspace(-4.0, 4.0, 8)


def type1(c, x):
    """non-uniform points to 8 Fourier modes: primitive nufft1."""
    return nufft1(8, c, x, eps=1e-6)


def type2(f, x):
    """8 Fourier modes to non-uniform points: primitive nufft2."""
    return nufft2(f, x, eps=1e-6)


def type3(c, x, s):
    """non-uniform to non-uniform frequencies: primitive nufft3."""
    return nufft3(c, x, s, eps=1e-6)


LCTX_PROGRAMS = [
    {"name": "type1", "fn": type1, "args": (C, X), "x64": True,
     "disabled_checks": ["custom_call:nufft1d1"]},
    {"name": "type2", "fn": type2, "args": (F, X), "x64": True,
     "disabled_checks": ["custom_call:nufft1d2"]},
    {"name": "type3", "fn": type3, "args": (C, X, S), "x64": True,
     "disabled_checks": ["custom_call:nufft1d3"]},
]
