"""A user catalogue (conformance/sweep/USER.md) of cuequivariance-jax's
public API on small CPU inputs: spherical harmonics and a channel-wise
tensor product through cuex.segmented_polynomial (primitive
segmented_polynomial: a default rule and a cuda rule, both
`segmented_polynomial_impl` with the platform bound,
cuequivariance_jax/segmented_polynomials/segmented_polynomial.py), with
method "naive" (pure JAX everywhere) and "uniform_1d" (the CUDA kernel of
cuequivariance-ops-jax on cuda, naive elsewhere).
tools/user_packages.py sweeps it in build/packages/cuequivariance-jax/venv
(docs/user-packages.md)."""

import cuequivariance as cue
import cuequivariance_jax as cuex
import jax
import jax.numpy as jnp
import numpy as np

SH = cue.descriptors.spherical_harmonics(cue.SO3(1), [0, 1, 2]).polynomial
TP = cue.descriptors.channelwise_tensor_product(
    cue.Irreps(cue.O3, "2x0e + 2x1o"), cue.Irreps(cue.O3, "0e + 1o"),
    cue.Irreps(cue.O3, "2x0e + 2x1o")).polynomial
RNG = np.random.default_rng(0)
VEC = np.array([0.0, 1.0, 0.0], dtype=np.float32)
W = RNG.normal(size=(TP.inputs[0].size,)).astype(np.float32)
A = RNG.normal(size=(3, TP.inputs[1].size)).astype(np.float32)
B = RNG.normal(size=(3, TP.inputs[2].size)).astype(np.float32)


def spherical_harmonics(v):
    """spherical harmonics of degrees 0 to 2, method naive."""
    return cuex.segmented_polynomial(
        SH, [v], [jax.ShapeDtypeStruct((-1,), jnp.float32)],
        method="naive")[0]


def tensor_product_naive(w, a, b):
    """a channel-wise tensor product of 3 pairs, method naive."""
    out = jax.ShapeDtypeStruct((3, TP.outputs[0].size), jnp.float32)
    return cuex.segmented_polynomial(TP, [w, a, b], [out],
                                     method="naive")[0]


def tensor_product_uniform_1d(w, a, b):
    """the same product, method uniform_1d: the cuda rule calls the CUDA
    kernel, the default rule falls back to naive."""
    out = jax.ShapeDtypeStruct((3, TP.outputs[0].size), jnp.float32)
    return cuex.segmented_polynomial(TP, [w, a, b], [out],
                                     method="uniform_1d")[0]


LCTX_PROGRAMS = [
    {"name": "spherical_harmonics", "fn": spherical_harmonics,
     "args": (VEC,)},
    {"name": "tensor_product_naive", "fn": tensor_product_naive,
     "args": (W, A, B)},
    {"name": "tensor_product_uniform_1d", "fn": tensor_product_uniform_1d,
     "args": (W, A, B)},
]
