"""A user catalogue (conformance/sweep/USER.md) of equinox's public and
internal API on small CPU inputs, each program reaching primitives equinox
registers with lowering rules (equinox/_unvmap.py, equinox/internal/
_nontraceable.py, _noinline.py, _loop/common.py, equinox/_errors.py).
tools/user_packages.py sweeps it in build/packages/equinox/venv
(docs/user-packages.md)."""

import equinox as eqx
import equinox.internal as eqxi
import jax
import jax.numpy as jnp
import numpy as np

X = np.linspace(-1.0, 1.0, 8, dtype=np.float32)
B = np.array([True, False, True, False])


def mlp(x):
    """eqx.nn.MLP forward: only JAX's primitives (the clean baseline)."""
    model = eqx.nn.MLP(8, 2, 4, 1, key=jax.random.PRNGKey(0))
    return model(x)


def unvmap_any(b):
    """equinox.internal.unvmap_any: primitive unvmap_any (default rule)."""
    return eqxi.unvmap_any(b)


def unvmap_max(x):
    """equinox.internal.unvmap_max: primitive unvmap_max."""
    return eqxi.unvmap_max(x)


def nondifferentiable(x):
    """equinox.internal.nondifferentiable_backward: its primitive."""
    return eqxi.nondifferentiable_backward(x) * 2


def error_if(x):
    """eqx.error_if: a runtime check, lowered through jax.pure_callback."""
    return eqx.error_if(x, x > 10.0, "x too large")


def noinline(x):
    """equinox.internal.noinline: primitive noinline, whose rule emits a
    Python callback (mlir.emit_python_callback)."""
    return eqxi.noinline(jnp.sin)(x)


def checkpointed_while(x):
    """equinox.internal.while_loop, checkpointed: primitives select_if_vmap
    and maybe_set inside a while loop."""
    def body(carry):
        i, v = carry
        return i + 1, v * 0.5
    return eqxi.while_loop(lambda c: c[0] < 3, body, (0, x), max_steps=4,
                           kind="checkpointed")[1]


LCTX_PROGRAMS = [
    {"name": "mlp", "fn": mlp, "args": (X,)},
    {"name": "unvmap_any", "fn": unvmap_any, "args": (B,)},
    {"name": "unvmap_max", "fn": unvmap_max, "args": (X,)},
    {"name": "nondifferentiable", "fn": nondifferentiable, "args": (X,)},
    {"name": "error_if", "fn": error_if, "args": (X,)},
    {"name": "noinline", "fn": noinline, "args": (X,)},
    {"name": "checkpointed_while", "fn": checkpointed_while, "args": (X,)},
]
