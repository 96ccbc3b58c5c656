"""A user catalogue (conformance/sweep/USER.md) of brainevent's public API
on small CPU inputs: sparse (CSR) and dense matrix-vector products,
event-driven (binary) ones, and a just-in-time connectivity matrix.  Each
binds primitives brainevent registers through XLACustomKernel
(brainevent/_op/main.py: one lowering rule per platform: cpu, gpu (cuda,
rocm), tpu).  tools/user_packages.py sweeps it in
build/packages/brainevent/venv (docs/user-packages.md).

brainevent's CPU kernels are Numba functions it registers as XLA FFI
targets named brainevent_numba_ffi_FINGERPRINT (a hash of the kernel's
content, the same in every process: brainevent/_op/numba_ffi.py:954);
jax.export refuses such custom calls (no compatibility guarantees), so
each entry names its targets in `disabled_checks`, as a user exporting
brainevent kernels would, found by lowering the program for the CPU.
Each program declares the CPU with each other kind of kernel brainevent
has (tpu, and gpu as cuda and as rocm), so that each is seen alone."""

import re

import brainevent
import jax
import jax.numpy as jnp
import numpy as np

# A 4x4 CSR matrix with 6 entries.
DATA = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=np.float32)
INDICES = np.array([0, 2, 1, 3, 0, 3], dtype=np.int32)
INDPTR = np.array([0, 2, 3, 5, 6], dtype=np.int32)
V = np.linspace(0.5, 2.0, 4, dtype=np.float32)
SPIKES = np.array([True, False, True, True])
W = np.arange(16, dtype=np.float32).reshape(4, 4) / 16


def csr_matvec(data, v):
    """CSR @ vector: primitive csrmv."""
    return brainevent.CSR((data, INDICES, INDPTR), shape=(4, 4)) @ v


def csr_event_matvec(data, spikes):
    """CSR @ binary events: primitive binary_csrmv."""
    m = brainevent.CSR((data, INDICES, INDPTR), shape=(4, 4))
    return m @ brainevent.BinaryArray(spikes)


def dense_event_matvec(w, spikes):
    """dense @ binary events: primitive binary_densemv."""
    return w @ brainevent.BinaryArray(spikes)


def jitc_matvec(v):
    """a just-in-time connectivity matrix (one scalar weight) @ vector."""
    m = brainevent.JITCScalarR((jnp.float32(1.5), 0.5, 7), shape=(4, 4))
    return m @ v


LISTS = [["cpu", "tpu"], ["cpu", "cuda"], ["cpu", "rocm"]]


def entry(name, fn, args):
    """A catalogue entry whose brainevent FFI targets (those of its CPU
    lowering) may be serialized."""
    text = jax.jit(fn).trace(*args).lower(
        lowering_platforms=("cpu",)).as_text()
    targets = sorted(set(re.findall(r"custom_call @(brainevent_numba_ffi_\w+)",
                                    text)))
    return {"name": name, "fn": fn, "args": args, "platforms": LISTS,
            "disabled_checks": ["custom_call:" + t for t in targets]}


LCTX_PROGRAMS = [
    entry("csr_matvec", csr_matvec, (DATA, V)),
    entry("csr_event_matvec", csr_event_matvec, (DATA, SPIKES)),
    entry("dense_event_matvec", dense_event_matvec, (W, SPIKES)),
    entry("jitc_matvec", jitc_matvec, (V,)),
]
