"""A user catalogue (conformance/sweep/USER.md) of jaxdecomp's public API
on a small 3-D array (4x4x4, one device): the distributed FFTs, the halo
exchange and the pencil transposes, with backend "jax" (primitives
spmd_fft, spmd_halo_exchange, spmd_transpose: default rules,
jaxdecomp/_src/spmd_ops.py) and backend "cudecomp" (primitives
fft_wrapper, halo_exchange_wrapper, transpose_wrapper: a default rule
lowering through custom_partitioning to fft, halo_exchange and transpose,
which have a rule for cuda only).  tools/user_packages.py sweeps it in
build/packages/jaxdecomp/venv (docs/user-packages.md)."""

import jaxdecomp
import numpy as np

A = (np.arange(64, dtype=np.float32).reshape(4, 4, 4) / 64).astype(
    np.complex64)


def pfft3d(a):
    """3-D FFT, backend jax: primitive spmd_fft."""
    return jaxdecomp.fft.pfft3d(a)


def pifft3d(a):
    """inverse 3-D FFT, backend jax: primitive spmd_fft."""
    return jaxdecomp.fft.pifft3d(a)


def transpose_xy(a):
    """pencil transpose X to Y, backend jax: primitive spmd_transpose."""
    return jaxdecomp.transposeXtoY(a)


def halo(a):
    """halo exchange of one cell, backend jax: primitive
    spmd_halo_exchange."""
    return jaxdecomp.halo_exchange(a, halo_extents=(1, 1),
                                   halo_periods=(True, True))


def pfft3d_cudecomp(a):
    """3-D FFT, backend cudecomp: fft_wrapper, then fft (cuda only)."""
    return jaxdecomp.fft.pfft3d(a, backend="cudecomp")


LCTX_PROGRAMS = [
    {"name": "pfft3d", "fn": pfft3d, "args": (A,)},
    {"name": "pifft3d", "fn": pifft3d, "args": (A,)},
    {"name": "transpose_xy", "fn": transpose_xy, "args": (A,)},
    {"name": "halo", "fn": halo, "args": (A,)},
    {"name": "pfft3d_cudecomp", "fn": pfft3d_cudecomp, "args": (A,),
     "platforms": [["cuda", "cpu"], ["cuda", "rocm"]]},
]
