"""A user catalogue (conformance/sweep/USER.md) of warp-lang's JAX
interoperability (warp.jax_kernel) on small CPU inputs: a Warp
kernel called from JAX with jax_kernel.  Warp registers no primitive of
its own: it registers XLA FFI targets for cpu and CUDA
(warp/_src/jax/ffi.py `_register_ffi_targets`) and binds JAX's ffi_call,
whose lowering rule is JAX's; at trace time it loads the kernel's module
for the host's current JAX device (`_preload_ffi_module`,
warp/_src/jax/__init__.py `get_jax_device`).  tools/user_packages.py
sweeps it in build/packages/warp-lang/venv (docs/user-packages.md).

The FFI target of a jax_kernel is named after the kernel (its `name`,
warp/_src/jax/ffi.py:263); jax.export refuses custom calls without
compatibility guarantees, so the entry names it in `disabled_checks`.
It declares (cpu, cuda), the platforms Warp registers targets for, and
(cpu, tpu), one it does not."""

import numpy as np
import warp as wp
from warp import jax_kernel

wp.config.quiet = True


@wp.kernel
def scale_kernel(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 2.0 * x[i]


SCALE = jax_kernel(scale_kernel)
X = np.linspace(0.0, 1.0, 8, dtype=np.float32)


def scale(x):
    """y = 2 x through a Warp kernel (JAX's ffi_call)."""
    return SCALE(x)[0]


LCTX_PROGRAMS = [
    {"name": "scale", "fn": scale, "args": (X,),
     "disabled_checks": ["custom_call:" + SCALE.name],
     "platforms": [["cpu", "cuda"], ["cpu", "tpu"]]},
]
