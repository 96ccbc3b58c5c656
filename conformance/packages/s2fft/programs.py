"""A user catalogue (conformance/sweep/USER.md) of s2fft's public API on
small CPU inputs (band-limit L = 4): the forward and inverse spherical
harmonic transforms with method "jax" (primitives ftm_to_flm and
flm_to_ftm: one default rule each, s2fft/transforms/_ftm_flm_primitive.py)
on MW and HEALPix samplings.  Method "jax_cuda" (primitive
healpix_fft_cuda, a rule for cuda only, s2fft/utils/healpix_ffts.py) is
left out: the PyPI wheel is built without CUDA and refuses it at trace
time (MissingCUDASupport) on every platform list.  tools/user_packages.py sweeps it in
build/packages/s2fft/venv (docs/user-packages.md)."""

import numpy as np
import s2fft

L = 4
NSIDE = 2
RNG = np.random.default_rng(0)
F_MW = RNG.normal(size=(L, 2 * L - 1)).astype(np.complex64)
F_HP = RNG.normal(size=12 * NSIDE * NSIDE).astype(np.complex64)
FLM = RNG.normal(size=(L, 2 * L - 1)).astype(np.complex64)


def forward_mw(f):
    """forward transform, MW sampling: primitive ftm_to_flm."""
    return s2fft.forward(f, L, method="jax")


def inverse_mw(flm):
    """inverse transform, MW sampling: primitive flm_to_ftm."""
    return s2fft.inverse(flm, L, method="jax")


def forward_healpix(f):
    """forward transform, HEALPix sampling, the pure-JAX FFT."""
    return s2fft.forward(f, L, nside=NSIDE, sampling="healpix", method="jax")



LCTX_PROGRAMS = [
    {"name": "forward_mw", "fn": forward_mw, "args": (F_MW,)},
    {"name": "inverse_mw", "fn": inverse_mw, "args": (FLM,)},
    {"name": "forward_healpix", "fn": forward_healpix, "args": (F_HP,)},
]
